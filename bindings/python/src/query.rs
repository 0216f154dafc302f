//! `RowRange` and `ReadRowsQuery`, named and shaped as `google.cloud.bigtable.data`'s.
//!
//! Conversions follow Google's client: an empty or missing key is an unbounded end; a start
//! is inclusive and an end exclusive unless told otherwise; `limit=None` or `0` means no
//! limit. Nothing is validated here (a start after its end, a negative limit): the engine
//! checks the request when it is read and raises `InvalidArgument`.

use std::ops::Bound as KeyBound;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use sparsetable::{ReadRowsRequest, RowFilter as CoreFilter, RowRange as CoreRowRange, RowSet};

use crate::convert::{bytes_or_str, bytes_repr};
use crate::filters::extract_filter;

/// A range of row keys.
#[pyclass(frozen, eq, module = "sparsetable")]
#[derive(Clone, PartialEq, Eq)]
pub struct RowRange {
    start_key: Option<Vec<u8>>,
    end_key: Option<Vec<u8>>,
    start_is_inclusive: bool,
    end_is_inclusive: bool,
}

fn optional_key(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<Vec<u8>>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        // Google's client turns an empty key into "unbounded", as Bigtable does.
        Some(o) => bytes_or_str(o, what).map(|k| Some(k).filter(|k| !k.is_empty())),
    }
}

#[pymethods]
impl RowRange {
    #[new]
    #[pyo3(signature = (start_key = None, end_key = None, start_is_inclusive = None, end_is_inclusive = None))]
    fn new(
        start_key: Option<&Bound<'_, PyAny>>,
        end_key: Option<&Bound<'_, PyAny>>,
        start_is_inclusive: Option<bool>,
        end_is_inclusive: Option<bool>,
    ) -> PyResult<Self> {
        Ok(RowRange {
            start_key: optional_key(start_key, "start_key")?,
            end_key: optional_key(end_key, "end_key")?,
            start_is_inclusive: start_is_inclusive.unwrap_or(true),
            end_is_inclusive: end_is_inclusive.unwrap_or(false),
        })
    }

    /// The start key, or `None` when unbounded.
    #[getter]
    fn start_key<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.start_key.as_deref().map(|k| PyBytes::new(py, k))
    }

    /// The end key, or `None` when unbounded.
    #[getter]
    fn end_key<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.end_key.as_deref().map(|k| PyBytes::new(py, k))
    }

    #[getter]
    fn start_is_inclusive(&self) -> bool {
        self.start_is_inclusive
    }

    #[getter]
    fn end_is_inclusive(&self) -> bool {
        self.end_is_inclusive
    }

    fn __repr__(&self) -> String {
        format!(
            "RowRange(start_key={}, end_key={}, start_is_inclusive={}, end_is_inclusive={})",
            self.start_key
                .as_deref()
                .map_or("None".to_string(), bytes_repr),
            self.end_key
                .as_deref()
                .map_or("None".to_string(), bytes_repr),
            py_bool(self.start_is_inclusive),
            py_bool(self.end_is_inclusive)
        )
    }
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

impl RowRange {
    /// A core range as the Python object (a change stream's partitions and pieces).
    pub(crate) fn from_core(r: &CoreRowRange) -> Self {
        let (start_key, start_is_inclusive) = match &r.start {
            KeyBound::Included(k) => (Some(k.clone()), true),
            KeyBound::Excluded(k) => (Some(k.clone()), false),
            KeyBound::Unbounded => (None, true),
        };
        let (end_key, end_is_inclusive) = match &r.end {
            KeyBound::Included(k) => (Some(k.clone()), true),
            KeyBound::Excluded(k) => (Some(k.clone()), false),
            KeyBound::Unbounded => (None, false),
        };
        RowRange {
            start_key,
            end_key,
            start_is_inclusive,
            end_is_inclusive,
        }
    }

    /// The core range; the core applies the wire rule (an empty key is unbounded).
    pub(crate) fn to_core(&self) -> CoreRowRange {
        let bound = |key: &Option<Vec<u8>>, inclusive: bool| match key {
            None => KeyBound::Unbounded,
            Some(k) if inclusive => KeyBound::Included(k.clone()),
            Some(k) => KeyBound::Excluded(k.clone()),
        };
        CoreRowRange::from_wire_bounds(
            bound(&self.start_key, self.start_is_inclusive),
            bound(&self.end_key, self.end_is_inclusive),
        )
    }
}

/// Which rows to read: keys, ranges (both empty = the whole table), a limit, a filter and
/// the direction (`reversed=True` reads from the last key down, as the Data API's
/// `ReadRowsRequest.reversed`; the limit then keeps the last rows). Subclassable: `sparsetable.data.ReadRowsQuery` adds Google's `shard` in Python.
#[pyclass(subclass, module = "sparsetable")]
pub struct ReadRowsQuery {
    row_keys: Vec<Vec<u8>>,
    row_ranges: Vec<RowRange>,
    limit: i64,
    reversed: bool,
    /// The filter object as given (returned by the `filter` property) and its core form.
    filter: Option<(Py<PyAny>, CoreFilter)>,
}

#[pymethods]
impl ReadRowsQuery {
    /// `row_keys` and `row_ranges` take one item or a list, as Google's client.
    /// `reversed` is keyword-only: Google's Python client has no such argument (its Java and
    /// Go clients do), so code that passes it is ours alone.
    #[new]
    #[pyo3(signature = (row_keys = None, row_ranges = None, limit = None, row_filter = None, *, reversed = false))]
    fn new(
        row_keys: Option<&Bound<'_, PyAny>>,
        row_ranges: Option<&Bound<'_, PyAny>>,
        limit: Option<i64>,
        row_filter: Option<&Bound<'_, PyAny>>,
        reversed: bool,
    ) -> PyResult<Self> {
        let mut query = ReadRowsQuery {
            row_keys: Vec::new(),
            row_ranges: Vec::new(),
            limit: limit.unwrap_or(0),
            reversed,
            filter: None,
        };
        query.set_filter(row_filter)?;
        if let Some(keys) = row_keys.filter(|k| !k.is_none()) {
            match keys.cast::<PyList>() {
                Ok(list) => list.iter().try_for_each(|k| query.add_key(&k))?,
                Err(_) => query.add_key(keys)?,
            }
        }
        if let Some(ranges) = row_ranges.filter(|r| !r.is_none()) {
            match ranges.cast::<PyList>() {
                Ok(list) => list.iter().try_for_each(|r| query.add_range(&r))?,
                Err(_) => query.add_range(ranges)?,
            }
        }
        Ok(query)
    }

    /// Adds one row key (`bytes | str`).
    fn add_key(&mut self, row_key: &Bound<'_, PyAny>) -> PyResult<()> {
        self.row_keys.push(bytes_or_str(row_key, "row_key")?);
        Ok(())
    }

    /// Adds one `RowRange`.
    fn add_range(&mut self, row_range: &Bound<'_, PyAny>) -> PyResult<()> {
        let range = row_range
            .cast::<RowRange>()
            .map_err(|_| PyTypeError::new_err("row_ranges must hold RowRange objects"))?;
        self.row_ranges.push(range.get().clone());
        Ok(())
    }

    #[getter]
    fn row_keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.row_keys.iter().map(|k| PyBytes::new(py, k)))
    }

    #[getter]
    fn row_ranges(&self) -> Vec<RowRange> {
        self.row_ranges.clone()
    }

    /// The row limit; `None` means no limit (0 is stored as no limit too).
    #[getter]
    fn get_limit(&self) -> Option<i64> {
        (self.limit != 0).then_some(self.limit)
    }

    #[setter]
    fn set_limit(&mut self, limit: Option<i64>) {
        self.limit = limit.unwrap_or(0);
    }

    /// Whether rows come from the last key down.
    #[getter]
    fn get_reversed(&self) -> bool {
        self.reversed
    }

    #[setter]
    fn set_reversed(&mut self, reversed: bool) {
        self.reversed = reversed;
    }

    /// The `RowFilter` applied to each row, or `None`.
    #[getter]
    fn get_filter(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.filter.as_ref().map(|(obj, _)| obj.clone_ref(py))
    }

    #[setter]
    fn set_filter(&mut self, row_filter: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        self.filter = match extract_filter(row_filter)? {
            Some(core) => row_filter.map(|obj| (obj.clone().unbind(), core)),
            None => None,
        };
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!(
            "ReadRowsQuery(row_keys=[{}], row_ranges=[{}], limit={}{})",
            self.row_keys
                .iter()
                .map(|k| bytes_repr(k))
                .collect::<Vec<_>>()
                .join(", "),
            self.row_ranges
                .iter()
                .map(RowRange::__repr__)
                .collect::<Vec<_>>()
                .join(", "),
            self.get_limit()
                .map_or("None".to_string(), |l| l.to_string()),
            if self.reversed { ", reversed=True" } else { "" }
        )
    }
}

impl ReadRowsQuery {
    /// The engine request this query stands for.
    pub fn to_request(&self) -> ReadRowsRequest {
        ReadRowsRequest {
            row_set: RowSet {
                row_keys: self.row_keys.clone(),
                row_ranges: self.row_ranges.iter().map(RowRange::to_core).collect(),
            },
            rows_limit: self.limit,
            reversed: self.reversed,
            filter: self
                .filter
                .as_ref()
                .map(|(_, f)| f.clone())
                .unwrap_or_default(),
        }
    }
}
