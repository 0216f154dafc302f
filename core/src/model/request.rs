//! Read requests: which rows a read visits, what it keeps of them, how many, in which order.
//!
//! A [`ReadRowsRequest`] is a plain value (Bigtable's `ReadRowsRequest` without the table
//! name); it is validated when a read starts (the filter compiled, the limit checked).

use alloc::vec::Vec;
use core::ops::Bound;

use crate::model::filter::RowFilter;
use crate::model::row_set::{RowRange, RowSet};

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

impl ReadRowsRequest {
    /// The same read continued strictly after `last_key` in its direction (strictly
    /// before it when reversed): its row set cut to what lies beyond `last_key`. `None`
    /// when nothing of the row set is left (an empty row set would mean every row).
    ///
    /// Pass the last row a read returned, or its `last_scanned_key` so that rows it
    /// examined and filtered out are not examined again. `rows_limit` is left as it is:
    /// a caller resuming a limited read lowers it by the rows already received.
    pub fn resume_after(&self, last_key: &[u8]) -> Option<ReadRowsRequest> {
        let ranges: Vec<RowRange> = self
            .row_set
            .normalized_ranges()
            .into_iter()
            .map(|mut r| {
                if self.reversed {
                    let before_last = match &r.end {
                        Bound::Included(e) => e.as_slice() < last_key,
                        Bound::Excluded(e) => e.as_slice() <= last_key,
                        Bound::Unbounded => false,
                    };
                    if !before_last {
                        r.end = Bound::Excluded(last_key.to_vec());
                    }
                } else {
                    let after_last = match &r.start {
                        Bound::Included(s) => s.as_slice() > last_key,
                        Bound::Excluded(s) => s.as_slice() >= last_key,
                        Bound::Unbounded => false,
                    };
                    if !after_last {
                        r.start = Bound::Excluded(last_key.to_vec());
                    }
                }
                r
            })
            .filter(|r| !r.is_empty())
            .collect();
        (!ranges.is_empty()).then(|| ReadRowsRequest {
            row_set: RowSet {
                row_keys: Vec::new(),
                row_ranges: ranges,
            },
            ..self.clone()
        })
    }
}
