//! Change streams as the API offers them: the log of a table's committed changes, its
//! retention and the positions readers resume from. The log lives with its table
//! (`crate::table::change_log`, whose module docs hold the rules and their sources), so a
//! compaction can log the cells garbage collection removed; this module names it for the
//! front-ends.

pub use crate::table::change_log::{
    decode_changes, encode_changes, validate_retention, ChangeKind, ChangeLog, ChangeRecord,
    StreamPosition, CHANGES_MAGIC, MAX_RETENTION_MICROS, MIN_RETENTION_MICROS,
};
