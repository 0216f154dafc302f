//! What a change log records besides plain writes. Garbage collection: the cells a compaction
//! collects under a family's GC rule appear as GARBAGE_COLLECTION records (one per row, a
//! DeleteFromColumn of each collected cell's timestamp), exactly once each, whether the
//! compaction ran inline or on a `SharedDatabase`'s maintenance thread, and never for cells
//! a delete removed. Row deletes: a DeleteFromRow is recorded as a DeleteFromFamily of each
//! family the row had data in (DropRowRange's deletions too), and a delete of a row with no
//! data records nothing.

use std::collections::BTreeSet;
use std::sync::Arc;

use sparsetable::api::change_stream::MIN_RETENTION_MICROS;
use sparsetable::{
    ChangeKind, ChangeRecord, ColumnFamily, Database, GcRule, ManualClock, Mutation,
    ReadRowsRequest, RowRange, SharedDatabase, TableConfig, TabletOptions, TimestampRange,
};

fn config(gc_rule: GcRule, tablet_options: TabletOptions) -> TableConfig {
    let mut config = TableConfig::with_families(["cf"]);
    if let Some(f) = config.families.get_mut("cf") {
        *f = ColumnFamily {
            gc_rule,
            ..f.clone()
        };
    }
    config.tablet_options = tablet_options;
    config
}

fn records(db: &Database) -> Vec<ChangeRecord> {
    db.change_log("t").unwrap().since(0, None, &RowRange::all())
}

/// Every (row, qualifier, timestamp) a GC record names.
fn collected(records: &[ChangeRecord]) -> Vec<(Vec<u8>, Vec<u8>, i64)> {
    let mut out = Vec::new();
    for r in records
        .iter()
        .filter(|r| r.kind == ChangeKind::GarbageCollection)
    {
        for m in &r.mutations {
            match m {
                Mutation::DeleteFromColumn {
                    family,
                    qualifier,
                    time_range,
                } => {
                    assert_eq!(family, "cf");
                    assert_eq!(
                        time_range.end_micros,
                        Some(time_range.start_micros + 1),
                        "one cell's timestamp"
                    );
                    out.push((
                        r.row_key.clone(),
                        qualifier.clone(),
                        time_range.start_micros,
                    ));
                }
                other => panic!("a GC record holds only DeleteFromColumn, got {other:?}"),
            }
        }
    }
    out
}

#[test]
fn a_compaction_logs_the_versions_a_max_versions_rule_collected_once() {
    let clock = Arc::new(ManualClock::new(10_000_000));
    let mut db = Database::with_clock(clock.clone());
    db.create_table(
        "t",
        config(GcRule::MaxNumVersions(1), TabletOptions::default()),
    )
    .unwrap();
    db.set_change_stream("t", Some(MIN_RETENTION_MICROS))
        .unwrap();
    for ts in [1000, 2000, 3000] {
        db.mutate_row("t", b"r", &[Mutation::set_cell("cf", b"q", ts, "v")])
            .unwrap();
    }
    // A version deleted by the user is not garbage collection's.
    db.mutate_row("t", b"d", &[Mutation::set_cell("cf", b"q", 1000, "v")])
        .unwrap();
    db.mutate_row(
        "t",
        b"d",
        &[Mutation::DeleteFromColumn {
            family: "cf".into(),
            qualifier: b"q".to_vec(),
            time_range: TimestampRange {
                start_micros: 0,
                end_micros: None,
            },
        }],
    )
    .unwrap();
    assert!(
        collected(&records(&db)).is_empty(),
        "reads hide them; nothing collected yet"
    );
    clock.advance_micros(5);
    db.compact_table("t").unwrap();
    let after = records(&db);
    assert_eq!(
        collected(&after),
        vec![
            (b"r".to_vec(), b"q".to_vec(), 2000),
            (b"r".to_vec(), b"q".to_vec(), 1000)
        ]
    );
    let gc: Vec<&ChangeRecord> = after
        .iter()
        .filter(|r| r.kind == ChangeKind::GarbageCollection)
        .collect();
    assert_eq!(gc.len(), 1, "one record for the row");
    assert_eq!(
        gc[0].commit_micros, 10_000_005,
        "committed when the compaction ran"
    );
    assert!(after.iter().filter(|r| r.kind == ChangeKind::User).count() == 5);
    // Collected cells are gone for good: a second compaction logs nothing more.
    db.compact_table("t").unwrap();
    assert_eq!(collected(&records(&db)).len(), 2);
}

#[test]
fn a_row_delete_is_recorded_as_deletes_of_the_families_with_data() {
    let clock = Arc::new(ManualClock::new(10_000_000));
    let mut db = Database::with_clock(clock);
    db.create_table("t", TableConfig::with_families(["a", "b", "c"]))
        .unwrap();
    db.set_change_stream("t", Some(MIN_RETENTION_MICROS))
        .unwrap();
    db.mutate_row("t", b"r", &[Mutation::set_cell("c", b"q", 1000, "v")])
        .unwrap();
    // Family a gets data in the same call, before the delete; b never has any.
    db.mutate_row(
        "t",
        b"r",
        &[
            Mutation::set_cell("a", b"q", 1000, "v"),
            Mutation::DeleteFromRow,
        ],
    )
    .unwrap();
    db.mutate_row("t", b"empty", &[Mutation::DeleteFromRow])
        .unwrap();
    db.mutate_row("t", b"s", &[Mutation::set_cell("b", b"q", 1000, "v")])
        .unwrap();
    db.drop_row_range("t", &sparsetable::DropRowRange::All)
        .unwrap();
    let family = |f: &str| Mutation::DeleteFromFamily { family: f.into() };
    let logged: Vec<(Vec<u8>, Vec<Mutation>)> = records(&db)
        .into_iter()
        .map(|r| (r.row_key, r.mutations))
        .collect();
    assert_eq!(
        logged,
        vec![
            (
                b"r".to_vec(),
                vec![Mutation::set_cell("c", b"q", 1000, "v")]
            ),
            (
                b"r".to_vec(),
                vec![
                    Mutation::set_cell("a", b"q", 1000, "v"),
                    family("a"),
                    family("c")
                ]
            ),
            (
                b"s".to_vec(),
                vec![Mutation::set_cell("b", b"q", 1000, "v")]
            ),
            (b"s".to_vec(), vec![family("b")]),
        ]
    );
}

#[test]
fn an_age_rule_collects_when_time_passes_and_compaction_runs() {
    let clock = Arc::new(ManualClock::new(100_000_000));
    let mut db = Database::with_clock(clock.clone());
    db.create_table(
        "t",
        config(
            GcRule::MaxAge { micros: 1_000_000 },
            TabletOptions::default(),
        ),
    )
    .unwrap();
    db.set_change_stream("t", Some(MIN_RETENTION_MICROS))
        .unwrap();
    db.mutate_row(
        "t",
        b"r",
        &[Mutation::set_cell("cf", b"q", 99_500_000, "old")],
    )
    .unwrap();
    db.compact_table("t").unwrap();
    assert!(collected(&records(&db)).is_empty(), "not yet past its age");
    clock.advance_micros(600_000);
    db.compact_table("t").unwrap();
    assert_eq!(
        collected(&records(&db)),
        vec![(b"r".to_vec(), b"q".to_vec(), 99_500_000)]
    );
}

#[test]
fn background_compactions_log_every_collected_cell_exactly_once() {
    let clock = Arc::new(ManualClock::new(10_000_000));
    let mut db = Database::with_clock(clock.clone());
    let tiny = TabletOptions {
        memtable_bytes: 300,
        max_runs: 2,
        split_bytes: 4_000,
        merge_bytes: 200,
        split_load_ops: 0,
    };
    db.create_table("t", config(GcRule::MaxNumVersions(2), tiny))
        .unwrap();
    db.set_change_stream("t", Some(MIN_RETENTION_MICROS))
        .unwrap();
    let db = SharedDatabase::new(db);
    let mut written = BTreeSet::new();
    for round in 1..=6i64 {
        for row in 0..40 {
            let key = format!("row{row:03}");
            db.mutate_row(
                "t",
                key.as_bytes(),
                &[Mutation::set_cell(
                    "cf",
                    b"q",
                    round * 1000,
                    format!("v{round}"),
                )],
            )
            .unwrap();
            written.insert((key.into_bytes(), round * 1000));
        }
        clock.advance_micros(1);
    }
    db.wait_maintenance().unwrap();
    db.write(|d| d.compact_table("t")).unwrap();
    let kept: BTreeSet<(Vec<u8>, i64)> = db
        .read_rows("t", &ReadRowsRequest::default())
        .unwrap()
        .into_iter()
        .flat_map(|r| {
            let key = r.key.clone();
            r.cells
                .into_iter()
                .map(move |c| (key.clone(), c.timestamp_micros))
        })
        .collect();
    assert_eq!(kept.len(), 80, "two versions of 40 rows");
    let logged = db.read(|d| Ok(collected(&records(d)))).unwrap();
    let unique: BTreeSet<(Vec<u8>, i64)> =
        logged.iter().map(|(k, _, ts)| (k.clone(), *ts)).collect();
    assert_eq!(unique.len(), logged.len(), "no cell logged twice");
    let expected: BTreeSet<(Vec<u8>, i64)> = written.difference(&kept).cloned().collect();
    assert_eq!(unique, expected, "every collected cell logged");
    // The log stays in commit-time order with the GC records among the writes.
    let times: Vec<i64> = db
        .read(|d| Ok(records(d).iter().map(|r| r.commit_micros).collect()))
        .unwrap();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
}

mod on_storage {
    //! A change log on storage survives a restart: the records up to the last checkpoint
    //! from the change log file, the later ones from the commit log with the commit times
    //! their records carry, garbage collection's included (record type 7: in every
    //! durability mode after a crash, with `sync` and `interval` after a power loss, once
    //! however many times the database is opened); a stream disabled stays disabled; a
    //! damaged file is DataLoss.

    use super::*;
    use sparsetable::platform::storage::{read_all, MemStorage, Storage};
    use sparsetable::{Code, Durability, OpenOptions};

    fn open(storage: &MemStorage, clock: &Arc<ManualClock>) -> sparsetable::Result<Database> {
        Database::open(
            Arc::new(storage.clone()),
            OpenOptions {
                durability: Durability::None,
                ..OpenOptions::default()
            },
            clock.clone(),
        )
    }

    fn summary(db: &Database) -> Vec<(u64, i64, Vec<u8>)> {
        records(db)
            .into_iter()
            .map(|r| (r.sequence, r.commit_micros, r.row_key))
            .collect()
    }

    #[test]
    fn records_before_and_after_the_last_checkpoint_come_back_with_their_commit_times() {
        let storage = MemStorage::new();
        let clock = Arc::new(ManualClock::new(50_000_000));
        let mut db = open(&storage, &clock).unwrap();
        db.create_table("t", TableConfig::with_families(["cf"]))
            .unwrap();
        db.set_change_stream("t", Some(MIN_RETENTION_MICROS))
            .unwrap();
        db.mutate_row("t", b"a", &[Mutation::set_cell("cf", b"q", 1000, "1")])
            .unwrap();
        clock.advance_micros(7);
        db.checkpoint().unwrap();
        db.mutate_row("t", b"b", &[Mutation::set_cell("cf", b"q", 1000, "2")])
            .unwrap();
        clock.advance_micros(7);
        db.mutate_row("t", b"a", &[Mutation::DeleteFromRow])
            .unwrap();
        let before = summary(&db);
        assert_eq!(before.len(), 3);
        // A crash: nothing after the last write reaches storage.
        drop(db);
        clock.advance_micros(1_000_000);
        let mut db = open(&storage, &clock).unwrap();
        assert_eq!(summary(&db), before, "same sequences, times and rows");
        let last = records(&db).pop().unwrap();
        assert_eq!(
            last.mutations,
            vec![Mutation::DeleteFromFamily {
                family: "cf".into()
            }],
            "a replayed row delete is recorded as at commit"
        );
        // The log goes on from where it was.
        db.mutate_row("t", b"c", &[Mutation::set_cell("cf", b"q", 1000, "3")])
            .unwrap();
        assert_eq!(records(&db).last().map(|r| r.sequence), Some(4));
        // Opened twice in a row: nothing is logged twice.
        drop(db);
        let db = open(&storage, &clock).unwrap();
        assert_eq!(records(&db).len(), 4);
    }

    fn open_with(
        storage: &MemStorage,
        clock: &Arc<ManualClock>,
        durability: Durability,
    ) -> sparsetable::Result<Database> {
        Database::open(
            Arc::new(storage.clone()),
            OpenOptions {
                durability,
                ..OpenOptions::default()
            },
            clock.clone(),
        )
    }

    /// Everything a reader can tell of the records: kind, sequence, time, row, mutations.
    fn full(db: &Database) -> Vec<ChangeRecord> {
        records(db)
    }

    /// Garbage collection between two checkpoints, then a crash (the database dropped with
    /// no checkpoint, as a kill -9 leaves it): the GARBAGE_COLLECTION records come back from
    /// the commit log with their sequences and times, in order among the writes around
    /// them, in every durability mode; the collection itself stays done; opening again
    /// logs nothing twice.
    #[test]
    fn garbage_collection_records_survive_a_crash_before_the_next_checkpoint() {
        for durability in [
            Durability::Sync,
            Durability::Interval { micros: 1_000 },
            Durability::None,
        ] {
            let storage = MemStorage::new();
            let clock = Arc::new(ManualClock::new(50_000_000));
            let mut db = open_with(&storage, &clock, durability).unwrap();
            db.create_table(
                "t",
                config(GcRule::MaxNumVersions(1), TabletOptions::default()),
            )
            .unwrap();
            db.set_change_stream("t", Some(MIN_RETENTION_MICROS))
                .unwrap();
            for (row, ts) in [(b"a", 1000), (b"a", 2000), (b"b", 1000), (b"b", 3000)] {
                db.mutate_row("t", row, &[Mutation::set_cell("cf", b"q", ts, "v")])
                    .unwrap();
            }
            clock.advance_micros(11);
            db.collect_garbage("t").unwrap();
            clock.advance_micros(13);
            db.mutate_row("t", b"c", &[Mutation::set_cell("cf", b"q", 5000, "w")])
                .unwrap();
            db.mutate_row("t", b"a", &[Mutation::set_cell("cf", b"q", 4000, "x")])
                .unwrap();
            clock.advance_micros(17);
            db.collect_garbage("t").unwrap();
            let before = full(&db);
            assert_eq!(
                collected(&records(&db)),
                vec![
                    (b"a".to_vec(), b"q".to_vec(), 1000),
                    (b"b".to_vec(), b"q".to_vec(), 1000),
                    (b"a".to_vec(), b"q".to_vec(), 2000),
                ],
                "{durability:?}"
            );
            drop(db);
            clock.advance_micros(1_000_000);
            let db = open_with(&storage, &clock, durability).unwrap();
            assert_eq!(full(&db), before, "{durability:?}: the same records");
            let versions: Vec<i64> = db
                .read_row_versions("t", b"a")
                .unwrap()
                .into_iter()
                .map(|c| c.cell.timestamp_micros)
                .collect();
            assert_eq!(
                versions,
                [4000],
                "{durability:?}: the collection stays done"
            );
            // Recovery twice: the first one's checkpoint wrote the records to the change
            // log file; the second finds them there, and nothing more in the commit log.
            drop(db);
            let mut db = open_with(&storage, &clock, durability).unwrap();
            assert_eq!(full(&db), before, "{durability:?}: opened twice");
            // The log goes on after the records it read back, and a collection now is new.
            db.mutate_row("t", b"c", &[Mutation::set_cell("cf", b"q", 6000, "y")])
                .unwrap();
            db.collect_garbage("t").unwrap();
            let after = full(&db);
            assert_eq!(after.len(), before.len() + 2, "{durability:?}");
            assert_eq!(after[..before.len()], before[..]);
            assert_eq!(
                after.iter().map(|r| r.sequence).collect::<Vec<_>>(),
                (1..=after.len() as u64).collect::<Vec<_>>(),
                "{durability:?}: sequences never reused"
            );
            drop(db);
            let db = open_with(&storage, &clock, durability).unwrap();
            assert_eq!(full(&db), after, "{durability:?}: and again after that");
        }
    }

    /// Collections made by a `SharedDatabase`'s maintenance thread (installed under the
    /// lock, then a manifest) come back after a crash too, each cell once, in the order
    /// they were logged among the writes.
    #[test]
    fn background_collections_survive_a_crash() {
        let storage = MemStorage::new();
        let clock = Arc::new(ManualClock::new(10_000_000));
        let mut db = open_with(&storage, &clock, Durability::Sync).unwrap();
        let tiny = TabletOptions {
            memtable_bytes: 300,
            max_runs: 2,
            split_bytes: 4_000,
            merge_bytes: 200,
            split_load_ops: 0,
        };
        db.create_table("t", config(GcRule::MaxNumVersions(2), tiny))
            .unwrap();
        db.set_change_stream("t", Some(MIN_RETENTION_MICROS))
            .unwrap();
        let db = SharedDatabase::new(db);
        for round in 1..=6i64 {
            for row in 0..40 {
                let key = format!("row{row:03}");
                db.mutate_row(
                    "t",
                    key.as_bytes(),
                    &[Mutation::set_cell("cf", b"q", round * 1000, "v")],
                )
                .unwrap();
            }
            clock.advance_micros(1);
        }
        db.wait_maintenance().unwrap();
        let before = db.read(|d| Ok(full(d))).unwrap();
        let gc = db.read(|d| Ok(collected(&records(d)))).unwrap();
        assert!(!gc.is_empty(), "the maintenance thread collected cells");
        drop(db);
        let db = open_with(&storage, &clock, Durability::Sync).unwrap();
        assert_eq!(full(&db), before);
    }

    /// The same on files in a directory: the process's end without a checkpoint (all a
    /// kill -9 leaves) keeps the records; `open_dir` reads them back, twice alike.
    #[cfg(unix)]
    #[test]
    fn garbage_collection_records_survive_in_a_directory() {
        let dir = std::env::temp_dir().join(format!("sparsetable-gclog-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let open = || {
            let storage = Arc::new(sparsetable::platform::storage::FileStorage::new(&dir).unwrap());
            Database::open(
                storage,
                OpenOptions::default(),
                ManualClock::new(50_000_000),
            )
        };
        let mut db = open().unwrap();
        db.create_table(
            "t",
            config(GcRule::MaxNumVersions(1), TabletOptions::default()),
        )
        .unwrap();
        db.set_change_stream("t", Some(MIN_RETENTION_MICROS))
            .unwrap();
        for ts in [1000, 2000] {
            db.mutate_row("t", b"a", &[Mutation::set_cell("cf", b"q", ts, "v")])
                .unwrap();
        }
        db.collect_garbage("t").unwrap();
        let before = full(&db);
        assert_eq!(collected(&before).len(), 1);
        drop(db);
        let db = open().unwrap();
        assert_eq!(full(&db), before);
        drop(db);
        assert_eq!(full(&open().unwrap()), before);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A checkpoint that wrote the change log file (holding the GC records) but not the
    /// manifest naming its new commit log, then a crash: the old log, still named, holds
    /// the same records; recovery logs only those past the file's `through_sequence`, so
    /// nothing twice, and a second recovery agrees.
    #[test]
    fn records_in_both_the_change_log_file_and_the_commit_log_are_logged_once() {
        use sparsetable::platform::storage::faulty::{Fault, FaultyStorage, Op};
        let storage = MemStorage::new();
        let faulty = Arc::new(FaultyStorage::new(storage.clone()));
        let clock = Arc::new(ManualClock::new(50_000_000));
        let mut db = Database::open(faulty.clone(), OpenOptions::default(), clock.clone()).unwrap();
        db.create_table(
            "t",
            config(GcRule::MaxNumVersions(1), TabletOptions::default()),
        )
        .unwrap();
        db.set_change_stream("t", Some(MIN_RETENTION_MICROS))
            .unwrap();
        for ts in [1000, 2000, 3000] {
            db.mutate_row("t", b"a", &[Mutation::set_cell("cf", b"q", ts, "v")])
                .unwrap();
            clock.advance_micros(5);
            db.collect_garbage("t").unwrap();
        }
        db.mutate_row("t", b"b", &[Mutation::set_cell("cf", b"q", 1000, "w")])
            .unwrap();
        let before = full(&db);
        assert_eq!(collected(&before).len(), 2);
        faulty.inject(Fault::io_error(Op::Rename).on_files("MANIFEST").times(1));
        assert!(db.checkpoint().is_err());
        drop(db);
        let db = open_with(&storage, &clock, Durability::Sync).unwrap();
        assert_eq!(full(&db), before);
        drop(db);
        let db = open_with(&storage, &clock, Durability::Sync).unwrap();
        assert_eq!(full(&db), before);
    }

    /// The log fails while the records are appended before a manifest: a checkpoint
    /// writes them to the change log file instead (and the manifest, with a new log), so
    /// the collection completes and a crash after it keeps them.
    #[test]
    fn a_log_failing_under_the_records_falls_back_to_a_checkpoint() {
        use sparsetable::platform::storage::faulty::{Fault, FaultyStorage, Op};
        let storage = MemStorage::new();
        let faulty = Arc::new(FaultyStorage::new(storage.clone()));
        let clock = Arc::new(ManualClock::new(50_000_000));
        let mut db = Database::open(faulty.clone(), OpenOptions::default(), clock.clone()).unwrap();
        db.create_table(
            "t",
            config(GcRule::MaxNumVersions(1), TabletOptions::default()),
        )
        .unwrap();
        db.set_change_stream("t", Some(MIN_RETENTION_MICROS))
            .unwrap();
        for ts in [1000, 2000] {
            db.mutate_row("t", b"a", &[Mutation::set_cell("cf", b"q", ts, "v")])
                .unwrap();
        }
        clock.advance_micros(11);
        // The only log append of the collection is its records' (the flush writes runs).
        faulty.inject(Fault::io_error(Op::Append).on_files(".log").times(1));
        db.collect_garbage("t").unwrap();
        assert_eq!(faulty.fired(), 1, "the records' append failed");
        let before = full(&db);
        assert_eq!(collected(&before).len(), 1);
        drop(db);
        let db = open_with(&storage, &clock, Durability::Sync).unwrap();
        assert_eq!(full(&db), before);
        assert_eq!(db.read_row_versions("t", b"a").unwrap().len(), 1);
    }

    /// The window docs/format/commit_log.md used to name: the process dies after the
    /// records reached the log but before the manifest naming the compacted runs was
    /// written (here that manifest's rename fails, then the crash). The records are not
    /// lost; the cells, still in the old runs, are deleted again by recovery (record type
    /// 7), so the next collection does not record them a second time
    /// (tests/gc_record_crash.rs crashes at every point).
    #[test]
    fn a_crash_between_the_records_and_the_manifest_loses_nothing_and_repeats_nothing() {
        use sparsetable::platform::storage::faulty::{Fault, FaultyStorage, Op};
        let storage = MemStorage::new();
        let faulty = Arc::new(FaultyStorage::new(storage.clone()));
        let clock = Arc::new(ManualClock::new(50_000_000));
        let mut db = Database::open(faulty.clone(), OpenOptions::default(), clock.clone()).unwrap();
        db.create_table(
            "t",
            config(GcRule::MaxNumVersions(1), TabletOptions::default()),
        )
        .unwrap();
        db.set_change_stream("t", Some(MIN_RETENTION_MICROS))
            .unwrap();
        for ts in [1000, 2000] {
            db.mutate_row("t", b"a", &[Mutation::set_cell("cf", b"q", ts, "v")])
                .unwrap();
        }
        clock.advance_micros(11);
        faulty.inject(Fault::io_error(Op::Rename).on_files("MANIFEST").times(1));
        assert!(
            db.collect_garbage("t").is_err(),
            "the manifest was not written"
        );
        let before = full(&db);
        drop(db);
        let mut db = open_with(&storage, &clock, Durability::Sync).unwrap();
        assert_eq!(full(&db), before, "nothing lost");
        assert_eq!(db.read_row_versions("t", b"a").unwrap().len(), 1);
        db.collect_garbage("t").unwrap();
        let cell = (b"a".to_vec(), b"q".to_vec(), 1000);
        assert_eq!(collected(&records(&db)), vec![cell]);
    }

    /// A storage that remembers how much of each file was synced, so a power loss (what
    /// [`PowerLoss::after_power_loss`] leaves) keeps only that: the test of what each
    /// durability mode promises. A rename or removal is taken as durable at once.
    #[derive(Clone, Default)]
    struct PowerLoss {
        live: MemStorage,
        synced: Arc<std::sync::Mutex<std::collections::BTreeMap<String, u64>>>,
    }

    struct Tracked {
        name: String,
        inner: Box<dyn sparsetable::platform::storage::WritableFile>,
        synced: Arc<std::sync::Mutex<std::collections::BTreeMap<String, u64>>>,
    }

    impl sparsetable::platform::storage::WritableFile for Tracked {
        fn append(&mut self, data: &[u8]) -> sparsetable::Result<()> {
            self.inner.append(data)
        }
        fn sync(&mut self) -> sparsetable::Result<()> {
            self.inner.sync()?;
            let len = self.inner.len();
            self.synced.lock().unwrap().insert(self.name.clone(), len);
            Ok(())
        }
        fn len(&self) -> u64 {
            self.inner.len()
        }
    }

    impl Storage for PowerLoss {
        fn create(
            &self,
            name: &str,
        ) -> sparsetable::Result<Box<dyn sparsetable::platform::storage::WritableFile>> {
            self.synced.lock().unwrap().insert(name.into(), 0);
            Ok(Box::new(Tracked {
                name: name.into(),
                inner: self.live.create(name)?,
                synced: self.synced.clone(),
            }))
        }
        fn append_to(
            &self,
            name: &str,
        ) -> sparsetable::Result<Box<dyn sparsetable::platform::storage::WritableFile>> {
            Ok(Box::new(Tracked {
                name: name.into(),
                inner: self.live.append_to(name)?,
                synced: self.synced.clone(),
            }))
        }
        fn open(
            &self,
            name: &str,
        ) -> sparsetable::Result<Arc<dyn sparsetable::platform::storage::RandomAccessFile>>
        {
            self.live.open(name)
        }
        fn rename(&self, from: &str, to: &str) -> sparsetable::Result<()> {
            self.live.rename(from, to)?;
            let mut synced = self.synced.lock().unwrap();
            let n = synced.remove(from).unwrap_or(0);
            synced.insert(to.into(), n);
            Ok(())
        }
        fn remove(&self, name: &str) -> sparsetable::Result<()> {
            self.synced.lock().unwrap().remove(name);
            self.live.remove(name)
        }
        fn list(&self) -> sparsetable::Result<Vec<String>> {
            self.live.list()
        }
        fn sync_dir(&self) -> sparsetable::Result<()> {
            Ok(())
        }
    }

    impl PowerLoss {
        /// What the disk holds after a power loss now: each file cut to what was synced.
        fn after_power_loss(&self) -> MemStorage {
            let out = MemStorage::new();
            for (name, &n) in self.synced.lock().unwrap().iter() {
                let bytes = read_all(&self.live, name).unwrap();
                out.set_bytes(name, bytes[..n as usize].to_vec());
            }
            out
        }
    }

    /// A power loss right after a collection between checkpoints: with `sync` and
    /// `interval` durability the GARBAGE_COLLECTION records were synced before the manifest
    /// naming the collected runs was written, so they come back; with `none` nothing of the
    /// log was synced and they are lost, as that mode's writes are, but the database opens
    /// and the collection stays done.
    #[test]
    fn garbage_collection_records_are_synced_before_the_manifest_names_the_collection() {
        for durability in [
            Durability::Sync,
            Durability::Interval { micros: 1_000_000 },
            Durability::None,
        ] {
            let storage = PowerLoss::default();
            let clock = Arc::new(ManualClock::new(50_000_000));
            let options = OpenOptions {
                durability,
                ..OpenOptions::default()
            };
            let mut db =
                Database::open(Arc::new(storage.clone()), options.clone(), clock.clone()).unwrap();
            db.create_table(
                "t",
                config(GcRule::MaxNumVersions(1), TabletOptions::default()),
            )
            .unwrap();
            db.set_change_stream("t", Some(MIN_RETENTION_MICROS))
                .unwrap();
            for ts in [1000, 2000] {
                db.mutate_row("t", b"a", &[Mutation::set_cell("cf", b"q", ts, "v")])
                    .unwrap();
            }
            clock.advance_micros(11);
            db.collect_garbage("t").unwrap();
            let before = full(&db);
            assert_eq!(collected(&records(&db)).len(), 1);
            let disk = storage.after_power_loss();
            drop(db);
            let db = open_with(&disk, &clock, durability).unwrap();
            let versions = db.read_row_versions("t", b"a").unwrap();
            assert_eq!(
                versions.len(),
                1,
                "{durability:?}: the collection stays done"
            );
            let gc = collected(&records(&db));
            if durability == Durability::None {
                assert!(gc.is_empty(), "none: the unsynced log is gone");
            } else {
                assert_eq!(full(&db), before, "{durability:?}");
            }
        }
    }

    #[test]
    fn a_disabled_stream_stays_disabled_and_a_damaged_file_is_data_loss() {
        let storage = MemStorage::new();
        let clock = Arc::new(ManualClock::new(50_000_000));
        let mut db = open(&storage, &clock).unwrap();
        db.create_table("t", TableConfig::with_families(["cf"]))
            .unwrap();
        db.set_change_stream("t", Some(MIN_RETENTION_MICROS))
            .unwrap();
        db.mutate_row("t", b"a", &[Mutation::set_cell("cf", b"q", 1000, "1")])
            .unwrap();
        drop(db);
        let bytes = read_all(&storage, "CHANGES").unwrap();
        for at in [0, bytes.len() / 2, bytes.len() - 1] {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x40;
            storage.set_bytes("CHANGES", flipped);
            assert_eq!(open(&storage, &clock).unwrap_err().code(), Code::DataLoss);
        }
        storage.set_bytes("CHANGES", bytes[..bytes.len() - 3].to_vec());
        assert_eq!(open(&storage, &clock).unwrap_err().code(), Code::DataLoss);
        storage.set_bytes("CHANGES", bytes);
        let mut db = open(&storage, &clock).unwrap();
        assert_eq!(records(&db).len(), 1);
        db.set_change_stream("t", None).unwrap();
        drop(db);
        assert!(storage.list().unwrap().iter().all(|f| f != "CHANGES"));
        let db = open(&storage, &clock).unwrap();
        assert!(db.change_log("t").is_none());
    }
}
