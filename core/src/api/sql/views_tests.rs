//! Unit tests of logical views in `FROM` ([`super::views`]): what a view exposes, how its
//! WHERE and the outer one combine, nesting, and what is refused.

use super::*;
use crate::api::instances::LogicalViewRecord;
use crate::model::mutation::Mutation;
use crate::model::schema::TableConfig;
use crate::Code;
use alloc::string::ToString;
use alloc::vec;

fn db() -> Database {
    let mut db = Database::new();
    db.create_table("t", TableConfig::with_families(["cf", "secret"]))
        .unwrap();
    for (key, n) in [("a", "1"), ("b", "2"), ("c", "3"), ("d", "4")] {
        db.mutate_row(
            "t",
            key.as_bytes(),
            &[
                Mutation::set_cell("cf", b"n".to_vec(), 1000, n.as_bytes().to_vec()),
                Mutation::set_cell("secret", b"s".to_vec(), 1000, b"x".to_vec()),
            ],
        )
        .unwrap();
    }
    db
}

fn view(id: &str, query: &str) -> LogicalViewRecord {
    LogicalViewRecord {
        id: id.to_string(),
        query: query.to_string(),
        deletion_protection: false,
        etag: String::new(),
    }
}

fn views() -> Vec<LogicalViewRecord> {
    vec![
        // A projection with a filter: the key and one column, renamed; rows after "a".
        view(
            "nums",
            "SELECT _key AS k, CAST(SAFE_CONVERT_BYTES_TO_STRING(cf['n']) AS INT64) AS n FROM t WHERE _key > b'a'",
        ),
        // A view over a view.
        view("big", "SELECT k, n * 10 AS tens FROM nums WHERE n >= 3"),
        // An aggregate view: only SELECT * reads it.
        view("total", "SELECT COUNT(*) AS rows_seen FROM t"),
        view("loop1", "SELECT * FROM loop2"),
        view("loop2", "SELECT * FROM loop1"),
        view("star", "SELECT * FROM t WHERE _key = b'c'"),
    ]
}

fn run(db: &Database, sql: &str) -> Result<Vec<Vec<SqlValue>>> {
    let q = prepare_with_views(db, sql, BTreeMap::new(), &views())?;
    execute(db, &q, &BTreeMap::new())
}

fn b(s: &str) -> SqlValue {
    SqlValue::Bytes(s.as_bytes().to_vec())
}

#[test]
fn a_view_reads_as_its_columns_with_its_filter() {
    let db = db();
    let q = prepare_with_views(&db, "SELECT * FROM nums", BTreeMap::new(), &views()).unwrap();
    let names: Vec<&str> = q.columns().iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["k", "n"]);
    assert_eq!(q.columns()[1].ty, SqlType::Int64);
    assert_eq!(q.table(), Some("t"));
    let rows = run(&db, "SELECT * FROM nums").unwrap();
    assert_eq!(
        rows,
        vec![
            vec![b("b"), SqlValue::Int64(2)],
            vec![b("c"), SqlValue::Int64(3)],
            vec![b("d"), SqlValue::Int64(4)],
        ]
    );
    // The outer WHERE sees the view's columns and combines with the view's.
    let rows = run(&db, "SELECT n, k FROM nums WHERE n < 4 ORDER BY n DESC").unwrap();
    assert_eq!(
        rows,
        vec![
            vec![SqlValue::Int64(3), b("c")],
            vec![SqlValue::Int64(2), b("b")]
        ]
    );
    let rows = run(&db, "SELECT SUM(n) AS s, COUNT(*) FROM nums").unwrap();
    assert_eq!(rows, vec![vec![SqlValue::Int64(9), SqlValue::Int64(3)]]);
    let rows = run(&db, "SELECT n + 1 AS m FROM nums WHERE k = b'd' LIMIT 1").unwrap();
    assert_eq!(rows, vec![vec![SqlValue::Int64(5)]]);
}

#[test]
fn a_view_hides_what_it_does_not_select() {
    let db = db();
    for sql in [
        "SELECT secret FROM nums",
        "SELECT _key FROM nums",
        "SELECT k FROM nums WHERE cf['n'] = b'1'",
    ] {
        let e = run(&db, sql).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{sql}");
        assert!(
            e.message().contains("not a column of logical view nums"),
            "{e}"
        );
    }
    // A SELECT * view exposes _key and every family, and keeps its filter.
    let rows = run(&db, "SELECT _key, secret['s'] FROM star").unwrap();
    assert_eq!(rows, vec![vec![b("c"), b("x")]]);
}

#[test]
fn views_nest_and_a_cycle_is_refused() {
    let db = db();
    let rows = run(&db, "SELECT tens FROM big ORDER BY tens").unwrap();
    assert_eq!(
        rows,
        vec![vec![SqlValue::Int64(30)], vec![SqlValue::Int64(40)]]
    );
    let e = run(&db, "SELECT * FROM loop1").unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("deep"), "{e}");
}

#[test]
fn an_aggregating_view_reads_only_as_select_star() {
    let db = db();
    assert_eq!(
        run(&db, "SELECT * FROM total").unwrap(),
        vec![vec![SqlValue::Int64(4)]]
    );
    let e = run(&db, "SELECT rows_seen FROM total").unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message().contains("only be read as SELECT * FROM total"),
        "{e}"
    );
    let e = run(&db, "SELECT * FROM nums(with_history => TRUE)").unwrap_err();
    assert!(e.message().contains("takes no table arguments"), "{e}");
}

#[test]
fn tables_come_before_views_and_unknown_names_stay_not_found() {
    let mut db = db();
    db.create_table("nums", TableConfig::with_families(["cf"]))
        .unwrap();
    // The table named like the view is read (it is empty).
    assert!(run(&db, "SELECT * FROM nums").unwrap().is_empty());
    let e = run(&db, "SELECT * FROM nothing").unwrap_err();
    assert_eq!(e.code(), Code::NotFound);
    // Without views, prepare is unchanged.
    assert!(prepare(&db, "SELECT * FROM big", BTreeMap::new()).is_err());
}

#[test]
fn a_view_whose_table_was_deleted_says_so() {
    let mut db = db();
    db.delete_table("t").unwrap();
    let e = run(&db, "SELECT k FROM nums").unwrap_err();
    assert_eq!(e.code(), Code::NotFound);
    assert!(
        e.message().contains("logical view nums reads table t"),
        "{e}"
    );
}

#[test]
fn unnest_over_views_is_refused_and_a_view_may_unnest() {
    let mut db = db();
    // A view's query with UNNEST reads only as SELECT * FROM it, whole.
    let mut with_unnest = views();
    with_unnest.push(view(
        "keys",
        "SELECT _key, q FROM t, UNNEST(MAP_KEYS(cf)) AS q WHERE _key = b'a'",
    ));
    let q = prepare_with_views(&db, "SELECT * FROM keys", BTreeMap::new(), &with_unnest).unwrap();
    assert_eq!(
        execute(&db, &q, &BTreeMap::new()).unwrap(),
        vec![vec![b("a"), b("n")]]
    );
    let e =
        prepare_with_views(&db, "SELECT q FROM keys", BTreeMap::new(), &with_unnest).unwrap_err();
    assert!(e.message().contains("UNNEST"), "{e}");
    // An outer UNNEST over a logical view is refused by name.
    let e = run(&db, "SELECT x FROM nums, UNNEST([1]) AS x").unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("UNNEST over logical view nums"), "{e}");
    // UNNEST with UNPACK, outside or inside its query, is refused by name.
    for sql in [
        "SELECT _key FROM UNPACK((SELECT * FROM t(with_history => TRUE))), UNNEST([1, 2]) AS x",
        "SELECT _key FROM UNPACK((SELECT * FROM t(with_history => TRUE), UNNEST(MAP_KEYS(cf)) AS q))",
    ] {
        let e = run(&db, sql).unwrap_err();
        assert!(e.message().contains("UNNEST"), "{e}");
    }
    // A continuous materialized view does not maintain an UNNEST query.
    let e = db
        .create_materialized_view(
            "mv",
            "SELECT q AS _key, COUNT(*) AS n FROM t, UNNEST(MAP_KEYS(cf)) AS q GROUP BY _key",
            false,
        )
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("UNNEST"), "{e}");
}
