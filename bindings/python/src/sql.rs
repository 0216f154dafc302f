//! SQL (`execute_query`) for the Python layer: converts type tags and values between Python
//! and the core's `api::sql`, which decides what a query means.
//!
//! Types cross as tags: `"BYTES"`, `"STRING"`, `"INT64"`, `"FLOAT32"`, `"FLOAT64"`, `"BOOL"`,
//! `"TIMESTAMP"`, `"DATE"`, `("ARRAY", element)` and `("MAP", key, value)`. Values cross as
//! plain Python values of their type (`None` is NULL): a TIMESTAMP as `(seconds, nanos)`, a
//! DATE as `(year, month, day)`, an ARRAY as a list, a MAP (results only) as a list of
//! `(key, value)` pairs. The package's `sparsetable._sql` shapes them into Google's classes.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};
use pyo3::IntoPyObjectExt;
use sparsetable::api::sql::{SqlType, SqlValue};

/// A type tag as the core's type.
pub fn type_from_py(tag: &Bound<'_, PyAny>) -> PyResult<SqlType> {
    if let Ok(name) = tag.extract::<String>() {
        return SqlType::scalar_named(&name)
            .ok_or_else(|| PyTypeError::new_err(format!("unknown SQL type {name:?}")));
    }
    let tuple = tag.cast::<PyTuple>().map_err(|_| {
        PyTypeError::new_err("a SQL type tag is a name or a tuple (\"ARRAY\", t) / (\"MAP\", k, v)")
    })?;
    let kind: String = tuple.get_item(0)?.extract()?;
    match (kind.as_str(), tuple.len()) {
        ("ARRAY", 2) => Ok(SqlType::Array(Box::new(type_from_py(&tuple.get_item(1)?)?))),
        ("MAP", 3) => Ok(SqlType::Map(
            Box::new(type_from_py(&tuple.get_item(1)?)?),
            Box::new(type_from_py(&tuple.get_item(2)?)?),
        )),
        _ => Err(PyTypeError::new_err(format!(
            "unknown SQL type tag ({kind:?}, ...)"
        ))),
    }
}

/// The core's type as a tag.
pub fn type_to_py(py: Python<'_>, ty: &SqlType) -> PyResult<Py<PyAny>> {
    let name = |s: &str| PyString::new(py, s).into_any().unbind();
    Ok(match ty {
        SqlType::Bytes
        | SqlType::String
        | SqlType::Int64
        | SqlType::Float32
        | SqlType::Float64
        | SqlType::Bool
        | SqlType::Timestamp
        | SqlType::Date => name(&ty.to_string()),
        SqlType::Array(e) => ("ARRAY", type_to_py(py, e)?).into_py_any(py)?,
        SqlType::Map(k, v) => ("MAP", type_to_py(py, k)?, type_to_py(py, v)?).into_py_any(py)?,
        SqlType::Struct(fields) => (
            "STRUCT",
            fields
                .iter()
                .map(|(n, t)| Ok((n.clone(), type_to_py(py, t)?)))
                .collect::<PyResult<Vec<_>>>()?,
        )
            .into_py_any(py)?,
    })
}

/// A parameter's Python value, of type `ty`, as the core's value.
pub fn value_from_py(value: &Bound<'_, PyAny>, ty: &SqlType) -> PyResult<SqlValue> {
    if value.is_none() {
        return Ok(SqlValue::Null);
    }
    let wrong = || {
        PyTypeError::new_err(format!(
            "a {} value does not fit the parameter's type {ty:?}",
            value
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    };
    Ok(match ty {
        SqlType::Bytes => SqlValue::Bytes(
            value
                .cast::<PyBytes>()
                .map_err(|_| wrong())?
                .as_bytes()
                .to_vec(),
        ),
        SqlType::String => {
            value.cast::<PyString>().map_err(|_| wrong())?;
            SqlValue::String(value.extract()?)
        }
        SqlType::Int64 => SqlValue::Int64(value.extract().map_err(|_| wrong())?),
        SqlType::Float32 => SqlValue::Float32(value.extract::<f64>().map_err(|_| wrong())? as f32),
        SqlType::Float64 => SqlValue::Float64(value.extract().map_err(|_| wrong())?),
        SqlType::Bool => SqlValue::Bool(value.extract().map_err(|_| wrong())?),
        SqlType::Timestamp => {
            let (seconds, nanos): (i64, i32) = value.extract().map_err(|_| wrong())?;
            SqlValue::Timestamp { seconds, nanos }
        }
        SqlType::Date => {
            let (year, month, day): (i32, i32, i32) = value.extract().map_err(|_| wrong())?;
            SqlValue::Date { year, month, day }
        }
        SqlType::Array(e) => SqlValue::Array(
            value
                .try_iter()
                .map_err(|_| wrong())?
                .map(|item| value_from_py(&item?, e))
                .collect::<PyResult<_>>()?,
        ),
        SqlType::Map(..) | SqlType::Struct(_) => {
            return Err(PyTypeError::new_err(
                "MAP and STRUCT parameters are not served",
            ))
        }
    })
}

/// A result value as a plain Python value (see the module docs).
pub fn value_to_py(py: Python<'_>, value: &SqlValue) -> PyResult<Py<PyAny>> {
    Ok(match value {
        SqlValue::Null => py.None(),
        SqlValue::Bytes(b) => PyBytes::new(py, b).into_any().unbind(),
        SqlValue::String(s) => s.into_py_any(py)?,
        SqlValue::Int64(i) => i.into_py_any(py)?,
        SqlValue::Float32(f) => f64::from(*f).into_py_any(py)?,
        SqlValue::Float64(f) => f.into_py_any(py)?,
        SqlValue::Bool(b) => b.into_py_any(py)?,
        SqlValue::Timestamp { seconds, nanos } => (*seconds, *nanos).into_py_any(py)?,
        SqlValue::Date { year, month, day } => (*year, *month, *day).into_py_any(py)?,
        SqlValue::Array(items) => PyList::new(
            py,
            items
                .iter()
                .map(|v| value_to_py(py, v))
                .collect::<PyResult<Vec<_>>>()?,
        )?
        .into_any()
        .unbind(),
        SqlValue::Struct(items) => PyTuple::new(
            py,
            items
                .iter()
                .map(|v| value_to_py(py, v))
                .collect::<PyResult<Vec<_>>>()?,
        )?
        .into_any()
        .unbind(),
        SqlValue::Map(entries) => PyList::new(
            py,
            entries
                .iter()
                .map(|(k, v)| (value_to_py(py, k)?, value_to_py(py, v)?).into_py_any(py))
                .collect::<PyResult<Vec<_>>>()?,
        )?
        .into_any()
        .unbind(),
    })
}
