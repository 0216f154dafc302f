//! A database on storage: opening it (manifest, run files, replay of the commit logs), the
//! write path's commit (log first, then apply, with the server timestamp resolved once),
//! checkpoints that flush every memtable and start a fresh log, the manifest records, and
//! the hooks `SharedDatabase` uses for group commit and interval syncs.
//!
//! Invariants: a write is applied to the tables only after its log record is appended, and
//! acknowledged only as durable as [`Durability`] says; a failed append leaves the tables as
//! they were and the log writable again (UNAVAILABLE, retryable); recovery replays exactly
//! the writes not yet in runs the manifest names (see `Tablet::flushed_through`).

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{Backup, BackupInfo, Database};
use crate::durability::commit_log::{replay_views, BatchView, LogWriter, Outbound};
use crate::durability::manifest::{read_manifest, write_manifest, BackupState, ManifestState};
use crate::lsm::persist::{log_file_name, parse_file_name, RunStore};
use crate::lsm::sstable::SstableOptions;
use crate::model::mutation::{
    resolve_server_time, server_timestamp, validate_row_mutations, Mutation,
};
use crate::platform::clock::Clock;
use crate::platform::storage::{read_all, Storage, Syncer};
use crate::table::change_log::{decode_changes, encode_changes};

use crate::table::table::{Table, TableSnapshot};
use crate::Code;
use crate::{Error, Result};
use alloc::sync::Arc;

/// The file that keeps the tables' change logs between checkpoints
/// (docs/format/change_log.md).
pub const CHANGES_FILE: &str = "CHANGES";

/// When a write is acknowledged relative to the disk.
///
/// The change-stream records of a garbage collection (commit log record type 7) are fsynced
/// before a manifest names the runs the collection left, under `Sync` and `Interval` alike;
/// under `None` they are not, and a power loss may lose them as it may lose writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Acknowledged only after its commit log record is fsynced.
    Sync,
    /// The log is fsynced every `micros` by a background thread under `SharedDatabase`
    /// (a bare `Database` has no thread: it syncs on the first write at least `micros` after
    /// the previous fsync, and at every checkpoint); a crash loses at most about that window.
    Interval {
        /// The window, in microseconds of the database clock.
        micros: i64,
    },
    /// Never fsynced by the engine (the OS writes back when it likes).
    None,
}

/// How a database on storage behaves.
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// When writes reach the disk.
    pub durability: Durability,
    /// A commit log past this size triggers a checkpoint: every memtable is flushed and a
    /// fresh log started, which also bounds recovery time.
    pub log_rotate_bytes: u64,
    /// How run files are written.
    pub sstable: SstableOptions,
    /// Read and checksum every data block of every run file while opening, so a corrupt
    /// file fails the open (`DataLoss` naming it) instead of the first read that touches
    /// its bad block. Off by default: opening then reads only each run's metadata (footer,
    /// properties, index, bloom filter), and costs time proportional to the metadata, not
    /// the data. [`Database::verify`] makes the same check on an open database.
    pub verify_on_open: bool,
    /// When collectable cells stop being readable ([`crate::GcMode`]; Immediate by
    /// default). Not stored: the same files may be opened in either mode.
    pub gc_mode: crate::GcMode,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            durability: Durability::Sync,
            log_rotate_bytes: 64 << 20,
            sstable: SstableOptions::default(),
            verify_on_open: false,
            gc_mode: crate::GcMode::Immediate,
        }
    }
}

/// What [`Database::verify`] checked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct VerifyReport {
    /// Run files read whole, each once.
    pub runs: u64,
    /// Their sizes in bytes, together.
    pub bytes: u64,
}

/// Where a commit log ends and how to sync it: (log file number, bytes appended, syncer).
#[cfg(feature = "std")]
pub(crate) type DurabilityPoint = (u64, u64, Option<Arc<dyn Syncer>>);

/// The on-storage side of a database: run files, the commit log being written, options.
pub(super) struct Persistence {
    pub(super) store: Arc<RunStore>,
    pub(super) log: LogWriter,
    pub(super) log_number: u64,
    /// Syncs the current log without the writer: group commit fsyncs outside the lock.
    pub(super) syncer: Option<Arc<dyn Syncer>>,
    pub(super) options: OpenOptions,
    pub(super) last_sync_micros: i64,
    /// Under `SharedDatabase`: `Sync` writes leave the fsync to the caller, who shares it
    /// with every writer that appended before it (group commit).
    pub(super) group_commit: bool,
    /// Garbage-collection records were appended to the current log and maybe not synced
    /// yet: the next manifest write syncs first (but for `Durability::None`), so that a
    /// manifest never names runs whose collection's records a crash could still lose.
    pub(super) collected_unsynced: bool,
}

impl Database {
    /// Opens (or creates) a database on `storage`: reads the manifest, opens the run files,
    /// replays the commit logs (a torn last record is discarded; a corrupt record elsewhere is
    /// `DataLoss`), then checkpoints so recovery starts from a fresh log.
    ///
    /// # Errors
    /// `DataLoss` for a corrupt manifest, run or log; the storage's errors.
    pub fn open(
        storage: Arc<dyn Storage>,
        options: OpenOptions,
        clock: impl Clock + 'static,
    ) -> Result<Self> {
        let state = read_manifest(&*storage)?.unwrap_or_default();
        let store = Arc::new(RunStore::new(
            storage.clone(),
            state.next_file_number.max(1),
            options.sstable.clone(),
        ));
        store.set_verify_on_open(options.verify_on_open);
        let mut db = Database::with_clock(clock);
        // Before the tables load and the log replays: replayed ranged deletes bury
        // collectable cells only in Immediate mode, as they did when first applied.
        db.gc_mode = options.gc_mode;
        db.sequence = state.last_sequence;
        let mut opened = BTreeMap::new();
        for ts in &state.tables {
            let mut table = Table::from_state(ts, &store, &mut opened)?;
            table.gc_mode = db.gc_mode;
            db.tables.insert(ts.id.clone(), table);
        }
        for b in &state.backups {
            let runs = b
                .runs
                .iter()
                .map(|m| crate::table::table::open_shared(&store, m, &mut opened))
                .collect::<Result<Vec<_>>>()?;
            let snapshot = TableSnapshot::from_runs(b.config.clone(), runs);
            let info = BackupInfo {
                name: b.name.clone(),
                source_table: b.table.clone(),
                created_micros: b.created_micros,
                size_bytes: snapshot.size_bytes(),
            };
            db.backups.insert(b.name.clone(), Backup { info, snapshot });
        }
        let now = db.now()?;
        // The change logs as of the last checkpoint; the log's later writes follow below.
        let changes_through = match read_all(&*storage, CHANGES_FILE) {
            Ok(bytes) => {
                let (through, logs) = decode_changes(&bytes).map_err(|e| {
                    Error::new(Code::DataLoss, format!("{CHANGES_FILE}: {}", e.message()))
                })?;
                for (table_id, log) in logs {
                    // A table dropped after the file was written has no log to restore.
                    if let Some(t) = db.tables.get_mut(&table_id) {
                        t.change_log = Some(log);
                    }
                }
                through
            }
            Err(e) if e.code() == Code::NotFound => 0,
            Err(e) => return Err(e),
        };
        // Whether any table keeps a change log: if none does (the usual case), replay
        // never walks a batch for it.
        let streams = db.tables.values().any(|t| t.change_log.is_some());
        // The replication marks as of the last checkpoint; type 4 records raise them below.
        db.read_replica_marks(&*storage)?;
        for &n in &state.log_files {
            let name = log_file_name(n);
            let file = storage.open(&name).map_err(|e| {
                Error::new(
                    Code::DataLoss,
                    format!("commit log {name} named by the manifest: {}", e.message()),
                )
            })?;
            // Each batch is applied as it is read, straight from the reader's buffer: a log
            // of hundreds of megabytes is never held decoded, and rows the runs already
            // hold are never copied. A corrupt record fails the open after the batches
            // before it were applied to memtables that are then dropped: nothing reaches
            // storage before the checkpoint below.
            let mut apply_error = None;
            let read = replay_views(file, |batch| {
                if batch.collected {
                    // Garbage collection's changes, for the change streams; the collection
                    // itself is in the runs, or (type 7 only: a cell each, with its own
                    // sequence) made again here where the runs may still hold the cells.
                    // An older type 3 record is never applied: a later collection redoes
                    // it, and records its cells a second time.
                    if streams && batch.sequence > changes_through {
                        db.log_replayed_collection(batch);
                    }
                    if batch.one_sequence {
                        db.sequence = db.sequence.max(batch.sequence);
                    } else {
                        db.replay_collected_cells(batch, now);
                    }
                    return Ok(());
                }
                if let Some(kind) = batch.outbound {
                    // Kept until the replication queue confirms it has the write.
                    db.recover_outbound(batch);
                    if kind == Outbound::Carried {
                        // Carried over a checkpoint: its rows are in the runs already.
                        db.sequence = db.sequence.max(batch.sequence);
                        return Ok(());
                    }
                }
                if let Some((source, arrival)) = batch.origin {
                    // Another cluster's write: its delivery is marked whether or not the
                    // runs already hold its rows, and it is not this copy's change.
                    db.raise_replica_mark(source, arrival);
                } else if streams && batch.sequence > changes_through {
                    if let Err(e) = db.log_replayed_changes(batch, now) {
                        apply_error = Some(e);
                        return Err(Error::new(Code::Aborted, "replay stopped"));
                    }
                }
                db.replay_batch(batch, now);
                Ok(())
            });
            if let Some(e) = apply_error {
                return Err(e);
            }
            read.map_err(|e| Error::new(e.code(), format!("{name}: {}", e.message())))?;
        }
        // A log to write to; the checkpoint below makes it the only one.
        let log_number = store.allocate();
        let file = storage.create(&log_file_name(log_number))?;
        let syncer = file.syncer();
        db.persist = Some(Persistence {
            store,
            log: LogWriter::new(file),
            log_number,
            syncer,
            options,
            last_sync_micros: now,
            group_commit: false,
            collected_unsynced: false,
        });
        db.checkpoint()?;
        Ok(db)
    }

    /// Every run file the database references (its tables' and its backups'), each once, in
    /// file order: what [`Database::verify`] reads. Taken under the caller's borrow; the
    /// runs are shared, so the reading can happen after it ends (see
    /// `SharedDatabase::verify`).
    pub(crate) fn runs_to_verify(&self) -> Vec<Arc<dyn crate::lsm::source::Source>> {
        let mut runs: BTreeMap<u64, Arc<dyn crate::lsm::source::Source>> = BTreeMap::new();
        let tables = self.tables.values().flat_map(|t| t.runs());
        let backups = self.backups.values().flat_map(|b| b.snapshot.runs());
        for r in tables.chain(backups) {
            if let Some(meta) = r.run_meta() {
                runs.entry(meta.file_number).or_insert_with(|| r.clone());
            }
        }
        runs.into_values().collect()
    }

    /// Reads every data block of every run file the database references (tables and
    /// backups) and checks it against its checksum, and each file's entry count and bytes
    /// against its recorded properties: the full check that opening no longer makes (see
    /// [`OpenOptions::verify_on_open`]). Reads the whole data; changes nothing.
    ///
    /// # Errors
    /// `DataLoss` naming the first corrupt file (`NNNNNN.sst: ...`); the storage's errors.
    pub fn verify(&self) -> Result<VerifyReport> {
        verify_runs(&self.runs_to_verify())
    }

    /// Opens (or creates) a database in directory `path`, on the system clock.
    ///
    /// # Errors
    /// As [`Database::open`].
    #[cfg(all(feature = "std", unix))]
    pub fn open_dir(path: impl AsRef<std::path::Path>, options: OpenOptions) -> Result<Self> {
        let storage = Arc::new(crate::platform::storage::FileStorage::new(path)?);
        Self::open(storage, options, crate::platform::clock::SystemClock)
    }

    /// Logs a replayed batch's rows in their tables' change logs (those with one), with the
    /// commit time its record carries (the recovery's clock for a record without one), as
    /// the write was logged when it committed. Before the batch is applied: a row delete is
    /// recorded against the row as it was.
    ///
    /// # Errors
    /// A run's error reading a deleted row (`DataLoss` for a corrupt block).
    fn log_replayed_changes(&mut self, batch: &BatchView<'_>, now: i64) -> Result<()> {
        let commit = batch.commit_micros.unwrap_or(now);
        for entry in batch.entries() {
            let Some(table) = self
                .tables
                .get_mut(entry.table)
                .filter(|t| t.change_log.is_some())
            else {
                continue;
            };
            let mut mutations = entry.to_mutations();
            if mutations.contains(&Mutation::DeleteFromRow) {
                mutations = row_delete_as_family_deletes(table, entry.row_key, &mutations, commit)?;
            }
            if let (Some(log), false) = (&mut table.change_log, mutations.is_empty()) {
                log.push(
                    &[super::RowMutations {
                        row_key: entry.row_key.to_vec(),
                        mutations,
                    }],
                    commit,
                );
            }
        }
        Ok(())
    }

    /// Writes every table's change log to [`CHANGES_FILE`] (new, synced, then renamed over
    /// the old one), recording that it holds every write up to the current sequence; with no
    /// change stream enabled the file is removed. A no-op in memory. The checkpoint and
    /// every change of a stream's setting call it, so a stream enabled or disabled stays so
    /// after a restart.
    ///
    /// # Errors
    /// The storage's errors (the previous file stays).
    pub(super) fn write_changes(&mut self) -> Result<()> {
        let Some(p) = &self.persist else {
            return Ok(());
        };
        let logs: Vec<(&str, &crate::table::change_log::ChangeLog)> = self
            .tables
            .iter()
            .filter_map(|(id, t)| Some((id.as_str(), t.change_log.as_ref()?)))
            .collect();
        let storage = p.store.storage.clone();
        if logs.is_empty() {
            return match storage.remove(CHANGES_FILE) {
                Err(e) if e.code() != Code::NotFound => Err(e),
                _ => Ok(()),
            };
        }
        let bytes = encode_changes(self.sequence, &logs);
        let tmp = "CHANGES.tmp";
        let mut file = storage.create(tmp)?;
        file.append(&bytes)?;
        file.sync()?;
        drop(file);
        storage.rename(tmp, CHANGES_FILE)?;
        // Every garbage-collection record is in the file now.
        for t in self.tables.values_mut() {
            if let Some(log) = &mut t.change_log {
                log.clear_unlogged();
            }
        }
        if let Some(p) = &mut self.persist {
            p.collected_unsynced = false;
        }
        Ok(())
    }

    /// Re-applies one logged batch, skipping rows whose tablet already holds it in runs.
    /// A skipped row is never copied out of the log's buffer: after a crash most of a long
    /// log is usually in runs already.
    pub(super) fn replay_batch(&mut self, batch: &BatchView<'_>, now: i64) {
        let mut first = batch.sequence;
        for entry in batch.entries() {
            let n = entry.len() as u64;
            if let Some(table) = self.tables.get_mut(entry.table) {
                let last = first + n.saturating_sub(1);
                if last > table.flushed_sequence(entry.row_key) {
                    let mutations = entry.to_mutations();
                    if validate_row_mutations(&table.config, entry.row_key, &mutations).is_ok() {
                        let mut seq = first - 1;
                        // Logs hold resolved timestamps (`commit`); resolving again keeps
                        // `Table::apply`'s requirement even for a log this engine did not
                        // write.
                        let ts = server_timestamp(table.config.granularity, now);
                        let mutations = resolve_server_time(&mutations, ts);
                        table.apply(entry.row_key, &mutations, now, &mut seq);
                    }
                }
            }
            first += n;
        }
        self.sequence = self.sequence.max(first - 1);
    }

    /// The one write path, for in-memory and durable databases alike: logs and applies
    /// validated row mutations. Server timestamps are resolved here and only here
    /// (`mutation::resolve_server_time`), so the log holds exactly what is applied; the record
    /// is appended (and synced, per the durability mode) before anything changes, so an
    /// error here changes nothing. In memory there is no log, and mutations without server
    /// time are applied as borrowed, never copied.
    pub(super) fn commit(
        &mut self,
        table_id: &str,
        rows: &[(&[u8], &[Mutation])],
        now: i64,
    ) -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let table = self.table(table_id)?;
        let server_ts = server_timestamp(table.config.granularity, now);
        // Applying may read rows (aggregates, GC burials): a row in a corrupt block fails
        // the write here, before it is logged, not half-way through applying it.
        for &(k, ms) in rows {
            table.check_row_readable(k, ms)?;
        }
        // A log broken by an earlier I/O error is never appended to again: start a new one
        // first (by a checkpoint, so the broken one stops being named). Until the disk lets
        // that succeed every write fails here, retryably, and none is wedged after it does.
        if self.persist.as_ref().is_some_and(|p| p.log.is_failed()) {
            self.checkpoint().map_err(|e| {
                Error::new(
                    Code::Unavailable,
                    format!(
                        "the commit log failed earlier and a new one cannot be started yet: {}",
                        e.message()
                    ),
                )
            })?;
        }
        // On storage, whether the table has a change stream (then the record carries the
        // commit time) and garbage-collection records not logged yet: those go to the log
        // before this write's, so recovery logs its changes in the order they were made.
        let stream = match &self.persist {
            Some(_) => self
                .tables
                .get(table_id)
                .and_then(|t| t.change_log.as_ref()),
            None => None,
        };
        let timed = stream.is_some();
        if stream.is_some_and(|l| l.has_unlogged()) {
            if let Err(e) = self.log_collected(Some(table_id)) {
                if self.persist.as_ref().is_some_and(|p| p.log.is_failed()) {
                    // As for a write's record below: stop naming the broken log at once if
                    // the disk allows (the checkpoint keeps the records in the change log
                    // file); else the next write tries again.
                    let _ = self.checkpoint();
                }
                return Err(e);
            }
        }
        if let Some(p) = &mut self.persist {
            // Encoded straight from the rows: a value is copied once, into the record (a row
            // asking for server time is resolved into a copy first).
            let resolved: Vec<(&[u8], alloc::borrow::Cow<'_, [Mutation]>)> = rows
                .iter()
                .map(|&(k, ms)| (k, resolve_server_time(ms, server_ts)))
                .collect();
            let logged_rows: Vec<(&[u8], &[Mutation])> =
                resolved.iter().map(|(k, ms)| (*k, &ms[..])).collect();
            let sync = match p.options.durability {
                Durability::Sync => !p.group_commit,
                Durability::Interval { micros } => now.saturating_sub(p.last_sync_micros) >= micros,
                Durability::None => false,
            };
            // A write of a database whose writes replicate stays outbound until the queue
            // has it (record type 5; `outbound`).
            let outbound = (self.replaying.is_none() && self.committed.is_some())
                .then_some(Outbound::Captured);
            let logged = p
                .log
                .append_rows_as(
                    self.sequence + 1,
                    table_id,
                    &logged_rows,
                    // The commit time lets recovery log the change as it was committed (a
                    // replicated or outbound write's record always has one).
                    (timed || self.replaying.is_some() || outbound.is_some()).then_some(now),
                    // A write from another cluster says so, and which delivery it is: the
                    // mark is durable exactly when the write is.
                    self.replaying.as_ref(),
                    outbound,
                )
                .and_then(|_| if sync { p.log.sync() } else { Ok(()) });
            if let Err(e) = logged {
                if p.log.is_failed() {
                    // The log may now end in this record, torn or whole. Stop naming it
                    // at once if the disk allows, so a crash cannot replay the record this
                    // call reports as failed; else the next write tries again.
                    let _ = self.checkpoint();
                }
                return Err(e);
            }
            if sync {
                p.last_sync_micros = now;
            }
        }
        if let Some(origin) = self.replaying.take() {
            self.raise_replica_mark(&origin.source, origin.arrival);
            self.replaying = Some(origin);
        } else if let Some(table) = self
            .tables
            .get_mut(table_id)
            .filter(|t| t.change_log.is_some())
        {
            let mut logged = Vec::with_capacity(rows.len());
            for &(k, ms) in rows {
                let mutations = resolve_server_time(ms, server_ts);
                let mutations = if mutations.contains(&Mutation::DeleteFromRow) {
                    row_delete_as_family_deletes(table, k, &mutations, now)?
                } else {
                    mutations.into_owned()
                };
                // A row delete of a row with no data changes nothing worth a record.
                if !mutations.is_empty() {
                    logged.push(super::RowMutations {
                        row_key: k.to_vec(),
                        mutations,
                    });
                }
            }
            if let Some(log) = &mut table.change_log {
                log.push(&logged, now);
            }
        }
        if let Some(kept) = &mut self.committed {
            kept.push(super::CommittedWrite {
                table_id: table_id.into(),
                rows: rows
                    .iter()
                    .map(|&(k, ms)| super::RowMutations {
                        row_key: k.to_vec(),
                        mutations: resolve_server_time(ms, server_ts).into_owned(),
                    })
                    .collect(),
                commit_micros: now,
                sequence: self.sequence + 1,
            });
        }
        let (table, sequence) = self.table_and_sequence(table_id)?;
        for &(k, ms) in rows {
            // Resolved again rather than kept from the log record: so a write in memory
            // (no record) allocates nothing here (a vector of resolved rows cost a
            // MutateRow about 8% more instructions); a row asking for server time is
            // copied once for the record and once here, as before.
            table.apply(k, &resolve_server_time(ms, server_ts), now, sequence);
        }
        self.views_after_write(table_id, rows.iter().map(|&(k, _)| k));
        self.after_write();
        Ok(())
    }

    /// Records structural changes in the manifest and rotates a full log. Failures are left
    /// for the next write to retry: the write itself is applied and logged.
    pub(super) fn after_write(&mut self) {
        let Some(p) = &self.persist else {
            return;
        };
        // With background maintenance the rotation waits for the background pass, unless
        // the log has grown to twice its bound (back-pressure: recovery time stays bounded).
        let rotate_at = if self.background_maintenance {
            p.options.log_rotate_bytes.saturating_mul(2)
        } else {
            p.options.log_rotate_bytes
        };
        if p.log.len() > rotate_at {
            let _ = self.checkpoint();
        } else if self.tables.values().any(|t| t.dirty) {
            let _ = self.write_manifest();
        }
    }

    /// Flushes every memtable, starts a fresh commit log and records it all in the manifest;
    /// then removes the old logs and unreferenced run files. A no-op in memory.
    ///
    /// # Errors
    /// The storage's errors (the previous manifest and logs stay valid).
    pub fn checkpoint(&mut self) -> Result<()> {
        if self.persist.is_none() {
            return Ok(());
        }
        for t in self.tables.values_mut() {
            t.flush_all()?;
        }
        let Some(p) = &mut self.persist else {
            return Ok(());
        };
        let n = p.store.allocate();
        let file = p.store.storage.create(&log_file_name(n))?;
        let syncer = file.syncer();
        let mut log = LogWriter::new(file);
        // Writes on their way to the replication queue stay durable in the new log.
        self.carry_outbound(&mut log)?;
        log.sync()?;
        // Before the manifest stops naming the old log: once it does, the changes that log
        // held (garbage collection's records among them) are only in this file.
        self.write_changes()?;
        // Likewise the replication marks its type 4 records raised.
        self.write_replica_marks()?;
        // The new log becomes current only once a manifest names it: if that write fails,
        // writes go on appending to the log the durable manifest still names.
        self.record_manifest(n)?;
        if let Some(p) = &mut self.persist {
            p.syncer = syncer;
            p.log = log;
            p.log_number = n;
            p.collected_unsynced = false;
        }
        Ok(())
    }

    /// Where the current log stands after its fsync failed outside the lock (group commit):
    /// the log is broken, and a checkpoint starts a new one, which also makes every applied
    /// write (the unsynced ones included) durable in runs. Returns the current log's number
    /// once the writes of log `log_number` are durable.
    ///
    /// # Errors
    /// `Unavailable` (naming `error`, the fsync's) if no checkpoint can be made yet: the
    /// writes stay applied and the next write retries the checkpoint.
    #[cfg(feature = "std")]
    pub(crate) fn log_sync_failed(&mut self, log_number: u64, error: &Error) -> Result<u64> {
        let Some(p) = &mut self.persist else {
            return Err(error.clone());
        };
        if p.log_number != log_number {
            // A checkpoint since then flushed everything that log held.
            return Ok(p.log_number);
        }
        p.log.mark_failed();
        match self.checkpoint() {
            Ok(()) => Ok(self.persist.as_ref().map_or(0, |p| p.log_number)),
            Err(e) => Err(Error::new(
                Code::Unavailable,
                format!(
                    "the commit log could not be synced ({}) and a new one cannot be started \
                     yet ({}): the write is applied but may not survive a crash",
                    error.message(),
                    e.message()
                ),
            )),
        }
    }

    /// Writes the manifest describing every table, run, backup and the current log, then
    /// deletes files it no longer names. A no-op in memory.
    ///
    /// The manifest may name runs a compaction left after collecting garbage: the change
    /// records of that collection are appended to the current log first, and synced (but
    /// for `Durability::None`), so the collection never becomes durable without them. If
    /// the log fails doing so, a checkpoint writes them to the change log file instead (and
    /// the manifest, naming a new log).
    pub(super) fn write_manifest(&mut self) -> Result<()> {
        match self.log_collected_for_manifest() {
            Ok(()) => {}
            Err(_) if self.persist.as_ref().is_some_and(|p| p.log.is_failed()) => {
                return self.checkpoint();
            }
            Err(e) => return Err(e),
        }
        match &self.persist {
            Some(p) => self.record_manifest(p.log_number),
            None => Ok(()),
        }
    }

    /// Appends the garbage-collection records not yet durable and syncs the log if any are
    /// unsynced (not under `Durability::None`).
    fn log_collected_for_manifest(&mut self) -> Result<()> {
        self.log_collected(None)?;
        let now = self.now_micros();
        if let Some(p) = &mut self.persist {
            if p.collected_unsynced && p.options.durability != Durability::None {
                p.log.sync()?;
                p.collected_unsynced = false;
                p.last_sync_micros = now;
            }
        }
        Ok(())
    }

    /// As [`Self::write_manifest`], naming `log_number` as the one commit log.
    pub(super) fn record_manifest(&mut self, log_number: u64) -> Result<()> {
        let Some(p) = &self.persist else {
            return Ok(());
        };
        let state = ManifestState {
            next_file_number: p.store.next_file_number(),
            last_sequence: self.sequence,
            log_files: alloc::vec![log_number],
            tables: self.tables.values().map(Table::to_state).collect(),
            backups: self
                .backups
                .values()
                .map(|b| BackupState {
                    name: b.info.name.clone(),
                    table: b.info.source_table.clone(),
                    created_micros: b.info.created_micros,
                    config: b.snapshot.config.clone(),
                    runs: b.snapshot.run_metas(),
                })
                .collect(),
        };
        let storage = p.store.storage.clone();
        write_manifest(&*storage, &state)?;
        for t in self.tables.values_mut() {
            t.dirty = false;
        }
        // Garbage: run files no table or backup names, logs other than the current one.
        let mut live: alloc::collections::BTreeSet<u64> =
            self.tables.values().flat_map(Table::run_files).collect();
        for b in &state.backups {
            live.extend(b.runs.iter().map(|r| r.file_number));
        }
        for name in storage.list()? {
            match parse_file_name(&name) {
                Some((n, "sst"))
                    if !live.contains(&n)
                        && n < state.next_file_number
                        && n < p.store.pinned_from() =>
                {
                    let _ = storage.remove(&name);
                }
                Some((n, "log")) if !state.log_files.contains(&n) => {
                    let _ = storage.remove(&name);
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Leaves `Sync` writes' fsync to the caller (see `SharedDatabase`).
    #[cfg(feature = "std")]
    pub(crate) fn set_group_commit(&mut self, on: bool) {
        if let Some(p) = &mut self.persist {
            p.group_commit = on;
        }
    }

    /// The `Interval` durability window in microseconds, the current log's number and its
    /// syncer, if the database is on storage in that mode (a background thread syncs on
    /// this period).
    #[cfg(feature = "std")]
    pub(crate) fn interval_syncer(&self) -> Option<(i64, u64, Arc<dyn Syncer>)> {
        let p = self.persist.as_ref()?;
        match p.options.durability {
            Durability::Interval { micros } => p.syncer.clone().map(|s| (micros, p.log_number, s)),
            _ => None,
        }
    }

    /// The durability mode of a database on storage; `None` for one in memory.
    pub fn durability(&self) -> Option<Durability> {
        self.persist.as_ref().map(|p| p.options.durability)
    }

    /// Where the commit log ends now and how to make it durable there, if writes wait for
    /// an fsync: `(log number, bytes appended, syncer)`.
    #[cfg(feature = "std")]
    pub(crate) fn durability_point(&self) -> Option<DurabilityPoint> {
        let p = self.persist.as_ref()?;
        (p.options.durability == Durability::Sync)
            .then(|| (p.log_number, p.log.len(), p.syncer.clone()))
    }
}

/// Verifies each run in turn (see [`Database::verify`]).
///
/// # Errors
/// The first run's error.
pub(crate) fn verify_runs(runs: &[Arc<dyn crate::lsm::source::Source>]) -> Result<VerifyReport> {
    let mut report = VerifyReport::default();
    for r in runs {
        r.verify()?;
        report.runs += 1;
        report.bytes += r.run_meta().map_or(0, |m| m.size_bytes);
    }
    Ok(report)
}

/// A row's mutations as its change stream records them: each DeleteFromRow becomes one
/// DeleteFromFamily per family the row has data in at that point (its visible cells before
/// the write, and the families this write set cells in before the delete), in the table's
/// family order, as Bigtable's "Change streams overview" describes a row delete.
///
/// # Errors
/// A run's error reading the row (`DataLoss` for a corrupt block).
pub(super) fn row_delete_as_family_deletes(
    table: &Table,
    row_key: &[u8],
    mutations: &[Mutation],
    now: i64,
) -> Result<Vec<Mutation>> {
    let mut with_data: alloc::collections::BTreeSet<String> = table
        .read_row(row_key, now, Some(1))?
        .map(|row| row.cells.into_iter().map(|c| c.family).collect())
        .unwrap_or_default();
    let mut out = Vec::with_capacity(mutations.len());
    for m in mutations {
        match m {
            Mutation::DeleteFromRow => {
                for family in table.config.families.keys() {
                    if with_data.remove(family.as_str()) {
                        out.push(Mutation::DeleteFromFamily {
                            family: family.clone(),
                        });
                    }
                }
            }
            Mutation::DeleteFromFamily { family } => {
                with_data.remove(family.as_str());
                out.push(m.clone());
            }
            Mutation::SetCell { family, .. }
            | Mutation::AddToCell { family, .. }
            | Mutation::MergeToCell { family, .. } => {
                with_data.insert(family.clone());
                out.push(m.clone());
            }
            Mutation::DeleteFromColumn { .. } => out.push(m.clone()),
        }
    }
    Ok(out)
}
