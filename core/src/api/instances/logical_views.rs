//! Logical views of an instance: [`LogicalViewRecord`] and the Instance Admin API's
//! Create, Update and Delete on an [`InstanceRecord`]. How a query reads a view is the SQL
//! engine's ([`crate::api::sql::views`]).
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
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::record::InstanceRecord;
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
fn bad_query(e: Error) -> Error {
    if e.code() == Code::InvalidArgument {
        return e;
    }
    Error::invalid_argument(format!("logical view query: {}", e.message()))
}

fn view_not_found(id: &str, instance: &str) -> Error {
    Error::new(
        Code::NotFound,
        format!(
            "logical view {} not found in instance {instance}",
            quoted(id)
        ),
    )
}

fn check_etag(view: &LogicalViewRecord, etag: &str) -> Result<()> {
    if !etag.is_empty() && etag != view.etag {
        return Err(Error::new(
            Code::Aborted,
            format!(
                "logical view {} changed since it was read (etag {} is not the current one)",
                quoted(&view.id),
                quoted(etag)
            ),
        ));
    }
    Ok(())
}

/// Checks the views' part of the record's invariants.
pub(super) fn check_views(views: &[LogicalViewRecord]) -> Result<()> {
    if views.windows(2).any(|w| w[0].id >= w[1].id) {
        return Err(Error::invalid_argument(
            "logical views are not sorted by distinct ids",
        ));
    }
    views
        .iter()
        .try_for_each(|v| validate_logical_view_id(&v.id))
}

impl InstanceRecord {
    /// The logical views, by id.
    pub fn logical_views(&self) -> &[LogicalViewRecord] {
        &self.logical_views
    }

    /// Logical view `id`, if the instance has it.
    pub fn logical_view(&self, id: &str) -> Option<&LogicalViewRecord> {
        self.logical_views.iter().find(|v| v.id == id)
    }

    /// Replaces the logical views, as a front-end that keeps its own copy hands them over
    /// (they are sorted here; etags are kept, and the etag counter moves past any this
    /// record made).
    ///
    /// # Errors
    /// `InvalidArgument` for a bad id or an id twice; nothing changes then.
    pub fn set_logical_views(&mut self, mut views: Vec<LogicalViewRecord>) -> Result<()> {
        views.sort_by(|a, b| a.id.cmp(&b.id));
        check_views(&views)?;
        let prefix = format!("{}-", self.create_time_micros.max(0));
        let made = views
            .iter()
            .filter_map(|v| v.etag.strip_prefix(prefix.as_str()))
            .filter_map(|hex| u64::from_str_radix(hex, 16).ok())
            .max()
            .unwrap_or(0);
        self.etag_counter = self.etag_counter.max(made);
        self.logical_views = views;
        Ok(())
    }

    /// Stores a new logical view (CreateLogicalView). `check` prepares a query against the
    /// instance's data with the views it would then have (this one included) and says why it
    /// does not prepare; its error becomes INVALID_ARGUMENT.
    ///
    /// # Errors
    /// `InvalidArgument` for a bad id, an empty query, one that does not prepare, or one view
    /// too many; `AlreadyExists` for an id the instance has.
    pub fn create_logical_view(
        &mut self,
        id: &str,
        query: &str,
        deletion_protection: bool,
        check: impl FnOnce(&str, &[LogicalViewRecord]) -> Result<()>,
    ) -> Result<&LogicalViewRecord> {
        validate_logical_view_id(id)?;
        if query.trim().is_empty() {
            return Err(Error::invalid_argument("logical_view.query is required"));
        }
        if self.logical_view(id).is_some() {
            return Err(Error::new(
                Code::AlreadyExists,
                format!(
                    "logical view {} already exists in instance {}",
                    quoted(id),
                    self.name()
                ),
            ));
        }
        if self.logical_views.len() >= MAX_LOGICAL_VIEWS {
            return Err(Error::invalid_argument(format!(
                "an instance has at most {MAX_LOGICAL_VIEWS} logical views"
            )));
        }
        let mut views = self.logical_views.clone();
        let at = views.partition_point(|v| v.id.as_str() < id);
        views.insert(
            at,
            LogicalViewRecord {
                id: id.to_string(),
                query: query.to_string(),
                deletion_protection,
                etag: String::new(),
            },
        );
        check(query, &views).map_err(bad_query)?;
        views[at].etag = self.next_etag();
        self.logical_views = views;
        Ok(&self.logical_views[at])
    }

    /// Changes a logical view (UpdateLogicalView): its query and/or its deletion protection,
    /// whichever is `Some`. A non-empty `etag` must be the current one. A new query is
    /// checked as [`create_logical_view`](Self::create_logical_view) checks one.
    ///
    /// # Errors
    /// `NotFound` for an id the instance lacks; `Aborted` for a stale etag;
    /// `InvalidArgument` for an empty query or one that does not prepare.
    pub fn update_logical_view(
        &mut self,
        id: &str,
        query: Option<&str>,
        deletion_protection: Option<bool>,
        etag: &str,
        check: impl FnOnce(&str, &[LogicalViewRecord]) -> Result<()>,
    ) -> Result<&LogicalViewRecord> {
        let name = self.name();
        let Some(at) = self.logical_views.iter().position(|v| v.id == id) else {
            return Err(view_not_found(id, &name));
        };
        check_etag(&self.logical_views[at], etag)?;
        let mut views = self.logical_views.clone();
        if let Some(q) = query {
            if q.trim().is_empty() {
                return Err(Error::invalid_argument("logical_view.query is required"));
            }
            views[at].query = q.to_string();
            check(q, &views).map_err(bad_query)?;
        }
        if let Some(p) = deletion_protection {
            views[at].deletion_protection = p;
        }
        views[at].etag = self.next_etag();
        self.logical_views = views;
        Ok(&self.logical_views[at])
    }

    /// Removes a logical view (DeleteLogicalView). A non-empty `etag` must be the current one.
    ///
    /// # Errors
    /// `NotFound` for an id the instance lacks; `Aborted` for a stale etag;
    /// `FailedPrecondition` while the view has deletion protection.
    pub fn delete_logical_view(&mut self, id: &str, etag: &str) -> Result<()> {
        let Some(view) = self.logical_view(id) else {
            return Err(view_not_found(id, &self.name()));
        };
        check_etag(view, etag)?;
        if view.deletion_protection {
            return Err(Error::new(
                Code::FailedPrecondition,
                format!(
                    "logical view {} has deletion protection; clear deletion_protection first",
                    quoted(id)
                ),
            ));
        }
        self.logical_views.retain(|v| v.id != id);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::instances::ClusterRecord;
    use alloc::collections::BTreeMap;

    fn record() -> InstanceRecord {
        InstanceRecord::create(
            "p",
            "instance-1",
            None,
            super::super::InstanceType::Production,
            BTreeMap::new(),
            alloc::vec![ClusterRecord::new("cluster-1", "local")],
            1_000,
        )
        .unwrap()
    }

    fn ok(_: &str, _: &[LogicalViewRecord]) -> Result<()> {
        Ok(())
    }

    #[test]
    fn create_checks_the_id_the_query_and_duplicates() {
        let mut r = record();
        let e = r.create_logical_view("-bad", "SELECT 1", false, ok);
        assert_eq!(e.unwrap_err().code(), Code::InvalidArgument);
        let e = r.create_logical_view("v", "  ", false, ok);
        assert_eq!(e.unwrap_err().code(), Code::InvalidArgument);
        // What preparing says becomes INVALID_ARGUMENT with its text, and nothing is stored.
        let e = r
            .create_logical_view("v", "SELECT * FROM nope", false, |_, _| {
                Err(Error::new(Code::NotFound, "table \"nope\" not found"))
            })
            .unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert!(e.message().contains("table \"nope\" not found"), "{e}");
        assert!(r.logical_views().is_empty());
        // The checker sees the views the instance would have, this one included.
        let v = r
            .create_logical_view("v", "SELECT 1", true, |q, views| {
                assert_eq!(q, "SELECT 1");
                assert_eq!(views.len(), 1);
                assert_eq!(views[0].id, "v");
                Ok(())
            })
            .unwrap()
            .clone();
        assert!(v.deletion_protection);
        assert!(!v.etag.is_empty());
        let e = r
            .create_logical_view("v", "SELECT 2", false, ok)
            .unwrap_err();
        assert_eq!(e.code(), Code::AlreadyExists);
        r.create_logical_view("a", "SELECT 3", false, ok).unwrap();
        let ids: Vec<&str> = r.logical_views().iter().map(|v| v.id.as_str()).collect();
        assert_eq!(ids, ["a", "v"]);
    }

    #[test]
    fn update_checks_etags_and_changes_only_what_is_given() {
        let mut r = record();
        let first = r
            .create_logical_view("v", "SELECT 1", false, ok)
            .unwrap()
            .etag
            .clone();
        let e = r
            .update_logical_view("w", None, Some(true), "", ok)
            .unwrap_err();
        assert_eq!(e.code(), Code::NotFound);
        let e = r
            .update_logical_view("v", None, Some(true), "stale", ok)
            .unwrap_err();
        assert_eq!(e.code(), Code::Aborted);
        let second = r
            .update_logical_view("v", None, Some(true), &first, ok)
            .unwrap()
            .clone();
        assert_eq!(second.query, "SELECT 1");
        assert!(second.deletion_protection);
        assert_ne!(second.etag, first);
        // The old etag is stale now.
        let e = r
            .update_logical_view("v", Some("SELECT 2"), None, &first, ok)
            .unwrap_err();
        assert_eq!(e.code(), Code::Aborted);
        let e = r
            .update_logical_view("v", Some("SELECT x"), None, "", |_, _| {
                Err(Error::invalid_argument("SQL: unrecognized name x"))
            })
            .unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert_eq!(r.logical_view("v").unwrap().query, "SELECT 1");
        let third = r
            .update_logical_view("v", Some("SELECT 2"), None, "", ok)
            .unwrap();
        assert_eq!(third.query, "SELECT 2");
        assert!(third.deletion_protection);
    }

    #[test]
    fn delete_honours_protection_and_etags() {
        let mut r = record();
        let etag = r
            .create_logical_view("v", "SELECT 1", true, ok)
            .unwrap()
            .etag
            .clone();
        assert_eq!(
            r.delete_logical_view("v", "").unwrap_err().code(),
            Code::FailedPrecondition
        );
        assert_eq!(
            r.delete_logical_view("v", "stale").unwrap_err().code(),
            Code::Aborted
        );
        let etag = r
            .update_logical_view("v", None, Some(false), &etag, ok)
            .unwrap()
            .etag
            .clone();
        assert_eq!(
            r.delete_logical_view("nope", "").unwrap_err().code(),
            Code::NotFound
        );
        r.delete_logical_view("v", &etag).unwrap();
        assert!(r.logical_views().is_empty());
    }

    #[test]
    fn handed_over_views_are_checked_and_etags_never_repeat() {
        let mut r = record();
        let made = r
            .create_logical_view("v", "SELECT 1", false, ok)
            .unwrap()
            .clone();
        let mut other = record();
        let dup = alloc::vec![made.clone(), made.clone()];
        assert_eq!(
            other.set_logical_views(dup).unwrap_err().code(),
            Code::InvalidArgument
        );
        other.set_logical_views(alloc::vec![made.clone()]).unwrap();
        let next = other
            .create_logical_view("w", "SELECT 2", false, ok)
            .unwrap();
        assert_ne!(next.etag, made.etag);
    }
}
