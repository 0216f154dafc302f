//! `Row` and `Cell` as returned by reads, with `google.cloud.bigtable.data.row`'s attribute
//! names (`row_key`, `cells`; `value`, `row_key`, `family`, `qualifier`, `timestamp_micros`,
//! `labels`).
//!
//! Invariant: the cells keep the engine's Bigtable order (families in creation order,
//! qualifiers ascending, newest first); nothing here reorders or filters them except `get_cells`, which
//! selects as Google's `Row.get_cells` does.
//!
//! The accessors follow Google's `Row` and `Cell` so code that reads rows moves unchanged:
//! `row[i]`, `row[a:b]`, `row["cf"]`, `row["cf", b"q"]`, `"cf" in row`, `("cf", "q") in row`,
//! `cell in row`, `str(row)`, `row._to_dict()`; `int(cell)` (8-byte big-endian signed, what an
//! increment writes), `str(cell)`, `cell._to_dict()` and cell ordering (family, qualifier,
//! newest first, value, labels).
//!
//! Cells are created lazily: a `Row` crossing into Python is one object holding the engine's
//! cells; their `Cell` objects are built the first time anything asks for a cell (and then
//! kept, so `row[0] is row[0]`). A scan that only counts rows or reads keys builds no `Cell`.
//! Invariant: once built, the `Cell` objects are the row's only copy of its cells.

use pyo3::basic::CompareOp;
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

use std::sync::Mutex;

use crate::convert::{bytes_or_str, bytes_repr};

/// One timestamped value of one column.
#[pyclass(frozen, module = "sparsetable")]
#[derive(PartialEq, Eq, Hash)]
pub struct Cell {
    value: Vec<u8>,
    row_key: Vec<u8>,
    family: String,
    qualifier: Vec<u8>,
    timestamp_micros: i64,
    labels: Vec<String>,
}

#[pymethods]
impl Cell {
    #[getter]
    fn value<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.value)
    }

    #[getter]
    fn row_key<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.row_key)
    }

    #[getter]
    fn family(&self) -> &str {
        &self.family
    }

    #[getter]
    fn qualifier<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.qualifier)
    }

    #[getter]
    fn timestamp_micros(&self) -> i64 {
        self.timestamp_micros
    }

    #[getter]
    fn labels(&self) -> Vec<String> {
        self.labels.clone()
    }

    /// The value read as an 8-byte big-endian signed integer (what `IncrementRule` and
    /// `AddToCell` write), as Google's `int(cell)`; other lengths are read the same way
    /// (`int.from_bytes(value, "big", signed=True)`).
    fn __int__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let kwargs = PyDict::new(py);
        kwargs.set_item("signed", true)?;
        py.get_type::<pyo3::types::PyInt>().call_method(
            "from_bytes",
            (PyBytes::new(py, &self.value), "big"),
            Some(&kwargs),
        )
    }

    /// `str(cell)` is `str(cell.value)`, as Google's.
    fn __str__(&self) -> String {
        bytes_repr(&self.value)
    }

    /// The proto3 shape of the cell (`value`, `timestamp_micros`, `labels` when any).
    fn _to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("value", PyBytes::new(py, &self.value))?;
        d.set_item("timestamp_micros", self.timestamp_micros)?;
        if !self.labels.is_empty() {
            d.set_item("labels", self.labels.clone())?;
        }
        Ok(d)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.hash(&mut h);
        h.finish()
    }

    /// Equality compares every field; ordering is Bigtable's (family, qualifier, newest
    /// first, then value and labels), as Google's `Cell`. Comparing with a non-`Cell` is
    /// `NotImplemented` (so `==` is False and `<` a `TypeError`).
    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let py = other.py();
        let Ok(other) = other.cast::<Cell>() else {
            return Ok(py.NotImplemented());
        };
        let other = other.get();
        let key = |c: &Cell| {
            (
                c.family.clone(),
                c.qualifier.clone(),
                std::cmp::Reverse(c.timestamp_micros),
                c.value.clone(),
                c.labels.clone(),
            )
        };
        let result = match op {
            CompareOp::Eq => self == other,
            CompareOp::Ne => self != other,
            _ => op.matches(key(self).cmp(&key(other))),
        };
        Ok(pyo3::types::PyBool::new(py, result)
            .to_owned()
            .into_any()
            .unbind())
    }

    /// Google's form, field for field (the family quoted as Google quotes it).
    fn __repr__(&self) -> String {
        format!(
            "Cell(value={}, row_key={}, family='{}', qualifier={}, timestamp_micros={}, labels={})",
            bytes_repr(&self.value),
            bytes_repr(&self.row_key),
            self.family,
            bytes_repr(&self.qualifier),
            self.timestamp_micros,
            py_list_repr(&self.labels)
        )
    }
}

/// A row as returned by a read: its key and its cells in Bigtable order.
#[pyclass(frozen, module = "sparsetable")]
pub struct Row {
    row_key: Vec<u8>,
    /// How many cells the row has (known without building them).
    len: usize,
    /// The engine's cells, until `cells` is first built from them (then empty).
    raw: Mutex<Vec<sparsetable::Cell>>,
    /// The `Cell` objects, built on first use.
    cells: PyOnceLock<Vec<Py<Cell>>>,
}

#[pymethods]
impl Row {
    #[getter]
    fn row_key<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.row_key)
    }

    /// The cells, as a new list each access. (Named apart from `cells` in Rust: pyo3's
    /// generated name for a `cells` getter would clash with the `get_cells` method's.)
    #[getter(cells)]
    fn cell_objects<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cell_list(py)
    }

    /// As Google's `Row.get_cells`: every cell, a family's cells, or one column's cells.
    /// A qualifier without a family, or a family or column the row lacks, is a `ValueError`.
    #[pyo3(name = "get_cells", signature = (family = None, qualifier = None))]
    fn select_cells<'py>(
        &self,
        py: Python<'py>,
        family: Option<String>,
        qualifier: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let qualifier = match qualifier.filter(|q| !q.is_none()) {
            Some(q) => Some(bytes_or_str(q, "qualifier")?),
            None => None,
        };
        let Some(family) = family else {
            if qualifier.is_some() {
                return Err(PyValueError::new_err("qualifier passed without family"));
            }
            return self.cell_list(py);
        };
        let in_family: Vec<&Py<Cell>> = self
            .cells(py)?
            .iter()
            .filter(|c| c.get().family == family)
            .collect();
        if in_family.is_empty() {
            return Err(PyValueError::new_err(format!(
                "family {family:?} not found in row"
            )));
        }
        let selected: Vec<&Py<Cell>> = match &qualifier {
            None => in_family,
            Some(q) => {
                let column: Vec<_> = in_family
                    .into_iter()
                    .filter(|c| &c.get().qualifier == q)
                    .collect();
                if column.is_empty() {
                    return Err(PyValueError::new_err(format!(
                        "qualifier {:?} not found in family {family:?}",
                        String::from_utf8_lossy(q)
                    )));
                }
                column
            }
        };
        PyList::new(py, selected.into_iter().map(|c| c.clone_ref(py)))
    }

    fn __len__(&self) -> usize {
        self.len
    }

    /// `row[i]` and `row[a:b]` index the cells; `row["cf"]` is `get_cells("cf")` and
    /// `row["cf", q]` is `get_cells("cf", q)`, as Google's `Row`.
    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        index: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if index.is_instance_of::<PyString>() {
            return Ok(self
                .select_cells(py, Some(index.extract()?), None)?
                .into_any());
        }
        if let Ok(pair) = index.cast::<PyTuple>() {
            if pair.len() == 2 && pair.get_item(0)?.is_instance_of::<PyString>() {
                let family: String = pair.get_item(0)?.extract()?;
                let qualifier = pair.get_item(1)?;
                return Ok(self
                    .select_cells(py, Some(family), Some(&qualifier))?
                    .into_any());
            }
        }
        if let Ok(i) = index.extract::<isize>() {
            let len = self.len as isize;
            let i = if i < 0 { i + len } else { i };
            return if (0..len).contains(&i) {
                Ok(self.cells(py)?[i as usize]
                    .clone_ref(py)
                    .into_bound(py)
                    .into_any())
            } else {
                Err(PyIndexError::new_err("cell index out of range"))
            };
        }
        if index.is_instance_of::<pyo3::types::PySlice>() {
            return self.cell_list(py)?.as_any().get_item(index);
        }
        Err(PyTypeError::new_err(
            "Index must be family_id, (family_id, qualifier), int, or slice",
        ))
    }

    /// `"cf" in row` (a family with cells here), `("cf", q) in row` (a column with cells
    /// here) and `cell in row`, as Google's `Row`.
    fn __contains__(&self, item: &Bound<'_, PyAny>) -> PyResult<bool> {
        let cells = self.cells(item.py())?;
        if item.is_instance_of::<PyString>() {
            let family: String = item.extract()?;
            return Ok(cells.iter().any(|c| c.get().family == family));
        }
        if let Ok(pair) = item.cast::<PyTuple>() {
            if pair.len() == 2 && pair.get_item(0)?.is_instance_of::<PyString>() {
                let family: String = pair.get_item(0)?.extract()?;
                if let Ok(q) = bytes_or_str(&pair.get_item(1)?, "qualifier") {
                    return Ok(cells
                        .iter()
                        .any(|c| c.get().family == family && c.get().qualifier == q));
                }
            }
        }
        Ok(item
            .cast::<Cell>()
            .is_ok_and(|cell| cells.iter().any(|c| c.get() == cell.get())))
    }

    /// The (family, qualifier) pairs of the row's columns, in the row's order.
    fn _get_column_components<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Vec<(String, Bound<'py, PyBytes>)>> {
        Ok(self
            .columns(py)?
            .into_iter()
            .map(|(f, q, _)| (f.to_string(), PyBytes::new(py, q)))
            .collect())
    }

    /// The proto3 `Row` shape: `{"key": ..., "families": [{"name", "columns": [{"qualifier",
    /// "cells": [cell._to_dict()...]}]}]}`.
    fn _to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let families = PyList::empty(py);
        let mut current: Option<(String, Bound<'py, PyList>)> = None;
        for (family, qualifier, cells) in self.columns(py)? {
            if current.as_ref().is_none_or(|(f, _)| f != family) {
                if let Some((name, columns)) = current.take() {
                    let fam = PyDict::new(py);
                    fam.set_item("name", name)?;
                    fam.set_item("columns", columns)?;
                    families.append(fam)?;
                }
                current = Some((family.to_string(), PyList::empty(py)));
            }
            let column = PyDict::new(py);
            column.set_item("qualifier", PyBytes::new(py, qualifier))?;
            let list = PyList::empty(py);
            for c in cells {
                list.append(c.get()._to_dict(py)?)?;
            }
            column.set_item("cells", list)?;
            if let Some((_, columns)) = &current {
                columns.append(column)?;
            }
        }
        if let Some((name, columns)) = current.take() {
            let fam = PyDict::new(py);
            fam.set_item("name", name)?;
            fam.set_item("columns", columns)?;
            families.append(fam)?;
        }
        let d = PyDict::new(py);
        d.set_item("key", PyBytes::new(py, &self.row_key))?;
        d.set_item("families", families)?;
        Ok(d)
    }

    /// Google's human-readable form: one line per column with its newest cell and how many
    /// more there are.
    fn __str__(&self, py: Python<'_>) -> PyResult<String> {
        let mut out = vec!["{".to_string()];
        for (family, qualifier, cells) in self.columns(py)? {
            let first = cells[0].get().__str__();
            let more = if cells.len() > 1 {
                format!(", (+{} more)", cells.len() - 1)
            } else {
                String::new()
            };
            out.push(format!(
                "  (family={}, qualifier={}): [{first}{more}],",
                py_str_repr(family),
                bytes_repr(qualifier)
            ));
        }
        out.push("}".to_string());
        Ok(out.join("\n"))
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.cell_list(py)?.try_iter()?.into_any())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(o) = other.cast::<Row>() else {
            return Ok(false);
        };
        let o = o.get();
        if o.row_key != self.row_key || o.len != self.len {
            return Ok(false);
        }
        let py = other.py();
        let (mine, theirs) = (self.cells(py)?, o.cells(py)?);
        Ok(theirs.iter().zip(mine).all(|(a, b)| a.get() == b.get()))
    }

    /// Google's form: the key, then one line per column with its cells as `_to_dict` shows
    /// them.
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut lines = vec!["{".to_string()];
        for (family, qualifier, cells) in self.columns(py)? {
            let cells: Vec<String> = cells.iter().map(|c| c.get().dict_repr()).collect();
            lines.push(format!(
                "  ('{family}', {}): [{}],",
                bytes_repr(qualifier),
                cells.join(", ")
            ));
        }
        lines.push("}".to_string());
        Ok(format!(
            "Row(key={}, cells={})",
            bytes_repr(&self.row_key),
            lines.join("\n")
        ))
    }
}

impl Row {
    /// The `Cell` objects, built from the engine's cells on the first call. If building
    /// fails part-way (Python out of memory), the error is raised and the row has no cells
    /// after it.
    fn cells(&self, py: Python<'_>) -> PyResult<&Vec<Py<Cell>>> {
        self.cells.get_or_try_init(py, || {
            let raw = std::mem::take(&mut *self.raw.lock().unwrap_or_else(|e| e.into_inner()));
            raw.into_iter()
                .map(|c| {
                    Py::new(
                        py,
                        Cell {
                            value: c.value,
                            row_key: self.row_key.clone(),
                            family: c.family,
                            qualifier: c.qualifier,
                            timestamp_micros: c.timestamp_micros,
                            labels: c.labels,
                        },
                    )
                })
                .collect()
        })
    }

    /// The row's columns in order: (family, qualifier, its cells). The engine's order keeps
    /// each column's cells adjacent.
    fn columns(&self, py: Python<'_>) -> PyResult<Vec<Column<'_>>> {
        let mut out: Vec<Column<'_>> = Vec::new();
        for c in self.cells(py)? {
            let cell = c.get();
            match out.last_mut() {
                Some((f, q, list)) if *f == cell.family && *q == cell.qualifier.as_slice() => {
                    list.push(c)
                }
                _ => out.push((&cell.family, &cell.qualifier, vec![c])),
            }
        }
        Ok(out)
    }

    /// The cells, as a new list (the row itself is read-only).
    fn cell_list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.cells(py)?.iter().map(|c| c.clone_ref(py)))
    }
}

/// One column of a row: family, qualifier and its cells (newest first).
type Column<'a> = (&'a str, &'a [u8], Vec<&'a Py<Cell>>);

/// Python's `repr` of a `str` (single quotes unless the text holds one), for `Row.__str__`.
/// Python's `repr` of a list of `str`.
fn py_list_repr(items: &[String]) -> String {
    let items: Vec<String> = items.iter().map(|s| py_str_repr(s)).collect();
    format!("[{}]", items.join(", "))
}

impl Cell {
    /// Python's `repr` of this cell's `_to_dict()`.
    fn dict_repr(&self) -> String {
        let labels = if self.labels.is_empty() {
            String::new()
        } else {
            format!(", 'labels': {}", py_list_repr(&self.labels))
        };
        format!(
            "{{'value': {}, 'timestamp_micros': {}{labels}}}",
            bytes_repr(&self.value),
            self.timestamp_micros
        )
    }
}

fn py_str_repr(s: &str) -> String {
    if s.contains('\'') && !s.contains('"') {
        format!("\"{s}\"")
    } else {
        format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
    }
}

/// Converts an engine row (the GIL must be held): one Python object, its cells kept as the
/// engine's until asked for.
pub fn row_to_py(py: Python<'_>, row: sparsetable::Row) -> PyResult<Py<Row>> {
    Py::new(
        py,
        Row {
            row_key: row.key,
            len: row.cells.len(),
            raw: Mutex::new(row.cells),
            cells: PyOnceLock::new(),
        },
    )
}
