//! Bigtable's request and response messages in the proto3 JSON mapping, for the core's types
//! (the `serde` feature).
//!
//! Spec: the proto3 JSON mapping (protobuf.dev, "ProtoJSON Format") applied to
//! `google/bigtable/v2/data.proto`, `bigtable.proto` and `google/bigtable/admin/v2/table.proto`,
//! `types.proto`. The core's types implement `Serialize` and `Deserialize` in that form:
//!
//! | core type | message |
//! |---|---|
//! | [`crate::Mutation`] | `google.bigtable.v2.Mutation` (setCell, addToCell, mergeToCell, deleteFromColumn, deleteFromFamily, deleteFromRow) |
//! | [`crate::RowFilter`] | `google.bigtable.v2.RowFilter`, every kind, plus `valueBitmaskFilter` (bytes; not in the v2 proto yet) |
//! | [`crate::RowSet`], [`crate::RowRange`] | `RowSet`, `RowRange` with its four bound kinds |
//! | [`crate::ReadRowsRequest`] | `ReadRowsRequest` without its routing fields; [`ReadRows`] carries `tableName` too |
//! | [`crate::RowMutations`] | `MutateRowsRequest.Entry` |
//! | [`crate::ReadModifyWriteRule`] | `ReadModifyWriteRule` |
//! | [`crate::Row`] | `google.bigtable.v2.Row` (families, columns, cells) |
//! | [`crate::api::sql::SqlType`], [`crate::api::sql::SqlValue`] | `google.bigtable.v2.Type`, `Value` (the [`sql`] module: functions, not serde impls) |
//! | [`crate::GcRule`] | `google.bigtable.admin.v2.GcRule` (`maxAge` as a Duration string, `"3.5s"`) |
//! | [`crate::ColumnFamily`] | admin `ColumnFamily` (`gcRule`, `valueType` as an admin `Type`) |
//! | [`crate::TableConfig`] | admin `Table` (`columnFamilies`, `granularity`, `deletionProtection`) plus `initialSplits` from `CreateTableRequest` |
//! | [`crate::FamilyModification`] | `ModifyColumnFamiliesRequest.Modification` |
//! | [`MutateRow`], [`MutateRows`], [`CheckAndMutateRow`], [`ReadModifyWriteRow`], [`ReadRows`] | the request bodies |
//!
//! Rules followed, and the choices the spec leaves open:
//! - Output uses lowerCamelCase names and omits fields holding their default value; input
//!   accepts lowerCamelCase and the proto's own snake_case names.
//! - bytes are standard base64 with padding on output; input also takes the URL-safe alphabet
//!   and missing padding. int64 is a decimal string on output; input takes a string or a JSON
//!   number. Enums are written by name and read by name or number.
//! - Unknown fields are rejected (INVALID_ARGUMENT), as protobuf's own JSON parsers do unless
//!   told otherwise: a misspelt field silently ignored would change a filter or a mutation into
//!   a different, valid one.
//! - A oneof with two members set is an error; a message whose required oneof has no member
//!   (a `Mutation` or `RowFilter` `{}`) is an error too, since the core has no value for it.
//! - A boolean filter set to `false` (`{"sink": false}`) is INVALID_ARGUMENT, as Cloud Bigtable
//!   answers: the core has no "off" filter to convert it into.
//! - Sparsetable's extensions, each because the core models something the protos do not:
//!   `valueBitmaskFilter`, the granularity name `MICROS`, and `initialSplits` inside a table.
//!
//! Invariants: the JSON layer only checks the JSON (syntax, oneofs, base64, number ranges,
//! nesting) and then builds the same values the native constructors build. Everything else
//! (regexes, family names, limits, timestamps) is checked by the engine when the value is used,
//! exactly as for native input, so both paths give the same error. Nesting is bounded twice:
//! [`from_str`] and [`from_value`] refuse input nested deeper than [`MAX_JSON_DEPTH`] before
//! any recursive parsing, and converting a filter or GC rule refuses more levels than
//! [`crate::limits::MAX_FILTER_DEPTH`] / [`crate::limits::MAX_GC_RULE_DEPTH`] with the
//! engine's own message. Nothing here panics on any input.

/// Declares a message's wire struct: every field optional (absent and JSON `null` both read as
/// "not set"), written in lowerCamelCase and omitted when unset, read in lowerCamelCase or
/// under the proto's own name (the `| "snake_name"` alias), unknown fields refused.
macro_rules! message {
    ($name:ident { $($field:ident $(| $alias:literal)? : $ty:ty),* $(,)? }) => {
        #[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
        #[serde(rename_all = "camelCase", deny_unknown_fields, default)]
        #[serde(remote = "Self")]
        pub(crate) struct $name {
            $(
                #[serde(skip_serializing_if = "Option::is_none" $(, alias = $alias)?)]
                $field: Option<$ty>,
            )*
        }
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                $name::serialize(self, s)
            }
        }
        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $name::deserialize($crate::api::json::MapOnly(d))
            }
        }
    };
}

/// A deserializer that reads a message only from a JSON object. serde's derived structs also
/// read an array (fields by position), so `"gcRule": []` was an empty rule and `"table": [{}]`
/// a table; proto3 JSON writes every message as an object, and anything else is a wrong type
/// (INVALID_ARGUMENT), not a message with default fields.
pub(crate) struct MapOnly<D>(pub(crate) D);

impl<'de, D: serde::Deserializer<'de>> serde::Deserializer<'de> for MapOnly<D> {
    type Error = D::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(v)
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(v)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// Implements `Serialize` and `Deserialize` for a core type through its wire struct: `$to`
/// builds the wire form, `$from` checks and converts it back (its error becomes a serde error,
/// hence INVALID_ARGUMENT through [`from_str`]).
macro_rules! via {
    ($core:ty, $wire:ty, $to:expr, $from:expr) => {
        impl serde::Serialize for $core {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let to: fn(&$core) -> $wire = $to;
                serde::Serialize::serialize(&to(self), s)
            }
        }
        impl<'de> serde::Deserialize<'de> for $core {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let from: fn($wire) -> Result<$core, alloc::string::String> = $from;
                let wire = <$wire as serde::Deserialize>::deserialize(d)?;
                from(wire).map_err(serde::de::Error::custom)
            }
        }
    };
}

mod admin;
mod data;
mod row_key_schema;
mod scalar;
pub mod sql;

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::limits::MAX_GC_RULE_DEPTH;
use crate::{Error, Result};

pub use data::{CheckAndMutateRow, MutateRow, MutateRows, ReadModifyWriteRow, ReadRows};

/// Standard base64 with padding, as proto3 JSON writes `bytes` (for front-ends that build a
/// message's bytes field, or a response this module has no type for, themselves).
pub fn encode_base64(bytes: &[u8]) -> String {
    scalar::encode_base64(bytes)
}

/// Reads a proto3 JSON `bytes` field: standard or URL-safe base64, padded or not.
///
/// # Errors
/// `InvalidArgument` for text that is not base64 (the message quotes a bounded prefix).
pub fn decode_base64(text: &str) -> Result<Vec<u8>> {
    scalar::decode_base64(text).map_err(Error::invalid_argument)
}

/// Deepest JSON nesting (objects and arrays) [`from_str`] and [`from_value`] accept.
///
/// The deepest valid input is a table whose GC rule nests [`MAX_GC_RULE_DEPTH`] levels: each
/// level costs three JSON levels (`{"union": {"rules": [...]}}`), and the table, its family
/// map and the family add a few more. It stays below serde_json's own limit of 128, so this
/// limit, not serde_json's, is the one a caller meets.
pub const MAX_JSON_DEPTH: usize = 3 * MAX_GC_RULE_DEPTH + 8;

/// Parses a proto3 JSON message into a core type.
///
/// # Errors
/// `InvalidArgument` for malformed JSON, unknown fields, two members of one oneof, bad base64,
/// out-of-range numbers, unknown enum names, or nesting deeper than [`MAX_JSON_DEPTH`].
pub fn from_str<T: DeserializeOwned>(s: &str) -> Result<T> {
    check_text_depth(s.as_bytes())?;
    serde_json::from_str(s).map_err(invalid)
}

/// Converts an already parsed JSON value (for example one field of a larger document) into a
/// core type, with the same checks as [`from_str`].
///
/// # Errors
/// As [`from_str`].
pub fn from_value<T: DeserializeOwned>(value: serde_json::Value) -> Result<T> {
    check_value_depth(&value)?;
    serde_json::from_value(value).map_err(invalid)
}

/// Writes a core type as proto3 JSON.
///
/// # Errors
/// `Internal` if serialization fails, which the core's types never do.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::new(crate::Code::Internal, format!("{e}")))
}

/// Writes a core type as a JSON value.
///
/// # Errors
/// As [`to_string`].
pub fn to_value<T: Serialize + ?Sized>(value: &T) -> Result<serde_json::Value> {
    serde_json::to_value(value).map_err(|e| Error::new(crate::Code::Internal, format!("{e}")))
}

/// serde_json's error as `InvalidArgument`. serde_json puts the position after the message; a
/// rule the model checks while parsing (a filter nested too deep, a bad family name) keeps its
/// own words whole at the end instead, with the position before them as context
/// (`json: line 1 column 513: filter: nesting deeper than 20 levels`), so every front-end
/// reports the core's words the same way (tests/vectors/README.md, "Messages").
fn invalid(e: serde_json::Error) -> Error {
    let text = format!("{e}");
    if e.is_data() && e.line() > 0 {
        let position = format!(" at line {} column {}", e.line(), e.column());
        if let Some(words) = text.strip_suffix(position.as_str()) {
            return Error::invalid_argument(format!(
                "json: line {} column {}: {words}",
                e.line(),
                e.column()
            ));
        }
    }
    Error::invalid_argument(format!("json: {text}"))
}

fn too_deep() -> Error {
    Error::invalid_argument(format!("json: nested deeper than {MAX_JSON_DEPTH} levels"))
}

/// Counts object and array nesting without recursion, skipping string contents, so a depth
/// bomb is refused before any parser recurses into it. Malformed text is left to the parser.
fn check_text_depth(text: &[u8]) -> Result<()> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in text {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_JSON_DEPTH {
                    return Err(too_deep());
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// The same bound for a value built in memory (which need not come from bounded text).
fn check_value_depth(value: &serde_json::Value) -> Result<()> {
    let mut stack: Vec<(&serde_json::Value, usize)> = alloc::vec![(value, 0)];
    while let Some((v, depth)) = stack.pop() {
        let children: &mut dyn Iterator<Item = &serde_json::Value> = match v {
            serde_json::Value::Array(a) => &mut a.iter(),
            serde_json::Value::Object(o) => &mut o.values(),
            _ => continue,
        };
        if depth + 1 > MAX_JSON_DEPTH {
            return Err(too_deep());
        }
        stack.extend(children.map(|c| (c, depth + 1)));
    }
    Ok(())
}

/// Checks a oneof: at most one member set, or exactly one when `required`.
fn check_oneof(what: &str, members: &[(&str, bool)], required: bool) -> Result<(), String> {
    let mut set = members.iter().filter(|m| m.1).map(|m| m.0);
    match (set.next(), set.next()) {
        (Some(a), Some(b)) => Err(format!(
            "{what}: {a} and {b} are members of one oneof; set at most one"
        )),
        (None, _) if required => {
            let names: Vec<&str> = members.iter().map(|m| m.0).collect();
            Err(format!("{what}: one of {} must be set", names.join(", ")))
        }
        _ => Ok(()),
    }
}

/// proto3 JSON omits fields holding their default value; these give `None` for those.
fn some_str(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| String::from(s))
}

fn some_bytes(b: &[u8]) -> Option<scalar::B64> {
    (!b.is_empty()).then(|| scalar::B64(b.to_vec()))
}

fn nonzero(n: i64) -> Option<scalar::I64> {
    (n != 0).then_some(scalar::I64(n))
}

fn some_vec<T>(v: Vec<T>) -> Option<Vec<T>> {
    (!v.is_empty()).then_some(v)
}

#[cfg(test)]
mod tests;
