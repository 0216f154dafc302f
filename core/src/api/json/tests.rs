//! The proto3 JSON mapping, held against JSON written by hand from the protos' field names
//! (data.proto, bigtable.proto, admin table.proto and types.proto), never captured from output.

use super::*;
use crate::{
    Code, ColumnFamily, FamilyModification, GcRule, Granularity, Mutation, ReadModifyWriteRule,
    ReadRowsRequest, Row, RowFilter, RowMutations, RowRange, RowSet, TableConfig, TimestampRange,
    ValueType,
};
use alloc::boxed::Box;
use alloc::string::ToString;
use alloc::vec;
use core::fmt::Debug;
use core::ops::Bound;
use serde::de::DeserializeOwned;

/// `text` parses to `want`, and `want` prints as exactly `text` (the canonical form).
fn canonical<T: Serialize + DeserializeOwned + PartialEq + Debug>(text: &str, want: T) {
    let got: T = from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(got, want, "{text}");
    assert_eq!(to_string(&want).unwrap(), text);
}

/// `value` survives printing and parsing.
fn round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(value: T) {
    let text = to_string(&value).unwrap();
    let back: T = from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(back, value, "{text}");
}

fn rejected<T: DeserializeOwned + Debug>(text: &str) -> String {
    match from_str::<T>(text) {
        Ok(v) => panic!("{text} parsed as {v:?}"),
        Err(e) => {
            assert_eq!(e.code(), Code::InvalidArgument, "{text}: {e}");
            e.message().to_string()
        }
    }
}

#[test]
fn every_mutation_kind_has_its_proto3_json_form() {
    canonical(
        r#"{"setCell":{"familyName":"cf","columnQualifier":"cQ==","timestampMicros":"1000","value":"dg=="}}"#,
        Mutation::set_cell("cf", b"q", 1000, b"v"),
    );
    canonical(
        r#"{"setCell":{"familyName":"cf","timestampMicros":"-1"}}"#,
        Mutation::set_cell("cf", b"", -1, b""),
    );
    canonical(
        r#"{"addToCell":{"familyName":"sum","columnQualifier":{"rawValue":"cQ=="},"timestamp":{"rawTimestampMicros":"2000"},"input":{"intValue":"-5"}}}"#,
        Mutation::AddToCell {
            family: "sum".into(),
            qualifier: b"q".to_vec(),
            timestamp_micros: 2000,
            input: -5,
        },
    );
    canonical(
        r#"{"mergeToCell":{"familyName":"sum","columnQualifier":{"rawValue":"cQ=="},"timestamp":{"rawTimestampMicros":"2000"},"input":{"rawValue":"AAAAAAAAAAc="}}}"#,
        Mutation::MergeToCell {
            family: "sum".into(),
            qualifier: b"q".to_vec(),
            timestamp_micros: 2000,
            state: 7i64.to_be_bytes().to_vec(),
        },
    );
    canonical(
        r#"{"deleteFromColumn":{"familyName":"cf","columnQualifier":"cQ==","timeRange":{"startTimestampMicros":"1000","endTimestampMicros":"3000"}}}"#,
        Mutation::DeleteFromColumn {
            family: "cf".into(),
            qualifier: b"q".to_vec(),
            time_range: TimestampRange {
                start_micros: 1000,
                end_micros: Some(3000),
            },
        },
    );
    canonical(
        r#"{"deleteFromFamily":{"familyName":"cf"}}"#,
        Mutation::DeleteFromFamily {
            family: "cf".into(),
        },
    );
    canonical(r#"{"deleteFromRow":{}}"#, Mutation::DeleteFromRow);
}

#[test]
fn parsers_accept_proto_names_numbers_for_int64_and_other_value_kinds() {
    let m: Mutation = from_str(
        r#"{"set_cell":{"family_name":"cf","column_qualifier":"cQ","timestamp_micros":1000,"value":null}}"#,
    )
    .unwrap();
    assert_eq!(m, Mutation::set_cell("cf", b"q", 1000, b""));
    let m: Mutation = from_str(
        r#"{"add_to_cell":{"family_name":"s","column_qualifier":{"string_value":"q"},"timestamp":{"int_value":"1000"},"input":{"int_value":3}}}"#,
    )
    .unwrap();
    assert_eq!(
        m,
        Mutation::AddToCell {
            family: "s".into(),
            qualifier: b"q".to_vec(),
            timestamp_micros: 1000,
            input: 3
        }
    );
    // An int64 merge input stands for the 8-byte big-endian state the core stores.
    let m: Mutation =
        from_str(r#"{"mergeToCell":{"familyName":"s","input":{"intValue":"7"}}}"#).unwrap();
    assert!(matches!(m, Mutation::MergeToCell { state, .. } if state == 7i64.to_be_bytes()));
    // A raw AddToCell input (a HyperLogLog++ family's) is the one-value sketch it stands for.
    let m: Mutation = from_str(
        r#"{"addToCell":{"familyName":"h","timestamp":{"intValue":"0"},"input":{"rawValue":"dXNlcg=="}}}"#,
    )
    .unwrap();
    assert!(matches!(&m, Mutation::MergeToCell { family, state, .. }
            if family == "h" && *state == crate::model::aggregate::raw_input_state(b"user")));
    // An end of 0 is "no end", as in the proto.
    let m: Mutation = from_str(
        r#"{"deleteFromColumn":{"familyName":"cf","timeRange":{"endTimestampMicros":"0"}}}"#,
    )
    .unwrap();
    assert!(
        matches!(m, Mutation::DeleteFromColumn { time_range, .. } if time_range == TimestampRange::default())
    );
}

#[test]
fn every_filter_kind_has_its_proto3_json_form() {
    let cases: Vec<(&str, RowFilter)> = vec![
        (r#"{"passAllFilter":true}"#, RowFilter::PassAll),
        (r#"{"blockAllFilter":true}"#, RowFilter::BlockAll),
        (r#"{"sink":true}"#, RowFilter::Sink),
        (r#"{"stripValueTransformer":true}"#, RowFilter::StripValue),
        (
            r#"{"rowKeyRegexFilter":"cm93LioK"}"#,
            RowFilter::RowKeyRegex(b"row.*\n".to_vec()),
        ),
        (r#"{"rowSampleFilter":0.25}"#, RowFilter::RowSample(0.25)),
        (
            r#"{"familyNameRegexFilter":"c.*"}"#,
            RowFilter::FamilyNameRegex("c.*".into()),
        ),
        (
            r#"{"columnQualifierRegexFilter":"/w=="}"#,
            RowFilter::ColumnQualifierRegex(vec![0xff]),
        ),
        (
            r#"{"columnRangeFilter":{"familyName":"cf","startQualifierClosed":"YQ==","endQualifierOpen":"Yg=="}}"#,
            RowFilter::ColumnRange {
                family: "cf".into(),
                start: Bound::Included(b"a".to_vec()),
                end: Bound::Excluded(b"b".to_vec()),
            },
        ),
        (
            r#"{"columnRangeFilter":{"familyName":"cf","startQualifierOpen":"YQ==","endQualifierClosed":"Yg=="}}"#,
            RowFilter::ColumnRange {
                family: "cf".into(),
                start: Bound::Excluded(b"a".to_vec()),
                end: Bound::Included(b"b".to_vec()),
            },
        ),
        (
            r#"{"timestampRangeFilter":{"startTimestampMicros":"1000","endTimestampMicros":"2000"}}"#,
            RowFilter::TimestampRange {
                start_micros: 1000,
                end_micros: 2000,
            },
        ),
        (
            r#"{"valueRegexFilter":"di4="}"#,
            RowFilter::ValueRegex(b"v.".to_vec()),
        ),
        (
            r#"{"valueRangeFilter":{"startValueClosed":"YQ==","endValueOpen":"eg=="}}"#,
            RowFilter::ValueRange {
                start: Bound::Included(b"a".to_vec()),
                end: Bound::Excluded(b"z".to_vec()),
            },
        ),
        (
            r#"{"valueRangeFilter":{"startValueOpen":"YQ=="}}"#,
            RowFilter::ValueRange {
                start: Bound::Excluded(b"a".to_vec()),
                end: Bound::Unbounded,
            },
        ),
        (
            r#"{"cellsPerRowOffsetFilter":2}"#,
            RowFilter::CellsPerRowOffset(2),
        ),
        (
            r#"{"cellsPerRowLimitFilter":3}"#,
            RowFilter::CellsPerRowLimit(3),
        ),
        (
            r#"{"cellsPerColumnLimitFilter":1}"#,
            RowFilter::CellsPerColumnLimit(1),
        ),
        (
            r#"{"applyLabelTransformer":"lbl"}"#,
            RowFilter::ApplyLabel("lbl".into()),
        ),
        (
            r#"{"valueBitmaskFilter":"Dw=="}"#,
            RowFilter::ValueBitmask(vec![0x0f]),
        ),
        (
            r#"{"chain":{"filters":[{"familyNameRegexFilter":"a"},{"cellsPerColumnLimitFilter":1}]}}"#,
            RowFilter::Chain(vec![
                RowFilter::FamilyNameRegex("a".into()),
                RowFilter::CellsPerColumnLimit(1),
            ]),
        ),
        (
            r#"{"interleave":{"filters":[{"sink":true},{"stripValueTransformer":true}]}}"#,
            RowFilter::Interleave(vec![RowFilter::Sink, RowFilter::StripValue]),
        ),
        (
            r#"{"condition":{"predicateFilter":{"valueRegexFilter":"eA=="},"trueFilter":{"passAllFilter":true}}}"#,
            RowFilter::Condition {
                predicate: Box::new(RowFilter::ValueRegex(b"x".to_vec())),
                true_filter: Some(Box::new(RowFilter::PassAll)),
                false_filter: None,
            },
        ),
        (
            r#"{"condition":{"predicateFilter":{"blockAllFilter":true},"falseFilter":{"applyLabelTransformer":"f"}}}"#,
            RowFilter::Condition {
                predicate: Box::new(RowFilter::BlockAll),
                true_filter: None,
                false_filter: Some(Box::new(RowFilter::ApplyLabel("f".into()))),
            },
        ),
    ];
    for (text, filter) in cases {
        canonical(text, filter);
    }
    // The proto's own names, and the double as a string.
    let f: RowFilter = from_str(
        r#"{"chain":{"filters":[{"cells_per_row_limit_filter":"2"},{"row_sample_filter":"0.5"}]}}"#,
    )
    .unwrap();
    assert_eq!(
        f,
        RowFilter::Chain(vec![
            RowFilter::CellsPerRowLimit(2),
            RowFilter::RowSample(0.5)
        ])
    );
}

#[test]
fn gc_rules_use_duration_strings_and_nested_rule_lists() {
    canonical(r#"{"maxNumVersions":3}"#, GcRule::MaxNumVersions(3));
    canonical(
        r#"{"maxAge":"3.500s"}"#,
        GcRule::MaxAge { micros: 3_500_000 },
    );
    canonical(
        r#"{"maxAge":"86400s"}"#,
        GcRule::MaxAge {
            micros: 86_400_000_000,
        },
    );
    canonical(r#"{}"#, GcRule::Never);
    canonical(
        r#"{"union":{"rules":[{"maxNumVersions":1},{"intersection":{"rules":[{"maxAge":"0.001s"},{"maxNumVersions":2}]}}]}}"#,
        GcRule::Union(vec![
            GcRule::MaxNumVersions(1),
            GcRule::Intersection(vec![
                GcRule::MaxAge { micros: 1000 },
                GcRule::MaxNumVersions(2),
            ]),
        ]),
    );
    let r: GcRule = from_str(r#"{"max_age":"3.5s"}"#).unwrap();
    assert_eq!(r, GcRule::MaxAge { micros: 3_500_000 });
    rejected::<GcRule>(r#"{"maxAge":"3.5"}"#);
    rejected::<GcRule>(r#"{"maxAge":"3.5s","maxNumVersions":1}"#);
    let m = rejected::<GcRule>(r#"{"maxNumVersions":-1}"#);
    assert!(m.contains("max_num_versions must be at least 1"), "{m}");
}

#[test]
fn row_sets_and_read_requests() {
    canonical(
        r#"{"rowKeys":["cjE=","cjI="],"rowRanges":[{"startKeyClosed":"YQ==","endKeyOpen":"Yg=="},{"startKeyOpen":"eA==","endKeyClosed":"eg=="},{}]}"#,
        RowSet {
            row_keys: vec![b"r1".to_vec(), b"r2".to_vec()],
            row_ranges: vec![
                RowRange::closed_open(b"a".to_vec(), b"b".to_vec()),
                RowRange {
                    start: Bound::Excluded(b"x".to_vec()),
                    end: Bound::Included(b"z".to_vec()),
                },
                RowRange::all(),
            ],
        },
    );
    canonical(
        r#"{"rows":{"rowKeys":["cg=="]},"filter":{"cellsPerColumnLimitFilter":1},"rowsLimit":"10","reversed":true}"#,
        ReadRowsRequest {
            row_set: RowSet::single(b"r".to_vec()),
            filter: RowFilter::CellsPerColumnLimit(1),
            rows_limit: 10,
            reversed: true,
        },
    );
    canonical(r#"{}"#, ReadRowsRequest::default());
    canonical(
        r#"{"tableName":"projects/p/instances/i/tables/t","rowsLimit":"1"}"#,
        ReadRows {
            table_name: Some("projects/p/instances/i/tables/t".into()),
            request: ReadRowsRequest {
                rows_limit: 1,
                ..ReadRowsRequest::default()
            },
        },
    );
    // The core request has no table; naming one is refused, not silently dropped.
    rejected::<ReadRowsRequest>(r#"{"tableName":"t"}"#);
}

#[test]
fn tables_families_value_types_and_modifications() {
    let mut config = TableConfig::with_families(["cf"]);
    config.families.insert(
        "sum".into(),
        ColumnFamily {
            gc_rule: GcRule::MaxNumVersions(1),
            value_type: ValueType::Int64Sum,
        },
    );
    config.granularity = Granularity::Millis;
    config.deletion_protection = true;
    config.initial_splits = vec![b"m".to_vec()];
    canonical(
        r#"{"columnFamilies":{"cf":{},"sum":{"gcRule":{"maxNumVersions":1},"valueType":{"aggregateType":{"inputType":{"int64Type":{}},"sum":{}}}}},"granularity":"MILLIS","deletionProtection":true,"initialSplits":[{"key":"bQ=="}]}"#,
        config,
    );
    for (agg, vt) in [("min", ValueType::Int64Min), ("max", ValueType::Int64Max)] {
        let text = alloc::format!(
            r#"{{"valueType":{{"aggregateType":{{"inputType":{{"int64Type":{{"encoding":{{"bigEndianBytes":{{}}}}}}}},"stateType":{{"int64Type":{{}}}},"{agg}":{{}}}}}}}}"#
        );
        let f: ColumnFamily = from_str(&text).unwrap();
        assert_eq!(f.value_type, vt);
        round_trip(f);
    }
    let t: TableConfig = from_str(
        r#"{"name":"projects/p/instances/i/tables/t","column_families":{"b":{"value_type":{"bytes_type":{}}}},"granularity":0}"#,
    )
    .unwrap();
    assert_eq!(t, TableConfig::with_families(["b"]));
    let micros: TableConfig = from_str(r#"{"granularity":"MICROS"}"#).unwrap();
    assert_eq!(micros.granularity, Granularity::Micros);
    round_trip(micros);
    rejected::<TableConfig>(r#"{"granularity":"NANOS"}"#);
    rejected::<TableConfig>(r#"{"granularity":7}"#);
    // HyperLogLog++: any int64 or bytes input, or none (raw); reported with a bytes input.
    for hll in [
        r#"{"valueType":{"aggregateType":{"inputType":{"int64Type":{}},"hllppUniqueCount":{}}}}"#,
        r#"{"valueType":{"aggregateType":{"hllppUniqueCount":{}}}}"#,
    ] {
        let f: ColumnFamily = from_str(hll).unwrap();
        assert_eq!(f.value_type, ValueType::HllUniqueCount);
        round_trip(f);
    }
    rejected::<ColumnFamily>(
        r#"{"valueType":{"aggregateType":{"inputType":{"aggregateType":{}},"hllppUniqueCount":{}}}}"#,
    );
    rejected::<ColumnFamily>(
        r#"{"valueType":{"aggregateType":{"inputType":{"stringType":{}},"sum":{}}}}"#,
    );
    rejected::<ColumnFamily>(
        r#"{"valueType":{"aggregateType":{"inputType":{"int64Type":{"encoding":{"orderedCodeBytes":{}}}},"sum":{}}}}"#,
    );
    canonical(
        r#"{"id":"cf","create":{"gcRule":{"maxAge":"1s"}}}"#,
        FamilyModification::Create {
            name: "cf".into(),
            family: ColumnFamily {
                gc_rule: GcRule::MaxAge { micros: 1_000_000 },
                ..ColumnFamily::default()
            },
        },
    );
    canonical(
        r#"{"id":"cf","update":{}}"#,
        FamilyModification::Update {
            name: "cf".into(),
            family: ColumnFamily::default(),
        },
    );
    canonical(
        r#"{"id":"cf","drop":true}"#,
        FamilyModification::Drop { name: "cf".into() },
    );
    rejected::<FamilyModification>(r#"{"id":"cf","drop":true,"update":{}}"#);
    rejected::<FamilyModification>(r#"{"id":"cf","drop":false}"#);
}

#[test]
fn request_bodies_and_rows() {
    canonical(
        r#"{"tableName":"t","rowKey":"cg==","mutations":[{"deleteFromRow":{}}]}"#,
        MutateRow {
            table_name: Some("t".into()),
            row_key: b"r".to_vec(),
            mutations: vec![Mutation::DeleteFromRow],
        },
    );
    canonical(
        r#"{"entries":[{"rowKey":"cjE=","mutations":[{"deleteFromFamily":{"familyName":"cf"}}]}]}"#,
        MutateRows {
            table_name: None,
            entries: vec![RowMutations {
                row_key: b"r1".to_vec(),
                mutations: vec![Mutation::DeleteFromFamily {
                    family: "cf".into(),
                }],
            }],
        },
    );
    canonical(
        r#"{"rowKey":"cg==","predicateFilter":{"sink":true},"falseMutations":[{"deleteFromRow":{}}]}"#,
        CheckAndMutateRow {
            row_key: b"r".to_vec(),
            predicate_filter: Some(RowFilter::Sink),
            false_mutations: vec![Mutation::DeleteFromRow],
            ..CheckAndMutateRow::default()
        },
    );
    canonical(
        r#"{"rowKey":"cg==","rules":[{"familyName":"cf","columnQualifier":"cQ==","appendValue":"eA=="},{"familyName":"cf","columnQualifier":"bg==","incrementAmount":"0"}]}"#,
        ReadModifyWriteRow {
            table_name: None,
            row_key: b"r".to_vec(),
            rules: vec![
                ReadModifyWriteRule::append("cf", b"q".to_vec(), b"x".to_vec()),
                ReadModifyWriteRule::increment("cf", b"n".to_vec(), 0),
            ],
        },
    );
    rejected::<ReadModifyWriteRule>(
        r#"{"familyName":"cf","appendValue":"eA==","incrementAmount":"1"}"#,
    );
    rejected::<ReadModifyWriteRule>(r#"{"familyName":"cf"}"#);
    let cell =
        |family: &str, qualifier: &[u8], ts: i64, value: &[u8], labels: &[&str]| crate::Cell {
            family: family.into(),
            qualifier: qualifier.to_vec(),
            timestamp_micros: ts,
            value: value.to_vec(),
            labels: labels.iter().map(|l| l.to_string()).collect(),
        };
    canonical(
        r#"{"key":"cg==","families":[{"name":"b","columns":[{"qualifier":"cQ==","cells":[{"timestampMicros":"2000","value":"eQ=="},{"timestampMicros":"1000","labels":["l"]}]}]},{"name":"a","columns":[{"qualifier":"cQ==","cells":[{"value":"eA=="}]},{"qualifier":"cg==","cells":[{"timestampMicros":"5"}]}]}]}"#,
        Row {
            key: b"r".to_vec(),
            cells: vec![
                cell("b", b"q", 2000, b"y", &[]),
                cell("b", b"q", 1000, b"", &["l"]),
                cell("a", b"q", 0, b"x", &[]),
                cell("a", b"r", 5, b"", &[]),
            ],
        },
    );
}

#[test]
fn a_oneof_with_two_members_set_is_invalid_argument() {
    let m = rejected::<Mutation>(r#"{"setCell":{},"deleteFromRow":{}}"#);
    assert!(m.contains("setCell and deleteFromRow"), "{m}");
    rejected::<RowFilter>(r#"{"sink":true,"passAllFilter":true}"#);
    rejected::<RowFilter>(
        r#"{"columnRangeFilter":{"familyName":"cf","startQualifierClosed":"YQ==","startQualifierOpen":"YQ=="}}"#,
    );
    rejected::<RowRange>(r#"{"endKeyOpen":"YQ==","endKeyClosed":"YQ=="}"#);
    // The camelCase and snake_case spellings are one field: giving both is a duplicate.
    rejected::<RowFilter>(r#"{"passAllFilter":true,"pass_all_filter":true}"#);
    // And a message that needs a member must have one.
    rejected::<Mutation>(r#"{}"#);
    rejected::<RowFilter>(r#"{}"#);
}

#[test]
fn malformed_values_and_unknown_fields_are_invalid_argument() {
    rejected::<Mutation>(r#"{"setCell":{"familyName":"cf","value":"not base64!"}}"#);
    rejected::<Mutation>(r#"{"setCell":{"familyName":"cf","value":"YR=="}}"#);
    rejected::<Mutation>(
        r#"{"setCell":{"familyName":"cf","timestampMicros":"9223372036854775808"}}"#,
    );
    rejected::<Mutation>(r#"{"setCell":{"familyName":"cf","timestampMicros":1.5}}"#);
    rejected::<Mutation>(r#"{"setCell":{"family":"cf"}}"#);
    rejected::<RowFilter>(r#"{"cellsPerRowLimitFilter":2147483648}"#);
    rejected::<RowFilter>(r#"{"rowKeyRegexFilter":5}"#);
    rejected::<RowFilter>(r#"{"rowSampleFilter":"half"}"#);
    rejected::<TableConfig>(r#"{"granularity":"millis"}"#);
    rejected::<ReadRowsRequest>(r#"{"rowsLimit":"ten"}"#);
    rejected::<MutateRow>(r#"{"rowKey":"cg==","mutation":[]}"#);
    rejected::<Mutation>("{\"deleteFromRow\":{}");
    // URL-safe and unpadded base64 are read; standard padded base64 is written.
    let m: Mutation = from_str(r#"{"setCell":{"familyName":"cf","value":"-_8"}}"#).unwrap();
    assert_eq!(m, Mutation::set_cell("cf", b"", 0, vec![0xfb, 0xff]));
    assert!(to_string(&m).unwrap().contains("\"+/8=\""));
}

#[test]
fn boolean_filters_set_to_false_are_invalid_argument() {
    for kind in [
        "sink",
        "passAllFilter",
        "blockAllFilter",
        "stripValueTransformer",
    ] {
        let m = rejected::<RowFilter>(&alloc::format!(r#"{{"{kind}":false}}"#));
        assert!(m.contains("must be true"), "{m}");
    }
}

#[test]
fn nesting_is_refused_before_recursing_and_the_engines_limits_apply() {
    // A depth bomb far beyond any parser's stack: refused by the iterative pre-scan.
    let bomb = "[".repeat(1_000_000);
    let m = rejected::<RowFilter>(&bomb);
    assert!(m.contains("nested deeper than"), "{m}");
    let mut value = serde_json::Value::Null;
    for _ in 0..MAX_JSON_DEPTH + 1 {
        value = serde_json::Value::Array(vec![value]);
    }
    assert_eq!(
        from_value::<RowFilter>(value).unwrap_err().code(),
        Code::InvalidArgument
    );

    // The engine's filter limit: 20 levels parse, 21 give the engine's own message.
    let nested = |levels: usize| {
        let mut text = String::from(r#"{"passAllFilter":true}"#);
        let mut native = RowFilter::PassAll;
        for _ in 1..levels {
            text = alloc::format!(r#"{{"chain":{{"filters":[{text},{{"sink":true}}]}}}}"#);
            native = RowFilter::Chain(vec![native, RowFilter::Sink]);
        }
        (text, native)
    };
    let (text, native) = nested(crate::limits::MAX_FILTER_DEPTH);
    assert_eq!(from_str::<RowFilter>(&text).unwrap(), native);
    let (text, native) = nested(crate::limits::MAX_FILTER_DEPTH + 1);
    let json_error = from_str::<RowFilter>(&text).unwrap_err();
    let native_error = native.compile().unwrap_err();
    assert_eq!(json_error.code(), native_error.code());
    assert!(
        json_error.message().contains(native_error.message()),
        "{json_error}"
    );

    // The deepest GC rule the engine accepts fits under MAX_JSON_DEPTH inside a table.
    let mut rule = String::from(r#"{"maxNumVersions":1}"#);
    for _ in 1..crate::limits::MAX_GC_RULE_DEPTH {
        rule = alloc::format!(r#"{{"union":{{"rules":[{rule}]}}}}"#);
    }
    let table = alloc::format!(r#"{{"columnFamilies":{{"cf":{{"gcRule":{rule}}}}}}}"#);
    let config: TableConfig = from_str(&table).unwrap();
    config.validate().unwrap();
    let deeper = alloc::format!(r#"{{"union":{{"rules":[{rule}]}}}}"#);
    let m = rejected::<GcRule>(&deeper);
    assert!(m.contains("gc_rule: nested deeper than"), "{m}");
}

#[test]
fn json_input_meets_the_same_validation_as_native_input() {
    // A bad regex is not a JSON error: it is the engine's, identical for both paths.
    let from_json: RowFilter = from_str(r#"{"rowKeyRegexFilter":"KA=="}"#).unwrap();
    let native = RowFilter::RowKeyRegex(b"(".to_vec());
    assert_eq!(
        from_json.compile().unwrap_err(),
        native.compile().unwrap_err()
    );

    let mut db = crate::Database::new();
    let bad_family: TableConfig = from_str(r#"{"columnFamilies":{"bad:name":{}}}"#).unwrap();
    let json_error = db.create_table("t", bad_family).unwrap_err();
    let native_error = db
        .create_table("t", TableConfig::with_families(["bad:name"]))
        .unwrap_err();
    assert_eq!(json_error, native_error);
    assert_eq!(json_error.code(), Code::InvalidArgument);
}

#[test]
fn wire_defaults_follow_the_cores_rules() {
    // An empty key as a row range bound is unbounded, as over gRPC (`RowRange::from_wire_bounds`).
    let set: RowSet = from_str(r#"{"rowRanges":[{"startKeyClosed":"","endKeyOpen":""}]}"#).unwrap();
    assert_eq!(
        set.row_ranges,
        vec![RowRange {
            start: Bound::Unbounded,
            end: Bound::Unbounded
        }]
    );
    // An end timestamp of 0 in DeleteFromColumn is no end (`TimestampRange::from_wire`).
    let m: Mutation = from_str(
        r#"{"deleteFromColumn":{"familyName":"cf","columnQualifier":"cQ==","timeRange":{"startTimestampMicros":"0","endTimestampMicros":"0"}}}"#,
    )
    .unwrap();
    let Mutation::DeleteFromColumn { time_range, .. } = m else {
        panic!("{m:?}");
    };
    assert_eq!(time_range, TimestampRange::from_wire(0, 0));
    assert_eq!(time_range.end_micros, None);
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn bytes() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(any::<u8>(), 0..6)
    }

    fn bound() -> impl Strategy<Value = Bound<Vec<u8>>> {
        prop_oneof![
            Just(Bound::Unbounded),
            bytes().prop_map(Bound::Included),
            bytes().prop_map(Bound::Excluded),
        ]
    }

    /// A row range bound: an empty key on the wire means "unbounded" (the core's wire rule,
    /// `RowRange::from_wire_bounds`), so a bounded row key is never empty.
    fn row_bound() -> impl Strategy<Value = Bound<Vec<u8>>> {
        let key = proptest::collection::vec(any::<u8>(), 1..6);
        prop_oneof![
            Just(Bound::Unbounded),
            key.clone().prop_map(Bound::Included),
            key.prop_map(Bound::Excluded),
        ]
    }

    fn leaf() -> impl Strategy<Value = RowFilter> {
        prop_oneof![
            Just(RowFilter::PassAll),
            Just(RowFilter::BlockAll),
            Just(RowFilter::Sink),
            Just(RowFilter::StripValue),
            bytes().prop_map(RowFilter::RowKeyRegex),
            (-1000i32..1000).prop_map(|k| RowFilter::RowSample(f64::from(k) / 64.0)),
            "[a-z.*]{0,4}".prop_map(RowFilter::FamilyNameRegex),
            bytes().prop_map(RowFilter::ColumnQualifierRegex),
            ("[a-z]{0,3}", bound(), bound())
                .prop_map(|(family, start, end)| RowFilter::ColumnRange { family, start, end }),
            (any::<i64>(), any::<i64>()).prop_map(|(start_micros, end_micros)| {
                RowFilter::TimestampRange {
                    start_micros,
                    end_micros,
                }
            }),
            bytes().prop_map(RowFilter::ValueRegex),
            (bound(), bound()).prop_map(|(start, end)| RowFilter::ValueRange { start, end }),
            any::<i32>().prop_map(RowFilter::CellsPerRowOffset),
            any::<i32>().prop_map(RowFilter::CellsPerRowLimit),
            any::<i32>().prop_map(RowFilter::CellsPerColumnLimit),
            "[a-z0-9-]{0,5}".prop_map(RowFilter::ApplyLabel),
            bytes().prop_map(RowFilter::ValueBitmask),
        ]
    }

    fn filter() -> impl Strategy<Value = RowFilter> {
        leaf().prop_recursive(4, 24, 3, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..3).prop_map(RowFilter::Chain),
                proptest::collection::vec(inner.clone(), 0..3).prop_map(RowFilter::Interleave),
                (
                    inner.clone(),
                    proptest::option::of(inner.clone()),
                    proptest::option::of(inner)
                )
                    .prop_map(|(p, t, f)| RowFilter::Condition {
                        predicate: Box::new(p),
                        true_filter: t.map(Box::new),
                        false_filter: f.map(Box::new),
                    }),
            ]
        })
    }

    fn mutation() -> impl Strategy<Value = Mutation> {
        prop_oneof![
            ("[a-z]{0,3}", bytes(), any::<i64>(), bytes())
                .prop_map(|(f, q, t, v)| Mutation::set_cell(f, q, t, v)),
            ("[a-z]{0,3}", bytes(), any::<i64>(), any::<i64>()).prop_map(
                |(family, qualifier, timestamp_micros, input)| {
                    Mutation::AddToCell {
                        family,
                        qualifier,
                        timestamp_micros,
                        input,
                    }
                }
            ),
            ("[a-z]{0,3}", bytes(), any::<i64>(), bytes()).prop_map(
                |(family, qualifier, timestamp_micros, state)| {
                    Mutation::MergeToCell {
                        family,
                        qualifier,
                        timestamp_micros,
                        state,
                    }
                }
            ),
            (
                "[a-z]{0,3}",
                bytes(),
                any::<i64>(),
                proptest::option::of(any::<i64>().prop_filter("0 means no end", |e| *e != 0))
            )
                .prop_map(|(family, qualifier, start_micros, end_micros)| {
                    Mutation::DeleteFromColumn {
                        family,
                        qualifier,
                        time_range: TimestampRange {
                            start_micros,
                            end_micros,
                        },
                    }
                }),
            "[a-z]{0,3}".prop_map(|family| Mutation::DeleteFromFamily { family }),
            Just(Mutation::DeleteFromRow),
        ]
    }

    fn gc_rule() -> impl Strategy<Value = GcRule> {
        let leaf = prop_oneof![
            Just(GcRule::Never),
            (0u32..=i32::MAX as u32).prop_map(GcRule::MaxNumVersions),
            (-(1i64 << 50)..(1i64 << 50)).prop_map(|micros| GcRule::MaxAge { micros }),
        ];
        leaf.prop_recursive(3, 12, 3, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..3).prop_map(GcRule::Intersection),
                proptest::collection::vec(inner, 0..3).prop_map(GcRule::Union),
            ]
        })
    }

    proptest! {
        #[test]
        fn filters_round_trip(f in filter()) {
            round_trip(f);
        }

        #[test]
        fn mutations_round_trip(m in mutation()) {
            round_trip(m);
        }

        #[test]
        fn gc_rules_round_trip(r in gc_rule()) {
            round_trip(r);
        }

        #[test]
        fn row_sets_round_trip(keys in proptest::collection::vec(bytes(), 0..3), ranges in proptest::collection::vec((row_bound(), row_bound()), 0..3)) {
            round_trip(RowSet {
                row_keys: keys,
                row_ranges: ranges.into_iter().map(|(start, end)| RowRange { start, end }).collect(),
            });
        }
    }
}

#[test]
fn a_message_written_as_an_array_is_a_wrong_type_not_a_default_message() {
    // serde's derived structs read `[...]` as fields by position; proto3 JSON has no such form.
    for text in [
        r#"{"columnFamilies":{"cf":{"gcRule":[]}}}"#,
        r#"{"columnFamilies":{"cf":{"gcRule":{"union":[]}}}}"#,
        r#"{"columnFamilies":{"cf":[]}}"#,
        r#"[]"#,
    ] {
        let message = rejected::<TableConfig>(text);
        assert!(message.contains("expected"), "{text}: {message}");
    }
    rejected::<ReadRowsRequest>(r#"{"rows":[]}"#);
    rejected::<Mutation>(r#"{"setCell":[]}"#);
    // Objects still read, and an absent rule is still no rule.
    let t: TableConfig = from_str(r#"{"columnFamilies":{"cf":{"gcRule":{"maxNumVersions":2}}}}"#)
        .expect("an object reads");
    assert_eq!(t.families.len(), 1);
}

/// `Table.rowKeySchema`: the docs' `sales` schema in proto3 JSON, both ways; a field type
/// without an encoding, two encodings and a type other than BYTES/STRING/INT64 are refused.
#[test]
fn tables_carry_their_row_key_schema() {
    use crate::{Int64Encoding, KeyField, KeyFieldType, RowKeySchema, StructEncoding};
    let mut config = TableConfig::with_families(["cf"]);
    config.row_key_schema = Some(RowKeySchema {
        fields: vec![
            KeyField {
                name: "user_id".into(),
                field_type: KeyFieldType::Bytes,
            },
            KeyField {
                name: "day".into(),
                field_type: KeyFieldType::String,
            },
            KeyField {
                name: "n".into(),
                field_type: KeyFieldType::Int64(Int64Encoding::OrderedCodeBytes),
            },
        ],
        encoding: StructEncoding::DelimitedBytes(b"#".to_vec()),
    });
    canonical(
        r##"{"columnFamilies":{"cf":{}},"granularity":"MILLIS","rowKeySchema":{"fields":[{"fieldName":"user_id","type":{"bytesType":{"encoding":{"raw":{}}}}},{"fieldName":"day","type":{"stringType":{"encoding":{"utf8Bytes":{}}}}},{"fieldName":"n","type":{"int64Type":{"encoding":{"orderedCodeBytes":{}}}}}],"encoding":{"delimitedBytes":{"delimiter":"Iw=="}}}}"##,
        config,
    );
    for bad in [
        r#"{"rowKeySchema":{"fields":[{"fieldName":"a","type":{"stringType":{}}}],"encoding":{"singleton":{}}}}"#,
        r#"{"rowKeySchema":{"fields":[{"fieldName":"a","type":{"bytesType":{"encoding":{"raw":{}}}}}],"encoding":{"singleton":{},"orderedCodeBytes":{}}}}"#,
        r#"{"rowKeySchema":{"fields":[{"fieldName":"a","type":{"boolType":{}}}],"encoding":{"singleton":{}}}}"#,
        r#"{"rowKeySchema":{"fields":[{"fieldName":"a","type":{"bytesType":{"encoding":{"raw":{}}}}}]}}"#,
    ] {
        rejected::<TableConfig>(bad);
    }
    // TIMESTAMP over an INT64 encoding (`unixMicrosInt64`), both encodings.
    let mut config = TableConfig::with_families(["cf"]);
    config.row_key_schema = Some(RowKeySchema {
        fields: vec![
            KeyField {
                name: "at".into(),
                field_type: KeyFieldType::Timestamp(Int64Encoding::BigEndianBytes),
            },
            KeyField {
                name: "seen".into(),
                field_type: KeyFieldType::Timestamp(Int64Encoding::OrderedCodeBytes),
            },
        ],
        encoding: StructEncoding::OrderedCodeBytes,
    });
    canonical(
        r#"{"columnFamilies":{"cf":{}},"granularity":"MILLIS","rowKeySchema":{"fields":[{"fieldName":"at","type":{"timestampType":{"encoding":{"unixMicrosInt64":{"bigEndianBytes":{}}}}}},{"fieldName":"seen","type":{"timestampType":{"encoding":{"unixMicrosInt64":{"orderedCodeBytes":{}}}}}}],"encoding":{"orderedCodeBytes":{}}}}"#,
        config,
    );
    for bad in [
        r#"{"rowKeySchema":{"fields":[{"fieldName":"a","type":{"timestampType":{}}}],"encoding":{"singleton":{}}}}"#,
        r#"{"rowKeySchema":{"fields":[{"fieldName":"a","type":{"timestampType":{"encoding":{"unixMicrosInt64":{}}}}}],"encoding":{"singleton":{}}}}"#,
    ] {
        rejected::<TableConfig>(bad);
    }
}

#[test]
fn a_rule_checked_while_parsing_keeps_the_cores_words_last() {
    // The position is context before the words, not a suffix after them, so the words read
    // exactly as the core's everywhere (tests/vectors/README.md, "Messages").
    let mut filter = String::from(r#"{"passAllFilter": true}"#);
    for _ in 0..crate::limits::MAX_FILTER_DEPTH {
        filter = alloc::format!(r#"{{"chain": {{"filters": [{filter}]}}}}"#);
    }
    let message = rejected::<ReadRowsRequest>(&alloc::format!(r#"{{"filter": {filter}}}"#));
    let words = crate::limits::FILTER_TREE.too_deep_message();
    assert!(message.starts_with("json: line 1 column "), "{message}");
    assert!(message.ends_with(&alloc::format!(": {words}")), "{message}");
    // A syntax error keeps serde_json's own form.
    assert!(rejected::<RowFilter>("{").contains("at line 1"));
}
