//! Storage faults: a full disk (ENOSPC), a failing one (EIO) and a read-only directory,
//! injected through `FaultyStorage` and, where the machine lets a test mount file systems,
//! on a real small tmpfs.
//!
//! What every test holds the engine to: a write whose commit log record (or run) could not
//! be written reports `Unavailable` (retryable) and changes nothing, in memory or after a
//! restart; the next write tries again and succeeds once the disk works, so the database is
//! never wedged; a read-only directory is refused at open with `FailedPrecondition` and a
//! message that says so.

use std::sync::Arc;

use sparsetable::platform::storage::faulty::{Fault, Op};
use sparsetable::platform::storage::{FaultyStorage, MemStorage, Storage};
use sparsetable::{
    Code, Database, Durability, ManualClock, Mutation, OpenOptions, ReadRowsRequest,
    SharedDatabase, TableConfig,
};

fn options(durability: Durability) -> OpenOptions {
    OpenOptions {
        durability,
        ..OpenOptions::default()
    }
}

fn clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new(1_000_000))
}

/// A database with table `t` (family `cf`) on a faulty view of `mem`.
fn open(mem: &MemStorage, durability: Durability) -> (FaultyStorage, Database) {
    let storage = FaultyStorage::new(mem.clone());
    let mut db = Database::open(Arc::new(storage.clone()), options(durability), clock()).unwrap();
    if db.get_table("t").is_err() {
        db.create_table("t", TableConfig::with_families(["cf"]))
            .unwrap();
    }
    (storage, db)
}

fn set(key: &str) -> Vec<Mutation> {
    vec![Mutation::set_cell(
        "cf",
        b"q",
        1000,
        key.as_bytes().to_vec(),
    )]
}

fn put(db: &mut Database, key: &str) -> sparsetable::Result<()> {
    db.mutate_row("t", key.as_bytes(), &set(key))
}

fn keys(db: &Database) -> Vec<String> {
    db.read_rows("t", &ReadRowsRequest::default())
        .unwrap()
        .map(|r| String::from_utf8(r.key).unwrap())
        .collect()
}

/// What a restart finds: the database reopened on the same files, with no fault.
fn reopened(mem: &MemStorage) -> Vec<String> {
    keys(&open(mem, Durability::Sync).1)
}

#[test]
#[ignore = "robustness suite: scripts/suites/robustness.sh"]
fn a_full_disk_fails_writes_retryably_until_space_returns() {
    let mem = MemStorage::new();
    let (disk, mut db) = open(&mem, Durability::Sync);
    put(&mut db, "a").unwrap();
    // Every append fails, and the log's is cut short, as a write(2) on a full disk is.
    disk.inject(Fault::no_space(Op::Append).torn());
    for key in ["b", "c", "d"] {
        let err = put(&mut db, key).unwrap_err();
        assert_eq!(err.code(), Code::Unavailable, "{err}");
    }
    assert!(disk.fired() >= 3);
    assert_eq!(keys(&db), ["a"], "a failed write is visible");
    disk.heal();
    put(&mut db, "e").unwrap();
    put(&mut db, "f").unwrap();
    assert_eq!(keys(&db), ["a", "e", "f"]);
    drop(db);
    assert_eq!(reopened(&mem), ["a", "e", "f"]);
}

#[test]
#[ignore = "robustness suite: scripts/suites/robustness.sh"]
fn a_torn_record_is_never_replayed_and_later_records_are() {
    let mem = MemStorage::new();
    let (disk, mut db) = open(&mem, Durability::Sync);
    put(&mut db, "a").unwrap();
    // One torn append of the log; the disk works again at once.
    disk.inject(Fault::no_space(Op::Append).on_files(".log").torn().times(1));
    assert_eq!(put(&mut db, "b").unwrap_err().code(), Code::Unavailable);
    put(&mut db, "c").unwrap();
    drop(db);
    assert_eq!(reopened(&mem), ["a", "c"]);
}

#[test]
#[ignore = "robustness suite: scripts/suites/robustness.sh"]
fn a_crash_while_the_disk_is_full_keeps_every_acknowledged_write() {
    let mem = MemStorage::new();
    let (disk, mut db) = open(&mem, Durability::Sync);
    put(&mut db, "a").unwrap();
    disk.inject(Fault::no_space(Op::Append).torn());
    assert_eq!(put(&mut db, "b").unwrap_err().code(), Code::Unavailable);
    assert_eq!(put(&mut db, "c").unwrap_err().code(), Code::Unavailable);
    // The process dies here: the log named by the manifest ends in a torn record.
    std::mem::forget(db);
    assert_eq!(reopened(&mem), ["a"]);
}

#[test]
#[ignore = "robustness suite: scripts/suites/robustness.sh"]
fn a_failed_fsync_applies_nothing_and_is_not_replayed() {
    let mem = MemStorage::new();
    let (disk, mut db) = open(&mem, Durability::Sync);
    put(&mut db, "a").unwrap();
    // The record reaches the file whole, but its fsync fails (EIO).
    disk.inject(Fault::io_error(Op::Sync).on_files(".log").times(1));
    let err = put(&mut db, "b").unwrap_err();
    assert_eq!(err.code(), Code::Unavailable);
    assert_eq!(keys(&db), ["a"]);
    put(&mut db, "c").unwrap();
    std::mem::forget(db);
    assert_eq!(reopened(&mem), ["a", "c"]);
}

#[test]
#[ignore = "robustness suite: scripts/suites/robustness.sh"]
fn interval_durability_keeps_acknowledged_writes_across_a_failed_log() {
    let mem = MemStorage::new();
    let (disk, mut db) = open(&mem, Durability::Interval { micros: 1 << 40 });
    put(&mut db, "a").unwrap();
    put(&mut db, "b").unwrap();
    disk.inject(Fault::no_space(Op::Append).on_files(".log").torn().times(1));
    assert_eq!(put(&mut db, "c").unwrap_err().code(), Code::Unavailable);
    put(&mut db, "d").unwrap();
    db.checkpoint().unwrap();
    drop(db);
    assert_eq!(reopened(&mem), ["a", "b", "d"]);
}

#[test]
#[ignore = "robustness suite: scripts/suites/robustness.sh"]
fn a_failed_run_write_is_retryable_and_loses_nothing() {
    let mem = MemStorage::new();
    let (disk, mut db) = open(&mem, Durability::Sync);
    put(&mut db, "a").unwrap();
    disk.inject(Fault::io_error(Op::Append).on_files(".sst"));
    let err = db.compact_table("t").unwrap_err();
    assert_eq!(err.code(), Code::Unavailable, "{err}");
    // Writes go on while runs cannot be written: they only need the log.
    put(&mut db, "b").unwrap();
    disk.heal();
    db.compact_table("t").unwrap();
    assert_eq!(keys(&db), ["a", "b"]);
    drop(db);
    assert_eq!(reopened(&mem), ["a", "b"]);
}

#[test]
#[ignore = "robustness suite: scripts/suites/robustness.sh"]
fn group_commit_survives_a_failed_fsync_by_a_checkpoint() {
    let mem = MemStorage::new();
    let (disk, db) = open(&mem, Durability::Sync);
    let db = SharedDatabase::new(db);
    db.mutate_row("t", b"a", &set("a")).unwrap();
    // The group's fsync fails once; the checkpoint that replaces the log makes the write
    // durable in a run, so it is acknowledged.
    disk.inject(Fault::io_error(Op::Sync).on_files(".log").times(1));
    db.mutate_row("t", b"b", &set("b")).unwrap();
    assert_eq!(disk.fired(), 1);
    db.mutate_row("t", b"c", &set("c")).unwrap();
    drop(db);
    assert_eq!(reopened(&mem), ["a", "b", "c"]);
}

#[test]
#[ignore = "robustness suite: scripts/suites/robustness.sh"]
fn group_commit_on_a_full_disk_is_unavailable_until_space_returns() {
    let mem = MemStorage::new();
    let (disk, db) = open(&mem, Durability::Sync);
    let db = SharedDatabase::new(db);
    db.pause_maintenance(true).unwrap();
    db.mutate_row("t", b"a", &set("a")).unwrap();
    disk.inject(Fault::no_space(Op::Append).torn());
    for key in ["b", "c"] {
        let err = db.mutate_row("t", key.as_bytes(), &set(key)).unwrap_err();
        assert_eq!(err.code(), Code::Unavailable, "{err}");
    }
    assert_eq!(
        db.read_rows("t", &ReadRowsRequest::default())
            .unwrap()
            .len(),
        1
    );
    disk.heal();
    db.mutate_row("t", b"d", &set("d")).unwrap();
    drop(db);
    assert_eq!(reopened(&mem), ["a", "d"]);
}

#[test]
#[ignore = "robustness suite: scripts/suites/robustness.sh"]
fn a_read_only_directory_is_refused_at_open() {
    let mem = MemStorage::new();
    drop(open(&mem, Durability::Sync));
    let ro = FaultyStorage::new(mem.clone());
    for op in [Op::Create, Op::Append, Op::Rename] {
        ro.inject(Fault::read_only(op));
    }
    let storage: Arc<dyn Storage> = Arc::new(ro);
    let err = Database::open(storage, options(Durability::Sync), clock()).unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition, "{err}");
    assert!(err.message().contains("Read-only"), "{err}");
}

/// A tmpfs of `size` mounted for one test, unmounted (and removed) on drop. One at a time:
/// the `mount` child a test forks inherits, until it execs, every open file of the process,
/// including another test's directory lock, so that test's reopen could find its own
/// directory "in use".
struct SmallFs {
    dir: std::path::PathBuf,
    _one_at_a_time: std::sync::MutexGuard<'static, ()>,
}

static MOUNTS: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl SmallFs {
    fn mount(name: &str, size: &str) -> SmallFs {
        let guard = MOUNTS.lock().unwrap_or_else(|e| e.into_inner());
        let dir = std::env::temp_dir().join(format!("sparsetable-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&dir)
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            ok,
            "cannot mount a tmpfs on {} (these ignored tests need root)",
            dir.display()
        );
        SmallFs {
            dir,
            _one_at_a_time: guard,
        }
    }

    fn remount(&self, mode: &str) {
        let ok = std::process::Command::new("mount")
            .args(["-o", &format!("remount,{mode}")])
            .arg(&self.dir)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "cannot remount {} {mode}", self.dir.display());
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.dir).status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
#[ignore = "mounts a 2 MiB tmpfs: needs root; run with --ignored"]
fn a_real_full_disk_is_unavailable_and_writes_resume_after_space_is_freed() {
    let fs = SmallFs::mount("enospc", "2m");
    let data = fs.dir.join("db");
    let ballast = fs.dir.join("ballast");
    let opts = OpenOptions {
        log_rotate_bytes: 1 << 40,
        ..options(Durability::Sync)
    };
    let mut db = Database::open_dir(&data, opts.clone()).unwrap();
    db.create_table("t", TableConfig::with_families(["cf"]))
        .unwrap();
    // Fill the disk with a file we can delete later, then write until the log cannot grow.
    let _ = std::fs::write(&ballast, vec![0u8; 4 << 20]);
    let value = vec![7u8; 16 << 10];
    let mut acknowledged = Vec::new();
    let mut failures = 0;
    for i in 0..400 {
        let key = format!("k{i:04}");
        match db.mutate_row(
            "t",
            key.as_bytes(),
            &[Mutation::set_cell("cf", b"q", 1000, value.clone())],
        ) {
            Ok(()) => acknowledged.push(key),
            Err(e) => {
                assert_eq!(e.code(), Code::Unavailable, "{e}");
                failures += 1;
                if failures == 3 {
                    break;
                }
            }
        }
    }
    assert_eq!(failures, 3, "the disk never filled");
    std::fs::remove_file(&ballast).unwrap();
    db.mutate_row(
        "t",
        b"after",
        &[Mutation::set_cell("cf", b"q", 1000, b"x".to_vec())],
    )
    .unwrap();
    acknowledged.push("after".into());
    acknowledged.sort();
    assert_eq!(keys(&db), acknowledged);
    drop(db);
    let db = Database::open_dir(&data, opts).unwrap();
    assert_eq!(keys(&db), acknowledged);
}

#[test]
#[ignore = "mounts and remounts a tmpfs read-only: needs root; run with --ignored"]
fn a_real_read_only_directory_is_refused_at_open_with_a_clear_message() {
    let fs = SmallFs::mount("erofs", "2m");
    let data = fs.dir.join("db");
    let mut db = Database::open_dir(&data, options(Durability::Sync)).unwrap();
    db.create_table("t", TableConfig::with_families(["cf"]))
        .unwrap();
    drop(db);
    fs.remount("ro");
    let err = Database::open_dir(&data, options(Durability::Sync)).unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition, "{err}");
    assert!(err.message().contains("is not writable"), "{err}");
    assert!(err.message().contains("Read-only file system"), "{err}");
    // Writable again: it opens, data intact.
    fs.remount("rw");
    let db = Database::open_dir(&data, options(Durability::Sync)).unwrap();
    assert_eq!(db.list_tables().len(), 1);
}

#[test]
#[ignore = "robustness suite: scripts/suites/robustness.sh"]
fn a_failed_interval_fsync_starts_a_new_log() {
    let mem = MemStorage::new();
    let (disk, db) = open(&mem, Durability::Interval { micros: 10_000 });
    let log_files = || -> Vec<String> {
        mem.list()
            .unwrap()
            .into_iter()
            .filter(|n| n.ends_with(".log"))
            .collect()
    };
    let before = log_files();
    disk.inject(Fault::io_error(Op::Sync).on_files(".log").times(1));
    let db = SharedDatabase::new(db);
    db.mutate_row("t", b"a", &set("a")).unwrap();
    // The background thread's fsync fails within about 10 ms; the log it failed
    // on must be replaced rather than appended to again. Generous: only a database that
    // never replaces it waits this long.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while (disk.fired() == 0 || log_files() == before) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(disk.fired(), 1);
    assert_ne!(
        log_files(),
        before,
        "the failed log is still the current one"
    );
    db.mutate_row("t", b"b", &set("b")).unwrap();
    drop(db);
    assert_eq!(reopened(&mem), ["a", "b"]);
}
