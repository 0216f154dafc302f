//! Garbage-collection rule classes named as `google.cloud.bigtable.column_family`:
//! `MaxVersionsGCRule`, `MaxAgeGCRule`, `GCRuleUnion`, `GCRuleIntersection`, all subclasses of
//! `GarbageCollectionRule`.
//!
//! Invariant: the base class holds the core `GcRule`; a table's reported families are turned
//! back into these classes by [`gc_rule_to_py`], with "no rule" as `None`. Parameters are not
//! checked here (e.g. `max_num_versions=0`): the engine checks them when the rule reaches a
//! table, and raises `InvalidArgument`. The exception is size: each object also records its
//! rule's levels and rule count, and a union or intersection refuses (`InvalidArgument`, the
//! core's message) to exceed [`sparsetable::limits::MAX_GC_RULE_DEPTH`] or [`sparsetable::limits::MAX_GC_RULE_NODES`] before it copies
//! its members. Without that, a rule nested 100,000 deep would be copied level by level
//! (quadratic time, and recursion deep enough to overflow the native stack when it is cloned,
//! printed or dropped), and a list holding one rule 1,000 times at each of 30 levels would
//! expand into 1000^30 rules.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use sparsetable::limits::GC_RULE_TREE;
use sparsetable::GcRule;

use crate::errors::{invalid_argument, to_py_err};

/// Base class of every GC rule.
#[pyclass(subclass, frozen, module = "sparsetable")]
pub struct GarbageCollectionRule {
    pub(crate) inner: GcRule,
    /// `inner`'s levels (a leaf is 1) and number of rules, within the core's limits.
    depth: usize,
    nodes: usize,
}

impl GarbageCollectionRule {
    /// A rule without members.
    fn leaf(inner: GcRule) -> Self {
        GarbageCollectionRule {
            inner,
            depth: 1,
            nodes: 1,
        }
    }

    /// A rule read back from the engine, which holds only rules within the limits, so the
    /// recursion here is bounded.
    fn of(rule: &GcRule) -> Self {
        fn size(rule: &GcRule) -> (usize, usize) {
            match rule {
                GcRule::Intersection(rules) | GcRule::Union(rules) => {
                    rules.iter().map(size).fold((1, 1), |(d, n), (cd, cn)| {
                        (d.max(cd + 1), n.saturating_add(cn))
                    })
                }
                _ => (1, 1),
            }
        }
        let (depth, nodes) = size(rule);
        GarbageCollectionRule {
            inner: rule.clone(),
            depth,
            nodes,
        }
    }
}

#[pymethods]
impl GarbageCollectionRule {
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<GarbageCollectionRule>()
            .is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __repr__(&self) -> String {
        format!("{:?}", self.inner)
    }
}

/// Keeps the newest `max_num_versions` cells of each column.
#[pyclass(extends = GarbageCollectionRule, frozen, module = "sparsetable")]
pub struct MaxVersionsGCRule {}

#[pymethods]
impl MaxVersionsGCRule {
    #[new]
    fn new(py: Python<'_>, max_num_versions: i64) -> PyResult<PyClassInitializer<Self>> {
        let n = u32::try_from(max_num_versions).map_err(|_| {
            invalid_argument(
                py,
                format!("gc_rule.max_num_versions {max_num_versions} is out of range"),
            )
        })?;
        Ok(
            PyClassInitializer::from(GarbageCollectionRule::leaf(GcRule::MaxNumVersions(n)))
                .add_subclass(MaxVersionsGCRule {}),
        )
    }

    #[getter]
    fn max_num_versions(slf: &Bound<'_, Self>) -> u32 {
        match slf.as_super().get().inner {
            GcRule::MaxNumVersions(n) => n,
            _ => unreachable!("MaxVersionsGCRule always holds MaxNumVersions"),
        }
    }
}

/// Drops cells older than `max_age` (a `datetime.timedelta`, at microsecond precision).
#[pyclass(extends = GarbageCollectionRule, frozen, module = "sparsetable")]
pub struct MaxAgeGCRule {}

#[pymethods]
impl MaxAgeGCRule {
    #[new]
    fn new(max_age: &Bound<'_, PyAny>) -> PyResult<PyClassInitializer<Self>> {
        let (seconds, nanos) = timedelta_to_duration(max_age)?;
        let inner = GcRule::max_age_from_duration(seconds, nanos)
            .map_err(|e| to_py_err(max_age.py(), e))?;
        Ok(PyClassInitializer::from(GarbageCollectionRule::leaf(inner))
            .add_subclass(MaxAgeGCRule {}))
    }

    #[getter]
    fn max_age<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        match slf.as_super().get().inner {
            GcRule::MaxAge { micros } => micros_to_timedelta(slf.py(), micros),
            _ => unreachable!("MaxAgeGCRule always holds MaxAge"),
        }
    }
}

/// Drops a cell if any of `rules` would.
#[pyclass(extends = GarbageCollectionRule, frozen, module = "sparsetable")]
pub struct GCRuleUnion {}

#[pymethods]
impl GCRuleUnion {
    #[new]
    fn new(rules: &Bound<'_, PyAny>) -> PyResult<PyClassInitializer<Self>> {
        Ok(PyClassInitializer::from(list_rule(rules, GcRule::Union)?).add_subclass(GCRuleUnion {}))
    }

    #[getter]
    fn rules<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyList>> {
        match &slf.as_super().get().inner {
            GcRule::Union(rules) => rules_to_py(slf.py(), rules),
            _ => unreachable!("GCRuleUnion always holds Union"),
        }
    }
}

/// Drops a cell only if every one of `rules` would.
#[pyclass(extends = GarbageCollectionRule, frozen, module = "sparsetable")]
pub struct GCRuleIntersection {}

#[pymethods]
impl GCRuleIntersection {
    #[new]
    fn new(rules: &Bound<'_, PyAny>) -> PyResult<PyClassInitializer<Self>> {
        Ok(
            PyClassInitializer::from(list_rule(rules, GcRule::Intersection)?)
                .add_subclass(GCRuleIntersection {}),
        )
    }

    #[getter]
    fn rules<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyList>> {
        match &slf.as_super().get().inner {
            GcRule::Intersection(rules) => rules_to_py(slf.py(), rules),
            _ => unreachable!("GCRuleIntersection always holds Intersection"),
        }
    }
}

/// A union or intersection of `obj`'s rules, refused before anything is copied if it would
/// break the core's depth or size limit.
fn list_rule(
    obj: &Bound<'_, PyAny>,
    make: fn(Vec<GcRule>) -> GcRule,
) -> PyResult<GarbageCollectionRule> {
    let py = obj.py();
    let list = obj
        .cast::<PyList>()
        .map_err(|_| PyTypeError::new_err("rules must be a list of GarbageCollectionRule"))?;
    let members = list
        .iter()
        .map(|r| {
            r.cast_into::<GarbageCollectionRule>()
                .map_err(|_| PyTypeError::new_err("rules must be a list of GarbageCollectionRule"))
        })
        .collect::<PyResult<Vec<_>>>()?;
    let (mut depth, mut nodes): (usize, usize) = (1, 1);
    for member in &members {
        let m = member.get();
        depth = depth.max(m.depth + 1);
        nodes = nodes.saturating_add(m.nodes);
        // The core's limits and words (limits::GC_RULE_TREE).
        GC_RULE_TREE
            .check(depth, nodes)
            .map_err(|e| to_py_err(py, e))?;
    }
    Ok(GarbageCollectionRule {
        inner: make(members.iter().map(|m| m.get().inner.clone()).collect()),
        depth,
        nodes,
    })
}

/// A `GarbageCollectionRule` or `None` (keep everything) as the core rule.
pub fn extract_gc_rule(obj: &Bound<'_, PyAny>) -> PyResult<GcRule> {
    if obj.is_none() {
        return Ok(GcRule::Never);
    }
    obj.cast::<GarbageCollectionRule>()
        .map(|r| r.get().inner.clone())
        .map_err(|_| PyTypeError::new_err("a GC rule must be a GarbageCollectionRule or None"))
}

/// The core rule as the matching class, `None` for "keep everything".
pub fn gc_rule_to_py(py: Python<'_>, rule: &GcRule) -> PyResult<Py<PyAny>> {
    let base = GarbageCollectionRule::of(rule);
    let obj = match rule {
        GcRule::Never => return Ok(py.None()),
        GcRule::MaxNumVersions(_) => Py::new(
            py,
            PyClassInitializer::from(base).add_subclass(MaxVersionsGCRule {}),
        )?
        .into_any(),
        GcRule::MaxAge { .. } => Py::new(
            py,
            PyClassInitializer::from(base).add_subclass(MaxAgeGCRule {}),
        )?
        .into_any(),
        GcRule::Union(_) => Py::new(
            py,
            PyClassInitializer::from(base).add_subclass(GCRuleUnion {}),
        )?
        .into_any(),
        GcRule::Intersection(_) => Py::new(
            py,
            PyClassInitializer::from(base).add_subclass(GCRuleIntersection {}),
        )?
        .into_any(),
    };
    Ok(obj)
}

fn rules_to_py<'py>(py: Python<'py>, rules: &[GcRule]) -> PyResult<Bound<'py, PyList>> {
    let items = rules
        .iter()
        .map(|r| gc_rule_to_py(py, r))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

/// A `datetime.timedelta` as a proto `Duration`'s `(seconds, nanos)`, read from its integer
/// fields, never through a float, so large ages do not lose precision. The core converts
/// and checks it (`GcRule::max_age_from_duration`): a negative timedelta has negative
/// seconds, which the core refuses.
fn timedelta_to_duration(obj: &Bound<'_, PyAny>) -> PyResult<(i64, i32)> {
    let py = obj.py();
    let timedelta = py.import("datetime")?.getattr("timedelta")?;
    if !obj.is_instance(&timedelta)? {
        return Err(PyTypeError::new_err("max_age must be a datetime.timedelta"));
    }
    // |days| <= 999999999 and 0 <= seconds < 86400, so this cannot overflow an i64.
    let days: i64 = obj.getattr("days")?.extract()?;
    let seconds: i64 = obj.getattr("seconds")?.extract()?;
    // 0 <= microseconds < 1e6, so the nanos fit an i32.
    let micros: i32 = obj.getattr("microseconds")?.extract()?;
    Ok((days * 86_400 + seconds, micros * 1000))
}

fn micros_to_timedelta(py: Python<'_>, micros: i64) -> PyResult<Bound<'_, PyAny>> {
    let kwargs = PyDict::new(py);
    kwargs.set_item("microseconds", micros)?;
    py.import("datetime")?
        .getattr("timedelta")?
        .call((), Some(&kwargs))
}
