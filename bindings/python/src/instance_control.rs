//! The control surface of an instance's simulated replication, for Python tests
//! (`client.instance_control(instance_id)`): the instance's clusters and app profiles, cluster
//! outages, the replication lag, injected faults (mid-stream ones too), consistency tokens and the state. Every rule
//! is the core's (`sparsetable::api::instance::InstanceData`, whose module docs and
//! docs/replication.md hold them); this module converts Python values and errors only.
//!
//! App profiles are dicts shaped like Google's admin `AppProfile`:
//! `{"id": ..., "single_cluster_routing": {"cluster_id": ..., "allow_transactional_writes":
//! bool}}`, `{"id": ..., "multi_cluster_routing_use_any": {"cluster_ids": [...],
//! "row_affinity": bool}}`, plus `"data_boost": True` for a Data Boost (read-only) profile.

use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use sparsetable::{AppProfile, Code, FaultRule, InstanceData, Isolation, Routing};

use crate::errors::to_py_err;

/// One instance's replication controls (see the module docs).
#[pyclass(frozen, module = "sparsetable")]
pub struct InstanceControl {
    plane: Arc<InstanceData>,
    instance_id: String,
}

impl InstanceControl {
    /// The controls of `plane`, the data plane of instance `instance_id`.
    pub fn new(plane: Arc<InstanceData>, instance_id: String) -> Self {
        InstanceControl { plane, instance_id }
    }
}

/// A required key of a profile dict.
fn key<'py>(d: &Bound<'py, PyDict>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    d.get_item(name)?
        .ok_or_else(|| PyTypeError::new_err(format!("app profile: {name} is required")))
}

/// A profile dict as the core's `AppProfile`.
fn profile_from_py(p: &Bound<'_, PyAny>) -> PyResult<AppProfile> {
    let d = p
        .cast::<PyDict>()
        .map_err(|_| PyTypeError::new_err("each app profile must be a dict"))?;
    let id: String = key(d, "id")?.extract()?;
    let routing = if let Some(single) = d.get_item("single_cluster_routing")? {
        let single = single
            .cast::<PyDict>()
            .map_err(|_| PyTypeError::new_err("single_cluster_routing must be a dict"))?;
        Routing::SingleCluster {
            cluster_id: key(single, "cluster_id")?.extract()?,
            allow_transactional_writes: single
                .get_item("allow_transactional_writes")?
                .map_or(Ok(false), |v| v.extract())?,
        }
    } else if let Some(multi) = d.get_item("multi_cluster_routing_use_any")? {
        let multi = multi
            .cast::<PyDict>()
            .map_err(|_| PyTypeError::new_err("multi_cluster_routing_use_any must be a dict"))?;
        Routing::MultiCluster {
            cluster_ids: multi
                .get_item("cluster_ids")?
                .map_or(Ok(Vec::new()), |v| v.extract())?,
            row_affinity: multi
                .get_item("row_affinity")?
                .map_or(Ok(false), |v| v.extract())?,
        }
    } else {
        return Err(PyTypeError::new_err(
            "app profile: give single_cluster_routing or multi_cluster_routing_use_any",
        ));
    };
    let data_boost: bool = d
        .get_item("data_boost")?
        .map_or(Ok(false), |v| v.extract())?;
    Ok(AppProfile {
        id,
        routing,
        isolation: if data_boost {
            Isolation::DataBoostReadOnly
        } else {
            Isolation::Standard
        },
    })
}

/// A gRPC code by its canonical name (`"UNAVAILABLE"`), as the core names them.
fn code_from_name(py: Python<'_>, name: &str) -> PyResult<Code> {
    Code::from_name(name).ok_or_else(|| {
        to_py_err(
            py,
            sparsetable::Error::invalid_argument(format!(
                "code {name:?} cannot be injected: use one of {}",
                Code::ALL.map(Code::as_str).join(", ")
            )),
        )
    })
}

#[pymethods]
impl InstanceControl {
    /// The instance's id.
    #[getter]
    fn instance_id(&self) -> &str {
        &self.instance_id
    }

    /// Sets the instance's clusters (ids; the first existing one keeps the instance's data)
    /// and its app profiles (see the module docs). Two or more clusters make the instance
    /// replicated: each keeps its own copy of every table.
    #[pyo3(signature = (clusters, app_profiles = None))]
    fn configure(
        &self,
        py: Python<'_>,
        clusters: Vec<String>,
        app_profiles: Option<&Bound<'_, PyList>>,
    ) -> PyResult<()> {
        let profiles = match app_profiles {
            Some(list) => list
                .iter()
                .map(|p| profile_from_py(&p))
                .collect::<PyResult<Vec<_>>>()?,
            None => Vec::new(),
        };
        py.detach(|| self.plane.configure(clusters, profiles))
            .map_err(|e| to_py_err(py, e))
    }

    /// Takes cluster `cluster_id` down (`available=False`) or brings it back (it catches up).
    fn set_cluster_available(
        &self,
        py: Python<'_>,
        cluster_id: &str,
        available: bool,
    ) -> PyResult<()> {
        py.detach(|| self.plane.set_available(cluster_id, available))
            .map_err(|e| to_py_err(py, e))
    }

    /// How long a write takes to reach the other clusters, in microseconds of the engine's
    /// clock (a `ManualClock` makes it exact).
    fn set_replication_lag_micros(&self, py: Python<'_>, micros: i64) -> PyResult<()> {
        py.detach(|| self.plane.set_delay_micros(micros))
            .map_err(|e| to_py_err(py, e))
    }

    /// Adds an injected fault: calls of `rpc` (e.g. `"ReadRows"`; `None`: every call) at
    /// `cluster_id` (`None`: every cluster) fail with `code` (a gRPC name such as
    /// `"UNAVAILABLE"` or `"DEADLINE_EXCEEDED"`) and/or wait `latency_micros`, for `count`
    /// calls (`None`: no limit) or each with `probability` (drawn from the seed
    /// `clear_faults` set). With `after_rows` (`rpc="ReadRows"` and a `code`), a read
    /// delivers that many rows and then fails with `code`, the way a connection drops
    /// mid-scan; `read_rows` and `read_rows_stream` resume it as Google's client does.
    #[pyo3(signature = (*, rpc = None, cluster_id = None, code = None, count = None, probability = 1.0, latency_micros = 0, after_rows = None))]
    #[allow(clippy::too_many_arguments)]
    fn inject_fault(
        &self,
        py: Python<'_>,
        rpc: Option<String>,
        cluster_id: Option<String>,
        code: Option<&str>,
        count: Option<u64>,
        probability: f64,
        latency_micros: u64,
        after_rows: Option<u64>,
    ) -> PyResult<()> {
        let code = code.map(|c| code_from_name(py, c)).transpose()?;
        let rule = FaultRule {
            rpc,
            cluster_id,
            code,
            remaining: count,
            probability,
            latency_micros,
        };
        py.detach(|| match after_rows {
            Some(n) => self.plane.add_mid_stream_fault(rule, n),
            None => self.plane.add_fault(rule),
        })
        .map_err(|e| to_py_err(py, e))
    }

    /// Removes every injected fault and reseeds the probabilities' generator.
    #[pyo3(signature = (seed = 0))]
    fn clear_faults(&self, py: Python<'_>, seed: u64) -> PyResult<()> {
        py.detach(|| self.plane.clear_faults(seed))
            .map_err(|e| to_py_err(py, e))
    }

    /// A consistency token for `table_id` (GenerateConsistencyToken).
    fn generate_consistency_token(&self, py: Python<'_>, table_id: &str) -> PyResult<String> {
        py.detach(|| self.plane.consistency_token(table_id))
            .map_err(|e| to_py_err(py, e))
    }

    /// Whether every write acknowledged before `token` was generated has reached every
    /// cluster (CheckConsistency; `data_boost_read_local_writes=True` is its Data Boost mode,
    /// as the core defines it).
    #[pyo3(signature = (table_id, token, *, data_boost_read_local_writes = false))]
    fn check_consistency(
        &self,
        py: Python<'_>,
        table_id: &str,
        token: &str,
        data_boost_read_local_writes: bool,
    ) -> PyResult<bool> {
        py.detach(|| {
            self.plane
                .check_consistency(table_id, token, data_boost_read_local_writes)
        })
        .map_err(|e| to_py_err(py, e))
    }

    /// The state: `{"clusters": [(id, available), ...], "lag_micros": int, "in_flight": int,
    /// "faults": int}`.
    fn status<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (clusters, lag, in_flight, faults) = py
            .detach(|| {
                Ok::<_, sparsetable::Error>((
                    self.plane.availability()?,
                    self.plane.delay_micros()?,
                    self.plane.in_flight()?,
                    self.plane.fault_count()?,
                ))
            })
            .map_err(|e| to_py_err(py, e))?;
        let d = PyDict::new(py);
        d.set_item("clusters", clusters)?;
        d.set_item("lag_micros", lag)?;
        d.set_item("in_flight", in_flight)?;
        d.set_item("faults", faults)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!("InstanceControl(instance_id={:?})", self.instance_id)
    }
}
