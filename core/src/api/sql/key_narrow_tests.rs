//! Tests of range pushdown on structured row keys: the ranges for each encoding, rows read
//! (the narrowing happens), and a property test that narrowed reads answer as full scans.

use super::super::*;
use crate::model::mutation::Mutation;
use crate::model::row_key_schema::{
    Int64Encoding, KeyField, KeyFieldType, KeyValue, RowKeySchema, StructEncoding,
};
use crate::model::schema::TableConfig;
use alloc::string::{String, ToString};
use alloc::vec;
use proptest::prelude::*;

fn field(name: &str, field_type: KeyFieldType) -> KeyField {
    KeyField {
        name: name.to_string(),
        field_type,
    }
}

/// A table `t` with family `cf` keyed by `schema`, one row per value list that encodes.
fn table(schema: &RowKeySchema, rows: &[Vec<KeyValue>]) -> (Database, Vec<Vec<KeyValue>>) {
    let mut db = Database::new();
    let mut config = TableConfig::with_families(["cf"]);
    config.row_key_schema = Some(schema.clone());
    db.create_table("t", config).unwrap();
    let mut kept = Vec::new();
    for values in rows {
        // Values no key holds, and the empty key (no row has it), are left out.
        let Ok(key) = schema.encode(values) else {
            continue;
        };
        if key.is_empty() {
            continue;
        }
        db.mutate_row(
            "t",
            &key,
            &[Mutation::set_cell("cf", b"q".to_vec(), 1000, b"v".to_vec())],
        )
        .unwrap();
        if !kept.contains(values) {
            kept.push(values.clone());
        }
    }
    (db, kept)
}

fn to_sql(v: &KeyValue) -> SqlValue {
    match v {
        KeyValue::Bytes(b) => SqlValue::Bytes(b.clone()),
        KeyValue::String(s) => SqlValue::String(s.clone()),
        KeyValue::Int64(i) => SqlValue::Int64(*i),
        KeyValue::Timestamp(m) => SqlValue::timestamp_micros(*m),
    }
}

/// Runs `sql` with `params`; the `_key`s it returns (sorted) and the rows it read.
fn keys_and_rows_read(
    db: &Database,
    sql: &str,
    params: &BTreeMap<String, SqlValue>,
) -> (Vec<Vec<u8>>, u64) {
    let types = params
        .iter()
        .map(|(k, v)| {
            let t = match v {
                SqlValue::Bytes(_) => SqlType::Bytes,
                SqlValue::String(_) => SqlType::String,
                SqlValue::Timestamp { .. } => SqlType::Timestamp,
                _ => SqlType::Int64,
            };
            (k.clone(), t)
        })
        .collect();
    let q = prepare(db, sql, types).unwrap();
    let mut rows = execute_stream(db, &q, params).unwrap();
    let mut keys = Vec::new();
    while let Some(row) = rows.try_next().unwrap() {
        match &row[0] {
            SqlValue::Bytes(k) => keys.push(k.clone()),
            other => panic!("{other:?}"),
        }
    }
    let read = rows.rows_scanned();
    keys.sort();
    (keys, read)
}

fn ranges(db: &Database, sql: &str) -> Vec<RowRange> {
    let plan = prepare(db, sql, BTreeMap::new()).unwrap().plan;
    match exec::read_request(&plan, &BTreeMap::new(), 0, true).unwrap() {
        Some(r) => r.row_set.row_ranges,
        None => Vec::new(),
    }
}

fn ints(encoding: Int64Encoding) -> RowKeySchema {
    RowKeySchema {
        fields: vec![
            field("shard", KeyFieldType::Int64(encoding)),
            field("n", KeyFieldType::Int64(encoding)),
        ],
        encoding: StructEncoding::DelimitedBytes(b"#".to_vec()),
    }
}

fn int_rows() -> Vec<Vec<KeyValue>> {
    let mut rows = Vec::new();
    for shard in [-2i64, -1, 0, 1, 2] {
        for n in -10i64..10 {
            rows.push(vec![KeyValue::Int64(shard), KeyValue::Int64(n)]);
        }
    }
    rows
}

/// The narrowing happens: a range on the second field after an equality on the first reads
/// only the rows in it, for both INT64 encodings (big-endian crossing zero takes two
/// ranges).
#[test]
fn a_range_after_an_equality_reads_only_its_rows() {
    for encoding in [
        Int64Encoding::OrderedCodeBytes,
        Int64Encoding::BigEndianBytes,
    ] {
        let (db, _) = table(&ints(encoding), &int_rows());
        let none = BTreeMap::new();
        let (keys, read) = keys_and_rows_read(
            &db,
            "SELECT _key FROM t WHERE shard = 1 AND n >= -3 AND n < 4",
            &none,
        );
        assert_eq!(keys.len(), 7, "{encoding:?}");
        assert_eq!(read, 7, "{encoding:?}: only the matching rows are read");
        let (keys, read) = keys_and_rows_read(
            &db,
            "SELECT _key FROM t WHERE shard BETWEEN -1 AND 0",
            &none,
        );
        assert_eq!((keys.len(), read), (40, 40), "{encoding:?}");
        // The same WHERE behind an OR is not narrowed: everything is read.
        let (keys, read) = keys_and_rows_read(
            &db,
            "SELECT _key FROM t WHERE (shard BETWEEN -1 AND 0) OR FALSE",
            &none,
        );
        assert_eq!((keys.len(), read), (40, 100), "{encoding:?}");
        let expected = match encoding {
            Int64Encoding::OrderedCodeBytes => 1,
            Int64Encoding::BigEndianBytes => 2,
        };
        assert_eq!(
            ranges(&db, "SELECT 1 FROM t WHERE shard > -2 AND shard <= 1").len(),
            expected,
            "{encoding:?}"
        );
        // A NULL bound matches nothing: nothing is read.
        assert_eq!(
            keys_and_rows_read(&db, "SELECT _key FROM t WHERE shard < NULL", &none),
            (vec![], 0)
        );
    }
}

/// A BYTES field followed by a delimiter that sorts after the bound's next byte: "a~x"
/// (field "a") sorts after "ab", yet "a" <= "ab"; the range still holds it.
#[test]
fn a_delimiter_after_a_shorter_value_stays_in_range() {
    let schema = RowKeySchema {
        fields: vec![
            field("a", KeyFieldType::Bytes),
            field("b", KeyFieldType::String),
        ],
        encoding: StructEncoding::DelimitedBytes(b"~".to_vec()),
    };
    let b = |s: &str| KeyValue::Bytes(s.as_bytes().to_vec());
    let s = |s: &str| KeyValue::String(s.to_string());
    let rows = [
        vec![b("a"), s("x")],
        vec![b("ab"), s("y")],
        vec![b("abc"), s("z")],
        vec![b(""), s("e")],
    ];
    let (db, _) = table(&schema, &rows);
    let none = BTreeMap::new();
    let (keys, _) = keys_and_rows_read(&db, "SELECT _key FROM t WHERE a <= b'ab'", &none);
    assert_eq!(keys, [b"ab~y".to_vec(), b"a~x".to_vec(), b"~e".to_vec()]);
    // Every key sorts at or after "ab" here ("a~x" and "~e" too), so all are read.
    let (keys, read) = keys_and_rows_read(&db, "SELECT _key FROM t WHERE a > b'ab'", &none);
    assert_eq!((keys, read), (vec![b"abc~z".to_vec()], 4));
    // From "b" on, only "~e" (an empty `a`), which WHERE drops.
    let (keys, read) = keys_and_rows_read(&db, "SELECT _key FROM t WHERE a >= b'b'", &none);
    assert_eq!((keys, read), (vec![], 1));
}

/// In an ordered-code struct an empty last field is left out of the key with its separator
/// ("x" alone, not "x 00 01 00 00"): a range that holds the empty value still reads it.
#[test]
fn an_empty_field_left_out_of_an_ordered_code_key_stays_in_range() {
    let schema = RowKeySchema {
        fields: vec![
            field("f0", KeyFieldType::String),
            field("f1", KeyFieldType::Bytes),
        ],
        encoding: StructEncoding::OrderedCodeBytes,
    };
    let rows = [
        vec![KeyValue::String("x".into()), KeyValue::Bytes(vec![])],
        vec![KeyValue::String("x".into()), KeyValue::Bytes(vec![0])],
        vec![KeyValue::String("x".into()), KeyValue::Bytes(b"a".to_vec())],
        vec![KeyValue::String("y".into()), KeyValue::Bytes(vec![])],
    ];
    let (db, _) = table(&schema, &rows);
    let none = BTreeMap::new();
    let count = |sql: &str| keys_and_rows_read(&db, sql, &none);
    assert_eq!(
        count("SELECT _key FROM t WHERE f0 = 'x' AND f1 >= b''")
            .0
            .len(),
        3
    );
    assert_eq!(
        count("SELECT _key FROM t WHERE f0 = 'x' AND f1 <= b''").0,
        [b"x".to_vec()]
    );
    assert_eq!(
        count("SELECT _key FROM t WHERE f0 = 'x' AND f1 > b''")
            .0
            .len(),
        2
    );
    // A lower bound past the empty value skips it: only "x\0..." and "xa" are read.
    assert_eq!(
        count("SELECT _key FROM t WHERE f0 = 'x' AND f1 >= b'\\x00'").1,
        2
    );
}

#[derive(Debug, Clone, Copy)]
enum Op {
    Lt,
    Le,
    Gt,
    Ge,
    Between,
}

fn op_holds(op: Op, v: &KeyValue, c: &KeyValue, c2: &KeyValue) -> bool {
    match op {
        Op::Lt => v < c,
        Op::Le => v <= c,
        Op::Gt => v > c,
        Op::Ge => v >= c,
        Op::Between => c <= v && v <= c2,
    }
}

fn op_sql(op: Op, field: &str, p: &str, p2: &str) -> String {
    match op {
        Op::Lt => alloc::format!("{field} < @{p}"),
        Op::Le => alloc::format!("@{p} >= {field}"),
        Op::Gt => alloc::format!("{field} > @{p}"),
        Op::Ge => alloc::format!("@{p} <= {field}"),
        Op::Between => alloc::format!("{field} BETWEEN @{p} AND @{p2}"),
    }
}

fn field_type() -> impl Strategy<Value = KeyFieldType> {
    prop_oneof![
        Just(KeyFieldType::Bytes),
        Just(KeyFieldType::String),
        Just(KeyFieldType::Int64(Int64Encoding::BigEndianBytes)),
        Just(KeyFieldType::Int64(Int64Encoding::OrderedCodeBytes)),
        Just(KeyFieldType::Timestamp(Int64Encoding::BigEndianBytes)),
        Just(KeyFieldType::Timestamp(Int64Encoding::OrderedCodeBytes)),
    ]
}

/// Values drawn from small alphabets so that prefixes, delimiters, `00` bytes and equal
/// values come up often.
fn value(t: KeyFieldType) -> BoxedStrategy<KeyValue> {
    let bytes = prop::sample::select(vec![0u8, b'#', b'a', b'b', b'~', 0xff]);
    let chars = prop::sample::select(vec!["a", "b", "#", "~", "\u{e9}"]);
    match t {
        // Empty values come up often: they are the edge of every encoding.
        KeyFieldType::Bytes => prop_oneof![
            1 => Just(Vec::new()),
            3 => proptest::collection::vec(bytes, 1..4),
        ]
        .prop_map(KeyValue::Bytes)
        .boxed(),
        KeyFieldType::String => prop_oneof![
            1 => Just(Vec::new()),
            3 => proptest::collection::vec(chars, 1..4),
        ]
        .prop_map(|p| KeyValue::String(p.concat()))
        .boxed(),
        KeyFieldType::Int64(_) => prop_oneof![
            prop::sample::select(vec![
                i64::MIN,
                i64::MIN + 1,
                -300,
                -1,
                0,
                1,
                63,
                64,
                300,
                i64::MAX - 1,
                i64::MAX
            ]),
            -5i64..5,
            any::<i64>(),
        ]
        .prop_map(KeyValue::Int64)
        .boxed(),
        KeyFieldType::Timestamp(_) => {
            let (min, max) = (
                *crate::model::row_key_schema::TIMESTAMP_MICROS.start(),
                *crate::model::row_key_schema::TIMESTAMP_MICROS.end(),
            );
            prop_oneof![
                prop::sample::select(vec![min, min + 1, -1, 0, 1, max - 1, max]),
                -5i64..5,
                min..=max,
            ]
            .prop_map(KeyValue::Timestamp)
            .boxed()
        }
    }
}

fn schema() -> impl Strategy<Value = RowKeySchema> {
    let two = (
        field_type(),
        field_type(),
        prop_oneof![
            Just(StructEncoding::OrderedCodeBytes),
            prop::sample::select(vec![&b"#"[..], b"~", b"\0", b"ab", b"\xff"])
                .prop_map(|d| StructEncoding::DelimitedBytes(d.to_vec())),
        ],
    )
        .prop_map(|(a, b, encoding)| RowKeySchema {
            fields: vec![field("f0", a), field("f1", b)],
            encoding,
        });
    let one = field_type().prop_map(|a| RowKeySchema {
        fields: vec![field("f0", a)],
        encoding: StructEncoding::Singleton,
    });
    prop_oneof![two, one]
}

fn op() -> impl Strategy<Value = Op> {
    prop::sample::select(vec![Op::Lt, Op::Le, Op::Gt, Op::Ge, Op::Between])
}

/// A schema, rows, the field ranged over (with `f0 = @e` first when it is `f1` and the flag
/// is set), and one or two range conjuncts on it.
#[allow(clippy::type_complexity)]
fn case() -> impl Strategy<
    Value = (
        RowKeySchema,
        Vec<Vec<KeyValue>>,
        usize,
        bool,
        Vec<(Op, KeyValue, KeyValue)>,
    ),
> {
    (schema(), any::<prop::sample::Index>()).prop_flat_map(|(schema, pick)| {
        let types: Vec<KeyFieldType> = schema.fields.iter().map(|f| f.field_type).collect();
        let row = types.iter().map(|&t| value(t)).collect::<Vec<_>>();
        let index = pick.index(types.len());
        let bound = (op(), value(types[index]), value(types[index]));
        (
            Just(schema),
            proptest::collection::vec(row, 1..14),
            Just(index),
            any::<bool>(),
            proptest::collection::vec(bound, 1..3),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A narrowed read returns exactly the rows the WHERE selects among all rows (computed
    /// here from the values, independently of the engine) and never reads more rows than a
    /// full scan.
    #[test]
    fn narrowed_reads_answer_as_full_scans((schema, rows, index, eq, bounds) in case()) {
        let (db, rows) = table(&schema, &rows);
        // The equality takes the first row's value, so it often matches something.
        let fixed = rows.first().map(|r| r[0].clone());
        let eq = eq && index == 1 && fixed.is_some();
        let ranged = if index == 1 { "f1" } else { "f0" };
        let mut params = BTreeMap::new();
        let mut conj = Vec::new();
        if eq {
            params.insert("e".to_string(), to_sql(fixed.as_ref().unwrap()));
            conj.push("f0 = @e".to_string());
        }
        for (i, (op, c, c2)) in bounds.iter().enumerate() {
            let (p, p2) = (alloc::format!("c{i}"), alloc::format!("d{i}"));
            params.insert(p.clone(), to_sql(c));
            params.insert(p2.clone(), to_sql(c2));
            conj.push(op_sql(*op, ranged, &p, &p2));
        }
        let sql = alloc::format!("SELECT _key FROM t WHERE {}", conj.join(" AND "));
        let (got, read) = keys_and_rows_read(&db, &sql, &params);
        let mut want: Vec<Vec<u8>> = rows
            .iter()
            .filter(|r| !eq || Some(&r[0]) == fixed.as_ref())
            .filter(|r| bounds.iter().all(|(op, c, c2)| op_holds(*op, &r[index], c, c2)))
            .map(|r| schema.encode(r).unwrap())
            .collect();
        want.sort();
        prop_assert_eq!(&got, &want, "{}", sql);
        prop_assert!(read <= rows.len() as u64);
        // The same WHERE, not narrowed, agrees.
        let full = alloc::format!("SELECT _key FROM t WHERE ({}) OR FALSE", conj.join(" AND "));
        let (all, read_all) = keys_and_rows_read(&db, &full, &params);
        prop_assert_eq!(&all, &want);
        prop_assert_eq!(read_all, rows.len() as u64);
    }
}
