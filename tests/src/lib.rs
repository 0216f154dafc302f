//! The shared test vectors (tests/vectors/*.json): their types, loading, capabilities, and a
//! replay against the core engine.
//!
//! The format is specified in tests/vectors/README.md. Rust runners (the core's and the
//! server's) use this crate; the WASM, Python and Kotlin runners parse the same JSON in their
//! own language. Parsing is strict (`deny_unknown_fields`) so a typo in a vector fails loudly
//! instead of silently testing less.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde::Deserialize;
use sparsetable::{
    ColumnFamily, Database, DropRowRange, FamilyModification, GcRule, Granularity, ManualClock,
    Mutation, ReadModifyWriteRule, ReadRowsRequest, Row, RowFilter, RowMutations, RowRange, RowSet,
    TableConfig, TimestampRange, ValueType,
};

/// The clock a vector starts at unless it says otherwise.
pub const DEFAULT_CLOCK_MICROS: i64 = 1_700_000_000_000_000;

/// Bytes as the vectors write them: a UTF-8 string or `{"base64": "..."}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bytes(pub Vec<u8>);

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Repr {
            Text(String),
            Base64 { base64: String },
            Int64 { int64: i64 },
        }
        match Repr::deserialize(d)? {
            Repr::Text(s) => Ok(Bytes(s.into_bytes())),
            Repr::Int64 { int64 } => Ok(Bytes(int64.to_be_bytes().to_vec())),
            Repr::Base64 { base64 } => base64::engine::general_purpose::STANDARD
                .decode(base64.as_bytes())
                .map(Bytes)
                .map_err(serde::de::Error::custom),
        }
    }
}

/// A file of vectors.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VectorFile {
    /// The vectors in the file.
    pub vectors: Vec<Vector>,
}

/// One test vector.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vector {
    /// Unique name.
    pub name: String,
    /// What the vector checks.
    #[serde(default)]
    pub description: String,
    /// The manual clock's start, if the vector sets it.
    pub clock_micros: Option<i64>,
    /// Tables created before the ops run.
    #[serde(default)]
    pub tables: BTreeMap<String, TableSpec>,
    /// The operations, in order.
    pub ops: Vec<Op>,
}

impl Vector {
    /// The manual clock's start.
    pub fn start_micros(&self) -> i64 {
        self.clock_micros.unwrap_or(DEFAULT_CLOCK_MICROS)
    }
}

/// A table's schema in a vector.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    /// Families by name.
    #[serde(default)]
    pub families: BTreeMap<String, FamilySpec>,
    /// `MILLIS` or `MICROS`.
    pub granularity: Option<String>,
    /// Deletion protection.
    pub deletion_protection: Option<bool>,
    /// Initial tablet boundaries.
    pub initial_splits: Option<Vec<Bytes>>,
}

/// A family's settings in a vector.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FamilySpec {
    /// The GC rule, if any.
    pub gc_rule: Option<GcRuleSpec>,
    /// `INT64_SUM`, `INT64_MIN` or `INT64_MAX` for an aggregate family.
    pub value_type: Option<String>,
}

/// A GC rule in a vector.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum GcRuleSpec {
    /// Keep the newest N cells per column.
    MaxNumVersions(u32),
    /// Drop cells older than now minus this many microseconds.
    MaxAgeMicros(i64),
    /// Drop only what every sub-rule drops.
    Intersection(Vec<GcRuleSpec>),
    /// Drop what any sub-rule drops.
    Union(Vec<GcRuleSpec>),
}

/// One operation of a vector (tests/vectors/README.md, "Ops").
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Op {
    /// Create a table.
    CreateTable {
        /// The table id.
        table: String,
        /// Its schema.
        spec: TableSpec,
        /// The expected error code, if the op must fail.
        expect_error: Option<String>,
    },
    /// Apply mutations to one row.
    MutateRow {
        /// The table id.
        #[serde(default = "default_table")]
        table: String,
        /// The row.
        row_key: Bytes,
        /// The mutations.
        mutations: Vec<MutationSpec>,
        /// The expected error code.
        expect_error: Option<String>,
    },
    /// Apply a batch of row mutations.
    MutateRows {
        /// The table id.
        #[serde(default = "default_table")]
        table: String,
        /// The entries.
        entries: Vec<EntrySpec>,
        /// One code per entry (`OK` for success).
        expect_statuses: Option<Vec<String>>,
        /// The expected error code for the whole call.
        expect_error: Option<String>,
    },
    /// Conditional mutation.
    CheckAndMutateRow {
        /// The table id.
        #[serde(default = "default_table")]
        table: String,
        /// The row.
        row_key: Bytes,
        /// The predicate; absent = the row has any cell.
        predicate_filter: Option<FilterSpec>,
        /// Applied when the predicate matches.
        #[serde(default)]
        true_mutations: Vec<MutationSpec>,
        /// Applied otherwise.
        #[serde(default)]
        false_mutations: Vec<MutationSpec>,
        /// Whether the predicate should match.
        expect_matched: Option<bool>,
        /// The expected error code.
        expect_error: Option<String>,
    },
    /// Append/increment.
    ReadModifyWriteRow {
        /// The table id.
        #[serde(default = "default_table")]
        table: String,
        /// The row.
        row_key: Bytes,
        /// The rules.
        rules: Vec<RuleSpec>,
        /// The new cells.
        expect_row: Option<RowSpec>,
        /// The expected error code.
        expect_error: Option<String>,
    },
    /// Read one row.
    ReadRow {
        /// The table id.
        #[serde(default = "default_table")]
        table: String,
        /// The row.
        row_key: Bytes,
        /// The filter.
        filter: Option<FilterSpec>,
        /// The expected row (`None` = no row), unless an error is expected.
        #[serde(default)]
        expect_row: Option<RowSpec>,
        /// The expected error code.
        expect_error: Option<String>,
    },
    /// Read rows.
    ReadRows {
        /// The table id.
        #[serde(default = "default_table")]
        table: String,
        /// Which rows.
        row_set: Option<RowSetSpec>,
        /// The filter.
        filter: Option<FilterSpec>,
        /// Most rows.
        rows_limit: Option<i64>,
        /// Descending order.
        reversed: Option<bool>,
        /// The expected rows, unless an error is expected.
        expect_rows: Option<Vec<RowSpec>>,
        /// The expected error code.
        expect_error: Option<String>,
    },
    /// SampleRowKeys.
    SampleRowKeys {
        /// The table id.
        #[serde(default = "default_table")]
        table: String,
        /// The boundary keys.
        expect_keys: Option<Vec<Bytes>>,
        /// The expected error code.
        expect_error: Option<String>,
    },
    /// DropRowRange.
    DropRowRange {
        /// The table id.
        #[serde(default = "default_table")]
        table: String,
        /// Prefix to drop.
        row_key_prefix: Option<Bytes>,
        /// Drop everything.
        delete_all_data_from_table: Option<bool>,
        /// The expected error code.
        expect_error: Option<String>,
    },
    /// ModifyColumnFamilies.
    ModifyColumnFamilies {
        /// The table id.
        #[serde(default = "default_table")]
        table: String,
        /// The modifications.
        modifications: Vec<ModificationSpec>,
        /// The expected error code.
        expect_error: Option<String>,
    },
    /// GetTable.
    GetTable {
        /// The table id.
        #[serde(default = "default_table")]
        table: String,
        /// The families.
        expect_families: Option<BTreeMap<String, FamilySpec>>,
        /// Deletion protection.
        expect_deletion_protection: Option<bool>,
        /// The expected error code.
        expect_error: Option<String>,
    },
    /// ListTables.
    ListTables {
        /// The ids.
        expect_tables: Vec<String>,
    },
    /// DeleteTable.
    DeleteTable {
        /// The table id.
        #[serde(default = "default_table")]
        table: String,
        /// The expected error code.
        expect_error: Option<String>,
    },
    /// UpdateTable (deletion protection).
    UpdateTable {
        /// The table id.
        #[serde(default = "default_table")]
        table: String,
        /// New setting.
        deletion_protection: bool,
        /// The expected error code.
        expect_error: Option<String>,
    },
    /// Moves the manual clock.
    AdvanceClock {
        /// Microseconds to add.
        micros: i64,
    },
}

fn default_table() -> String {
    "t".to_string()
}

/// A MutateRows entry.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntrySpec {
    /// The row.
    pub row_key: Bytes,
    /// Its mutations.
    pub mutations: Vec<MutationSpec>,
}

/// A ReadModifyWriteRow rule.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleSpec {
    /// Family.
    pub family: String,
    /// Qualifier.
    pub qualifier: Bytes,
    /// Bytes to append.
    pub append_value: Option<Bytes>,
    /// Amount to add.
    pub increment_amount: Option<i64>,
}

/// A ModifyColumnFamilies modification.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModificationSpec {
    /// Family name.
    pub id: String,
    /// Create with these settings.
    pub create: Option<FamilySpec>,
    /// Update to these settings.
    pub update: Option<FamilySpec>,
    /// Drop.
    pub drop: Option<bool>,
}

/// A mutation in a vector.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum MutationSpec {
    /// SetCell.
    SetCell {
        /// Family.
        family: String,
        /// Qualifier.
        qualifier: Bytes,
        /// Timestamp (-1 = server time).
        timestamp_micros: i64,
        /// Value.
        value: Bytes,
    },
    /// AddToCell.
    AddToCell {
        /// Family.
        family: String,
        /// Qualifier.
        qualifier: Bytes,
        /// Timestamp.
        timestamp_micros: i64,
        /// Input.
        input: i64,
    },
    /// MergeToCell.
    MergeToCell {
        /// Family.
        family: String,
        /// Qualifier.
        qualifier: Bytes,
        /// Timestamp.
        timestamp_micros: i64,
        /// State.
        input: Bytes,
    },
    /// DeleteFromColumn.
    DeleteFromColumn {
        /// Family.
        family: String,
        /// Qualifier.
        qualifier: Bytes,
        /// Range start (inclusive).
        start_timestamp_micros: Option<i64>,
        /// Range end (exclusive); absent = unbounded.
        end_timestamp_micros: Option<i64>,
    },
    /// DeleteFromFamily.
    DeleteFromFamily {
        /// Family.
        family: String,
    },
    /// DeleteFromRow.
    DeleteFromRow {},
}

/// A filter in a vector: the proto's oneof names.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum FilterSpec {
    /// Chain.
    Chain(Vec<FilterSpec>),
    /// Interleave.
    Interleave(Vec<FilterSpec>),
    /// Condition.
    Condition(Box<ConditionSpec>),
    /// Sink.
    Sink(bool),
    /// PassAll.
    PassAllFilter(bool),
    /// BlockAll.
    BlockAllFilter(bool),
    /// Row key regex.
    RowKeyRegexFilter(Bytes),
    /// Row sample.
    RowSampleFilter(f64),
    /// Family regex.
    FamilyNameRegexFilter(String),
    /// Qualifier regex.
    ColumnQualifierRegexFilter(Bytes),
    /// Column range.
    ColumnRangeFilter(ColumnRangeSpec),
    /// Timestamp range.
    TimestampRangeFilter(TimestampRangeSpec),
    /// Value regex.
    ValueRegexFilter(Bytes),
    /// Value range.
    ValueRangeFilter(ValueRangeSpec),
    /// Row offset.
    CellsPerRowOffsetFilter(i32),
    /// Row limit.
    CellsPerRowLimitFilter(i32),
    /// Column limit.
    CellsPerColumnLimitFilter(i32),
    /// Strip value.
    StripValueTransformer(bool),
    /// Label.
    ApplyLabelTransformer(String),
    /// Bitmask.
    ValueBitmaskFilter(Bytes),
}

/// A condition filter.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConditionSpec {
    /// Predicate.
    pub predicate_filter: FilterSpec,
    /// True branch.
    pub true_filter: Option<FilterSpec>,
    /// False branch.
    pub false_filter: Option<FilterSpec>,
}

/// A column range.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnRangeSpec {
    /// Family.
    pub family_name: String,
    /// Inclusive start.
    pub start_qualifier_closed: Option<Bytes>,
    /// Exclusive start.
    pub start_qualifier_open: Option<Bytes>,
    /// Inclusive end.
    pub end_qualifier_closed: Option<Bytes>,
    /// Exclusive end.
    pub end_qualifier_open: Option<Bytes>,
}

/// A timestamp range.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimestampRangeSpec {
    /// Inclusive start.
    pub start_timestamp_micros: Option<i64>,
    /// Exclusive end; 0 or absent = unbounded.
    pub end_timestamp_micros: Option<i64>,
}

/// A value range.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValueRangeSpec {
    /// Inclusive start.
    pub start_value_closed: Option<Bytes>,
    /// Exclusive start.
    pub start_value_open: Option<Bytes>,
    /// Inclusive end.
    pub end_value_closed: Option<Bytes>,
    /// Exclusive end.
    pub end_value_open: Option<Bytes>,
}

/// A row set in a vector.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowSetSpec {
    /// Keys.
    #[serde(default)]
    pub row_keys: Vec<Bytes>,
    /// Ranges.
    #[serde(default)]
    pub row_ranges: Vec<RowRangeSpec>,
}

/// A row range in a vector, as Bigtable's `RowRange`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowRangeSpec {
    /// Inclusive start.
    pub start_key_closed: Option<Bytes>,
    /// Exclusive start.
    pub start_key_open: Option<Bytes>,
    /// Inclusive end.
    pub end_key_closed: Option<Bytes>,
    /// Exclusive end.
    pub end_key_open: Option<Bytes>,
}

/// An expected row.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowSpec {
    /// Row key.
    pub key: Bytes,
    /// Cells in Bigtable order.
    pub cells: Vec<CellSpec>,
}

/// An expected cell.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CellSpec {
    /// Family.
    pub family: String,
    /// Qualifier.
    pub qualifier: Bytes,
    /// Timestamp.
    pub timestamp_micros: i64,
    /// Value.
    pub value: Bytes,
    /// Labels.
    #[serde(default)]
    pub labels: Vec<String>,
}

/// The folder holding the vectors.
pub fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors")
}

/// Loads every vector, sorted by file then position.
///
/// # Panics
/// If a file cannot be read or parsed, or two vectors share a name: the vectors are test
/// input, and a broken one must stop the run.
pub fn load_all() -> Vec<Vector> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(vectors_dir())
        .expect("read tests/vectors")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut all = Vec::new();
    let mut names = BTreeSet::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read vector file");
        let file: VectorFile =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        for v in file.vectors {
            assert!(
                names.insert(v.name.clone()),
                "duplicate vector name {}",
                v.name
            );
            all.push(v);
        }
    }
    all
}

fn add(caps: &mut BTreeSet<String>, cap: impl Into<String>) {
    caps.insert(cap.into());
}

impl TableSpec {
    fn capabilities(&self, caps: &mut BTreeSet<String>) {
        for f in self.families.values() {
            f.capabilities(caps);
        }
        if self.granularity.is_some() {
            add(caps, "schema:granularity");
        }
        if self.deletion_protection.is_some() {
            add(caps, "schema:deletion_protection");
        }
        if self.initial_splits.is_some() {
            add(caps, "schema:initial_splits");
        }
    }
}

impl FamilySpec {
    fn capabilities(&self, caps: &mut BTreeSet<String>) {
        if let Some(rule) = &self.gc_rule {
            add(caps, "schema:gc_rule");
            if rule.has_max_age() {
                add(caps, "clock");
            }
        }
        if self.value_type.is_some() {
            add(caps, "schema:value_type");
        }
    }
}

impl GcRuleSpec {
    fn has_max_age(&self) -> bool {
        match self {
            GcRuleSpec::MaxAgeMicros(_) => true,
            GcRuleSpec::MaxNumVersions(_) => false,
            GcRuleSpec::Intersection(r) | GcRuleSpec::Union(r) => r.iter().any(Self::has_max_age),
        }
    }
}

impl Vector {
    /// The capabilities the vector needs (tests/vectors/README.md).
    pub fn capabilities(&self) -> BTreeSet<String> {
        let mut caps = BTreeSet::new();
        if self.clock_micros.is_some() {
            add(&mut caps, "clock");
        }
        if !self.tables.is_empty() {
            add(&mut caps, "op:create_table");
        }
        for spec in self.tables.values() {
            spec.capabilities(&mut caps);
        }
        let muts = |ms: &[MutationSpec], caps: &mut BTreeSet<String>| {
            for m in ms {
                add(caps, format!("mutation:{}", m.kind()));
                if let MutationSpec::SetCell {
                    timestamp_micros: -1,
                    ..
                } = m
                {
                    add(caps, "clock");
                }
            }
        };
        for op in &self.ops {
            add(&mut caps, format!("op:{}", op.name()));
            if op.expect_error().is_some() {
                add(&mut caps, "error");
            }
            match op {
                Op::CreateTable { spec, .. } => spec.capabilities(&mut caps),
                Op::MutateRow { mutations, .. } => muts(mutations, &mut caps),
                Op::MutateRows {
                    entries,
                    expect_statuses,
                    ..
                } => {
                    for e in entries {
                        muts(&e.mutations, &mut caps);
                    }
                    if expect_statuses.iter().flatten().any(|s| s != "OK") {
                        add(&mut caps, "error");
                    }
                }
                Op::CheckAndMutateRow {
                    predicate_filter,
                    true_mutations,
                    false_mutations,
                    ..
                } => {
                    if let Some(f) = predicate_filter {
                        f.capabilities(&mut caps);
                    }
                    muts(true_mutations, &mut caps);
                    muts(false_mutations, &mut caps);
                }
                Op::ReadModifyWriteRow { .. } | Op::AdvanceClock { .. } => add(&mut caps, "clock"),
                Op::ReadRow { filter, .. } => {
                    if let Some(f) = filter {
                        f.capabilities(&mut caps);
                    }
                }
                Op::ReadRows {
                    row_set,
                    filter,
                    rows_limit,
                    reversed,
                    ..
                } => {
                    if let Some(f) = filter {
                        f.capabilities(&mut caps);
                    }
                    for (present, cap) in [
                        (row_set.is_some(), "read:row_set"),
                        (rows_limit.is_some(), "read:rows_limit"),
                        (reversed.is_some(), "read:reversed"),
                    ] {
                        if present {
                            add(&mut caps, cap);
                        }
                    }
                }
                Op::ModifyColumnFamilies { modifications, .. } => {
                    for m in modifications {
                        for f in [&m.create, &m.update].into_iter().flatten() {
                            f.capabilities(&mut caps);
                        }
                    }
                }
                Op::GetTable { .. }
                | Op::SampleRowKeys { .. }
                | Op::DropRowRange { .. }
                | Op::ListTables { .. }
                | Op::DeleteTable { .. }
                | Op::UpdateTable { .. } => {}
            }
        }
        caps
    }
}

impl Op {
    /// The op's name as in the JSON.
    pub fn name(&self) -> &'static str {
        match self {
            Op::CreateTable { .. } => "create_table",
            Op::MutateRow { .. } => "mutate_row",
            Op::MutateRows { .. } => "mutate_rows",
            Op::CheckAndMutateRow { .. } => "check_and_mutate_row",
            Op::ReadModifyWriteRow { .. } => "read_modify_write_row",
            Op::ReadRow { .. } => "read_row",
            Op::ReadRows { .. } => "read_rows",
            Op::SampleRowKeys { .. } => "sample_row_keys",
            Op::DropRowRange { .. } => "drop_row_range",
            Op::ModifyColumnFamilies { .. } => "modify_column_families",
            Op::GetTable { .. } => "get_table",
            Op::ListTables { .. } => "list_tables",
            Op::DeleteTable { .. } => "delete_table",
            Op::UpdateTable { .. } => "update_table",
            Op::AdvanceClock { .. } => "advance_clock",
        }
    }

    /// The error code the op must fail with, if any.
    pub fn expect_error(&self) -> Option<&str> {
        match self {
            Op::CreateTable { expect_error, .. }
            | Op::MutateRow { expect_error, .. }
            | Op::MutateRows { expect_error, .. }
            | Op::CheckAndMutateRow { expect_error, .. }
            | Op::ReadModifyWriteRow { expect_error, .. }
            | Op::ReadRow { expect_error, .. }
            | Op::ReadRows { expect_error, .. }
            | Op::SampleRowKeys { expect_error, .. }
            | Op::DropRowRange { expect_error, .. }
            | Op::ModifyColumnFamilies { expect_error, .. }
            | Op::GetTable { expect_error, .. }
            | Op::DeleteTable { expect_error, .. }
            | Op::UpdateTable { expect_error, .. } => expect_error.as_deref(),
            Op::ListTables { .. } | Op::AdvanceClock { .. } => None,
        }
    }
}

impl MutationSpec {
    /// The mutation's kind, as in its JSON key.
    pub fn kind(&self) -> &'static str {
        match self {
            MutationSpec::SetCell { .. } => "set_cell",
            MutationSpec::AddToCell { .. } => "add_to_cell",
            MutationSpec::MergeToCell { .. } => "merge_to_cell",
            MutationSpec::DeleteFromColumn { .. } => "delete_from_column",
            MutationSpec::DeleteFromFamily { .. } => "delete_from_family",
            MutationSpec::DeleteFromRow {} => "delete_from_row",
        }
    }

    /// The core mutation it stands for.
    pub fn to_core(&self) -> Mutation {
        match self {
            MutationSpec::SetCell {
                family,
                qualifier,
                timestamp_micros,
                value,
            } => Mutation::set_cell(
                family.clone(),
                qualifier.0.clone(),
                *timestamp_micros,
                value.0.clone(),
            ),
            MutationSpec::AddToCell {
                family,
                qualifier,
                timestamp_micros,
                input,
            } => Mutation::AddToCell {
                family: family.clone(),
                qualifier: qualifier.0.clone(),
                timestamp_micros: *timestamp_micros,
                input: *input,
            },
            MutationSpec::MergeToCell {
                family,
                qualifier,
                timestamp_micros,
                input,
            } => Mutation::MergeToCell {
                family: family.clone(),
                qualifier: qualifier.0.clone(),
                timestamp_micros: *timestamp_micros,
                state: input.0.clone(),
            },
            MutationSpec::DeleteFromColumn {
                family,
                qualifier,
                start_timestamp_micros,
                end_timestamp_micros,
            } => Mutation::DeleteFromColumn {
                family: family.clone(),
                qualifier: qualifier.0.clone(),
                // Unset fields are the proto's 0; the core reads the wire values.
                time_range: TimestampRange::from_wire(
                    start_timestamp_micros.unwrap_or(0),
                    end_timestamp_micros.unwrap_or(0),
                ),
            },
            MutationSpec::DeleteFromFamily { family } => Mutation::DeleteFromFamily {
                family: family.clone(),
            },
            MutationSpec::DeleteFromRow {} => Mutation::DeleteFromRow,
        }
    }
}

impl FilterSpec {
    /// The filter's kind, as its JSON key.
    pub fn kind(&self) -> &'static str {
        match self {
            FilterSpec::Chain(_) => "chain",
            FilterSpec::Interleave(_) => "interleave",
            FilterSpec::Condition(_) => "condition",
            FilterSpec::Sink(_) => "sink",
            FilterSpec::PassAllFilter(_) => "pass_all_filter",
            FilterSpec::BlockAllFilter(_) => "block_all_filter",
            FilterSpec::RowKeyRegexFilter(_) => "row_key_regex_filter",
            FilterSpec::RowSampleFilter(_) => "row_sample_filter",
            FilterSpec::FamilyNameRegexFilter(_) => "family_name_regex_filter",
            FilterSpec::ColumnQualifierRegexFilter(_) => "column_qualifier_regex_filter",
            FilterSpec::ColumnRangeFilter(_) => "column_range_filter",
            FilterSpec::TimestampRangeFilter(_) => "timestamp_range_filter",
            FilterSpec::ValueRegexFilter(_) => "value_regex_filter",
            FilterSpec::ValueRangeFilter(_) => "value_range_filter",
            FilterSpec::CellsPerRowOffsetFilter(_) => "cells_per_row_offset_filter",
            FilterSpec::CellsPerRowLimitFilter(_) => "cells_per_row_limit_filter",
            FilterSpec::CellsPerColumnLimitFilter(_) => "cells_per_column_limit_filter",
            FilterSpec::StripValueTransformer(_) => "strip_value_transformer",
            FilterSpec::ApplyLabelTransformer(_) => "apply_label_transformer",
            FilterSpec::ValueBitmaskFilter(_) => "value_bitmask_filter",
        }
    }

    fn capabilities(&self, caps: &mut BTreeSet<String>) {
        add(caps, format!("filter:{}", self.kind()));
        match self {
            FilterSpec::Chain(fs) | FilterSpec::Interleave(fs) => {
                fs.iter().for_each(|f| f.capabilities(caps))
            }
            FilterSpec::Condition(c) => {
                c.predicate_filter.capabilities(caps);
                for f in [&c.true_filter, &c.false_filter].into_iter().flatten() {
                    f.capabilities(caps);
                }
            }
            _ => {}
        }
    }

    /// The core filter it stands for.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a boolean filter given `false`, as Cloud Bigtable answers.
    pub fn to_core(&self) -> Result<RowFilter, sparsetable::Error> {
        let flag = |b: bool, name: &str, f: RowFilter| {
            if b {
                Ok(f)
            } else {
                Err(sparsetable::Error::invalid_argument(format!(
                    "{name}: must be true when set"
                )))
            }
        };
        let list = |fs: &[FilterSpec]| fs.iter().map(Self::to_core).collect::<Result<Vec<_>, _>>();
        let bound = |closed: &Option<Bytes>, open: &Option<Bytes>| match (closed, open) {
            (Some(k), _) => Bound::Included(k.0.clone()),
            (None, Some(k)) => Bound::Excluded(k.0.clone()),
            (None, None) => Bound::Unbounded,
        };
        Ok(match self {
            FilterSpec::Chain(fs) => RowFilter::Chain(list(fs)?),
            FilterSpec::Interleave(fs) => RowFilter::Interleave(list(fs)?),
            FilterSpec::Condition(c) => RowFilter::Condition {
                predicate: Box::new(c.predicate_filter.to_core()?),
                true_filter: c
                    .true_filter
                    .as_ref()
                    .map(Self::to_core)
                    .transpose()?
                    .map(Box::new),
                false_filter: c
                    .false_filter
                    .as_ref()
                    .map(Self::to_core)
                    .transpose()?
                    .map(Box::new),
            },
            FilterSpec::Sink(b) => flag(*b, "sink", RowFilter::Sink)?,
            FilterSpec::PassAllFilter(b) => flag(*b, "pass_all_filter", RowFilter::PassAll)?,
            FilterSpec::BlockAllFilter(b) => flag(*b, "block_all_filter", RowFilter::BlockAll)?,
            FilterSpec::StripValueTransformer(b) => {
                flag(*b, "strip_value_transformer", RowFilter::StripValue)?
            }
            FilterSpec::RowKeyRegexFilter(r) => RowFilter::RowKeyRegex(r.0.clone()),
            FilterSpec::RowSampleFilter(p) => RowFilter::RowSample(*p),
            FilterSpec::FamilyNameRegexFilter(r) => RowFilter::FamilyNameRegex(r.clone()),
            FilterSpec::ColumnQualifierRegexFilter(r) => {
                RowFilter::ColumnQualifierRegex(r.0.clone())
            }
            FilterSpec::ColumnRangeFilter(c) => RowFilter::ColumnRange {
                family: c.family_name.clone(),
                start: bound(&c.start_qualifier_closed, &c.start_qualifier_open),
                end: bound(&c.end_qualifier_closed, &c.end_qualifier_open),
            },
            FilterSpec::TimestampRangeFilter(t) => RowFilter::TimestampRange {
                start_micros: t.start_timestamp_micros.unwrap_or(0),
                end_micros: t.end_timestamp_micros.unwrap_or(0),
            },
            FilterSpec::ValueRegexFilter(r) => RowFilter::ValueRegex(r.0.clone()),
            FilterSpec::ValueRangeFilter(v) => RowFilter::ValueRange {
                start: bound(&v.start_value_closed, &v.start_value_open),
                end: bound(&v.end_value_closed, &v.end_value_open),
            },
            FilterSpec::CellsPerRowOffsetFilter(n) => RowFilter::CellsPerRowOffset(*n),
            FilterSpec::CellsPerRowLimitFilter(n) => RowFilter::CellsPerRowLimit(*n),
            FilterSpec::CellsPerColumnLimitFilter(n) => RowFilter::CellsPerColumnLimit(*n),
            FilterSpec::ApplyLabelTransformer(l) => RowFilter::ApplyLabel(l.clone()),
            FilterSpec::ValueBitmaskFilter(m) => RowFilter::ValueBitmask(m.0.clone()),
        })
    }
}

impl GcRuleSpec {
    /// The core GC rule it stands for.
    pub fn to_core(&self) -> GcRule {
        match self {
            GcRuleSpec::MaxNumVersions(n) => GcRule::MaxNumVersions(*n),
            GcRuleSpec::MaxAgeMicros(m) => GcRule::MaxAge { micros: *m },
            GcRuleSpec::Intersection(r) => {
                GcRule::Intersection(r.iter().map(Self::to_core).collect())
            }
            GcRuleSpec::Union(r) => GcRule::Union(r.iter().map(Self::to_core).collect()),
        }
    }
}

impl FamilySpec {
    /// The core family it stands for.
    ///
    /// # Errors
    /// An unknown value type name.
    pub fn to_core(&self) -> Result<ColumnFamily, String> {
        Ok(ColumnFamily {
            gc_rule: self
                .gc_rule
                .as_ref()
                .map(GcRuleSpec::to_core)
                .unwrap_or_default(),
            value_type: match self.value_type.as_deref() {
                None => ValueType::Bytes,
                Some("INT64_SUM") => ValueType::Int64Sum,
                Some("INT64_MIN") => ValueType::Int64Min,
                Some("INT64_MAX") => ValueType::Int64Max,
                Some(other) => return Err(format!("unknown value_type {other}")),
            },
        })
    }
}

impl TableSpec {
    /// The core table config it stands for.
    ///
    /// # Errors
    /// An unknown granularity or value type name.
    pub fn to_core(&self) -> Result<TableConfig, String> {
        Ok(TableConfig {
            families: self
                .families
                .iter()
                .map(|(name, f)| Ok((name.clone(), f.to_core()?)))
                .collect::<Result<_, String>>()?,
            granularity: match self.granularity.as_deref() {
                None | Some("MILLIS") => Granularity::Millis,
                Some("MICROS") => Granularity::Micros,
                Some(other) => return Err(format!("unknown granularity {other}")),
            },
            deletion_protection: self.deletion_protection.unwrap_or(false),
            initial_splits: self
                .initial_splits
                .iter()
                .flatten()
                .map(|k| k.0.clone())
                .collect(),
            ..TableConfig::default()
        })
    }
}

impl RowSetSpec {
    /// The core row set it stands for.
    pub fn to_core(&self) -> RowSet {
        let bound = |closed: &Option<Bytes>, open: &Option<Bytes>| match (closed, open) {
            (Some(k), _) => Bound::Included(k.0.clone()),
            (None, Some(k)) => Bound::Excluded(k.0.clone()),
            (None, None) => Bound::Unbounded,
        };
        RowSet {
            row_keys: self.row_keys.iter().map(|k| k.0.clone()).collect(),
            row_ranges: self
                .row_ranges
                .iter()
                .map(|r| {
                    // The core applies the wire rule (an empty key is unbounded).
                    RowRange::from_wire_bounds(
                        bound(&r.start_key_closed, &r.start_key_open),
                        bound(&r.end_key_closed, &r.end_key_open),
                    )
                })
                .collect(),
        }
    }
}

impl RowSpec {
    /// The core row it stands for.
    pub fn to_core(&self) -> Row {
        Row {
            key: self.key.0.clone(),
            cells: self
                .cells
                .iter()
                .map(|c| sparsetable::Cell {
                    family: c.family.clone(),
                    qualifier: c.qualifier.0.clone(),
                    timestamp_micros: c.timestamp_micros,
                    value: c.value.0.clone(),
                    labels: c.labels.clone(),
                })
                .collect(),
        }
    }
}

impl RuleSpec {
    /// The core rule it stands for.
    ///
    /// # Errors
    /// A rule with both or neither of `append_value` and `increment_amount`.
    pub fn to_core(&self) -> Result<ReadModifyWriteRule, String> {
        match (&self.append_value, self.increment_amount) {
            (Some(v), None) => Ok(ReadModifyWriteRule::append(
                self.family.clone(),
                self.qualifier.0.clone(),
                v.0.clone(),
            )),
            (None, Some(n)) => Ok(ReadModifyWriteRule::increment(
                self.family.clone(),
                self.qualifier.0.clone(),
                n,
            )),
            _ => Err("a rule needs exactly one of append_value and increment_amount".into()),
        }
    }
}

/// An op's outcome as a runner saw it: a value or an error code with its message.
pub type Outcome<T> = Result<T, (String, String)>;

/// Checks an op's outcome against its expectation.
///
/// # Errors
/// A description of the mismatch.
pub fn check_outcome<T: std::fmt::Debug + PartialEq>(
    op_index: usize,
    expect_error: Option<&str>,
    outcome: Outcome<T>,
    expected: Option<T>,
) -> Result<(), String> {
    match (expect_error, outcome) {
        (Some(code), Err((got, _))) if got == code => Ok(()),
        (Some(code), Err((got, msg))) => Err(format!(
            "op {op_index}: expected error {code}, got {got} ({msg})"
        )),
        (Some(code), Ok(v)) => Err(format!(
            "op {op_index}: expected error {code}, got success {v:?}"
        )),
        (None, Err((got, msg))) => Err(format!("op {op_index}: unexpected error {got} ({msg})")),
        (None, Ok(v)) => match expected {
            Some(e) if e != v => Err(format!("op {op_index}: expected {e:#?}\n got {v:#?}")),
            _ => Ok(()),
        },
    }
}

fn code_of(e: sparsetable::Error) -> (String, String) {
    (e.code().as_str().to_string(), e.message().to_string())
}

/// Checks SampleRowKeys output: the expected keys, offsets never decreasing.
///
/// # Errors
/// A description of the mismatch.
pub fn check_samples(
    op_index: usize,
    expected: &[Bytes],
    got: &[(Vec<u8>, u64)],
) -> Result<(), String> {
    let keys: Vec<&[u8]> = got.iter().map(|(k, _)| k.as_slice()).collect();
    let want: Vec<&[u8]> = expected.iter().map(|k| k.0.as_slice()).collect();
    if keys != want {
        return Err(format!(
            "op {op_index}: sample keys {keys:?}, expected {want:?}"
        ));
    }
    if got.windows(2).any(|w| w[1].1 < w[0].1) {
        return Err(format!("op {op_index}: sample offsets decrease: {got:?}"));
    }
    Ok(())
}

/// Replays one vector against a fresh in-memory core database.
///
/// # Errors
/// A description of the first op whose outcome differs from the expectation.
pub fn replay_core(vector: &Vector) -> Result<(), String> {
    let clock = std::sync::Arc::new(ManualClock::new(vector.start_micros()));
    let mut db = Database::with_clock(clock.clone());
    for (name, spec) in &vector.tables {
        db.create_table(name, spec.to_core()?)
            .map_err(|e| format!("creating table {name}: {e}"))?;
    }
    let to_muts = |ms: &[MutationSpec]| ms.iter().map(MutationSpec::to_core).collect::<Vec<_>>();
    for (i, op) in vector.ops.iter().enumerate() {
        let expect_error = op.expect_error();
        match op {
            Op::CreateTable { table, spec, .. } => {
                let outcome = db.create_table(table, spec.to_core()?).map_err(code_of);
                check_outcome(i, expect_error, outcome, None)?;
            }
            Op::MutateRow {
                table,
                row_key,
                mutations,
                ..
            } => {
                let outcome = db
                    .mutate_row(table, &row_key.0, &to_muts(mutations))
                    .map_err(code_of);
                check_outcome(i, expect_error, outcome, None)?;
            }
            Op::MutateRows {
                table,
                entries,
                expect_statuses,
                ..
            } => {
                let entries: Vec<RowMutations> = entries
                    .iter()
                    .map(|e| RowMutations {
                        row_key: e.row_key.0.clone(),
                        mutations: to_muts(&e.mutations),
                    })
                    .collect();
                let outcome = db
                    .mutate_rows(table, &entries)
                    .map(|statuses| {
                        statuses
                            .into_iter()
                            .map(|s| match s {
                                Ok(()) => "OK".to_string(),
                                Err(e) => e.code().as_str().to_string(),
                            })
                            .collect::<Vec<_>>()
                    })
                    .map_err(code_of);
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
                let outcome = predicate_filter
                    .as_ref()
                    .map(FilterSpec::to_core)
                    .transpose()
                    .and_then(|pred| {
                        db.check_and_mutate_row(
                            table,
                            &row_key.0,
                            pred.as_ref(),
                            &to_muts(true_mutations),
                            &to_muts(false_mutations),
                        )
                    })
                    .map_err(code_of);
                check_outcome(i, expect_error, outcome, *expect_matched)?;
            }
            Op::ReadModifyWriteRow {
                table,
                row_key,
                rules,
                expect_row,
                ..
            } => {
                let rules = rules
                    .iter()
                    .map(RuleSpec::to_core)
                    .collect::<Result<Vec<_>, _>>()?;
                let outcome = db
                    .read_modify_write_row(table, &row_key.0, &rules)
                    .map_err(code_of);
                check_outcome(
                    i,
                    expect_error,
                    outcome,
                    expect_row.as_ref().map(RowSpec::to_core),
                )?;
            }
            Op::ReadRow {
                table,
                row_key,
                filter,
                expect_row,
                ..
            } => {
                let outcome = filter
                    .as_ref()
                    .map(FilterSpec::to_core)
                    .transpose()
                    .and_then(|f| db.read_row_filtered(table, &row_key.0, &f.unwrap_or_default()))
                    .map_err(code_of);
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
                if expect_error.is_none() && expect_rows.is_none() {
                    return Err(format!(
                        "op {i}: read_rows needs expect_rows or expect_error"
                    ));
                }
                let outcome = filter
                    .as_ref()
                    .map(FilterSpec::to_core)
                    .transpose()
                    .and_then(|f| {
                        let request = ReadRowsRequest {
                            row_set: row_set
                                .as_ref()
                                .map(RowSetSpec::to_core)
                                .unwrap_or_default(),
                            filter: f.unwrap_or_default(),
                            rows_limit: rows_limit.unwrap_or(0),
                            reversed: reversed.unwrap_or(false),
                        };
                        db.read_rows(table, &request).map(|s| s.collect::<Vec<_>>())
                    })
                    .map_err(code_of);
                let expected = expect_rows
                    .as_ref()
                    .map(|rows| rows.iter().map(RowSpec::to_core).collect());
                check_outcome(i, expect_error, outcome, expected)?;
            }
            Op::SampleRowKeys {
                table, expect_keys, ..
            } => {
                let outcome = db
                    .sample_row_keys(table)
                    .map(|s| {
                        s.into_iter()
                            .map(|k| (k.row_key, k.offset_bytes))
                            .collect::<Vec<_>>()
                    })
                    .map_err(code_of);
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
                let range = match (row_key_prefix, delete_all_data_from_table) {
                    (Some(p), None) => DropRowRange::Prefix(p.0.clone()),
                    (None, Some(true)) => DropRowRange::All,
                    _ => {
                        return Err(format!(
                            "op {i}: drop_row_range needs a prefix or delete_all"
                        ))
                    }
                };
                let outcome = db.drop_row_range(table, &range).map_err(code_of);
                check_outcome(i, expect_error, outcome, None)?;
            }
            Op::ModifyColumnFamilies {
                table,
                modifications,
                ..
            } => {
                let mods = modifications
                    .iter()
                    .map(|m| match (&m.create, &m.update, m.drop) {
                        (Some(f), None, None) => Ok(FamilyModification::Create {
                            name: m.id.clone(),
                            family: f.to_core()?,
                        }),
                        (None, Some(f), None) => Ok(FamilyModification::Update {
                            name: m.id.clone(),
                            family: f.to_core()?,
                        }),
                        (None, None, Some(true)) => {
                            Ok(FamilyModification::Drop { name: m.id.clone() })
                        }
                        _ => Err(format!(
                            "op {i}: a modification needs exactly one of create/update/drop"
                        )),
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                let outcome = db
                    .modify_column_families(table, &mods)
                    .map(|_| ())
                    .map_err(code_of);
                check_outcome(i, expect_error, outcome, None)?;
            }
            Op::GetTable {
                table,
                expect_families,
                expect_deletion_protection,
                ..
            } => {
                let outcome = db.get_table(table).map_err(code_of);
                if let Ok(info) = &outcome {
                    if let Some(fams) = expect_families {
                        let want = fams
                            .iter()
                            .map(|(n, f)| Ok((n.clone(), f.to_core()?)))
                            .collect::<Result<BTreeMap<_, _>, String>>()?;
                        if want != info.config.families {
                            return Err(format!(
                                "op {i}: families {:?}, expected {want:?}",
                                info.config.families
                            ));
                        }
                    }
                    if let Some(dp) = expect_deletion_protection {
                        if *dp != info.config.deletion_protection {
                            return Err(format!("op {i}: deletion_protection is not {dp}"));
                        }
                    }
                }
                check_outcome(i, expect_error, outcome.map(|_| ()), None)?;
            }
            Op::ListTables { expect_tables } => {
                let got: Vec<String> = db.list_tables().into_iter().map(|t| t.name).collect();
                if &got != expect_tables {
                    return Err(format!(
                        "op {i}: tables {got:?}, expected {expect_tables:?}"
                    ));
                }
            }
            Op::DeleteTable { table, .. } => {
                let outcome = db.delete_table(table).map_err(code_of);
                check_outcome(i, expect_error, outcome, None)?;
            }
            Op::UpdateTable {
                table,
                deletion_protection,
                ..
            } => {
                let outcome = db
                    .set_deletion_protection(table, *deletion_protection)
                    .map(|_| ())
                    .map_err(code_of);
                check_outcome(i, expect_error, outcome, None)?;
            }
            Op::AdvanceClock { micros } => clock.advance_micros(*micros),
        }
    }
    Ok(())
}
