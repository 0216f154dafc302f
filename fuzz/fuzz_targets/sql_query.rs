//! GoogleSQL text from anywhere (PrepareQuery's `query` comes off the network): preparing
//! and executing any text against a small table never panics. Every failure is a typed error:
//! INVALID_ARGUMENT or NOT_FOUND while preparing; INVALID_ARGUMENT, OUT_OF_RANGE or
//! RESOURCE_EXHAUSTED while running.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use sparsetable::api::sql::{self, SqlType, SqlValue};
use sparsetable::{Code, Database, Mutation, TableConfig};

fn database() -> Database {
    let mut db = Database::new();
    db.create_table("t", TableConfig::with_families(["cf", "emb"])).unwrap();
    for (key, name) in [("a", "alice"), ("b", "bob"), ("c", "")] {
        db.mutate_row(
            "t",
            key.as_bytes(),
            &[
                Mutation::set_cell("cf", b"name".to_vec(), 1000, name.as_bytes().to_vec()),
                Mutation::set_cell("cf", b"n".to_vec(), 2000, 7i64.to_be_bytes().to_vec()),
                Mutation::set_cell("emb", b"v".to_vec(), 1000, [0x3f, 0x80, 0, 0].to_vec()),
            ],
        )
        .unwrap();
    }
    db
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let db = database();
    let types = BTreeMap::from([
        ("p".to_string(), SqlType::Bytes),
        ("n".to_string(), SqlType::Int64),
    ]);
    let params = BTreeMap::from([
        ("p".to_string(), SqlValue::Bytes(b"b".to_vec())),
        ("n".to_string(), SqlValue::Int64(2)),
    ]);
    match sql::prepare(&db, text, types) {
        Ok(query) => {
            if let Err(e) = sql::execute(&db, &query, &params) {
                assert!(
                    matches!(
                        e.code(),
                        Code::InvalidArgument | Code::OutOfRange | Code::ResourceExhausted
                    ),
                    "{text:?}: {e:?}"
                );
            }
        }
        Err(e) => assert!(
            matches!(e.code(), Code::InvalidArgument | Code::NotFound),
            "{text:?}: {e:?}"
        ),
    }
});
