//! Background maintenance through `SharedDatabase`: writes leave flushes, compactions and
//! splits to the maintenance thread, which eventually runs them; a writer that outruns it
//! flushes inline (back-pressure); reads during background passes see every row exactly
//! once; a background storage error is returned by the next write, which applies nothing;
//! and a database reopened after background passes holds every acknowledged write.
//!
//! No timing asserts: the tests hold the thread with `pause_maintenance` or a storage that
//! blocks run-file creation, and wait for it with `wait_maintenance`, which blocks until no
//! pass is requested or running.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::Duration;

use sparsetable::platform::storage::faulty::{Fault, Op};
use sparsetable::platform::storage::{
    FaultyStorage, MemStorage, RandomAccessFile, Storage, WritableFile,
};
use sparsetable::{
    Code, Database, Durability, ManualClock, Mutation, OpenOptions, ReadRowsRequest, Result,
    SharedDatabase, TableConfig, TabletOptions,
};

fn tiny() -> TableConfig {
    TableConfig {
        tablet_options: TabletOptions {
            memtable_bytes: 300,
            max_runs: 2,
            split_bytes: 2_000,
            merge_bytes: 200,
            split_load_ops: 0,
        },
        ..TableConfig::with_families(["cf"])
    }
}

fn shared_in_memory() -> SharedDatabase {
    let mut db = Database::with_clock(Arc::new(ManualClock::new(1_000_000)));
    db.create_table("t", tiny()).unwrap();
    SharedDatabase::new(db)
}

fn put(db: &SharedDatabase, i: usize) -> Result<()> {
    db.mutate_row(
        "t",
        format!("k{i:05}").as_bytes(),
        &[Mutation::set_cell("cf", b"q", 1000, format!("v{i}"))],
    )
}

fn total_runs(db: &SharedDatabase) -> usize {
    db.read(|d| d.tablets("t"))
        .unwrap()
        .iter()
        .map(|t| t.runs)
        .sum()
}

fn keys(db: &SharedDatabase) -> Vec<Vec<u8>> {
    db.read_rows("t", &ReadRowsRequest::default())
        .unwrap()
        .into_iter()
        .map(|r| r.key)
        .collect()
}

fn expected_keys(n: usize) -> Vec<Vec<u8>> {
    (0..n).map(|i| format!("k{i:05}").into_bytes()).collect()
}

#[test]
fn writes_leave_flushes_to_the_background_thread() {
    let db = shared_in_memory();
    db.pause_maintenance(true).unwrap();
    // About 30 bytes a row: past memtable_bytes (a flush is due) but under the
    // back-pressure bound of four times it.
    for i in 0..20 {
        put(&db, i).unwrap();
    }
    assert_eq!(total_runs(&db), 0, "the writer flushed inline");
    db.pause_maintenance(false).unwrap();
    db.wait_maintenance().unwrap();
    assert!(total_runs(&db) > 0, "the background never flushed");
    assert_eq!(keys(&db), expected_keys(20));
}

#[test]
fn a_writer_that_outruns_the_background_flushes_inline() {
    let db = shared_in_memory();
    db.pause_maintenance(true).unwrap();
    for i in 0..400 {
        put(&db, i).unwrap();
    }
    // The held thread ran nothing, so the runs are the writers' back-pressure flushes, and
    // the memtable stayed under its bound.
    assert!(total_runs(&db) > 0);
    let sizes: u64 = db
        .read(|d| d.tablets("t"))
        .unwrap()
        .iter()
        .map(|t| t.size_bytes)
        .sum();
    assert!(sizes > 0);
    assert_eq!(keys(&db), expected_keys(400));
    db.pause_maintenance(false).unwrap();
    db.wait_maintenance().unwrap();
    assert_eq!(keys(&db), expected_keys(400));
}

#[test]
fn reads_during_background_maintenance_see_every_row_exactly_once() {
    let db = shared_in_memory();
    let acked = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let (db, acked, done) = (db.clone(), acked.clone(), done.clone());
            std::thread::spawn(move || {
                let mut reads = 0;
                while !done.load(Ordering::SeqCst) || reads == 0 {
                    let before = acked.load(Ordering::SeqCst);
                    let got = keys(&db);
                    // Rows are written in key order: a read holds a prefix of them, at
                    // least every row acknowledged before it began, each once.
                    assert!(got.len() >= before, "lost rows: {} < {before}", got.len());
                    assert_eq!(got, expected_keys(got.len()));
                    reads += 1;
                }
            })
        })
        .collect();
    for i in 0..1_500 {
        put(&db, i).unwrap();
        acked.store(i + 1, Ordering::SeqCst);
    }
    done.store(true, Ordering::SeqCst);
    for r in readers {
        r.join().unwrap();
    }
    db.wait_maintenance().unwrap();
    let tablets = db.read(|d| d.tablets("t")).unwrap();
    assert!(tablets.len() > 1, "the background never split: {tablets:?}");
    assert_eq!(keys(&db), expected_keys(1_500));
}

/// What a test storage does before it creates a run file (`.sst`): hold it. (Failing it is
/// `FaultyStorage`'s job.)
trait BeforeRunFile: Send + Sync {
    fn before_run_file(&self) -> Result<()>;
}

/// `MemStorage` that runs its hook before creating each run file and otherwise delegates.
/// The hook's fields and methods are reachable through the storage (`Deref`).
#[derive(Clone)]
struct HookedStorage<H> {
    inner: MemStorage,
    hook: H,
}

impl<H> std::ops::Deref for HookedStorage<H> {
    type Target = H;
    fn deref(&self) -> &H {
        &self.hook
    }
}

impl<H: BeforeRunFile> Storage for HookedStorage<H> {
    fn create(&self, name: &str) -> Result<Box<dyn WritableFile>> {
        if name.ends_with(".sst") {
            self.hook.before_run_file()?;
        }
        self.inner.create(name)
    }
    fn append_to(&self, name: &str) -> Result<Box<dyn WritableFile>> {
        self.inner.append_to(name)
    }
    fn open(&self, name: &str) -> Result<Arc<dyn RandomAccessFile>> {
        self.inner.open(name)
    }
    fn rename(&self, from: &str, to: &str) -> Result<()> {
        self.inner.rename(from, to)
    }
    fn remove(&self, name: &str) -> Result<()> {
        self.inner.remove(name)
    }
    fn list(&self) -> Result<Vec<String>> {
        self.inner.list()
    }
    fn sync_dir(&self) -> Result<()> {
        self.inner.sync_dir()
    }
}

fn options() -> OpenOptions {
    OpenOptions {
        durability: Durability::None,
        log_rotate_bytes: 4_000,
        ..OpenOptions::default()
    }
}

#[test]
fn a_background_error_fails_the_next_write_which_applies_nothing() {
    let storage = FaultyStorage::new(MemStorage::new());
    let clock = Arc::new(ManualClock::new(1_000_000));
    let mut db = Database::open(Arc::new(storage.clone()), options(), clock.clone()).unwrap();
    db.create_table("t", tiny()).unwrap();
    let db = SharedDatabase::new(db);
    // Run files cannot be created (a full disk) until healed.
    storage.inject(Fault::no_space(Op::Create).on_files(".sst"));
    // Held until the writes are in: a pass that failed part-way through them would fail the
    // next of them, and the test would depend on the thread's timing.
    db.pause_maintenance(true).unwrap();
    for i in 0..20 {
        put(&db, i).unwrap();
    }
    db.pause_maintenance(false).unwrap();
    // The pass that flushes fails; waiting for it reports the error.
    let err = db.wait_maintenance().unwrap_err();
    assert_eq!(err.code(), Code::Unavailable);
    assert_eq!(total_runs(&db), 0);
    // The next write returns it and applies nothing.
    let err = put(&db, 20).unwrap_err();
    assert_eq!(err.code(), Code::Unavailable);
    assert_eq!(db.read_row("t", b"k00020").unwrap(), None);
    // The storage recovers: writes go on and the next pass flushes what the failed one
    // left.
    storage.heal();
    put(&db, 21).unwrap();
    db.wait_maintenance().unwrap();
    assert!(total_runs(&db) > 0);
    let mut want = expected_keys(20);
    want.push(b"k00021".to_vec());
    assert_eq!(keys(&db), want);
    drop(db);
    let db = Database::open(Arc::new(storage.clone()), options(), clock).unwrap();
    let got: Vec<Vec<u8>> = db
        .read_rows("t", &ReadRowsRequest::default())
        .unwrap()
        .map(|r| r.key)
        .collect();
    assert_eq!(got, want);
}

/// Run-file creation blocks while the gate is closed, and reports that it is blocked: the
/// test can hold a background flush in the middle of writing its run.
#[derive(Clone)]
struct Gate {
    /// (closed, a creation is waiting)
    gate: Arc<(Mutex<(bool, bool)>, Condvar)>,
}

impl BeforeRunFile for Gate {
    fn before_run_file(&self) -> Result<()> {
        let (m, cv) = &*self.gate;
        let mut g = m.lock().unwrap();
        // Only the first creation is held; others (an inline flush meanwhile) pass.
        if g.0 && !g.1 {
            g.1 = true;
            cv.notify_all();
            while g.0 {
                g = cv.wait(g).unwrap();
            }
        }
        Ok(())
    }
}

impl Gate {
    fn wait_until_blocked(&self) {
        let (m, cv) = &*self.gate;
        let mut g = m.lock().unwrap();
        while !g.1 {
            g = cv.wait(g).unwrap();
        }
    }
    fn open_gate(&self) {
        let (m, cv) = &*self.gate;
        m.lock().unwrap().0 = false;
        cv.notify_all();
    }
}

#[test]
fn writes_and_reads_complete_while_a_background_flush_writes_its_run() {
    let storage = HookedStorage {
        inner: MemStorage::new(),
        hook: Gate {
            gate: Arc::new((Mutex::new((true, false)), Condvar::new())),
        },
    };
    let clock = Arc::new(ManualClock::new(1_000_000));
    let mut db = Database::open(Arc::new(storage.clone()), options(), clock.clone()).unwrap();
    db.create_table("t", tiny()).unwrap();
    let db = SharedDatabase::new(db);
    for i in 0..20 {
        put(&db, i).unwrap();
    }
    // The background flush is now blocked inside its run file's creation.
    storage.wait_until_blocked();
    let (tx, rx) = mpsc::channel();
    let writer = {
        let db = db.clone();
        std::thread::spawn(move || {
            for i in 20..30 {
                put(&db, i).unwrap();
            }
            let seen = keys(&db);
            tx.send(seen).unwrap();
        })
    };
    // Generous: the writes take microseconds; only a writer waiting for the held flush
    // (which never finishes while the gate is closed) would miss it.
    let seen = rx.recv_timeout(Duration::from_secs(60));
    storage.open_gate();
    writer.join().unwrap();
    assert_eq!(
        seen.expect("a write waited for the background flush"),
        expected_keys(30)
    );
    db.wait_maintenance().unwrap();
    assert!(total_runs(&db) > 0);
    assert_eq!(keys(&db), expected_keys(30));
    drop(db);
    let db = Database::open(Arc::new(storage.clone()), options(), clock).unwrap();
    let got: Vec<Vec<u8>> = db
        .read_rows("t", &ReadRowsRequest::default())
        .unwrap()
        .map(|r| r.key)
        .collect();
    assert_eq!(got, expected_keys(30));
}

#[test]
fn a_flush_whose_tablet_changed_meanwhile_is_discarded() {
    let storage = HookedStorage {
        inner: MemStorage::new(),
        hook: Gate {
            gate: Arc::new((Mutex::new((true, false)), Condvar::new())),
        },
    };
    let clock = Arc::new(ManualClock::new(1_000_000));
    let mut db = Database::open(Arc::new(storage.clone()), options(), clock.clone()).unwrap();
    db.create_table("t", tiny()).unwrap();
    let db = SharedDatabase::new(db);
    for i in 0..20 {
        put(&db, i).unwrap();
    }
    storage.wait_until_blocked();
    // While the background writes its run, an explicit compaction flushes the same layers
    // inline and deletes a row; the held flush must not bring the old layers back as a run.
    db.write(|d| d.compact_table("t")).unwrap();
    db.mutate_row("t", b"k00003", &[Mutation::DeleteFromRow])
        .unwrap();
    db.write(|d| d.compact_table("t")).unwrap();
    storage.open_gate();
    db.wait_maintenance().unwrap();
    let mut want = expected_keys(20);
    want.remove(3);
    assert_eq!(keys(&db), want);
    let runs = total_runs(&db);
    assert_eq!(runs, 1, "the stale flush was installed");
    drop(db);
    let db = Database::open(Arc::new(storage.clone()), options(), clock).unwrap();
    let got: Vec<Vec<u8>> = db
        .read_rows("t", &ReadRowsRequest::default())
        .unwrap()
        .map(|r| r.key)
        .collect();
    assert_eq!(got, want);
}

/// What [`Script`] does to the run-file creations it does not let through.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Action {
    Pass,
    Fail,
    /// Hold the first one until released (later ones pass: an inline flush meanwhile).
    Hold,
}

struct ScriptState {
    /// Creations still let through before `action` applies.
    skip: usize,
    action: Action,
    /// A creation is being held.
    blocked: bool,
    /// Run files created so far.
    created: usize,
}

/// Lets `skip` run-file creations through, then fails or holds the next: a test can let a
/// background pass's flush write its run and stop the compaction that follows it.
#[derive(Clone)]
struct Script {
    state: Arc<(Mutex<ScriptState>, Condvar)>,
}

impl BeforeRunFile for Script {
    fn before_run_file(&self) -> Result<()> {
        let (m, cv) = &*self.state;
        let mut s = m.lock().unwrap();
        s.created += 1;
        if s.skip > 0 {
            s.skip -= 1;
            return Ok(());
        }
        match s.action {
            Action::Pass => Ok(()),
            Action::Fail => Err(sparsetable::Error::new(Code::Unavailable, "disk full")),
            Action::Hold if s.blocked => Ok(()),
            Action::Hold => {
                s.blocked = true;
                cv.notify_all();
                while s.action == Action::Hold {
                    s = cv.wait(s).unwrap();
                }
                Ok(())
            }
        }
    }
}

impl Script {
    fn new() -> Self {
        let state = ScriptState {
            skip: 0,
            action: Action::Pass,
            blocked: false,
            created: 0,
        };
        Script {
            state: Arc::new((Mutex::new(state), Condvar::new())),
        }
    }
    fn arm(&self, skip: usize, action: Action) {
        let mut s = self.state.0.lock().unwrap();
        s.skip = skip;
        s.action = action;
        s.blocked = false;
    }
    fn wait_until_blocked(&self) {
        let (m, cv) = &*self.state;
        let mut s = m.lock().unwrap();
        while !s.blocked {
            s = cv.wait(s).unwrap();
        }
    }
    fn release(&self) {
        let (m, cv) = &*self.state;
        m.lock().unwrap().action = Action::Pass;
        cv.notify_all();
    }
    fn created(&self) -> usize {
        self.state.0.lock().unwrap().created
    }
}

/// Flushes of 40 rows (about 1600 bytes) each rewrite the same rows, so runs overlap and
/// the third flush makes a full compaction due; nothing splits or merges.
fn overlapping() -> TableConfig {
    TableConfig {
        tablet_options: TabletOptions {
            memtable_bytes: 1_000,
            max_runs: 2,
            split_bytes: 1_000_000,
            merge_bytes: 0,
            split_load_ops: 0,
        },
        ..TableConfig::with_families(["cf"])
    }
}

const ROWS: usize = 40;

fn put_round(db: &SharedDatabase, round: usize) {
    for i in 0..ROWS {
        db.mutate_row(
            "t",
            format!("k{i:05}").as_bytes(),
            &[Mutation::set_cell(
                "cf",
                b"q",
                1000,
                format!("r{round}-{i}"),
            )],
        )
        .unwrap();
    }
}

/// Every row's key and newest value.
fn values(db: &SharedDatabase) -> Vec<(Vec<u8>, Vec<u8>)> {
    db.read_rows("t", &ReadRowsRequest::default())
        .unwrap()
        .into_iter()
        .map(|r| (r.key, r.cells[0].value.clone()))
        .collect()
}

fn round_values(round: usize) -> Vec<(Vec<u8>, Vec<u8>)> {
    (0..ROWS)
        .map(|i| {
            (
                format!("k{i:05}").into_bytes(),
                format!("r{round}-{i}").into_bytes(),
            )
        })
        .collect()
}

fn sst_files(storage: &HookedStorage<Script>) -> usize {
    storage
        .inner
        .list()
        .unwrap()
        .iter()
        .filter(|n| n.ends_with(".sst"))
        .count()
}

fn compactions(db: &SharedDatabase) -> usize {
    db.write(|d| Ok(d.take_tablet_events()))
        .unwrap()
        .iter()
        .filter(|e| e.kind == sparsetable::TabletEventKind::Compaction)
        .count()
}

/// A database on a scripted storage with two overlapping runs flushed in the background,
/// and a third round of writes in the memtable, held back: releasing the thread (after
/// arming the script) flushes it, which makes a full compaction of the three runs due.
fn two_runs_and_a_third_due(clock: &Arc<ManualClock>) -> (HookedStorage<Script>, SharedDatabase) {
    let storage = HookedStorage {
        inner: MemStorage::new(),
        hook: Script::new(),
    };
    let mut db = Database::open(Arc::new(storage.clone()), options(), clock.clone()).unwrap();
    db.create_table("t", overlapping()).unwrap();
    let db = SharedDatabase::new(db);
    for round in 0..3 {
        db.pause_maintenance(true).unwrap();
        put_round(&db, round);
        if round < 2 {
            db.pause_maintenance(false).unwrap();
            db.wait_maintenance().unwrap();
        }
    }
    assert_eq!(total_runs(&db), 2);
    assert_eq!(compactions(&db), 0);
    (storage, db)
}

fn reopened_values(
    storage: &HookedStorage<Script>,
    clock: Arc<ManualClock>,
) -> Vec<(Vec<u8>, Vec<u8>)> {
    let db = Database::open(Arc::new(storage.clone()), options(), clock).unwrap();
    db.read_rows("t", &ReadRowsRequest::default())
        .unwrap()
        .map(|r| (r.key, r.cells[0].value.clone()))
        .collect()
}

/// Runs `f` on another thread and waits for it, a generous minute at most: `None` if it
/// did not finish (it waited for something the test holds).
fn bounded<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> (Option<T>, std::thread::JoinHandle<()>) {
    let (tx, rx) = mpsc::channel();
    let handle = std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    (rx.recv_timeout(Duration::from_secs(60)).ok(), handle)
}

#[test]
fn writes_and_reads_complete_while_a_compaction_writes_its_runs() {
    let clock = Arc::new(ManualClock::new(1_000_000));
    let (storage, db) = two_runs_and_a_third_due(&clock);
    // The pass's flush writes its run; the compaction it leads to is held in its first
    // run file's creation.
    storage.arm(1, Action::Hold);
    db.pause_maintenance(false).unwrap();
    storage.wait_until_blocked();
    let writer = db.clone();
    let (seen, handle) = bounded(move || {
        put_round(&writer, 3);
        values(&writer)
    });
    storage.release();
    handle.join().unwrap();
    assert_eq!(
        seen.expect("a write or read waited for the compaction"),
        round_values(3)
    );
    db.wait_maintenance().unwrap();
    // Installed once, not discarded and redone: three flushes, the compaction's one run,
    // the flush of round 3.
    assert_eq!(compactions(&db), 1);
    assert_eq!(storage.created(), 5);
    assert_eq!(total_runs(&db), 2);
    assert_eq!(sst_files(&storage), 2);
    assert_eq!(values(&db), round_values(3));
    drop(db);
    assert_eq!(reopened_values(&storage, clock), round_values(3));
}

#[test]
fn a_flush_during_a_compaction_stays_newer_than_its_output() {
    let clock = Arc::new(ManualClock::new(1_000_000));
    let (storage, db) = two_runs_and_a_third_due(&clock);
    storage.arm(1, Action::Hold);
    db.pause_maintenance(false).unwrap();
    storage.wait_until_blocked();
    // While the compaction is held, a row is deleted, another rewritten, and a checkpoint
    // flushes them inline as a run newer than every input of the compaction.
    let writer = db.clone();
    let (done, handle) = bounded(move || {
        writer
            .mutate_row("t", b"k00005", &[Mutation::DeleteFromRow])
            .unwrap();
        writer
            .mutate_row(
                "t",
                b"k00006",
                &[Mutation::set_cell("cf", b"q", 2000, "new")],
            )
            .unwrap();
        writer.write(|d| d.checkpoint()).unwrap();
    });
    storage.release();
    handle.join().unwrap();
    done.expect("the writes or the checkpoint waited for the compaction");
    db.wait_maintenance().unwrap();
    // The compaction was installed behind the newer run, which still hides and overrides.
    assert_eq!(compactions(&db), 1);
    assert_eq!(total_runs(&db), 2);
    assert_eq!(sst_files(&storage), 2);
    let mut want = round_values(2);
    want[6].1 = b"new".to_vec();
    want.remove(5);
    assert_eq!(values(&db), want);
    drop(db);
    assert_eq!(reopened_values(&storage, clock), want);
}

#[test]
fn a_compaction_whose_runs_changed_meanwhile_is_discarded() {
    let clock = Arc::new(ManualClock::new(1_000_000));
    let (storage, db) = two_runs_and_a_third_due(&clock);
    storage.arm(1, Action::Hold);
    db.pause_maintenance(false).unwrap();
    storage.wait_until_blocked();
    // While the background compaction is held, a row is deleted and an explicit compaction
    // replaces the runs it is rewriting: installing it would bring the row back.
    let writer = db.clone();
    let (done, handle) = bounded(move || {
        writer
            .mutate_row("t", b"k00005", &[Mutation::DeleteFromRow])
            .unwrap();
        writer.write(|d| d.compact_table("t")).unwrap();
    });
    // The held output's file does not exist yet (the hook runs before creation).
    let files_before = sst_files(&storage);
    storage.release();
    handle.join().unwrap();
    done.expect("the write or the explicit compaction waited for the background one");
    db.wait_maintenance().unwrap();
    let mut want = round_values(2);
    want.remove(5);
    assert_eq!(values(&db), want);
    assert_eq!(total_runs(&db), 1);
    // The stale output was written, then deleted rather than left for a later manifest.
    assert_eq!(
        storage.created(),
        6,
        "three flushes, the held output, the explicit flush and compaction"
    );
    assert_eq!(sst_files(&storage), files_before);
    // Once the manifest is rewritten only the live run is left.
    db.write(|d| d.checkpoint()).unwrap();
    assert_eq!(sst_files(&storage), 1);
    drop(db);
    assert_eq!(reopened_values(&storage, clock), want);
}

#[test]
fn a_failed_compaction_leaves_the_runs_and_is_retried() {
    let clock = Arc::new(ManualClock::new(1_000_000));
    let (storage, db) = two_runs_and_a_third_due(&clock);
    // The flush succeeds; the compaction's run file cannot be created.
    storage.arm(1, Action::Fail);
    db.pause_maintenance(false).unwrap();
    let err = db.wait_maintenance().unwrap_err();
    assert_eq!(err.code(), Code::Unavailable);
    assert_eq!(total_runs(&db), 3);
    assert_eq!(values(&db), round_values(2));
    // The next write reports it and applies nothing.
    let err = db
        .mutate_row(
            "t",
            b"k00000",
            &[Mutation::set_cell("cf", b"q", 2000, "lost")],
        )
        .unwrap_err();
    assert_eq!(err.code(), Code::Unavailable);
    // The storage recovers: the compaction is still due, and the next pass (which the
    // next write requests) runs it.
    storage.release();
    assert_eq!(compactions(&db), 0);
    db.wait_maintenance().unwrap();
    assert_eq!(compactions(&db), 1);
    assert_eq!(total_runs(&db), 1);
    assert_eq!(sst_files(&storage), 1);
    assert_eq!(values(&db), round_values(2));
    drop(db);
    assert_eq!(reopened_values(&storage, clock), round_values(2));
}
