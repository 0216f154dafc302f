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
//! (or, with a data directory, once it has a folder there). Its clusters are the ones
//! CreateInstance asked for (ids, locations, nodes and storage type as requested), or else one
//! cluster, `{instance}-c1`, in location `projects/{project}/locations/local`, one node, SSD;
//! all READY (see [`crate::clusters`]). CreateInstance makes it exist (ALREADY_EXISTS if it
//! does) and returns a finished long-running operation; DeleteInstance deletes every table and
//! backup in it (or nothing at all if a table has deletion protection) and the instance stops
//! existing until named again. Routes not listed in `build.rs` answer UNIMPLEMENTED.

use std::sync::Arc;

use tonic::{Request, Response, Status};

use sparsetable::{Code, Error, Result};

use crate::clusters::{check_location, validate_cluster_id, ClusterSpec};
use crate::convert::timestamp_to_proto;
use crate::names::{check_new_id, InstanceName};
use crate::operations::pack;
use crate::registry::Instances;
use crate::status::to_status;
use crate::stubs::admin_v2;
use crate::stubs::instance_admin::bigtable_instance_admin_server::BigtableInstanceAdmin;
use googleapis_tonic_google_bigtable_admin_v2::google::longrunning;

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

/// Cloud Bigtable's rule for a new instance id ([`check_new_id`] with at most 33
/// characters). Instances named implicitly by other requests are not held to it, as in
/// Google's emulator.
fn validate_new_instance_id(id: &str) -> Result<()> {
    check_new_id("instance_id", id, 33)
}

fn instance_to_proto(name: &InstanceName, display_name: Option<&str>) -> admin_v2::Instance {
    admin_v2::Instance {
        name: name.to_string(),
        display_name: display_name.unwrap_or(&name.instance).to_string(),
        state: admin_v2::instance::State::Ready as i32,
        r#type: admin_v2::instance::Type::Production as i32,
        ..Default::default()
    }
}

fn cluster_to_proto(instance: &InstanceName, cluster: &ClusterSpec) -> admin_v2::Cluster {
    admin_v2::Cluster {
        name: format!("{instance}/clusters/{}", cluster.id),
        location: cluster.location.clone(),
        state: admin_v2::cluster::State::Ready as i32,
        serve_nodes: cluster.serve_nodes,
        default_storage_type: cluster.default_storage_type,
        ..Default::default()
    }
}

/// The clusters a CreateInstance request asks for, checked.
fn requested_clusters(
    project: &str,
    clusters: &std::collections::HashMap<String, admin_v2::Cluster>,
) -> Result<Vec<ClusterSpec>> {
    if clusters.is_empty() {
        return Err(Error::invalid_argument(
            "clusters must name at least one cluster",
        ));
    }
    clusters
        .iter()
        .map(|(id, cluster)| {
            validate_cluster_id(id)?;
            let location = if cluster.location.is_empty() {
                format!("projects/{project}/locations/local")
            } else {
                check_location(&cluster.location)?;
                cluster.location.clone()
            };
            let default_storage_type = match cluster.default_storage_type {
                // Unspecified means the default, SSD.
                0 => admin_v2::StorageType::Ssd as i32,
                other => other,
            };
            Ok(ClusterSpec {
                id: id.clone(),
                location,
                serve_nodes: cluster.serve_nodes,
                default_storage_type,
            })
        })
        .collect()
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
        validate_new_instance_id(&req.instance_id)?;
        let Some(instance) = &req.instance else {
            return Err(Error::invalid_argument("instance is required"));
        };
        let clusters = requested_clusters(&project, &req.clusters)?;
        let name = InstanceName {
            project,
            instance: req.instance_id.clone(),
        };
        if self.instances.is_known(&name)? {
            return Err(Error::new(
                Code::AlreadyExists,
                format!("instance {name} already exists"),
            ));
        }
        let db = self.instances.database(&name)?;
        self.instances.set_clusters(&name, clusters)?;
        let now = Some(timestamp_to_proto(db.read(|db| Ok(db.now_micros()))?));
        let display_name = (!instance.display_name.is_empty()).then_some(&*instance.display_name);
        let metadata = admin_v2::CreateInstanceMetadata {
            original_request: Some(req.clone()),
            request_time: now,
            finish_time: now,
        };
        Ok(self.instances.operations().finished(
            &name.to_string(),
            pack("google.bigtable.admin.v2.CreateInstanceMetadata", &metadata),
            pack(
                "google.bigtable.admin.v2.Instance",
                &instance_to_proto(&name, display_name),
            ),
        ))
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
                .map(|i| instance_to_proto(i, None))
                .collect(),
            failed_locations: Vec::new(),
            next_page_token: String::new(),
        })
    }

    fn delete_instance_inner(&self, req: &admin_v2::DeleteInstanceRequest) -> Result<()> {
        let instance = self.existing("name", &req.name)?;
        let db = self.instances.database(&instance)?;
        db.write(|db| {
            // All or nothing: check every table before deleting any.
            let tables = db.list_tables();
            if let Some(t) = tables.iter().find(|t| t.config.deletion_protection) {
                return Err(Error::new(
                    Code::FailedPrecondition,
                    format!(
                        "instance {instance} has table {:?} with deletion protection; disable it first",
                        t.name
                    ),
                ));
            }
            for backup in db.list_backups() {
                db.delete_backup(&backup.name)?;
            }
            for table in tables {
                db.delete_table(&table.name)?;
            }
            Ok(())
        })?;
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
            for cluster in self.instances.clusters_of(instance)? {
                clusters.push(cluster_to_proto(instance, &cluster));
            }
        }
        Ok(admin_v2::ListClustersResponse {
            clusters,
            failed_locations: Vec::new(),
            next_page_token: String::new(),
        })
    }

    fn get_cluster_inner(&self, req: &admin_v2::GetClusterRequest) -> Result<admin_v2::Cluster> {
        let Some((instance, cluster)) = req.name.rsplit_once("/clusters/") else {
            return Err(Error::invalid_argument(format!(
                "name {:?} must have the form projects/{{project}}/instances/{{instance}}/clusters/{{cluster}}",
                req.name
            )));
        };
        let instance = self.existing("name", instance)?;
        let clusters = self.instances.clusters_of(&instance)?;
        match clusters.iter().find(|c| c.id == cluster) {
            Some(found) => Ok(cluster_to_proto(&instance, found)),
            None => Err(Error::new(
                Code::NotFound,
                format!(
                    "cluster {:?} not found in instance {instance}",
                    cluster.chars().take(64).collect::<String>()
                ),
            )),
        }
    }
}

#[tonic::async_trait]
impl BigtableInstanceAdmin for InstanceAdminService {
    async fn create_instance(
        &self,
        request: Request<admin_v2::CreateInstanceRequest>,
    ) -> std::result::Result<Response<longrunning::Operation>, Status> {
        self.create_instance_inner(request.get_ref())
            .map(Response::new)
            .map_err(to_status)
    }

    async fn get_instance(
        &self,
        request: Request<admin_v2::GetInstanceRequest>,
    ) -> std::result::Result<Response<admin_v2::Instance>, Status> {
        self.existing("name", &request.get_ref().name)
            .map(|name| Response::new(instance_to_proto(&name, None)))
            .map_err(to_status)
    }

    async fn list_instances(
        &self,
        request: Request<admin_v2::ListInstancesRequest>,
    ) -> std::result::Result<Response<admin_v2::ListInstancesResponse>, Status> {
        self.list_instances_inner(request.get_ref())
            .map(Response::new)
            .map_err(to_status)
    }

    async fn delete_instance(
        &self,
        request: Request<admin_v2::DeleteInstanceRequest>,
    ) -> std::result::Result<Response<()>, Status> {
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

    async fn get_cluster(
        &self,
        request: Request<admin_v2::GetClusterRequest>,
    ) -> std::result::Result<Response<admin_v2::Cluster>, Status> {
        self.get_cluster_inner(request.get_ref())
            .map(Response::new)
            .map_err(to_status)
    }

    async fn list_clusters(
        &self,
        request: Request<admin_v2::ListClustersRequest>,
    ) -> std::result::Result<Response<admin_v2::ListClustersResponse>, Status> {
        self.list_clusters_inner(request.get_ref())
            .map(Response::new)
            .map_err(to_status)
    }
}
