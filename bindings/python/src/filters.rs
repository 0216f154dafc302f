//! Row filter classes named as `google.cloud.bigtable.data.row_filters`, all subclasses of
//! `RowFilter`, and the conversion of `row_filter` / `predicate` arguments.
//!
//! Invariant: the base class holds the core `RowFilter`, so a filter tree is converted once,
//! when it is built. Nothing is validated here (regexes, limits, nesting, sink placement):
//! the engine compiles the filter at read time and raises `InvalidArgument`. The one
//! exception is a boolean filter built with `False` (Cloud Bigtable rejects it too): the
//! core has no "false" variant to carry it, so the constructor raises `InvalidArgument`.
//! And size: each object records its tree's levels and filter count, and a chain, union or
//! condition refuses (`InvalidArgument`) to exceed [`sparsetable::limits::MAX_FILTER_DEPTH`] (the core's message)
//! or [`sparsetable::limits::MAX_FILTER_NODES`] before it copies its members. Without that, a filter nested
//! 100,000 deep is copied level by level (quadratic time, and recursion deep enough to
//! overflow the native stack when it is cloned, printed or dropped), and a list holding one
//! filter 1,000 times at each of 20 levels expands into 1000^20 filters.

use std::ops::Bound as KeyBound;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyList};
use sparsetable::limits::FILTER_TREE;
use sparsetable::RowFilter as CoreFilter;

use crate::convert::bytes_or_str;
use crate::errors::{invalid_argument, to_py_err};

/// Base class of every row filter.
#[pyclass(subclass, frozen, module = "sparsetable")]
pub struct RowFilter {
    pub(crate) inner: CoreFilter,
    /// `inner`'s levels (a leaf is 1) and number of filters, within the limits.
    size: Size,
}

/// A filter tree's levels and filter count.
#[derive(Clone, Copy, Debug)]
struct Size {
    depth: usize,
    nodes: usize,
}

impl Size {
    const LEAF: Size = Size { depth: 1, nodes: 1 };

    /// The size of a filter whose members have `members`' sizes, refused past the limits.
    fn of(py: Python<'_>, members: impl IntoIterator<Item = Size>) -> PyResult<Size> {
        let mut size = Size::LEAF;
        for m in members {
            size.depth = size.depth.max(m.depth + 1);
            size.nodes = size.nodes.saturating_add(m.nodes);
            // The core's limits and words (limits::FILTER_TREE).
            FILTER_TREE
                .check(size.depth, size.nodes)
                .map_err(|e| to_py_err(py, e))?;
        }
        Ok(size)
    }
}

#[pymethods]
impl RowFilter {
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<RowFilter>()
            .is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __repr__(&self) -> String {
        format!("{:?}", self.inner)
    }
}

fn init<T: pyo3::PyClass<BaseType = RowFilter>>(
    inner: CoreFilter,
    sub: T,
) -> PyClassInitializer<T> {
    PyClassInitializer::from(RowFilter {
        inner,
        size: Size::LEAF,
    })
    .add_subclass(sub)
}

/// A chain, union or condition: its size was checked from its members' before they were
/// copied into `inner`.
fn init_compound<T: pyo3::PyClass<BaseType = RowFilter>>(
    inner: CoreFilter,
    size: Size,
    sub: T,
) -> PyClassInitializer<T> {
    PyClassInitializer::from(RowFilter { inner, size }).add_subclass(sub)
}

/// The member objects of a chain or union as a new list.
fn members_list<'py>(py: Python<'py>, members: &[Py<RowFilter>]) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, members.iter().map(|m| m.clone_ref(py)))
}

/// A member argument as the object holding it (`None` stays `None`).
fn member<'py>(obj: Option<&Bound<'py, PyAny>>) -> PyResult<Option<Bound<'py, RowFilter>>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => o
            .cast::<RowFilter>()
            .map(|f| Some(f.clone()))
            .map_err(|_| PyTypeError::new_err("a row filter must be a RowFilter or None")),
    }
}

fn size_of(member: &Option<Bound<'_, RowFilter>>) -> Size {
    member.as_ref().map_or(Size::LEAF, |f| f.get().size)
}

fn copy(member: &Option<Bound<'_, RowFilter>>) -> Option<CoreFilter> {
    member.as_ref().map(|f| f.get().inner.clone())
}

/// A `RowFilter` or `None` (no filter) as the core filter; `None` keeps every cell.
pub fn extract_filter(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<CoreFilter>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => o
            .cast::<RowFilter>()
            .map(|f| Some(f.get().inner.clone()))
            .map_err(|_| PyTypeError::new_err("a row filter must be a RowFilter or None")),
    }
}

/// A list of filters (or `None`, no filters): the members and the size of a filter holding
/// them, refused past the limits before any member is copied.
/// The members of a chain or union: the core filters, the tree's size, and the Python
/// objects as given (kept for Google's sequence protocol: `len`, `[i]`, `in`, iteration).
type Members = (Vec<CoreFilter>, Size, Vec<Py<RowFilter>>);

fn extract_filters(py: Python<'_>, filters: Option<&Bound<'_, PyAny>>) -> PyResult<Members> {
    let Some(filters) = filters.filter(|f| !f.is_none()) else {
        return Ok((Vec::new(), Size::LEAF, Vec::new()));
    };
    let list = filters
        .cast::<PyList>()
        .map_err(|_| PyTypeError::new_err("filters must be a list of RowFilter"))?;
    let members = list
        .iter()
        .map(|f| member(Some(&f)))
        .collect::<PyResult<Vec<_>>>()?;
    let size = Size::of(py, members.iter().map(size_of))?;
    let filters = members
        .iter()
        .map(|m| copy(m).unwrap_or_default())
        .collect();
    let objects = members.into_iter().flatten().map(Bound::unbind).collect();
    Ok((filters, size, objects))
}

fn flag(py: Python<'_>, flag: bool, what: &str, inner: CoreFilter) -> PyResult<CoreFilter> {
    if flag {
        Ok(inner)
    } else {
        Err(invalid_argument(
            py,
            format!("{what}: the flag must be True"),
        ))
    }
}

fn bound(key: Option<Vec<u8>>, inclusive: Option<bool>) -> KeyBound<Vec<u8>> {
    match key {
        None => KeyBound::Unbounded,
        Some(k) if inclusive.unwrap_or(true) => KeyBound::Included(k),
        Some(k) => KeyBound::Excluded(k),
    }
}

fn optional_bytes(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<Vec<u8>>> {
    match obj.filter(|o| !o.is_none()) {
        None => Ok(None),
        // Google's ValueRangeFilter turns an int into 8 big-endian signed bytes.
        Some(o) if o.is_instance_of::<PyInt>() => {
            Ok(Some(o.extract::<i64>()?.to_be_bytes().to_vec()))
        }
        Some(o) => bytes_or_str(o, what).map(Some),
    }
}

macro_rules! flag_filter {
    ($name:ident, $variant:expr, $doc:literal) => {
        #[doc = $doc]
        #[pyclass(extends = RowFilter, frozen, module = "sparsetable")]
        pub struct $name {}

        #[pymethods]
        impl $name {
            #[new]
            fn new(py: Python<'_>, flag: bool) -> PyResult<PyClassInitializer<Self>> {
                Ok(init(
                    self::flag(py, flag, stringify!($name), $variant)?,
                    $name {},
                ))
            }
        }
    };
}

flag_filter!(PassAllFilter, CoreFilter::PassAll, "Every cell.");
flag_filter!(BlockAllFilter, CoreFilter::BlockAll, "No cell.");
flag_filter!(
    SinkFilter,
    CoreFilter::Sink,
    "Sends the cells reaching it straight to the output."
);
flag_filter!(
    StripValueTransformerFilter,
    CoreFilter::StripValue,
    "Replaces every value with b''."
);

macro_rules! bytes_regex_filter {
    ($name:ident, $variant:ident, $doc:literal) => {
        #[doc = $doc]
        #[pyclass(extends = RowFilter, frozen, module = "sparsetable")]
        pub struct $name {}

        #[pymethods]
        impl $name {
            #[new]
            fn new(regex: &Bound<'_, PyAny>) -> PyResult<PyClassInitializer<Self>> {
                Ok(init(
                    CoreFilter::$variant(bytes_or_str(regex, "regex")?),
                    $name {},
                ))
            }
        }
    };
}

bytes_regex_filter!(
    RowKeyRegexFilter,
    RowKeyRegex,
    "The whole row if its key fully matches the RE2 regex."
);
bytes_regex_filter!(
    ColumnQualifierRegexFilter,
    ColumnQualifierRegex,
    "Cells whose qualifier fully matches the regex."
);
bytes_regex_filter!(
    ValueRegexFilter,
    ValueRegex,
    "Cells whose value fully matches the regex."
);

/// Cells whose value is exactly `value` (`bytes`, `str` as UTF-8, or `int` as 8 big-endian
/// signed bytes), as Google's `LiteralValueFilter`: a value regex that quotes every byte RE2
/// could read as syntax.
#[pyclass(extends = RowFilter, frozen, module = "sparsetable")]
pub struct LiteralValueFilter {}

#[pymethods]
impl LiteralValueFilter {
    #[new]
    fn new(value: &Bound<'_, PyAny>) -> PyResult<PyClassInitializer<Self>> {
        let bytes = if value.is_instance_of::<PyInt>() {
            let n: i64 = value.extract().map_err(|_| {
                invalid_argument(
                    value.py(),
                    "value: an int must fit in a signed 64-bit integer",
                )
            })?;
            n.to_be_bytes().to_vec()
        } else {
            bytes_or_str(value, "value")?
        };
        Ok(init(
            CoreFilter::ValueRegex(quote_regex(&bytes)),
            LiteralValueFilter {},
        ))
    }
}

/// `bytes` as an RE2 regex matching exactly them: ASCII bytes other than `[A-Za-z0-9_]` get a
/// backslash (NUL becomes `\x00`, which RE2 has no escape-by-backslash for); bytes >= 0x80
/// are copied, as RE2's `QuoteMeta` does for UTF-8 and Latin-1 text.
fn quote_regex(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() * 2);
    for &b in bytes {
        match b {
            0 => out.extend_from_slice(b"\\x00"),
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | 0x80..=0xff => out.push(b),
            _ => {
                out.push(b'\\');
                out.push(b);
            }
        }
    }
    out
}

/// Cells whose family name fully matches the regex.
#[pyclass(extends = RowFilter, frozen, module = "sparsetable")]
pub struct FamilyNameRegexFilter {}

#[pymethods]
impl FamilyNameRegexFilter {
    #[new]
    fn new(py: Python<'_>, regex: &Bound<'_, PyAny>) -> PyResult<PyClassInitializer<Self>> {
        let regex = String::from_utf8(bytes_or_str(regex, "regex")?).map_err(|_| {
            invalid_argument(py, "family_name_regex_filter: the regex must be UTF-8")
        })?;
        Ok(init(
            CoreFilter::FamilyNameRegex(regex),
            FamilyNameRegexFilter {},
        ))
    }
}

/// The whole row with probability `sample` (0 < sample < 1).
#[pyclass(extends = RowFilter, frozen, module = "sparsetable")]
pub struct RowSampleFilter {}

#[pymethods]
impl RowSampleFilter {
    #[new]
    fn new(sample: f64) -> PyClassInitializer<Self> {
        init(CoreFilter::RowSample(sample), RowSampleFilter {})
    }
}

/// Cells with `start <= timestamp < end`, in microseconds (an `int`) or as `datetime`s
/// (converted as Google's client does: start rounded down, end rounded up to a millisecond).
/// The classic client's shape, one `TimestampRange` (anything with `.start` and `.end`)
/// positionally or as `range_`, is the same filter.
#[pyclass(extends = RowFilter, frozen, module = "sparsetable")]
pub struct TimestampRangeFilter {}

#[pymethods]
impl TimestampRangeFilter {
    #[new]
    #[pyo3(signature = (start = None, end = None, *, range_ = None))]
    fn new(
        start: Option<&Bound<'_, PyAny>>,
        end: Option<&Bound<'_, PyAny>>,
        range_: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let range_ = match (range_.filter(|r| !r.is_none()), start) {
            (Some(r), _) => Some(r.clone()),
            (None, Some(s)) if end.is_none_or(|e| e.is_none()) && is_time_range(s)? => {
                Some(s.clone())
            }
            _ => None,
        };
        let (start_owned, end_owned);
        let (start, end) = match &range_ {
            Some(r) => {
                if start.is_some_and(|s| !s.is(r)) || end.is_some_and(|e| !e.is_none()) {
                    return Err(PyTypeError::new_err(
                        "give either range_ or start/end, not both",
                    ));
                }
                start_owned = r.getattr("start")?;
                end_owned = r.getattr("end")?;
                (Some(&start_owned), Some(&end_owned))
            }
            None => (start, end),
        };
        let start_micros = match start.filter(|s| !s.is_none()) {
            None => 0,
            Some(s) => time_micros(s, false)?,
        };
        let end_micros = match end.filter(|e| !e.is_none()) {
            None => 0,
            Some(e) => time_micros(e, true)?,
        };
        Ok(init(
            CoreFilter::TimestampRange {
                start_micros,
                end_micros,
            },
            TimestampRangeFilter {},
        ))
    }
}

/// An argument Google's two clients spell differently: the one given (refusing both).
fn one_of<T>(
    name: &str,
    value: Option<T>,
    alias: &str,
    alias_value: Option<T>,
) -> PyResult<Option<T>> {
    match (value, alias_value) {
        (Some(_), Some(_)) => Err(PyTypeError::new_err(format!(
            "give {name} or {alias}, not both"
        ))),
        (value, alias_value) => Ok(value.or(alias_value)),
    }
}

/// Whether `obj` is a time range object (`.start` and `.end`), not a time itself.
fn is_time_range(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(!obj.is_instance_of::<PyInt>() && obj.hasattr("start")? && obj.hasattr("end")?)
}

/// `time_micros` for the Python layer (the classic client's `set_cell` timestamps and
/// `delete_cells` time ranges), so datetimes are converted in one place.
#[pyfunction]
#[pyo3(signature = (time, round_up = false))]
fn _time_micros(time: &Bound<'_, PyAny>, round_up: bool) -> PyResult<i64> {
    time_micros(time, round_up)
}

/// An `int` as microseconds, or a `datetime` (naive = UTC) as microseconds since the epoch
/// rounded to a millisecond (down for a start, up for an end), as Google's client sends it.
fn time_micros(obj: &Bound<'_, PyAny>, round_up: bool) -> PyResult<i64> {
    if obj.is_instance_of::<PyInt>() {
        return obj.extract();
    }
    let py = obj.py();
    let datetime = py.import("datetime")?;
    if !obj.is_instance(&datetime.getattr("datetime")?)? {
        return Err(PyTypeError::new_err(
            "a timestamp must be an int (microseconds) or a datetime",
        ));
    }
    let utc = datetime.getattr("timezone")?.getattr("utc")?;
    let aware = if obj.getattr("tzinfo")?.is_none() {
        let kwargs = pyo3::types::PyDict::new(py);
        kwargs.set_item("tzinfo", &utc)?;
        obj.call_method("replace", (), Some(&kwargs))?
    } else {
        obj.clone()
    };
    let epoch = datetime
        .getattr("datetime")?
        .call1((1970, 1, 1, 0, 0, 0, 0, utc))?;
    let delta = aware.call_method1("__sub__", (epoch,))?;
    let days: i64 = delta.getattr("days")?.extract()?;
    let seconds: i64 = delta.getattr("seconds")?.extract()?;
    let micros: i64 = delta.getattr("microseconds")?.extract()?;
    let total = days * 86_400_000_000 + seconds * 1_000_000 + micros;
    let floored = total.div_euclid(1000) * 1000;
    Ok(if round_up && floored != total {
        floored + 1000
    } else {
        floored
    })
}

/// Cells of one family whose qualifier lies in a range (both ends inclusive by default).
#[pyclass(extends = RowFilter, frozen, module = "sparsetable")]
pub struct ColumnRangeFilter {}

#[pymethods]
impl ColumnRangeFilter {
    #[new]
    #[pyo3(signature = (
        family_id = None, start_qualifier = None, end_qualifier = None, inclusive_start = None,
        inclusive_end = None, *, column_family_id = None, start_column = None, end_column = None
    ))]
    #[allow(clippy::too_many_arguments)] // Google's two spellings of each argument
    fn new(
        family_id: Option<String>,
        start_qualifier: Option<&Bound<'_, PyAny>>,
        end_qualifier: Option<&Bound<'_, PyAny>>,
        inclusive_start: Option<bool>,
        inclusive_end: Option<bool>,
        column_family_id: Option<String>,
        start_column: Option<&Bound<'_, PyAny>>,
        end_column: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyClassInitializer<Self>> {
        // The classic client's names (column_family_id, start_column, end_column) are the
        // same arguments.
        let family = one_of("family_id", family_id, "column_family_id", column_family_id)?
            .ok_or_else(|| PyTypeError::new_err("ColumnRangeFilter needs a family_id"))?;
        let start_qualifier = one_of(
            "start_qualifier",
            start_qualifier,
            "start_column",
            start_column,
        )?;
        let end_qualifier = one_of("end_qualifier", end_qualifier, "end_column", end_column)?;
        let start = optional_bytes(start_qualifier, "start_qualifier")?;
        let end = optional_bytes(end_qualifier, "end_qualifier")?;
        Ok(init(
            CoreFilter::ColumnRange {
                family,
                start: bound(start, inclusive_start),
                end: bound(end, inclusive_end),
            },
            ColumnRangeFilter {},
        ))
    }
}

/// Cells whose value lies in a byte-wise range (both ends inclusive by default).
#[pyclass(extends = RowFilter, frozen, module = "sparsetable")]
pub struct ValueRangeFilter {}

#[pymethods]
impl ValueRangeFilter {
    #[new]
    #[pyo3(signature = (start_value = None, end_value = None, inclusive_start = None, inclusive_end = None))]
    fn new(
        start_value: Option<&Bound<'_, PyAny>>,
        end_value: Option<&Bound<'_, PyAny>>,
        inclusive_start: Option<bool>,
        inclusive_end: Option<bool>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let start = optional_bytes(start_value, "start_value")?;
        let end = optional_bytes(end_value, "end_value")?;
        Ok(init(
            CoreFilter::ValueRange {
                start: bound(start, inclusive_start),
                end: bound(end, inclusive_end),
            },
            ValueRangeFilter {},
        ))
    }
}

/// Cells whose value `v` has `v & mask == mask`.
#[pyclass(extends = RowFilter, frozen, module = "sparsetable")]
pub struct ValueBitmaskFilter {}

#[pymethods]
impl ValueBitmaskFilter {
    #[new]
    fn new(mask: &Bound<'_, PyAny>) -> PyResult<PyClassInitializer<Self>> {
        Ok(init(
            CoreFilter::ValueBitmask(bytes_or_str(mask, "mask")?),
            ValueBitmaskFilter {},
        ))
    }
}

macro_rules! count_filter {
    ($name:ident, $variant:ident, $doc:literal) => {
        #[doc = $doc]
        #[pyclass(extends = RowFilter, frozen, module = "sparsetable")]
        pub struct $name {}

        #[pymethods]
        impl $name {
            #[new]
            fn new(py: Python<'_>, num_cells: i64) -> PyResult<PyClassInitializer<Self>> {
                let n = i32::try_from(num_cells).map_err(|_| {
                    invalid_argument(
                        py,
                        format!(
                            "{}: num_cells {num_cells} is out of range",
                            stringify!($name)
                        ),
                    )
                })?;
                Ok(init(CoreFilter::$variant(n), $name {}))
            }
        }
    };
}

count_filter!(
    CellsRowOffsetFilter,
    CellsPerRowOffset,
    "Skips the first num_cells cells of each row."
);
count_filter!(
    CellsRowLimitFilter,
    CellsPerRowLimit,
    "Keeps the first num_cells cells of each row."
);
count_filter!(
    CellsColumnLimitFilter,
    CellsPerColumnLimit,
    "Keeps the newest num_cells cells of each column."
);

/// Attaches a label to every cell.
#[pyclass(extends = RowFilter, frozen, module = "sparsetable")]
pub struct ApplyLabelFilter {}

#[pymethods]
impl ApplyLabelFilter {
    #[new]
    fn new(label: String) -> PyClassInitializer<Self> {
        init(CoreFilter::ApplyLabel(label), ApplyLabelFilter {})
    }
}

/// Each filter's output feeds the next (Bigtable's `chain`).
#[pyclass(extends = RowFilter, frozen, module = "sparsetable")]
pub struct RowFilterChain {
    filters: Vec<Py<RowFilter>>,
}

#[pymethods]
impl RowFilterChain {
    #[new]
    #[pyo3(signature = (filters = None))]
    fn new(
        py: Python<'_>,
        filters: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let (members, size, filters) = extract_filters(py, filters)?;
        Ok(init_compound(
            CoreFilter::Chain(members),
            size,
            RowFilterChain { filters },
        ))
    }

    /// The member filters, as given (a new list).
    #[getter]
    fn filters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        members_list(py, &self.filters)
    }

    fn __len__(&self) -> usize {
        self.filters.len()
    }

    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        index: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        members_list(py, &self.filters)?.as_any().get_item(index)
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(members_list(py, &self.filters)?.try_iter()?.into_any())
    }

    fn __contains__(&self, py: Python<'_>, item: &Bound<'_, PyAny>) -> PyResult<bool> {
        members_list(py, &self.filters)?.contains(item)
    }

    /// How many members equal `value` (Google's `Sequence.count`).
    fn count(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<usize> {
        members_list(py, &self.filters)?
            .call_method1("count", (value,))?
            .extract()
    }

    /// The position of the first member equal to `value` within `[start, stop)`
    /// (`ValueError` if none), as `Sequence.index`.
    #[pyo3(signature = (value, start = 0, stop = None))]
    fn index(
        &self,
        py: Python<'_>,
        value: &Bound<'_, PyAny>,
        start: isize,
        stop: Option<isize>,
    ) -> PyResult<usize> {
        let list = members_list(py, &self.filters)?;
        let stop = stop.unwrap_or(isize::MAX);
        list.call_method1("index", (value, start, stop))?.extract()
    }
}

/// Every filter sees the row; outputs merged (Bigtable's `interleave`).
#[pyclass(extends = RowFilter, frozen, module = "sparsetable")]
pub struct RowFilterUnion {
    filters: Vec<Py<RowFilter>>,
}

#[pymethods]
impl RowFilterUnion {
    #[new]
    #[pyo3(signature = (filters = None))]
    fn new(
        py: Python<'_>,
        filters: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let (members, size, filters) = extract_filters(py, filters)?;
        Ok(init_compound(
            CoreFilter::Interleave(members),
            size,
            RowFilterUnion { filters },
        ))
    }

    /// The member filters, as given (a new list).
    #[getter]
    fn filters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        members_list(py, &self.filters)
    }

    fn __len__(&self) -> usize {
        self.filters.len()
    }

    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        index: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        members_list(py, &self.filters)?.as_any().get_item(index)
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(members_list(py, &self.filters)?.try_iter()?.into_any())
    }

    fn __contains__(&self, py: Python<'_>, item: &Bound<'_, PyAny>) -> PyResult<bool> {
        members_list(py, &self.filters)?.contains(item)
    }

    /// How many members equal `value` (Google's `Sequence.count`).
    fn count(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<usize> {
        members_list(py, &self.filters)?
            .call_method1("count", (value,))?
            .extract()
    }

    /// The position of the first member equal to `value` within `[start, stop)`
    /// (`ValueError` if none), as `Sequence.index`.
    #[pyo3(signature = (value, start = 0, stop = None))]
    fn index(
        &self,
        py: Python<'_>,
        value: &Bound<'_, PyAny>,
        start: isize,
        stop: Option<isize>,
    ) -> PyResult<usize> {
        let list = members_list(py, &self.filters)?;
        let stop = stop.unwrap_or(isize::MAX);
        list.call_method1("index", (value, start, stop))?.extract()
    }
}

/// `true_filter` if `predicate_filter` yields any cell, else `false_filter`.
#[pyclass(extends = RowFilter, frozen, module = "sparsetable")]
pub struct ConditionalRowFilter {}

#[pymethods]
impl ConditionalRowFilter {
    #[new]
    #[pyo3(signature = (predicate_filter = None, true_filter = None, false_filter = None, *, base_filter = None))]
    fn new(
        predicate_filter: Option<&Bound<'_, PyAny>>,
        true_filter: Option<&Bound<'_, PyAny>>,
        false_filter: Option<&Bound<'_, PyAny>>,
        base_filter: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyClassInitializer<Self>> {
        // `base_filter` is the classic client's name for the predicate.
        let predicate_filter = one_of(
            "predicate_filter",
            predicate_filter,
            "base_filter",
            base_filter,
        )?
        .ok_or_else(|| PyTypeError::new_err("predicate_filter must be a RowFilter"))?;
        let predicate = member(Some(predicate_filter))?
            .ok_or_else(|| PyTypeError::new_err("predicate_filter must be a RowFilter"))?;
        let true_filter = member(true_filter)?;
        let false_filter = member(false_filter)?;
        let size = Size::of(
            predicate_filter.py(),
            [predicate.get().size]
                .into_iter()
                .chain(true_filter.as_ref().map(|f| f.get().size))
                .chain(false_filter.as_ref().map(|f| f.get().size)),
        )?;
        Ok(init_compound(
            CoreFilter::Condition {
                predicate: Box::new(predicate.get().inner.clone()),
                true_filter: copy(&true_filter).map(Box::new),
                false_filter: copy(&false_filter).map(Box::new),
            },
            size,
            ConditionalRowFilter {},
        ))
    }
}

/// Adds every filter class to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RowFilter>()?;
    m.add_class::<PassAllFilter>()?;
    m.add_class::<BlockAllFilter>()?;
    m.add_class::<SinkFilter>()?;
    m.add_class::<StripValueTransformerFilter>()?;
    m.add_class::<RowKeyRegexFilter>()?;
    m.add_class::<ColumnQualifierRegexFilter>()?;
    m.add_class::<ValueRegexFilter>()?;
    m.add_class::<LiteralValueFilter>()?;
    m.add_class::<FamilyNameRegexFilter>()?;
    m.add_class::<RowSampleFilter>()?;
    m.add_class::<TimestampRangeFilter>()?;
    m.add_class::<ColumnRangeFilter>()?;
    m.add_class::<ValueRangeFilter>()?;
    m.add_class::<ValueBitmaskFilter>()?;
    m.add_class::<CellsRowOffsetFilter>()?;
    m.add_class::<CellsRowLimitFilter>()?;
    m.add_class::<CellsColumnLimitFilter>()?;
    m.add_class::<ApplyLabelFilter>()?;
    m.add_class::<RowFilterChain>()?;
    m.add_class::<RowFilterUnion>()?;
    m.add_class::<ConditionalRowFilter>()?;
    m.add_function(wrap_pyfunction!(_time_micros, m)?)?;
    Ok(())
}
