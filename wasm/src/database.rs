//! The `Database` class JavaScript sees.
//!
//! Each method converts its arguments (`args.rs`, `convert.rs`), calls the engine, and converts
//! the result or the error (`error.rs`); no method has behaviour of its own.
//!
//! Every parameter is a `JsValue` type-checked here (see `args.rs` for why a `&str` parameter
//! could trap), and every method takes `&self`: the engine sits in a `RefCell` this file
//! borrows only around the engine call, after the arguments are converted and before the
//! result is. Converting calls JavaScript (getters, proxies) that may throw, and a JavaScript
//! exception unwinds through wasm without running destructors; with `&mut self`, the borrow
//! wasm-bindgen takes for the whole call would stay held and every later call would fail.
//! Here such an exception leaks at most a shared borrow of the wrapper, which blocks nothing.

use std::cell::{Ref, RefCell, RefMut};
use std::sync::Arc;

use sparsetable::{Clock, Code, ManualClock, Mutation};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::args;
use crate::clock::DateClock;
use crate::convert::{
    from_js, to_js, DatabaseOptions, FamilyModificationJs, Micros, MutationJs, ReadRowsRequestJs,
    RowJs, TableConfigJs, TableInfoJs,
};
use crate::error::{conversion_error, to_js_error};
use crate::types::*;

/// An in-memory Sparsetable database: tables of rows with Bigtable's data model.
#[wasm_bindgen]
pub struct Database {
    inner: RefCell<sparsetable::Database>,
    /// Present when the database runs on a manual clock.
    manual_clock: Option<Arc<ManualClock>>,
}

type JsResult<T> = Result<T, JsValue>;

/// Converts an argument that may be `undefined` (an optional parameter).
fn optional<T: Default + for<'de> serde::Deserialize<'de>>(
    argument: &str,
    value: JsValue,
) -> Result<T, sparsetable::Error> {
    if value.is_undefined() || value.is_null() {
        Ok(T::default())
    } else {
        from_js(argument, value)
    }
}

#[wasm_bindgen]
impl Database {
    /// An empty database. With `{clockMicros}` it runs on a manual clock starting there;
    /// otherwise it reads `Date.now()`. `{gcMode}` is `"immediate"` (default: cells a GC rule
    /// makes collectable vanish from reads at once) or `"background"` (they stay readable
    /// until `collectGarbage`, as in Cloud Bigtable): the core's `GcMode`.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for unknown options or a timestamp outside ±(2^53 − 1).
    #[wasm_bindgen(constructor)]
    pub fn new(options: Option<JsDatabaseOptions>) -> JsResult<Database> {
        crate::panic::install_hook();
        let options: DatabaseOptions =
            optional("options", options.map_or(JsValue::UNDEFINED, Into::into))
                .map_err(to_js_error)?;
        let gc_mode = crate::convert::gc_mode(options.gc_mode.as_deref()).map_err(to_js_error)?;
        let db = Ok(match options.clock_micros {
            Some(Micros(start)) => {
                let clock = Arc::new(ManualClock::new(start));
                Database {
                    inner: RefCell::new(sparsetable::Database::with_clock(clock.clone())),
                    manual_clock: Some(clock),
                }
            }
            None => Database {
                inner: RefCell::new(sparsetable::Database::with_clock(DateClock)),
                manual_clock: None,
            },
        });
        if let Ok(db) = &db {
            db.inner.borrow_mut().set_gc_mode(gc_mode);
        }
        db
    }

    /// Opens (or creates) a durable database on a JavaScript `SyncStorage` (files in a
    /// directory in Node, the Origin Private File System in a Worker; see `storage.rs`):
    /// recovers what the storage holds (commit log, runs, manifest) as the native engine
    /// does. `options.durability` is `"sync"` (the default: a write returns once its log
    /// record is synced) or `"none"`; `options.clockMicros` and `options.gcMode` as in the
    /// constructor.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a storage object without the methods or bad options;
    /// `DATA_LOSS` for corrupt files; the storage's own errors (`UNAVAILABLE`, ...).
    #[wasm_bindgen(js_name = openStorage)]
    pub fn open_storage(
        #[wasm_bindgen(unchecked_param_type = "SyncStorage")] storage: JsValue,
        #[wasm_bindgen(
            unchecked_param_type = "{ clockMicros?: number; durability?: \"sync\" | \"none\"; gcMode?: \"immediate\" | \"background\" }"
        )]
        options: Option<JsValue>,
    ) -> JsResult<Database> {
        crate::panic::install_hook();
        let storage = crate::storage::JsStorage::new(storage).map_err(to_js_error)?;
        let options = options.unwrap_or(JsValue::UNDEFINED);
        let get = |k: &str| {
            if options.is_object() {
                js_sys::Reflect::get(&options, &k.into()).unwrap_or(JsValue::UNDEFINED)
            } else {
                JsValue::UNDEFINED
            }
        };
        let mut open = sparsetable::OpenOptions::default();
        let durability = get("durability");
        match durability.as_string().as_deref() {
            None if durability.is_undefined() => {}
            Some("sync") => open.durability = sparsetable::Durability::Sync,
            Some("none") => open.durability = sparsetable::Durability::None,
            _ => {
                return Err(to_js_error(conversion_error(
                    "durability",
                    "expected \"sync\" or \"none\"",
                )))
            }
        }
        let gc_mode = get("gcMode");
        if !gc_mode.is_undefined() {
            let name = gc_mode.as_string().ok_or_else(|| {
                to_js_error(conversion_error(
                    "gcMode",
                    "expected \"immediate\" or \"background\"",
                ))
            })?;
            open.gc_mode = crate::convert::gc_mode(Some(&name)).map_err(to_js_error)?;
        }
        let clock_value = get("clockMicros");
        let storage: Arc<dyn sparsetable::platform::storage::Storage> = Arc::new(storage);
        if clock_value.is_undefined() {
            let db = sparsetable::Database::open(storage, open, DateClock).map_err(to_js_error)?;
            return Ok(Database {
                inner: RefCell::new(db),
                manual_clock: None,
            });
        }
        let Micros(start) = from_js("clockMicros", clock_value).map_err(to_js_error)?;
        let clock = Arc::new(ManualClock::new(start));
        let db = sparsetable::Database::open(storage, open, clock.clone()).map_err(to_js_error)?;
        Ok(Database {
            inner: RefCell::new(db),
            manual_clock: Some(clock),
        })
    }

    /// The time the database sees, in microseconds since the epoch.
    #[wasm_bindgen(js_name = nowMicros)]
    pub fn now_micros(&self) -> f64 {
        // Manual clocks only take safe integers and Date.now() stays far below 2^53.
        self.clock_now() as f64
    }

    /// Sets a manual clock.
    ///
    /// # Errors
    /// `FAILED_PRECONDITION` if the database was made without `clockMicros`;
    /// `INVALID_ARGUMENT` for a timestamp outside ±(2^53 − 1).
    #[wasm_bindgen(js_name = setClockMicros)]
    pub fn set_clock_micros(&self, micros: JsValue) -> JsResult<()> {
        let clock = self.manual_clock().map_err(to_js_error)?;
        let Micros(m) = from_js("micros", micros).map_err(to_js_error)?;
        clock.set_micros(m);
        Ok(())
    }

    /// Moves a manual clock by `deltaMicros` (negative moves it back).
    ///
    /// # Errors
    /// As `setClockMicros`, plus `INVALID_ARGUMENT` if the result leaves ±(2^53 − 1).
    #[wasm_bindgen(js_name = advanceClockMicros)]
    pub fn advance_clock_micros(
        &self,
        #[wasm_bindgen(js_name = "deltaMicros")] delta_micros: JsValue,
    ) -> JsResult<()> {
        let clock = self.manual_clock().map_err(to_js_error)?;
        let Micros(delta) = from_js("deltaMicros", delta_micros).map_err(to_js_error)?;
        let target = clock
            .now_micros()
            .checked_add(delta)
            .filter(|t| t.abs() <= crate::convert::MAX_SAFE_INTEGER);
        match target {
            Some(t) => {
                clock.set_micros(t);
                Ok(())
            }
            None => Err(to_js_error(conversion_error(
                "deltaMicros",
                "moves the clock outside ±(2^53 - 1)",
            ))),
        }
    }

    /// Creates a table and returns its schema.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a bad id or config; `ALREADY_EXISTS` if the table exists.
    #[wasm_bindgen(js_name = createTable)]
    pub fn create_table(
        &self,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string")] table_id: JsValue,
        config: JsTableConfig,
    ) -> JsResult<JsTableInfo> {
        let table_id = args::table_id(&table_id).map_err(to_js_error)?;
        let config: TableConfigJs = from_js("config", config.into()).map_err(to_js_error)?;
        let config = config.to_core().map_err(to_js_error)?;
        args::raise_value_limit(config.max_value_bytes);
        let info = {
            let mut engine = self.engine_mut().map_err(to_js_error)?;
            engine
                .create_table(&table_id, config)
                .map_err(to_js_error)?;
            engine.get_table(&table_id).map_err(to_js_error)?
        };
        Ok(to_js(&TableInfoJs::from_core(&info))
            .map_err(to_js_error)?
            .unchecked_into())
    }

    /// A table's schema.
    ///
    /// # Errors
    /// `NOT_FOUND` if the table does not exist.
    #[wasm_bindgen(js_name = getTable)]
    pub fn get_table(
        &self,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string")] table_id: JsValue,
    ) -> JsResult<JsTableInfo> {
        let table_id = args::table_id(&table_id).map_err(to_js_error)?;
        let info = self
            .engine()
            .map_err(to_js_error)?
            .get_table(&table_id)
            .map_err(to_js_error)?;
        Ok(to_js(&TableInfoJs::from_core(&info))
            .map_err(to_js_error)?
            .unchecked_into())
    }

    /// `"immediate"` or `"background"`: when collectable cells stop being readable.
    #[wasm_bindgen(getter, js_name = gcMode)]
    pub fn gc_mode(&self) -> JsResult<String> {
        Ok(self
            .engine()
            .map_err(to_js_error)?
            .gc_mode()
            .as_str()
            .to_string())
    }

    /// Runs garbage collection now on `tableId`, or on every table when it is omitted: in
    /// `"background"` GC mode reads then stop returning the cells GC rules made collectable;
    /// in `"immediate"` mode they never did (the core's `collect_garbage`).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table.
    #[wasm_bindgen(js_name = collectGarbage)]
    pub fn collect_garbage(
        &self,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string | undefined")]
        table_id: JsValue,
    ) -> JsResult<()> {
        let table_id = if table_id.is_undefined() || table_id.is_null() {
            None
        } else {
            Some(args::table_id(&table_id).map_err(to_js_error)?)
        };
        let mut engine = self.engine_mut().map_err(to_js_error)?;
        match table_id {
            Some(t) => engine.collect_garbage(&t),
            None => engine.collect_all_garbage(),
        }
        .map_err(to_js_error)
    }

    /// Every table, by id.
    #[wasm_bindgen(js_name = listTables)]
    pub fn list_tables(&self) -> JsResult<JsTableInfoArray> {
        let tables = self.engine().map_err(to_js_error)?.list_tables();
        let views: Vec<TableInfoJs> = tables.iter().map(TableInfoJs::from_core).collect();
        Ok(to_js(&views).map_err(to_js_error)?.unchecked_into())
    }

    /// Deletes a table and its data.
    ///
    /// # Errors
    /// `NOT_FOUND` if the table does not exist; `FAILED_PRECONDITION` if it has deletion
    /// protection.
    #[wasm_bindgen(js_name = deleteTable)]
    pub fn delete_table(
        &self,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string")] table_id: JsValue,
    ) -> JsResult<()> {
        let table_id = args::table_id(&table_id).map_err(to_js_error)?;
        self.engine_mut()
            .map_err(to_js_error)?
            .delete_table(&table_id)
            .map_err(to_js_error)
    }

    /// Creates, updates or drops column families, in order and all or nothing; returns the
    /// new schema.
    ///
    /// # Errors
    /// `NOT_FOUND`, `ALREADY_EXISTS` or `INVALID_ARGUMENT` as the engine decides; nothing
    /// changes on error.
    #[wasm_bindgen(js_name = modifyColumnFamilies)]
    pub fn modify_column_families(
        &self,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string")] table_id: JsValue,
        modifications: JsFamilyModifications,
    ) -> JsResult<JsTableInfo> {
        let table_id = args::table_id(&table_id).map_err(to_js_error)?;
        let modifications: Vec<FamilyModificationJs> =
            from_js("modifications", modifications.into()).map_err(to_js_error)?;
        let modifications = modifications
            .into_iter()
            .enumerate()
            .map(|(i, m)| m.into_core(i))
            .collect::<Result<Vec<_>, _>>()
            .map_err(to_js_error)?;
        let info = self
            .engine_mut()
            .map_err(to_js_error)?
            .modify_column_families(&table_id, &modifications)
            .map_err(to_js_error)?;
        Ok(to_js(&TableInfoJs::from_core(&info))
            .map_err(to_js_error)?
            .unchecked_into())
    }

    /// Applies mutations to one row, atomically and in order.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table or family; `INVALID_ARGUMENT` for a bad row key or
    /// mutation. Nothing is applied on error.
    #[wasm_bindgen(js_name = mutateRow)]
    pub fn mutate_row(
        &self,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string")] table_id: JsValue,
        #[wasm_bindgen(js_name = "rowKey")] row_key: JsBytes,
        mutations: JsMutations,
    ) -> JsResult<()> {
        let table_id = args::table_id(&table_id).map_err(to_js_error)?;
        let row_key = row_key_arg(&row_key).map_err(to_js_error)?;
        let mutations: Vec<MutationJs> =
            from_js("mutations", mutations.into()).map_err(to_js_error)?;
        let mutations: Vec<Mutation> = mutations.into_iter().map(MutationJs::into_core).collect();
        self.engine_mut()
            .map_err(to_js_error)?
            .mutate_row(&table_id, &row_key, &mutations)
            .map_err(to_js_error)
    }

    /// Reads one row; `null` if it has no cells.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table; `INVALID_ARGUMENT` for a bad row key.
    #[wasm_bindgen(js_name = readRow)]
    pub fn read_row(
        &self,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string")] table_id: JsValue,
        #[wasm_bindgen(js_name = "rowKey")] row_key: JsBytes,
    ) -> JsResult<JsRowOrNull> {
        let table_id = args::table_id(&table_id).map_err(to_js_error)?;
        let row_key = row_key_arg(&row_key).map_err(to_js_error)?;
        let row = self
            .engine()
            .map_err(to_js_error)?
            .read_row(&table_id, &row_key)
            .map_err(to_js_error)?;
        let value = match &row {
            Some(row) => to_js(&RowJs::from_core(row)).map_err(to_js_error)?,
            None => JsValue::NULL,
        };
        Ok(value.unchecked_into())
    }

    /// Reads the rows a request selects, in key order (or reversed). Without a request, every
    /// row.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table; `INVALID_ARGUMENT` for a negative limit, a bad range
    /// or unknown request fields.
    #[wasm_bindgen(js_name = readRows)]
    pub fn read_rows(
        &self,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string")] table_id: JsValue,
        request: Option<JsReadRowsRequest>,
    ) -> JsResult<JsRows> {
        let table_id = args::table_id(&table_id).map_err(to_js_error)?;
        let request: ReadRowsRequestJs =
            optional("request", request.map_or(JsValue::UNDEFINED, Into::into))
                .map_err(to_js_error)?;
        let request = request.into_core().map_err(to_js_error)?;
        let rows: Vec<_> = self
            .engine()
            .map_err(to_js_error)?
            .read_rows(&table_id, &request)
            .and_then(|rows| rows.into_rows())
            .map_err(to_js_error)?;
        let views: Vec<RowJs> = rows.iter().map(RowJs::from_core).collect();
        Ok(to_js(&views).map_err(to_js_error)?.unchecked_into())
    }
}

impl Database {
    /// The bound on any bytes field, checked before it is copied (see `args::value_limit`).
    pub(crate) fn value_limit(&self) -> usize {
        args::value_limit()
    }

    /// The engine for a read.
    pub(crate) fn engine(&self) -> Result<Ref<'_, sparsetable::Database>, sparsetable::Error> {
        self.inner.try_borrow().map_err(|_| busy())
    }

    /// The engine for a change.
    pub(crate) fn engine_mut(
        &self,
    ) -> Result<RefMut<'_, sparsetable::Database>, sparsetable::Error> {
        self.inner.try_borrow_mut().map_err(|_| busy())
    }

    /// The clock's time, without borrowing the engine (`nowMicros` must work while a call
    /// reads the clock).
    fn clock_now(&self) -> i64 {
        match &self.manual_clock {
            Some(clock) => clock.now_micros(),
            None => DateClock.now_micros(),
        }
    }

    fn manual_clock(&self) -> Result<&ManualClock, sparsetable::Error> {
        self.manual_clock.as_deref().ok_or_else(|| {
            sparsetable::Error::failed_precondition(
                "the database reads Date.now(); create it with {clockMicros} to control its clock",
            )
        })
    }
}

/// Why the engine is already borrowed: a call re-entered from JavaScript the engine called
/// (the clock), or a panic, which cannot unwind on wasm, left an earlier call's borrow held.
fn busy() -> sparsetable::Error {
    match crate::panic::last_panic() {
        Some(panic) => sparsetable::Error::new(
            Code::Internal,
            format!(
                "an earlier call on this Database panicked ({panic}) and left it in an unknown \
                 state; create a new Database"
            ),
        ),
        None => sparsetable::Error::failed_precondition(
            "another call on this Database is running (a call from inside its clock?)",
        ),
    }
}

/// A row key argument: a `Uint8Array` or a string.
fn row_key_arg(value: &JsValue) -> Result<Vec<u8>, sparsetable::Error> {
    args::bytes(value).map_err(|detail| conversion_error("rowKey", detail))
}
