//! The two garbage-collection modes (`GcMode`, see `model::gc`): Immediate hides collectable
//! cells from every read at once; Background keeps them readable until a collection pass
//! (a full compaction or `collect_garbage`) removes them, as Cloud Bigtable does. Each test
//! runs the same steps in both modes on a `ManualClock`, so every expectation is exact.

use std::sync::Arc;

use proptest::prelude::*;
use sparsetable::platform::storage::MemStorage;
use sparsetable::{
    ColumnFamily, Database, Durability, FamilyModification, GcMode, GcRule, ManualClock, Mutation,
    OpenOptions, ReadModifyWriteRule, ReadRowsRequest, RowFilter, TableConfig, TimestampRange,
};

const T0: i64 = 1_700_000_000_000_000;
const MODES: [GcMode; 2] = [GcMode::Immediate, GcMode::Background];

fn db(mode: GcMode, rule: GcRule) -> (Database, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(T0));
    let mut db = Database::with_clock(clock.clone());
    db.set_gc_mode(mode);
    db.create_table("t", config(rule)).unwrap();
    (db, clock)
}

fn config(rule: GcRule) -> TableConfig {
    let mut config = TableConfig::with_families(["cf", "keep"]);
    config.families.get_mut("cf").unwrap().gc_rule = rule;
    config
}

fn put(db: &mut Database, row: &str, ts: i64, value: &str) {
    db.mutate_row(
        "t",
        row.as_bytes(),
        &[Mutation::set_cell("cf", b"q", ts, value.as_bytes())],
    )
    .unwrap();
}

/// The values of the row's `cf:q` cells, newest first.
fn values(db: &Database, row: &str) -> Vec<String> {
    db.read_row("t", row.as_bytes())
        .unwrap()
        .map(|r| {
            r.cells
                .into_iter()
                .filter(|c| c.family == "cf")
                .map(|c| String::from_utf8(c.value).unwrap())
                .collect()
        })
        .unwrap_or_default()
}

fn three_versions(db: &mut Database) {
    for (i, v) in ["one", "two", "three"].iter().enumerate() {
        put(db, "r", 1000 * (i as i64 + 1), v);
    }
}

#[test]
fn background_reads_see_extra_versions_until_a_collection_removes_them() {
    for mode in MODES {
        let (mut db, _) = db(mode, GcRule::MaxNumVersions(1));
        three_versions(&mut db);
        let before = values(&db, "r");
        match mode {
            GcMode::Immediate => assert_eq!(before, ["three"]),
            GcMode::Background => assert_eq!(before, ["three", "two", "one"]),
        }
        // The versions inspector lists the same eligible cells in both modes.
        let eligible: Vec<bool> = db
            .read_row_versions("t", b"r")
            .unwrap()
            .iter()
            .map(|s| s.collected_by.is_some())
            .collect();
        assert_eq!(eligible, [false, true, true], "{mode:?}");
        db.collect_garbage("t").unwrap();
        assert_eq!(values(&db, "r"), ["three"], "{mode:?}");
        assert_eq!(db.read_row_versions("t", b"r").unwrap().len(), 1);
    }
}

#[test]
fn background_keeps_expired_cells_readable_and_the_mirroring_filter_hides_them() {
    let hour = 3_600_000_000;
    for mode in MODES {
        let (mut db, clock) = db(mode, GcRule::MaxAge { micros: hour });
        put(&mut db, "r", T0 - 1000, "fresh");
        clock.advance_micros(2 * hour);
        let expected: &[&str] = match mode {
            GcMode::Immediate => &[],
            GcMode::Background => &["fresh"],
        };
        assert_eq!(values(&db, "r"), expected, "{mode:?}");
        // The filter Bigtable's documentation advises, mirroring the rule, reads as
        // Immediate mode in both modes.
        let mirror = RowFilter::TimestampRange {
            start_micros: clock_now(&db) - hour,
            end_micros: 0,
        };
        assert_eq!(db.read_row_filtered("t", b"r", &mirror).unwrap(), None);
        db.collect_all_garbage().unwrap();
        assert!(values(&db, "r").is_empty(), "{mode:?}");
    }
}

fn clock_now(db: &Database) -> i64 {
    db.now_micros()
}

#[test]
fn a_ranged_delete_of_the_newest_version_exposes_an_uncollected_one_only_in_background() {
    for mode in MODES {
        let (mut db, _) = db(mode, GcRule::MaxNumVersions(1));
        three_versions(&mut db);
        db.mutate_row(
            "t",
            b"r",
            &[Mutation::DeleteFromColumn {
                family: "cf".into(),
                qualifier: b"q".to_vec(),
                time_range: TimestampRange::from_wire(3000, 4000),
            }],
        )
        .unwrap();
        match mode {
            // The delete buried what the rule had collected: nothing comes back.
            GcMode::Immediate => assert!(values(&db, "r").is_empty()),
            // As in Bigtable: "two" was never collected and is now the newest version,
            // no longer collectable, so a collection keeps it.
            GcMode::Background => {
                assert_eq!(values(&db, "r"), ["two", "one"]);
                db.collect_garbage("t").unwrap();
                assert_eq!(values(&db, "r"), ["two"]);
            }
        }
    }
}

#[test]
fn raising_max_versions_brings_uncollected_versions_back_only_in_background() {
    for mode in MODES {
        let (mut db, _) = db(mode, GcRule::MaxNumVersions(1));
        three_versions(&mut db);
        let family = ColumnFamily {
            gc_rule: GcRule::MaxNumVersions(3),
            ..ColumnFamily::default()
        };
        db.modify_column_families(
            "t",
            &[FamilyModification::Update {
                name: "cf".into(),
                family,
            }],
        )
        .unwrap();
        let expected: &[&str] = match mode {
            GcMode::Immediate => &["three"],
            GcMode::Background => &["three", "two", "one"],
        };
        assert_eq!(values(&db, "r"), expected, "{mode:?}");
        // The collection uses the family's current rule: nothing more goes.
        db.collect_garbage("t").unwrap();
        assert_eq!(values(&db, "r"), expected, "{mode:?}");
    }
}

#[test]
fn read_modify_write_and_check_and_mutate_read_collectable_cells_in_background() {
    let hour = 3_600_000_000;
    for mode in MODES {
        let (mut db, clock) = db(mode, GcRule::MaxAge { micros: hour });
        put(&mut db, "r", T0, "a");
        clock.advance_micros(2 * hour);
        // CheckAndMutate without a predicate: does the row have a visible cell?
        let matched = db
            .check_and_mutate_row(
                "t",
                b"r",
                None,
                &[Mutation::set_cell("keep", b"seen", 0, b"yes".to_vec())],
                &[Mutation::set_cell("keep", b"seen", 0, b"no".to_vec())],
            )
            .unwrap();
        assert_eq!(matched, mode == GcMode::Background, "{mode:?}");
        let row = db
            .read_modify_write_row("t", b"r", &[ReadModifyWriteRule::append("cf", b"q", "b")])
            .unwrap();
        let appended = row.cells[0].value.clone();
        match mode {
            GcMode::Immediate => assert_eq!(appended, b"b"),
            GcMode::Background => assert_eq!(appended, b"ab"),
        }
    }
}

#[test]
fn a_column_limit_read_over_runs_returns_the_uncollected_versions_in_background() {
    for mode in MODES {
        let storage = Arc::new(MemStorage::new());
        let clock = Arc::new(ManualClock::new(T0));
        let options = OpenOptions {
            durability: Durability::None,
            gc_mode: mode,
            ..OpenOptions::default()
        };
        let mut db = Database::open(storage.clone(), options.clone(), clock.clone()).unwrap();
        db.create_table("t", config(GcRule::MaxNumVersions(1)))
            .unwrap();
        // Two runs, so the read merges and may seek: versions 1 and 2, then 3 and 4.
        put(&mut db, "r", 1000, "one");
        put(&mut db, "r", 2000, "two");
        drop(db);
        let mut db = Database::open(storage.clone(), options.clone(), clock.clone()).unwrap();
        put(&mut db, "r", 3000, "three");
        put(&mut db, "r", 4000, "four");
        drop(db);
        let db = Database::open(storage, options, clock).unwrap();
        let limited = |n| {
            db.read_row_filtered("t", b"r", &RowFilter::CellsPerColumnLimit(n))
                .unwrap()
                .map(|r| r.cells.len())
                .unwrap_or(0)
        };
        match mode {
            GcMode::Immediate => assert_eq!((limited(1), limited(3)), (1, 1)),
            GcMode::Background => assert_eq!((limited(1), limited(3), limited(9)), (1, 3, 4)),
        }
        let request = ReadRowsRequest {
            filter: RowFilter::CellsPerColumnLimit(2),
            ..ReadRowsRequest::default()
        };
        let streamed: usize = db
            .read_rows("t", &request)
            .unwrap()
            .map(|r| r.cells.len())
            .sum();
        assert_eq!(streamed, if mode == GcMode::Background { 2 } else { 1 });
    }
}

#[test]
fn uncollected_cells_persist_across_reopen_and_the_mode_is_chosen_at_open() {
    let storage = Arc::new(MemStorage::new());
    let clock = Arc::new(ManualClock::new(T0));
    let open = |mode| {
        let options = OpenOptions {
            durability: Durability::None,
            gc_mode: mode,
            ..OpenOptions::default()
        };
        Database::open(storage.clone(), options, clock.clone()).unwrap()
    };
    let mut db = open(GcMode::Background);
    assert_eq!(db.gc_mode(), GcMode::Background);
    db.create_table("t", config(GcRule::MaxNumVersions(1)))
        .unwrap();
    three_versions(&mut db);
    drop(db);
    // Nothing stored says which mode wrote the data: each mode reads it its own way.
    assert_eq!(
        values(&open(GcMode::Background), "r"),
        ["three", "two", "one"]
    );
    assert_eq!(values(&open(GcMode::Immediate), "r"), ["three"]);
    let mut db = open(GcMode::Background);
    db.collect_garbage("t").unwrap();
    drop(db);
    assert_eq!(values(&open(GcMode::Background), "r"), ["three"]);
}

#[test]
fn an_automatic_full_compaction_is_a_collection_pass_in_background() {
    let (mut db, _) = db(GcMode::Background, GcRule::MaxNumVersions(1));
    let mut options = db.get_table("t").unwrap().config.tablet_options;
    // Every write flushes, and a second run makes the flush compact everything.
    options.memtable_bytes = 1;
    options.max_runs = 1;
    db.set_tablet_options("t", options).unwrap();
    put(&mut db, "r", 1000, "one");
    assert_eq!(values(&db, "r"), ["one"]);
    put(&mut db, "r", 2000, "two");
    assert_eq!(values(&db, "r"), ["two"]);
    let compactions = db
        .take_tablet_events()
        .iter()
        .filter(|e| e.kind == sparsetable::TabletEventKind::Compaction)
        .count();
    assert!(compactions >= 1);
}

#[test]
fn switching_modes_changes_reads_not_storage() {
    let (mut db, _) = db(GcMode::Immediate, GcRule::MaxNumVersions(2));
    three_versions(&mut db);
    assert_eq!(values(&db, "r"), ["three", "two"]);
    db.set_gc_mode(GcMode::Background);
    assert_eq!(values(&db, "r"), ["three", "two", "one"]);
    // A table made after the switch follows the database's mode.
    db.create_table("u", config(GcRule::MaxNumVersions(1)))
        .unwrap();
    for ts in [1000, 2000] {
        db.mutate_row(
            "u",
            b"r",
            &[Mutation::set_cell("cf", b"q", ts, b"v".to_vec())],
        )
        .unwrap();
    }
    assert_eq!(db.read_row("u", b"r").unwrap().unwrap().cells.len(), 2);
    db.set_gc_mode(GcMode::Immediate);
    assert_eq!(db.read_row("u", b"r").unwrap().unwrap().cells.len(), 1);
}

#[test]
fn gc_modes_parse_by_name() {
    for mode in MODES {
        assert_eq!(mode.as_str().parse::<GcMode>(), Ok(mode));
    }
    assert_eq!("BACKGROUND".parse::<GcMode>(), Ok(GcMode::Background));
    let err = "lazy".parse::<GcMode>().unwrap_err();
    assert_eq!(err.code(), sparsetable::Code::InvalidArgument);
    assert_eq!(GcMode::default(), GcMode::Immediate);
}

/// One step of the property test.
#[derive(Debug, Clone)]
enum Op {
    Set(u8, i64),
    /// A ranged delete of `[start, start + len)` of the row's column.
    DeleteRange(u8, i64, i64),
    DeleteColumn(u8),
    Advance(i64),
    Rule(GcRule),
    Compact,
}

fn rule() -> impl Strategy<Value = GcRule> {
    let leaf = prop_oneof![
        Just(GcRule::Never),
        (1u32..4).prop_map(GcRule::MaxNumVersions),
        (1i64..6).prop_map(|s| GcRule::MaxAge {
            micros: s * 1_000_000
        }),
    ];
    prop_oneof![
        3 => leaf.clone(),
        1 => proptest::collection::vec(leaf.clone(), 1..3).prop_map(GcRule::Union),
        1 => proptest::collection::vec(leaf, 1..3).prop_map(GcRule::Intersection),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let ts = (0i64..8).prop_map(|s| T0 - s * 1_000_000);
    prop_oneof![
        6 => (0u8..3, ts.clone()).prop_map(|(r, t)| Op::Set(r, t)),
        2 => (0u8..3, ts, 1i64..3_000).prop_map(|(r, t, l)| Op::DeleteRange(r, t, l * 1000)),
        1 => (0u8..3).prop_map(Op::DeleteColumn),
        2 => (0i64..3_000_000).prop_map(Op::Advance),
        1 => rule().prop_map(Op::Rule),
        1 => Just(Op::Compact),
    ]
}

fn apply(db: &mut Database, op: &Op, n: usize) {
    let row = |r: &u8| [b'r', b'0' + r];
    match op {
        Op::Set(r, ts) => db
            .mutate_row(
                "t",
                &row(r),
                &[Mutation::set_cell(
                    "cf",
                    b"q",
                    *ts,
                    n.to_string().into_bytes(),
                )],
            )
            .unwrap(),
        Op::DeleteRange(r, start, len) => db
            .mutate_row(
                "t",
                &row(r),
                &[Mutation::DeleteFromColumn {
                    family: "cf".into(),
                    qualifier: b"q".to_vec(),
                    time_range: TimestampRange::from_wire(*start, start + len),
                }],
            )
            .unwrap(),
        Op::DeleteColumn(r) => db
            .mutate_row(
                "t",
                &row(r),
                &[Mutation::DeleteFromColumn {
                    family: "cf".into(),
                    qualifier: b"q".to_vec(),
                    time_range: TimestampRange::from_wire(0, 0),
                }],
            )
            .unwrap(),
        Op::Advance(_) => {}
        Op::Rule(rule) => {
            let family = ColumnFamily {
                gc_rule: rule.clone(),
                ..ColumnFamily::default()
            };
            db.modify_column_families(
                "t",
                &[FamilyModification::Update {
                    name: "cf".into(),
                    family,
                }],
            )
            .unwrap();
        }
        Op::Compact => db.compact_table("t").unwrap(),
    }
}

fn all_rows(db: &Database) -> Vec<sparsetable::Row> {
    db.read_rows("t", &ReadRowsRequest::default())
        .unwrap()
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Immediate mode is Background mode with a collection at every instant: collecting
    /// before each ranged delete and rule change (the moments Immediate mode makes what is
    /// collectable permanent) and before the final read, Background reads what Immediate
    /// reads. Without those collections the only difference is the collectable cells.
    #[test]
    fn background_after_a_full_collection_reads_as_immediate(
        first in rule(),
        ops in proptest::collection::vec(op(), 1..40),
    ) {
        let (mut immediate, clock_i) = db(GcMode::Immediate, first.clone());
        let (mut background, clock_b) = db(GcMode::Background, first);
        for (n, op) in ops.iter().enumerate() {
            if let Op::Advance(micros) = op {
                clock_i.advance_micros(*micros);
                clock_b.advance_micros(*micros);
            }
            if matches!(op, Op::DeleteRange(..) | Op::Rule(_)) {
                background.collect_garbage("t").unwrap();
            }
            apply(&mut immediate, op, n);
            apply(&mut background, op, n);
            // Background reads a superset of Immediate, cell for cell, until collected.
            let shown_i: usize = all_rows(&immediate).iter().map(|r| r.cells.len()).sum();
            let shown_b: usize = all_rows(&background).iter().map(|r| r.cells.len()).sum();
            prop_assert!(shown_b >= shown_i);
        }
        background.collect_garbage("t").unwrap();
        prop_assert_eq!(all_rows(&background), all_rows(&immediate));
    }
}
