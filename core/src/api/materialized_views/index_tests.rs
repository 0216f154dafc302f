//! Secondary-index (ORDER BY) views: what creation refuses, the key and columns SQL reads,
//! key-range narrowing, and a property test that after any sequence of writes and deletes
//! the index equals its query re-run over the source.

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use proptest::prelude::*;

use crate::api::sql::{self, SqlType, SqlValue};
use crate::model::mutation::Mutation;
use crate::model::schema::TableConfig;
use crate::platform::clock::ManualClock;
use crate::{Code, Database, Result};

const T0: i64 = 1_700_000_000_000_000;

/// By e-mail address, then the source key; the name is carried along.
const BY_EMAIL: &str = "SELECT SAFE_CONVERT_BYTES_TO_STRING(cf['email']) AS email, \
     _key AS original_key, cf['name'] AS name FROM t ORDER BY email, original_key";

fn db() -> Database {
    let mut db = Database::with_clock(ManualClock::new(T0));
    db.create_table("t", TableConfig::with_families(["cf"]))
        .unwrap();
    db
}

fn put(db: &mut Database, row: &str, cells: &[(&str, &[u8])]) {
    let m: Vec<Mutation> = cells
        .iter()
        .map(|(q, v)| Mutation::set_cell("cf", q.as_bytes(), 1000, *v))
        .collect();
    db.mutate_row("t", row.as_bytes(), &m).unwrap();
}

fn run(db: &Database, q: &str) -> Result<Vec<Vec<SqlValue>>> {
    let prepared = sql::prepare(db, q, BTreeMap::new())?;
    sql::execute(db, &prepared, &BTreeMap::new())
}

fn s(v: &str) -> SqlValue {
    SqlValue::String(v.into())
}

fn b(v: &str) -> SqlValue {
    SqlValue::Bytes(v.as_bytes().to_vec())
}

#[test]
fn an_index_reads_by_its_key_columns_in_key_order() {
    let mut db = db();
    put(&mut db, "u1", &[("email", b"zoe@x"), ("name", b"Zoe")]);
    put(&mut db, "u2", &[("email", b"al@x"), ("name", b"Al")]);
    put(&mut db, "u3", &[("email", b"al@x")]);
    db.create_materialized_view("by_email", BY_EMAIL, false)
        .unwrap();
    let prepared = sql::prepare(&db, "SELECT * FROM by_email", BTreeMap::new()).unwrap();
    let columns: Vec<(String, SqlType)> = prepared
        .columns()
        .iter()
        .map(|c| (c.name.clone(), c.ty.clone()))
        .collect();
    assert_eq!(
        columns,
        [
            ("email".to_string(), SqlType::String),
            ("original_key".to_string(), SqlType::Bytes),
            ("name".to_string(), SqlType::Bytes),
        ]
    );
    assert_eq!(
        run(&db, "SELECT * FROM by_email").unwrap(),
        [
            [s("al@x"), b("u2"), b("Al")],
            [s("al@x"), b("u3"), SqlValue::Null],
            [s("zoe@x"), b("u1"), b("Zoe")],
        ]
    );
    assert_eq!(
        run(
            &db,
            "SELECT original_key FROM by_email WHERE email = 'al@x'"
        )
        .unwrap(),
        [[b("u2")], [b("u3")]]
    );
    assert_eq!(db.materialized_view_status("by_email").unwrap(), (3, None));
}

#[test]
fn an_index_follows_writes_deletes_and_dropped_rows() {
    let mut db = db();
    put(&mut db, "u1", &[("email", b"a@x"), ("name", b"A")]);
    db.create_materialized_view("by_email", BY_EMAIL, false)
        .unwrap();
    let all = |db: &Database| run(db, "SELECT email, original_key, name FROM by_email").unwrap();
    // A new address moves the row: the old index row is gone.
    put(&mut db, "u1", &[("email", b"c@x")]);
    put(&mut db, "u2", &[("email", b"b@x"), ("name", b"B")]);
    assert_eq!(
        all(&db),
        [[s("b@x"), b("u2"), b("B")], [s("c@x"), b("u1"), b("A")]]
    );
    // A row without an address has no key: it is left out until it has one.
    db.mutate_row(
        "t",
        b"u1",
        &[Mutation::DeleteFromColumn {
            family: "cf".into(),
            qualifier: b"email".to_vec(),
            time_range: Default::default(),
        }],
    )
    .unwrap();
    assert_eq!(all(&db), [[s("b@x"), b("u2"), b("B")]]);
    db.mutate_row("t", b"u2", &[Mutation::DeleteFromRow])
        .unwrap();
    assert_eq!(all(&db), Vec::<Vec<SqlValue>>::new());
    put(&mut db, "u3", &[("email", b"d@x")]);
    assert_eq!(all(&db).len(), 1);
    db.drop_row_range("t", &crate::api::database::DropRowRange::All)
        .unwrap();
    assert_eq!(all(&db), Vec::<Vec<SqlValue>>::new());
    assert_eq!(db.materialized_view_status("by_email").unwrap(), (0, None));
}

#[test]
fn a_where_clause_and_an_int64_key_column_order_numerically() {
    let mut db = db();
    for (row, age) in [("a", -5i64), ("b", 300), ("c", 7), ("d", -70_000)] {
        put(&mut db, row, &[("age", &age.to_be_bytes())]);
    }
    put(
        &mut db,
        "e",
        &[("age", &1i64.to_be_bytes()), ("hidden", b"1")],
    );
    db.create_materialized_view(
        "by_age",
        "SELECT TO_INT64(cf['age']) AS age, _key AS k FROM t \
         WHERE cf['hidden'] IS NULL ORDER BY age, k",
        false,
    )
    .unwrap();
    let ages: Vec<SqlValue> = run(&db, "SELECT age FROM by_age")
        .unwrap()
        .into_iter()
        .map(|mut r| r.remove(0))
        .collect();
    assert_eq!(ages, [-70_000i64, -5, 7, 300].map(SqlValue::Int64).to_vec());
    // A range on the leading key column reads only the rows in it.
    let q = sql::prepare(&db, "SELECT k FROM by_age WHERE age > 0", BTreeMap::new()).unwrap();
    let mut rows = sql::execute_stream(&db, &q, &BTreeMap::new()).unwrap();
    let mut keys = Vec::new();
    while let Some(r) = rows.try_next().unwrap() {
        keys.push(r[0].clone());
    }
    assert_eq!(keys, [b("c"), b("b")]);
    assert_eq!(rows.rows_scanned(), 2, "the read is narrowed to age > 0");
}

#[test]
fn an_index_keyed_by_the_source_key_alone_has_the_source_keys() {
    let mut db = db();
    put(&mut db, "r1", &[("v", b"1")]);
    db.create_materialized_view(
        "copy",
        "SELECT _key AS k, cf['v'] AS v FROM t ORDER BY k",
        false,
    )
    .unwrap();
    let mut rows = db
        .read_materialized_view("copy", &crate::model::request::ReadRowsRequest::default())
        .unwrap();
    let row = rows.try_next().unwrap().unwrap();
    assert_eq!(row.key, b"r1");
    assert!(rows.try_next().unwrap().is_none());
}

#[test]
fn a_timestamp_key_column_reads_back_and_a_logical_view_reads_the_index() {
    let mut db = db();
    for (row, micros) in [("a", 3_000_000i64), ("b", -1_000_000), ("c", 2_000_000)] {
        put(&mut db, row, &[("at", &micros.to_be_bytes())]);
    }
    db.create_materialized_view(
        "by_time",
        "SELECT TIMESTAMP_MICROS(TO_INT64(cf['at'])) AS at, _key AS k FROM t ORDER BY at, k",
        false,
    )
    .unwrap();
    assert_eq!(
        run(&db, "SELECT at, k FROM by_time").unwrap(),
        [
            [SqlValue::timestamp_micros(-1_000_000), b("b")],
            [SqlValue::timestamp_micros(2_000_000), b("c")],
            [SqlValue::timestamp_micros(3_000_000), b("a")],
        ]
    );
    let views = [crate::api::instances::LogicalViewRecord {
        id: "late".into(),
        query: "SELECT k FROM by_time WHERE at > TIMESTAMP_MICROS(0)".into(),
        deletion_protection: false,
        etag: String::new(),
    }];
    let q = sql::prepare_with_views(&db, "SELECT * FROM late", BTreeMap::new(), &views).unwrap();
    assert_eq!(
        sql::execute(&db, &q, &BTreeMap::new()).unwrap(),
        [[b("c")], [b("a")]]
    );
}

#[test]
fn garbage_collection_reaches_the_index_when_it_removes_cells() {
    use crate::model::gc::GcRule;
    use crate::model::schema::{ColumnFamily, FamilyModification};
    let mut db = db();
    db.set_gc_mode(crate::model::gc::GcMode::Background);
    db.modify_column_families(
        "t",
        &[FamilyModification::Create {
            name: "old".into(),
            family: ColumnFamily {
                gc_rule: GcRule::MaxAge {
                    micros: 3_600_000_000,
                },
                ..Default::default()
            },
        }],
    )
    .unwrap();
    // Row "a"'s tag is past its family's age limit but readable until collected.
    db.mutate_row("t", b"a", &[Mutation::set_cell("old", b"g", 1000, b"x")])
        .unwrap();
    db.mutate_row("t", b"b", &[Mutation::set_cell("old", b"g", T0, b"y")])
        .unwrap();
    db.create_materialized_view(
        "by_tag",
        "SELECT old['g'] AS tag, _key AS k FROM t ORDER BY tag, k",
        false,
    )
    .unwrap();
    let tags = |db: &Database| run(db, "SELECT tag FROM by_tag").unwrap();
    assert_eq!(tags(&db), [[b("x")], [b("y")]]);
    db.collect_garbage("t").unwrap();
    assert_eq!(tags(&db), [[b("y")]]);
    assert_eq!(db.materialized_view_status("by_tag").unwrap(), (1, None));
}

#[test]
fn index_queries_that_break_the_rules_are_refused_naming_the_rule() {
    let mut db = db();
    let cases = [
        ("SELECT _key AS k FROM t ORDER BY k DESC", "DESC"),
        (
            "SELECT _key AS k FROM t ORDER BY k NULLS LAST",
            "NULLS LAST",
        ),
        (
            "SELECT _key AS k, cf['a'] AS a FROM t ORDER BY cf['b'], k",
            "SELECT columns",
        ),
        (
            "SELECT cf['a'] AS a FROM t ORDER BY a",
            "unmodified row key",
        ),
        (
            "SELECT CONCAT(_key, b'#') AS k FROM t ORDER BY k",
            "unmodified row key",
        ),
        (
            "SELECT _key FROM t ORDER BY _key",
            "alias other than `_key`",
        ),
        (
            "SELECT _key AS k, CAST(1.5 AS FLOAT64) AS f FROM t ORDER BY f, k",
            "BYTES, STRING, INT64 or TIMESTAMP",
        ),
        ("SELECT _key AS k FROM t ORDER BY k, k", "twice"),
        (
            "SELECT _key AS k, cf['a'] AS _key FROM t ORDER BY k",
            "another alias",
        ),
        ("SELECT _key AS k FROM t ORDER BY k LIMIT 2", "LIMIT"),
        ("SELECT DISTINCT _key AS k FROM t ORDER BY k", "DISTINCT"),
        (
            "SELECT _key AS k, COUNT(*) AS n FROM t GROUP BY k ORDER BY k",
            "not both",
        ),
        (
            "SELECT _key AS k, CURRENT_TIMESTAMP() AS now FROM t ORDER BY k",
            "CURRENT_TIMESTAMP",
        ),
    ];
    for (q, what) in cases {
        let e = db.create_materialized_view("v", q, false).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{q}: {e}");
        assert!(e.message().contains(what), "{q}: {e}");
    }
    assert!(db.list_materialized_views().is_empty());
}

/// One step of the property test: row `row` gets these cells, or is deleted.
#[derive(Debug, Clone)]
enum Step {
    Put {
        row: u8,
        tag: Option<String>,
        n: Option<i64>,
    },
    Delete(u8),
}

fn step() -> impl Strategy<Value = Step> {
    let tag = proptest::option::of(prop_oneof![
        Just(String::new()),
        Just("\0".to_string()),
        Just("a".to_string()),
        Just("a\0b".to_string()),
        Just("ab".to_string()),
        Just("\u{e9}".to_string()),
    ]);
    let n = proptest::option::of(prop_oneof![
        Just(i64::MIN),
        Just(-1i64),
        Just(0i64),
        Just(1i64),
        Just(256i64),
        Just(i64::MAX),
    ]);
    prop_oneof![
        4 => (0u8..6, tag, n).prop_map(|(row, tag, n)| Step::Put { row, tag, n }),
        1 => (0u8..6).prop_map(Step::Delete),
    ]
}

/// The index's query, over the view (its columns by name) and over the source (rows whose
/// key columns are NULL are left out of an index, and so here).
const INDEX: &str =
    "SELECT SAFE_CONVERT_BYTES_TO_STRING(cf['tag']) AS tag, TO_INT64(cf['n']) AS n, \
     _key AS k, cf['tag'] AS raw FROM t ORDER BY tag, n, k";
const OVER_VIEW: &str = "SELECT tag, n, k, raw FROM idx";
const OVER_SOURCE: &str = "SELECT SAFE_CONVERT_BYTES_TO_STRING(cf['tag']) AS tag, \
     TO_INT64(cf['n']) AS n, _key AS k, cf['tag'] AS raw FROM t \
     WHERE cf['tag'] IS NOT NULL AND cf['n'] IS NOT NULL ORDER BY tag, n, k";

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// After every step the index, read in key order, equals its query re-run over the
    /// source in ORDER BY order: same rows, same order (so the key encoding sorts as SQL
    /// does, empty strings and NUL bytes included).
    #[test]
    fn an_index_equals_its_query_after_every_change(steps in proptest::collection::vec(step(), 1..24)) {
        let mut db = db();
        db.create_materialized_view("idx", INDEX, false).unwrap();
        for st in steps {
            match st {
                Step::Put { row, tag, n } => {
                    let mut m = alloc::vec![Mutation::DeleteFromRow];
                    m.extend(tag.map(|t| Mutation::set_cell("cf", b"tag", 1000, t.into_bytes())));
                    m.extend(n.map(|n| Mutation::set_cell("cf", b"n", 1000, n.to_be_bytes())));
                    db.mutate_row("t", &[b'r', row], &m).unwrap();
                }
                Step::Delete(row) => {
                    db.mutate_row("t", &[b'r', row], &[Mutation::DeleteFromRow]).unwrap();
                }
            }
            prop_assert_eq!(run(&db, OVER_VIEW).unwrap(), run(&db, OVER_SOURCE).unwrap());
        }
        // And a view created now, from scratch, agrees too.
        db.create_materialized_view("fresh", INDEX, false).unwrap();
        prop_assert_eq!(
            run(&db, "SELECT tag, n, k, raw FROM fresh").unwrap(),
            run(&db, OVER_SOURCE).unwrap()
        );
    }
}
