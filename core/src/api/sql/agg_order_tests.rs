//! Tests of `ORDER BY` / `LIMIT` inside aggregate calls: ordering with NULLs (first
//! ascending, last descending), ties in arrival order, LIMIT after IGNORE NULLS and DISTINCT,
//! per-group results, parameters, and the refusals with their positions.

use super::*;
use crate::model::mutation::Mutation;
use crate::model::schema::TableConfig;
use crate::Code;
use alloc::string::ToString;
use alloc::vec;

/// Rows `k1`..`k6`: `cf:g` a group, `cf:s` a string, `cf:n` a number (some missing).
fn db() -> Database {
    let mut db = Database::new();
    db.create_table("t", TableConfig::with_families(["cf"]))
        .unwrap();
    let rows: [(&str, &str, Option<&str>, Option<&str>); 6] = [
        ("k1", "a", Some("pear"), Some("3")),
        ("k2", "a", Some("apple"), None),
        ("k3", "b", Some("fig"), Some("1")),
        ("k4", "a", None, Some("7")),
        ("k5", "b", Some("kiwi"), Some("1")),
        ("k6", "a", Some("date"), Some("5")),
    ];
    for (key, g, s, n) in rows {
        let mut m = vec![Mutation::set_cell(
            "cf",
            b"g".to_vec(),
            1000,
            g.as_bytes().to_vec(),
        )];
        if let Some(s) = s {
            m.push(Mutation::set_cell(
                "cf",
                b"s".to_vec(),
                1000,
                s.as_bytes().to_vec(),
            ));
        }
        if let Some(n) = n {
            m.push(Mutation::set_cell(
                "cf",
                b"n".to_vec(),
                1000,
                n.as_bytes().to_vec(),
            ));
        }
        db.mutate_row("t", key.as_bytes(), &m).unwrap();
    }
    db
}

const S: &str = "SAFE_CONVERT_BYTES_TO_STRING(cf['s'])";
const N: &str = "CAST(SAFE_CONVERT_BYTES_TO_STRING(cf['n']) AS INT64)";

fn run(db: &Database, sql: &str) -> Result<Vec<Vec<SqlValue>>> {
    execute(db, &prepare(db, sql, BTreeMap::new())?, &BTreeMap::new())
}

fn one(db: &Database, sql: &str) -> SqlValue {
    let sql = sql.replace("$S", S).replace("$N", N);
    run(db, &sql).unwrap_or_else(|e| panic!("{sql}: {e}"))[0][0].clone()
}

fn strs(v: &[&str]) -> SqlValue {
    SqlValue::Array(v.iter().map(|s| SqlValue::String(s.to_string())).collect())
}

fn s(v: &str) -> SqlValue {
    SqlValue::String(v.to_string())
}

#[test]
fn values_are_ordered_with_nulls_first_ascending_and_last_descending() {
    let db = db();
    assert_eq!(
        one(&db, "SELECT ARRAY_AGG($S IGNORE NULLS ORDER BY $S) FROM t"),
        strs(&["apple", "date", "fig", "kiwi", "pear"])
    );
    // By another key: k2 has no number, so it sorts first ascending and last descending;
    // k3 and k5 tie on 1 and keep their arrival order (k3 first) either way.
    assert_eq!(
        one(&db, "SELECT STRING_AGG($S, ',' ORDER BY $N) FROM t"),
        s("apple,fig,kiwi,pear,date")
    );
    assert_eq!(
        one(&db, "SELECT STRING_AGG($S, ',' ORDER BY $N DESC) FROM t"),
        s("date,pear,fig,kiwi,apple")
    );
    // Two keys: the second breaks the first's ties.
    assert_eq!(
        one(
            &db,
            "SELECT STRING_AGG($S ORDER BY $N DESC, $S DESC) FROM t"
        ),
        s("date,pear,kiwi,fig,apple")
    );
}

#[test]
fn limit_keeps_the_first_values_after_nulls_and_duplicates_are_dropped() {
    let db = db();
    assert_eq!(
        one(
            &db,
            "SELECT ARRAY_AGG($N IGNORE NULLS ORDER BY $N DESC LIMIT 3) FROM t"
        ),
        SqlValue::Array(vec![
            SqlValue::Int64(7),
            SqlValue::Int64(5),
            SqlValue::Int64(3)
        ])
    );
    assert_eq!(
        one(
            &db,
            "SELECT ARRAY_AGG(DISTINCT $N IGNORE NULLS ORDER BY $N LIMIT 2) FROM t"
        ),
        SqlValue::Array(vec![SqlValue::Int64(1), SqlValue::Int64(3)])
    );
    // LIMIT without ORDER BY: the first values in the order rows are read.
    assert_eq!(
        one(&db, "SELECT STRING_AGG($S, '' LIMIT 2) FROM t"),
        s("pearapple")
    );
    // Nothing left: NULL, as for no input rows.
    assert_eq!(
        one(&db, "SELECT STRING_AGG($S LIMIT 0) FROM t"),
        SqlValue::Null
    );
    // A parameter.
    let q = prepare(
        &db,
        "SELECT ARRAY_AGG(_key ORDER BY _key DESC LIMIT @n) FROM t",
        BTreeMap::from([("n".to_string(), SqlType::Int64)]),
    )
    .unwrap();
    let rows = execute(
        &db,
        &q,
        &BTreeMap::from([("n".to_string(), SqlValue::Int64(2))]),
    )
    .unwrap();
    assert_eq!(
        rows[0][0],
        SqlValue::Array(vec![
            SqlValue::Bytes(b"k6".to_vec()),
            SqlValue::Bytes(b"k5".to_vec())
        ])
    );
    let err = execute(
        &db,
        &q,
        &BTreeMap::from([("n".to_string(), SqlValue::Int64(-1))]),
    )
    .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
}

#[test]
fn each_group_orders_its_own_values() {
    let db = db();
    let rows = run(
        &db,
        &"SELECT SAFE_CONVERT_BYTES_TO_STRING(cf['g']) AS g, ARRAY_AGG($S IGNORE NULLS ORDER BY $S DESC LIMIT 2) AS top FROM t GROUP BY g ORDER BY g"
            .replace("$S", S),
    )
    .unwrap();
    assert_eq!(
        rows,
        vec![
            vec![s("a"), strs(&["pear", "date"])],
            vec![s("b"), strs(&["kiwi", "fig"])],
        ]
    );
}

#[test]
fn clauses_are_refused_where_they_do_not_apply_with_their_position() {
    let db = db();
    for (sql, words) in [
        ("SELECT SUM(1 ORDER BY _key) FROM t", "not by SUM"),
        (
            "SELECT COUNT(_key LIMIT 1) FROM t",
            "LIMIT inside an aggregate call",
        ),
        ("SELECT UPPER('a' ORDER BY 'a') FROM t", "not an aggregate"),
        (
            "SELECT ARRAY_AGG(_key ORDER BY _key NULLS LAST) FROM t",
            "NULLS FIRST / NULLS LAST",
        ),
        (
            "SELECT ARRAY_AGG(DISTINCT _key ORDER BY cf['s']) FROM t",
            "only by its argument",
        ),
        (
            "SELECT ARRAY_AGG(_key LIMIT -1) FROM t",
            "non-negative INT64",
        ),
        (
            "SELECT ARRAY_AGG(_key LIMIT 1.5) FROM t",
            "non-negative INT64",
        ),
        (
            "SELECT ARRAY_AGG(_key ORDER BY cf) FROM t",
            "ORDER BY does not sort",
        ),
        (
            "SELECT ARRAY_AGG(_key ORDER BY COUNT(*)) FROM t",
            "cannot nest",
        ),
    ] {
        let err = prepare(&db, sql, BTreeMap::new()).unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument, "{sql}");
        assert!(err.message().contains(words), "{sql}: {err}");
        assert!(err.message().contains("[at 1:"), "{sql}: {err}");
    }
}
