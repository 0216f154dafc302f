//! Conversions between Bigtable's protobuf messages and the engine's types.
//!
//! Only shapes change here, never meaning: every rule (limits, timestamps, GC parameters,
//! family existence) is checked by the engine. What the protos can say but the engine cannot
//! do yet (aggregate families, AddToCell, row filters other than pass-all, change streams...)
//! is refused with UNIMPLEMENTED naming the field, never silently dropped. Proto3 defaults
//! follow the protos' documented meaning: an unset GC rule keeps everything, an end timestamp
//! of 0 is unbounded, an empty end row key is unbounded.

use std::collections::HashMap;
use std::ops::Bound;

use sparsetable::{
    ColumnFamily, Error, FamilyModification, GcRule, Granularity, Mutation, Result, RowRange,
    RowSet, TableConfig, TableInfo, TimestampRange,
};

use crate::names::InstanceName;
use crate::status::unimplemented;
use crate::stubs::admin_v2::{
    self, gc_rule, modify_column_families_request::modification::Mod, table,
};
use crate::stubs::v2::{self, mutation, row_filter::Filter, row_range};

/// Converts a family's GC rule; `field` locates it in the request for error messages.
///
/// # Errors
/// `InvalidArgument` for a negative version count or a negative or overflowing max_age.
pub fn gc_rule_from_proto(field: &str, rule: Option<&admin_v2::GcRule>) -> Result<GcRule> {
    let Some(rule) = rule.and_then(|r| r.rule.as_ref()) else {
        return Ok(GcRule::Never);
    };
    Ok(match rule {
        gc_rule::Rule::MaxNumVersions(n) => {
            GcRule::MaxNumVersions(u32::try_from(*n).map_err(|_| {
                Error::invalid_argument(format!("{field}.max_num_versions {n} must be at least 1"))
            })?)
        }
        gc_rule::Rule::MaxAge(d) => {
            // The proto says max_age is truncated to microseconds.
            let micros = (d.seconds >= 0 && d.nanos >= 0)
                .then(|| d.seconds.checked_mul(1_000_000)?.checked_add(i64::from(d.nanos / 1000)))
                .flatten()
                .ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "{field}.max_age {}s {}ns must be a positive duration that fits in int64 microseconds",
                        d.seconds, d.nanos
                    ))
                })?;
            GcRule::MaxAge { micros }
        }
        gc_rule::Rule::Intersection(i) => {
            GcRule::Intersection(nested(field, "intersection", &i.rules)?)
        }
        gc_rule::Rule::Union(u) => GcRule::Union(nested(field, "union", &u.rules)?),
    })
}

fn nested(field: &str, kind: &str, rules: &[admin_v2::GcRule]) -> Result<Vec<GcRule>> {
    rules
        .iter()
        .enumerate()
        .map(|(i, r)| gc_rule_from_proto(&format!("{field}.{kind}.rules[{i}]"), Some(r)))
        .collect()
}

/// Converts an engine GC rule to its message; "keep everything" is an unset rule.
pub fn gc_rule_to_proto(rule: &GcRule) -> Option<admin_v2::GcRule> {
    let rule = match rule {
        GcRule::Never => return None,
        GcRule::MaxNumVersions(n) => {
            gc_rule::Rule::MaxNumVersions(i32::try_from(*n).unwrap_or(i32::MAX))
        }
        GcRule::MaxAge { micros } => gc_rule::Rule::MaxAge(prost_types::Duration {
            seconds: micros / 1_000_000,
            // |micros % 1e6| < 1e6, so the nanos fit an i32.
            nanos: (micros % 1_000_000) as i32 * 1000,
        }),
        GcRule::Intersection(rules) => gc_rule::Rule::Intersection(gc_rule::Intersection {
            rules: rules.iter().map(gc_rule_or_empty).collect(),
        }),
        GcRule::Union(rules) => gc_rule::Rule::Union(gc_rule::Union {
            rules: rules.iter().map(gc_rule_or_empty).collect(),
        }),
    };
    Some(admin_v2::GcRule { rule: Some(rule) })
}

fn gc_rule_or_empty(rule: &GcRule) -> admin_v2::GcRule {
    gc_rule_to_proto(rule).unwrap_or_default()
}

/// Converts a column family's settings.
///
/// # Errors
/// As [`gc_rule_from_proto`]; UNIMPLEMENTED for a `value_type` (aggregate families).
pub fn family_from_proto(field: &str, family: &admin_v2::ColumnFamily) -> Result<ColumnFamily> {
    if family.value_type.is_some() {
        return Err(unimplemented(format!(
            "{field}.value_type (aggregate column families)"
        )));
    }
    Ok(ColumnFamily {
        gc_rule: gc_rule_from_proto(&format!("{field}.gc_rule"), family.gc_rule.as_ref())?,
        ..ColumnFamily::default()
    })
}

/// Builds the engine's table config from a CreateTable request's `table` and `initial_splits`.
///
/// # Errors
/// `InvalidArgument` for an unknown granularity or a bad GC rule; UNIMPLEMENTED for table
/// features the engine lacks (change streams, tiered storage, row key schemas, automated
/// backups, aggregate families).
pub fn table_config_from_proto(
    table: Option<&admin_v2::Table>,
    initial_splits: &[admin_v2::create_table_request::Split],
) -> Result<TableConfig> {
    let mut config = TableConfig {
        initial_splits: initial_splits.iter().map(|s| s.key.clone()).collect(),
        ..TableConfig::default()
    };
    let Some(table) = table else {
        return Ok(config);
    };
    for (present, field) in [
        (
            table.change_stream_config.is_some(),
            "table.change_stream_config",
        ),
        (
            table.tiered_storage_config.is_some(),
            "table.tiered_storage_config",
        ),
        (table.row_key_schema.is_some(), "table.row_key_schema"),
        (
            table.automated_backup_config.is_some(),
            "table.automated_backup_policy",
        ),
    ] {
        if present {
            return Err(unimplemented(field));
        }
    }
    config.granularity = match table::TimestampGranularity::try_from(table.granularity) {
        Ok(table::TimestampGranularity::Unspecified | table::TimestampGranularity::Millis) => {
            Granularity::Millis
        }
        Err(_) => {
            return Err(Error::invalid_argument(format!(
                "table.granularity {} is not a TimestampGranularity",
                table.granularity
            )))
        }
    };
    config.deletion_protection = table.deletion_protection;
    for (name, family) in &table.column_families {
        let family = family_from_proto(&format!("table.column_families[{name:?}]"), family)?;
        config.families.insert(name.clone(), family);
    }
    Ok(config)
}

/// Which parts of a table a response carries, as `Table.View`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableView {
    /// Only the name.
    NameOnly,
    /// Name, families, granularity and deletion protection.
    Schema,
}

impl TableView {
    /// Reads a request's `view`; `default` stands for VIEW_UNSPECIFIED (ListTables defaults
    /// to NAME_ONLY, GetTable to SCHEMA_VIEW). Replication, encryption and full views carry
    /// the schema: the engine has no clusters or keys to add.
    ///
    /// # Errors
    /// `InvalidArgument` for a value that is not a `Table.View`.
    pub fn from_proto(view: i32, default: TableView) -> Result<Self> {
        match table::View::try_from(view) {
            Ok(table::View::Unspecified) => Ok(default),
            Ok(table::View::NameOnly) => Ok(TableView::NameOnly),
            Ok(_) => Ok(TableView::Schema),
            Err(_) => Err(Error::invalid_argument(format!(
                "view {view} is not a Table.View"
            ))),
        }
    }
}

/// Converts a table's info to its message, named inside `instance`.
pub fn table_to_proto(
    instance: &InstanceName,
    info: &TableInfo,
    view: TableView,
) -> admin_v2::Table {
    let name = instance.table(&info.name).to_string();
    if view == TableView::NameOnly {
        return admin_v2::Table {
            name,
            ..Default::default()
        };
    }
    let column_families: HashMap<String, admin_v2::ColumnFamily> = info
        .config
        .families
        .iter()
        .map(|(name, family)| {
            (
                name.clone(),
                admin_v2::ColumnFamily {
                    gc_rule: gc_rule_to_proto(&family.gc_rule),
                    ..Default::default()
                },
            )
        })
        .collect();
    admin_v2::Table {
        name,
        column_families,
        granularity: match info.config.granularity {
            Granularity::Millis => table::TimestampGranularity::Millis as i32,
            // The API has no MICROS value; such tables are only made through the embedded
            // engine, never through this server.
            Granularity::Micros => table::TimestampGranularity::Unspecified as i32,
        },
        deletion_protection: info.config.deletion_protection,
        ..Default::default()
    }
}

/// Converts ModifyColumnFamilies' modifications, in order.
///
/// # Errors
/// `InvalidArgument` for a modification without a kind or a `drop: false`; UNIMPLEMENTED for
/// an update mask naming anything but `gc_rule`, or an aggregate family.
pub fn modifications_from_proto(
    modifications: &[admin_v2::modify_column_families_request::Modification],
) -> Result<Vec<FamilyModification>> {
    modifications
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let field = format!("modifications[{i}]");
            let name = m.id.clone();
            match &m.r#mod {
                Some(Mod::Create(family)) => Ok(FamilyModification::Create {
                    family: family_from_proto(&format!("{field}.create"), family)?,
                    name,
                }),
                Some(Mod::Update(family)) => {
                    // An empty mask means "update gc_rule" (the proto's backward-compatible
                    // default); gc_rule is the only field the engine has.
                    if let Some(path) = m
                        .update_mask
                        .iter()
                        .flat_map(|mask| &mask.paths)
                        .find(|p| p.as_str() != "gc_rule")
                    {
                        return Err(unimplemented(format!("{field}.update_mask path {path:?}")));
                    }
                    Ok(FamilyModification::Update {
                        family: family_from_proto(&format!("{field}.update"), family)?,
                        name,
                    })
                }
                Some(Mod::Drop(true)) => Ok(FamilyModification::Drop { name }),
                Some(Mod::Drop(false)) => Err(Error::invalid_argument(format!(
                    "{field}.drop must be true"
                ))),
                None => Err(Error::invalid_argument(format!(
                    "{field}: one of create, update or drop is required"
                ))),
            }
        })
        .collect()
}

/// Converts one data-API mutation; `index` is its position, named in errors.
///
/// # Errors
/// `InvalidArgument` for a mutation without a kind; UNIMPLEMENTED for AddToCell and
/// MergeToCell (aggregate families).
pub fn mutation_from_proto(index: usize, m: &v2::Mutation) -> Result<Mutation> {
    Ok(match &m.mutation {
        Some(mutation::Mutation::SetCell(s)) => Mutation::SetCell {
            family: s.family_name.clone(),
            qualifier: s.column_qualifier.clone(),
            timestamp_micros: s.timestamp_micros,
            value: s.value.clone(),
        },
        Some(mutation::Mutation::DeleteFromColumn(d)) => Mutation::DeleteFromColumn {
            family: d.family_name.clone(),
            qualifier: d.column_qualifier.clone(),
            time_range: d
                .time_range
                .map(timestamp_range_from_proto)
                .unwrap_or_default(),
        },
        Some(mutation::Mutation::DeleteFromFamily(d)) => Mutation::DeleteFromFamily {
            family: d.family_name.clone(),
        },
        Some(mutation::Mutation::DeleteFromRow(_)) => Mutation::DeleteFromRow,
        Some(mutation::Mutation::AddToCell(_)) => {
            return Err(unimplemented(format!("mutations[{index}].add_to_cell")))
        }
        Some(mutation::Mutation::MergeToCell(_)) => {
            return Err(unimplemented(format!("mutations[{index}].merge_to_cell")))
        }
        None => {
            return Err(Error::invalid_argument(format!(
                "mutations[{index}]: no mutation kind is set"
            )))
        }
    })
}

/// `[start, end)` with the proto's defaults: start 0 from the beginning, end 0 unbounded.
pub fn timestamp_range_from_proto(range: v2::TimestampRange) -> TimestampRange {
    TimestampRange {
        start_micros: range.start_timestamp_micros,
        end_micros: (range.end_timestamp_micros != 0).then_some(range.end_timestamp_micros),
    }
}

/// Converts a ReadRows row set; an absent set reads the whole table.
pub fn row_set_from_proto(rows: Option<&v2::RowSet>) -> RowSet {
    let Some(rows) = rows else {
        return RowSet::all();
    };
    // An empty key as a bound means "unbounded" in Bigtable's clients (an unset start is the
    // empty key, inclusive; an unset end is the infinite key).
    let bound = |key: &Vec<u8>, make: fn(Vec<u8>) -> Bound<Vec<u8>>| {
        if key.is_empty() {
            Bound::Unbounded
        } else {
            make(key.clone())
        }
    };
    RowSet {
        row_keys: rows.row_keys.clone(),
        row_ranges: rows
            .row_ranges
            .iter()
            .map(|r| RowRange {
                start: match &r.start_key {
                    Some(row_range::StartKey::StartKeyClosed(k)) => bound(k, Bound::Included),
                    Some(row_range::StartKey::StartKeyOpen(k)) => bound(k, Bound::Excluded),
                    None => Bound::Unbounded,
                },
                end: match &r.end_key {
                    Some(row_range::EndKey::EndKeyClosed(k)) => bound(k, Bound::Included),
                    Some(row_range::EndKey::EndKeyOpen(k)) => bound(k, Bound::Excluded),
                    None => Bound::Unbounded,
                },
            })
            .collect(),
    }
}

/// Accepts a ReadRows filter only if it passes every cell; the engine has no filters yet.
///
/// # Errors
/// `InvalidArgument` for `pass_all_filter: false`; UNIMPLEMENTED, naming the filter, for any
/// other filter (silently ignoring one would return cells the caller asked to exclude).
pub fn check_filter(filter: Option<&v2::RowFilter>) -> Result<()> {
    let name = match filter.and_then(|f| f.filter.as_ref()) {
        // An empty RowFilter message sets nothing to apply, as an absent one.
        None | Some(Filter::PassAllFilter(true)) => return Ok(()),
        Some(Filter::PassAllFilter(false)) => {
            return Err(Error::invalid_argument(
                "filter.pass_all_filter must be true when set",
            ))
        }
        Some(Filter::Chain(_)) => "chain",
        Some(Filter::Interleave(_)) => "interleave",
        Some(Filter::Condition(_)) => "condition",
        Some(Filter::Sink(_)) => "sink",
        Some(Filter::BlockAllFilter(_)) => "block_all_filter",
        Some(Filter::RowKeyRegexFilter(_)) => "row_key_regex_filter",
        Some(Filter::RowSampleFilter(_)) => "row_sample_filter",
        Some(Filter::FamilyNameRegexFilter(_)) => "family_name_regex_filter",
        Some(Filter::ColumnQualifierRegexFilter(_)) => "column_qualifier_regex_filter",
        Some(Filter::ColumnRangeFilter(_)) => "column_range_filter",
        Some(Filter::TimestampRangeFilter(_)) => "timestamp_range_filter",
        Some(Filter::ValueRegexFilter(_)) => "value_regex_filter",
        Some(Filter::ValueRangeFilter(_)) => "value_range_filter",
        Some(Filter::CellsPerRowOffsetFilter(_)) => "cells_per_row_offset_filter",
        Some(Filter::CellsPerRowLimitFilter(_)) => "cells_per_row_limit_filter",
        Some(Filter::CellsPerColumnLimitFilter(_)) => "cells_per_column_limit_filter",
        Some(Filter::StripValueTransformer(_)) => "strip_value_transformer",
        Some(Filter::ApplyLabelTransformer(_)) => "apply_label_transformer",
    };
    Err(unimplemented(format!("filter.{name} (row filters)")))
}
