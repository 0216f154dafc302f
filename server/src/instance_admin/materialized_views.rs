//! Continuous materialized views on the Instance Admin API: Create, Get, List, Update (only
//! `deletion_protection`) and Delete.
//!
//! The rules (the id, a taken or unknown id, etags, deletion protection) and the record of
//! each view's definition are the core's instance record
//! (`sparsetable::api::instances::materialized_views`, stored in the instance's `INSTANCE`
//! file), applied here through [`with_record`]; the view's rows are the core's database's
//! (`sparsetable::api::materialized_views`, which checks the query, backfills the view and
//! maintains it). A view lives on the instance's database (the first cluster's copy on a
//! replicated instance; reads of the view go there, unrouted); with a data directory the
//! registry creates each recorded view again when it opens the database, so a restart (or a
//! crash) recovers each view by recomputing it from its table. The database keeps a copy of
//! each view's deletion protection (DeleteInstance refuses while one is set), set here after
//! the record changes. Create and Update answer finished long-running operations, as the
//! other admin calls here do.

use std::cell::Cell;

use super::*;
use crate::instance_record::materialized_view_proto;

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
            .with_meta(instance, |meta| {
                meta.materialized_views
                    .iter()
                    .find(|v| v.name == name)
                    .cloned()
            })?
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
        let id = &req.materialized_view_id;
        // Opened before the metadata lock is taken (opening reads the metadata).
        let db = self.instances.database(&instance)?;
        let made = Cell::new(false);
        let created = self.instances.update_meta(&instance, |meta| {
            let stored = with_record(meta, |r| {
                r.create_materialized_view(id, &view.query, view.deletion_protection, |q| {
                    // The database checks the query and backfills the view.
                    db.write(|d| {
                        d.create_materialized_view(id, q, view.deletion_protection)
                            .map(|_| ())
                    })?;
                    made.set(true);
                    Ok(())
                })
                .cloned()
            })?;
            Ok(materialized_view_proto(&instance, &stored))
        });
        let created = match created {
            Ok(created) => created,
            Err(e) => {
                if made.get() {
                    // Made but not recorded (the file could not be written): the view must
                    // not outlive this call unannounced.
                    let _ = db.write(|d| d.forget_materialized_view(id));
                }
                return Err(e);
            }
        };
        self.finished::<admin_v2::CreateMaterializedViewMetadata>(
            &instance,
            &created.name,
            req,
            "google.bigtable.admin.v2.MaterializedView",
            &created,
        )
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
            materialized_views: self
                .instances
                .with_meta(&instance, |meta| meta.materialized_views.clone())?,
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
        let db = self.instances.database(&instance)?;
        let updated = self.instances.update_meta(&instance, |meta| {
            let stored = with_record(meta, |r| {
                r.update_materialized_view(&id, update.deletion_protection, &update.etag)
                    .cloned()
            })?;
            Ok(materialized_view_proto(&instance, &stored))
        })?;
        // The database's copy of the setting (a view whose table is gone is not there).
        db.write(
            |d| match d.update_materialized_view(&id, update.deletion_protection, None) {
                Err(e) if e.code() == Code::NotFound => Ok(()),
                other => other.map(|_| ()),
            },
        )?;
        self.finished::<admin_v2::UpdateMaterializedViewMetadata>(
            &instance,
            &updated.name,
            req,
            "google.bigtable.admin.v2.MaterializedView",
            &updated,
        )
    }

    pub(super) fn delete_materialized_view_inner(
        &self,
        req: &admin_v2::DeleteMaterializedViewRequest,
    ) -> Result<()> {
        let (instance, id) = parse_name("name", &req.name)?;
        let instance = self.existing("name", &instance.to_string())?;
        let db = self.instances.database(&instance)?;
        self.instances.update_meta(&instance, |meta| {
            with_record(meta, |r| r.delete_materialized_view(&id, &req.etag))
        })?;
        // The record allowed it (no deletion protection there): the rows go too.
        db.write(|d| d.forget_materialized_view(&id))
    }
}
