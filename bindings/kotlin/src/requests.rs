//! Records of the Data API calls: a single-row write and read as one argument each,
//! MutateRows entries and their per-entry failures, ReadModifyWriteRow rules, DropRowRange
//! and SampleRowKeys; and their conversions to and from the core's types.
//!
//! Why a point write, read, check-and-mutate or read-modify-write is one record and not
//! several arguments: uniffi's Kotlin glue
//! lowers each `String` / `Vec` argument into a buffer of its own, and allocating one is a
//! native call through JNA (several microseconds on the JVM, more than the engine's work for
//! a point read). One record is one buffer, so the call makes two fewer native calls.

use crate::filter::RowFilter;
use crate::types::Mutation;

/// MutateRow's arguments: the mutations of one row of one table.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct RowWrite {
    /// The table.
    pub table_id: String,
    /// The row.
    pub row_key: Vec<u8>,
    /// Its mutations, applied atomically and in order.
    pub mutations: Vec<Mutation>,
}

/// CheckAndMutateRow's arguments: `true_mutations` apply if `predicate` yields any cell of
/// the row (no predicate: if the row has any cell), else `false_mutations`.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct ConditionalWrite {
    /// The table.
    pub table_id: String,
    /// The row.
    pub row_key: Vec<u8>,
    /// The condition.
    pub predicate: Option<RowFilter>,
    /// Applied when it matches.
    pub true_mutations: Vec<Mutation>,
    /// Applied when it does not.
    pub false_mutations: Vec<Mutation>,
}

/// ReadModifyWriteRow's arguments: rules applied to the latest cells of one row.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct RowModify {
    /// The table.
    pub table_id: String,
    /// The row.
    pub row_key: Vec<u8>,
    /// The appends and increments, in order.
    pub rules: Vec<ReadModifyWriteRule>,
}

/// ReadRow's arguments: one row of one table, through a filter (`None` keeps every cell).
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct RowRead {
    /// The table.
    pub table_id: String,
    /// The row.
    pub row_key: Vec<u8>,
    /// What to keep of it.
    pub filter: Option<RowFilter>,
}

/// The mutations of one row in a MutateRows batch.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct RowMutationEntry {
    /// The row.
    pub row_key: Vec<u8>,
    /// Its mutations, applied atomically and in order.
    pub mutations: Vec<Mutation>,
}

/// A MutateRows entry that failed (the others were applied).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct EntryFailure {
    /// The entry's position in the batch.
    pub index: u64,
    /// gRPC's upper-case code name.
    pub code: String,
    /// What was wrong.
    pub reason: String,
}

/// What a ReadModifyWriteRow rule does to its column's latest cell.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum ReadModifyWriteOp {
    /// Appends bytes (a missing cell counts as empty).
    AppendValue {
        /// The bytes to append.
        value: Vec<u8>,
    },
    /// Adds to the value as a big-endian int64 (a missing cell counts as 0).
    IncrementAmount {
        /// The amount.
        amount: i64,
    },
}

/// One ReadModifyWriteRow rule.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ReadModifyWriteRule {
    /// The column's family.
    pub family: String,
    /// The column's qualifier.
    pub qualifier: Vec<u8>,
    /// What to do.
    pub op: ReadModifyWriteOp,
}

/// Which rows DropRowRange deletes.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum DropRowRange {
    /// Every row whose key starts with `prefix` (non-empty).
    Prefix {
        /// The key prefix.
        prefix: Vec<u8>,
    },
    /// Every row of the table.
    All,
}

/// One SampleRowKeys entry: rows sorting before `row_key` hold about `offset_bytes` bytes.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct SampleRowKey {
    /// A boundary key; the last entry's is empty (the end of the table).
    pub row_key: Vec<u8>,
    /// Approximate bytes before it.
    pub offset_bytes: u64,
}

impl From<RowMutationEntry> for sparsetable::RowMutations {
    fn from(e: RowMutationEntry) -> Self {
        sparsetable::RowMutations {
            row_key: e.row_key,
            mutations: e.mutations.into_iter().map(Into::into).collect(),
        }
    }
}

impl From<ReadModifyWriteRule> for sparsetable::ReadModifyWriteRule {
    fn from(r: ReadModifyWriteRule) -> Self {
        sparsetable::ReadModifyWriteRule {
            family: r.family,
            qualifier: r.qualifier,
            op: match r.op {
                ReadModifyWriteOp::AppendValue { value } => {
                    sparsetable::ReadModifyWriteOp::AppendValue(value)
                }
                ReadModifyWriteOp::IncrementAmount { amount } => {
                    sparsetable::ReadModifyWriteOp::IncrementAmount(amount)
                }
            },
        }
    }
}

impl From<DropRowRange> for sparsetable::DropRowRange {
    fn from(d: DropRowRange) -> Self {
        match d {
            DropRowRange::Prefix { prefix } => sparsetable::DropRowRange::Prefix(prefix),
            DropRowRange::All => sparsetable::DropRowRange::All,
        }
    }
}

impl From<sparsetable::SampleRowKey> for SampleRowKey {
    fn from(s: sparsetable::SampleRowKey) -> Self {
        SampleRowKey {
            row_key: s.row_key,
            offset_bytes: s.offset_bytes,
        }
    }
}
