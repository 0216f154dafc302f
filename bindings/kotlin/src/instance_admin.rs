//! The exported instance metadata: the core's [`sparsetable::InstanceRecord`] (clusters, app
//! profiles with etags, the implied `default` profile; logical and materialized views in
//! `logical_views.rs` and `materialized_views.rs`) for the Kotlin instance admin client.
//!
//! Every rule is the record's (ids, etags, what may be removed, the implied default profile);
//! this module converts records and errors only. One [`InstanceAdmin`] belongs to one
//! [`InstancePlane`]: after each successful operation the plane's routing is set from the
//! record, so the record is the one source of clusters and profiles.
//!
//! On a durable database (`Database::open`) the record is the directory's `INSTANCE` file,
//! the one `sparsetable-server --data-dir` and the Python binding's `path=` keep
//! (docs/format/instance.md, through the core's `api::instances::store`): read when the
//! admin is made (its clusters and profiles then configure the plane), replaced atomically
//! on every accepted change, with the extension another front-end left in it kept as found.
//! A directory without the file is the instance its path names when that path is the
//! server's layout, `DATA_DIR/{project}/{instance}` (both names valid ids), so the server
//! reads a file written here under the right name; otherwise the ids given.
//!
//! Invariant: an operation applies to a copy of the record, hands the copy's routing to the
//! plane, writes the copy to the file (durable databases) and only then keeps the copy, so a
//! failed operation (the record's refusal, the plane's or the disk's) changes nothing. No
//! exported function panics on any input; a damaged file is `DATA_LOSS` naming it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use sparsetable::api::instances::record::DEFAULT_ZONE;
use sparsetable::api::instances::{ids, store as instance_store};
use sparsetable::{
    AppProfileRecord, Autoscaling, ClusterRecord, InstanceRecord, InstanceType, Isolation, Routing,
    StorageType,
};

use crate::error::{to_ffi, SparsetableError};
use crate::instance::{InstancePlane, ProfileRouting};

type Result<T> = std::result::Result<T, SparsetableError>;

/// A cluster's autoscaling settings (the core's `Autoscaling`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Record)]
pub struct AutoscalingConfig {
    /// At least one.
    pub min_nodes: i32,
    /// At least `min_nodes`.
    pub max_nodes: i32,
    /// 10 to 80; 0: unset.
    pub cpu_percent: i32,
    /// Not negative; 0: unset.
    pub storage_gib_per_node: i32,
}

/// A cluster as the record keeps it (the core's `ClusterRecord`).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ClusterInfo {
    /// Its id.
    pub id: String,
    /// Its zone.
    pub zone: String,
    /// Its node count.
    pub serve_nodes: i32,
    /// HDD storage (SSD otherwise).
    pub hdd: bool,
    /// Its autoscaling settings, if any.
    pub autoscaling: Option<AutoscalingConfig>,
}

/// An app profile as the record keeps it (the core's `AppProfileRecord`).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct AppProfileInfo {
    /// Its id.
    pub id: String,
    /// Its description.
    pub description: String,
    /// Its etag; on update, a non-empty etag must be the stored one.
    pub etag: String,
    /// Its routing policy.
    pub routing: ProfileRouting,
    /// Data Boost read-only isolation.
    pub data_boost: bool,
}

fn autoscaling_to_core(a: AutoscalingConfig) -> Autoscaling {
    Autoscaling {
        min_nodes: a.min_nodes,
        max_nodes: a.max_nodes,
        cpu_percent: a.cpu_percent,
        storage_gib_per_node: a.storage_gib_per_node,
    }
}

fn cluster_info(c: &ClusterRecord) -> ClusterInfo {
    ClusterInfo {
        id: c.id.clone(),
        zone: c.zone.clone(),
        serve_nodes: c.serve_nodes,
        hdd: c.storage == StorageType::Hdd,
        autoscaling: c.autoscaling.map(|a| AutoscalingConfig {
            min_nodes: a.min_nodes,
            max_nodes: a.max_nodes,
            cpu_percent: a.cpu_percent,
            storage_gib_per_node: a.storage_gib_per_node,
        }),
    }
}

fn profile_info(p: &AppProfileRecord) -> AppProfileInfo {
    AppProfileInfo {
        id: p.id.clone(),
        description: p.description.clone(),
        etag: p.etag.clone(),
        routing: match &p.routing {
            Routing::SingleCluster {
                cluster_id,
                allow_transactional_writes,
            } => ProfileRouting::SingleCluster {
                cluster_id: cluster_id.clone(),
                allow_transactional_writes: *allow_transactional_writes,
            },
            Routing::MultiCluster {
                cluster_ids,
                row_affinity,
            } => ProfileRouting::MultiCluster {
                cluster_ids: cluster_ids.clone(),
                row_affinity: *row_affinity,
            },
        },
        data_boost: p.isolation == Isolation::DataBoostReadOnly,
    }
}

fn profile_record(p: AppProfileInfo) -> AppProfileRecord {
    let core = sparsetable::AppProfile::from(crate::instance::AppProfileConfig {
        id: p.id,
        routing: p.routing,
        data_boost: p.data_boost,
    });
    AppProfileRecord {
        id: core.id,
        description: p.description,
        etag: p.etag,
        routing: core.routing,
        isolation: core.isolation,
    }
}

/// The error of a lookup the record refused (its NOT_FOUND); an internal error should it not.
pub(crate) fn missing(refused: sparsetable::Result<()>) -> SparsetableError {
    to_ffi(refused.err().unwrap_or_else(|| {
        sparsetable::Error::new(sparsetable::Code::Internal, "a missing resource was found")
    }))
}

/// One instance's clusters and app profiles (the core's `InstanceRecord`), driving the
/// routing of its [`InstancePlane`].
#[derive(Debug, uniffi::Object)]
pub struct InstanceAdmin {
    pub(crate) plane: Arc<InstancePlane>,
    record: Mutex<InstanceRecord>,
    /// The directory of a durable database (where the `INSTANCE` file is).
    folder: Option<PathBuf>,
    /// The bytes another front-end keeps in the file (the server's own records), kept as
    /// read; empty when the file was not there.
    extension: Vec<u8>,
}

/// `(project, instance)` named by `folder` when it is `DATA_DIR/{project}/{instance}` with
/// valid ids (the server's layout), else `None`.
fn ids_of_folder(folder: &Path) -> Option<(String, String)> {
    let instance = folder.file_name()?.to_str()?;
    let project = folder.parent()?.file_name()?.to_str()?;
    ids::check_project_id("path", project).ok()?;
    ids::check_id("path", "instance", instance).ok()?;
    Some((project.to_string(), instance.to_string()))
}

impl InstanceAdmin {
    pub(crate) fn record(&self) -> MutexGuard<'_, InstanceRecord> {
        // A panic cannot leave a half-changed record (changes are made on a copy and kept
        // whole), so a poisoned lock still guards a consistent record.
        self.record.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Applies `op` to a copy of the record, sets the plane's routing from the copy, and keeps
    /// the copy; on any error nothing changes.
    pub(crate) fn change<T>(
        &self,
        op: impl FnOnce(&mut InstanceRecord) -> sparsetable::Result<T>,
    ) -> Result<T> {
        let mut guard = self.record();
        let mut next = guard.clone();
        let out = op(&mut next).map_err(to_ffi)?;
        let (clusters, profiles) = next.routing();
        self.plane
            .plane
            .configure(clusters, profiles)
            .map_err(to_ffi)?;
        if let Some(folder) = &self.folder {
            if let Err(e) = instance_store::replace_file(folder, &next, &self.extension) {
                // The old routing was accepted before; the write's error is the one to report.
                let (clusters, profiles) = guard.routing();
                let _ = self.plane.plane.configure(clusters, profiles);
                return Err(to_ffi(e));
            }
        }
        *guard = next;
        Ok(out)
    }
}

#[uniffi::export]
impl InstanceAdmin {
    /// The record of instance `projects/{project}/instances/{instance_id}` whose one cluster,
    /// `cluster_id`, is `plane`'s first; no app profile is stored (`default` is implied).
    /// On a durable database, the record of the directory's `INSTANCE` file when it has one
    /// (its clusters and profiles then configure `plane`), else one named after the directory
    /// when that is `DATA_DIR/{project}/{instance}` (see the module docs).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a project or instance id requests may not name; `DATA_LOSS`
    /// for a damaged `INSTANCE` file (or a version-1 one, which only the server reads),
    /// `UNAVAILABLE` for one that cannot be read; the plane's refusal of the file's clusters.
    #[uniffi::constructor]
    pub fn new(
        plane: Arc<InstancePlane>,
        project: String,
        instance_id: String,
        cluster_id: String,
    ) -> Result<Arc<Self>> {
        let folder = plane.dir.clone();
        if let Some(dir) = &folder {
            if let Some(stored) = instance_store::read_file(dir).map_err(to_ffi)? {
                let (clusters, profiles) = stored.record.routing();
                plane.plane.configure(clusters, profiles).map_err(to_ffi)?;
                recreate_views(&stored.record, plane.plane.primary());
                return Ok(Arc::new(InstanceAdmin {
                    plane,
                    record: Mutex::new(stored.record),
                    folder,
                    extension: stored.extension,
                }));
            }
        }
        let (project, instance_id) = folder
            .as_deref()
            .and_then(ids_of_folder)
            .unwrap_or((project, instance_id));
        let record = InstanceRecord::assemble(
            &project,
            &instance_id,
            &instance_id,
            InstanceType::Production,
            BTreeMap::new(),
            0,
            vec![ClusterRecord::new(&cluster_id, DEFAULT_ZONE)],
            Vec::new(),
        )
        .map_err(to_ffi)?;
        Ok(Arc::new(InstanceAdmin {
            plane,
            record: Mutex::new(record),
            folder,
            extension: Vec::new(),
        }))
    }

    /// The clusters, by id.
    pub fn clusters(&self) -> Vec<ClusterInfo> {
        self.record().clusters().iter().map(cluster_info).collect()
    }

    /// Cluster `id`.
    ///
    /// # Errors
    /// `NOT_FOUND` with the record's message (its own check, run on a copy that is dropped).
    pub fn cluster(&self, id: String) -> Result<ClusterInfo> {
        let r = self.record();
        match r.cluster(&id) {
            Some(c) => Ok(cluster_info(c)),
            None => Err(missing(r.clone().remove_cluster(&id))),
        }
    }

    /// Adds cluster `id` (one node, SSD, in the default zone); it gets a copy of every table.
    ///
    /// # Errors
    /// The record's `add_cluster`: `INVALID_ARGUMENT`, `ALREADY_EXISTS`.
    pub fn add_cluster(&self, id: String) -> Result<ClusterInfo> {
        let c = ClusterRecord::new(&id, DEFAULT_ZONE);
        let info = cluster_info(&c);
        self.change(|r| r.add_cluster(c))?;
        Ok(info)
    }

    /// Sets cluster `id`'s node count and autoscaling.
    ///
    /// # Errors
    /// The record's `update_cluster`: `NOT_FOUND`, `INVALID_ARGUMENT`.
    pub fn update_cluster(
        &self,
        id: String,
        serve_nodes: i32,
        autoscaling: Option<AutoscalingConfig>,
    ) -> Result<ClusterInfo> {
        self.change(|r| {
            r.update_cluster(&id, serve_nodes, autoscaling.map(autoscaling_to_core))?;
            Ok(r.cluster(&id).map(cluster_info))
        })?
        .ok_or_else(|| {
            to_ffi(sparsetable::Error::new(
                sparsetable::Code::Internal,
                "the updated cluster is missing",
            ))
        })
    }

    /// Sets cluster `id`'s autoscaling and keeps its node count, in one change (the core's
    /// `set_cluster_autoscaling`).
    ///
    /// # Errors
    /// `NOT_FOUND`, `INVALID_ARGUMENT`, as the record's `update_cluster`.
    pub fn set_cluster_autoscaling(
        &self,
        id: String,
        autoscaling: Option<AutoscalingConfig>,
    ) -> Result<ClusterInfo> {
        self.change(|r| {
            r.set_cluster_autoscaling(&id, autoscaling.map(autoscaling_to_core))?;
            Ok(r.cluster(&id).map(cluster_info))
        })?
        .ok_or_else(|| {
            to_ffi(sparsetable::Error::new(
                sparsetable::Code::Internal,
                "the updated cluster is missing",
            ))
        })
    }

    /// Removes cluster `id`. On a durable database its copy's folder (`replicas/{id}/`) goes
    /// too, once the plane has let go of it, so no disk is kept for a copy no cluster uses
    /// (a cluster added later under the same id gets the first cluster's tables either way).
    ///
    /// # Errors
    /// The record's `remove_cluster`: `NOT_FOUND`, `FAILED_PRECONDITION`.
    pub fn remove_cluster(&self, id: String) -> Result<()> {
        self.change(|r| r.remove_cluster(&id))?;
        if let Some(folder) = &self.folder {
            if ids::check_id("cluster_id", "cluster", &id).is_ok() {
                // Best effort: a folder left behind holds only a copy no cluster uses.
                let _ = std::fs::remove_dir_all(folder.join("replicas").join(&id));
            }
        }
        Ok(())
    }

    /// The app profiles ListAppProfiles shows, with the implied `default`, by id.
    pub fn listed_app_profiles(&self) -> Vec<AppProfileInfo> {
        self.record()
            .listed_app_profiles()
            .iter()
            .map(profile_info)
            .collect()
    }

    /// The profile requests naming `id` get (the implied `default` too); `None` if unknown.
    pub fn effective_app_profile(&self, id: String) -> Option<AppProfileInfo> {
        self.record()
            .effective_app_profile(&id)
            .as_ref()
            .map(profile_info)
    }

    /// The profile requests naming `id` get, as [`effective_app_profile`](Self::effective_app_profile).
    ///
    /// # Errors
    /// `NOT_FOUND` with the record's message (its own check, run on a copy that is dropped).
    pub fn app_profile(&self, id: String) -> Result<AppProfileInfo> {
        let r = self.record();
        match r.effective_app_profile(&id) {
            Some(p) => Ok(profile_info(&p)),
            None => Err(missing(r.clone().delete_app_profile(&id))),
        }
    }

    /// Stores a new app profile; answers it with its etag.
    ///
    /// # Errors
    /// The record's `create_app_profile`: `INVALID_ARGUMENT`, `ALREADY_EXISTS`.
    pub fn create_app_profile(&self, profile: AppProfileInfo) -> Result<AppProfileInfo> {
        self.change(|r| {
            r.create_app_profile(profile_record(profile))
                .map(profile_info)
        })
    }

    /// Replaces a stored app profile (a non-empty etag must be the stored one); the implied
    /// `default` profile is stored by its first update (the core's rule).
    ///
    /// # Errors
    /// The record's `update_app_profile`: `NOT_FOUND`, `ABORTED`, `INVALID_ARGUMENT`.
    pub fn update_app_profile(&self, profile: AppProfileInfo) -> Result<AppProfileInfo> {
        self.change(|r| {
            r.update_app_profile(profile_record(profile))
                .map(profile_info)
        })
    }

    /// Removes a stored app profile.
    ///
    /// # Errors
    /// The record's `delete_app_profile`: `NOT_FOUND`.
    pub fn delete_app_profile(&self, id: String) -> Result<()> {
        self.change(|r| r.delete_app_profile(&id))
    }
}

/// Makes every view `record` defines in `db` again (the core loads the copy its last
/// checkpoint stored if the table is unchanged since, else recomputes it); a view
/// whose table is gone is left out, its definition kept for Delete, as the server does.
fn recreate_views(record: &InstanceRecord, db: &sparsetable::SharedDatabase) {
    for v in record.materialized_views() {
        let _ = db.write(|d| {
            d.create_materialized_view(&v.id, &v.query, v.deletion_protection)
                .map(|_| ())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::database::{Database, Durability};
    use sparsetable::api::instances::{decode_file, INSTANCE_FILE};

    const SERVER_WROTE: &[u8] = include_bytes!("../../../tests/fixtures/instance/INSTANCE");

    fn temp_root(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "sparsetable-kotlin-instfile-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn admin_on(folder: &Path) -> Result<(Arc<InstanceAdmin>, Arc<InstancePlane>)> {
        let db = Database::open(folder.to_string_lossy().into_owned(), Durability::None)?;
        let plane = InstancePlane::new(db, "sparsetable-c1".into(), None)?;
        let admin = InstanceAdmin::new(
            plane.clone(),
            "sparsetable".into(),
            "sparsetable".into(),
            "sparsetable-c1".into(),
        )?;
        Ok((admin, plane))
    }

    fn code(e: &SparsetableError) -> String {
        format!("{e:?}")
    }

    #[test]
    fn a_durable_instance_keeps_its_record_in_the_instance_file() {
        let root = temp_root("durable");
        let folder = root.join("my-project").join("my-instance");
        let (admin, plane) = admin_on(&folder).unwrap();
        assert!(!folder.join(INSTANCE_FILE).exists(), "nothing changed yet");
        admin.add_cluster("second-cluster".into()).unwrap();
        admin
            .create_app_profile(AppProfileInfo {
                id: "pinned".into(),
                description: "to the second".into(),
                etag: String::new(),
                routing: ProfileRouting::SingleCluster {
                    cluster_id: "second-cluster".into(),
                    allow_transactional_writes: true,
                },
                data_boost: false,
            })
            .unwrap();
        // A refused change writes nothing.
        let before = std::fs::read(folder.join(INSTANCE_FILE)).unwrap();
        assert!(admin.remove_cluster("second-cluster".into()).is_err());
        assert_eq!(std::fs::read(folder.join(INSTANCE_FILE)).unwrap(), before);
        // Named after the server's layout, so the server reads it under the right name.
        let stored = decode_file(&before).unwrap();
        assert_eq!(
            (stored.record.project.as_str(), stored.record.id.as_str()),
            ("my-project", "my-instance")
        );
        drop((admin, plane));
        // Reopened (the directory lock went with the last handle), the record is read back
        // and routes the plane.
        let (admin, plane) = admin_on(&folder).unwrap();
        let ids: Vec<String> = admin.clusters().into_iter().map(|c| c.id).collect();
        assert_eq!(ids, ["second-cluster", "sparsetable-c1"]);
        assert_eq!(
            admin.app_profile("pinned".into()).unwrap().description,
            "to the second"
        );
        let mut routed = plane.cluster_ids().unwrap();
        routed.sort();
        assert_eq!(routed, ids);
        drop((admin, plane));
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_folder_the_server_wrote_opens_with_its_clusters_and_keeps_its_extension() {
        let root = temp_root("server");
        let folder = root.join("fixture-project").join("fixture-inst");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join(INSTANCE_FILE), SERVER_WROTE).unwrap();
        let (admin, plane) = admin_on(&folder).unwrap();
        let ids: Vec<String> = admin.clusters().into_iter().map(|c| c.id).collect();
        assert_eq!(ids, ["fixture-c1", "fixture-c2"]);
        assert_eq!(plane.cluster_ids().unwrap(), ["fixture-c1", "fixture-c2"]);
        let profiles: Vec<String> = admin
            .listed_app_profiles()
            .into_iter()
            .map(|p| p.id)
            .collect();
        assert_eq!(profiles, ["any", "default", "single"]);
        admin.delete_app_profile("any".into()).unwrap();
        let after = decode_file(&std::fs::read(folder.join(INSTANCE_FILE)).unwrap()).unwrap();
        let before = decode_file(SERVER_WROTE).unwrap();
        assert_eq!(
            after.extension, before.extension,
            "the server's records are kept"
        );
        assert_eq!(after.record.app_profiles().len(), 1);
        drop((admin, plane));
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_plane_alone_routes_by_the_file_before_any_admin_call() {
        let root = temp_root("plane");
        let folder = root.join("fixture-project").join("fixture-inst");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join(INSTANCE_FILE), SERVER_WROTE).unwrap();
        let db = Database::open(folder.to_string_lossy().into_owned(), Durability::None).unwrap();
        let plane = InstancePlane::new(db, "sparsetable-c1".into(), None).unwrap();
        assert_eq!(plane.cluster_ids().unwrap(), ["fixture-c1", "fixture-c2"]);
        drop(plane);
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_damaged_instance_file_is_data_loss() {
        let root = temp_root("damaged");
        let folder = root.join("p").join("inst");
        std::fs::create_dir_all(&folder).unwrap();
        for bytes in [&SERVER_WROTE[..SERVER_WROTE.len() / 2], b"garbage", b""] {
            std::fs::write(folder.join(INSTANCE_FILE), bytes).unwrap();
            let e = admin_on(&folder).map(|_| ()).unwrap_err();
            assert!(code(&e).contains("DATA_LOSS"), "{e:?}");
            assert!(code(&e).contains(INSTANCE_FILE), "{e:?}");
        }
        let _ = std::fs::remove_dir_all(&root);
    }
}
