//! Bigtable's SQL on the `Database` class: `prepareQueryJson` and `executeQueryJson` (each
//! with the instance's logical views, `InstanceModel.logicalViews()`, for `FROM view`), with
//! requests and results in the proto3 JSON of `PrepareQueryRequest`, `ExecuteQueryRequest`
//! (its `params`, each value carrying its `type`), `ResultSetMetadata` and `Value`.
//!
//! The core's `api::sql` decides what a query means, and the core's `api::json::sql` converts
//! types and values; this file reads the request's members and calls both, so an error is the
//! core's, with its gRPC code. `executeQueryJson` returns the rows whole (the core's
//! `execute`), as the npm package's `executeQuery` does; `executeQueryStreamJson` returns a
//! [`QueryRowIterator`] that pulls them from the core's `execute_stream` in batches as
//! JavaScript asks (the npm package's `createExecuteQueryStream`). Either reads one snapshot.

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use sparsetable::api::json::sql::{type_from_json, type_to_json, value_from_json, value_to_json};
use sparsetable::api::sql::{self, PreparedQuery, QueryRows, SqlType};
use sparsetable::{Error, LogicalViewRecord};
use wasm_bindgen::prelude::*;

use crate::database::Database;
use crate::error::to_js_error;
use crate::logical_views::views_from_js;
use crate::proto::{parse, parse_text};

type JsResult<T> = Result<T, JsValue>;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** `google.bigtable.v2.Type` in proto3 JSON: one member, e.g. `{int64Type: {}}`,
 * `{arrayType: {elementType}}`, `{mapType: {keyType, valueType}}`,
 * `{structType: {fields: [{fieldName, type}]}}`. */
export type ProtoSqlType = { [kind: string]: any };
/** `google.bigtable.v2.Value` in proto3 JSON: `{}` is NULL; `bytesValue` (base64 out),
 * `stringValue`, `intValue` (decimal string out), `boolValue`, `floatValue` (number, or
 * "NaN"/"Infinity"/"-Infinity"), `timestampValue` (RFC 3339), `dateValue: {year, month, day}`,
 * `arrayValue: {values}` (a MAP: pairs; a STRUCT: its fields). */
export type ProtoSqlValue = { [kind: string]: any };
/** `PrepareQueryRequest` without its routing fields. */
export interface ProtoPrepareQuery { query: string; paramTypes?: { [name: string]: ProtoSqlType } }
/** `ExecuteQueryRequest` without its routing fields: each param carries its `type`. */
export interface ProtoExecuteQuery { query: string; params?: { [name: string]: ProtoSqlValue & { type: ProtoSqlType } } }
/** `ResultSetMetadata`: the result's columns. */
export interface ProtoResultSetMetadata { protoSchema: { columns: { name: string; type: ProtoSqlType }[] } }
/** What `executeQueryJson` returns: the metadata and every row's values. */
export interface ProtoQueryResult { metadata: ProtoResultSetMetadata; rows: ProtoSqlValue[][] }
"#;

fn members(what: &str, body: &Map<String, Value>, allowed: &[&str]) -> Result<(), Error> {
    match body.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(Error::invalid_argument(format!(
            "{what}: unknown field {k:?}"
        ))),
        None => Ok(()),
    }
}

fn query_text(body: &Map<String, Value>) -> Result<String, Error> {
    match body.get("query") {
        Some(Value::String(q)) => Ok(q.clone()),
        _ => Err(Error::invalid_argument("request: query must be a string")),
    }
}

fn object_member<'a>(
    body: &'a Map<String, Value>,
    name: &str,
) -> Result<Option<&'a Map<String, Value>>, Error> {
    match body.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(m)) => Ok(Some(m)),
        Some(_) => Err(Error::invalid_argument(format!(
            "request: {name} must be an object"
        ))),
    }
}

fn metadata(query: &PreparedQuery) -> Value {
    let columns = query
        .columns()
        .iter()
        .map(|c| serde_json::json!({"name": c.name, "type": type_to_json(&c.ty)}))
        .collect();
    serde_json::json!({"protoSchema": {"columns": Value::Array(columns)}})
}

fn output(value: &Value) -> Result<JsValue, Error> {
    parse_text(&value.to_string())
}

#[wasm_bindgen]
impl Database {
    /// Checks a SQL query against the tables' schemas (`PrepareQueryRequest` in proto3 JSON:
    /// `{query, paramTypes: {name: Type}}`) and returns `{metadata}`: the result's columns
    /// (`ResultSetMetadata`). Executing it again goes through `executeQueryJson`, which
    /// prepares against the schema as it is then (as the server's prepared tokens do).
    ///
    /// # Errors
    /// The core's: `INVALID_ARGUMENT` naming what was not understood and its position,
    /// `NOT_FOUND` for an unknown table; `INVALID_ARGUMENT` for a malformed request.
    #[wasm_bindgen(js_name = prepareQueryJson, unchecked_return_type = "{ metadata: ProtoResultSetMetadata }")]
    pub fn prepare_query_json(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ProtoPrepareQuery | string")] request: JsValue,
        #[wasm_bindgen(unchecked_param_type = "LogicalViewJson[] | undefined")] views: JsValue,
    ) -> JsResult<JsValue> {
        self.prepare_query(&request, &views_from_js(views).map_err(to_js_error)?)
            .map_err(to_js_error)
    }

    /// Runs a SQL query (`ExecuteQueryRequest` in proto3 JSON: `{query, params: {name:
    /// {type, intValue|stringValue|...}}}`) and returns `{metadata, rows}`: the columns and
    /// every row as `Value`s in column order.
    ///
    /// # Errors
    /// As `prepareQueryJson`, plus `INVALID_ARGUMENT` for a parameter value that does not
    /// carry its type, and the core's `OUT_OF_RANGE` for errors while running (overflow,
    /// division by zero).
    #[wasm_bindgen(js_name = executeQueryJson, unchecked_return_type = "ProtoQueryResult")]
    pub fn execute_query_json(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ProtoExecuteQuery | string")] request: JsValue,
        #[wasm_bindgen(unchecked_param_type = "LogicalViewJson[] | undefined")] views: JsValue,
    ) -> JsResult<JsValue> {
        self.execute_query(&request, &views_from_js(views).map_err(to_js_error)?)
            .map_err(to_js_error)
    }

    /// Starts a SQL query (the same request as `executeQueryJson`) and returns an iterator of
    /// its rows: `metadata()` is the result's columns, `nextBatch(max)` up to `max` rows
    /// (empty at the end). Rows are produced as the table is read, not all at once (an ORDER
    /// BY or GROUP BY still computes its result before the first row).
    ///
    /// # Errors
    /// As `executeQueryJson` for what is found before the first row; later errors come from
    /// `nextBatch`.
    #[wasm_bindgen(js_name = executeQueryStreamJson)]
    pub fn execute_query_stream_json(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ProtoExecuteQuery | string")] request: JsValue,
        #[wasm_bindgen(unchecked_param_type = "LogicalViewJson[] | undefined")] views: JsValue,
    ) -> JsResult<QueryRowIterator> {
        self.start_query(&request, &views_from_js(views).map_err(to_js_error)?)
            .map_err(to_js_error)
    }
}

/// A SQL query in progress (`Database.executeQueryStreamJson`): its metadata and its rows in
/// batches. It owns its snapshot; reading to the end, an error, `return()` or `free()` drops it.
#[wasm_bindgen]
pub struct QueryRowIterator {
    metadata: Value,
    rows: Option<QueryRows>,
}

#[wasm_bindgen]
impl QueryRowIterator {
    /// The result's columns (`ResultSetMetadata` in proto3 JSON).
    ///
    /// # Errors
    /// `INTERNAL` only if the metadata cannot be converted, which the core's never fails.
    #[wasm_bindgen(unchecked_return_type = "ProtoResultSetMetadata")]
    pub fn metadata(&self) -> JsResult<JsValue> {
        output(&self.metadata).map_err(to_js_error)
    }

    /// Up to `max` rows, each an array of `Value`s in column order; an empty array means the
    /// result is done.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` if `max` is not a positive integer; the core's `OUT_OF_RANGE` (and
    /// others) for errors met while running, after which the iterator is done.
    #[wasm_bindgen(js_name = nextBatch, unchecked_return_type = "ProtoSqlValue[][]")]
    pub fn next_batch(&mut self, max: JsValue) -> JsResult<JsValue> {
        let max = max
            .as_f64()
            .filter(|m| m.fract() == 0.0 && *m >= 1.0)
            .ok_or_else(|| {
                to_js_error(Error::invalid_argument(
                    "nextBatch: max must be a positive integer",
                ))
            })?;
        let mut out: Vec<Value> = Vec::new();
        if let Some(rows) = self.rows.as_mut() {
            while (out.len() as f64) < max {
                match rows.try_next() {
                    Ok(Some(r)) => out.push(Value::Array(r.iter().map(value_to_json).collect())),
                    Ok(None) => {
                        self.rows = None;
                        break;
                    }
                    Err(e) => {
                        self.rows = None;
                        return Err(to_js_error(e));
                    }
                }
            }
        }
        output(&Value::Array(out)).map_err(to_js_error)
    }

    /// Ends the query early, dropping its snapshot.
    #[wasm_bindgen(js_name = "return")]
    pub fn finish(&mut self) {
        self.rows = None;
    }
}

impl Database {
    fn prepare_query(
        &self,
        request: &JsValue,
        views: &[LogicalViewRecord],
    ) -> Result<JsValue, Error> {
        let body: Map<String, Value> = parse("request", request, self.value_limit())?;
        members("request", &body, &["query", "paramTypes", "param_types"])?;
        let query = query_text(&body)?;
        let mut types = BTreeMap::new();
        let declared = match object_member(&body, "paramTypes")? {
            Some(m) => Some(m),
            None => object_member(&body, "param_types")?,
        };
        for (name, ty) in declared.into_iter().flatten() {
            types.insert(
                name.clone(),
                type_from_json(&format!("paramTypes[{name}]"), ty)?,
            );
        }
        let prepared = self.engine(|e| sql::prepare_with_views(e, &query, types, views))?;
        output(&serde_json::json!({"metadata": metadata(&prepared)}))
    }

    /// Reads an `ExecuteQueryRequest`: the query text and its typed parameter values.
    #[allow(clippy::type_complexity)]
    fn query_request(
        &self,
        request: &JsValue,
    ) -> Result<
        (
            String,
            BTreeMap<String, SqlType>,
            BTreeMap<String, sql::SqlValue>,
        ),
        Error,
    > {
        let body: Map<String, Value> = parse("request", request, self.value_limit())?;
        members("request", &body, &["query", "params"])?;
        let query = query_text(&body)?;
        let mut types: BTreeMap<String, SqlType> = BTreeMap::new();
        let mut values = BTreeMap::new();
        for (name, value) in object_member(&body, "params")?.into_iter().flatten() {
            let what = format!("params[{name}]");
            let ty = value
                .get("type")
                .filter(|t| !t.is_null())
                .ok_or_else(|| Error::invalid_argument(format!("{what}: needs its type")))?;
            let ty = type_from_json(&what, ty)?;
            values.insert(name.clone(), value_from_json(&what, value, &ty)?);
            types.insert(name.clone(), ty);
        }
        Ok((query, types, values))
    }

    fn start_query(
        &self,
        request: &JsValue,
        views: &[LogicalViewRecord],
    ) -> Result<QueryRowIterator, Error> {
        let (query, types, values) = self.query_request(request)?;
        let (prepared, rows) = self.engine(|engine| {
            let prepared = sql::prepare_with_views(engine, &query, types, views)?;
            let rows = sql::execute_stream(engine, &prepared, &values)?;
            Ok((prepared, rows))
        })?;
        Ok(QueryRowIterator {
            metadata: metadata(&prepared),
            rows: Some(rows),
        })
    }

    fn execute_query(
        &self,
        request: &JsValue,
        views: &[LogicalViewRecord],
    ) -> Result<JsValue, Error> {
        let (query, types, values) = self.query_request(request)?;
        let (prepared, rows) = self.engine(|engine| {
            let prepared = sql::prepare_with_views(engine, &query, types, views)?;
            let rows = sql::execute(engine, &prepared, &values)?;
            Ok((prepared, rows))
        })?;
        let rows: Vec<Value> = rows
            .iter()
            .map(|r| Value::Array(r.iter().map(value_to_json).collect()))
            .collect();
        output(&serde_json::json!({"metadata": metadata(&prepared), "rows": rows}))
    }
}
