//! Conversions between Bigtable's protobuf messages and the engine's types.
//!
//! Only shapes change here, never meaning: every rule (limits, timestamps, GC parameters,
//! family existence, aggregate inputs) is checked by the engine. What the protos can say but
//! the engine cannot do (HyperLogLog aggregates, change streams, typed non-aggregate families,
//! ...) is refused with UNIMPLEMENTED naming the field, never silently dropped. An unset GC
//! rule keeps everything. The meanings the protos give default values (an end timestamp of 0
//! is unbounded, an empty row key as a range bound is unbounded, a `Duration` max_age in
//! microseconds) are the core's wire constructors' to apply ([`TimestampRange::from_wire`],
//! [`RowRange::from_wire_bounds`], [`GcRule::max_age_from_duration`]); this module only
//! reshapes. Row filters convert in [`crate::filter`].

use std::ops::Bound;

use sparsetable::error::quoted;
use sparsetable::model::aggregate;
use sparsetable::{
    Cell, ColumnFamily, Error, FamilyModification, GcRule, Granularity, Mutation,
    ReadModifyWriteRule, Result, Row, RowRange, RowSet, TableConfig, TableInfo, TimestampRange,
    ValueType,
};

use crate::clusters::ClusterSpec;
use crate::names::InstanceName;
use crate::status::unimplemented;
use crate::stubs::admin_v2::{
    self, gc_rule, modify_column_families_request::modification::Mod, r#type, table,
};
use crate::stubs::v2::{self, mutation, read_modify_write_rule, row_range, value};
use crate::table_reply::TableReply;

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
        gc_rule::Rule::MaxAge(d) => GcRule::max_age_from_duration(d.seconds, d.nanos)
            .map_err(|e| Error::new(e.code(), format!("{field}: {}", e.message())))?,
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
        GcRule::MaxAge { .. } => {
            let (seconds, nanos) = rule.max_age_duration().unwrap_or_default();
            gc_rule::Rule::MaxAge(prost_types::Duration { seconds, nanos })
        }
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
/// As [`gc_rule_from_proto`] and [`value_type_from_proto`].
pub fn family_from_proto(field: &str, family: &admin_v2::ColumnFamily) -> Result<ColumnFamily> {
    Ok(ColumnFamily {
        gc_rule: gc_rule_from_proto(&format!("{field}.gc_rule"), family.gc_rule.as_ref())?,
        value_type: value_type_from_proto(
            &format!("{field}.value_type"),
            family.value_type.as_ref(),
        )?,
    })
}

/// Converts a family's `value_type`: unset or `bytes_type` is a plain family; an aggregate of
/// int64 inputs with a `sum`, `min` or `max` aggregator is an aggregate family, and the
/// `hllpp_unique_count` aggregator (over raw, bytes or int64 inputs) a HyperLogLog++ family.
///
/// # Errors
/// `InvalidArgument` for an aggregate without an aggregator or over an input it does not
/// take; UNIMPLEMENTED for typed (non-aggregate) families.
pub fn value_type_from_proto(
    field: &str,
    value_type: Option<&admin_v2::Type>,
) -> Result<ValueType> {
    use r#type::aggregate::Aggregator;
    let Some(kind) = value_type.and_then(|t| t.kind.as_ref()) else {
        return Ok(ValueType::Bytes);
    };
    let aggregate = match kind {
        r#type::Kind::BytesType(_) => return Ok(ValueType::Bytes),
        r#type::Kind::AggregateType(a) => a,
        _ => {
            return Err(unimplemented(format!(
                "{field}: typed column families other than bytes and int64 aggregates"
            )))
        }
    };
    let int64 = |t: &Option<Box<admin_v2::Type>>| {
        matches!(
            t.as_deref().and_then(|t| t.kind.as_ref()),
            None | Some(r#type::Kind::Int64Type(_))
        )
    };
    // HyperLogLog++ counts any input (unset: raw bytes); the core's rule in
    // model::aggregate says which inputs AddToCell takes (bytes and int64).
    let hll_input = |t: &Option<Box<admin_v2::Type>>| {
        matches!(
            t.as_deref().and_then(|t| t.kind.as_ref()),
            None | Some(r#type::Kind::Int64Type(_) | r#type::Kind::BytesType(_))
        )
    };
    match &aggregate.aggregator {
        Some(Aggregator::HllppUniqueCount(_)) if hll_input(&aggregate.input_type) => {
            Ok(ValueType::HllUniqueCount)
        }
        Some(Aggregator::HllppUniqueCount(_)) => Err(Error::invalid_argument(format!(
            "{field}.aggregate_type.input_type: hllpp_unique_count counts bytes or int64 \
             inputs (or raw bytes, with input_type unset)"
        ))),
        None => Err(Error::invalid_argument(format!(
            "{field}.aggregate_type: an aggregator (sum, min or max) is required"
        ))),
        Some(_) if !int64(&aggregate.input_type) => Err(Error::invalid_argument(format!(
            "{field}.aggregate_type.input_type: sum, min and max aggregate int64 inputs"
        ))),
        Some(Aggregator::Sum(_)) => Ok(ValueType::Int64Sum),
        Some(Aggregator::Min(_)) => Ok(ValueType::Int64Min),
        Some(Aggregator::Max(_)) => Ok(ValueType::Int64Max),
    }
}

/// A family's `value_type` message: unset for plain bytes; an aggregate of big-endian int64
/// inputs and states otherwise (the encoding the engine stores).
pub fn value_type_to_proto(value_type: ValueType) -> Option<admin_v2::Type> {
    use r#type::aggregate::{Aggregator, HyperLogLogPlusPlusUniqueCount, Max, Min, Sum};
    use r#type::int64::{encoding, Encoding};
    if value_type == ValueType::HllUniqueCount {
        // Raw bytes in, the sketch's bytes out (model::aggregate).
        let bytes = || {
            Box::new(admin_v2::Type {
                kind: Some(r#type::Kind::BytesType(r#type::Bytes::default())),
            })
        };
        return Some(admin_v2::Type {
            kind: Some(r#type::Kind::AggregateType(Box::new(r#type::Aggregate {
                input_type: Some(bytes()),
                state_type: Some(bytes()),
                aggregator: Some(Aggregator::HllppUniqueCount(
                    HyperLogLogPlusPlusUniqueCount {},
                )),
            }))),
        });
    }
    let aggregator = match value_type {
        ValueType::Int64Sum => Aggregator::Sum(Sum {}),
        ValueType::Int64Min => Aggregator::Min(Min {}),
        ValueType::Int64Max => Aggregator::Max(Max {}),
        // `ValueType` may grow; a type without a message stays unset.
        _ => return None,
    };
    let int64 = || {
        Box::new(admin_v2::Type {
            kind: Some(r#type::Kind::Int64Type(r#type::Int64 {
                encoding: Some(Encoding {
                    encoding: Some(encoding::Encoding::BigEndianBytes(
                        encoding::BigEndianBytes::default(),
                    )),
                }),
            })),
        })
    };
    Some(admin_v2::Type {
        kind: Some(r#type::Kind::AggregateType(Box::new(r#type::Aggregate {
            input_type: Some(int64()),
            state_type: Some(int64()),
            aggregator: Some(aggregator),
        }))),
    })
}

/// Builds the engine's table config from a CreateTable request's `table` and `initial_splits`,
/// creating the families in `family_order` (the order the request listed them in; see
/// `family_order`), any family it leaves out after those, by name.
///
/// # Errors
/// `InvalidArgument` for an unknown granularity or a bad GC rule; UNIMPLEMENTED for table
/// features the engine lacks (change streams, tiered storage, row key schemas, automated
/// backups, aggregate families).
pub fn table_config_from_proto(
    table: Option<&admin_v2::Table>,
    initial_splits: &[admin_v2::create_table_request::Split],
    family_order: &[String],
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
    // prost's HashMap keeps no order: sort by the request's.
    let rank = |name: &str| {
        family_order
            .iter()
            .position(|n| n == name)
            .unwrap_or(usize::MAX)
    };
    let mut families: Vec<_> = table.column_families.iter().collect();
    families.sort_by(|a, b| rank(a.0).cmp(&rank(b.0)).then_with(|| a.0.cmp(b.0)));
    for (name, family) in families {
        let family =
            family_from_proto(&format!("table.column_families[{}]", quoted(name)), family)?;
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
    /// Name and each cluster's replication state.
    Replication,
    /// Name and each cluster's encryption info.
    Encryption,
    /// Everything.
    Full,
}

impl TableView {
    /// Reads a request's `view`; `default` stands for VIEW_UNSPECIFIED (ListTables defaults
    /// to NAME_ONLY, GetTable to SCHEMA_VIEW).
    ///
    /// # Errors
    /// `InvalidArgument` for a value that is not a `Table.View`.
    pub fn from_proto(view: i32, default: TableView) -> Result<Self> {
        match table::View::try_from(view) {
            Ok(table::View::Unspecified) => Ok(default),
            Ok(table::View::NameOnly) => Ok(TableView::NameOnly),
            Ok(table::View::SchemaView) => Ok(TableView::Schema),
            Ok(table::View::ReplicationView) => Ok(TableView::Replication),
            Ok(table::View::EncryptionView) => Ok(TableView::Encryption),
            Ok(table::View::Full) => Ok(TableView::Full),
            Err(_) => Err(Error::invalid_argument(format!(
                "view {view} is not a Table.View"
            ))),
        }
    }

    /// Whether the view includes the schema (families, granularity, change stream).
    pub fn schema(self) -> bool {
        matches!(self, TableView::Schema | TableView::Full)
    }

    fn replication(self) -> bool {
        matches!(self, TableView::Replication | TableView::Full)
    }

    fn encryption(self) -> bool {
        matches!(self, TableView::Encryption | TableView::Full)
    }
}

/// Converts a table's info to its message, named inside `instance` whose clusters are
/// `clusters`: a [`TableReply`], whose map entries always carry their value (see
/// [`crate::table_reply`]), families in the engine's order. The data has one copy, so the
/// table is READY in every cluster, encrypted the default way.
pub fn table_to_proto(
    instance: &InstanceName,
    clusters: &[ClusterSpec],
    info: &TableInfo,
    view: TableView,
) -> TableReply {
    let mut rest = admin_v2::Table {
        name: instance.table(&info.name).to_string(),
        ..Default::default()
    };
    let mut column_families = Vec::new();
    if view.schema() {
        column_families = info
            .config
            .families
            .iter()
            .map(|(name, family)| {
                (
                    name.clone(),
                    admin_v2::ColumnFamily {
                        gc_rule: gc_rule_to_proto(&family.gc_rule),
                        value_type: value_type_to_proto(family.value_type),
                    },
                )
            })
            .collect();
        rest.granularity = match info.config.granularity {
            Granularity::Millis => table::TimestampGranularity::Millis as i32,
            // The API has no MICROS value; such tables are only made through the embedded
            // engine, never through this server.
            Granularity::Micros => table::TimestampGranularity::Unspecified as i32,
        };
        rest.deletion_protection = info.config.deletion_protection;
    }
    let mut cluster_states = Vec::new();
    if view.replication() || view.encryption() {
        for cluster in clusters {
            let mut state = table::ClusterState::default();
            if view.replication() {
                state.replication_state = table::cluster_state::ReplicationState::Ready as i32;
            }
            if view.encryption() {
                state.encryption_info = vec![admin_v2::EncryptionInfo {
                    encryption_type:
                        admin_v2::encryption_info::EncryptionType::GoogleDefaultEncryption as i32,
                    ..Default::default()
                }];
            }
            cluster_states.push((cluster.id.clone(), state));
        }
    }
    TableReply::with_entries(rest, cluster_states, column_families)
}

/// A `change_stream_config`'s retention in microseconds (`None`: no config, or one without a
/// retention, which Bigtable reads as disabled).
///
/// # Errors
/// `InvalidArgument` for a retention outside 1 to 7 days (the core's rule).
pub fn change_stream_retention(
    config: Option<&admin_v2::ChangeStreamConfig>,
) -> Result<Option<i64>> {
    let Some(period) = config.and_then(|c| c.retention_period.as_ref()) else {
        return Ok(None);
    };
    let micros = period
        .seconds
        .checked_mul(1_000_000)
        .and_then(|m| m.checked_add(i64::from(period.nanos) / 1000))
        .unwrap_or(i64::MAX);
    sparsetable::api::change_stream::validate_retention(micros)?;
    Ok(Some(micros))
}

/// The `change_stream_config` of a retention.
pub fn change_stream_config(retention_micros: i64) -> admin_v2::ChangeStreamConfig {
    admin_v2::ChangeStreamConfig {
        retention_period: Some(prost_types::Duration {
            seconds: retention_micros / 1_000_000,
            nanos: ((retention_micros % 1_000_000) * 1000) as i32,
        }),
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
                        return Err(unimplemented(format!(
                            "{field}.update_mask path {}",
                            quoted(path)
                        )));
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
/// `InvalidArgument` for a mutation without a kind, or an AddToCell/MergeToCell whose
/// qualifier, timestamp or input is missing or of the wrong `Value` kind.
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
        Some(mutation::Mutation::AddToCell(a)) => {
            let field = format!("mutations[{index}].add_to_cell");
            let family = a.family_name.clone();
            let qualifier = raw_bytes(&field, "column_qualifier", a.column_qualifier.as_ref())?;
            let timestamp_micros = raw_timestamp(&field, a.timestamp.as_ref())?;
            match a.input.as_ref().and_then(|v| v.kind.as_ref()) {
                Some(value::Kind::IntValue(n)) => Mutation::AddToCell {
                    family,
                    qualifier,
                    timestamp_micros,
                    input: *n,
                },
                // A raw input is a HyperLogLog++ family's: the core's one-value sketch for it.
                Some(value::Kind::RawValue(b) | value::Kind::BytesValue(b)) => {
                    Mutation::MergeToCell {
                        family,
                        qualifier,
                        timestamp_micros,
                        state: aggregate::raw_input_state(b),
                    }
                }
                _ => {
                    return Err(Error::invalid_argument(format!(
                        "{field}.input must be an int_value, or a raw_value or bytes_value \
                         for a HyperLogLog++ family"
                    )))
                }
            }
        }
        Some(mutation::Mutation::MergeToCell(m)) => {
            let field = format!("mutations[{index}].merge_to_cell");
            Mutation::MergeToCell {
                family: m.family_name.clone(),
                qualifier: raw_bytes(&field, "column_qualifier", m.column_qualifier.as_ref())?,
                timestamp_micros: raw_timestamp(&field, m.timestamp.as_ref())?,
                // A state is bytes (the aggregate's encoding); an int64 state is also accepted
                // as an int_value, which is its 8-byte big-endian encoding.
                state: match m.input.as_ref().and_then(|v| v.kind.as_ref()) {
                    Some(value::Kind::RawValue(b) | value::Kind::BytesValue(b)) => b.clone(),
                    Some(value::Kind::IntValue(n)) => n.to_be_bytes().to_vec(),
                    _ => {
                        return Err(Error::invalid_argument(format!(
                            "{field}.input must be a raw_value, bytes_value or int_value"
                        )))
                    }
                },
            }
        }
        None => {
            return Err(Error::invalid_argument(format!(
                "mutations[{index}]: no mutation kind is set"
            )))
        }
    })
}

/// The message's range, as the core reads the wire values (end 0 is unbounded).
pub fn timestamp_range_from_proto(range: v2::TimestampRange) -> TimestampRange {
    TimestampRange::from_wire(range.start_timestamp_micros, range.end_timestamp_micros)
}

/// Converts a ReadRows row set; an absent set reads the whole table.
pub fn row_set_from_proto(rows: Option<&v2::RowSet>) -> RowSet {
    let Some(rows) = rows else {
        return RowSet::all();
    };
    RowSet {
        row_keys: rows.row_keys.clone(),
        row_ranges: rows.row_ranges.iter().map(row_range_from_proto).collect(),
    }
}

/// A `RowRange` message as the engine's range (an empty key as a bound is unbounded).
pub fn row_range_from_proto(r: &v2::RowRange) -> RowRange {
    RowRange::from_wire_bounds(
        match &r.start_key {
            Some(row_range::StartKey::StartKeyClosed(k)) => Bound::Included(k.clone()),
            Some(row_range::StartKey::StartKeyOpen(k)) => Bound::Excluded(k.clone()),
            None => Bound::Unbounded,
        },
        match &r.end_key {
            Some(row_range::EndKey::EndKeyClosed(k)) => Bound::Included(k.clone()),
            Some(row_range::EndKey::EndKeyOpen(k)) => Bound::Excluded(k.clone()),
            None => Bound::Unbounded,
        },
    )
}

/// The bytes of an aggregate mutation's qualifier `Value` (`raw_value` or `bytes_value`).
fn raw_bytes(field: &str, name: &str, v: Option<&v2::Value>) -> Result<Vec<u8>> {
    match v.and_then(|v| v.kind.as_ref()) {
        Some(value::Kind::RawValue(b) | value::Kind::BytesValue(b)) => Ok(b.clone()),
        _ => Err(Error::invalid_argument(format!(
            "{field}.{name} must be a raw_value"
        ))),
    }
}

/// The microseconds of an aggregate mutation's timestamp `Value` (`raw_timestamp_micros`).
fn raw_timestamp(field: &str, v: Option<&v2::Value>) -> Result<i64> {
    match v.and_then(|v| v.kind.as_ref()) {
        Some(value::Kind::RawTimestampMicros(t)) => Ok(*t),
        _ => Err(Error::invalid_argument(format!(
            "{field}.timestamp must be a raw_timestamp_micros"
        ))),
    }
}

/// Converts ReadModifyWriteRow's rules, in order.
///
/// # Errors
/// `InvalidArgument` for a rule with neither `append_value` nor `increment_amount`.
pub fn rules_from_proto(rules: &[v2::ReadModifyWriteRule]) -> Result<Vec<ReadModifyWriteRule>> {
    rules
        .iter()
        .enumerate()
        .map(|(i, r)| match &r.rule {
            Some(read_modify_write_rule::Rule::AppendValue(v)) => Ok(ReadModifyWriteRule::append(
                r.family_name.clone(),
                r.column_qualifier.clone(),
                v.clone(),
            )),
            Some(read_modify_write_rule::Rule::IncrementAmount(n)) => {
                Ok(ReadModifyWriteRule::increment(
                    r.family_name.clone(),
                    r.column_qualifier.clone(),
                    *n,
                ))
            }
            None => Err(Error::invalid_argument(format!(
                "rules[{i}]: one of append_value or increment_amount is required"
            ))),
        })
        .collect()
}

/// A row as the `Row` message (ReadModifyWriteRow's answer): families in order, each with its
/// columns in order, each with its cells newest first, as the engine returns them.
pub fn row_to_proto(row: Row) -> v2::Row {
    let mut families: Vec<v2::Family> = Vec::new();
    for Cell {
        family,
        qualifier,
        timestamp_micros,
        value,
        labels,
    } in row.cells
    {
        if families.last().is_none_or(|f| f.name != family) {
            families.push(v2::Family {
                name: family,
                columns: Vec::new(),
            });
        }
        let columns = &mut families.last_mut().expect("pushed above").columns;
        if columns.last().is_none_or(|c| c.qualifier != qualifier) {
            columns.push(v2::Column {
                qualifier,
                cells: Vec::new(),
            });
        }
        columns
            .last_mut()
            .expect("pushed above")
            .cells
            .push(v2::Cell {
                timestamp_micros,
                value,
                labels,
            });
    }
    v2::Row {
        key: row.key,
        families,
    }
}

/// A time in microseconds since the epoch as a `google.protobuf.Timestamp`.
pub fn timestamp_to_proto(micros: i64) -> prost_types::Timestamp {
    prost_types::Timestamp {
        seconds: micros.div_euclid(1_000_000),
        // In 0..1e9, so it fits an i32.
        nanos: (micros.rem_euclid(1_000_000) * 1000) as i32,
    }
}

/// A backup's description as the `Backup` message named `name` inside its instance; the
/// engine keeps no expiry, so `expire_time` is what the caller passes (the request's, on
/// creation) or unset.
pub fn backup_to_proto(
    name: &crate::names::BackupName,
    info: &sparsetable::BackupInfo,
    expire_time: Option<prost_types::Timestamp>,
) -> admin_v2::Backup {
    let taken = timestamp_to_proto(info.created_micros);
    admin_v2::Backup {
        name: name.to_string(),
        source_table: name.cluster.instance.table(&info.source_table).to_string(),
        expire_time,
        start_time: Some(taken),
        end_time: Some(taken),
        size_bytes: i64::try_from(info.size_bytes).unwrap_or(i64::MAX),
        state: admin_v2::backup::State::Ready as i32,
        backup_type: admin_v2::backup::BackupType::Standard as i32,
        // Nothing is encrypted with a customer's key here: Google's default, as Cloud
        // Bigtable reports for a backup without CMEK.
        encryption_info: Some(admin_v2::EncryptionInfo {
            encryption_type: admin_v2::encryption_info::EncryptionType::GoogleDefaultEncryption
                as i32,
            ..Default::default()
        }),
        ..Default::default()
    }
}
