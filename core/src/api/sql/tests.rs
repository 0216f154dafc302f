//! Unit tests of the SQL engine: preparing, typing, pushdown, streaming, and no panics.

use super::*;
use crate::model::mutation::Mutation;
use crate::model::schema::{ColumnFamily, TableConfig, ValueType};
use crate::Code;
use alloc::boxed::Box;
use alloc::string::ToString;
use alloc::vec;

fn db() -> Database {
    let mut db = Database::new();
    let mut config = TableConfig::with_families(["cf"]);
    config.families.insert(
        "sums".into(),
        ColumnFamily {
            value_type: ValueType::Int64Sum,
            ..Default::default()
        },
    );
    db.create_table("t", config).unwrap();
    for key in ["a", "b", "c"] {
        db.mutate_row(
            "t",
            key.as_bytes(),
            &[
                Mutation::set_cell("cf", b"q".to_vec(), 1000, b"old".to_vec()),
                Mutation::set_cell("cf", b"q".to_vec(), 2000, key.as_bytes().to_vec()),
                Mutation::AddToCell {
                    family: "sums".into(),
                    qualifier: b"n".to_vec(),
                    timestamp_micros: 0,
                    input: 5,
                },
            ],
        )
        .unwrap();
    }
    db
}

fn run(db: &Database, sql: &str) -> Result<Vec<Vec<SqlValue>>> {
    execute(db, &prepare(db, sql, BTreeMap::new())?, &BTreeMap::new())
}

#[test]
fn literals_without_a_table() {
    let db = db();
    let q = prepare(
        &db,
        "select 1 as a, 'foo' AS b, b'\\x' x, TRUE",
        BTreeMap::new(),
    );
    assert_eq!(q.unwrap_err().code(), Code::InvalidArgument, "bad escape");
    let q = prepare(&db, "SELECT 1 AS a, 'foo' AS b, TRUE;", BTreeMap::new()).unwrap();
    let names: Vec<&str> = q.columns().iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "$col3"]);
    assert_eq!(
        execute(&db, &q, &BTreeMap::new()).unwrap(),
        vec![vec![
            SqlValue::Int64(1),
            SqlValue::String("foo".into()),
            SqlValue::Bool(true)
        ]]
    );
}

#[test]
fn star_reads_the_newest_cells_as_maps_in_family_order() {
    let db = db();
    let q = prepare(&db, "SELECT * FROM `t` WHERE _key >= 'b'", BTreeMap::new()).unwrap();
    let types: Vec<(&str, &SqlType)> = q
        .columns()
        .iter()
        .map(|c| (c.name.as_str(), &c.ty))
        .collect();
    let bytes_map = SqlType::Map(Box::new(SqlType::Bytes), Box::new(SqlType::Bytes));
    let int_map = SqlType::Map(Box::new(SqlType::Bytes), Box::new(SqlType::Int64));
    assert_eq!(
        types,
        [
            ("_key", &SqlType::Bytes),
            ("cf", &bytes_map),
            ("sums", &int_map)
        ]
    );
    let rows = execute(&db, &q, &BTreeMap::new()).unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(
        rows[0],
        vec![
            SqlValue::Bytes(b"b".to_vec()),
            SqlValue::Map(vec![(
                SqlValue::Bytes(b"q".to_vec()),
                SqlValue::Bytes(b"b".to_vec())
            )]),
            SqlValue::Map(vec![(SqlValue::Bytes(b"n".to_vec()), SqlValue::Int64(5))]),
        ]
    );
    assert!(run(&db, "SELECT * FROM t WHERE _key = 'none'")
        .unwrap()
        .is_empty());
    assert!(
        run(&db, "SELECT _key FROM t WHERE _key > 'b' AND _key < 'b'")
            .unwrap()
            .is_empty()
    );
    assert_eq!(run(&db, "SELECT _key FROM t LIMIT 1").unwrap().len(), 1);
    assert_eq!(
        run(
            &db,
            "SELECT cf['q'] AS v, cf[b'none'] FROM t WHERE 'a' = _key"
        )
        .unwrap(),
        vec![vec![SqlValue::Bytes(b"a".to_vec()), SqlValue::Null]]
    );
}

#[test]
fn parameters_are_typed_and_checked() {
    let db = db();
    let types = BTreeMap::from([
        ("k".to_string(), SqlType::Bytes),
        ("xs".to_string(), SqlType::Array(Box::new(SqlType::Int64))),
    ]);
    let q = prepare(&db, "SELECT @xs AS xs, _key FROM t WHERE _key = @k", types).unwrap();
    let params = BTreeMap::from([
        ("k".to_string(), SqlValue::Bytes(b"c".to_vec())),
        (
            "xs".to_string(),
            SqlValue::Array(vec![SqlValue::Int64(1), SqlValue::Null]),
        ),
    ]);
    let rows = execute(&db, &q, &params).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0][1], SqlValue::Bytes(b"c".to_vec()));
    let wrong = BTreeMap::from([("k".to_string(), SqlValue::Int64(1))]);
    assert_eq!(
        execute(&db, &q, &wrong).unwrap_err().code(),
        Code::InvalidArgument
    );
    let untyped = prepare(&db, "SELECT @p", BTreeMap::new()).unwrap_err();
    assert_eq!(untyped.code(), Code::InvalidArgument);
}

#[test]
fn outside_the_subset_is_invalid_argument() {
    let db = db();
    for sql in [
        "",
        "DELETE FROM t",
        "SELECT * FROM t JOIN u ON TRUE",
        "SELECT nope FROM t",
        "SELECT _key",
        "SELECT * FROM t WHERE cf = 'x'",
        "SELECT 'unterminated",
        "SELECT 99999999999999999999",
        "SELECT 1 + 'a'",
    ] {
        let err = prepare(&db, sql, BTreeMap::new()).unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument, "{sql}: {err}");
    }
    let err = prepare(&db, "SELECT * FROM missing", BTreeMap::new()).unwrap_err();
    assert_eq!(err.code(), Code::NotFound);
}

proptest::proptest! {
    /// Query text comes off the network: any text, and any mix of the grammar's pieces,
    /// is prepared or refused, and a prepared query executes or is refused, never a panic.
    #[test]
    fn any_text_is_answered_never_a_panic(
        pieces in proptest::collection::vec(
            proptest::sample::select(vec![
                "SELECT", "*", "FROM", "t", "`t`", "WHERE", "_key", "=", "<", ">=", "AND",
                "LIMIT", "1", "1.5e3", "'a'", "b'\\x'", "\"q\"", "cf", "['q']", "[", "]",
                "@p", "AS", "x", ",", ";", "--c\n", "`", "'", "é", "<>", "NULL", "TRUE",
            ]),
            0..14,
        ),
        raw in "\\PC{0,40}",
    ) {
        let db = db();
        let types = BTreeMap::from([("p".to_string(), SqlType::Bytes)]);
        let params = BTreeMap::from([("p".to_string(), SqlValue::Bytes(b"b".to_vec()))]);
        for text in [pieces.join(" "), raw] {
            if let Ok(q) = prepare(&db, &text, types.clone()) {
                let _ = execute(&db, &q, &params);
            }
        }
    }
}
