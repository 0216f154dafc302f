//! Row sets: which rows a read visits.
//!
//! A [`RowSet`] is a list of keys plus a list of ranges; an empty set means the whole table.
//! Overlapping keys and ranges select each row once. Ranges use [`core::ops::Bound`] for
//! open, closed or unbounded ends, as Bigtable's `RowRange`.
//!
//! Wire rule, kept here once for every front-end: in a Bigtable `RowRange` an empty row key
//! as a bound (closed or open, start or end) means unbounded on that side, and an unset
//! bound is unbounded too. Front-ends build ranges with [`RowRange::from_wire`] or
//! [`RowRange::from_wire_bounds`] and never apply the rule themselves.

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

    /// `[start, end)`; an empty key on either side means unbounded, as in Bigtable.
    pub fn closed_open(start: impl Into<Vec<u8>>, end: impl Into<Vec<u8>>) -> Self {
        RowRange::from_wire_bounds(Bound::Included(start.into()), Bound::Excluded(end.into()))
    }

    /// The range a `RowRange` message means, from its two oneofs as bounds: an empty key as
    /// a bound, closed or open, is unbounded on that side (Bigtable's rule for the unset
    /// proto3 `bytes` value), and `Bound::Unbounded` is a oneof left unset.
    pub fn from_wire_bounds(start: Bound<Vec<u8>>, end: Bound<Vec<u8>>) -> Self {
        let wire = |b: Bound<Vec<u8>>| match b {
            Bound::Included(k) | Bound::Excluded(k) if k.is_empty() => Bound::Unbounded,
            other => other,
        };
        RowRange {
            start: wire(start),
            end: wire(end),
        }
    }

    /// The range a `RowRange` message means, from its four optional fields as a front-end
    /// whose API names them separately (JSON, keyword arguments) receives them. Empty keys
    /// are unbounded as in [`RowRange::from_wire_bounds`].
    ///
    /// # Errors
    /// `InvalidArgument` if both `start_key_closed` and `start_key_open`, or both
    /// `end_key_closed` and `end_key_open`, are given: the proto's oneof holds one.
    pub fn from_wire(
        start_key_closed: Option<Vec<u8>>,
        start_key_open: Option<Vec<u8>>,
        end_key_closed: Option<Vec<u8>>,
        end_key_open: Option<Vec<u8>>,
    ) -> Result<Self> {
        let side =
            |closed: Option<Vec<u8>>, open: Option<Vec<u8>>, which: &str| match (closed, open) {
                (Some(_), Some(_)) => Err(Error::invalid_argument(alloc::format!(
                    "row_range: at most one of {which}_key_closed and {which}_key_open may be set"
                ))),
                (Some(k), None) => Ok(Bound::Included(k)),
                (None, Some(k)) => Ok(Bound::Excluded(k)),
                (None, None) => Ok(Bound::Unbounded),
            };
        Ok(RowRange::from_wire_bounds(
            side(start_key_closed, start_key_open, "start")?,
            side(end_key_closed, end_key_open, "end")?,
        ))
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

    /// The keys both ranges hold, or `None` when they share none.
    pub fn intersect(&self, other: &RowRange) -> Option<RowRange> {
        let start = if cmp_start(&self.start, &other.start) == core::cmp::Ordering::Less {
            other.start.clone()
        } else {
            self.start.clone()
        };
        let end = if cmp_end(&self.end, &other.end) == core::cmp::Ordering::Greater {
            other.end.clone()
        } else {
            self.end.clone()
        };
        let range = RowRange { start, end };
        (!range.is_empty()).then_some(range)
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
                "Row keys must be non-empty (row_keys holds an empty key)",
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
        // Merged in place (no second vector: a point read normalises one range per read):
        // `ranges[..kept]` are the merged ranges so far, and each later range either
        // extends the last of them or becomes the next one.
        let mut kept = 0;
        for i in 0..ranges.len() {
            if kept > 0 && overlaps_or_touches(&ranges[kept - 1].end, &ranges[i].start) {
                if cmp_end(&ranges[i].end, &ranges[kept - 1].end) == core::cmp::Ordering::Greater {
                    ranges[kept - 1].end = core::mem::replace(&mut ranges[i].end, Bound::Unbounded);
                }
            } else {
                ranges.swap(kept, i);
                kept += 1;
            }
        }
        ranges.truncate(kept);
        ranges
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

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn empty_key_as_any_bound_is_unbounded() {
        let e = || Some(Vec::new());
        for (sc, so, ec, eo) in [
            (e(), None, None, None),
            (None, e(), None, None),
            (None, None, e(), None),
            (None, None, None, e()),
            (e(), None, None, e()),
        ] {
            assert_eq!(RowRange::from_wire(sc, so, ec, eo), Ok(RowRange::all()));
        }
        let r = RowRange::from_wire(None, Some(b"a".to_vec()), Some(Vec::new()), None).unwrap();
        assert_eq!(r.start, Bound::Excluded(b"a".to_vec()));
        assert_eq!(r.end, Bound::Unbounded);
        assert_eq!(
            RowRange::closed_open("", ""),
            RowRange::all(),
            "closed_open follows the same rule"
        );
    }

    #[test]
    fn both_bounds_of_one_side_are_invalid() {
        let k = || Some(vec![b'k']);
        for (sc, so, ec, eo) in [(k(), k(), None, None), (None, None, k(), k())] {
            let err = RowRange::from_wire(sc, so, ec, eo).unwrap_err();
            assert_eq!(err.code(), crate::Code::InvalidArgument);
        }
    }
}
