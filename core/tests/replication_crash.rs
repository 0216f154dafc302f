//! Crash windows of a replicated instance kept on storage: every cluster's copy is a
//! durable database and the queue of writes on their way is a file. A crash is simulated
//! deterministically: the databases and the queue are dropped without any shutdown work
//! and reopened from the same storage, with the queue file put back as it was at the moment
//! the process is taken to have died.

use std::sync::Arc;

use sparsetable::platform::storage::{read_all, MemStorage, Storage};
use sparsetable::{
    ColumnFamily, Database, ManualClock, Mutation, OpenOptions, ReplicatedInstance, SharedDatabase,
    TableConfig, ValueType,
};

const START: i64 = 1_700_000_000_000_000;
const SECOND: i64 = 1_000_000;

/// Two clusters' storage and the queue's, on one manual clock.
struct Disk {
    clock: Arc<ManualClock>,
    copies: [MemStorage; 2],
    queue: MemStorage,
}

impl Disk {
    fn new() -> Self {
        Disk {
            clock: Arc::new(ManualClock::new(START)),
            copies: [MemStorage::new(), MemStorage::new()],
            queue: MemStorage::new(),
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
        read_all(&self.queue, "REPLICATION").unwrap()
    }

    /// Puts the queue file back as it was (the later replacement never happened).
    fn put_queue_file(&self, bytes: &[u8]) {
        let mut f = self.queue.create("REPLICATION").unwrap();
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
