//! The Instance Admin API's operations on an instance's continuous materialized views (the
//! rules are in the module docs of [`super::materialized_views`]): each checks its whole
//! input first and changes nothing when it fails, as the record's other operations.

use alloc::format;
use alloc::string::ToString;
use alloc::vec::Vec;

use super::materialized_views::{
    check_etag, check_views, not_found, validate_materialized_view_id, MaterializedViewRecord,
};
use super::record::InstanceRecord;
use crate::error::quoted;
use crate::{Error, Result};

impl InstanceRecord {
    /// The materialized views, by id.
    pub fn materialized_views(&self) -> &[MaterializedViewRecord] {
        &self.materialized_views
    }

    /// Materialized view `id`, if the instance has it.
    pub fn materialized_view(&self, id: &str) -> Option<&MaterializedViewRecord> {
        self.materialized_views.iter().find(|v| v.id == id)
    }

    /// Materialized view `id` (GetMaterializedView).
    ///
    /// # Errors
    /// `NotFound` for an id the instance lacks.
    pub fn get_materialized_view(&self, id: &str) -> Result<&MaterializedViewRecord> {
        self.materialized_view(id)
            .ok_or_else(|| not_found(id, &self.name()))
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
    use crate::Code;
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
