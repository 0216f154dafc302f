//! Continuous materialized views on `InstanceModel` for JavaScript: the Instance Admin's
//! Create, Get/List, Update (deletion protection) and Delete of an instance's materialized
//! views (the core's record operations, `sparsetable::api::instances::materialized_view_ops`),
//! and the views' rows on the instance's `Database` (the core's `Database` materialized views:
//! it checks the query, backfills the view from its table and maintains it on every change;
//! SQL reads it in `FROM`).
//!
//! As on the server, the record is the authority and the rows follow it: `create` makes the
//! rows first (the database refuses a query views do not maintain, with its words) and records
//! the view only if they were made; `applyMaterializedViews(db)` then brings the database in
//! line with the record (recomputes a recorded view it lacks, as after a restart, since views
//! are in memory; copies each view's deletion protection; drops a view the record no longer
//! has). The binding converts and nothing else.

use sparsetable::MaterializedViewRecord;
use wasm_bindgen::prelude::*;

use crate::database::Database;
use crate::error::to_js_error;
use crate::instances::InstanceModel;
use crate::logical_views::view_json;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** A continuous materialized view as the instance model gives it. */
export interface MaterializedViewJson { id: string; query: string; deletionProtection: boolean; etag: string }
"#;

fn view_js(v: &MaterializedViewRecord) -> Result<JsValue, JsValue> {
    view_json(&v.id, &v.query, v.deletion_protection, &v.etag)
}

#[wasm_bindgen]
impl InstanceModel {
    /// The materialized views, by id (`MaterializedViewJson[]`).
    ///
    /// # Errors
    /// None in practice (a conversion failure is `INTERNAL`).
    #[wasm_bindgen(js_name = materializedViews, unchecked_return_type = "MaterializedViewJson[]")]
    pub fn materialized_views(&self) -> Result<JsValue, JsValue> {
        let out = js_sys::Array::new();
        for v in self.record().materialized_views() {
            out.push(&view_js(v)?);
        }
        Ok(out.into())
    }

    /// Materialized view `id` (GetMaterializedView).
    ///
    /// # Errors
    /// The core's `NOT_FOUND` for an id the instance lacks.
    #[wasm_bindgen(js_name = materializedView, unchecked_return_type = "MaterializedViewJson")]
    pub fn materialized_view(&self, id: &str) -> Result<JsValue, JsValue> {
        view_js(
            self.record()
                .get_materialized_view(id)
                .map_err(to_js_error)?,
        )
    }

    /// Makes materialized view `id` of `query` on `db` (backfilled from its table) and
    /// records it (CreateMaterializedView).
    ///
    /// # Errors
    /// The core's: `INVALID_ARGUMENT` for a bad id, an empty query or one views do not
    /// maintain; `NOT_FOUND` for an unknown table; `ALREADY_EXISTS` for a taken id.
    #[wasm_bindgen(js_name = createMaterializedView, unchecked_return_type = "MaterializedViewJson")]
    pub fn create_materialized_view(
        &mut self,
        id: &str,
        query: &str,
        #[wasm_bindgen(js_name = "deletionProtection")] deletion_protection: bool,
        db: &Database,
    ) -> Result<JsValue, JsValue> {
        let view = self
            .record_mut()
            .create_materialized_view(id, query, deletion_protection, |q| {
                db.engine_mut(|e| {
                    e.create_materialized_view(id, q, deletion_protection)
                        .map(|_| ())
                })
            })
            .map_err(to_js_error)?;
        view_js(view)
    }

    /// Sets or clears a view's deletion protection in the record (UpdateMaterializedView); a
    /// non-empty `etag` must be the current one. `applyMaterializedViews` copies it to the
    /// database.
    ///
    /// # Errors
    /// The core's: `NOT_FOUND`, `ABORTED` for a stale etag.
    #[wasm_bindgen(js_name = updateMaterializedView, unchecked_return_type = "MaterializedViewJson")]
    pub fn update_materialized_view(
        &mut self,
        id: &str,
        #[wasm_bindgen(js_name = "deletionProtection")] deletion_protection: bool,
        etag: &str,
    ) -> Result<JsValue, JsValue> {
        let view = self
            .record_mut()
            .update_materialized_view(id, deletion_protection, etag)
            .map_err(to_js_error)?;
        view_js(view)
    }

    /// Removes a view from the record (DeleteMaterializedView); a non-empty `etag` must be the
    /// current one. `applyMaterializedViews` then drops its rows.
    ///
    /// # Errors
    /// The core's: `NOT_FOUND`, `ABORTED`, `FAILED_PRECONDITION` under deletion protection.
    #[wasm_bindgen(js_name = deleteMaterializedView)]
    pub fn delete_materialized_view(&mut self, id: &str, etag: &str) -> Result<(), JsValue> {
        self.record_mut()
            .delete_materialized_view(id, etag)
            .map_err(to_js_error)
    }

    /// Brings `db`'s views in line with the record (see the module docs). A recorded view
    /// the database cannot make (its table is gone) is left out; its record stays for Delete.
    ///
    /// # Errors
    /// Only a database that is busy or moved.
    #[wasm_bindgen(js_name = applyMaterializedViews)]
    pub fn apply_materialized_views(&self, db: &Database) -> Result<(), JsValue> {
        let record = self.record().materialized_views();
        db.engine_mut(|e| {
            for info in e.list_materialized_views() {
                if !record.iter().any(|v| v.id == info.id) {
                    e.forget_materialized_view(&info.id)?;
                }
            }
            for v in record {
                match e.get_materialized_view(&v.id) {
                    Ok(info) if info.deletion_protection == v.deletion_protection => {}
                    Ok(_) => {
                        e.update_materialized_view(&v.id, v.deletion_protection, None)?;
                    }
                    // Recomputed from its table; a table that is gone leaves it out.
                    Err(_) => {
                        let _ = e.create_materialized_view(&v.id, &v.query, v.deletion_protection);
                    }
                }
            }
            Ok(())
        })
        .map_err(to_js_error)
    }
}
