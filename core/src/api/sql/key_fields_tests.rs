//! Tests of structured row keys in SQL: the docs' `sales` sample, `SELECT *`, the `_key`
//! pseudo-column, typed fields, non-conforming keys, and prefix pushdown.

use super::super::*;
use crate::model::mutation::Mutation;
use crate::model::row_key_schema::{Int64Encoding, KeyField, KeyFieldType, StructEncoding};
use crate::model::row_set::RowRange;
use crate::model::schema::TableConfig;
use crate::Code;
use alloc::string::ToString;
use alloc::vec;
use core::ops::Bound;

fn field(name: &str, field_type: KeyFieldType) -> KeyField {
    KeyField {
        name: name.to_string(),
        field_type,
    }
}

/// The docs' `sales` table: `user_id` BYTES, `purchase_date` and `order_number` STRING,
/// delimited by `#`.
fn sales() -> Database {
    let mut db = Database::new();
    let mut config = TableConfig::with_families(["product"]);
    config.row_key_schema = Some(RowKeySchema {
        fields: vec![
            field("user_id", KeyFieldType::Bytes),
            field("purchase_date", KeyFieldType::String),
            field("order_number", KeyFieldType::String),
        ],
        encoding: StructEncoding::DelimitedBytes(b"#".to_vec()),
    });
    db.create_table("sales", config).unwrap();
    for (key, kind) in [
        ("user1#2025-05-20#abcd1233", "phone"),
        ("user1#2025-05-20#abcd1235", "shoes"),
        ("user2#2025-05-24#defg456", "headphones"),
    ] {
        db.mutate_row(
            "sales",
            key.as_bytes(),
            &[Mutation::set_cell(
                "product",
                b"product_type".to_vec(),
                1000,
                kind.as_bytes().to_vec(),
            )],
        )
        .unwrap();
    }
    db
}

fn run(db: &Database, sql: &str) -> Result<Vec<Vec<SqlValue>>> {
    execute(db, &prepare(db, sql, BTreeMap::new())?, &BTreeMap::new())
}

fn s(v: &str) -> SqlValue {
    SqlValue::String(v.to_string())
}

fn b(v: &str) -> SqlValue {
    SqlValue::Bytes(v.as_bytes().to_vec())
}

use crate::model::row_key_schema::RowKeySchema;

#[test]
fn star_lists_the_key_fields_instead_of_key() {
    let db = sales();
    let q = prepare(&db, "SELECT * FROM sales", BTreeMap::new()).unwrap();
    let cols: Vec<(&str, &SqlType)> = q
        .columns()
        .iter()
        .map(|c| (c.name.as_str(), &c.ty))
        .collect();
    assert_eq!(
        cols,
        [
            ("user_id", &SqlType::Bytes),
            ("purchase_date", &SqlType::String),
            ("order_number", &SqlType::String),
            ("product", &SqlType::map(SqlType::Bytes, SqlType::Bytes)),
        ]
    );
    let rows = run(&db, "SELECT * FROM sales").unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[2][..3], [b("user2"), s("2025-05-24"), s("defg456")]);
}

#[test]
fn fields_filter_and_key_stays_a_pseudo_column() {
    let db = sales();
    assert_eq!(
        run(
            &db,
            "SELECT _key, order_number FROM sales WHERE purchase_date = '2025-05-20' AND order_number > 'abcd1234'"
        )
        .unwrap(),
        vec![vec![b("user1#2025-05-20#abcd1235"), s("abcd1235")]]
    );
    let err = prepare(&db, "SELECT nope FROM sales", BTreeMap::new()).unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    // A STRING field does not compare with an INT64.
    let err = prepare(
        &db,
        "SELECT 1 FROM sales WHERE purchase_date = 3",
        BTreeMap::new(),
    );
    assert_eq!(err.unwrap_err().code(), Code::InvalidArgument);
}

#[test]
fn a_key_that_does_not_conform_fails_queries_that_read_fields() {
    let mut db = sales();
    db.mutate_row(
        "sales",
        b"no-delimiters",
        &[Mutation::set_cell(
            "product",
            b"q".to_vec(),
            1000,
            b"v".to_vec(),
        )],
    )
    .unwrap();
    let err = run(&db, "SELECT user_id FROM sales").unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition);
    assert!(err.message().contains("row key schema"), "{err}");
    // Reading only `_key` never decodes.
    assert_eq!(run(&db, "SELECT _key FROM sales").unwrap().len(), 4);
}

#[test]
fn equalities_on_leading_fields_narrow_the_read_to_a_prefix() {
    let db = sales();
    let none = BTreeMap::new();
    let ranges = |sql: &str| {
        let plan = prepare(&db, sql, BTreeMap::new()).unwrap().plan;
        exec::read_request(&plan, &none, 0, true)
            .unwrap()
            .unwrap()
            .row_set
            .row_ranges
    };
    let from_to = |a: &[u8], z: &[u8]| RowRange {
        start: Bound::Included(a.to_vec()),
        end: Bound::Excluded(z.to_vec()),
    };
    assert_eq!(
        ranges("SELECT 1 FROM sales WHERE user_id = 'user1'"),
        [from_to(b"user1#", b"user1$")]
    );
    assert_eq!(
        ranges("SELECT 1 FROM sales WHERE purchase_date = '2025-05-20' AND user_id = b'user1'"),
        [from_to(b"user1#2025-05-20#", b"user1#2025-05-20$")]
    );
    // The second field alone fixes no prefix: everything is read (a row set with no
    // ranges), WHERE decides.
    assert_eq!(
        ranges("SELECT 1 FROM sales WHERE purchase_date = '2025-05-20'"),
        []
    );
    // All fields: one key.
    let k = b"user2#2025-05-24#defg456".to_vec();
    assert_eq!(
        ranges("SELECT 1 FROM sales WHERE user_id = 'user2' AND purchase_date = '2025-05-24' AND order_number = 'defg456'"),
        [RowRange {
            start: Bound::Included(k.clone()),
            end: Bound::Included(k)
        }]
    );
    // And the answers are those of the full scan.
    assert_eq!(
        run(
            &db,
            "SELECT order_number FROM sales WHERE user_id = 'user1'"
        )
        .unwrap(),
        vec![vec![s("abcd1233")], vec![s("abcd1235")]]
    );
}

#[test]
fn int64_fields_decode_and_compare_as_numbers() {
    let mut db = Database::new();
    let mut config = TableConfig::with_families(["cf"]);
    config.row_key_schema = Some(RowKeySchema {
        fields: vec![
            field(
                "shard",
                KeyFieldType::Int64(Int64Encoding::OrderedCodeBytes),
            ),
            field("name", KeyFieldType::String),
        ],
        encoding: StructEncoding::OrderedCodeBytes,
    });
    db.create_table("t", config.clone()).unwrap();
    let schema = config.row_key_schema.unwrap();
    for (shard, name) in [(-5i64, "a"), (3, "b"), (300, "c")] {
        let key = schema
            .encode(&[
                crate::KeyValue::Int64(shard),
                crate::KeyValue::String(name.to_string()),
            ])
            .unwrap();
        db.mutate_row(
            "t",
            &key,
            &[Mutation::set_cell("cf", b"q".to_vec(), 1000, b"v".to_vec())],
        )
        .unwrap();
    }
    assert_eq!(
        run(
            &db,
            "SELECT shard, name FROM t WHERE shard > 0 ORDER BY shard DESC"
        )
        .unwrap(),
        vec![
            vec![SqlValue::Int64(300), s("c")],
            vec![SqlValue::Int64(3), s("b")]
        ]
    );
    assert_eq!(
        run(&db, "SELECT name FROM t WHERE shard = -5").unwrap(),
        vec![vec![s("a")]]
    );
}

/// A logical view over a keyed table sees the key's fields as the table does: its `*` is
/// the fields and the families, and the fields filter by name through the view.
#[test]
fn a_logical_view_over_a_keyed_table_reads_its_fields() {
    let db = sales();
    let views = [crate::api::instances::LogicalViewRecord {
        id: "v".to_string(),
        query: "SELECT * FROM sales".to_string(),
        deletion_protection: false,
        etag: alloc::string::String::new(),
    }];
    let q = prepare_with_views(
        &db,
        "SELECT order_number FROM v WHERE user_id = 'user2'",
        BTreeMap::new(),
        &views,
    )
    .unwrap();
    assert_eq!(
        execute(&db, &q, &BTreeMap::new()).unwrap(),
        vec![vec![s("defg456")]]
    );
    let q = prepare_with_views(&db, "SELECT * FROM v", BTreeMap::new(), &views).unwrap();
    let names: Vec<&str> = q.columns().iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        ["user_id", "purchase_date", "order_number", "product"]
    );
}

/// A TIMESTAMP field (microseconds in an INT64 encoding) reads as a TIMESTAMP, compares with
/// TIMESTAMP constants, and its ranges narrow the read in both encodings.
#[test]
fn timestamp_fields_read_compare_and_narrow() {
    for encoding in [
        Int64Encoding::BigEndianBytes,
        Int64Encoding::OrderedCodeBytes,
    ] {
        let mut db = Database::new();
        let mut config = TableConfig::with_families(["cf"]);
        config.row_key_schema = Some(RowKeySchema {
            fields: vec![
                field("device", KeyFieldType::String),
                field("at", KeyFieldType::Timestamp(encoding)),
            ],
            encoding: StructEncoding::DelimitedBytes(b"#".to_vec()),
        });
        db.create_table("t", config.clone()).unwrap();
        let schema = config.row_key_schema.unwrap();
        // 1969-12-31 23:59:59, the epoch, 2024-01-01, 2024-01-02 (UTC).
        let times = [
            -1_000_000i64,
            0,
            1_704_067_200_000_000,
            1_704_153_600_000_000,
        ];
        for device in ["d1", "d2"] {
            for &at in &times {
                let key = schema
                    .encode(&[
                        crate::KeyValue::String(device.to_string()),
                        crate::KeyValue::Timestamp(at),
                    ])
                    .unwrap();
                db.mutate_row(
                    "t",
                    &key,
                    &[Mutation::set_cell("cf", b"q".to_vec(), 1000, b"v".to_vec())],
                )
                .unwrap();
            }
        }
        let q = prepare(&db, "SELECT * FROM t", BTreeMap::new()).unwrap();
        assert_eq!(q.columns()[1].ty, SqlType::Timestamp);
        let sql = "SELECT at FROM t WHERE device = 'd2' AND at >= TIMESTAMP '1970-01-01 00:00:00+00' AND at < TIMESTAMP '2024-01-02 00:00:00+00' ORDER BY at";
        assert_eq!(
            run(&db, sql).unwrap(),
            vec![
                vec![SqlValue::timestamp_micros(0)],
                vec![SqlValue::timestamp_micros(1_704_067_200_000_000)]
            ],
            "{encoding:?}"
        );
        let q = prepare(&db, sql, BTreeMap::new()).unwrap();
        let mut rows = execute_stream(&db, &q, &BTreeMap::new()).unwrap();
        while rows.try_next().unwrap().is_some() {}
        assert_eq!(
            rows.rows_scanned(),
            2,
            "{encoding:?}: only the two rows are read"
        );
        // Before the epoch, and the whole range with no equality.
        assert_eq!(
            run(
                &db,
                "SELECT device FROM t WHERE at < TIMESTAMP '1970-01-01 00:00:00+00'"
            )
            .unwrap(),
            vec![vec![s("d1")], vec![s("d2")]],
            "{encoding:?}"
        );
        // A bound with nanoseconds below the microsecond (a parameter can hold one) compares
        // exactly (no narrowing): the epoch is before it, though not before its microseconds.
        let types = BTreeMap::from([("t".to_string(), SqlType::Timestamp)]);
        let params = BTreeMap::from([(
            "t".to_string(),
            SqlValue::Timestamp {
                seconds: 0,
                nanos: 500,
            },
        )]);
        let q = prepare(
            &db,
            "SELECT COUNT(*) FROM t WHERE device = 'd1' AND at < @t",
            types,
        )
        .unwrap();
        assert_eq!(
            execute(&db, &q, &params).map(|r| r[0][0].clone()),
            Ok(SqlValue::Int64(2)),
            "{encoding:?}"
        );
    }
}
