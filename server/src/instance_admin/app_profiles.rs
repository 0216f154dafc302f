//! App profiles on the Instance Admin API: Create, Get, List, Update and Delete, with the
//! core's id rule and a check that a profile routes only to the instance's clusters. What a
//! profile does to a data request is the core's routing (`sparsetable::InstanceData`).

use super::*;

/// An app profile's routing must name clusters the instance has.
fn check_routing(meta: &InstanceMeta, profile: &admin_v2::AppProfile) -> Result<()> {
    use admin_v2::app_profile::RoutingPolicy;
    let ids: Vec<&str> = meta.clusters.iter().map(|c| last_id(&c.name)).collect();
    let named: Vec<&str> = match &profile.routing_policy {
        None => {
            return Err(Error::invalid_argument(
                "app profile: a routing policy (multi_cluster_routing_use_any or single_cluster_routing) is required",
            ))
        }
        Some(RoutingPolicy::MultiClusterRoutingUseAny(m)) => {
            m.cluster_ids.iter().map(String::as_str).collect()
        }
        Some(RoutingPolicy::SingleClusterRouting(s)) => vec![s.cluster_id.as_str()],
    };
    match named.iter().find(|id| !ids.contains(id)) {
        Some(missing) => Err(Error::invalid_argument(format!(
            "app profile routes to cluster {}, which the instance does not have",
            quoted(missing)
        ))),
        None => Ok(()),
    }
}

impl InstanceAdminService {
    pub(super) fn create_app_profile_inner(
        &self,
        req: &admin_v2::CreateAppProfileRequest,
    ) -> Result<admin_v2::AppProfile> {
        let instance = self.existing("parent", &req.parent)?;
        // The core's rule (routing checks the same ids).
        sparsetable::api::replication::validate_app_profile_id(&req.app_profile_id)?;
        let Some(profile) = &req.app_profile else {
            return Err(Error::invalid_argument("app_profile is required"));
        };
        self.instances.update_meta(&instance, |meta| {
            if meta.app_profile_mut(&req.app_profile_id).is_some() {
                return Err(Error::new(
                    Code::AlreadyExists,
                    format!(
                        "app profile {} already exists in instance {instance}",
                        quoted(&req.app_profile_id)
                    ),
                ));
            }
            check_routing(meta, profile)?;
            let mut created = profile.clone();
            created.name = format!("{instance}/appProfiles/{}", req.app_profile_id);
            created.etag = next_etag();
            meta.app_profiles.push(created.clone());
            meta.app_profiles.sort_by(|a, b| a.name.cmp(&b.name));
            Ok(created)
        })
    }

    pub(super) fn get_app_profile_inner(
        &self,
        req: &admin_v2::GetAppProfileRequest,
    ) -> Result<admin_v2::AppProfile> {
        let (instance, id) = split_child("name", &req.name, "appProfiles")?;
        let instance = self.existing("name", &instance.to_string())?;
        let mut meta = self.instances.meta_of(&instance)?;
        match meta.app_profile_mut(id) {
            Some(p) => Ok(p.clone()),
            None => Err(not_found("app profile", id, &instance)),
        }
    }

    pub(super) fn list_app_profiles_inner(
        &self,
        req: &admin_v2::ListAppProfilesRequest,
    ) -> Result<admin_v2::ListAppProfilesResponse> {
        let instances = match req.parent.strip_suffix("/instances/-") {
            Some(project) => {
                let project = project_of("parent", project)?;
                self.instances.known_instances(Some(&project))?
            }
            None => vec![self.existing("parent", &req.parent)?],
        };
        let mut app_profiles = Vec::new();
        for instance in &instances {
            app_profiles.extend(self.instances.meta_of(instance)?.app_profiles);
        }
        Ok(admin_v2::ListAppProfilesResponse {
            app_profiles,
            next_page_token: String::new(),
            failed_locations: Vec::new(),
        })
    }

    pub(super) fn update_app_profile_inner(
        &self,
        req: &admin_v2::UpdateAppProfileRequest,
    ) -> Result<longrunning::Operation> {
        use admin_v2::app_profile::{Isolation, RoutingPolicy};
        let Some(update) = &req.app_profile else {
            return Err(Error::invalid_argument("app_profile is required"));
        };
        let (instance, id) = split_child("app_profile.name", &update.name, "appProfiles")?;
        let instance = self.existing("app_profile.name", &instance.to_string())?;
        let paths = mask_paths(req.update_mask.as_ref())?;
        let updated = self.instances.update_meta(&instance, |meta| {
            let Some(profile) = meta.app_profile_mut(id).cloned() else {
                return Err(not_found("app profile", id, &instance));
            };
            let mut next = profile;
            for path in paths {
                match path.as_str() {
                    "description" => next.description = update.description.clone(),
                    "multi_cluster_routing_use_any" | "single_cluster_routing" => {
                        let wanted = matches!(
                            (&update.routing_policy, path.as_str()),
                            (
                                Some(RoutingPolicy::MultiClusterRoutingUseAny(_)),
                                "multi_cluster_routing_use_any"
                            ) | (
                                Some(RoutingPolicy::SingleClusterRouting(_)),
                                "single_cluster_routing"
                            )
                        );
                        if !wanted {
                            return Err(Error::invalid_argument(format!(
                                "update_mask names {path} but app_profile does not set it"
                            )));
                        }
                        next.routing_policy = update.routing_policy.clone();
                    }
                    "standard_isolation" | "data_boost_isolation_read_only" | "priority" => {
                        // `priority` is the deprecated spelling of the standard isolation's.
                        next.isolation = update
                            .isolation
                            .or(Some(Isolation::StandardIsolation(Default::default())));
                    }
                    other => {
                        return Err(Error::invalid_argument(format!(
                            "update_mask: field {} of an app profile cannot be updated",
                            quoted(other)
                        )))
                    }
                }
            }
            check_routing(meta, &next)?;
            next.etag = next_etag();
            if let Some(p) = meta.app_profile_mut(id) {
                *p = next.clone();
            }
            Ok(next)
        })?;
        Ok(self.instances.operations().finished(
            &updated.name,
            pack(
                "google.bigtable.admin.v2.UpdateAppProfileMetadata",
                &admin_v2::UpdateAppProfileMetadata {},
            ),
            pack("google.bigtable.admin.v2.AppProfile", &updated),
        ))
    }

    pub(super) fn delete_app_profile_inner(
        &self,
        req: &admin_v2::DeleteAppProfileRequest,
    ) -> Result<()> {
        let (instance, id) = split_child("name", &req.name, "appProfiles")?;
        let instance = self.existing("name", &instance.to_string())?;
        self.instances.update_meta(&instance, |meta| {
            if meta.app_profile_mut(id).is_none() {
                return Err(not_found("app profile", id, &instance));
            }
            meta.app_profiles.retain(|p| last_id(&p.name) != id);
            Ok(())
        })
    }
}
