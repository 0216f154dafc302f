//! Crash windows of a replicated instance kept on storage: every cluster's copy is a
//! durable database and the queue of writes on their way is a file. A crash is simulated
//! deterministically: the databases and the queue are dropped without any shutdown work
//! and reopened from the same storage, with the queue file put back as it was at the moment
//! the process is taken to have died.

use std::sync::Arc;

use std::sync::atomic::{AtomicBool, Ordering};

use sparsetable::platform::storage::{
    read_all, MemStorage, RandomAccessFile, Storage, WritableFile,
};
use sparsetable::{
    ColumnFamily, Database, ManualClock, Mutation, OpenOptions, ReplicatedInstance, SharedDatabase,
    TableConfig, ValueType,
};

const START: i64 = 1_700_000_000_000_000;
const SECOND: i64 = 1_000_000;

/// The queue's storage, which can be made to refuse renames: the queue file is then never
/// replaced, as if the process died just before (the writes of that pump were taken from
/// their databases and applied, but not recorded on storage).
#[derive(Clone, Default)]
struct QueueDisk {
    files: MemStorage,
    frozen: Arc<AtomicBool>,
}

impl Storage for QueueDisk {
    fn create(&self, name: &str) -> sparsetable::Result<Box<dyn WritableFile>> {
        self.files.create(name)
    }
    fn append_to(&self, name: &str) -> sparsetable::Result<Box<dyn WritableFile>> {
        self.files.append_to(name)
    }
    fn open(&self, name: &str) -> sparsetable::Result<Arc<dyn RandomAccessFile>> {
        self.files.open(name)
    }
    fn rename(&self, from: &str, to: &str) -> sparsetable::Result<()> {
        if self.frozen.load(Ordering::SeqCst) {
            return Err(sparsetable::Error::new(
                sparsetable::Code::Unavailable,
                "the process died here",
            ));
        }
        self.files.rename(from, to)
    }
    fn remove(&self, name: &str) -> sparsetable::Result<()> {
        self.files.remove(name)
    }
    fn list(&self) -> sparsetable::Result<Vec<String>> {
        self.files.list()
    }
    fn sync_dir(&self) -> sparsetable::Result<()> {
        self.files.sync_dir()
    }
}

/// Two clusters' storage and the queue's, on one manual clock.
struct Disk {
    clock: Arc<ManualClock>,
    copies: [MemStorage; 2],
    queue: QueueDisk,
}

impl Disk {
    fn new() -> Self {
        Disk {
            clock: Arc::new(ManualClock::new(START)),
            copies: [MemStorage::new(), MemStorage::new()],
            queue: QueueDisk::default(),
        }
    }

    /// Opens the instance (`c1`, `c2`, a 2 s lag) as a starting process does.
    fn open(&self) -> (Vec<SharedDatabase>, ReplicatedInstance) {
        let dbs: Vec<SharedDatabase> = self
            .copies
            .iter()
            .map(|s| {
                let db = Database::open(
                    Arc::new(s.clone()),
                    OpenOptions::default(),
                    self.clock.clone(),
                )
                .unwrap();
                SharedDatabase::new(db)
            })
            .collect();
        let inst = ReplicatedInstance::new(vec![
            ("c1".into(), dbs[0].clone()),
            ("c2".into(), dbs[1].clone()),
        ])
        .unwrap()
        .with_queue_storage(Arc::new(self.queue.clone()))
        .unwrap();
        inst.set_delay_micros(2 * SECOND).unwrap();
        (dbs, inst)
    }

    fn queue_file(&self) -> Vec<u8> {
        read_all(&self.queue.files, "REPLICATION").unwrap()
    }

    /// Puts the queue file back as it was (the later replacement never happened).
    fn put_queue_file(&self, bytes: &[u8]) {
        let mut f = self.queue.files.create("REPLICATION").unwrap();
        f.append(bytes).unwrap();
        f.sync().unwrap();
    }
}

fn counter_table() -> TableConfig {
    let mut config = TableConfig::with_families(["cf"]);
    config.families.insert(
        "n".into(),
        ColumnFamily {
            value_type: ValueType::Int64Sum,
            ..ColumnFamily::default()
        },
    );
    config
}

fn add(n: i64) -> Mutation {
    Mutation::AddToCell {
        family: "n".into(),
        qualifier: b"q".to_vec(),
        timestamp_micros: 0,
        input: n,
    }
}

/// The counter `r` `n:q` at one copy (None when the row is not there).
fn sum(db: &SharedDatabase) -> Option<i64> {
    let row = db.read_row("t", b"r").unwrap()?;
    let cell = row.cells.iter().find(|c| c.family == "n")?;
    Some(i64::from_be_bytes(
        cell.value.as_slice().try_into().unwrap(),
    ))
}

#[test]
fn an_add_to_cell_applied_just_before_a_crash_is_not_merged_again() {
    // Twice: the replica's mark recovered from its commit log (the crash comes right after
    // the write), and from its marks file (a checkpoint dropped that log first).
    for checkpoint_before_crash in [false, true] {
        let disk = Disk::new();
        let (dbs, inst) = disk.open();
        inst.primary()
            .write(|d| d.create_table("t", counter_table()))
            .unwrap();
        inst.pump().unwrap();
        dbs[0].mutate_row("t", b"r", &[add(5)]).unwrap();
        inst.after_write(0).unwrap();
        // What the file says while the write is on its way: c2 has yet to apply it.
        let on_its_way = disk.queue_file();
        disk.clock.advance_micros(2 * SECOND);
        inst.pump().unwrap();
        assert_eq!(sum(&dbs[1]), Some(5), "delivered");
        if checkpoint_before_crash {
            dbs[1].write(|d| d.checkpoint()).unwrap();
        }
        // The process dies after c2 applied the write, before the queue file recorded it.
        disk.put_queue_file(&on_its_way);
        drop((dbs, inst));

        let (dbs, inst) = disk.open();
        disk.clock.advance_micros(2 * SECOND);
        inst.pump().unwrap();
        assert_eq!(sum(&dbs[0]), Some(5));
        assert_eq!(
            sum(&dbs[1]),
            Some(5),
            "counted once (checkpoint before the crash: {checkpoint_before_crash})"
        );
        assert_eq!(inst.in_flight().unwrap(), 0);
        // Replication goes on: a new increment reaches c2 once, and the arrival numbers
        // continue above the mark.
        dbs[0].mutate_row("t", b"r", &[add(2)]).unwrap();
        inst.after_write(0).unwrap();
        disk.clock.advance_micros(2 * SECOND);
        inst.pump().unwrap();
        assert_eq!(sum(&dbs[1]), Some(7));
        // And the state survives a clean restart too.
        drop((dbs, inst));
        let (dbs, inst) = disk.open();
        disk.clock.advance_micros(2 * SECOND);
        inst.pump().unwrap();
        assert_eq!((sum(&dbs[0]), sum(&dbs[1])), (Some(7), Some(7)));
    }
}

#[test]
fn a_write_committed_before_its_queue_entry_was_written_reaches_every_cluster() {
    // The process dies after c1 committed the increment of 2 and before the queue file
    // recorded it: the write not yet taken from c1's database, taken but the file not yet
    // replaced, and either with c1's log dropped by a checkpoint since.
    for (taken, checkpoint) in [(false, false), (false, true), (true, false), (true, true)] {
        let disk = Disk::new();
        let (dbs, inst) = disk.open();
        inst.primary()
            .write(|d| d.create_table("t", counter_table()))
            .unwrap();
        inst.pump().unwrap();
        dbs[0].mutate_row("t", b"r", &[add(5)]).unwrap();
        inst.after_write(0).unwrap();
        let before = disk.queue_file();
        dbs[0].mutate_row("t", b"r", &[add(2)]).unwrap();
        if taken {
            // Taken from c1 and queued, and the process dies before the file is replaced.
            disk.queue.frozen.store(true, Ordering::SeqCst);
            inst.pump().unwrap_err();
            assert_eq!(inst.in_flight().unwrap(), 2);
            disk.queue.frozen.store(false, Ordering::SeqCst);
        }
        assert_eq!(disk.queue_file(), before, "the file lacks the write");
        if checkpoint {
            dbs[0].write(|d| d.checkpoint()).unwrap();
        }
        drop((dbs, inst));

        let case = format!("taken {taken}, checkpoint {checkpoint}");
        let (dbs, inst) = disk.open();
        assert_eq!(sum(&dbs[0]), Some(7), "{case}");
        disk.clock.advance_micros(2 * SECOND);
        inst.pump().unwrap();
        assert_eq!(
            sum(&dbs[1]),
            Some(7),
            "both increments reached c2 once ({case})"
        );
        assert_eq!(inst.in_flight().unwrap(), 0, "{case}");
        assert!(
            dbs[0].read(|d| Ok(d.outbound().is_empty())).unwrap(),
            "{case}"
        );
        // Restarting again records nothing a second time.
        drop((dbs, inst));
        let (dbs, inst) = disk.open();
        disk.clock.advance_micros(2 * SECOND);
        inst.pump().unwrap();
        assert_eq!((sum(&dbs[0]), sum(&dbs[1])), (Some(7), Some(7)), "{case}");
        assert_eq!(inst.in_flight().unwrap(), 0, "{case}");
    }
}

#[test]
fn an_outbound_write_survives_a_crash_during_the_restart_that_recovers_it() {
    let disk = Disk::new();
    let (dbs, inst) = disk.open();
    inst.primary()
        .write(|d| d.create_table("t", counter_table()))
        .unwrap();
    inst.pump().unwrap();
    let empty_queue = disk.queue_file();
    dbs[0].mutate_row("t", b"r", &[add(3)]).unwrap();
    drop((dbs, inst));
    // The next start dies right after opening c1 (whose open checkpoints, carrying the
    // outbound write into its new log) and before the instance recorded it.
    let db = Database::open(
        Arc::new(disk.copies[0].clone()),
        OpenOptions::default(),
        disk.clock.clone(),
    )
    .unwrap();
    assert_eq!(db.outbound().len(), 1);
    drop(db);
    disk.put_queue_file(&empty_queue);
    let (dbs, inst) = disk.open();
    disk.clock.advance_micros(2 * SECOND);
    inst.pump().unwrap();
    assert_eq!((sum(&dbs[0]), sum(&dbs[1])), (Some(3), Some(3)));
}

/// A queue file written by hand: version 1 (no `captured-through`), 3 writes ever queued,
/// clusters `c1` and `c2`, and arrival 3, from `c1`, pending at `c2`.
fn version_1_queue() -> Vec<u8> {
    use sparsetable::codec::encoding::{
        put_bool, put_fixed32, put_len, put_str, put_varint64, put_varint_i64, Encode, CRC32C,
    };
    use sparsetable::durability::commit_log::{BatchEntry, WriteBatch};
    let mut v1 = b"sparsetable-replication 1\n".to_vec();
    put_varint64(&mut v1, 3);
    put_len(&mut v1, 2);
    put_str(&mut v1, "c1");
    put_str(&mut v1, "c2");
    put_len(&mut v1, 1);
    put_varint_i64(&mut v1, START);
    put_len(&mut v1, 0);
    put_bool(&mut v1, false);
    put_bool(&mut v1, true);
    WriteBatch {
        sequence: 3,
        entries: vec![BatchEntry {
            table: "t".into(),
            row_key: b"r".to_vec(),
            mutations: vec![Mutation::set_cell("cf", "q", 1000, "v")],
        }],
        ..Default::default()
    }
    .encode_to(&mut v1);
    let crc = CRC32C.checksum(&v1);
    put_fixed32(&mut v1, crc);
    v1
}

#[test]
fn the_queue_file_restores_across_versions_with_marks_and_outbound_writes() {
    use sparsetable::{CommittedWrite, Replication, RowMutations};
    use std::collections::BTreeMap;
    let fresh = || Replication::new(vec!["c1".into(), "c2".into()]).unwrap();
    // c1 still holds one write of its own as outbound, sequence 10.
    let outbound = vec![
        vec![CommittedWrite {
            table_id: "t".into(),
            rows: vec![RowMutations {
                row_key: b"s".to_vec(),
                mutations: vec![add(1)],
            }],
            commit_micros: START + 1,
            sequence: 10,
        }],
        vec![],
    ];
    let mut r = fresh();
    r.restore_queue_with(&version_1_queue(), &[], &outbound)
        .unwrap();
    assert_eq!(
        r.in_flight(),
        1,
        "a version 1 file's writers kept nothing outbound"
    );
    assert_eq!(r.captured_through(0), 10);
    // What this build writes is version 2; it says c1's writes were recorded through 10.
    let v2 = r.encode_queue();
    assert!(v2.starts_with(b"sparsetable-replication 2\n"));
    let mut r = fresh();
    r.restore_queue_with(&v2, &[], &outbound).unwrap();
    assert_eq!(r.in_flight(), 1, "nothing recorded twice");
    // A version 2 file that recorded c1 only through 9 lacks the outbound write.
    let mut behind = fresh();
    behind
        .restore_queue_with(&version_1_queue(), &[], &[])
        .unwrap();
    let mut r = fresh();
    r.restore_queue_with(&behind.encode_queue(), &[], &outbound)
        .unwrap();
    assert_eq!(r.in_flight(), 2, "the write the file lacked is on its way");
    assert_eq!(r.captured_through(0), 10);
    // c2's mark for c1 covers arrival 3: delivered before the stop, not pending again, and
    // the arrival counter continues above the mark.
    let marks = vec![BTreeMap::new(), BTreeMap::from([("c1".to_string(), 3)])];
    let mut r = fresh();
    r.restore_queue_with(&version_1_queue(), &marks, &[])
        .unwrap();
    assert_eq!(r.in_flight(), 0);
    // A mark for another source, or a lower one, leaves it pending.
    for other in [("c2", 3), ("c1", 2)] {
        let marks = vec![
            BTreeMap::new(),
            BTreeMap::from([(other.0.to_string(), other.1)]),
        ];
        let mut r = fresh();
        r.restore_queue_with(&version_1_queue(), &marks, &[])
            .unwrap();
        assert_eq!(r.in_flight(), 1, "{other:?}");
    }
}

#[test]
fn a_sources_writes_reach_a_cluster_in_arrival_order_even_if_its_clock_stepped_back() {
    use sparsetable::{CommittedWrite, Replication, RowMutations};
    let mut r = Replication::new(vec!["c1".into(), "c2".into()]).unwrap();
    let write = |commit, sequence, row: &str| CommittedWrite {
        table_id: "t".into(),
        rows: vec![RowMutations {
            row_key: row.as_bytes().to_vec(),
            mutations: vec![add(1)],
        }],
        commit_micros: commit,
        sequence,
    };
    r.record(0, vec![write(START + 10, 1, "a"), write(START + 5, 2, "b")]);
    let delivered = r.pump(START + 10);
    let arrivals: Vec<u64> = delivered.iter().map(|d| d.origin.arrival).collect();
    assert_eq!(arrivals, [1, 2], "the second write waited for the first");
    // Its commit time was raised to the first's: one mark per source covers a prefix.
    assert_eq!(delivered[1].writes[0].commit_micros, START + 10);
}

#[test]
fn a_replicated_write_is_not_the_receiving_copys_change_after_recovery() {
    let disk = Disk::new();
    let (dbs, inst) = disk.open();
    inst.primary()
        .write(|d| d.create_table("t", counter_table()))
        .unwrap();
    inst.pump().unwrap();
    for db in &dbs {
        db.write(|d| d.set_change_stream("t", Some(24 * 3600 * SECOND)))
            .unwrap();
    }
    dbs[0].mutate_row("t", b"r", &[add(5)]).unwrap();
    inst.after_write(0).unwrap();
    disk.clock.advance_micros(2 * SECOND);
    inst.pump().unwrap();
    let changes = |db: &SharedDatabase| {
        db.read(|d| {
            Ok(d.change_log("t")
                .map_or(0, |l| l.since(0, None, &sparsetable::RowRange::all()).len()))
        })
        .unwrap()
    };
    assert_eq!((changes(&dbs[0]), changes(&dbs[1])), (1, 0));
    // The process dies; c2 recovers the delivered write from its log (record type 4).
    drop((dbs, inst));
    let (dbs, _inst) = disk.open();
    assert_eq!(sum(&dbs[1]), Some(5));
    assert_eq!(
        (changes(&dbs[0]), changes(&dbs[1])),
        (1, 0),
        "the change is c1's alone"
    );
}

/// Queue storage that counts the fsyncs of the files it creates.
#[derive(Clone, Default)]
struct CountingDisk {
    files: MemStorage,
    syncs: Arc<std::sync::atomic::AtomicUsize>,
}

struct CountingFile {
    inner: Box<dyn WritableFile>,
    syncs: Arc<std::sync::atomic::AtomicUsize>,
}

impl WritableFile for CountingFile {
    fn append(&mut self, data: &[u8]) -> sparsetable::Result<()> {
        self.inner.append(data)
    }
    fn sync(&mut self) -> sparsetable::Result<()> {
        self.syncs.fetch_add(1, Ordering::SeqCst);
        self.inner.sync()
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
}

impl Storage for CountingDisk {
    fn create(&self, name: &str) -> sparsetable::Result<Box<dyn WritableFile>> {
        Ok(Box::new(CountingFile {
            inner: self.files.create(name)?,
            syncs: self.syncs.clone(),
        }))
    }
    fn append_to(&self, name: &str) -> sparsetable::Result<Box<dyn WritableFile>> {
        self.files.append_to(name)
    }
    fn open(&self, name: &str) -> sparsetable::Result<Arc<dyn RandomAccessFile>> {
        self.files.open(name)
    }
    fn rename(&self, from: &str, to: &str) -> sparsetable::Result<()> {
        self.files.rename(from, to)
    }
    fn remove(&self, name: &str) -> sparsetable::Result<()> {
        self.files.remove(name)
    }
    fn list(&self) -> sparsetable::Result<Vec<String>> {
        self.files.list()
    }
    fn sync_dir(&self) -> sparsetable::Result<()> {
        self.files.sync_dir()
    }
}

#[test]
fn the_queue_file_is_fsynced_as_the_clusters_databases_are() {
    for (durability, synced) in [
        (sparsetable::Durability::Sync, true),
        (sparsetable::Durability::Interval { micros: SECOND }, true),
        (sparsetable::Durability::None, false),
    ] {
        let clock = Arc::new(ManualClock::new(START));
        let copies = [MemStorage::new(), MemStorage::new()];
        let queue = CountingDisk::default();
        let open = || {
            let dbs: Vec<SharedDatabase> = copies
                .iter()
                .map(|s| {
                    let options = OpenOptions {
                        durability,
                        ..OpenOptions::default()
                    };
                    let db = Database::open(Arc::new(s.clone()), options, clock.clone()).unwrap();
                    SharedDatabase::new(db)
                })
                .collect();
            let inst = ReplicatedInstance::new(vec![
                ("c1".into(), dbs[0].clone()),
                ("c2".into(), dbs[1].clone()),
            ])
            .unwrap()
            .with_queue_storage(Arc::new(queue.clone()))
            .unwrap();
            inst.set_delay_micros(2 * SECOND).unwrap();
            (dbs, inst)
        };
        let (dbs, inst) = open();
        inst.primary()
            .write(|d| d.create_table("t", counter_table()))
            .unwrap();
        inst.pump().unwrap();
        let before = queue.syncs.load(Ordering::SeqCst);
        dbs[0].mutate_row("t", b"r", &[add(5)]).unwrap();
        inst.after_write(0).unwrap();
        let syncs = queue.syncs.load(Ordering::SeqCst) - before;
        assert_eq!(syncs > 0, synced, "{durability:?}: {syncs} queue fsyncs");
        // Written either way: a process that stops here resumes the delivery.
        drop((dbs, inst));
        let (dbs, inst) = open();
        assert_eq!(inst.in_flight().unwrap(), 1, "{durability:?}");
        clock.advance_micros(2 * SECOND);
        inst.pump().unwrap();
        assert_eq!(sum(&dbs[1]), Some(5), "{durability:?}");
    }
}
