//! Logical views on `InstanceModel` for JavaScript: the Instance Admin's Create, Get/List,
//! Update and Delete of an instance's logical views (the core's record operations,
//! `sparsetable::api::instances::logical_view_ops`), and the views a query reads in `FROM`
//! (`Database.prepareQueryJson` / `executeQueryJson` / `executeQueryStreamJson` take the
//! instance's `logicalViews()` for them).
//!
//! A view's query is checked by preparing it against the `Database` given (the instance's
//! first cluster's copy) with the views the instance would then have, as the server checks
//! one. The binding converts and nothing else; a refused change leaves the model as it was
//! (the core's operations check everything before they change anything).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sparsetable::{Error, LogicalViewRecord};
use wasm_bindgen::prelude::*;

use crate::database::Database;
use crate::error::to_js_error;
use crate::instances::InstanceModel;
use crate::proto::parse_text;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** A logical view as the instance model gives it. */
export interface LogicalViewJson { id: string; query: string; deletionProtection: boolean; etag: string }
"#;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ViewJs<'a> {
    id: &'a str,
    query: &'a str,
    deletion_protection: bool,
    etag: &'a str,
}

fn view_js(v: &LogicalViewRecord) -> Result<JsValue, JsValue> {
    view_json(&v.id, &v.query, v.deletion_protection, &v.etag)
}

/// A view as the instance model gives it to JS (`LogicalViewJson`, `MaterializedViewJson`:
/// both kinds have the same fields).
pub(crate) fn view_json(
    id: &str,
    query: &str,
    deletion_protection: bool,
    etag: &str,
) -> Result<JsValue, JsValue> {
    let text = serde_json::to_string(&ViewJs {
        id,
        query,
        deletion_protection,
        etag,
    })
    .map_err(|e| to_js_error(Error::new(sparsetable::Code::Internal, e.to_string())))?;
    parse_text(&text).map_err(to_js_error)
}

/// Prepares `query` as a view's query against `db` with `views` (see the module docs).
fn check(db: &Database, query: &str, views: &[LogicalViewRecord]) -> Result<(), Error> {
    db.engine(|e| {
        sparsetable::api::sql::prepare_with_views(e, query, BTreeMap::new(), views).map(|_| ())
    })
}

#[wasm_bindgen]
impl InstanceModel {
    /// The logical views, by id (`LogicalViewJson[]`).
    ///
    /// # Errors
    /// None in practice (a conversion failure is `INTERNAL`).
    #[wasm_bindgen(js_name = logicalViews, unchecked_return_type = "LogicalViewJson[]")]
    pub fn logical_views(&self) -> Result<JsValue, JsValue> {
        let out = js_sys::Array::new();
        for v in self.record().logical_views() {
            out.push(&view_js(v)?);
        }
        Ok(out.into())
    }

    /// Stores a new logical view (CreateLogicalView) whose `query` prepares against `db`.
    ///
    /// # Errors
    /// The core's: `INVALID_ARGUMENT` for a bad id or a query that does not prepare,
    /// `ALREADY_EXISTS` for an id the instance has.
    #[wasm_bindgen(js_name = createLogicalView, unchecked_return_type = "LogicalViewJson")]
    pub fn create_logical_view(
        &mut self,
        id: &str,
        query: &str,
        #[wasm_bindgen(js_name = "deletionProtection")] deletion_protection: bool,
        db: &Database,
    ) -> Result<JsValue, JsValue> {
        let view = self
            .record_mut()
            .create_logical_view(id, query, deletion_protection, |q, v| check(db, q, v))
            .map_err(to_js_error)?;
        view_js(view)
    }

    /// Changes a logical view (UpdateLogicalView): `query` and/or `deletionProtection`,
    /// whichever is given; a non-empty `etag` must be the current one.
    ///
    /// # Errors
    /// The core's: `NOT_FOUND`, `ABORTED` for a stale etag, `INVALID_ARGUMENT` for a query
    /// that does not prepare.
    #[wasm_bindgen(js_name = updateLogicalView, unchecked_return_type = "LogicalViewJson")]
    pub fn update_logical_view(
        &mut self,
        id: &str,
        query: Option<String>,
        #[wasm_bindgen(js_name = "deletionProtection")] deletion_protection: Option<bool>,
        etag: &str,
        db: &Database,
    ) -> Result<JsValue, JsValue> {
        let view = self
            .record_mut()
            .update_logical_view(id, query.as_deref(), deletion_protection, etag, |q, v| {
                check(db, q, v)
            })
            .map_err(to_js_error)?;
        view_js(view)
    }

    /// Removes a logical view (DeleteLogicalView); a non-empty `etag` must be the current one.
    ///
    /// # Errors
    /// The core's: `NOT_FOUND`, `ABORTED`, `FAILED_PRECONDITION` under deletion protection.
    #[wasm_bindgen(js_name = deleteLogicalView)]
    pub fn delete_logical_view(&mut self, id: &str, etag: &str) -> Result<(), JsValue> {
        self.record_mut()
            .delete_logical_view(id, etag)
            .map_err(to_js_error)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ViewIn {
    id: String,
    query: String,
    deletion_protection: bool,
    etag: String,
}

/// The views a query reads, as `InstanceModel.logicalViews()` gave them (`undefined` or
/// `null`: none).
///
/// # Errors
/// `INVALID_ARGUMENT` for anything else.
pub(crate) fn views_from_js(views: JsValue) -> Result<Vec<LogicalViewRecord>, Error> {
    if views.is_undefined() || views.is_null() {
        return Ok(Vec::new());
    }
    let views: Vec<ViewIn> = serde_wasm_bindgen::from_value(views)
        .map_err(|e| crate::error::conversion_error("views", e))?;
    Ok(views
        .into_iter()
        .map(|v| LogicalViewRecord {
            id: v.id,
            query: v.query,
            deletion_protection: v.deletion_protection,
            etag: v.etag,
        })
        .collect())
}
