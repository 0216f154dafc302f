//! The server's request decoding over arbitrary bytes: a Data or Table Admin request message
//! decoded by prost (ReadRows and CheckAndMutateRow as the server's own `wire` types), converted by the server's own conversions (`convert`, `filter`, `names`)
//! and applied to an in-memory engine, as a request off the wire would be.
//!
//! Never panics. Every refusal is a client error (INVALID_ARGUMENT, NOT_FOUND, ...), never
//! INTERNAL, and a refused write leaves the table exactly as it was (nothing half-applied).
//!
//! The first byte picks the message: 0 ReadRows, 1 MutateRow, 2 MutateRows, 3 CheckAndMutateRow,
//! 4 ReadModifyWriteRow, 5 CreateTable, 6 ModifyColumnFamilies, 7 PrepareQuery (prepared and
//! executed); the rest is its protobuf encoding.
#![no_main]

use libfuzzer_sys::fuzz_target;
use prost::Message;
use sparsetable::{Code, Database, ReadRowsRequest, Result, Row, TableConfig};
use sparsetable_server::convert::{
    modifications_from_proto, mutation_from_proto, row_set_from_proto, rules_from_proto,
    table_config_from_proto,
};
use sparsetable_server::filter::filter_from_proto;
use sparsetable_server::names::TableName;
use sparsetable_server::sql;
use sparsetable_server::stubs::{admin_v2, v2};
use sparsetable_server::wire;

const TABLE: &str = "t";

/// A small table the requests act on: two families (one keeping one version) and a few rows.
/// The schema is given as proto3 JSON so the target does not depend on how the core stores it.
fn database() -> Database {
    let mut db = Database::new();
    let config: TableConfig = sparsetable::json::from_str(
        r#"{"columnFamilies": {"cf": {"gcRule": {"maxNumVersions": 1}}, "cg": {}}}"#,
    )
    .expect("the fixed schema is valid");
    db.create_table(TABLE, config)
        .expect("the fixed table is valid");
    for key in [&b"a"[..], b"b", b"counter"] {
        let set = sparsetable::Mutation::SetCell {
            family: "cf".into(),
            qualifier: b"q".to_vec(),
            timestamp_micros: 1000,
            value: 7u64.to_be_bytes().to_vec(),
        };
        db.mutate_row(TABLE, key, &[set])
            .expect("the fixed rows are valid");
    }
    db
}

/// Every row of the table, the state a refused write must leave untouched.
fn contents(db: &Database) -> Vec<Row> {
    db.read_rows(TABLE, &ReadRowsRequest::default())
        .expect("the fixed table exists")
        .collect()
}

/// A refusal must be the client's fault, not the server's.
fn check_refusal<T>(outcome: Result<T>) -> Option<T> {
    match outcome {
        Ok(value) => Some(value),
        Err(e) => {
            assert!(
                !matches!(e.code(), Code::Internal | Code::DataLoss),
                "a bad request answered {:?}: {e}",
                e.code()
            );
            None
        }
    }
}

/// Applies a write; if it is refused, the table must be unchanged.
fn write(db: &mut Database, apply: impl FnOnce(&mut Database) -> Result<()>) {
    let before = contents(db);
    if check_refusal(apply(db)).is_none() {
        assert_eq!(contents(db), before, "a refused write changed the table");
    }
}

fn mutations(list: &[v2::Mutation]) -> Result<Vec<sparsetable::Mutation>> {
    list.iter()
        .enumerate()
        .map(|(i, m)| mutation_from_proto(i, m))
        .collect()
}

fn name(name: &str) {
    check_refusal(TableName::parse("table_name", name));
}

fuzz_target!(|data: &[u8]| {
    let Some((&kind, bytes)) = data.split_first() else {
        return;
    };
    let mut db = database();
    match kind % 8 {
        0 => {
            let Ok(req) = wire::ReadRowsRequest::decode(bytes) else {
                return;
            };
            name(&req.table_name);
            let Some(filter) = check_refusal(filter_from_proto("filter", req.filter.as_ref()))
            else {
                return;
            };
            let request = ReadRowsRequest {
                row_set: row_set_from_proto(req.rows.as_ref()),
                filter,
                rows_limit: req.rows_limit,
                reversed: req.reversed,
            };
            if let Some(stream) = check_refusal(db.read_rows(TABLE, &request)) {
                // Every row the engine yields must satisfy the request's limit.
                let rows = stream.count();
                if request.rows_limit > 0 {
                    assert!(
                        rows as i64 <= request.rows_limit,
                        "{rows} rows past the limit"
                    );
                }
            }
        }
        1 => {
            let Ok(req) = v2::MutateRowRequest::decode(bytes) else {
                return;
            };
            name(&req.table_name);
            let Some(list) = check_refusal(mutations(&req.mutations)) else {
                return;
            };
            write(&mut db, |db| db.mutate_row(TABLE, &req.row_key, &list));
        }
        2 => {
            let Ok(req) = v2::MutateRowsRequest::decode(bytes) else {
                return;
            };
            name(&req.table_name);
            for entry in &req.entries {
                let Some(list) = check_refusal(mutations(&entry.mutations)) else {
                    continue;
                };
                write(&mut db, |db| db.mutate_row(TABLE, &entry.row_key, &list));
            }
        }
        3 => {
            let Ok(req) = wire::CheckAndMutateRowRequest::decode(bytes) else {
                return;
            };
            name(&req.table_name);
            let predicate = match req.predicate_filter.as_ref() {
                Some(f) => match check_refusal(filter_from_proto("predicate_filter", Some(f))) {
                    Some(filter) => Some(filter),
                    None => return,
                },
                None => None,
            };
            let Some(on_true) = check_refusal(mutations(&req.true_mutations)) else {
                return;
            };
            let Some(on_false) = check_refusal(mutations(&req.false_mutations)) else {
                return;
            };
            write(&mut db, |db| {
                db.check_and_mutate_row(
                    TABLE,
                    &req.row_key,
                    predicate.as_ref(),
                    &on_true,
                    &on_false,
                )
                .map(drop)
            });
        }
        4 => {
            let Ok(req) = v2::ReadModifyWriteRowRequest::decode(bytes) else {
                return;
            };
            name(&req.table_name);
            let Some(rules) = check_refusal(rules_from_proto(&req.rules)) else {
                return;
            };
            write(&mut db, |db| {
                db.read_modify_write_row(TABLE, &req.row_key, &rules)
                    .map(drop)
            });
        }
        5 => {
            let Ok(req) = admin_v2::CreateTableRequest::decode(bytes) else {
                return;
            };
            let Some(config) = check_refusal(table_config_from_proto(
                req.table.as_ref(),
                &req.initial_splits,
                &[],
            )) else {
                return;
            };
            if check_refusal(db.create_table(&req.table_id, config)).is_some() {
                db.get_table(&req.table_id).expect("a created table exists");
            }
        }
        7 => {
            // PrepareQuery, then ExecuteQuery's part over the same text: the SQL subset's
            // parser and executor over arbitrary query text and parameter types.
            let Ok(req) = v2::PrepareQueryRequest::decode(bytes) else {
                return;
            };
            let Some(types) = check_refusal(
                req.param_types
                    .iter()
                    .map(|(n, t)| Ok((n.clone(), sql::type_from_proto(n, t)?)))
                    .collect::<Result<std::collections::BTreeMap<_, _>>>(),
            ) else {
                return;
            };
            if let Some(query) =
                check_refusal(sparsetable::api::sql::prepare(&db, &req.query, types))
            {
                let _ = check_refusal(sparsetable::api::sql::execute(
                    &db,
                    &query,
                    &std::collections::BTreeMap::new(),
                ));
            }
        }
        _ => {
            let Ok(req) = admin_v2::ModifyColumnFamiliesRequest::decode(bytes) else {
                return;
            };
            name(&req.name);
            let Some(list) = check_refusal(modifications_from_proto(&req.modifications)) else {
                return;
            };
            let before = db.get_table(TABLE).expect("the fixed table exists");
            if check_refusal(db.modify_column_families(TABLE, &list)).is_none() {
                let after = db.get_table(TABLE).expect("the fixed table exists");
                assert_eq!(
                    format!("{after:?}"),
                    format!("{before:?}"),
                    "a refused change applied"
                );
            }
        }
    }
});
