//! Mutation classes named as `google.cloud.bigtable.data.mutations`: `SetCell`,
//! `DeleteRangeFromColumn`, `DeleteAllFromFamily`, `DeleteAllFromRow`, `AddToCell`, all
//! subclasses of `Mutation` (with Google's `is_idempotent()` and `size()`).
//!
//! Invariant: the base class holds the core `Mutation` already converted, so applying a list
//! is a plain clone; the subclasses only expose Google's attribute names. The objects do not
//! validate (no range or limit checks): the engine does, when the mutation is applied, and
//! raises the typed error.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt, PyList};
use sparsetable::{Mutation as CoreMutation, TableConfig, TimestampRange};

use crate::convert::{bytes_or_str, bytes_repr};
use crate::errors::{invalid_argument, to_py_err};

/// A column family name argument: a `str`, or `bytes` holding UTF-8 (Google's client passes
/// either into the proto's string field, and its samples use `b"cf1"`). Other bytes are
/// `InvalidArgument`, another type a `TypeError`.
pub struct FamilyName(pub String);

impl<'a, 'py> FromPyObject<'a, 'py> for FamilyName {
    type Error = PyErr;

    fn extract(obj: pyo3::Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(s) = obj.extract::<String>() {
            return Ok(FamilyName(s));
        }
        let Ok(b) = obj.cast::<PyBytes>() else {
            return Err(PyTypeError::new_err("family must be str or bytes"));
        };
        String::from_utf8(b.as_bytes().to_vec())
            .map(FamilyName)
            .map_err(|_| invalid_argument(obj.py(), "family: the name must be UTF-8"))
    }
}

/// Base class of every mutation.
#[pyclass(subclass, frozen, module = "sparsetable")]
pub struct Mutation {
    pub(crate) inner: CoreMutation,
}

#[pymethods]
impl Mutation {
    /// Whether applying the mutation twice leaves the same data as once, as Google's client
    /// classifies it: a `SetCell` at the engine's time and an `AddToCell` are not.
    fn is_idempotent(&self) -> bool {
        !matches!(
            &self.inner,
            CoreMutation::SetCell {
                timestamp_micros: sparsetable::SERVER_TIME_MICROS,
                ..
            } | CoreMutation::AddToCell { .. }
                | CoreMutation::MergeToCell { .. }
        )
    }

    /// The payload's size in bytes (family, qualifier and value; 8 bytes per timestamp or
    /// integer), what `MutationsBatcher`'s `flush_limit_bytes` counts. Google's client counts
    /// the Python size of its request dict instead: the two differ by a constant per mutation.
    fn size(&self) -> usize {
        match &self.inner {
            CoreMutation::SetCell {
                family,
                qualifier,
                value,
                ..
            } => family.len() + qualifier.len() + value.len() + 8,
            CoreMutation::AddToCell {
                family, qualifier, ..
            } => family.len() + qualifier.len() + 16,
            CoreMutation::MergeToCell {
                family,
                qualifier,
                state,
                ..
            } => family.len() + qualifier.len() + state.len() + 8,
            CoreMutation::DeleteFromColumn {
                family, qualifier, ..
            } => family.len() + qualifier.len() + 16,
            CoreMutation::DeleteFromFamily { family } => family.len(),
            _ => 1,
        }
    }

    fn __str__(&self) -> String {
        self.__repr__()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Mutation>()
            .is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __repr__(&self) -> String {
        match &self.inner {
            CoreMutation::SetCell {
                family,
                qualifier,
                timestamp_micros,
                value,
            } => format!(
                "SetCell(family={family:?}, qualifier={}, new_value={}, timestamp_micros={timestamp_micros})",
                bytes_repr(qualifier),
                bytes_repr(value)
            ),
            CoreMutation::DeleteFromColumn {
                family,
                qualifier,
                time_range,
            } => format!(
                "DeleteRangeFromColumn(family={family:?}, qualifier={}, start_timestamp_micros={}, end_timestamp_micros={})",
                bytes_repr(qualifier),
                time_range.start_micros,
                time_range.end_micros.map_or("None".to_string(), |e| e.to_string())
            ),
            CoreMutation::DeleteFromFamily { family } => format!("DeleteAllFromFamily(family_to_delete={family:?})"),
            CoreMutation::DeleteFromRow => "DeleteAllFromRow()".to_string(),
            CoreMutation::AddToCell {
                family,
                qualifier,
                timestamp_micros,
                input,
            } => format!(
                "AddToCell(family={family:?}, qualifier={}, value={input}, timestamp_micros={timestamp_micros})",
                bytes_repr(qualifier)
            ),
            other => format!("{other:?}"),
        }
    }
}

pub(crate) fn new_mutation<T: pyo3::PyClass<BaseType = Mutation>>(
    inner: CoreMutation,
    sub: T,
) -> PyClassInitializer<T> {
    PyClassInitializer::from(Mutation { inner }).add_subclass(sub)
}

/// Writes `new_value` at (family, qualifier, timestamp_micros).
#[pyclass(extends = Mutation, frozen, module = "sparsetable")]
pub struct SetCell {}

#[pymethods]
impl SetCell {
    /// `timestamp_micros=None` asks for the engine's time (Bigtable's server timestamp, -1):
    /// Google's client reads the local clock instead, and both mean "now". An `int` value
    /// becomes 8 big-endian signed bytes, as Google's client does.
    #[new]
    #[pyo3(signature = (family, qualifier, new_value, timestamp_micros = None))]
    fn new(
        family: FamilyName,
        qualifier: &Bound<'_, PyAny>,
        new_value: &Bound<'_, PyAny>,
        timestamp_micros: Option<i64>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let qualifier = bytes_or_str(qualifier, "qualifier")?;
        let value = if new_value.is_instance_of::<PyInt>() {
            let n: i64 = new_value.extract().map_err(|_| {
                invalid_argument(
                    new_value.py(),
                    "new_value: an int must fit in a signed 64-bit integer",
                )
            })?;
            n.to_be_bytes().to_vec()
        } else {
            bytes_or_str(new_value, "new_value")
                .map_err(|_| PyTypeError::new_err("new_value must be bytes, str or int"))?
        };
        Ok(new_mutation(
            CoreMutation::SetCell {
                family: family.0,
                qualifier,
                timestamp_micros: timestamp_micros.unwrap_or(sparsetable::SERVER_TIME_MICROS),
                value,
            },
            SetCell {},
        ))
    }

    #[getter]
    fn family(slf: &Bound<'_, Self>) -> String {
        match &slf.as_super().get().inner {
            CoreMutation::SetCell { family, .. } => family.clone(),
            _ => unreachable!("SetCell always holds a SetCell"),
        }
    }

    #[getter]
    fn qualifier<'py>(slf: &Bound<'py, Self>) -> Bound<'py, PyBytes> {
        match &slf.as_super().get().inner {
            CoreMutation::SetCell { qualifier, .. } => PyBytes::new(slf.py(), qualifier),
            _ => unreachable!("SetCell always holds a SetCell"),
        }
    }

    #[getter]
    fn new_value<'py>(slf: &Bound<'py, Self>) -> Bound<'py, PyBytes> {
        match &slf.as_super().get().inner {
            CoreMutation::SetCell { value, .. } => PyBytes::new(slf.py(), value),
            _ => unreachable!("SetCell always holds a SetCell"),
        }
    }

    /// The timestamp; -1 stands for the engine's time.
    #[getter]
    fn timestamp_micros(slf: &Bound<'_, Self>) -> i64 {
        match &slf.as_super().get().inner {
            CoreMutation::SetCell {
                timestamp_micros, ..
            } => *timestamp_micros,
            _ => unreachable!("SetCell always holds a SetCell"),
        }
    }
}

/// Deletes the cells of one column whose timestamps are in `[start, end)`.
#[pyclass(extends = Mutation, frozen, module = "sparsetable")]
pub struct DeleteRangeFromColumn {}

#[pymethods]
impl DeleteRangeFromColumn {
    /// `None` is the proto's unset value 0; the core reads the pair as the Bigtable protocol
    /// does (an end of 0 is unbounded: Google's client sends the value as is).
    #[new]
    #[pyo3(signature = (family, qualifier, start_timestamp_micros = None, end_timestamp_micros = None))]
    fn new(
        family: FamilyName,
        qualifier: &Bound<'_, PyAny>,
        start_timestamp_micros: Option<i64>,
        end_timestamp_micros: Option<i64>,
    ) -> PyResult<PyClassInitializer<Self>> {
        Ok(new_mutation(
            CoreMutation::DeleteFromColumn {
                family: family.0,
                qualifier: bytes_or_str(qualifier, "qualifier")?,
                time_range: TimestampRange::from_wire(
                    start_timestamp_micros.unwrap_or(0),
                    end_timestamp_micros.unwrap_or(0),
                ),
            },
            DeleteRangeFromColumn {},
        ))
    }

    #[getter]
    fn family(slf: &Bound<'_, Self>) -> String {
        match &slf.as_super().get().inner {
            CoreMutation::DeleteFromColumn { family, .. } => family.clone(),
            _ => unreachable!("DeleteRangeFromColumn always holds a DeleteFromColumn"),
        }
    }

    #[getter]
    fn qualifier<'py>(slf: &Bound<'py, Self>) -> Bound<'py, PyBytes> {
        match &slf.as_super().get().inner {
            CoreMutation::DeleteFromColumn { qualifier, .. } => PyBytes::new(slf.py(), qualifier),
            _ => unreachable!("DeleteRangeFromColumn always holds a DeleteFromColumn"),
        }
    }

    #[getter]
    fn start_timestamp_micros(slf: &Bound<'_, Self>) -> i64 {
        match &slf.as_super().get().inner {
            CoreMutation::DeleteFromColumn { time_range, .. } => time_range.start_micros,
            _ => unreachable!("DeleteRangeFromColumn always holds a DeleteFromColumn"),
        }
    }

    #[getter]
    fn end_timestamp_micros(slf: &Bound<'_, Self>) -> Option<i64> {
        match &slf.as_super().get().inner {
            CoreMutation::DeleteFromColumn { time_range, .. } => time_range.end_micros,
            _ => unreachable!("DeleteRangeFromColumn always holds a DeleteFromColumn"),
        }
    }
}

/// Deletes every cell of one family in the row.
#[pyclass(extends = Mutation, frozen, module = "sparsetable")]
pub struct DeleteAllFromFamily {}

#[pymethods]
impl DeleteAllFromFamily {
    #[new]
    fn new(family_to_delete: FamilyName) -> PyClassInitializer<Self> {
        new_mutation(
            CoreMutation::DeleteFromFamily {
                family: family_to_delete.0,
            },
            DeleteAllFromFamily {},
        )
    }

    #[getter]
    fn family_to_delete(slf: &Bound<'_, Self>) -> String {
        match &slf.as_super().get().inner {
            CoreMutation::DeleteFromFamily { family } => family.clone(),
            _ => unreachable!("DeleteAllFromFamily always holds a DeleteFromFamily"),
        }
    }
}

/// Deletes the whole row.
#[pyclass(extends = Mutation, frozen, module = "sparsetable")]
pub struct DeleteAllFromRow {}

#[pymethods]
impl DeleteAllFromRow {
    #[new]
    fn new() -> PyClassInitializer<Self> {
        new_mutation(CoreMutation::DeleteFromRow, DeleteAllFromRow {})
    }
}

/// Adds the int64 `value` to the aggregate cell at (family, qualifier, timestamp_micros) of
/// an aggregate family (sum, min or max), creating it if absent.
#[pyclass(extends = Mutation, frozen, module = "sparsetable")]
pub struct AddToCell {}

#[pymethods]
impl AddToCell {
    /// `value` must fit in a signed 64-bit integer; the engine checks the family's type and
    /// the timestamp when the mutation is applied.
    #[new]
    fn new(
        family: FamilyName,
        qualifier: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
        timestamp_micros: i64,
    ) -> PyResult<PyClassInitializer<Self>> {
        if !value.is_instance_of::<PyInt>() {
            return Err(PyTypeError::new_err("value must be int"));
        }
        let input: i64 = value.extract().map_err(|_| {
            invalid_argument(
                value.py(),
                "value: an int must fit in a signed 64-bit integer",
            )
        })?;
        Ok(new_mutation(
            CoreMutation::AddToCell {
                family: family.0,
                qualifier: bytes_or_str(qualifier, "qualifier")?,
                timestamp_micros,
                input,
            },
            AddToCell {},
        ))
    }

    #[getter]
    fn family(slf: &Bound<'_, Self>) -> String {
        match &slf.as_super().get().inner {
            CoreMutation::AddToCell { family, .. } => family.clone(),
            _ => unreachable!("AddToCell always holds an AddToCell"),
        }
    }

    #[getter]
    fn qualifier<'py>(slf: &Bound<'py, Self>) -> Bound<'py, PyBytes> {
        match &slf.as_super().get().inner {
            CoreMutation::AddToCell { qualifier, .. } => PyBytes::new(slf.py(), qualifier),
            _ => unreachable!("AddToCell always holds an AddToCell"),
        }
    }

    #[getter]
    fn value(slf: &Bound<'_, Self>) -> i64 {
        match &slf.as_super().get().inner {
            CoreMutation::AddToCell { input, .. } => *input,
            _ => unreachable!("AddToCell always holds an AddToCell"),
        }
    }

    /// Google's attribute name for the timestamp of an `AddToCell`.
    #[getter]
    fn timestamp(slf: &Bound<'_, Self>) -> i64 {
        match &slf.as_super().get().inner {
            CoreMutation::AddToCell {
                timestamp_micros, ..
            } => *timestamp_micros,
            _ => unreachable!("AddToCell always holds an AddToCell"),
        }
    }
}

/// `Mutation | list[Mutation]` (Google accepts both) as core mutations of a row of a table
/// configured as `config`. Each is checked by the engine's own rule
/// (`sparsetable::Mutation::validate`) before it is copied out of its Python object, so a
/// value the table refuses (too large, say) costs no copy for the call.
pub fn extract_mutations(
    obj: &Bound<'_, PyAny>,
    config: &TableConfig,
) -> PyResult<Vec<CoreMutation>> {
    let checked = |m: &Bound<'_, Mutation>, i: usize| -> PyResult<CoreMutation> {
        let inner = &m.get().inner;
        inner
            .validate(config, i)
            .map_err(|e| to_py_err(m.py(), e))?;
        Ok(inner.clone())
    };
    if let Ok(m) = obj.cast::<Mutation>() {
        return Ok(vec![checked(m, 0)?]);
    }
    let list = obj
        .cast::<PyList>()
        .map_err(|_| PyTypeError::new_err("mutations must be a Mutation or a list of Mutation"))?;
    list.iter()
        .enumerate()
        .map(|(i, item)| {
            let m = item
                .cast::<Mutation>()
                .map_err(|_| PyTypeError::new_err(format!("mutations[{i}] is not a Mutation")))?;
            checked(m, i)
        })
        .collect()
}
