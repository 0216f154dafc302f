//! A table's row-key schema (`Table.row_key_schema`, a `Type.Struct`) between Python and the
//! core's [`RowKeySchema`]. Python gives and gets it as the admin proto's message in dict
//! form, with the proto's field names:
//!
//! ```text
//! {"fields": [{"field_name": "user", "type": {"string_type": {"encoding": {"utf8_bytes": {}}}}},
//!             {"field_name": "n", "type": {"int64_type": {"encoding": {"ordered_code_bytes": {}}}}}],
//!  "encoding": {"delimited_bytes": {"delimiter": b"#"}}}
//! ```
//!
//! A field's type is `bytes_type` (`raw`), `string_type` (`utf8_bytes`, or the deprecated
//! `utf8_raw`) or `int64_type` (`big_endian_bytes` or `ordered_code_bytes`); the struct's
//! encoding is `singleton`, `delimited_bytes` or `ordered_code_bytes`. A field's type key may
//! also be spelt `type_`, as proto-plus names the attribute.
//!
//! Only the shape is checked here (a oneof with one member set, an encoding present: what
//! the core's proto3 JSON reader checks for the same message), so a dict that is not the
//! message is INVALID_ARGUMENT naming the place. The schema's rules (names, delimiter length,
//! a field per family name...) are the core's (`RowKeySchema::validate`), applied when the
//! table is created or updated.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use sparsetable::{Error, Int64Encoding, KeyField, KeyFieldType, RowKeySchema, StructEncoding};

/// A dict member of `d` (`None` when absent or `None`); a non-dict is a shape error.
fn member<'py>(
    d: &Bound<'py, PyDict>,
    name: &str,
    at: &str,
) -> PyResult<Result<Option<Bound<'py, PyDict>>, Error>> {
    match d.get_item(name)? {
        None => Ok(Ok(None)),
        Some(v) if v.is_none() => Ok(Ok(None)),
        Some(v) => Ok(match v.cast_into::<PyDict>() {
            Ok(v) => Ok(Some(v)),
            Err(_) => Err(Error::invalid_argument(format!(
                "{at}.{name} must be a message (a dict)"
            ))),
        }),
    }
}

/// Which one of `names` is set in `d` (exactly one must be), with its value.
fn one_of<'py>(
    d: &Bound<'py, PyDict>,
    names: &[&'static str],
    at: &str,
) -> PyResult<Result<(&'static str, Bound<'py, PyDict>), Error>> {
    for key in d.keys() {
        let key: String = key.extract()?;
        if !names.contains(&key.as_str()) {
            return Ok(Err(Error::invalid_argument(format!(
                "{at}: unknown field {key:?} (one of {} is expected)",
                names.join(", ")
            ))));
        }
    }
    let mut set = Vec::new();
    for name in names {
        match member(d, name, at)? {
            Ok(Some(v)) => set.push((*name, v)),
            Ok(None) => {}
            Err(e) => return Ok(Err(e)),
        }
    }
    let mut set = set.into_iter();
    Ok(match (set.next(), set.next()) {
        (Some(one), None) => Ok(one),
        (None, _) => Err(Error::invalid_argument(format!(
            "{at}: one of {} must be set",
            names.join(", ")
        ))),
        (Some(a), Some(b)) => Err(Error::invalid_argument(format!(
            "{at}: {} and {} are members of one oneof; set at most one",
            a.0, b.0
        ))),
    })
}

/// A field's type message as the core's field type.
fn field_type(t: &Bound<'_, PyDict>, at: &str) -> PyResult<Result<KeyFieldType, Error>> {
    let (kind, body) = match one_of(t, &["bytes_type", "string_type", "int64_type"], at)? {
        Ok(k) => k,
        Err(e) => return Ok(Err(e)),
    };
    let at = format!("{at}.{kind}");
    let Some(encoding) = (match member(&body, "encoding", &at)? {
        Ok(e) => e,
        Err(e) => return Ok(Err(e)),
    }) else {
        return Ok(Err(Error::invalid_argument(format!(
            "{at}: an encoding is required"
        ))));
    };
    let at = format!("{at}.encoding");
    let names: &[&'static str] = match kind {
        "bytes_type" => &["raw"],
        "string_type" => &["utf8_bytes", "utf8_raw"],
        _ => &["big_endian_bytes", "ordered_code_bytes"],
    };
    Ok(
        one_of(&encoding, names, &at)?.map(|(chosen, _)| match chosen {
            "raw" => KeyFieldType::Bytes,
            "utf8_bytes" | "utf8_raw" => KeyFieldType::String,
            "big_endian_bytes" => KeyFieldType::Int64(Int64Encoding::BigEndianBytes),
            _ => KeyFieldType::Int64(Int64Encoding::OrderedCodeBytes),
        }),
    )
}

/// The core's schema for a `Type.Struct` dict (see the module docs).
pub fn schema_from_py(schema: &Bound<'_, PyAny>) -> PyResult<Result<RowKeySchema, Error>> {
    let bad = |what: &str| {
        Ok(Err(Error::invalid_argument(format!(
            "row_key_schema{what}"
        ))))
    };
    let Ok(d) = schema.cast::<PyDict>() else {
        return bad(" must be a Type.Struct message (a dict with fields and encoding)");
    };
    for key in d.keys() {
        let key: String = key.extract()?;
        if key != "fields" && key != "encoding" {
            return bad(&format!(
                ": unknown field {key:?} (fields and encoding are expected)"
            ));
        }
    }
    let mut fields = Vec::new();
    if let Some(list) = d.get_item("fields")?.filter(|v| !v.is_none()) {
        let Ok(list) = list.cast_into::<PyList>() else {
            return bad(".fields must be a list");
        };
        for (i, f) in list.iter().enumerate() {
            let at = format!("row_key_schema.fields[{i}]");
            let Ok(f) = f.cast_into::<PyDict>() else {
                return bad(&format!(
                    ".fields[{i}] must be a Type.Struct.Field message (a dict)"
                ));
            };
            let name: String = match f.get_item("field_name")? {
                Some(n) if !n.is_none() => n.extract()?,
                _ => String::new(),
            };
            let t = match (member(&f, "type", &at)?, member(&f, "type_", &at)?) {
                (Ok(Some(t)), Ok(None)) | (Ok(None), Ok(Some(t))) => t,
                (Err(e), _) | (_, Err(e)) => return Ok(Err(e)),
                (Ok(None), Ok(None)) => {
                    return bad(&format!(".fields[{i}].type is required"));
                }
                (Ok(Some(_)), Ok(Some(_))) => {
                    return bad(&format!(".fields[{i}]: give type or type_, not both"));
                }
            };
            match field_type(&t, &format!("{at}.type"))? {
                Ok(field_type) => fields.push(KeyField { name, field_type }),
                Err(e) => return Ok(Err(e)),
            }
        }
    }
    let Some(encoding) = (match member(d, "encoding", "row_key_schema")? {
        Ok(e) => e,
        Err(e) => return Ok(Err(e)),
    }) else {
        return bad(".encoding is required");
    };
    let at = "row_key_schema.encoding";
    let names = ["singleton", "delimited_bytes", "ordered_code_bytes"];
    let encoding = match one_of(&encoding, &names, at)? {
        Ok(("singleton", _)) => StructEncoding::Singleton,
        Ok(("delimited_bytes", body)) => {
            let delimiter = match body.get_item("delimiter")? {
                None => Vec::new(),
                Some(v) if v.is_none() => Vec::new(),
                Some(v) => match v.cast::<PyBytes>() {
                    Ok(b) => b.as_bytes().to_vec(),
                    Err(_) => return bad(".encoding.delimited_bytes.delimiter must be bytes"),
                },
            };
            StructEncoding::DelimitedBytes(delimiter)
        }
        Ok(_) => StructEncoding::OrderedCodeBytes,
        Err(e) => return Ok(Err(e)),
    };
    Ok(Ok(RowKeySchema { fields, encoding }))
}

/// The core's schema as a `Type.Struct` dict (see the module docs; `type` for a field's type,
/// a delimiter as bytes).
pub fn schema_to_py<'py>(py: Python<'py>, schema: &RowKeySchema) -> PyResult<Bound<'py, PyDict>> {
    let empty = || PyDict::new(py);
    let wrap = |key: &str, value: Bound<'py, PyDict>| -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item(key, value)?;
        Ok(d)
    };
    let fields = PyList::empty(py);
    for f in &schema.fields {
        let (kind, encoding) = match f.field_type {
            KeyFieldType::Bytes => ("bytes_type", "raw"),
            KeyFieldType::String => ("string_type", "utf8_bytes"),
            KeyFieldType::Int64(Int64Encoding::BigEndianBytes) => {
                ("int64_type", "big_endian_bytes")
            }
            KeyFieldType::Int64(Int64Encoding::OrderedCodeBytes) => {
                ("int64_type", "ordered_code_bytes")
            }
        };
        let field = PyDict::new(py);
        field.set_item("field_name", &f.name)?;
        field.set_item(
            "type",
            wrap(kind, wrap("encoding", wrap(encoding, empty())?)?)?,
        )?;
        fields.append(field)?;
    }
    let encoding = match &schema.encoding {
        StructEncoding::Singleton => wrap("singleton", empty())?,
        StructEncoding::DelimitedBytes(d) => {
            let body = PyDict::new(py);
            body.set_item("delimiter", PyBytes::new(py, d))?;
            wrap("delimited_bytes", body)?
        }
        StructEncoding::OrderedCodeBytes => wrap("ordered_code_bytes", empty())?,
    };
    let out = PyDict::new(py);
    out.set_item("fields", fields)?;
    out.set_item("encoding", encoding)?;
    Ok(out)
}
