//! The shared test vectors (tests/vectors/*.json): their types, loading, capabilities, and a
//! replay against the core engine.
//!
//! The format is specified in tests/vectors/README.md. Rust runners (the core's and the
//! server's) use this crate; the Python and Kotlin runners parse the same JSON in their own
//! language. The model parts of a vector (mutations, filters, tables, row sets, rules, rows)
//! are proto3 JSON and go through the core's own model, `sparsetable::json`: there are no
//! mirror types here. Parsing is strict (`deny_unknown_fields`, and the core's proto3 JSON
//! refuses unknown fields too) so a typo in a vector fails loudly instead of testing less.

mod expect;
pub mod replication;
pub mod sql;

pub use expect::{check_outcome, says, ExpectedError, Outcome};

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde::Deserialize;
use serde_json::Value;
use sparsetable::{
    ColumnFamily, Database, DropRowRange, Families, FamilyModification, GcMode, GcRule,
    ManualClock, Mutation, ReadModifyWriteRule, ReadRowsRequest, Row, RowFilter, RowMutations,
    RowSet, TableConfig,
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
    /// Tables created before the ops run: admin `Table`s (plus `initialSplits`) by id.
    #[serde(default)]
    pub tables: BTreeMap<String, Value>,
    /// The GC mode the vector's expectations hold in (`"immediate"` or `"background"`);
    /// `None`: they hold in both, and the core runner checks that by replaying it in both.
    #[serde(default, deserialize_with = "gc_mode")]
    pub gc_mode: Option<GcMode>,
    /// The operations, in order.
    pub ops: Vec<Op>,
}

fn gc_mode<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<GcMode>, D::Error> {
    let name = String::deserialize(d)?;
    name.parse().map(Some).map_err(serde::de::Error::custom)
}

impl Vector {
    /// The manual clock's start.
    pub fn start_micros(&self) -> i64 {
        self.clock_micros.unwrap_or(DEFAULT_CLOCK_MICROS)
    }

    /// The GC mode a runner that replays the vector once opens its database in: the one it
    /// declares, else the engine's default (the vector holds in both).
    pub fn run_gc_mode(&self) -> GcMode {
        self.gc_mode.unwrap_or_default()
    }

    /// The modes the vector's expectations must hold in: the declared one, or both.
    pub fn gc_modes(&self) -> Vec<GcMode> {
        match self.gc_mode {
            Some(mode) => vec![mode],
            None => vec![GcMode::Immediate, GcMode::Background],
        }
    }
}

/// One operation of a vector (tests/vectors/README.md, "Ops").
///
/// Mutations, entries, rules, row sets and rows are proto3 JSON and parse straight into the
/// core's types (`sparsetable::json`). Filters and table specs stay JSON values until the op
/// runs: a filter can itself be the input under test (`{"sink": false}` must fail the op with
/// INVALID_ARGUMENT, not the load), and capabilities look at which fields a spec names.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Op {
    /// Create a table.
    CreateTable {
        /// The table id.
        table: String,
        /// Its schema: an admin `Table` plus `initialSplits`.
        spec: Value,
        /// The expected error code, if the op must fail.
        expect_error: Option<String>,
        /// The core's message for the expected error, word for word, if the vector pins it.
        expect_message: Option<String>,
    },
    /// Apply mutations to one row.
    MutateRow {
        /// The table id.
        #[serde(default = "default_table")]
        table: String,
        /// The row.
        row_key: Bytes,
        /// The mutations.
        mutations: Vec<Mutation>,
        /// Send `mutations` this many times over (README, "Generated values"); the loader
        /// expands it, so runners see the whole list.
        #[serde(default)]
        mutations_repeat: Option<usize>,
        /// Every SetCell's value is this many bytes (README, "Generated values"); the loader
        /// expands it.
        #[serde(default)]
        value_size: Option<usize>,
        /// The expected error code.
        expect_error: Option<String>,
        /// The core's message for the expected error, word for word, if the vector pins it.
        expect_message: Option<String>,
    },
    /// Apply a batch of row mutations.
    MutateRows {
        /// The table id.
        #[serde(default = "default_table")]
        table: String,
        /// The entries (`MutateRowsRequest.Entry`).
        entries: Vec<RowMutations>,
        /// Send every entry's `mutations` this many times over (README, "Generated values");
        /// the loader expands it, so runners see the whole entries.
        #[serde(default)]
        mutations_repeat: Option<usize>,
        /// One code per entry (`OK` for success).
        expect_statuses: Option<Vec<String>>,
        /// The expected error code for the whole call.
        expect_error: Option<String>,
        /// The core's message for the expected error, word for word, if the vector pins it.
        expect_message: Option<String>,
    },
    /// Conditional mutation.
    CheckAndMutateRow {
        /// The table id.
        #[serde(default = "default_table")]
        table: String,
        /// The row.
        row_key: Bytes,
        /// The predicate; absent = the row has any cell.
        predicate_filter: Option<Value>,
        /// Applied when the predicate matches.
        #[serde(default)]
        true_mutations: Vec<Mutation>,
        /// Applied otherwise.
        #[serde(default)]
        false_mutations: Vec<Mutation>,
        /// Whether the predicate should match.
        expect_matched: Option<bool>,
        /// The expected error code.
        expect_error: Option<String>,
        /// The core's message for the expected error, word for word, if the vector pins it.
        expect_message: Option<String>,
    },
    /// Append/increment.
    ReadModifyWriteRow {
        /// The table id.
        #[serde(default = "default_table")]
        table: String,
        /// The row.
        row_key: Bytes,
        /// The rules.
        rules: Vec<ReadModifyWriteRule>,
        /// The new cells.
        expect_row: Option<Row>,
        /// The expected error code.
        expect_error: Option<String>,
        /// The core's message for the expected error, word for word, if the vector pins it.
        expect_message: Option<String>,
    },
    /// Read one row.
    ReadRow {
        /// The table id.
        #[serde(default = "default_table")]
        table: String,
        /// The row.
        row_key: Bytes,
        /// The filter.
        filter: Option<Value>,
        /// The expected row (`None` = no row), unless an error is expected.
        #[serde(default)]
        expect_row: Option<Row>,
        /// The expected error code.
        expect_error: Option<String>,
        /// The core's message for the expected error, word for word, if the vector pins it.
        expect_message: Option<String>,
    },
    /// Read rows.
    ReadRows {
        /// The table id.
        #[serde(default = "default_table")]
        table: String,
        /// Which rows.
        row_set: Option<RowSet>,
        /// The filter.
        filter: Option<Value>,
        /// Most rows.
        rows_limit: Option<i64>,
        /// Descending order.
        reversed: Option<bool>,
        /// The expected rows, unless an error is expected.
        expect_rows: Option<Vec<Row>>,
        /// The expected error code.
        expect_error: Option<String>,
        /// The core's message for the expected error, word for word, if the vector pins it.
        expect_message: Option<String>,
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
        /// The core's message for the expected error, word for word, if the vector pins it.
        expect_message: Option<String>,
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
        /// The core's message for the expected error, word for word, if the vector pins it.
        expect_message: Option<String>,
    },
    /// ModifyColumnFamilies.
    ModifyColumnFamilies {
        /// The table id.
        #[serde(default = "default_table")]
        table: String,
        /// The modifications (`ModifyColumnFamiliesRequest.Modification`).
        modifications: Vec<Value>,
        /// The expected error code.
        expect_error: Option<String>,
        /// The core's message for the expected error, word for word, if the vector pins it.
        expect_message: Option<String>,
    },
    /// GetTable.
    GetTable {
        /// The table id.
        #[serde(default = "default_table")]
        table: String,
        /// The families (admin `ColumnFamily` by name), in creation order: runners whose
        /// front-end lists families in order compare the order too.
        expect_families: Option<Families>,
        /// Deletion protection.
        expect_deletion_protection: Option<bool>,
        /// The expected error code.
        expect_error: Option<String>,
        /// The core's message for the expected error, word for word, if the vector pins it.
        expect_message: Option<String>,
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
        /// The core's message for the expected error, word for word, if the vector pins it.
        expect_message: Option<String>,
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
        /// The core's message for the expected error, word for word, if the vector pins it.
        expect_message: Option<String>,
    },
    /// CreateInstance of `instance_id` in `project`, with one cluster (`cluster_id`, default
    /// [`VECTOR_CLUSTER_ID`], in [`VECTOR_CLUSTER_ZONE`]): the id rules of the instance model.
    CreateInstance {
        /// The project id.
        project: String,
        /// The new instance's id.
        instance_id: String,
        /// The id of its one cluster; absent: [`VECTOR_CLUSTER_ID`].
        #[serde(default)]
        cluster_id: Option<String>,
        /// The expected error code.
        expect_error: Option<String>,
        /// The core's message for the expected error, word for word, if the vector pins it.
        expect_message: Option<String>,
    },
    /// Moves the manual clock.
    AdvanceClock {
        /// Microseconds to add.
        micros: i64,
    },
    /// A garbage collection pass over the table now (`Database::collect_garbage`; the
    /// server's `ReplicationControl.CollectGarbage`): in Background GC mode, reads stop
    /// returning collectable cells.
    CollectGarbage {
        /// The table id.
        #[serde(default = "default_table")]
        table: String,
        /// The expected error code.
        expect_error: Option<String>,
        /// The core's message for the expected error, word for word, if the vector pins it.
        expect_message: Option<String>,
    },
}

/// The id of the one cluster a `create_instance` op gives its instance unless it names one.
pub const VECTOR_CLUSTER_ID: &str = "cluster-1";
/// The zone of that cluster.
pub const VECTOR_CLUSTER_ZONE: &str = "us-central1-b";

/// The value bytes `value_size` stands for: `n` bytes of `v` (README, "Generated values").
pub fn generated_value(n: usize) -> Vec<u8> {
    vec![b'v'; n]
}

/// `mutations` as a generated op sends them: repeated `repeat` times over, each SetCell's
/// value `value_size` bytes of `v` (README, "Generated values").
fn generate(mutations: &mut Vec<Mutation>, repeat: Option<usize>, value_size: Option<usize>) {
    if let Some(n) = value_size {
        for m in mutations.iter_mut() {
            if let Mutation::SetCell { value, .. } = m {
                *value = generated_value(n);
            }
        }
    }
    if let Some(times) = repeat {
        let one = std::mem::take(mutations);
        *mutations = one
            .iter()
            .cycle()
            .take(one.len() * times)
            .cloned()
            .collect();
    }
}

impl Op {
    /// Expands the op's generated values (`mutations_repeat`, `value_size`) into the values
    /// themselves, so every runner passes its API what a user would.
    pub fn expand(&mut self) {
        match self {
            Op::MutateRow {
                mutations,
                mutations_repeat,
                value_size,
                ..
            } => generate(mutations, mutations_repeat.take(), value_size.take()),
            Op::MutateRows {
                entries,
                mutations_repeat,
                ..
            } => {
                let repeat = mutations_repeat.take();
                for entry in entries {
                    generate(&mut entry.mutations, repeat, None);
                }
            }
            _ => {}
        }
    }
}

fn default_table() -> String {
    "t".to_string()
}

/// A table spec's core config (`sparsetable::json`), or the error converting it gave.
///
/// # Errors
/// The core's INVALID_ARGUMENT for a spec that is not a valid proto3 JSON table.
pub fn table_config(spec: &Value) -> Result<TableConfig, sparsetable::Error> {
    sparsetable::json::from_value(spec.clone())
}

/// A filter's core value (`sparsetable::json`), or the INVALID_ARGUMENT converting it gave.
///
/// # Errors
/// As the core's proto3 JSON parser.
pub fn row_filter(filter: &Value) -> Result<RowFilter, sparsetable::Error> {
    sparsetable::json::from_value(filter.clone())
}

/// `setCell` -> `set_cell`: capability names keep the proto's own field names.
fn snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The capability name of a mutation kind.
pub fn mutation_kind(m: &Mutation) -> &'static str {
    match m {
        Mutation::SetCell { .. } => "set_cell",
        Mutation::AddToCell { .. } => "add_to_cell",
        Mutation::MergeToCell { .. } => "merge_to_cell",
        Mutation::DeleteFromColumn { .. } => "delete_from_column",
        Mutation::DeleteFromFamily { .. } => "delete_from_family",
        Mutation::DeleteFromRow => "delete_from_row",
    }
}

fn add(caps: &mut BTreeSet<String>, cap: impl Into<String>) {
    caps.insert(cap.into());
}

/// `filter:KIND` for every filter at any depth, read from the JSON (a filter the core refuses
/// still names its kinds).
fn filter_caps(filter: &Value, caps: &mut BTreeSet<String>) {
    let Some(obj) = filter.as_object() else {
        return;
    };
    for (key, body) in obj {
        let kind = snake(key);
        match kind.as_str() {
            "chain" | "interleave" => {
                for f in body["filters"].as_array().into_iter().flatten() {
                    filter_caps(f, caps);
                }
            }
            "condition" => {
                for branch in ["predicate_filter", "true_filter", "false_filter"] {
                    let camel = lower_camel(branch);
                    for b in [&body[branch], &body[camel.as_str()]] {
                        filter_caps(b, caps);
                    }
                }
            }
            _ => {}
        }
        add(caps, format!("filter:{kind}"));
    }
}

fn lower_camel(name: &str) -> String {
    let mut parts = name.split('_');
    let mut out = parts.next().unwrap_or_default().to_string();
    for p in parts {
        let mut chars = p.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    out
}

fn has_max_age(rule: &GcRule) -> bool {
    match rule {
        GcRule::MaxAge { .. } => true,
        GcRule::Never | GcRule::MaxNumVersions(_) => false,
        GcRule::Intersection(r) | GcRule::Union(r) => r.iter().any(has_max_age),
    }
}

/// A family's capabilities, from its JSON (which fields it names) and its core value.
fn family_caps(family: &Value, caps: &mut BTreeSet<String>) {
    let Ok(f) = sparsetable::json::from_value::<ColumnFamily>(family.clone()) else {
        return;
    };
    if family.get("gcRule").or(family.get("gc_rule")).is_some() {
        add(caps, "schema:gc_rule");
        if has_max_age(&f.gc_rule) {
            add(caps, "clock");
        }
    }
    if family
        .get("valueType")
        .or(family.get("value_type"))
        .is_some()
    {
        add(caps, "schema:value_type");
    }
}

fn table_caps(spec: &Value, caps: &mut BTreeSet<String>) {
    let families = spec.get("columnFamilies").or(spec.get("column_families"));
    for f in families.and_then(Value::as_object).into_iter().flatten() {
        family_caps(f.1, caps);
    }
    for (camel, snake_name, cap) in [
        ("granularity", "granularity", "schema:granularity"),
        (
            "deletionProtection",
            "deletion_protection",
            "schema:deletion_protection",
        ),
        ("initialSplits", "initial_splits", "schema:initial_splits"),
    ] {
        if spec.get(camel).or(spec.get(snake_name)).is_some() {
            add(caps, cap);
        }
    }
}

impl Vector {
    /// The capabilities the vector needs (tests/vectors/README.md).
    pub fn capabilities(&self) -> BTreeSet<String> {
        let mut caps = BTreeSet::new();
        if self.gc_mode == Some(GcMode::Background) {
            add(&mut caps, "gc_mode:background");
        }
        if self.clock_micros.is_some() {
            add(&mut caps, "clock");
        }
        if !self.tables.is_empty() {
            add(&mut caps, "op:create_table");
        }
        for spec in self.tables.values() {
            table_caps(spec, &mut caps);
        }
        let muts = |ms: &[Mutation], caps: &mut BTreeSet<String>| {
            for m in ms {
                add(caps, format!("mutation:{}", mutation_kind(m)));
                if let Mutation::SetCell {
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
                Op::CreateTable { spec, .. } => table_caps(spec, &mut caps),
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
                        filter_caps(f, &mut caps);
                    }
                    muts(true_mutations, &mut caps);
                    muts(false_mutations, &mut caps);
                }
                Op::ReadModifyWriteRow { .. } | Op::AdvanceClock { .. } => add(&mut caps, "clock"),
                Op::ReadRow { filter, .. } => {
                    if let Some(f) = filter {
                        filter_caps(f, &mut caps);
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
                        filter_caps(f, &mut caps);
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
                        for f in [m.get("create"), m.get("update")].into_iter().flatten() {
                            family_caps(f, &mut caps);
                        }
                    }
                }
                Op::GetTable { .. }
                | Op::SampleRowKeys { .. }
                | Op::DropRowRange { .. }
                | Op::ListTables { .. }
                | Op::DeleteTable { .. }
                | Op::UpdateTable { .. }
                | Op::CollectGarbage { .. }
                | Op::CreateInstance { .. } => {}
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
            Op::CollectGarbage { .. } => "collect_garbage",
            Op::CreateInstance { .. } => "create_instance",
        }
    }
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
        for mut v in file.vectors {
            v.ops.iter_mut().for_each(Op::expand);
            assert!(
                names.insert(v.name.clone()),
                "duplicate vector name {}",
                v.name
            );
            assert!(
                !v.ops.iter().any(Op::message_without_error),
                "vector {}: expect_message needs expect_error",
                v.name
            );
            all.push(v);
        }
    }
    all
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

/// A modification's core value, or the INVALID_ARGUMENT converting it gave.
fn modification(m: &Value) -> Result<FamilyModification, sparsetable::Error> {
    sparsetable::json::from_value(m.clone())
}

/// Replays one vector against a fresh in-memory core database, in every GC mode its
/// expectations must hold in ([`Vector::gc_modes`]).
///
/// # Errors
/// A description of the first op whose outcome differs from the expectation, naming the
/// mode.
pub fn replay_core(vector: &Vector) -> Result<(), String> {
    for mode in vector.gc_modes() {
        replay_core_in(vector, mode).map_err(|e| format!("gc mode {}: {e}", mode.as_str()))?;
    }
    Ok(())
}

/// Replays one vector against a fresh in-memory core database in `mode`.
///
/// # Errors
/// A description of the first op whose outcome differs from the expectation.
pub fn replay_core_in(vector: &Vector, mode: GcMode) -> Result<(), String> {
    let clock = std::sync::Arc::new(ManualClock::new(vector.start_micros()));
    let mut db = Database::with_clock(clock.clone());
    db.set_gc_mode(mode);
    for (name, spec) in &vector.tables {
        table_config(spec)
            .and_then(|config| db.create_table(name, config))
            .map_err(|e| format!("creating table {name}: {e}"))?;
    }
    for (i, op) in vector.ops.iter().enumerate() {
        let expect_error = op.expect_error();
        match op {
            Op::CreateTable { table, spec, .. } => {
                let outcome = table_config(spec)
                    .and_then(|config| db.create_table(table, config))
                    .map_err(code_of);
                check_outcome(i, expect_error, outcome, None)?;
            }
            Op::MutateRow {
                table,
                row_key,
                mutations,
                ..
            } => {
                let outcome = db.mutate_row(table, &row_key.0, mutations).map_err(code_of);
                check_outcome(i, expect_error, outcome, None)?;
            }
            Op::MutateRows {
                table,
                entries,
                expect_statuses,
                ..
            } => {
                let outcome = db
                    .mutate_rows(table, entries)
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
                    .map(row_filter)
                    .transpose()
                    .and_then(|pred| {
                        db.check_and_mutate_row(
                            table,
                            &row_key.0,
                            pred.as_ref(),
                            true_mutations,
                            false_mutations,
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
                let outcome = db
                    .read_modify_write_row(table, &row_key.0, rules)
                    .map_err(code_of);
                check_outcome(i, expect_error, outcome, expect_row.clone())?;
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
                    .map(row_filter)
                    .transpose()
                    .and_then(|f| db.read_row_filtered(table, &row_key.0, &f.unwrap_or_default()))
                    .map_err(code_of);
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
                if expect_error.is_none() && expect_rows.is_none() {
                    return Err(format!(
                        "op {i}: read_rows needs expect_rows or expect_error"
                    ));
                }
                let outcome = filter
                    .as_ref()
                    .map(row_filter)
                    .transpose()
                    .and_then(|f| {
                        let request = ReadRowsRequest {
                            row_set: row_set.clone().unwrap_or_default(),
                            filter: f.unwrap_or_default(),
                            rows_limit: rows_limit.unwrap_or(0),
                            reversed: reversed.unwrap_or(false),
                        };
                        db.read_rows(table, &request).map(|s| s.collect::<Vec<_>>())
                    })
                    .map_err(code_of);
                check_outcome(i, expect_error, outcome, expect_rows.clone())?;
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
                let outcome = modifications
                    .iter()
                    .map(modification)
                    .collect::<Result<Vec<_>, _>>()
                    .and_then(|mods| db.modify_column_families(table, &mods))
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
                    if let Some(want) = expect_families {
                        if *want != info.config.families {
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
            Op::CollectGarbage { table, .. } => {
                let outcome = db.collect_garbage(table).map_err(code_of);
                check_outcome(i, expect_error, outcome, None)?;
            }
            Op::CreateInstance {
                project,
                instance_id,
                cluster_id,
                ..
            } => {
                use sparsetable::api::instances::{ClusterRecord, InstanceRecord, InstanceType};
                let cluster_id = cluster_id.as_deref().unwrap_or(VECTOR_CLUSTER_ID);
                use sparsetable::Clock as _;
                let outcome = InstanceRecord::create(
                    project,
                    instance_id,
                    None,
                    InstanceType::Production,
                    BTreeMap::new(),
                    vec![ClusterRecord::new(cluster_id, VECTOR_CLUSTER_ZONE)],
                    clock.now_micros(),
                )
                .map(|_| ())
                .map_err(code_of);
                check_outcome(i, expect_error, outcome, None)?;
            }
        }
    }
    Ok(())
}
