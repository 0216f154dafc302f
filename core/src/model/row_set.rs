//! Row sets: which rows a read visits.
//!
//! A [`RowSet`] is a list of keys plus a list of ranges; an empty set means the whole table.
//! Overlapping keys and ranges select each row once. Ranges use [`core::ops::Bound`] for
//! open, closed or unbounded ends, as Bigtable's `RowRange`.

use alloc::vec::Vec;
use core::ops::Bound;

use crate::{Error, Result};

/// A contiguous range of row keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowRange {
    /// Where the range starts.
    pub start: Bound<Vec<u8>>,
    /// Where the range ends.
    pub end: Bound<Vec<u8>>,
}

impl RowRange {
    /// Every row.
    pub fn all() -> Self {
        RowRange {
            start: Bound::Unbounded,
            end: Bound::Unbounded,
        }
    }

    /// `[start, end)`; an empty `end` means unbounded, as in Bigtable.
    pub fn closed_open(start: impl Into<Vec<u8>>, end: impl Into<Vec<u8>>) -> Self {
        let end = end.into();
        RowRange {
            start: Bound::Included(start.into()),
            end: if end.is_empty() {
                Bound::Unbounded
            } else {
                Bound::Excluded(end)
            },
        }
    }

    /// Every row whose key starts with `prefix`.
    pub fn prefix(prefix: impl Into<Vec<u8>>) -> Self {
        let prefix = prefix.into();
        let end = prefix_successor(&prefix);
        RowRange {
            start: Bound::Included(prefix),
            end: match end {
                Some(e) => Bound::Excluded(e),
                None => Bound::Unbounded,
            },
        }
    }

    /// Whether `key` falls inside the range.
    pub fn contains(&self, key: &[u8]) -> bool {
        let after_start = match &self.start {
            Bound::Included(s) => key >= s.as_slice(),
            Bound::Excluded(s) => key > s.as_slice(),
            Bound::Unbounded => true,
        };
        let before_end = match &self.end {
            Bound::Included(e) => key <= e.as_slice(),
            Bound::Excluded(e) => key < e.as_slice(),
            Bound::Unbounded => true,
        };
        after_start && before_end
    }

    /// Whether no key can fall inside the range.
    pub fn is_empty(&self) -> bool {
        match (&self.start, &self.end) {
            (Bound::Unbounded, _) | (_, Bound::Unbounded) => false,
            (Bound::Included(s), Bound::Included(e)) => s > e,
            (Bound::Included(s), Bound::Excluded(e))
            | (Bound::Excluded(s), Bound::Included(e))
            | (Bound::Excluded(s), Bound::Excluded(e)) => s >= e,
        }
    }

    /// Rejects a range whose start lies after its end (Bigtable: InvalidArgument).
    ///
    /// # Errors
    /// `InvalidArgument` if start > end.
    pub fn validate(&self) -> Result<()> {
        let bad = match (&self.start, &self.end) {
            (Bound::Unbounded, _) | (_, Bound::Unbounded) => false,
            (Bound::Included(s) | Bound::Excluded(s), Bound::Included(e) | Bound::Excluded(e)) => {
                s > e
            }
        };
        if bad {
            Err(Error::invalid_argument(
                "row_ranges: start key is after end key",
            ))
        } else {
            Ok(())
        }
    }
}

/// The smallest key greater than every key with the given prefix, or `None` if unbounded.
pub fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

/// A set of rows to read: keys plus ranges; empty means all rows.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RowSet {
    /// Individual row keys.
    pub row_keys: Vec<Vec<u8>>,
    /// Key ranges.
    pub row_ranges: Vec<RowRange>,
}

impl RowSet {
    /// The whole table.
    pub fn all() -> Self {
        RowSet::default()
    }

    /// A single row.
    pub fn single(key: impl Into<Vec<u8>>) -> Self {
        RowSet {
            row_keys: alloc::vec![key.into()],
            row_ranges: Vec::new(),
        }
    }

    /// Whether the set selects the whole table.
    pub fn is_all(&self) -> bool {
        self.row_keys.is_empty() && self.row_ranges.is_empty()
    }

    /// Whether `key` is selected.
    pub fn contains(&self, key: &[u8]) -> bool {
        self.is_all()
            || self.row_keys.iter().any(|k| k.as_slice() == key)
            || self.row_ranges.iter().any(|r| r.contains(key))
    }

    /// Checks every range and key.
    ///
    /// # Errors
    /// `InvalidArgument` for an empty row key or a range whose start is after its end.
    pub fn validate(&self) -> Result<()> {
        if self.row_keys.iter().any(Vec::is_empty) {
            return Err(Error::invalid_argument(
                "row_keys: a row key must be non-empty",
            ));
        }
        self.row_ranges.iter().try_for_each(RowRange::validate)
    }

    /// The set as disjoint, sorted ranges (keys become single-key closed ranges), so a scan
    /// visits each row once. Empty ranges are dropped.
    pub fn normalized_ranges(&self) -> Vec<RowRange> {
        if self.is_all() {
            return alloc::vec![RowRange::all()];
        }
        let mut ranges: Vec<RowRange> = self
            .row_keys
            .iter()
            .map(|k| RowRange {
                start: Bound::Included(k.clone()),
                end: Bound::Included(k.clone()),
            })
            .chain(self.row_ranges.iter().cloned())
            .filter(|r| !r.is_empty())
            .collect();
        ranges.sort_by(|a, b| cmp_start(&a.start, &b.start));
        let mut merged: Vec<RowRange> = Vec::with_capacity(ranges.len());
        for r in ranges {
            match merged.last_mut() {
                Some(last) if overlaps_or_touches(&last.end, &r.start) => {
                    if cmp_end(&r.end, &last.end) == core::cmp::Ordering::Greater {
                        last.end = r.end;
                    }
                }
                _ => merged.push(r),
            }
        }
        merged
    }
}

fn cmp_start(a: &Bound<Vec<u8>>, b: &Bound<Vec<u8>>) -> core::cmp::Ordering {
    use core::cmp::Ordering::*;
    match (a, b) {
        (Bound::Unbounded, Bound::Unbounded) => Equal,
        (Bound::Unbounded, _) => Less,
        (_, Bound::Unbounded) => Greater,
        (Bound::Included(x), Bound::Included(y)) | (Bound::Excluded(x), Bound::Excluded(y)) => {
            x.cmp(y)
        }
        (Bound::Included(x), Bound::Excluded(y)) => x.cmp(y).then(Less),
        (Bound::Excluded(x), Bound::Included(y)) => x.cmp(y).then(Greater),
    }
}

fn cmp_end(a: &Bound<Vec<u8>>, b: &Bound<Vec<u8>>) -> core::cmp::Ordering {
    use core::cmp::Ordering::*;
    match (a, b) {
        (Bound::Unbounded, Bound::Unbounded) => Equal,
        (Bound::Unbounded, _) => Greater,
        (_, Bound::Unbounded) => Less,
        (Bound::Included(x), Bound::Included(y)) | (Bound::Excluded(x), Bound::Excluded(y)) => {
            x.cmp(y)
        }
        (Bound::Included(x), Bound::Excluded(y)) => x.cmp(y).then(Greater),
        (Bound::Excluded(x), Bound::Included(y)) => x.cmp(y).then(Less),
    }
}

/// Whether a range ending at `end` overlaps or is adjacent to one starting at `start`
/// (given the second starts no earlier than the first).
fn overlaps_or_touches(end: &Bound<Vec<u8>>, start: &Bound<Vec<u8>>) -> bool {
    match (end, start) {
        (Bound::Unbounded, _) | (_, Bound::Unbounded) => true,
        (Bound::Included(e), Bound::Included(s)) => s <= e,
        (Bound::Included(e), Bound::Excluded(s)) | (Bound::Excluded(e), Bound::Included(s)) => {
            s <= e
        }
        (Bound::Excluded(e), Bound::Excluded(s)) => s < e,
    }
}
