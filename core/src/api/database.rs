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
use crate::model::gc::GcMode;
use crate::model::mutation::{
    validate_mutate_rows_batch, validate_row_key, validate_row_mutations, Mutation,
};
use crate::model::read_modify_write::{self, ReadModifyWriteRule};
use crate::model::request::ReadRowsRequest;
use crate::model::row::{Row, SampleRowKey};
use crate::model::row_key_schema::RowKeySchema;
use crate::model::schema::{
    validate_family_name, validate_table_id, FamilyModification, TableConfig, TableInfo,
    TabletOptions,
};
use crate::platform::clock::Clock;
use crate::platform::random::SplitMix64;
use crate::table::read::RowStream;
use crate::table::table::Table;
use crate::{Error, Result};

mod backups;
mod changes;
mod gc;
mod inspection;
mod maintenance;
mod outbound;
mod persistence;
mod replica_marks;

#[cfg(feature = "std")]
pub(crate) use persistence::verify_runs;
use persistence::Persistence;
pub use persistence::{Durability, OpenOptions, VerifyReport};
pub use replica_marks::MARKS_FILE;

pub use crate::model::mutation::RowMutations;
use backups::Backup;
pub use backups::BackupInfo;
pub use changes::CommittedWrite;
pub use inspection::{HotTablet, StoredCell};

/// Which rows DropRowRange deletes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DropRowRange {
    /// Every row whose key starts with the (non-empty) prefix.
    Prefix(Vec<u8>),
    /// Every row of the table.
    All,
}

/// A database of tables.
pub struct Database {
    persist: Option<Persistence>,
    pub(crate) tables: BTreeMap<String, Table>,
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
    /// Captured writes handed to replication and not yet confirmed recorded in its queue,
    /// and those recovered from the log (see `outbound`), oldest first.
    outbound: Vec<CommittedWrite>,
    /// Set while applying another database's writes: they are not this database's changes,
    /// and their log record (type 4) names where they came from.
    replaying: Option<crate::durability::commit_log::Origin>,
    /// Per source cluster, the highest arrival number of a write replication delivered here
    /// (see `replica_marks`): durable with the write that raised it.
    replica_marks: BTreeMap<String, u64>,
    /// Whether the marks changed since the marks file was last written.
    replica_marks_dirty: bool,
    /// Counts changes of the set of tables and of their families (see
    /// [`Database::schema_epoch`]).
    schema_epoch: u64,
    /// When collectable cells stop being readable (see [`GcMode`]); every table follows it.
    gc_mode: GcMode,
    /// Continuous materialized views over this database's tables (kept in memory, rebuilt
    /// when created; see `api::materialized_views`).
    /// (Type-erased: that module imports the SQL engine, which imports this one.)
    pub(crate) materialized_views: Option<Box<dyn core::any::Any + Send + Sync>>,
    /// Called at the end of every successful [`Database::checkpoint`] while views exist: stores each
    /// view's copy stamped with its table's durable state (`api::materialized_views`; a
    /// function pointer for the same reason as above).
    pub(crate) after_checkpoint: Option<fn(&mut Database)>,
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
            outbound: Vec::new(),
            replaying: None,
            replica_marks: BTreeMap::new(),
            replica_marks_dirty: false,
            schema_epoch: 0,
            gc_mode: GcMode::Immediate,
            materialized_views: None,
            after_checkpoint: None,
        }
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
        table.gc_mode = self.gc_mode;
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
        let views = self.materialized_views_of(table_id);
        if !views.is_empty() {
            return Err(Error::failed_precondition(format!(
                "table {} is the source of materialized views {}: delete them first",
                quoted(table_id),
                views.join(", ")
            )));
        }
        self.tables.remove(table_id);
        self.schema_epoch += 1;
        // The log may hold writes to this table; a table of the same name created later
        // must not receive them on recovery.
        self.rotate_checkpoint()
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
        let hides_collectable = self.gc_mode.hides_collectable();
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
                    if let Some(schema) = &config.row_key_schema {
                        if schema.position(name).is_some() {
                            return Err(Error::invalid_argument(format!(
                                "modifications[{i}]: column family {} collides with a row key schema field",
                                quoted(name)
                            )));
                        }
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
        // Immediate mode: what the old GC rules made collectable is gone for good before a
        // rule changes, so a looser rule cannot bring back cells whether or not compaction
        // had run. Background mode: nothing is collected here; as in Bigtable, the next
        // collection applies the family's new rule, and a looser one makes versions not
        // yet collected visible again.
        let rules_change = hides_collectable
            && modifications
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
        self.views_rebuild(table_id);
        if dropped.is_empty() {
            self.write_manifest()?;
        } else {
            self.rotate_checkpoint()?;
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

    /// Sets or removes a table's row-key schema (Bigtable's UpdateTable of
    /// `row_key_schema`): a table without one may get one; removing one needs
    /// `ignore_warnings`, as it may break readers; replacing one by another is refused (see
    /// `model::row_key_schema`).
    ///
    /// # Errors
    /// `NotFound` if the table does not exist; `InvalidArgument` for an invalid schema, a
    /// change of an existing schema, or a removal without `ignore_warnings`.
    pub fn set_row_key_schema(
        &mut self,
        table_id: &str,
        schema: Option<RowKeySchema>,
        ignore_warnings: bool,
    ) -> Result<TableInfo> {
        let table = self.table_mut(table_id)?;
        match (&table.config.row_key_schema, &schema) {
            (Some(old), Some(new)) if old != new => {
                return Err(Error::invalid_argument(
                    "row_key_schema: an existing row key schema cannot be changed (remove it first)",
                ))
            }
            (Some(_), None) if !ignore_warnings => {
                return Err(Error::invalid_argument(
                    "row_key_schema: removing a row key schema needs ignore_warnings, as it may break queries that read its fields",
                ))
            }
            _ => {}
        }
        if let Some(s) = &schema {
            s.validate(|n| table.config.families.contains_key(n))?;
        }
        table.config.row_key_schema = schema;
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
        validate_mutate_rows_batch(entries)?;
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
        // column limit, and only the columns its leading selection keeps; no predicate
        // only needs to know whether any cell is visible.
        let (column_limit, columns) = match &compiled {
            None => (Some(1), None),
            Some(f) => (f.column_limit(), f.column_selection()),
        };
        let cells = table
            .point_read(row_key, now, column_limit, columns)
            .0?
            .map(|p| p.cells)
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
                self.views_rebuild(table_id);
                // The log may still hold the dropped writes: start a fresh one.
                self.rotate_checkpoint()
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
        self.read_one(table, row_key, &filter)
    }

    /// As [`Database::read_row_filtered`] with a filter the caller compiled once
    /// ([`RowFilter::compile`]): a prepared SQL point query reads its row this way.
    ///
    /// # Errors
    /// `NotFound` for an unknown table; `InvalidArgument` for a bad row key.
    pub fn read_row_compiled(
        &self,
        table_id: &str,
        row_key: &[u8],
        filter: &CompiledFilter,
    ) -> Result<Option<Row>> {
        self.read_row_as(table_id, row_key, filter, false)
    }

    /// As [`Database::read_row_compiled`], but a row that exists and whose cells the filter
    /// all drops comes back as a row with no cells instead of `None` (SQL's point query:
    /// every stored row is a result row, whatever the columns it selects).
    pub(crate) fn read_row_present_compiled(
        &self,
        table_id: &str,
        row_key: &[u8],
        filter: &CompiledFilter,
    ) -> Result<Option<Row>> {
        self.read_row_as(table_id, row_key, filter, true)
    }

    fn read_row_as(
        &self,
        table_id: &str,
        row_key: &[u8],
        filter: &CompiledFilter,
        keep_present: bool,
    ) -> Result<Option<Row>> {
        validate_row_key(row_key)?;
        let table = self.table(table_id)?;
        self.read_one_as(table, row_key, filter, keep_present)
    }

    fn read_one(
        &self,
        table: &Table,
        row_key: &[u8],
        filter: &CompiledFilter,
    ) -> Result<Option<Row>> {
        self.read_one_as(table, row_key, filter, false)
    }

    /// One row's read; `keep_present` as in `table::read::read_one_as`.
    fn read_one_as(
        &self,
        table: &Table,
        row_key: &[u8],
        filter: &CompiledFilter,
        keep_present: bool,
    ) -> Result<Option<Row>> {
        let now = self.now()?;
        let mut random = SplitMix64::new(self.next_read_seed());
        crate::table::read::read_one_as(table, row_key, now, filter, &mut random, keep_present)
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
