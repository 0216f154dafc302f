//! [`InstanceRecord`]: one instance's metadata, and the operations of the Instance Admin API
//! on it (the rules are in the module docs of [`super`]). Each operation checks its whole
//! input first and changes nothing when it fails, so a front-end can apply it to a copy,
//! store the copy and only then publish it.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::ids::{
    check_id, check_project_id, validate_cluster_id, validate_display_name, validate_labels,
    validate_new_instance_id, validate_zone, MAX_APP_PROFILES, MAX_CLUSTERS, MAX_DESCRIPTION_CHARS,
};
use crate::api::replication::{validate_app_profile_id, AppProfile, Isolation, Routing};
use crate::error::quoted;
use crate::{Code, Error, Result};

/// An instance's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InstanceType {
    /// A production instance (the default).
    #[default]
    Production,
    /// A development instance (may become PRODUCTION, never back).
    Development,
}

/// A cluster's storage type, fixed when the cluster is created.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StorageType {
    /// Solid-state (the default).
    #[default]
    Ssd,
    /// Hard disk.
    Hdd,
}

/// A cluster's autoscaling settings (clients read them back; nodes are not simulated).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Autoscaling {
    /// At least one.
    pub min_nodes: i32,
    /// At least `min_nodes`.
    pub max_nodes: i32,
    /// 10 to 80; 0: unset.
    pub cpu_percent: i32,
    /// Not negative; 0: unset.
    pub storage_gib_per_node: i32,
}

/// A cluster of an instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterRecord {
    /// Its id.
    pub id: String,
    /// Its zone (the last part of its location name).
    pub zone: String,
    /// Its node count (not negative).
    pub serve_nodes: i32,
    /// Its storage type.
    pub storage: StorageType,
    /// Its autoscaling settings, if any.
    pub autoscaling: Option<Autoscaling>,
}

/// The zone of a cluster that nobody placed.
pub const DEFAULT_ZONE: &str = "local";

impl ClusterRecord {
    /// A cluster in `zone` with one node on SSD, as a request that names only the id and
    /// location gets.
    pub fn new(id: &str, zone: &str) -> Self {
        ClusterRecord {
            id: id.to_string(),
            zone: zone.to_string(),
            serve_nodes: 1,
            storage: StorageType::Ssd,
            autoscaling: None,
        }
    }

    /// Checks the cluster against the rules.
    ///
    /// # Errors
    /// `InvalidArgument` naming the first rule broken.
    pub fn validate(&self) -> Result<()> {
        validate_cluster_id(&self.id)?;
        validate_zone(&self.zone)?;
        if self.serve_nodes < 0 {
            return Err(Error::invalid_argument(format!(
                "cluster {}: serve_nodes must not be negative",
                self.id
            )));
        }
        if let Some(a) = &self.autoscaling {
            if a.min_nodes < 1 || a.max_nodes < a.min_nodes {
                return Err(Error::invalid_argument(
                    "autoscaling_limits: min_serve_nodes must be at least 1 and at most max_serve_nodes",
                ));
            }
            if !(a.cpu_percent == 0 || (10..=80).contains(&a.cpu_percent))
                || a.storage_gib_per_node < 0
            {
                return Err(Error::invalid_argument(
                    "autoscaling_targets: cpu_utilization_percent must be 10 to 80 (0: unset) and storage_utilization_gib_per_node not negative",
                ));
            }
        }
        Ok(())
    }
}

/// An app profile of an instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppProfileRecord {
    /// Its id.
    pub id: String,
    /// Its description (free text).
    pub description: String,
    /// Changes whenever the profile does (optimistic concurrency for updates).
    pub etag: String,
    /// Where its requests go.
    pub routing: Routing,
    /// Which compute they use.
    pub isolation: Isolation,
}

impl AppProfileRecord {
    /// A profile routing every request to any cluster, standard isolation, no description.
    pub fn any_cluster(id: &str) -> Self {
        AppProfileRecord {
            id: id.to_string(),
            description: String::new(),
            etag: String::new(),
            routing: Routing::MultiCluster {
                cluster_ids: Vec::new(),
                row_affinity: false,
            },
            isolation: Isolation::Standard,
        }
    }

    /// The profile as routing needs it.
    pub fn to_app_profile(&self) -> AppProfile {
        AppProfile {
            id: self.id.clone(),
            routing: self.routing.clone(),
            isolation: self.isolation,
        }
    }
}

/// One instance's metadata (see the module docs of [`super`] for its invariants).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstanceRecord {
    /// The project id.
    pub project: String,
    /// The instance id.
    pub id: String,
    /// Its display name.
    pub display_name: String,
    /// Its type.
    pub kind: InstanceType,
    /// Its labels.
    pub labels: BTreeMap<String, String>,
    /// When it was created, in microseconds since the epoch (0: unknown).
    pub create_time_micros: i64,
    pub(super) clusters: Vec<ClusterRecord>,
    pub(super) app_profiles: Vec<AppProfileRecord>,
    pub(super) logical_views: Vec<super::logical_views::LogicalViewRecord>,
    pub(super) materialized_views: Vec<super::materialized_views::MaterializedViewRecord>,
    /// The number the next etag is made from (kept, so etags never repeat across restarts).
    pub(super) etag_counter: u64,
}

fn not_found(kind: &str, id: &str, instance: &str) -> Error {
    Error::new(
        Code::NotFound,
        format!("{kind} {} not found in instance {instance}", quoted(id)),
    )
}

impl InstanceRecord {
    /// A new instance, as CreateInstance makes it: every id and field checked, clusters
    /// sorted by id, no app profile stored (the default profile follows routing's rule). A
    /// `display_name` of `None` is the instance id.
    ///
    /// # Errors
    /// `InvalidArgument` for a bad project, instance id, display name, label or cluster, no
    /// cluster, too many, or a cluster id given twice.
    pub fn create(
        project: &str,
        id: &str,
        display_name: Option<&str>,
        kind: InstanceType,
        labels: BTreeMap<String, String>,
        mut clusters: Vec<ClusterRecord>,
        create_time_micros: i64,
    ) -> Result<Self> {
        check_project_id("parent", project)?;
        validate_new_instance_id(id)?;
        if let Some(name) = display_name {
            validate_display_name(name)?;
        }
        validate_labels(labels.iter().map(|(k, v)| (k.as_str(), v.as_str())))?;
        if clusters.is_empty() {
            return Err(Error::invalid_argument(
                "clusters: an instance needs at least one cluster",
            ));
        }
        if clusters.len() > MAX_CLUSTERS {
            return Err(Error::invalid_argument(format!(
                "clusters: an instance has at most {MAX_CLUSTERS} clusters"
            )));
        }
        for c in &clusters {
            c.validate()?;
        }
        clusters.sort_by(|a, b| a.id.cmp(&b.id));
        if let Some(w) = clusters.windows(2).find(|w| w[0].id == w[1].id) {
            return Err(Error::invalid_argument(format!(
                "clusters: cluster id {} is given twice",
                quoted(&w[0].id)
            )));
        }
        Ok(InstanceRecord {
            project: project.to_string(),
            id: id.to_string(),
            display_name: display_name.unwrap_or(id).to_string(),
            kind,
            labels,
            create_time_micros,
            clusters,
            app_profiles: Vec::new(),
            logical_views: Vec::new(),
            materialized_views: Vec::new(),
            etag_counter: 0,
        })
    }

    /// What an instance that requests name but nobody created is: its id as display name,
    /// PRODUCTION, no labels, one cluster `{id}-c1` in [`DEFAULT_ZONE`] (that cluster id is
    /// not held to the rule for new clusters, as the instance id is not).
    ///
    /// # Errors
    /// `InvalidArgument` for a project or instance id that requests may not name.
    pub fn implicit(project: &str, id: &str) -> Result<Self> {
        check_project_id("name", project)?;
        check_id("name", "instance", id)?;
        Ok(InstanceRecord {
            project: project.to_string(),
            id: id.to_string(),
            display_name: id.to_string(),
            kind: InstanceType::Production,
            labels: BTreeMap::new(),
            create_time_micros: 0,
            clusters: alloc::vec![ClusterRecord::new(&format!("{id}-c1"), DEFAULT_ZONE)],
            app_profiles: Vec::new(),
            logical_views: Vec::new(),
            materialized_views: Vec::new(),
            etag_counter: 0,
        })
    }

    /// A record from its parts, as a front-end that keeps its own copy of these facts (the
    /// server's older file) hands them over: the model's invariants are checked (at least
    /// one cluster, ids unique, profiles routing only to the instance's clusters); the id
    /// rules for new resources are not, since instances named implicitly do not follow them.
    /// Clusters and profiles are sorted by id.
    ///
    /// # Errors
    /// `InvalidArgument` naming the invariant broken.
    #[allow(clippy::too_many_arguments)]
    pub fn assemble(
        project: &str,
        id: &str,
        display_name: &str,
        kind: InstanceType,
        labels: BTreeMap<String, String>,
        create_time_micros: i64,
        mut clusters: Vec<ClusterRecord>,
        mut app_profiles: Vec<AppProfileRecord>,
    ) -> Result<Self> {
        check_project_id("name", project)?;
        check_id("name", "instance", id)?;
        clusters.sort_by(|a, b| a.id.cmp(&b.id));
        app_profiles.sort_by(|a, b| a.id.cmp(&b.id));
        // Etags this model made carry their counter; continue after the largest, so the next
        // change gets an etag no profile has had.
        let prefix = format!("{}-", create_time_micros.max(0));
        let etag_counter = app_profiles
            .iter()
            .filter_map(|p| p.etag.strip_prefix(prefix.as_str()))
            .filter_map(|hex| u64::from_str_radix(hex, 16).ok())
            .max()
            .unwrap_or(0);
        let record = InstanceRecord {
            project: project.to_string(),
            id: id.to_string(),
            display_name: display_name.to_string(),
            kind,
            labels,
            create_time_micros,
            clusters,
            app_profiles,
            logical_views: Vec::new(),
            materialized_views: Vec::new(),
            etag_counter,
        };
        record.check_invariants()?;
        Ok(record)
    }

    /// The invariants of the module docs of [`super`] that do not depend on id rules.
    ///
    /// # Errors
    /// `InvalidArgument` naming the first broken.
    pub(super) fn check_invariants(&self) -> Result<()> {
        super::views::check_views(&self.logical_views)?;
        super::views::check_views(&self.materialized_views)?;
        if self.clusters.is_empty() {
            return Err(Error::invalid_argument("the instance has no cluster"));
        }
        if self.clusters.windows(2).any(|w| w[0].id >= w[1].id) {
            return Err(Error::invalid_argument(
                "clusters are not sorted by distinct ids",
            ));
        }
        if self.app_profiles.windows(2).any(|w| w[0].id >= w[1].id) {
            return Err(Error::invalid_argument(
                "app profiles are not sorted by distinct ids",
            ));
        }
        for p in &self.app_profiles {
            validate_app_profile_id(&p.id)?;
            let named: Vec<&String> = match &p.routing {
                Routing::SingleCluster { cluster_id, .. } => alloc::vec![cluster_id],
                Routing::MultiCluster { cluster_ids, .. } => cluster_ids.iter().collect(),
            };
            if let Some(missing) = named.iter().find(|id| self.cluster(id).is_none()) {
                return Err(Error::invalid_argument(format!(
                    "app profile {} routes to cluster {}, which the instance does not have",
                    quoted(&p.id),
                    quoted(missing)
                )));
            }
        }
        Ok(())
    }

    /// `projects/{project}/instances/{id}`.
    pub fn name(&self) -> String {
        format!("projects/{}/instances/{}", self.project, self.id)
    }

    /// The clusters, by id.
    pub fn clusters(&self) -> &[ClusterRecord] {
        &self.clusters
    }

    /// The stored app profiles, by id (the default profile is implied unless stored).
    pub fn app_profiles(&self) -> &[AppProfileRecord] {
        &self.app_profiles
    }

    /// Cluster `id`, if the instance has it.
    pub fn cluster(&self, id: &str) -> Option<&ClusterRecord> {
        self.clusters.iter().find(|c| c.id == id)
    }

    /// App profile `id`, if stored.
    pub fn app_profile(&self, id: &str) -> Option<&AppProfileRecord> {
        self.app_profiles.iter().find(|p| p.id == id)
    }

    /// What routing needs: the cluster ids (sorted) and the stored profiles.
    pub fn routing(&self) -> (Vec<String>, Vec<AppProfile>) {
        (
            self.clusters.iter().map(|c| c.id.clone()).collect(),
            self.app_profiles
                .iter()
                .map(AppProfileRecord::to_app_profile)
                .collect(),
        )
    }

    /// The profile requests with `id` get: the stored one, or for `default` (and the empty
    /// id) routing's default rule (one cluster: single-cluster with transactions; two or
    /// more: any cluster without them). `None` for an unknown id.
    pub fn effective_app_profile(&self, id: &str) -> Option<AppProfileRecord> {
        let id = if id.is_empty() { "default" } else { id };
        if let Some(p) = self.app_profile(id) {
            return Some(p.clone());
        }
        if id != "default" {
            return None;
        }
        let mut p = AppProfileRecord::any_cluster("default");
        if let [only] = self.clusters.as_slice() {
            p.routing = Routing::SingleCluster {
                cluster_id: only.id.clone(),
                allow_transactional_writes: true,
            };
        }
        Some(p)
    }

    /// The app profiles ListAppProfiles shows: the stored ones and, unless one is stored
    /// under that id, the implied `default` ([`effective_app_profile`](Self::effective_app_profile)),
    /// as every Cloud Bigtable instance has one. By id.
    pub fn listed_app_profiles(&self) -> Vec<AppProfileRecord> {
        let mut out = self.app_profiles.clone();
        if self.app_profile("default").is_none() {
            if let Some(p) = self.effective_app_profile("default") {
                let at = out.partition_point(|q| q.id.as_str() < "default");
                out.insert(at, p);
            }
        }
        out
    }

    /// Sets the display name.
    ///
    /// # Errors
    /// `InvalidArgument` for a name that breaks the rule.
    pub fn set_display_name(&mut self, name: &str) -> Result<()> {
        validate_display_name(name)?;
        self.display_name = name.to_string();
        Ok(())
    }

    /// Changes the type: DEVELOPMENT may become PRODUCTION, not back.
    ///
    /// # Errors
    /// `FailedPrecondition` for PRODUCTION to DEVELOPMENT.
    pub fn set_kind(&mut self, kind: InstanceType) -> Result<()> {
        if kind == InstanceType::Development && self.kind == InstanceType::Production {
            return Err(Error::new(
                Code::FailedPrecondition,
                "a PRODUCTION instance cannot become DEVELOPMENT",
            ));
        }
        self.kind = kind;
        Ok(())
    }

    /// Replaces the labels.
    ///
    /// # Errors
    /// `InvalidArgument` for a label that breaks the rules.
    pub fn set_labels(&mut self, labels: BTreeMap<String, String>) -> Result<()> {
        validate_labels(labels.iter().map(|(k, v)| (k.as_str(), v.as_str())))?;
        self.labels = labels;
        Ok(())
    }

    /// Adds a cluster (CreateCluster).
    ///
    /// # Errors
    /// `InvalidArgument` for a cluster that breaks the rules or one too many;
    /// `AlreadyExists` for an id the instance has.
    pub fn add_cluster(&mut self, cluster: ClusterRecord) -> Result<()> {
        cluster.validate()?;
        if self.cluster(&cluster.id).is_some() {
            return Err(Error::new(
                Code::AlreadyExists,
                format!(
                    "cluster {} already exists in instance {}",
                    quoted(&cluster.id),
                    self.name()
                ),
            ));
        }
        if self.clusters.len() >= MAX_CLUSTERS {
            return Err(Error::invalid_argument(format!(
                "clusters: an instance has at most {MAX_CLUSTERS} clusters"
            )));
        }
        self.clusters.push(cluster);
        self.clusters.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(())
    }

    /// Changes a cluster's node count and autoscaling (UpdateCluster,
    /// PartialUpdateCluster); its zone and storage type stay.
    ///
    /// # Errors
    /// `NotFound` for a cluster the instance lacks; `InvalidArgument` for values that break
    /// the rules.
    pub fn update_cluster(
        &mut self,
        id: &str,
        serve_nodes: i32,
        autoscaling: Option<Autoscaling>,
    ) -> Result<()> {
        let name = self.name();
        let Some(c) = self.clusters.iter_mut().find(|c| c.id == id) else {
            return Err(not_found("cluster", id, &name));
        };
        let mut next = c.clone();
        next.serve_nodes = serve_nodes;
        next.autoscaling = autoscaling;
        next.validate()?;
        *c = next;
        Ok(())
    }

    /// Sets a cluster's autoscaling and keeps its node count (Google's Java client's
    /// `updateClusterAutoscalingConfig`): the count is read and written back in this one
    /// change, so a resize made between a read and a write elsewhere cannot be undone by it.
    ///
    /// # Errors
    /// As [`InstanceRecord::update_cluster`].
    pub fn set_cluster_autoscaling(
        &mut self,
        id: &str,
        autoscaling: Option<Autoscaling>,
    ) -> Result<()> {
        match self.cluster(id).map(|c| c.serve_nodes) {
            Some(nodes) => self.update_cluster(id, nodes, autoscaling),
            None => Err(not_found("cluster", id, &self.name())),
        }
    }

    /// Removes a cluster (DeleteCluster); multi-cluster profiles that list it forget it.
    ///
    /// # Errors
    /// `NotFound` for a cluster the instance lacks; `FailedPrecondition` for its last
    /// cluster or one a single-cluster profile routes to.
    pub fn remove_cluster(&mut self, id: &str) -> Result<()> {
        if self.cluster(id).is_none() {
            return Err(not_found("cluster", id, &self.name()));
        }
        if self.clusters.len() == 1 {
            return Err(Error::new(
                Code::FailedPrecondition,
                format!(
                    "cluster {} is the last cluster of instance {}; delete the instance instead",
                    quoted(id),
                    self.name()
                ),
            ));
        }
        let pinned = self.app_profiles.iter().find(
            |p| matches!(&p.routing, Routing::SingleCluster { cluster_id, .. } if cluster_id == id),
        );
        if let Some(p) = pinned {
            return Err(Error::new(
                Code::FailedPrecondition,
                format!(
                    "cluster {} is the cluster of single-cluster app profile {}; route that profile elsewhere first",
                    quoted(id),
                    quoted(&p.id)
                ),
            ));
        }
        self.clusters.retain(|c| c.id != id);
        for p in &mut self.app_profiles {
            if let Routing::MultiCluster { cluster_ids, .. } = &mut p.routing {
                cluster_ids.retain(|c| c != id);
            }
        }
        Ok(())
    }

    fn check_profile(&self, profile: &AppProfileRecord) -> Result<()> {
        validate_app_profile_id(&profile.id)?;
        if profile.description.chars().count() > MAX_DESCRIPTION_CHARS {
            return Err(Error::invalid_argument(format!(
                "app profile description is longer than {MAX_DESCRIPTION_CHARS} characters"
            )));
        }
        let named: Vec<&String> = match &profile.routing {
            Routing::SingleCluster { cluster_id, .. } => alloc::vec![cluster_id],
            Routing::MultiCluster { cluster_ids, .. } => {
                let mut sorted: Vec<&String> = cluster_ids.iter().collect();
                sorted.sort();
                if sorted.windows(2).any(|w| w[0] == w[1]) {
                    return Err(Error::invalid_argument("app profile lists a cluster twice"));
                }
                cluster_ids.iter().collect()
            }
        };
        match named.iter().find(|id| self.cluster(id).is_none()) {
            Some(missing) => Err(Error::invalid_argument(format!(
                "app profile routes to cluster {}, which the instance does not have",
                quoted(missing)
            ))),
            None => Ok(()),
        }
    }

    /// Moves the etag counter past any of `etags` this record's counter made (etags handed
    /// over with views or profiles), so the next change gets an etag none has had.
    pub(super) fn absorb_etags<'a>(&mut self, etags: impl Iterator<Item = &'a str>) {
        let prefix = format!("{}-", self.create_time_micros.max(0));
        let made = etags
            .filter_map(|e| e.strip_prefix(prefix.as_str()))
            .filter_map(|hex| u64::from_str_radix(hex, 16).ok())
            .max()
            .unwrap_or(0);
        self.etag_counter = self.etag_counter.max(made);
    }

    pub(super) fn next_etag(&mut self) -> String {
        self.etag_counter += 1;
        format!("{}-{:x}", self.create_time_micros.max(0), self.etag_counter)
    }

    /// Stores a new app profile (CreateAppProfile); its etag is set here.
    ///
    /// # Errors
    /// `InvalidArgument` for a bad id or description, or routing to a cluster the instance
    /// lacks; `AlreadyExists` for an id already stored.
    pub fn create_app_profile(
        &mut self,
        mut profile: AppProfileRecord,
    ) -> Result<&AppProfileRecord> {
        self.check_profile(&profile)?;
        if self.app_profile(&profile.id).is_some() {
            return Err(Error::new(
                Code::AlreadyExists,
                format!(
                    "app profile {} already exists in instance {}",
                    quoted(&profile.id),
                    self.name()
                ),
            ));
        }
        if self.app_profiles.len() >= MAX_APP_PROFILES {
            return Err(Error::invalid_argument(format!(
                "an instance has at most {MAX_APP_PROFILES} app profiles"
            )));
        }
        profile.etag = self.next_etag();
        let at = self.app_profiles.partition_point(|p| p.id < profile.id);
        self.app_profiles.insert(at, profile);
        Ok(&self.app_profiles[at])
    }

    /// Replaces a stored app profile (UpdateAppProfile). A non-empty `etag` in `profile`
    /// must be the stored one (the profile was not changed since it was read). The implied
    /// `default` profile, listed but not stored, is stored by its first update (Bigtable lets
    /// a user change the default profile's routing; the docs say nothing of an etag for one
    /// never stored, so any given is accepted).
    ///
    /// # Errors
    /// `NotFound` for an id not stored (other than `default`); `Aborted` for a stale etag;
    /// as [`create_app_profile`](Self::create_app_profile) for the rest.
    pub fn update_app_profile(
        &mut self,
        mut profile: AppProfileRecord,
    ) -> Result<&AppProfileRecord> {
        self.check_profile(&profile)?;
        let name = self.name();
        let Some(at) = self.app_profiles.iter().position(|p| p.id == profile.id) else {
            if profile.id == "default" {
                return self.create_app_profile(profile);
            }
            return Err(not_found("app profile", &profile.id, &name));
        };
        if !profile.etag.is_empty() && profile.etag != self.app_profiles[at].etag {
            return Err(Error::new(
                Code::Aborted,
                format!(
                    "app profile {} changed since it was read (etag {} is stale)",
                    quoted(&profile.id),
                    quoted(&profile.etag)
                ),
            ));
        }
        profile.etag = self.next_etag();
        self.app_profiles[at] = profile;
        Ok(&self.app_profiles[at])
    }

    /// Removes a stored app profile (DeleteAppProfile).
    ///
    /// # Errors
    /// `NotFound` for an id not stored.
    pub fn delete_app_profile(&mut self, id: &str) -> Result<()> {
        if self.app_profile(id).is_none() {
            return Err(not_found("app profile", id, &self.name()));
        }
        self.app_profiles.retain(|p| p.id != id);
        Ok(())
    }
}
