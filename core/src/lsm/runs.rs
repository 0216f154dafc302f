//! A tablet's immutable runs, newest first, with an index of their key ranges.
//!
//! A point read used to ask every run for its key range and compare it with the row: two
//! virtual calls and up to two key comparisons per run, for every read, although after a
//! load in key order the runs hold disjoint ranges and at most one or two can hold the row.
//! [`Runs`] keeps, beside the list, the runs grouped into levels of disjoint ranges (by
//! [`disjoint_levels`], the grouping a scan makes of its sources), each level in key order
//! with copies of its runs' first and last keys, so [`Runs::overlapping`] finds a row's runs
//! by a binary search per level over contiguous keys.
//!
//! Invariants: the index always describes the list exactly (the list changes only through
//! methods that rebuild it, and it is shared by `Arc`, so a clone, such as a read's
//! snapshot, shares it instead of copying keys); every run appears in exactly one level;
//! within a level, each run's last key is below the next run's first key. Reads may take
//! the runs in any order: the merge orders entries by key, not by source.

use alloc::sync::Arc;
use alloc::vec::Vec;
use core::ops::{Deref, Range};

use crate::lsm::source::Source;
use crate::platform::bytes;

/// One run in a level: copies of its first and last keys, and its place in the list.
#[derive(Debug)]
struct Bounds {
    first: Vec<u8>,
    last: Vec<u8>,
    run: usize,
}

/// The runs grouped into levels of disjoint key ranges, each level by first key.
#[derive(Debug, Default)]
struct Index {
    levels: Vec<Vec<Bounds>>,
    /// Runs that cannot say their range without a search (none today; a source that
    /// cannot is still read, just never ruled out by its range).
    unranged: Vec<usize>,
}

impl Index {
    fn of(list: &[Arc<dyn Source>]) -> Self {
        let mut ranged = Vec::new();
        let mut unranged = Vec::new();
        for (run, source) in list.iter().enumerate() {
            match source.key_range() {
                Some((first, last)) => ranged.push(Bounds {
                    first: first.to_vec(),
                    last: last.to_vec(),
                    run,
                }),
                // An empty run (its range is unknown because it has no keys) is read as
                // one of unknown range: it costs a cursor that finds nothing.
                None => unranged.push(run),
            }
        }
        let levels = disjoint_levels(ranged, |b| (&b.first, &b.last));
        Index { levels, unranged }
    }
}

/// Groups items with key ranges (`range`: first and last key) into levels whose ranges are
/// disjoint, greedily in order of first key: each item joins the first level whose last
/// item ends below its first key, or starts a level. Each level is in key order. A read
/// walks a level's items one after another as one source (`scan::LevelCursor`), and a
/// point read searches a level by binary search ([`Runs::overlapping`]).
pub(crate) fn disjoint_levels<T>(
    mut items: Vec<T>,
    range: impl Fn(&T) -> (&[u8], &[u8]),
) -> Vec<Vec<T>> {
    items.sort_by(|a, b| bytes::compare(range(a).0, range(b).0));
    let mut levels: Vec<Vec<T>> = Vec::new();
    for item in items {
        // Each level's items are in key order, so its last one ends it.
        match levels.iter_mut().find(|l| {
            l.last()
                .is_some_and(|end| bytes::less(range(end).1, range(&item).0))
        }) {
            Some(level) => level.push(item),
            None => levels.push(alloc::vec![item]),
        }
    }
    levels
}

/// A tablet's runs, newest first, and the index of their ranges. Reads see a slice.
#[derive(Clone, Default)]
pub(crate) struct Runs {
    list: Vec<Arc<dyn Source>>,
    index: Arc<Index>,
}

impl Deref for Runs {
    type Target = [Arc<dyn Source>];
    fn deref(&self) -> &Self::Target {
        &self.list
    }
}

impl From<Vec<Arc<dyn Source>>> for Runs {
    fn from(list: Vec<Arc<dyn Source>>) -> Self {
        let index = Arc::new(Index::of(&list));
        Runs { list, index }
    }
}

impl FromIterator<Arc<dyn Source>> for Runs {
    fn from_iter<I: IntoIterator<Item = Arc<dyn Source>>>(iter: I) -> Self {
        Runs::from(iter.into_iter().collect::<Vec<_>>())
    }
}

impl IntoIterator for Runs {
    type Item = Arc<dyn Source>;
    type IntoIter = alloc::vec::IntoIter<Arc<dyn Source>>;
    fn into_iter(self) -> Self::IntoIter {
        self.list.into_iter()
    }
}

impl<'r> IntoIterator for &'r Runs {
    type Item = &'r Arc<dyn Source>;
    type IntoIter = core::slice::Iter<'r, Arc<dyn Source>>;
    fn into_iter(self) -> Self::IntoIter {
        self.list.iter()
    }
}

impl Runs {
    /// Applies `change` to the list and rebuilds the index: runs change on flushes,
    /// compactions, splits and merges, never on reads, and there are few of them.
    fn change<T>(&mut self, change: impl FnOnce(&mut Vec<Arc<dyn Source>>) -> T) -> T {
        let out = change(&mut self.list);
        self.index = Arc::new(Index::of(&self.list));
        out
    }

    /// Adds the newest run.
    pub(crate) fn insert_newest(&mut self, run: Arc<dyn Source>) {
        self.change(|l| l.insert(0, run));
    }

    /// Adds the oldest run.
    pub(crate) fn push_oldest(&mut self, run: Arc<dyn Source>) {
        self.change(|l| l.push(run));
    }

    /// Replaces the runs at `range` with `with`, in place.
    pub(crate) fn splice(
        &mut self,
        range: Range<usize>,
        with: impl IntoIterator<Item = Arc<dyn Source>>,
    ) {
        self.change(|l| {
            l.splice(range, with);
        });
    }

    /// Removes the runs at `range` and returns them (background compaction, which needs
    /// `std`, and the tests).
    #[cfg(any(test, feature = "std"))]
    pub(crate) fn remove(&mut self, range: Range<usize>) -> Vec<Arc<dyn Source>> {
        self.change(|l| l.drain(range).collect())
    }

    /// Removes every run.
    pub(crate) fn clear(&mut self) {
        *self = Runs::default();
    }

    /// The runs whose key range reaches into `[lower, upper)`: every run that may hold an
    /// entry there (a run's range is from its first key to its last, so a run listed may
    /// still hold none). Each is yielded once, in no particular order.
    pub(crate) fn overlapping<'r: 'k, 'k>(
        &'r self,
        lower: &'k [u8],
        upper: &'k [u8],
    ) -> impl Iterator<Item = &'r dyn Source> + 'k {
        let ranged = self.index.levels.iter().flat_map(move |level| {
            // The first run ending at or after `lower`; earlier ones end below it, and as
            // a level's ranges are disjoint and ordered, so do their last keys.
            let from = level.partition_point(|b| bytes::less(&b.last, lower));
            level[from..]
                .iter()
                .take_while(move |b| bytes::less(&b.first, upper))
                .map(|b| b.run)
        });
        ranged
            .chain(self.index.unranged.iter().copied())
            .map(move |run| self.list[run].as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsm::memtable::MemRun;
    use crate::lsm::row_merge::Entry;
    use proptest::prelude::*;

    fn run(keys: &[u8]) -> Arc<dyn Source> {
        let mut entries: Vec<Entry> = keys.iter().map(|&k| (alloc::vec![k], Vec::new())).collect();
        entries.sort();
        entries.dedup();
        MemRun::new(entries, 1)
    }

    /// The runs a linear check of every run's range finds, as indices.
    fn linear(runs: &Runs, lower: u8, upper: u8) -> Vec<usize> {
        (0..runs.len())
            .filter(|&i| {
                runs[i]
                    .key_range()
                    .is_some_and(|(f, l)| l >= &[lower][..] && f < &[upper][..])
            })
            .collect()
    }

    fn indexed(runs: &Runs, lower: u8, upper: u8) -> Vec<usize> {
        let mut found: Vec<usize> = runs
            .overlapping(&[lower], &[upper])
            .map(|s| {
                (0..runs.len())
                    .find(|&i| core::ptr::addr_eq(runs[i].as_ref(), s))
                    .expect("a run of the list")
            })
            .collect();
        found.sort_unstable();
        found
    }

    #[test]
    fn disjoint_runs_form_one_level_and_a_row_finds_its_runs() {
        let runs = Runs::from(alloc::vec![run(&[30, 39]), run(&[10, 19]), run(&[20, 29])]);
        assert_eq!(runs.index.levels.len(), 1);
        assert_eq!(indexed(&runs, 25, 26), alloc::vec![2]);
        assert_eq!(indexed(&runs, 19, 20), alloc::vec![1]);
        assert_eq!(indexed(&runs, 19, 31), alloc::vec![0, 1, 2]);
        assert!(indexed(&runs, 40, 50).is_empty());
        assert!(indexed(&runs, 0, 10).is_empty());
    }

    #[test]
    fn every_change_rebuilds_the_index() {
        let mut runs = Runs::default();
        runs.insert_newest(run(&[10, 19]));
        runs.insert_newest(run(&[15, 25]));
        assert_eq!(indexed(&runs, 16, 17), alloc::vec![0, 1]);
        runs.push_oldest(run(&[40]));
        assert_eq!(indexed(&runs, 40, 41), alloc::vec![2]);
        runs.splice(0..2, [run(&[10, 25])]);
        assert_eq!(indexed(&runs, 16, 17), alloc::vec![0]);
        assert_eq!(runs.remove(0..1).len(), 1);
        assert!(indexed(&runs, 16, 17).is_empty());
        assert_eq!(indexed(&runs, 0, 255), alloc::vec![0]);
        runs.clear();
        assert!(runs.is_empty() && indexed(&runs, 0, 255).is_empty());
    }

    proptest! {
        /// The index finds exactly the runs a check of every run's range finds, whatever
        /// the runs and however they overlap.
        #[test]
        fn overlapping_matches_a_linear_check(
            keys in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 1..6), 0..12),
            lower in any::<u8>(),
            width in 1u8..40,
        ) {
            let runs: Runs = keys.iter().map(|k| run(k)).collect();
            let upper = lower.saturating_add(width);
            prop_assert_eq!(indexed(&runs, lower, upper), linear(&runs, lower, upper));
        }
    }
}
