//! Conversions between JavaScript values and the engine's types, and nothing else.
//!
//! Inputs are plain JS objects read with serde (`serde-wasm-bindgen`), with camelCase keys.
//! A oneof (mutation, GC rule) must name a known kind; other unknown keys are ignored, as
//! `serde-wasm-bindgen` reads a struct by looking up the keys it knows. Outputs are plain
//! objects whose bytes are `Uint8Array`s. The shapes are the TypeScript declarations in
//! `types.rs`; keep the two in step.
//!
//! Invariants:
//! - bytes (row keys, qualifiers, values, split keys) come in as `Uint8Array` or `string`
//!   (UTF-8 encoded) and go out as `Uint8Array`;
//! - every timestamp that comes in is an integer within ±(2^53 − 1) (a `number`, or a `bigint`
//!   in that range), so every timestamp that goes out is an exact JS `number`.

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use sparsetable::{
    Cell, ColumnFamily, Error, FamilyModification, GcRule, Granularity, Mutation, ReadRowsRequest,
    Row, RowRange, RowSet, TableConfig, TableInfo, TimestampRange,
};
use wasm_bindgen::JsValue;

use crate::error::conversion_error;
use crate::gc_rule::GcRuleIn;
pub use crate::micros::{Micros, MAX_SAFE_INTEGER};

/// Reads a JS value into `T`, reporting failures as `InvalidArgument` naming `argument`.
pub fn from_js<T: for<'de> Deserialize<'de>>(argument: &str, value: JsValue) -> Result<T, Error> {
    serde_wasm_bindgen::from_value(value).map_err(|e| {
        // The error wraps a JS Error whose string form starts with "Error: ".
        let text = e.to_string();
        conversion_error(argument, text.strip_prefix("Error: ").unwrap_or(&text))
    })
}

/// Writes `value` as a plain JS object (maps become objects, bytes `Uint8Array`s).
pub fn to_js<T: Serialize>(value: &T) -> Result<JsValue, Error> {
    let serializer = serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true);
    value
        .serialize(&serializer)
        // Only a timestamp outside the safe range could fail here, and inputs are checked
        // for that, so a failure is a broken invariant.
        .map_err(|e| {
            Error::new(
                sparsetable::Code::Internal,
                format!("converting a result to JavaScript: {e}"),
            )
        })
}

/// Bytes given as a `Uint8Array` or a `string` (taken as its UTF-8 encoding).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bytes(pub Vec<u8>);

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Taken as the JS value itself, so `args::bytes` sees the string before the glue's
        // lossy conversion would replace a lone surrogate.
        let value: JsValue = serde_wasm_bindgen::preserve::deserialize(d)?;
        crate::args::bytes(&value)
            .map(Bytes)
            .map_err(de::Error::custom)
    }
}

/// Bytes going out, as a `Uint8Array`.
#[derive(Debug)]
struct BytesOut<'a>(&'a [u8]);

impl Serialize for BytesOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

/// `new Database(options)`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DatabaseOptions {
    /// When set, the database runs on a manual clock starting at this time.
    pub clock_micros: Option<Micros>,
    /// `"immediate"` (default) or `"background"`: the core's `GcMode`.
    pub gc_mode: Option<String>,
}

/// The GC mode an options object names (`None`: the engine's default).
///
/// # Errors
/// `INVALID_ARGUMENT` for another name.
pub fn gc_mode(name: Option<&str>) -> Result<sparsetable::GcMode, sparsetable::Error> {
    name.map_or(Ok(sparsetable::GcMode::default()), |n| {
        n.parse()
            .map_err(|e: sparsetable::Error| crate::error::conversion_error("gcMode", e.message()))
    })
}

/// A column family's settings, coming in.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FamilyJs {
    #[serde(default)]
    gc_rule: Option<GcRuleIn>,
}

/// A column family's settings, going out.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FamilyOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    gc_rule: Option<GcRuleOut>,
}

/// A GC rule going out: exactly one key, as Bigtable's `GcRule` oneof. Rules come in through
/// [`GcRuleIn`], which bounds their depth; a stored rule is within that bound, so this
/// recursion is too.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
enum GcRuleOut {
    MaxNumVersions(u32),
    MaxAgeMicros(Micros),
    Intersection(Vec<GcRuleOut>),
    Union(Vec<GcRuleOut>),
}

impl GcRuleOut {
    /// `None` for "no rule".
    fn from_core(rule: &GcRule) -> Option<GcRuleOut> {
        match rule {
            GcRule::Never => None,
            GcRule::MaxNumVersions(n) => Some(GcRuleOut::MaxNumVersions(*n)),
            GcRule::MaxAge { micros } => Some(GcRuleOut::MaxAgeMicros(Micros(*micros))),
            GcRule::Intersection(r) => Some(GcRuleOut::Intersection(
                r.iter().filter_map(Self::from_core).collect(),
            )),
            GcRule::Union(r) => Some(GcRuleOut::Union(
                r.iter().filter_map(Self::from_core).collect(),
            )),
        }
    }
}

impl FamilyJs {
    fn to_core(&self) -> ColumnFamily {
        ColumnFamily {
            gc_rule: self
                .gc_rule
                .as_ref()
                .map(|r| r.0.clone())
                .unwrap_or_default(),
            // Settings the JS shape does not name yet keep the core's defaults.
            ..ColumnFamily::default()
        }
    }
}

impl FamilyOut {
    fn from_core(family: &ColumnFamily) -> Self {
        FamilyOut {
            gc_rule: GcRuleOut::from_core(&family.gc_rule),
        }
    }
}

/// Timestamp precision, as Bigtable's `TimestampGranularity` names it.
#[derive(Debug, Clone, Copy, Deserialize, Serialize)]
#[serde(rename_all = "UPPERCASE")]
enum GranularityJs {
    Millis,
    Micros,
}

/// A `families` object, its keys in the object's own order: the order the families are
/// created in, and so the order reads return a row's families in. (JavaScript lists an
/// object's integer-like keys first, ascending, then the others as inserted.)
#[derive(Debug, Default)]
struct FamiliesJs(Vec<(String, FamilyJs)>);

impl<'de> Deserialize<'de> for FamiliesJs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FamiliesJs;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of column families by name")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<FamiliesJs, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<String, FamilyJs>()? {
                    out.push(entry);
                }
                Ok(FamiliesJs(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// A table's families going out, in creation order.
#[derive(Debug)]
struct FamiliesOut<'a>(Vec<(&'a str, FamilyOut)>);

impl Serialize for FamiliesOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(n, f)| (n, f)))
    }
}

/// `createTable`'s config.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TableConfigJs {
    #[serde(default)]
    families: FamiliesJs,
    granularity: Option<GranularityJs>,
    deletion_protection: Option<bool>,
    #[serde(default)]
    initial_splits: Vec<Bytes>,
    max_value_bytes: Option<u64>,
}

impl TableConfigJs {
    /// The core config; options left out keep the core's defaults.
    pub fn to_core(&self) -> Result<TableConfig, Error> {
        let max_value_bytes = match self.max_value_bytes {
            None => TableConfig::default().max_value_bytes,
            Some(n) => usize::try_from(n).map_err(|_| {
                conversion_error(
                    "config.maxValueBytes",
                    format_args!("{n} does not fit this platform"),
                )
            })?,
        };
        let defaults = TableConfig::default();
        // Spelled with `..defaults` although every field is named today, so options the core
        // adds later keep their defaults here instead of breaking the build.
        #[allow(clippy::needless_update)]
        Ok(TableConfig {
            families: self
                .families
                .0
                .iter()
                .map(|(n, f)| (n.clone(), f.to_core()))
                .collect(),
            granularity: match self.granularity {
                None => defaults.granularity,
                Some(GranularityJs::Millis) => Granularity::Millis,
                Some(GranularityJs::Micros) => Granularity::Micros,
            },
            deletion_protection: self
                .deletion_protection
                .unwrap_or(defaults.deletion_protection),
            initial_splits: self.initial_splits.iter().map(|b| b.0.clone()).collect(),
            max_value_bytes,
            ..defaults
        })
    }
}

/// What `getTable`/`listTables` return.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TableInfoJs<'a> {
    name: &'a str,
    families: FamiliesOut<'a>,
    granularity: GranularityJs,
    deletion_protection: bool,
    initial_splits: Vec<BytesOut<'a>>,
    max_value_bytes: u64,
}

impl<'a> TableInfoJs<'a> {
    /// The JS view of a table's schema.
    pub fn from_core(info: &'a TableInfo) -> Self {
        let c = &info.config;
        TableInfoJs {
            name: &info.name,
            families: FamiliesOut(
                c.families
                    .iter()
                    .map(|(n, f)| (n.as_str(), FamilyOut::from_core(f)))
                    .collect(),
            ),
            granularity: match c.granularity {
                Granularity::Millis => GranularityJs::Millis,
                Granularity::Micros => GranularityJs::Micros,
            },
            deletion_protection: c.deletion_protection,
            initial_splits: c.initial_splits.iter().map(|k| BytesOut(k)).collect(),
            max_value_bytes: c.max_value_bytes as u64,
        }
    }
}

/// One entry of `modifyColumnFamilies`: `{id, create}`, `{id, update}` or `{id, drop: true}`,
/// as Bigtable's `ModifyColumnFamiliesRequest.Modification`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FamilyModificationJs {
    id: String,
    create: Option<FamilyJs>,
    update: Option<FamilyJs>,
    #[serde(default)]
    drop: bool,
}

impl FamilyModificationJs {
    /// The core modification; `index` names the entry in errors.
    pub fn into_core(self, index: usize) -> Result<FamilyModification, Error> {
        let name = self.id;
        match (self.create, self.update, self.drop) {
            (Some(f), None, false) => Ok(FamilyModification::Create {
                name,
                family: f.to_core(),
            }),
            (None, Some(f), false) => Ok(FamilyModification::Update {
                name,
                family: f.to_core(),
            }),
            (None, None, true) => Ok(FamilyModification::Drop { name }),
            _ => Err(conversion_error(
                &format!("modifications[{index}]"),
                "needs exactly one of create, update or drop: true",
            )),
        }
    }
}

/// A mutation: exactly one key, as Bigtable's `Mutation` oneof.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum MutationJs {
    /// Writes one cell; `timestampMicros: -1` takes the database's clock.
    SetCell {
        family: String,
        qualifier: Bytes,
        timestamp_micros: Micros,
        value: Bytes,
    },
    /// Deletes one column's cells, optionally only in `[start, end)`.
    DeleteFromColumn {
        family: String,
        qualifier: Bytes,
        time_range: Option<TimeRangeJs>,
    },
    /// Deletes one family's cells.
    DeleteFromFamily { family: String },
    /// Deletes the row.
    DeleteFromRow {},
}

/// A half-open time range; both ends optional, an end of 0 is unbounded (as in the proto).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TimeRangeJs {
    start_timestamp_micros: Option<Micros>,
    end_timestamp_micros: Option<Micros>,
}

impl MutationJs {
    /// The core mutation.
    pub fn into_core(self) -> Mutation {
        match self {
            MutationJs::SetCell {
                family,
                qualifier,
                timestamp_micros,
                value,
            } => Mutation::SetCell {
                family,
                qualifier: qualifier.0,
                timestamp_micros: timestamp_micros.0,
                value: value.0,
            },
            MutationJs::DeleteFromColumn {
                family,
                qualifier,
                time_range,
            } => {
                let r = time_range.unwrap_or_default();
                Mutation::DeleteFromColumn {
                    family,
                    qualifier: qualifier.0,
                    // A missing field is the proto's 0; the core reads the wire values.
                    time_range: TimestampRange::from_wire(
                        r.start_timestamp_micros.map_or(0, |m| m.0),
                        r.end_timestamp_micros.map_or(0, |m| m.0),
                    ),
                }
            }
            MutationJs::DeleteFromFamily { family } => Mutation::DeleteFromFamily { family },
            MutationJs::DeleteFromRow {} => Mutation::DeleteFromRow,
        }
    }
}

/// A row range, as Bigtable's `RowRange`: at most one start and one end key; a missing or
/// empty key is unbounded (the core's rule, [`RowRange::from_wire`]).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RowRangeJs {
    start_key_closed: Option<Bytes>,
    start_key_open: Option<Bytes>,
    end_key_closed: Option<Bytes>,
    end_key_open: Option<Bytes>,
}

impl RowRangeJs {
    fn into_core(self, index: usize) -> Result<RowRange, Error> {
        RowRange::from_wire(
            self.start_key_closed.map(|k| k.0),
            self.start_key_open.map(|k| k.0),
            self.end_key_closed.map(|k| k.0),
            self.end_key_open.map(|k| k.0),
        )
        .map_err(|e| {
            conversion_error(
                &format!("request.rowRanges[{index}]"),
                format_args!("{}", e.message()),
            )
        })
    }
}

/// `readRows`' request: which rows, how many, which direction.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadRowsRequestJs {
    #[serde(default)]
    row_keys: Vec<Bytes>,
    #[serde(default)]
    row_ranges: Vec<RowRangeJs>,
    limit: Option<i64>,
    reversed: Option<bool>,
}

impl ReadRowsRequestJs {
    /// The core request; a missing limit means no limit, as in the core.
    pub fn into_core(self) -> Result<ReadRowsRequest, Error> {
        let row_ranges = self
            .row_ranges
            .into_iter()
            .enumerate()
            .map(|(i, r)| r.into_core(i))
            .collect::<Result<_, _>>()?;
        // `..Default::default()` although every field is named today, so request fields the
        // core adds later keep their defaults instead of breaking the build.
        #[allow(clippy::needless_update)]
        Ok(ReadRowsRequest {
            row_set: RowSet {
                row_keys: self.row_keys.into_iter().map(|k| k.0).collect(),
                row_ranges,
            },
            rows_limit: self.limit.unwrap_or(0),
            reversed: self.reversed.unwrap_or(false),
            ..Default::default()
        })
    }
}

/// A row going out.
#[derive(Serialize)]
pub struct RowJs<'a> {
    key: BytesOut<'a>,
    cells: Vec<CellJs<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CellJs<'a> {
    family: &'a str,
    qualifier: BytesOut<'a>,
    timestamp_micros: i64,
    value: BytesOut<'a>,
    labels: &'a [String],
}

impl<'a> RowJs<'a> {
    /// The JS view of a row.
    pub fn from_core(row: &'a Row) -> Self {
        RowJs {
            key: BytesOut(&row.key),
            cells: row.cells.iter().map(CellJs::from_core).collect(),
        }
    }
}

impl<'a> CellJs<'a> {
    fn from_core(cell: &'a Cell) -> Self {
        CellJs {
            family: &cell.family,
            qualifier: BytesOut(&cell.qualifier),
            timestamp_micros: cell.timestamp_micros,
            value: BytesOut(&cell.value),
            labels: &cell.labels,
        }
    }
}
