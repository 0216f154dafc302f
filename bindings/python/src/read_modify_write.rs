//! Read-modify-write rules named as `google.cloud.bigtable.data.read_modify_write_rules`:
//! `IncrementRule` and `AppendValueRule`, subclasses of `ReadModifyWriteRule`.
//!
//! Invariant: the base class holds the core rule; the engine checks it (family, 8-byte
//! counters) when `Table.read_modify_write_row` applies it.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use sparsetable::{ReadModifyWriteOp, ReadModifyWriteRule as CoreRule};

use crate::convert::bytes_or_str;

/// Base class of the rules.
#[pyclass(subclass, frozen, module = "sparsetable")]
pub struct ReadModifyWriteRule {
    pub(crate) inner: CoreRule,
}

#[pymethods]
impl ReadModifyWriteRule {
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<ReadModifyWriteRule>()
            .is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __repr__(&self) -> String {
        format!("{:?}", self.inner)
    }
}

/// Adds `increment_amount` to the column's latest value, read as a big-endian int64.
#[pyclass(extends = ReadModifyWriteRule, frozen, module = "sparsetable")]
pub struct IncrementRule {}

#[pymethods]
impl IncrementRule {
    #[new]
    #[pyo3(signature = (family, qualifier, increment_amount = 1))]
    fn new(
        family: crate::mutations::FamilyName,
        qualifier: &Bound<'_, PyAny>,
        increment_amount: i64,
    ) -> PyResult<PyClassInitializer<Self>> {
        let inner = CoreRule {
            family: family.0,
            qualifier: bytes_or_str(qualifier, "qualifier")?,
            op: ReadModifyWriteOp::IncrementAmount(increment_amount),
        };
        Ok(PyClassInitializer::from(ReadModifyWriteRule { inner }).add_subclass(IncrementRule {}))
    }
}

/// Appends `append_value` to the column's latest value.
#[pyclass(extends = ReadModifyWriteRule, frozen, module = "sparsetable")]
pub struct AppendValueRule {}

#[pymethods]
impl AppendValueRule {
    #[new]
    fn new(
        family: crate::mutations::FamilyName,
        qualifier: &Bound<'_, PyAny>,
        append_value: &Bound<'_, PyAny>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let inner = CoreRule {
            family: family.0,
            qualifier: bytes_or_str(qualifier, "qualifier")?,
            op: ReadModifyWriteOp::AppendValue(bytes_or_str(append_value, "append_value")?),
        };
        Ok(
            PyClassInitializer::from(ReadModifyWriteRule { inner })
                .add_subclass(AppendValueRule {}),
        )
    }
}

/// `ReadModifyWriteRule | list[ReadModifyWriteRule]` as core rules.
pub fn extract_rules(obj: &Bound<'_, PyAny>) -> PyResult<Vec<CoreRule>> {
    if let Ok(r) = obj.cast::<ReadModifyWriteRule>() {
        return Ok(vec![r.get().inner.clone()]);
    }
    let list = obj.cast::<PyList>().map_err(|_| {
        PyTypeError::new_err("rules must be a ReadModifyWriteRule or a list of them")
    })?;
    list.iter()
        .map(|r| {
            r.cast::<ReadModifyWriteRule>()
                .map(|r| r.get().inner.clone())
                .map_err(|_| PyTypeError::new_err("rules must hold ReadModifyWriteRule objects"))
        })
        .collect()
}
