//! The exported logical views of an instance (Bigtable's `LogicalView`: a saved query that
//! SQL reads with `FROM view`), kept in the instance's [`sparsetable::InstanceRecord`] as the
//! server keeps them, and the SQL entry points that read them.
//!
//! Every rule is the record's (`sparsetable::api::instances::logical_views`: ids, a query
//! checked by preparing it with the views the instance would then have, etags, deletion
//! protection); this module converts records and errors only. Changes go through
//! [`InstanceAdmin`]'s one change path, so a durable instance writes its `INSTANCE` file
//! (docs/format/instance.md) and a refused change leaves record and file as they were.
//!
//! A view's query is prepared against the instance's first cluster's copy (every copy has
//! the same tables); a query of the data client reads the views of the record at the time
//! it is prepared, with the very core call the server uses (`sql::prepare_with_views`).
//!
//! Invariant: no exported function panics on any input.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use sparsetable::api::sql;
use sparsetable::{Code, Error, LogicalViewRecord};

use crate::database::Database;
use crate::error::{to_ffi, SparsetableError};
use crate::instance_admin::InstanceAdmin;
use crate::sql::{SqlColumnInfo, SqlResult, SqlTypeNode, SqlValueNode};

type Result<T> = std::result::Result<T, SparsetableError>;

/// A logical view as the record keeps it (the core's `LogicalViewRecord`).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct LogicalViewInfo {
    /// Its id (the last part of its name).
    pub id: String,
    /// Its query (GoogleSQL for Bigtable).
    pub query: String,
    /// While set, the view cannot be deleted.
    pub deletion_protection: bool,
    /// Changes whenever the view does; a non-empty etag given to update or delete must be it.
    pub etag: String,
}

fn view_info(v: &LogicalViewRecord) -> LogicalViewInfo {
    LogicalViewInfo {
        id: v.id.clone(),
        query: v.query.clone(),
        deletion_protection: v.deletion_protection,
        etag: v.etag.clone(),
    }
}

impl InstanceAdmin {
    /// Prepares `query` as a view's query, with `views` (see the module docs).
    fn check_query(&self, query: &str, views: &[LogicalViewRecord]) -> sparsetable::Result<()> {
        self.plane
            .plane
            .primary()
            .read(|d| sql::prepare_with_views(d, query, BTreeMap::new(), views).map(|_| ()))
    }

    /// The views a query reads now (a copy, so no lock is held while it runs).
    pub(crate) fn views_now(&self) -> Vec<LogicalViewRecord> {
        self.record().logical_views().to_vec()
    }
}

#[uniffi::export]
impl InstanceAdmin {
    /// The instance's id (the last part of its name, `projects/{p}/instances/{id}`).
    pub fn instance_id(&self) -> String {
        self.record().id.clone()
    }

    /// Checks that `instance_id` names this instance (the one instance an embedded
    /// database has), as a request's parent is checked.
    ///
    /// # Errors
    /// `NOT_FOUND` naming the instance asked for.
    pub fn check_instance(&self, instance_id: String) -> Result<()> {
        let r = self.record();
        if instance_id == r.id {
            return Ok(());
        }
        Err(to_ffi(Error::new(
            Code::NotFound,
            format!(
                "instance projects/{}/instances/{instance_id} not found",
                r.project
            ),
        )))
    }

    /// The logical views, by id.
    pub fn logical_views(&self) -> Vec<LogicalViewInfo> {
        self.record()
            .logical_views()
            .iter()
            .map(view_info)
            .collect()
    }

    /// Logical view `id`.
    ///
    /// # Errors
    /// `NOT_FOUND` with the record's message (its own check, run on a copy that is dropped).
    pub fn logical_view(&self, id: String) -> Result<LogicalViewInfo> {
        let r = self.record();
        match r.logical_view(&id) {
            Some(v) => Ok(view_info(v)),
            None => Err(crate::instance_admin::missing(
                r.clone().delete_logical_view(&id, ""),
            )),
        }
    }

    /// Stores a new logical view (CreateLogicalView); answers it with its etag.
    ///
    /// # Errors
    /// The record's `create_logical_view`: `INVALID_ARGUMENT` (bad id, empty query, one that
    /// does not prepare), `ALREADY_EXISTS`.
    pub fn create_logical_view(
        &self,
        id: String,
        query: String,
        deletion_protection: bool,
    ) -> Result<LogicalViewInfo> {
        self.change(|r| {
            r.create_logical_view(&id, &query, deletion_protection, |q, views| {
                self.check_query(q, views)
            })
            .map(view_info)
        })
    }

    /// Changes a logical view's query and/or deletion protection, whichever is given
    /// (UpdateLogicalView); a non-empty `etag` must be the view's.
    ///
    /// # Errors
    /// The record's `update_logical_view`: `NOT_FOUND`, `ABORTED`, `INVALID_ARGUMENT`.
    pub fn update_logical_view(
        &self,
        id: String,
        query: Option<String>,
        deletion_protection: Option<bool>,
        etag: String,
    ) -> Result<LogicalViewInfo> {
        self.change(|r| {
            r.update_logical_view(
                &id,
                query.as_deref(),
                deletion_protection,
                &etag,
                |q, views| self.check_query(q, views),
            )
            .map(view_info)
        })
    }

    /// Removes a logical view (DeleteLogicalView); a non-empty `etag` must be the view's.
    ///
    /// # Errors
    /// The record's `delete_logical_view`: `NOT_FOUND`, `ABORTED`, `FAILED_PRECONDITION`.
    pub fn delete_logical_view(&self, id: String, etag: String) -> Result<()> {
        self.change(|r| r.delete_logical_view(&id, &etag))
    }
}

fn views_of(instance: &Option<Arc<InstanceAdmin>>) -> Vec<LogicalViewRecord> {
    instance.as_ref().map(|a| a.views_now()).unwrap_or_default()
}

#[uniffi::export]
impl Database {
    /// [`prepare_query`](Database::prepare_query) that may read the logical views of
    /// `instance` (none when `None`).
    ///
    /// # Errors
    /// As `prepare_query`; `INVALID_ARGUMENT` for what the core refuses of a view.
    pub fn prepare_query_in(
        &self,
        query: String,
        param_types: HashMap<String, Vec<SqlTypeNode>>,
        instance: Option<Arc<InstanceAdmin>>,
    ) -> Result<Vec<SqlColumnInfo>> {
        let views = views_of(&instance);
        self.prepare_query_with(query, param_types, &views)
    }

    /// [`execute_query`](Database::execute_query) that may read the logical views of
    /// `instance` (none when `None`).
    ///
    /// # Errors
    /// As `execute_query`; `INVALID_ARGUMENT` for what the core refuses of a view.
    pub fn execute_query_in(
        &self,
        query: String,
        param_types: HashMap<String, Vec<SqlTypeNode>>,
        params: HashMap<String, Vec<SqlValueNode>>,
        instance: Option<Arc<InstanceAdmin>>,
    ) -> Result<SqlResult> {
        let views = views_of(&instance);
        self.execute_query_with(query, param_types, params, &views)
    }
}
