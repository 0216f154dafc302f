//! Garbage collection's change records across a crash at every point of a collection: each
//! collected cell is a GARBAGE_COLLECTION record exactly once, whether the process died
//! before the records reached the commit log, after they did but before the manifest naming
//! the compacted runs was written, or after that manifest (docs/format/commit_log.md, record
//! type 7: recovery deletes the cells again where the runs may still hold them). An older
//! log's type 3 record still replays, as before: logged, never applied.
//!
//! A crash is simulated deterministically: the storage fails every operation that would
//! change it once a budget of such operations is spent (what the process did before it
//! died stays, nothing after), then the database is dropped without any shutdown work and
//! opened again on the same files.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use sparsetable::api::change_stream::MIN_RETENTION_MICROS;
use sparsetable::durability::commit_log::{
    encode_record, BatchEntry, WriteBatch, RECORD_TYPE_COLLECTED_CELLS,
};
use sparsetable::platform::storage::{MemStorage, RandomAccessFile, Storage, WritableFile};
use sparsetable::{
    ChangeKind, ColumnFamily, Database, Durability, GcMode, GcRule, ManualClock, Mutation,
    OpenOptions, RowRange, TableConfig, TimestampRange,
};

/// What the storage saw happen, in order, while armed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Event {
    /// A garbage collection record (type 7) was appended whole to a commit log.
    CollectedRecord,
    /// A manifest was put in place.
    Manifest,
}

/// Files in memory that stop changing once `budget` operations that change them were made
/// (`u64::MAX`: never): the process died there.
#[derive(Clone)]
struct CrashDisk {
    files: MemStorage,
    budget: Arc<AtomicU64>,
    used: Arc<AtomicU64>,
    events: Arc<Mutex<Vec<Event>>>,
}

impl CrashDisk {
    fn new() -> Self {
        CrashDisk {
            files: MemStorage::new(),
            budget: Arc::new(AtomicU64::new(u64::MAX)),
            used: Arc::new(AtomicU64::new(0)),
            events: Arc::default(),
        }
    }

    /// From now on, `budget` more changes reach the files, then none.
    fn arm(&self, budget: u64) {
        self.used.store(0, Ordering::SeqCst);
        self.events.lock().unwrap().clear();
        self.budget.store(budget, Ordering::SeqCst);
    }

    /// Takes one change from the budget, or fails: the process is dead.
    fn spend(&self) -> sparsetable::Result<()> {
        let left = self.budget.load(Ordering::SeqCst);
        if left == 0 {
            return Err(sparsetable::Error::new(
                sparsetable::Code::Unavailable,
                "the process died here",
            ));
        }
        if left != u64::MAX {
            self.budget.store(left - 1, Ordering::SeqCst);
        }
        self.used.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    fn events(&self) -> Vec<Event> {
        self.events.lock().unwrap().clone()
    }
}

struct CrashFile {
    disk: CrashDisk,
    log: bool,
    inner: Box<dyn WritableFile>,
}

impl WritableFile for CrashFile {
    fn append(&mut self, data: &[u8]) -> sparsetable::Result<()> {
        self.disk.spend()?;
        self.inner.append(data)?;
        if self.log && data.get(8) == Some(&RECORD_TYPE_COLLECTED_CELLS) {
            self.disk
                .events
                .lock()
                .unwrap()
                .push(Event::CollectedRecord);
        }
        Ok(())
    }
    fn sync(&mut self) -> sparsetable::Result<()> {
        self.disk.spend()?;
        self.inner.sync()
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
}

impl Storage for CrashDisk {
    fn create(&self, name: &str) -> sparsetable::Result<Box<dyn WritableFile>> {
        self.spend()?;
        Ok(Box::new(CrashFile {
            disk: self.clone(),
            log: name.ends_with(".log"),
            inner: self.files.create(name)?,
        }))
    }
    fn append_to(&self, name: &str) -> sparsetable::Result<Box<dyn WritableFile>> {
        self.spend()?;
        Ok(Box::new(CrashFile {
            disk: self.clone(),
            log: name.ends_with(".log"),
            inner: self.files.append_to(name)?,
        }))
    }
    fn open(&self, name: &str) -> sparsetable::Result<Arc<dyn RandomAccessFile>> {
        self.files.open(name)
    }
    fn rename(&self, from: &str, to: &str) -> sparsetable::Result<()> {
        self.spend()?;
        self.files.rename(from, to)?;
        if to == "MANIFEST" {
            self.events.lock().unwrap().push(Event::Manifest);
        }
        Ok(())
    }
    fn remove(&self, name: &str) -> sparsetable::Result<()> {
        self.spend()?;
        self.files.remove(name)
    }
    fn list(&self) -> sparsetable::Result<Vec<String>> {
        self.files.list()
    }
    fn sync_dir(&self) -> sparsetable::Result<()> {
        self.spend()?;
        self.files.sync_dir()
    }
}

fn open(
    disk: &CrashDisk,
    clock: &Arc<ManualClock>,
    durability: Durability,
    gc_mode: GcMode,
) -> Database {
    Database::open(
        Arc::new(disk.clone()),
        OpenOptions {
            durability,
            gc_mode,
            ..OpenOptions::default()
        },
        clock.clone(),
    )
    .unwrap()
}

fn table(rule: GcRule) -> TableConfig {
    let mut config = TableConfig::with_families(["cf"]);
    if let Some(f) = config.families.get_mut("cf") {
        *f = ColumnFamily {
            gc_rule: rule,
            ..f.clone()
        };
    }
    config
}

/// A collected cell: its row and timestamp (in `cf:q`).
type Cell = (Vec<u8>, i64);

/// Every (row, timestamp) of `cf:q` the table's GARBAGE_COLLECTION records name, in order.
fn collected(db: &Database) -> Vec<Cell> {
    let records = db.change_log("t").unwrap().since(0, None, &RowRange::all());
    let mut out = Vec::new();
    for r in records
        .iter()
        .filter(|r| r.kind == ChangeKind::GarbageCollection)
    {
        for m in &r.mutations {
            let Mutation::DeleteFromColumn { time_range, .. } = m else {
                panic!("a GC record holds only cells: {m:?}");
            };
            out.push((r.row_key.clone(), time_range.start_micros));
        }
    }
    out
}

/// Timestamps and values of the row's stored `cf:q` cells, collectable ones included.
fn stored(db: &Database, row: &[u8]) -> Vec<(i64, Vec<u8>)> {
    db.read_row_versions("t", row)
        .unwrap()
        .into_iter()
        .map(|c| (c.cell.timestamp_micros, c.cell.value.to_vec()))
        .collect()
}

/// A database with three rows of two versions under MaxNumVersions(1), checkpointed: the
/// collection below collects `a`, `b` and `c` @1000.
fn setup(disk: &CrashDisk, clock: &Arc<ManualClock>, durability: Durability) -> Database {
    let mut db = open(disk, clock, durability, GcMode::Immediate);
    db.create_table("t", table(GcRule::MaxNumVersions(1)))
        .unwrap();
    db.set_change_stream("t", Some(MIN_RETENTION_MICROS))
        .unwrap();
    for row in [b"a", b"b", b"c"] {
        for ts in [1000, 2000] {
            db.mutate_row("t", row, &[Mutation::set_cell("cf", b"q", ts, "v")])
                .unwrap();
        }
    }
    // Half of them in runs already, half in the log, as a collection finds them.
    db.checkpoint().unwrap();
    db.mutate_row("t", b"d", &[Mutation::set_cell("cf", b"q", 1000, "w")])
        .unwrap();
    clock.advance_micros(100);
    db
}

/// What a crash after `budget` storage changes of a collection leaves: the events that
/// happened before it, and the GC records after a restart and a second collection.
fn crash_during_collection(budget: u64, durability: Durability) -> (Vec<Event>, u64, Vec<Cell>) {
    let disk = CrashDisk::new();
    let clock = Arc::new(ManualClock::new(50_000_000));
    let mut db = setup(&disk, &clock, durability);
    disk.arm(budget);
    let finished = db.collect_garbage("t").is_ok();
    let used = disk.used.load(Ordering::SeqCst);
    let events = disk.events();
    assert!(
        finished || used == budget,
        "budget {budget}: died when it ran out"
    );
    drop(db);
    disk.arm(u64::MAX);
    clock.advance_micros(100);
    let mut db = open(&disk, &clock, durability, GcMode::Immediate);
    db.collect_garbage("t").unwrap();
    let records = collected(&db);
    for row in [b"a", b"b", b"c"] {
        assert_eq!(
            stored(&db, row),
            [(2000, b"v".to_vec())],
            "budget {budget}: the collection is done"
        );
    }
    assert_eq!(stored(&db, b"d"), [(1000, b"w".to_vec())]);
    // Opened again: the records are the same, none twice.
    drop(db);
    let db = open(&disk, &clock, durability, GcMode::Immediate);
    assert_eq!(collected(&db), records, "budget {budget}: opened again");
    (events, used, records)
}

/// A crash at every point of a collection, in each durability mode: every collected cell
/// has exactly one GARBAGE_COLLECTION record afterwards, and the three windows (before the
/// records reached the log, after that but before the manifest naming the compacted runs,
/// after that manifest) each happened at some point.
#[test]
fn each_collected_cell_is_recorded_once_whatever_point_the_process_dies_at() {
    let cells: Vec<Cell> = [b"a", b"b", b"c"]
        .iter()
        .map(|r| (r.to_vec(), 1000))
        .collect();
    for durability in [Durability::Sync, Durability::None] {
        // Uninterrupted: how many storage changes the collection makes.
        let (events, total, records) = crash_during_collection(u64::MAX, durability);
        assert_eq!(records, cells);
        assert_eq!(events, [Event::CollectedRecord, Event::Manifest]);
        let mut windows = [0; 3];
        for budget in 0..=total {
            let (events, _, records) = crash_during_collection(budget, durability);
            assert_eq!(
                records, cells,
                "{durability:?}, crash after {budget} of {total} changes ({events:?})"
            );
            let window = match events.as_slice() {
                [] => 0,
                [Event::CollectedRecord] => 1,
                [Event::CollectedRecord, Event::Manifest] => 2,
                other => panic!("unexpected order {other:?}"),
            };
            windows[window] += 1;
        }
        assert!(
            windows.iter().all(|&n| n > 0),
            "{durability:?}: every window was crashed in: {windows:?}"
        );
    }
}

/// The window between the records and the manifest (every manifest write fails from the
/// collection on), then writes of the collected cells again (same column and timestamp)
/// before the crash: recovery's deletes of the collected cells take their own sequences,
/// below every later write's, so the cells written again survive them. Background mode,
/// where a collectable cell stays readable, so the survivors are seen.
#[test]
fn a_cell_written_again_after_its_collection_survives_the_replayed_deletes() {
    use sparsetable::platform::storage::faulty::{Fault, FaultyStorage, Op};
    let files = MemStorage::new();
    let faulty = Arc::new(FaultyStorage::new(files.clone()));
    let clock = Arc::new(ManualClock::new(50_000_000));
    let options = OpenOptions {
        gc_mode: GcMode::Background,
        ..OpenOptions::default()
    };
    let mut db = Database::open(faulty.clone(), options.clone(), clock.clone()).unwrap();
    db.create_table("t", table(GcRule::MaxNumVersions(1)))
        .unwrap();
    db.set_change_stream("t", Some(MIN_RETENTION_MICROS))
        .unwrap();
    for row in [b"a", b"b"] {
        for ts in [1000, 2000] {
            db.mutate_row("t", row, &[Mutation::set_cell("cf", b"q", ts, "v")])
                .unwrap();
        }
    }
    clock.advance_micros(100);
    faulty.inject(Fault::io_error(Op::Rename).on_files("MANIFEST"));
    assert!(db.collect_garbage("t").is_err(), "no manifest was written");
    assert!(stored(&db, b"a").len() == 1 && stored(&db, b"b").len() == 1);
    // `b`'s collected cell took the record's last sequence: the next write's is above it.
    for row in [b"b", b"a"] {
        db.mutate_row("t", row, &[Mutation::set_cell("cf", b"q", 1000, "again")])
            .unwrap();
    }
    drop(db);
    let mut db = Database::open(Arc::new(files.clone()), options, clock.clone()).unwrap();
    for row in [b"a", b"b"] {
        assert_eq!(
            stored(&db, row),
            [(2000, b"v".to_vec()), (1000, b"again".to_vec())],
            "row {row:?}: the collected cell gone, the one written after it kept"
        );
    }
    let collected_once = vec![(b"a".to_vec(), 1000), (b"b".to_vec(), 1000)];
    assert_eq!(collected(&db), collected_once);
    // Collecting now collects the cells written again: new cells, new records.
    db.collect_garbage("t").unwrap();
    let mut expected = collected_once;
    expected.extend([(b"a".to_vec(), 1000), (b"b".to_vec(), 1000)]);
    assert_eq!(collected(&db), expected);
    for row in [b"a", b"b"] {
        assert_eq!(stored(&db, row), [(2000, b"v".to_vec())]);
    }
}

/// A log written by an engine before record type 7: its type 3 garbage collection record
/// (all cells sharing one sequence) still replays as it did, logged in the change stream and
/// never applied (the cells stay for the next collection, which records them again: the
/// window type 7 closes stays open for such a record), and the sequences go on after it.
#[test]
fn an_older_type_3_record_still_replays_logged_and_not_applied() {
    let disk = CrashDisk::new();
    let clock = Arc::new(ManualClock::new(50_000_000));
    let mut db = open(&disk, &clock, Durability::Sync, GcMode::Immediate);
    db.create_table("t", table(GcRule::MaxNumVersions(1)))
        .unwrap();
    db.set_change_stream("t", Some(MIN_RETENTION_MICROS))
        .unwrap();
    for ts in [1000, 2000, 3000] {
        db.mutate_row("t", b"a", &[Mutation::set_cell("cf", b"q", ts, "v")])
            .unwrap();
    }
    db.checkpoint().unwrap();
    drop(db);
    // What an older engine appended to the log the manifest names: the collection of
    // a @1000 and @2000, one record, one sequence (the checkpoint left the sequence at 3).
    let log = disk
        .files
        .list()
        .unwrap()
        .into_iter()
        .find(|n| n.ends_with(".log"))
        .unwrap();
    let cell = |ts: i64| Mutation::DeleteFromColumn {
        family: "cf".into(),
        qualifier: b"q".to_vec(),
        time_range: TimestampRange {
            start_micros: ts,
            end_micros: Some(ts + 1),
        },
    };
    let record = encode_record(&WriteBatch {
        sequence: 4,
        entries: vec![BatchEntry {
            table: "t".into(),
            row_key: b"a".to_vec(),
            mutations: vec![cell(1000), cell(2000)],
        }],
        commit_micros: Some(50_000_077),
        collected: true,
        one_sequence: true,
        origin: None,
        outbound: None,
    })
    .unwrap();
    assert_eq!(record[8], 3, "the older record type");
    let mut file = disk.files.append_to(&log).unwrap();
    file.append(&record).unwrap();
    file.sync().unwrap();
    drop(file);
    let mut db = open(&disk, &clock, Durability::Sync, GcMode::Immediate);
    assert_eq!(
        collected(&db),
        [(b"a".to_vec(), 1000), (b"a".to_vec(), 2000)],
        "logged in the change stream"
    );
    let records = db.change_log("t").unwrap().since(0, None, &RowRange::all());
    assert_eq!(records.last().unwrap().commit_micros, 50_000_077);
    assert_eq!(
        stored(&db, b"a").len(),
        3,
        "not applied: the cells are still stored"
    );
    // The next write's sequence is after the record's.
    db.mutate_row("t", b"b", &[Mutation::set_cell("cf", b"q", 1000, "x")])
        .unwrap();
    db.collect_garbage("t").unwrap();
    assert_eq!(
        collected(&db),
        [
            (b"a".to_vec(), 1000),
            (b"a".to_vec(), 2000),
            // A compaction lists a row's collected versions newest first.
            (b"a".to_vec(), 2000),
            (b"a".to_vec(), 1000)
        ],
        "the next collection records them again, as before type 7"
    );
}
