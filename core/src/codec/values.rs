//! The stable byte encodings of the model's values that reach disk: [`Mutation`],
//! [`TimestampRange`], [`GcRule`], [`ValueType`], [`Granularity`], [`ColumnFamily`],
//! [`TabletOptions`] and [`TableConfig`], built on the primitives of [`super::encoding`]
//! (varints, fixed-width integers, length-prefixed strings, the [`Decoder`]). Each enum
//! starts with a one-byte tag. Tags reach disk: never renumber them, never reuse a retired
//! one. Tag 0 is invalid everywhere, so a zero-filled region never decodes as a value.
//!
//! Invariants: every encoding is canonical (a table's families are listed in creation order
//! with each name once; [`FamilyOrder`]: manifests before version 3 listed them in strictly
//! ascending name order, which their readers still check), so bytes the decoder accepts
//! re-encode to exactly the same bytes; decoding never panics and answers `DataLoss` for
//! anything malformed. The grammar is in docs/format/commit_log.md, "Values".

use alloc::string::String;
use alloc::vec::Vec;

use crate::codec::encoding::{
    put_bool, put_bytes, put_len, put_str, put_u8, put_varint32, put_varint64, put_varint_i64,
    Decode, Decoder, Encode,
};
use crate::codec::row_key_schema::{decode_row_key_schema, put_row_key_schema};
use crate::model::gc::GcRule;
use crate::model::mutation::{Mutation, TimestampRange};
use crate::model::schema::{
    ColumnFamily, Families, Granularity, TableConfig, TabletOptions, ValueType,
};
use crate::Result;

use crate::limits::GC_RULE_TREE;
/// Deepest nesting of [`GcRule::Intersection`] / [`GcRule::Union`] the decoder accepts (the
/// one limit of `limits.rs`); it keeps a hostile input from exhausting the stack. Rules nested
/// deeper encode but do not decode, so the engine must not accept them in a schema.
pub use crate::limits::MAX_GC_RULE_DEPTH;

/// Stable one-byte tags of [`Mutation`] variants. Reach disk: never renumber.
pub mod mutation_tag {
    /// [`crate::Mutation::SetCell`].
    pub const SET_CELL: u8 = 1;
    /// [`crate::Mutation::AddToCell`].
    pub const ADD_TO_CELL: u8 = 2;
    /// [`crate::Mutation::MergeToCell`].
    pub const MERGE_TO_CELL: u8 = 3;
    /// [`crate::Mutation::DeleteFromColumn`].
    pub const DELETE_FROM_COLUMN: u8 = 4;
    /// [`crate::Mutation::DeleteFromFamily`].
    pub const DELETE_FROM_FAMILY: u8 = 5;
    /// [`crate::Mutation::DeleteFromRow`].
    pub const DELETE_FROM_ROW: u8 = 6;
}

/// Stable one-byte tags of [`GcRule`] variants. Reach disk: never renumber.
pub mod gc_rule_tag {
    /// [`crate::GcRule::Never`].
    pub const NEVER: u8 = 1;
    /// [`crate::GcRule::MaxNumVersions`].
    pub const MAX_NUM_VERSIONS: u8 = 2;
    /// [`crate::GcRule::MaxAge`].
    pub const MAX_AGE: u8 = 3;
    /// [`crate::GcRule::Intersection`].
    pub const INTERSECTION: u8 = 4;
    /// [`crate::GcRule::Union`].
    pub const UNION: u8 = 5;
}

/// Stable one-byte tags of [`ValueType`]. Reach disk: never renumber.
pub mod value_type_tag {
    /// [`crate::ValueType::Bytes`].
    pub const BYTES: u8 = 1;
    /// [`crate::ValueType::Int64Sum`].
    pub const INT64_SUM: u8 = 2;
    /// [`crate::ValueType::Int64Min`].
    pub const INT64_MIN: u8 = 3;
    /// [`crate::ValueType::Int64Max`].
    pub const INT64_MAX: u8 = 4;
    /// [`crate::ValueType::HllUniqueCount`].
    pub const HLL_UNIQUE_COUNT: u8 = 5;
}

/// Stable one-byte tags of [`Granularity`]. Reach disk: never renumber.
pub mod granularity_tag {
    /// [`crate::Granularity::Millis`].
    pub const MILLIS: u8 = 1;
    /// [`crate::Granularity::Micros`].
    pub const MICROS: u8 = 2;
}

impl Encode for TimestampRange {
    /// `start` (zigzag varint), then a presence byte (0 = unbounded, 1 = bounded) and, when
    /// bounded, `end` (zigzag varint).
    fn encode_to(&self, out: &mut Vec<u8>) {
        put_varint_i64(out, self.start_micros);
        match self.end_micros {
            None => put_bool(out, false),
            Some(end) => {
                put_bool(out, true);
                put_varint_i64(out, end);
            }
        }
    }
}

impl Decode for TimestampRange {
    fn decode_from(d: &mut Decoder<'_>) -> Result<Self> {
        let start_micros = d.varint_i64("time_range.start_micros")?;
        let end_micros = if d.bool("time_range.has_end")? {
            Some(d.varint_i64("time_range.end_micros")?)
        } else {
            None
        };
        Ok(TimestampRange {
            start_micros,
            end_micros,
        })
    }
}

impl Encode for Mutation {
    fn encode_to(&self, out: &mut Vec<u8>) {
        use mutation_tag::*;
        match self {
            Mutation::SetCell {
                family,
                qualifier,
                timestamp_micros,
                value,
            } => {
                put_u8(out, SET_CELL);
                put_str(out, family);
                put_bytes(out, qualifier);
                put_varint_i64(out, *timestamp_micros);
                put_bytes(out, value);
            }
            Mutation::AddToCell {
                family,
                qualifier,
                timestamp_micros,
                input,
            } => {
                put_u8(out, ADD_TO_CELL);
                put_str(out, family);
                put_bytes(out, qualifier);
                put_varint_i64(out, *timestamp_micros);
                put_varint_i64(out, *input);
            }
            Mutation::MergeToCell {
                family,
                qualifier,
                timestamp_micros,
                state,
            } => {
                put_u8(out, MERGE_TO_CELL);
                put_str(out, family);
                put_bytes(out, qualifier);
                put_varint_i64(out, *timestamp_micros);
                put_bytes(out, state);
            }
            Mutation::DeleteFromColumn {
                family,
                qualifier,
                time_range,
            } => {
                put_u8(out, DELETE_FROM_COLUMN);
                put_str(out, family);
                put_bytes(out, qualifier);
                time_range.encode_to(out);
            }
            Mutation::DeleteFromFamily { family } => {
                put_u8(out, DELETE_FROM_FAMILY);
                put_str(out, family);
            }
            Mutation::DeleteFromRow => put_u8(out, DELETE_FROM_ROW),
        }
    }
}

impl Decode for Mutation {
    fn decode_from(d: &mut Decoder<'_>) -> Result<Self> {
        MutationRef::decode_from(d).map(|m| m.to_mutation())
    }
}

/// A decoded [`Mutation`] whose strings and bytes still point into the encoding: what
/// validating a commit log record needs, without an allocation per field. The one decoder
/// of the mutation encoding ([`Mutation`]'s own decodes through it), so both accept and
/// reject exactly the same bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MutationRef<'a> {
    /// [`Mutation::SetCell`].
    SetCell {
        /// Column family.
        family: &'a str,
        /// Column qualifier.
        qualifier: &'a [u8],
        /// Microseconds.
        timestamp_micros: i64,
        /// The value.
        value: &'a [u8],
    },
    /// [`Mutation::AddToCell`].
    AddToCell {
        /// Column family.
        family: &'a str,
        /// Column qualifier.
        qualifier: &'a [u8],
        /// Microseconds.
        timestamp_micros: i64,
        /// The input to merge.
        input: i64,
    },
    /// [`Mutation::MergeToCell`].
    MergeToCell {
        /// Column family.
        family: &'a str,
        /// Column qualifier.
        qualifier: &'a [u8],
        /// Microseconds.
        timestamp_micros: i64,
        /// The state to merge.
        state: &'a [u8],
    },
    /// [`Mutation::DeleteFromColumn`].
    DeleteFromColumn {
        /// Column family.
        family: &'a str,
        /// Column qualifier.
        qualifier: &'a [u8],
        /// The range of timestamps deleted.
        time_range: TimestampRange,
    },
    /// [`Mutation::DeleteFromFamily`].
    DeleteFromFamily {
        /// Column family.
        family: &'a str,
    },
    /// [`Mutation::DeleteFromRow`].
    DeleteFromRow,
}

impl<'a> MutationRef<'a> {
    /// Reads one mutation (the grammar of docs/format/commit_log.md, "mutation").
    ///
    /// # Errors
    /// `DataLoss` on malformed input.
    pub fn decode_from(d: &mut Decoder<'a>) -> Result<Self> {
        use mutation_tag::*;
        Ok(match d.tag("mutation tag")? {
            SET_CELL => MutationRef::SetCell {
                family: d.str("set_cell.family")?,
                qualifier: d.bytes("set_cell.qualifier")?,
                timestamp_micros: d.varint_i64("set_cell.timestamp_micros")?,
                value: d.bytes("set_cell.value")?,
            },
            ADD_TO_CELL => MutationRef::AddToCell {
                family: d.str("add_to_cell.family")?,
                qualifier: d.bytes("add_to_cell.qualifier")?,
                timestamp_micros: d.varint_i64("add_to_cell.timestamp_micros")?,
                input: d.varint_i64("add_to_cell.input")?,
            },
            MERGE_TO_CELL => MutationRef::MergeToCell {
                family: d.str("merge_to_cell.family")?,
                qualifier: d.bytes("merge_to_cell.qualifier")?,
                timestamp_micros: d.varint_i64("merge_to_cell.timestamp_micros")?,
                state: d.bytes("merge_to_cell.state")?,
            },
            DELETE_FROM_COLUMN => MutationRef::DeleteFromColumn {
                family: d.str("delete_from_column.family")?,
                qualifier: d.bytes("delete_from_column.qualifier")?,
                time_range: TimestampRange::decode_from(d)?,
            },
            DELETE_FROM_FAMILY => MutationRef::DeleteFromFamily {
                family: d.str("delete_from_family.family")?,
            },
            DELETE_FROM_ROW => MutationRef::DeleteFromRow,
            tag => return Err(d.unknown_tag(tag, "mutation")),
        })
    }

    /// The owned mutation (each field copied once).
    pub fn to_mutation(&self) -> Mutation {
        match *self {
            MutationRef::SetCell {
                family,
                qualifier,
                timestamp_micros,
                value,
            } => Mutation::SetCell {
                family: family.into(),
                qualifier: qualifier.to_vec(),
                timestamp_micros,
                value: value.to_vec(),
            },
            MutationRef::AddToCell {
                family,
                qualifier,
                timestamp_micros,
                input,
            } => Mutation::AddToCell {
                family: family.into(),
                qualifier: qualifier.to_vec(),
                timestamp_micros,
                input,
            },
            MutationRef::MergeToCell {
                family,
                qualifier,
                timestamp_micros,
                state,
            } => Mutation::MergeToCell {
                family: family.into(),
                qualifier: qualifier.to_vec(),
                timestamp_micros,
                state: state.to_vec(),
            },
            MutationRef::DeleteFromColumn {
                family,
                qualifier,
                time_range,
            } => Mutation::DeleteFromColumn {
                family: family.into(),
                qualifier: qualifier.to_vec(),
                time_range,
            },
            MutationRef::DeleteFromFamily { family } => Mutation::DeleteFromFamily {
                family: family.into(),
            },
            MutationRef::DeleteFromRow => Mutation::DeleteFromRow,
        }
    }
}

impl Encode for GcRule {
    fn encode_to(&self, out: &mut Vec<u8>) {
        use gc_rule_tag::*;
        match self {
            GcRule::Never => put_u8(out, NEVER),
            GcRule::MaxNumVersions(n) => {
                put_u8(out, MAX_NUM_VERSIONS);
                put_varint32(out, *n);
            }
            GcRule::MaxAge { micros } => {
                put_u8(out, MAX_AGE);
                put_varint_i64(out, *micros);
            }
            GcRule::Intersection(rules) | GcRule::Union(rules) => {
                let tag = if matches!(self, GcRule::Intersection(_)) {
                    INTERSECTION
                } else {
                    UNION
                };
                put_u8(out, tag);
                put_len(out, rules.len());
                for rule in rules {
                    rule.encode_to(out);
                }
            }
        }
    }
}

fn decode_gc_rule(d: &mut Decoder<'_>, depth: usize) -> Result<GcRule> {
    use gc_rule_tag::*;
    Ok(match d.tag("gc_rule tag")? {
        NEVER => GcRule::Never,
        MAX_NUM_VERSIONS => GcRule::MaxNumVersions(d.varint32("gc_rule.max_num_versions")?),
        MAX_AGE => GcRule::MaxAge {
            micros: d.varint_i64("gc_rule.max_age_micros")?,
        },
        tag @ (INTERSECTION | UNION) => {
            if depth >= MAX_GC_RULE_DEPTH {
                return Err(d.error(GC_RULE_TREE.too_deep_message()));
            }
            let n = d.count(1, "gc_rule.rules count")?;
            let mut rules = Vec::with_capacity(n);
            for _ in 0..n {
                rules.push(decode_gc_rule(d, depth + 1)?);
            }
            if tag == INTERSECTION {
                GcRule::Intersection(rules)
            } else {
                GcRule::Union(rules)
            }
        }
        tag => return Err(d.unknown_tag(tag, "gc_rule")),
    })
}

impl Decode for GcRule {
    fn decode_from(d: &mut Decoder<'_>) -> Result<Self> {
        decode_gc_rule(d, 0)
    }
}

impl Encode for ValueType {
    fn encode_to(&self, out: &mut Vec<u8>) {
        use value_type_tag::*;
        put_u8(
            out,
            match self {
                ValueType::Bytes => BYTES,
                ValueType::Int64Sum => INT64_SUM,
                ValueType::Int64Min => INT64_MIN,
                ValueType::Int64Max => INT64_MAX,
                ValueType::HllUniqueCount => HLL_UNIQUE_COUNT,
            },
        );
    }
}

impl Decode for ValueType {
    fn decode_from(d: &mut Decoder<'_>) -> Result<Self> {
        use value_type_tag::*;
        Ok(match d.tag("value_type")? {
            BYTES => ValueType::Bytes,
            INT64_SUM => ValueType::Int64Sum,
            INT64_MIN => ValueType::Int64Min,
            INT64_MAX => ValueType::Int64Max,
            HLL_UNIQUE_COUNT => ValueType::HllUniqueCount,
            tag => return Err(d.unknown_tag(tag, "value_type")),
        })
    }
}

impl Encode for Granularity {
    fn encode_to(&self, out: &mut Vec<u8>) {
        use granularity_tag::*;
        put_u8(
            out,
            match self {
                Granularity::Millis => MILLIS,
                Granularity::Micros => MICROS,
            },
        );
    }
}

impl Decode for Granularity {
    fn decode_from(d: &mut Decoder<'_>) -> Result<Self> {
        use granularity_tag::*;
        Ok(match d.tag("granularity")? {
            MILLIS => Granularity::Millis,
            MICROS => Granularity::Micros,
            tag => return Err(d.unknown_tag(tag, "granularity")),
        })
    }
}

impl Encode for ColumnFamily {
    /// The GC rule, then the value type.
    fn encode_to(&self, out: &mut Vec<u8>) {
        self.gc_rule.encode_to(out);
        self.value_type.encode_to(out);
    }
}

impl Decode for ColumnFamily {
    fn decode_from(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(ColumnFamily {
            gc_rule: GcRule::decode_from(d)?,
            value_type: ValueType::decode_from(d)?,
        })
    }
}

/// How a `table_config` lists its families (docs/format/commit_log.md, "Values").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FamilyOrder {
    /// Creation order, each name once: what this code writes (manifest version 3 on).
    Creation,
    /// Strictly ascending names (manifest versions 1 and 2, written before families had an
    /// order of their own); read as the families' creation order.
    NameAscending,
}

impl Encode for TableConfig {
    /// Family count, then (name, family) pairs in creation order; granularity;
    /// deletion protection (boolean byte); split count, then each split key as bytes;
    /// `max_value_bytes` as a varint; the tablet options; the optional row-key schema
    /// (manifest version 4 on).
    fn encode_to(&self, out: &mut Vec<u8>) {
        put_len(out, self.families.len());
        for (name, family) in &self.families {
            put_str(out, name);
            family.encode_to(out);
        }
        self.granularity.encode_to(out);
        put_bool(out, self.deletion_protection);
        put_len(out, self.initial_splits.len());
        for key in &self.initial_splits {
            put_bytes(out, key);
        }
        put_len(out, self.max_value_bytes);
        self.tablet_options.encode_to(out);
        put_row_key_schema(out, self.row_key_schema.as_ref());
    }
}

impl Encode for TabletOptions {
    /// Five varints: `memtable_bytes`, `max_runs`, `split_bytes`, `merge_bytes`,
    /// `split_load_ops`.
    fn encode_to(&self, out: &mut Vec<u8>) {
        put_varint64(out, self.memtable_bytes);
        put_len(out, self.max_runs);
        put_varint64(out, self.split_bytes);
        put_varint64(out, self.merge_bytes);
        put_varint64(out, self.split_load_ops);
    }
}

impl Decode for TabletOptions {
    fn decode_from(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(TabletOptions {
            memtable_bytes: d.varint64("tablet_options.memtable_bytes")?,
            max_runs: d.usize("tablet_options.max_runs")?,
            split_bytes: d.varint64("tablet_options.split_bytes")?,
            merge_bytes: d.varint64("tablet_options.merge_bytes")?,
            split_load_ops: d.varint64("tablet_options.split_load_ops")?,
        })
    }
}

impl Decode for TableConfig {
    /// A `table_config` as this code writes it: families in creation order.
    fn decode_from(d: &mut Decoder<'_>) -> Result<Self> {
        decode_table_config(d, FamilyOrder::Creation, true)
    }
}

/// Decodes a `table_config` whose families are listed as `order` says, ending in the
/// optional row-key schema when `with_row_key_schema` (manifest version 4 on; older
/// configs have none).
///
/// # Errors
/// `DataLoss` for a malformed value, a family named twice, or (with
/// [`FamilyOrder::NameAscending`]) names out of ascending order.
pub fn decode_table_config(
    d: &mut Decoder<'_>,
    order: FamilyOrder,
    with_row_key_schema: bool,
) -> Result<TableConfig> {
    // A family is at least a name length, a GC rule tag and a value type tag.
    let n = d.count(3, "table_config.families count")?;
    let mut families = Families::new();
    let mut previous: Option<String> = None;
    for _ in 0..n {
        let name = d.string("table_config.family name")?;
        if order == FamilyOrder::NameAscending && previous.as_ref().is_some_and(|p| *p >= name) {
            return Err(d.error(format_args!(
                "table_config: family {name:?} is not after {:?} (names must be strictly ascending)",
                previous.unwrap_or_default()
            )));
        }
        if families.contains_key(&name) {
            return Err(d.error(format_args!(
                "table_config: family {name:?} is listed twice"
            )));
        }
        let family = ColumnFamily::decode_from(d)?;
        if order == FamilyOrder::NameAscending {
            previous = Some(name.clone());
        }
        families.insert(name, family);
    }
    let granularity = Granularity::decode_from(d)?;
    let deletion_protection = d.bool("table_config.deletion_protection")?;
    let n = d.count(1, "table_config.initial_splits count")?;
    let mut initial_splits = Vec::with_capacity(n);
    for _ in 0..n {
        initial_splits.push(d.byte_vec("table_config.initial_splits key")?);
    }
    let max_value_bytes = d.usize("table_config.max_value_bytes")?;
    let tablet_options = TabletOptions::decode_from(d)?;
    let row_key_schema = if with_row_key_schema {
        decode_row_key_schema(d, &families)?
    } else {
        None
    };
    Ok(TableConfig {
        row_key_schema,
        families,
        granularity,
        deletion_protection,
        initial_splits,
        max_value_bytes,
        tablet_options,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::codec::encoding::Decoder;
    use crate::model::row_key_schema::{
        Int64Encoding, KeyField, KeyFieldType, RowKeySchema, StructEncoding,
    };
    use crate::Code;
    use alloc::string::ToString;
    use alloc::vec;
    use proptest::prelude::*;

    #[test]
    fn unknown_tags_and_trailing_bytes_are_data_loss() {
        for bad in [&[0u8][..], &[7], &[0xff]] {
            let err = Mutation::from_bytes(bad).unwrap_err();
            assert_eq!(err.code(), Code::DataLoss);
            assert!(err.message().contains("unknown tag"), "{err}");
        }
        let err = Mutation::from_bytes(&[mutation_tag::DELETE_FROM_ROW, 0]).unwrap_err();
        assert!(err.message().contains("trailing"), "{err}");
        assert_eq!(GcRule::from_bytes(&[0]).unwrap_err().code(), Code::DataLoss);
    }

    #[test]
    fn mutation_encoding_is_stable() {
        let m = Mutation::set_cell("cf", b"q".to_vec(), -1, b"v".to_vec());
        assert_eq!(m.to_bytes(), [1, 2, b'c', b'f', 1, b'q', 0x01, 1, b'v']);
        let m = Mutation::DeleteFromColumn {
            family: "f".to_string(),
            qualifier: vec![],
            time_range: TimestampRange {
                start_micros: 1000,
                end_micros: Some(2000),
            },
        };
        assert_eq!(m.to_bytes(), [4, 1, b'f', 0, 0xd0, 0x0f, 1, 0xa0, 0x1f]);
    }

    #[test]
    fn gc_rule_nesting_is_limited() {
        let mut rule = GcRule::MaxNumVersions(1);
        for _ in 0..MAX_GC_RULE_DEPTH {
            rule = GcRule::Union(vec![rule]);
        }
        assert_eq!(GcRule::from_bytes(&rule.to_bytes()).unwrap(), rule);
        let deeper = GcRule::Intersection(vec![rule]);
        let err = GcRule::from_bytes(&deeper.to_bytes()).unwrap_err();
        assert_eq!(err.code(), Code::DataLoss);
        assert!(err.message().contains("nested deeper"), "{err}");
        // A hostile input of only opening tags fails on depth, not on the stack.
        let hostile: Vec<u8> = core::iter::repeat_n([gc_rule_tag::UNION, 1], 100_000)
            .flatten()
            .collect();
        assert_eq!(
            GcRule::from_bytes(&hostile).unwrap_err().code(),
            Code::DataLoss
        );
    }

    #[test]
    fn families_keep_creation_order_and_old_manifests_ascending_names() {
        let config = TableConfig::with_families(["b", "a"]);
        let bytes = config.to_bytes();
        // [count, 1, 'b', rule, type, 1, 'a', ...]: creation order on disk.
        assert_eq!((bytes[2], bytes[6]), (b'b', b'a'));
        let decoded = TableConfig::from_bytes(&bytes).unwrap();
        assert_eq!(decoded, config);
        assert_eq!(decoded.families.keys().collect::<Vec<_>>(), ["b", "a"]);
        // The older manifests' order rule refuses the same bytes...
        let err = decode_table_config(&mut Decoder::new(&bytes), FamilyOrder::NameAscending, true)
            .unwrap_err();
        assert_eq!(err.code(), Code::DataLoss);
        assert!(err.message().contains("strictly ascending"), "{err}");
        // ...and reads name order as the creation order.
        let sorted = TableConfig::with_families(["a", "b"]).to_bytes();
        let old = decode_table_config(&mut Decoder::new(&sorted), FamilyOrder::NameAscending, true)
            .unwrap();
        assert_eq!(old.families.keys().collect::<Vec<_>>(), ["a", "b"]);
        // A name listed twice is damage under either rule.
        let mut twice = bytes.clone();
        twice[6] = b'b';
        for order in [FamilyOrder::Creation, FamilyOrder::NameAscending] {
            let err = decode_table_config(&mut Decoder::new(&twice), order, true).unwrap_err();
            assert_eq!(err.code(), Code::DataLoss);
        }
    }

    pub(crate) fn arb_mutation() -> impl Strategy<Value = Mutation> {
        let family = "[a-z_.-]{0,8}";
        let bytes = || proptest::collection::vec(any::<u8>(), 0..12);
        prop_oneof![
            (family, bytes(), any::<i64>(), bytes()).prop_map(|(f, q, t, v)| {
                Mutation::SetCell {
                    family: f,
                    qualifier: q,
                    timestamp_micros: t,
                    value: v,
                }
            }),
            (family, bytes(), any::<i64>(), any::<i64>()).prop_map(|(f, q, t, i)| {
                Mutation::AddToCell {
                    family: f,
                    qualifier: q,
                    timestamp_micros: t,
                    input: i,
                }
            }),
            (family, bytes(), any::<i64>(), bytes()).prop_map(|(f, q, t, s)| {
                Mutation::MergeToCell {
                    family: f,
                    qualifier: q,
                    timestamp_micros: t,
                    state: s,
                }
            }),
            (family, bytes(), any::<i64>(), any::<Option<i64>>()).prop_map(|(f, q, s, e)| {
                Mutation::DeleteFromColumn {
                    family: f,
                    qualifier: q,
                    time_range: TimestampRange {
                        start_micros: s,
                        end_micros: e,
                    },
                }
            }),
            family.prop_map(|f| Mutation::DeleteFromFamily { family: f }),
            Just(Mutation::DeleteFromRow),
        ]
    }

    pub(crate) fn arb_gc_rule() -> impl Strategy<Value = GcRule> {
        let leaf = prop_oneof![
            Just(GcRule::Never),
            any::<u32>().prop_map(GcRule::MaxNumVersions),
            any::<i64>().prop_map(|micros| GcRule::MaxAge { micros }),
        ];
        leaf.prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(GcRule::Intersection),
                proptest::collection::vec(inner, 0..4).prop_map(GcRule::Union),
            ]
        })
    }

    pub(crate) fn arb_table_config() -> impl Strategy<Value = TableConfig> {
        let value_type = prop_oneof![
            Just(ValueType::Bytes),
            Just(ValueType::Int64Sum),
            Just(ValueType::Int64Min),
            Just(ValueType::Int64Max),
            Just(ValueType::HllUniqueCount),
        ];
        let family = (arb_gc_rule(), value_type).prop_map(|(gc_rule, value_type)| ColumnFamily {
            gc_rule,
            value_type,
        });
        (
            // Any creation order: repeated names keep their first place, as inserts do.
            proptest::collection::vec(("[a-z]{1,6}", family), 0..4)
                .prop_map(|v| v.into_iter().collect::<Families>()),
            any::<bool>(),
            any::<bool>(),
            proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..6), 0..4),
            any::<u32>(),
            (
                any::<u64>(),
                any::<u32>(),
                any::<u64>(),
                any::<u64>(),
                any::<u64>(),
            ),
            0u8..4,
        )
            .prop_map(
                |(families, micros, dp, splits, max, (m, r, s, g, l), key)| TableConfig {
                    // Field names with a digit never collide with the families' names.
                    row_key_schema: (key > 0).then(|| RowKeySchema {
                        fields: vec![
                            KeyField {
                                name: "k0".to_string(),
                                field_type: KeyFieldType::String,
                            },
                            KeyField {
                                name: "k1".to_string(),
                                field_type: if key == 3 {
                                    KeyFieldType::Timestamp(Int64Encoding::BigEndianBytes)
                                } else {
                                    KeyFieldType::Int64(Int64Encoding::OrderedCodeBytes)
                                },
                            },
                        ][..if key == 1 { 1 } else { 2 }]
                            .to_vec(),
                        encoding: match key {
                            1 => StructEncoding::Singleton,
                            2 => StructEncoding::DelimitedBytes(b"#".to_vec()),
                            _ => StructEncoding::OrderedCodeBytes,
                        },
                    }),
                    families,
                    granularity: if micros {
                        Granularity::Micros
                    } else {
                        Granularity::Millis
                    },
                    deletion_protection: dp,
                    initial_splits: splits,
                    max_value_bytes: max as usize,
                    tablet_options: TabletOptions {
                        memtable_bytes: m,
                        max_runs: r as usize,
                        split_bytes: s,
                        merge_bytes: g,
                        split_load_ops: l,
                    },
                },
            )
    }

    /// Every strict prefix fails with DataLoss, never a panic or a value.
    fn assert_prefixes_fail<T: Decode + core::fmt::Debug>(bytes: &[u8]) {
        for cut in 0..bytes.len() {
            let err = T::from_bytes(&bytes[..cut]).unwrap_err();
            assert_eq!(err.code(), Code::DataLoss);
        }
    }

    proptest! {
        #[test]
        fn mutations_round_trip(m in arb_mutation()) {
            let bytes = m.to_bytes();
            prop_assert_eq!(Mutation::from_bytes(&bytes).unwrap(), m);
            assert_prefixes_fail::<Mutation>(&bytes);
        }

        #[test]
        fn gc_rules_round_trip(rule in arb_gc_rule()) {
            let bytes = rule.to_bytes();
            prop_assert_eq!(GcRule::from_bytes(&bytes).unwrap(), rule);
            assert_prefixes_fail::<GcRule>(&bytes);
        }

        #[test]
        fn table_configs_round_trip(config in arb_table_config()) {
            let bytes = config.to_bytes();
            prop_assert_eq!(TableConfig::from_bytes(&bytes).unwrap(), config);
            assert_prefixes_fail::<TableConfig>(&bytes);
        }

        /// Arbitrary bytes either fail with DataLoss or decode to a value that re-encodes to
        /// exactly the same bytes (the encoding is canonical).
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            match Mutation::from_bytes(&bytes) {
                Ok(m) => prop_assert_eq!(m.to_bytes(), bytes.clone()),
                Err(e) => prop_assert_eq!(e.code(), Code::DataLoss),
            }
            match TableConfig::from_bytes(&bytes) {
                Ok(c) => prop_assert_eq!(c.to_bytes(), bytes.clone()),
                Err(e) => prop_assert_eq!(e.code(), Code::DataLoss),
            }
            match GcRule::from_bytes(&bytes) {
                Ok(r) => prop_assert_eq!(r.to_bytes(), bytes),
                Err(e) => prop_assert_eq!(e.code(), Code::DataLoss),
            }
        }
    }
}
