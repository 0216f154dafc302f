//! SQL types and values ([`crate::api::sql`]) in the proto3 JSON mapping of Bigtable's
//! `google.bigtable.v2.Type` and `google.bigtable.v2.Value`, for front-ends whose API is JSON
//! (the WASM binding's `executeQueryJson`). The core decides what a query means; this module
//! only converts.
//!
//! Spec: `google/bigtable/v2/types.proto` and `data.proto` under the proto3 JSON mapping
//! (protobuf.dev, "ProtoJSON Format"):
//! - a type is an object with one member: `bytesType`, `stringType`, `int64Type`,
//!   `float32Type`, `float64Type`, `boolType`, `timestampType`, `dateType` (each `{}`),
//!   `arrayType: {elementType}`, `mapType: {keyType, valueType}`,
//!   `structType: {fields: [{fieldName, type}]}`;
//! - a value is an object with at most one kind: `bytesValue` (base64), `stringValue`,
//!   `intValue` (decimal string, or a JSON number on input), `boolValue`, `floatValue` (a
//!   number, or `"NaN"`, `"Infinity"`, `"-Infinity"`), `timestampValue` (RFC 3339 text; on
//!   output UTC with six fraction digits, `platform::calendar::rfc3339`), `dateValue: {year, month, day}`, `arrayValue: {values: [...]}`; no kind is
//!   NULL. As Bigtable encodes them, a MAP is an `arrayValue` of two-element `arrayValue`s
//!   (key, value) and a STRUCT an `arrayValue` of its fields. A request's value may also
//!   carry its `type` (ExecuteQueryRequest.params); [`value_from_json`] ignores that member,
//!   the caller reads it with [`type_from_json`].
//!
//! Invariants: input is checked against the type it must have (a kind that does not carry
//! the type is `InvalidArgument` naming `what`); nothing here panics on any input; output is
//! what [`value_from_json`] reads back to the same value (floats aside for NaN's payload).

use alloc::borrow::ToOwned;
use alloc::boxed::Box;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::{Map, Number, Value};

use crate::api::sql::functions::time::parse_timestamp;
use crate::api::sql::{SqlType, SqlValue};
use crate::platform::calendar::rfc3339;
use crate::{Error, Result};

fn bad(what: &str, detail: impl core::fmt::Display) -> Error {
    Error::invalid_argument(format!("{what}: {detail}"))
}

/// The one member of a oneof object (a `Type`, or a `Value` without its `type`), or `None`
/// for an object without one (a NULL value).
fn only_member<'a>(
    what: &str,
    obj: &'a Map<String, Value>,
    skip: Option<&str>,
) -> Result<Option<(&'a str, &'a Value)>> {
    let mut found = None;
    for (k, v) in obj {
        if Some(k.as_str()) == skip || v.is_null() {
            continue;
        }
        if found.is_some() {
            return Err(bad(what, "expected one member, found two"));
        }
        found = Some((k.as_str(), v));
    }
    Ok(found)
}

fn object<'a>(what: &str, v: &'a Value) -> Result<&'a Map<String, Value>> {
    v.as_object().ok_or_else(|| bad(what, "expected an object"))
}

/// A `google.bigtable.v2.Type` in proto3 JSON as the core's type.
///
/// # Errors
/// `InvalidArgument` for anything but an object with one known kind, or a kind the served SQL
/// does not have (proto, enum, aggregate).
pub fn type_from_json(what: &str, v: &Value) -> Result<SqlType> {
    let obj = object(what, v)?;
    let Some((kind, body)) = only_member(what, obj, None)? else {
        return Err(bad(what, "the type has no kind"));
    };
    let field = |name: &str| -> Result<&Value> {
        object(what, body)?
            .get(name)
            .ok_or_else(|| bad(what, format_args!("{kind} needs {name}")))
    };
    Ok(match kind {
        "bytesType" | "bytes_type" => SqlType::Bytes,
        "stringType" | "string_type" => SqlType::String,
        "int64Type" | "int64_type" => SqlType::Int64,
        "float32Type" | "float32_type" => SqlType::Float32,
        "float64Type" | "float64_type" => SqlType::Float64,
        "boolType" | "bool_type" => SqlType::Bool,
        "timestampType" | "timestamp_type" => SqlType::Timestamp,
        "dateType" | "date_type" => SqlType::Date,
        "arrayType" | "array_type" => {
            SqlType::Array(Box::new(type_from_json(what, field("elementType")?)?))
        }
        "mapType" | "map_type" => SqlType::Map(
            Box::new(type_from_json(what, field("keyType")?)?),
            Box::new(type_from_json(what, field("valueType")?)?),
        ),
        "structType" | "struct_type" => {
            let fields = field("fields")?
                .as_array()
                .ok_or_else(|| bad(what, "structType.fields must be an array"))?;
            SqlType::Struct(
                fields
                    .iter()
                    .map(|f| {
                        let f = object(what, f)?;
                        let name = match f.get("fieldName") {
                            None | Some(Value::Null) => String::new(),
                            Some(Value::String(s)) => s.clone(),
                            Some(_) => return Err(bad(what, "fieldName must be a string")),
                        };
                        let ty = f
                            .get("type")
                            .ok_or_else(|| bad(what, "a struct field needs a type"))?;
                        Ok((name, type_from_json(what, ty)?))
                    })
                    .collect::<Result<_>>()?,
            )
        }
        other => {
            return Err(bad(
                what,
                format_args!("the type {other} is not served in SQL"),
            ))
        }
    })
}

/// The core's type as a `google.bigtable.v2.Type` in proto3 JSON.
pub fn type_to_json(ty: &SqlType) -> Value {
    let one = |k: &str, v: Value| {
        let mut m = Map::new();
        m.insert(k.to_owned(), v);
        Value::Object(m)
    };
    let empty = || Value::Object(Map::new());
    match ty {
        SqlType::Bytes => one("bytesType", empty()),
        SqlType::String => one("stringType", empty()),
        SqlType::Int64 => one("int64Type", empty()),
        SqlType::Float32 => one("float32Type", empty()),
        SqlType::Float64 => one("float64Type", empty()),
        SqlType::Bool => one("boolType", empty()),
        SqlType::Timestamp => one("timestampType", empty()),
        SqlType::Date => one("dateType", empty()),
        SqlType::Array(e) => one("arrayType", one("elementType", type_to_json(e))),
        SqlType::Map(k, v) => {
            let mut m = Map::new();
            m.insert("keyType".into(), type_to_json(k));
            m.insert("valueType".into(), type_to_json(v));
            one("mapType", Value::Object(m))
        }
        SqlType::Struct(fields) => one(
            "structType",
            one(
                "fields",
                Value::Array(
                    fields
                        .iter()
                        .map(|(name, t)| {
                            let mut m = Map::new();
                            m.insert("fieldName".into(), Value::String(name.clone()));
                            m.insert("type".into(), type_to_json(t));
                            Value::Object(m)
                        })
                        .collect(),
                ),
            ),
        ),
    }
}

fn int_of(what: &str, v: &Value) -> Result<i64> {
    match v {
        Value::String(s) => s
            .parse()
            .map_err(|_| bad(what, format_args!("{s:?} is not an int64"))),
        Value::Number(n) => n
            .as_i64()
            .or_else(|| {
                n.as_f64()
                    // Whole numbers only; the round trip through i64 is exact below 2^63
                    // and, unlike `fract`, needs no std.
                    .filter(|f| f.abs() < 9.3e18 && (*f as i64) as f64 == *f)
                    .map(|f| f as i64)
            })
            .ok_or_else(|| bad(what, format_args!("{n} is not an int64"))),
        _ => Err(bad(what, "intValue must be a string or a number")),
    }
}

fn float_of(what: &str, v: &Value) -> Result<f64> {
    match v {
        Value::Number(n) => n.as_f64().ok_or_else(|| bad(what, "not a number")),
        Value::String(s) => match s.as_str() {
            "NaN" => Ok(f64::NAN),
            "Infinity" => Ok(f64::INFINITY),
            "-Infinity" => Ok(f64::NEG_INFINITY),
            s => s
                .parse()
                .map_err(|_| bad(what, format_args!("{s:?} is not a number"))),
        },
        _ => Err(bad(what, "floatValue must be a number or a string")),
    }
}

fn date_part(what: &str, obj: &Map<String, Value>, name: &str) -> Result<i32> {
    match obj.get(name) {
        None | Some(Value::Null) => Ok(0),
        Some(v) => i32::try_from(int_of(what, v)?)
            .map_err(|_| bad(what, format_args!("dateValue.{name} is out of range"))),
    }
}

fn values_of<'a>(what: &str, body: &'a Value) -> Result<&'a [Value]> {
    match object(what, body)?.get("values") {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(bad(what, "arrayValue.values must be an array")),
    }
}

/// A `google.bigtable.v2.Value` in proto3 JSON, which must be of type `ty`, as the core's
/// value. A `type` member is passed over (see the module docs).
///
/// # Errors
/// `InvalidArgument` naming `what` when the value's kind does not carry a `ty`, or its
/// content is malformed (bad base64, an int64 out of range, a timestamp that is not RFC 3339).
pub fn value_from_json(what: &str, v: &Value, ty: &SqlType) -> Result<SqlValue> {
    let obj = object(what, v)?;
    let Some((kind, body)) = only_member(what, obj, Some("type"))? else {
        return Ok(SqlValue::Null);
    };
    let wrong = || bad(what, format_args!("a {kind} is not a {ty}"));
    let text = || body.as_str().ok_or_else(|| bad(what, "expected a string"));
    Ok(match (kind, ty) {
        ("bytesValue", SqlType::Bytes) => SqlValue::Bytes(super::decode_base64(text()?)?),
        ("stringValue", SqlType::String) => SqlValue::String(text()?.to_string()),
        ("intValue", SqlType::Int64) => SqlValue::Int64(int_of(what, body)?),
        ("boolValue", SqlType::Bool) => SqlValue::Bool(
            body.as_bool()
                .ok_or_else(|| bad(what, "expected a boolean"))?,
        ),
        ("floatValue", SqlType::Float32) => SqlValue::Float32(float_of(what, body)? as f32),
        ("floatValue", SqlType::Float64) => SqlValue::Float64(float_of(what, body)?),
        ("timestampValue", SqlType::Timestamp) => {
            let t = text()?;
            parse_timestamp(t)
                .ok_or_else(|| bad(what, format_args!("{t:?} is not an RFC 3339 timestamp")))?
        }
        ("dateValue", SqlType::Date) => {
            let d = object(what, body)?;
            SqlValue::Date {
                year: date_part(what, d, "year")?,
                month: date_part(what, d, "month")?,
                day: date_part(what, d, "day")?,
            }
        }
        ("arrayValue", SqlType::Array(e)) => SqlValue::Array(
            values_of(what, body)?
                .iter()
                .map(|v| value_from_json(what, v, e))
                .collect::<Result<_>>()?,
        ),
        ("arrayValue", SqlType::Struct(fields)) => {
            let items = values_of(what, body)?;
            if items.len() != fields.len() {
                return Err(wrong());
            }
            SqlValue::Struct(
                items
                    .iter()
                    .zip(fields)
                    .map(|(v, (_, t))| value_from_json(what, v, t))
                    .collect::<Result<_>>()?,
            )
        }
        ("arrayValue", SqlType::Map(k, val)) => SqlValue::Map(
            values_of(what, body)?
                .iter()
                .map(|entry| {
                    let pair = object(what, entry)?
                        .get("arrayValue")
                        .map(|b| values_of(what, b))
                        .transpose()?
                        .filter(|p| p.len() == 2)
                        .ok_or_else(|| bad(what, "a map entry is an arrayValue of two values"))?;
                    Ok((
                        value_from_json(what, &pair[0], k)?,
                        value_from_json(what, &pair[1], val)?,
                    ))
                })
                .collect::<Result<_>>()?,
        ),
        _ => return Err(wrong()),
    })
}

/// The core's value as a result `google.bigtable.v2.Value` in proto3 JSON (typeless: the
/// types are in the result's metadata). NULL is `{}`.
pub fn value_to_json(value: &SqlValue) -> Value {
    let one = |k: &str, v: Value| {
        let mut m = Map::new();
        m.insert(k.to_owned(), v);
        Value::Object(m)
    };
    let float = |f: f64| match Number::from_f64(f) {
        Some(n) => Value::Number(n),
        None if f.is_nan() => Value::String("NaN".into()),
        None if f > 0.0 => Value::String("Infinity".into()),
        None => Value::String("-Infinity".into()),
    };
    let array = |items: Vec<Value>| one("arrayValue", one("values", Value::Array(items)));
    match value {
        SqlValue::Null => Value::Object(Map::new()),
        SqlValue::Bytes(b) => one("bytesValue", Value::String(super::encode_base64(b))),
        SqlValue::String(s) => one("stringValue", Value::String(s.clone())),
        SqlValue::Int64(i) => one("intValue", Value::String(i.to_string())),
        SqlValue::Float32(f) => one("floatValue", float(f64::from(*f))),
        SqlValue::Float64(f) => one("floatValue", float(*f)),
        SqlValue::Bool(b) => one("boolValue", Value::Bool(*b)),
        SqlValue::Timestamp { .. } => {
            // The engine computes in microseconds, so the value is a whole number of them.
            let micros = value.as_micros().unwrap_or_default();
            one("timestampValue", Value::String(rfc3339(micros)))
        }
        SqlValue::Date { year, month, day } => {
            let mut m = Map::new();
            m.insert("year".into(), Value::from(*year));
            m.insert("month".into(), Value::from(*month));
            m.insert("day".into(), Value::from(*day));
            one("dateValue", Value::Object(m))
        }
        SqlValue::Array(items) | SqlValue::Struct(items) => {
            array(items.iter().map(value_to_json).collect())
        }
        SqlValue::Map(entries) => array(
            entries
                .iter()
                .map(|(k, v)| array(Vec::from([value_to_json(k), value_to_json(v)])))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn types_round_trip() {
        let t = SqlType::map(
            SqlType::Bytes,
            SqlType::array(SqlType::Struct(Vec::from([
                ("timestamp".into(), SqlType::Timestamp),
                ("value".into(), SqlType::Bytes),
            ]))),
        );
        assert_eq!(type_from_json("t", &type_to_json(&t)).unwrap(), t);
        assert_eq!(
            type_from_json("t", &json!({"int64Type": {}})).unwrap(),
            SqlType::Int64
        );
        let e = type_from_json("p", &json!({"int64Type": {}, "bytesType": {}})).unwrap_err();
        assert_eq!(e.code(), crate::Code::InvalidArgument);
        assert!(type_from_json("p", &json!({})).is_err());
        assert!(type_from_json("p", &json!({"protoType": {}})).is_err());
    }

    #[test]
    fn values_round_trip_and_are_checked_against_their_type() {
        let cases = [
            (SqlValue::Bytes(Vec::from(*b"\x00\xff")), SqlType::Bytes),
            (SqlValue::Int64(i64::MIN), SqlType::Int64),
            (SqlValue::Float64(f64::NEG_INFINITY), SqlType::Float64),
            (
                SqlValue::timestamp_micros(1_700_000_000_123_400),
                SqlType::Timestamp,
            ),
            (SqlValue::timestamp_micros(-1), SqlType::Timestamp),
            (
                SqlValue::Date {
                    year: 2024,
                    month: 2,
                    day: 29,
                },
                SqlType::Date,
            ),
            (
                SqlValue::Map(Vec::from([(
                    SqlValue::Bytes(Vec::from(*b"q")),
                    SqlValue::Int64(3),
                )])),
                SqlType::map(SqlType::Bytes, SqlType::Int64),
            ),
            (SqlValue::Null, SqlType::String),
        ];
        for (v, t) in cases {
            let j = value_to_json(&v);
            assert_eq!(value_from_json("v", &j, &t).unwrap(), v, "{j}");
        }
        assert_eq!(
            value_to_json(&SqlValue::timestamp_micros(1_700_000_000_123_400)),
            json!({"timestampValue": "2023-11-14T22:13:20.123400Z"})
        );
        assert_eq!(
            value_from_json(
                "v",
                &json!({"type": {"int64Type": {}}, "intValue": 7}),
                &SqlType::Int64
            )
            .unwrap(),
            SqlValue::Int64(7)
        );
        let e = value_from_json("p", &json!({"stringValue": "x"}), &SqlType::Int64).unwrap_err();
        assert_eq!(e.code(), crate::Code::InvalidArgument);
        assert!(value_from_json(
            "p",
            &json!({"intValue": "9223372036854775808"}),
            &SqlType::Int64
        )
        .is_err());
        assert!(value_from_json(
            "p",
            &json!({"timestampValue": "yesterday"}),
            &SqlType::Timestamp
        )
        .is_err());
    }
}
