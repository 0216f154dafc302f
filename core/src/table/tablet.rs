//! A tablet: a contiguous key range `[start, end)` of one table, stored as an LSM.
//!
//! A tablet holds a memtable (newest writes) and immutable sorted runs (newest first). Runs
//! may be shared with a sibling tablet after a split (Bigtable's tablets share SSTables the
//! same way): every read clamps to the tablet's own range, and compaction rewrites only the
//! tablet's own rows. Invariant: every entry a tablet answers for has a row key inside
//! `[start, end)`.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::ops::Range;

use crate::lsm::internal_key;
use crate::lsm::memtable::{MemRun, Memtable};
use crate::lsm::persist::{RunStore, RunWriter};
use crate::lsm::row_merge::{resolve_entries, Entry};
use crate::lsm::runs::Runs;
use crate::lsm::source::Source;
use crate::model::gc::GcRule;
use crate::model::mutation::{Mutation, TimestampRange};
use crate::model::row::Cell;
use crate::model::schema::TableConfig;
use crate::platform::bytes;
use crate::table::scan::{RowGather, TabletScan};
use crate::Result;

/// One tablet's data.
pub(crate) struct Tablet {
    pub(crate) id: u64,
    /// Inclusive start; empty = the beginning of the key space.
    pub(crate) start: Vec<u8>,
    /// Exclusive end; `None` = the end of the key space.
    pub(crate) end: Option<Vec<u8>>,
    pub(crate) memtable: Memtable,
    /// Immutable runs, newest first.
    pub(crate) runs: Runs,
    /// Load already accounted for by a load split in the current time bucket.
    pub(crate) load_baseline: u64,
    /// Every logged write to this tablet's rows with a sequence at or below this is in
    /// `runs` (or was compacted or dropped away from them): recovery must not replay it.
    /// Kept apart from the runs' own `max_sequence` because runs can vanish (a compaction
    /// whose rows were all deleted, a split half that received no run) while the writes
    /// they absorbed are still in the log; replaying those against the compacted state
    /// would not reproduce it (a ranged delete buries the collectable cells it sees, and
    /// those were already collected).
    pub(crate) flushed_through: u64,
}

/// How a tablet is read: the scans over its sources. The tablet gathers its sources and
/// bounds; the merge (`table::scan`) knows only cursors.
impl Tablet {
    /// Every source of the tablet a read merges: its memtable layers, then its runs.
    fn sources(&self) -> impl Iterator<Item = &dyn Source> {
        self.memtable
            .layers()
            .chain(self.runs.iter().map(|r| r.as_ref()))
    }

    /// A scan of every source that may hold rows between `lower` (inclusive, an encoded
    /// row boundary; `None`: the tablet's start) and `upper` (exclusive; `None`: the
    /// tablet's end), each cursor at the first key of that span, or at the last one when
    /// `reversed`. `point_row`: the scan is that single row (REQUIRES: a row of the tablet,
    /// `lower` and `upper` its bounds), so sources whose filter rules the row out are
    /// skipped.
    pub(crate) fn scan(
        &self,
        lower: Option<&[u8]>,
        upper: Option<&[u8]>,
        reversed: bool,
        point_row: Option<&[u8]>,
    ) -> TabletScan<'_> {
        let (lower, upper) = match (lower, upper, point_row) {
            // A row of the tablet: its bounds are inside the tablet's already.
            (Some(l), Some(u), Some(_)) => (l.to_vec(), Some(u.to_vec())),
            _ => {
                let start = internal_key::row_prefix(&self.start);
                let lower = match lower {
                    Some(l) if bytes::less(&start, l) => l.to_vec(),
                    _ => start,
                };
                let end = self.end.as_deref().map(internal_key::row_prefix);
                let upper = match (upper, end) {
                    (Some(u), Some(e)) => Some(if bytes::less(u, &e) { u.to_vec() } else { e }),
                    (Some(u), None) => Some(u.to_vec()),
                    (None, e) => e,
                };
                (lower, upper)
            }
        };
        TabletScan::open(self.sources(), lower, upper, reversed, point_row)
    }

    /// A scan of the one row `row` of the tablet, over the memtable and only the runs whose
    /// range reaches the row (found through the runs' index rather than by asking each run).
    pub(crate) fn point_scan(&self, row: &[u8]) -> TabletScan<'_> {
        let lower = internal_key::row_prefix_buf(row);
        // `after_row`, from the prefix at hand rather than escaping the key again.
        let upper = internal_key::after_prefix(&lower);
        // The cursors are opened while the sources' iterator borrows the bounds, then the
        // bounds move into the scan: no list of the candidate runs is gathered (with more
        // than a few runs overlapping the row, that list was one more allocation per read).
        let sources = self
            .memtable
            .layers()
            .chain(self.runs.overlapping(&lower, &upper));
        let cursors = TabletScan::point_cursors(sources, row, &lower, &upper);
        TabletScan::point(cursors, lower, upper)
    }

    /// A forward scan of every row of the tablet held in its runs (the memtable left out):
    /// what a compaction rewrites.
    pub(crate) fn runs_scan(&self) -> TabletScan<'_> {
        self.runs_in_scan(0..self.runs.len())
    }

    /// A forward scan of the rows of the tablet held in `runs` (indices into its runs):
    /// what a merge of some runs rewrites.
    pub(crate) fn runs_in_scan(&self, runs: Range<usize>) -> TabletScan<'_> {
        let start = internal_key::row_prefix(&self.start);
        let limit = self.end.as_deref().map(internal_key::row_prefix);
        let sources = self.runs[runs].iter().map(|r| r.as_ref());
        TabletScan::open(sources, start, limit, false, None)
    }
}

impl Tablet {
    pub(crate) fn new(id: u64, start: Vec<u8>, end: Option<Vec<u8>>) -> Self {
        Tablet {
            id,
            start,
            end,
            memtable: Memtable::default(),
            runs: Runs::default(),
            load_baseline: 0,
            flushed_through: 0,
        }
    }

    /// Gathers the entries of one row into `g` through the read path (a scan of that
    /// row alone, skipping sources whose filter rules it out). False if no source holds
    /// an entry of the row.
    ///
    /// # Errors
    /// A run's error (`DataLoss` for a corrupt block holding the row).
    pub(crate) fn gather_row<'a>(&'a self, row: &[u8], g: &mut RowGather<'a>) -> Result<bool> {
        self.point_scan(row).next_row(g)
    }

    /// The visible cells of a row (before GC), with their write sequence numbers.
    ///
    /// # Errors
    /// A run's error (`DataLoss` for a corrupt block holding the row).
    pub(crate) fn row_cells(
        &self,
        row: &[u8],
        epochs: &BTreeMap<String, u64>,
    ) -> Result<Vec<(Cell, u64)>> {
        let mut g = RowGather::default();
        if !self.gather_row(row, &mut g)? {
            return Ok(Vec::new());
        }
        let mut cells = Vec::new();
        // Entries come from this engine's own encoder; a key that fails to decode can only
        // come from corrupt storage, which the run decoders report before it reaches here.
        let resolved = resolve_entries(g.entries(), epochs, |c| {
            cells.push((
                Cell {
                    family: c.family.into(),
                    qualifier: c.qualifier.to_vec(),
                    timestamp_micros: c.timestamp_micros,
                    value: c.value.to_vec(),
                    labels: Vec::new(),
                },
                c.sequence,
            ))
        });
        if resolved.is_err() {
            cells.clear();
        }
        Ok(cells)
    }

    /// Approximate bytes held (shared runs count whole until compaction rewrites them).
    pub(crate) fn size_bytes(&self) -> u64 {
        self.memtable.size_bytes() + self.runs.iter().map(|r| r.size_bytes()).sum::<u64>()
    }

    /// Moves the memtable into a new run (a file when `store` is given). On failure the
    /// memtable is kept: its writes are still in the commit log.
    ///
    /// `applied` is the table's last applied sequence: once the memtable is empty, every
    /// write to this tablet up to it is in the runs, so it becomes [`Self::flushed_through`]
    /// (an empty memtable advances it too).
    pub(crate) fn flush(&mut self, store: Option<&RunStore>, applied: u64) -> Result<bool> {
        if self.memtable.is_empty() {
            self.flushed_through = self.flushed_through.max(applied);
            return Ok(false);
        }
        let max_sequence = self.memtable.max_sequence();
        let run = match store {
            // In memory nothing can fail: move the entries instead of copying them.
            None => MemRun::new(self.memtable.take_entries(), max_sequence),
            Some(_) => make_run(self.memtable.entries(), max_sequence, store)?,
        };
        self.runs.insert_newest(run);
        self.memtable.clear();
        self.flushed_through = self.flushed_through.max(applied).max(max_sequence);
        Ok(true)
    }

    /// Installs a run built outside the database lock from `flushed`, a clone of this
    /// tablet's memtable taken when `applied` was the table's last applied sequence. Every
    /// write to this tablet up to `applied` was in `flushed` or the runs, and later ones are
    /// in the layers written since, so the flushed mark becomes `applied`. False (and
    /// nothing changes) if the memtable no longer holds `flushed`'s layers.
    #[cfg(feature = "std")]
    pub(crate) fn install_flush(
        &mut self,
        flushed: &Memtable,
        run: Arc<dyn Source>,
        applied: u64,
    ) -> bool {
        if !self.memtable.remove_flushed(flushed) {
            return false;
        }
        self.runs.insert_newest(run);
        self.flushed_through = self
            .flushed_through
            .max(applied)
            .max(flushed.max_sequence());
        true
    }

    /// The sequence through which the runs hold every write to this tablet: recovery skips
    /// log records at or below it.
    pub(crate) fn flushed_sequence(&self) -> u64 {
        self.runs
            .iter()
            .map(|r| r.max_sequence())
            .fold(self.flushed_through, u64::max)
    }

    /// Merges every run into new runs of this tablet's rows alone, dropping what deletes
    /// cover (every older write is in the merge, so tombstones can go too) and what the
    /// families' GC rules collect. The output is cut at row boundaries into runs of about
    /// `piece_bytes` (so a tablet that must split afterwards splits between runs, and no run
    /// is shared); `u64::MAX` writes one run. Returns the new size in bytes. With
    /// `collected`, each cell a GC rule collected is added to it, in row order, as its row
    /// key and a DeleteFromColumn of its timestamp (for the table's change stream).
    ///
    /// On an error the tablet is unchanged (`collected` may have grown).
    pub(crate) fn compact(
        &mut self,
        config: &TableConfig,
        epochs: &BTreeMap<String, u64>,
        now_micros: i64,
        store: Option<&RunStore>,
        piece_bytes: u64,
        mut collected: Option<&mut Vec<(Vec<u8>, Mutation)>>,
    ) -> Result<u64> {
        let max_sequence = self.flushed_sequence();
        let mut pieces: Vec<Arc<dyn Source>> = Vec::new();
        let mut size = 0u64;
        {
            let never = GcRule::Never;
            let mut scan = self.runs_scan();
            let mut g = RowGather::default();
            // One row's output: its keys and values back to back, and where each entry is.
            let mut row_data: Vec<u8> = Vec::new();
            let mut row_spans: Vec<(usize, usize, usize)> = Vec::new();
            let mut sink: Option<RunSink> = None;
            while scan.next_row(&mut g)? {
                row_data.clear();
                row_spans.clear();
                let mut rule = &never;
                let mut row_collected: Vec<Mutation> = Vec::new();
                let logging = collected.is_some();
                let resolved = resolve_entries(g.entries(), epochs, |c| {
                    if c.new_family {
                        rule = config.families.get(c.family).map_or(&never, |f| &f.gc_rule);
                    }
                    if rule.is_collectable(c.version, c.timestamp_micros, now_micros) {
                        if logging {
                            row_collected.push(Mutation::DeleteFromColumn {
                                family: c.family.into(),
                                qualifier: c.qualifier.to_vec(),
                                time_range: TimestampRange {
                                    start_micros: c.timestamp_micros,
                                    end_micros: Some(c.timestamp_micros.saturating_add(1)),
                                },
                            });
                        }
                        return;
                    }
                    let k = row_data.len();
                    row_data.extend_from_slice(&g.prefix);
                    internal_key::push_cell_after_row(
                        &mut row_data,
                        c.family,
                        c.qualifier,
                        c.timestamp_micros,
                        c.sequence,
                    );
                    let v = row_data.len();
                    row_data.extend_from_slice(c.value);
                    row_spans.push((k, v, row_data.len()));
                });
                if resolved.is_ok() && !row_collected.is_empty() {
                    if let Some(out) = collected.as_deref_mut() {
                        let key = internal_key::row_key_of(&g.prefix)?;
                        out.extend(row_collected.drain(..).map(|m| (key.clone(), m)));
                    }
                }
                // A row that does not decode is dropped whole, never half.
                if resolved.is_err() || row_spans.is_empty() {
                    continue;
                }
                if sink.as_ref().is_some_and(|s| s.bytes >= piece_bytes) {
                    if let Some(full) = sink.take() {
                        pieces.push(full.finish(max_sequence)?);
                    }
                }
                let out = match &mut sink {
                    Some(out) => out,
                    None => sink.insert(RunSink::new(store)?),
                };
                for &(k, v, e) in &row_spans {
                    out.add(&row_data[k..v], &row_data[v..e])?;
                }
                size += row_data.len() as u64;
            }
            if let Some(last) = sink {
                pieces.push(last.finish(max_sequence)?);
            }
        }
        // Newest first is the runs' order; pieces are disjoint, so any order holds it.
        pieces.reverse();
        self.runs = pieces.into();
        Ok(size)
    }

    /// Merges the runs at `range` (consecutive, so the merged run keeps their place in the
    /// newest-first order) into one, keeping every entry of the tablet's rows: tombstones
    /// and collectable cells stay, because older runs outside the merge may hold what they
    /// hide. Reads see exactly what they saw before. On an error the tablet is unchanged.
    pub(crate) fn merge_runs(
        &mut self,
        range: Range<usize>,
        store: Option<&RunStore>,
    ) -> Result<()> {
        let max_sequence = self.runs[range.clone()]
            .iter()
            .map(|r| r.max_sequence())
            .max()
            .unwrap_or(0);
        let mut sink = RunSink::new(store)?;
        {
            let mut scan = self.runs_in_scan(range.clone());
            let mut g = RowGather::default();
            while scan.next_row(&mut g)? {
                for (k, v) in g.entries() {
                    sink.add(k, v)?;
                }
            }
        }
        let merged = if sink.entries == 0 {
            // Nothing of this tablet's was in them (runs shared with a sibling).
            None
        } else {
            Some(sink.finish(max_sequence)?)
        };
        self.runs.splice(range, merged);
        Ok(())
    }

    /// For each run, the row parts (`row_prefix`) of its first and last entries inside the
    /// tablet; `None` for a run holding nothing inside it (a run shared after a split).
    pub(crate) fn run_spans(&self) -> Vec<Option<(Vec<u8>, Vec<u8>)>> {
        let start = internal_key::row_prefix(&self.start);
        let end = self.end.as_deref().map(internal_key::row_prefix);
        let row_part = |k: Vec<u8>| -> Vec<u8> {
            match internal_key::row_prefix_len(&k) {
                Some(n) => k[..n].to_vec(),
                None => k,
            }
        };
        self.runs
            .iter()
            .map(|r| {
                let mut c = r.cursor();
                c.seek(&start);
                let Some((first, _)) = c.entry() else {
                    return recorded_span(r.as_ref(), c.status().is_err());
                };
                let first = first.to_vec();
                if end.as_ref().is_some_and(|e| first >= *e) {
                    return None;
                }
                c.seek_before(end.as_deref());
                let Some((last, _)) = c.entry() else {
                    return recorded_span(r.as_ref(), c.status().is_err());
                };
                Some((row_part(first), row_part(last.to_vec())))
            })
            .collect()
    }

    /// Whether every run holds only rows of this tablet. A run shared with a former sibling
    /// (after a split) also holds rows outside it, which this tablet's reads never see: they
    /// may be stale here (this side compacted them away) or belong to the sibling. Such a
    /// tablet must not hand its runs to a merged tablet whose range covers those rows.
    pub(crate) fn runs_within_bounds(&self) -> bool {
        let start = internal_key::row_prefix(&self.start);
        let end = self.end.as_deref().map(internal_key::row_prefix);
        self.runs.iter().all(|r| {
            let (first, last) = match r.key_range() {
                Some((f, l)) => (f.to_vec(), l.to_vec()),
                // A source without recorded bounds: ask it for its ends.
                None => {
                    let mut c = r.cursor();
                    c.seek(&[]);
                    let Some((f, _)) = c.entry() else {
                        return true;
                    };
                    let f = f.to_vec();
                    c.seek_before(None);
                    match c.entry() {
                        Some((l, _)) => (f, l.to_vec()),
                        None => return true,
                    }
                }
            };
            first >= start && end.as_ref().is_none_or(|e| last < *e)
        })
    }

    /// The largest number of runs holding entries of one row range: what a point read or a
    /// scan has to merge at worst. Runs written in key order (a sequential load) do not
    /// overlap, so they never need merging however many there are.
    pub(crate) fn overlap_depth(spans: &[Option<(Vec<u8>, Vec<u8>)>]) -> usize {
        let spans: Vec<_> = spans.iter().flatten().collect();
        spans
            .iter()
            .map(|(first, _)| {
                spans
                    .iter()
                    .filter(|(f, l)| f <= first && first <= l)
                    .count()
            })
            .max()
            .unwrap_or(0)
    }

    /// The row to split at between runs, when the runs hold disjoint row ranges: the run
    /// boundary nearest the middle of the bytes, so each half takes whole runs and nothing
    /// is rewritten. `None` if runs overlap or there are fewer than two.
    pub(crate) fn run_boundary_split(&self) -> Option<Vec<u8>> {
        let mut spans: Vec<(Vec<u8>, Vec<u8>, u64)> = self
            .run_spans()
            .into_iter()
            .zip(&self.runs)
            .filter_map(|(span, r)| span.map(|(f, l)| (f, l, r.size_bytes())))
            .collect();
        if spans.len() < 2 {
            return None;
        }
        spans.sort();
        if spans.windows(2).any(|w| w[0].1 >= w[1].0) {
            return None;
        }
        let total: u64 = spans.iter().map(|s| s.2).sum();
        let mut acc = 0u64;
        let mut best: Option<(u64, usize)> = None;
        for i in 1..spans.len() {
            acc += spans[i - 1].2;
            let off = acc.abs_diff(total / 2);
            if best.is_none_or(|(b, _)| off < b) {
                best = Some((off, i));
            }
        }
        let (_, i) = best?;
        internal_key::row_key_of(&spans[i].0).ok()
    }

    /// The row nearest the middle of the tablet's bytes (never its first row), from one scan
    /// of its sources. `None` for a tablet of fewer than two rows.
    pub(crate) fn middle_row(&self) -> Option<Vec<u8>> {
        let mut rows: Vec<(Vec<u8>, u64)> = Vec::new();
        let mut scan = self.scan(None, None, false, None);
        let mut g = RowGather::default();
        // A run that cannot be read: no split now (the read that touches it reports it).
        while scan.next_row(&mut g).ok()? {
            let bytes = g.entries().map(|(k, v)| (k.len() + v.len()) as u64).sum();
            rows.push((g.prefix.to_vec(), bytes));
        }
        let total: u64 = rows.iter().map(|r| r.1).sum();
        let mut acc = 0u64;
        let mut split = None;
        for (i, (row, bytes)) in rows.iter().enumerate() {
            if i > 0 && acc + bytes / 2 >= total / 2 {
                split = Some(row);
                break;
            }
            acc += bytes;
        }
        let prefix = split.or_else(|| rows.get(1).map(|r| &r.0))?;
        internal_key::row_key_of(prefix).ok()
    }

    /// Cuts the tablet at row `mid`: this tablet keeps `[start, mid)`, the returned one
    /// (with id `id`) takes `[mid, end)`. Each half keeps only the runs holding entries of
    /// its range; a run holding both is shared. The memtable must be empty (flushed).
    pub(crate) fn split_off(&mut self, mid: Vec<u8>, id: u64) -> Tablet {
        debug_assert!(self.memtable.is_empty());
        let spans = self.run_spans();
        let mid_part = internal_key::row_prefix(&mid);
        let mut left = Vec::new();
        let mut right = Vec::new();
        for (run, span) in core::mem::take(&mut self.runs).into_iter().zip(spans) {
            let Some((first, last)) = span else {
                continue;
            };
            if first < mid_part {
                left.push(run.clone());
            }
            if last >= mid_part {
                right.push(run);
            }
        }
        self.runs = left.into();
        let mut other = Tablet::new(id, mid.clone(), self.end.take());
        other.runs = right.into();
        other.load_baseline = self.load_baseline;
        other.flushed_through = self.flushed_through;
        self.end = Some(mid);
        other
    }
}

/// The span `run_spans` gives a run whose cursor found no entry: none (`failed` false: it
/// holds nothing of the tablet), or, when the cursor failed on a corrupt block, the run's
/// whole recorded key range, row parts, so a split keeps the run on every side it may
/// reach and the read that touches the bad block reports it.
fn recorded_span(run: &dyn Source, failed: bool) -> Option<(Vec<u8>, Vec<u8>)> {
    if !failed {
        return None;
    }
    let part = |k: &[u8]| -> Vec<u8> {
        match internal_key::row_prefix_len(k) {
            Some(n) => k[..n].to_vec(),
            None => k.to_vec(),
        }
    };
    let (first, last) = run.key_range()?;
    Some((part(first), part(last)))
}

/// Where a compaction or merge streams its output: a run file, or memory.
struct RunSink<'s> {
    out: SinkKind<'s>,
    /// Key and value bytes added.
    bytes: u64,
    entries: u64,
}

enum SinkKind<'s> {
    File(alloc::boxed::Box<RunWriter<'s>>),
    Memory(Vec<Entry>),
}

impl<'s> RunSink<'s> {
    fn new(store: Option<&'s RunStore>) -> Result<Self> {
        let out = match store {
            Some(s) => SinkKind::File(alloc::boxed::Box::new(s.run_writer()?)),
            None => SinkKind::Memory(Vec::new()),
        };
        Ok(RunSink {
            out,
            bytes: 0,
            entries: 0,
        })
    }

    fn add(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        match &mut self.out {
            SinkKind::File(w) => w.add(key, value)?,
            SinkKind::Memory(v) => v.push((key.to_vec(), value.to_vec())),
        }
        self.bytes += (key.len() + value.len()) as u64;
        self.entries += 1;
        Ok(())
    }

    fn finish(self, max_sequence: u64) -> Result<Arc<dyn Source>> {
        match self.out {
            SinkKind::File(w) => w.finish(max_sequence),
            SinkKind::Memory(v) => Ok(MemRun::new(v, max_sequence)),
        }
    }
}

/// A run of sorted entries: a file on the store, or in memory without one.
pub(crate) fn make_run(
    entries: Vec<Entry>,
    max_sequence: u64,
    store: Option<&RunStore>,
) -> Result<Arc<dyn Source>> {
    match store {
        Some(s) => s.write_run(&entries, max_sequence),
        None => Ok(MemRun::new(entries, max_sequence)),
    }
}
