//! Durability: a database on storage, reopened at any point, reads exactly like an in-memory
//! database given the same operations; backups survive reopening; corrupt files give
//! DataLoss or correct data, never a panic and never wrong data.

use std::sync::Arc;

use proptest::prelude::*;
use sparsetable::platform::storage::{MemStorage, Storage};
use sparsetable::{
    Code, ColumnFamily, Database, DropRowRange, Durability, GcRule, ManualClock, Mutation,
    OpenOptions, ReadRowsRequest, Row, SharedDatabase, TableConfig, TabletOptions, TimestampRange,
};

const NOW: i64 = 50_000_000;

fn config() -> TableConfig {
    let mut c = TableConfig {
        tablet_options: TabletOptions {
            memtable_bytes: 300,
            max_runs: 2,
            split_bytes: 1_500,
            merge_bytes: 300,
            split_load_ops: 0,
        },
        initial_splits: vec![b"r3".to_vec()],
        ..TableConfig::with_families(["a"])
    };
    c.families.insert(
        "s".into(),
        ColumnFamily {
            value_type: sparsetable::ValueType::Int64Sum,
            ..ColumnFamily::default()
        },
    );
    c.families.insert(
        "h".into(),
        ColumnFamily {
            value_type: sparsetable::ValueType::HllUniqueCount,
            ..ColumnFamily::default()
        },
    );
    c.families.insert(
        "b".into(),
        ColumnFamily {
            gc_rule: GcRule::MaxNumVersions(2),
            ..ColumnFamily::default()
        },
    );
    c
}

fn options() -> OpenOptions {
    OpenOptions {
        durability: Durability::None,
        log_rotate_bytes: 2_000,
        ..OpenOptions::default()
    }
}

fn open(storage: &MemStorage) -> Database {
    open_at(storage, &Arc::new(ManualClock::new(NOW)))
}

fn open_at(storage: &MemStorage, clock: &Arc<ManualClock>) -> Database {
    Database::open(Arc::new(storage.clone()), options(), clock.clone()).unwrap()
}

fn all_rows(db: &Database) -> Vec<Row> {
    db.read_rows("t", &ReadRowsRequest::default())
        .unwrap()
        .collect()
}

#[derive(Debug, Clone)]
enum Op {
    Mutate(u8, Vec<Mutation>),
    Compact,
    Reopen,
    DropPrefix(u8),
    /// A minute passes: writes before and after it count in different load buckets, so a
    /// recovery (which replays them all at once) can split where the writes did not.
    Tick,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let fam = prop_oneof![Just("a"), Just("b")];
    prop_oneof![
        4 => (fam.clone(), 0u8..3, 0i64..8, 0u8..4).prop_map(|(f, q, t, v)| {
            Mutation::set_cell(f, format!("q{q}"), t * 1000, format!("v{v}"))
        }),
        1 => (fam.clone(), 0u8..3, 0i64..8).prop_map(|(f, q, t)| Mutation::DeleteFromColumn {
            family: f.into(),
            qualifier: format!("q{q}").into_bytes(),
            time_range: TimestampRange { start_micros: t * 1000, end_micros: Some(t * 1000 + 3000) },
        }),
        1 => fam.prop_map(|f| Mutation::DeleteFromFamily { family: f.into() }),
        1 => Just(Mutation::DeleteFromRow),
        2 => (0u8..2, 1i64..5).prop_map(|(q, n)| Mutation::AddToCell {
            family: "s".into(),
            qualifier: format!("n{q}").into_bytes(),
            timestamp_micros: 0,
            input: n,
        }),
        // The HyperLogLog++ family: int64 inputs and raw inputs' one-value sketches.
        1 => (0u8..2, 0i64..20).prop_map(|(q, n)| Mutation::AddToCell {
            family: "h".into(),
            qualifier: format!("u{q}").into_bytes(),
            timestamp_micros: 0,
            input: n,
        }),
        1 => (0u8..2, 0u8..20).prop_map(|(q, n)| Mutation::MergeToCell {
            family: "h".into(),
            qualifier: format!("u{q}").into_bytes(),
            timestamp_micros: 0,
            state: sparsetable::model::aggregate::raw_input_state(&[n]),
        }),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (0u8..6, proptest::collection::vec(mutation(), 1..4)).prop_map(|(r, m)| Op::Mutate(r, m)),
        1 => Just(Op::Compact),
        2 => Just(Op::Reopen),
        1 => (0u8..6).prop_map(Op::DropPrefix),
        2 => Just(Op::Tick),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn reopened_database_reads_like_an_in_memory_one(
        ops in proptest::collection::vec(op(), 1..80),
        split_load_ops in prop_oneof![Just(0u64), 4u64..12],
        memtable_bytes in prop_oneof![Just(300u64), Just(4_000)],
    ) {
        let storage = MemStorage::new();
        let clock = Arc::new(ManualClock::new(NOW));
        let mut db = open_at(&storage, &clock);
        let mut config = config();
        config.tablet_options.split_load_ops = split_load_ops;
        config.tablet_options.memtable_bytes = memtable_bytes;
        db.create_table("t", config.clone()).unwrap();
        let mut reference = Database::with_clock(clock.clone());
        reference.create_table("t", config).unwrap();
        for op in ops {
            match op {
                Op::Mutate(r, muts) => {
                    let key = format!("r{r}");
                    let a = db.mutate_row("t", key.as_bytes(), &muts).is_ok();
                    let b = reference.mutate_row("t", key.as_bytes(), &muts).is_ok();
                    prop_assert_eq!(a, b);
                }
                Op::Compact => db.compact_table("t").unwrap(),
                Op::DropPrefix(r) => {
                    let p = format!("r{r}").into_bytes();
                    db.drop_row_range("t", &DropRowRange::Prefix(p.clone())).unwrap();
                    reference.drop_row_range("t", &DropRowRange::Prefix(p)).unwrap();
                }
                Op::Reopen => {
                    drop(db);
                    db = open_at(&storage, &clock);
                }
                Op::Tick => clock.advance_micros(61_000_000),
            }
            prop_assert_eq!(all_rows(&db), all_rows(&reference));
        }
        drop(db);
        let db = open_at(&storage, &clock);
        prop_assert_eq!(all_rows(&db), all_rows(&reference));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// The same through `SharedDatabase`, whose background thread flushes, compacts and
    /// splits while the operations go on; `waits` says after which operations the test
    /// waits for the background (elsewhere passes run whenever the thread gets to them).
    /// Reopening drops the handle without any close.
    #[test]
    fn reopened_shared_database_with_background_maintenance_reads_like_an_in_memory_one(
        ops in proptest::collection::vec(op(), 1..80),
        waits in proptest::collection::vec(any::<bool>(), 80),
        split_load_ops in prop_oneof![Just(0u64), 4u64..12],
        memtable_bytes in prop_oneof![Just(300u64), Just(4_000)],
    ) {
        let storage = MemStorage::new();
        let clock = Arc::new(ManualClock::new(NOW));
        let mut config = config();
        config.tablet_options.split_load_ops = split_load_ops;
        config.tablet_options.memtable_bytes = memtable_bytes;
        let mut first = open_at(&storage, &clock);
        first.create_table("t", config.clone()).unwrap();
        let mut db = SharedDatabase::new(first);
        let mut reference = Database::with_clock(clock.clone());
        reference.create_table("t", config).unwrap();
        let shared_rows = |db: &SharedDatabase| db.read_rows("t", &ReadRowsRequest::default()).unwrap();
        for (op, wait) in ops.into_iter().zip(waits) {
            match op {
                Op::Mutate(r, muts) => {
                    let key = format!("r{r}");
                    let a = db.mutate_row("t", key.as_bytes(), &muts).is_ok();
                    let b = reference.mutate_row("t", key.as_bytes(), &muts).is_ok();
                    prop_assert_eq!(a, b);
                }
                Op::Compact => db.write(|d| d.compact_table("t")).unwrap(),
                Op::DropPrefix(r) => {
                    let p = format!("r{r}").into_bytes();
                    db.write(|d| d.drop_row_range("t", &DropRowRange::Prefix(p.clone()))).unwrap();
                    reference.drop_row_range("t", &DropRowRange::Prefix(p)).unwrap();
                }
                Op::Reopen => {
                    drop(db);
                    db = SharedDatabase::new(open_at(&storage, &clock));
                }
                Op::Tick => clock.advance_micros(61_000_000),
            }
            if wait {
                db.wait_maintenance().unwrap();
            }
            prop_assert_eq!(shared_rows(&db), all_rows(&reference));
        }
        drop(db);
        let db = open_at(&storage, &clock);
        prop_assert_eq!(all_rows(&db), all_rows(&reference));
    }
}

#[test]
fn a_database_in_a_directory_survives_reopening() {
    let dir = std::env::temp_dir().join(format!("sparsetable-durability-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    {
        let mut db = Database::open_dir(&dir, OpenOptions::default()).unwrap();
        db.create_table("t", TableConfig::with_families(["cf"]))
            .unwrap();
        for i in 0..100u32 {
            db.mutate_row(
                "t",
                format!("k{i:03}").as_bytes(),
                &[Mutation::set_cell("cf", b"q", 1000, b"v")],
            )
            .unwrap();
        }
    }
    let db = Database::open_dir(&dir, OpenOptions::default()).unwrap();
    assert_eq!(
        db.read_rows("t", &ReadRowsRequest::default())
            .unwrap()
            .count(),
        100
    );
    assert_eq!(db.list_tables().len(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn backups_and_schema_changes_survive_reopening() {
    let storage = MemStorage::new();
    let mut db = open(&storage);
    db.create_table("t", config()).unwrap();
    for i in 0..50u32 {
        db.mutate_row(
            "t",
            format!("r{i:02}").as_bytes(),
            &[
                Mutation::set_cell("a", b"q", 1000, b"old"),
                Mutation::set_cell("b", b"q", 1000, b"b"),
            ],
        )
        .unwrap();
    }
    db.create_backup("t", "bk").unwrap();
    db.mutate_row("t", b"r00", &[Mutation::set_cell("a", b"q", 2000, b"new")])
        .unwrap();
    db.modify_column_families(
        "t",
        &[sparsetable::FamilyModification::Drop { name: "b".into() }],
    )
    .unwrap();
    db.set_deletion_protection("t", true).unwrap();
    drop(db);

    let mut db = open(&storage);
    assert!(db.get_table("t").unwrap().config.deletion_protection);
    assert!(!db.get_table("t").unwrap().config.families.contains_key("b"));
    let r00 = db.read_row("t", b"r00").unwrap().unwrap();
    assert_eq!(
        r00.cells.len(),
        2,
        "two versions of a:q, family b gone: {r00:?}"
    );
    db.restore_table("bk", "restored").unwrap();
    let rows: Vec<Row> = db
        .read_rows("restored", &ReadRowsRequest::default())
        .unwrap()
        .collect();
    assert_eq!(rows.len(), 50);
    assert!(rows
        .iter()
        .all(|r| r.cells.len() == 2 && r.cells[0].value == b"old"));
    // Re-creating the dropped family starts empty, also after a reopen.
    db.modify_column_families(
        "t",
        &[sparsetable::FamilyModification::Create {
            name: "b".into(),
            family: ColumnFamily::default(),
        }],
    )
    .unwrap();
    drop(db);
    let db = open(&storage);
    assert!(db
        .read_row("t", b"r01")
        .unwrap()
        .unwrap()
        .cells
        .iter()
        .all(|c| c.family != "b"));
}

/// Flips bits in and truncates every file of a small database: reopening with
/// `verify_on_open` must give DataLoss (or, where the damage only hits a torn log tail, the
/// data as written) and never panic or return rows that were never written.
#[test]
fn damaged_files_are_data_loss_never_wrong_data() {
    damaged_files_are_found(true);
}

/// The same damage, opened the default way (runs' data blocks read lazily): a damaged run
/// file fails the open (its metadata) or the read that touches the bad block, and
/// `Database::verify` always finds it; no read returns rows that were never written or
/// silently fewer rows than were written.
#[test]
fn damaged_files_are_data_loss_at_the_read_or_the_verify() {
    damaged_files_are_found(false);
}

fn damaged_files_are_found(verify_on_open: bool) {
    let storage = MemStorage::new();
    let mut db = open(&storage);
    db.create_table("t", config()).unwrap();
    for i in 0..30u32 {
        db.mutate_row(
            "t",
            format!("r{i:02}").as_bytes(),
            &[Mutation::set_cell("a", b"q", 1000, b"value")],
        )
        .unwrap();
    }
    // Leave some writes only in the log.
    db.checkpoint().unwrap();
    for i in 30..35u32 {
        db.mutate_row(
            "t",
            format!("r{i:02}").as_bytes(),
            &[Mutation::set_cell("a", b"q", 1000, b"value")],
        )
        .unwrap();
    }
    let expected = all_rows(&db);
    drop(db);
    let pristine: Vec<(String, Vec<u8>)> = storage
        .list()
        .unwrap()
        .into_iter()
        .map(|n| {
            let bytes = sparsetable::platform::storage::read_all(&storage, &n).unwrap();
            (n, bytes)
        })
        .collect();
    assert!(pristine.iter().any(|(n, _)| n.ends_with(".sst")));
    let restore = |s: &MemStorage| {
        for n in s.list().unwrap() {
            s.remove(&n).unwrap();
        }
        for (n, b) in &pristine {
            s.set_bytes(n, b.clone());
        }
    };
    let options = OpenOptions {
        verify_on_open,
        ..options()
    };
    // Found at open, read in full, found at the read (lazy opening only), read short.
    let mut outcomes = [0usize; 4];
    for (name, bytes) in &pristine {
        let step = (bytes.len() / 40).max(1);
        let damages: Vec<Vec<u8>> = (0..bytes.len())
            .step_by(step)
            .map(|i| {
                let mut b = bytes.clone();
                b[i] ^= 0x5a;
                b
            })
            .chain((0..bytes.len()).step_by(step).map(|i| bytes[..i].to_vec()))
            .collect();
        for damaged in damages {
            let s = MemStorage::new();
            restore(&s);
            s.set_bytes(name, damaged);
            match Database::open(
                Arc::new(s.clone()),
                options.clone(),
                Arc::new(ManualClock::new(NOW)),
            ) {
                Err(e) => {
                    assert!(
                        matches!(
                            e.code(),
                            Code::DataLoss | Code::NotFound | Code::Unimplemented
                        ),
                        "{name}: unexpected {e}"
                    );
                    outcomes[0] += 1;
                }
                Ok(db) => {
                    let rows = db
                        .read_rows("t", &ReadRowsRequest::default())
                        .and_then(|r| r.into_rows());
                    match rows {
                        Ok(rows) => {
                            // A torn log tail may lose the last writes, never invent any.
                            assert!(
                                rows.iter().all(|r| expected.contains(r)),
                                "{name}: wrong data"
                            );
                            // Only the log may lose writes quietly: a run file read in
                            // full held every row it was given.
                            assert!(
                                rows == expected || !name.ends_with(".sst"),
                                "{name}: rows missing without an error"
                            );
                            outcomes[if rows == expected { 1 } else { 3 }] += 1;
                        }
                        Err(e) if e.code() == Code::DataLoss => {
                            assert!(!verify_on_open, "{name}: verified at open, then {e}");
                            assert!(e.message().contains(".sst"), "{name}: {e}");
                            outcomes[2] += 1;
                        }
                        Err(e) => assert_eq!(e.code(), Code::NotFound, "{name}"),
                    }
                    if name.ends_with(".sst") {
                        // Every byte of a run file is under a checksum: the open missed
                        // this damage only because it reads no data block, and the full
                        // check finds it.
                        let e = db.verify().unwrap_err();
                        assert_eq!(e.code(), Code::DataLoss, "{name}: {e}");
                        assert!(e.message().contains(name.as_str()), "{name}: {e}");
                    }
                }
            }
        }
    }
    assert!(
        outcomes[0] > 0,
        "no damage was detected at all: {outcomes:?}"
    );
    if !verify_on_open {
        assert!(
            outcomes[2] > 0,
            "no damage was left for the reads to find: {outcomes:?}"
        );
    }
}

/// A compaction that leaves a tablet with no run must not let recovery replay the writes it
/// absorbed: the tablet keeps its own flushed mark (the manifest's `flushed_sequence`).
/// Replaying here would re-run a ranged delete against a column whose collectable version
/// was already collected, so the delete would no longer bury it and it would come back.
#[test]
fn writes_compacted_away_are_not_replayed_after_reopening() {
    let mut config = TableConfig {
        tablet_options: TabletOptions {
            memtable_bytes: 1,
            max_runs: 1,
            split_bytes: 100,
            merge_bytes: 25,
            split_load_ops: 0,
        },
        ..TableConfig::with_families(["a"])
    };
    config.families.insert(
        "b".into(),
        ColumnFamily {
            gc_rule: GcRule::MaxNumVersions(1),
            ..ColumnFamily::default()
        },
    );
    let storage = MemStorage::new();
    let mut db = open(&storage);
    db.create_table("t", config).unwrap();
    db.mutate_row("t", b"r", &[Mutation::set_cell("b", "q", 13_000, "new")])
        .unwrap();
    // Reopening starts a fresh log: the write above is now only in a run.
    drop(db);
    let mut db = open(&storage);
    // v@0 is older than v@13000, so collectable at once; deleting [1000, inf) must not
    // bring it back.
    db.mutate_row(
        "t",
        b"r",
        &[
            Mutation::set_cell("b", "q", 0, "old"),
            Mutation::DeleteFromColumn {
                family: "b".into(),
                qualifier: b"q".to_vec(),
                time_range: TimestampRange {
                    start_micros: 1000,
                    end_micros: None,
                },
            },
        ],
    )
    .unwrap();
    assert_eq!(all_rows(&db), vec![]);
    db.compact_table("t").unwrap();
    assert_eq!(db.tablets("t").unwrap()[0].runs, 0, "nothing left to keep");
    drop(db);
    let db = open(&storage);
    assert_eq!(all_rows(&db), vec![]);
}

/// Recovery can flush a tablet before it has replayed everything (here a load split: the
/// writes it replays all land in one time bucket, where they were spread over many). That
/// flush must mark the tablet as holding only what was replayed so far, not everything up
/// to another tablet's mark, or the rest of its log records are skipped and lost.
#[test]
fn a_split_during_recovery_does_not_skip_the_rest_of_the_log() {
    let clock = Arc::new(ManualClock::new(NOW));
    let storage = MemStorage::new();
    let open = |clock: &Arc<ManualClock>| {
        let options = OpenOptions {
            log_rotate_bytes: 1 << 30,
            ..options()
        };
        Database::open(Arc::new(storage.clone()), options, clock.clone()).unwrap()
    };
    let config = TableConfig {
        tablet_options: TabletOptions {
            memtable_bytes: 10_000,
            max_runs: 4,
            split_bytes: 1 << 30,
            merge_bytes: 0,
            split_load_ops: 10,
        },
        initial_splits: vec![b"m".to_vec()],
        ..TableConfig::with_families(["a"])
    };
    let minute = 61_000_000;
    let mut db = open(&clock);
    db.create_table("t", config).unwrap();
    let put = |db: &mut Database, row: &str, value: &[u8]| {
        db.mutate_row(
            "t",
            row.as_bytes(),
            &[Mutation::set_cell("a", "q", 1000, value)],
        )
        .unwrap();
    };
    // Fifteen writes to tablet [m, +inf), one a minute: never a load split while writing.
    for i in 0..15 {
        put(&mut db, &format!("n{i:02}"), b"v");
        clock.advance_micros(minute);
    }
    // A write too big for the memtable flushes tablet [-inf, m) past all of them.
    put(&mut db, "a", &[7u8; 20_000]);
    for i in 15..20 {
        clock.advance_micros(minute);
        put(&mut db, &format!("n{i:02}"), b"v");
    }
    // Compared by key and value length: the big value would swamp a failure message.
    let summary = |db: &Database| -> Vec<(Vec<u8>, usize)> {
        all_rows(db)
            .into_iter()
            .map(|r| (r.key, r.cells.iter().map(|c| c.value.len()).sum()))
            .collect()
    };
    let before = summary(&db);
    assert_eq!(before.len(), 21);
    // A crash: no checkpoint, so reopening replays the log, all of it in this minute.
    drop(db);
    clock.advance_micros(minute);
    let db = open(&clock);
    assert!(
        db.tablets("t").unwrap().len() > 2,
        "the replay split the busy tablet"
    );
    assert_eq!(summary(&db), before);
}
