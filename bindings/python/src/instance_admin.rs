//! The classic Instance Admin of one instance (`InstanceAdmin`, reached through
//! `BigtableDataClient._instance_admin`): the core's [`InstanceRecord`] (clusters, app
//! profiles with etags, the implied `default` profile, id rules) for the Python module's
//! `sparsetable.Instance` / `Cluster` / `AppProfile`, shaped like `google.cloud.bigtable`'s.
//!
//! Logical views are the record's too (`create_logical_view` ... `delete_logical_view`): a
//! view's query is checked by preparing it against the instance's first database with the
//! views the instance would then have (as the server checks one), and `_execute_query`
//! reads the stored views when a query names one in `FROM`. Continuous materialized views
//! (`create_materialized_view` ... `delete_materialized_view`) are recorded here and made in
//! the instance's first database by [`crate::materialized_views`].
//!
//! Every rule is the record's or the database's; this module converts Python values (dicts
//! shaped like the classic client's attributes, enums as Google's numbers) and errors only.
//! Records live in the world of the client's store (`registry::Records`): an instance is
//! there once created through this admin (or through `sparsetable-server`, in a directory
//! both use); one never created exists only implicitly (as requests name it) and the admin
//! answers `NotFound` for it.
//!
//! Invariant: an operation applies to a copy of the record, hands the copy's routing to the
//! instance's data plane (`InstanceData::configure`), writes the copy to the folder's
//! `INSTANCE` file when the store is a directory (the core's atomic replacement, with the
//! extension another front-end left in the file kept as found) and only then stores the
//! copy, all under the records' lock, so a refusal (the record's, the plane's or the
//! disk's) changes nothing and a data plane made later is configured from the stored record
//! (`configure_from`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, MutexGuard};

use pyo3::prelude::*;
use pyo3::types::PyDict;
use sparsetable::api::instances::record::DEFAULT_ZONE;
use sparsetable::api::instances::{store as instance_store, StoredInstance};
use sparsetable::error::quoted;
use sparsetable::{
    AppProfileRecord, Autoscaling, ClusterRecord, Code, Error, InstanceData, InstanceRecord,
    InstanceType, Isolation, LogicalViewRecord, Result, Routing, SharedDatabase, StorageType,
};

use crate::errors::to_py_err;
use crate::materialized_views::{self as mv, view_to_py as mv_to_py, RecordAdmin};
use crate::registry::Records;

/// Google's `enums.Instance.Type` numbers.
const TYPE_PRODUCTION: i32 = 1;
const TYPE_DEVELOPMENT: i32 = 2;
/// Google's `enums.StorageType` numbers.
const STORAGE_SSD: i32 = 1;
const STORAGE_HDD: i32 = 2;
/// Google's `enums.RoutingPolicyType` numbers.
const ROUTING_ANY: i32 = 1;
const ROUTING_SINGLE: i32 = 2;

/// Configures `plane` from the record of `project`'s `instance`, if one was created; the
/// registry calls it for every plane it makes.
///
/// # Errors
/// A poisoned lock; the plane's refusal.
pub fn configure_from(
    records: &Records,
    project: &str,
    instance: &str,
    plane: &InstanceData,
) -> Result<()> {
    let records = records
        .lock()
        .map_err(|_| sparsetable::api::shared::poisoned())?;
    match records.get(&(project.to_string(), instance.to_string())) {
        Some(stored) => {
            let (clusters, profiles) = stored.record.routing();
            plane.configure(clusters, profiles)
        }
        None => Ok(()),
    }
}

fn instance_type_of(n: i32) -> Result<InstanceType> {
    match n {
        0 | TYPE_PRODUCTION => Ok(InstanceType::Production),
        TYPE_DEVELOPMENT => Ok(InstanceType::Development),
        _ => Err(Error::invalid_argument(format!(
            "instance type {n} is not enums.Instance.Type.PRODUCTION (1) or DEVELOPMENT (2)"
        ))),
    }
}

fn storage_of(n: i32) -> Result<StorageType> {
    match n {
        0 | STORAGE_SSD => Ok(StorageType::Ssd),
        STORAGE_HDD => Ok(StorageType::Hdd),
        _ => Err(Error::invalid_argument(format!(
            "storage type {n} is not enums.StorageType.SSD (1) or HDD (2)"
        ))),
    }
}

/// An optional key of a dict, converted (absent and `None` alike give `None`).
fn opt<'py, T: FromPyObjectOwned<'py>>(d: &Bound<'py, PyDict>, name: &str) -> PyResult<Option<T>> {
    match d.get_item(name)? {
        Some(v) if !v.is_none() => Ok(Some(v.extract().map_err(Into::into)?)),
        _ => Ok(None),
    }
}

/// Autoscaling from the classic client's three numbers: set when any is given (the core
/// checks the values; a missing minimum or maximum is 0, which it refuses).
fn autoscaling_of(
    min: Option<i32>,
    max: Option<i32>,
    cpu: Option<i32>,
    base: Option<Autoscaling>,
) -> Option<Autoscaling> {
    if min.is_none() && max.is_none() && cpu.is_none() {
        return None;
    }
    let base = base.unwrap_or(Autoscaling {
        min_nodes: 0,
        max_nodes: 0,
        cpu_percent: 0,
        storage_gib_per_node: 0,
    });
    Some(Autoscaling {
        min_nodes: min.unwrap_or(base.min_nodes),
        max_nodes: max.unwrap_or(base.max_nodes),
        cpu_percent: cpu.unwrap_or(base.cpu_percent),
        storage_gib_per_node: base.storage_gib_per_node,
    })
}

/// A cluster dict (`cluster_id`, `location_id`, `serve_nodes`, `default_storage_type`,
/// `min_serve_nodes`, `max_serve_nodes`, `cpu_utilization_percent`) as a record.
fn cluster_from_py(d: &Bound<'_, PyDict>) -> PyResult<Result<ClusterRecord>> {
    let id: String = opt(d, "cluster_id")?.unwrap_or_default();
    let zone: Option<String> = opt(d, "location_id")?;
    let mut c = ClusterRecord::new(&id, zone.as_deref().unwrap_or(DEFAULT_ZONE));
    if let Some(n) = opt(d, "serve_nodes")? {
        c.serve_nodes = n;
    }
    c.storage = match storage_of(opt(d, "default_storage_type")?.unwrap_or(0)) {
        Ok(s) => s,
        Err(e) => return Ok(Err(e)),
    };
    c.autoscaling = autoscaling_of(
        opt(d, "min_serve_nodes")?,
        opt(d, "max_serve_nodes")?,
        opt(d, "cpu_utilization_percent")?,
        None,
    );
    Ok(Ok(c))
}

fn cluster_to_py<'py>(py: Python<'py>, c: &ClusterRecord) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("cluster_id", &c.id)?;
    d.set_item("location_id", &c.zone)?;
    d.set_item("serve_nodes", c.serve_nodes)?;
    d.set_item(
        "default_storage_type",
        match c.storage {
            StorageType::Ssd => STORAGE_SSD,
            StorageType::Hdd => STORAGE_HDD,
        },
    )?;
    d.set_item("min_serve_nodes", c.autoscaling.map(|a| a.min_nodes))?;
    d.set_item("max_serve_nodes", c.autoscaling.map(|a| a.max_nodes))?;
    d.set_item(
        "cpu_utilization_percent",
        c.autoscaling.map(|a| a.cpu_percent).filter(|p| *p != 0),
    )?;
    Ok(d)
}

/// A profile dict (`app_profile_id`, `routing_policy_type`, `description`, `cluster_id`,
/// `allow_transactional_writes`, `multi_cluster_ids`, `row_affinity`, `data_boost`, `etag`)
/// as a record.
fn profile_from_py(d: &Bound<'_, PyDict>) -> PyResult<Result<AppProfileRecord>> {
    let id: String = opt(d, "app_profile_id")?.unwrap_or_default();
    let routing = match opt::<i32>(d, "routing_policy_type")? {
        Some(ROUTING_ANY) => Routing::MultiCluster {
            cluster_ids: opt(d, "multi_cluster_ids")?.unwrap_or_default(),
            row_affinity: opt(d, "row_affinity")?.unwrap_or(false),
        },
        Some(ROUTING_SINGLE) => Routing::SingleCluster {
            cluster_id: opt(d, "cluster_id")?.unwrap_or_default(),
            allow_transactional_writes: opt(d, "allow_transactional_writes")?.unwrap_or(false),
        },
        other => {
            return Ok(Err(Error::invalid_argument(format!(
                "app profile {}: routing_policy_type {} is not enums.RoutingPolicyType.ANY (1) or SINGLE (2)",
                quoted(&id),
                other.map_or_else(|| "None".to_string(), |n| n.to_string())
            ))))
        }
    };
    let data_boost: bool = opt(d, "data_boost")?.unwrap_or(false);
    Ok(Ok(AppProfileRecord {
        id,
        description: opt(d, "description")?.unwrap_or_default(),
        etag: opt(d, "etag")?.unwrap_or_default(),
        routing,
        isolation: if data_boost {
            Isolation::DataBoostReadOnly
        } else {
            Isolation::Standard
        },
    }))
}

fn profile_to_py<'py>(py: Python<'py>, p: &AppProfileRecord) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("app_profile_id", &p.id)?;
    d.set_item("description", &p.description)?;
    d.set_item("etag", &p.etag)?;
    match &p.routing {
        Routing::MultiCluster {
            cluster_ids,
            row_affinity,
        } => {
            d.set_item("routing_policy_type", ROUTING_ANY)?;
            d.set_item("multi_cluster_ids", cluster_ids.clone())?;
            d.set_item("row_affinity", *row_affinity)?;
            d.set_item("cluster_id", py.None())?;
            d.set_item("allow_transactional_writes", py.None())?;
        }
        Routing::SingleCluster {
            cluster_id,
            allow_transactional_writes,
        } => {
            d.set_item("routing_policy_type", ROUTING_SINGLE)?;
            d.set_item("cluster_id", cluster_id)?;
            d.set_item("allow_transactional_writes", *allow_transactional_writes)?;
            d.set_item("multi_cluster_ids", py.None())?;
            d.set_item("row_affinity", false)?;
        }
    }
    d.set_item("data_boost", p.isolation == Isolation::DataBoostReadOnly)?;
    Ok(d)
}

/// An instance's dict: `instance_id`, `display_name`, `type` (Google's number), `labels`,
/// `create_time_micros`.
pub fn instance_to_py<'py>(py: Python<'py>, r: &InstanceRecord) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("instance_id", &r.id)?;
    d.set_item("display_name", &r.display_name)?;
    d.set_item(
        "type",
        match r.kind {
            InstanceType::Production => TYPE_PRODUCTION,
            InstanceType::Development => TYPE_DEVELOPMENT,
        },
    )?;
    d.set_item("labels", r.labels.clone())?;
    d.set_item("create_time_micros", r.create_time_micros)?;
    Ok(d)
}

/// A logical view as a dict: `logical_view_id`, `query`, `deletion_protection`, `etag`.
fn view_to_py<'py>(py: Python<'py>, v: &LogicalViewRecord) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("logical_view_id", &v.id)?;
    d.set_item("query", &v.query)?;
    d.set_item("deletion_protection", v.deletion_protection)?;
    d.set_item("etag", &v.etag)?;
    Ok(d)
}

/// Prepares `query` as a view's query: against `db`, with `views` (the views the instance
/// would have), as the server's CreateLogicalView checks one.
fn check_view_query(db: &SharedDatabase, query: &str, views: &[LogicalViewRecord]) -> Result<()> {
    db.read(|d| {
        sparsetable::api::sql::prepare_with_views(d, query, BTreeMap::new(), views).map(|_| ())
    })
}

/// The logical views of `project`'s `instance` (none for an instance never created through
/// the admin), for a query to read.
///
/// # Errors
/// A poisoned lock.
pub fn logical_views_of(
    records: &Records,
    project: &str,
    instance: &str,
) -> Result<Vec<LogicalViewRecord>> {
    let records = records
        .lock()
        .map_err(|_| sparsetable::api::shared::poisoned())?;
    Ok(records
        .get(&(project.to_string(), instance.to_string()))
        .map(|stored| stored.record.logical_views().to_vec())
        .unwrap_or_default())
}

/// The admin of one instance's metadata (see the module docs).
#[pyclass(frozen, module = "sparsetable")]
pub struct InstanceAdmin {
    records: Arc<Records>,
    project: String,
    instance_id: String,
    plane: Arc<InstanceData>,
    db: Arc<SharedDatabase>,
    now_micros: i64,
    /// The instance's folder when the store is a directory (its `INSTANCE` file).
    folder: Option<PathBuf>,
}

impl InstanceAdmin {
    /// The admin of `project`'s `instance_id`, whose data plane is `plane` and first
    /// database `db`; `now_micros` is the engine clock's time (an instance's create time);
    /// `folder` the instance's folder when the store is a directory.
    pub fn new(
        records: Arc<Records>,
        project: String,
        instance_id: String,
        plane: Arc<InstanceData>,
        db: Arc<SharedDatabase>,
        now_micros: i64,
        folder: Option<PathBuf>,
    ) -> Self {
        InstanceAdmin {
            records,
            project,
            instance_id,
            plane,
            db,
            now_micros,
            folder,
        }
    }

    /// Writes `stored` to the folder's `INSTANCE` file (nothing in memory).
    fn persist(&self, stored: &StoredInstance) -> Result<()> {
        match &self.folder {
            Some(folder) => instance_store::replace_file(folder, &stored.record, &stored.extension),
            None => Ok(()),
        }
    }

    fn key(&self) -> (String, String) {
        (self.project.clone(), self.instance_id.clone())
    }

    fn lock(&self) -> Result<MutexGuard<'_, BTreeMap<(String, String), StoredInstance>>> {
        self.records
            .lock()
            .map_err(|_| sparsetable::api::shared::poisoned())
    }

    fn instance_not_found(&self) -> Error {
        Error::new(
            Code::NotFound,
            format!(
                "instance projects/{}/instances/{} not found",
                self.project, self.instance_id
            ),
        )
    }

    /// The stored record, read.
    fn read<T>(&self, f: impl FnOnce(&InstanceRecord) -> Result<T>) -> Result<T> {
        let records = self.lock()?;
        match records.get(&self.key()) {
            Some(stored) => f(&stored.record),
            None => Err(self.instance_not_found()),
        }
    }

    /// Applies `op` to a copy of the stored record, configures the plane from the copy,
    /// writes the copy to disk (a directory store) and stores it; on any error nothing
    /// changes (a failed write puts the plane back as it was).
    fn change<T>(&self, op: impl FnOnce(&mut InstanceRecord) -> Result<T>) -> Result<T> {
        let mut records = self.lock()?;
        let Some(current) = records.get(&self.key()) else {
            return Err(self.instance_not_found());
        };
        let mut next = current.clone();
        let out = op(&mut next.record)?;
        let (clusters, profiles) = next.record.routing();
        self.plane.configure(clusters, profiles)?;
        if let Err(e) = self.persist(&next) {
            let (clusters, profiles) = current.record.routing();
            // The old routing was accepted before; the write's error is the one to report.
            let _ = self.plane.configure(clusters, profiles);
            return Err(e);
        }
        records.insert(self.key(), next);
        Ok(out)
    }
}

impl RecordAdmin for InstanceAdmin {
    fn change<T>(&self, op: impl FnOnce(&mut InstanceRecord) -> Result<T>) -> Result<T> {
        InstanceAdmin::change(self, op)
    }

    fn db(&self) -> &SharedDatabase {
        &self.db
    }
}

/// The record's own NotFound for a lookup it refused (its check run on a dropped copy).
fn missing(refused: Result<()>) -> Error {
    refused
        .err()
        .unwrap_or_else(|| Error::new(Code::Internal, "a missing resource was found"))
}

#[pymethods]
impl InstanceAdmin {
    /// The instance's id.
    #[getter]
    fn instance_id(&self) -> &str {
        &self.instance_id
    }

    /// Whether the instance was created through the Instance Admin.
    fn exists(&self, py: Python<'_>) -> PyResult<bool> {
        py.detach(|| Ok(self.lock()?.contains_key(&self.key())))
            .map_err(|e| to_py_err(py, e))
    }

    /// Creates the instance (CreateInstance) with `clusters` (cluster dicts, see
    /// `cluster_from_py`); its data plane gets those clusters and the implied `default`
    /// profile. Returns the instance dict. The data already in the instance (named
    /// implicitly before) stays, in the first cluster.
    #[pyo3(signature = (clusters, display_name = None, instance_type = 0, labels = None))]
    fn create_instance<'py>(
        &self,
        py: Python<'py>,
        clusters: Vec<Bound<'py, PyDict>>,
        display_name: Option<String>,
        instance_type: i32,
        labels: Option<BTreeMap<String, String>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let clusters = clusters
            .iter()
            .map(cluster_from_py)
            .collect::<PyResult<Vec<_>>>()?
            .into_iter()
            .collect::<Result<Vec<_>>>()
            .map_err(|e| to_py_err(py, e))?;
        let record = py
            .detach(|| {
                let kind = instance_type_of(instance_type)?;
                let mut records = self.lock()?;
                if records.contains_key(&self.key()) {
                    return Err(Error::new(
                        Code::AlreadyExists,
                        format!(
                            "instance projects/{}/instances/{} already exists",
                            self.project, self.instance_id
                        ),
                    ));
                }
                let record = InstanceRecord::create(
                    &self.project,
                    &self.instance_id,
                    display_name.as_deref(),
                    kind,
                    labels.unwrap_or_default(),
                    clusters,
                    self.now_micros,
                )?;
                let (ids, profiles) = record.routing();
                self.plane.configure(ids, profiles)?;
                let stored = StoredInstance {
                    record,
                    extension: Vec::new(),
                };
                if let Err(e) = self.persist(&stored) {
                    let implicit = InstanceRecord::implicit(&self.project, &self.instance_id)?;
                    let (ids, profiles) = implicit.routing();
                    let _ = self.plane.configure(ids, profiles);
                    return Err(e);
                }
                let record = stored.record.clone();
                records.insert(self.key(), stored);
                Ok(record)
            })
            .map_err(|e| to_py_err(py, e))?;
        instance_to_py(py, &record)
    }

    /// The instance dict (GetInstance); `NotFound` if it was not created.
    fn get_instance<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let record = py
            .detach(|| self.read(|r| Ok(r.clone())))
            .map_err(|e| to_py_err(py, e))?;
        instance_to_py(py, &record)
    }

    /// Changes the fields given (PartialUpdateInstance); returns the instance dict.
    #[pyo3(signature = (display_name = None, instance_type = None, labels = None))]
    fn update_instance<'py>(
        &self,
        py: Python<'py>,
        display_name: Option<String>,
        instance_type: Option<i32>,
        labels: Option<BTreeMap<String, String>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let record = py
            .detach(|| {
                self.change(|r| {
                    if let Some(name) = &display_name {
                        r.set_display_name(name)?;
                    }
                    if let Some(t) = instance_type {
                        r.set_kind(instance_type_of(t)?)?;
                    }
                    if let Some(labels) = labels {
                        r.set_labels(labels)?;
                    }
                    Ok(r.clone())
                })
            })
            .map_err(|e| to_py_err(py, e))?;
        instance_to_py(py, &record)
    }

    /// Deletes the instance (DeleteInstance): its tables and backups (all or nothing: the
    /// core refuses while a table has deletion protection) and its record (and, in a
    /// directory, its `INSTANCE` file; the emptied database's files stay); the instance is
    /// then implicit again, with the one cluster `{instance}-c1`.
    fn delete_instance(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| {
            let mut records = self.lock()?;
            if !records.contains_key(&self.key()) {
                return Err(self.instance_not_found());
            }
            self.db.write(|d| d.delete_all_tables())?;
            if let Some(folder) = &self.folder {
                instance_store::remove_file(folder)?;
            }
            let implicit = InstanceRecord::implicit(&self.project, &self.instance_id)?;
            let (ids, profiles) = implicit.routing();
            self.plane.configure(ids, profiles)?;
            records.remove(&self.key());
            Ok(())
        })
        .map_err(|e| to_py_err(py, e))
    }

    /// The clusters' dicts, by id.
    fn list_clusters<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let clusters = py
            .detach(|| self.read(|r| Ok(r.clusters().to_vec())))
            .map_err(|e| to_py_err(py, e))?;
        clusters.iter().map(|c| cluster_to_py(py, c)).collect()
    }

    /// Cluster `cluster_id`'s dict; `NotFound` if the instance lacks it.
    fn get_cluster<'py>(&self, py: Python<'py>, cluster_id: &str) -> PyResult<Bound<'py, PyDict>> {
        let c = py
            .detach(|| {
                self.read(|r| match r.cluster(cluster_id) {
                    Some(c) => Ok(c.clone()),
                    None => Err(missing(r.clone().remove_cluster(cluster_id))),
                })
            })
            .map_err(|e| to_py_err(py, e))?;
        cluster_to_py(py, &c)
    }

    /// Adds a cluster (CreateCluster, a cluster dict); it gets a copy of every table.
    fn create_cluster<'py>(
        &self,
        py: Python<'py>,
        cluster: Bound<'py, PyDict>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let c = cluster_from_py(&cluster)?.map_err(|e| to_py_err(py, e))?;
        let added = c.clone();
        py.detach(|| self.change(|r| r.add_cluster(c)))
            .map_err(|e| to_py_err(py, e))?;
        cluster_to_py(py, &added)
    }

    /// Changes a cluster's nodes and autoscaling (PartialUpdateCluster): `None` keeps a
    /// value; autoscaling numbers given change the stored ones; `disable_autoscaling` clears
    /// them. Returns the cluster's dict.
    #[pyo3(signature = (cluster_id, serve_nodes = None, min_serve_nodes = None, max_serve_nodes = None, cpu_utilization_percent = None, disable_autoscaling = false))]
    #[allow(clippy::too_many_arguments)]
    fn update_cluster<'py>(
        &self,
        py: Python<'py>,
        cluster_id: &str,
        serve_nodes: Option<i32>,
        min_serve_nodes: Option<i32>,
        max_serve_nodes: Option<i32>,
        cpu_utilization_percent: Option<i32>,
        disable_autoscaling: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let c = py
            .detach(|| {
                self.change(|r| {
                    let Some(current) = r.cluster(cluster_id).cloned() else {
                        return Err(missing(r.clone().remove_cluster(cluster_id)));
                    };
                    let autoscaling = if disable_autoscaling {
                        None
                    } else {
                        autoscaling_of(
                            min_serve_nodes,
                            max_serve_nodes,
                            cpu_utilization_percent,
                            current.autoscaling,
                        )
                        .or(current.autoscaling)
                    };
                    r.update_cluster(
                        cluster_id,
                        serve_nodes.unwrap_or(current.serve_nodes),
                        autoscaling,
                    )?;
                    Ok(r.cluster(cluster_id).cloned().unwrap_or(current))
                })
            })
            .map_err(|e| to_py_err(py, e))?;
        cluster_to_py(py, &c)
    }

    /// Removes a cluster (DeleteCluster); the record refuses the last one and one a
    /// single-cluster profile routes to (`FailedPrecondition`).
    fn delete_cluster(&self, py: Python<'_>, cluster_id: &str) -> PyResult<()> {
        py.detach(|| self.change(|r| r.remove_cluster(cluster_id)))
            .map_err(|e| to_py_err(py, e))
    }

    /// The app profiles ListAppProfiles shows (the stored ones and the implied `default`),
    /// by id, as dicts.
    fn list_app_profiles<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let profiles = py
            .detach(|| self.read(|r| Ok(r.listed_app_profiles())))
            .map_err(|e| to_py_err(py, e))?;
        profiles.iter().map(|p| profile_to_py(py, p)).collect()
    }

    /// App profile `app_profile_id`'s dict (the implied `default` too); `NotFound` if
    /// unknown.
    fn get_app_profile<'py>(
        &self,
        py: Python<'py>,
        app_profile_id: &str,
    ) -> PyResult<Bound<'py, PyDict>> {
        let p = py
            .detach(|| {
                self.read(|r| match r.effective_app_profile(app_profile_id) {
                    Some(p) => Ok(p),
                    None => Err(missing(r.clone().delete_app_profile(app_profile_id))),
                })
            })
            .map_err(|e| to_py_err(py, e))?;
        profile_to_py(py, &p)
    }

    /// Stores a new app profile (CreateAppProfile, a profile dict); returns it with its etag.
    fn create_app_profile<'py>(
        &self,
        py: Python<'py>,
        profile: Bound<'py, PyDict>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let p = profile_from_py(&profile)?.map_err(|e| to_py_err(py, e))?;
        let stored = py
            .detach(|| self.change(|r| r.create_app_profile(p).cloned()))
            .map_err(|e| to_py_err(py, e))?;
        profile_to_py(py, &stored)
    }

    /// Replaces a stored app profile (UpdateAppProfile; a non-empty `etag` must be the
    /// stored one, else `Aborted`); returns it with its new etag.
    fn update_app_profile<'py>(
        &self,
        py: Python<'py>,
        profile: Bound<'py, PyDict>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let p = profile_from_py(&profile)?.map_err(|e| to_py_err(py, e))?;
        let stored = py
            .detach(|| self.change(|r| r.update_app_profile(p).cloned()))
            .map_err(|e| to_py_err(py, e))?;
        profile_to_py(py, &stored)
    }

    /// Removes a stored app profile (DeleteAppProfile).
    fn delete_app_profile(&self, py: Python<'_>, app_profile_id: &str) -> PyResult<()> {
        py.detach(|| self.change(|r| r.delete_app_profile(app_profile_id)))
            .map_err(|e| to_py_err(py, e))
    }

    /// Stores a new logical view (CreateLogicalView) whose `query` must prepare against the
    /// instance's tables and views; returns the view dict (see `view_to_py`) with its etag.
    #[pyo3(signature = (logical_view_id, query, deletion_protection = false))]
    fn create_logical_view<'py>(
        &self,
        py: Python<'py>,
        logical_view_id: &str,
        query: &str,
        deletion_protection: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let view = py
            .detach(|| {
                self.change(|r| {
                    r.create_logical_view(logical_view_id, query, deletion_protection, |q, v| {
                        check_view_query(&self.db, q, v)
                    })
                    .cloned()
                })
            })
            .map_err(|e| to_py_err(py, e))?;
        view_to_py(py, &view)
    }

    /// Logical view `logical_view_id`'s dict (GetLogicalView); `NotFound` if unknown.
    fn get_logical_view<'py>(
        &self,
        py: Python<'py>,
        logical_view_id: &str,
    ) -> PyResult<Bound<'py, PyDict>> {
        let view = py
            .detach(|| {
                self.read(|r| match r.logical_view(logical_view_id) {
                    Some(v) => Ok(v.clone()),
                    None => Err(missing(r.clone().delete_logical_view(logical_view_id, ""))),
                })
            })
            .map_err(|e| to_py_err(py, e))?;
        view_to_py(py, &view)
    }

    /// The logical views (ListLogicalViews), by id, as dicts.
    fn list_logical_views<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let views = py
            .detach(|| self.read(|r| Ok(r.logical_views().to_vec())))
            .map_err(|e| to_py_err(py, e))?;
        views.iter().map(|v| view_to_py(py, v)).collect()
    }

    /// Changes a logical view (UpdateLogicalView): its `query` and/or its
    /// `deletion_protection`, whichever is not `None`; a non-empty `etag` must be the current
    /// one (else `Aborted`). Returns the view dict with its new etag.
    #[pyo3(signature = (logical_view_id, query = None, deletion_protection = None, etag = ""))]
    fn update_logical_view<'py>(
        &self,
        py: Python<'py>,
        logical_view_id: &str,
        query: Option<&str>,
        deletion_protection: Option<bool>,
        etag: &str,
    ) -> PyResult<Bound<'py, PyDict>> {
        let view = py
            .detach(|| {
                self.change(|r| {
                    r.update_logical_view(
                        logical_view_id,
                        query,
                        deletion_protection,
                        etag,
                        |q, v| check_view_query(&self.db, q, v),
                    )
                    .cloned()
                })
            })
            .map_err(|e| to_py_err(py, e))?;
        view_to_py(py, &view)
    }

    /// Removes a logical view (DeleteLogicalView); a non-empty `etag` must be the current
    /// one, and a view with deletion protection is `FailedPrecondition`.
    #[pyo3(signature = (logical_view_id, etag = ""))]
    fn delete_logical_view(
        &self,
        py: Python<'_>,
        logical_view_id: &str,
        etag: &str,
    ) -> PyResult<()> {
        py.detach(|| self.change(|r| r.delete_logical_view(logical_view_id, etag)))
            .map_err(|e| to_py_err(py, e))
    }

    /// Records a new continuous materialized view (CreateMaterializedView) and makes it in
    /// the instance's database, which checks `query` and backfills the view; returns the view
    /// dict (see `materialized_views::view_to_py`) with its etag.
    #[pyo3(signature = (materialized_view_id, query, deletion_protection = false))]
    fn create_materialized_view<'py>(
        &self,
        py: Python<'py>,
        materialized_view_id: &str,
        query: &str,
        deletion_protection: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let view = py
            .detach(|| mv::create(self, materialized_view_id, query, deletion_protection))
            .map_err(|e| to_py_err(py, e))?;
        mv_to_py(py, &view)
    }

    /// Materialized view `materialized_view_id`'s dict (GetMaterializedView); `NotFound` if
    /// unknown.
    fn get_materialized_view<'py>(
        &self,
        py: Python<'py>,
        materialized_view_id: &str,
    ) -> PyResult<Bound<'py, PyDict>> {
        let view = py
            .detach(|| self.read(|r| r.get_materialized_view(materialized_view_id).cloned()))
            .map_err(|e| to_py_err(py, e))?;
        mv_to_py(py, &view)
    }

    /// The materialized views (ListMaterializedViews), by id, as dicts.
    fn list_materialized_views<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let views = py
            .detach(|| self.read(|r| Ok(r.materialized_views().to_vec())))
            .map_err(|e| to_py_err(py, e))?;
        views.iter().map(|v| mv_to_py(py, v)).collect()
    }

    /// Sets or clears a materialized view's `deletion_protection` (UpdateMaterializedView,
    /// the one field it changes); a non-empty `etag` must be the current one (else
    /// `Aborted`). Returns the view dict with its new etag.
    #[pyo3(signature = (materialized_view_id, deletion_protection, etag = ""))]
    fn update_materialized_view<'py>(
        &self,
        py: Python<'py>,
        materialized_view_id: &str,
        deletion_protection: bool,
        etag: &str,
    ) -> PyResult<Bound<'py, PyDict>> {
        let view = py
            .detach(|| mv::update(self, materialized_view_id, deletion_protection, etag))
            .map_err(|e| to_py_err(py, e))?;
        mv_to_py(py, &view)
    }

    /// Removes a materialized view and its rows (DeleteMaterializedView); a non-empty `etag`
    /// must be the current one, and a view with deletion protection is `FailedPrecondition`.
    #[pyo3(signature = (materialized_view_id, etag = ""))]
    fn delete_materialized_view(
        &self,
        py: Python<'_>,
        materialized_view_id: &str,
        etag: &str,
    ) -> PyResult<()> {
        py.detach(|| mv::delete(self, materialized_view_id, etag))
            .map_err(|e| to_py_err(py, e))
    }

    fn __repr__(&self) -> String {
        format!(
            "InstanceAdmin(project={:?}, instance_id={:?})",
            self.project, self.instance_id
        )
    }
}
