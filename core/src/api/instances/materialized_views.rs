//! The continuous materialized views an instance defines: [`MaterializedViewRecord`] and its
//! rules. The Instance Admin API's Create, Update and Delete on an
//! [`super::InstanceRecord`] are in [`super::materialized_view_ops`] (apart, so the record
//! can hold views without importing its operations). This is the definition only (id, query, etag, deletion protection),
//! kept in the instance's stored record (docs/format/instance.md, version 4); the view's
//! rows are the database's, which computes and maintains them
//! ([`crate::api::materialized_views`], which also checks the query) and which a front-end
//! asks to create each recorded view again when it opens the data (loading the view's
//! stored copy when it matches its table's durable state, else recomputing it).
//!
//! The rules, in our words, from Bigtable's "Create and manage continuous materialized views"
//! and the admin API's `MaterializedView` message (google/bigtable/admin/v2/instance.proto):
//! - A view is named `projects/{p}/instances/{i}/materializedViews/{id}` and has a query
//!   (required, fixed once created). Its id follows the table id rule
//!   (`[_a-zA-Z0-9][-_.a-zA-Z0-9]*`, at most 50 characters; a view is read where a table is).
//! - `etag`: set by us on every change; an update or delete that sends one that is not the
//!   current is ABORTED.
//! - `deletion_protection`: while set, DeleteMaterializedView is FAILED_PRECONDITION.
//! - Only `deletion_protection` can be updated.
//!
//! Codes and messages are those the server gave before these rules moved here (so clients
//! see no change): a taken id is ALREADY_EXISTS, an unknown one NOT_FOUND naming the
//! instance.
//!
//! Invariant (part of [`super::InstanceRecord`]'s): views sorted by id, ids unique and valid, each
//! etag made by the record's etag counter or kept from a file that had it.

use alloc::format;
use alloc::string::String;

use crate::error::quoted;
use crate::model::schema::validate_table_id;
use crate::{Code, Error, Result};

/// A continuous materialized view's definition, as an instance records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaterializedViewRecord {
    /// Its id (the last part of its name).
    pub id: String,
    /// Its query text (GoogleSQL for Bigtable).
    pub query: String,
    /// While set, the view cannot be deleted.
    pub deletion_protection: bool,
    /// Changes whenever the view does (optimistic concurrency for updates and deletes).
    pub etag: String,
}

/// Checks a materialized view id.
///
/// # Errors
/// `InvalidArgument` naming the rule (the table id rule, see the module docs).
pub fn validate_materialized_view_id(id: &str) -> Result<()> {
    validate_table_id(id).map_err(|_| {
        Error::invalid_argument(format!(
            "materialized_view_id {} must match [_a-zA-Z0-9][-_.a-zA-Z0-9]* and be at most 50 \
             characters",
            quoted(id)
        ))
    })
}

pub(super) fn not_found(id: &str, instance: &str) -> Error {
    Error::new(
        Code::NotFound,
        format!(
            "materialized view {} not found in instance {instance}",
            quoted(id)
        ),
    )
}

pub(super) fn check_etag(instance: &str, view: &MaterializedViewRecord, etag: &str) -> Result<()> {
    if !etag.is_empty() && etag != view.etag {
        return Err(Error::new(
            Code::Aborted,
            format!(
                "materialized view {instance}/materializedViews/{} changed since etag {} was read",
                view.id,
                quoted(etag)
            ),
        ));
    }
    Ok(())
}

/// Checks the views' part of the record's invariants.
pub(super) fn check_views(views: &[MaterializedViewRecord]) -> Result<()> {
    if views.windows(2).any(|w| w[0].id >= w[1].id) {
        return Err(Error::invalid_argument(
            "materialized views are not sorted by distinct ids",
        ));
    }
    views
        .iter()
        .try_for_each(|v| validate_materialized_view_id(&v.id))
}
