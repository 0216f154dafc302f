//! The cases shared by the Node and browser test targets: the `Database` class driven the way
//! JavaScript drives it, with plain objects built from JSON and `Uint8Array`s.
//!
//! Each case checks what the engine returned through the JS conversion, so a wrong value, a
//! wrong error code or a lost byte fails it.

use js_sys::{Reflect, Uint8Array, JSON};
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

fn manual_db() -> Database {
    Database::new(Some(js(&format!(r#"{{"clockMicros": {START}}}"#)))).expect("database")
}

fn db_with_table(families: &str) -> Database {
    let db = manual_db();
    db.create_table("t".into(), js(&format!(r#"{{"families": {families}}}"#)))
        .expect("create table");
    db
}

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &key.into()).expect("property")
}

fn bytes(value: &JsValue) -> Vec<u8> {
    value
        .dyn_ref::<Uint8Array>()
        .unwrap_or_else(|| panic!("expected a Uint8Array, got {value:?}"))
        .to_vec()
}

fn string_bytes(s: &str) -> JsValue {
    JsValue::from_str(s)
}

fn set_cell(family: &str, qualifier: &str, ts: i64, value: &str) -> String {
    format!(
        r#"{{"setCell": {{"family": "{family}", "qualifier": "{qualifier}", "timestampMicros": {ts}, "value": "{value}"}}}}"#
    )
}

/// `(family, qualifier, timestamp, value)` of every cell of a JS row, in order.
fn cells(row: &JsValue) -> Vec<(String, Vec<u8>, f64, Vec<u8>)> {
    let cells: js_sys::Array = get(row, "cells").unchecked_into();
    cells
        .iter()
        .map(|c| {
            (
                get(&c, "family").as_string().expect("family is a string"),
                bytes(&get(&c, "qualifier")),
                get(&c, "timestampMicros")
                    .as_f64()
                    .expect("timestamp is a number"),
                bytes(&get(&c, "value")),
            )
        })
        .collect()
}

/// The `code` of the error a call threw.
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
    get(&err, "code")
        .as_string()
        .expect("error has a string code")
}

#[wasm_bindgen_test]
fn set_cell_reads_back_with_uint8array_bytes() {
    let db = db_with_table(r#"{"cf": {}}"#);
    let value = Uint8Array::from(&[0u8, 0xff, 7][..]);
    let mutation: JsValue =
        js(r#"[{"setCell": {"family": "cf", "qualifier": "q", "timestampMicros": 2000}}]"#);
    Reflect::set(
        &get(&get(&mutation, "0"), "setCell"),
        &"value".into(),
        &value,
    )
    .unwrap();
    db.mutate_row(
        "t".into(),
        string_bytes("r1").unchecked_into(),
        mutation.unchecked_into(),
    )
    .expect("mutate");
    let row: JsValue = db
        .read_row("t".into(), string_bytes("r1").unchecked_into())
        .expect("read")
        .into();
    assert_eq!(bytes(&get(&row, "key")), b"r1");
    assert_eq!(
        cells(&row),
        vec![("cf".to_string(), b"q".to_vec(), 2000.0, vec![0, 0xff, 7])]
    );
}

#[wasm_bindgen_test]
fn string_and_uint8array_keys_name_the_same_row() {
    let db = db_with_table(r#"{"cf": {}}"#);
    let key = Uint8Array::from("ключ".as_bytes());
    db.mutate_row(
        "t".into(),
        key.unchecked_into(),
        js(&format!("[{}]", set_cell("cf", "q", 1000, "v"))),
    )
    .unwrap();
    let row: JsValue = db
        .read_row("t".into(), string_bytes("ключ").unchecked_into())
        .unwrap()
        .into();
    assert_eq!(bytes(&get(&row, "key")), "ключ".as_bytes());
}

#[wasm_bindgen_test]
fn missing_row_reads_as_null() {
    let db = db_with_table(r#"{"cf": {}}"#);
    let row: JsValue = db
        .read_row("t".into(), string_bytes("absent").unchecked_into())
        .unwrap()
        .into();
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
    db.mutate_row(
        "t".into(),
        string_bytes("r").unchecked_into(),
        js(&format!("[{}]", set_cell("cf", "q", -1, "v"))),
    )
    .unwrap();
    let row: JsValue = db
        .read_row("t".into(), string_bytes("r").unchecked_into())
        .unwrap()
        .into();
    // MILLIS granularity: server time is truncated to the millisecond.
    assert_eq!(cells(&row)[0].2, 1_800_000_001_123_000.0);
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
fn errors_carry_the_grpc_code() {
    let db = db_with_table(r#"{"cf": {}}"#);
    assert_eq!(
        code_of(db.read_row("nope".into(), string_bytes("r").unchecked_into())),
        "NOT_FOUND"
    );
    assert_eq!(
        code_of(db.create_table("t".into(), js(r#"{"families": {}}"#))),
        "ALREADY_EXISTS"
    );
    assert_eq!(
        code_of(db.create_table("bad id".into(), js(r#"{"families": {}}"#))),
        "INVALID_ARGUMENT"
    );
    assert_eq!(
        code_of(db.mutate_row(
            "t".into(),
            string_bytes("r").unchecked_into(),
            js(&format!("[{}]", set_cell("nofam", "q", 1000, "v")))
        )),
        "NOT_FOUND"
    );
    assert_eq!(
        code_of(db.read_row("t".into(), string_bytes("").unchecked_into())),
        "INVALID_ARGUMENT"
    );
}

#[wasm_bindgen_test]
fn input_of_the_wrong_shape_is_invalid_argument() {
    let db = db_with_table(r#"{"cf": {}}"#);
    let r = || string_bytes("r").unchecked_into();
    // A number where bytes belong.
    assert_eq!(
        code_of(db.mutate_row("t".into(), r(), js(r#"[{"setCell": {"family": "cf", "qualifier": 5, "timestampMicros": 1000, "value": "v"}}]"#))),
        "INVALID_ARGUMENT"
    );
    // An unknown mutation kind.
    assert_eq!(
        code_of(db.mutate_row("t".into(), r(), js(r#"[{"setCel": {}}]"#))),
        "INVALID_ARGUMENT"
    );
    // A timestamp a JS number cannot hold exactly, and a fractional one.
    for ts in ["9007199254740993000", "1500.5"] {
        assert_eq!(
            code_of(db.mutate_row("t".into(), r(), js(&format!(r#"[{{"setCell": {{"family": "cf", "qualifier": "q", "timestampMicros": {ts}, "value": "v"}}}}]"#)))),
            "INVALID_ARGUMENT",
            "timestamp {ts}"
        );
    }
    // Both kinds of start key on one range.
    assert_eq!(
        code_of(db.read_rows(
            "t".into(),
            Some(js(
                r#"{"rowRanges": [{"startKeyClosed": "a", "startKeyOpen": "b"}]}"#
            ))
        )),
        "INVALID_ARGUMENT"
    );
    // Nothing was written by any of the rejected calls.
    let rows: js_sys::Array = db.read_rows("t".into(), None).unwrap().unchecked_into();
    assert_eq!(rows.length(), 0);
}

#[wasm_bindgen_test]
fn a_rejected_mutation_list_applies_nothing() {
    let db = db_with_table(r#"{"cf": {}}"#);
    let muts = format!(
        "[{}, {}]",
        set_cell("cf", "q", 1000, "v"),
        set_cell("cf", "q", 1001, "v")
    );
    assert_eq!(
        code_of(db.mutate_row("t".into(), string_bytes("r").unchecked_into(), js(&muts))),
        "INVALID_ARGUMENT"
    );
    let row: JsValue = db
        .read_row("t".into(), string_bytes("r").unchecked_into())
        .unwrap()
        .into();
    assert!(row.is_null());
}

#[wasm_bindgen_test]
fn read_rows_honours_keys_ranges_limit_and_direction() {
    let db = db_with_table(r#"{"cf": {}}"#);
    for k in ["a", "b", "c", "d", "e"] {
        db.mutate_row(
            "t".into(),
            string_bytes(k).unchecked_into(),
            js(&format!("[{}]", set_cell("cf", "q", 1000, k))),
        )
        .unwrap();
    }
    let keys = |request: &str| -> Vec<String> {
        let rows: js_sys::Array = db
            .read_rows("t".into(), Some(js(request)))
            .unwrap()
            .unchecked_into();
        rows.iter()
            .map(|r| String::from_utf8(bytes(&get(&r, "key"))).unwrap())
            .collect()
    };
    assert_eq!(
        keys(
            r#"{"rowKeys": ["a", "d"], "rowRanges": [{"startKeyOpen": "b", "endKeyClosed": "c"}]}"#
        ),
        ["a", "c", "d"]
    );
    assert_eq!(keys(r#"{"limit": 2}"#), ["a", "b"]);
    assert_eq!(keys(r#"{"reversed": true, "limit": 2}"#), ["e", "d"]);
    assert_eq!(
        keys(r#"{"rowRanges": [{"startKeyClosed": "d"}]}"#),
        ["d", "e"]
    );
    assert_eq!(
        code_of(db.read_rows("t".into(), Some(js(r#"{"limit": -1}"#)))),
        "INVALID_ARGUMENT"
    );
}

#[wasm_bindgen_test]
fn deletes_remove_cells() {
    let db = db_with_table(r#"{"a": {}, "b": {}}"#);
    let r = || string_bytes("r").unchecked_into();
    let muts = format!(
        "[{}, {}, {}, {}]",
        set_cell("a", "x", 1000, "1"),
        set_cell("a", "x", 2000, "2"),
        set_cell("a", "y", 1000, "3"),
        set_cell("b", "z", 1000, "4")
    );
    db.mutate_row("t".into(), r(), js(&muts)).unwrap();
    db.mutate_row(
        "t".into(),
        r(),
        js(r#"[{"deleteFromColumn": {"family": "a", "qualifier": "x", "timeRange": {"startTimestampMicros": 2000}}}, {"deleteFromFamily": {"family": "b"}}]"#),
    )
    .unwrap();
    let row: JsValue = db.read_row("t".into(), r()).unwrap().into();
    let got: Vec<_> = cells(&row).into_iter().map(|c| (c.0, c.1, c.2)).collect();
    assert_eq!(
        got,
        vec![
            ("a".into(), b"x".to_vec(), 1000.0),
            ("a".into(), b"y".to_vec(), 1000.0)
        ]
    );
    db.mutate_row("t".into(), r(), js(r#"[{"deleteFromRow": {}}]"#))
        .unwrap();
    assert!(JsValue::from(db.read_row("t".into(), r()).unwrap()).is_null());
}

#[wasm_bindgen_test]
fn gc_rule_hides_versions_beyond_the_limit() {
    let db = db_with_table(r#"{"cf": {"gcRule": {"maxNumVersions": 1}}}"#);
    let muts = format!(
        "[{}, {}]",
        set_cell("cf", "q", 1000, "old"),
        set_cell("cf", "q", 2000, "new")
    );
    db.mutate_row("t".into(), string_bytes("r").unchecked_into(), js(&muts))
        .unwrap();
    let row: JsValue = db
        .read_row("t".into(), string_bytes("r").unchecked_into())
        .unwrap()
        .into();
    assert_eq!(
        cells(&row),
        vec![("cf".into(), b"q".to_vec(), 2000.0, b"new".to_vec())]
    );
}

#[wasm_bindgen_test]
fn table_admin_round_trips_the_schema() {
    let db = manual_db();
    let info: JsValue = db
        .create_table(
            "p".into(),
            js(r#"{"families": {"cf": {"gcRule": {"union": [{"maxAgeMicros": 5000}, {"maxNumVersions": 2}]}}}, "granularity": "MICROS", "deletionProtection": true, "initialSplits": ["m"]}"#),
        )
        .unwrap()
        .into();
    assert_eq!(
        JSON::stringify(&info).unwrap().as_string().unwrap(),
        r#"{"name":"p","families":{"cf":{"gcRule":{"union":[{"maxAgeMicros":5000},{"maxNumVersions":2}]}}},"granularity":"MICROS","deletionProtection":true,"initialSplits":[{"0":109}],"maxValueBytes":104857600}"#
    );
    assert_eq!(code_of(db.delete_table("p".into())), "FAILED_PRECONDITION");

    db.create_table("t".into(), js(r#"{"families": {"cf": {}}}"#))
        .unwrap();
    let info: JsValue = db
        .modify_column_families("t".into(), js(r#"[{"id": "new", "create": {}}, {"id": "cf", "update": {"gcRule": {"maxNumVersions": 1}}}]"#))
        .unwrap()
        .into();
    assert_eq!(
        JSON::stringify(&get(&info, "families"))
            .unwrap()
            .as_string()
            .unwrap(),
        r#"{"cf":{"gcRule":{"maxNumVersions":1}},"new":{}}"#
    );
    assert_eq!(
        code_of(db.modify_column_families("t".into(), js(r#"[{"id": "absent", "drop": true}]"#))),
        "NOT_FOUND"
    );
    assert_eq!(
        code_of(db.modify_column_families("t".into(), js(r#"[{"id": "cf"}]"#))),
        "INVALID_ARGUMENT"
    );
    db.modify_column_families("t".into(), js(r#"[{"id": "new", "drop": true}]"#))
        .unwrap();
    let tables: js_sys::Array = db.list_tables().unwrap().unchecked_into();
    let names: Vec<_> = tables
        .iter()
        .map(|t| get(&t, "name").as_string().unwrap())
        .collect();
    assert_eq!(names, ["p", "t"]);
    db.delete_table("t".into()).unwrap();
    assert_eq!(code_of(db.get_table("t".into())), "NOT_FOUND");
    assert_eq!(code_of(db.delete_table("absent".into())), "NOT_FOUND");
}
