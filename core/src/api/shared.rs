//! A thread-safe handle on a database, with group commit.
//!
//! Locking design: one `RwLock` around the [`Database`]. Readers share it, so a read sees
//! each row as a whole (a row's mutations are applied under the write lock, all or none).
//! A writer holds the write lock only to validate, append its commit log record and apply
//! it to the memtable: microseconds, never an fsync. In `Sync` durability the writer then
//! waits, outside the database lock, until the log is fsynced past its record (group
//! commit, leader and followers): each waiter registers how far it appended; if no fsync is
//! in flight it leads one, covering every record registered so far, without holding any
//! lock while the disk works; otherwise it sleeps until an fsync finishes, and leads the next
//! one if that did not cover it. So concurrent writers share fsyncs, and a leader's group is
//! everyone who arrived during the previous fsync. A checkpoint that starts a new log has
//! flushed and synced everything before it, so a record in an older log is durable.
//!
//! Writes are visible to readers as soon as they are applied, shortly before their fsync
//! completes; a crash in between can lose a write some reader saw, never one that was
//! acknowledged.
//!
//! Maintenance runs on a background thread the handle owns (joined when the last handle
//! is dropped): a write only applies to the memtable and, if its tablet is due a flush or
//! load split (or the log a rotation), wakes the thread. A pass (`maintenance_pass`) has
//! the heavy work done with no lock held. Flushes: the thread clones the due tablets'
//! memtables under the read lock (freezing their layers: writes meanwhile go to fresh
//! layers), writes their runs with no lock, then takes the write lock to install each run
//! only if its tablet still holds the layers it flushed (else the run is dropped and the
//! flush redone), and runs the rest of the pass inline ([`Database::run_maintenance`]:
//! flushes not installed, load splits, splits between runs). The compactions and merges
//! those flushes lead to are only noted; still under the write lock the thread takes them
//! as jobs (the tablet's runs, immutable and shared), builds their output runs with no
//! lock, and takes the write lock again to install each only if the tablet still ends with
//! exactly the runs the job saw (else the output's files are deleted and the tablet is due
//! again), then writes the manifest. So a writer waits for the lock only while runs are
//! installed and runs are partitioned. A writer that outruns the thread flushes inline once
//! its memtable holds four times `memtable_bytes`, and compacts inline once overlapping
//! runs pass four times `max_runs` (back-pressure). A pass's storage error is kept and
//! returned (as `Unavailable`) by the next write, before it applies anything.

use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::thread::JoinHandle;
use std::vec::Vec;

use crate::api::database::Database;
use crate::model::filter::CompiledFilter;
use crate::model::request::ReadRowsRequest;
use crate::model::row::Row;
use crate::platform::storage::Syncer;
use crate::table::read::RowStream;
use crate::{Code, Error, Result};

#[derive(Default)]
struct SyncState {
    /// The log (by file number) whose durable length is `synced`; every older log is
    /// durable whole.
    log_number: u64,
    synced: u64,
    /// The furthest (log, length) a waiting writer has appended to: what the next fsync
    /// will cover.
    appended: (u64, u64),
    /// A leader's fsync is in flight.
    syncing: bool,
}

impl SyncState {
    fn covers(&self, log: u64, len: u64) -> bool {
        self.log_number > log || (self.log_number == log && self.synced >= len)
    }
}

/// A database shared between threads; cloning shares the same database.
#[derive(Clone)]
pub struct SharedDatabase {
    inner: Arc<Inner>,
}

struct Inner {
    /// Shared with the maintenance thread, which holds no reference to `Inner`: dropping
    /// the last handle stops and joins it, so the database is closed when the drop
    /// returns (a reopen never races a pass of the old one).
    db: Arc<RwLock<Database>>,
    sync: Mutex<SyncState>,
    /// Signalled when an fsync finishes.
    synced: Condvar,
    maint: Arc<Maintenance>,
    worker: Mutex<Option<JoinHandle<()>>>,
}

/// What the maintenance thread and the handles share.
#[derive(Default)]
struct Maintenance {
    state: Mutex<MaintState>,
    /// Wakes the thread: work was requested, the pause lifted, or the handle is gone.
    wake: Condvar,
    /// Signalled when a pass ends (for [`SharedDatabase::wait_maintenance`]).
    done: Condvar,
}

#[derive(Default)]
struct MaintState {
    requested: bool,
    running: bool,
    paused: bool,
    stop: bool,
    /// A pass's error, for the next write to return.
    error: Option<Error>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Ok(mut st) = self.maint.state.lock() {
            st.stop = true;
        }
        self.maint.wake.notify_all();
        // The pass in progress, if any, finishes first.
        if let Some(handle) = self.worker.lock().ok().and_then(|mut w| w.take()) {
            let _ = handle.join();
        }
    }
}

/// The maintenance thread: waits for a request, runs a pass under the write lock, repeats
/// until every handle is gone.
fn maintenance_loop(maint: &Maintenance, db: &RwLock<Database>) {
    loop {
        {
            let Ok(mut st) = maint.state.lock() else {
                return;
            };
            while !st.stop && (!st.requested || st.paused) {
                st = match maint.wake.wait(st) {
                    Ok(st) => st,
                    Err(_) => return,
                };
            }
            if st.stop {
                return;
            }
            st.requested = false;
            st.running = true;
        }
        let result = maintenance_pass(db);
        // A partial merge may leave more runs overlapping, and a stale compaction is
        // decided afresh: go round again (a failed pass waits for the next request).
        let again = result.is_ok() && db.read().is_ok_and(|d| d.compactions_due());
        let Ok(mut st) = maint.state.lock() else {
            return;
        };
        st.running = false;
        st.requested |= again;
        if let Err(e) = result {
            st.error = Some(Error::new(
                Code::Unavailable,
                alloc::format!("background maintenance failed: {}", e.message()),
            ));
        }
        drop(st);
        maint.done.notify_all();
    }
}

/// One background pass. The heavy parts, writing a flush's run and a compaction's or
/// merge's output runs, happen with no lock held: flushes from clones of the memtables
/// taken under the read lock, compactions from the (immutable, shared) runs they rewrite,
/// taken under the write lock. Installing each, and everything cheap that follows (splits
/// that only partition runs, the manifest), takes the write lock.
fn maintenance_pass(db: &RwLock<Database>) -> Result<()> {
    let mut flushes = db.read().map_err(|_| poisoned())?.flushes();
    flushes.build();
    let (flushed, mut compactions) = {
        let mut d = db.write().map_err(|_| poisoned())?;
        let flushed = d.run_maintenance_with(flushes);
        (flushed, d.take_compactions())
    };
    if compactions.is_empty() {
        return flushed;
    }
    compactions.build();
    let installed = db
        .write()
        .map_err(|_| poisoned())?
        .install_compactions(compactions);
    flushed.and(installed)
}

impl core::fmt::Debug for SharedDatabase {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SharedDatabase").finish_non_exhaustive()
    }
}

/// The error every front-end reports for a poisoned lock (the database's, or one of its own
/// guarding engine state): `Internal`, never `InvalidArgument`. A thread panicked while it
/// held the lock, which is an engine or binding bug, not something the caller did; the call
/// fails instead of panicking again or reading state the panic may have left half-changed.
pub fn poisoned() -> Error {
    Error::new(
        Code::Internal,
        "a thread panicked while holding the database lock",
    )
}

impl SharedDatabase {
    /// Shares `db` between threads, switching its `Sync` writes to group commit. In
    /// `Interval` durability a background thread fsyncs the log every interval until the
    /// last handle is dropped.
    ///
    /// Flushes, compactions, splits and log rotation move to a background thread (see the
    /// module documentation), joined when the last handle is dropped.
    pub fn new(mut db: Database) -> Self {
        db.set_group_commit(true);
        db.set_background_maintenance(true);
        let maint = Arc::new(Maintenance::default());
        let db = Arc::new(RwLock::new(db));
        let shared = SharedDatabase {
            inner: Arc::new(Inner {
                db: db.clone(),
                sync: Mutex::new(SyncState::default()),
                synced: Condvar::new(),
                maint: maint.clone(),
                worker: Mutex::new(None),
            }),
        };
        let worker = std::thread::Builder::new()
            .name("sparsetable-maintenance".into())
            .spawn(move || maintenance_loop(&maint, &db));
        // Without a thread (spawning failed) writes keep doing their maintenance inline.
        match worker {
            Ok(handle) => {
                if let Ok(mut w) = shared.inner.worker.lock() {
                    *w = Some(handle);
                }
            }
            Err(_) => {
                if let Ok(mut d) = shared.inner.db.write() {
                    d.set_background_maintenance(false);
                }
            }
        }
        let weak = Arc::downgrade(&shared.inner);
        let period = shared
            .read(|d| Ok(d.interval_syncer().map(|(m, _, _)| m)))
            .ok()
            .flatten();
        if let Some(micros) = period {
            let period = std::time::Duration::from_micros(micros.max(1000) as u64);
            std::thread::spawn(move || loop {
                std::thread::sleep(period);
                // Stops once every handle is gone; the syncer is re-read each time because a
                // checkpoint starts a new log.
                let Some(inner) = weak.upgrade() else { break };
                let syncer = inner.db.read().ok().and_then(|d| d.interval_syncer());
                drop(inner);
                if let Some((_, log, s)) = syncer {
                    if let Err(e) = s.sync() {
                        // As in group commit: what the log holds is unknown now, so it is
                        // never appended to again; a checkpoint starts a new one (here, or
                        // before the next write if the disk still fails).
                        if let Some(inner) = weak.upgrade() {
                            if let Ok(mut d) = inner.db.write() {
                                let _ = d.log_sync_failed(log, &e);
                            }
                        }
                    }
                }
            });
        }
        shared
    }

    /// Runs `f` with shared read access.
    ///
    /// # Errors
    /// `Internal` if the lock is poisoned; otherwise `f`'s result.
    pub fn read<R>(&self, f: impl FnOnce(&Database) -> Result<R>) -> Result<R> {
        let db = self.inner.db.read().map_err(|_| poisoned())?;
        f(&db)
    }

    /// Runs `f` with exclusive access, then waits until what it wrote is durable (in `Sync`
    /// durability), sharing the fsync with concurrent writers.
    ///
    /// # Errors
    /// `Internal` if the lock is poisoned; `f`'s error (nothing written); `Unavailable` if
    /// the log's fsync failed and no checkpoint could make the write durable instead (the
    /// write is applied but not acknowledged as durable; see docs/errors.md).
    pub fn write<R>(&self, f: impl FnOnce(&mut Database) -> Result<R>) -> Result<R> {
        self.take_maintenance_error()?;
        let (result, point, wanted) = {
            let mut db = self.inner.db.write().map_err(|_| poisoned())?;
            let result = f(&mut db)?;
            (result, db.durability_point(), db.maintenance_wanted())
        };
        if wanted {
            self.request_maintenance();
        }
        if let Some((log, len, Some(syncer))) = point {
            self.wait_durable(log, len, &syncer)?;
        }
        Ok(result)
    }

    /// Returns (and clears) the error of a failed background pass, so one write reports
    /// it before applying anything; the pass is retried on the next request.
    fn take_maintenance_error(&self) -> Result<()> {
        let mut st = self.inner.maint.state.lock().map_err(|_| poisoned())?;
        match st.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn request_maintenance(&self) {
        if let Ok(mut st) = self.inner.maint.state.lock() {
            st.requested = true;
        }
        self.inner.maint.wake.notify_all();
    }

    /// Holds background maintenance (`true`) or lets it go on (`false`). While held,
    /// writes still only note the work they leave, up to the back-pressure bound (then a
    /// writer flushes inline). For bulk loads that want compaction afterwards, and for
    /// tests that must know no background pass runs.
    ///
    /// # Errors
    /// `Internal` if a lock is poisoned.
    pub fn pause_maintenance(&self, paused: bool) -> Result<()> {
        let mut st = self.inner.maint.state.lock().map_err(|_| poisoned())?;
        st.paused = paused;
        drop(st);
        self.inner.maint.wake.notify_all();
        Ok(())
    }

    /// Runs the maintenance writes have left, unless it is paused, and waits until no
    /// pass is requested or running. Returns the error of a pass that failed (which the
    /// next write still returns).
    ///
    /// # Errors
    /// `Unavailable` if a background pass failed; `Internal` if a lock is poisoned.
    pub fn wait_maintenance(&self) -> Result<()> {
        let no_worker = self.inner.worker.lock().map_err(|_| poisoned())?.is_none();
        if no_worker {
            // Maintenance is inline; run what is left here.
            return self
                .inner
                .db
                .write()
                .map_err(|_| poisoned())?
                .run_maintenance();
        }
        let wanted = self.read(|d| Ok(d.maintenance_wanted()))?;
        let mut st = self.inner.maint.state.lock().map_err(|_| poisoned())?;
        if wanted {
            st.requested = true;
            self.inner.maint.wake.notify_all();
        }
        while (st.requested || st.running) && !st.paused && st.error.is_none() {
            st = self.inner.maint.done.wait(st).map_err(|_| poisoned())?;
        }
        match &st.error {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    fn wait_durable(&self, log: u64, len: u64, syncer: &Arc<dyn Syncer>) -> Result<()> {
        let mut state = self.inner.sync.lock().map_err(|_| poisoned())?;
        if (log, len) > state.appended {
            state.appended = (log, len);
        }
        loop {
            if state.covers(log, len) {
                return Ok(()); // an fsync since our append covered us
            }
            if !state.syncing {
                break;
            }
            state = self.inner.synced.wait(state).map_err(|_| poisoned())?;
        }
        let target = state.appended;
        if target.0 != log {
            // A checkpoint started a newer log since our append, syncing ours whole.
            state.log_number = target.0;
            state.synced = 0;
            return Ok(());
        }
        // Lead: fsync everything registered so far, with no lock held meanwhile.
        state.syncing = true;
        drop(state);
        let mut covered = target;
        let result = syncer.sync().or_else(|e| {
            // What the log holds is unknown now (a failed fsync may drop dirty pages). The
            // database starts a new log by a checkpoint, which makes these writes durable
            // in runs; if it cannot yet, they are applied but not acknowledged.
            let new_log = self
                .inner
                .db
                .write()
                .map_err(|_| poisoned())?
                .log_sync_failed(target.0, &e)?;
            covered = (new_log, 0);
            Ok(())
        });
        let mut state = self.inner.sync.lock().map_err(|_| poisoned())?;
        state.syncing = false;
        if result.is_ok() && !state.covers(covered.0, covered.1) {
            state.log_number = covered.0;
            state.synced = covered.1;
        }
        drop(state);
        self.inner.synced.notify_all();
        result
    }

    /// Applies mutations to one row; see [`Database::mutate_row`].
    ///
    /// # Errors
    /// As [`Database::mutate_row`] and [`SharedDatabase::write`].
    pub fn mutate_row(
        &self,
        table_id: &str,
        row_key: &[u8],
        mutations: &[crate::Mutation],
    ) -> Result<()> {
        self.write(|db| db.mutate_row(table_id, row_key, mutations))
    }

    /// Reads one row; see [`Database::read_row`].
    ///
    /// # Errors
    /// As [`Database::verify`], reading the files outside the lock: the runs to check are
    /// taken under the read lock (shared, immutable files), which writers then have back
    /// for the whole read.
    ///
    /// # Errors
    /// As [`Database::verify`] and [`SharedDatabase::read`].
    pub fn verify(&self) -> Result<crate::VerifyReport> {
        let runs = self.read(|db| Ok(db.runs_to_verify()))?;
        crate::api::database::verify_runs(&runs)
    }

    /// As [`Database::read_row`].
    pub fn read_row(&self, table_id: &str, row_key: &[u8]) -> Result<Option<Row>> {
        self.read(|db| db.read_row(table_id, row_key))
    }

    /// Reads rows into a list, holding the read lock for the whole read (a consistent view).
    ///
    /// # Errors
    /// As [`Database::read_rows`].
    pub fn read_rows(&self, table_id: &str, request: &ReadRowsRequest) -> Result<Vec<Row>> {
        self.read(|db| db.read_rows(table_id, request)?.into_rows())
    }

    /// Opens a stream of the rows a request selects: the view is taken under the read lock,
    /// which is released before this returns. The stream then yields its snapshot one row
    /// at a time, on any thread, while writers go on; see [`Database::read_rows`].
    ///
    /// # Errors
    /// As [`Database::read_rows`] and [`SharedDatabase::read`].
    pub fn read_rows_stream(&self, table_id: &str, request: &ReadRowsRequest) -> Result<RowStream> {
        self.read(|db| db.read_rows(table_id, request))
    }

    /// As [`SharedDatabase::read_rows_stream`] with a filter compiled once by the caller; see
    /// [`Database::read_rows_compiled`].
    ///
    /// # Errors
    /// As [`Database::read_rows_compiled`] and [`SharedDatabase::read`].
    pub fn read_rows_stream_compiled(
        &self,
        table_id: &str,
        request: &ReadRowsRequest,
        filter: &CompiledFilter,
    ) -> Result<RowStream> {
        self.read(|db| db.read_rows_compiled(table_id, request, filter))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::filter::RowFilter;
    use crate::model::mutation::Mutation;
    use crate::model::schema::TableConfig;

    #[test]
    fn a_filter_compiled_once_reads_as_the_request_would_and_replaces_its_filter() {
        let shared = SharedDatabase::new(Database::new());
        shared
            .write(|db| {
                db.create_table("t", TableConfig::with_families(["cf"]))?;
                for key in [&b"apple"[..], b"banana", b"cherry"] {
                    db.mutate_row("t", key, &[Mutation::set_cell("cf", b"q", 1000, key)])?;
                }
                Ok(())
            })
            .unwrap();
        let filter = RowFilter::RowKeyRegex(b"b.*".to_vec());
        let compiled = filter.compile().unwrap();
        let keys = |request: &ReadRowsRequest| -> Vec<Vec<u8>> {
            shared
                .read_rows_stream_compiled("t", request, &compiled)
                .unwrap()
                .map(|row| row.key)
                .collect()
        };
        let same = ReadRowsRequest {
            filter: filter.clone(),
            ..ReadRowsRequest::default()
        };
        let expected: Vec<Vec<u8>> = shared
            .read_rows_stream("t", &same)
            .unwrap()
            .map(|row| row.key)
            .collect();
        assert_eq!(expected, [b"banana".to_vec()]);
        assert_eq!(keys(&same), expected);
        // The request's own filter is not looked at: the compiled one applies.
        let other = ReadRowsRequest {
            filter: RowFilter::BlockAll,
            ..ReadRowsRequest::default()
        };
        assert_eq!(keys(&other), expected);
        // The compiled filter is reusable, read after read.
        assert_eq!(keys(&same), expected);
    }

    #[test]
    fn a_poisoned_lock_is_internal_for_readers_and_writers() {
        let shared = SharedDatabase::new(Database::new());
        let writer = shared.clone();
        // A panic while the write lock is held poisons it.
        let panicked = std::thread::spawn(move || {
            let _ = writer.write(|_| -> Result<()> { panic!("engine bug") });
        })
        .join();
        assert!(panicked.is_err());
        let read = shared.read(|db| Ok(db.list_tables())).unwrap_err();
        assert_eq!(read.code(), Code::Internal);
        let write = shared.write(|_| Ok(())).unwrap_err();
        assert_eq!(write.code(), Code::Internal);
        assert_eq!(poisoned().code(), Code::Internal);
    }
}
