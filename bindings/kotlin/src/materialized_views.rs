//! The exported continuous materialized views of an instance: their definitions in the
//! instance's [`sparsetable::InstanceRecord`] (id, query, etag, deletion protection; the
//! record's `api::instances::materialized_views`), their rows in the first cluster's
//! database (`api::materialized_views`, which checks the query, backfills the view and keeps
//! it up to date), and the read of those rows.
//!
//! The order is the server's (`server/src/instance_admin/materialized_views.rs`): Create asks
//! the database to make the view from inside the record's operation, and removes it again if
//! the record then could not be kept; Update and Delete change the record first, then the
//! database's copy of the deletion protection (or its rows). A durable instance's record is
//! its `INSTANCE` file, and the views it records are made again, by recomputation, when the
//! admin reads the file (`instance_admin.rs`'s `recreate_views`): the rows are never stored.
//!
//! Invariant: every rule is the core's; this module converts and orders calls only. No
//! exported function panics on any input.

use std::cell::Cell;
use std::sync::Arc;

use sparsetable::{Code, SharedDatabase};

use crate::database::Database;
use crate::error::{to_ffi, SparsetableError};
use crate::instance_admin::InstanceAdmin;
use crate::stream::RowStream;
use crate::types::ReadRowsRequest;

type Result<T> = std::result::Result<T, SparsetableError>;

/// A materialized view's definition as the record keeps it.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct MaterializedViewInfo {
    /// Its id (the last part of its name).
    pub id: String,
    /// Its query (fixed once created).
    pub query: String,
    /// While set, the view cannot be deleted.
    pub deletion_protection: bool,
    /// Changes whenever the view does; a non-empty etag given to update or delete must be it.
    pub etag: String,
}

fn view_info(v: &sparsetable::api::instances::MaterializedViewRecord) -> MaterializedViewInfo {
    MaterializedViewInfo {
        id: v.id.clone(),
        query: v.query.clone(),
        deletion_protection: v.deletion_protection,
        etag: v.etag.clone(),
    }
}

/// The database's copy of a view goes (after the record allowed it); a view whose table is
/// gone is not there.
fn drop_rows(db: &SharedDatabase, id: &str) -> sparsetable::Result<()> {
    db.write(|d| d.forget_materialized_view(id))
}

#[uniffi::export]
impl InstanceAdmin {
    /// The materialized views, by id.
    pub fn materialized_views(&self) -> Vec<MaterializedViewInfo> {
        self.record()
            .materialized_views()
            .iter()
            .map(view_info)
            .collect()
    }

    /// Materialized view `id`.
    ///
    /// # Errors
    /// `NOT_FOUND` with the record's message (its own check, run on a copy that is dropped).
    pub fn materialized_view(&self, id: String) -> Result<MaterializedViewInfo> {
        let r = self.record();
        match r.materialized_view(&id) {
            Some(v) => Ok(view_info(v)),
            None => Err(crate::instance_admin::missing(
                r.clone().delete_materialized_view(&id, ""),
            )),
        }
    }

    /// Creates a materialized view (CreateMaterializedView): the database checks the query
    /// and backfills the view, then the record keeps its definition.
    ///
    /// # Errors
    /// The record's `create_materialized_view` (`INVALID_ARGUMENT`, `ALREADY_EXISTS`) and the
    /// database's (`INVALID_ARGUMENT` naming what the query may not do, `NOT_FOUND` for its
    /// table).
    pub fn create_materialized_view(
        &self,
        id: String,
        query: String,
        deletion_protection: bool,
    ) -> Result<MaterializedViewInfo> {
        let db = self.plane.plane.primary().clone();
        let made = Cell::new(false);
        let created = self.change(|r| {
            r.create_materialized_view(&id, &query, deletion_protection, |q| {
                db.write(|d| {
                    d.create_materialized_view(&id, q, deletion_protection)
                        .map(|_| ())
                })?;
                made.set(true);
                Ok(())
            })
            .map(view_info)
        });
        if created.is_err() && made.get() {
            // Made but not kept (the plane or the file refused): it must not outlive the call.
            let _ = drop_rows(&db, &id);
        }
        created
    }

    /// Sets or clears a view's deletion protection (UpdateMaterializedView); a non-empty
    /// `etag` must be the view's.
    ///
    /// # Errors
    /// The record's `update_materialized_view`: `NOT_FOUND`, `ABORTED`.
    pub fn update_materialized_view(
        &self,
        id: String,
        deletion_protection: bool,
        etag: String,
    ) -> Result<MaterializedViewInfo> {
        let updated = self.change(|r| {
            r.update_materialized_view(&id, deletion_protection, &etag)
                .map(view_info)
        })?;
        self.plane
            .plane
            .primary()
            .write(
                |d| match d.update_materialized_view(&id, deletion_protection, None) {
                    Err(e) if e.code() == Code::NotFound => Ok(()),
                    other => other.map(|_| ()),
                },
            )
            .map_err(to_ffi)?;
        Ok(updated)
    }

    /// Deletes a materialized view and its rows (DeleteMaterializedView); a non-empty `etag`
    /// must be the view's.
    ///
    /// # Errors
    /// The record's `delete_materialized_view`: `NOT_FOUND`, `ABORTED`, `FAILED_PRECONDITION`.
    pub fn delete_materialized_view(&self, id: String, etag: String) -> Result<()> {
        self.change(|r| r.delete_materialized_view(&id, &etag))?;
        drop_rows(self.plane.plane.primary(), &id).map_err(to_ffi)
    }
}

#[uniffi::export]
impl Database {
    /// Opens a stream of the rows of materialized view `view_id` a request selects, as
    /// [`read_rows_stream`](Database::read_rows_stream) does for a table (one family per
    /// output column).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown view; `INVALID_ARGUMENT` for a bad request.
    pub fn read_materialized_view_stream(
        &self,
        view_id: String,
        request: ReadRowsRequest,
    ) -> Result<Arc<RowStream>> {
        let request: sparsetable::ReadRowsRequest = request.try_into().map_err(to_ffi)?;
        self.read(|d| d.read_materialized_view(&view_id, &request))
            .map(|s| Arc::new(RowStream::new(s)))
    }
}
