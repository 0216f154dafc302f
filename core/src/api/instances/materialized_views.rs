//! The continuous materialized views an instance defines: [`MaterializedViewRecord`], its
//! rules, and the Instance Admin API's Create, Update and Delete on an
//! [`InstanceRecord`]. This is the definition only (id, query, etag, deletion protection),
//! kept in the instance's stored record (docs/format/instance.md, version 4); the view's
//! rows are the database's, which computes and maintains them
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
//! Invariant (part of [`InstanceRecord`]'s): views sorted by id, ids unique and valid, each
//! etag made by the record's etag counter or kept from a file that had it.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::record::InstanceRecord;
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

fn not_found(id: &str, instance: &str) -> Error {
    Error::new(
        Code::NotFound,
        format!(
            "materialized view {} not found in instance {instance}",
            quoted(id)
        ),
    )
}

fn check_etag(instance: &str, view: &MaterializedViewRecord, etag: &str) -> Result<()> {
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

impl InstanceRecord {
    /// The materialized views, by id.
    pub fn materialized_views(&self) -> &[MaterializedViewRecord] {
        &self.materialized_views
    }

    /// Materialized view `id`, if the instance has it.
    pub fn materialized_view(&self, id: &str) -> Option<&MaterializedViewRecord> {
        self.materialized_views.iter().find(|v| v.id == id)
    }

    /// Replaces the materialized views, as a front-end that kept its own copy hands them over
    /// (an older server's metadata, migrated): sorted here; etags are kept, and the etag
    /// counter moves past any this record made.
    ///
    /// # Errors
    /// `InvalidArgument` for a bad id or an id twice; nothing changes then.
    pub fn set_materialized_views(&mut self, mut views: Vec<MaterializedViewRecord>) -> Result<()> {
        views.sort_by(|a, b| a.id.cmp(&b.id));
        check_views(&views)?;
        self.absorb_etags(views.iter().map(|v| v.etag.as_str()));
        self.materialized_views = views;
        Ok(())
    }

    /// Records a new view (CreateMaterializedView). `make` creates the view's data (the
    /// database checks the query, backfills the view and says why it cannot); it is called
    /// after the id and the query's presence are checked and before anything is recorded, and
    /// its error is returned as it is.
    ///
    /// # Errors
    /// `InvalidArgument` for a bad id or an empty query; `AlreadyExists` for an id the
    /// instance has; what `make` returns.
    pub fn create_materialized_view(
        &mut self,
        id: &str,
        query: &str,
        deletion_protection: bool,
        make: impl FnOnce(&str) -> Result<()>,
    ) -> Result<&MaterializedViewRecord> {
        if query.is_empty() {
            return Err(Error::invalid_argument(
                "materialized_view.query is required",
            ));
        }
        validate_materialized_view_id(id)?;
        if self.materialized_view(id).is_some() {
            return Err(Error::already_exists(format!(
                "materialized view {} already exists",
                quoted(id)
            )));
        }
        make(query)?;
        let view = MaterializedViewRecord {
            id: id.to_string(),
            query: query.to_string(),
            deletion_protection,
            etag: self.next_etag(),
        };
        let at = self
            .materialized_views
            .partition_point(|v| v.id.as_str() < id);
        self.materialized_views.insert(at, view);
        Ok(&self.materialized_views[at])
    }

    /// Sets or clears a view's deletion protection (UpdateMaterializedView, the one field it
    /// changes). A non-empty `etag` must be the current one.
    ///
    /// # Errors
    /// `NotFound` for an id the instance lacks; `Aborted` for a stale etag.
    pub fn update_materialized_view(
        &mut self,
        id: &str,
        deletion_protection: bool,
        etag: &str,
    ) -> Result<&MaterializedViewRecord> {
        let name = self.name();
        let Some(at) = self.materialized_views.iter().position(|v| v.id == id) else {
            return Err(not_found(id, &name));
        };
        check_etag(&name, &self.materialized_views[at], etag)?;
        let etag = self.next_etag();
        let view = &mut self.materialized_views[at];
        view.deletion_protection = deletion_protection;
        view.etag = etag;
        Ok(&self.materialized_views[at])
    }

    /// Removes a view (DeleteMaterializedView). A non-empty `etag` must be the current one.
    ///
    /// # Errors
    /// `NotFound` for an id the instance lacks; `Aborted` for a stale etag;
    /// `FailedPrecondition` while the view has deletion protection.
    pub fn delete_materialized_view(&mut self, id: &str, etag: &str) -> Result<()> {
        let name = self.name();
        let Some(view) = self.materialized_view(id) else {
            return Err(not_found(id, &name));
        };
        check_etag(&name, view, etag)?;
        if view.deletion_protection {
            return Err(Error::failed_precondition(format!(
                "materialized view {} has deletion protection enabled",
                quoted(id)
            )));
        }
        self.materialized_views.retain(|v| v.id != id);
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

    fn ok(_: &str) -> Result<()> {
        Ok(())
    }

    #[test]
    fn create_checks_the_id_the_query_and_duplicates_before_making_the_view() {
        let mut r = record();
        let never = |_: &str| -> Result<()> { panic!("made a view for a refused request") };
        let e = r
            .create_materialized_view("-bad", "SELECT 1", false, never)
            .unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert!(e.message().contains("materialized_view_id"), "{e}");
        let e = r
            .create_materialized_view("v", "", false, never)
            .unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        // What making the view says is returned as it is, and nothing is recorded.
        let e = r
            .create_materialized_view("v", "SELECT * FROM nope", false, |_| {
                Err(Error::not_found("table \"nope\" not found"))
            })
            .unwrap_err();
        assert_eq!(e.code(), Code::NotFound);
        assert!(r.materialized_views().is_empty());
        let made = r
            .create_materialized_view("v", "Q", true, |q| {
                assert_eq!(q, "Q");
                Ok(())
            })
            .unwrap()
            .clone();
        assert!(made.deletion_protection);
        assert!(!made.etag.is_empty());
        let e = r
            .create_materialized_view("v", "Q2", false, never)
            .unwrap_err();
        assert_eq!(e.code(), Code::AlreadyExists);
        assert_eq!(e.message(), "materialized view \"v\" already exists");
        r.create_materialized_view("a", "Q3", false, ok).unwrap();
        let ids: Vec<&str> = r
            .materialized_views()
            .iter()
            .map(|v| v.id.as_str())
            .collect();
        assert_eq!(ids, ["a", "v"]);
    }

    #[test]
    fn update_and_delete_check_etags_and_protection() {
        let mut r = record();
        let first = r
            .create_materialized_view("v", "Q", true, ok)
            .unwrap()
            .etag
            .clone();
        let e = r.update_materialized_view("w", false, "").unwrap_err();
        assert_eq!(e.code(), Code::NotFound);
        assert_eq!(
            e.message(),
            "materialized view \"w\" not found in instance projects/p/instances/instance-1"
        );
        let e = r.update_materialized_view("v", false, "stale").unwrap_err();
        assert_eq!(e.code(), Code::Aborted);
        assert!(
            e.message()
                .contains("projects/p/instances/instance-1/materializedViews/v"),
            "{e}"
        );
        assert_eq!(
            r.delete_materialized_view("v", "").unwrap_err().code(),
            Code::FailedPrecondition
        );
        assert_eq!(
            r.delete_materialized_view("v", "stale").unwrap_err().code(),
            Code::Aborted
        );
        let second = r
            .update_materialized_view("v", false, &first)
            .unwrap()
            .clone();
        assert!(!second.deletion_protection);
        assert_ne!(second.etag, first);
        assert_eq!(second.query, "Q");
        // The first etag is stale now.
        assert_eq!(
            r.delete_materialized_view("v", &first).unwrap_err().code(),
            Code::Aborted
        );
        assert_eq!(
            r.delete_materialized_view("nope", "").unwrap_err().code(),
            Code::NotFound
        );
        r.delete_materialized_view("v", &second.etag).unwrap();
        assert!(r.materialized_views().is_empty());
    }

    #[test]
    fn handed_over_views_are_checked_and_etags_never_repeat() {
        let mut r = record();
        let made = r
            .create_materialized_view("v", "Q", false, ok)
            .unwrap()
            .clone();
        let mut other = record();
        assert_eq!(
            other
                .set_materialized_views(alloc::vec![made.clone(), made.clone()])
                .unwrap_err()
                .code(),
            Code::InvalidArgument
        );
        other
            .set_materialized_views(alloc::vec![made.clone()])
            .unwrap();
        let next = other.create_materialized_view("w", "Q", false, ok).unwrap();
        assert_ne!(next.etag, made.etag);
    }
}
