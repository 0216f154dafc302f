//! The one read path: a double-ended k-way merge of cursors over a tablet's sources.
//!
//! A [`TabletScan`] opens one [`SourceCursor`] per source of a tablet (memtable layers
//! first, then runs newest first), positions them all once, and then yields rows in key
//! order, or in descending key order when reversed: each step takes the smallest head key
//! (the largest, reversed), cuts its row part (`esc(row_key)`, see `internal_key`), and
//! drains every cursor while its head starts with that row part. So a scan visits each
//! entry once and seeks each source once per tablet, not once per row, in both directions.
//! Forward scans, reversed scans, point reads (a scan of one row whose sources a bloom
//! filter may rule out) and the reads a write makes (aggregates, GC burials) all go
//! through it.
//!
//! Invariants: the scan never yields an entry whose key is below its lower bound or at or
//! above its upper bound (each the tablet's or the range's, whichever is tighter); both are
//! row boundaries, so a row is yielded whole or not at all. The entries of a row are
//! gathered into a reused buffer ([`RowGather`]) in ascending encoded-key order whatever
//! the direction, with duplicates (two runs sharing an entry after a split) removed:
//! exactly what `row_merge` resolves.

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::lsm::internal_key::{row_prefix, row_prefix_len};
use crate::lsm::memtable::{Source, SourceCursor};
use crate::platform::bytes;
use crate::table::tablet::Tablet;

/// One row's entries, copied out of the cursors into buffers reused from row to row (no
/// allocation per entry once warm), or lent by in-memory sources without a copy.
#[derive(Default)]
pub(crate) struct RowGather<'a> {
    /// The row part of the keys (`esc(row_key)` with its terminator).
    pub(crate) prefix: Vec<u8>,
    data: Vec<u8>,
    spans: Vec<Span<'a>>,
}

/// Where one gathered entry is.
#[derive(Clone, Copy)]
enum Span<'a> {
    /// Lent by an in-memory source for the whole read.
    Lent(&'a [u8], &'a [u8]),
    /// Copied into `data`: where the key starts, where the value starts, where it ends.
    Copied(usize, usize, usize),
}

impl<'a> RowGather<'a> {
    /// The gathered entries, in encoded-key order.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (&[u8], &[u8])> + '_ {
        self.spans.iter().map(|s| self.get(*s))
    }

    fn get(&self, span: Span<'a>) -> (&[u8], &[u8]) {
        match span {
            Span::Lent(k, v) => (k, v),
            Span::Copied(k, v, e) => (&self.data[k..v], &self.data[v..e]),
        }
    }

    fn clear(&mut self) {
        self.data.clear();
        self.spans.clear();
    }

    fn push(&mut self, key: &[u8], value: &[u8]) {
        let k = self.data.len();
        self.data.extend_from_slice(key);
        let v = self.data.len();
        self.data.extend_from_slice(value);
        self.spans.push(Span::Copied(k, v, self.data.len()));
    }

    /// Puts entries gathered from several sources in key order and drops duplicates.
    fn sort(&mut self) {
        let mut spans = core::mem::take(&mut self.spans);
        spans.sort_by(|a, b| bytes::compare(self.get(*a).0, self.get(*b).0));
        spans.dedup_by(|a, b| self.get(*a).0 == self.get(*b).0);
        self.spans = spans;
    }
}

/// A source with its smallest and largest keys.
type Ranged<'a> = (&'a [u8], &'a [u8], &'a dyn Source);

/// A cursor over sources whose key ranges are disjoint, in key order: it walks them one
/// after another (backwards after `seek_before`), so it yields exactly the entries of all
/// of them in key order.
struct LevelCursor<'a> {
    /// The sources, by first key.
    sources: Vec<Ranged<'a>>,
    /// The source `current` walks.
    at: usize,
    current: Option<Box<dyn SourceCursor<'a> + 'a>>,
}

impl<'a> LevelCursor<'a> {
    fn new(level: Vec<Ranged<'a>>) -> Self {
        LevelCursor {
            sources: level,
            at: 0,
            current: None,
        }
    }

    /// Positions at the first entry `>= key` of source `from` or a later one.
    fn open_from(&mut self, from: usize, key: &[u8]) {
        self.current = None;
        for i in from..self.sources.len() {
            let mut c = self.sources[i].2.cursor();
            c.seek(key);
            if c.entry().is_some() {
                self.at = i;
                self.current = Some(c);
                return;
            }
        }
    }

    /// Positions at the last entry `< key` of the sources before `to`.
    fn open_before(&mut self, to: usize, key: Option<&[u8]>) {
        self.current = None;
        for i in (0..to).rev() {
            let mut c = self.sources[i].2.cursor();
            c.seek_before(key);
            if c.entry().is_some() {
                self.at = i;
                self.current = Some(c);
                return;
            }
        }
    }
}

impl<'a> SourceCursor<'a> for LevelCursor<'a> {
    fn seek(&mut self, key: &[u8]) {
        // The first source that ends at or after `key`; every earlier one lies below it.
        let from = self.sources.partition_point(|(_, last, _)| *last < key);
        self.open_from(from, key);
    }
    fn seek_before(&mut self, key: Option<&[u8]>) {
        // The sources that start below `key`; every later one lies at or above it.
        let to = key.map_or(self.sources.len(), |k| {
            self.sources.partition_point(|(first, _, _)| *first < k)
        });
        self.open_before(to, key);
    }
    fn entry(&self) -> Option<(&[u8], &[u8])> {
        self.current.as_ref()?.entry()
    }
    fn lasting_entry(&self) -> Option<(&'a [u8], &'a [u8])> {
        self.current.as_ref()?.lasting_entry()
    }
    fn next(&mut self) {
        let Some(c) = self.current.as_mut() else {
            return;
        };
        c.next();
        if c.entry().is_none() {
            // The next source starts above everything this one held.
            self.open_from(self.at + 1, &[]);
        }
    }
    fn prev(&mut self) {
        let Some(c) = self.current.as_mut() else {
            return;
        };
        c.prev();
        if c.entry().is_none() {
            // The previous source ends below everything this one held.
            self.open_before(self.at, None);
        }
    }
}

/// A merge over one tablet's sources, clamped to the tablet and a range, in either
/// direction.
pub(crate) struct TabletScan<'a> {
    cursors: Vec<Box<dyn SourceCursor<'a> + 'a>>,
    /// Keys below this are before the scan (a row boundary).
    lower: Vec<u8>,
    /// Keys at or above this are past the scan (a row boundary); `None` = no limit.
    upper: Option<Vec<u8>>,
    reversed: bool,
}

impl<'a> TabletScan<'a> {
    /// Opens cursors on every source of `tablet` that may hold rows between `lower`
    /// (inclusive, an encoded row boundary; `None`: the tablet's start) and `upper`
    /// (exclusive; `None`: the tablet's end), each at the first key of that span, or at
    /// the last one when `reversed`. `point_row`: the scan is that single row (REQUIRES: a
    /// row of the tablet, `lower` and `upper` its bounds), so sources whose filter rules
    /// the row out are skipped.
    pub(crate) fn new(
        tablet: &'a Tablet,
        lower: Option<&[u8]>,
        upper: Option<&[u8]>,
        reversed: bool,
        point_row: Option<&[u8]>,
    ) -> Self {
        let (lower, upper) = match (lower, upper, point_row) {
            // A row of the tablet: its bounds are inside the tablet's already.
            (Some(l), Some(u), Some(_)) => (l.to_vec(), Some(u.to_vec())),
            _ => {
                let start = row_prefix(&tablet.start);
                let lower = match lower {
                    Some(l) if l > start.as_slice() => l.to_vec(),
                    _ => start,
                };
                let end = tablet.end.as_deref().map(row_prefix);
                let upper = match (upper, end) {
                    (Some(u), Some(e)) => Some(if u < e.as_slice() { u.to_vec() } else { e }),
                    (Some(u), None) => Some(u.to_vec()),
                    (None, e) => e,
                };
                (lower, upper)
            }
        };
        let sources = tablet
            .memtable
            .layers()
            .chain(tablet.runs.iter().map(|r| r.as_ref()));
        Self::open(sources, lower, upper, reversed, point_row)
    }

    /// A forward scan of every row of the tablet held in its runs (the memtable left out):
    /// what a compaction rewrites.
    pub(crate) fn runs_of(tablet: &'a Tablet) -> Self {
        Self::runs_in(tablet, 0..tablet.runs.len())
    }

    /// A forward scan of the rows of the tablet held in `runs` (indices into its runs):
    /// what a merge of some runs rewrites.
    pub(crate) fn runs_in(tablet: &'a Tablet, runs: core::ops::Range<usize>) -> Self {
        let start = row_prefix(&tablet.start);
        let limit = tablet.end.as_deref().map(row_prefix);
        let sources = tablet.runs[runs].iter().map(|r| r.as_ref());
        Self::open(sources, start, limit, false, None)
    }

    /// Opens one cursor per source, except that sources whose key ranges are known and
    /// disjoint share one: they are grouped into levels (each a set of sources with
    /// disjoint ranges, greedily, in key order) and a level is walked source after source by
    /// a [`LevelCursor`]. After a load in key order a tablet holds many runs of disjoint
    /// ranges; the merge then compares one head per level for each row, not one per run.
    fn open(
        sources: impl Iterator<Item = &'a dyn Source>,
        lower: Vec<u8>,
        upper: Option<Vec<u8>>,
        reversed: bool,
        point_row: Option<&[u8]>,
    ) -> Self {
        let mut cursors = Vec::new();
        let mut ranged: Vec<Ranged<'a>> = Vec::new();
        let mut push = |mut c: Box<dyn SourceCursor<'a> + 'a>| {
            if reversed {
                c.seek_before(upper.as_deref());
            } else {
                c.seek(&lower);
            }
            if c.entry().is_some() {
                cursors.push(c);
            }
        };
        for s in sources {
            match s.key_range() {
                // Wholly outside the scan: nothing to yield. Checked before the bloom
                // filter, as two key comparisons are cheaper than hashing the row.
                Some((first, last))
                    if last < lower.as_slice() || upper.as_deref().is_some_and(|u| first >= u) => {}
                _ if point_row.is_some_and(|row| !s.may_contain_row(row)) => {}
                // A point read's sources all hold keys around its one row: none is
                // disjoint from another inside the scan, so each takes its own cursor.
                Some(_) if point_row.is_some() => push(s.cursor()),
                Some((first, last)) => ranged.push((first, last, s)),
                None => push(s.cursor()),
            }
        }
        ranged.sort_by(|a, b| a.0.cmp(b.0));
        let mut levels: Vec<Vec<Ranged<'a>>> = Vec::new();
        for r in ranged {
            // Each level's sources are in key order, so its last one ends it.
            match levels
                .iter_mut()
                .find(|l| l.last().is_some_and(|last| last.1 < r.0))
            {
                Some(level) => level.push(r),
                None => levels.push(alloc::vec![r]),
            }
        }
        for level in levels {
            if let [(_, _, only)] = level.as_slice() {
                push(only.cursor());
            } else {
                push(Box::new(LevelCursor::new(level)));
            }
        }
        TabletScan {
            cursors,
            lower,
            upper,
            reversed,
        }
    }

    /// The next row's head: the smallest current key (the largest, reversed), if it is
    /// inside the scan.
    fn head(&self) -> Option<&[u8]> {
        let mut best: Option<&[u8]> = None;
        for c in &self.cursors {
            if let Some((k, _)) = c.entry() {
                let better = match best {
                    None => true,
                    Some(b) if self.reversed => bytes::less(b, k),
                    Some(b) => bytes::less(k, b),
                };
                if better {
                    best = Some(k);
                }
            }
        }
        let head = best?;
        let inside = if self.reversed {
            !bytes::less(head, &self.lower)
        } else {
            self.upper.as_deref().is_none_or(|u| bytes::less(head, u))
        };
        inside.then_some(head)
    }

    fn step(c: &mut Box<dyn SourceCursor<'a> + 'a>, reversed: bool) {
        if reversed {
            c.prev();
        } else {
            c.next();
        }
    }

    /// Gathers the next row's entries into `g` (its row part into `g.prefix`), in
    /// ascending key order whatever the direction. False when the scan is over.
    pub(crate) fn next_row(&mut self, g: &mut RowGather<'a>) -> bool {
        let reversed = self.reversed;
        loop {
            let Some(head) = self.head() else {
                return false;
            };
            g.prefix.clear();
            match row_prefix_len(head) {
                Some(n) => g.prefix.extend_from_slice(&head[..n]),
                None => {
                    // A key whose row part is malformed names no row: step over it.
                    g.prefix.extend_from_slice(head);
                    for c in &mut self.cursors {
                        if c.entry().is_some_and(|(k, _)| k == g.prefix.as_slice()) {
                            Self::step(c, reversed);
                        }
                    }
                    continue;
                }
            }
            g.clear();
            let mut sources = 0;
            for c in &mut self.cursors {
                let mut hit = false;
                loop {
                    if let Some((k, v)) = c.lasting_entry() {
                        if !bytes::starts_with(k, &g.prefix) {
                            break;
                        }
                        g.spans.push(Span::Lent(k, v));
                    } else if let Some((k, v)) = c.entry() {
                        if !bytes::starts_with(k, &g.prefix) {
                            break;
                        }
                        g.push(k, v);
                    } else {
                        break;
                    }
                    hit = true;
                    Self::step(c, reversed);
                }
                sources += usize::from(hit);
            }
            if sources > 1 {
                g.sort();
            } else if reversed {
                // One source walked backwards: its entries came newest key first.
                g.spans.reverse();
            }
            return true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{RowGather, TabletScan};
    use crate::lsm::internal_key::{after_row, encode_cell, row_prefix};
    use crate::lsm::memtable::MemRun;
    use crate::table::tablet::Tablet;
    use alloc::format;
    use alloc::vec::Vec;

    fn run(rows: impl Iterator<Item = u32>, seq: u64) -> Vec<(Vec<u8>, Vec<u8>)> {
        rows.map(|r| {
            let key = encode_cell(format!("r{r:03}").as_bytes(), "cf", b"q", 1, seq);
            (key, Vec::from(format!("v{r}-{seq}").as_bytes()))
        })
        .collect()
    }

    fn collect(mut scan: TabletScan<'_>) -> Vec<Vec<(Vec<u8>, Vec<u8>)>> {
        let mut g = RowGather::default();
        let mut rows = Vec::new();
        while scan.next_row(&mut g) {
            rows.push(g.entries().map(|(k, v)| (k.to_vec(), v.to_vec())).collect());
        }
        rows
    }

    #[test]
    fn levels_of_disjoint_runs_scan_exactly_like_a_plain_merge_in_both_directions() {
        // Three runs of disjoint ranges (one level), one run overlapping them all, and a
        // memtable with a sealed layer: every scan, from every start and to every end,
        // yields every entry once, in order, and reversed it yields the same rows backwards.
        let mut tablet = Tablet::new(0, Vec::new(), None);
        let parts = [run(0..10, 1), run(10..20, 2), run(25..40, 3)];
        let overlapping = run((0..40).step_by(3), 4);
        let mem_a = run((1..40).step_by(7), 5);
        let mem_b = run((2..40).step_by(5), 6);
        let mut all: Vec<_> = parts.iter().flatten().cloned().collect();
        all.extend(overlapping.iter().cloned());
        all.extend(mem_a.iter().cloned());
        all.extend(mem_b.iter().cloned());
        all.sort();
        for p in parts {
            tablet.runs.push(MemRun::new(p, 3));
        }
        tablet.runs.insert(0, MemRun::new(overlapping, 4));
        for (k, v) in mem_a {
            tablet.memtable.insert(k, v, 5);
        }
        let view = tablet.memtable.clone();
        for (k, v) in mem_b {
            tablet.memtable.insert(k, v, 6);
        }
        assert_eq!(tablet.memtable.sealed_layers(), 1);
        drop(view);
        let bounds = [0u32, 5, 9, 10, 19, 20, 22, 25, 39, 40];
        for start in bounds {
            let lower = row_prefix(format!("r{start:03}").as_bytes());
            for end in bounds.iter().filter(|e| **e >= start) {
                let upper = after_row(format!("r{end:03}").as_bytes());
                let forward = collect(TabletScan::new(
                    &tablet,
                    Some(&lower),
                    Some(&upper),
                    false,
                    None,
                ));
                let got: Vec<_> = forward.iter().flatten().cloned().collect();
                let want: Vec<_> = all
                    .iter()
                    .filter(|(k, _)| *k >= lower && *k < upper)
                    .cloned()
                    .collect();
                assert_eq!(got, want, "scan r{start:03}..=r{end:03}");
                let mut backward = collect(TabletScan::new(
                    &tablet,
                    Some(&lower),
                    Some(&upper),
                    true,
                    None,
                ));
                backward.reverse();
                assert_eq!(backward, forward, "reversed r{start:03}..=r{end:03}");
            }
        }
    }
}
