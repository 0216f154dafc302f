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

    /// What a client re-issues after a read failed mid-stream, having received `delivered`
    /// rows, the last of them `last_key` (`None`: none yet, so the same read again): the
    /// row set cut past `last_key` ([`ReadRowsRequest::resume_after`]) and a `rows_limit`
    /// lowered by the rows received. `None` when nothing is left to read: the row set is
    /// used up or the limit reached. This is how Google's clients resume a ReadRows stream
    /// (the Node client's `createReadStream` narrows its ranges and limit the same way), so
    /// no row is delivered twice and none is lost.
    pub fn resume_after_rows(
        &self,
        last_key: Option<&[u8]>,
        delivered: u64,
    ) -> Option<ReadRowsRequest> {
        let mut next = match last_key {
            Some(key) => self.resume_after(key)?,
            None => self.clone(),
        };
        if self.rows_limit > 0 {
            let left = u64::try_from(self.rows_limit)
                .unwrap_or(0)
                .saturating_sub(delivered);
            if left == 0 {
                return None;
            }
            next.rows_limit = i64::try_from(left).unwrap_or(i64::MAX);
        }
        Some(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn keys(request: &ReadRowsRequest) -> Vec<RowRange> {
        request.row_set.normalized_ranges()
    }

    #[test]
    fn a_resumed_read_lowers_its_limit_and_ends_when_it_is_reached() {
        let limited = ReadRowsRequest {
            rows_limit: 5,
            ..Default::default()
        };
        let next = limited.resume_after_rows(Some(b"c"), 3).unwrap();
        assert_eq!(next.rows_limit, 2);
        assert_eq!(
            keys(&next),
            vec![RowRange {
                start: Bound::Excluded(b"c".to_vec()),
                end: Bound::Unbounded,
            }]
        );
        assert!(limited.resume_after_rows(Some(b"e"), 5).is_none());
        assert_eq!(limited.resume_after_rows(None, 0), Some(limited.clone()));
        let unlimited = ReadRowsRequest::default();
        assert_eq!(
            unlimited
                .resume_after_rows(Some(b"c"), 9)
                .unwrap()
                .rows_limit,
            0
        );
    }

    #[test]
    fn a_resumed_read_of_keys_keeps_the_keys_not_yet_delivered() {
        let request = ReadRowsRequest {
            row_set: RowSet {
                row_keys: vec![b"a".to_vec(), b"m".to_vec(), b"z".to_vec()],
                row_ranges: Vec::new(),
            },
            reversed: true,
            ..Default::default()
        };
        let next = request.resume_after_rows(Some(b"m"), 2).unwrap();
        let left = keys(&next);
        assert_eq!(left.len(), 1);
        assert!(left[0].contains(b"a") && !left[0].contains(b"m"));
        assert!(request.resume_after_rows(Some(b"a"), 3).is_none());
    }
}
