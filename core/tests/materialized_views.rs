//! Continuous materialized views against their definition: after random writes, column
//! and row deletes, DropRowRange, clock advances with garbage collection, tablet splits and
//! merges (tiny tablet options) and crashes of a durable database (reopened from its log,
//! the view created again from its definition as the server does), every view equals its
//! query re-run from scratch through the SQL engine: views recomputing touched groups from
//! their rows (`by_group`: MIN, MAX, AVG, HLL) and views on running totals (`totals`, `all`:
//! COUNT and SUM only). SQL `FROM` each view reads the same rows, typed as the query
//! computes them.
//!
//! Background GC mode: a view follows collection when a compaction removes cells, and reads
//! keep collectable cells until then, so the view must match after every step. Immediate
//! mode: reads hide expired cells at once while the view follows at the next collection,
//! so there the comparison is after `collect_all_garbage`.

use std::collections::BTreeMap;
use std::sync::Arc;

use proptest::prelude::*;
use sparsetable::api::materialized_views::encode_value;
use sparsetable::api::sql::{self, SqlValue};
use sparsetable::platform::storage::MemStorage;
use sparsetable::{
    Clock, ColumnFamily, Database, DropRowRange, Durability, GcMode, GcRule, ManualClock, Mutation,
    OpenOptions, ReadRowsRequest, TableConfig, TabletOptions,
};

const T0: i64 = 1_700_000_000_000_000;
const SECOND: i64 = 1_000_000;

/// The views: (id, the view's query, the same query for the SQL engine as a plain SELECT).
/// Plain SQL reads `GROUP BY _key` as the table's key, so the reference groups by the
/// expression itself; `'*'` is grouped by the constant.
const VIEWS: [(&str, &str, &str); 3] = [
    (
        "by_group",
        "SELECT cf['g'] AS _key, COUNT(*) AS n, SUM(TO_INT64(cf['v'])) AS total, \
         MIN(TO_INT64(cf['v'])) AS lo, MAX(TO_INT64(cf['v'])) AS hi, \
         AVG(TO_INT64(cf['v'])) AS mean, BIT_XOR(TO_INT64(cf['v'])) AS x, \
         HLL_COUNT.INIT(cf['v']) AS sketch FROM t WHERE _key >= 'b' GROUP BY _key",
        "SELECT cf['g'] AS _key, COUNT(*) AS n, SUM(TO_INT64(cf['v'])) AS total, \
         MIN(TO_INT64(cf['v'])) AS lo, MAX(TO_INT64(cf['v'])) AS hi, \
         AVG(TO_INT64(cf['v'])) AS mean, BIT_XOR(TO_INT64(cf['v'])) AS x, \
         HLL_COUNT.INIT(cf['v']) AS sketch FROM t WHERE _key >= 'b' GROUP BY cf['g']",
    ),
    (
        "totals",
        "SELECT cf['g'] AS _key, COUNT(*) AS n, COUNT(cf['v']) AS nv, \
         SUM(TO_INT64(cf['v'])) AS total FROM t GROUP BY _key",
        "SELECT cf['g'] AS _key, COUNT(*) AS n, COUNT(cf['v']) AS nv, \
         SUM(TO_INT64(cf['v'])) AS total FROM t GROUP BY cf['g']",
    ),
    (
        "all",
        "SELECT '*' AS _key, COUNT(*) AS count FROM t GROUP BY _key",
        "SELECT '*' AS _key, COUNT(*) AS count FROM t GROUP BY 1",
    ),
];

#[derive(Debug, Clone)]
enum Op {
    Put {
        row: u8,
        group: u8,
        value: i64,
        age: u8,
    },
    PutValue {
        row: u8,
        value: i64,
    },
    DeleteGroup {
        row: u8,
    },
    DeleteRow {
        row: u8,
    },
    DropAll,
    Advance {
        seconds: u8,
    },
    Collect,
    Crash,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u8..24, 0u8..4, -50i64..50, 0u8..20)
            .prop_map(|(row, group, value, age)| Op::Put { row, group, value, age }),
        3 => (0u8..24, -50i64..50).prop_map(|(row, value)| Op::PutValue { row, value }),
        1 => (0u8..24).prop_map(|row| Op::DeleteGroup { row }),
        2 => (0u8..24).prop_map(|row| Op::DeleteRow { row }),
        1 => Just(Op::DropAll).prop_filter("rare", |_| true),
        2 => (1u8..15).prop_map(|seconds| Op::Advance { seconds }),
        2 => Just(Op::Collect),
        1 => Just(Op::Crash),
    ]
}

fn config() -> TableConfig {
    let mut c = TableConfig::default();
    c.families.insert(
        "cf".into(),
        ColumnFamily {
            // Versions beyond 2 and cells older than 10 s are collectable.
            gc_rule: GcRule::Union(vec![
                GcRule::MaxNumVersions(2),
                GcRule::MaxAge {
                    micros: 10 * SECOND,
                },
            ]),
            ..ColumnFamily::default()
        },
    );
    // Tiny tablets: writes flush, compact, split and merge all the time.
    c.tablet_options = TabletOptions {
        memtable_bytes: 300,
        max_runs: 2,
        split_bytes: 600,
        merge_bytes: 200,
        split_load_ops: 0,
    };
    c
}

fn options(mode: GcMode) -> OpenOptions {
    OpenOptions {
        durability: Durability::None,
        log_rotate_bytes: 4_000,
        gc_mode: mode,
        ..OpenOptions::default()
    }
}

fn open(storage: &MemStorage, clock: &Arc<ManualClock>, mode: GcMode) -> Database {
    let mut db = Database::open(Arc::new(storage.clone()), options(mode), clock.clone()).unwrap();
    if db.get_table("t").is_err() {
        db.create_table("t", config()).unwrap();
    }
    for (id, q, _) in VIEWS {
        db.create_materialized_view(id, q, false).unwrap();
    }
    db
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

/// The query run from scratch, laid out as view rows (groups with no usable key left out).
fn expected(db: &Database, q: &str) -> ViewRows {
    let prepared = sql::prepare(db, q, BTreeMap::new()).unwrap();
    let names: Vec<String> = prepared.columns().iter().map(|c| c.name.clone()).collect();
    let mut out = Vec::new();
    for row in sql::execute(db, &prepared, &BTreeMap::new()).unwrap() {
        let key = match &row[0] {
            SqlValue::Bytes(b) if !b.is_empty() => b.clone(),
            SqlValue::String(s) if !s.is_empty() => s.as_bytes().to_vec(),
            _ => continue,
        };
        let cells = names[1..]
            .iter()
            .zip(&row[1..])
            .filter_map(|(n, v)| Some((n.clone(), encode_value(v)?)))
            .collect();
        out.push((key, cells));
    }
    out.sort();
    out
}

/// The query run from scratch, as SQL reads the view (`SELECT * FROM view`): the key as
/// BYTES, then the other columns' values, by key (groups with no usable key left out).
fn expected_sql(db: &Database, q: &str) -> Vec<Vec<SqlValue>> {
    let prepared = sql::prepare(db, q, BTreeMap::new()).unwrap();
    let mut out: Vec<Vec<SqlValue>> = sql::execute(db, &prepared, &BTreeMap::new())
        .unwrap()
        .into_iter()
        .filter_map(|mut row| {
            row[0] = match &row[0] {
                SqlValue::Bytes(b) if !b.is_empty() => SqlValue::Bytes(b.clone()),
                SqlValue::String(s) if !s.is_empty() => SqlValue::Bytes(s.as_bytes().to_vec()),
                _ => return None,
            };
            Some(row)
        })
        .collect();
    out.sort_by(|a, b| a[0].as_bytes().cmp(&b[0].as_bytes()));
    out
}

fn check(db: &Database) -> Result<(), TestCaseError> {
    for (id, _, reference) in VIEWS {
        prop_assert_eq!(view_rows(db, id), expected(db, reference), "view {}", id);
        let via_sql = sql::prepare(db, &format!("SELECT * FROM `{id}`"), BTreeMap::new())
            .and_then(|q| sql::execute(db, &q, &BTreeMap::new()))
            .unwrap();
        prop_assert_eq!(via_sql, expected_sql(db, reference), "SQL over view {}", id);
        prop_assert_eq!(db.materialized_view_status(id).unwrap().1, None);
    }
    Ok(())
}

fn key(row: u8) -> Vec<u8> {
    // Rows a.. and b..: the WHERE of `by_group` keeps only the b rows.
    format!(
        "{}{:02}",
        if row.is_multiple_of(2) { 'a' } else { 'b' },
        row
    )
    .into_bytes()
}

fn apply(db: &mut Database, clock: &ManualClock, op: &Op) {
    let now = clock.now_micros();
    match *op {
        Op::Put {
            row,
            group,
            value,
            age,
        } => {
            // Group 3 is the empty string: a key the view cannot have.
            let g: &[u8] = [&b"x"[..], b"y", b"z", b""][usize::from(group)];
            let ts = now - i64::from(age) * SECOND;
            db.mutate_row(
                "t",
                &key(row),
                &[
                    Mutation::set_cell("cf", b"g", ts, g),
                    Mutation::set_cell("cf", b"v", ts, value.to_be_bytes()),
                ],
            )
            .unwrap();
        }
        Op::PutValue { row, value } => db
            .mutate_row(
                "t",
                &key(row),
                &[Mutation::set_cell("cf", b"v", now, value.to_be_bytes())],
            )
            .unwrap(),
        Op::DeleteGroup { row } => db
            .mutate_row(
                "t",
                &key(row),
                &[Mutation::DeleteFromColumn {
                    family: "cf".into(),
                    qualifier: b"g".to_vec(),
                    time_range: Default::default(),
                }],
            )
            .unwrap(),
        Op::DeleteRow { row } => db
            .mutate_row("t", &key(row), &[Mutation::DeleteFromRow])
            .unwrap(),
        Op::DropAll => db.drop_row_range("t", &DropRowRange::All).unwrap(),
        Op::Advance { seconds } => clock.advance_micros(i64::from(seconds) * SECOND),
        Op::Collect => db.collect_all_garbage().unwrap(),
        Op::Crash => {}
    }
}

fn run(mode: GcMode, ops: &[Op]) -> Result<(), TestCaseError> {
    let storage = MemStorage::new();
    let clock = Arc::new(ManualClock::new(T0));
    let mut db = open(&storage, &clock, mode);
    for op in ops {
        if let Op::Crash = op {
            // No checkpoint: the reopen replays the log; the views are defined again.
            drop(db);
            db = open(&storage, &clock, mode);
        } else {
            apply(&mut db, &clock, op);
        }
        if mode == GcMode::Background {
            check(&db)?;
        }
    }
    db.collect_all_garbage().unwrap();
    check(&db)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn views_equal_their_query_rerun_in_background_gc(ops in prop::collection::vec(op(), 1..60)) {
        run(GcMode::Background, &ops)?;
    }

    #[test]
    fn views_equal_their_query_rerun_after_collection_in_immediate_gc(
        ops in prop::collection::vec(op(), 1..60)
    ) {
        run(GcMode::Immediate, &ops)?;
    }
}

/// The tiny tablet options above really split and merge the table while views follow it.
#[test]
fn the_workload_splits_and_merges_tablets() {
    let storage = MemStorage::new();
    let clock = Arc::new(ManualClock::new(T0));
    let mut db = open(&storage, &clock, GcMode::Background);
    for i in 0..24u8 {
        apply(
            &mut db,
            &clock,
            &Op::Put {
                row: i,
                group: i % 3,
                value: i64::from(i),
                age: 0,
            },
        );
    }
    let split = db.tablets("t").unwrap().len();
    assert!(split > 2, "{split} tablets");
    for i in 0..24u8 {
        apply(&mut db, &clock, &Op::DeleteRow { row: i });
    }
    db.collect_all_garbage().unwrap();
    assert!(db.tablets("t").unwrap().len() < split, "merged");
    check(&db).unwrap();
}
