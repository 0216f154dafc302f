//! The admin API's messages (`google.bigtable.admin.v2`): GC rules, column families with their
//! value types, tables, and column family modifications.
//!
//! Only the value types the core stores are accepted: plain bytes, and Sum, Min or Max
//! aggregates over int64 in big-endian encoding. Any other `Type` is INVALID_ARGUMENT here, the
//! answer the engine would give if it could be asked.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::data::WEmpty;
use super::scalar::{Duration, B64, I32};
use super::{check_oneof, some_str, some_vec};
use crate::limits::MAX_GC_RULE_DEPTH;
use crate::{
    ColumnFamily, Families, FamilyModification, GcRule, Granularity, TableConfig, ValueType,
};

message!(WGcRule {
    max_num_versions | "max_num_versions": I32,
    max_age | "max_age": Duration,
    intersection: WRules,
    union: WRules,
});
message!(WRules {
    rules: Vec<WGcRule>,
});

fn into_gc_rule(w: WGcRule, depth: usize) -> Result<GcRule, String> {
    // The engine's own limit and message (gc.rs).
    if depth > MAX_GC_RULE_DEPTH {
        return Err(format!(
            "gc_rule: nested deeper than {MAX_GC_RULE_DEPTH} levels"
        ));
    }
    check_oneof(
        "gcRule",
        &[
            ("maxNumVersions", w.max_num_versions.is_some()),
            ("maxAge", w.max_age.is_some()),
            ("intersection", w.intersection.is_some()),
            ("union", w.union.is_some()),
        ],
        false,
    )?;
    let list = |r: WRules| {
        r.rules
            .unwrap_or_default()
            .into_iter()
            .map(|r| into_gc_rule(r, depth + 1))
            .collect::<Result<Vec<_>, _>>()
    };
    Ok(if let Some(n) = w.max_num_versions {
        // The core holds a u32; a negative count is as invalid as 0, which the engine refuses.
        let n = u32::try_from(n.0)
            .map_err(|_| String::from("gc_rule.max_num_versions must be at least 1"))?;
        GcRule::MaxNumVersions(n)
    } else if let Some(d) = w.max_age {
        GcRule::MaxAge { micros: d.0 }
    } else if let Some(r) = w.intersection {
        GcRule::Intersection(list(r)?)
    } else if let Some(r) = w.union {
        GcRule::Union(list(r)?)
    } else {
        // No rule set: keep everything, as Bigtable reads an empty GcRule.
        GcRule::Never
    })
}

fn from_gc_rule(r: &GcRule) -> WGcRule {
    let list = |rs: &[GcRule]| WRules {
        rules: some_vec(rs.iter().map(from_gc_rule).collect()),
    };
    let mut w = WGcRule::default();
    match r {
        GcRule::Never => {}
        GcRule::MaxNumVersions(n) => {
            // Above i32::MAX it cannot be an int32; saturate (it still keeps every version).
            w.max_num_versions = Some(I32(i32::try_from(*n).unwrap_or(i32::MAX)))
        }
        GcRule::MaxAge { micros } => w.max_age = Some(Duration(*micros)),
        GcRule::Intersection(rs) => w.intersection = Some(list(rs)),
        GcRule::Union(rs) => w.union = Some(list(rs)),
    }
    w
}

via!(GcRule, WGcRule, from_gc_rule, |w| into_gc_rule(w, 1));

message!(WType {
    bytes_type | "bytes_type": WBytesType,
    int64_type | "int64_type": WInt64,
    aggregate_type | "aggregate_type": alloc::boxed::Box<WAggregate>,
});
message!(WBytesType {
    encoding: WBytesEncoding,
});
message!(WBytesEncoding { raw: WEmpty });
message!(WInt64 {
    encoding: WInt64Encoding,
});
message!(WInt64Encoding {
    big_endian_bytes | "big_endian_bytes": WBigEndian,
    ordered_code_bytes | "ordered_code_bytes": WEmpty,
});
message!(WBigEndian {
    bytes_type | "bytes_type": WBytesType,
});
message!(WAggregate {
    input_type | "input_type": WType,
    state_type | "state_type": WType,
    sum: WEmpty,
    hllpp_unique_count | "hllpp_unique_count": WEmpty,
    max: WEmpty,
    min: WEmpty,
});

/// Whether a `Type` is int64 stored as 8 big-endian bytes (the core's only aggregate input).
fn is_big_endian_int64(t: &WType) -> bool {
    let Some(int) = &t.int64_type else {
        return false;
    };
    t.bytes_type.is_none()
        && t.aggregate_type.is_none()
        && int
            .encoding
            .as_ref()
            .is_none_or(|e| e.ordered_code_bytes.is_none())
}

fn into_value_type(w: WType) -> Result<ValueType, String> {
    check_oneof(
        "valueType",
        &[
            ("bytesType", w.bytes_type.is_some()),
            ("int64Type", w.int64_type.is_some()),
            ("aggregateType", w.aggregate_type.is_some()),
        ],
        true,
    )?;
    if w.bytes_type.is_some() {
        return Ok(ValueType::Bytes);
    }
    let Some(agg) = w.aggregate_type else {
        return Err(
            "valueType: a plain int64 family is not supported; use bytesType or an aggregateType"
                .into(),
        );
    };
    check_oneof(
        "valueType.aggregateType",
        &[
            ("sum", agg.sum.is_some()),
            ("hllppUniqueCount", agg.hllpp_unique_count.is_some()),
            ("max", agg.max.is_some()),
            ("min", agg.min.is_some()),
        ],
        true,
    )?;
    if agg.hllpp_unique_count.is_some() {
        // HyperLogLog++ takes any input, or omits it for raw bytes (model::aggregate); its
        // state is our sketch, so a stateType given must be bytes.
        let any_input = agg.input_type.as_ref().is_none_or(|t| {
            t.aggregate_type.is_none() && (t.bytes_type.is_some() || is_big_endian_int64(t))
        });
        let bytes_state = agg
            .state_type
            .as_ref()
            .is_none_or(|t| t.bytes_type.is_some() && t.aggregate_type.is_none());
        if !any_input || !bytes_state {
            return Err(
                "valueType.aggregateType: hllppUniqueCount takes an int64Type or \
                 bytesType input (or none, for raw bytes) and a bytesType state"
                    .into(),
            );
        }
        return Ok(ValueType::HllUniqueCount);
    }
    // stateType is output only; when given it must agree with what the core stores.
    let ok_type =
        |t: &Option<WType>, required: bool| t.as_ref().map_or(!required, is_big_endian_int64);
    if !ok_type(&agg.input_type, true) || !ok_type(&agg.state_type, false) {
        return Err(
            "valueType.aggregateType: inputType must be int64Type (big-endian encoding)".into(),
        );
    }
    if agg.sum.is_some() {
        Ok(ValueType::Int64Sum)
    } else if agg.min.is_some() {
        Ok(ValueType::Int64Min)
    } else {
        Ok(ValueType::Int64Max)
    }
}

fn from_value_type(v: ValueType) -> Option<WType> {
    let mut agg = WAggregate {
        input_type: Some(WType {
            int64_type: Some(WInt64::default()),
            ..WType::default()
        }),
        ..WAggregate::default()
    };
    match v {
        ValueType::Bytes => return None,
        ValueType::Int64Sum => agg.sum = Some(WEmpty {}),
        ValueType::Int64Min => agg.min = Some(WEmpty {}),
        ValueType::Int64Max => agg.max = Some(WEmpty {}),
        ValueType::HllUniqueCount => {
            // Raw bytes in (an int64 input is also taken), the sketch's bytes out.
            agg.input_type = Some(WType {
                bytes_type: Some(WBytesType::default()),
                ..WType::default()
            });
            agg.hllpp_unique_count = Some(WEmpty {});
        }
    }
    Some(WType {
        aggregate_type: Some(alloc::boxed::Box::new(agg)),
        ..WType::default()
    })
}

message!(WColumnFamily {
    gc_rule | "gc_rule": GcRule,
    value_type | "value_type": WType,
});

via!(
    ColumnFamily,
    WColumnFamily,
    |f: &ColumnFamily| WColumnFamily {
        gc_rule: (f.gc_rule != GcRule::Never).then(|| f.gc_rule.clone()),
        value_type: from_value_type(f.value_type),
    },
    |w: WColumnFamily| Ok::<_, String>(ColumnFamily {
        gc_rule: w.gc_rule.unwrap_or_default(),
        value_type: w
            .value_type
            .map(into_value_type)
            .transpose()?
            .unwrap_or_default(),
    })
);

/// `Table.TimestampGranularity` by name or number. `MICROS` is Sparsetable's own: the proto
/// has only `MILLIS`, but the core also models microsecond tables.
impl Serialize for Granularity {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            Granularity::Millis => "MILLIS",
            Granularity::Micros => "MICROS",
        })
    }
}

impl<'de> Deserialize<'de> for Granularity {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Granularity;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a TimestampGranularity name or number")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Granularity, E> {
                match v {
                    // Unspecified means the default, MILLIS, as in Cloud Bigtable.
                    "TIMESTAMP_GRANULARITY_UNSPECIFIED" | "MILLIS" => Ok(Granularity::Millis),
                    "MICROS" => Ok(Granularity::Micros),
                    _ => Err(E::custom(format!("unknown granularity {v:?}"))),
                }
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Granularity, E> {
                match v {
                    0 | 1 => Ok(Granularity::Millis),
                    _ => Err(E::custom(format!("unknown granularity {v}"))),
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Granularity, E> {
                u64::try_from(v)
                    .map_err(|_| E::custom(format!("unknown granularity {v}")))
                    .and_then(|v| self.visit_u64(v))
            }
        }
        d.deserialize_any(V)
    }
}

// A `map<string, ColumnFamily>`: a JSON object whose members keep their order both ways, so
// a CreateTable request's families are created in the order the request lists them and a
// table's families are listed in creation order. A name repeated in one object keeps its
// first place and its last settings.
impl Serialize for Families {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for Families {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Families;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of column family names to ColumnFamily")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Families, A::Error> {
                let mut families = Families::new();
                while let Some((name, family)) = map.next_entry::<String, ColumnFamily>()? {
                    families.insert(name, family);
                }
                Ok(families)
            }
        }
        d.deserialize_map(V)
    }
}

message!(WTable {
    name: String,
    column_families | "column_families": Families,
    granularity: Granularity,
    deletion_protection | "deletion_protection": bool,
    initial_splits | "initial_splits": Vec<WSplit>,
});
message!(WSplit { key: B64 });

// `name` is accepted (GetTable answers carry it) but not kept: the table id is the caller's
// argument. Engine-only settings (value size limit, tablet options) keep their defaults.
via!(
    TableConfig,
    WTable,
    |t: &TableConfig| WTable {
        name: None,
        column_families: (!t.families.is_empty()).then(|| t.families.clone()),
        granularity: Some(t.granularity),
        deletion_protection: t.deletion_protection.then_some(true),
        initial_splits: some_vec(
            t.initial_splits
                .iter()
                .map(|k| WSplit {
                    key: Some(B64(k.clone())),
                })
                .collect()
        ),
    },
    |w: WTable| Ok::<_, String>(TableConfig {
        families: w.column_families.unwrap_or_default(),
        granularity: w.granularity.unwrap_or_default(),
        deletion_protection: w.deletion_protection.unwrap_or(false),
        initial_splits: w
            .initial_splits
            .unwrap_or_default()
            .into_iter()
            .map(|s| s.key.map(|k| k.0).unwrap_or_default())
            .collect(),
        ..TableConfig::default()
    })
);

message!(WModification {
    id: String,
    create: ColumnFamily,
    update: ColumnFamily,
    drop: bool,
});

fn into_modification(w: WModification) -> Result<FamilyModification, String> {
    check_oneof(
        "modification",
        &[
            ("create", w.create.is_some()),
            ("update", w.update.is_some()),
            ("drop", w.drop.is_some()),
        ],
        true,
    )?;
    let name = w.id.unwrap_or_default();
    Ok(match (w.create, w.update, w.drop) {
        (Some(family), _, _) => FamilyModification::Create { name, family },
        (_, Some(family), _) => FamilyModification::Update { name, family },
        (_, _, Some(true)) => FamilyModification::Drop { name },
        _ => return Err("modification.drop: must be true when set".into()),
    })
}

fn from_modification(m: &FamilyModification) -> WModification {
    match m {
        FamilyModification::Create { name, family } => WModification {
            id: some_str(name),
            create: Some(family.clone()),
            ..WModification::default()
        },
        FamilyModification::Update { name, family } => WModification {
            id: some_str(name),
            update: Some(family.clone()),
            ..WModification::default()
        },
        FamilyModification::Drop { name } => WModification {
            id: some_str(name),
            drop: Some(true),
            ..WModification::default()
        },
    }
}

via!(
    FamilyModification,
    WModification,
    from_modification,
    into_modification
);
