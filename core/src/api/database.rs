//! The database: a set of named tables and the Data API over them.
//!
//! Every entry point validates its whole input before changing anything, so a failed call
//! leaves the database exactly as it was. Row operations (MutateRow, each MutateRows entry,
//! CheckAndMutateRow, ReadModifyWriteRow) are atomic per row.
//!
//! Here: the Data and admin API and backups. Opening a database on storage, the write
//! path's log-then-apply commit and checkpoints are in `persistence`; the background
//! maintenance steps that `SharedDatabase` drives are in `maintenance`.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, Ordering};

use crate::error::quoted;
use crate::limits;
use crate::model::filter::{CompiledFilter, RowFilter};
use crate::model::gc::GcRule;
use crate::model::mutation::{validate_row_key, validate_row_mutations, Mutation};
use crate::model::read_modify_write::{self, ReadModifyWriteRule};
use crate::model::request::ReadRowsRequest;
use crate::model::row::{Row, SampleRowKey};
use crate::model::schema::{
    validate_family_name, validate_table_id, FamilyModification, TableConfig, TableInfo,
    TabletOptions,
};
use crate::platform::clock::Clock;
use crate::platform::random::SplitMix64;
use crate::table::read::RowStream;
use crate::table::stats::{AccessStat, StatsOptions};
use crate::table::table::{Table, TableSnapshot, TabletEvent, TabletInfo};
use crate::{Error, Result};

mod maintenance;
mod persistence;

use super::change_stream::ChangeLog;
#[cfg(feature = "std")]
pub(crate) use persistence::verify_runs;
use persistence::Persistence;
pub use persistence::{Durability, OpenOptions, VerifyReport};

/// A stored version of a cell and, if its family's GC rule hides it from reads, the rule
/// that does (see [`GcRule::collected_by`]); from [`Database::read_row_versions`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredCell {
    /// The cell (no labels).
    pub cell: crate::model::row::Cell,
    /// The rule hiding it; `None` when reads return it.
    pub collected_by: Option<GcRule>,
}

pub use crate::model::mutation::RowMutations;

/// Which rows DropRowRange deletes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DropRowRange {
    /// Every row whose key starts with the (non-empty) prefix.
    Prefix(Vec<u8>),
    /// Every row of the table.
    All,
}

/// A tablet that did a large share of the work in a window (see
/// [`Database::hot_tablets`]).
#[derive(Debug, Clone, PartialEq)]
pub struct HotTablet {
    /// Its table.
    pub table_id: String,
    /// Its first row key (empty: the table's start).
    pub start_key: Vec<u8>,
    /// The row key after its last (empty: the table's end).
    pub end_key: Vec<u8>,
    /// Its share of the work of every tablet in the window, 0 to 100.
    pub cpu_share_percent: f32,
}

/// What `get_backup` and `list_backups` report about a backup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupInfo {
    /// The backup's id.
    pub name: String,
    /// The table it was taken from.
    pub source_table: String,
    /// When it was taken (the database clock).
    pub created_micros: i64,
    /// Approximate bytes it holds.
    pub size_bytes: u64,
}

struct Backup {
    info: BackupInfo,
    snapshot: TableSnapshot,
}

/// A database of tables.
pub struct Database {
    persist: Option<Persistence>,
    tables: BTreeMap<String, Table>,
    backups: BTreeMap<String, Backup>,
    clock: Box<dyn Clock>,
    /// The last sequence number given to a write; every mutation gets the next one.
    sequence: u64,
    random_seed: u64,
    /// Distinguishes reads so each gets its own sampling sequence, reproducible from the seed.
    reads: AtomicU32,
    /// Writes leave flushes, compactions, splits and log rotation to
    /// [`Database::run_maintenance`] (a `SharedDatabase`'s background thread), except
    /// past the back-pressure bounds.
    background_maintenance: bool,
    /// Committed writes kept for [`Database::take_committed`] while capture is on (a
    /// replicated instance forwards them to the other clusters); `None`: not kept.
    committed: Option<Vec<CommittedWrite>>,
    /// The change logs of tables with a change stream (see [`super::change_stream`]); in
    /// memory: a restart starts them empty.
    /// Set while applying another database's writes: they are not this database's changes.
    replaying: bool,
    /// Counts changes of the set of tables and of their families (see
    /// [`Database::schema_epoch`]).
    schema_epoch: u64,
}

/// One committed write as the commit log recorded it: a table, its rows' mutations with
/// every server-time SetCell stamped with the server timestamp it was given, and the
/// database clock at the commit. Replaying it on another database with the same tables
/// writes exactly the same cells there (what replication does).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommittedWrite {
    /// The table written.
    pub table_id: String,
    /// Each row's mutations, in commit order, no timestamp left at server time.
    pub rows: Vec<RowMutations>,
    /// The database clock when it committed (microseconds since the epoch).
    pub commit_micros: i64,
}

impl core::fmt::Debug for Database {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Database")
            .field("tables", &self.tables.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "std")]
impl Default for Database {
    fn default() -> Self {
        Self::new()
    }
}

impl Database {
    /// An empty in-memory database on the system clock.
    #[cfg(feature = "std")]
    pub fn new() -> Self {
        Self::with_clock(crate::platform::clock::SystemClock)
    }

    /// An empty in-memory database reading time from `clock`.
    pub fn with_clock(clock: impl Clock + 'static) -> Self {
        Database {
            persist: None,
            tables: BTreeMap::new(),
            backups: BTreeMap::new(),
            clock: Box::new(clock),
            sequence: 0,
            random_seed: 0x5eed,
            reads: AtomicU32::new(0),
            background_maintenance: false,
            committed: None,
            replaying: false,
            schema_epoch: 0,
        }
    }

    /// A number that changes whenever a table is created, deleted or restored or a table's
    /// families change: a replica compares it to know whether its schema may differ.
    pub fn schema_epoch(&self) -> u64 {
        self.schema_epoch
    }

    /// Whether writes are waiting for [`Database::take_committed`] (checked under a read
    /// lock before taking the write lock).
    pub fn has_committed(&self) -> bool {
        self.committed.as_ref().is_some_and(|c| !c.is_empty())
    }

    /// Enables (`Some(retention)`), changes the retention of, or disables (`None`) a table's
    /// change stream. Enabling starts an empty log: changes before it are not in the stream.
    ///
    /// # Errors
    /// `NotFound` for an unknown table; `InvalidArgument` for a retention outside 1 to 7
    /// days; on storage, the storage's errors keeping the setting (the change log file).
    pub fn set_change_stream(
        &mut self,
        table_id: &str,
        retention_micros: Option<i64>,
    ) -> Result<()> {
        let now = self.now()?;
        let table = self.table_mut(table_id)?;
        match retention_micros {
            None => table.change_log = None,
            Some(r) => match &mut table.change_log {
                Some(log) => log.set_retention(r)?,
                None => table.change_log = Some(ChangeLog::new(r, now)?),
            },
        }
        // On storage the setting (and the log so far) is kept at once, so a restart keeps
        // the stream as it was set.
        self.write_changes()
    }

    /// A table's change log, if its change stream is enabled.
    pub fn change_log(&self, table_id: &str) -> Option<&ChangeLog> {
        self.tables.get(table_id)?.change_log.as_ref()
    }

    /// Starts (`true`) or stops keeping every committed write for
    /// [`Database::take_committed`]. Off by default: keeping costs a copy of each write.
    pub fn set_capture_committed(&mut self, on: bool) {
        self.committed = if on { Some(Vec::new()) } else { None };
    }

    /// The writes committed since the last call (oldest first) while capture is on.
    pub fn take_committed(&mut self) -> Vec<CommittedWrite> {
        self.committed
            .as_mut()
            .map(core::mem::take)
            .unwrap_or_default()
    }

    /// Applies writes another database committed (see [`CommittedWrite`]): each row
    /// atomically, validated against this database's schema first. A row this database
    /// cannot take (its table or a family is gone here) is skipped and its error returned
    /// in the list; the others are applied. Nothing applied here is captured again.
    ///
    /// # Errors
    /// Storage errors from the commit log.
    pub fn apply_committed(&mut self, write: &CommittedWrite) -> Result<Vec<Error>> {
        let mut refused = Vec::new();
        let Ok(table) = self.table(&write.table_id) else {
            refused.push(Error::not_found(format!(
                "table {} is not in this replica",
                quoted(&write.table_id)
            )));
            return Ok(refused);
        };
        let mut rows: Vec<(&[u8], &[Mutation])> = Vec::new();
        for r in &write.rows {
            match validate_row_mutations(&table.config, &r.row_key, &r.mutations) {
                Ok(()) => rows.push((&r.row_key, &r.mutations)),
                Err(e) => refused.push(e),
            }
        }
        let keep = self.committed.take();
        self.replaying = true;
        let now = self.now();
        let result = now.and_then(|now| self.commit(&write.table_id, &rows, now));
        self.replaying = false;
        self.committed = keep;
        result.map(|()| refused)
    }

    /// Seeds the randomness `row_sample` filters draw from, making samples reproducible.
    pub fn set_random_seed(&mut self, seed: u64) {
        self.random_seed = seed;
        self.reads.store(0, Ordering::Relaxed);
    }

    /// The time the database sees, in microseconds since the epoch, as the clock reads it
    /// (every call that uses it checks it first; see [`Database::checked_now_micros`]).
    pub fn now_micros(&self) -> i64 {
        self.clock.now_micros()
    }

    /// The clock's reading, if it lies in Bigtable's timestamp range
    /// (`0 ..= limits::MAX_TIMESTAMP_MICROS`). Every call that stamps, ages or reads cells
    /// checks it: a clock before 1970 would stamp cells no read can return, and one near
    /// the int64 limit would leave no room for timestamp arithmetic.
    ///
    /// # Errors
    /// `FailedPrecondition` for a reading outside the range (the host's or the test's clock
    /// must be fixed; the call changed nothing).
    pub fn checked_now_micros(&self) -> Result<i64> {
        let now = self.clock.now_micros();
        if (0..=limits::MAX_TIMESTAMP_MICROS).contains(&now) {
            Ok(now)
        } else {
            Err(Error::failed_precondition(format!(
                "the database clock reads {now} microseconds since the epoch, outside \
                 Bigtable's timestamp range 0..={}",
                limits::MAX_TIMESTAMP_MICROS
            )))
        }
    }

    fn now(&self) -> Result<i64> {
        self.checked_now_micros()
    }

    /// Creates a table.
    ///
    /// # Errors
    /// `InvalidArgument` for a bad id or schema; `AlreadyExists` if the table exists.
    pub fn create_table(&mut self, table_id: &str, config: TableConfig) -> Result<()> {
        validate_table_id(table_id)?;
        config.validate()?;
        if self.tables.contains_key(table_id) {
            return Err(Error::already_exists(format!(
                "table {} already exists",
                quoted(table_id)
            )));
        }
        let mut table = Table::new(table_id, config);
        table.store = self.persist.as_ref().map(|p| p.store.clone());
        table.defer_maintenance = self.background_maintenance;
        self.tables.insert(table_id.to_string(), table);
        self.schema_epoch += 1;
        self.write_manifest()
    }

    /// A table's schema and options.
    ///
    /// # Errors
    /// `NotFound` if the table does not exist.
    pub fn get_table(&self, table_id: &str) -> Result<TableInfo> {
        let table = self.table(table_id)?;
        Ok(TableInfo {
            name: table_id.to_string(),
            config: table.config.clone(),
        })
    }

    /// Every table, by id.
    pub fn list_tables(&self) -> Vec<TableInfo> {
        self.tables
            .iter()
            .map(|(name, t)| TableInfo {
                name: name.clone(),
                config: t.config.clone(),
            })
            .collect()
    }

    /// Deletes a table and its data.
    ///
    /// # Errors
    /// `NotFound` if the table does not exist; `FailedPrecondition` if it has deletion
    /// protection.
    pub fn delete_table(&mut self, table_id: &str) -> Result<()> {
        let table = self.table(table_id)?;
        if table.config.deletion_protection {
            return Err(Error::failed_precondition(format!(
                "table {} has deletion protection enabled",
                quoted(table_id)
            )));
        }
        self.tables.remove(table_id);
        self.schema_epoch += 1;
        // The log may hold writes to this table; a table of the same name created later
        // must not receive them on recovery.
        self.checkpoint()
    }

    /// Creates, updates or drops column families, in order and all or nothing. Dropping a
    /// family deletes its data; re-creating it later starts empty.
    ///
    /// # Errors
    /// `NotFound` for an unknown table, or a family to update or drop that does not exist;
    /// `AlreadyExists` for a family to create that exists; `InvalidArgument` for a bad name
    /// or GC rule or an empty list. On error nothing changes.
    pub fn modify_column_families(
        &mut self,
        table_id: &str,
        modifications: &[FamilyModification],
    ) -> Result<TableInfo> {
        let now = self.now()?;
        let (table, sequence) = self.table_and_sequence(table_id)?;
        if modifications.is_empty() {
            return Err(Error::invalid_argument(
                "modifications: at least one is required",
            ));
        }
        // Work on a copy of the schema so a failure half-way changes nothing.
        let mut config = table.config.clone();
        let mut dropped = Vec::new();
        for (i, m) in modifications.iter().enumerate() {
            match m {
                FamilyModification::Create { name, family } => {
                    validate_family_name(name)?;
                    family.gc_rule.validate()?;
                    if config.families.contains_key(name) {
                        return Err(Error::already_exists(format!(
                            "modifications[{i}]: column family {} already exists",
                            quoted(name)
                        )));
                    }
                    config.families.insert(name.clone(), family.clone());
                }
                FamilyModification::Update { name, family } => {
                    validate_family_name(name)?;
                    family.gc_rule.validate()?;
                    match config.families.get_mut(name) {
                        Some(f) if f.value_type != family.value_type => {
                            return Err(Error::invalid_argument(format!(
                                "modifications[{i}]: the value type of column family {} cannot change",
                                quoted(name)
                            )))
                        }
                        Some(f) => *f = family.clone(),
                        None => {
                            return Err(Error::not_found(format!(
                                "modifications[{i}]: column family {} not found",
                                quoted(name)
                            )))
                        }
                    }
                }
                FamilyModification::Drop { name } => {
                    validate_family_name(name)?;
                    // The admin proto: deletion protection forbids deleting the table's
                    // column families as well as the table.
                    if config.deletion_protection {
                        return Err(Error::failed_precondition(format!(
                            "modifications[{i}]: cannot drop column family {}: table {} has deletion protection enabled",
                            quoted(name),
                            quoted(table_id)
                        )));
                    }
                    if config.families.remove(name).is_none() {
                        return Err(Error::not_found(format!(
                            "modifications[{i}]: column family {} not found",
                            quoted(name)
                        )));
                    }
                    dropped.push(name.clone());
                }
            }
        }
        for name in &dropped {
            table.drop_family_data(name, *sequence);
        }
        // What the old GC rules made collectable is gone for good before a rule changes, so
        // a looser rule cannot bring back cells whether or not compaction had run.
        let rules_change = modifications
            .iter()
            .any(|m| matches!(m, FamilyModification::Update { name, family } if table.config.families.get(name).is_some_and(|f| f.gc_rule != family.gc_rule)));
        if rules_change {
            table.compact_all(now)?;
        }
        table.config = config;
        if !dropped.is_empty() && table.store.is_some() {
            // Family drops are not in the manifest: remove the data from the runs for good.
            table.compact_all(now)?;
        }
        let info = TableInfo {
            name: table_id.to_string(),
            config: table.config.clone(),
        };
        self.schema_epoch += 1;
        if dropped.is_empty() {
            self.write_manifest()?;
        } else {
            self.checkpoint()?;
        }
        Ok(info)
    }

    /// Applies `mutations` to one row, atomically and in order.
    ///
    /// # Errors
    /// `NotFound` for an unknown table or family; `InvalidArgument` for a bad row key, an
    /// empty list or any invalid mutation. On error nothing is applied.
    pub fn mutate_row(
        &mut self,
        table_id: &str,
        row_key: &[u8],
        mutations: &[Mutation],
    ) -> Result<()> {
        let now = self.now()?;
        let table = self.table(table_id)?;
        validate_row_mutations(&table.config, row_key, mutations)?;
        self.commit(table_id, &[(row_key, mutations)], now)
    }

    /// Sets or clears a table's deletion protection (Bigtable's UpdateTable).
    ///
    /// # Errors
    /// `NotFound` if the table does not exist.
    pub fn set_deletion_protection(&mut self, table_id: &str, enabled: bool) -> Result<TableInfo> {
        let table = self.table_mut(table_id)?;
        table.config.deletion_protection = enabled;
        let info = TableInfo {
            name: table_id.to_string(),
            config: table.config.clone(),
        };
        self.write_manifest()?;
        Ok(info)
    }

    /// Replaces a table's tablet thresholds (flush, compaction, split and merge sizes, load
    /// split) at run time: the playground shows them and lets people turn them down to watch
    /// splits. Each tablet applies them at its next maintenance (its next write past a
    /// threshold, or a background pass); nothing is rewritten here.
    ///
    /// # Errors
    /// `NotFound` for an unknown table; `InvalidArgument` for options a new table would be
    /// refused (a zero size, or `merge_bytes` not below `split_bytes`). On error nothing
    /// changes.
    pub fn set_tablet_options(&mut self, table_id: &str, options: TabletOptions) -> Result<()> {
        let table = self.table_mut(table_id)?;
        let mut config = table.config.clone();
        config.tablet_options = options;
        config.validate()?;
        table.config.tablet_options = options;
        self.write_manifest()
    }

    /// Applies each entry's mutations to its row: each entry atomically, the batch not.
    /// Returns one status per entry, in order.
    ///
    /// # Errors
    /// For the whole call (nothing applied): `NotFound` for an unknown table;
    /// `InvalidArgument` for an empty batch or more than 100,000 mutations in total.
    pub fn mutate_rows(
        &mut self,
        table_id: &str,
        entries: &[RowMutations],
    ) -> Result<Vec<Result<()>>> {
        let now = self.now()?;
        let table = self.table(table_id)?;
        if entries.is_empty() {
            return Err(Error::invalid_argument(
                "entries: at least one entry is required",
            ));
        }
        let total: usize = entries.iter().map(|e| e.mutations.len()).sum();
        if total > limits::MAX_MUTATIONS_PER_REQUEST {
            return Err(Error::invalid_argument(format!(
                "entries: {total} mutations in total exceed the limit of {}",
                limits::MAX_MUTATIONS_PER_REQUEST
            )));
        }
        let statuses: Vec<Result<()>> = entries
            .iter()
            .enumerate()
            .map(|(i, e)| {
                validate_row_mutations(&table.config, &e.row_key, &e.mutations).map_err(|err| {
                    Error::new(err.code(), format!("entries[{i}]: {}", err.message()))
                })
            })
            .collect();
        let valid: Vec<(&[u8], &[Mutation])> = entries
            .iter()
            .zip(&statuses)
            .filter(|(_, s)| s.is_ok())
            .map(|(e, _)| (e.row_key.as_slice(), e.mutations.as_slice()))
            .collect();
        // Valid entries are committed as one log record: durable together.
        self.commit(table_id, &valid, now)?;
        Ok(statuses)
    }

    /// Applies `true_mutations` if `predicate` yields any cell of the row (no predicate: if
    /// the row has any cell), else `false_mutations`. Returns whether the predicate matched.
    ///
    /// # Errors
    /// `NotFound` for an unknown table or family; `InvalidArgument` for a bad row key, a bad
    /// filter, both lists empty, or any invalid mutation in either list. On error nothing is
    /// applied.
    pub fn check_and_mutate_row(
        &mut self,
        table_id: &str,
        row_key: &[u8],
        predicate: Option<&RowFilter>,
        true_mutations: &[Mutation],
        false_mutations: &[Mutation],
    ) -> Result<bool> {
        let now = self.now()?;
        let seed = self.next_read_seed();
        let table = self.table(table_id)?;
        validate_row_key(row_key)?;
        if true_mutations.is_empty() && false_mutations.is_empty() {
            return Err(Error::invalid_argument(
                "No mutations provided: true_mutations and false_mutations are both empty",
            ));
        }
        let compiled = predicate.map(RowFilter::compile).transpose()?;
        for (list, name) in [
            (true_mutations, "true_mutations"),
            (false_mutations, "false_mutations"),
        ] {
            if !list.is_empty() {
                validate_row_mutations(&table.config, row_key, list)
                    .map_err(|e| Error::new(e.code(), format!("{name}: {}", e.message())))?;
            }
        }
        // The predicate only needs the newest cells of each column when it starts with a
        // column limit; no predicate only needs to know whether any cell is visible.
        let column_limit = match &compiled {
            None => Some(1),
            Some(f) => f.column_limit(),
        };
        let cells = table
            .read_row(row_key, now, column_limit)?
            .map(|r| r.cells)
            .unwrap_or_default();
        let matched = match &compiled {
            None => !cells.is_empty(),
            Some(f) => !f
                .apply(row_key, cells, &mut SplitMix64::new(seed))
                .is_empty(),
        };
        let chosen = if matched {
            true_mutations
        } else {
            false_mutations
        };
        if !chosen.is_empty() {
            self.commit(table_id, &[(row_key, chosen)], now)?;
        }
        Ok(matched)
    }

    /// Applies append and increment rules to the latest cells of their columns, in order,
    /// and returns the new cells. A missing cell counts as empty (append) or 0 (increment);
    /// the new timestamp is the larger of the old cell's and now.
    ///
    /// # Errors
    /// `NotFound` for an unknown table or family; `InvalidArgument` for a bad row key, no
    /// rules, an aggregate family, or a result over the value size limit;
    /// `FailedPrecondition` for an increment of a value that is not 8 bytes (as Cloud
    /// Bigtable). On error nothing changes.
    pub fn read_modify_write_row(
        &mut self,
        table_id: &str,
        row_key: &[u8],
        rules: &[ReadModifyWriteRule],
    ) -> Result<Row> {
        let now = self.now()?;
        let table = self.table(table_id)?;
        validate_row_key(row_key)?;
        // A failed read of the row (a corrupt block) fails the whole call before anything
        // is written: the plan made from no cells is dropped. The rules read only the newest
        // cell of each column: the read seeks past the older versions (GC rule or not).
        let mut read_error = None;
        let planned = read_modify_write::plan(&table.config, row_key, rules, now, || {
            match table.read_row(row_key, now, Some(1)) {
                Ok(row) => row.map(|r| r.cells).unwrap_or_default(),
                Err(e) => {
                    read_error = Some(e);
                    Vec::new()
                }
            }
        });
        if let Some(e) = read_error {
            return Err(e);
        }
        let (mutations, result) = planned?;
        self.commit(table_id, &[(row_key, &mutations)], now)?;
        Ok(result)
    }

    /// Deletes every row with a prefix, or every row.
    ///
    /// # Errors
    /// `NotFound` for an unknown table; `InvalidArgument` for an empty prefix.
    pub fn drop_row_range(&mut self, table_id: &str, range: &DropRowRange) -> Result<()> {
        let now = self.now()?;
        let table = self.table_mut(table_id)?;
        match range {
            DropRowRange::Prefix(p) if p.is_empty() => Err(Error::invalid_argument(
                "row_key_prefix: must be non-empty (use delete_all_data_from_table)",
            )),
            DropRowRange::Prefix(p) => {
                let keys = table.rows_with_prefix(p)?;
                let delete = [Mutation::DeleteFromRow];
                let rows: Vec<(&[u8], &[Mutation])> =
                    keys.iter().map(|k| (k.as_slice(), &delete[..])).collect();
                self.commit(table_id, &rows, now)
            }
            DropRowRange::All => {
                // Change streams capture DropRowRange's deletions ("Change streams
                // overview"): one DeleteFromRow per row the drop removes.
                let table = self.table_mut(table_id)?;
                if table.change_log.is_some() {
                    let keys = table.rows_with_prefix(b"")?;
                    let mut rows = Vec::with_capacity(keys.len());
                    for row_key in keys {
                        let mutations = persistence::row_delete_as_family_deletes(
                            table,
                            &row_key,
                            &[Mutation::DeleteFromRow],
                            now,
                        )?;
                        if !mutations.is_empty() {
                            rows.push(RowMutations { row_key, mutations });
                        }
                    }
                    if let Some(log) = &mut table.change_log {
                        log.push(&rows, now);
                    }
                }
                table.drop_all();
                // The log may still hold the dropped writes: start a fresh one.
                self.checkpoint()
            }
        }
    }

    /// Keys that split the table into chunks, with the bytes before each; the last entry
    /// has the empty key and the table's total size.
    ///
    /// # Errors
    /// `NotFound` for an unknown table.
    pub fn sample_row_keys(&self, table_id: &str) -> Result<Vec<SampleRowKey>> {
        Ok(self.table(table_id)?.sample_row_keys())
    }

    /// Snapshots a table at a consistent point as backup `backup_id`. Later writes to the
    /// table do not change the backup.
    ///
    /// # Errors
    /// `NotFound` for an unknown table; `AlreadyExists` if the backup id is taken;
    /// `InvalidArgument` for a bad id.
    pub fn create_backup(&mut self, table_id: &str, backup_id: &str) -> Result<BackupInfo> {
        validate_table_id(backup_id).map_err(|_| {
            Error::invalid_argument(format!(
                "backup_id {} must match [_a-zA-Z0-9][-_.a-zA-Z0-9]* and be at most 50 characters",
                quoted(backup_id)
            ))
        })?;
        if self.backups.contains_key(backup_id) {
            return Err(Error::already_exists(format!(
                "backup {} already exists",
                quoted(backup_id)
            )));
        }
        let now = self.now()?;
        let persistent = self.persist.is_some();
        let table = self.table_mut(table_id)?;
        if persistent {
            // Compacting first leaves every tablet with runs of its own rows only, so the
            // backup's runs can be read back as one tablet after a reopen.
            table.compact_all(now)?;
        }
        let snapshot = table.snapshot()?;
        let info = BackupInfo {
            name: backup_id.to_string(),
            source_table: table_id.to_string(),
            created_micros: now,
            size_bytes: snapshot.size_bytes(),
        };
        self.backups.insert(
            backup_id.to_string(),
            Backup {
                info: info.clone(),
                snapshot,
            },
        );
        self.write_manifest()?;
        Ok(info)
    }

    /// A backup's description.
    ///
    /// # Errors
    /// `NotFound` for an unknown backup.
    pub fn get_backup(&self, backup_id: &str) -> Result<BackupInfo> {
        self.backups
            .get(backup_id)
            .map(|b| b.info.clone())
            .ok_or_else(|| backup_not_found(backup_id))
    }

    /// Every backup, by id.
    pub fn list_backups(&self) -> Vec<BackupInfo> {
        self.backups.values().map(|b| b.info.clone()).collect()
    }

    /// Deletes a backup (tables restored from it keep their data).
    ///
    /// # Errors
    /// `NotFound` for an unknown backup.
    pub fn delete_backup(&mut self, backup_id: &str) -> Result<()> {
        self.backups
            .remove(backup_id)
            .ok_or_else(|| backup_not_found(backup_id))?;
        self.write_manifest()
    }

    /// Creates table `table_id` holding a backup's data and schema.
    ///
    /// # Errors
    /// `NotFound` for an unknown backup; `AlreadyExists` if the table exists;
    /// `InvalidArgument` for a bad table id.
    pub fn restore_table(&mut self, backup_id: &str, table_id: &str) -> Result<TableInfo> {
        validate_table_id(table_id)?;
        let backup = self
            .backups
            .get(backup_id)
            .ok_or_else(|| backup_not_found(backup_id))?;
        if self.tables.contains_key(table_id) {
            return Err(Error::already_exists(format!(
                "table {} already exists",
                quoted(table_id)
            )));
        }
        let store = self.persist.as_ref().map(|p| p.store.clone());
        let mut table = Table::from_snapshot(table_id, &backup.snapshot, store);
        table.defer_maintenance = self.background_maintenance;
        let info = TableInfo {
            name: table_id.to_string(),
            config: table.config.clone(),
        };
        self.tables.insert(table_id.to_string(), table);
        self.schema_epoch += 1;
        self.write_manifest()?;
        Ok(info)
    }

    /// The table's tablets in key order, with their ranges and sizes.
    ///
    /// # Errors
    /// `NotFound` for an unknown table.
    pub fn tablets(&self, table_id: &str) -> Result<Vec<TabletInfo>> {
        Ok(self.table(table_id)?.tablet_infos())
    }

    /// Access statistics of a table: per time bucket and key bucket, what reads and writes
    /// touched (the Key Visualizer's heatmap data).
    ///
    /// # Errors
    /// `NotFound` for an unknown table.
    pub fn access_stats(&self, table_id: &str) -> Result<Vec<AccessStat>> {
        Ok(self.table(table_id)?.stats.lock().by_key())
    }

    /// The tablets that did most of the database's work between `start_micros` and
    /// `end_micros` (time buckets starting in that window), busiest first: Bigtable's
    /// ListHotTablets. A tablet's work is the rows and cells its reads visited plus the row
    /// mutations it applied (the engine's stand-in for CPU time, counted in its access
    /// statistics); its share is that work over the work of every tablet of every table in
    /// the window. Tablets with less than `min_share_percent` of it are left out, and so are
    /// tablets that no longer exist (a split or merge replaced them).
    ///
    /// # Errors
    /// `InvalidArgument` if the window is empty or reversed.
    pub fn hot_tablets(
        &self,
        start_micros: i64,
        end_micros: i64,
        min_share_percent: f32,
    ) -> Result<Vec<HotTablet>> {
        if end_micros <= start_micros {
            return Err(Error::invalid_argument(format!(
                "the window must end after it starts (start {start_micros}, end {end_micros} microseconds)"
            )));
        }
        let work =
            |c: &crate::table::stats::AccessCounters| c.rows_scanned + c.cells_scanned + c.writes;
        let mut busy = Vec::new();
        let mut total = 0u64;
        for (name, table) in &self.tables {
            let per_tablet = table
                .stats
                .lock()
                .by_tablet_between(start_micros, end_micros);
            total += per_tablet.values().map(work).sum::<u64>();
            for info in table.tablet_infos() {
                if let Some(c) = per_tablet.get(&info.id) {
                    busy.push((name.clone(), info, work(c)));
                }
            }
        }
        let mut hot: Vec<HotTablet> = busy
            .into_iter()
            .filter(|(_, _, w)| *w > 0)
            .map(|(table_id, tablet, w)| HotTablet {
                table_id,
                start_key: tablet.start_key,
                end_key: tablet.end_key,
                cpu_share_percent: (w as f64 * 100.0 / total.max(1) as f64) as f32,
            })
            .filter(|h| h.cpu_share_percent >= min_share_percent)
            .collect();
        hot.sort_by(|a, b| b.cpu_share_percent.total_cmp(&a.cpu_share_percent));
        Ok(hot)
    }

    /// Sets how a table's access statistics are bucketed (clears what was counted).
    ///
    /// # Errors
    /// `NotFound` for an unknown table; `InvalidArgument` for a non-positive bucket width.
    pub fn set_stats_options(&mut self, table_id: &str, options: StatsOptions) -> Result<()> {
        if options.bucket_micros <= 0 || options.max_buckets == 0 {
            return Err(Error::invalid_argument(
                "stats options: bucket_micros and max_buckets must be positive",
            ));
        }
        *self.table_mut(table_id)?.stats.lock() = crate::table::stats::TableStats::new(options);
        Ok(())
    }

    /// Takes the structural events (flush, compaction, split, merge) of every table since
    /// the last call, oldest first.
    pub fn take_tablet_events(&mut self) -> Vec<TabletEvent> {
        self.tables
            .values_mut()
            .flat_map(|t| core::mem::take(&mut t.events))
            .collect()
    }

    /// Flushes and compacts every tablet of a table now: deletes and GC rules are applied
    /// to storage for good (reads never depend on it: they hide collectable cells anyway).
    ///
    /// # Errors
    /// `NotFound` for an unknown table.
    pub fn compact_table(&mut self, table_id: &str) -> Result<()> {
        let now = self.now()?;
        self.table_mut(table_id)?.compact_all(now)?;
        self.write_manifest()
    }

    /// Every version of a row's cells that storage still holds, including those its family's
    /// GC rule hides from reads (until a compaction drops them), each with the rule that
    /// hides it. Deleted cells are not included. What a "versions" inspector shows: reads
    /// return exactly the versions whose [`StoredCell::collected_by`] is `None`. Counts no
    /// access in [`Database::access_stats`].
    ///
    /// # Errors
    /// `NotFound` for an unknown table; `InvalidArgument` for a bad row key.
    pub fn read_row_versions(&self, table_id: &str, row_key: &[u8]) -> Result<Vec<StoredCell>> {
        validate_row_key(row_key)?;
        let table = self.table(table_id)?;
        let now = self.now()?;
        let cells = table.stored_cells(row_key)?;
        let mut out: Vec<StoredCell> = Vec::with_capacity(cells.len());
        let mut version = 0usize;
        for cell in cells {
            // Cells of a column are adjacent, newest first: the index restarts per column.
            version = match out.last() {
                Some(prev)
                    if prev.cell.family == cell.family && prev.cell.qualifier == cell.qualifier =>
                {
                    version + 1
                }
                _ => 0,
            };
            let collected_by = table
                .config
                .families
                .get(&cell.family)
                .and_then(|f| f.gc_rule.collected_by(version, cell.timestamp_micros, now))
                .cloned();
            out.push(StoredCell { cell, collected_by });
        }
        Ok(out)
    }

    /// Reads one row; `None` if it has no visible cells.
    ///
    /// # Errors
    /// `NotFound` for an unknown table; `InvalidArgument` for a bad row key.
    pub fn read_row(&self, table_id: &str, row_key: &[u8]) -> Result<Option<Row>> {
        self.read_row_filtered(table_id, row_key, &RowFilter::PassAll)
    }

    /// Reads one row through a filter; `None` if nothing of it passes.
    ///
    /// # Errors
    /// `NotFound` for an unknown table; `InvalidArgument` for a bad row key or filter.
    pub fn read_row_filtered(
        &self,
        table_id: &str,
        row_key: &[u8],
        filter: &RowFilter,
    ) -> Result<Option<Row>> {
        validate_row_key(row_key)?;
        // A single row needs no stream: the same steps as `read_rows` of one key (same
        // checks in the same order, one read seed), straight to the row.
        let table = self.table(table_id)?;
        let filter = filter.compile()?;
        let now = self.now()?;
        let mut random = SplitMix64::new(self.next_read_seed());
        crate::table::read::read_one(table, row_key, now, &filter, &mut random)
    }

    /// Streams the rows a request selects, in key order (or reversed), without
    /// materialising the table. The filter is compiled once, here. The stream owns a
    /// snapshot of the table taken now and borrows nothing: writes made after this returns
    /// are not visible to it (see [`RowStream`]).
    ///
    /// # Errors
    /// `NotFound` for an unknown table; `InvalidArgument` for a negative limit, a bad row
    /// set or a bad filter.
    pub fn read_rows(&self, table_id: &str, request: &ReadRowsRequest) -> Result<RowStream> {
        let filter = request.filter.compile()?;
        self.read_rows_compiled(table_id, request, &filter)
    }

    /// As [`Database::read_rows`], applying `filter` in place of `request.filter`, which is
    /// not looked at. A caller that reads one request in many pieces (a server resuming a
    /// scan batch after batch) compiles the filter once with [`RowFilter::compile`] instead
    /// of once per piece; the compiled filter's regexes are shared, so the copy each stream
    /// takes is cheap.
    ///
    /// # Errors
    /// As [`Database::read_rows`], apart from the filter's, which [`RowFilter::compile`]
    /// reported.
    pub fn read_rows_compiled(
        &self,
        table_id: &str,
        request: &ReadRowsRequest,
        filter: &CompiledFilter,
    ) -> Result<RowStream> {
        let table = self.table(table_id)?;
        let rows_limit = limits::rows_limit(request.rows_limit)?;
        request.row_set.validate()?;
        let filter = filter.clone();
        let mut ranges = request.row_set.normalized_ranges();
        if request.reversed {
            ranges.reverse();
        }
        Ok(RowStream::new(
            table,
            ranges,
            request.reversed,
            rows_limit,
            self.now()?,
            filter,
            SplitMix64::new(self.next_read_seed()),
        ))
    }

    fn next_read_seed(&self) -> u64 {
        let n = self.reads.fetch_add(1, Ordering::Relaxed);
        self.random_seed ^ u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    /// The table named `table_id`. On every lookup, not only on create, a malformed id is
    /// INVALID_ARGUMENT rather than NOT_FOUND (every stored id passed the check, so it
    /// only needs to run when the lookup misses).
    fn table(&self, table_id: &str) -> Result<&Table> {
        self.tables
            .get(table_id)
            .ok_or_else(|| table_not_found(table_id))
    }

    fn table_mut(&mut self, table_id: &str) -> Result<&mut Table> {
        Ok(self.table_and_sequence(table_id)?.0)
    }

    /// The table and the sequence counter, borrowed together for writes.
    fn table_and_sequence(&mut self, table_id: &str) -> Result<(&mut Table, &mut u64)> {
        let table = self
            .tables
            .get_mut(table_id)
            .ok_or_else(|| table_not_found(table_id))?;
        Ok((table, &mut self.sequence))
    }
}

/// The error for a table id no table has: INVALID_ARGUMENT when the id is malformed.
fn table_not_found(table_id: &str) -> Error {
    match validate_table_id(table_id) {
        Err(e) => e,
        Ok(()) => Error::not_found(format!("table {} not found", quoted(table_id))),
    }
}

/// The error for a backup id no backup has: INVALID_ARGUMENT when the id is malformed.
fn backup_not_found(backup_id: &str) -> Error {
    match validate_table_id(backup_id) {
        Err(_) => Error::invalid_argument(format!(
            "backup_id {} must match [_a-zA-Z0-9][-_.a-zA-Z0-9]* and be at most 50 characters",
            quoted(backup_id)
        )),
        Ok(()) => Error::not_found(format!("backup {} not found", quoted(backup_id))),
    }
}
