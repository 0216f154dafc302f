//! A table's tablet maintenance: flushes of memtables into runs, size-tiered merges of
//! runs, full compactions, splits by size and by load, merges of small neighbours, and the
//! [`TabletEvent`]s that record each. Background compactions are taken as jobs here and
//! installed only if their tablet is unchanged (see `table::compaction`).
//!
//! Invariants: the tablets stay sorted, contiguous and covering (see the parent module); a
//! split or merge moves runs and memtable layers without losing or duplicating an entry;
//! `flushed_through` never goes past a write that is not in a run.

#[cfg(feature = "std")]
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

#[cfg(feature = "std")]
use crate::table::compaction::CompactionOutput;

#[cfg(feature = "std")]
use crate::lsm::memtable::Memtable;
#[cfg(feature = "std")]
use crate::lsm::persist::RunStore;
#[cfg(feature = "std")]
use crate::lsm::source::Source;
#[cfg(feature = "std")]
use crate::table::compaction::{CompactionJob, CompactionKind};
use crate::table::tablet::Tablet;
use crate::Result;

use super::{
    pick_merge, Table, TabletEvent, TabletEventKind, TabletInfo, BACKPRESSURE_FACTOR,
    MAX_SEALED_LAYERS,
};

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

impl Table {
    /// Flushes, compacts, splits and merges the tablet at `ti` as its size asks; with
    /// maintenance deferred, only notes that it is wanted, unless the memtable is past the
    /// back-pressure bound (then the writer does the work, so memory stays bounded when
    /// the background falls behind).
    ///
    /// Maintenance never fails a write: the write is already applied (and logged). A storage
    /// failure leaves the memtable in place, to be flushed by a later write or checkpoint.
    pub(super) fn maintain(&mut self, ti: usize, now_micros: i64) {
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
    pub(super) fn needs_maintenance(&self, ti: usize, now_micros: i64) -> bool {
        let opts = self.config.tablet_options;
        if opts.split_load_ops > 0 && self.load(ti, now_micros) > opts.split_load_ops {
            return true;
        }
        let memtable = &self.tablets[ti].memtable;
        memtable.size_bytes() >= opts.memtable_bytes || memtable.sealed_layers() > MAX_SEALED_LAYERS
    }

    /// Does the maintenance [`Self::needs_maintenance`] found due.
    pub(super) fn maintain_now(&mut self, ti: usize, now_micros: i64) -> Result<()> {
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
                log_collected: self.change_log.is_some(),
            });
        }
        first_error.map_or(Ok(()), Err)
    }

    /// Logs the cells a compaction's garbage collection removed in the table's change
    /// stream (nothing without one), at `now_micros`. On storage the records are noted as
    /// not durable yet: the database puts them in the commit log before a manifest names
    /// the compaction's runs (`Database::log_collected`).
    pub(super) fn log_collected(
        &mut self,
        collected: Vec<(Vec<u8>, crate::model::mutation::Mutation)>,
        now_micros: i64,
    ) {
        if let Some(log) = &mut self.change_log {
            if !collected.is_empty() {
                let sequences = log.push_collected(collected, now_micros);
                if self.store.is_some() {
                    log.mark_unlogged(sequences);
                }
            }
        }
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
        outputs: CompactionOutput,
        now_micros: i64,
    ) -> Result<bool> {
        let CompactionOutput {
            runs: outputs,
            collected,
        } = outputs;
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
        // Logged at the install (not when the job was taken), so the change log stays in
        // commit-time order after the writes made while the job ran.
        self.log_collected(collected, now_micros);
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
    pub(super) fn after_flush(&mut self, ti: usize, now_micros: i64) -> Result<()> {
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
    pub(super) fn defers_compaction(&self, ti: usize) -> bool {
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
    pub(super) fn changed_in_place(
        &mut self,
        kind: TabletEventKind,
        ti: usize,
        before: TabletInfo,
    ) {
        self.dirty = true;
        let after = Self::info(&self.tablets[ti]);
        self.event(kind, alloc::vec![before], alloc::vec![after]);
    }

    /// Reads plus writes of a tablet in the current time bucket, past any load split.
    pub(super) fn load(&self, ti: usize, now_micros: i64) -> u64 {
        let t = &self.tablets[ti];
        let c = self.stats.lock().tablet_now(t.id, now_micros);
        (c.reads + c.writes).saturating_sub(t.load_baseline)
    }

    /// Flushes a tablet's memtable. On a storage failure the memtable stays (its writes are
    /// in the commit log) and the error is returned for callers that must know.
    pub(super) fn flush_tablet(&mut self, ti: usize) -> Result<()> {
        let before = Self::info(&self.tablets[ti]);
        if self.tablets[ti].flush(self.store.as_deref(), self.applied)? {
            self.changed_in_place(TabletEventKind::Flush, ti, before);
        }
        Ok(())
    }

    /// Rewrites the tablet's runs (see [`Tablet::compact`]), then splits it if it is still
    /// past `split_bytes` or merges it with a small neighbour.
    pub(super) fn compact_tablet(&mut self, ti: usize, now_micros: i64) -> Result<()> {
        let before = Self::info(&self.tablets[ti]);
        let split_bytes = self.config.tablet_options.split_bytes;
        // Output that may have to split is cut in halves of the split size, so the split
        // goes between runs and no run is shared by the two tablets.
        let piece_bytes = if self.tablets[ti].size_bytes() > split_bytes {
            (split_bytes / 2).max(1)
        } else {
            u64::MAX
        };
        let mut collected = Vec::new();
        let logging = self.change_log.is_some();
        let size = self.tablets[ti].compact(
            &self.config,
            &self.epochs,
            now_micros,
            self.store.as_deref(),
            piece_bytes,
            logging.then_some(&mut collected),
        )?;
        self.log_collected(collected, now_micros);
        self.changed_in_place(TabletEventKind::Compaction, ti, before);
        self.after_compaction(ti, size, now_micros)
    }

    /// What a full compaction leaves to do, given the tablet's new size: split it while it
    /// is still past `split_bytes` (between the runs it was cut into), or merge it with a
    /// small neighbour. Both are cheap under the lock: a split only partitions runs, and a
    /// merge rewrites at most tablets under `merge_bytes`.
    pub(super) fn after_compaction(&mut self, ti: usize, size: u64, now_micros: i64) -> Result<()> {
        if size > self.config.tablet_options.split_bytes {
            self.split_while_large(ti)?;
        } else if size < self.config.tablet_options.merge_bytes {
            self.try_merge_around(ti, now_micros)?;
        }
        Ok(())
    }

    /// Splits the tablet between its runs, and its halves likewise, while it is past
    /// `split_bytes` and its runs are disjoint.
    pub(super) fn split_while_large(&mut self, ti: usize) -> Result<()> {
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
    pub(super) fn split_tablet(&mut self, ti: usize) -> Result<()> {
        self.flush_tablet(ti)?;
        let t = &self.tablets[ti];
        let Some(mid) = t.run_boundary_split().or_else(|| t.middle_row()) else {
            return Ok(());
        };
        self.split_at(ti, mid)
    }

    /// Cuts the tablet at `ti` at row `mid` (inside it, not its start), after flushing it.
    pub(super) fn split_at(&mut self, ti: usize, mid: Vec<u8>) -> Result<()> {
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
    pub(super) fn try_merge_around(&mut self, ti: usize, now_micros: i64) -> Result<()> {
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
                    let mut collected = Vec::new();
                    let logging = self.change_log.is_some();
                    self.tablets[x].compact(
                        &self.config,
                        &self.epochs,
                        now_micros,
                        self.store.as_deref(),
                        u64::MAX,
                        logging.then_some(&mut collected),
                    )?;
                    self.log_collected(collected, now_micros);
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
                    left.runs.push_oldest(run);
                }
            }
            let after = alloc::vec![Self::info(&self.tablets[a])];
            self.event(TabletEventKind::Merge, before, after);
            return Ok(());
        }
        Ok(())
    }

    pub(super) fn event(
        &mut self,
        kind: TabletEventKind,
        before: Vec<TabletInfo>,
        after: Vec<TabletInfo>,
    ) {
        self.events.push(TabletEvent {
            table: self.name.clone(),
            kind,
            before,
            after,
        });
    }
}
