//! Tests of row-key schemas: validation, the protos' worked examples, and properties
//! (round trip, order preservation, no panic on any bytes).

use super::*;
use crate::model::schema::{ColumnFamily, Families};
use crate::Code;
use alloc::string::ToString;
use alloc::vec;
use proptest::prelude::*;

fn field(name: &str, field_type: KeyFieldType) -> KeyField {
    KeyField {
        name: name.to_string(),
        field_type,
    }
}

fn strings(n: usize, encoding: StructEncoding) -> RowKeySchema {
    RowKeySchema {
        fields: (0..n)
            .map(|i| field(&alloc::format!("f{i}"), KeyFieldType::String))
            .collect(),
        encoding,
    }
}

fn s(v: &str) -> KeyValue {
    KeyValue::String(v.to_string())
}

#[test]
fn validation_follows_bigtables_rules() {
    let fams: Families = [("cf", ColumnFamily::default())].into_iter().collect();
    let ok = strings(2, StructEncoding::DelimitedBytes(b"#".to_vec()));
    let is_family = |n: &str| fams.contains_key(n);
    ok.validate(is_family).unwrap();
    let mut cases = vec![
        (strings(0, StructEncoding::OrderedCodeBytes), "at least one"),
        (strings(2, StructEncoding::Singleton), "exactly one"),
        (
            strings(1, StructEncoding::DelimitedBytes(vec![])),
            "delimiter",
        ),
        (
            strings(1, StructEncoding::DelimitedBytes(vec![b'#'; 51])),
            "delimiter",
        ),
    ];
    for (name, want) in [
        ("", "non-empty"),
        ("_key", "reserved"),
        ("_timestamp", "reserved"),
        ("cf", "collides"),
        ("f0", "twice"),
    ] {
        let mut bad = ok.clone();
        bad.fields[1].name = name.to_string();
        cases.push((bad, want));
    }
    for (schema, want) in cases {
        let err = schema.validate(is_family).unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument);
        assert!(err.message().contains(want), "{err} lacks {want}");
    }
}

#[test]
fn ordered_code_struct_matches_the_protos_examples() {
    let enc = |vals: &[&str]| {
        strings(vals.len().max(1), StructEncoding::OrderedCodeBytes)
            .encode_prefix(&vals.iter().map(|v| s(v)).collect::<Vec<_>>())
            .unwrap()
    };
    assert_eq!(enc(&[""]), b"\0\0");
    assert_eq!(enc(&["", ""]), b"\0\0");
    assert_eq!(enc(&["", "B"]), b"\0\0\0\x01B");
    assert_eq!(enc(&["A", ""]), b"A");
    assert_eq!(enc(&["", "B", ""]), b"\0\0\0\x01B");
    assert_eq!(enc(&["A", "", "C"]), b"A\0\x01\0\0\0\x01C");
    assert_eq!(enc(&["a\0b"]), b"a\0\xffb");
    // And back: missing trailing fields decode as empty.
    let three = strings(3, StructEncoding::OrderedCodeBytes);
    assert_eq!(three.decode(b"A").unwrap(), vec![s("A"), s(""), s("")]);
    assert_eq!(
        three.decode(b"A\0\x01\0\0\0\x01C").unwrap(),
        vec![s("A"), s(""), s("C")]
    );
    for bad in [
        &b""[..],
        b"A\0",
        b"A\0\x02",
        b"A\0\x01",
        b"\0\0x",
        b"a\0\x01b\0\x01c\0\x01d",
    ] {
        let err = three.decode(bad).unwrap_err();
        assert_eq!(err.code(), Code::FailedPrecondition, "{bad:?}");
    }
}

#[test]
fn ordered_code_int64_known_bytes() {
    for (v, bytes) in [
        (0i64, &[0x80u8][..]),
        (1, &[0x81]),
        (-1, &[0x7f]),
        (63, &[0xbf]),
        (64, &[0xc0, 0x40]),
        (-64, &[0x40]),
        (-65, &[0x3f, 0xbf]),
    ] {
        assert_eq!(encode_ordered_int(v), bytes, "{v}");
        assert_eq!(decode_ordered_int(bytes), Some(v));
    }
    assert_eq!(encode_ordered_int(i64::MAX).len(), 10);
    assert_eq!(encode_ordered_int(i64::MIN).len(), 10);
    // Not shortest form, or truncated: refused.
    assert_eq!(decode_ordered_int(&[0xc0, 0x01]), None);
    assert_eq!(decode_ordered_int(&[0xc0]), None);
    assert_eq!(decode_ordered_int(&[]), None);
}

#[test]
fn delimited_keys_decode_as_the_docs_sample() {
    let schema = RowKeySchema {
        fields: vec![
            field("user_id", KeyFieldType::Bytes),
            field("purchase_date", KeyFieldType::String),
            field("order_number", KeyFieldType::String),
        ],
        encoding: StructEncoding::DelimitedBytes(b"#".to_vec()),
    };
    assert_eq!(
        schema.decode(b"user1#2025-05-20#abcd1233").unwrap(),
        vec![
            KeyValue::Bytes(b"user1".to_vec()),
            s("2025-05-20"),
            s("abcd1233")
        ]
    );
    // The last field keeps any further delimiters; too few parts is an error.
    assert_eq!(schema.decode(b"a#b#c#d").unwrap()[2], s("c#d"));
    assert_eq!(
        schema.decode(b"a#b").unwrap_err().code(),
        Code::FailedPrecondition
    );
    assert_eq!(
        schema
            .encode_prefix(&[KeyValue::Bytes(b"u".to_vec())])
            .unwrap(),
        b"u#"
    );
    let err = schema
        .encode(&[KeyValue::Bytes(b"a#b".to_vec()), s("x"), s("y")])
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    // Fixed-width INT64 may hold the delimiter byte.
    let ints = RowKeySchema {
        fields: vec![
            field("n", KeyFieldType::Int64(Int64Encoding::BigEndianBytes)),
            field("s", KeyFieldType::String),
        ],
        encoding: StructEncoding::DelimitedBytes(b"#".to_vec()),
    };
    let key = ints.encode(&[KeyValue::Int64(0x23), s("x")]).unwrap();
    assert_eq!(key, b"\0\0\0\0\0\0\0\x23#x");
    assert_eq!(
        ints.decode(&key).unwrap(),
        vec![KeyValue::Int64(0x23), s("x")]
    );
}

/// A TIMESTAMP field is its microseconds in an INT64 encoding; microseconds outside
/// GoogleSQL's TIMESTAMP range neither decode nor encode.
#[test]
fn timestamp_fields_are_microseconds_in_an_int64_encoding() {
    for e in [
        Int64Encoding::BigEndianBytes,
        Int64Encoding::OrderedCodeBytes,
    ] {
        let ts = RowKeySchema {
            fields: vec![field("at", KeyFieldType::Timestamp(e))],
            encoding: StructEncoding::Singleton,
        };
        let int = RowKeySchema {
            fields: vec![field("n", KeyFieldType::Int64(e))],
            encoding: StructEncoding::Singleton,
        };
        for micros in [
            *TIMESTAMP_MICROS.start(),
            -1,
            0,
            1_700_000_000_000_000,
            *TIMESTAMP_MICROS.end(),
        ] {
            let key = ts.encode(&[KeyValue::Timestamp(micros)]).unwrap();
            assert_eq!(key, int.encode(&[KeyValue::Int64(micros)]).unwrap());
            assert_eq!(ts.decode(&key).unwrap(), [KeyValue::Timestamp(micros)]);
        }
        for micros in [TIMESTAMP_MICROS.start() - 1, TIMESTAMP_MICROS.end() + 1] {
            let key = int.encode(&[KeyValue::Int64(micros)]).unwrap();
            let err = ts.decode(&key).unwrap_err();
            assert_eq!(err.code(), crate::Code::FailedPrecondition);
            assert!(err.message().contains("TIMESTAMP range"), "{err}");
            let err = ts.encode(&[KeyValue::Timestamp(micros)]).unwrap_err();
            assert_eq!(err.code(), crate::Code::InvalidArgument);
        }
        // An INT64 value is not a TIMESTAMP.
        assert!(ts.encode(&[KeyValue::Int64(0)]).is_err());
    }
}

fn arb_field_type() -> impl Strategy<Value = KeyFieldType> {
    prop_oneof![
        Just(KeyFieldType::Bytes),
        Just(KeyFieldType::String),
        Just(KeyFieldType::Int64(Int64Encoding::BigEndianBytes)),
        Just(KeyFieldType::Int64(Int64Encoding::OrderedCodeBytes)),
        Just(KeyFieldType::Timestamp(Int64Encoding::BigEndianBytes)),
        Just(KeyFieldType::Timestamp(Int64Encoding::OrderedCodeBytes)),
    ]
}

fn arb_schema() -> impl Strategy<Value = RowKeySchema> {
    (
        proptest::collection::vec(arb_field_type(), 1..4),
        prop_oneof![
            Just(StructEncoding::Singleton),
            Just(StructEncoding::OrderedCodeBytes),
            proptest::collection::vec(any::<u8>(), 1..3).prop_map(StructEncoding::DelimitedBytes),
        ],
    )
        .prop_map(|(types, encoding)| {
            let types = if encoding == StructEncoding::Singleton {
                types[..1].to_vec()
            } else {
                types
            };
            RowKeySchema {
                fields: types
                    .into_iter()
                    .enumerate()
                    .map(|(i, t)| field(&alloc::format!("f{i}"), t))
                    .collect(),
                encoding,
            }
        })
}

fn arb_value(t: KeyFieldType) -> BoxedStrategy<KeyValue> {
    match t {
        KeyFieldType::Bytes => proptest::collection::vec(
            prop_oneof![Just(0u8), Just(1), Just(0xff), any::<u8>()],
            0..5,
        )
        .prop_map(KeyValue::Bytes)
        .boxed(),
        KeyFieldType::String => "[a-c\\x00#]{0,4}".prop_map(KeyValue::String).boxed(),
        KeyFieldType::Int64(_) => any::<i64>().prop_map(KeyValue::Int64).boxed(),
        KeyFieldType::Timestamp(_) => TIMESTAMP_MICROS.prop_map(KeyValue::Timestamp).boxed(),
    }
}

fn arb_schema_and_values() -> impl Strategy<Value = (RowKeySchema, Vec<KeyValue>)> {
    arb_schema().prop_flat_map(|schema| {
        let values: Vec<_> = schema
            .fields
            .iter()
            .map(|f| arb_value(f.field_type))
            .collect();
        (Just(schema), values)
    })
}

proptest! {
    #[test]
    fn encode_then_decode_round_trips((schema, values) in arb_schema_and_values()) {
        // Values a delimited encoding cannot hold are refused; all others round-trip.
        if let Ok(key) = schema.encode(&values) {
            prop_assert_eq!(schema.decode(&key).unwrap(), values.clone());
            // The key starts with the encoding of each prefix of its values.
            for k in 0..values.len() {
                if let Ok(p) = schema.encode_prefix(&values[..k]) {
                    prop_assert!(key.starts_with(&p), "{:?} {:?}", key, p);
                }
            }
        } else {
            let plain = matches!(schema.encoding, StructEncoding::DelimitedBytes(_));
            prop_assert!(plain, "only delimited keys can refuse values");
        }
    }

    #[test]
    fn decode_never_panics(schema in arb_schema(), key in proptest::collection::vec(any::<u8>(), 0..24)) {
        if let Ok(values) = schema.decode(&key) {
            // A key that decodes is the (one) encoding of its values.
            prop_assert_eq!(schema.encode(&values).unwrap(), key);
        }
    }

    #[test]
    fn ordered_code_int64_keeps_order(a in any::<i64>(), b in any::<i64>()) {
        let (ea, eb) = (encode_ordered_int(a), encode_ordered_int(b));
        prop_assert_eq!(a.cmp(&b), ea.cmp(&eb));
        prop_assert_eq!(decode_ordered_int(&ea), Some(a));
    }

    #[test]
    fn ordered_code_struct_keeps_element_wise_order(
        a in proptest::collection::vec(("[a-c\\x00]{0,3}", any::<i64>()), 2),
        b in proptest::collection::vec(("[a-c\\x00]{0,3}", any::<i64>()), 2),
    ) {
        let schema = RowKeySchema {
            fields: vec![
                field("s", KeyFieldType::String),
                field("n", KeyFieldType::Int64(Int64Encoding::OrderedCodeBytes)),
                field("t", KeyFieldType::String),
            ],
            encoding: StructEncoding::OrderedCodeBytes,
        };
        let vals = |x: &[(String, i64)]| vec![s(&x[0].0), KeyValue::Int64(x[0].1), s(&x[1].0)];
        let (va, vb) = (vals(&a), vals(&b));
        let (ka, kb) = (schema.encode(&va).unwrap(), schema.encode(&vb).unwrap());
        prop_assert_eq!(va.cmp(&vb), ka.cmp(&kb), "{:?} {:?}", ka, kb);
    }
}
