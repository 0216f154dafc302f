//! The continuous materialized views an instance defines: [`MaterializedViewRecord`] and its
//! rules (as an [`InstanceView`]: its checks and its words). The Instance Admin API's Create,
//! Update and Delete on an [`super::InstanceRecord`] are in [`super::materialized_view_ops`]
//! (apart, so the record can hold views without importing its operations), written once for
//! both kinds of view in `view_ops.rs`. This is the definition only (id, query, etag,
//! deletion protection), kept in the instance's stored record (docs/format/instance.md,
//! version 4); the view's rows are the database's, which computes and maintains them
//! ([`crate::api::materialized_views`], which also checks the query) and which a front-end
//! asks to create each recorded view again when it opens the data (a view is recovered by
//! recomputation, never from a stored copy).
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

use super::views::InstanceView;
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

impl InstanceView for MaterializedViewRecord {
    super::views::view_fields!();

    fn validate_id(id: &str) -> Result<()> {
        validate_materialized_view_id(id)
    }

    fn check_request(id: &str, query: &str) -> Result<()> {
        // The query first: the order the server checked in before these rules moved here.
        if query.is_empty() {
            return Err(Error::invalid_argument(
                "materialized_view.query is required",
            ));
        }
        validate_materialized_view_id(id)
    }

    fn check_room(_count: usize) -> Result<()> {
        Ok(())
    }

    fn already_exists(id: &str, _instance: &str) -> Error {
        Error::already_exists(format!("materialized view {} already exists", quoted(id)))
    }

    fn not_found(id: &str, instance: &str) -> Error {
        Error::new(
            Code::NotFound,
            format!(
                "materialized view {} not found in instance {instance}",
                quoted(id)
            ),
        )
    }

    fn stale(instance: &str, view: &Self, etag: &str) -> Error {
        Error::new(
            Code::Aborted,
            format!(
                "materialized view {instance}/materializedViews/{} changed since etag {} was read",
                view.id,
                quoted(etag)
            ),
        )
    }

    fn protected(id: &str) -> Error {
        Error::failed_precondition(format!(
            "materialized view {} has deletion protection enabled",
            quoted(id)
        ))
    }

    const UNSORTED: &'static str = "materialized views are not sorted by distinct ids";
}
