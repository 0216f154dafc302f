//! The exported instance metadata: the core's [`sparsetable::InstanceRecord`] (clusters, app
//! profiles with etags, the implied `default` profile) for the Kotlin instance admin client.
//!
//! Every rule is the record's (ids, etags, what may be removed, the implied default profile);
//! this module converts records and errors only. One [`InstanceAdmin`] belongs to one
//! [`InstancePlane`]: after each successful operation the plane's routing is set from the
//! record, so the record is the one source of clusters and profiles.
//!
//! Invariant: an operation applies to a copy of the record, hands the copy's routing to the
//! plane and only then keeps the copy, so a failed operation (the record's refusal or the
//! plane's) changes nothing. No exported function panics on any input.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use sparsetable::api::instances::record::DEFAULT_ZONE;
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
fn missing(refused: sparsetable::Result<()>) -> SparsetableError {
    to_ffi(refused.err().unwrap_or_else(|| {
        sparsetable::Error::new(sparsetable::Code::Internal, "a missing resource was found")
    }))
}

/// One instance's clusters and app profiles (the core's `InstanceRecord`), driving the
/// routing of its [`InstancePlane`].
#[derive(Debug, uniffi::Object)]
pub struct InstanceAdmin {
    plane: Arc<InstancePlane>,
    record: Mutex<InstanceRecord>,
}

impl InstanceAdmin {
    fn record(&self) -> MutexGuard<'_, InstanceRecord> {
        // A panic cannot leave a half-changed record (changes are made on a copy and kept
        // whole), so a poisoned lock still guards a consistent record.
        self.record.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Applies `op` to a copy of the record, sets the plane's routing from the copy, and keeps
    /// the copy; on any error nothing changes.
    fn change<T>(
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
        *guard = next;
        Ok(out)
    }
}

#[uniffi::export]
impl InstanceAdmin {
    /// The record of instance `projects/{project}/instances/{instance_id}` whose one cluster,
    /// `cluster_id`, is `plane`'s first; no app profile is stored (`default` is implied).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a project or instance id requests may not name.
    #[uniffi::constructor]
    pub fn new(
        plane: Arc<InstancePlane>,
        project: String,
        instance_id: String,
        cluster_id: String,
    ) -> Result<Arc<Self>> {
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

    /// Removes cluster `id`.
    ///
    /// # Errors
    /// The record's `remove_cluster`: `NOT_FOUND`, `FAILED_PRECONDITION`.
    pub fn remove_cluster(&self, id: String) -> Result<()> {
        self.change(|r| r.remove_cluster(&id))
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
