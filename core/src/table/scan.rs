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
//!
//! Errors: a cursor over a run file stops at a block it cannot read or that fails its
//! checksum ([`SourceCursor::status`]). The scan checks every cursor after each row it
//! gathers or resolves, and from the first error on yields nothing more: `next_row` and
//! `next_cells` return the error (naming the file) instead of the row, which may be missing
//! the entries of the bad block. So a corrupt block is `DataLoss` at the read that touches
//! it, never a short answer taken for the end of the data.

use alloc::boxed::Box;
use alloc::vec::Vec;

use smallvec::SmallVec;

use crate::lsm::internal_key::{self, row_prefix_len, KeyBuf};
use crate::lsm::row_merge::{Feed, RowResolver, VisibleCell};
use crate::lsm::runs::disjoint_levels;
use crate::lsm::source::{RowProbe, Source, SourceCursor};
use crate::platform::bytes;
use crate::{Error, Result};

/// One row's entries, copied out of the cursors into buffers reused from row to row (no
/// allocation per entry once warm), or lent by in-memory sources without a copy.
#[derive(Default)]
pub(crate) struct RowGather<'a> {
    /// The row part of the keys (`esc(row_key)` with its terminator).
    pub(crate) prefix: KeyBuf,
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

    /// Positions at the first entry `>= key` of source `from` or a later one. A source
    /// whose cursor fails stays current, so `status` reports it and nothing later is read.
    fn open_from(&mut self, from: usize, key: &[u8]) {
        self.current = None;
        for i in from..self.sources.len() {
            let mut c = self.sources[i].2.cursor();
            c.seek(key);
            if c.entry().is_some() || c.status().is_err() {
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
            if c.entry().is_some() || c.status().is_err() {
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
        let from = self
            .sources
            .partition_point(|(_, last, _)| bytes::less(last, key));
        self.open_from(from, key);
    }
    fn seek_before(&mut self, key: Option<&[u8]>) {
        // The sources that start below `key`; every later one lies at or above it.
        let to = key.map_or(self.sources.len(), |k| {
            self.sources
                .partition_point(|(first, _, _)| bytes::less(first, k))
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
        if c.entry().is_none() && c.status().is_ok() {
            // The next source starts above everything this one held.
            self.open_from(self.at + 1, &[]);
        }
    }
    fn prev(&mut self) {
        let Some(c) = self.current.as_mut() else {
            return;
        };
        c.prev();
        if c.entry().is_none() && c.status().is_ok() {
            // The previous source ends below everything this one held.
            self.open_before(self.at, None);
        }
    }
    fn status(&self) -> Result<()> {
        self.current.as_ref().map_or(Ok(()), |c| c.status())
    }
}

/// How many entries past a hidden one the merge steps over before it seeks instead: a
/// seek costs a search of each source, so a few hidden versions are cheaper to walk (as
/// LevelDB's and RocksDB's iterators do, which step a few times before reseeking).
const STEPS_BEFORE_SEEK: usize = 8;

/// The most entries of one row a reversed scan gathers backwards before it resolves the
/// row forward with skips instead (two seeks of each source holding the row).
const REVERSE_GATHER_LIMIT: usize = 64;

/// A merge over one tablet's sources, clamped to the tablet and a range, in either
/// direction.
pub(crate) struct TabletScan<'a> {
    cursors: Cursors<'a>,
    /// The cursors holding entries of the row being resolved (indices into `cursors`).
    active: SmallVec<[usize; 4]>,
    /// The cursors holding a row a reversed scan re-reads forward (a buffer kept for reuse).
    holding: Vec<usize>,
    /// Entries the scan has stepped over or sought past while resolving rows: what the
    /// reads cost, hidden versions included (`next_cells` only).
    entries_examined: u64,
    /// A reversed scan gathers a row backwards until it holds this many entries; a row with
    /// more is resolved forward instead, so the resolver's skips apply (see `next_cells`).
    reverse_gather_limit: usize,
    /// Keys below this are before the scan (a row boundary).
    lower: KeyBuf,
    /// Keys at or above this are past the scan (a row boundary); `None` = no limit.
    upper: Option<KeyBuf>,
    reversed: bool,
    /// The first error a cursor reported: the scan is over, and returns it.
    err: Option<Error>,
}

/// A scan's cursors. A point read mostly has one or two (the run holding the row, the
/// memtable layer whose range covers it), and a third or fourth when a bloom filter lets a
/// run through that does not hold the row or a reader sealed a memtable layer, so four are
/// kept inline: no allocation for the list (it spilled on every false positive when two
/// were).
type Cursors<'a> = SmallVec<[Box<dyn SourceCursor<'a> + 'a>; 4]>;

/// A point read's cursors, opened before its scan takes the bounds (see
/// [`TabletScan::point_cursors`]), and the first error one met while positioning.
pub(crate) struct PointCursors<'a> {
    cursors: Cursors<'a>,
    err: Option<Error>,
}

impl<'a> TabletScan<'a> {
    /// The positioned cursors of a scan of the one row `row`, whose bounds are `lower` (the
    /// row's encoded prefix) and `upper` (the key after the row), over `sources` (the
    /// tablet's sources whose range may reach it; those that cannot hold it, by key range or
    /// bloom filter, get no cursor). `sources` may borrow the bounds: it is consumed here,
    /// before [`point`](Self::point) moves them into the scan, so no list of candidate
    /// sources is gathered first (a tablet with many runs spilled one to the heap).
    pub(crate) fn point_cursors(
        sources: impl Iterator<Item = &'a dyn Source>,
        row: &[u8],
        lower: &[u8],
        upper: &[u8],
    ) -> PointCursors<'a> {
        let (cursors, err) = Self::cursors(sources, lower, Some(upper), false, Some(row));
        PointCursors { cursors, err }
    }

    /// A scan of one row over the cursors [`point_cursors`](Self::point_cursors) opened for
    /// the same bounds: bounds built by the caller and moved in rather than copied (a point
    /// read is a handful of allocations).
    pub(crate) fn point(cursors: PointCursors<'a>, lower: KeyBuf, upper: KeyBuf) -> Self {
        Self::with_cursors(cursors.cursors, cursors.err, lower, Some(upper), false)
    }

    /// Opens one cursor per source, except that sources whose key ranges are known and
    /// disjoint share one: they are grouped into levels (each a set of sources with
    /// disjoint ranges, greedily, in key order) and a level is walked source after source by
    /// a [`LevelCursor`]. After a load in key order a tablet holds many runs of disjoint
    /// ranges; the merge then compares one head per level for each row, not one per run.
    pub(crate) fn open(
        sources: impl Iterator<Item = &'a dyn Source>,
        lower: Vec<u8>,
        upper: Option<Vec<u8>>,
        reversed: bool,
        point_row: Option<&[u8]>,
    ) -> Self {
        let (cursors, err) = Self::cursors(sources, &lower, upper.as_deref(), reversed, point_row);
        let upper = upper.map(KeyBuf::from_vec);
        Self::with_cursors(cursors, err, KeyBuf::from_vec(lower), upper, reversed)
    }

    /// The cursors of [`open`](Self::open), each positioned, for the scan `[lower, upper)`,
    /// and the first error a cursor met while positioning (a cursor with nothing to yield
    /// is dropped, but not its error).
    fn cursors(
        sources: impl Iterator<Item = &'a dyn Source>,
        lower: &[u8],
        upper: Option<&[u8]>,
        reversed: bool,
        point_row: Option<&[u8]>,
    ) -> (Cursors<'a>, Option<Error>) {
        let mut cursors = Cursors::new();
        let mut err = None;
        let mut ranged: Vec<Ranged<'a>> = Vec::new();
        // The row hashed once for every source's filter (runs' and memtable layers').
        let probe = point_row.map(RowProbe::new);
        let mut push = |mut c: Box<dyn SourceCursor<'a> + 'a>| {
            if reversed {
                c.seek_before(upper);
            } else {
                c.seek(lower);
            }
            if c.entry().is_some() {
                cursors.push(c);
            } else if let Err(e) = c.status() {
                err.get_or_insert(e);
            }
        };
        for s in sources {
            if s.is_known_empty() {
                continue;
            }
            match s.key_range() {
                // Wholly outside the scan: nothing to yield. Checked before the bloom
                // filter, as two key comparisons are cheaper than hashing the row.
                // (`bytes`, not slice operators: a point read checks every run's range, and
                // on wasm32 the slice operators' memcmp compares a byte at a time.)
                Some((first, last))
                    if bytes::less(last, lower)
                        || upper.is_some_and(|u| !bytes::less(first, u)) => {}
                _ if probe.as_ref().is_some_and(|row| !s.may_contain_row(row)) => {}
                // A point read's sources all hold keys around its one row: none is
                // disjoint from another inside the scan, so each takes its own cursor.
                Some(_) if point_row.is_some() => push(s.cursor()),
                Some((first, last)) => ranged.push((first, last, s)),
                None => push(s.cursor()),
            }
        }
        for level in disjoint_levels(ranged, |r| (r.0, r.1)) {
            if let [(_, _, only)] = level.as_slice() {
                push(only.cursor());
            } else {
                push(Box::new(LevelCursor::new(level)));
            }
        }
        (cursors, err)
    }

    fn with_cursors(
        cursors: Cursors<'a>,
        err: Option<Error>,
        lower: KeyBuf,
        upper: Option<KeyBuf>,
        reversed: bool,
    ) -> Self {
        TabletScan {
            cursors,
            active: SmallVec::new(),
            holding: Vec::new(),
            entries_examined: 0,
            reverse_gather_limit: REVERSE_GATHER_LIMIT,
            lower,
            upper,
            reversed,
            err,
        }
    }

    /// Records the first error any cursor reports. True if the scan has failed.
    fn failed(&mut self) -> bool {
        if self.err.is_none() {
            self.err = self.cursors.iter().find_map(|c| c.status().err());
        }
        self.err.is_some()
    }

    /// The scan's error, if it failed.
    fn error(&self) -> Result<()> {
        match &self.err {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// The next row's head: the smallest current key (the largest, reversed), if it is
    /// inside the scan.
    fn head(&self) -> Option<&[u8]> {
        if self.err.is_some() {
            return None;
        }
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

    /// Puts the next row's row part into `g.prefix`, stepping over keys whose row part is
    /// malformed. False when the scan is over.
    fn next_prefix(&mut self, g: &mut RowGather<'a>) -> bool {
        let reversed = self.reversed;
        loop {
            let Some(head) = self.head() else {
                return false;
            };
            g.prefix.clear();
            match row_prefix_len(head) {
                Some(n) => {
                    g.prefix.extend_from_slice(&head[..n]);
                    return true;
                }
                None => {
                    // A key whose row part is malformed names no row: step over it.
                    g.prefix.extend_from_slice(head);
                    for c in &mut self.cursors {
                        if c.entry().is_some_and(|(k, _)| k == g.prefix.as_slice()) {
                            Self::step(c, reversed);
                        }
                    }
                }
            }
        }
    }

    /// Entries stepped over or sought past by [`next_cells`](Self::next_cells) so far.
    pub(crate) fn entries_examined(&self) -> u64 {
        self.entries_examined
    }

    /// Resolves the next row through `resolver` (reset here), calling `emit` for each of
    /// its visible cells in Bigtable order, its row part into `g.prefix`. `Ok(None)` when
    /// the scan is over; `Ok(Some(Err))` when a key of the row does not decode (the row must
    /// be dropped whole; the scan goes on with the next row).
    ///
    /// # Errors
    /// A source's error (`DataLoss` for a corrupt block): the row being resolved may be
    /// incomplete, so whatever `emit` received for it must be discarded, and the scan is
    /// over.
    ///
    /// Forward, the row's entries are merged one at a time in key order and fed to the
    /// resolver, and what it reports hidden (the rest of a column GC collects, older writes
    /// of a cell) is stepped over for a few entries and then sought past in every source
    /// (see [`RowResolver`]). Reversed, sources stand before the row's last entry: the row
    /// is gathered backwards as [`next_row`](Self::next_row) does and resolved from the
    /// gathered entries, unless it holds more than `reverse_gather_limit` entries: then the
    /// sources holding it seek to its start, the row is
    /// resolved forward with the same skips, and they seek back before it (two seeks per
    /// source for such a row; every other row costs what it did).
    pub(crate) fn next_cells<F>(
        &mut self,
        g: &mut RowGather<'a>,
        resolver: &mut RowResolver<'_>,
        emit: &mut F,
    ) -> Result<Option<Result<()>>>
    where
        F: FnMut(VisibleCell<'_>),
    {
        let resolved = self.next_cells_unchecked(g, resolver, emit);
        if self.failed() {
            return self.error().map(|()| None);
        }
        Ok(resolved)
    }

    /// [`next_cells`](Self::next_cells) before the cursors' errors are looked at.
    fn next_cells_unchecked<F>(
        &mut self,
        g: &mut RowGather<'a>,
        resolver: &mut RowResolver<'_>,
        emit: &mut F,
    ) -> Option<Result<()>>
    where
        F: FnMut(VisibleCell<'_>),
    {
        if self.failed() || !self.next_prefix(g) {
            return None;
        }
        resolver.reset();
        self.active.clear();
        for (i, c) in self.cursors.iter().enumerate() {
            if c.entry()
                .is_some_and(|(k, _)| bytes::starts_with(k, &g.prefix))
            {
                self.active.push(i);
            }
        }
        if !self.reversed {
            return Some(self.resolve_forward(&g.prefix, resolver, emit));
        }
        if self.gather(g, self.reverse_gather_limit) {
            self.entries_examined += g.spans.len() as u64;
            let mut result = Ok(());
            let mut skip_to: Option<internal_key::SeekKey> = None;
            for (k, v) in g.entries() {
                if skip_to.as_deref().is_some_and(|t| bytes::less(k, t)) {
                    continue;
                }
                skip_to = None;
                match resolver.feed(k, v, emit) {
                    Ok(Feed::Next) => {}
                    Ok(Feed::SkipColumn) => skip_to = internal_key::column_end(k),
                    Ok(Feed::SkipCell) => skip_to = internal_key::cell_end(k),
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            }
            return Some(result);
        }
        // Too long to walk backwards: resolve it forward, then stand before it again.
        self.entries_examined += g.spans.len() as u64;
        g.clear();
        let prefix = core::mem::take(&mut g.prefix);
        // `resolve_forward` empties `active` as cursors leave the row: keep the list.
        let mut holding = core::mem::take(&mut self.holding);
        holding.clear();
        holding.extend_from_slice(&self.active);
        for &i in &holding {
            self.cursors[i].seek(&prefix);
        }
        let result = self.resolve_forward(&prefix, resolver, emit);
        for &i in &holding {
            self.cursors[i].seek_before(Some(&prefix));
        }
        self.holding = holding;
        g.prefix = prefix;
        Some(result)
    }

    /// Merges the entries of the row `prefix` from the `active` cursors (each at or before
    /// its first entry of the row, walking forward) in key order into `resolver`, skipping
    /// what it reports hidden; leaves every cursor past the row.
    fn resolve_forward<F>(
        &mut self,
        prefix: &[u8],
        resolver: &mut RowResolver<'_>,
        emit: &mut F,
    ) -> crate::Result<()>
    where
        F: FnMut(VisibleCell<'_>),
    {
        let mut result = Ok(());
        loop {
            // The smallest head of the row among the cursors still in it.
            let mut best: Option<(usize, &[u8], &[u8])> = None;
            let mut j = 0;
            while j < self.active.len() {
                let i = self.active[j];
                match self.cursors[i].entry() {
                    Some((k, v)) if bytes::starts_with(k, prefix) => {
                        if best.is_none_or(|(_, b, _)| bytes::less(k, b)) {
                            best = Some((i, k, v));
                        }
                        j += 1;
                    }
                    _ => {
                        self.active.swap_remove(j);
                    }
                }
            }
            let Some((i, k, v)) = best else {
                return result;
            };
            self.entries_examined += 1;
            let target = match resolver.feed(k, v, emit) {
                Ok(Feed::Next) => {
                    self.cursors[i].next();
                    continue;
                }
                Ok(Feed::SkipColumn) => internal_key::column_end(k),
                Ok(Feed::SkipCell) => internal_key::cell_end(k),
                Err(e) => {
                    // The row is dropped whole: skip the rest of it.
                    result = Err(e);
                    let mut after = internal_key::SeekKey::from_slice(prefix);
                    if let Some(last) = after.last_mut() {
                        *last += 1;
                    }
                    Some(after)
                }
            };
            let Some(target) = target else {
                self.cursors[i].next();
                continue;
            };
            for &a in &self.active {
                let c = &mut self.cursors[a];
                let mut steps = 0;
                while c.entry().is_some_and(|(k, _)| bytes::less(k, &target)) {
                    if steps == STEPS_BEFORE_SEEK {
                        c.seek(&target);
                        break;
                    }
                    c.next();
                    steps += 1;
                    self.entries_examined += 1;
                }
            }
        }
    }

    /// Gathers the next row's entries into `g` (its row part into `g.prefix`), in
    /// ascending key order whatever the direction. `Ok(false)` when the scan is over.
    ///
    /// # Errors
    /// A source's error (`DataLoss` naming the file for a corrupt block); the scan is over.
    pub(crate) fn next_row(&mut self, g: &mut RowGather<'a>) -> Result<bool> {
        if self.failed() || !self.next_prefix(g) {
            self.error()?;
            return Ok(false);
        }
        self.gather(g, usize::MAX);
        if self.failed() {
            g.clear();
            self.error()?;
        }
        Ok(true)
    }

    /// Gathers the entries of the row `g.prefix` (the head's) into `g`, in ascending key
    /// order. False, with the row partly gathered, once more than `limit` entries were
    /// gathered (only ever for a reversed scan, whose `active` cursors then hold the row).
    fn gather(&mut self, g: &mut RowGather<'a>, limit: usize) -> bool {
        let reversed = self.reversed;
        {
            g.clear();
            let mut sources = 0;
            for c in &mut self.cursors {
                let mut hit = false;
                loop {
                    if g.spans.len() > limit {
                        return false;
                    }
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
            true
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
        while scan.next_row(&mut g).unwrap() {
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
            tablet.runs.push_oldest(MemRun::new(p, 3));
        }
        tablet.runs.insert_newest(MemRun::new(overlapping, 4));
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
                let forward = collect(tablet.scan(Some(&lower), Some(&upper), false, None));
                let got: Vec<_> = forward.iter().flatten().cloned().collect();
                let want: Vec<_> = all
                    .iter()
                    .filter(|(k, _)| *k >= lower && *k < upper)
                    .cloned()
                    .collect();
                assert_eq!(got, want, "scan r{start:03}..=r{end:03}");
                let mut backward = collect(tablet.scan(Some(&lower), Some(&upper), true, None));
                backward.reverse();
                assert_eq!(backward, forward, "reversed r{start:03}..=r{end:03}");
            }
        }
    }
}

#[cfg(test)]
mod skip_tests {
    //! The resolver's skips change what a read costs, never what it returns: every row
    //! resolved with them (forward, reversed, and reversed through the forward re-read)
    //! equals the row gathered whole and resolved without them, GC applied per cell, and
    //! with a column limit `n` it equals the first `n` cells of each column of that row.

    use super::RowGather;
    use crate::lsm::internal_key::{EntryKind, InternalKey};
    use crate::lsm::memtable::MemRun;
    use crate::lsm::row_merge::{resolve_entries, RowResolver};
    use crate::model::gc::GcRule;
    use crate::model::schema::{ColumnFamily, Families};
    use crate::table::tablet::Tablet;
    use alloc::collections::BTreeMap;
    use alloc::string::String;
    use alloc::vec::Vec;
    use proptest::prelude::*;

    const NOW: i64 = 20_000;

    type Cells = Vec<(String, Vec<u8>, i64, Vec<u8>)>;

    /// Every row: resolved whole, then GC applied cell by cell.
    fn reference(tablet: &Tablet, families: &Families) -> Vec<Cells> {
        let epochs = BTreeMap::new();
        let mut scan = tablet.scan(None, None, false, None);
        let mut g = RowGather::default();
        let mut rows = Vec::new();
        while scan.next_row(&mut g).unwrap() {
            let mut cells = Vec::new();
            resolve_entries(g.entries(), &epochs, |c| {
                let rule = families.get(c.family).map(|f| &f.gc_rule);
                if !rule.is_some_and(|r| r.is_collectable(c.version, c.timestamp_micros, NOW)) {
                    cells.push((
                        String::from(c.family),
                        c.qualifier.to_vec(),
                        c.timestamp_micros,
                        c.value.to_vec(),
                    ));
                }
            })
            .unwrap();
            rows.push(cells);
        }
        rows
    }

    /// Keeps the first `n` cells of each column of each row (what a leading
    /// `CellsPerColumnLimit(n)` keeps).
    fn newest(rows: &[Cells], n: Option<usize>) -> Vec<Cells> {
        let Some(n) = n else {
            return rows.to_vec();
        };
        rows.iter()
            .map(|cells| {
                let mut out: Cells = Vec::new();
                let mut run = 0;
                for c in cells {
                    let same = out.last().is_some_and(|p| p.0 == c.0 && p.1 == c.1);
                    run = if same { run + 1 } else { 1 };
                    if run <= n {
                        out.push(c.clone());
                    }
                }
                out
            })
            .collect()
    }

    fn skipping(
        tablet: &Tablet,
        families: &Families,
        reversed: bool,
        limit: usize,
    ) -> (Vec<Cells>, u64) {
        skipping_limited(tablet, families, reversed, limit, None)
    }

    fn skipping_limited(
        tablet: &Tablet,
        families: &Families,
        reversed: bool,
        limit: usize,
        column_limit: Option<usize>,
    ) -> (Vec<Cells>, u64) {
        let epochs = BTreeMap::new();
        let mut scan = tablet.scan(None, None, reversed, None);
        scan.reverse_gather_limit = limit;
        let mut resolver = RowResolver::new(&epochs, Some((families, NOW)));
        resolver.set_column_limit(column_limit);
        let mut g = RowGather::default();
        let mut rows = Vec::new();
        loop {
            let mut cells = Vec::new();
            let more = scan.next_cells(&mut g, &mut resolver, &mut |c| {
                cells.push((
                    String::from(c.family),
                    c.qualifier.to_vec(),
                    c.timestamp_micros,
                    c.value.to_vec(),
                ))
            });
            match more.unwrap() {
                None => break,
                Some(r) => r.unwrap(),
            }
            rows.push(cells);
        }
        if reversed {
            rows.reverse();
        }
        (rows, scan.entries_examined())
    }

    fn gc_rule() -> impl Strategy<Value = GcRule> {
        let leaf = prop_oneof![
            Just(GcRule::Never),
            (1u32..4).prop_map(GcRule::MaxNumVersions),
            (1i64..15).prop_map(|s| GcRule::MaxAge { micros: s * 1000 }),
        ];
        leaf.prop_recursive(2, 6, 3, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..3).prop_map(GcRule::Intersection),
                proptest::collection::vec(inner, 0..3).prop_map(GcRule::Union),
            ]
        })
    }

    /// An entry: (row, family, qualifier, kind 0..=9, timestamp in ms, sequence).
    fn entry() -> impl Strategy<Value = (u8, u8, u8, u8, i64, u64)> {
        (0u8..3, 0u8..2, 0u8..3, 0u8..10, 0i64..20, 1u64..60)
    }

    fn encode(e: (u8, u8, u8, u8, i64, u64)) -> (Vec<u8>, Vec<u8>) {
        let (row, fam, q, kind, ts, seq) = e;
        let family = String::from(["a", "b"][usize::from(fam)]);
        let qualifier = alloc::vec![b'q', q];
        let kind = match kind {
            0 => EntryKind::DeleteRow,
            1 => EntryKind::DeleteFamily { family },
            2 => EntryKind::DeleteColumn {
                family,
                qualifier,
                start_micros: (ts as u64) * 1000,
                end_micros: (ts as u64 + 5) * 1000,
            },
            _ => EntryKind::Cell {
                family,
                qualifier,
                timestamp_micros: ts * 1000,
            },
        };
        let key = InternalKey {
            row_key: alloc::vec![b'r', row],
            sequence: seq,
            kind,
        };
        (key.encode(), alloc::vec![row, fam, q, seq as u8])
    }

    proptest! {
        #[test]
        fn skipping_reads_equal_whole_reads(
            rules in (gc_rule(), gc_rule()),
            sources in proptest::collection::vec(proptest::collection::vec(entry(), 0..40), 1..4),
            in_memtable in any::<bool>(),
            limit in 0usize..6,
            column_limit in proptest::option::of(1usize..4),
        ) {
            let mut families = Families::new();
            families.insert(String::from("a"), ColumnFamily { gc_rule: rules.0, ..ColumnFamily::default() });
            families.insert(String::from("b"), ColumnFamily { gc_rule: rules.1, ..ColumnFamily::default() });
            let mut tablet = Tablet::new(0, Vec::new(), None);
            for (i, source) in sources.iter().enumerate() {
                let mut entries: Vec<_> = source.iter().map(|e| encode(*e)).collect();
                entries.sort();
                entries.dedup_by(|a, b| a.0 == b.0);
                if in_memtable && i == 0 {
                    for (k, v) in entries {
                        tablet.memtable.insert(k, v, 1);
                    }
                } else {
                    tablet.runs.push_oldest(MemRun::new(entries, 60));
                }
            }
            // With a column limit, the first `n` cells of each column of the whole read.
            let want = newest(&reference(&tablet, &families), column_limit);
            let read = |reversed, limit| {
                skipping_limited(&tablet, &families, reversed, limit, column_limit).0
            };
            prop_assert_eq!(&read(false, limit), &want);
            prop_assert_eq!(&read(true, limit), &want);
            prop_assert_eq!(&read(true, usize::MAX), &want);
        }
    }

    #[test]
    fn a_hot_counter_costs_a_few_entries_in_every_direction() {
        // 5,000 versions of one cell under max_num_versions = 1, half in runs (two
        // overlapping) and half in the memtable, some sharing a timestamp.
        let mut families = Families::new();
        families.insert(
            String::from("a"),
            ColumnFamily {
                gc_rule: GcRule::MaxNumVersions(1),
                ..ColumnFamily::default()
            },
        );
        let key = |seq: u64| {
            InternalKey {
                row_key: b"counter".to_vec(),
                sequence: seq,
                kind: EntryKind::Cell {
                    family: "a".into(),
                    qualifier: b"n".to_vec(),
                    timestamp_micros: (seq as i64 / 3) * 1000,
                },
            }
            .encode()
        };
        let mut tablet = Tablet::new(0, Vec::new(), None);
        for part in [1..1250u64, 1250..2500] {
            let mut run: Vec<_> = part.map(|s| (key(s), s.to_be_bytes().to_vec())).collect();
            run.sort();
            tablet.runs.insert_newest(MemRun::new(run, 2500));
        }
        for s in 2500..5000u64 {
            tablet.memtable.insert(key(s), s.to_be_bytes().to_vec(), s);
        }
        for reversed in [false, true] {
            let (rows, examined) =
                skipping(&tablet, &families, reversed, super::REVERSE_GATHER_LIMIT);
            assert_eq!(rows.len(), 1);
            assert_eq!(rows[0].len(), 1);
            assert_eq!(rows[0][0].3, 4999u64.to_be_bytes());
            let bound = 3 * (super::STEPS_BEFORE_SEEK + 2) + super::REVERSE_GATHER_LIMIT + 2;
            assert!(
                examined <= bound as u64,
                "reversed {reversed}: {examined} entries examined"
            );
        }
    }
}
