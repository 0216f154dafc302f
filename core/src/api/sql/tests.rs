//! Unit tests of the SQL engine: preparing, typing, pushdown, streaming, and no panics.

use super::*;
use crate::model::filter::RowFilter;
use crate::model::mutation::Mutation;
use crate::model::row_set::RowRange;
use crate::model::schema::{ColumnFamily, TableConfig, ValueType};
use crate::Code;
use alloc::boxed::Box;
use alloc::string::ToString;
use alloc::vec;
use core::ops::Bound;

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
                "GROUP", "BY", "ORDER", "DESC", "HAVING", "COUNT(*)", "SUM(", "(", ")", "+",
                "-", "/", "OR", "NOT", "IN", "LIKE", "BETWEEN", "CASE", "WHEN", "THEN", "END",
                "CAST(", "INT64", "OFFSET(", "9223372036854775807", "t(with_history => TRUE)",
                "COSINE_DISTANCE([1.0], [2.0])", "DISTINCT", "IS", "SAFE.", "MAP_KEYS(cf)",
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

/// The read a query makes: key ranges from WHERE on `_key`, the families and qualifiers it
/// names, the newest version only, and a row limit only when every row read is a result.
#[test]
fn pushdown_narrows_the_read() {
    let db = db();
    let plan = |sql: &str| prepare(&db, sql, BTreeMap::new()).unwrap().plan;
    let none = BTreeMap::new();
    let req = |sql: &str| exec::read_request(&plan(sql), &none, 0, true).unwrap();

    let r = req("SELECT cf['q'] FROM t WHERE _key = 'b' OR _key >= 'x'").unwrap();
    assert_eq!(
        r.row_set.row_ranges,
        vec![
            RowRange {
                start: Bound::Included(b"b".to_vec()),
                end: Bound::Included(b"b".to_vec())
            },
            RowRange {
                start: Bound::Included(b"x".to_vec()),
                end: Bound::Unbounded
            },
        ]
    );
    // Only cf:q is read (one version), plus the marker cell that keeps empty rows visible.
    let RowFilter::Interleave(parts) = &r.filter else {
        panic!("{:?}", r.filter)
    };
    assert_eq!(
        parts[0],
        RowFilter::Chain(vec![
            RowFilter::ColumnRange {
                family: "cf".into(),
                start: Bound::Included(b"q".to_vec()),
                end: Bound::Included(b"q".to_vec()),
            },
            RowFilter::CellsPerColumnLimit(1),
        ])
    );
    assert_eq!(r.rows_limit, 0, "WHERE may drop rows: no limit pushed");
    let r = req("SELECT _key FROM t WHERE STARTS_WITH(_key, 'a')").unwrap();
    assert_eq!(
        r.row_set.row_ranges,
        vec![RowRange {
            start: Bound::Included(b"a".to_vec()),
            end: Bound::Excluded(b"b".to_vec())
        }]
    );
    assert_eq!(
        req("SELECT _key FROM t LIMIT 2 OFFSET 1")
            .unwrap()
            .rows_limit,
        3
    );
    assert!(req("SELECT _key FROM t WHERE _key = 'a' AND _key = 'b'").is_none());
    // A condition we do not read as a key range reads everything, and still filters.
    let r = req("SELECT _key FROM t WHERE _key = 'a' OR cf['q'] = 'c'").unwrap();
    assert!(r.row_set.row_ranges.is_empty() && r.row_set.row_keys.is_empty());
    assert_eq!(
        run(&db, "SELECT _key FROM t WHERE _key = 'a' OR cf['q'] = 'c'").unwrap(),
        vec![
            vec![SqlValue::Bytes(b"a".to_vec())],
            vec![SqlValue::Bytes(b"c".to_vec())]
        ]
    );
    let r =
        req("SELECT _key FROM t(with_history => TRUE, latest_n => 2) WHERE _key = 'a'").unwrap();
    assert_eq!(
        r.filter,
        exec_marker_only(),
        "no family named: only the marker cell"
    );
}

fn exec_marker_only() -> RowFilter {
    RowFilter::Chain(vec![
        RowFilter::CellsPerRowLimit(1),
        RowFilter::StripValue,
        RowFilter::ApplyLabel(eval::PRESENCE_LABEL.into()),
    ])
}

/// ORDER BY ... LIMIT k holds at most k rows whatever it is offered, and keeps the best.
#[test]
fn order_by_limit_holds_k_rows() {
    let order = vec![plan::OrderBy {
        expr: parse::Expr {
            kind: parse::ExprKind::ItemRef(0),
            pos: 0,
        },
        desc: false,
        nulls_first: true,
    }];
    let mut top = exec::TopK::new(&order, Some(3));
    for i in (0..1000i64).rev() {
        top.push(vec![SqlValue::Int64(i % 500)], vec![SqlValue::Int64(i)]);
        assert!(top.held() <= 3);
    }
    // Keys 0, 0, 1: the two rows with key 0 in arrival order (500 came before 0), then 1.
    assert_eq!(
        top.into_rows(),
        vec![
            vec![SqlValue::Int64(500)],
            vec![SqlValue::Int64(0)],
            vec![SqlValue::Int64(501)]
        ]
    );
}

/// Rows come as the table is read: the first row is produced before later rows are read.
#[test]
fn rows_stream_as_read() {
    let db = db();
    let q = prepare(
        &db,
        "SELECT _key FROM t WHERE cf['q'] != 'zz'",
        BTreeMap::new(),
    )
    .unwrap();
    let mut rows = execute_stream(&db, &q, &BTreeMap::new()).unwrap();
    assert_eq!(
        rows.try_next().unwrap(),
        Some(vec![SqlValue::Bytes(b"a".to_vec())])
    );
    let scanned = rows.stream.as_ref().map(RowStream::rows_scanned);
    assert_eq!(scanned, Some(1), "one row read for one row produced");
    assert_eq!(
        rows.try_next().unwrap().unwrap()[0],
        SqlValue::Bytes(b"b".to_vec())
    );
}

/// Errors name what was not understood and where.
#[test]
fn errors_name_the_position() {
    let db = db();
    let err = prepare(&db, "SELECT _key\nFROM t JOIN u", BTreeMap::new()).unwrap_err();
    assert!(
        err.message().contains("JOIN") && err.message().contains("[at 2:8]"),
        "{err}"
    );
    let err = prepare(&db, "SELECT nope FROM t", BTreeMap::new()).unwrap_err();
    assert!(
        err.message().contains("nope") && err.message().contains("[at 1:8]"),
        "{err}"
    );
}

/// `{IGNORE | RESPECT} NULLS`: ARRAY_AGG respects NULLs by default (and an array cannot hold
/// one), APPROX_QUANTILES ignores them by default and sorts them first when it respects them;
/// other functions refuse the clause.
#[test]
fn ignore_and_respect_nulls() {
    let db = db();
    let one = |sql: &str| run(&db, sql).map(|rows| rows[0][0].clone());
    let b = |s: &str| SqlValue::Bytes(s.as_bytes().to_vec());
    let x = "IF(_key = 'b', NULL, _key)";
    assert_eq!(
        one(&format!("SELECT ARRAY_AGG({x} IGNORE NULLS) FROM t")).unwrap(),
        SqlValue::Array(vec![b("a"), b("c")])
    );
    for sql in [
        format!("SELECT ARRAY_AGG({x}) FROM t"),
        format!("SELECT ARRAY_AGG({x} RESPECT NULLS) FROM t"),
    ] {
        assert_eq!(one(&sql).unwrap_err().code(), Code::OutOfRange, "{sql}");
    }
    assert_eq!(
        one(&format!("SELECT APPROX_QUANTILES({x}, 2) FROM t")).unwrap(),
        SqlValue::Array(vec![b("a"), b("a"), b("c")])
    );
    assert_eq!(
        one(&format!(
            "SELECT APPROX_QUANTILES({x}, 2 IGNORE NULLS) FROM t"
        ))
        .unwrap(),
        SqlValue::Array(vec![b("a"), b("a"), b("c")])
    );
    assert_eq!(
        one(&format!(
            "SELECT APPROX_QUANTILES({x}, 2 RESPECT NULLS) FROM t"
        ))
        .unwrap(),
        SqlValue::Array(vec![SqlValue::Null, b("a"), b("c")])
    );
    for sql in [
        "SELECT SUM(sums['n'] IGNORE NULLS) FROM t",
        "SELECT COUNT(_key RESPECT NULLS) FROM t",
        "SELECT UPPER('a' IGNORE NULLS)",
        "SELECT ARRAY_AGG(_key IGNORE) FROM t",
        // The NULLs clause comes before ORDER BY (agg_order_tests.rs serves the clauses).
        "SELECT ARRAY_AGG(_key ORDER BY _key IGNORE NULLS) FROM t",
    ] {
        let e = prepare(&db, sql, BTreeMap::new()).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{sql}: {e}");
    }
}

/// A HyperLogLog++ family's cells read as BYTES sketches that HLL_COUNT reads.
#[test]
fn hll_family_cells_are_sketches() {
    let mut db = Database::new();
    let mut config = TableConfig::with_families(["cf"]);
    config.families.insert(
        "u".into(),
        ColumnFamily {
            value_type: ValueType::HllUniqueCount,
            ..Default::default()
        },
    );
    db.create_table("h", config).unwrap();
    for (key, inputs) in [("a", &[1i64, 2, 2, 3][..]), ("b", &[3, 4][..])] {
        let m: Vec<Mutation> = inputs
            .iter()
            .map(|&n| Mutation::AddToCell {
                family: "u".into(),
                qualifier: b"q".to_vec(),
                timestamp_micros: 0,
                input: n,
            })
            .collect();
        db.mutate_row("h", key.as_bytes(), &m).unwrap();
    }
    let q = prepare(&db, "SELECT u['q'] AS s FROM h", BTreeMap::new()).unwrap();
    assert_eq!(q.columns()[0].ty, SqlType::Bytes);
    assert_eq!(
        run(&db, "SELECT HLL_COUNT.EXTRACT(u['q']) FROM h").unwrap(),
        vec![vec![SqlValue::Int64(3)], vec![SqlValue::Int64(2)]]
    );
    assert_eq!(
        run(&db, "SELECT HLL_COUNT.MERGE(u['q']) FROM h").unwrap(),
        vec![vec![SqlValue::Int64(4)]]
    );
}

#[test]
fn unnest_streams_its_cross_product_row_by_row() {
    let db = db();
    let i = SqlValue::Int64;
    // 65,536 x 65,536 combinations: only the three LIMIT keeps are ever made.
    let rows = run(
        &db,
        "SELECT a, b FROM UNNEST(GENERATE_ARRAY(1, 65536)) AS a, \
         UNNEST(GENERATE_ARRAY(1, 65536)) AS b LIMIT 3",
    )
    .unwrap();
    assert_eq!(
        rows,
        vec![vec![i(1), i(1)], vec![i(1), i(2)], vec![i(1), i(3)]]
    );
    // A correlated UNNEST whose array is empty for one element skips it; offsets restart.
    let rows = run(
        &db,
        "SELECT a, b, o FROM UNNEST([1, 2, 3]) AS a, \
         UNNEST(IF(a = 2, ARRAY<INT64>[], [a * 10, a * 100])) AS b WITH OFFSET AS o",
    )
    .unwrap();
    assert_eq!(
        rows,
        vec![
            vec![i(1), i(10), i(0)],
            vec![i(1), i(100), i(1)],
            vec![i(3), i(30), i(0)],
            vec![i(3), i(300), i(1)],
        ]
    );
    // Over the table: each row's newest `cf['q']` split into characters, with the key.
    let rows = run(
        &db,
        "SELECT _key, c FROM t, UNNEST(SPLIT(SAFE_CONVERT_BYTES_TO_STRING(cf['q']), '')) AS c \
         WHERE _key >= 'b'",
    )
    .unwrap();
    let s = |x: &str| SqlValue::String(x.into());
    let k = |x: &str| SqlValue::Bytes(x.as_bytes().to_vec());
    assert_eq!(rows, vec![vec![k("b"), s("b")], vec![k("c"), s("c")]]);
}
