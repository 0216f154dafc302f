//! Replays the shared test vectors (tests/vectors) through gRPC against the real server binary,
//! with the googleapis crates' tonic clients; each vector gets a fresh instance of its own.
//!
//! Capabilities served (tests/vectors/README.md): the ops, mutations and schema options the
//! server implements, the `pass_all_filter` filter, errors, and `clock`. The clock is not
//! reachable through gRPC, so vectors that depend on it run against a server started with
//! `--clock-micros` at the vector's start time; such a clock is frozen, so `advance_clock`
//! (an op of its own) is not served, nor is `read_modify_write_row`. Vectors that do not depend
//! on the clock run against a server on the system clock, as users run it. Everything else
//! (other filters, MutateRows, aggregates, MICROS granularity, which the v2 API cannot
//! express, ...) is skipped by capability and listed. The test fails if no vector ran, or if a
//! vector whose capabilities are all served fails.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::{code_name, read_rows, BigtableClient, BigtableTableAdminClient, Server};
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin_v2;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;
use sparsetable::{ColumnFamily, GcRule, Row};
use sparsetable_test_vectors::{
    check_outcome, FamilySpec, FilterSpec, GcRuleSpec, MutationSpec, Op, Outcome, RowSetSpec,
    RowSpec, TableSpec, Vector,
};
use tonic::transport::Channel;

/// What the server serves, in the vectors' capability names.
const SERVED: &[&str] = &[
    "op:create_table",
    "op:mutate_row",
    "op:read_row",
    "op:read_rows",
    "op:modify_column_families",
    "op:get_table",
    "op:list_tables",
    "op:delete_table",
    "mutation:set_cell",
    "mutation:delete_from_column",
    "mutation:delete_from_family",
    "mutation:delete_from_row",
    "filter:pass_all_filter",
    "read:row_set",
    "read:rows_limit",
    "read:reversed",
    "schema:gc_rule",
    "schema:deletion_protection",
    "schema:initial_splits",
    "error",
    "clock",
];

struct Clients {
    data: BigtableClient<Channel>,
    admin: BigtableTableAdminClient<Channel>,
    parent: String,
}

impl Clients {
    fn table(&self, id: &str) -> String {
        format!("{}/tables/{id}", self.parent)
    }
}

fn status<T>(r: Result<T, tonic::Status>) -> Outcome<T> {
    r.map_err(|s| (code_name(s.code()).to_string(), s.message().to_string()))
}

fn gc_rule_to_proto(rule: &GcRuleSpec) -> admin_v2::GcRule {
    use admin_v2::gc_rule::{Intersection, Rule, Union};
    let rule = match rule {
        GcRuleSpec::MaxNumVersions(n) => Rule::MaxNumVersions(*n as i32),
        GcRuleSpec::MaxAgeMicros(m) => Rule::MaxAge(prost_types::Duration {
            seconds: m / 1_000_000,
            nanos: (m % 1_000_000) as i32 * 1000,
        }),
        GcRuleSpec::Intersection(r) => Rule::Intersection(Intersection {
            rules: r.iter().map(gc_rule_to_proto).collect(),
        }),
        GcRuleSpec::Union(r) => Rule::Union(Union {
            rules: r.iter().map(gc_rule_to_proto).collect(),
        }),
    };
    admin_v2::GcRule { rule: Some(rule) }
}

/// Reads a returned GC rule back, independently of the server's own conversion.
fn gc_rule_from_proto(rule: Option<&admin_v2::GcRule>) -> GcRule {
    use admin_v2::gc_rule::Rule;
    match rule.and_then(|r| r.rule.as_ref()) {
        None => GcRule::Never,
        Some(Rule::MaxNumVersions(n)) => GcRule::MaxNumVersions(*n as u32),
        Some(Rule::MaxAge(d)) => GcRule::MaxAge {
            micros: d.seconds * 1_000_000 + i64::from(d.nanos / 1000),
        },
        Some(Rule::Intersection(i)) => GcRule::Intersection(
            i.rules
                .iter()
                .map(|r| gc_rule_from_proto(Some(r)))
                .collect(),
        ),
        Some(Rule::Union(u)) => GcRule::Union(
            u.rules
                .iter()
                .map(|r| gc_rule_from_proto(Some(r)))
                .collect(),
        ),
    }
}

fn family_to_proto(f: &FamilySpec) -> admin_v2::ColumnFamily {
    assert!(f.value_type.is_none(), "schema:value_type is not served");
    admin_v2::ColumnFamily {
        gc_rule: f.gc_rule.as_ref().map(gc_rule_to_proto),
        ..Default::default()
    }
}

fn create_table_request(parent: &str, id: &str, spec: &TableSpec) -> admin_v2::CreateTableRequest {
    assert!(
        spec.granularity.is_none(),
        "schema:granularity is not served"
    );
    admin_v2::CreateTableRequest {
        parent: parent.to_string(),
        table_id: id.to_string(),
        table: Some(admin_v2::Table {
            column_families: spec
                .families
                .iter()
                .map(|(n, f)| (n.clone(), family_to_proto(f)))
                .collect(),
            deletion_protection: spec.deletion_protection.unwrap_or(false),
            ..Default::default()
        }),
        initial_splits: spec
            .initial_splits
            .iter()
            .flatten()
            .map(|k| admin_v2::create_table_request::Split { key: k.0.clone() })
            .collect(),
    }
}

fn mutation_to_proto(m: &MutationSpec) -> v2::Mutation {
    use v2::mutation::{DeleteFromColumn, DeleteFromFamily, DeleteFromRow, Mutation, SetCell};
    let m = match m {
        MutationSpec::SetCell {
            family,
            qualifier,
            timestamp_micros,
            value,
        } => Mutation::SetCell(SetCell {
            family_name: family.clone(),
            column_qualifier: qualifier.0.clone(),
            timestamp_micros: *timestamp_micros,
            value: value.0.clone(),
        }),
        MutationSpec::DeleteFromColumn {
            family,
            qualifier,
            start_timestamp_micros,
            end_timestamp_micros,
        } => Mutation::DeleteFromColumn(DeleteFromColumn {
            family_name: family.clone(),
            column_qualifier: qualifier.0.clone(),
            time_range: (start_timestamp_micros.is_some() || end_timestamp_micros.is_some()).then(
                || v2::TimestampRange {
                    start_timestamp_micros: start_timestamp_micros.unwrap_or(0),
                    end_timestamp_micros: end_timestamp_micros.unwrap_or(0),
                },
            ),
        }),
        MutationSpec::DeleteFromFamily { family } => Mutation::DeleteFromFamily(DeleteFromFamily {
            family_name: family.clone(),
        }),
        MutationSpec::DeleteFromRow {} => Mutation::DeleteFromRow(DeleteFromRow {}),
        other => panic!("mutation:{} is not served", other.kind()),
    };
    v2::Mutation { mutation: Some(m) }
}

fn filter_to_proto(f: &FilterSpec) -> v2::RowFilter {
    match f {
        FilterSpec::PassAllFilter(b) => v2::RowFilter {
            filter: Some(v2::row_filter::Filter::PassAllFilter(*b)),
        },
        other => panic!("filter:{} is not served", other.kind()),
    }
}

fn row_set_to_proto(s: &RowSetSpec) -> v2::RowSet {
    use v2::row_range::{EndKey, StartKey};
    v2::RowSet {
        row_keys: s.row_keys.iter().map(|k| k.0.clone()).collect(),
        row_ranges: s
            .row_ranges
            .iter()
            .map(|r| v2::RowRange {
                start_key: match (&r.start_key_closed, &r.start_key_open) {
                    (Some(k), _) => Some(StartKey::StartKeyClosed(k.0.clone())),
                    (None, Some(k)) => Some(StartKey::StartKeyOpen(k.0.clone())),
                    (None, None) => None,
                },
                end_key: match (&r.end_key_closed, &r.end_key_open) {
                    (Some(k), _) => Some(EndKey::EndKeyClosed(k.0.clone())),
                    (None, Some(k)) => Some(EndKey::EndKeyOpen(k.0.clone())),
                    (None, None) => None,
                },
            })
            .collect(),
    }
}

async fn replay(c: &mut Clients, vector: &Vector) -> Result<(), String> {
    for (id, spec) in &vector.tables {
        c.admin
            .create_table(create_table_request(&c.parent, id, spec))
            .await
            .map_err(|e| format!("creating table {id}: {e}"))?;
    }
    for (i, op) in vector.ops.iter().enumerate() {
        let expect_error = op.expect_error();
        match op {
            Op::CreateTable { table, spec, .. } => {
                let outcome = status(
                    c.admin
                        .create_table(create_table_request(&c.parent, table, spec))
                        .await,
                )
                .map(|_| ());
                check_outcome(i, expect_error, outcome, None)?;
            }
            Op::MutateRow {
                table,
                row_key,
                mutations,
                ..
            } => {
                let request = v2::MutateRowRequest {
                    table_name: c.table(table),
                    row_key: row_key.0.clone(),
                    mutations: mutations.iter().map(mutation_to_proto).collect(),
                    ..Default::default()
                };
                let outcome = status(c.data.mutate_row(request).await).map(|_| ());
                check_outcome(i, expect_error, outcome, None)?;
            }
            Op::ReadRow {
                table,
                row_key,
                filter,
                expect_row,
                ..
            } => {
                let request = v2::ReadRowsRequest {
                    table_name: c.table(table),
                    rows: Some(v2::RowSet {
                        row_keys: vec![row_key.0.clone()],
                        row_ranges: vec![],
                    }),
                    filter: filter.as_ref().map(filter_to_proto),
                    rows_limit: 1,
                    ..Default::default()
                };
                let outcome = status(read_rows(&mut c.data, request).await)
                    .map(|(rows, _)| rows.into_iter().next());
                check_outcome(
                    i,
                    expect_error,
                    outcome,
                    Some(expect_row.as_ref().map(RowSpec::to_core)),
                )?;
            }
            Op::ReadRows {
                table,
                row_set,
                filter,
                rows_limit,
                reversed,
                expect_rows,
                ..
            } => {
                let request = v2::ReadRowsRequest {
                    table_name: c.table(table),
                    rows: row_set.as_ref().map(row_set_to_proto),
                    filter: filter.as_ref().map(filter_to_proto),
                    rows_limit: rows_limit.unwrap_or(0),
                    reversed: reversed.unwrap_or(false),
                    ..Default::default()
                };
                let outcome = status(read_rows(&mut c.data, request).await).map(|(rows, _)| rows);
                let expected: Option<Vec<Row>> = expect_rows
                    .as_ref()
                    .map(|rows| rows.iter().map(RowSpec::to_core).collect());
                if expect_error.is_none() && expected.is_none() {
                    return Err(format!(
                        "op {i}: read_rows needs expect_rows or expect_error"
                    ));
                }
                check_outcome(i, expect_error, outcome, expected)?;
            }
            Op::ModifyColumnFamilies {
                table,
                modifications,
                ..
            } => {
                use admin_v2::modify_column_families_request::{modification::Mod, Modification};
                let request = admin_v2::ModifyColumnFamiliesRequest {
                    name: c.table(table),
                    modifications: modifications
                        .iter()
                        .map(|m| Modification {
                            id: m.id.clone(),
                            r#mod: match (&m.create, &m.update, m.drop) {
                                (Some(f), _, _) => Some(Mod::Create(family_to_proto(f))),
                                (None, Some(f), _) => Some(Mod::Update(family_to_proto(f))),
                                (None, None, Some(d)) => Some(Mod::Drop(d)),
                                (None, None, None) => None,
                            },
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                };
                let outcome = status(c.admin.modify_column_families(request).await).map(|_| ());
                check_outcome(i, expect_error, outcome, None)?;
            }
            Op::GetTable {
                table: id,
                expect_families,
                expect_deletion_protection,
                ..
            } => {
                let request = admin_v2::GetTableRequest {
                    name: c.table(id),
                    view: admin_v2::table::View::SchemaView as i32,
                };
                let outcome = status(c.admin.get_table(request).await).map(|r| r.into_inner());
                let table = match (expect_error, outcome) {
                    (None, Ok(t)) => t,
                    (e, o) => {
                        check_outcome(i, e, o.map(|t| t.name), None)?;
                        continue;
                    }
                };
                if table.name != c.table(id) {
                    return Err(format!("op {i}: GetTable answered for {:?}", table.name));
                }
                if let Some(expected) = expect_families {
                    let want: BTreeMap<String, ColumnFamily> = expected
                        .iter()
                        .map(|(n, f)| Ok((n.clone(), f.to_core()?)))
                        .collect::<Result<_, String>>()?;
                    let got: BTreeMap<String, ColumnFamily> = table
                        .column_families
                        .iter()
                        .map(|(n, f)| {
                            (
                                n.clone(),
                                ColumnFamily {
                                    gc_rule: gc_rule_from_proto(f.gc_rule.as_ref()),
                                    ..Default::default()
                                },
                            )
                        })
                        .collect();
                    check_outcome(i, None, Ok(got), Some(want))?;
                }
                if let Some(dp) = expect_deletion_protection {
                    check_outcome(i, None, Ok(table.deletion_protection), Some(*dp))?;
                }
            }
            Op::ListTables { expect_tables } => {
                let request = admin_v2::ListTablesRequest {
                    parent: c.parent.clone(),
                    ..Default::default()
                };
                let response = c
                    .admin
                    .list_tables(request)
                    .await
                    .map_err(|e| format!("op {i}: {e}"))?
                    .into_inner();
                let prefix = format!("{}/tables/", c.parent);
                let ids: Vec<String> = response
                    .tables
                    .iter()
                    .map(|t| {
                        t.name
                            .strip_prefix(&prefix)
                            .map(str::to_string)
                            .ok_or_else(|| format!("op {i}: foreign name {}", t.name))
                    })
                    .collect::<Result<_, _>>()?;
                check_outcome(i, None, Ok(ids), Some(expect_tables.clone()))?;
            }
            Op::DeleteTable { table, .. } => {
                let outcome = status(
                    c.admin
                        .delete_table(admin_v2::DeleteTableRequest {
                            name: c.table(table),
                        })
                        .await,
                )
                .map(|_| ());
                check_outcome(i, expect_error, outcome, None)?;
            }
            other => {
                return Err(format!(
                    "op {i}: op:{} is not served, yet the vector was eligible",
                    other.name()
                ))
            }
        }
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_eligible_vector_replays_through_grpc() {
    let served: BTreeSet<String> = SERVED.iter().map(|s| s.to_string()).collect();
    let vectors = sparsetable_test_vectors::load_all();
    assert!(!vectors.is_empty(), "no vectors found");
    let mut skipped: BTreeMap<String, Vec<String>> = BTreeMap::new();
    // Eligible vectors, keyed by the clock their server needs: None = the system clock.
    let mut groups: BTreeMap<Option<i64>, Vec<&Vector>> = BTreeMap::new();
    for v in &vectors {
        let caps = v.capabilities();
        let missing: Vec<String> = caps.difference(&served).cloned().collect();
        if missing.is_empty() {
            let clock = caps.contains("clock").then(|| v.start_micros());
            groups.entry(clock).or_default().push(v);
        } else {
            skipped.insert(v.name.clone(), missing);
        }
    }
    let mut ran = 0;
    let mut failures = Vec::new();
    for (clock, group) in &groups {
        let clock_arg = clock.map(|c| c.to_string());
        let args: Vec<&str> = match &clock_arg {
            Some(c) => vec!["--clock-micros", c.as_str()],
            None => vec![],
        };
        let server = Server::start(&args);
        for v in group {
            let mut clients = Clients {
                data: server.data().await,
                admin: server.admin().await,
                parent: format!("projects/vectors/instances/{}", v.name),
            };
            ran += 1;
            if let Err(e) = replay(&mut clients, v).await {
                failures.push(format!("{}: {e}", v.name));
            }
        }
    }
    println!(
        "replayed {ran} vectors through gRPC; skipped {} by capability:",
        skipped.len()
    );
    for (name, missing) in &skipped {
        println!("  skipped {name}: needs {}", missing.join(", "));
    }
    assert!(ran > 0, "no vector was eligible");
    assert!(
        failures.is_empty(),
        "{} vectors failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
