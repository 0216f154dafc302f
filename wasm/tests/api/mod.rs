//! The cases shared by the Node and browser test targets: the `Database` class driven the way
//! JavaScript drives it, through its one (proto3 JSON) API, with requests as JSON text and
//! plain objects, keys as base64 or `Uint8Array`s.
//!
//! Each case checks what the engine returned through the JS conversion, so a wrong value, a
//! wrong error code or a lost byte fails it.

use js_sys::{Reflect, Uint8Array, JSON};
use sparsetable::json::encode_base64 as b64;
use sparsetable_wasm::Database;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

const START: i64 = 1_700_000_000_000_000;

/// A JS value from JSON text.
fn js<T: JsCast>(json: &str) -> T {
    JSON::parse(json)
        .expect("test JSON parses")
        .unchecked_into()
}

/// A request given as JSON text (the methods take text as well as objects).
fn text(json: &str) -> JsValue {
    JsValue::from_str(json)
}

fn manual_db() -> Database {
    Database::new(Some(js(&format!(r#"{{"clockMicros": {START}}}"#)))).expect("database")
}

fn db_with_table(families: &str) -> Database {
    let db = manual_db();
    db.create_table_json(
        "t".into(),
        text(&format!(r#"{{"columnFamilies": {families}}}"#)),
    )
    .expect("create table");
    db
}

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &key.into()).expect("property")
}

fn key(k: &str) -> JsValue {
    JsValue::from_str(&b64(k.as_bytes()))
}

fn set_cell(family: &str, qualifier: &str, ts: i64, value: &str) -> String {
    format!(
        r#"{{"setCell": {{"familyName": "{family}", "columnQualifier": "{}", "timestampMicros": "{ts}", "value": "{}"}}}}"#,
        b64(qualifier.as_bytes()),
        b64(value.as_bytes())
    )
}

fn mutate(db: &Database, row: &str, mutations: &[String]) -> Result<(), JsValue> {
    db.mutate_row_json(
        "t".into(),
        text(&format!(
            r#"{{"rowKey": "{}", "mutations": [{}]}}"#,
            b64(row.as_bytes()),
            mutations.join(",")
        )),
    )
}

fn decode(v: &JsValue) -> Vec<u8> {
    sparsetable::json::decode_base64(&v.as_string().unwrap_or_default()).expect("base64")
}

/// `(family, qualifier, timestamp, value)` of every cell of a proto3 JSON row, in order.
fn cells(row: &JsValue) -> Vec<(String, Vec<u8>, String, Vec<u8>)> {
    let mut out = Vec::new();
    let families: js_sys::Array = get(row, "families").unchecked_into();
    for f in families.iter() {
        let name = get(&f, "name").as_string().expect("family name");
        let columns: js_sys::Array = get(&f, "columns").unchecked_into();
        for c in columns.iter() {
            let cells: js_sys::Array = get(&c, "cells").unchecked_into();
            for cell in cells.iter() {
                out.push((
                    name.clone(),
                    decode(&get(&c, "qualifier")),
                    get(&cell, "timestampMicros")
                        .as_string()
                        .unwrap_or_default(),
                    decode(&get(&cell, "value")),
                ));
            }
        }
    }
    out
}

/// The keys of the rows a read request selects.
fn keys(db: &Database, request: &str) -> Vec<String> {
    let it = db
        .read_rows_json("t".into(), Some(text(request)))
        .expect("read");
    let rows: js_sys::Array = js_sys::Array::from(&it);
    rows.iter()
        .map(|r| String::from_utf8(decode(&get(&r, "key"))).unwrap())
        .collect()
}

/// The `code` of the error a call threw, after checking its shape.
fn code_of<T>(result: Result<T, JsValue>) -> String {
    let Err(err) = result else {
        panic!("the call must throw");
    };
    assert!(
        err.is_instance_of::<js_sys::Error>(),
        "thrown value is an Error: {err:?}"
    );
    let name = get(&err, "name").as_string();
    assert_eq!(name.as_deref(), Some("SparsetableError"));
    let code = get(&err, "code")
        .as_string()
        .expect("error has a string code");
    // `message` is `CODE: details`, and `details` the core's message alone.
    let details = get(&err, "details").as_string().expect("details");
    assert_eq!(
        get(&err, "message").as_string(),
        Some(format!("{code}: {details}"))
    );
    code
}

#[wasm_bindgen_test]
fn set_cell_reads_back_with_uint8array_bytes() {
    let db = db_with_table(r#"{"cf": {}}"#);
    let request: JsValue = js(&format!(
        r#"{{"rowKey": "{}", "mutations": [{{"setCell": {{"familyName": "cf", "columnQualifier": "cQ==", "timestampMicros": 2000}}}}]}}"#,
        b64(b"r1")
    ));
    let set = get(&get(&get(&request, "mutations"), "0"), "setCell");
    Reflect::set(
        &set,
        &"value".into(),
        &Uint8Array::from(&[0u8, 0xff, 7][..]),
    )
    .unwrap();
    db.mutate_row_json("t".into(), request).expect("mutate");
    let row = db
        .read_row_json("t".into(), Uint8Array::from(&b"r1"[..]).into(), None)
        .expect("read");
    assert_eq!(decode(&get(&row, "key")), b"r1");
    assert_eq!(
        cells(&row),
        vec![(
            "cf".to_string(),
            b"q".to_vec(),
            "2000".into(),
            vec![0, 0xff, 7]
        )]
    );
}

#[wasm_bindgen_test]
fn base64_and_uint8array_keys_name_the_same_row() {
    let db = db_with_table(r#"{"cf": {}}"#);
    mutate(&db, "ключ", &[set_cell("cf", "q", 1000, "v")]).unwrap();
    let row = db
        .read_row_json("t".into(), Uint8Array::from("ключ".as_bytes()).into(), None)
        .unwrap();
    assert_eq!(decode(&get(&row, "key")), "ключ".as_bytes());
    let row = db.read_row_json("t".into(), key("ключ"), None).unwrap();
    assert_eq!(decode(&get(&row, "key")), "ключ".as_bytes());
}

#[wasm_bindgen_test]
fn missing_row_reads_as_null() {
    let db = db_with_table(r#"{"cf": {}}"#);
    let row = db.read_row_json("t".into(), key("absent"), None).unwrap();
    assert!(row.is_null(), "got {row:?}");
}

#[wasm_bindgen_test]
fn server_time_comes_from_the_manual_clock() {
    let db = db_with_table(r#"{"cf": {}}"#);
    db.set_clock_micros(JsValue::from_f64(1_800_000_000_123_456.0))
        .unwrap();
    db.advance_clock_micros(JsValue::from_f64(1_000_000.0))
        .unwrap();
    assert_eq!(db.now_micros(), 1_800_000_001_123_456.0);
    mutate(&db, "r", &[set_cell("cf", "q", -1, "v")]).unwrap();
    let row = db.read_row_json("t".into(), key("r"), None).unwrap();
    // MILLIS granularity: server time is truncated to the millisecond.
    assert_eq!(cells(&row)[0].2, "1800000001123000");
}

#[wasm_bindgen_test]
fn date_clock_database_cannot_be_set_by_hand() {
    let db = Database::new(None).unwrap();
    let now = db.now_micros();
    assert!(
        now > 1.6e15 && now % 1000.0 == 0.0,
        "Date.now() in micros, got {now}"
    );
    assert_eq!(
        code_of(db.set_clock_micros(JsValue::from_f64(1.0))),
        "FAILED_PRECONDITION"
    );
}

#[wasm_bindgen_test]
fn a_clock_is_never_negative_and_options_are_plain_objects() {
    for options in [
        r#"{"clockMicros": -1}"#,
        "[]",
        "[1]",
        r#"{"clockMicro": 1}"#,
    ] {
        assert_eq!(
            code_of(Database::new(Some(js(options)))),
            "INVALID_ARGUMENT",
            "{options}"
        );
    }
    let db = manual_db();
    assert_eq!(
        code_of(db.set_clock_micros(JsValue::from_f64(-5.0))),
        "INVALID_ARGUMENT"
    );
    assert_eq!(
        code_of(db.advance_clock_micros(JsValue::from_f64(-(START as f64) - 1.0))),
        "INVALID_ARGUMENT"
    );
    assert_eq!(db.now_micros(), START as f64);
}

#[wasm_bindgen_test]
fn errors_carry_the_grpc_code() {
    let db = db_with_table(r#"{"cf": {}}"#);
    assert_eq!(
        code_of(db.read_row_json("nope".into(), key("r"), None)),
        "NOT_FOUND"
    );
    assert_eq!(
        code_of(db.create_table_json("t".into(), text(r#"{"columnFamilies": {}}"#))),
        "ALREADY_EXISTS"
    );
    assert_eq!(
        code_of(db.create_table_json("bad id".into(), text(r#"{"columnFamilies": {}}"#))),
        "INVALID_ARGUMENT"
    );
    assert_eq!(
        code_of(mutate(&db, "r", &[set_cell("nofam", "q", 1000, "v")])),
        "NOT_FOUND"
    );
    assert_eq!(
        code_of(db.read_row_json("t".into(), JsValue::from_str(""), None)),
        "INVALID_ARGUMENT"
    );
}

#[wasm_bindgen_test]
fn input_of_the_wrong_shape_is_invalid_argument() {
    let db = db_with_table(r#"{"cf": {}}"#);
    let bad = |m: &str| code_of(mutate(&db, "r", &[m.to_string()]));
    // A number where bytes belong.
    assert_eq!(
        bad(
            r#"{"setCell": {"familyName": "cf", "columnQualifier": 5, "timestampMicros": "1000", "value": "dg=="}}"#
        ),
        "INVALID_ARGUMENT"
    );
    // An unknown mutation kind; a message written as an array.
    assert_eq!(bad(r#"{"setCel": {}}"#), "INVALID_ARGUMENT");
    assert_eq!(bad(r#"{"setCell": []}"#), "INVALID_ARGUMENT");
    // A request that is an array, not a message.
    assert_eq!(
        code_of(db.mutate_row_json("t".into(), text("[]"))),
        "INVALID_ARGUMENT"
    );
    // Both kinds of start key on one range.
    assert_eq!(
        code_of(db.read_rows_json(
            "t".into(),
            Some(text(
                r#"{"rows": {"rowRanges": [{"startKeyClosed": "YQ==", "startKeyOpen": "Yg=="}]}}"#
            ))
        )),
        "INVALID_ARGUMENT"
    );
    // Nothing was written by any of the rejected calls.
    assert!(keys(&db, "{}").is_empty());
}

#[wasm_bindgen_test]
fn a_rejected_mutation_list_applies_nothing() {
    let db = db_with_table(r#"{"cf": {}}"#);
    assert_eq!(
        code_of(mutate(
            &db,
            "r",
            &[
                set_cell("cf", "q", 1000, "v"),
                set_cell("cf", "q", 1001, "v")
            ]
        )),
        "INVALID_ARGUMENT"
    );
    assert!(db
        .read_row_json("t".into(), key("r"), None)
        .unwrap()
        .is_null());
}

#[wasm_bindgen_test]
fn read_rows_honours_keys_ranges_limit_and_direction() {
    let db = db_with_table(r#"{"cf": {}}"#);
    for k in ["a", "b", "c", "d", "e"] {
        mutate(&db, k, &[set_cell("cf", "q", 1000, k)]).unwrap();
    }
    let (a, b, c, d) = (b64(b"a"), b64(b"b"), b64(b"c"), b64(b"d"));
    assert_eq!(
        keys(
            &db,
            &format!(
                r#"{{"rows": {{"rowKeys": ["{a}", "{d}"], "rowRanges": [{{"startKeyOpen": "{b}", "endKeyClosed": "{c}"}}]}}}}"#
            )
        ),
        ["a", "c", "d"]
    );
    assert_eq!(keys(&db, r#"{"rowsLimit": "2"}"#), ["a", "b"]);
    assert_eq!(
        keys(&db, r#"{"reversed": true, "rowsLimit": 2}"#),
        ["e", "d"]
    );
    assert_eq!(
        keys(
            &db,
            &format!(r#"{{"rows": {{"rowRanges": [{{"startKeyClosed": "{d}"}}]}}}}"#)
        ),
        ["d", "e"]
    );
    assert_eq!(
        code_of(db.read_rows_json("t".into(), Some(text(r#"{"rowsLimit": -1}"#)))),
        "INVALID_ARGUMENT"
    );
}

#[wasm_bindgen_test]
fn deletes_remove_cells() {
    let db = db_with_table(r#"{"a": {}, "b": {}}"#);
    mutate(
        &db,
        "r",
        &[
            set_cell("a", "x", 1000, "1"),
            set_cell("a", "x", 2000, "2"),
            set_cell("a", "y", 1000, "3"),
            set_cell("b", "z", 1000, "4"),
        ],
    )
    .unwrap();
    mutate(
        &db,
        "r",
        &[
            format!(
                r#"{{"deleteFromColumn": {{"familyName": "a", "columnQualifier": "{}", "timeRange": {{"startTimestampMicros": "2000"}}}}}}"#,
                b64(b"x")
            ),
            r#"{"deleteFromFamily": {"familyName": "b"}}"#.into(),
        ],
    )
    .unwrap();
    let row = db.read_row_json("t".into(), key("r"), None).unwrap();
    let got: Vec<_> = cells(&row).into_iter().map(|c| (c.0, c.1, c.2)).collect();
    assert_eq!(
        got,
        vec![
            ("a".into(), b"x".to_vec(), "1000".into()),
            ("a".into(), b"y".to_vec(), "1000".into())
        ]
    );
    mutate(&db, "r", &[r#"{"deleteFromRow": {}}"#.into()]).unwrap();
    assert!(db
        .read_row_json("t".into(), key("r"), None)
        .unwrap()
        .is_null());
}

#[wasm_bindgen_test]
fn gc_rule_hides_versions_beyond_the_limit() {
    let db = db_with_table(r#"{"cf": {"gcRule": {"maxNumVersions": 1}}}"#);
    mutate(
        &db,
        "r",
        &[
            set_cell("cf", "q", 1000, "old"),
            set_cell("cf", "q", 2000, "new"),
        ],
    )
    .unwrap();
    let row = db.read_row_json("t".into(), key("r"), None).unwrap();
    assert_eq!(
        cells(&row),
        vec![("cf".into(), b"q".to_vec(), "2000".into(), b"new".to_vec())]
    );
}

#[wasm_bindgen_test]
fn table_admin_round_trips_the_schema() {
    let db = manual_db();
    let info = db
        .create_table_json(
            "p".into(),
            text(&format!(
                r#"{{"columnFamilies": {{"cf": {{"gcRule": {{"union": {{"rules": [{{"maxAge": "5s"}}, {{"maxNumVersions": 2}}]}}}}}}}}, "granularity": "MICROS", "deletionProtection": true, "initialSplits": [{{"key": "{}"}}]}}"#,
                b64(b"m")
            )),
        )
        .unwrap();
    assert_eq!(
        JSON::stringify(&info).unwrap().as_string().unwrap(),
        r#"{"name":"p","columnFamilies":{"cf":{"gcRule":{"union":{"rules":[{"maxAge":"5s"},{"maxNumVersions":2}]}}}},"granularity":"MICROS","deletionProtection":true,"initialSplits":[{"key":"bQ=="}]}"#
    );
    assert_eq!(code_of(db.delete_table("p".into())), "FAILED_PRECONDITION");

    db.create_table_json("t".into(), text(r#"{"columnFamilies": {"cf": {}}}"#))
        .unwrap();
    let info = db
        .modify_column_families_json(
            "t".into(),
            text(r#"[{"id": "new", "create": {}}, {"id": "cf", "update": {"gcRule": {"maxNumVersions": 1}}}]"#),
        )
        .unwrap();
    assert_eq!(
        JSON::stringify(&get(&info, "columnFamilies"))
            .unwrap()
            .as_string()
            .unwrap(),
        r#"{"cf":{"gcRule":{"maxNumVersions":1}},"new":{}}"#
    );
    assert_eq!(
        code_of(
            db.modify_column_families_json("t".into(), text(r#"[{"id": "absent", "drop": true}]"#))
        ),
        "NOT_FOUND"
    );
    assert_eq!(
        code_of(db.modify_column_families_json("t".into(), text(r#"[{"id": "cf"}]"#))),
        "INVALID_ARGUMENT"
    );
    db.modify_column_families_json("t".into(), text(r#"[{"id": "new", "drop": true}]"#))
        .unwrap();
    let tables: js_sys::Array = db.list_tables_json().unwrap().unchecked_into();
    let names: Vec<_> = tables
        .iter()
        .map(|t| get(&t, "name").as_string().unwrap())
        .collect();
    assert_eq!(names, ["p", "t"]);
    db.delete_table("t".into()).unwrap();
    assert_eq!(code_of(db.get_table_json("t".into())), "NOT_FOUND");
    assert_eq!(code_of(db.delete_table("absent".into())), "NOT_FOUND");
}
