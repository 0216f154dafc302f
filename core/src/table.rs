//! Layer 6, tables: tablets (each an LSM over a key range), the table that routes rows to
//! them, splitting and merging, access statistics, and reads as streams of rows.
//!
//! Contract: a table's tablets are sorted, contiguous and cover every key; a row lives in
//! exactly one tablet; a mutation of one row is applied to one tablet as a whole. A table
//! can describe itself as manifest records (`durability::manifest`) and be rebuilt from
//! them. Imports: `durability`, `lsm`, `codec`, `model`, `platform` and the foundation.

pub mod batch;
pub(crate) mod change_log;
#[cfg(feature = "std")]
pub(crate) mod compaction;
pub mod read;
pub(crate) mod scan;
pub mod stats;
// The layer is named after its central concept, as LevelDB's `table/table.cc` is.
#[allow(clippy::module_inception)]
pub(crate) mod table;
pub(crate) mod tablet;
