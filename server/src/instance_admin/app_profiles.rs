//! App profiles on the Instance Admin API: Create, Get, List, Update and Delete, with the
//! core's id rule and a check that a profile routes only to the instance's clusters. What a
//! profile does to a data request is the core's routing (`sparsetable::InstanceData`).

use super::*;
use crate::instance_meta::last_id;

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
        if profile.routing_policy.is_none() {
            return Err(Error::invalid_argument(
                "app profile: a routing policy (multi_cluster_routing_use_any or single_cluster_routing) is required",
            ));
        }
        self.instances.update_meta(&instance, |meta| {
            // The core's operation: ALREADY_EXISTS, routing only to the instance's clusters,
            // the etag. The stored proto keeps what the record does not model (priority).
            let mut wanted = profile_record(&req.app_profile_id, profile);
            wanted.etag.clear();
            with_record(meta, |r| r.create_app_profile(wanted).map(|_| ()))?;
            stored_profile(meta, &req.app_profile_id, profile)
        })
    }

    pub(super) fn get_app_profile_inner(
        &self,
        req: &admin_v2::GetAppProfileRequest,
    ) -> Result<admin_v2::AppProfile> {
        let (instance, id) = split_child("name", &req.name, "appProfiles")?;
        let instance = self.existing("name", &instance.to_string())?;
        let meta = self.instances.meta_of(&instance)?;
        crate::instance_record::listed_profiles(&meta)?
            .into_iter()
            .find(|p| last_id(&p.name) == id)
            .ok_or_else(|| not_found("app profile", id, &instance))
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
            // With the implied `default` profile every instance has (the core's rule).
            app_profiles.extend(crate::instance_record::listed_profiles(
                &self.instances.meta_of(instance)?,
            )?);
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
            // The implied `default` profile can be updated too: the update stores it.
            let stored = meta.app_profile_mut(id).is_some();
            let Some(profile) = crate::instance_record::listed_profiles(meta)?
                .into_iter()
                .find(|p| last_id(&p.name) == id)
            else {
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
            // The core's operation: routing only to the instance's clusters, a stale etag is
            // ABORTED, a new etag; the implied `default` is stored by its first update.
            let mut wanted = profile_record(id, &next);
            if stored {
                wanted.etag = update.etag.clone();
            }
            with_record(meta, |r| r.update_app_profile(wanted).map(|_| ()))?;
            stored_profile(meta, id, &next)
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
            with_record(meta, |r| r.delete_app_profile(id))
        })
    }
}

/// The stored proto of profile `id` after the core stored it: the record's fields, with
/// the requested standard isolation (its priority) kept, which the record does not model.
fn stored_profile(
    meta: &mut InstanceMeta,
    id: &str,
    requested: &admin_v2::AppProfile,
) -> Result<admin_v2::AppProfile> {
    use admin_v2::app_profile::Isolation;
    let Some(stored) = meta.app_profile_mut(id) else {
        return Err(Error::new(
            Code::Internal,
            "an app profile just stored is missing",
        ));
    };
    if let Some(Isolation::StandardIsolation(s)) = requested.isolation {
        stored.isolation = Some(Isolation::StandardIsolation(s));
    }
    Ok(stored.clone())
}
