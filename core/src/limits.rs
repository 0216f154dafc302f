//! Bigtable's documented limits, enforced with `InvalidArgument` (shared/REFERENCE.md).

/// Longest row key, in bytes. Row keys must also be non-empty.
pub const MAX_ROW_KEY_BYTES: usize = 4 * 1024;
/// Longest column qualifier, in bytes.
pub const MAX_QUALIFIER_BYTES: usize = 16 * 1024;
/// Default largest cell value, in bytes (a table option).
pub const DEFAULT_MAX_VALUE_BYTES: usize = 100 * 1024 * 1024;
/// Most mutations in one MutateRow, and in one MutateRows request in total.
pub const MAX_MUTATIONS_PER_REQUEST: usize = 100_000;
/// Longest column family name.
pub const MAX_FAMILY_NAME_CHARS: usize = 64;
/// Longest table id.
pub const MAX_TABLE_ID_CHARS: usize = 50;
/// Deepest nesting of a RowFilter.
pub const MAX_FILTER_DEPTH: usize = 20;
/// Largest valid user timestamp under MILLIS granularity.
pub const MAX_TIMESTAMP_MICROS: i64 = i64::MAX - (i64::MAX % 1000);
/// Deepest nesting of a GC rule (what the on-disk encoding reads back).
pub const MAX_GC_RULE_DEPTH: usize = 32;
