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
