//! Stored materialized views (docs/format/materialized_view.md): a database on storage keeps
//! each view's copy, stamped with its table's durable state, and opening the database and
//! creating the view again loads the copy instead of reading the table, exactly when the
//! table's state after opening is the stamped one. After every reopen, crash (storage
//! operations failing at a random point, then the database dropped without shutdown work)
//! or corruption of the copy, every view equals the same query computed afresh from the
//! table (a view created under another id, which has no copy).

use std::sync::Arc;

use proptest::prelude::*;
use sparsetable::platform::storage::faulty::{Fault, Op as FaultOp};
use sparsetable::platform::storage::{read_all, FaultyStorage, MemStorage, Storage};
use sparsetable::{
    ColumnFamily, Database, Durability, GcMode, GcRule, ManualClock, Mutation, OpenOptions,
    ReadRowsRequest, TableConfig, TabletOptions,
};

const T0: i64 = 1_700_000_000_000_000;

/// A view on running totals, a view re-reading its groups, a view whose groups but one have
/// only NULL outputs (so no row: `x` is written in group 1 only), and a secondary index.
const VIEWS: [(&str, &str); 4] = [
    (
        "sparse",
        "SELECT cf['g'] AS _key, MAX(cf['x']) AS x FROM t GROUP BY _key",
    ),
    (
        "totals",
        "SELECT cf['g'] AS _key, COUNT(*) AS n, SUM(TO_INT64(cf['v'])) AS total \
         FROM t GROUP BY _key",
    ),
    (
        "extremes",
        "SELECT cf['g'] AS _key, MIN(TO_INT64(cf['v'])) AS lo, MAX(TO_INT64(cf['v'])) AS hi \
         FROM t WHERE _key >= 'r10' GROUP BY _key",
    ),
    (
        "by_group",
        "SELECT cf['g'] AS g, _key AS k, cf['v'] AS v FROM t ORDER BY g, k",
    ),
];

fn config() -> TableConfig {
    let mut c = TableConfig::default();
    c.families.insert(
        "cf".into(),
        ColumnFamily {
            gc_rule: GcRule::MaxNumVersions(1),
            ..ColumnFamily::default()
        },
    );
    // Small tablets: flushes, compactions and splits happen within a test's writes.
    c.tablet_options = TabletOptions {
        memtable_bytes: 400,
        max_runs: 2,
        split_bytes: 1_500,
        merge_bytes: 300,
        split_load_ops: 0,
    };
    c
}

fn options() -> OpenOptions {
    OpenOptions {
        durability: Durability::Sync,
        log_rotate_bytes: 3_000,
        gc_mode: GcMode::Background,
        ..OpenOptions::default()
    }
}

/// Opens the database and defines the views again, as a front-end does.
fn open(storage: Arc<dyn Storage>) -> sparsetable::Result<Database> {
    let clock = Arc::new(ManualClock::new(T0));
    let mut db = Database::open(storage, options(), clock)?;
    if db.get_table("t").is_err() {
        db.create_table("t", config())?;
    }
    for (id, q) in VIEWS {
        db.create_materialized_view(id, q, false)?;
    }
    Ok(db)
}

type ViewRows = Vec<(Vec<u8>, Vec<(String, Vec<u8>)>)>;

fn view_rows(db: &Database, id: &str) -> ViewRows {
    let mut s = db
        .read_materialized_view(id, &ReadRowsRequest::default())
        .unwrap();
    let mut out = Vec::new();
    while let Some(r) = s.try_next().unwrap() {
        out.push((
            r.key,
            r.cells.into_iter().map(|c| (c.family, c.value)).collect(),
        ));
    }
    out
}

/// Every view equals its query computed afresh (a view under a new id has no stored copy,
/// so it is backfilled from the table), and the views really hold rows.
fn check_fresh(db: &mut Database) -> Result<(), TestCaseError> {
    for (id, q) in VIEWS {
        let fresh = format!("fresh_{id}");
        db.create_materialized_view(&fresh, q, false).unwrap();
        prop_assert_eq!(view_rows(db, id), view_rows(db, &fresh), "view {}", id);
        db.delete_materialized_view(&fresh).unwrap();
    }
    Ok(())
}

fn rows_scanned(db: &Database) -> u64 {
    db.access_stats("t")
        .unwrap()
        .iter()
        .map(|s| s.counters.rows_scanned)
        .sum()
}

/// Row `row` in group `group` with value `value` (and, in group 1 only, an `x` cell).
fn put_row(db: &mut Database, row: u32, group: u32, value: i64) -> sparsetable::Result<()> {
    let mut m = vec![
        Mutation::set_cell("cf", b"g", 0, format!("g{group}").into_bytes()),
        Mutation::set_cell("cf", b"v", 0, value.to_be_bytes().to_vec()),
    ];
    if group == 1 {
        m.push(Mutation::set_cell(
            "cf",
            b"x",
            0,
            value.to_be_bytes().to_vec(),
        ));
    } else {
        m.push(Mutation::DeleteFromColumn {
            family: "cf".into(),
            qualifier: b"x".to_vec(),
            time_range: Default::default(),
        });
    }
    db.mutate_row("t", format!("r{row:02}").as_bytes(), &m)
}

fn put(db: &mut Database, row: u32, group: u32, value: i64) {
    put_row(db, row, group, value).unwrap();
}

fn filled(storage: &MemStorage) -> Database {
    let mut db = open(Arc::new(storage.clone())).unwrap();
    for i in 0..40 {
        put(&mut db, i, i % 4, i64::from(i) * 3 - 50);
    }
    db
}

#[test]
fn reopening_after_a_checkpoint_loads_every_view_without_reading_its_table() {
    let storage = MemStorage::new();
    let mut db = filled(&storage);
    db.checkpoint().unwrap();
    let before: Vec<ViewRows> = VIEWS.iter().map(|(id, _)| view_rows(&db, id)).collect();
    assert!(before.iter().all(|v| !v.is_empty()));
    drop(db);
    for (id, _) in VIEWS {
        assert!(
            read_all(&storage, &format!("VIEW-{id}")).is_ok(),
            "{id} stored"
        );
    }
    let mut db = open(Arc::new(storage.clone())).unwrap();
    assert_eq!(
        rows_scanned(&db),
        0,
        "the views were loaded, not recomputed"
    );
    let after: Vec<ViewRows> = VIEWS.iter().map(|(id, _)| view_rows(&db, id)).collect();
    assert_eq!(before, after);
    check_fresh(&mut db).unwrap();
    // The fresh views did read the table: the counter counts recomputation.
    assert!(rows_scanned(&db) > 0);
    // Writes after the load are followed, and the next reopen loads again.
    put(&mut db, 3, 9, 7);
    db.checkpoint().unwrap();
    drop(db);
    let mut db = open(Arc::new(storage.clone())).unwrap();
    assert_eq!(rows_scanned(&db), 0);
    check_fresh(&mut db).unwrap();
}

#[test]
fn writes_after_the_last_checkpoint_make_the_copy_stale_and_the_view_is_recomputed() {
    let storage = MemStorage::new();
    let mut db = filled(&storage);
    db.checkpoint().unwrap();
    // Logged, not in the runs the stamp names: the crash's reopen replays them.
    put(&mut db, 5, 1, 1_000);
    db.mutate_row("t", b"r07", &[Mutation::DeleteFromRow])
        .unwrap();
    drop(db);
    let mut db = open(Arc::new(storage.clone())).unwrap();
    assert!(rows_scanned(&db) > 0, "recomputed");
    check_fresh(&mut db).unwrap();
}

#[test]
fn a_changed_query_under_the_same_id_is_recomputed() {
    let storage = MemStorage::new();
    let mut db = filled(&storage);
    db.checkpoint().unwrap();
    drop(db);
    let clock = Arc::new(ManualClock::new(T0));
    let mut db = Database::open(Arc::new(storage.clone()), options(), clock).unwrap();
    let other = "SELECT cf['g'] AS _key, COUNT(*) AS n FROM t WHERE _key < 'r20' GROUP BY _key";
    db.create_materialized_view("totals", other, false).unwrap();
    assert!(rows_scanned(&db) > 0);
    db.create_materialized_view("fresh", other, false).unwrap();
    assert_eq!(view_rows(&db, "totals"), view_rows(&db, "fresh"));
}

/// Damage of every kind to a copy: the open never panics, never fails, and the view is
/// recomputed (a corrupt copy is derived data; its table is the truth).
#[test]
fn a_corrupt_copy_is_recomputed_never_loaded() {
    let storage = MemStorage::new();
    let mut db = filled(&storage);
    db.checkpoint().unwrap();
    drop(db);
    let good = read_all(&storage, "VIEW-extremes").unwrap();
    let mut damaged: Vec<Vec<u8>> = (0..good.len())
        .step_by(7)
        .map(|n| good[..n].to_vec())
        .collect();
    for i in (0..good.len()).step_by(5) {
        let mut b = good.clone();
        b[i] ^= 0x41;
        damaged.push(b);
    }
    let mut longer = good.clone();
    longer.push(0);
    damaged.push(longer);
    for bytes in damaged {
        storage.set_bytes("VIEW-extremes", bytes);
        let mut db = open(Arc::new(storage.clone())).unwrap();
        assert!(rows_scanned(&db) > 0, "recomputed");
        check_fresh(&mut db).unwrap();
    }
}

/// The migration: a directory written before views were stored (no `VIEW-` files, as
/// every earlier version left it) opens, and its views are computed from their tables.
#[test]
fn a_directory_without_stored_views_opens_and_recomputes_them() {
    let storage = MemStorage::new();
    let mut db = filled(&storage);
    db.checkpoint().unwrap();
    drop(db);
    for name in storage.list().unwrap() {
        if name.starts_with("VIEW-") {
            storage.remove(&name).unwrap();
        }
    }
    let mut db = open(Arc::new(storage.clone())).unwrap();
    assert!(rows_scanned(&db) > 0);
    check_fresh(&mut db).unwrap();
    // Its next checkpoint stores them.
    db.checkpoint().unwrap();
    drop(db);
    let db = open(Arc::new(storage.clone())).unwrap();
    assert_eq!(rows_scanned(&db), 0);
}

/// The checkpoints the engine makes when its log rotates store no copy (their cost would
/// grow with the views, under the lock); the explicit one does.
#[test]
fn only_an_explicit_checkpoint_stores_the_views() {
    let storage = MemStorage::new();
    let logs = |s: &MemStorage| -> Vec<String> {
        let mut v: Vec<String> = s
            .list()
            .unwrap()
            .into_iter()
            .filter(|n| n.ends_with(".log"))
            .collect();
        v.sort();
        v
    };
    let mut db = open(Arc::new(storage.clone())).unwrap();
    let first = logs(&storage);
    for i in 0..200 {
        put(&mut db, i % 40, i % 4, i64::from(i));
    }
    assert_ne!(logs(&storage), first, "the log rotated");
    let stored = |s: &MemStorage| s.list().unwrap().iter().any(|n| n.starts_with("VIEW-"));
    assert!(!stored(&storage));
    db.checkpoint().unwrap();
    assert!(stored(&storage));
}

#[test]
fn deleting_a_view_removes_its_copy() {
    let storage = MemStorage::new();
    let mut db = filled(&storage);
    db.checkpoint().unwrap();
    assert!(read_all(&storage, "VIEW-totals").is_ok());
    db.delete_materialized_view("totals").unwrap();
    assert!(read_all(&storage, "VIEW-totals").is_err());
}

#[derive(Debug, Clone)]
enum Step {
    Put {
        row: u32,
        group: u32,
        value: i64,
    },
    Delete {
        row: u32,
    },
    Checkpoint,
    Compact,
    /// A storage fault of this kind after this many matching operations, then the steps
    /// go on until one fails, and the database is dropped without shutdown work.
    Crash {
        op: u8,
        after: u8,
    },
    /// A clean reopen (after a checkpoint, as a server's shutdown makes).
    Reopen,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        8 => (0u32..30, 0u32..4, -40i64..40).prop_map(|(row, group, value)| Step::Put { row, group, value }),
        2 => (0u32..30).prop_map(|row| Step::Delete { row }),
        2 => Just(Step::Checkpoint),
        1 => Just(Step::Compact),
        1 => (0u8..5, 0u8..12).prop_map(|(op, after)| Step::Crash { op, after }),
        1 => Just(Step::Reopen),
    ]
}

fn fault_op(op: u8) -> FaultOp {
    [
        FaultOp::Create,
        FaultOp::Append,
        FaultOp::Sync,
        FaultOp::Rename,
        FaultOp::SyncDir,
    ][usize::from(op)]
}

fn apply(db: &mut Database, s: &Step) -> sparsetable::Result<()> {
    match *s {
        Step::Put { row, group, value } => put_row(db, row, group, value),
        Step::Delete { row } => db.mutate_row(
            "t",
            format!("r{row:02}").as_bytes(),
            &[Mutation::DeleteFromRow],
        ),
        Step::Checkpoint => db.checkpoint(),
        Step::Compact => db.collect_all_garbage(),
        _ => Ok(()),
    }
}

fn run(steps: &[Step]) -> Result<(), TestCaseError> {
    let disk = FaultyStorage::new(MemStorage::new());
    let disk = Arc::new(disk);
    let mut db = open(disk.clone()).unwrap();
    let mut i = 0;
    while i < steps.len() {
        match steps[i] {
            Step::Crash { op, after } => {
                disk.inject(Fault::io_error(fault_op(op)).after(u64::from(after)));
                // The steps after the fault run until one fails (or the steps end).
                i += 1;
                while i < steps.len() {
                    if !matches!(steps[i], Step::Crash { .. } | Step::Reopen)
                        && apply(&mut db, &steps[i]).is_err()
                    {
                        break;
                    }
                    i += 1;
                }
                drop(db);
                disk.heal();
                db = open(disk.clone()).unwrap();
                check_fresh(&mut db)?;
            }
            Step::Reopen => {
                db.checkpoint().unwrap();
                drop(db);
                db = open(disk.clone()).unwrap();
                prop_assert_eq!(rows_scanned(&db), 0, "a clean reopen loads every view");
                check_fresh(&mut db)?;
            }
            ref s => apply(&mut db, s).unwrap(),
        }
        i += 1;
    }
    check_fresh(&mut db)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn a_loaded_view_equals_its_recomputation_after_reopens_and_crashes(
        steps in prop::collection::vec(step(), 1..50)
    ) {
        run(&steps)?;
    }
}
