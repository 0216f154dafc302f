//! Continuous materialized views on the Instance Admin API: Create, Get, List, Update (only
//! `deletion_protection`) and Delete, over the core's views
//! (`sparsetable::api::materialized_views`, which checks the query and maintains the view).
//!
//! The model: a view lives on the instance's database (the first cluster's copy on a
//! replicated instance; reads of the view go there, unrouted). Its definition is recorded
//! with the instance's metadata ([`InstanceMeta::materialized_views`]), which is what the
//! Get and List calls return (name, query, etag, deletion protection); with a data
//! directory the registry creates the views again when it opens the database, so a restart
//! (or a crash) recovers each view by recomputing it from its table. Create and Update
//! answer finished long-running operations, as the other admin calls here do. An update or
//! delete naming an etag other than the stored one is ABORTED.
//!
//! [`InstanceMeta::materialized_views`]: crate::instance_meta::InstanceMeta

use super::*;
use crate::instance_meta::{last_id, next_etag};

/// `projects/P/instances/I/materializedViews/V` split into its instance and view id.
///
/// # Errors
/// `InvalidArgument` for another form.
pub(crate) fn parse_name(field: &str, name: &str) -> Result<(InstanceName, String)> {
    let (instance, id) = split_child(field, name, "materializedViews")?;
    Ok((instance, id.to_string()))
}

fn full_name(instance: &InstanceName, id: &str) -> String {
    format!("{instance}/materializedViews/{id}")
}

impl InstanceAdminService {
    fn stored_view(&self, instance: &InstanceName, id: &str) -> Result<admin_v2::MaterializedView> {
        let name = full_name(instance, id);
        self.instances
            .meta_of(instance)?
            .materialized_views
            .into_iter()
            .find(|v| v.name == name)
            .ok_or_else(|| not_found("materialized view", id, instance))
    }

    pub(super) fn create_materialized_view_inner(
        &self,
        req: &admin_v2::CreateMaterializedViewRequest,
    ) -> Result<longrunning::Operation> {
        let instance = self.existing("parent", &req.parent)?;
        let Some(view) = &req.materialized_view else {
            return Err(Error::invalid_argument("materialized_view is required"));
        };
        if view.query.is_empty() {
            return Err(Error::invalid_argument(
                "materialized_view.query is required",
            ));
        }
        let id = &req.materialized_view_id;
        let db = self.instances.database(&instance)?;
        // The core checks the id and the query, backfills, and refuses a taken id.
        db.write(|d| {
            d.create_materialized_view(id, &view.query, view.deletion_protection)
                .map(|_| ())
        })?;
        let stored = admin_v2::MaterializedView {
            name: full_name(&instance, id),
            query: view.query.clone(),
            etag: next_etag(),
            deletion_protection: view.deletion_protection,
        };
        let recorded = self.instances.update_meta(&instance, |meta| {
            meta.materialized_views.retain(|v| v.name != stored.name);
            meta.materialized_views.push(stored.clone());
            meta.materialized_views.sort_by(|a, b| a.name.cmp(&b.name));
            Ok(())
        });
        if let Err(e) = recorded {
            // Not recorded: the view must not outlive this call unannounced.
            let _ = db.write(|d| {
                d.update_materialized_view(id, false, None)?;
                d.delete_materialized_view(id)
            });
            return Err(e);
        }
        let now = self.now(&instance)?;
        Ok(self
            .instances
            .operations()
            .finished_request::<admin_v2::CreateMaterializedViewMetadata>(
                &stored.name,
                req,
                now,
                "google.bigtable.admin.v2.MaterializedView",
                &stored,
            ))
    }

    pub(super) fn get_materialized_view_inner(
        &self,
        req: &admin_v2::GetMaterializedViewRequest,
    ) -> Result<admin_v2::MaterializedView> {
        let (instance, id) = parse_name("name", &req.name)?;
        let instance = self.existing("name", &instance.to_string())?;
        self.stored_view(&instance, &id)
    }

    pub(super) fn list_materialized_views_inner(
        &self,
        req: &admin_v2::ListMaterializedViewsRequest,
    ) -> Result<admin_v2::ListMaterializedViewsResponse> {
        let instance = self.existing("parent", &req.parent)?;
        Ok(admin_v2::ListMaterializedViewsResponse {
            materialized_views: self.instances.meta_of(&instance)?.materialized_views,
            next_page_token: String::new(),
        })
    }

    pub(super) fn update_materialized_view_inner(
        &self,
        req: &admin_v2::UpdateMaterializedViewRequest,
    ) -> Result<longrunning::Operation> {
        let Some(update) = &req.materialized_view else {
            return Err(Error::invalid_argument("materialized_view is required"));
        };
        let (instance, id) = parse_name("materialized_view.name", &update.name)?;
        let instance = self.existing("materialized_view.name", &instance.to_string())?;
        for path in mask_paths(req.update_mask.as_ref())? {
            if path != "deletion_protection" {
                return Err(Error::invalid_argument(format!(
                    "update_mask: only deletion_protection can be updated, not {}",
                    quoted(path)
                )));
            }
        }
        let stored = self.stored_view(&instance, &id)?;
        check_etag(&stored, &update.etag)?;
        let db = self.instances.database(&instance)?;
        db.write(|d| {
            d.update_materialized_view(&id, update.deletion_protection, None)
                .map(|_| ())
        })?;
        let updated = self.instances.update_meta(&instance, |meta| {
            let Some(v) = meta
                .materialized_views
                .iter_mut()
                .find(|v| v.name == stored.name)
            else {
                return Err(not_found("materialized view", &id, &instance));
            };
            v.deletion_protection = update.deletion_protection;
            v.etag = next_etag();
            Ok(v.clone())
        })?;
        let now = self.now(&instance)?;
        Ok(self
            .instances
            .operations()
            .finished_request::<admin_v2::UpdateMaterializedViewMetadata>(
                &updated.name,
                req,
                now,
                "google.bigtable.admin.v2.MaterializedView",
                &updated,
            ))
    }

    pub(super) fn delete_materialized_view_inner(
        &self,
        req: &admin_v2::DeleteMaterializedViewRequest,
    ) -> Result<()> {
        let (instance, id) = parse_name("name", &req.name)?;
        let instance = self.existing("name", &instance.to_string())?;
        let stored = self.stored_view(&instance, &id)?;
        check_etag(&stored, &req.etag)?;
        // The core refuses a protected view (FAILED_PRECONDITION).
        let db = self.instances.database(&instance)?;
        db.write(|d| match d.delete_materialized_view(&id) {
            Err(e) if e.code() == Code::NotFound => Ok(()),
            other => other,
        })?;
        self.instances.update_meta(&instance, |meta| {
            meta.materialized_views.retain(|v| last_id(&v.name) != id);
            Ok(())
        })
    }
}

/// ABORTED when `etag` is given and is not the stored view's.
fn check_etag(stored: &admin_v2::MaterializedView, etag: &str) -> Result<()> {
    if !etag.is_empty() && etag != stored.etag {
        return Err(Error::new(
            Code::Aborted,
            format!(
                "materialized view {} changed since etag {} was read",
                stored.name,
                quoted(etag)
            ),
        ));
    }
    Ok(())
}
