//! Logical views of an instance: [`LogicalViewRecord`] and its rules (as an
//! [`InstanceView`]: its checks and its words). The Instance Admin API's Create, Update and
//! Delete on an [`super::InstanceRecord`] are in [`super::logical_view_ops`] (apart, so the
//! record can hold views without importing its operations), written once for both kinds of
//! view in `view_ops.rs`. How a query reads a view is the SQL engine's
//! ([`crate::api::sql::views`]).
//!
//! The rules, in our words, from Bigtable's "Create and manage logical views" and the admin
//! API's `LogicalView` message (google/bigtable/admin/v2/instance.proto):
//! - A logical view is an instance-level saved query (`query`, required), named
//!   `projects/{p}/instances/{i}/logicalViews/{id}`. Its id follows the table id rule
//!   (`[_a-zA-Z0-9][-_.a-zA-Z0-9]*`, at most 50 characters; the documentation gives none of
//!   its own, and a view is used where a table is).
//! - The query must be one the service accepts: it is prepared when the view is created and
//!   whenever its query changes, and a query that does not prepare is INVALID_ARGUMENT with
//!   the SQL error's text (whatever code preparing gave, such as NOT_FOUND for an unknown
//!   table).
//! - `etag`: set by us on every change; an update or delete that sends one that is not the
//!   current is ABORTED.
//! - `deletion_protection`: while set, DeleteLogicalView is FAILED_PRECONDITION.
//!
//! Our choices where the documentation is silent: a view may be deleted while another view
//! reads it (the reader then fails when queried, naming the missing view's table name);
//! at most [`MAX_LOGICAL_VIEWS`] views per instance.
//!
//! Invariant (part of [`InstanceRecord`]'s): views sorted by id, ids unique and valid, each
//! etag made by the record's etag counter or kept from a file that had it.

use alloc::format;
use alloc::string::String;

use super::views::InstanceView;
use crate::error::quoted;
use crate::model::schema::validate_table_id;
use crate::{Code, Error, Result};

/// Most logical views an instance may have here.
pub const MAX_LOGICAL_VIEWS: usize = 1000;

/// A logical view of an instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogicalViewRecord {
    /// Its id (the last part of its name).
    pub id: String,
    /// Its query text (GoogleSQL for Bigtable).
    pub query: String,
    /// While set, the view cannot be deleted.
    pub deletion_protection: bool,
    /// Changes whenever the view does (optimistic concurrency for updates and deletes).
    pub etag: String,
}

/// Checks a logical view id.
///
/// # Errors
/// `InvalidArgument` naming the rule (the table id rule, see the module docs).
pub fn validate_logical_view_id(id: &str) -> Result<()> {
    validate_table_id(id).map_err(|_| {
        Error::invalid_argument(format!(
            "logical_view_id {} must match [_a-zA-Z0-9][-_.a-zA-Z0-9]* and be at most 50 characters",
            quoted(id)
        ))
    })
}

/// A query that did not prepare, as the admin API reports it: INVALID_ARGUMENT with the
/// SQL error's text.
pub(super) fn bad_query(e: Error) -> Error {
    if e.code() == Code::InvalidArgument {
        return e;
    }
    Error::invalid_argument(format!("logical view query: {}", e.message()))
}

impl InstanceView for LogicalViewRecord {
    super::views::view_fields!();

    fn validate_id(id: &str) -> Result<()> {
        validate_logical_view_id(id)
    }

    fn check_request(id: &str, query: &str) -> Result<()> {
        validate_logical_view_id(id)?;
        check_query(query)
    }

    fn check_room(count: usize) -> Result<()> {
        if count >= MAX_LOGICAL_VIEWS {
            return Err(Error::invalid_argument(format!(
                "an instance has at most {MAX_LOGICAL_VIEWS} logical views"
            )));
        }
        Ok(())
    }

    fn already_exists(id: &str, instance: &str) -> Error {
        Error::new(
            Code::AlreadyExists,
            format!(
                "logical view {} already exists in instance {instance}",
                quoted(id)
            ),
        )
    }

    fn not_found(id: &str, instance: &str) -> Error {
        Error::new(
            Code::NotFound,
            format!(
                "logical view {} not found in instance {instance}",
                quoted(id)
            ),
        )
    }

    fn stale(_instance: &str, view: &Self, etag: &str) -> Error {
        Error::new(
            Code::Aborted,
            format!(
                "logical view {} changed since it was read (etag {} is not the current one)",
                quoted(&view.id),
                quoted(etag)
            ),
        )
    }

    fn protected(id: &str) -> Error {
        Error::new(
            Code::FailedPrecondition,
            format!(
                "logical view {} has deletion protection; clear deletion_protection first",
                quoted(id)
            ),
        )
    }

    const UNSORTED: &'static str = "logical views are not sorted by distinct ids";
}

/// A query is required (blank is missing), on create and on update.
pub(super) fn check_query(query: &str) -> Result<()> {
    if query.trim().is_empty() {
        return Err(Error::invalid_argument("logical_view.query is required"));
    }
    Ok(())
}
