//! One table: a sorted list of tablets covering the whole key space, and the row-level
//! operations on them.
//!
//! Invariants: tablets are sorted, contiguous and cover every key (the first starts at the
//! empty key, the last has no end, each end is the next start); a row lives in exactly one
//! tablet; every write gets sequence numbers from the database, one per mutation, so later
//! mutations of one call override earlier ones. Structural changes (flush, compaction, split,
//! merge) are recorded as [`TabletEvent`]s for the playground and tests.
//!
//! A tablet past `TabletOptions::split_bytes` splits near the middle of its bytes: between
//! runs when its runs hold disjoint row ranges, else after a full compaction that writes its
//! rows as two runs. More than `max_runs` overlapping runs merge, a few of similar size at a
//! time (size-tiered, so a byte is rewritten about log2(tablet / memtable) times, not once
//! per few flushes). Adjacent tablets that are both under `merge_bytes` merge, except across
//! a user's `initial_splits`.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::ops::Bound;

use crate::durability::manifest::{RunMeta, TableState, TabletState};
use crate::lsm::internal_key::{self, EntryKind, InternalKey};
#[cfg(feature = "std")]
use crate::lsm::memtable::Memtable;
use crate::lsm::memtable::Source;
use crate::lsm::persist::RunStore;
use crate::lsm::row_merge::RowResolver;
use crate::model::mutation::Mutation;
use crate::model::row::{order_families, Cell, Row, SampleRowKey};
use crate::model::row_set::RowRange;
use crate::model::schema::{Families, TableConfig, ValueType};
#[cfg(feature = "std")]
use crate::table::compaction::{CompactionJob, CompactionKind};
use crate::table::scan::{RowGather, TabletScan};
use crate::table::stats::{AccessCounters, StatsOptions, TableStats};
use crate::table::tablet::Tablet;
use crate::Result;

/// What happened to a table's tablets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TabletEventKind {
    /// A memtable became an immutable run.
    Flush,
    /// A tablet's runs were merged into one, applying deletes and GC.
    Compaction,
    /// A tablet split in two at a row boundary.
    Split,
    /// Two adjacent tablets merged into one.
    Merge,
}

/// A tablet as events and `Database::tablets` describe it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TabletInfo {
    /// Stable id, unique within the table.
    pub id: u64,
    /// Inclusive start key; empty = the beginning.
    pub start_key: Vec<u8>,
    /// Exclusive end key; empty = the end.
    pub end_key: Vec<u8>,
    /// Approximate bytes held.
    pub size_bytes: u64,
    /// Immutable runs.
    pub runs: usize,
    /// Bytes in the memtable (not yet flushed to a run); part of `size_bytes`.
    pub memtable_bytes: u64,
}

/// A structural event of one table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TabletEvent {
    /// The table.
    pub table: String,
    /// What happened.
    pub kind: TabletEventKind,
    /// The tablets before the event (for a flush or compaction: the one tablet).
    pub before: Vec<TabletInfo>,
    /// The tablets after it.
    pub after: Vec<TabletInfo>,
}

/// A table's state frozen at one point: what a backup holds.
#[derive(Clone)]
pub(crate) struct TableSnapshot {
    pub(crate) config: TableConfig,
    tablets: Vec<Tablet>,
    epochs: Arc<BTreeMap<String, u64>>,
}

impl TableSnapshot {
    /// The run files the snapshot holds, each once.
    pub(crate) fn run_metas(&self) -> Vec<RunMeta> {
        let mut metas: Vec<RunMeta> = self
            .tablets
            .iter()
            .flat_map(|t| t.runs.iter().filter_map(|r| r.run_meta()))
            .collect();
        metas.sort_by_key(|m| m.file_number);
        metas.dedup_by_key(|m| m.file_number);
        metas
    }

    /// A snapshot of one tablet holding `runs` (a backup read back from the manifest; its
    /// runs hold only the table's own rows, as backups compact first).
    pub(crate) fn from_runs(config: TableConfig, runs: Vec<Arc<dyn Source>>) -> Self {
        let mut tablet = Tablet::new(0, Vec::new(), None);
        tablet.runs = runs;
        TableSnapshot {
            config,
            tablets: alloc::vec![tablet],
            epochs: Arc::default(),
        }
    }

    /// Approximate bytes held.
    pub(crate) fn size_bytes(&self) -> u64 {
        self.tablets.iter().map(Tablet::size_bytes).sum()
    }
}

pub(crate) struct Table {
    pub(crate) name: String,
    pub(crate) config: TableConfig,
    tablets: Vec<Tablet>,
    /// Per family: writes with a sequence at or below this were dropped with the family.
    epochs: Arc<BTreeMap<String, u64>>,
    next_tablet_id: u64,
    pub(crate) events: Vec<TabletEvent>,
    /// Behind a lock because reads (`&self`) count too; shared with the read streams
    /// open on the table, which count after the database's lock is released.
    pub(crate) stats: Arc<spin::Mutex<TableStats>>,
    /// Where runs are written as files; `None` keeps them in memory.
    pub(crate) store: Option<Arc<RunStore>>,
    /// Set when tablets or runs changed since the manifest was last written.
    pub(crate) dirty: bool,
    /// Writes only note the maintenance a tablet needs (in `maintenance_wanted`) and leave
    /// it to a background pass ([`Table::maintain_all`]), unless the memtable has grown
    /// past the back-pressure bound. Set by `SharedDatabase`.
    pub(crate) defer_maintenance: bool,
    /// A write found a tablet needing a flush or a load split while maintenance is
    /// deferred.
    pub(crate) maintenance_wanted: bool,
    /// Tablets (by id) a flush left due a compaction or merge while maintenance is
    /// deferred: the maintenance thread builds it outside the lock
    /// ([`Table::take_compaction_jobs`]).
    compactions_due: BTreeSet<u64>,
    /// Every write to this table up to this sequence has been applied (to a memtable or
    /// runs), so a flush marks its tablet as holding every write through it (see
    /// [`Tablet::flushed_through`]). Writes apply in sequence order, and recovery replays the
    /// log in order, skipping only what a tablet's own mark already covers.
    applied: u64,
}

impl Clone for Tablet {
    fn clone(&self) -> Self {
        Tablet {
            id: self.id,
            start: self.start.clone(),
            end: self.end.clone(),
            memtable: self.memtable.clone(),
            runs: self.runs.clone(),
            load_baseline: self.load_baseline,
            flushed_through: self.flushed_through,
        }
    }
}

impl Table {
    pub(crate) fn new(name: &str, config: TableConfig) -> Self {
        let mut bounds = config.initial_splits.clone();
        bounds.sort();
        bounds.dedup();
        let mut tablets = Vec::with_capacity(bounds.len() + 1);
        let mut start = Vec::new();
        for (i, b) in bounds.into_iter().enumerate() {
            tablets.push(Tablet::new(
                i as u64,
                core::mem::replace(&mut start, b.clone()),
                Some(b),
            ));
        }
        tablets.push(Tablet::new(tablets.len() as u64, start, None));
        Table {
            name: name.into(),
            next_tablet_id: tablets.len() as u64,
            config,
            tablets,
            epochs: Arc::default(),
            events: Vec::new(),
            stats: Arc::new(spin::Mutex::new(TableStats::new(StatsOptions::default()))),
            store: None,
            dirty: false,
            defer_maintenance: false,
            maintenance_wanted: false,
            compactions_due: BTreeSet::new(),
            applied: 0,
        }
    }

    pub(crate) fn tablet_index(&self, row: &[u8]) -> usize {
        // The last tablet whose start is <= row.
        self.tablets
            .partition_point(|t| !crate::platform::bytes::less(row, &t.start))
            .saturating_sub(1)
    }

    fn info(t: &Tablet) -> TabletInfo {
        TabletInfo {
            id: t.id,
            start_key: t.start.clone(),
            end_key: t.end.clone().unwrap_or_default(),
            size_bytes: t.size_bytes(),
            runs: t.runs.len(),
            memtable_bytes: t.memtable.size_bytes(),
        }
    }

    /// The tablets, in key order.
    pub(crate) fn tablet_infos(&self) -> Vec<TabletInfo> {
        self.tablets.iter().map(Self::info).collect()
    }

    /// Applies an already validated mutation list to one row, giving each mutation the next
    /// sequence number.
    ///
    /// REQUIRES: `validate_row_mutations` passed for these mutations and this table's config,
    /// so nothing here can fail half-way; server timestamps are resolved
    /// (`mutation::resolve_server_time`, done by the database's one write path).
    pub(crate) fn apply(
        &mut self,
        row_key: &[u8],
        mutations: &[Mutation],
        now_micros: i64,
        sequence: &mut u64,
    ) {
        let ti = self.tablet_index(row_key);
        let written: usize = row_key.len()
            + mutations
                .iter()
                .map(|m| match m {
                    Mutation::SetCell {
                        qualifier, value, ..
                    } => qualifier.len() + value.len(),
                    Mutation::MergeToCell {
                        qualifier, state, ..
                    } => qualifier.len() + state.len(),
                    Mutation::AddToCell { qualifier, .. } => qualifier.len() + 8,
                    _ => 0,
                })
                .sum::<usize>();
        self.stats.lock().record(
            now_micros,
            row_key,
            self.tablets[ti].id,
            &AccessCounters {
                writes: 1,
                bytes_written: written as u64,
                ..AccessCounters::default()
            },
        );
        for m in mutations {
            if let Mutation::DeleteFromColumn {
                family,
                qualifier,
                time_range,
            } = m
            {
                if time_range.start_micros > 0 || time_range.end_micros.is_some() {
                    self.bury_collectable(ti, row_key, family, qualifier, now_micros, sequence);
                }
            }
            *sequence += 1;
            let seq = *sequence;
            if let Mutation::SetCell {
                family,
                qualifier,
                timestamp_micros,
                value,
            } = m
            {
                // The common write, encoded straight from the mutation's borrowed parts.
                let key =
                    internal_key::encode_cell(row_key, family, qualifier, *timestamp_micros, seq);
                self.tablets[ti].memtable.insert(key, value.clone(), seq);
                continue;
            }
            let (kind, value) = match m {
                // Handled above.
                Mutation::SetCell { .. } => continue,
                Mutation::AddToCell {
                    family,
                    qualifier,
                    timestamp_micros,
                    input,
                } => {
                    self.merged_aggregate(ti, row_key, family, qualifier, *timestamp_micros, *input)
                }
                Mutation::MergeToCell {
                    family,
                    qualifier,
                    timestamp_micros,
                    state,
                } => {
                    // Validation guarantees 8 bytes.
                    let mut b = [0u8; 8];
                    if state.len() == 8 {
                        b.copy_from_slice(state);
                    }
                    self.merged_aggregate(
                        ti,
                        row_key,
                        family,
                        qualifier,
                        *timestamp_micros,
                        i64::from_be_bytes(b),
                    )
                }
                Mutation::DeleteFromColumn {
                    family,
                    qualifier,
                    time_range,
                } => (
                    EntryKind::DeleteColumn {
                        family: family.clone(),
                        qualifier: qualifier.clone(),
                        start_micros: time_range.start_micros.max(0) as u64,
                        end_micros: time_range.end_micros.map_or(u64::MAX, |e| e.max(0) as u64),
                    },
                    Vec::new(),
                ),
                Mutation::DeleteFromFamily { family } => (
                    EntryKind::DeleteFamily {
                        family: family.clone(),
                    },
                    Vec::new(),
                ),
                Mutation::DeleteFromRow => (EntryKind::DeleteRow, Vec::new()),
            };
            let key = InternalKey {
                row_key: row_key.to_vec(),
                sequence: seq,
                kind,
            };
            self.tablets[ti].memtable.insert(key.encode(), value, seq);
        }
        self.applied = self.applied.max(*sequence);
        self.maintain(ti, now_micros);
    }

    /// Writes point tombstones for the column's GC-collectable cells, so a ranged delete of
    /// newer versions cannot bring them back: once collectable, a cell is gone whether or not
    /// compaction has run (reads never depend on compaction timing).
    fn bury_collectable(
        &mut self,
        ti: usize,
        row: &[u8],
        family: &str,
        qualifier: &[u8],
        now_micros: i64,
        sequence: &u64,
    ) {
        let Some(rule) = self.config.families.get(family).map(|f| &f.gc_rule) else {
            return;
        };
        if rule.is_never() {
            return;
        }
        let column: Vec<i64> = self.tablets[ti]
            .row_cells(row, &self.epochs)
            .into_iter()
            .filter(|(c, _)| c.family == family && c.qualifier == qualifier)
            .map(|(c, _)| c.timestamp_micros)
            .collect();
        let doomed: Vec<i64> = column
            .iter()
            .enumerate()
            .filter(|(i, ts)| rule.is_collectable(*i, **ts, now_micros))
            .map(|(_, ts)| *ts)
            .collect();
        // The burials take the delete's own sequence number (the next one): each mutation
        // uses exactly one, so replaying the commit log assigns the same numbers.
        let seq = *sequence + 1;
        for ts in doomed {
            let key = InternalKey {
                row_key: row.to_vec(),
                sequence: seq,
                kind: EntryKind::DeleteColumn {
                    family: family.into(),
                    qualifier: qualifier.to_vec(),
                    start_micros: ts as u64,
                    end_micros: ts as u64 + 1,
                },
            };
            self.tablets[ti]
                .memtable
                .insert(key.encode(), Vec::new(), seq);
        }
    }

    /// The cell entry an aggregate input produces: the merge of the input into the current
    /// cell at (family, qualifier, timestamp), or the input alone.
    fn merged_aggregate(
        &self,
        ti: usize,
        row: &[u8],
        family: &str,
        qualifier: &[u8],
        ts: i64,
        input: i64,
    ) -> (EntryKind, Vec<u8>) {
        let ty = self
            .config
            .families
            .get(family)
            .map(|f| f.value_type)
            .unwrap_or(ValueType::Bytes);
        let current = self.tablets[ti]
            .row_cells(row, &self.epochs)
            .into_iter()
            .find(|(c, _)| {
                c.family == family && c.qualifier == qualifier && c.timestamp_micros == ts
            })
            .and_then(|(c, _)| <[u8; 8]>::try_from(c.value.as_slice()).ok())
            .map(i64::from_be_bytes);
        let merged = current.map_or(input, |cur| ty.merge(cur, input));
        (
            EntryKind::Cell {
                family: family.into(),
                qualifier: qualifier.to_vec(),
                timestamp_micros: ts,
            },
            merged.to_be_bytes().to_vec(),
        )
    }

    /// Flushes, compacts, splits and merges the tablet at `ti` as its size asks; with
    /// maintenance deferred, only notes that it is wanted, unless the memtable is past the
    /// back-pressure bound (then the writer does the work, so memory stays bounded when
    /// the background falls behind).
    ///
    /// Maintenance never fails a write: the write is already applied (and logged). A storage
    /// failure leaves the memtable in place, to be flushed by a later write or checkpoint.
    fn maintain(&mut self, ti: usize, now_micros: i64) {
        if !self.needs_maintenance(ti, now_micros) {
            return;
        }
        if self.defer_maintenance {
            let memtable = &self.tablets[ti].memtable;
            let bound = self
                .config
                .tablet_options
                .memtable_bytes
                .saturating_mul(BACKPRESSURE_FACTOR);
            if memtable.size_bytes() < bound
                && memtable.sealed_layers() <= MAX_SEALED_LAYERS * BACKPRESSURE_FACTOR as usize
            {
                self.maintenance_wanted = true;
                return;
            }
        }
        let _ = self.maintain_now(ti, now_micros);
    }

    /// Whether the tablet at `ti` is due a load split or a flush.
    fn needs_maintenance(&self, ti: usize, now_micros: i64) -> bool {
        let opts = self.config.tablet_options;
        if opts.split_load_ops > 0 && self.load(ti, now_micros) > opts.split_load_ops {
            return true;
        }
        let memtable = &self.tablets[ti].memtable;
        memtable.size_bytes() >= opts.memtable_bytes || memtable.sealed_layers() > MAX_SEALED_LAYERS
    }

    /// Does the maintenance [`Self::needs_maintenance`] found due.
    fn maintain_now(&mut self, ti: usize, now_micros: i64) -> Result<()> {
        let opts = self.config.tablet_options;
        if opts.split_load_ops > 0 && self.load(ti, now_micros) > opts.split_load_ops {
            self.tablets[ti].load_baseline += self.load(ti, now_micros);
            return self.split_tablet(ti);
        }
        self.flush_tablet(ti)?;
        self.after_flush(ti, now_micros)
    }

    /// The flushes due (not load splits), each with a clone of its tablet's memtable,
    /// for building runs outside the database lock (see [`FlushJob`]).
    #[cfg(feature = "std")]
    pub(crate) fn flush_jobs(&self, now_micros: i64) -> Vec<FlushJob> {
        if !self.maintenance_wanted {
            return Vec::new();
        }
        let opts = self.config.tablet_options;
        (0..self.tablets.len())
            .filter(|&ti| {
                let load_split =
                    opts.split_load_ops > 0 && self.load(ti, now_micros) > opts.split_load_ops;
                !load_split && self.needs_maintenance(ti, now_micros)
            })
            .map(|ti| {
                let t = &self.tablets[ti];
                FlushJob {
                    table: self.name.clone(),
                    tablet_id: t.id,
                    start: t.start.clone(),
                    end: t.end.clone(),
                    memtable: t.memtable.clone(),
                    applied: self.applied,
                    store: self.store.clone(),
                }
            })
            .collect()
    }

    /// Installs a run a [`FlushJob`] built if its tablet (same id and range) still holds the
    /// layers it flushed, then compacts, splits or merges as an inline flush would. False
    /// if the job is stale (its run is dropped; the file is garbage for the next manifest).
    ///
    /// # Errors
    /// The storage's errors from the compaction or split that follow; the flush stays.
    #[cfg(feature = "std")]
    pub(crate) fn install_flush(
        &mut self,
        job: &FlushJob,
        run: Arc<dyn Source>,
        now_micros: i64,
    ) -> Result<bool> {
        let Some(ti) = self
            .tablets
            .iter()
            .position(|t| t.id == job.tablet_id && t.start == job.start && t.end == job.end)
        else {
            return Ok(false);
        };
        let before = Self::info(&self.tablets[ti]);
        if !self.tablets[ti].install_flush(&job.memtable, run, job.applied) {
            return Ok(false);
        }
        self.changed_in_place(TabletEventKind::Flush, ti, before);
        self.after_flush(ti, now_micros)?;
        Ok(true)
    }

    /// Whether a flush left a compaction or merge for [`Self::take_compaction_jobs`].
    #[cfg(feature = "std")]
    pub(crate) fn has_compactions_due(&self) -> bool {
        !self.compactions_due.is_empty()
    }

    /// Notes a job's tablet due again (its build failed): the next pass decides afresh.
    #[cfg(feature = "std")]
    pub(crate) fn retry_compaction(&mut self, job: &CompactionJob) {
        self.compactions_due.insert(job.tablet.id);
    }

    /// The compactions and merges flushes left due, each with the runs it rewrites, to
    /// build outside the database lock (see [`CompactionJob`]). Decided afresh from each
    /// tablet's runs now: a tablet that no longer needs one is dropped from the list, and a
    /// split between runs (only a partition of the runs, cheap) is done here. A tablet
    /// whose job is taken is no longer due until its install fails or finds it stale.
    ///
    /// # Errors
    /// The first storage error from a split's flush (that tablet stays due; the other
    /// tablets' jobs are still pushed).
    #[cfg(feature = "std")]
    pub(crate) fn take_compaction_jobs(
        &mut self,
        now_micros: i64,
        jobs: &mut Vec<CompactionJob>,
    ) -> Result<()> {
        let mut first_error = None;
        let due = core::mem::take(&mut self.compactions_due);
        for id in due {
            let Some(ti) = self.tablets.iter().position(|t| t.id == id) else {
                continue;
            };
            let (range, kind) = match self.plan_after_flush(ti) {
                AfterFlush::Nothing => continue,
                AfterFlush::SplitBetweenRuns(mid) => {
                    let split = self
                        .split_at(ti, mid)
                        .and_then(|()| self.split_while_large(ti));
                    if let Err(e) = split {
                        self.compactions_due.insert(id);
                        first_error.get_or_insert(e);
                    }
                    continue;
                }
                AfterFlush::Compact => {
                    let t = &self.tablets[ti];
                    let split_bytes = self.config.tablet_options.split_bytes;
                    // As `compact_tablet`: output that must split is cut in pieces of half
                    // the split size, so the split goes between runs.
                    let piece_bytes = if t.size_bytes() > split_bytes {
                        (split_bytes / 2).max(1)
                    } else {
                        u64::MAX
                    };
                    (0..t.runs.len(), CompactionKind::Full { piece_bytes })
                }
                AfterFlush::Merge(range) => (range, CompactionKind::Merge),
            };
            let t = &self.tablets[ti];
            let mut tablet = Tablet::new(t.id, t.start.clone(), t.end.clone());
            tablet.runs = t.runs.clone();
            tablet.flushed_through = t.flushed_through;
            jobs.push(CompactionJob {
                table: self.name.clone(),
                tablet,
                range,
                kind,
                config: self.config.clone(),
                epochs: self.epochs.clone(),
                now_micros,
                store: self.store.clone(),
            });
        }
        first_error.map_or(Ok(()), Err)
    }

    /// Installs the runs a [`CompactionJob`] built in place of the runs it rewrote, if its
    /// tablet (same id and range) still ends with exactly the runs the job saw; runs flushed
    /// on top meanwhile stay in front (they are newer than every input). Then splits or
    /// merges as an inline compaction would, and notes the tablet due again after a partial
    /// merge (more runs may still overlap). False if the job is stale: nothing changes, the
    /// caller deletes the output, and the tablet is due again (decided afresh next pass).
    ///
    /// # Errors
    /// The storage's errors from the split or merge that follow; the compaction stays.
    #[cfg(feature = "std")]
    pub(crate) fn install_compaction(
        &mut self,
        job: &CompactionJob,
        outputs: Vec<Arc<dyn Source>>,
        now_micros: i64,
    ) -> Result<bool> {
        let j = &job.tablet;
        let Some(ti) = self
            .tablets
            .iter()
            .position(|t| t.id == j.id && t.start == j.start && t.end == j.end)
        else {
            // Split or merged meanwhile: whatever the tablet (if it still exists) needs is
            // decided afresh.
            self.compactions_due.insert(j.id);
            return Ok(false);
        };
        let seen = job.seen();
        let runs = &self.tablets[ti].runs;
        let unchanged = runs.len() >= seen.len()
            && runs[runs.len() - seen.len()..]
                .iter()
                .zip(seen)
                .all(|(a, b)| Arc::ptr_eq(a, b));
        if !unchanged {
            self.compactions_due.insert(j.id);
            return Ok(false);
        }
        let newer = runs.len() - seen.len();
        let before = Self::info(&self.tablets[ti]);
        self.tablets[ti]
            .runs
            .splice(newer + job.range.start..newer + job.range.end, outputs);
        self.changed_in_place(TabletEventKind::Compaction, ti, before);
        match job.kind {
            CompactionKind::Full { .. } => {
                let size = self.tablets[ti].size_bytes();
                self.after_compaction(ti, size, now_micros)?;
            }
            CompactionKind::Merge => {
                self.compactions_due.insert(j.id);
            }
        }
        Ok(true)
    }

    /// A background maintenance pass: every tablet due a flush or a load split gets it
    /// (and the compaction, split or merge the flush leads to).
    ///
    /// # Errors
    /// The first storage error; the tablet it hit keeps its memtable and stays due, so
    /// `maintenance_wanted` stays set for a later pass.
    #[cfg(feature = "std")]
    pub(crate) fn maintain_all(&mut self, now_micros: i64) -> Result<()> {
        self.maintenance_wanted = false;
        let mut ti = 0;
        while ti < self.tablets.len() {
            let end = self.tablets[ti].end.clone();
            if self.needs_maintenance(ti, now_micros) {
                if let Err(e) = self.maintain_now(ti, now_micros) {
                    self.maintenance_wanted = true;
                    return Err(e);
                }
            }
            // Splits insert halves after ti and a merge may take in the next tablet: go on
            // at the tablet holding the old end.
            ti = match end {
                None => self.tablets.len(),
                Some(e) => self.tablet_index(&e).max(ti + 1),
            };
        }
        Ok(())
    }

    /// What a flush may leave to do. A tablet grown past `split_bytes` splits: between
    /// runs when its runs hold disjoint row ranges (a sequential load: nothing is
    /// rewritten), else after a full compaction that cuts its output in two. Otherwise, once
    /// more than `max_runs` runs overlap, runs of similar size merge (see [`pick_merge`]);
    /// a merge that takes every run is a full compaction, which also applies GC.
    ///
    /// With maintenance deferred (`SharedDatabase`), a compaction or merge is only noted
    /// (`compactions_due`): the maintenance thread builds it outside the database lock
    /// ([`Self::take_compaction_jobs`]). A writer past the back-pressure bound still runs
    /// it inline once runs pile up beyond `BACKPRESSURE_FACTOR` times `max_runs` (the
    /// thread is paused or far behind, and reads must stay bounded).
    fn after_flush(&mut self, ti: usize, now_micros: i64) -> Result<()> {
        match self.plan_after_flush(ti) {
            AfterFlush::Nothing => Ok(()),
            AfterFlush::SplitBetweenRuns(mid) => {
                self.split_at(ti, mid)?;
                self.split_while_large(ti)
            }
            AfterFlush::Compact | AfterFlush::Merge(_) if self.defers_compaction(ti) => {
                self.compactions_due.insert(self.tablets[ti].id);
                Ok(())
            }
            AfterFlush::Compact => self.compact_tablet(ti, now_micros),
            AfterFlush::Merge(range) => {
                let before = Self::info(&self.tablets[ti]);
                self.tablets[ti].merge_runs(range, self.store.as_deref())?;
                self.changed_in_place(TabletEventKind::Compaction, ti, before);
                Ok(())
            }
        }
    }

    /// What [`Self::after_flush`] does to the tablet at `ti`, decided from its runs.
    fn plan_after_flush(&self, ti: usize) -> AfterFlush {
        let opts = self.config.tablet_options;
        let t = &self.tablets[ti];
        if t.size_bytes() > opts.split_bytes {
            return match t.run_boundary_split() {
                Some(mid) => AfterFlush::SplitBetweenRuns(mid),
                None => AfterFlush::Compact,
            };
        }
        if Tablet::overlap_depth(&t.run_spans()) <= opts.max_runs {
            return AfterFlush::Nothing;
        }
        let sizes: Vec<u64> = t.runs.iter().map(|r| r.size_bytes()).collect();
        let range = pick_merge(&sizes, opts.max_runs);
        if range.len() >= t.runs.len() {
            AfterFlush::Compact
        } else {
            AfterFlush::Merge(range)
        }
    }

    /// Whether a compaction or merge of the tablet at `ti` is left to the maintenance
    /// thread: maintenance is deferred, and its runs are not yet piled up past the
    /// back-pressure bound.
    fn defers_compaction(&self, ti: usize) -> bool {
        if !self.defer_maintenance {
            return false;
        }
        let bound = self
            .config
            .tablet_options
            .max_runs
            .saturating_mul(BACKPRESSURE_FACTOR as usize);
        self.tablets[ti].runs.len() <= bound
            || Tablet::overlap_depth(&self.tablets[ti].run_spans()) <= bound
    }

    /// Marks the table dirty and records the event of a tablet whose runs changed while its
    /// range did not (a flush or a compaction).
    fn changed_in_place(&mut self, kind: TabletEventKind, ti: usize, before: TabletInfo) {
        self.dirty = true;
        let after = Self::info(&self.tablets[ti]);
        self.event(kind, alloc::vec![before], alloc::vec![after]);
    }

    /// Reads plus writes of a tablet in the current time bucket, past any load split.
    fn load(&self, ti: usize, now_micros: i64) -> u64 {
        let t = &self.tablets[ti];
        let c = self.stats.lock().tablet_now(t.id, now_micros);
        (c.reads + c.writes).saturating_sub(t.load_baseline)
    }

    /// Flushes a tablet's memtable. On a storage failure the memtable stays (its writes are
    /// in the commit log) and the error is returned for callers that must know.
    fn flush_tablet(&mut self, ti: usize) -> Result<()> {
        let before = Self::info(&self.tablets[ti]);
        if self.tablets[ti].flush(self.store.as_deref(), self.applied)? {
            self.changed_in_place(TabletEventKind::Flush, ti, before);
        }
        Ok(())
    }

    /// Rewrites the tablet's runs (see [`Tablet::compact`]), then splits it if it is still
    /// past `split_bytes` or merges it with a small neighbour.
    fn compact_tablet(&mut self, ti: usize, now_micros: i64) -> Result<()> {
        let before = Self::info(&self.tablets[ti]);
        let split_bytes = self.config.tablet_options.split_bytes;
        // Output that may have to split is cut in halves of the split size, so the split
        // goes between runs and no run is shared by the two tablets.
        let piece_bytes = if self.tablets[ti].size_bytes() > split_bytes {
            (split_bytes / 2).max(1)
        } else {
            u64::MAX
        };
        let size = self.tablets[ti].compact(
            &self.config,
            &self.epochs,
            now_micros,
            self.store.as_deref(),
            piece_bytes,
        )?;
        self.changed_in_place(TabletEventKind::Compaction, ti, before);
        self.after_compaction(ti, size, now_micros)
    }

    /// What a full compaction leaves to do, given the tablet's new size: split it while it
    /// is still past `split_bytes` (between the runs it was cut into), or merge it with a
    /// small neighbour. Both are cheap under the lock: a split only partitions runs, and a
    /// merge rewrites at most tablets under `merge_bytes`.
    fn after_compaction(&mut self, ti: usize, size: u64, now_micros: i64) -> Result<()> {
        if size > self.config.tablet_options.split_bytes {
            self.split_while_large(ti)?;
        } else if size < self.config.tablet_options.merge_bytes {
            self.try_merge_around(ti, now_micros)?;
        }
        Ok(())
    }

    /// Splits the tablet between its runs, and its halves likewise, while it is past
    /// `split_bytes` and its runs are disjoint.
    fn split_while_large(&mut self, ti: usize) -> Result<()> {
        let t = &self.tablets[ti];
        if t.size_bytes() <= self.config.tablet_options.split_bytes {
            return Ok(());
        }
        let Some(mid) = t.run_boundary_split() else {
            return Ok(());
        };
        self.split_at(ti, mid)?;
        self.split_while_large(ti + 1)?;
        self.split_while_large(ti)
    }

    /// Splits a tablet: between runs when they hold disjoint row ranges, else at the row
    /// boundary nearest the middle of its bytes. A tablet of one row cannot split: rows are
    /// never split across tablets.
    fn split_tablet(&mut self, ti: usize) -> Result<()> {
        self.flush_tablet(ti)?;
        let t = &self.tablets[ti];
        let Some(mid) = t.run_boundary_split().or_else(|| t.middle_row()) else {
            return Ok(());
        };
        self.split_at(ti, mid)
    }

    /// Cuts the tablet at `ti` at row `mid` (inside it, not its start), after flushing it.
    fn split_at(&mut self, ti: usize, mid: Vec<u8>) -> Result<()> {
        self.tablets[ti].flush(self.store.as_deref(), self.applied)?;
        self.dirty = true;
        let before = Self::info(&self.tablets[ti]);
        let right = self.tablets[ti].split_off(mid, self.next_tablet_id);
        self.next_tablet_id += 1;
        self.tablets.insert(ti + 1, right);
        let after = alloc::vec![
            Self::info(&self.tablets[ti]),
            Self::info(&self.tablets[ti + 1])
        ];
        self.event(TabletEventKind::Split, alloc::vec![before], after);
        Ok(())
    }

    /// Merges the tablet with a neighbour when both are small, never across a boundary the
    /// user asked for with `initial_splits`.
    fn try_merge_around(&mut self, ti: usize, now_micros: i64) -> Result<()> {
        let limit = self.config.tablet_options.merge_bytes;
        // Cold: under a tenth of the load that would split a tablet.
        let cold_below = match self.config.tablet_options.split_load_ops {
            0 => u64::MAX,
            n => (n / 10).max(1),
        };
        for (a, b) in [(ti, ti + 1), (ti.wrapping_sub(1), ti)] {
            if a >= self.tablets.len() || b >= self.tablets.len() {
                continue;
            }
            let boundary = &self.tablets[b].start;
            if self.config.initial_splits.iter().any(|s| s == boundary) {
                continue;
            }
            if self.tablets[a].size_bytes() >= limit || self.tablets[b].size_bytes() >= limit {
                continue;
            }
            if self.load(a, now_micros) >= cold_below || self.load(b, now_micros) >= cold_below {
                continue;
            }
            self.tablets[a].flush(self.store.as_deref(), self.applied)?;
            self.tablets[b].flush(self.store.as_deref(), self.applied)?;
            // The merged tablet reads every run over its whole range, so a run still shared
            // with the other side would bring back rows that side deleted or compacted
            // away. Rewrite such a side first: it is under `merge_bytes`, so this is cheap.
            for x in [a, b] {
                if !self.tablets[x].runs_within_bounds() {
                    let before = Self::info(&self.tablets[x]);
                    self.tablets[x].compact(
                        &self.config,
                        &self.epochs,
                        now_micros,
                        self.store.as_deref(),
                        u64::MAX,
                    )?;
                    self.changed_in_place(TabletEventKind::Compaction, x, before);
                }
            }
            self.dirty = true;
            let before = alloc::vec![Self::info(&self.tablets[a]), Self::info(&self.tablets[b])];
            let right = self.tablets.remove(b);
            let left = &mut self.tablets[a];
            left.end = right.end;
            left.flushed_through = left.flushed_through.max(right.flushed_through);
            for run in right.runs {
                if !left.runs.iter().any(|r| Arc::ptr_eq(r, &run)) {
                    left.runs.push(run);
                }
            }
            let after = alloc::vec![Self::info(&self.tablets[a])];
            self.event(TabletEventKind::Merge, before, after);
            return Ok(());
        }
        Ok(())
    }

    fn event(&mut self, kind: TabletEventKind, before: Vec<TabletInfo>, after: Vec<TabletInfo>) {
        self.events.push(TabletEvent {
            table: self.name.clone(),
            kind,
            before,
            after,
        });
    }

    /// A consistent copy of the table: memtables are flushed, then the (immutable, shared)
    /// runs, tablet bounds and family drops are captured. O(tablets), no data copied.
    ///
    /// # Errors
    /// The storage's errors when a memtable cannot be flushed.
    pub(crate) fn snapshot(&mut self) -> Result<TableSnapshot> {
        self.flush_all()?;
        Ok(TableSnapshot {
            config: self.config.clone(),
            tablets: self.tablets.clone(),
            epochs: self.epochs.clone(),
        })
    }

    /// Flushes every memtable.
    ///
    /// # Errors
    /// The storage's errors; tablets flushed before the failure stay flushed.
    pub(crate) fn flush_all(&mut self) -> Result<()> {
        for ti in 0..self.tablets.len() {
            self.flush_tablet(ti)?;
        }
        Ok(())
    }

    /// A table made from a snapshot, writing future runs through `store`.
    pub(crate) fn from_snapshot(
        name: &str,
        snapshot: &TableSnapshot,
        store: Option<Arc<RunStore>>,
    ) -> Self {
        let mut t = Table::new(name, snapshot.config.clone());
        t.store = store;
        t.tablets = snapshot.tablets.clone();
        t.next_tablet_id = t.tablets.iter().map(|t| t.id + 1).max().unwrap_or(0);
        t.applied = t.flushed_through();
        t.epochs = snapshot.epochs.clone();
        t
    }

    /// Flushes every memtable and compacts every tablet (an explicit maintenance pass).
    ///
    /// # Errors
    /// The storage's errors.
    pub(crate) fn compact_all(&mut self, now_micros: i64) -> Result<()> {
        let mut ti = 0;
        while ti < self.tablets.len() {
            self.flush_tablet(ti)?;
            let end = self.tablets[ti].end.clone();
            self.compact_tablet(ti, now_micros)?;
            // Splits insert compacted halves after ti, a merge may take in the next tablet
            // (its runs still to compact): go on at the tablet holding the old end.
            ti = match end {
                None => self.tablets.len(),
                Some(e) => self.tablet_index(&e),
            };
        }
        Ok(())
    }

    /// The table as the manifest records it.
    ///
    /// REQUIRES: every run is a file (the table has a store).
    pub(crate) fn to_state(&self) -> TableState {
        TableState {
            id: self.name.clone(),
            config: self.config.clone(),
            tablets: self
                .tablets
                .iter()
                .map(|t| TabletState {
                    id: t.id,
                    start_key: t.start.clone(),
                    end_key: t.end.clone().unwrap_or_default(),
                    runs: t.runs.iter().filter_map(|r| r.run_meta()).collect(),
                    flushed_sequence: t.flushed_sequence(),
                })
                .collect(),
        }
    }

    /// A table from its manifest record, opening its run files through `store`.
    ///
    /// # Errors
    /// `DataLoss` or `NotFound` for a run file that is corrupt or missing.
    pub(crate) fn from_state(
        state: &TableState,
        store: &Arc<RunStore>,
        opened: &mut BTreeMap<u64, Arc<dyn Source>>,
    ) -> Result<Self> {
        let mut t = Table::new(&state.id, state.config.clone());
        t.tablets = state
            .tablets
            .iter()
            .map(|ts| {
                let mut tablet = Tablet::new(
                    ts.id,
                    ts.start_key.clone(),
                    (!ts.end_key.is_empty()).then(|| ts.end_key.clone()),
                );
                tablet.runs = ts
                    .runs
                    .iter()
                    .map(|m| open_shared(store, m, opened))
                    .collect::<Result<_>>()?;
                tablet.flushed_through = ts.flushed_sequence;
                Ok(tablet)
            })
            .collect::<Result<_>>()?;
        t.next_tablet_id = t.tablets.iter().map(|t| t.id + 1).max().unwrap_or(0);
        t.applied = t.flushed_through();
        t.store = Some(store.clone());
        Ok(t)
    }

    /// The smallest of the tablets' flushed marks: every write to the table up to it is in
    /// runs, so a table rebuilt from runs (a snapshot, the manifest) resumes counting applied
    /// writes there. Not the largest: recovery replays the log from there on, and a tablet
    /// it flushes part-way (a load split) would otherwise be marked as holding writes of its
    /// own still to be replayed, and recovery would skip them.
    fn flushed_through(&self) -> u64 {
        self.tablets
            .iter()
            .map(Tablet::flushed_sequence)
            .min()
            .unwrap_or(0)
    }

    /// The sequence through which the tablet holding `row` has every write in its runs:
    /// recovery replays only later records of that row.
    pub(crate) fn flushed_sequence(&self, row: &[u8]) -> u64 {
        self.tablets[self.tablet_index(row)].flushed_sequence()
    }

    /// The file numbers of every run the table references.
    pub(crate) fn run_files(&self) -> Vec<u64> {
        self.tablets
            .iter()
            .flat_map(|t| {
                t.runs
                    .iter()
                    .filter_map(|r| r.run_meta().map(|m| m.file_number))
            })
            .collect()
    }

    /// The visible cells of a row, GC-collectable cells hidden. `None` if none remain.
    pub(crate) fn read_row(&self, key: &[u8], now_micros: i64) -> Option<Row> {
        let cells = self.point_cells(key, now_micros)?.1;
        (!cells.is_empty()).then(|| Row {
            key: key.to_vec(),
            cells,
        })
    }

    /// One row's tablet id and visible cells (GC-collectable cells hidden); `None` if no
    /// source holds any entry of the row (cells may still be empty: all deleted).
    pub(crate) fn point_cells(&self, key: &[u8], now_micros: i64) -> Option<(u64, Vec<Cell>)> {
        self.point_read(key, now_micros).0
    }

    /// [`point_cells`](Self::point_cells), and how many entries the read examined (hidden
    /// versions it stepped over included; those it sought past are not).
    pub(crate) fn point_read(
        &self,
        key: &[u8],
        now_micros: i64,
    ) -> (Option<(u64, Vec<Cell>)>, u64) {
        let tablet = &self.tablets[self.tablet_index(key)];
        let lower = internal_key::row_prefix(key);
        let upper = internal_key::after_row(key);
        let mut scan = TabletScan::new(tablet, Some(&lower), Some(&upper), false, Some(key));
        let mut resolver =
            RowResolver::new(&self.epochs, Some((&self.config.families, now_micros)));
        let mut g = RowGather::default();
        let mut cells = Vec::new();
        let found = next_visible_row(
            &mut scan,
            &mut g,
            &mut resolver,
            &self.config.families,
            &mut cells,
        );
        let examined = scan.entries_examined();
        (found.then_some((tablet.id, cells)), examined)
    }

    /// Every stored cell of a row that no delete or family drop hides, GC rules not applied,
    /// in read order (families in creation order, qualifiers ascending, newest first).
    /// Counts no access: an inspection of storage, not a read.
    pub(crate) fn stored_cells(&self, key: &[u8]) -> Vec<Cell> {
        let tablet = &self.tablets[self.tablet_index(key)];
        let lower = internal_key::row_prefix(key);
        let upper = internal_key::after_row(key);
        let mut scan = TabletScan::new(tablet, Some(&lower), Some(&upper), false, Some(key));
        let mut resolver = RowResolver::new(&self.epochs, None);
        let mut g = RowGather::default();
        let mut cells = Vec::new();
        next_visible_row(
            &mut scan,
            &mut g,
            &mut resolver,
            &self.config.families,
            &mut cells,
        );
        cells
    }

    /// A view of the tablets `ranges` touch, for a read that outlives the database's lock.
    pub(crate) fn view(&self, ranges: &[RowRange]) -> TableView {
        // The tablets a range touches, as indices (first, last); `None` if it is empty.
        let span = |r: &RowRange| {
            if r.is_empty() {
                return None;
            }
            let first = match &r.start {
                Bound::Unbounded => 0,
                Bound::Included(k) | Bound::Excluded(k) => self.tablet_index(k),
            };
            let last = match &r.end {
                Bound::Unbounded => self.tablets.len() - 1,
                Bound::Included(k) | Bound::Excluded(k) => self.tablet_index(k),
            };
            Some((first, last.max(first)))
        };
        let tablets = if let [one] = ranges {
            // One range (every point read): its span directly, without a mask to allocate.
            let (first, last) = span(one).unwrap_or((1, 0));
            self.tablets
                .iter()
                .enumerate()
                .map(|(i, t)| (first..=last).contains(&i).then(|| t.clone()))
                .collect()
        } else {
            let mut wanted = alloc::vec![false; self.tablets.len()];
            for (first, last) in ranges.iter().filter_map(span) {
                for w in &mut wanted[first..=last] {
                    *w = true;
                }
            }
            self.tablets
                .iter()
                .zip(wanted)
                .map(|(t, w)| w.then(|| t.clone()))
                .collect()
        };
        TableView {
            tablets,
            // Only what resolving rows needs: a table's split keys and options can be
            // large and a stream never reads them.
            families: self.config.families.clone(),
            epochs: self.epochs.clone(),
            stats: self.stats.clone(),
        }
    }

    /// The counters one row a read visited adds: `cells` scanned, and what it returned (if
    /// anything).
    pub(crate) fn read_counters(cells: usize, returned: Option<&Row>) -> AccessCounters {
        let bytes: usize = returned.map_or(0, |r| {
            r.cells
                .iter()
                .map(|c| c.family.len() + c.qualifier.len() + c.value.len() + 8)
                .sum::<usize>()
                + r.key.len()
        });
        AccessCounters {
            reads: u64::from(returned.is_some()),
            rows_scanned: 1,
            cells_scanned: cells as u64,
            bytes_read: bytes as u64,
            ..AccessCounters::default()
        }
    }

    /// The stored row keys starting with `prefix` (DropRowRange deletes them with row
    /// tombstones, through the commit log like any write): every row any source holds an
    /// entry of, whether or not a cell of it is visible.
    pub(crate) fn rows_with_prefix(&self, prefix: &[u8]) -> Vec<Vec<u8>> {
        let lower = internal_key::row_prefix(prefix);
        // The encoded keys of rows starting with `prefix` start with `prefix` unescaped up
        // to its last byte: bound them by the range's own end.
        let upper = match RowRange::prefix(prefix.to_vec()).end {
            Bound::Excluded(e) => Some(internal_key::row_prefix(&e)),
            _ => None,
        };
        let mut rows = Vec::new();
        for t in &self.tablets[self.tablet_index(prefix)..] {
            let start = internal_key::row_prefix(&t.start);
            if upper.as_ref().is_some_and(|u| start >= *u) && !t.start.is_empty() {
                break;
            }
            let mut scan = TabletScan::new(t, Some(&lower), upper.as_deref(), false, None);
            let mut g = RowGather::default();
            while scan.next_row(&mut g) {
                if let Ok(row) = internal_key::row_key_of(&g.prefix) {
                    rows.push(row);
                }
            }
        }
        rows
    }

    /// Deletes every row.
    pub(crate) fn drop_all(&mut self) {
        for t in &mut self.tablets {
            t.memtable.clear();
            t.runs.clear();
            t.flushed_through = t.flushed_through.max(self.applied);
        }
        self.dirty = true;
    }

    /// Hides every cell the family holds: writes up to `sequence` are gone with it.
    pub(crate) fn drop_family_data(&mut self, family: &str, sequence: u64) {
        Arc::make_mut(&mut self.epochs).insert(family.into(), sequence);
    }

    /// Real tablet boundaries with the bytes before each, then the empty key with the total.
    pub(crate) fn sample_row_keys(&self) -> Vec<SampleRowKey> {
        let mut out = Vec::with_capacity(self.tablets.len());
        let mut offset = 0u64;
        for t in &self.tablets {
            offset += t.size_bytes();
            out.push(SampleRowKey {
                row_key: t.end.clone().unwrap_or_default(),
                offset_bytes: offset,
            });
        }
        out
    }
}

/// A flush to build outside the database lock: a clone of the tablet's memtable (which
/// freezes its layers: writes meanwhile go to fresh layers on top) and what identifies the
/// tablet, to install the run only if the tablet still holds those layers.
#[cfg(feature = "std")]
pub(crate) struct FlushJob {
    pub(crate) table: String,
    tablet_id: u64,
    start: Vec<u8>,
    end: Option<Vec<u8>>,
    memtable: Memtable,
    applied: u64,
    store: Option<Arc<RunStore>>,
}

#[cfg(feature = "std")]
impl FlushJob {
    /// Writes the run (a file when the table is on storage). Needs no lock: the layers are
    /// immutable and the store allocates file numbers itself.
    ///
    /// # Errors
    /// The storage's errors (nothing is installed).
    pub(crate) fn build(&self) -> Result<Arc<dyn Source>> {
        crate::table::tablet::make_run(
            self.memtable.entries(),
            self.memtable.max_sequence(),
            self.store.as_deref(),
        )
    }
}

/// What a flush leaves a tablet to do (see [`Table::after_flush`]).
enum AfterFlush {
    Nothing,
    /// Split between runs at this row (the runs hold disjoint row ranges): nothing is
    /// rewritten.
    SplitBetweenRuns(Vec<u8>),
    /// Rewrite every run (then split or merge with a neighbour as the size asks).
    Compact,
    /// Merge these consecutive runs into one.
    Merge(core::ops::Range<usize>),
}

/// Memtable layers read streams may seal (see `memtable`) before the tablet flushes them
/// into one run: each is one more source for every read of the tablet to merge.
const MAX_SEALED_LAYERS: usize = 4;

/// With maintenance deferred to a background thread, a writer flushes inline once its
/// tablet's memtable holds this many times `memtable_bytes` (or sealed layers): the
/// background has fallen behind, and memory must stay bounded.
const BACKPRESSURE_FACTOR: u64 = 4;

/// What a read stream holds of a table: clones of the tablets its ranges touch (their
/// memtable layers frozen, their runs shared, see `memtable`), the families (GC rules) and family
/// drops as they were when it opened, and the table's shared statistics. No lock is held:
/// writes after the view was taken are not visible through it.
pub(crate) struct TableView {
    /// The tablets, in key order; `None` once a stream has gone past one (so writers to it
    /// stop sealing layers on the stream's behalf).
    pub(crate) tablets: Vec<Option<Tablet>>,
    pub(crate) families: Families,
    pub(crate) epochs: Arc<BTreeMap<String, u64>>,
    pub(crate) stats: Arc<spin::Mutex<TableStats>>,
}

impl TableView {
    /// A resolver of this view's rows: deletes, family drops and GC at `now_micros`.
    pub(crate) fn resolver(&self, now_micros: i64) -> RowResolver<'_> {
        RowResolver::new(&self.epochs, Some((&self.families, now_micros)))
    }
}

/// Resolves the next row of `scan` into `cells` (cleared first): the cells that deletes,
/// family drops and the resolver's GC rules leave visible, in Bigtable order, found without
/// walking what GC hides (see `scan::TabletScan::next_cells`). A row with an undecodable
/// key reads as empty (only corrupt storage can make one, and run decoders report that
/// first). Families come in `families`' creation order. False when the scan is over.
pub(crate) fn next_visible_row<'a>(
    scan: &mut TabletScan<'a>,
    g: &mut RowGather<'a>,
    resolver: &mut RowResolver<'_>,
    families: &Families,
    cells: &mut Vec<Cell>,
) -> bool {
    cells.clear();
    let resolved = scan.next_cells(g, resolver, &mut |c| {
        cells.push(Cell {
            family: c.family.into(),
            qualifier: c.qualifier.to_vec(),
            timestamp_micros: c.timestamp_micros,
            value: c.value.to_vec(),
            labels: Vec::new(),
        })
    });
    match resolved {
        None => false,
        Some(Ok(())) => {
            // Storage orders a row's families by name; reads see them in creation order.
            order_families(cells, families);
            true
        }
        Some(Err(_)) => {
            cells.clear();
            true
        }
    }
}

/// Opens a run once even when several tablets (after a split) or backups share it.
pub(crate) fn open_shared(
    store: &Arc<RunStore>,
    meta: &RunMeta,
    opened: &mut BTreeMap<u64, Arc<dyn Source>>,
) -> Result<Arc<dyn Source>> {
    if let Some(r) = opened.get(&meta.file_number) {
        return Ok(r.clone());
    }
    let r = store.open_run(meta)?;
    opened.insert(meta.file_number, r.clone());
    Ok(r)
}

/// Which runs to merge, given their sizes newest first, when more than `max_runs` overlap:
/// the newest window of consecutive runs in which each run is no bigger than the newer ones
/// of the window together (size-tiered, as in a binary counter: a run is rewritten only
/// when it has been matched by as much newer data). Never fewer than two runs; if no such
/// window exists (sizes grow faster than they sum), the newest runs beyond `max_runs - 1`.
pub(crate) fn pick_merge(sizes: &[u64], max_runs: usize) -> core::ops::Range<usize> {
    let n = sizes.len();
    for start in 0..n {
        let mut sum = sizes[start];
        let mut end = start + 1;
        while end < n && sizes[end] <= sum {
            sum += sizes[end];
            end += 1;
        }
        if end - start >= 2 {
            return start..end;
        }
    }
    0..(n + 1).saturating_sub(max_runs).clamp(2.min(n), n)
}

#[cfg(test)]
mod tests {
    use super::{pick_merge, Table};
    use crate::model::gc::GcRule;
    use crate::model::mutation::Mutation;
    use crate::model::schema::TableConfig;
    use alloc::vec::Vec;

    #[test]
    fn the_read_a_write_makes_skips_hidden_versions() {
        // ReadModifyWrite and CheckAndMutate read the row through `point_cells`: under
        // max_num_versions = 1 the newest of 3,000 versions costs a few entries.
        let mut config = TableConfig::with_families(["cf"]);
        if let Some(f) = config.families.get_mut("cf") {
            f.gc_rule = GcRule::MaxNumVersions(1);
        }
        let mut table = Table::new("t", config);
        let mut sequence = 0;
        for i in 0..3000i64 {
            let m = Mutation::set_cell("cf", b"n", i * 1000, i.to_be_bytes().to_vec());
            table.apply(b"counter", &[m], 1_000_000_000, &mut sequence);
        }
        let (found, examined) = table.point_read(b"counter", 1_000_000_000);
        let cells = found.map(|(_, cells)| cells).unwrap_or_default();
        assert_eq!(cells.len(), 1);
        assert_eq!(cells[0].value, 2999i64.to_be_bytes());
        assert!(examined <= 16, "{examined} entries examined");
    }

    #[test]
    fn merges_pick_the_newest_window_of_comparable_runs() {
        // Equal flushes merge together.
        assert_eq!(pick_merge(&[4, 4, 4, 4, 4], 4), 0..5);
        // A big old run stays out until the newer runs add up to it.
        assert_eq!(pick_merge(&[4, 4, 4, 4, 17], 4), 0..4);
        assert_eq!(pick_merge(&[4, 4, 4, 4, 16], 4), 0..5);
        // A run bigger than everything newer starts the window further back.
        assert_eq!(pick_merge(&[1, 8, 8, 8, 8, 100], 4), 1..5);
        // Sizes that grow faster than they sum: the newest runs beyond max_runs - 1, at
        // least two.
        assert_eq!(pick_merge(&[1, 3, 7, 15, 31], 4), 0..2);
        assert_eq!(pick_merge(&[1, 3, 7, 15, 31, 63, 127], 4), 0..4);
    }

    #[test]
    fn a_binary_counter_of_flushes_rewrites_each_byte_logarithmically_often() {
        // Flushes of one unit; merge whenever more than 4 runs exist.
        let mut runs: Vec<u64> = Vec::new();
        let (mut written, mut flushed) = (0u64, 0u64);
        for _ in 0..256 {
            runs.insert(0, 1);
            flushed += 1;
            while runs.len() > 4 {
                let r = pick_merge(&runs, 4);
                let merged: u64 = runs[r.clone()].iter().sum();
                written += merged;
                runs.splice(r, [merged]);
            }
        }
        assert_eq!(runs.iter().sum::<u64>(), flushed);
        // A full merge every 4 flushes would rewrite about 256 * 256 / 8 = 8192 units.
        assert!(
            written < flushed * 8,
            "rewrote {written} units for {flushed}"
        );
    }
}
