//! `Row` and `Cell` as returned by reads, with `google.cloud.bigtable.data.row`'s attribute
//! names (`row_key`, `cells`; `value`, `row_key`, `family`, `qualifier`, `timestamp_micros`,
//! `labels`).
//!
//! Invariant: the cells keep the engine's Bigtable order (families in creation order,
//! qualifiers ascending, newest first); nothing here reorders or filters them except `get_cells`, which
//! selects as Google's `Row.get_cells` does.

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::convert::{bytes_or_str, bytes_repr};

/// One timestamped value of one column.
#[pyclass(frozen, eq, hash, module = "sparsetable")]
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

    fn __repr__(&self) -> String {
        format!(
            "Cell(family={:?}, qualifier={}, timestamp_micros={}, value={}, labels={:?})",
            self.family,
            bytes_repr(&self.qualifier),
            self.timestamp_micros,
            bytes_repr(&self.value),
            self.labels
        )
    }
}

/// A row as returned by a read: its key and its cells in Bigtable order.
#[pyclass(frozen, module = "sparsetable")]
pub struct Row {
    row_key: Vec<u8>,
    /// A field getter, because a `#[getter] fn cells` would clash in pyo3's generated names
    /// with the `get_cells` method. Each access returns a new list.
    #[pyo3(get)]
    cells: Vec<Py<Cell>>,
}

#[pymethods]
impl Row {
    #[getter]
    fn row_key<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.row_key)
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
            .cells
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
        self.cells.len()
    }

    fn __getitem__(&self, py: Python<'_>, index: isize) -> PyResult<Py<Cell>> {
        let len = self.cells.len() as isize;
        let i = if index < 0 { index + len } else { index };
        if (0..len).contains(&i) {
            Ok(self.cells[i as usize].clone_ref(py))
        } else {
            Err(PyIndexError::new_err("cell index out of range"))
        }
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.cell_list(py)?.try_iter()?.into_any())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Row>().is_ok_and(|o| {
            let o = o.get();
            o.row_key == self.row_key
                && o.cells.len() == self.cells.len()
                && o.cells
                    .iter()
                    .zip(&self.cells)
                    .all(|(a, b)| a.get() == b.get())
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "Row(row_key={}, cells=[{}])",
            bytes_repr(&self.row_key),
            self.cells
                .iter()
                .map(|c| c.get().__repr__())
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

impl Row {
    /// The cells, as a new list (the row itself is read-only).
    fn cell_list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.cells.iter().map(|c| c.clone_ref(py)))
    }
}

/// Converts an engine row (the GIL must be held).
pub fn row_to_py(py: Python<'_>, row: sparsetable::Row) -> PyResult<Py<Row>> {
    let cells = row
        .cells
        .into_iter()
        .map(|c| {
            Py::new(
                py,
                Cell {
                    value: c.value,
                    row_key: row.key.clone(),
                    family: c.family,
                    qualifier: c.qualifier,
                    timestamp_micros: c.timestamp_micros,
                    labels: c.labels,
                },
            )
        })
        .collect::<PyResult<Vec<_>>>()?;
    Py::new(
        py,
        Row {
            row_key: row.key,
            cells,
        },
    )
}
