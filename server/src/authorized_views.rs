//! Authorized views: the Table Admin RPCs that create, read, list, update and delete them,
//! and the lookup the Data API makes for a request sent through one.
//!
//! What a view admits, and how reads and writes through it behave, is the core's rule
//! ([`sparsetable::SubsetView`]); this module converts Bigtable's messages to and from it and
//! keeps the definitions. They are instance metadata ([`crate::instance_meta`], persisted in the
//! instance's `INSTANCE` file before a call answers), stored as the `AuthorizedView` messages
//! with full names, sorted by name.
//!
//! Invariants: a view's table exists when the view is created (a deleted table takes its views
//! with it, and a table with a deletion-protected view cannot be deleted); every stored view
//! has a subset definition the core accepts and a non-empty etag, which changes on each update.
//! An update or delete that names an etag other than the stored one is ABORTED.

use std::collections::BTreeMap;

use sparsetable::{Code, Error, FamilySubset, Result, SubsetView};

use crate::convert::timestamp_to_proto;
use crate::instance_meta::{next_etag, InstanceMeta};
use crate::names::{check_id, AuthorizedViewName, TableName};
use crate::registry::Instances;
use crate::stubs::admin_v2;
use admin_v2::authorized_view::{self as av, ResponseView};
use googleapis_tonic_google_bigtable_admin_v2::google::longrunning;

/// The core's view of an `AuthorizedView` message's definition.
///
/// # Errors
/// `InvalidArgument` if the message has no `subset_view`, or the core refuses the definition.
pub fn subset_from_proto(view: &admin_v2::AuthorizedView) -> Result<SubsetView> {
    let Some(av::AuthorizedView::SubsetView(subset)) = &view.authorized_view else {
        return Err(Error::invalid_argument(
            "authorized_view.subset_view is required (the only kind of authorized view)",
        ));
    };
    let core = SubsetView {
        row_prefixes: subset.row_prefixes.iter().map(|p| p.to_vec()).collect(),
        family_subsets: subset
            .family_subsets
            .iter()
            .map(|(family, s)| {
                (
                    family.clone(),
                    FamilySubset {
                        qualifiers: s.qualifiers.iter().map(|q| q.to_vec()).collect(),
                        qualifier_prefixes: s
                            .qualifier_prefixes
                            .iter()
                            .map(|q| q.to_vec())
                            .collect(),
                    },
                )
            })
            .collect::<BTreeMap<_, _>>(),
    };
    core.validate()?;
    Ok(core)
}

/// The view a Data API request names, with its table: NOT_FOUND if it does not exist.
///
/// # Errors
/// `InvalidArgument` for a malformed name; `NotFound` for an unknown view.
pub fn resolve(instances: &Instances, name: &str) -> Result<(TableName, SubsetView)> {
    let view_name = AuthorizedViewName::parse("authorized_view_name", name)?;
    let stored = instances
        .with_meta(&view_name.table.instance, |meta| {
            find(meta, &view_name.to_string()).cloned()
        })?
        .ok_or_else(|| not_found(&view_name))?;
    Ok((view_name.table, subset_from_proto(&stored)?))
}

fn find<'a>(meta: &'a InstanceMeta, name: &str) -> Option<&'a admin_v2::AuthorizedView> {
    meta.authorized_views
        .binary_search_by(|v| v.name.as_str().cmp(name))
        .ok()
        .map(|i| &meta.authorized_views[i])
}

fn not_found(name: &AuthorizedViewName) -> Error {
    Error::not_found(format!(
        "AuthorizedView {} not found in table {}",
        sparsetable::error::quoted(&name.view_id),
        name.table
    ))
}

/// The view as `view` shows it: NAME_ONLY the name, BASIC also the etag and deletion
/// protection, FULL everything.
fn shown(stored: &admin_v2::AuthorizedView, view: ResponseView) -> admin_v2::AuthorizedView {
    match view {
        ResponseView::NameOnly => admin_v2::AuthorizedView {
            name: stored.name.clone(),
            ..Default::default()
        },
        ResponseView::Basic => admin_v2::AuthorizedView {
            authorized_view: None,
            ..stored.clone()
        },
        ResponseView::Full | ResponseView::Unspecified => stored.clone(),
    }
}

fn response_view(value: i32, default: ResponseView) -> Result<ResponseView> {
    match ResponseView::try_from(value) {
        Ok(ResponseView::Unspecified) => Ok(default),
        Ok(v) => Ok(v),
        Err(_) => Err(Error::invalid_argument(format!(
            "view {value} is not a valid AuthorizedView.ResponseView"
        ))),
    }
}

/// The table's existence, checked in its instance's database.
fn existing_table(instances: &Instances, table: &TableName) -> Result<Vec<String>> {
    let db = instances.database(&table.instance)?;
    let info = db.read(|db| db.get_table(&table.table_id))?;
    Ok(info
        .config
        .families
        .iter()
        .map(|(name, _)| name.clone())
        .collect())
}

/// The table's family names, for the core's whole-row delete check.
pub fn table_families(instances: &Instances, table: &TableName) -> Result<Vec<String>> {
    existing_table(instances, table)
}

fn now(instances: &Instances, table: &TableName) -> Result<prost_types::Timestamp> {
    let db = instances.database(&table.instance)?;
    Ok(timestamp_to_proto(db.read(|db| Ok(db.now_micros()))?))
}

/// CreateAuthorizedView.
///
/// # Errors
/// `InvalidArgument` for a bad parent, id or definition; `NotFound` for an unknown table;
/// `AlreadyExists` if the table has a view of that id.
pub fn create(
    instances: &Instances,
    req: &admin_v2::CreateAuthorizedViewRequest,
) -> Result<longrunning::Operation> {
    let table = TableName::parse("parent", &req.parent)?;
    check_id("parent", "table", &table.table_id)?;
    check_id(
        "authorized_view_id",
        "authorized view",
        &req.authorized_view_id,
    )?;
    let Some(view) = &req.authorized_view else {
        return Err(Error::invalid_argument("authorized_view is required"));
    };
    subset_from_proto(view)?;
    existing_table(instances, &table)?;
    let name = AuthorizedViewName {
        table: table.clone(),
        view_id: req.authorized_view_id.clone(),
    };
    let request_time = now(instances, &table)?;
    let stored = admin_v2::AuthorizedView {
        name: name.to_string(),
        etag: next_etag(),
        ..view.clone()
    };
    instances.update_meta(&table.instance, |meta| {
        match meta
            .authorized_views
            .binary_search_by(|v| v.name.as_str().cmp(&stored.name))
        {
            Ok(_) => Err(Error::already_exists(format!(
                "AuthorizedView {} already exists in table {table}",
                sparsetable::error::quoted(&name.view_id)
            ))),
            Err(at) => {
                meta.authorized_views.insert(at, stored.clone());
                Ok(())
            }
        }
    })?;
    Ok(instances
        .operations()
        .finished_request::<admin_v2::CreateAuthorizedViewMetadata>(
            &name.to_string(),
            req,
            Some(request_time),
            "google.bigtable.admin.v2.AuthorizedView",
            &stored,
        ))
}

/// GetAuthorizedView (BASIC unless the request asks otherwise).
///
/// # Errors
/// `InvalidArgument` for a bad name or view; `NotFound` for an unknown view.
pub fn get(
    instances: &Instances,
    req: &admin_v2::GetAuthorizedViewRequest,
) -> Result<admin_v2::AuthorizedView> {
    let name = AuthorizedViewName::parse("name", &req.name)?;
    let view = response_view(req.view, ResponseView::Basic)?;
    instances
        .with_meta(&name.table.instance, |meta| {
            find(meta, &name.to_string()).map(|v| shown(v, view))
        })?
        .ok_or_else(|| not_found(&name))
}

/// ListAuthorizedViews, in id order (NAME_ONLY unless asked otherwise). A page token is the
/// last name of the previous page.
///
/// # Errors
/// `InvalidArgument` for a bad parent, page size or view; `NotFound` for an unknown table.
pub fn list(
    instances: &Instances,
    req: &admin_v2::ListAuthorizedViewsRequest,
) -> Result<admin_v2::ListAuthorizedViewsResponse> {
    let table = TableName::parse("parent", &req.parent)?;
    check_id("parent", "table", &table.table_id)?;
    if req.page_size < 0 {
        return Err(Error::invalid_argument("page_size must not be negative"));
    }
    let view = response_view(req.view, ResponseView::NameOnly)?;
    existing_table(instances, &table)?;
    let prefix = format!("{table}/authorizedViews/");
    let token = req.page_token.clone();
    let page_size = if req.page_size == 0 {
        usize::MAX
    } else {
        req.page_size as usize
    };
    let (page, more) = instances.with_meta(&table.instance, |meta| {
        let mut matching = meta
            .authorized_views
            .iter()
            .filter(|v| v.name.starts_with(&prefix))
            .filter(|v| token.is_empty() || v.name.as_str() > token.as_str());
        let page: Vec<admin_v2::AuthorizedView> = matching
            .by_ref()
            .take(page_size)
            .map(|v| shown(v, view))
            .collect();
        (page, matching.next().is_some())
    })?;
    let next_page_token = if more {
        page.last().map(|v| v.name.clone()).unwrap_or_default()
    } else {
        String::new()
    };
    Ok(admin_v2::ListAuthorizedViewsResponse {
        authorized_views: page,
        next_page_token,
    })
}

/// UpdateAuthorizedView: `subset_view` and `deletion_protection` by the update mask (an empty
/// mask updates both, as set in the request; `*` the same).
///
/// # Errors
/// `InvalidArgument` for a bad name, mask path or definition; `NotFound` for an unknown view;
/// `Aborted` for a stale etag.
pub fn update(
    instances: &Instances,
    req: &admin_v2::UpdateAuthorizedViewRequest,
) -> Result<longrunning::Operation> {
    let Some(change) = &req.authorized_view else {
        return Err(Error::invalid_argument("authorized_view is required"));
    };
    let name = AuthorizedViewName::parse("authorized_view.name", &change.name)?;
    let paths: Vec<&str> = req
        .update_mask
        .as_ref()
        .map(|m| m.paths.iter().map(String::as_str).collect())
        .unwrap_or_default();
    let (mut subset, mut protection) = (paths.is_empty(), paths.is_empty());
    for path in &paths {
        match *path {
            "subset_view" => subset = true,
            "deletion_protection" => protection = true,
            "*" => (subset, protection) = (true, true),
            other => {
                return Err(Error::invalid_argument(format!(
                    "update_mask path {} is not an updatable AuthorizedView field",
                    sparsetable::error::quoted(other)
                )))
            }
        }
    }
    // An empty mask overwrites what the request sets: an unset definition is left alone.
    if paths.is_empty() && change.authorized_view.is_none() {
        subset = false;
    }
    if subset {
        subset_from_proto(change)?;
    }
    let request_time = now(instances, &name.table)?;
    let full_name = name.to_string();
    let updated = instances.update_meta(&name.table.instance, |meta| {
        let at = meta
            .authorized_views
            .binary_search_by(|v| v.name.as_str().cmp(&full_name))
            .map_err(|_| not_found(&name))?;
        let stored = &mut meta.authorized_views[at];
        check_etag(&change.etag, &stored.etag, &name)?;
        if subset {
            stored.authorized_view = change.authorized_view.clone();
        }
        if protection {
            stored.deletion_protection = change.deletion_protection;
        }
        stored.etag = next_etag();
        Ok(stored.clone())
    })?;
    Ok(instances
        .operations()
        .finished_request::<admin_v2::UpdateAuthorizedViewMetadata>(
            &full_name,
            req,
            Some(request_time),
            "google.bigtable.admin.v2.AuthorizedView",
            &updated,
        ))
}

/// DeleteAuthorizedView.
///
/// # Errors
/// `InvalidArgument` for a bad name; `NotFound` for an unknown view; `Aborted` for a stale
/// etag; `FailedPrecondition` for a deletion-protected view.
pub fn delete(instances: &Instances, req: &admin_v2::DeleteAuthorizedViewRequest) -> Result<()> {
    let name = AuthorizedViewName::parse("name", &req.name)?;
    let full_name = name.to_string();
    instances.update_meta(&name.table.instance, |meta| {
        let at = meta
            .authorized_views
            .binary_search_by(|v| v.name.as_str().cmp(&full_name))
            .map_err(|_| not_found(&name))?;
        let stored = &meta.authorized_views[at];
        check_etag(&req.etag, &stored.etag, &name)?;
        if stored.deletion_protection {
            return Err(Error::failed_precondition(format!(
                "AuthorizedView {full_name} is protected against deletion: clear its deletion_protection first"
            )));
        }
        meta.authorized_views.remove(at);
        Ok(())
    })
}

fn check_etag(given: &str, stored: &str, name: &AuthorizedViewName) -> Result<()> {
    if given.is_empty() || given == stored {
        Ok(())
    } else {
        Err(Error::new(
            Code::Aborted,
            format!("etag {} does not match AuthorizedView {name}'s current etag: read it again and retry", sparsetable::error::quoted(given)),
        ))
    }
}

/// Refuses to delete `table` while one of its views is deletion-protected.
///
/// # Errors
/// `FailedPrecondition` naming the protected view.
pub fn check_table_deletable(meta: &InstanceMeta, table: &TableName) -> Result<()> {
    let prefix = format!("{table}/authorizedViews/");
    match meta
        .authorized_views
        .iter()
        .find(|v| v.name.starts_with(&prefix) && v.deletion_protection)
    {
        Some(v) => Err(Error::failed_precondition(format!(
            "table {table} has the deletion-protected AuthorizedView {}: clear its deletion_protection or delete it first",
            v.name
        ))),
        None => Ok(()),
    }
}

/// Forgets the views of a deleted table.
pub fn forget_views_of(meta: &mut InstanceMeta, table: &TableName) {
    let prefix = format!("{table}/authorizedViews/");
    meta.authorized_views
        .retain(|v| !v.name.starts_with(&prefix));
}
