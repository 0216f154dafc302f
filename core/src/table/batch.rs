//! Reading a [`RowStream`] in batches: the one loop every front-end runs to hand rows across
//! its boundary (a Python call, a JNI call, a wasm call, a gRPC message) a batch at a time.
//!
//! A batch is bounded three ways, each optional through [`BatchLimits`]:
//! - the rows it returns (`max_rows`), and their bytes (`max_bytes`: row key, qualifiers and
//!   values, the measure of [`row_bytes`]); the row that crosses `max_bytes` is kept, so a
//!   batch always makes progress when a row is there;
//! - the work it may do (`slice_cells`, `slice_bytes`): the stream's scan budget is extended
//!   by one slice before the batch ([`RowStream::extend_scan_budget`]), so a batch returns to
//!   its caller after a bounded amount of scanning even when a filter drops every row. Such
//!   a batch may be empty while [`RowBatch::more`] is true.
//!
//! Invariants: a batch never holds rows of a failed read: when the stream fails part-way the
//! call returns the error (the rows pulled in that batch are dropped with it, since the
//! caller must report the read as failed, not hand out its prefix as if the table ended
//! there). `more` false means the stream has ended (exhausted, or its row limit reached) and
//! a caller may free it; `more` true means rows may follow (a batch that filled up exactly at
//! the end says so, and the next batch is empty with `more` false).

use alloc::vec::Vec;

use crate::model::row::Row;
use crate::table::read::RowStream;
use crate::Result;

/// The bounds of one batch (see the module docs). `usize::MAX` / `u64::MAX` mean unbounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchLimits {
    /// Rows per batch (at least one is asked for).
    pub max_rows: usize,
    /// Bytes per batch ([`row_bytes`]); the row crossing it is kept.
    pub max_bytes: usize,
    /// Cells the batch may examine (returned or filtered out) before it returns.
    pub slice_cells: u64,
    /// Bytes the batch may examine before it returns.
    pub slice_bytes: u64,
}

impl BatchLimits {
    /// No bound but `max_rows`: the batch ends at that many rows or at the end of the read.
    pub const fn rows(max_rows: usize) -> Self {
        BatchLimits {
            max_rows,
            max_bytes: usize::MAX,
            slice_cells: u64::MAX,
            slice_bytes: u64::MAX,
        }
    }

    /// These limits with the batch's scanning bounded to one slice of `cells` cells or
    /// `bytes` bytes.
    pub const fn with_slice(self, cells: u64, bytes: u64) -> Self {
        BatchLimits {
            slice_cells: cells,
            slice_bytes: bytes,
            ..self
        }
    }

    /// These limits with the batch's returned bytes bounded by `bytes`.
    pub const fn with_max_bytes(self, bytes: usize) -> Self {
        BatchLimits {
            max_bytes: bytes,
            ..self
        }
    }
}

/// One batch: the rows, in the read's order, and whether more may follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowBatch {
    /// The rows.
    pub rows: Vec<Row>,
    /// False once the stream has ended (see the module docs).
    pub more: bool,
}

/// The bytes of `row` a batch counts: its key, and each cell's qualifier and value.
pub fn row_bytes(row: &Row) -> usize {
    row.key.len()
        + row
            .cells
            .iter()
            .map(|c| c.qualifier.len() + c.value.len())
            .sum::<usize>()
}

impl RowStream {
    /// The next batch of rows within `limits` (see the module docs).
    ///
    /// # Errors
    /// The error that ended the read ([`RowStream::status`]): `DataLoss` for a corrupt block,
    /// or the storage's error.
    pub fn next_batch(&mut self, limits: &BatchLimits) -> Result<RowBatch> {
        if limits.slice_cells != u64::MAX || limits.slice_bytes != u64::MAX {
            self.extend_scan_budget(limits.slice_cells, limits.slice_bytes);
        }
        let max_rows = limits.max_rows.max(1);
        let mut rows = Vec::new();
        let mut bytes = 0usize;
        while rows.len() < max_rows && bytes < limits.max_bytes {
            let Some(row) = self.try_next()? else {
                let more = self.is_paused();
                return Ok(RowBatch { rows, more });
            };
            bytes = bytes.saturating_add(row_bytes(&row));
            rows.push(row);
        }
        Ok(RowBatch { rows, more: true })
    }
}
