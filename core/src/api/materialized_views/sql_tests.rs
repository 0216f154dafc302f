//! SQL `FROM` a continuous materialized view: the view's rows read as a table whose columns
//! are `_key` and the view query's output columns, typed as the query computes them.

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::api::instances::LogicalViewRecord;
use crate::api::sql::{self, SqlType, SqlValue};
use crate::model::mutation::Mutation;
use crate::model::schema::TableConfig;
use crate::platform::clock::ManualClock;
use crate::{Code, Database, Result};

const T0: i64 = 1_700_000_000_000_000;

const BY_GROUP: &str = "SELECT cf['g'] AS _key, COUNT(*) AS n, SUM(TO_INT64(cf['v'])) AS total, \
     AVG(TO_INT64(cf['v'])) AS mean, MAX(cf['v'] IS NOT NULL) AS any_v FROM t GROUP BY _key";

fn db() -> Database {
    let mut db = Database::with_clock(ManualClock::new(T0));
    db.create_table("t", TableConfig::with_families(["cf"]))
        .unwrap();
    for (row, group, v) in [("r1", "x", 5i64), ("r2", "x", 7), ("r3", "y", 1)] {
        db.mutate_row(
            "t",
            row.as_bytes(),
            &[
                Mutation::set_cell("cf", b"g", 1000, group.as_bytes()),
                Mutation::set_cell("cf", b"v", 1000, v.to_be_bytes()),
            ],
        )
        .unwrap();
    }
    db.create_materialized_view("by_group", BY_GROUP, false)
        .unwrap();
    db
}

fn run(db: &Database, q: &str) -> Result<Vec<Vec<SqlValue>>> {
    let prepared = sql::prepare(db, q, BTreeMap::new())?;
    sql::execute(db, &prepared, &BTreeMap::new())
}

fn b(s: &str) -> SqlValue {
    SqlValue::Bytes(s.as_bytes().to_vec())
}

#[test]
fn a_view_reads_as_its_key_and_typed_output_columns() {
    let db = db();
    let prepared = sql::prepare(&db, "SELECT * FROM by_group", BTreeMap::new()).unwrap();
    let columns: Vec<(String, SqlType)> = prepared
        .columns()
        .iter()
        .map(|c| (c.name.clone(), c.ty.clone()))
        .collect();
    assert_eq!(
        columns,
        [
            ("_key".to_string(), SqlType::Bytes),
            ("n".to_string(), SqlType::Int64),
            ("total".to_string(), SqlType::Int64),
            ("mean".to_string(), SqlType::Float64),
            ("any_v".to_string(), SqlType::Bool),
        ]
    );
    assert_eq!(
        run(&db, "SELECT * FROM by_group").unwrap(),
        [
            [
                b("x"),
                SqlValue::Int64(2),
                SqlValue::Int64(12),
                SqlValue::Float64(6.0),
                SqlValue::Bool(true)
            ],
            [
                b("y"),
                SqlValue::Int64(1),
                SqlValue::Int64(1),
                SqlValue::Float64(1.0),
                SqlValue::Bool(true)
            ],
        ]
    );
}

#[test]
fn a_view_is_filtered_aggregated_and_ordered_like_a_table() {
    let mut db = db();
    assert_eq!(
        run(
            &db,
            "SELECT n, total * 2 AS twice FROM by_group WHERE _key = 'y'"
        )
        .unwrap(),
        [[SqlValue::Int64(1), SqlValue::Int64(2)]]
    );
    assert_eq!(
        run(&db, "SELECT _key FROM by_group WHERE total > 5").unwrap(),
        [[b("x")]]
    );
    assert_eq!(
        run(
            &db,
            "SELECT SUM(n) AS rows, MAX(total) AS top FROM by_group"
        )
        .unwrap(),
        [[SqlValue::Int64(3), SqlValue::Int64(12)]]
    );
    assert_eq!(
        run(&db, "SELECT _key FROM by_group ORDER BY total LIMIT 1").unwrap(),
        [[b("y")]]
    );
    // The view follows the table, and so does what SQL reads of it.
    db.mutate_row(
        "t",
        b"r4",
        &[
            Mutation::set_cell("cf", b"g", 1000, "y".as_bytes()),
            Mutation::set_cell("cf", b"v", 1000, 10i64.to_be_bytes()),
        ],
    )
    .unwrap();
    assert_eq!(
        run(&db, "SELECT n, total FROM by_group WHERE _key = 'y'").unwrap(),
        [[SqlValue::Int64(2), SqlValue::Int64(11)]]
    );
}

#[test]
fn what_a_view_does_not_have_is_refused_by_name() {
    let db = db();
    let e = run(&db, "SELECT cf FROM by_group").unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message()
            .contains("not a column of materialized view by_group"),
        "{e}"
    );
    // A column is a value, not a family map.
    let e = run(&db, "SELECT n['q'] FROM by_group").unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
    let e = run(&db, "SELECT * FROM by_group(with_history => TRUE)").unwrap_err();
    assert!(e.message().contains("takes no table arguments"), "{e}");
    // A view's query reads a table, never a view.
    let mut db = db;
    let e = db
        .create_materialized_view(
            "of_view",
            "SELECT _key AS _key, SUM(n) AS n FROM by_group GROUP BY _key",
            false,
        )
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("must read a table"), "{e}");
    // Deleted, the name is unknown again.
    db.delete_materialized_view("by_group").unwrap();
    assert_eq!(
        run(&db, "SELECT * FROM by_group").unwrap_err().code(),
        Code::NotFound
    );
}

#[test]
fn a_table_comes_first_and_a_logical_view_may_read_a_materialized_view() {
    let mut db = db();
    let views = [LogicalViewRecord {
        id: "big_groups".into(),
        query: "SELECT _key, total FROM by_group WHERE n > 1".into(),
        deletion_protection: false,
        etag: String::new(),
    }];
    let prepared =
        sql::prepare_with_views(&db, "SELECT * FROM big_groups", BTreeMap::new(), &views).unwrap();
    assert_eq!(
        sql::execute(&db, &prepared, &BTreeMap::new()).unwrap(),
        [[b("x"), SqlValue::Int64(12)]]
    );
    let prepared =
        sql::prepare_with_views(&db, "SELECT total FROM big_groups", BTreeMap::new(), &views)
            .unwrap();
    assert_eq!(
        sql::execute(&db, &prepared, &BTreeMap::new()).unwrap(),
        [[SqlValue::Int64(12)]]
    );
    // A table of the same id is what the name finds.
    db.create_table("by_group", TableConfig::with_families(["f"]))
        .unwrap();
    assert!(run(&db, "SELECT * FROM by_group").unwrap().is_empty());
}
