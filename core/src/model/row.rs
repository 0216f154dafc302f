//! What reads return: rows of cells in Bigtable order.
//!
//! Invariant of every [`Row`] the engine returns: cells are grouped by family (families by
//! name), qualifiers ascending within a family, and timestamps descending within a column.

use alloc::string::String;
use alloc::vec::Vec;

/// One timestamped value of one column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    /// The column family's name.
    pub family: String,
    /// The column qualifier.
    pub qualifier: Vec<u8>,
    /// Microseconds since the Unix epoch.
    pub timestamp_micros: i64,
    /// The cell's value.
    pub value: Vec<u8>,
    /// Labels attached by an `apply_label_transformer` filter.
    pub labels: Vec<String>,
}

/// A row as returned by a read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The row key.
    pub key: Vec<u8>,
    /// The row's cells, in Bigtable order.
    pub cells: Vec<Cell>,
}

/// One SampleRowKeys entry: rows before `row_key` hold about `offset_bytes` bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampleRowKey {
    /// A boundary key; the last entry's is empty and stands for the end of the table.
    pub row_key: Vec<u8>,
    /// Approximate bytes of data in rows sorting before `row_key`.
    pub offset_bytes: u64,
}
