//! What the Instance Admin API records about an instance besides its data: the instance's own
//! fields (display name, type, labels, creation time), its clusters (with their autoscaling
//! settings), its app profiles, and the IAM policies set on it and on its tables.
//!
//! Clusters and app profiles here are also what routing and replication run on: with two or
//! more clusters the registry keeps a copy of the data per cluster and routes each data
//! request by its app profile (converted to the core's `AppProfile`); node counts, autoscaling
//! and locations are settings clients read back.
//!
//! Invariants: an instance has at least one cluster; cluster and app profile ids are unique
//! within an instance and kept sorted by id; names stored in the messages are full resource
//! names (`projects/P/instances/I/...`). With a data directory the record lives in the
//! instance's folder as [`INSTANCE_FILE`] (docs/format/instance.md): replaced whole and
//! atomically, decoded without panicking (damage is `DataLoss`). A folder written by an older
//! server holds only a `CLUSTERS` file (docs/format/clusters.md), which is still read.

use prost::Message;

use sparsetable::error::quoted;
use sparsetable::{Code, Error, Result};

use crate::clusters::ClusterSpec;
use crate::names::InstanceName;
use crate::stubs::admin_v2;
use googleapis_tonic_google_bigtable_admin_v2::google::iam::v1 as iam;

/// The name of the file in an instance's folder that keeps its [`InstanceMeta`].
pub const INSTANCE_FILE: &str = "INSTANCE";

/// The first bytes of a version-1 [`INSTANCE_FILE`] (version 2 is the core's,
/// `sparsetable::api::instances::INSTANCE_FILE_MAGIC`).
pub const MAGIC: &[u8] = sparsetable::api::instances::file::INSTANCE_FILE_MAGIC_V1;

/// Largest [`INSTANCE_FILE`] accepted (Cloud Bigtable allows a handful of clusters and a few
/// hundred app profiles; IAM policies are a few KiB each).
const MAX_FILE_BYTES: usize = 16 << 20;

/// An IAM policy and the resource it is set on.
#[derive(Clone, PartialEq, Message)]
pub struct ResourcePolicy {
    /// The full resource name (an instance, a table or a backup).
    #[prost(string, tag = "1")]
    pub resource: String,
    /// The policy as last set.
    #[prost(message, optional, tag = "2")]
    pub policy: Option<iam::Policy>,
}

/// One instance's admin metadata (see the module docs). Its protobuf encoding is the body of
/// [`INSTANCE_FILE`].
#[derive(Clone, PartialEq, Message)]
pub struct InstanceMeta {
    /// The instance as GetInstance returns it.
    #[prost(message, optional, tag = "1")]
    pub instance: Option<admin_v2::Instance>,
    /// Its clusters, sorted by id.
    #[prost(message, repeated, tag = "2")]
    pub clusters: Vec<admin_v2::Cluster>,
    /// Its app profiles, sorted by id.
    #[prost(message, repeated, tag = "3")]
    pub app_profiles: Vec<admin_v2::AppProfile>,
    /// IAM policies set on the instance or its tables, sorted by resource.
    #[prost(message, repeated, tag = "4")]
    pub iam_policies: Vec<ResourcePolicy>,
    /// What the engine does not keep of each backup, sorted by backup id.
    #[prost(message, repeated, tag = "5")]
    pub backups: Vec<BackupRecord>,
    /// The authorized views of its tables, sorted by full name
    /// (see [`crate::authorized_views`]).
    #[prost(message, repeated, tag = "6")]
    pub authorized_views: Vec<admin_v2::AuthorizedView>,
    /// The tables whose change stream is enabled, sorted by table id.
    #[prost(message, repeated, tag = "7")]
    pub change_streams: Vec<ChangeStreamSetting>,
    /// Its logical views, sorted by id (the core's record is authoritative for them; see
    /// [`crate::instance_record`]).
    #[prost(message, repeated, tag = "8")]
    pub logical_views: Vec<admin_v2::LogicalView>,
    /// Its continuous materialized views, sorted by full name (the core's record is
    /// authoritative for them, as for logical views; servers before `INSTANCE` version 4 kept
    /// them here alone, see [`crate::instance_record::decode_meta`]): created again on the
    /// database when the registry opens it.
    #[prost(message, repeated, tag = "9")]
    pub materialized_views: Vec<admin_v2::MaterializedView>,
}

/// A table's change stream setting (CreateTable / UpdateTable `change_stream_config`).
#[derive(Clone, PartialEq, Message)]
pub struct ChangeStreamSetting {
    /// The table id.
    #[prost(string, tag = "1")]
    pub table_id: String,
    /// The retention period, in microseconds (1 to 7 days).
    #[prost(int64, tag = "2")]
    pub retention_micros: i64,
}

/// The admin API's side of a backup (the engine keeps its data, source table, size and time).
#[derive(Clone, PartialEq, Message)]
pub struct BackupRecord {
    /// The backup id.
    #[prost(string, tag = "1")]
    pub backup_id: String,
    /// The cluster CreateBackup named (listing with cluster `-` reports it).
    #[prost(string, tag = "2")]
    pub cluster_id: String,
    /// When it expires, as last set.
    #[prost(message, optional, tag = "3")]
    pub expire_time: Option<prost_types::Timestamp>,
}

/// The last component of a resource name (`.../clusters/ID` -> `ID`).
pub fn last_id(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

impl InstanceMeta {
    /// What an instance that nobody created explicitly reports: its id as display name,
    /// PRODUCTION, READY, no labels, and one cluster (see [`ClusterSpec::default_for`]).
    pub fn default_for(instance: &InstanceName) -> Self {
        InstanceMeta {
            instance: Some(admin_v2::Instance {
                name: instance.to_string(),
                display_name: instance.instance.clone(),
                state: admin_v2::instance::State::Ready as i32,
                r#type: admin_v2::instance::Type::Production as i32,
                ..Default::default()
            }),
            clusters: vec![cluster_proto(instance, &ClusterSpec::default_for(instance))],
            app_profiles: Vec::new(),
            iam_policies: Vec::new(),
            backups: Vec::new(),
            authorized_views: Vec::new(),
            change_streams: Vec::new(),
            logical_views: Vec::new(),
            materialized_views: Vec::new(),
        }
    }

    /// The record of backup `id`, if any.
    pub fn backup(&self, id: &str) -> Option<&BackupRecord> {
        self.backups.iter().find(|b| b.backup_id == id)
    }

    /// Records (or replaces) a backup's record.
    pub fn set_backup(&mut self, record: BackupRecord) {
        self.backups.retain(|b| b.backup_id != record.backup_id);
        self.backups.push(record);
        self.backups.sort_by(|a, b| a.backup_id.cmp(&b.backup_id));
    }

    /// The metadata of an instance whose folder holds only a version-1 `CLUSTERS` file.
    pub fn from_clusters(instance: &InstanceName, clusters: &[ClusterSpec]) -> Self {
        let mut meta = InstanceMeta::default_for(instance);
        meta.clusters = clusters
            .iter()
            .map(|c| cluster_proto(instance, c))
            .collect();
        meta.clusters.sort_by(|a, b| a.name.cmp(&b.name));
        meta
    }

    /// The instance message (always present once built by this module).
    pub fn instance(&self) -> admin_v2::Instance {
        self.instance.clone().unwrap_or_default()
    }

    /// The clusters in the light form the table admin service uses.
    pub fn cluster_specs(&self) -> Vec<ClusterSpec> {
        self.clusters
            .iter()
            .map(|c| ClusterSpec {
                id: last_id(&c.name).to_string(),
                location: c.location.clone(),
                serve_nodes: c.serve_nodes,
                default_storage_type: c.default_storage_type,
            })
            .collect()
    }

    /// The cluster with id `id`, if any.
    pub fn cluster_mut(&mut self, id: &str) -> Option<&mut admin_v2::Cluster> {
        self.clusters.iter_mut().find(|c| last_id(&c.name) == id)
    }

    /// The app profile with id `id`, if any.
    pub fn app_profile_mut(&mut self, id: &str) -> Option<&mut admin_v2::AppProfile> {
        self.app_profiles
            .iter_mut()
            .find(|p| last_id(&p.name) == id)
    }

    /// The policy set on `resource`, if any.
    pub fn policy(&self, resource: &str) -> Option<&iam::Policy> {
        self.iam_policies
            .iter()
            .find(|p| p.resource == resource)
            .and_then(|p| p.policy.as_ref())
    }

    /// Sets (or replaces) the policy of `resource`.
    pub fn set_policy(&mut self, resource: &str, policy: iam::Policy) {
        match self
            .iam_policies
            .iter_mut()
            .find(|p| p.resource == resource)
        {
            Some(p) => p.policy = Some(policy),
            None => {
                self.iam_policies.push(ResourcePolicy {
                    resource: resource.to_string(),
                    policy: Some(policy),
                });
                self.iam_policies
                    .sort_by(|a, b| a.resource.cmp(&b.resource));
            }
        }
    }

    /// Forgets the policies of `resource` and of everything under it (a deleted table).
    pub fn forget_policies_under(&mut self, resource: &str) {
        let prefix = format!("{resource}/");
        self.iam_policies
            .retain(|p| p.resource != resource && !p.resource.starts_with(&prefix));
    }

    /// Reads a version-1 [`INSTANCE_FILE`] (this message alone after its magic, written by
    /// earlier servers); version 2 is read by [`crate::instance_record::decode_meta`].
    ///
    /// # Errors
    /// `DataLoss` for a file that is not version 1, is damaged, or breaks an invariant.
    pub fn decode_version_1(bytes: &[u8]) -> Result<Self> {
        let damaged = |why: &str| {
            Error::new(
                Code::DataLoss,
                format!("the {INSTANCE_FILE} file is damaged: {why}"),
            )
        };
        if bytes.len() > MAX_FILE_BYTES {
            return Err(damaged("larger than 16 MiB"));
        }
        let Some(body) = bytes.strip_prefix(MAGIC) else {
            return Err(damaged("it does not start with \"sparsetable-instance 1\""));
        };
        let meta = InstanceMeta::decode(body).map_err(|e| damaged(&e.to_string()))?;
        Self::check_decoded(meta)
    }

    /// What the server relies on in metadata read from a file.
    ///
    /// # Errors
    /// `DataLoss` naming what is wrong.
    pub fn check_decoded(meta: Self) -> Result<Self> {
        let damaged = |why: &str| {
            Error::new(
                Code::DataLoss,
                format!("the {INSTANCE_FILE} file is damaged: {why}"),
            )
        };
        if meta.instance.is_none() {
            return Err(damaged("no instance record"));
        }
        if meta.clusters.is_empty() {
            return Err(damaged("no cluster"));
        }
        // A stored id was checked when it was created, or is the default cluster's
        // (`<instance>-c1`, which may be shorter or longer than a requested id may be), so
        // only what a resource name needs is checked here.
        for c in &meta.clusters {
            let id = last_id(&c.name);
            if id.is_empty() || !c.name.contains("/clusters/") {
                return Err(damaged(&format!(
                    "cluster name {} is malformed",
                    quoted(&c.name)
                )));
            }
        }
        let sorted_unique = |names: Vec<&str>| names.windows(2).all(|w| w[0] < w[1]);
        if !sorted_unique(meta.clusters.iter().map(|c| c.name.as_str()).collect())
            || !sorted_unique(meta.app_profiles.iter().map(|p| p.name.as_str()).collect())
            || !sorted_unique(
                meta.iam_policies
                    .iter()
                    .map(|p| p.resource.as_str())
                    .collect(),
            )
            || !sorted_unique(meta.backups.iter().map(|b| b.backup_id.as_str()).collect())
            || !sorted_unique(
                meta.authorized_views
                    .iter()
                    .map(|v| v.name.as_str())
                    .collect(),
            )
        {
            return Err(damaged("records out of order or repeated"));
        }
        Ok(meta)
    }
}

/// A cluster as the API returns it, from its light form.
pub fn cluster_proto(instance: &InstanceName, cluster: &ClusterSpec) -> admin_v2::Cluster {
    admin_v2::Cluster {
        name: format!("{instance}/clusters/{}", cluster.id),
        location: cluster.location.clone(),
        state: admin_v2::cluster::State::Ready as i32,
        serve_nodes: cluster.serve_nodes,
        default_storage_type: cluster.default_storage_type,
        ..Default::default()
    }
}

/// A new etag for an app profile or a policy: distinct for every change in this process.
pub fn next_etag() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    format!("{:x}", t ^ n.rotate_left(40))
}

/// The error for an id no record of the instance has.
pub fn not_found(kind: &str, id: &str, instance: &InstanceName) -> Error {
    Error::new(
        Code::NotFound,
        format!("{kind} {} not found in instance {instance}", quoted(id)),
    )
}
