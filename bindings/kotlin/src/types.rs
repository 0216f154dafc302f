//! The records that cross the FFI, and their conversions to and from the core's types.
//!
//! Each record mirrors one core type field by field; the conversions are total except where
//! a JVM type is wider than the core's (an `i64` count for a `u32`, a `u64` size for a
//! `usize`), and there they fail with `InvalidArgument` naming the field instead of
//! truncating. Core structs are built with `..Default::default()` so new core fields keep
//! their defaults here.

use sparsetable::Error;

pub use crate::bounds::ByteBound;
use crate::filter::RowFilter;

/// A column family's garbage-collection rule, as Bigtable's `GcRule`: its nodes in
/// post-order, the root last (a flat list, so no recursive type crosses the FFI; see
/// [`crate::tree`]).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct GcRule {
    /// The nodes; a list's members come before it, each node but the last is a member of
    /// exactly one list.
    pub nodes: Vec<GcRuleNode>,
}

/// One node of a [`GcRule`].
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum GcRuleNode {
    /// Keep everything.
    Never,
    /// Keep the newest `max_num_versions` cells of each column (at least 1).
    MaxNumVersions {
        /// How many versions to keep.
        max_num_versions: i64,
    },
    /// Drop cells older than now minus `max_age_micros` (at least 1000).
    MaxAge {
        /// The age limit in microseconds.
        max_age_micros: i64,
    },
    /// Drop a cell only if every rule would.
    Intersection {
        /// The node indices of the sub-rules.
        rules: Vec<u32>,
    },
    /// Drop a cell if any rule would.
    Union {
        /// The node indices of the sub-rules.
        rules: Vec<u32>,
    },
}

impl GcRule {
    /// The one-node rule `node` (a leaf).
    pub fn leaf(node: GcRuleNode) -> Self {
        GcRule { nodes: vec![node] }
    }
}

/// The precision of user timestamps a table accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum Granularity {
    /// Multiples of 1000 microseconds (Bigtable's default).
    Millis,
    /// Any microsecond.
    Micros,
}

/// What a family's cells hold, as Bigtable's column family `value_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum ValueType {
    /// Plain bytes written with SetCell (the default).
    Bytes,
    /// An aggregate: int64 cells that AddToCell sums.
    Int64Sum,
    /// An aggregate keeping the minimum int64 input.
    Int64Min,
    /// An aggregate keeping the maximum int64 input.
    Int64Max,
    /// Bigtable's HyperLogLog++ unique count aggregate: cells hold a sketch of the inputs.
    HllUniqueCount,
}

/// A column family's settings.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct FamilySettings {
    /// What garbage collection keeps.
    pub gc_rule: GcRule,
    /// What the cells hold; fixed when the family is created.
    pub value_type: ValueType,
}

/// Everything needed to create a table.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct TableConfig {
    /// Column families in the order they are created (the order reads return them in); a
    /// name given twice keeps its first place and its last settings.
    pub families: Vec<ColumnFamily>,
    /// Timestamp precision.
    pub granularity: Granularity,
    /// When set, deleting the table fails with `FAILED_PRECONDITION`.
    pub deletion_protection: bool,
    /// Row keys at which the table starts out split.
    pub initial_splits: Vec<Vec<u8>>,
    /// Largest accepted value in bytes; `None` keeps the core's default (100 MiB).
    pub max_value_bytes: Option<u64>,
    /// The row-key schema, if any (checked by the core against the families); defaults to
    /// none, so Kotlin code that builds a config without it keeps compiling.
    #[uniffi(default)]
    pub row_key_schema: Option<crate::row_key_schema::RowKeySchemaConfig>,
}

/// A column family as a table reports it.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ColumnFamily {
    /// The family's name.
    pub name: String,
    /// Its settings.
    pub settings: FamilySettings,
}

/// A table's id and schema, as `get_table` and `list_tables` report it.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct TableInfo {
    /// The table id.
    pub table_id: String,
    /// Families in creation order (the order reads return a row's families in).
    pub families: Vec<ColumnFamily>,
    /// Timestamp precision.
    pub granularity: Granularity,
    /// Whether deleting the table is refused.
    pub deletion_protection: bool,
    /// The split keys the table was created with.
    pub initial_splits: Vec<Vec<u8>>,
    /// Largest accepted value in bytes.
    pub max_value_bytes: u64,
    /// The row-key schema, if any.
    pub row_key_schema: Option<crate::row_key_schema::RowKeySchemaConfig>,
}

/// One change to a table's column families.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum FamilyModification {
    /// Adds a family.
    Create {
        /// Its name.
        name: String,
        /// Its settings.
        settings: FamilySettings,
    },
    /// Replaces a family's GC rule (its value type must stay as created).
    Update {
        /// Its name.
        name: String,
        /// The new settings.
        settings: FamilySettings,
    },
    /// Removes a family and its data.
    Drop {
        /// Its name.
        name: String,
    },
}

/// One change to one row, as Bigtable's `Mutation`.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum Mutation {
    /// Writes a value; `timestamp_micros = -1` means the database's current time.
    SetCell {
        /// Column family.
        family: String,
        /// Column qualifier.
        qualifier: Vec<u8>,
        /// Microseconds, or -1 for server time.
        timestamp_micros: i64,
        /// The value.
        value: Vec<u8>,
    },
    /// Merges an int64 into the cell of an aggregate family (Sum, Min, Max).
    AddToCell {
        /// An aggregate column family.
        family: String,
        /// Column qualifier.
        qualifier: Vec<u8>,
        /// Microseconds (no server time for aggregates).
        timestamp_micros: i64,
        /// The input to merge.
        input: i64,
    },
    /// Merges an aggregate state (8-byte big-endian int64) into the cell.
    MergeToCell {
        /// An aggregate column family.
        family: String,
        /// Column qualifier.
        qualifier: Vec<u8>,
        /// Microseconds.
        timestamp_micros: i64,
        /// The state to merge.
        state: Vec<u8>,
    },
    /// Deletes a column's cells in `[start_timestamp_micros, end_timestamp_micros)`.
    DeleteFromColumn {
        /// Column family.
        family: String,
        /// Column qualifier.
        qualifier: Vec<u8>,
        /// Inclusive start (0 = from the beginning).
        start_timestamp_micros: i64,
        /// Exclusive end; `None` or 0 = unbounded, as the proto reads an end of 0.
        end_timestamp_micros: Option<i64>,
    },
    /// Deletes every cell of a family in the row.
    DeleteFromFamily {
        /// Column family.
        family: String,
    },
    /// Deletes the whole row.
    DeleteFromRow,
}

/// A contiguous range of row keys, as Bigtable's `RowRange`.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct RowRange {
    /// Where it starts.
    pub start: ByteBound,
    /// Where it ends.
    pub end: ByteBound,
}

/// Which rows a read visits: keys plus ranges; both empty means the whole table.
#[derive(Debug, Clone, PartialEq, Eq, Default, uniffi::Record)]
pub struct RowSet {
    /// Individual row keys.
    pub row_keys: Vec<Vec<u8>>,
    /// Key ranges.
    pub row_ranges: Vec<RowRange>,
}

/// What to read.
#[derive(Debug, Clone, PartialEq, Default, uniffi::Record)]
pub struct ReadRowsRequest {
    /// The rows to visit.
    pub row_set: RowSet,
    /// What to keep of each row; `None` keeps everything.
    pub filter: Option<RowFilter>,
    /// Most rows to return; 0 = no limit.
    pub rows_limit: i64,
    /// Descending key order.
    pub reversed: bool,
}

/// One timestamped value of one column.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct Cell {
    /// Column family.
    pub family: String,
    /// Column qualifier.
    pub qualifier: Vec<u8>,
    /// Microseconds since the Unix epoch.
    pub timestamp_micros: i64,
    /// The value.
    pub value: Vec<u8>,
    /// Labels attached by a filter.
    pub labels: Vec<String>,
}

/// A row as a read returns it, cells in Bigtable order.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct Row {
    /// The row key.
    pub key: Vec<u8>,
    /// The cells.
    pub cells: Vec<Cell>,
}

impl TryFrom<GcRule> for sparsetable::GcRule {
    type Error = Error;

    fn try_from(rule: GcRule) -> Result<Self, Error> {
        let nodes = rule.nodes;
        crate::tree::check(
            nodes.len(),
            |i| match &nodes[i] {
                GcRuleNode::Intersection { rules } | GcRuleNode::Union { rules } => rules.clone(),
                _ => Vec::new(),
            },
            &sparsetable::limits::GC_RULE_TREE,
        )?;
        let mut built: Vec<Option<sparsetable::GcRule>> = Vec::with_capacity(nodes.len());
        let members = |built: &mut Vec<Option<sparsetable::GcRule>>, rules: Vec<u32>| {
            rules
                .into_iter()
                .map(|i| crate::tree::take(built, i))
                .collect::<Result<Vec<_>, _>>()
        };
        for node in nodes {
            let core = match node {
                GcRuleNode::Never => sparsetable::GcRule::Never,
                GcRuleNode::MaxNumVersions { max_num_versions } => {
                    sparsetable::GcRule::MaxNumVersions(u32::try_from(max_num_versions).map_err(
                        |_| {
                            Error::invalid_argument(format!(
                                "gc_rule.max_num_versions {max_num_versions} is outside 1..={}",
                                u32::MAX
                            ))
                        },
                    )?)
                }
                GcRuleNode::MaxAge { max_age_micros } => sparsetable::GcRule::MaxAge {
                    micros: max_age_micros,
                },
                GcRuleNode::Intersection { rules } => {
                    sparsetable::GcRule::Intersection(members(&mut built, rules)?)
                }
                GcRuleNode::Union { rules } => {
                    sparsetable::GcRule::Union(members(&mut built, rules)?)
                }
            };
            built.push(Some(core));
        }
        let root = built.len() as u32 - 1;
        crate::tree::take(&mut built, root)
    }
}

impl From<sparsetable::GcRule> for GcRule {
    /// Post-order flattening. Recursive, but only over rules the core holds, which it
    /// validated to at most `MAX_GC_RULE_DEPTH` levels (on input and when reading them back).
    fn from(rule: sparsetable::GcRule) -> Self {
        fn push(rule: sparsetable::GcRule, out: &mut Vec<GcRuleNode>) -> u32 {
            let node = match rule {
                sparsetable::GcRule::Never => GcRuleNode::Never,
                sparsetable::GcRule::MaxNumVersions(n) => GcRuleNode::MaxNumVersions {
                    max_num_versions: i64::from(n),
                },
                sparsetable::GcRule::MaxAge { micros } => GcRuleNode::MaxAge {
                    max_age_micros: micros,
                },
                sparsetable::GcRule::Intersection(rules) => GcRuleNode::Intersection {
                    rules: rules.into_iter().map(|r| push(r, out)).collect(),
                },
                sparsetable::GcRule::Union(rules) => GcRuleNode::Union {
                    rules: rules.into_iter().map(|r| push(r, out)).collect(),
                },
            };
            out.push(node);
            out.len() as u32 - 1
        }
        let mut nodes = Vec::new();
        push(rule, &mut nodes);
        GcRule { nodes }
    }
}

impl From<Granularity> for sparsetable::Granularity {
    fn from(g: Granularity) -> Self {
        match g {
            Granularity::Millis => sparsetable::Granularity::Millis,
            Granularity::Micros => sparsetable::Granularity::Micros,
        }
    }
}

impl From<sparsetable::Granularity> for Granularity {
    fn from(g: sparsetable::Granularity) -> Self {
        match g {
            sparsetable::Granularity::Millis => Granularity::Millis,
            sparsetable::Granularity::Micros => Granularity::Micros,
        }
    }
}

impl From<ValueType> for sparsetable::ValueType {
    fn from(v: ValueType) -> Self {
        match v {
            ValueType::Bytes => sparsetable::ValueType::Bytes,
            ValueType::Int64Sum => sparsetable::ValueType::Int64Sum,
            ValueType::Int64Min => sparsetable::ValueType::Int64Min,
            ValueType::Int64Max => sparsetable::ValueType::Int64Max,
            ValueType::HllUniqueCount => sparsetable::ValueType::HllUniqueCount,
        }
    }
}

impl From<sparsetable::ValueType> for ValueType {
    fn from(v: sparsetable::ValueType) -> Self {
        match v {
            sparsetable::ValueType::Bytes => ValueType::Bytes,
            sparsetable::ValueType::Int64Sum => ValueType::Int64Sum,
            sparsetable::ValueType::Int64Min => ValueType::Int64Min,
            sparsetable::ValueType::Int64Max => ValueType::Int64Max,
            sparsetable::ValueType::HllUniqueCount => ValueType::HllUniqueCount,
        }
    }
}

impl TryFrom<FamilySettings> for sparsetable::ColumnFamily {
    type Error = Error;

    // Every field is set today; the update keeps core fields added later at their defaults.
    #[allow(clippy::needless_update)]
    fn try_from(f: FamilySettings) -> Result<Self, Error> {
        Ok(sparsetable::ColumnFamily {
            gc_rule: f.gc_rule.try_into()?,
            value_type: f.value_type.into(),
            ..Default::default()
        })
    }
}

impl From<sparsetable::ColumnFamily> for FamilySettings {
    fn from(f: sparsetable::ColumnFamily) -> Self {
        FamilySettings {
            gc_rule: f.gc_rule.into(),
            value_type: f.value_type.into(),
        }
    }
}

impl TryFrom<TableConfig> for sparsetable::TableConfig {
    type Error = Error;

    // Every field is set today; the update keeps core fields added later at their defaults.
    #[allow(clippy::needless_update)]
    fn try_from(config: TableConfig) -> Result<Self, Error> {
        let defaults = sparsetable::TableConfig::default();
        let max_value_bytes = match config.max_value_bytes {
            None => defaults.max_value_bytes,
            Some(n) => usize::try_from(n).map_err(|_| {
                Error::invalid_argument(format!("max_value_bytes {n} is too large"))
            })?,
        };
        let mut families = sparsetable::Families::new();
        for family in config.families {
            families.insert(family.name, family.settings.try_into()?);
        }
        Ok(sparsetable::TableConfig {
            families,
            granularity: config.granularity.into(),
            deletion_protection: config.deletion_protection,
            initial_splits: config.initial_splits,
            max_value_bytes,
            row_key_schema: config.row_key_schema.map(Into::into),
            ..defaults
        })
    }
}

impl From<sparsetable::TableInfo> for TableInfo {
    fn from(info: sparsetable::TableInfo) -> Self {
        let config = info.config;
        TableInfo {
            table_id: info.name,
            families: config
                .families
                .into_iter()
                .map(|(name, family)| ColumnFamily {
                    name,
                    settings: family.into(),
                })
                .collect(),
            granularity: config.granularity.into(),
            deletion_protection: config.deletion_protection,
            initial_splits: config.initial_splits,
            // usize fits u64 on every platform Rust supports.
            max_value_bytes: config.max_value_bytes as u64,
            row_key_schema: config.row_key_schema.map(Into::into),
        }
    }
}

impl TryFrom<FamilyModification> for sparsetable::FamilyModification {
    type Error = Error;

    fn try_from(m: FamilyModification) -> Result<Self, Error> {
        Ok(match m {
            FamilyModification::Create { name, settings } => {
                sparsetable::FamilyModification::Create {
                    name,
                    family: settings.try_into()?,
                }
            }
            FamilyModification::Update { name, settings } => {
                sparsetable::FamilyModification::Update {
                    name,
                    family: settings.try_into()?,
                }
            }
            FamilyModification::Drop { name } => sparsetable::FamilyModification::Drop { name },
        })
    }
}

impl From<Mutation> for sparsetable::Mutation {
    fn from(m: Mutation) -> Self {
        match m {
            Mutation::SetCell {
                family,
                qualifier,
                timestamp_micros,
                value,
            } => sparsetable::Mutation::SetCell {
                family,
                qualifier,
                timestamp_micros,
                value,
            },
            Mutation::AddToCell {
                family,
                qualifier,
                timestamp_micros,
                input,
            } => sparsetable::Mutation::AddToCell {
                family,
                qualifier,
                timestamp_micros,
                input,
            },
            Mutation::MergeToCell {
                family,
                qualifier,
                timestamp_micros,
                state,
            } => sparsetable::Mutation::MergeToCell {
                family,
                qualifier,
                timestamp_micros,
                state,
            },
            Mutation::DeleteFromColumn {
                family,
                qualifier,
                start_timestamp_micros,
                end_timestamp_micros,
            } => sparsetable::Mutation::DeleteFromColumn {
                family,
                qualifier,
                // An unset end is the proto's 0; the core reads the wire values (an end of 0
                // is unbounded, whether given or not).
                time_range: sparsetable::TimestampRange::from_wire(
                    start_timestamp_micros,
                    end_timestamp_micros.unwrap_or(0),
                ),
            },
            Mutation::DeleteFromFamily { family } => {
                sparsetable::Mutation::DeleteFromFamily { family }
            }
            Mutation::DeleteFromRow => sparsetable::Mutation::DeleteFromRow,
        }
    }
}

impl From<RowRange> for sparsetable::RowRange {
    /// The core applies the wire rule: an empty key as a bound is unbounded.
    fn from(r: RowRange) -> Self {
        sparsetable::RowRange::from_wire_bounds(r.start.into(), r.end.into())
    }
}

impl From<sparsetable::RowRange> for RowRange {
    fn from(r: sparsetable::RowRange) -> Self {
        RowRange {
            start: r.start.into(),
            end: r.end.into(),
        }
    }
}

impl TryFrom<ReadRowsRequest> for sparsetable::ReadRowsRequest {
    type Error = Error;

    // Every field is set today; the update keeps core fields added later at their defaults.
    #[allow(clippy::needless_update)]
    fn try_from(r: ReadRowsRequest) -> Result<Self, Error> {
        Ok(sparsetable::ReadRowsRequest {
            row_set: sparsetable::RowSet {
                row_keys: r.row_set.row_keys,
                row_ranges: r.row_set.row_ranges.into_iter().map(Into::into).collect(),
            },
            filter: r
                .filter
                .map(TryInto::try_into)
                .transpose()?
                .unwrap_or_default(),
            rows_limit: r.rows_limit,
            reversed: r.reversed,
            ..Default::default()
        })
    }
}

impl From<sparsetable::Row> for Row {
    fn from(row: sparsetable::Row) -> Self {
        Row {
            key: row.key,
            cells: row
                .cells
                .into_iter()
                .map(|c| Cell {
                    family: c.family,
                    qualifier: c.qualifier,
                    timestamp_micros: c.timestamp_micros,
                    value: c.value,
                    labels: c.labels,
                })
                .collect(),
        }
    }
}

/// A `MaxAge` GC rule from a `java.time.Duration`'s `seconds` and `nano`: the core converts
/// it as it converts the proto's `Duration` (nanoseconds truncated to microseconds).
///
/// # Errors
/// `INVALID_ARGUMENT` for a negative duration or one whose microseconds overflow 64 bits.
#[uniffi::export]
pub fn gc_rule_max_age(seconds: i64, nanos: i32) -> Result<GcRule, crate::error::SparsetableError> {
    sparsetable::GcRule::max_age_from_duration(seconds, nanos)
        .map(Into::into)
        .map_err(crate::error::to_ffi)
}

/// The engine's limits on filter and GC rule trees, which the Kotlin API checks while it
/// converts a tree, before the tree crosses the FFI: the generated glue writes, and uniffi
/// reads, a nested enum one recursive call per level, and a filter about 500 levels deep
/// overflowed the native stack there (a segfault of the whole JVM).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct TreeLimits {
    /// `limits::MAX_FILTER_DEPTH`.
    pub max_filter_depth: u32,
    /// `limits::MAX_FILTER_NODES`.
    pub max_filter_nodes: u32,
    /// `limits::MAX_GC_RULE_DEPTH`.
    pub max_gc_rule_depth: u32,
    /// `limits::MAX_GC_RULE_NODES`.
    pub max_gc_rule_nodes: u32,
    /// The core's message for a filter nested too deep.
    pub filter_too_deep: String,
    /// The core's message for a filter with too many filters.
    pub filter_too_many: String,
    /// The core's message for a GC rule nested too deep.
    pub gc_rule_too_deep: String,
    /// The core's message for a GC rule with too many rules.
    pub gc_rule_too_many: String,
}

/// The engine's [`TreeLimits`].
#[uniffi::export]
pub fn tree_limits() -> TreeLimits {
    use sparsetable::limits::{FILTER_TREE, GC_RULE_TREE};
    // The limits are small constants; saturate rather than assume.
    let u = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    TreeLimits {
        max_filter_depth: u(FILTER_TREE.max_depth),
        max_filter_nodes: u(FILTER_TREE.max_nodes),
        max_gc_rule_depth: u(GC_RULE_TREE.max_depth),
        max_gc_rule_nodes: u(GC_RULE_TREE.max_nodes),
        filter_too_deep: FILTER_TREE.too_deep_message(),
        filter_too_many: FILTER_TREE.too_many_message(),
        gc_rule_too_deep: GC_RULE_TREE.too_deep_message(),
        gc_rule_too_many: GC_RULE_TREE.too_many_message(),
    }
}

/// Refuses a cell value of `len` bytes over a table's `limit` with the core's words, so the
/// Kotlin API can check a large value before the FFI copies it and still say what the engine
/// would.
///
/// # Errors
/// `INVALID_ARGUMENT` when `len > limit`.
#[uniffi::export]
pub fn check_value_size(len: u64, limit: u64) -> Result<(), crate::error::SparsetableError> {
    if len <= limit {
        return Ok(());
    }
    // Sizes beyond usize cannot be values in memory; saturate rather than assume.
    let us = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    Err(crate::error::to_ffi(sparsetable::Error::invalid_argument(
        sparsetable::limits::value_too_large_message(us(len), us(limit)),
    )))
}

/// The range of every row key that starts with `prefix` (the core computes its end).
#[uniffi::export]
pub fn row_range_prefix(prefix: Vec<u8>) -> RowRange {
    sparsetable::RowRange::prefix(prefix).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_oversized_value_is_refused_in_the_cores_words() {
        assert_eq!(check_value_size(4, 4), Ok(()));
        let e = check_value_size(5, 4).unwrap_err();
        assert_eq!(e.code(), "INVALID_ARGUMENT");
        assert_eq!(
            e.reason(),
            sparsetable::limits::value_too_large_message(5, 4)
        );
    }

    #[test]
    fn gc_rule_round_trips_through_the_core() {
        use GcRuleNode::*;
        let rule = GcRule {
            nodes: vec![
                MaxNumVersions {
                    max_num_versions: 2,
                },
                MaxAge {
                    max_age_micros: 5_000,
                },
                Never,
                Intersection { rules: vec![1, 2] },
                Union { rules: vec![0, 3] },
            ],
        };
        let core: sparsetable::GcRule = rule.clone().try_into().unwrap();
        assert_eq!(GcRule::from(core), rule);
    }

    #[test]
    fn version_count_wider_than_u32_is_invalid_argument() {
        for n in [-1, i64::from(u32::MAX) + 1] {
            let err = sparsetable::GcRule::try_from(GcRule::leaf(GcRuleNode::MaxNumVersions {
                max_num_versions: n,
            }))
            .unwrap_err();
            assert_eq!(err.code(), sparsetable::Code::InvalidArgument);
        }
    }

    #[test]
    fn delete_from_column_end_zero_is_unbounded_as_on_the_wire() {
        for end in [None, Some(0)] {
            let m: sparsetable::Mutation = Mutation::DeleteFromColumn {
                family: "cf".into(),
                qualifier: b"q".to_vec(),
                start_timestamp_micros: 0,
                end_timestamp_micros: end,
            }
            .into();
            let sparsetable::Mutation::DeleteFromColumn { time_range, .. } = m else {
                panic!("converted to {m:?}");
            };
            assert_eq!(
                time_range,
                sparsetable::TimestampRange::default(),
                "{end:?}"
            );
        }
    }

    #[test]
    fn empty_row_range_keys_are_unbounded() {
        let r: sparsetable::RowRange = RowRange {
            start: ByteBound::Open { key: vec![] },
            end: ByteBound::Closed { key: vec![] },
        }
        .into();
        assert_eq!(r, sparsetable::RowRange::all());
    }

    #[test]
    fn prefix_range_ends_at_the_prefix_successor() {
        let r = row_range_prefix(b"ab\xff".to_vec());
        assert_eq!(
            r.start,
            ByteBound::Closed {
                key: b"ab\xff".to_vec()
            }
        );
        assert_eq!(
            r.end,
            ByteBound::Open {
                key: b"ac".to_vec()
            }
        );
        assert_eq!(row_range_prefix(vec![0xff]).end, ByteBound::Unbounded);
    }
}
