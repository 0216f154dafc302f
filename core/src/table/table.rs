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
//!
//! Here: the table's state, its write path (`apply`), snapshots and manifest state. The
//! tablet maintenance just described is in `maintenance`; reads and the view a read stream
//! takes are in `reads`.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

use crate::durability::manifest::{RunMeta, TableState, TabletState};
use crate::lsm::internal_key::{self, EntryKind, InternalKey};
use crate::lsm::persist::RunStore;
use crate::lsm::source::Source;
use crate::model::aggregate;
use crate::model::gc::GcMode;
use crate::model::mutation::Mutation;
use crate::model::row::SampleRowKey;
use crate::model::schema::{TableConfig, ValueType};
use crate::table::stats::{AccessCounters, StatsOptions, TableStats};
use crate::table::tablet::Tablet;
use crate::Result;

mod maintenance;
mod reads;

#[cfg(feature = "std")]
pub(crate) use maintenance::FlushJob;
pub(crate) use reads::{next_visible_row, PointRead, TableView};

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

/// Every run of `tablets`, in tablet order (a run shared by tablets comes once per tablet).
fn runs_of(tablets: &[Tablet]) -> impl Iterator<Item = &Arc<dyn Source>> {
    tablets.iter().flat_map(|t| t.runs.iter())
}

impl TableSnapshot {
    /// Every run of the snapshot (see [`Table::runs`]).
    pub(crate) fn runs(&self) -> impl Iterator<Item = &Arc<dyn Source>> {
        runs_of(&self.tablets)
    }

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
        tablet.runs = runs.into();
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
    /// Whether reads hide collectable cells at once and ranged deletes bury them
    /// (Immediate), or they stay readable until a compaction collects them (Background).
    /// Set by the database, from its own mode.
    pub(crate) gc_mode: GcMode,
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
    /// The table's change stream, when enabled: the database logs each committed write
    /// here, and compactions the cells garbage collection removed.
    pub(crate) change_log: Option<crate::table::change_log::ChangeLog>,
    /// Set while a materialized view reads this table: compactions then record in
    /// `collected_rows` the rows whose cells garbage collection removed, for the views.
    pub(crate) track_collected: bool,
    /// Rows garbage collection changed since the views last looked (see above).
    pub(crate) collected_rows: alloc::vec::Vec<alloc::vec::Vec<u8>>,
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
            gc_mode: GcMode::Immediate,
            maintenance_wanted: false,
            compactions_due: BTreeSet::new(),
            applied: 0,
            change_log: None,
            track_collected: false,
            collected_rows: alloc::vec::Vec::new(),
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

    /// Every run of the table's tablets (shared runs once per tablet holding them): what
    /// `Database::verify` reads.
    pub(crate) fn runs(&self) -> impl Iterator<Item = &Arc<dyn Source>> {
        runs_of(&self.tablets)
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
                // Background mode: a collectable older version the delete exposes stays
                // readable until collected, as in Bigtable.
                if self.gc_mode.hides_collectable()
                    && (time_range.start_micros > 0 || time_range.end_micros.is_some())
                {
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
                } => self.merged_aggregate(
                    ti,
                    row_key,
                    family,
                    qualifier,
                    *timestamp_micros,
                    aggregate::Input::Int64(*input),
                ),
                Mutation::MergeToCell {
                    family,
                    qualifier,
                    timestamp_micros,
                    state,
                } => self.merged_aggregate(
                    ti,
                    row_key,
                    family,
                    qualifier,
                    *timestamp_micros,
                    aggregate::Input::State(state),
                ),
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

    /// Reads the row's stored cells if applying `mutations` will (aggregates merge into the
    /// current cell; a ranged delete in a family with a GC rule buries collectable cells),
    /// so the write path can fail a write whose row sits in a corrupt block before anything
    /// is logged: `apply` itself cannot fail.
    ///
    /// # Errors
    /// A run's error (`DataLoss` naming the file) reading the row.
    pub(crate) fn check_row_readable(&self, row: &[u8], mutations: &[Mutation]) -> Result<()> {
        let reads = mutations.iter().any(|m| match m {
            Mutation::AddToCell { .. } | Mutation::MergeToCell { .. } => true,
            Mutation::DeleteFromColumn {
                family, time_range, ..
            } => {
                self.gc_mode.hides_collectable()
                    && (time_range.start_micros > 0 || time_range.end_micros.is_some())
                    && self
                        .config
                        .families
                        .get(family)
                        .is_some_and(|f| !f.gc_rule.is_never())
            }
            _ => false,
        });
        let tablet = &self.tablets[self.tablet_index(row)];
        // Only runs read from storage can fail; memory cannot.
        if reads && tablet.runs.iter().any(|r| r.run_meta().is_some()) {
            tablet.row_cells(row, &self.epochs)?;
        }
        Ok(())
    }

    /// Writes point tombstones for the column's GC-collectable cells, so a ranged delete of
    /// newer versions cannot bring them back: once collectable, a cell is gone whether or not
    /// compaction has run (reads never depend on compaction timing). Immediate mode only.
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
        // `check_row_readable` read this row before the write was logged; a replay that
        // meets a corrupt block buries nothing, and the row stays unreadable (`DataLoss`)
        // until the file is restored.
        let column: Vec<i64> = self.tablets[ti]
            .row_cells(row, &self.epochs)
            .unwrap_or_default()
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

    /// Deletes the cells garbage collection removed from `row` (`cells`: a DeleteFromColumn
    /// of one timestamp each, as a type 7 commit log record holds them), the first with
    /// sequence `first` and each next one the next: a replay making a compaction's
    /// collection again in runs that may still hold the cells. Exactly those cells: no
    /// collectable neighbour is buried (their collection, and its change record, is a later
    /// compaction's), no access is counted. A cell of a family the table no longer has is
    /// skipped (its sequence is still taken).
    pub(crate) fn delete_collected<'a>(
        &mut self,
        row: &[u8],
        cells: impl Iterator<Item = crate::codec::values::MutationRef<'a>>,
        first: u64,
        now_micros: i64,
    ) {
        let ti = self.tablet_index(row);
        // Each cell takes its sequence whether or not its family is still here.
        for (seq, cell) in (first..).zip(cells) {
            if let crate::codec::values::MutationRef::DeleteFromColumn {
                family,
                qualifier,
                time_range,
            } = cell
            {
                if self.config.families.get(family).is_some() {
                    // The cell at the range's start (its end is `start + 1`, saturating at
                    // `i64::MAX`, which the u64 form need not).
                    let start = time_range.start_micros.max(0) as u64;
                    let key = InternalKey {
                        row_key: row.to_vec(),
                        sequence: seq,
                        kind: EntryKind::DeleteColumn {
                            family: family.into(),
                            qualifier: qualifier.to_vec(),
                            start_micros: start,
                            end_micros: start + 1,
                        },
                    };
                    self.tablets[ti]
                        .memtable
                        .insert(key.encode(), Vec::new(), seq);
                    self.applied = self.applied.max(seq);
                }
            }
        }
        self.maintain(ti, now_micros);
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
        input: aggregate::Input<'_>,
    ) -> (EntryKind, Vec<u8>) {
        let ty = self
            .config
            .families
            .get(family)
            .map(|f| f.value_type)
            .unwrap_or(ValueType::Bytes);
        // As in `bury_collectable`: checked readable before the write was logged.
        let current = self.tablets[ti]
            .row_cells(row, &self.epochs)
            .unwrap_or_default()
            .into_iter()
            .find(|(c, _)| {
                c.family == family && c.qualifier == qualifier && c.timestamp_micros == ts
            })
            .map(|(c, _)| c.value);
        (
            EntryKind::Cell {
                family: family.into(),
                qualifier: qualifier.to_vec(),
                timestamp_micros: ts,
            },
            aggregate::merged_value(ty, current.as_deref(), input),
        )
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

    /// Every write to the table up to this sequence has been applied (see `applied`): a
    /// materialized view notes it when it follows the table, to tell it is in step.
    pub(crate) fn applied_sequence(&self) -> u64 {
        self.applied
    }

    /// Whether no tablet holds writes outside its runs: the table's rows are then exactly
    /// its runs' (what a stored materialized view copy may be stamped with).
    pub(crate) fn memtables_empty(&self) -> bool {
        self.tablets.iter().all(|t| t.memtable.is_empty())
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

/// Memtable layers read streams may seal (see `memtable`) before the tablet flushes them
/// into one run: each is one more source for every read of the tablet to merge.
const MAX_SEALED_LAYERS: usize = 4;

/// With maintenance deferred to a background thread, a writer flushes inline once its
/// tablet's memtable holds this many times `memtable_bytes` (or sealed layers): the
/// background has fallen behind, and memory must stay bounded.
const BACKPRESSURE_FACTOR: u64 = 4;

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
        let (found, examined) = table.point_read(b"counter", 1_000_000_000, None, None);
        let cells = found.unwrap().map(|p| p.cells).unwrap_or_default();
        assert_eq!(cells.len(), 1);
        assert_eq!(cells[0].value, 2999i64.to_be_bytes());
        assert!(examined <= 16, "{examined} entries examined");
    }

    #[test]
    fn a_column_limit_seeks_past_versions_no_gc_rule_hides() {
        // No GC rule: all 3,000 versions are visible. A read that keeps the newest one of
        // each column (ReadModifyWrite's, a CellsPerColumnLimit(1) read) stops each column
        // there; without the limit it walks every version. Two columns, and the newest
        // versions of the second deleted: deleted cells do not count toward the limit.
        let mut table = Table::new("t", TableConfig::with_families(["cf"]));
        let mut sequence = 0;
        for i in 0..3000i64 {
            let set = |q: &[u8]| Mutation::set_cell("cf", q, i * 1000, i.to_be_bytes().to_vec());
            table.apply(
                b"counter",
                &[set(b"m"), set(b"n")],
                1_000_000_000,
                &mut sequence,
            );
        }
        let delete = Mutation::DeleteFromColumn {
            family: "cf".into(),
            qualifier: b"n".to_vec(),
            time_range: crate::model::mutation::TimestampRange {
                start_micros: 2990 * 1000,
                end_micros: None,
            },
        };
        table.apply(b"counter", &[delete], 1_000_000_000, &mut sequence);
        let newest = |limit| {
            let (found, examined) = table.point_read(b"counter", 1_000_000_000, limit, None);
            let cells = found.unwrap().map(|p| p.cells).unwrap_or_default();
            let values: Vec<_> = cells
                .iter()
                .map(|c| (c.qualifier.clone(), c.value.clone()))
                .collect();
            (values, examined)
        };
        let v = |q: &[u8], i: i64| (q.to_vec(), i.to_be_bytes().to_vec());
        let (one, examined) = newest(Some(1));
        assert_eq!(one, [v(b"m", 2999), v(b"n", 2989)]);
        assert!(examined <= 40, "{examined} entries examined");
        let (two, _) = newest(Some(2));
        assert_eq!(
            two,
            [v(b"m", 2999), v(b"m", 2998), v(b"n", 2989), v(b"n", 2988)]
        );
        let (all, examined) = newest(None);
        assert_eq!(all.len(), 3000 + 2990);
        assert!(examined >= 6000, "{examined} entries examined");
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
