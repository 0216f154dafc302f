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
use core::ops::Bound;

use crate::gc::GcRule;
use crate::internal_key;
use crate::memtable::{MemRun, Memtable, Source};
use crate::persist::RunStore;
use crate::row::Cell;
use crate::row_merge::{resolve_entries, resolve_row, Entry};
use crate::scan::{RowGather, TabletScan};
use crate::schema::TableConfig;
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
    pub(crate) runs: Vec<Arc<dyn Source>>,
    /// Load already accounted for by a load split in the current time bucket.
    pub(crate) load_baseline: u64,
}

use internal_key::after_row;

impl Tablet {
    pub(crate) fn new(id: u64, start: Vec<u8>, end: Option<Vec<u8>>) -> Self {
        Tablet {
            id,
            start,
            end,
            memtable: Memtable::default(),
            runs: Vec::new(),
            load_baseline: 0,
        }
    }

    pub(crate) fn contains(&self, row: &[u8]) -> bool {
        row >= self.start.as_slice() && self.end.as_deref().is_none_or(|e| row < e)
    }

    fn sources(&self) -> impl Iterator<Item = &dyn Source> {
        core::iter::once(&self.memtable as &dyn Source).chain(self.runs.iter().map(|r| r.as_ref()))
    }

    /// Every entry of one row from every source, merged in key order.
    pub(crate) fn row_entries(&self, row: &[u8]) -> Vec<Entry> {
        let prefix = internal_key::row_prefix(row);
        let mut out = Vec::new();
        for s in self.sources() {
            s.row_entries(row, &prefix, &mut out);
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out.dedup_by(|a, b| a.0 == b.0);
        out
    }

    /// The visible cells of a row (before GC), with their write sequence numbers.
    pub(crate) fn row_cells(&self, row: &[u8], epochs: &BTreeMap<String, u64>) -> Vec<(Cell, u64)> {
        // Entries come from this engine's own encoder; a key that fails to decode can only
        // come from corrupt storage, which the run decoders report before it reaches here.
        resolve_row(&self.row_entries(row), epochs).unwrap_or_default()
    }

    /// The first row key in the tablet at or after `from` (any source; may be a row whose
    /// cells are all deleted). `None` if none before the tablet's end.
    pub(crate) fn first_row(&self, from: Bound<&[u8]>) -> Option<Vec<u8>> {
        let start_seek = internal_key::row_prefix(&self.start);
        let seek = match from {
            Bound::Unbounded => start_seek,
            Bound::Included(k) => internal_key::row_prefix(k).max(start_seek),
            Bound::Excluded(k) => after_row(k).max(start_seek),
        };
        self.sources()
            .filter_map(|s| s.first_at_or_after(&seek))
            .filter_map(|k| internal_key::row_key_of(&k).ok())
            .min()
            .filter(|row| self.contains(row))
    }

    /// The last row key in the tablet at or before `to`. `None` if none after the tablet's
    /// start.
    pub(crate) fn last_row(&self, to: Bound<&[u8]>) -> Option<Vec<u8>> {
        let end_seek = self.end.as_deref().map(internal_key::row_prefix);
        let seek = match to {
            Bound::Unbounded => end_seek.clone(),
            Bound::Included(k) => Some(after_row(k)),
            Bound::Excluded(k) => Some(internal_key::row_prefix(k)),
        };
        let seek = match (seek, end_seek) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.sources()
            .filter_map(|s| s.last_before(seek.as_deref()))
            .filter_map(|k| internal_key::row_key_of(&k).ok())
            .max()
            .filter(|row| self.contains(row))
    }

    /// Approximate bytes held (shared runs count whole until compaction rewrites them).
    pub(crate) fn size_bytes(&self) -> u64 {
        self.sources().map(Source::size_bytes).sum()
    }

    /// Moves the memtable into a new run (a file when `store` is given). On failure the
    /// memtable is kept: its writes are still in the commit log.
    pub(crate) fn flush(&mut self, store: Option<&RunStore>) -> Result<bool> {
        if self.memtable.is_empty() {
            return Ok(false);
        }
        let max_sequence = self.memtable.max_sequence();
        let run = match store {
            // In memory nothing can fail: move the entries instead of copying them.
            None => MemRun::new(self.memtable.take_entries(), max_sequence),
            Some(_) => make_run(self.memtable.entries(), max_sequence, store)?,
        };
        self.runs.insert(0, run);
        self.memtable.clear();
        Ok(true)
    }

    /// The highest sequence number already held in runs: recovery skips log records at or
    /// below it.
    pub(crate) fn flushed_sequence(&self) -> u64 {
        self.runs
            .iter()
            .map(|r| r.max_sequence())
            .max()
            .unwrap_or(0)
    }

    /// Merges every run into one, keeping only this tablet's rows, dropping what deletes
    /// cover (every older write is in the merge, so tombstones can go too) and what the
    /// families' GC rules collect. Returns the new size in bytes.
    pub(crate) fn compact(
        &mut self,
        config: &TableConfig,
        epochs: &BTreeMap<String, u64>,
        now_micros: i64,
        store: Option<&RunStore>,
    ) -> Result<u64> {
        let max_sequence = self.flushed_sequence();
        // One merge over the runs, clamped to the tablet: each row's entries resolved from
        // borrowed views, its live cells re-encoded minus what GC collects.
        let mut out: Vec<Entry> = Vec::new();
        {
            let never = GcRule::Never;
            let mut scan = TabletScan::runs_of(self);
            let mut g = RowGather::default();
            while scan.next_row(&mut g) {
                let Ok(row) = internal_key::row_key_of(&g.prefix) else {
                    continue;
                };
                let kept = out.len();
                let mut rule = &never;
                let resolved = resolve_entries(g.entries(), epochs, |c| {
                    if c.new_family {
                        rule = config.families.get(c.family).map_or(&never, |f| &f.gc_rule);
                    }
                    if rule.is_collectable(c.version, c.timestamp_micros, now_micros) {
                        return;
                    }
                    let key = internal_key::encode_cell(
                        &row,
                        c.family,
                        c.qualifier,
                        c.timestamp_micros,
                        c.sequence,
                    );
                    out.push((key, c.value.to_vec()));
                });
                if resolved.is_err() {
                    // A row that does not decode is dropped whole, never half.
                    out.truncate(kept);
                }
            }
        }
        let size = out.iter().map(|(k, v)| (k.len() + v.len()) as u64).sum();
        self.runs = if out.is_empty() {
            Vec::new()
        } else {
            alloc::vec![make_run(out, max_sequence, store)?]
        };
        Ok(size)
    }

    /// Row keys of the tablet with the bytes of their entries, in order (for split points
    /// and sampling).
    pub(crate) fn row_sizes(&self) -> Vec<(Vec<u8>, u64)> {
        let mut out = Vec::new();
        let mut from: Bound<Vec<u8>> = Bound::Unbounded;
        while let Some(row) = self.first_row(from.as_ref().map(Vec::as_slice)) {
            let size = self
                .row_entries(&row)
                .iter()
                .map(|(k, v)| (k.len() + v.len()) as u64)
                .sum();
            out.push((row.clone(), size));
            from = Bound::Excluded(row);
        }
        out
    }
}

/// A run of sorted entries: a file on the store, or in memory without one.
fn make_run(
    entries: Vec<Entry>,
    max_sequence: u64,
    store: Option<&RunStore>,
) -> Result<Arc<dyn Source>> {
    match store {
        Some(s) => s.write_run(&entries, max_sequence),
        None => Ok(MemRun::new(entries, max_sequence)),
    }
}
