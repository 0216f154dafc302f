//! The part of the Instance Admin API (`google.bigtable.admin.v2.BigtableInstanceAdmin`) that
//! clients call at start-up and in test set-up and tear-down.
//!
//! Google's clients and tools ask whether an instance exists before they use it (Python's
//! `instance.exists()`, Java's `BigtableInstanceAdminClient.exists`, `cbt listinstances` and
//! `cbt listclusters`), and test fixtures often create an instance first and delete it last.
//! Google's emulator serves none of these, so such code fails against it; here they answer as
//! Cloud Bigtable would for an instance on one machine.
//!
//! The model: as everywhere in this server, an instance exists once a request has named it
//! (or, with a data directory, once it has a folder there). What the admin API records about
//! it lives in [`crate::instance_meta`]: display name, type and labels; its clusters (the ones
//! CreateInstance and CreateCluster asked for, with their nodes, storage type and autoscaling
//! settings, or else one cluster, `{instance}-c1`, in `projects/{project}/locations/local`);
//! its app profiles. Everything is READY at once, and every operation is returned finished.
//! Node counts, storage types and autoscaling are settings clients read back; the clusters and
//! app profiles themselves are what data requests are routed and replicated by (the core's
//! `InstanceData`, docs/replication.md). CreateInstance makes an instance exist
//! (ALREADY_EXISTS if it does); DeleteInstance deletes every table and backup in it (or nothing
//! at all if a table has deletion protection) and the instance stops existing until named
//! again. Routes not listed in `build.rs` answer UNIMPLEMENTED. App profiles live in
//! [`app_profiles`], logical views (saved SQL queries that `FROM` may name) in
//! [`logical_views`], continuous materialized views in [`materialized_views`], and
//! ListHotTablets in [`hot_tablets`].

use std::sync::Arc;

use tonic::{Request, Response, Status};

use sparsetable::error::quoted;

use sparsetable::{Code, Error, Result};

use crate::clusters::{check_location, validate_cluster_id};
use crate::convert::timestamp_to_proto;
use crate::instance_meta::{not_found, InstanceMeta};
use crate::instance_record::{cluster_record, profile_record, with_record};
use crate::names::InstanceName;
use crate::operations::{pack, RequestMetadata};
use crate::registry::Instances;
use crate::status::to_status;
use crate::stubs::admin_v2;
use crate::stubs::instance_admin::bigtable_instance_admin_server::BigtableInstanceAdmin;
use googleapis_tonic_google_bigtable_admin_v2::google::longrunning;
use sparsetable::api::instances::ids;

mod app_profiles;
mod hot_tablets;
mod logical_views;
pub(crate) mod materialized_views;

/// The Instance Admin service.
#[derive(Debug, Clone)]
pub struct InstanceAdminService {
    instances: Arc<Instances>,
}

impl InstanceAdminService {
    /// A service over the same instances as the data and table admin services.
    pub fn new(instances: Arc<Instances>) -> Self {
        InstanceAdminService { instances }
    }
}

/// Parses `projects/P`; `field` names the request field in errors.
fn project_of(field: &str, name: &str) -> Result<String> {
    match name.split('/').collect::<Vec<_>>().as_slice() {
        ["projects", project] if !project.is_empty() => Ok(project.to_string()),
        _ => Err(Error::invalid_argument(format!(
            "{field} {name:?} must have the form projects/{{project}}"
        ))),
    }
}

/// The core's rules for an instance's labels.
fn validate_labels(labels: &std::collections::HashMap<String, String>) -> Result<()> {
    sparsetable::api::instances::ids::validate_labels(
        labels.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    )
}

/// The core's rule for a display name (4 to 30 characters).
fn validate_display_name(name: &str) -> Result<()> {
    sparsetable::api::instances::ids::validate_display_name(name)
}

/// A cluster as requested (CreateInstance, CreateCluster), checked and completed: its full
/// name, READY, the default location and storage type where the request left them out.
fn requested_cluster(
    instance: &InstanceName,
    id: &str,
    cluster: &admin_v2::Cluster,
) -> Result<admin_v2::Cluster> {
    validate_cluster_id(id)?;
    let mut out = cluster.clone();
    out.name = format!("{instance}/clusters/{id}");
    out.state = admin_v2::cluster::State::Ready as i32;
    if out.location.is_empty() {
        out.location = format!("projects/{}/locations/local", instance.project);
    } else {
        check_location(&out.location)?;
    }
    if out.default_storage_type == 0 {
        // Unspecified means the default, SSD.
        out.default_storage_type = admin_v2::StorageType::Ssd as i32;
    }
    check_nodes(&out)?;
    Ok(out)
}

/// Node counts: not negative; with autoscaling, limits that make sense.
fn check_nodes(cluster: &admin_v2::Cluster) -> Result<()> {
    if cluster.serve_nodes < 0 {
        return Err(Error::invalid_argument("serve_nodes must not be negative"));
    }
    if let Some(admin_v2::cluster::Config::ClusterConfig(config)) = &cluster.config {
        if let Some(auto) = &config.cluster_autoscaling_config {
            let limits = auto.autoscaling_limits.unwrap_or_default();
            if limits.min_serve_nodes < 1 || limits.max_serve_nodes < limits.min_serve_nodes {
                return Err(Error::invalid_argument(
                    "autoscaling_limits: min_serve_nodes must be at least 1 and at most max_serve_nodes",
                ));
            }
            let targets = auto.autoscaling_targets.unwrap_or_default();
            if !(0..=80).contains(&targets.cpu_utilization_percent)
                || targets.storage_utilization_gib_per_node < 0
            {
                return Err(Error::invalid_argument(
                    "autoscaling_targets: cpu_utilization_percent must be 10 to 80 (0: unset)",
                ));
            }
        }
    }
    Ok(())
}

/// The paths of an update mask; an empty or absent mask is INVALID_ARGUMENT.
fn mask_paths(mask: Option<&prost_types::FieldMask>) -> Result<&[String]> {
    match mask {
        Some(m) if !m.paths.is_empty() => Ok(&m.paths),
        _ => Err(Error::invalid_argument(
            "update_mask must name at least one field",
        )),
    }
}

/// Splits `projects/P/instances/I/{kind}/ID` into the instance and the id.
fn split_child<'a>(field: &str, name: &'a str, kind: &str) -> Result<(InstanceName, &'a str)> {
    let marker = format!("/{kind}/");
    match name.rsplit_once(&marker) {
        Some((instance, id)) if !id.is_empty() && !id.contains('/') => {
            Ok((InstanceName::parse(field, instance)?, id))
        }
        _ => Err(Error::invalid_argument(format!(
            "{field} {} must have the form projects/{{project}}/instances/{{instance}}/{kind}/{{id}}",
            quoted(name)
        ))),
    }
}

impl InstanceAdminService {
    fn existing(&self, field: &str, name: &str) -> Result<InstanceName> {
        let instance = InstanceName::parse(field, name)?;
        if !self.instances.is_known(&instance)? {
            return Err(Error::new(
                Code::NotFound,
                format!("instance {instance} not found"),
            ));
        }
        Ok(instance)
    }

    fn create_instance_inner(
        &self,
        req: &admin_v2::CreateInstanceRequest,
    ) -> Result<longrunning::Operation> {
        let project = project_of("parent", &req.parent)?;
        // The core's rules, in the core's order and words (`InstanceRecord::create`): the
        // project id, then the new instance's id (Cloud Bigtable's rule; instances named
        // implicitly by other requests are held only to `check_id`, as in Google's emulator).
        ids::check_project_id("parent", &project)?;
        ids::validate_new_instance_id(&req.instance_id)?;
        let Some(instance) = &req.instance else {
            return Err(Error::invalid_argument("instance is required"));
        };
        let name = InstanceName {
            project,
            instance: req.instance_id.clone(),
        };
        if req.clusters.is_empty() {
            return Err(Error::invalid_argument(
                "clusters must name at least one cluster",
            ));
        }
        let mut clusters = req
            .clusters
            .iter()
            .map(|(id, c)| requested_cluster(&name, id, c))
            .collect::<Result<Vec<_>>>()?;
        clusters.sort_by(|a, b| a.name.cmp(&b.name));
        validate_labels(&instance.labels)?;
        if !instance.display_name.is_empty() {
            validate_display_name(&instance.display_name)?;
        }
        if self.instances.is_known(&name)? {
            return Err(Error::new(
                Code::AlreadyExists,
                format!("instance {name} already exists"),
            ));
        }
        let db = self.instances.database(&name)?;
        let now = Some(timestamp_to_proto(db.read(|db| Ok(db.now_micros()))?));
        let record = admin_v2::Instance {
            name: name.to_string(),
            display_name: if instance.display_name.is_empty() {
                name.instance.clone()
            } else {
                instance.display_name.clone()
            },
            state: admin_v2::instance::State::Ready as i32,
            r#type: match instance.r#type {
                0 => admin_v2::instance::Type::Production as i32,
                t => t,
            },
            labels: instance.labels.clone(),
            create_time: now,
            ..Default::default()
        };
        self.instances.set_meta(
            &name,
            InstanceMeta {
                instance: Some(record.clone()),
                clusters,
                app_profiles: Vec::new(),
                iam_policies: Vec::new(),
                backups: Vec::new(),
                authorized_views: Vec::new(),
                change_streams: Vec::new(),
                logical_views: Vec::new(),
                materialized_views: Vec::new(),
            },
        )?;
        Ok(self
            .instances
            .operations()
            .finished_request::<admin_v2::CreateInstanceMetadata>(
                &name.to_string(),
                req,
                now,
                "google.bigtable.admin.v2.Instance",
                &record,
            ))
    }

    fn get_instance_inner(&self, req: &admin_v2::GetInstanceRequest) -> Result<admin_v2::Instance> {
        let name = self.existing("name", &req.name)?;
        Ok(self.instances.meta_of(&name)?.instance())
    }

    fn list_instances_inner(
        &self,
        req: &admin_v2::ListInstancesRequest,
    ) -> Result<admin_v2::ListInstancesResponse> {
        let project = project_of("parent", &req.parent)?;
        let instances = self.instances.known_instances(Some(&project))?;
        Ok(admin_v2::ListInstancesResponse {
            instances: instances
                .iter()
                .map(|i| Ok(self.instances.meta_of(i)?.instance()))
                .collect::<Result<_>>()?,
            failed_locations: Vec::new(),
            next_page_token: String::new(),
        })
    }

    fn delete_instance_inner(&self, req: &admin_v2::DeleteInstanceRequest) -> Result<()> {
        let instance = self.existing("name", &req.name)?;
        let db = self.instances.database(&instance)?;
        // The core's rule: all or nothing, refused while a table has deletion protection.
        db.write(|db| db.delete_all_tables())?;
        self.instances.forget(&instance)
    }

    fn list_clusters_inner(
        &self,
        req: &admin_v2::ListClustersRequest,
    ) -> Result<admin_v2::ListClustersResponse> {
        // `projects/P/instances/-` lists the clusters of every instance of P.
        let instances = match req.parent.strip_suffix("/instances/-") {
            Some(project) => {
                let project = project_of("parent", project)?;
                self.instances.known_instances(Some(&project))?
            }
            None => vec![self.existing("parent", &req.parent)?],
        };
        let mut clusters = Vec::new();
        for instance in &instances {
            clusters.extend(self.instances.meta_of(instance)?.clusters);
        }
        Ok(admin_v2::ListClustersResponse {
            clusters,
            failed_locations: Vec::new(),
            next_page_token: String::new(),
        })
    }

    fn get_cluster_inner(&self, req: &admin_v2::GetClusterRequest) -> Result<admin_v2::Cluster> {
        let (instance, id) = split_child("name", &req.name, "clusters")?;
        let instance = self.existing("name", &instance.to_string())?;
        let mut meta = self.instances.meta_of(&instance)?;
        match meta.cluster_mut(id) {
            Some(found) => Ok(found.clone()),
            None => Err(not_found("cluster", id, &instance)),
        }
    }

    /// The finished operation that answers `req` (every long-running Instance Admin call is
    /// done when it answers), stamped with the instance's clock.
    fn finished<M: RequestMetadata>(
        &self,
        instance: &InstanceName,
        resource: &str,
        req: &M::Request,
        response_type: &str,
        response: &impl prost::Message,
    ) -> Result<longrunning::Operation> {
        let db = self.instances.database(instance)?;
        let now = Some(timestamp_to_proto(db.read(|db| Ok(db.now_micros()))?));
        Ok(self.instances.operations().finished_request::<M>(
            resource,
            req,
            now,
            response_type,
            response,
        ))
    }

    fn update_instance_inner(&self, req: &admin_v2::Instance) -> Result<admin_v2::Instance> {
        let instance = self.existing("name", &req.name)?;
        validate_display_name(&req.display_name)?;
        self.instances.update_meta(&instance, |meta| {
            let mut record = meta.instance();
            record.display_name = req.display_name.clone();
            if req.r#type != 0 {
                set_type(&mut record, req.r#type)?;
            }
            meta.instance = Some(record.clone());
            Ok(record)
        })
    }

    fn partial_update_instance_inner(
        &self,
        req: &admin_v2::PartialUpdateInstanceRequest,
    ) -> Result<longrunning::Operation> {
        let Some(update) = &req.instance else {
            return Err(Error::invalid_argument("instance is required"));
        };
        let instance = self.existing("instance.name", &update.name)?;
        let paths = mask_paths(req.update_mask.as_ref())?;
        let record = self.instances.update_meta(&instance, |meta| {
            let mut record = meta.instance();
            for path in paths {
                match path.as_str() {
                    "display_name" => {
                        validate_display_name(&update.display_name)?;
                        record.display_name = update.display_name.clone();
                    }
                    "labels" => {
                        validate_labels(&update.labels)?;
                        record.labels = update.labels.clone();
                    }
                    "type" => set_type(&mut record, update.r#type)?,
                    other => {
                        return Err(Error::invalid_argument(format!(
                        "update_mask: field {} cannot be updated (display_name, labels, type can)",
                        quoted(other)
                    )))
                    }
                }
            }
            meta.instance = Some(record.clone());
            Ok(record)
        })?;
        self.finished::<admin_v2::UpdateInstanceMetadata>(
            &instance,
            &instance.to_string(),
            req,
            "google.bigtable.admin.v2.Instance",
            &record,
        )
    }

    fn create_cluster_inner(
        &self,
        req: &admin_v2::CreateClusterRequest,
    ) -> Result<longrunning::Operation> {
        let instance = self.existing("parent", &req.parent)?;
        let Some(cluster) = &req.cluster else {
            return Err(Error::invalid_argument("cluster is required"));
        };
        let cluster = requested_cluster(&instance, &req.cluster_id, cluster)?;
        let created = self.instances.update_meta(&instance, |meta| {
            // The core's operation (ALREADY_EXISTS, the cluster rules); the stored proto is
            // the requested one, which holds what the core's record does not model.
            with_record(meta, |r| {
                r.add_cluster(cluster_record(&req.cluster_id, &cluster))
            })?;
            if let Some(stored) = meta.cluster_mut(&req.cluster_id) {
                *stored = cluster.clone();
            }
            Ok(cluster)
        })?;
        self.finished::<admin_v2::CreateClusterMetadata>(
            &instance,
            &created.name,
            req,
            "google.bigtable.admin.v2.Cluster",
            &created,
        )
    }

    fn update_cluster_inner(&self, req: &admin_v2::Cluster) -> Result<longrunning::Operation> {
        let (instance, id) = split_child("name", &req.name, "clusters")?;
        let instance = self.existing("name", &instance.to_string())?;
        let updated = self.instances.update_meta(&instance, |meta| {
            let Some(cluster) = meta.cluster_mut(id) else {
                return Err(not_found("cluster", id, &instance));
            };
            // UpdateCluster changes the node count (of a cluster without autoscaling).
            let mut next = cluster.clone();
            next.serve_nodes = req.serve_nodes;
            check_nodes(&next)?;
            *cluster = next.clone();
            Ok(next)
        })?;
        self.finished::<admin_v2::UpdateClusterMetadata>(
            &instance,
            &updated.name,
            req,
            "google.bigtable.admin.v2.Cluster",
            &updated,
        )
    }

    fn partial_update_cluster_inner(
        &self,
        req: &admin_v2::PartialUpdateClusterRequest,
    ) -> Result<longrunning::Operation> {
        let Some(update) = &req.cluster else {
            return Err(Error::invalid_argument("cluster is required"));
        };
        let (instance, id) = split_child("cluster.name", &update.name, "clusters")?;
        let instance = self.existing("cluster.name", &instance.to_string())?;
        let paths = mask_paths(req.update_mask.as_ref())?;
        let updated = self.instances.update_meta(&instance, |meta| {
            let Some(cluster) = meta.cluster_mut(id) else {
                return Err(not_found("cluster", id, &instance));
            };
            let mut next = cluster.clone();
            for path in paths {
                apply_cluster_path(&mut next, update, path)?;
            }
            check_nodes(&next)?;
            *cluster = next.clone();
            Ok(next)
        })?;
        self.finished::<admin_v2::PartialUpdateClusterMetadata>(
            &instance,
            &updated.name,
            req,
            "google.bigtable.admin.v2.Cluster",
            &updated,
        )
    }

    fn delete_cluster_inner(&self, req: &admin_v2::DeleteClusterRequest) -> Result<()> {
        let (instance, id) = split_child("name", &req.name, "clusters")?;
        let instance = self.existing("name", &instance.to_string())?;
        // The core's operation: NOT_FOUND, FAILED_PRECONDITION for the last cluster or one a
        // single-cluster profile routes to; multi-cluster profiles forget it.
        self.instances.update_meta(&instance, |meta| {
            with_record(meta, |r| r.remove_cluster(id))
        })
    }
}

/// Changes an instance's type: a DEVELOPMENT instance may become PRODUCTION, not back.
fn set_type(record: &mut admin_v2::Instance, wanted: i32) -> Result<()> {
    use admin_v2::instance::Type;
    match Type::try_from(wanted) {
        Ok(Type::Production) => {}
        Ok(Type::Development) if record.r#type == Type::Development as i32 => {}
        Ok(Type::Development) => {
            return Err(Error::new(
                Code::FailedPrecondition,
                "a PRODUCTION instance cannot become DEVELOPMENT",
            ))
        }
        _ => {
            return Err(Error::invalid_argument(format!(
                "type {wanted} is not an instance type (PRODUCTION or DEVELOPMENT)"
            )))
        }
    }
    record.r#type = wanted;
    Ok(())
}

/// Applies one update-mask path of PartialUpdateCluster: `serve_nodes`, or the autoscaling
/// configuration or one of its parts (`cluster_config.cluster_autoscaling_config` and the
/// paths below it). A path whose part the request leaves out clears it: naming the whole
/// autoscaling configuration with none in the request turns autoscaling off.
fn apply_cluster_path(
    cluster: &mut admin_v2::Cluster,
    update: &admin_v2::Cluster,
    path: &str,
) -> Result<()> {
    use admin_v2::cluster::{ClusterAutoscalingConfig, ClusterConfig, Config};
    let auto_of = |c: &admin_v2::Cluster| match &c.config {
        Some(Config::ClusterConfig(cc)) => cc.cluster_autoscaling_config,
        None => None,
    };
    const AUTO: &str = "cluster_config.cluster_autoscaling_config";
    if path == "serve_nodes" {
        cluster.serve_nodes = update.serve_nodes;
        return Ok(());
    }
    let Some(rest) = path.strip_prefix(AUTO) else {
        return Err(Error::invalid_argument(format!(
            "update_mask: field {} of a cluster cannot be updated (serve_nodes and {AUTO} can)",
            quoted(path)
        )));
    };
    let wanted = auto_of(update);
    let mut auto: ClusterAutoscalingConfig = auto_of(cluster).unwrap_or_default();
    let (limits, targets) = (
        wanted
            .and_then(|a| a.autoscaling_limits)
            .unwrap_or_default(),
        wanted
            .and_then(|a| a.autoscaling_targets)
            .unwrap_or_default(),
    );
    match rest {
        "" => {
            if wanted.is_none() {
                cluster.config = None;
                return Ok(());
            }
            auto = wanted.unwrap_or_default();
        }
        ".autoscaling_limits" => auto.autoscaling_limits = Some(limits),
        ".autoscaling_targets" => auto.autoscaling_targets = Some(targets),
        ".autoscaling_limits.min_serve_nodes" => {
            auto.autoscaling_limits
                .get_or_insert_with(Default::default)
                .min_serve_nodes = limits.min_serve_nodes
        }
        ".autoscaling_limits.max_serve_nodes" => {
            auto.autoscaling_limits
                .get_or_insert_with(Default::default)
                .max_serve_nodes = limits.max_serve_nodes
        }
        ".autoscaling_targets.cpu_utilization_percent" => {
            auto.autoscaling_targets
                .get_or_insert_with(Default::default)
                .cpu_utilization_percent = targets.cpu_utilization_percent
        }
        ".autoscaling_targets.storage_utilization_gib_per_node" => {
            auto.autoscaling_targets
                .get_or_insert_with(Default::default)
                .storage_utilization_gib_per_node = targets.storage_utilization_gib_per_node
        }
        _ => {
            return Err(Error::invalid_argument(format!(
                "update_mask: unknown field {}",
                quoted(path)
            )))
        }
    }
    cluster.config = Some(Config::ClusterConfig(ClusterConfig {
        cluster_autoscaling_config: Some(auto),
    }));
    Ok(())
}

/// Writes the `BigtableInstanceAdmin` impl from one line per RPC: the method, its request and
/// response types, and the synchronous `*_inner` function that does the work. What every RPC
/// shares is written once here: the function gets the request by reference, and its error,
/// the core's typed [`Error`], becomes the gRPC status [`to_status`] makes of it. RPCs that
/// need more than that (DeleteInstance runs on the blocking pool) follow the list, written out.
/// One expansion makes the whole impl so that `async_trait` sees plain `async fn`s.
macro_rules! instance_admin_rpcs {
    ($($rpc:ident($req:ty) -> $resp:ty = $inner:ident;)* $(; $($own:tt)*)?) => {
        #[tonic::async_trait]
        impl BigtableInstanceAdmin for InstanceAdminService {
            $(
                async fn $rpc(
                    &self,
                    request: Request<$req>,
                ) -> std::result::Result<Response<$resp>, Status> {
                    self.$inner(request.get_ref())
                        .map(Response::new)
                        .map_err(to_status)
                }
            )*
            $($($own)*)?
        }
    };
}

instance_admin_rpcs! {
    create_instance(admin_v2::CreateInstanceRequest)
        -> longrunning::Operation = create_instance_inner;
    get_instance(admin_v2::GetInstanceRequest) -> admin_v2::Instance = get_instance_inner;
    list_instances(admin_v2::ListInstancesRequest)
        -> admin_v2::ListInstancesResponse = list_instances_inner;
    get_cluster(admin_v2::GetClusterRequest) -> admin_v2::Cluster = get_cluster_inner;
    list_clusters(admin_v2::ListClustersRequest)
        -> admin_v2::ListClustersResponse = list_clusters_inner;
    update_instance(admin_v2::Instance) -> admin_v2::Instance = update_instance_inner;
    partial_update_instance(admin_v2::PartialUpdateInstanceRequest)
        -> longrunning::Operation = partial_update_instance_inner;
    create_cluster(admin_v2::CreateClusterRequest) -> longrunning::Operation = create_cluster_inner;
    update_cluster(admin_v2::Cluster) -> longrunning::Operation = update_cluster_inner;
    partial_update_cluster(admin_v2::PartialUpdateClusterRequest)
        -> longrunning::Operation = partial_update_cluster_inner;
    delete_cluster(admin_v2::DeleteClusterRequest) -> () = delete_cluster_inner;
    create_app_profile(admin_v2::CreateAppProfileRequest)
        -> admin_v2::AppProfile = create_app_profile_inner;
    get_app_profile(admin_v2::GetAppProfileRequest) -> admin_v2::AppProfile = get_app_profile_inner;
    list_app_profiles(admin_v2::ListAppProfilesRequest)
        -> admin_v2::ListAppProfilesResponse = list_app_profiles_inner;
    update_app_profile(admin_v2::UpdateAppProfileRequest)
        -> longrunning::Operation = update_app_profile_inner;
    delete_app_profile(admin_v2::DeleteAppProfileRequest) -> () = delete_app_profile_inner;
    create_logical_view(admin_v2::CreateLogicalViewRequest)
        -> longrunning::Operation = create_logical_view_inner;
    get_logical_view(admin_v2::GetLogicalViewRequest)
        -> admin_v2::LogicalView = get_logical_view_inner;
    list_logical_views(admin_v2::ListLogicalViewsRequest)
        -> admin_v2::ListLogicalViewsResponse = list_logical_views_inner;
    update_logical_view(admin_v2::UpdateLogicalViewRequest)
        -> longrunning::Operation = update_logical_view_inner;
    delete_logical_view(admin_v2::DeleteLogicalViewRequest) -> () = delete_logical_view_inner;
    list_hot_tablets(admin_v2::ListHotTabletsRequest)
        -> admin_v2::ListHotTabletsResponse = list_hot_tablets_inner;
    create_materialized_view(admin_v2::CreateMaterializedViewRequest)
        -> longrunning::Operation = create_materialized_view_inner;
    get_materialized_view(admin_v2::GetMaterializedViewRequest)
        -> admin_v2::MaterializedView = get_materialized_view_inner;
    list_materialized_views(admin_v2::ListMaterializedViewsRequest)
        -> admin_v2::ListMaterializedViewsResponse = list_materialized_views_inner;
    update_materialized_view(admin_v2::UpdateMaterializedViewRequest)
        -> longrunning::Operation = update_materialized_view_inner;
    delete_materialized_view(admin_v2::DeleteMaterializedViewRequest)
        -> () = delete_materialized_view_inner;
    ;
    async fn delete_instance(
        &self,
        request: Request<admin_v2::DeleteInstanceRequest>,
    ) -> std::result::Result<Response<()>, Status> {
        // Deleting every table's files is blocking work: off the async threads.
        let this = self.clone();
        let req = request.into_inner();
        match tokio::task::spawn_blocking(move || this.delete_instance_inner(&req)).await {
            Ok(result) => result.map(Response::new).map_err(to_status),
            Err(e) => Err(to_status(Error::new(
                Code::Internal,
                format!("DeleteInstance failed: {e}"),
            ))),
        }
    }
}
