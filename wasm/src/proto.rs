//! The proto3 JSON half of the `Database` class: the whole Data and table-admin API with
//! requests and results in Bigtable's own JSON form (the core's model, `sparsetable::json`).
//!
//! Each method takes its request body as a plain object (bytes as base64 strings or
//! `Uint8Array`s, int64 as strings, numbers or `bigint`s) or as JSON text, converts it to the
//! core's type through the core's JSON parser, calls the engine, and returns the result as
//! proto3 JSON (bytes as base64, int64 as decimal strings). So a body written for Bigtable's
//! REST/JSON form works unchanged, and no rule is re-implemented here.
//!
//! Why JSON text and not serde-wasm-bindgen: the text crosses the boundary in one copy and is
//! parsed by the core's own parser, which bounds nesting without recursion (a 100,000-deep
//! object is refused by `JSON.stringify` itself, as a JS `RangeError`, before wasm sees it);
//! serde-wasm-bindgen walks the object with one boundary call per field and recurses on the
//! wasm stack. `docs/benchmarks.md` (issue 15) has the per-call figures.
//!
//! Invariants: sizes are checked before copies. `JSON.stringify`'s replacer (made once, in
//! [`stringify`]) refuses any `Uint8Array` longer than the largest value any table may hold
//! before it is encoded, and a JSON text longer than [`MAX_REQUEST_UNITS`] is refused before
//! it is copied into wasm memory; the engine checks the exact per-table limit afterwards.
//! Reads are [`RowIterator`]s over the core's `RowStream`, which owns its view: no borrow of
//! the engine is held between rows, and writes made meanwhile are not seen by the stream.

use std::cell::RefCell;

use js_sys::{Function, JsString, Reflect};
use serde::de::DeserializeOwned;
use serde::Serialize;
use sparsetable::json;
use sparsetable::{
    Code, DropRowRange, Error, FamilyModification, ReadModifyWriteRule, ReadRowsRequest, Row,
    RowFilter, RowStream, TableConfig, TableInfo,
};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::args;
use crate::database::Database;
use crate::error::{conversion_error, to_js_error};

type JsResult<T> = Result<T, JsValue>;

/// Longest JSON text (in UTF-16 units) a request may be: a little over the base64 form of
/// the core's request limit (`limits::MAX_REQUEST_BYTES`, 256 MiB). Longer text is
/// `RESOURCE_EXHAUSTED`, refused before it is copied.
pub const MAX_REQUEST_UNITS: usize = sparsetable::limits::MAX_REQUEST_BYTES / 3 * 4 + 1024 * 1024;

/// Most values (objects, arrays, strings, numbers, ...) a request object may hold: 2^24, far
/// more than a request carries in practice (MutateRows takes at most 100,000 mutations), few
/// enough that `JSON.stringify` over an object graph that shares its parts (small in memory,
/// exponential as a tree) stops within seconds instead of running for minutes. More is
/// `RESOURCE_EXHAUSTED`, as a request over the size limit is.
pub const MAX_REQUEST_VALUES: usize = 1 << 24;

/// The replacer factory's source: `(limit, textLimit) => replacer`. The replacer turns bytes
/// into base64 (reading the holder's own property, so a Node `Buffer`'s `toJSON` does not hide
/// it) and `bigint`s into decimal strings, and throws `{sparsetableTooLarge: n, field?}` for
/// bytes (`field`: the property holding them) or a string longer than any field may be,
/// before encoding or copying them, and
/// `{sparsetableRefused: detail}` for a value JSON would silently change: an object that is
/// neither plain nor an array, NaN or an infinity, a symbol, a function or a nested `null`; and
/// `{sparsetableTooMany: n}` past [`MAX_REQUEST_VALUES`] values (counted per request).
const REPLACER_SOURCE: &str = r#"
const b64 = typeof Buffer === "function"
  ? (u) => Buffer.from(u.buffer, u.byteOffset, u.byteLength).toString("base64")
  : typeof Uint8Array.prototype.toBase64 === "function"
    ? (u) => u.toBase64()
    : (u) => {
        let s = "";
        for (let i = 0; i < u.length; i += 0x8000) s += String.fromCharCode.apply(null, u.subarray(i, i + 0x8000));
        return btoa(s);
      };
const replacer = function (key, value) {
  // JSON.stringify walks a tree: an object graph that shares one array at every level is small
  // in memory and exponential as text, and would run for minutes. Each value counts.
  if (++replacer.calls > maxValues) throw { sparsetableTooMany: maxValues };
  // Most values are strings and numbers: decide those without touching the holder.
  if (typeof value === "string") {
    if (value.length > textLimit) throw { sparsetableTooLarge: value.length };
    return value;
  }
  if (typeof value === "bigint") return value.toString();
  // JSON.stringify would write NaN and the infinities as null (the field's default in proto3
  // JSON), and drop symbols and functions as if the field were absent.
  if (typeof value === "number" && !Number.isFinite(value)) {
    throw { sparsetableRefused: `${value} is not a number JSON can carry` };
  }
  if (typeof value === "symbol" || typeof value === "function") {
    throw { sparsetableRefused: `a ${typeof value} where a value belongs` };
  }
  // proto3 JSON reads null as the field's default, so `gcRule: null` would be "no rule": in an
  // object (whose declared types have no null) it is a wrong value, refused. JSON text keeps
  // the mapping's null.
  if (value === null && key !== "") {
    throw { sparsetableRefused: `${JSON.stringify(String(key)).slice(0, 66)} is null; leave the field out instead` };
  }
  if (typeof value !== "object" || value === null) return value;
  const raw = this[key];
  if (raw instanceof Uint8Array || raw instanceof ArrayBuffer) {
    const u = raw instanceof ArrayBuffer ? new Uint8Array(raw) : raw;
    if (u.length > limit) throw { sparsetableTooLarge: u.length, field: key };
    return b64(u);
  }
  // A message is a plain object and a list an array: a Map, a Set, another typed array or a
  // class instance would otherwise be written as whatever JSON.stringify makes of it ({} for
  // a Map) and read as a message it is not.
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null && !Array.isArray(value)) {
    const name = String((value.constructor && value.constructor.name) || "object").slice(0, 64);
    throw { sparsetableRefused: `a ${name} where a message (a plain object) or a list (an array) belongs` };
  }
  return value;
};
replacer.calls = 0;
return replacer;
"#;

thread_local! {
    static REPLACER_FACTORY: RefCell<Option<Function>> = const { RefCell::new(None) };
    /// The last replacer made, with its limit: the limit rarely changes, so calls share one.
    static REPLACER: RefCell<Option<(usize, JsValue)>> = const { RefCell::new(None) };
}

fn replacer(limit: usize) -> Result<JsValue, Error> {
    if let Some(r) = REPLACER.with(|r| {
        r.borrow()
            .as_ref()
            .filter(|(l, _)| *l == limit)
            .map(|(_, f)| f.clone())
    }) {
        return Ok(r);
    }
    let factory = REPLACER_FACTORY.with(|f| {
        f.borrow_mut()
            .get_or_insert_with(|| {
                Function::new_with_args("limit, textLimit, maxValues", REPLACER_SOURCE)
            })
            .clone()
    });
    // A base64 string of a field at the limit is 4/3 as long; nothing else is longer.
    let text_limit = limit.max(64 * 1024).div_ceil(3) * 4 + 4;
    let made = factory
        .call3(
            &JsValue::NULL,
            &(limit as f64).into(),
            &(text_limit as f64).into(),
            &(MAX_REQUEST_VALUES as f64).into(),
        )
        .map_err(|_| Error::new(Code::Internal, "could not make the JSON replacer"))?;
    REPLACER.with(|r| *r.borrow_mut() = Some((limit, made.clone())));
    Ok(made)
}

/// A request body as JSON text: a string is taken as JSON text; anything else is written by
/// `JSON.stringify` with the size-checking replacer.
fn request_text(argument: &str, value: &JsValue, limit: usize) -> Result<String, Error> {
    let text: JsString = if let Some(s) = value.dyn_ref::<JsString>() {
        s.clone()
    } else if value.is_object() {
        let replacer = replacer(limit)?;
        // The count is per request (the replacer is shared); a fresh object cannot refuse it.
        let _ = Reflect::set(&replacer, &"calls".into(), &0.into());
        match js_sys::JSON::stringify_with_replacer(value, &replacer) {
            Ok(s) => s,
            Err(e) => return Err(stringify_error(argument, &e, limit)),
        }
    } else {
        return Err(conversion_error(
            argument,
            format_args!(
                "expected an object or JSON text, found {}",
                args::describe(value)
            ),
        ));
    };
    let units = text.length() as usize;
    if units > MAX_REQUEST_UNITS {
        return Err(Error::new(
            Code::ResourceExhausted,
            format!("{argument}: a request of {units} characters exceeds the request size limit"),
        ));
    }
    if !text.is_well_formed() {
        return Err(conversion_error(
            argument,
            "a string with a lone surrogate has no UTF-8 encoding",
        ));
    }
    Ok(String::from(&text))
}

fn stringify_error(argument: &str, e: &JsValue, limit: usize) -> Error {
    if let Ok(n) = Reflect::get(e, &"sparsetableTooLarge".into()) {
        if let Some(n) = n.as_f64() {
            // A cell value (SetCell's `value`) over the limit is the core's rule, in its words
            // (the limit is the largest any table may hold, so the table's own check would say
            // the same after the copy this guard avoids).
            let field = Reflect::get(e, &"field".into())
                .ok()
                .and_then(|f| f.as_string());
            if field.as_deref() == Some("value") {
                return conversion_error(
                    argument,
                    sparsetable::limits::value_too_large_message(n as usize, limit),
                );
            }
            return conversion_error(
                argument,
                format_args!(
                    "a field of {n} bytes (or characters) is larger than any value a table \
                     here may hold ({limit} bytes)"
                ),
            );
        }
    }
    if let Some(n) = Reflect::get(e, &"sparsetableTooMany".into())
        .ok()
        .and_then(|n| n.as_f64())
    {
        return Error::new(
            Code::ResourceExhausted,
            format!("{argument}: a request of more than {n} values exceeds the request size limit"),
        );
    }
    if let Some(detail) = Reflect::get(e, &"sparsetableRefused".into())
        .ok()
        .and_then(|n| n.as_string())
    {
        return conversion_error(argument, detail);
    }
    let message: String = e
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .unwrap_or_else(|| "not serializable".into());
    let short: String = message.chars().take(200).collect();
    conversion_error(argument, format_args!("cannot be written as JSON: {short}"))
}

/// Parses a request body (a JSON object) into a core type through the core's proto3 JSON
/// model.
pub(crate) fn parse<T: DeserializeOwned>(
    argument: &str,
    value: &JsValue,
    limit: usize,
) -> Result<T, Error> {
    parse_shaped(argument, value, limit, b'{')
}

/// Parses a list argument (a JSON array).
fn parse_list<T: DeserializeOwned>(
    argument: &str,
    value: &JsValue,
    limit: usize,
) -> Result<T, Error> {
    parse_shaped(argument, value, limit, b'[')
}

/// Checks the top-level shape first: serde's derived structs also read a JSON array (fields
/// by position), which proto3 JSON does not allow for a message.
fn parse_shaped<T: DeserializeOwned>(
    argument: &str,
    value: &JsValue,
    limit: usize,
    open: u8,
) -> Result<T, Error> {
    // An object that is not a plain one (a `Map`, a class instance) would reach the parser as
    // whatever `JSON.stringify` makes of it (`{}` for a `Map`): refused before that.
    let wrong_object = if open == b'{' {
        value.is_object() && !args::is_plain_object(value)
    } else {
        value.is_object() && !js_sys::Array::is_array(value)
    };
    if wrong_object {
        let want = if open == b'{' {
            "a plain object"
        } else {
            "an array"
        };
        return Err(conversion_error(
            argument,
            format_args!(
                "expected {want} or JSON text, found {}",
                args::describe_object(value)
            ),
        ));
    }
    let text = request_text(argument, value, limit)?;
    let first = text.bytes().find(|b| !b.is_ascii_whitespace());
    if first != Some(open) {
        let want = if open == b'{' {
            "an object"
        } else {
            "an array"
        };
        return Err(conversion_error(argument, format_args!("expected {want}")));
    }
    json::from_str(&text).map_err(|e| conversion_error(argument, e.message()))
}

/// A result as a plain JS object, through the core's proto3 JSON writer and `JSON.parse`.
pub(crate) fn output<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, Error> {
    parse_text(&json::to_string(value)?)
}

pub(crate) fn parse_text(text: &str) -> Result<JsValue, Error> {
    js_sys::JSON::parse(text).map_err(|_| Error::new(Code::Internal, "JSON.parse of a result"))
}

/// An admin `Table` with its `name` (the table id) first, in the families' creation order.
pub(crate) fn table_output(info: &TableInfo) -> Result<JsValue, Error> {
    let body = json::to_string(&info.config)?;
    let name = json::to_string(info.name.as_str())?;
    let rest = body.strip_prefix('{').unwrap_or("}");
    let sep = if rest == "}" { "" } else { "," };
    parse_text(&format!("{{\"name\":{name}{sep}{rest}"))
}

/// A row key argument for the proto methods: a `Uint8Array`, or a string read as base64
/// (proto3 JSON's bytes).
pub(crate) fn b64_key(argument: &str, value: &JsValue) -> Result<Vec<u8>, Error> {
    if let Some(s) = value.dyn_ref::<JsString>() {
        if s.length() as usize > 2 * sparsetable::limits::MAX_ROW_KEY_BYTES {
            return Err(conversion_error(argument, "longer than any row key"));
        }
        json::decode_base64(&String::from(s)).map_err(|e| conversion_error(argument, e.message()))
    } else if value.dyn_ref::<js_sys::Uint8Array>().is_some() {
        args::bytes(value).map_err(|d| conversion_error(argument, d))
    } else {
        Err(conversion_error(
            argument,
            format_args!(
                "expected a Uint8Array or a base64 string, found {}",
                args::describe(value)
            ),
        ))
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ReadRowBody {
    #[serde(default)]
    filter: Option<RowFilter>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct DropRowRangeBody {
    /// `name` (the table's resource name) is accepted and ignored: the table is the argument.
    #[serde(default, rename = "name")]
    _name: Option<String>,
    #[serde(default, alias = "row_key_prefix")]
    row_key_prefix: Option<String>,
    #[serde(default, alias = "delete_all_data_from_table")]
    delete_all_data_from_table: Option<bool>,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct SampleOut {
    #[serde(skip_serializing_if = "String::is_empty")]
    row_key: String,
    offset_bytes: String,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StatusOut<'a> {
    pub(crate) index: usize,
    pub(crate) code: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    pub(crate) message: &'a str,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct BackupOut<'a> {
    name: &'a str,
    source_table: &'a str,
    created_micros: String,
    size_bytes: String,
}

fn backup_output(b: &sparsetable::BackupInfo) -> Result<JsValue, Error> {
    let out = BackupOut {
        name: &b.name,
        source_table: &b.source_table,
        created_micros: b.created_micros.to_string(),
        size_bytes: b.size_bytes.to_string(),
    };
    parse_text(&serde_json::to_string(&out).map_err(|e| Error::new(Code::Internal, e.to_string()))?)
}

fn err(e: Error) -> JsValue {
    to_js_error(e)
}

#[wasm_bindgen]
impl Database {
    /// Creates a table from an admin `Table` in proto3 JSON (`{columnFamilies: {cf: {gcRule:
    /// {maxAge: "3600s"}}}, granularity, deletionProtection, initialSplits: [{key}]}`) and
    /// returns it (with `name`).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for bad JSON or an invalid schema; `ALREADY_EXISTS` if it exists.
    #[wasm_bindgen(js_name = createTableJson, unchecked_return_type = "ProtoTable")]
    pub fn create_table_json(
        &self,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string")] table_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ProtoTable | string")] table: JsValue,
    ) -> JsResult<JsValue> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let config: TableConfig = parse("table", &table, self.value_limit()).map_err(err)?;
        let info = {
            self.engine_mut(|engine| {
                engine.create_table(&table_id, config)?;
                engine.get_table(&table_id)
            })
            .map_err(err)?
        };
        table_output(&info).map_err(err)
    }

    /// A table's schema as an admin `Table` in proto3 JSON (families in creation order).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table.
    #[wasm_bindgen(js_name = getTableJson, unchecked_return_type = "ProtoTable")]
    pub fn get_table_json(
        &self,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string")] table_id: JsValue,
    ) -> JsResult<JsValue> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let info = self.engine(|e| e.get_table(&table_id)).map_err(err)?;
        table_output(&info).map_err(err)
    }

    /// Every table as an admin `Table` in proto3 JSON, by id.
    ///
    /// # Errors
    /// `FAILED_PRECONDITION` if called from inside another call.
    #[wasm_bindgen(js_name = listTablesJson, unchecked_return_type = "ProtoTable[]")]
    pub fn list_tables_json(&self) -> JsResult<JsValue> {
        let tables = self.engine(|e| Ok(e.list_tables())).map_err(err)?;
        let out = js_sys::Array::new();
        for t in &tables {
            out.push(&table_output(t).map_err(err)?);
        }
        Ok(out.into())
    }

    /// Applies `ModifyColumnFamiliesRequest.Modification`s (`{id, create|update: {gcRule},
    /// drop: true}`) in order, all or nothing; returns the new schema.
    ///
    /// # Errors
    /// As `modifyColumnFamilies`.
    #[wasm_bindgen(js_name = modifyColumnFamiliesJson, unchecked_return_type = "ProtoTable")]
    pub fn modify_column_families_json(
        &self,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string")] table_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ProtoModification[] | string")]
        modifications: JsValue,
    ) -> JsResult<JsValue> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let mods: Vec<FamilyModification> =
            parse_list("modifications", &modifications, self.value_limit()).map_err(err)?;
        let info = self
            .engine_mut(|e| e.modify_column_families(&table_id, &mods))
            .map_err(err)?;
        table_output(&info).map_err(err)
    }

    /// Turns deletion protection on or off (`UpdateTable` with `deletionProtection`).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table; `INVALID_ARGUMENT` for a non-boolean.
    #[wasm_bindgen(js_name = setDeletionProtection, unchecked_return_type = "ProtoTable")]
    pub fn set_deletion_protection(
        &self,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string")] table_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "boolean")] enabled: JsValue,
    ) -> JsResult<JsValue> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let Some(enabled) = enabled.as_bool() else {
            return Err(err(conversion_error("enabled", "expected a boolean")));
        };
        let info = self
            .engine_mut(|e| e.set_deletion_protection(&table_id, enabled))
            .map_err(err)?;
        table_output(&info).map_err(err)
    }

    /// Sets or removes a table's row-key schema (`UpdateTable` of `row_key_schema`):
    /// `schema` is a `Type.Struct` in proto3 JSON (`Table.rowKeySchema`'s form), or `null`
    /// to remove it, which needs `ignoreWarnings` (the core's rules).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table; `INVALID_ARGUMENT` for bad JSON, an invalid schema,
    /// a change of an existing one or a removal without `ignoreWarnings`.
    #[wasm_bindgen(js_name = setRowKeySchemaJson, unchecked_return_type = "ProtoTable")]
    pub fn set_row_key_schema_json(
        &self,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string")] table_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ProtoRowKeySchema | string | null")] schema: JsValue,
        #[wasm_bindgen(js_name = "ignoreWarnings")] ignore_warnings: bool,
    ) -> JsResult<JsValue> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let schema: Option<sparsetable::RowKeySchema> = if schema.is_null() || schema.is_undefined()
        {
            None
        } else {
            Some(parse("rowKeySchema", &schema, self.value_limit()).map_err(err)?)
        };
        let info = self
            .engine_mut(|e| e.set_row_key_schema(&table_id, schema, ignore_warnings))
            .map_err(err)?;
        table_output(&info).map_err(err)
    }

    /// Applies a `MutateRowRequest` body (`{rowKey, mutations}`; every mutation kind,
    /// aggregates included) atomically.
    ///
    /// # Errors
    /// As `mutateRow`; nothing is applied on error.
    #[wasm_bindgen(js_name = mutateRowJson)]
    pub fn mutate_row_json(
        &self,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string")] table_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ProtoMutateRowRequest | string")] request: JsValue,
    ) -> JsResult<()> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let req: json::MutateRow = parse("request", &request, self.value_limit()).map_err(err)?;
        self.engine_mut(|e| e.mutate_row(&table_id, &req.row_key, &req.mutations))
            .map_err(err)
    }

    /// Applies a `MutateRowsRequest` body (`{entries: [{rowKey, mutations}]}`): each entry is
    /// atomic on its own. Returns one status per entry, in order: `{index, code: "OK"}` or
    /// `{index, code, message}`.
    ///
    /// # Errors
    /// For the whole call: `NOT_FOUND` for an unknown table, `INVALID_ARGUMENT` for bad JSON,
    /// no entries, or too many mutations in total.
    #[wasm_bindgen(js_name = mutateRows, unchecked_return_type = "EntryStatus[]")]
    pub fn mutate_rows(
        &self,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string")] table_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ProtoMutateRowsRequest | string")] request: JsValue,
    ) -> JsResult<JsValue> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let req: json::MutateRows = parse("request", &request, self.value_limit()).map_err(err)?;
        let results = self
            .engine_mut(|e| e.mutate_rows(&table_id, &req.entries))
            .map_err(err)?;
        let statuses: Vec<StatusOut> = results
            .iter()
            .enumerate()
            .map(|(index, r)| match r {
                Ok(()) => StatusOut {
                    index,
                    code: "OK",
                    message: "",
                },
                Err(e) => StatusOut {
                    index,
                    code: e.code().as_str(),
                    message: e.message(),
                },
            })
            .collect();
        parse_text(
            &serde_json::to_string(&statuses)
                .map_err(|e| err(Error::new(Code::Internal, e.to_string())))?,
        )
        .map_err(err)
    }

    /// Applies a `CheckAndMutateRowRequest` body (`{rowKey, predicateFilter, trueMutations,
    /// falseMutations}`) atomically; returns whether the predicate matched.
    ///
    /// # Errors
    /// `NOT_FOUND`, `INVALID_ARGUMENT` as the engine decides; nothing applied on error.
    #[wasm_bindgen(js_name = checkAndMutateRow)]
    pub fn check_and_mutate_row(
        &self,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string")] table_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ProtoCheckAndMutateRowRequest | string")]
        request: JsValue,
    ) -> JsResult<bool> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let req: json::CheckAndMutateRow =
            parse("request", &request, self.value_limit()).map_err(err)?;
        self.engine_mut(|e| {
            e.check_and_mutate_row(
                &table_id,
                &req.row_key,
                req.predicate_filter.as_ref(),
                &req.true_mutations,
                &req.false_mutations,
            )
        })
        .map_err(err)
    }

    /// Applies a `ReadModifyWriteRowRequest` body (`{rowKey, rules: [{familyName,
    /// columnQualifier, appendValue | incrementAmount}]}`) atomically; returns the new cells
    /// as a proto3 JSON `Row`.
    ///
    /// # Errors
    /// `NOT_FOUND`, `INVALID_ARGUMENT`, `FAILED_PRECONDITION` (increment of a value that is
    /// not 8 bytes) as the engine decides.
    #[wasm_bindgen(js_name = readModifyWriteRow, unchecked_return_type = "ProtoRow")]
    pub fn read_modify_write_row(
        &self,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string")] table_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ProtoReadModifyWriteRowRequest | string")]
        request: JsValue,
    ) -> JsResult<JsValue> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let req: json::ReadModifyWriteRow =
            parse("request", &request, self.value_limit()).map_err(err)?;
        let rules: &[ReadModifyWriteRule] = &req.rules;
        let row = self
            .engine_mut(|e| e.read_modify_write_row(&table_id, &req.row_key, rules))
            .map_err(err)?;
        output(&row).map_err(err)
    }

    /// Row keys that split the table into chunks of about equal size: `[{rowKey,
    /// offsetBytes}]`, the last one with no `rowKey` (the end of the table).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table.
    #[wasm_bindgen(js_name = sampleRowKeys, unchecked_return_type = "ProtoSampleRowKey[]")]
    pub fn sample_row_keys(
        &self,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string")] table_id: JsValue,
    ) -> JsResult<JsValue> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let samples = self.engine(|e| e.sample_row_keys(&table_id)).map_err(err)?;
        let out: Vec<SampleOut> = samples
            .iter()
            .map(|s| SampleOut {
                row_key: json::encode_base64(&s.row_key),
                offset_bytes: s.offset_bytes.to_string(),
            })
            .collect();
        parse_text(
            &serde_json::to_string(&out)
                .map_err(|e| err(Error::new(Code::Internal, e.to_string())))?,
        )
        .map_err(err)
    }

    /// Deletes rows by a `DropRowRangeRequest` body: `{rowKeyPrefix: base64}` or
    /// `{deleteAllDataFromTable: true}`.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for neither or both, or an empty prefix; `NOT_FOUND` for an unknown
    /// table.
    #[wasm_bindgen(js_name = dropRowRange)]
    pub fn drop_row_range(
        &self,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string")] table_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ProtoDropRowRangeRequest | string")]
        request: JsValue,
    ) -> JsResult<()> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let range = drop_range(&request).map_err(err)?;
        self.engine_mut(|e| e.drop_row_range(&table_id, &range))
            .map_err(err)
    }

    /// Opens a read of a `ReadRowsRequest` body (`{rows: {rowKeys, rowRanges}, filter,
    /// rowsLimit, reversed}`; absent means every row). The iterator yields proto3 JSON `Row`s
    /// one at a time from a snapshot taken now; writes made while it is open are not seen.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table; `INVALID_ARGUMENT` for bad JSON, a bad filter, range
    /// or limit.
    #[wasm_bindgen(js_name = readRowsJson, unchecked_return_type = "RowIterator")]
    pub fn read_rows_json(
        &self,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string")] table_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ProtoReadRowsRequest | string | undefined")] request: Option<
            JsValue,
        >,
    ) -> JsResult<JsValue> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let request: ReadRowsRequest = match request.filter(|r| !r.is_null()) {
            None => ReadRowsRequest::default(),
            Some(r) => parse("request", &r, self.value_limit()).map_err(err)?,
        };
        let stream = self
            .engine(|e| e.read_rows(&table_id, &request))
            .map_err(err)?;
        let it: JsValue = RowIterator {
            stream: Some(stream),
        }
        .into();
        install_iterator_protocol(&it);
        Ok(it)
    }

    /// Reads one row, optionally through a filter (`{filter}`); `null` if nothing is left.
    /// The key is a `Uint8Array` or a base64 string.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table; `INVALID_ARGUMENT` for a bad key or filter.
    #[wasm_bindgen(js_name = readRowJson, unchecked_return_type = "ProtoRow | null")]
    pub fn read_row_json(
        &self,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string")] table_id: JsValue,
        #[wasm_bindgen(js_name = "rowKey", unchecked_param_type = "Uint8Array | string")]
        row_key: JsValue,
        #[wasm_bindgen(unchecked_param_type = "{ filter?: ProtoRowFilter } | string | undefined")]
        options: Option<JsValue>,
    ) -> JsResult<JsValue> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let key = b64_key("rowKey", &row_key).map_err(err)?;
        let body: ReadRowBody = match options.filter(|o| !o.is_null()) {
            None => ReadRowBody { filter: None },
            Some(o) => parse("options", &o, self.value_limit()).map_err(err)?,
        };
        let row = self
            .engine(|engine| match &body.filter {
                Some(f) => engine.read_row_filtered(&table_id, &key, f),
                None => engine.read_row(&table_id, &key),
            })
            .map_err(err)?;
        match row {
            Some(r) => output(&r).map_err(err),
            None => Ok(JsValue::NULL),
        }
    }

    /// Snapshots a table as backup `backupId`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table; `ALREADY_EXISTS` if the backup id is taken;
    /// `INVALID_ARGUMENT` for a bad id.
    #[wasm_bindgen(js_name = createBackup, unchecked_return_type = "BackupInfo")]
    pub fn create_backup(
        &self,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string")] table_id: JsValue,
        #[wasm_bindgen(js_name = "backupId", unchecked_param_type = "string")] backup_id: JsValue,
    ) -> JsResult<JsValue> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let backup_id = args::id("backupId", &backup_id).map_err(err)?;
        let info = self
            .engine_mut(|e| e.create_backup(&table_id, &backup_id))
            .map_err(err)?;
        backup_output(&info).map_err(err)
    }

    /// A backup's description.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown backup.
    #[wasm_bindgen(js_name = getBackup, unchecked_return_type = "BackupInfo")]
    pub fn get_backup(
        &self,
        #[wasm_bindgen(js_name = "backupId", unchecked_param_type = "string")] backup_id: JsValue,
    ) -> JsResult<JsValue> {
        let backup_id = args::id("backupId", &backup_id).map_err(err)?;
        let info = self.engine(|e| e.get_backup(&backup_id)).map_err(err)?;
        backup_output(&info).map_err(err)
    }

    /// Every backup, by id.
    ///
    /// # Errors
    /// `FAILED_PRECONDITION` if called from inside another call.
    #[wasm_bindgen(js_name = listBackups, unchecked_return_type = "BackupInfo[]")]
    pub fn list_backups(&self) -> JsResult<JsValue> {
        let backups = self.engine(|e| Ok(e.list_backups())).map_err(err)?;
        let out = js_sys::Array::new();
        for b in &backups {
            out.push(&backup_output(b).map_err(err)?);
        }
        Ok(out.into())
    }

    /// Deletes a backup.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown backup.
    #[wasm_bindgen(js_name = deleteBackup)]
    pub fn delete_backup(
        &self,
        #[wasm_bindgen(js_name = "backupId", unchecked_param_type = "string")] backup_id: JsValue,
    ) -> JsResult<()> {
        let backup_id = args::id("backupId", &backup_id).map_err(err)?;
        self.engine_mut(|e| e.delete_backup(&backup_id))
            .map_err(err)
    }

    /// Restores a backup into a new table `tableId`; returns its schema.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown backup; `ALREADY_EXISTS` if the table exists.
    #[wasm_bindgen(js_name = restoreTable, unchecked_return_type = "ProtoTable")]
    pub fn restore_table(
        &self,
        #[wasm_bindgen(js_name = "backupId", unchecked_param_type = "string")] backup_id: JsValue,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string")] table_id: JsValue,
    ) -> JsResult<JsValue> {
        let backup_id = args::id("backupId", &backup_id).map_err(err)?;
        let table_id = args::table_id(&table_id).map_err(err)?;
        let info = self
            .engine_mut(|e| e.restore_table(&backup_id, &table_id))
            .map_err(err)?;
        table_output(&info).map_err(err)
    }
}

/// A `DropRowRangeRequest` body (`{rowKeyPrefix}` or `{deleteAllDataFromTable: true}`) as
/// the core's range (also for `InstancePlane.dropRowRange`).
pub(crate) fn drop_range(request: &JsValue) -> Result<DropRowRange, Error> {
    let body: DropRowRangeBody = parse("request", request, args::value_limit())?;
    match (body.row_key_prefix, body.delete_all_data_from_table) {
        (Some(p), None | Some(false)) => Ok(DropRowRange::Prefix(
            json::decode_base64(&p).map_err(|e| conversion_error("rowKeyPrefix", e.message()))?,
        )),
        (None, Some(true)) => Ok(DropRowRange::All),
        _ => Err(conversion_error(
            "request",
            "set exactly one of rowKeyPrefix and deleteAllDataFromTable: true",
        )),
    }
}

/// A read in progress: an iterator of proto3 JSON rows (`next()` gives `{done, value}`, and it
/// is its own `[Symbol.iterator]`). It owns its snapshot; `return()` or reading to the end
/// frees it early (`free()` too).
#[wasm_bindgen]
pub struct RowIterator {
    stream: Option<RowStream>,
}

#[wasm_bindgen]
impl RowIterator {
    /// The next row, as the iterator protocol's `{done, value}`.
    ///
    /// # Errors
    /// `DATA_LOSS` (naming the file) if the read met a corrupt block of a run read from
    /// storage, after the rows before it; `INTERNAL` only if a result cannot be converted,
    /// which the core's rows never fail.
    #[wasm_bindgen(unchecked_return_type = "IteratorResult<ProtoRow, undefined>")]
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> JsResult<JsValue> {
        let row = match self.stream.as_mut().map(RowStream::try_next) {
            Some(Ok(row)) => row,
            Some(Err(e)) => {
                self.stream = None;
                return Err(err(e));
            }
            None => None,
        };
        if row.is_none() {
            self.stream = None;
        }
        iter_result(row.as_ref())
    }

    /// Up to `max` rows at once (fewer only at the end; an empty array means done): one
    /// boundary crossing for many small rows.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` if `max` is not a positive integer; `DATA_LOSS` as [`Self::next`]
    /// (the rows before the error are not returned).
    #[wasm_bindgen(js_name = nextBatch, unchecked_return_type = "ProtoRow[]")]
    pub fn next_batch(&mut self, max: JsValue) -> JsResult<JsValue> {
        let max = max
            .as_f64()
            .filter(|m| m.fract() == 0.0 && *m >= 1.0)
            .ok_or_else(|| err(conversion_error("max", "expected a positive integer")))?;
        let Some(stream) = self.stream.as_mut() else {
            return output::<[Row]>(&[]).map_err(err);
        };
        // `max` as a count: a float beyond usize saturates, which is "no bound" anyway.
        match stream.next_batch(&sparsetable::BatchLimits::rows(max as usize)) {
            Ok(batch) => {
                if !batch.more {
                    self.stream = None;
                }
                output(&batch.rows).map_err(err)
            }
            Err(e) => {
                self.stream = None;
                Err(err(e))
            }
        }
    }

    /// Ends the read early, freeing its snapshot (the iterator protocol's `return`).
    #[wasm_bindgen(
        js_name = "return",
        unchecked_return_type = "IteratorResult<ProtoRow, undefined>"
    )]
    pub fn finish(&mut self) -> JsResult<JsValue> {
        self.stream = None;
        iter_result(None)
    }
}

fn iter_result(row: Option<&Row>) -> JsResult<JsValue> {
    let result = js_sys::Object::new();
    let set = |k: &str, v: &JsValue| Reflect::set(&result, &k.into(), v);
    match row {
        Some(r) => {
            set("done", &JsValue::FALSE)?;
            set("value", &output(r).map_err(err)?)?;
        }
        None => {
            set("done", &JsValue::TRUE)?;
            set("value", &JsValue::UNDEFINED)?;
        }
    }
    Ok(result.into())
}

/// Lets `for (const row of db.readRowsJson(...))` work: `RowIterator.prototype[Symbol.iterator]`
/// returns the iterator itself. Installed on the first read (the prototype is reachable from
/// an instance only).
fn install_iterator_protocol(it: &JsValue) {
    thread_local! {
        static INSTALLED: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
    }
    if INSTALLED.with(|i| i.replace(true)) {
        return;
    }
    let proto = js_sys::Object::get_prototype_of(it);
    let this_fn = Function::new_no_args("return this");
    let _ = Reflect::set(&proto, &js_sys::Symbol::iterator(), &this_fn);
}
