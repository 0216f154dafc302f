//! The Instance Admin API's Create, Update and Delete of a named, etagged, protected view
//! ([`super::views`]), written once for both kinds: logical views
//! ([`super::logical_view_ops`]) and continuous materialized views
//! ([`super::materialized_view_ops`]) call these with their own checks and words.
//!
//! Each operation works on a copy of the kind's list and stores it only when every check
//! passed, so a failed call changes nothing; every change gives the view a new etag from the
//! record's counter (etags never repeat within a record, nor across restarts, as the counter is
//! stored).

use alloc::vec::Vec;

use super::logical_views::LogicalViewRecord;
use super::materialized_views::MaterializedViewRecord;
use super::record::InstanceRecord;
use super::views::{check_etag, check_views, InstanceView};
use crate::Result;

/// Where the record keeps the views of a kind.
pub(super) trait Listed: InstanceView {
    /// The record's views of this kind, sorted by id.
    fn list(record: &InstanceRecord) -> &Vec<Self>;
    /// The same, to change.
    fn list_mut(record: &mut InstanceRecord) -> &mut Vec<Self>;
}

impl Listed for LogicalViewRecord {
    fn list(record: &InstanceRecord) -> &Vec<Self> {
        &record.logical_views
    }
    fn list_mut(record: &mut InstanceRecord) -> &mut Vec<Self> {
        &mut record.logical_views
    }
}

impl Listed for MaterializedViewRecord {
    fn list(record: &InstanceRecord) -> &Vec<Self> {
        &record.materialized_views
    }
    fn list_mut(record: &mut InstanceRecord) -> &mut Vec<Self> {
        &mut record.materialized_views
    }
}

impl InstanceRecord {
    /// View `id` of kind `V`, if the instance has it.
    pub(super) fn view<V: Listed>(&self, id: &str) -> Option<&V> {
        V::list(self).iter().find(|v| v.id() == id)
    }

    /// View `id` of kind `V`.
    ///
    /// # Errors
    /// [`InstanceView::not_found`].
    pub(super) fn get_view<V: Listed>(&self, id: &str) -> Result<&V> {
        self.view(id).ok_or_else(|| V::not_found(id, &self.name()))
    }

    /// Replaces the views of kind `V` (sorted here; etags kept, and the etag counter moved
    /// past any this record made).
    ///
    /// # Errors
    /// `InvalidArgument` for a bad id or an id twice; nothing changes then.
    pub(super) fn set_views<V: Listed>(&mut self, mut views: Vec<V>) -> Result<()> {
        views.sort_by(|a, b| a.id().cmp(b.id()));
        check_views(&views)?;
        self.absorb_etags(views.iter().map(|v| v.etag()));
        *V::list_mut(self) = views;
        Ok(())
    }

    /// Stores a new view: the kind's request checks, then a taken id, then the kind's limit,
    /// then `check` with the views the instance would have (this one included, without its
    /// etag yet); `check`'s error is returned as it is.
    ///
    /// # Errors
    /// Those of [`InstanceView::check_request`] and [`InstanceView::check_room`];
    /// [`InstanceView::already_exists`]; what `check` returns.
    pub(super) fn create_view<V: Listed>(
        &mut self,
        id: &str,
        query: &str,
        deletion_protection: bool,
        check: impl FnOnce(&[V]) -> Result<()>,
    ) -> Result<&V> {
        V::check_request(id, query)?;
        if self.view::<V>(id).is_some() {
            return Err(V::already_exists(id, &self.name()));
        }
        V::check_room(V::list(self).len())?;
        let mut views = V::list(self).clone();
        let at = views.partition_point(|v| v.id() < id);
        views.insert(at, V::new(id, query, deletion_protection));
        check(&views)?;
        views[at].set_etag(self.next_etag());
        *V::list_mut(self) = views;
        Ok(&V::list(self)[at])
    }

    /// Changes view `id`: a non-empty `etag` must be the current one; `edit` changes the
    /// view at the index it is given in a copy of the views (and may refuse); the view then
    /// gets a new etag.
    ///
    /// # Errors
    /// [`InstanceView::not_found`]; [`InstanceView::stale`]; what `edit` returns.
    pub(super) fn update_view<V: Listed>(
        &mut self,
        id: &str,
        etag: &str,
        edit: impl FnOnce(&mut Vec<V>, usize) -> Result<()>,
    ) -> Result<&V> {
        let name = self.name();
        let Some(at) = V::list(self).iter().position(|v| v.id() == id) else {
            return Err(V::not_found(id, &name));
        };
        check_etag(&name, &V::list(self)[at], etag)?;
        let mut views = V::list(self).clone();
        edit(&mut views, at)?;
        views[at].set_etag(self.next_etag());
        *V::list_mut(self) = views;
        Ok(&V::list(self)[at])
    }

    /// Removes view `id`: a non-empty `etag` must be the current one, and the view must not
    /// have deletion protection.
    ///
    /// # Errors
    /// [`InstanceView::not_found`]; [`InstanceView::stale`]; [`InstanceView::protected`].
    pub(super) fn delete_view<V: Listed>(&mut self, id: &str, etag: &str) -> Result<()> {
        let name = self.name();
        let Some(view) = self.view::<V>(id) else {
            return Err(V::not_found(id, &name));
        };
        check_etag(&name, view, etag)?;
        if view.deletion_protection() {
            return Err(V::protected(id));
        }
        V::list_mut(self).retain(|v| v.id() != id);
        Ok(())
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::api::instances::{ClusterRecord, InstanceType};
    use crate::Code;
    use alloc::collections::BTreeMap;
    use alloc::string::{String, ToString};

    /// The instance the views' tests work in (`projects/p/instances/instance-1`, created at
    /// 1000 µs, so its etags are `1000-1`, `1000-2`...).
    pub(in crate::api::instances) fn record() -> InstanceRecord {
        InstanceRecord::create(
            "p",
            "instance-1",
            None,
            InstanceType::Production,
            BTreeMap::new(),
            alloc::vec![ClusterRecord::new("cluster-1", "local")],
            1_000,
        )
        .unwrap()
    }

    /// Every error of the shared steps, for kind `V`, as (code, message).
    fn errors_of<V: Listed + core::fmt::Debug>() -> Vec<(Code, String)> {
        let mut r = record();
        let mut out = Vec::new();
        let mut note = |e: crate::Error| out.push((e.code(), e.message().to_string()));
        note(r.create_view::<V>("-x", "", false, |_| Ok(())).unwrap_err());
        note(r.create_view::<V>("v", "", false, |_| Ok(())).unwrap_err());
        note(
            r.create_view::<V>("-x", "Q", false, |_| Ok(()))
                .unwrap_err(),
        );
        let etag = r
            .create_view::<V>("v", "Q", true, |_| Ok(()))
            .unwrap()
            .etag()
            .to_string();
        assert_eq!(etag, "1000-1");
        note(r.create_view::<V>("v", "Q", false, |_| Ok(())).unwrap_err());
        note(r.update_view::<V>("w", "", |_, _| Ok(())).unwrap_err());
        note(
            r.update_view::<V>("v", "1000-0", |_, _| Ok(()))
                .unwrap_err(),
        );
        note(r.delete_view::<V>("w", "").unwrap_err());
        note(r.delete_view::<V>("v", "1000-0").unwrap_err());
        note(r.delete_view::<V>("v", &etag).unwrap_err());
        let v = V::new("v", "Q", false);
        note(r.set_views(alloc::vec![v.clone(), v]).unwrap_err());
        out
    }

    /// The words each kind has always used (clients and the shared vectors compare them),
    /// kept by the one implementation.
    #[test]
    fn each_kind_keeps_its_own_words() {
        let lv_id = "logical_view_id \"-x\" must match [_a-zA-Z0-9][-_.a-zA-Z0-9]* and be at most 50 characters";
        let mv_id = "materialized_view_id \"-x\" must match [_a-zA-Z0-9][-_.a-zA-Z0-9]* and be at most 50 characters";
        let expected_lv = [
            (Code::InvalidArgument, lv_id),
            (Code::InvalidArgument, "logical_view.query is required"),
            (Code::InvalidArgument, lv_id),
            (
                Code::AlreadyExists,
                "logical view \"v\" already exists in instance projects/p/instances/instance-1",
            ),
            (
                Code::NotFound,
                "logical view \"w\" not found in instance projects/p/instances/instance-1",
            ),
            (
                Code::Aborted,
                "logical view \"v\" changed since it was read (etag \"1000-0\" is not the current one)",
            ),
            (
                Code::NotFound,
                "logical view \"w\" not found in instance projects/p/instances/instance-1",
            ),
            (
                Code::Aborted,
                "logical view \"v\" changed since it was read (etag \"1000-0\" is not the current one)",
            ),
            (
                Code::FailedPrecondition,
                "logical view \"v\" has deletion protection; clear deletion_protection first",
            ),
            (
                Code::InvalidArgument,
                "logical views are not sorted by distinct ids",
            ),
        ];
        let expected_mv = [
            // The query is checked before the id here (the server's order before the move).
            (Code::InvalidArgument, "materialized_view.query is required"),
            (Code::InvalidArgument, "materialized_view.query is required"),
            (Code::InvalidArgument, mv_id),
            (Code::AlreadyExists, "materialized view \"v\" already exists"),
            (
                Code::NotFound,
                "materialized view \"w\" not found in instance projects/p/instances/instance-1",
            ),
            (
                Code::Aborted,
                "materialized view projects/p/instances/instance-1/materializedViews/v changed since etag \"1000-0\" was read",
            ),
            (
                Code::NotFound,
                "materialized view \"w\" not found in instance projects/p/instances/instance-1",
            ),
            (
                Code::Aborted,
                "materialized view projects/p/instances/instance-1/materializedViews/v changed since etag \"1000-0\" was read",
            ),
            (
                Code::FailedPrecondition,
                "materialized view \"v\" has deletion protection enabled",
            ),
            (
                Code::InvalidArgument,
                "materialized views are not sorted by distinct ids",
            ),
        ];
        let words = |v: &[(Code, &str)]| -> Vec<(Code, String)> {
            v.iter().map(|(c, m)| (*c, m.to_string())).collect()
        };
        assert_eq!(errors_of::<LogicalViewRecord>(), words(&expected_lv));
        assert_eq!(errors_of::<MaterializedViewRecord>(), words(&expected_mv));
    }

    #[test]
    fn a_refused_step_changes_nothing_and_etags_move_on() {
        let mut r = record();
        r.create_view::<MaterializedViewRecord>("b", "Q", false, |_| Ok(()))
            .unwrap();
        let before = r.clone();
        let e = r
            .create_view::<MaterializedViewRecord>("a", "Q", false, |views| {
                // The checker sees the list with the new view in its place.
                let ids: Vec<&str> = views.iter().map(|v| v.id.as_str()).collect();
                assert_eq!(ids, ["a", "b"]);
                Err(crate::Error::not_found("no"))
            })
            .unwrap_err();
        assert_eq!(e.code(), Code::NotFound);
        let e = r
            .update_view::<MaterializedViewRecord>("b", "", |views, at| {
                views[at].query = "changed".into();
                Err(crate::Error::invalid_argument("no"))
            })
            .unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert_eq!(r, before);
        let next = r
            .update_view::<MaterializedViewRecord>("b", "1000-1", |_, _| Ok(()))
            .unwrap();
        assert_eq!(next.etag, "1000-2");
        r.delete_view::<MaterializedViewRecord>("b", "1000-2")
            .unwrap();
        assert!(r.materialized_views().is_empty());
        assert!(r.logical_views().is_empty());
    }
}
