//! Forward scans of one tablet: a k-way merge of cursors over its sources.
//!
//! A [`TabletScan`] opens one [`SourceCursor`] per source of a tablet (memtable first, then
//! runs newest first), seeks them all once, and then yields rows in key order: each step
//! takes the smallest head key, cuts its row part (`esc(row_key)`, see `internal_key`), and
//! drains every cursor while its head starts with that row part. So a scan visits each entry
//! once and seeks each source once per tablet, not once per row.
//!
//! Invariants: the scan never yields an entry whose key is below its seek position or at
//! or above its limit (the tablet's end or the range's, whichever is first); the limit is
//! always a row boundary, so a row is yielded whole or not at all. The entries of a row are
//! gathered into a reused buffer ([`RowGather`]) in encoded-key order with duplicates (two
//! runs sharing an entry after a split) removed: exactly what `row_merge` resolves.

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::lsm::internal_key::{row_prefix, row_prefix_len};
use crate::lsm::memtable::{Source, SourceCursor};
use crate::platform::bytes;
use crate::table::tablet::Tablet;

/// One row's entries, copied out of the cursors into buffers reused from row to row (no
/// allocation per entry once warm).
#[derive(Default)]
pub(crate) struct RowGather<'a> {
    /// The row part of the keys (`esc(row_key)` with its terminator).
    pub(crate) prefix: Vec<u8>,
    data: Vec<u8>,
    spans: Vec<Span<'a>>,
    /// Scratch for the entries one source lends a point read.
    lent: Vec<(&'a [u8], &'a [u8])>,
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
    /// Gathers the single row `row_key` (encoded row part `prefix`, the row inside `tablet`)
    /// without a cursor where a source can lend the row's entries: each source the row's
    /// filter does not rule out is searched once and lends its entries (a source that cannot
    /// lend is walked with a cursor, as a scan would). False if no source holds an entry of
    /// the row. Gathers exactly what a scan of the row would: same entries, same order
    /// (`self.prefix` is not set: the caller has it).
    pub(crate) fn gather_point(
        &mut self,
        tablet: &'a Tablet,
        row_key: &[u8],
        prefix: &[u8],
    ) -> bool {
        // `self.prefix` is left alone: the caller already holds the row's prefix.
        self.clear();
        if self.spans.capacity() == 0 {
            // Room for a row's versions in several sources, so the gather grows at most
            // rarely (each growth is an allocation and a copy on the read's hot path).
            self.spans.reserve(8);
            self.lent.reserve(8);
        }
        let sources = core::iter::once(&tablet.memtable as &dyn Source)
            .chain(tablet.runs.iter().map(|r| r.as_ref()));
        let mut hits = 0;
        for s in sources {
            if !range_may_hold(s.key_range(), prefix) || !s.may_contain_row(row_key) {
                continue;
            }
            let before = self.spans.len();
            self.lent.clear();
            if s.lend_row(row_key, prefix, &mut self.lent) {
                self.spans
                    .extend(self.lent.iter().map(|&(k, v)| Span::Lent(k, v)));
            } else {
                let mut c = s.cursor();
                c.seek(prefix);
                loop {
                    if let Some((k, v)) = c.lasting_entry() {
                        if !bytes::starts_with(k, prefix) {
                            break;
                        }
                        self.spans.push(Span::Lent(k, v));
                    } else if let Some((k, v)) = c.entry() {
                        if !bytes::starts_with(k, prefix) {
                            break;
                        }
                        self.push(k, v);
                    } else {
                        break;
                    }
                    c.next();
                }
            }
            hits += usize::from(self.spans.len() > before);
        }
        if hits > 1 {
            self.sort();
        }
        hits > 0
    }

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
        spans.sort_by(|a, b| self.get(*a).0.cmp(self.get(*b).0));
        spans.dedup_by(|a, b| self.get(*a).0 == self.get(*b).0);
        self.spans = spans;
    }
}

/// Whether a source whose keys lie in `range` (smallest, largest) may hold a key starting
/// with `prefix`: every such key is at least `prefix`, and below any key past `prefix` that
/// does not start with it.
fn range_may_hold(range: Option<(&[u8], &[u8])>, prefix: &[u8]) -> bool {
    let Some((first, last)) = range else {
        return true;
    };
    !bytes::less(last, prefix) && (!bytes::less(prefix, first) || bytes::starts_with(first, prefix))
}

/// A source with its smallest and largest keys.
type Ranged<'a> = (&'a [u8], &'a [u8], &'a dyn Source);

/// A cursor over sources whose key ranges are disjoint, in key order: it walks them one
/// after another, so it yields exactly the entries of all of them in key order.
struct LevelCursor<'a> {
    /// The sources, by first key, with their last keys.
    sources: Vec<(&'a [u8], &'a dyn Source)>,
    /// The source `current` walks.
    at: usize,
    current: Option<Box<dyn SourceCursor<'a> + 'a>>,
}

impl<'a> LevelCursor<'a> {
    fn new(level: Vec<Ranged<'a>>) -> Self {
        LevelCursor {
            sources: level.into_iter().map(|(_, last, s)| (last, s)).collect(),
            at: 0,
            current: None,
        }
    }

    /// Positions at the first entry `>= key` of source `from` or a later one.
    fn open_from(&mut self, from: usize, key: &[u8]) {
        self.current = None;
        for i in from..self.sources.len() {
            let mut c = self.sources[i].1.cursor();
            c.seek(key);
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
        let from = self.sources.partition_point(|(last, _)| *last < key);
        self.open_from(from, key);
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
}

/// A forward merge over one tablet's sources, clamped to the tablet and a range.
pub(crate) struct TabletScan<'a> {
    cursors: Vec<Box<dyn SourceCursor<'a> + 'a>>,
    /// Keys at or above this are past the scan; `None` = no limit.
    limit: Option<Vec<u8>>,
}

impl<'a> TabletScan<'a> {
    /// Opens cursors on every source of `tablet` that may hold rows of the scan, each at the
    /// first key at or after `seek` (and the tablet's start). `limit` is the range's
    /// exclusive encoded end. `point_row`: the scan is a single row, so sources whose filter
    /// rules the row out are skipped.
    pub(crate) fn new(
        tablet: &'a Tablet,
        seek: Option<&[u8]>,
        limit: Option<&[u8]>,
        point_row: Option<&[u8]>,
    ) -> Self {
        let start = row_prefix(&tablet.start);
        let seek = match seek {
            Some(s) if s > start.as_slice() => s,
            _ => start.as_slice(),
        };
        let end = tablet.end.as_deref().map(row_prefix);
        let limit = match (limit, end) {
            (Some(l), Some(e)) => Some(if l < e.as_slice() { l.to_vec() } else { e }),
            (Some(l), None) => Some(l.to_vec()),
            (None, e) => e,
        };
        let sources = core::iter::once(&tablet.memtable as &dyn Source)
            .chain(tablet.runs.iter().map(|r| r.as_ref()));
        Self::open(sources, seek, limit, point_row)
    }

    /// A scan of every row of the tablet held in its runs (the memtable left out): what a
    /// compaction rewrites.
    pub(crate) fn runs_of(tablet: &'a Tablet) -> Self {
        Self::runs_in(tablet, 0..tablet.runs.len())
    }

    /// A scan of the rows of the tablet held in `runs` (indices into its runs): what a
    /// merge of some runs rewrites.
    pub(crate) fn runs_in(tablet: &'a Tablet, runs: core::ops::Range<usize>) -> Self {
        let start = row_prefix(&tablet.start);
        let limit = tablet.end.as_deref().map(row_prefix);
        let sources = tablet.runs[runs].iter().map(|r| r.as_ref());
        Self::open(sources, &start, limit, None)
    }

    /// Opens one cursor per source, except that sources whose key ranges are known and
    /// disjoint share one: they are grouped into levels (each a set of sources with
    /// disjoint ranges, greedily, in key order) and a level is walked source after source by
    /// a [`LevelCursor`]. After a load in key order a tablet holds many runs of disjoint
    /// ranges; the merge then compares one head per level for each row, not one per run.
    fn open(
        sources: impl Iterator<Item = &'a dyn Source>,
        seek: &[u8],
        limit: Option<Vec<u8>>,
        point_row: Option<&[u8]>,
    ) -> Self {
        let mut cursors = Vec::new();
        let mut ranged: Vec<Ranged<'a>> = Vec::new();
        let mut push = |mut c: Box<dyn SourceCursor<'a> + 'a>| {
            c.seek(seek);
            if c.entry().is_some() {
                cursors.push(c);
            }
        };
        for s in sources {
            if point_row.is_some_and(|row| !s.may_contain_row(row)) {
                continue;
            }
            match s.key_range() {
                // Wholly before the scan starts: nothing to yield.
                Some((_, last)) if last < seek => {}
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
        TabletScan { cursors, limit }
    }

    /// Gathers the next row's entries into `g` (its row part into `g.prefix`). False when
    /// the scan is over.
    pub(crate) fn next_row(&mut self, g: &mut RowGather<'a>) -> bool {
        loop {
            let mut min: Option<&[u8]> = None;
            for c in &self.cursors {
                if let Some((k, _)) = c.entry() {
                    if min.is_none_or(|m| bytes::less(k, m)) {
                        min = Some(k);
                    }
                }
            }
            let Some(min) = min else {
                return false;
            };
            if self.limit.as_deref().is_some_and(|l| !bytes::less(min, l)) {
                return false;
            }
            g.prefix.clear();
            match row_prefix_len(min) {
                Some(n) => g.prefix.extend_from_slice(&min[..n]),
                None => {
                    // A key whose row part is malformed names no row: step over it (the
                    // navigation this replaces skipped such keys the same way).
                    g.prefix.extend_from_slice(min);
                    for c in &mut self.cursors {
                        if c.entry().is_some_and(|(k, _)| k == g.prefix.as_slice()) {
                            c.next();
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
                    c.next();
                }
                sources += usize::from(hit);
            }
            if sources > 1 {
                g.sort();
            }
            return true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{range_may_hold, RowGather, TabletScan};
    use crate::lsm::internal_key::{encode_cell, row_prefix};
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

    #[test]
    fn levels_of_disjoint_runs_scan_exactly_like_a_plain_merge() {
        // Three runs of disjoint ranges (one level), one run overlapping them all, and an
        // empty memtable: every scan, from every start, yields every entry once, in order.
        let mut tablet = Tablet::new(0, Vec::new(), None);
        let parts = [run(0..10, 1), run(10..20, 2), run(25..40, 3)];
        let overlapping = run((0..40).step_by(3), 4);
        let mut all: Vec<_> = parts.iter().flatten().cloned().collect();
        all.extend(overlapping.iter().cloned());
        all.sort();
        for p in parts {
            tablet.runs.push(MemRun::new(p, 3));
        }
        tablet.runs.insert(0, MemRun::new(overlapping, 4));
        for start in [0u32, 5, 9, 10, 19, 20, 22, 25, 39, 40] {
            let seek = row_prefix(format!("r{start:03}").as_bytes());
            let mut scan = TabletScan::new(&tablet, Some(&seek), None, None);
            let mut g = RowGather::default();
            let mut got = Vec::new();
            while scan.next_row(&mut g) {
                got.extend(g.entries().map(|(k, v)| (k.to_vec(), v.to_vec())));
            }
            let want: Vec<_> = all.iter().filter(|(k, _)| *k >= seek).cloned().collect();
            assert_eq!(got, want, "scan from r{start:03}");
        }
    }

    #[test]
    fn a_key_range_rules_out_only_rows_it_cannot_hold() {
        let range = Some((&b"b\x00\x01x"[..], &b"d\x00\x01y"[..]));
        assert!(range_may_hold(None, b"a\x00\x01"));
        assert!(!range_may_hold(range, b"a\x00\x01"), "below the first key");
        assert!(range_may_hold(range, b"b\x00\x01"), "the first key's row");
        assert!(range_may_hold(range, b"c\x00\x01"), "inside");
        assert!(range_may_hold(range, b"d\x00\x01"), "the last key's row");
        assert!(!range_may_hold(range, b"e\x00\x01"), "past the last key");
        // A one-key range: only that key's row.
        let one = Some((&b"c\x00\x01q"[..], &b"c\x00\x01q"[..]));
        assert!(range_may_hold(one, b"c\x00\x01"));
        assert!(!range_may_hold(one, b"b\x00\x01"));
        assert!(!range_may_hold(one, b"c\x00\x02"));
    }
}
