//! Bigtable's documented limits, enforced with `InvalidArgument` (shared/REFERENCE.md),
//! and the limits requests carry in proto3 defaults ([`rows_limit`]), interpreted here once
//! for every front-end.

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
/// Most nodes in one RowFilter tree (every filter counts, chains and interleaves included).
/// Filters are validated and compiled per request, so their size bounds a request's CPU
/// before any row is read; real filters have a handful of nodes, and an interleave of a few
/// hundred column selectors still fits. Front-ends whose callers can share one object at many
/// places (Python, Kotlin) also count filters while converting and refuse the rest, so a small
/// object graph cannot expand into an exponential tree before the engine sees it.
pub const MAX_FILTER_NODES: usize = 1000;
/// Most regex bytes in one RowFilter, all its regexes together: Cloud Bigtable refuses row
/// filters over 20 KB, and compiling regexes is what makes a large filter expensive.
pub const MAX_FILTER_REGEX_BYTES: usize = 20 * 1024;
/// Largest valid user timestamp under MILLIS granularity.
pub const MAX_TIMESTAMP_MICROS: i64 = i64::MAX - (i64::MAX % 1000);
/// Deepest nesting of a GC rule, counting the leaf rules as a level (what the on-disk
/// encoding reads back). Every front-end counts levels while it converts a rule, before it
/// descends, so no recursive code (conversion, validation, GC, `Debug`, `Drop`) sees a deeper
/// tree.
pub const MAX_GC_RULE_DEPTH: usize = 32;
/// Most rules (leaves and lists) in one GC rule. Bigtable documents no such limit; it is here
/// because a front-end whose callers can share one object at many places (a JavaScript or
/// Python object graph) would otherwise expand a small graph into an exponential tree: each
/// front-end counts rules while it converts, and refuses the rest.
pub const MAX_GC_RULE_NODES: usize = 1024;

/// ReadRows' `rows_limit` as the proto defines it: the most rows to return, where 0 (the
/// proto default) means no limit. `None` is no limit.
///
/// # Errors
/// `InvalidArgument` for a negative limit, as Cloud Bigtable answers.
pub fn rows_limit(rows_limit: i64) -> crate::Result<Option<u64>> {
    match u64::try_from(rows_limit) {
        Ok(0) => Ok(None),
        Ok(n) => Ok(Some(n)),
        Err(_) => Err(crate::Error::invalid_argument(alloc::format!(
            "rows_limit {rows_limit} must not be negative"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_limit_zero_is_no_limit_and_negative_is_refused() {
        assert_eq!(rows_limit(0), Ok(None));
        assert_eq!(rows_limit(3), Ok(Some(3)));
        assert_eq!(
            rows_limit(-1).unwrap_err().code(),
            crate::Code::InvalidArgument
        );
    }
}
