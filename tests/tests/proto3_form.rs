//! Holds the proto3 JSON form of the vectors against their current form: converts every vector
//! file with tests/convert_vectors.py into a scratch folder, parses each converted mutation,
//! filter, table, family, row set, rule, entry, modification and row with the core's proto3
//! JSON model (`sparsetable::json`), and requires the same core value the mirror types in
//! tests/src give for the original. Everything else in a vector (names, descriptions, ops'
//! own fields, expectations) must come through unchanged.
//!
//! This proves both the converter and `sparsetable::json` on every vector, which the switch of
//! the vector files to proto3 JSON relies on.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;
use sparsetable::json::from_value;
use sparsetable::{
    Code, ColumnFamily, FamilyModification, Mutation, ReadModifyWriteRule, Row, RowFilter,
    RowMutations, RowSet, TableConfig,
};
use sparsetable_test_vectors::{load_all, vectors_dir, FilterSpec, MutationSpec, Op, RowSpec};

/// Converted parts seen, by kind, so the test fails if it compared nothing.
#[derive(Default)]
struct Seen(BTreeMap<&'static str, usize>);

impl Seen {
    fn add(&mut self, kind: &'static str) {
        *self.0.entry(kind).or_default() += 1;
    }
}

fn parse<T: serde::de::DeserializeOwned>(v: &Value, what: &str) -> T {
    from_value(v.clone()).unwrap_or_else(|e| panic!("{what}: {e}\n{v}"))
}

fn convert_all() -> PathBuf {
    let out = std::env::temp_dir().join(format!("sparsetable-proto3-{}", std::process::id()));
    std::fs::create_dir_all(&out).expect("scratch folder");
    let mut files: Vec<PathBuf> = std::fs::read_dir(vectors_dir())
        .expect("tests/vectors")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("convert_vectors.py");
    let status = Command::new("python3")
        .arg(script)
        .arg("--out")
        .arg(&out)
        .args(&files)
        .status()
        .expect("python3 runs tests/convert_vectors.py");
    assert!(status.success(), "convert_vectors.py failed");
    out
}

fn converted_vectors(dir: &PathBuf) -> Vec<Value> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("scratch folder")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    files
        .iter()
        .flat_map(|f| {
            let v: Value = serde_json::from_str(&std::fs::read_to_string(f).expect("read"))
                .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            v["vectors"].as_array().expect("vectors").clone()
        })
        .collect()
}

fn mutations(old: &[MutationSpec], new: &Value, seen: &mut Seen, what: &str) {
    let got: Vec<Mutation> = parse(new, what);
    let want: Vec<Mutation> = old.iter().map(MutationSpec::to_core).collect();
    assert_eq!(got, want, "{what}");
    for _ in &got {
        seen.add("mutation");
    }
}

/// A filter the mirror types refuse (a boolean filter set to false) must be refused by the
/// proto3 model with INVALID_ARGUMENT too; so must one nested beyond the engine's limit, which
/// the proto3 model refuses while converting. Any other must convert to the same filter.
fn filter(old: &Option<FilterSpec>, new: &Value, seen: &mut Seen, what: &str) {
    let Some(old) = old else {
        assert!(new.is_null(), "{what}: appeared");
        return;
    };
    seen.add("filter");
    match (old.to_core(), from_value::<RowFilter>(new.clone())) {
        (Ok(want), Ok(got)) => assert_eq!(got, want, "{what}"),
        (Err(_), Err(e)) => assert_eq!(e.code(), Code::InvalidArgument, "{what}"),
        // The engine's nesting limit applies while converting JSON, not only when compiling.
        (Ok(want), Err(e)) if want.compile().is_err_and(|c| c.code() == e.code()) => {
            assert!(e.message().contains("nesting deeper"), "{what}: {e}")
        }
        (want, got) => panic!("{what}: mirror {want:?}, proto3 {got:?}"),
    }
}

fn row(old: &RowSpec, new: &Value, seen: &mut Seen, what: &str) {
    seen.add("row");
    assert_eq!(parse::<Row>(new, what), old.to_core(), "{what}");
}

/// Every key of the op that is not a converted part keeps its value.
fn same_plain_fields(old: &Value, new: &Value, what: &str) {
    const CONVERTED: &[&str] = &[
        "mutations",
        "true_mutations",
        "false_mutations",
        "filter",
        "predicate_filter",
        "spec",
        "row_set",
        "expect_row",
        "expect_rows",
        "rules",
        "entries",
        "modifications",
        "expect_families",
    ];
    let (old, new) = (old.as_object().unwrap(), new.as_object().unwrap());
    assert_eq!(
        old.keys().collect::<Vec<_>>(),
        new.keys().collect::<Vec<_>>(),
        "{what}: keys"
    );
    for (k, v) in old {
        if !CONVERTED.contains(&k.as_str()) {
            assert_eq!(&new[k], v, "{what}.{k}");
        }
    }
}

#[test]
fn converted_vectors_mean_what_the_originals_mean() {
    let dir = convert_all();
    let converted = converted_vectors(&dir);
    let originals = load_all();
    let raw_originals: Vec<Value> = {
        let mut files: Vec<PathBuf> = std::fs::read_dir(vectors_dir())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        files
            .iter()
            .flat_map(|f| {
                let v: Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
                v["vectors"].as_array().unwrap().clone()
            })
            .collect()
    };
    assert_eq!(converted.len(), originals.len());
    let mut seen = Seen::default();
    for ((old, raw), new) in originals.iter().zip(&raw_originals).zip(&converted) {
        let name = &old.name;
        for k in ["name", "description", "clock_micros"] {
            assert_eq!(raw.get(k), new.get(k), "{name}: {k}");
        }
        for (table, spec) in &old.tables {
            let got: TableConfig = parse(&new["tables"][table], name);
            assert_eq!(got, spec.to_core().unwrap(), "{name}: table {table}");
            seen.add("table");
        }
        let new_ops = new["ops"].as_array().expect("ops");
        let raw_ops = raw["ops"].as_array().expect("ops");
        assert_eq!(new_ops.len(), old.ops.len(), "{name}");
        for (i, op) in old.ops.iter().enumerate() {
            let (n, what) = (&new_ops[i], format!("{name} op {i}"));
            same_plain_fields(&raw_ops[i], n, &what);
            match op {
                Op::CreateTable { spec, .. } => {
                    let got: TableConfig = parse(&n["spec"], &what);
                    assert_eq!(got, spec.to_core().unwrap(), "{what}");
                    seen.add("table");
                }
                Op::MutateRow { mutations: m, .. } => {
                    mutations(m, &n["mutations"], &mut seen, &what)
                }
                Op::MutateRows { entries, .. } => {
                    let got: Vec<RowMutations> = parse(&n["entries"], &what);
                    let want: Vec<RowMutations> = entries
                        .iter()
                        .map(|e| RowMutations {
                            row_key: e.row_key.0.clone(),
                            mutations: e.mutations.iter().map(MutationSpec::to_core).collect(),
                        })
                        .collect();
                    assert_eq!(got, want, "{what}");
                    seen.add("entries");
                }
                Op::CheckAndMutateRow {
                    predicate_filter,
                    true_mutations,
                    false_mutations,
                    ..
                } => {
                    filter(predicate_filter, &n["predicate_filter"], &mut seen, &what);
                    let empty = Value::Array(Vec::new());
                    let or_empty = |k: &str| if n[k].is_null() { &empty } else { &n[k] };
                    mutations(true_mutations, or_empty("true_mutations"), &mut seen, &what);
                    mutations(
                        false_mutations,
                        or_empty("false_mutations"),
                        &mut seen,
                        &what,
                    );
                }
                Op::ReadModifyWriteRow {
                    rules, expect_row, ..
                } => {
                    let got: Vec<ReadModifyWriteRule> = parse(&n["rules"], &what);
                    let want: Vec<ReadModifyWriteRule> =
                        rules.iter().map(|r| r.to_core().unwrap()).collect();
                    assert_eq!(got, want, "{what}");
                    seen.add("rules");
                    if let Some(r) = expect_row {
                        row(r, &n["expect_row"], &mut seen, &what);
                    }
                }
                Op::ReadRow {
                    filter: f,
                    expect_row,
                    ..
                } => {
                    filter(f, &n["filter"], &mut seen, &what);
                    match expect_row {
                        Some(r) => row(r, &n["expect_row"], &mut seen, &what),
                        None => assert!(n["expect_row"].is_null(), "{what}"),
                    }
                }
                Op::ReadRows {
                    row_set,
                    filter: f,
                    expect_rows,
                    ..
                } => {
                    filter(f, &n["filter"], &mut seen, &what);
                    if let Some(s) = row_set {
                        assert_eq!(parse::<RowSet>(&n["row_set"], &what), s.to_core(), "{what}");
                        seen.add("row_set");
                    }
                    for (j, r) in expect_rows.iter().flatten().enumerate() {
                        row(r, &n["expect_rows"][j], &mut seen, &what);
                    }
                }
                Op::ModifyColumnFamilies { modifications, .. } => {
                    let got: Vec<FamilyModification> = parse(&n["modifications"], &what);
                    let want: Vec<FamilyModification> = modifications
                        .iter()
                        .map(|m| match (&m.create, &m.update) {
                            (Some(f), _) => FamilyModification::Create {
                                name: m.id.clone(),
                                family: f.to_core().unwrap(),
                            },
                            (_, Some(f)) => FamilyModification::Update {
                                name: m.id.clone(),
                                family: f.to_core().unwrap(),
                            },
                            _ => FamilyModification::Drop { name: m.id.clone() },
                        })
                        .collect();
                    assert_eq!(got, want, "{what}");
                    seen.add("modifications");
                }
                Op::GetTable {
                    expect_families: Some(fams),
                    ..
                } => {
                    let got: BTreeMap<String, ColumnFamily> = parse(&n["expect_families"], &what);
                    let want: BTreeMap<String, ColumnFamily> = fams
                        .iter()
                        .map(|(k, f)| (k.clone(), f.to_core().unwrap()))
                        .collect();
                    assert_eq!(got, want, "{what}");
                    seen.add("families");
                }
                _ => {}
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    for kind in [
        "table",
        "mutation",
        "filter",
        "row",
        "row_set",
        "rules",
        "entries",
        "modifications",
        "families",
    ] {
        assert!(
            seen.0.get(kind).copied().unwrap_or(0) > 0,
            "no {kind} compared"
        );
    }
    eprintln!("compared: {:?}", seen.0);
}
