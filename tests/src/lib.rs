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
    Code, ColumnFamily, Database, GcRule, Granularity, ManualClock, Mutation, ReadRowsRequest, Row,
    RowRange, RowSet, TableConfig, TimestampRange,
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
        }
        match Repr::deserialize(d)? {
            Repr::Text(s) => Ok(Bytes(s.into_bytes())),
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
    /// The manual clock's start.
    #[serde(default = "default_clock")]
    pub clock_micros: i64,
    /// Tables created before the ops run.
    #[serde(default)]
    pub tables: BTreeMap<String, TableSpec>,
    /// The operations, in order.
    pub ops: Vec<Op>,
}

fn default_clock() -> i64 {
    DEFAULT_CLOCK_MICROS
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
}

/// A family's settings in a vector.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FamilySpec {
    /// The GC rule, if any.
    pub gc_rule: Option<GcRuleSpec>,
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

/// One operation of a vector.
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
        /// The expected error code, if the op must fail.
        expect_error: Option<String>,
    },
    /// Read one row.
    ReadRow {
        /// The table id.
        #[serde(default = "default_table")]
        table: String,
        /// The row.
        row_key: Bytes,
        /// The expected row (`None` = no row), unless an error is expected.
        #[serde(default)]
        expect_row: Option<RowSpec>,
        /// The expected error code, if the op must fail.
        expect_error: Option<String>,
    },
    /// Read rows.
    ReadRows {
        /// The table id.
        #[serde(default = "default_table")]
        table: String,
        /// Which rows.
        row_set: Option<RowSetSpec>,
        /// Most rows.
        rows_limit: Option<i64>,
        /// Descending order.
        reversed: Option<bool>,
        /// The expected rows, unless an error is expected.
        expect_rows: Option<Vec<RowSpec>>,
        /// The expected error code, if the op must fail.
        expect_error: Option<String>,
    },
}

fn default_table() -> String {
    "t".to_string()
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
        let file: VectorFile = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        for v in file.vectors {
            assert!(names.insert(v.name.clone()), "duplicate vector name {}", v.name);
            all.push(v);
        }
    }
    all
}

impl Vector {
    /// The capabilities the vector needs (tests/vectors/README.md).
    pub fn capabilities(&self) -> BTreeSet<String> {
        let mut caps = BTreeSet::new();
        if !self.tables.is_empty() {
            caps.insert("op:create_table".to_string());
        }
        let table_caps = |spec: &TableSpec, caps: &mut BTreeSet<String>| {
            if spec.families.values().any(|f| f.gc_rule.is_some()) {
                caps.insert("schema:gc_rule".to_string());
            }
            if spec.granularity.is_some() {
                caps.insert("schema:granularity".to_string());
            }
            if spec.deletion_protection.is_some() {
                caps.insert("schema:deletion_protection".to_string());
            }
        };
        for spec in self.tables.values() {
            table_caps(spec, &mut caps);
        }
        for op in &self.ops {
            let (name, err) = match op {
                Op::CreateTable { spec, expect_error, .. } => {
                    table_caps(spec, &mut caps);
                    ("create_table", expect_error)
                }
                Op::MutateRow { mutations, expect_error, .. } => {
                    for m in mutations {
                        caps.insert(format!("mutation:{}", m.kind()));
                    }
                    ("mutate_row", expect_error)
                }
                Op::ReadRow { expect_error, .. } => ("read_row", expect_error),
                Op::ReadRows {
                    row_set,
                    rows_limit,
                    reversed,
                    expect_error,
                    ..
                } => {
                    for (present, cap) in [
                        (row_set.is_some(), "read:row_set"),
                        (rows_limit.is_some(), "read:rows_limit"),
                        (reversed.is_some(), "read:reversed"),
                    ] {
                        if present {
                            caps.insert(cap.to_string());
                        }
                    }
                    ("read_rows", expect_error)
                }
            };
            caps.insert(format!("op:{name}"));
            if err.is_some() {
                caps.insert("error".to_string());
            }
        }
        caps
    }
}

impl MutationSpec {
    /// The mutation's kind, as in its JSON key.
    pub fn kind(&self) -> &'static str {
        match self {
            MutationSpec::SetCell { .. } => "set_cell",
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
            } => Mutation::set_cell(family.clone(), qualifier.0.clone(), *timestamp_micros, value.0.clone()),
            MutationSpec::DeleteFromColumn {
                family,
                qualifier,
                start_timestamp_micros,
                end_timestamp_micros,
            } => Mutation::DeleteFromColumn {
                family: family.clone(),
                qualifier: qualifier.0.clone(),
                time_range: TimestampRange {
                    start_micros: start_timestamp_micros.unwrap_or(0),
                    end_micros: *end_timestamp_micros,
                },
            },
            MutationSpec::DeleteFromFamily { family } => Mutation::DeleteFromFamily {
                family: family.clone(),
            },
            MutationSpec::DeleteFromRow {} => Mutation::DeleteFromRow,
        }
    }
}

impl GcRuleSpec {
    /// The core GC rule it stands for.
    pub fn to_core(&self) -> GcRule {
        match self {
            GcRuleSpec::MaxNumVersions(n) => GcRule::MaxNumVersions(*n),
            GcRuleSpec::MaxAgeMicros(m) => GcRule::MaxAge { micros: *m },
            GcRuleSpec::Intersection(r) => GcRule::Intersection(r.iter().map(Self::to_core).collect()),
            GcRuleSpec::Union(r) => GcRule::Union(r.iter().map(Self::to_core).collect()),
        }
    }
}

impl TableSpec {
    /// The core table config it stands for.
    ///
    /// # Errors
    /// An unknown granularity name.
    pub fn to_core(&self) -> Result<TableConfig, String> {
        Ok(TableConfig {
            families: self
                .families
                .iter()
                .map(|(name, f)| {
                    (
                        name.clone(),
                        ColumnFamily {
                            gc_rule: f.gc_rule.as_ref().map(GcRuleSpec::to_core).unwrap_or_default(),
                        },
                    )
                })
                .collect(),
            granularity: match self.granularity.as_deref() {
                None | Some("MILLIS") => Granularity::Millis,
                Some("MICROS") => Granularity::Micros,
                Some(other) => return Err(format!("unknown granularity {other}")),
            },
            deletion_protection: self.deletion_protection.unwrap_or(false),
            ..TableConfig::default()
        })
    }
}

impl RowSetSpec {
    /// The core row set it stands for.
    pub fn to_core(&self) -> RowSet {
        RowSet {
            row_keys: self.row_keys.iter().map(|k| k.0.clone()).collect(),
            row_ranges: self
                .row_ranges
                .iter()
                .map(|r| RowRange {
                    start: match (&r.start_key_closed, &r.start_key_open) {
                        (Some(k), _) => Bound::Included(k.0.clone()),
                        (None, Some(k)) => Bound::Excluded(k.0.clone()),
                        (None, None) => Bound::Unbounded,
                    },
                    end: match (&r.end_key_closed, &r.end_key_open) {
                        (Some(k), _) => Bound::Included(k.0.clone()),
                        (None, Some(k)) => Bound::Excluded(k.0.clone()),
                        (None, None) => Bound::Unbounded,
                    },
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

/// Checks an op's outcome against its expectation.
///
/// # Errors
/// A description of the mismatch.
pub fn check_outcome<T: std::fmt::Debug + PartialEq>(
    op_index: usize,
    expect_error: &Option<String>,
    outcome: Result<T, (Code, String)>,
    expected: Option<T>,
) -> Result<(), String> {
    match (expect_error, outcome) {
        (Some(code), Err((got, msg))) if got.as_str() == code => Ok(()),
        (Some(code), Err((got, msg))) => Err(format!(
            "op {op_index}: expected error {code}, got {} ({msg})",
            got.as_str()
        )),
        (Some(code), Ok(v)) => Err(format!("op {op_index}: expected error {code}, got success {v:?}")),
        (None, Err((got, msg))) => Err(format!("op {op_index}: unexpected error {} ({msg})", got.as_str())),
        (None, Ok(v)) => match expected {
            Some(e) if e != v => Err(format!("op {op_index}: expected {e:#?}\n got {v:#?}")),
            _ => Ok(()),
        },
    }
}

/// Replays one vector against a fresh in-memory core database.
///
/// # Errors
/// A description of the first op whose outcome differs from the expectation.
pub fn replay_core(vector: &Vector) -> Result<(), String> {
    let clock = std::sync::Arc::new(ManualClock::new(vector.clock_micros));
    let mut db = Database::with_clock(clock.clone());
    let err = |e: sparsetable::Error| (e.code(), e.message().to_string());
    for (name, spec) in &vector.tables {
        db.create_table(name, spec.to_core()?)
            .map_err(|e| format!("creating table {name}: {e}"))?;
    }
    for (i, op) in vector.ops.iter().enumerate() {
        match op {
            Op::CreateTable { table, spec, expect_error } => {
                let outcome = db.create_table(table, spec.to_core()?).map_err(err);
                check_outcome(i, expect_error, outcome, None)?;
            }
            Op::MutateRow {
                table,
                row_key,
                mutations,
                expect_error,
            } => {
                let muts: Vec<Mutation> = mutations.iter().map(MutationSpec::to_core).collect();
                let outcome = db.mutate_row(table, &row_key.0, &muts).map_err(err);
                check_outcome(i, expect_error, outcome, None)?;
            }
            Op::ReadRow {
                table,
                row_key,
                expect_row,
                expect_error,
            } => {
                let outcome = db.read_row(table, &row_key.0).map_err(err);
                check_outcome(i, expect_error, outcome, Some(expect_row.as_ref().map(RowSpec::to_core)))?;
            }
            Op::ReadRows {
                table,
                row_set,
                rows_limit,
                reversed,
                expect_rows,
                expect_error,
            } => {
                let request = ReadRowsRequest {
                    row_set: row_set.as_ref().map(RowSetSpec::to_core).unwrap_or_default(),
                    rows_limit: rows_limit.unwrap_or(0),
                    reversed: reversed.unwrap_or(false),
                };
                let outcome = db
                    .read_rows(table, &request)
                    .map(|s| s.collect::<Vec<_>>())
                    .map_err(err);
                let expected = expect_rows.as_ref().map(|rows| rows.iter().map(RowSpec::to_core).collect());
                if expect_error.is_none() && expected.is_none() {
                    return Err(format!("op {i}: read_rows needs expect_rows or expect_error"));
                }
                check_outcome(i, expect_error, outcome, expected)?;
            }
        }
    }
    Ok(())
}
