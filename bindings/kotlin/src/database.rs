//! The exported database object: the core's [`sparsetable::SharedDatabase`], in memory or
//! on a directory (commit log, group commit, recovery, and the directory's exclusive lock,
//! all the core's).
//!
//! The JVM may call from many threads; the core's shared handle gives them its one lock
//! (reads share it, writes take it alone) and its one poisoning policy (a poisoned lock is
//! `INTERNAL`). Each method converts its arguments, makes one core call, and converts the
//! result; errors go through [`crate::error::to_ffi`].

use std::sync::Arc;

use sparsetable::SharedDatabase;

use crate::clock::ManualClock;
use crate::error::{to_ffi, SparsetableError};
use crate::requests::{
    ConditionalWrite, DropRowRange, EntryFailure, RowModify, RowMutationEntry, RowRead, RowWrite,
    SampleRowKey,
};
use crate::stream::RowStream;
use crate::types::{FamilyModification, ReadRowsRequest, Row, TableConfig, TableInfo};

/// When a durable database acknowledges a write, relative to the disk (the core's
/// `Durability`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum Durability {
    /// After its commit log record is fsynced (concurrent writers share fsyncs).
    Sync,
    /// The log is fsynced every `micros` in the background; a crash loses at most about that
    /// window of acknowledged writes.
    Interval {
        /// The window, in microseconds.
        micros: i64,
    },
    /// Never fsynced by the engine (a process crash loses nothing, a machine crash may).
    None,
}

impl From<Durability> for sparsetable::Durability {
    fn from(d: Durability) -> Self {
        match d {
            Durability::Sync => sparsetable::Durability::Sync,
            Durability::Interval { micros } => sparsetable::Durability::Interval { micros },
            Durability::None => sparsetable::Durability::None,
        }
    }
}

/// When cells a family's GC rule makes collectable stop being readable (the core's
/// `GcMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum GcMode {
    /// At once: reads never depend on when compaction ran (the default).
    Immediate,
    /// As Cloud Bigtable: they stay readable until a collection (`collect_garbage`, or a
    /// compaction) removes them.
    Background,
}

impl From<GcMode> for sparsetable::GcMode {
    fn from(m: GcMode) -> Self {
        match m {
            GcMode::Immediate => sparsetable::GcMode::Immediate,
            GcMode::Background => sparsetable::GcMode::Background,
        }
    }
}

impl From<sparsetable::GcMode> for GcMode {
    fn from(m: sparsetable::GcMode) -> Self {
        match m {
            sparsetable::GcMode::Immediate => GcMode::Immediate,
            sparsetable::GcMode::Background => GcMode::Background,
        }
    }
}

/// What `get_backup` and `list_backups` report about a backup.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct BackupInfo {
    /// The backup's id.
    pub backup_id: String,
    /// The table it was taken from.
    pub source_table: String,
    /// When it was taken (the database clock), in microseconds since the epoch.
    pub created_micros: i64,
    /// Approximate bytes it holds.
    pub size_bytes: u64,
}

impl From<sparsetable::BackupInfo> for BackupInfo {
    fn from(b: sparsetable::BackupInfo) -> Self {
        BackupInfo {
            backup_id: b.name,
            source_table: b.source_table,
            created_micros: b.created_micros,
            size_bytes: b.size_bytes,
        }
    }
}

/// A Sparsetable database, in memory or on a directory.
#[derive(Debug, uniffi::Object)]
pub struct Database {
    inner: SharedDatabase,
    /// Set on a handle [`crate::instance::InstancePlane::route`] made for one request: its
    /// writes are handed to replication ([`sparsetable::Routed::after_write`]) before they
    /// return, as the core requires, in the same FFI call.
    routed: Option<sparsetable::Routed>,
    /// The directory a durable database was opened on (where the instance admin keeps the
    /// instance's `INSTANCE` file) and the options it was opened with (the other clusters'
    /// copies open with them); `None` in memory.
    dir: Option<(std::path::PathBuf, sparsetable::OpenOptions)>,
}

type Result<T> = std::result::Result<T, SparsetableError>;

#[uniffi::export]
impl Database {
    /// An empty database on the system clock.
    #[uniffi::constructor]
    pub fn new() -> Arc<Self> {
        Self::wrap(sparsetable::Database::new())
    }

    /// An empty database that reads the time from `clock`, and only from it.
    #[uniffi::constructor]
    pub fn with_manual_clock(clock: Arc<ManualClock>) -> Arc<Self> {
        Self::wrap(sparsetable::Database::with_clock(clock.inner.clone()))
    }

    /// Opens (or creates) a durable database in directory `path`, on the system clock:
    /// replays its commit log, then takes writes with the given durability. The directory is
    /// locked for as long as this object (or a stream it opened) lives.
    ///
    /// # Errors
    /// `FAILED_PRECONDITION` if another database (in this or another process) holds the
    /// directory; `DATA_LOSS` for corrupt files; `UNAVAILABLE` (or another storage code) if
    /// the directory cannot be created or written.
    #[uniffi::constructor]
    pub fn open(path: String, durability: Durability) -> Result<Arc<Self>> {
        Self::open_with_gc_mode(path, durability, GcMode::Immediate)
    }

    /// [`Database::open`] in GC mode `gc_mode` (the log replays in it too).
    ///
    /// # Errors
    /// As [`Database::open`].
    #[uniffi::constructor]
    pub fn open_with_gc_mode(
        path: String,
        durability: Durability,
        gc_mode: GcMode,
    ) -> Result<Arc<Self>> {
        let options = sparsetable::OpenOptions {
            durability: durability.into(),
            gc_mode: gc_mode.into(),
            ..Default::default()
        };
        let dir = (std::path::PathBuf::from(&path), options.clone());
        sparsetable::Database::open_dir(path, options)
            .map(|db| {
                Arc::new(Database {
                    inner: SharedDatabase::new(db),
                    routed: None,
                    dir: Some(dir),
                })
            })
            .map_err(to_ffi)
    }

    /// When collectable cells stop being readable.
    ///
    /// # Errors
    /// `INTERNAL` if the database's lock was poisoned.
    pub fn gc_mode(&self) -> Result<GcMode> {
        self.read(|db| Ok(db.gc_mode().into()))
    }

    /// Switches the GC mode (of every table, now and later); changes nothing stored.
    ///
    /// # Errors
    /// `INTERNAL` if the database's lock was poisoned.
    pub fn set_gc_mode(&self, gc_mode: GcMode) -> Result<()> {
        self.write(|db| {
            db.set_gc_mode(gc_mode.into());
            Ok(())
        })
    }

    /// Runs garbage collection now on `table_id` (every table when `None`).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table; the storage's errors.
    pub fn collect_garbage(&self, table_id: Option<String>) -> Result<()> {
        self.write(|db| match &table_id {
            Some(t) => db.collect_garbage(t),
            None => db.collect_all_garbage(),
        })
    }

    /// Enables (`Some(retention_micros)`, 1 to 7 days), changes or (`None`) disables a
    /// table's change stream.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table; `INVALID_ARGUMENT` for a retention out of range.
    pub fn set_change_stream(&self, table_id: String, retention_micros: Option<i64>) -> Result<()> {
        self.write(|db| db.set_change_stream(&table_id, retention_micros))
    }

    /// The partitions of a table's change stream (its tablets).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table; `FAILED_PRECONDITION` if its change stream is off.
    pub fn change_stream_partitions(
        &self,
        table_id: String,
    ) -> Result<Vec<crate::types::RowRange>> {
        sparsetable::api::change_stream_reader::partitions(&self.inner, &table_id)
            .map(|ps| ps.into_iter().map(Into::into).collect())
            .map_err(to_ffi)
    }

    /// Opens a read of one partition of a table's change stream: from `start_micros`, from
    /// `tokens`, or (neither) from now; until `end_micros` if given.
    ///
    /// # Errors
    /// As the core's `ChangeStreamReader::open`.
    pub fn read_change_stream(
        &self,
        table_id: String,
        partition: crate::types::RowRange,
        start_micros: Option<i64>,
        tokens: Vec<crate::change_stream::ContinuationToken>,
        end_micros: Option<i64>,
    ) -> Result<Arc<crate::change_stream::ChangeStream>> {
        crate::change_stream::ChangeStream::open(
            vec![(String::new(), self.inner.clone())],
            0,
            &table_id,
            partition,
            start_micros,
            tokens,
            end_micros,
        )
    }

    /// Does nothing: the cost of one call across the FFI, for benchmarks.
    pub fn noop(&self) {}

    /// Flushes every memtable and starts a fresh commit log (a no-op in memory).
    ///
    /// # Errors
    /// The storage's errors.
    pub fn checkpoint(&self) -> Result<()> {
        self.write(|db| db.checkpoint())
    }

    /// Snapshots table `table_id` as backup `backup_id`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table; `ALREADY_EXISTS` for a taken id; `INVALID_ARGUMENT`
    /// for a bad id.
    pub fn create_backup(&self, table_id: String, backup_id: String) -> Result<BackupInfo> {
        self.write(|db| db.create_backup(&table_id, &backup_id))
            .map(Into::into)
    }

    /// A backup's description.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown backup.
    pub fn get_backup(&self, backup_id: String) -> Result<BackupInfo> {
        self.read(|db| db.get_backup(&backup_id)).map(Into::into)
    }

    /// Every backup, by id.
    ///
    /// # Errors
    /// `INTERNAL` if the database lock is poisoned.
    pub fn list_backups(&self) -> Result<Vec<BackupInfo>> {
        let backups = self.read(|db| Ok(db.list_backups()))?;
        Ok(backups.into_iter().map(Into::into).collect())
    }

    /// Deletes a backup.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown backup.
    pub fn delete_backup(&self, backup_id: String) -> Result<()> {
        self.write(|db| db.delete_backup(&backup_id))
    }

    /// Creates table `table_id` from a backup.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown backup; `ALREADY_EXISTS` if the table exists.
    pub fn restore_table(&self, backup_id: String, table_id: String) -> Result<TableInfo> {
        self.write(|db| db.restore_table(&backup_id, &table_id))
            .map(Into::into)
    }

    /// The time the database sees, in microseconds since the epoch.
    ///
    /// # Errors
    /// `INTERNAL` if the database lock is poisoned.
    pub fn now_micros(&self) -> Result<i64> {
        self.read(|db| Ok(db.now_micros()))
    }

    /// Seeds the random draws of `RowSample` filters, for reproducible sampling.
    ///
    /// # Errors
    /// `INTERNAL` if the database lock is poisoned.
    pub fn set_random_seed(&self, seed: u64) -> Result<()> {
        self.write(|db| {
            db.set_random_seed(seed);
            Ok(())
        })
    }

    /// Creates a table.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a bad id or schema; `ALREADY_EXISTS` if it exists.
    pub fn create_table(&self, table_id: String, config: TableConfig) -> Result<()> {
        let config = config.try_into().map_err(to_ffi)?;
        self.write(|db| db.create_table(&table_id, config))
    }

    /// A table's schema.
    ///
    /// # Errors
    /// `NOT_FOUND` if the table does not exist.
    pub fn get_table(&self, table_id: String) -> Result<TableInfo> {
        self.read(|db| db.get_table(&table_id)).map(Into::into)
    }

    /// Every table, sorted by id.
    ///
    /// # Errors
    /// `INTERNAL` if the database lock is poisoned.
    pub fn list_tables(&self) -> Result<Vec<TableInfo>> {
        let tables = self.read(|db| Ok(db.list_tables()))?;
        Ok(tables.into_iter().map(Into::into).collect())
    }

    /// Deletes a table and its data.
    ///
    /// # Errors
    /// `NOT_FOUND` if it does not exist; `FAILED_PRECONDITION` if it is protected.
    pub fn delete_table(&self, table_id: String) -> Result<()> {
        self.write(|db| db.delete_table(&table_id))
    }

    /// Turns a table's deletion protection on or off.
    ///
    /// # Errors
    /// `NOT_FOUND` if the table does not exist.
    pub fn set_deletion_protection(&self, table_id: String, enabled: bool) -> Result<TableInfo> {
        self.write(|db| db.set_deletion_protection(&table_id, enabled))
            .map(Into::into)
    }

    /// Deletes the rows with a key prefix, or every row.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table; `INVALID_ARGUMENT` for an empty prefix.
    pub fn drop_row_range(&self, table_id: String, range: DropRowRange) -> Result<()> {
        let range = range.into();
        self.write(|db| db.drop_row_range(&table_id, &range))
    }

    /// Creates, updates or drops column families, all or nothing.
    ///
    /// # Errors
    /// As the core's `modify_column_families`: `NOT_FOUND`, `ALREADY_EXISTS`,
    /// `INVALID_ARGUMENT`.
    pub fn modify_column_families(
        &self,
        table_id: String,
        modifications: Vec<FamilyModification>,
    ) -> Result<TableInfo> {
        let modifications = modifications
            .into_iter()
            .map(TryInto::try_into)
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(to_ffi)?;
        self.write(|db| db.modify_column_families(&table_id, &modifications))
            .map(Into::into)
    }

    /// Applies mutations to one row, atomically and in order.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table or family; `INVALID_ARGUMENT` for a bad row key or
    /// mutation. On error nothing is applied.
    pub fn mutate_row(&self, write: RowWrite) -> Result<()> {
        let mutations: Vec<sparsetable::Mutation> =
            write.mutations.into_iter().map(Into::into).collect();
        let done = self.write(|db| db.mutate_row(&write.table_id, &write.row_key, &mutations));
        self.replicate(done)
    }

    /// Applies each entry's mutations to its row; each entry is atomic, the batch is not.
    /// Returns the entries that failed, with their codes (empty when all were applied).
    ///
    /// # Errors
    /// For the whole call: `NOT_FOUND` for an unknown table; `INVALID_ARGUMENT` for no
    /// entries or too many mutations in total.
    pub fn mutate_rows(
        &self,
        table_id: String,
        entries: Vec<RowMutationEntry>,
    ) -> Result<Vec<EntryFailure>> {
        let entries: Vec<sparsetable::RowMutations> = entries.into_iter().map(Into::into).collect();
        let statuses = self.replicate(self.write(|db| db.mutate_rows(&table_id, &entries)))?;
        Ok(statuses
            .into_iter()
            .enumerate()
            .filter_map(|(index, status)| {
                let error = to_ffi(status.err()?);
                Some(EntryFailure {
                    index: index as u64,
                    code: error.code().to_string(),
                    reason: error.reason().to_string(),
                })
            })
            .collect())
    }

    /// Applies `true_mutations` if `predicate` yields any cell of the row (no predicate: if
    /// the row has any cell), else `false_mutations`; returns whether it matched.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table or family; `INVALID_ARGUMENT` for a bad key, filter
    /// or mutation, or both lists empty.
    pub fn check_and_mutate_row(&self, write: ConditionalWrite) -> Result<bool> {
        let predicate: Option<sparsetable::RowFilter> = write
            .predicate
            .map(TryInto::try_into)
            .transpose()
            .map_err(to_ffi)?;
        let true_mutations: Vec<sparsetable::Mutation> =
            write.true_mutations.into_iter().map(Into::into).collect();
        let false_mutations: Vec<sparsetable::Mutation> =
            write.false_mutations.into_iter().map(Into::into).collect();
        self.replicate(self.write(|db| {
            db.check_and_mutate_row(
                &write.table_id,
                &write.row_key,
                predicate.as_ref(),
                &true_mutations,
                &false_mutations,
            )
        }))
    }

    /// Appends to or increments the latest cells of columns, atomically; returns the new
    /// cells.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table or family; `INVALID_ARGUMENT` for a bad key or no
    /// rules; `FAILED_PRECONDITION` for an increment of a value that is not 8 bytes (nothing
    /// applied).
    pub fn read_modify_write_row(&self, modify: RowModify) -> Result<Row> {
        let rules: Vec<sparsetable::ReadModifyWriteRule> =
            modify.rules.into_iter().map(Into::into).collect();
        let done =
            self.write(|db| db.read_modify_write_row(&modify.table_id, &modify.row_key, &rules));
        self.replicate(done).map(Into::into)
    }

    /// Boundary keys that split the table into chunks, with the bytes before each.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table.
    pub fn sample_row_keys(&self, table_id: String) -> Result<Vec<SampleRowKey>> {
        self.read(|db| db.sample_row_keys(&table_id))
            .map(|keys| keys.into_iter().map(Into::into).collect())
    }

    /// Reads one row through `filter` (`None` keeps every cell); `None` if nothing is left.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table; `INVALID_ARGUMENT` for a bad row key or filter.
    pub fn read_row(&self, read: RowRead) -> Result<Option<Row>> {
        let filter: sparsetable::RowFilter = read
            .filter
            .map(TryInto::try_into)
            .transpose()
            .map_err(to_ffi)?
            .unwrap_or_default();
        self.read(|db| db.read_row_filtered(&read.table_id, &read.row_key, &filter))
            .map(|row| row.map(Into::into))
    }

    /// Reads the rows a request selects, in key order (or reversed), into one list.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table; `INVALID_ARGUMENT` for a bad request.
    pub fn read_rows(&self, table_id: String, request: ReadRowsRequest) -> Result<Vec<Row>> {
        let request: sparsetable::ReadRowsRequest = request.try_into().map_err(to_ffi)?;
        self.inner
            .read_rows_stream(&table_id, &request)
            .and_then(|rows| rows.into_rows())
            .map(|rows| rows.into_iter().map(Into::into).collect())
            .map_err(to_ffi)
    }

    /// Opens a stream of the rows a request selects: its view of the table is taken now, and
    /// no lock is held while rows are pulled with [`RowStream::next_batch`].
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table; `INVALID_ARGUMENT` for a bad request.
    pub fn read_rows_stream(
        &self,
        table_id: String,
        request: ReadRowsRequest,
    ) -> Result<Arc<RowStream>> {
        let request: sparsetable::ReadRowsRequest = request.try_into().map_err(to_ffi)?;
        self.inner
            .read_rows_stream(&table_id, &request)
            .map(|s| Arc::new(RowStream::new(s)))
            .map_err(to_ffi)
    }
}

impl Database {
    /// A handle on the routed cluster's copy for one request (see the `routed` field).
    pub(crate) fn from_routed(routed: sparsetable::Routed) -> Arc<Self> {
        Arc::new(Database {
            inner: routed.db.clone(),
            routed: Some(routed),
            dir: None,
        })
    }

    /// The cluster a routed handle was routed to (0 otherwise).
    pub(crate) fn routed_cluster(&self) -> usize {
        self.routed.as_ref().map_or(0, |r| r.cluster)
    }

    /// After a successful write through a routed handle, hands it to replication.
    fn replicate<T>(&self, done: Result<T>) -> Result<T> {
        let value = done?;
        if let Some(routed) = &self.routed {
            routed.after_write().map_err(to_ffi)?;
        }
        Ok(value)
    }

    /// The core's shared handle.
    pub(crate) fn shared(&self) -> &SharedDatabase {
        &self.inner
    }

    /// The directory this database was opened on, if durable.
    pub(crate) fn dir(&self) -> Option<&std::path::Path> {
        self.dir.as_ref().map(|(dir, _)| dir.as_path())
    }

    /// The options a durable database was opened with.
    pub(crate) fn open_options(&self) -> Option<&sparsetable::OpenOptions> {
        self.dir.as_ref().map(|(_, options)| options)
    }

    fn wrap(db: sparsetable::Database) -> Arc<Self> {
        Arc::new(Database {
            inner: SharedDatabase::new(db),
            routed: None,
            dir: None,
        })
    }

    pub(crate) fn read<T>(
        &self,
        f: impl FnOnce(&sparsetable::Database) -> sparsetable::Result<T>,
    ) -> Result<T> {
        self.inner.read(f).map_err(to_ffi)
    }

    pub(crate) fn write<T>(
        &self,
        f: impl FnOnce(&mut sparsetable::Database) -> sparsetable::Result<T>,
    ) -> Result<T> {
        self.inner.write(f).map_err(to_ffi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{
        ColumnFamily, FamilySettings, GcRule, GcRuleNode, Granularity, Mutation, ValueType,
    };

    fn write(table: &str, key: &[u8], mutations: Vec<Mutation>) -> RowWrite {
        RowWrite {
            table_id: table.into(),
            row_key: key.to_vec(),
            mutations,
        }
    }

    fn read(table: &str, key: &[u8]) -> RowRead {
        RowRead {
            table_id: table.into(),
            row_key: key.to_vec(),
            filter: None,
        }
    }

    fn config(families: &[&str]) -> TableConfig {
        TableConfig {
            families: families
                .iter()
                .map(|f| ColumnFamily {
                    name: f.to_string(),
                    settings: FamilySettings {
                        gc_rule: GcRule::leaf(GcRuleNode::Never),
                        value_type: ValueType::Bytes,
                    },
                })
                .collect(),
            granularity: Granularity::Millis,
            deletion_protection: false,
            initial_splits: vec![],
            max_value_bytes: None,
            row_key_schema: None,
        }
    }

    #[test]
    fn server_time_comes_from_the_manual_clock() {
        let clock = ManualClock::new(7_000);
        let db = Database::with_manual_clock(clock.clone());
        db.create_table("t".into(), config(&["cf"])).unwrap();
        let set = |v: &str| Mutation::SetCell {
            family: "cf".into(),
            qualifier: b"q".to_vec(),
            timestamp_micros: -1,
            value: v.as_bytes().to_vec(),
        };
        db.mutate_row(write("t", b"r", vec![set("a")])).unwrap();
        clock.advance_micros(2_000);
        db.mutate_row(write("t", b"r", vec![set("b")])).unwrap();
        let row = db.read_row(read("t", b"r")).unwrap().unwrap();
        let stamps: Vec<i64> = row.cells.iter().map(|c| c.timestamp_micros).collect();
        assert_eq!(stamps, vec![9_000, 7_000]);
    }

    #[test]
    fn unknown_table_is_not_found() {
        let db = Database::new();
        let err = db.read_row(read("nope", b"r")).unwrap_err();
        assert!(matches!(err, SparsetableError::NotFound { .. }), "{err:?}");
        assert_eq!(err.code(), "NOT_FOUND");
    }
}
