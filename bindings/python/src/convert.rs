//! Small conversions shared by every class: `bytes | str` arguments, and running engine work
//! with the GIL released on the core's [`SharedDatabase`] (its one lock and poisoning policy).
//!
//! Invariant: a `str` always becomes its UTF-8 bytes, as Google's client encodes it; any
//! other type is a `TypeError` (a Python type mistake, not an engine error).

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use sparsetable::{Database, Error, SharedDatabase};

use crate::errors::to_py_err;

/// `bytes` as is, `str` as UTF-8; `what` names the argument in the `TypeError`.
pub fn bytes_or_str(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u8>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        Ok(b.as_bytes().to_vec())
    } else if obj.is_instance_of::<PyString>() {
        Ok(obj.extract::<String>()?.into_bytes())
    } else {
        Err(PyTypeError::new_err(format!(
            "{what} must be bytes or str, not {}",
            obj.get_type().name()?
        )))
    }
}

/// Reads the engine with the GIL released, so other Python threads run meanwhile.
pub fn with_db<T: Send>(
    py: Python<'_>,
    db: &SharedDatabase,
    f: impl FnOnce(&Database) -> Result<T, Error> + Send,
) -> PyResult<T> {
    py.detach(|| db.read(f)).map_err(|e| to_py_err(py, e))
}

/// A point read (one row): microseconds of engine work, run WITHOUT releasing the GIL.
/// Releasing and retaking it costs more than the read, and with several threads reading,
/// each release hands the GIL to another thread and waits to get it back (measured: 8
/// threads read at a third of one thread's rate when point reads released it). Safe from
/// deadlock because no thread ever waits for the GIL while holding the database lock:
/// writers and scans take the lock only inside `py.detach` and need no Python meanwhile.
pub fn with_db_point<T>(
    py: Python<'_>,
    db: &SharedDatabase,
    f: impl FnOnce(&Database) -> Result<T, Error>,
) -> PyResult<T> {
    db.read(f).map_err(|e| to_py_err(py, e))
}

/// Changes the engine with the GIL released.
pub fn with_db_mut<T: Send>(
    py: Python<'_>,
    db: &SharedDatabase,
    f: impl FnOnce(&mut Database) -> Result<T, Error> + Send,
) -> PyResult<T> {
    py.detach(|| db.write(f)).map_err(|e| to_py_err(py, e))
}

/// The core's answer for a poisoned lock (INTERNAL), for the binding's own locks too.
pub fn poisoned(py: Python<'_>) -> PyErr {
    to_py_err(py, sparsetable::api::shared::poisoned())
}

/// Python's `repr` of a `bytes` value (`b'a\\x00'`), for the classes' `__repr__`.
pub fn bytes_repr(bytes: &[u8]) -> String {
    let mut out = String::from("b'");
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\'' => out.push_str("\\'"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('\'');
    out
}
