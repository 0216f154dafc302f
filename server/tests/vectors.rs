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

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::{code_name, read_rows, BigtableClient, BigtableTableAdminClient, Server};
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin_v2;
use googleapis_tonic_google_bigtable_admin_v2::google::longrunning;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;
use sparsetable::{ColumnFamily, GcRule, Row, ValueType};
use sparsetable_server::test_clock::service::test_clock_client::TestClockClient;
use sparsetable_server::test_clock::{AdvanceTimeRequest, SetTimeRequest};
use sparsetable_test_vectors::{
    check_outcome, check_samples, FamilySpec, FilterSpec, GcRuleSpec, MutationSpec, Op, Outcome,
    RowSetSpec, RowSpec, TableSpec, Vector,
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
    /// Present when the server runs on a frozen clock.
    clock: Option<TestClockClient<Channel>>,
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
    use admin_v2::r#type::{aggregate::Aggregator, Aggregate, Int64, Kind};
    let value_type = f.value_type.as_deref().map(|t| {
        let aggregator = match t {
            "INT64_SUM" => Aggregator::Sum(Default::default()),
            "INT64_MIN" => Aggregator::Min(Default::default()),
            "INT64_MAX" => Aggregator::Max(Default::default()),
            other => panic!("unknown value_type {other}"),
        };
        admin_v2::Type {
            kind: Some(Kind::AggregateType(Box::new(Aggregate {
                input_type: Some(Box::new(admin_v2::Type {
                    kind: Some(Kind::Int64Type(Int64::default())),
                })),
                state_type: None,
                aggregator: Some(aggregator),
            }))),
        }
    });
    admin_v2::ColumnFamily {
        gc_rule: f.gc_rule.as_ref().map(gc_rule_to_proto),
        value_type,
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
            ref other => panic!("unexpected aggregator {other:?}"),
        },
        Some(other) => panic!("unexpected value type {other:?}"),
    }
}

fn create_table_request(parent: &str, id: &str, spec: &TableSpec) -> admin_v2::CreateTableRequest {
    let granularity = match spec.granularity.as_deref() {
        None => admin_v2::table::TimestampGranularity::Unspecified,
        Some("MILLIS") => admin_v2::table::TimestampGranularity::Millis,
        Some(other) => panic!("granularity {other} cannot be expressed in v2"),
    };
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
            granularity: granularity as i32,
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

fn raw(kind: v2::value::Kind) -> Option<v2::Value> {
    Some(v2::Value {
        r#type: None,
        kind: Some(kind),
    })
}

fn mutation_to_proto(m: &MutationSpec) -> v2::Mutation {
    use v2::mutation::{
        AddToCell, DeleteFromColumn, DeleteFromFamily, DeleteFromRow, MergeToCell, Mutation,
        SetCell,
    };
    use v2::value::Kind;
    let m = match m {
        MutationSpec::AddToCell {
            family,
            qualifier,
            timestamp_micros,
            input,
        } => Mutation::AddToCell(AddToCell {
            family_name: family.clone(),
            column_qualifier: raw(Kind::RawValue(qualifier.0.clone())),
            timestamp: raw(Kind::RawTimestampMicros(*timestamp_micros)),
            input: raw(Kind::IntValue(*input)),
        }),
        MutationSpec::MergeToCell {
            family,
            qualifier,
            timestamp_micros,
            input,
        } => Mutation::MergeToCell(MergeToCell {
            family_name: family.clone(),
            column_qualifier: raw(Kind::RawValue(qualifier.0.clone())),
            timestamp: raw(Kind::RawTimestampMicros(*timestamp_micros)),
            input: raw(Kind::RawValue(input.0.clone())),
        }),
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
    };
    v2::Mutation { mutation: Some(m) }
}

fn filter_to_proto(f: &FilterSpec) -> v2::RowFilter {
    use v2::row_filter::{Chain, Condition, Filter, Interleave};
    use v2::{column_range, value_range};
    let list = |fs: &[FilterSpec]| fs.iter().map(filter_to_proto).collect::<Vec<_>>();
    let filter = match f {
        FilterSpec::Chain(fs) => Filter::Chain(Chain { filters: list(fs) }),
        FilterSpec::Interleave(fs) => Filter::Interleave(Interleave { filters: list(fs) }),
        FilterSpec::Condition(c) => Filter::Condition(Box::new(Condition {
            predicate_filter: Some(Box::new(filter_to_proto(&c.predicate_filter))),
            true_filter: c.true_filter.as_ref().map(|f| Box::new(filter_to_proto(f))),
            false_filter: c
                .false_filter
                .as_ref()
                .map(|f| Box::new(filter_to_proto(f))),
        })),
        FilterSpec::Sink(b) => Filter::Sink(*b),
        FilterSpec::PassAllFilter(b) => Filter::PassAllFilter(*b),
        FilterSpec::BlockAllFilter(b) => Filter::BlockAllFilter(*b),
        FilterSpec::RowKeyRegexFilter(r) => Filter::RowKeyRegexFilter(r.0.clone()),
        FilterSpec::RowSampleFilter(p) => Filter::RowSampleFilter(*p),
        FilterSpec::FamilyNameRegexFilter(r) => Filter::FamilyNameRegexFilter(r.clone()),
        FilterSpec::ColumnQualifierRegexFilter(r) => {
            Filter::ColumnQualifierRegexFilter(r.0.clone())
        }
        FilterSpec::ColumnRangeFilter(c) => Filter::ColumnRangeFilter(v2::ColumnRange {
            family_name: c.family_name.clone(),
            start_qualifier: match (&c.start_qualifier_closed, &c.start_qualifier_open) {
                (Some(q), _) => Some(column_range::StartQualifier::StartQualifierClosed(
                    q.0.clone(),
                )),
                (None, Some(q)) => Some(column_range::StartQualifier::StartQualifierOpen(
                    q.0.clone(),
                )),
                (None, None) => None,
            },
            end_qualifier: match (&c.end_qualifier_closed, &c.end_qualifier_open) {
                (Some(q), _) => Some(column_range::EndQualifier::EndQualifierClosed(q.0.clone())),
                (None, Some(q)) => Some(column_range::EndQualifier::EndQualifierOpen(q.0.clone())),
                (None, None) => None,
            },
        }),
        FilterSpec::TimestampRangeFilter(t) => Filter::TimestampRangeFilter(v2::TimestampRange {
            start_timestamp_micros: t.start_timestamp_micros.unwrap_or(0),
            end_timestamp_micros: t.end_timestamp_micros.unwrap_or(0),
        }),
        FilterSpec::ValueRegexFilter(r) => Filter::ValueRegexFilter(r.0.clone()),
        FilterSpec::ValueRangeFilter(v) => Filter::ValueRangeFilter(v2::ValueRange {
            start_value: match (&v.start_value_closed, &v.start_value_open) {
                (Some(x), _) => Some(value_range::StartValue::StartValueClosed(x.0.clone())),
                (None, Some(x)) => Some(value_range::StartValue::StartValueOpen(x.0.clone())),
                (None, None) => None,
            },
            end_value: match (&v.end_value_closed, &v.end_value_open) {
                (Some(x), _) => Some(value_range::EndValue::EndValueClosed(x.0.clone())),
                (None, Some(x)) => Some(value_range::EndValue::EndValueOpen(x.0.clone())),
                (None, None) => None,
            },
        }),
        FilterSpec::CellsPerRowOffsetFilter(n) => Filter::CellsPerRowOffsetFilter(*n),
        FilterSpec::CellsPerRowLimitFilter(n) => Filter::CellsPerRowLimitFilter(*n),
        FilterSpec::CellsPerColumnLimitFilter(n) => Filter::CellsPerColumnLimitFilter(*n),
        FilterSpec::StripValueTransformer(b) => Filter::StripValueTransformer(*b),
        FilterSpec::ApplyLabelTransformer(l) => Filter::ApplyLabelTransformer(l.clone()),
        FilterSpec::ValueBitmaskFilter(_) => {
            panic!("filter:value_bitmask_filter cannot be expressed in google.bigtable.v2")
        }
    };
    v2::RowFilter {
        filter: Some(filter),
    }
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
                                    value_type: value_type_from_proto(f.value_type.as_ref()),
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
                            row_key: e.row_key.0.clone(),
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
                    predicate_filter: predicate_filter.as_ref().map(filter_to_proto),
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
                use v2::read_modify_write_rule::Rule;
                let request = v2::ReadModifyWriteRowRequest {
                    table_name: c.table(table),
                    row_key: row_key.0.clone(),
                    rules: rules
                        .iter()
                        .map(|r| v2::ReadModifyWriteRule {
                            family_name: r.family.clone(),
                            column_qualifier: r.qualifier.0.clone(),
                            rule: match (&r.append_value, r.increment_amount) {
                                (Some(v), None) => Some(Rule::AppendValue(v.0.clone())),
                                (None, Some(n)) => Some(Rule::IncrementAmount(n)),
                                _ => None,
                            },
                        })
                        .collect(),
                    ..Default::default()
                };
                let outcome = status(c.data.read_modify_write_row(request).await)
                    .map(|r| row_from_proto(r.into_inner().row.unwrap_or_default()));
                check_outcome(
                    i,
                    expect_error,
                    outcome,
                    expect_row.as_ref().map(RowSpec::to_core),
                )?;
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
        .filter_map(|s| s.granularity.as_deref())
        .all(|g| g == "MILLIS")
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
    for v in &vectors {
        let caps = v.capabilities();
        let missing: Vec<String> = caps
            .difference(&served)
            .filter(|cap| !(cap.as_str() == "schema:granularity" && only_millis(v)))
            .cloned()
            .collect();
        if missing.is_empty() {
            if caps.contains("clock") {
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
    for (server, group) in [(&system, &on_system_clock), (&frozen, &on_frozen_clock)] {
        for v in group.iter() {
            let mut clock = None;
            if std::ptr::eq(server, &frozen) {
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
                clock,
                parent: format!("projects/vectors/instances/{}", v.name),
            };
            ran += 1;
            if let Err(e) = replay(&mut clients, v).await {
                failures.push(format!("{}: {e}", v.name));
            }
        }
    }
    println!(
        "replayed {ran} vectors through gRPC ({} on a frozen clock); skipped {}:",
        on_frozen_clock.len(),
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
