//! The Instance Admin API's operations on an instance's logical views (the rules are in the
//! module docs of [`super::logical_views`]): each checks its whole input first and changes
//! nothing when it fails, as the record's other operations. The steps are those of every
//! view (`view_ops.rs`); what is a logical view's own here is how a query is checked
//! (prepared, a failure becoming INVALID_ARGUMENT) and that Update may change it.

use alloc::string::ToString;
use alloc::vec::Vec;

use super::logical_views::{bad_query, check_query, LogicalViewRecord};
use super::record::InstanceRecord;
use crate::Result;

impl InstanceRecord {
    /// The logical views, by id.
    pub fn logical_views(&self) -> &[LogicalViewRecord] {
        &self.logical_views
    }

    /// Logical view `id`, if the instance has it.
    pub fn logical_view(&self, id: &str) -> Option<&LogicalViewRecord> {
        self.view(id)
    }

    /// Replaces the logical views, as a front-end that keeps its own copy hands them over
    /// (they are sorted here; etags are kept, and the etag counter moves past any this
    /// record made).
    ///
    /// # Errors
    /// `InvalidArgument` for a bad id or an id twice; nothing changes then.
    pub fn set_logical_views(&mut self, views: Vec<LogicalViewRecord>) -> Result<()> {
        self.set_views(views)
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
        self.create_view(id, query, deletion_protection, |views| {
            check(query, views).map_err(bad_query)
        })
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
        self.update_view(id, etag, |views: &mut Vec<LogicalViewRecord>, at| {
            if let Some(q) = query {
                check_query(q)?;
                views[at].query = q.to_string();
                check(q, views).map_err(bad_query)?;
            }
            if let Some(p) = deletion_protection {
                views[at].deletion_protection = p;
            }
            Ok(())
        })
    }

    /// Removes a logical view (DeleteLogicalView). A non-empty `etag` must be the current one.
    ///
    /// # Errors
    /// `NotFound` for an id the instance lacks; `Aborted` for a stale etag;
    /// `FailedPrecondition` while the view has deletion protection.
    pub fn delete_logical_view(&mut self, id: &str, etag: &str) -> Result<()> {
        self.delete_view::<LogicalViewRecord>(id, etag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::instances::view_ops::tests::record;
    use crate::{Code, Error};

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
