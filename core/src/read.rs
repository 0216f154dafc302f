//! Reads: the request that says what to read, and the stream that yields the rows.
//!
//! A read never materialises the table: [`RowStream`] walks the row set's disjoint ranges one
//! at a time through the storage's ordered iterators, hides GC-collectable cells, applies the
//! compiled filter, and stops at the row limit. Rows filtered to nothing are skipped and do
//! not count toward the limit.

use alloc::vec::Vec;

use crate::filter::{CompiledFilter, RowFilter};
use crate::random::SplitMix64;
use crate::row::Row;
use crate::row_set::{RowRange, RowSet};
use crate::table::Table;

/// What to read: which rows, what of them, how many, in which direction.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReadRowsRequest {
    /// The rows to visit; empty means all.
    pub row_set: RowSet,
    /// What to keep of each row; the default keeps everything.
    pub filter: RowFilter,
    /// Most rows to return; 0 means no limit, negative is `InvalidArgument`.
    pub rows_limit: i64,
    /// Return rows in descending key order (cells within a row keep their order).
    pub reversed: bool,
}

/// The rows of a read, produced one at a time.
pub struct RowStream<'a> {
    pub(crate) table: &'a Table,
    pub(crate) ranges: alloc::vec::IntoIter<RowRange>,
    /// The range being walked and the last row key visited in it.
    pub(crate) current: Option<(RowRange, Option<Vec<u8>>)>,
    pub(crate) reversed: bool,
    pub(crate) remaining: Option<u64>,
    pub(crate) now_micros: i64,
    pub(crate) filter: CompiledFilter,
    pub(crate) random: SplitMix64,
    pub(crate) rows_scanned: u64,
}

impl RowStream<'_> {
    /// How many stored rows the read has visited so far (returned or filtered out).
    pub fn rows_scanned(&self) -> u64 {
        self.rows_scanned
    }
}

impl Iterator for RowStream<'_> {
    type Item = Row;

    fn next(&mut self) -> Option<Row> {
        if self.remaining == Some(0) {
            return None;
        }
        loop {
            let (range, last) = match &mut self.current {
                Some(c) => c,
                None => self.current.insert((self.ranges.next()?, None)),
            };
            let Some(key) = self.table.next_row(range, last.as_deref(), self.reversed) else {
                self.current = None;
                continue;
            };
            *last = Some(key.clone());
            self.rows_scanned += 1;
            let Some(mut row) = self.table.read_row(&key, self.now_micros) else {
                self.table.record_read(&key, self.now_micros, 0, None);
                continue;
            };
            let scanned = row.cells.len();
            if !self.filter.is_pass_all() {
                row.cells = self.filter.apply(&key, row.cells, &mut self.random);
                if row.cells.is_empty() {
                    self.table.record_read(&key, self.now_micros, scanned, None);
                    continue;
                }
            }
            self.table
                .record_read(&key, self.now_micros, scanned, Some(&row));
            if let Some(r) = &mut self.remaining {
                *r -= 1;
            }
            return Some(row);
        }
    }
}
