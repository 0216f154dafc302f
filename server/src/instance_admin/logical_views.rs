//! Logical views on the Instance Admin API: CreateLogicalView (a finished long-running
//! operation, as the other creates), GetLogicalView, ListLogicalViews (paged by id),
//! UpdateLogicalView (`query` and `deletion_protection` by the update mask) and
//! DeleteLogicalView. The rules (id, query checked by preparing it, etags, deletion
//! protection) are the core's (`sparsetable::api::instances::logical_views`); a query reads
//! a view through PrepareQuery/ExecuteQuery (`crate::sql`, the core's `sql::views`).
//!
//! A view's query is checked against the instance's tables as they are when it is created or
//! changed, with the views the instance would then have, so a view that reads itself (even
//! through others) is refused then.

use std::collections::BTreeMap;

use super::*;
use crate::instance_record::view_proto;
use sparsetable::{LogicalViewRecord, SharedDatabase};

/// Prepares `query` as a view's query: against `db`, with `views` (see the module docs).
fn check_query(db: &SharedDatabase, query: &str, views: &[LogicalViewRecord]) -> Result<()> {
    db.read(|d| {
        sparsetable::api::sql::prepare_with_views(d, query, BTreeMap::new(), views).map(|_| ())
    })
}

impl InstanceAdminService {
    pub(super) fn create_logical_view_inner(
        &self,
        req: &admin_v2::CreateLogicalViewRequest,
    ) -> Result<longrunning::Operation> {
        let instance = self.existing("parent", &req.parent)?;
        let Some(view) = &req.logical_view else {
            return Err(Error::invalid_argument("logical_view is required"));
        };
        // Opened before the metadata lock is taken (opening reads the metadata).
        let db = self.instances.database(&instance)?;
        let created = self.instances.update_meta(&instance, |meta| {
            let stored = with_record(meta, |r| {
                r.create_logical_view(
                    &req.logical_view_id,
                    &view.query,
                    view.deletion_protection,
                    |q, views| check_query(&db, q, views),
                )
                .cloned()
            })?;
            Ok(view_proto(&instance, &stored))
        })?;
        self.finished::<admin_v2::CreateLogicalViewMetadata>(
            &instance,
            &created.name,
            req,
            "google.bigtable.admin.v2.LogicalView",
            &created,
        )
    }

    pub(super) fn get_logical_view_inner(
        &self,
        req: &admin_v2::GetLogicalViewRequest,
    ) -> Result<admin_v2::LogicalView> {
        let (instance, id) = split_child("name", &req.name, "logicalViews")?;
        let instance = self.existing("name", &instance.to_string())?;
        self.instances
            .with_meta(&instance, |meta| {
                meta.logical_views
                    .iter()
                    .find(|v| crate::instance_meta::last_id(&v.name) == id)
                    .cloned()
            })?
            .ok_or_else(|| not_found("logical view", id, &instance))
    }

    pub(super) fn list_logical_views_inner(
        &self,
        req: &admin_v2::ListLogicalViewsRequest,
    ) -> Result<admin_v2::ListLogicalViewsResponse> {
        let instance = self.existing("parent", &req.parent)?;
        let page_size = usize::try_from(req.page_size).map_err(|_| {
            Error::invalid_argument(format!("page_size {} must not be negative", req.page_size))
        })?;
        let page_size = if page_size == 0 {
            usize::MAX
        } else {
            page_size
        };
        // A page token is the last name of the previous page (views are sorted by name).
        let token = req.page_token.as_str();
        let (logical_views, more) = self.instances.with_meta(&instance, |meta| {
            let mut rest = meta
                .logical_views
                .iter()
                .filter(|v| token.is_empty() || v.name.as_str() > token);
            let page: Vec<admin_v2::LogicalView> = rest.by_ref().take(page_size).cloned().collect();
            (page, rest.next().is_some())
        })?;
        let next_page_token = match (more, logical_views.last()) {
            (true, Some(last)) => last.name.clone(),
            _ => String::new(),
        };
        Ok(admin_v2::ListLogicalViewsResponse {
            logical_views,
            next_page_token,
        })
    }

    pub(super) fn update_logical_view_inner(
        &self,
        req: &admin_v2::UpdateLogicalViewRequest,
    ) -> Result<longrunning::Operation> {
        let Some(update) = &req.logical_view else {
            return Err(Error::invalid_argument("logical_view is required"));
        };
        let (instance, id) = split_child("logical_view.name", &update.name, "logicalViews")?;
        let instance = self.existing("logical_view.name", &instance.to_string())?;
        // An absent or empty mask updates both fields, as the request sets them (the mask is
        // optional in the API).
        let paths: Vec<String> = match &req.update_mask {
            Some(m) if !m.paths.is_empty() => m.paths.clone(),
            _ => vec!["query".into(), "deletion_protection".into()],
        };
        let (mut query, mut protection) = (None, None);
        for path in &paths {
            match path.as_str() {
                "query" => query = Some(update.query.as_str()),
                "deletion_protection" => protection = Some(update.deletion_protection),
                other => {
                    return Err(Error::invalid_argument(format!(
                        "update_mask: field {} of a logical view cannot be updated (query and deletion_protection can)",
                        quoted(other)
                    )))
                }
            }
        }
        let db = self.instances.database(&instance)?;
        let updated = self.instances.update_meta(&instance, |meta| {
            let stored = with_record(meta, |r| {
                r.update_logical_view(id, query, protection, &update.etag, |q, views| {
                    check_query(&db, q, views)
                })
                .cloned()
            })?;
            Ok(view_proto(&instance, &stored))
        })?;
        self.finished::<admin_v2::UpdateLogicalViewMetadata>(
            &instance,
            &updated.name,
            req,
            "google.bigtable.admin.v2.LogicalView",
            &updated,
        )
    }

    pub(super) fn delete_logical_view_inner(
        &self,
        req: &admin_v2::DeleteLogicalViewRequest,
    ) -> Result<()> {
        let (instance, id) = split_child("name", &req.name, "logicalViews")?;
        let instance = self.existing("name", &instance.to_string())?;
        self.instances.update_meta(&instance, |meta| {
            with_record(meta, |r| r.delete_logical_view(id, &req.etag))
        })
    }
}
