//! Replays the shared test vectors (tests/vectors) through gRPC against the real server binary,
//! with the googleapis crates' tonic clients; each vector gets a fresh instance of its own.
//!
//! Capabilities served (tests/vectors/README.md): every op, every mutation, every filter but
//! `value_bitmask_filter` (not in the v2 proto), every schema option (`granularity` only as
//! MILLIS: the v2 `TimestampGranularity` has no MICROS, so a MICROS table cannot be expressed),
//! errors and
//! `clock`. Vectors that depend on the clock run against one server started with
//! `--clock-micros`; before each, its TestClock service sets the vector's start time, and
//! `advance_clock` moves it through `AdvanceTime`. Vectors that do not depend on the clock run
//! against a server on the system clock, as users run it. The test fails if no vector ran, if
//! a vector was skipped for any capability but those two, or if an eligible vector fails.
//! Vectors that declare `"gc_mode": "background"` run against a third server started with
//! `--gc-mode background` (and a frozen clock); `collect_garbage` goes through the
//! `ReplicationControl.CollectGarbage` control RPC. Every other vector runs on the default
//! (immediate) servers.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use admin_v2::bigtable_instance_admin_client::BigtableInstanceAdminClient;
use common::{code_name, read_rows, BigtableClient, BigtableTableAdminClient, Server};
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin_v2;
use googleapis_tonic_google_bigtable_admin_v2::google::longrunning;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;
use std::ops::Bound;

use crate::vector_specs::{family_to_proto, spec_config, spec_family};
use serde_json::Value;
use sparsetable::{
    ColumnFamily, GcRule, Granularity, Mutation as CoreMutation, Row, RowSet, ValueType,
};
use sparsetable_server::replication_control::service::replication_control_client::ReplicationControlClient;
use sparsetable_server::replication_control::CollectGarbageRequest;
use sparsetable_server::test_clock::service::test_clock_client::TestClockClient;
use sparsetable_server::test_clock::{AdvanceTimeRequest, SetTimeRequest};
use sparsetable_test_vectors::{
    check_outcome, check_samples, Op, Outcome, Vector, VECTOR_CLUSTER_ID, VECTOR_CLUSTER_ZONE,
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
    "op:mutate_rows",
    "op:check_and_mutate_row",
    "op:read_modify_write_row",
    "op:sample_row_keys",
    "op:drop_row_range",
    "op:update_table",
    "op:advance_clock",
    "op:collect_garbage",
    "op:create_instance",
    "gc_mode:background",
    "mutation:set_cell",
    "mutation:add_to_cell",
    "mutation:merge_to_cell",
    "mutation:delete_from_column",
    "mutation:delete_from_family",
    "mutation:delete_from_row",
    "filter:chain",
    "filter:interleave",
    "filter:condition",
    "filter:sink",
    "filter:pass_all_filter",
    "filter:block_all_filter",
    "filter:row_key_regex_filter",
    "filter:row_sample_filter",
    "filter:family_name_regex_filter",
    "filter:column_qualifier_regex_filter",
    "filter:column_range_filter",
    "filter:timestamp_range_filter",
    "filter:value_regex_filter",
    "filter:value_range_filter",
    "filter:cells_per_row_offset_filter",
    "filter:cells_per_row_limit_filter",
    "filter:cells_per_column_limit_filter",
    "filter:strip_value_transformer",
    "filter:apply_label_transformer",
    "read:row_set",
    "read:rows_limit",
    "read:reversed",
    "schema:gc_rule",
    "schema:value_type",
    "schema:deletion_protection",
    "schema:initial_splits",
    "error",
    "clock",
];

/// The only capabilities a vector may be skipped for, and why the v2 API cannot express them.
const INEXPRESSIBLE: &[(&str, &str)] = &[
    (
        "filter:value_bitmask_filter",
        "RowFilter has no value_bitmask_filter in google.bigtable.v2",
    ),
    (
        "schema:granularity",
        "Table.TimestampGranularity has only MILLIS; a MICROS table cannot be created",
    ),
];

struct Clients {
    data: BigtableClient<Channel>,
    admin: BigtableTableAdminClient<Channel>,
    /// The Instance Admin (`create_instance`).
    instances: BigtableInstanceAdminClient<Channel>,
    /// Present when the server runs on a frozen clock.
    clock: Option<TestClockClient<Channel>>,
    /// The control surface (`collect_garbage`).
    control: ReplicationControlClient<Channel>,
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

/// Reads a returned value type back, independently of the server's own conversion.
fn value_type_from_proto(t: Option<&admin_v2::Type>) -> ValueType {
    use admin_v2::r#type::{aggregate::Aggregator, Kind};
    match t.and_then(|t| t.kind.as_ref()) {
        None => ValueType::Bytes,
        Some(Kind::AggregateType(a)) => match a.aggregator {
            Some(Aggregator::Sum(_)) => ValueType::Int64Sum,
            Some(Aggregator::Min(_)) => ValueType::Int64Min,
            Some(Aggregator::Max(_)) => ValueType::Int64Max,
            Some(Aggregator::HllppUniqueCount(_)) => ValueType::HllUniqueCount,
            ref other => panic!("unexpected aggregator {other:?}"),
        },
        Some(other) => panic!("unexpected value type {other:?}"),
    }
}

/// The CreateTable request for a vector's table spec (proto3 JSON, read with the core's model).
fn create_table_request(
    parent: &str,
    id: &str,
    spec: &Value,
) -> Result<admin_v2::CreateTableRequest, String> {
    let config = spec_config(spec)?;
    // Vectors naming a granularity are skipped (INEXPRESSIBLE), so every table here is MILLIS,
    // sent as the proto's default like a client that leaves the field out.
    if config.granularity != Granularity::Millis {
        return Err("granularity cannot be expressed in v2".into());
    }
    Ok(admin_v2::CreateTableRequest {
        parent: parent.to_string(),
        table_id: id.to_string(),
        table: Some(admin_v2::Table {
            column_families: config
                .families
                .iter()
                .map(|(n, f)| Ok((n.clone(), spec_family(spec, n, f)?)))
                .collect::<Result<_, String>>()?,
            deletion_protection: config.deletion_protection,
            granularity: admin_v2::table::TimestampGranularity::Unspecified as i32,
            ..Default::default()
        }),
        initial_splits: config
            .initial_splits
            .into_iter()
            .map(|key| admin_v2::create_table_request::Split { key })
            .collect(),
    })
}

fn raw(kind: v2::value::Kind) -> Option<v2::Value> {
    Some(v2::Value {
        r#type: None,
        kind: Some(kind),
    })
}

pub(crate) fn mutation_to_proto(m: &CoreMutation) -> v2::Mutation {
    use v2::mutation::{
        AddToCell, DeleteFromColumn, DeleteFromFamily, DeleteFromRow, MergeToCell, Mutation,
        SetCell,
    };
    use v2::value::Kind;
    let m = match m {
        CoreMutation::AddToCell {
            family,
            qualifier,
            timestamp_micros,
            input,
        } => Mutation::AddToCell(AddToCell {
            family_name: family.clone(),
            column_qualifier: raw(Kind::RawValue(qualifier.clone())),
            timestamp: raw(Kind::RawTimestampMicros(*timestamp_micros)),
            input: raw(Kind::IntValue(*input)),
        }),
        CoreMutation::MergeToCell {
            family,
            qualifier,
            timestamp_micros,
            state,
        } => Mutation::MergeToCell(MergeToCell {
            family_name: family.clone(),
            column_qualifier: raw(Kind::RawValue(qualifier.clone())),
            timestamp: raw(Kind::RawTimestampMicros(*timestamp_micros)),
            input: raw(Kind::RawValue(state.clone())),
        }),
        CoreMutation::SetCell {
            family,
            qualifier,
            timestamp_micros,
            value,
        } => Mutation::SetCell(SetCell {
            family_name: family.clone(),
            column_qualifier: qualifier.clone(),
            timestamp_micros: *timestamp_micros,
            value: value.clone(),
        }),
        CoreMutation::DeleteFromColumn {
            family,
            qualifier,
            time_range,
        } => Mutation::DeleteFromColumn(DeleteFromColumn {
            family_name: family.clone(),
            column_qualifier: qualifier.clone(),
            time_range: (time_range.start_micros != 0 || time_range.end_micros.is_some()).then(
                || v2::TimestampRange {
                    start_timestamp_micros: time_range.start_micros,
                    end_timestamp_micros: time_range.end_micros.unwrap_or(0),
                },
            ),
        }),
        CoreMutation::DeleteFromFamily { family } => Mutation::DeleteFromFamily(DeleteFromFamily {
            family_name: family.clone(),
        }),
        CoreMutation::DeleteFromRow => Mutation::DeleteFromRow(DeleteFromRow {}),
    };
    v2::Mutation { mutation: Some(m) }
}

/// A vector's filter (proto3 JSON) as the v2 message, read field by field as a client holding
/// that JSON would. No Bigtable rule is applied here: the server itself must refuse
/// `{"sink": false}`, `{}` (no kind set) or a filter nested too deep.
fn filter_to_proto(f: &Value) -> Result<v2::RowFilter, String> {
    use base64::Engine as _;
    use v2::row_filter::{Chain, Condition, Filter, Interleave};
    use v2::{column_range, value_range};
    let obj = f
        .as_object()
        .ok_or_else(|| format!("filter {f}: not an object"))?;
    let (key, body) = match obj.iter().collect::<Vec<_>>()[..] {
        [(k, v)] => (k.as_str(), v),
        // A filter message with no kind set, as a client can send it: the server must refuse it.
        [] => return Ok(v2::RowFilter { filter: None }),
        _ => return Err(format!("filter {f}: needs exactly one kind")),
    };
    let bytes = |v: &Value| -> Result<Vec<u8>, String> {
        let text = v
            .as_str()
            .ok_or_else(|| format!("{key}: {v} is not base64"))?;
        base64::engine::general_purpose::STANDARD
            .decode(text)
            .map_err(|e| format!("{key}: {e}"))
    };
    let opt_bytes = |v: &Value| (!v.is_null()).then(|| bytes(v)).transpose();
    let int64 = |v: &Value| -> Result<i64, String> {
        match v {
            Value::Null => Ok(0),
            Value::String(s) => s.parse().map_err(|e| format!("{key}: {e}")),
            other => other
                .as_i64()
                .ok_or_else(|| format!("{key}: {other} is not an int64")),
        }
    };
    let int32 = |v: &Value| -> Result<i32, String> {
        int64(v).and_then(|n| i32::try_from(n).map_err(|e| format!("{key}: {e}")))
    };
    let flag = |v: &Value| {
        v.as_bool()
            .ok_or_else(|| format!("{key}: {v} is not a bool"))
    };
    let list = |v: &Value| -> Result<Vec<v2::RowFilter>, String> {
        v["filters"]
            .as_array()
            .into_iter()
            .flatten()
            .map(filter_to_proto)
            .collect()
    };
    let branch = |v: &Value| -> Result<Option<Box<v2::RowFilter>>, String> {
        (!v.is_null())
            .then(|| filter_to_proto(v).map(Box::new))
            .transpose()
    };
    let filter = match key {
        "chain" => Filter::Chain(Chain {
            filters: list(body)?,
        }),
        "interleave" => Filter::Interleave(Interleave {
            filters: list(body)?,
        }),
        "condition" => Filter::Condition(Box::new(Condition {
            predicate_filter: branch(&body["predicateFilter"])?,
            true_filter: branch(&body["trueFilter"])?,
            false_filter: branch(&body["falseFilter"])?,
        })),
        "sink" => Filter::Sink(flag(body)?),
        "passAllFilter" => Filter::PassAllFilter(flag(body)?),
        "blockAllFilter" => Filter::BlockAllFilter(flag(body)?),
        "stripValueTransformer" => Filter::StripValueTransformer(flag(body)?),
        "rowKeyRegexFilter" => Filter::RowKeyRegexFilter(bytes(body)?),
        "rowSampleFilter" => Filter::RowSampleFilter(
            body.as_f64()
                .ok_or_else(|| format!("{key}: {body} is not a double"))?,
        ),
        "familyNameRegexFilter" => Filter::FamilyNameRegexFilter(
            body.as_str()
                .ok_or_else(|| format!("{key}: {body} is not a string"))?
                .to_string(),
        ),
        "columnQualifierRegexFilter" => Filter::ColumnQualifierRegexFilter(bytes(body)?),
        "columnRangeFilter" => Filter::ColumnRangeFilter(v2::ColumnRange {
            family_name: body["familyName"].as_str().unwrap_or_default().to_string(),
            start_qualifier: match (
                opt_bytes(&body["startQualifierClosed"])?,
                opt_bytes(&body["startQualifierOpen"])?,
            ) {
                (Some(q), _) => Some(column_range::StartQualifier::StartQualifierClosed(q)),
                (None, Some(q)) => Some(column_range::StartQualifier::StartQualifierOpen(q)),
                (None, None) => None,
            },
            end_qualifier: match (
                opt_bytes(&body["endQualifierClosed"])?,
                opt_bytes(&body["endQualifierOpen"])?,
            ) {
                (Some(q), _) => Some(column_range::EndQualifier::EndQualifierClosed(q)),
                (None, Some(q)) => Some(column_range::EndQualifier::EndQualifierOpen(q)),
                (None, None) => None,
            },
        }),
        "timestampRangeFilter" => Filter::TimestampRangeFilter(v2::TimestampRange {
            start_timestamp_micros: int64(&body["startTimestampMicros"])?,
            end_timestamp_micros: int64(&body["endTimestampMicros"])?,
        }),
        "valueRegexFilter" => Filter::ValueRegexFilter(bytes(body)?),
        "valueRangeFilter" => Filter::ValueRangeFilter(v2::ValueRange {
            start_value: match (
                opt_bytes(&body["startValueClosed"])?,
                opt_bytes(&body["startValueOpen"])?,
            ) {
                (Some(x), _) => Some(value_range::StartValue::StartValueClosed(x)),
                (None, Some(x)) => Some(value_range::StartValue::StartValueOpen(x)),
                (None, None) => None,
            },
            end_value: match (
                opt_bytes(&body["endValueClosed"])?,
                opt_bytes(&body["endValueOpen"])?,
            ) {
                (Some(x), _) => Some(value_range::EndValue::EndValueClosed(x)),
                (None, Some(x)) => Some(value_range::EndValue::EndValueOpen(x)),
                (None, None) => None,
            },
        }),
        "cellsPerRowOffsetFilter" => Filter::CellsPerRowOffsetFilter(int32(body)?),
        "cellsPerRowLimitFilter" => Filter::CellsPerRowLimitFilter(int32(body)?),
        "cellsPerColumnLimitFilter" => Filter::CellsPerColumnLimitFilter(int32(body)?),
        "applyLabelTransformer" => Filter::ApplyLabelTransformer(
            body.as_str()
                .ok_or_else(|| format!("{key}: {body} is not a string"))?
                .to_string(),
        ),
        other => {
            return Err(format!(
                "filter kind {other} cannot be expressed in google.bigtable.v2"
            ))
        }
    };
    Ok(v2::RowFilter {
        filter: Some(filter),
    })
}

/// A returned `Row` message as the engine's row, cells in message order.
fn row_from_proto(row: v2::Row) -> Row {
    Row {
        key: row.key,
        cells: row
            .families
            .into_iter()
            .flat_map(|f| {
                let family = f.name;
                f.columns.into_iter().flat_map(move |c| {
                    let family = family.clone();
                    c.cells.into_iter().map(move |cell| sparsetable::Cell {
                        family: family.clone(),
                        qualifier: c.qualifier.clone(),
                        timestamp_micros: cell.timestamp_micros,
                        value: cell.value,
                        labels: cell.labels,
                    })
                })
            })
            .collect(),
    }
}

fn bound_key(b: &Bound<Vec<u8>>) -> Option<(bool, Vec<u8>)> {
    match b {
        Bound::Included(k) => Some((true, k.clone())),
        Bound::Excluded(k) => Some((false, k.clone())),
        Bound::Unbounded => None,
    }
}

fn row_set_to_proto(s: &RowSet) -> v2::RowSet {
    use v2::row_range::{EndKey, StartKey};
    v2::RowSet {
        row_keys: s.row_keys.clone(),
        row_ranges: s
            .row_ranges
            .iter()
            .map(|r| v2::RowRange {
                start_key: bound_key(&r.start).map(|(closed, k)| {
                    if closed {
                        StartKey::StartKeyClosed(k)
                    } else {
                        StartKey::StartKeyOpen(k)
                    }
                }),
                end_key: bound_key(&r.end).map(|(closed, k)| {
                    if closed {
                        EndKey::EndKeyClosed(k)
                    } else {
                        EndKey::EndKeyOpen(k)
                    }
                }),
            })
            .collect(),
    }
}

/// Creates a vector's table with its families in the spec's order, the order reads return
/// them in. A proto map carries no order a prost client keeps (it encodes a HashMap), so
/// the table is created with its first family and the others are added after it, in order,
/// with one ModifyColumnFamilies call.
async fn create_vector_table(c: &mut Clients, id: &str, spec: &Value) -> Result<(), String> {
    use admin_v2::modify_column_families_request::{modification::Mod, Modification};
    let mut request = create_table_request(&c.parent, id, spec)?;
    let config = spec_config(spec)?;
    let later: Vec<Modification> = config
        .families
        .iter()
        .skip(1)
        .map(|(name, family)| {
            Ok(Modification {
                id: name.clone(),
                r#mod: Some(Mod::Create(spec_family(spec, name, family)?)),
                ..Default::default()
            })
        })
        .collect::<Result<_, String>>()?;
    if let Some(table) = request.table.as_mut() {
        let first = config.families.keys().next();
        table.column_families.retain(|name, _| Some(name) == first);
    }
    c.admin
        .create_table(request)
        .await
        .map_err(|e| format!("creating table {id}: {e}"))?;
    if !later.is_empty() {
        c.admin
            .modify_column_families(admin_v2::ModifyColumnFamiliesRequest {
                name: c.table(id),
                modifications: later,
                ..Default::default()
            })
            .await
            .map_err(|e| format!("creating the families of table {id}: {e}"))?;
    }
    Ok(())
}

async fn replay(c: &mut Clients, vector: &Vector) -> Result<(), String> {
    for (id, spec) in &vector.tables {
        create_vector_table(c, id, spec).await?;
    }
    for (i, op) in vector.ops.iter().enumerate() {
        let expect_error = op.expect_error();
        match op {
            Op::CreateTable { table, spec, .. } => {
                let outcome = status(
                    c.admin
                        .create_table(create_table_request(&c.parent, table, spec)?)
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
                    filter: filter.as_ref().map(filter_to_proto).transpose()?,
                    rows_limit: 1,
                    ..Default::default()
                };
                let outcome = status(read_rows(&mut c.data, request).await)
                    .map(|(rows, _)| rows.into_iter().next());
                check_outcome(i, expect_error, outcome, Some(expect_row.clone()))?;
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
                    filter: filter.as_ref().map(filter_to_proto).transpose()?,
                    rows_limit: rows_limit.unwrap_or(0),
                    reversed: reversed.unwrap_or(false),
                    ..Default::default()
                };
                let outcome = status(read_rows(&mut c.data, request).await).map(|(rows, _)| rows);
                let expected: Option<Vec<Row>> = expect_rows.clone();
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
                use sparsetable::FamilyModification as Fm;
                let modifications = modifications
                    .iter()
                    .map(|m| {
                        let m: Fm = sparsetable::json::from_value(m.clone())
                            .map_err(|e| format!("op {i}: modification {m}: {e}"))?;
                        Ok(match m {
                            Fm::Create { name, family } => Modification {
                                id: name,
                                r#mod: Some(Mod::Create(family_to_proto(&family))),
                                ..Default::default()
                            },
                            Fm::Update { name, family } => Modification {
                                id: name,
                                r#mod: Some(Mod::Update(family_to_proto(&family))),
                                ..Default::default()
                            },
                            Fm::Drop { name } => Modification {
                                id: name,
                                r#mod: Some(Mod::Drop(true)),
                                ..Default::default()
                            },
                        })
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                let request = admin_v2::ModifyColumnFamiliesRequest {
                    name: c.table(table),
                    modifications,
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
                if let Some(want) = expect_families.clone() {
                    let got: BTreeMap<String, ColumnFamily> = table
                        .column_families
                        .iter()
                        .map(|(n, f)| {
                            (
                                n.clone(),
                                ColumnFamily {
                                    gc_rule: gc_rule_from_proto(f.gc_rule.as_ref()),
                                    value_type: value_type_from_proto(f.value_type.as_ref()),
                                },
                            )
                        })
                        .collect();
                    // A proto map: compared as a map, its order being the encoder's.
                    let want: BTreeMap<String, ColumnFamily> = want.into_iter().collect();
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
            Op::MutateRows {
                table,
                entries,
                expect_statuses,
                ..
            } => {
                let request = v2::MutateRowsRequest {
                    table_name: c.table(table),
                    entries: entries
                        .iter()
                        .map(|e| v2::mutate_rows_request::Entry {
                            row_key: e.row_key.clone(),
                            mutations: e.mutations.iter().map(mutation_to_proto).collect(),
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                };
                let outcome = match c.data.mutate_rows(request).await {
                    Err(s) => Err((code_name(s.code()).to_string(), s.message().to_string())),
                    Ok(response) => {
                        let mut stream = response.into_inner();
                        let mut by_index: BTreeMap<i64, String> = BTreeMap::new();
                        while let Some(m) = stream
                            .message()
                            .await
                            .map_err(|e| format!("op {i}: stream: {e}"))?
                        {
                            for e in m.entries {
                                let code = tonic::Code::from_i32(e.status.map_or(0, |s| s.code));
                                if by_index
                                    .insert(e.index, code_name(code).to_string())
                                    .is_some()
                                {
                                    return Err(format!(
                                        "op {i}: entry {} reported twice",
                                        e.index
                                    ));
                                }
                            }
                        }
                        if by_index.keys().copied().ne(0..entries.len() as i64) {
                            return Err(format!(
                                "op {i}: statuses for entries {:?}, expected 0..{}",
                                by_index.keys().collect::<Vec<_>>(),
                                entries.len()
                            ));
                        }
                        Ok(by_index.into_values().collect::<Vec<_>>())
                    }
                };
                check_outcome(i, expect_error, outcome, expect_statuses.clone())?;
            }
            Op::CheckAndMutateRow {
                table,
                row_key,
                predicate_filter,
                true_mutations,
                false_mutations,
                expect_matched,
                ..
            } => {
                let request = v2::CheckAndMutateRowRequest {
                    table_name: c.table(table),
                    row_key: row_key.0.clone(),
                    predicate_filter: predicate_filter.as_ref().map(filter_to_proto).transpose()?,
                    true_mutations: true_mutations.iter().map(mutation_to_proto).collect(),
                    false_mutations: false_mutations.iter().map(mutation_to_proto).collect(),
                    ..Default::default()
                };
                let outcome = status(c.data.check_and_mutate_row(request).await)
                    .map(|r| r.into_inner().predicate_matched);
                check_outcome(i, expect_error, outcome, *expect_matched)?;
            }
            Op::ReadModifyWriteRow {
                table,
                row_key,
                rules,
                expect_row,
                ..
            } => {
                use sparsetable::ReadModifyWriteOp;
                use v2::read_modify_write_rule::Rule;
                let request = v2::ReadModifyWriteRowRequest {
                    table_name: c.table(table),
                    row_key: row_key.0.clone(),
                    rules: rules
                        .iter()
                        .map(|r| v2::ReadModifyWriteRule {
                            family_name: r.family.clone(),
                            column_qualifier: r.qualifier.clone(),
                            rule: Some(match &r.op {
                                ReadModifyWriteOp::AppendValue(v) => Rule::AppendValue(v.clone()),
                                ReadModifyWriteOp::IncrementAmount(n) => Rule::IncrementAmount(*n),
                            }),
                        })
                        .collect(),
                    ..Default::default()
                };
                let outcome = status(c.data.read_modify_write_row(request).await)
                    .map(|r| row_from_proto(r.into_inner().row.unwrap_or_default()));
                check_outcome(i, expect_error, outcome, expect_row.clone())?;
            }
            Op::SampleRowKeys {
                table, expect_keys, ..
            } => {
                let request = v2::SampleRowKeysRequest {
                    table_name: c.table(table),
                    ..Default::default()
                };
                let outcome = match c.data.sample_row_keys(request).await {
                    Err(s) => Err((code_name(s.code()).to_string(), s.message().to_string())),
                    Ok(response) => {
                        let mut stream = response.into_inner();
                        let mut samples = Vec::new();
                        while let Some(m) = stream
                            .message()
                            .await
                            .map_err(|e| format!("op {i}: stream: {e}"))?
                        {
                            samples.push((m.row_key, m.offset_bytes as u64));
                        }
                        Ok(samples)
                    }
                };
                if let (Ok(got), Some(keys)) = (&outcome, expect_keys) {
                    check_samples(i, keys, got)?;
                }
                check_outcome(i, expect_error, outcome, None)?;
            }
            Op::DropRowRange {
                table,
                row_key_prefix,
                delete_all_data_from_table,
                ..
            } => {
                use admin_v2::drop_row_range_request::Target;
                let request = admin_v2::DropRowRangeRequest {
                    name: c.table(table),
                    target: match (row_key_prefix, delete_all_data_from_table) {
                        (Some(p), _) => Some(Target::RowKeyPrefix(p.0.clone())),
                        (None, Some(d)) => Some(Target::DeleteAllDataFromTable(*d)),
                        (None, None) => None,
                    },
                };
                let outcome = status(c.admin.drop_row_range(request).await).map(|_| ());
                check_outcome(i, expect_error, outcome, None)?;
            }
            Op::UpdateTable {
                table,
                deletion_protection,
                ..
            } => {
                let request = admin_v2::UpdateTableRequest {
                    table: Some(admin_v2::Table {
                        name: c.table(table),
                        deletion_protection: *deletion_protection,
                        ..Default::default()
                    }),
                    update_mask: Some(prost_types::FieldMask {
                        paths: vec!["deletion_protection".into()],
                    }),
                    ..Default::default()
                };
                let outcome = status(c.admin.update_table(request).await).map(|r| {
                    let op = r.into_inner();
                    (
                        op.done,
                        matches!(op.result, Some(longrunning::operation::Result::Response(_))),
                    )
                });
                let outcome = outcome.map(|(done, has_response)| done && has_response);
                check_outcome(i, expect_error, outcome, Some(true))?;
            }
            Op::AdvanceClock { micros } => {
                let clock = c
                    .clock
                    .as_mut()
                    .ok_or_else(|| format!("op {i}: advance_clock needs a frozen clock"))?;
                clock
                    .advance_time(AdvanceTimeRequest {
                        delta_micros: *micros,
                    })
                    .await
                    .map_err(|e| format!("op {i}: AdvanceTime: {e}"))?;
            }
            Op::CollectGarbage { table, .. } => {
                let outcome = status(
                    c.control
                        .collect_garbage(CollectGarbageRequest {
                            instance: c.parent.clone(),
                            table_id: table.clone(),
                        })
                        .await,
                )
                .map(|_| ());
                check_outcome(i, expect_error, outcome, None)?;
            }
            Op::CreateInstance {
                project,
                instance_id,
                cluster_id,
                ..
            } => {
                let cluster_id = cluster_id.as_deref().unwrap_or(VECTOR_CLUSTER_ID);
                let request = common::create_instance_request(
                    project,
                    instance_id,
                    &[(cluster_id, VECTOR_CLUSTER_ZONE)],
                    1,
                );
                let outcome = status(c.instances.create_instance(request).await).map(|_| ());
                check_outcome(i, expect_error, outcome, None)?;
            }
        }
    }
    Ok(())
}

/// Whether every granularity the vector names is MILLIS, the one value v2 can express.
fn only_millis(v: &Vector) -> bool {
    let specs = v
        .tables
        .values()
        .chain(v.ops.iter().filter_map(|op| match op {
            Op::CreateTable { spec, .. } => Some(spec),
            _ => None,
        }));
    specs
        .filter_map(|s| s.get("granularity"))
        .all(|g| g.as_str() == Some("MILLIS"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_eligible_vector_replays_through_grpc() {
    let served: BTreeSet<String> = SERVED.iter().map(|s| s.to_string()).collect();
    let vectors = sparsetable_test_vectors::load_all();
    assert!(!vectors.is_empty(), "no vectors found");
    let mut skipped: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut unexpected_skips = Vec::new();
    // Eligible vectors: those on the system clock, and those on the frozen one.
    let (mut on_system_clock, mut on_frozen_clock): (Vec<&Vector>, Vec<&Vector>) = (vec![], vec![]);
    let mut in_background: Vec<&Vector> = vec![];
    for v in &vectors {
        let caps = v.capabilities();
        let missing: Vec<String> = caps
            .difference(&served)
            .filter(|cap| !(cap.as_str() == "schema:granularity" && only_millis(v)))
            .cloned()
            .collect();
        if missing.is_empty() {
            if v.gc_mode == Some(sparsetable::GcMode::Background) {
                in_background.push(v);
            } else if caps.contains("clock") {
                on_frozen_clock.push(v);
            } else {
                on_system_clock.push(v);
            }
        } else {
            if missing
                .iter()
                .any(|m| !INEXPRESSIBLE.iter().any(|(cap, _)| cap == m))
            {
                unexpected_skips.push(format!("{}: {}", v.name, missing.join(", ")));
            }
            skipped.insert(v.name.clone(), missing);
        }
    }
    let mut ran = 0;
    let mut failures = Vec::new();
    let system = Server::start(&[]);
    // The frozen clock's start is irrelevant: each vector sets its own.
    let frozen = Server::start(&["--clock-micros", "0"]);
    let background = Server::start(&["--clock-micros", "0", "--gc-mode", "background"]);
    for (server, group, frozen) in [
        (&system, &on_system_clock, false),
        (&frozen, &on_frozen_clock, true),
        (&background, &in_background, true),
    ] {
        for v in group.iter() {
            let mut clock = None;
            if frozen {
                let mut client = TestClockClient::new(server.channel().await);
                client
                    .set_time(SetTimeRequest {
                        micros: v.start_micros(),
                    })
                    .await
                    .expect("SetTime");
                clock = Some(client);
            }
            let mut clients = Clients {
                data: server.data().await,
                admin: server.admin().await,
                instances: BigtableInstanceAdminClient::new(server.channel().await),
                clock,
                control: ReplicationControlClient::new(server.channel().await),
                parent: format!("projects/vectors/instances/{}", v.name),
            };
            ran += 1;
            if let Err(e) = replay(&mut clients, v).await {
                failures.push(format!("{}: {e}", v.name));
            }
        }
    }
    println!(
        "replayed {ran} vectors through gRPC ({} on a frozen clock, {} in background GC \
         mode); skipped {}:",
        on_frozen_clock.len(),
        in_background.len(),
        skipped.len()
    );
    for (name, missing) in &skipped {
        let why: Vec<String> = missing
            .iter()
            .map(|m| {
                let reason = INEXPRESSIBLE
                    .iter()
                    .find(|(cap, _)| cap == m)
                    .map_or("not served", |(_, r)| r);
                format!("{m} ({reason})")
            })
            .collect();
        println!("  skipped {name}: needs {}", why.join("; "));
    }
    assert!(ran > 0, "no vector was eligible");
    assert!(
        unexpected_skips.is_empty(),
        "vectors skipped for capabilities the v2 API can express:\n{}",
        unexpected_skips.join("\n")
    );
    assert!(
        failures.is_empty(),
        "{} vectors failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
