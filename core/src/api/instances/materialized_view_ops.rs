//! The Instance Admin API's operations on an instance's continuous materialized views (the
//! rules are in the module docs of [`super::materialized_views`]): each checks its whole
//! input first and changes nothing when it fails, as the record's other operations. The steps
//! are those of every view (`view_ops.rs`); what is a materialized view's own here is
//! that the database makes the view's rows before it is recorded, and that Update changes
//! only its deletion protection.

use alloc::vec::Vec;

use super::materialized_views::MaterializedViewRecord;
use super::record::InstanceRecord;
use crate::Result;

impl InstanceRecord {
    /// The materialized views, by id.
    pub fn materialized_views(&self) -> &[MaterializedViewRecord] {
        &self.materialized_views
    }

    /// Materialized view `id`, if the instance has it.
    pub fn materialized_view(&self, id: &str) -> Option<&MaterializedViewRecord> {
        self.view(id)
    }

    /// Materialized view `id` (GetMaterializedView).
    ///
    /// # Errors
    /// `NotFound` for an id the instance lacks.
    pub fn get_materialized_view(&self, id: &str) -> Result<&MaterializedViewRecord> {
        self.get_view(id)
    }

    /// Replaces the materialized views, as a front-end that kept its own copy hands them over
    /// (an older server's metadata, migrated): sorted here; etags are kept, and the etag
    /// counter moves past any this record made.
    ///
    /// # Errors
    /// `InvalidArgument` for a bad id or an id twice; nothing changes then.
    pub fn set_materialized_views(&mut self, views: Vec<MaterializedViewRecord>) -> Result<()> {
        self.set_views(views)
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
        self.create_view(id, query, deletion_protection, |_| make(query))
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
        self.update_view(id, etag, |views: &mut Vec<MaterializedViewRecord>, at| {
            views[at].deletion_protection = deletion_protection;
            Ok(())
        })
    }

    /// Removes a view (DeleteMaterializedView). A non-empty `etag` must be the current one.
    ///
    /// # Errors
    /// `NotFound` for an id the instance lacks; `Aborted` for a stale etag;
    /// `FailedPrecondition` while the view has deletion protection.
    pub fn delete_materialized_view(&mut self, id: &str, etag: &str) -> Result<()> {
        self.delete_view::<MaterializedViewRecord>(id, etag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::instances::view_ops::tests::record;
    use crate::{Code, Error};

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
