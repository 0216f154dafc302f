//! The `Database` class JavaScript sees: its constructors, its clock and `deleteTable`. The
//! data and table-admin methods, whose requests and results are Bigtable's proto3 JSON, are in
//! `proto.rs`; there is no second (camelCase) form of them.
//!
//! Each method converts its arguments (`args.rs`), calls the engine, and converts the result
//! or the error (`error.rs`); no method has behaviour of its own.
//!
//! Every parameter is a `JsValue` type-checked here (see `args.rs` for why a `&str` parameter
//! could trap), and every method takes `&self`: the engine sits in a `RefCell` this file
//! borrows only around the engine call (`engine(|e| ...)`, `engine_mut(|e| ...)`), after the
//! arguments are converted and before the result is. The engine is the `Database`'s own, or,
//! once an `InstancePlane` adopted it (or for the copy `InstancePlane.routeRequest` hands
//! out), a `SharedDatabase` shared with the plane: the calls are the same either way. Converting calls JavaScript (getters, proxies) that may throw, and a JavaScript
//! exception unwinds through wasm without running destructors; with `&mut self`, the borrow
//! wasm-bindgen takes for the whole call would stay held and every later call would fail.
//! Here such an exception leaks at most a shared borrow of the wrapper, which blocks nothing.

use std::cell::RefCell;
use std::sync::Arc;

use sparsetable::{Clock, Code, ManualClock, SharedDatabase};
use wasm_bindgen::prelude::*;

use crate::args;
use crate::clock::DateClock;
use crate::error::{conversion_error, to_js_error};
use crate::micros::MAX_SAFE_INTEGER;
use crate::types::JsDatabaseOptions;

/// Where a `Database`'s engine is: its own, or shared with an instance plane (one cluster's
/// copy, see `replication.rs`: `InstancePlane.adopt` turns a database into the first
/// cluster of a plane, and `InstancePlane.route` hands out the routed cluster's copy).
pub(crate) enum Backend {
    Own(Box<sparsetable::Database>),
    Shared(SharedDatabase),
    /// Only inside `share`, while the engine moves into its shared handle.
    Moved,
}

/// An in-memory Sparsetable database: tables of rows with Bigtable's data model.
#[wasm_bindgen]
pub struct Database {
    inner: RefCell<Backend>,
    /// Present when the database runs on a manual clock.
    manual_clock: Option<Arc<ManualClock>>,
}

type JsResult<T> = Result<T, JsValue>;

#[wasm_bindgen]
impl Database {
    /// An empty database. With `{clockMicros}` it runs on a manual clock starting there;
    /// otherwise it reads `Date.now()`. `{gcMode}` is `"immediate"` (default: cells a GC rule
    /// makes collectable vanish from reads at once) or `"background"` (they stay readable
    /// until `collectGarbage`, as in Cloud Bigtable): the core's `GcMode`.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for options that are not a plain object (an array, an
    /// `ArrayBuffer`, ...), unknown options, or a clock that is negative or outside
    /// ±(2^53 − 1).
    #[wasm_bindgen(constructor)]
    pub fn new(options: Option<JsDatabaseOptions>) -> JsResult<Database> {
        crate::panic::install_hook();
        let options: JsValue = options.map_or(JsValue::UNDEFINED, Into::into);
        let [clock, gc_mode] =
            args::options("options", &options, ["clockMicros", "gcMode"]).map_err(to_js_error)?;
        let gc_mode = args::gc_mode("gcMode", &gc_mode).map_err(to_js_error)?;
        let clock_micros = if clock.is_undefined() {
            None
        } else {
            Some(args::clock_micros("clockMicros", clock).map_err(to_js_error)?)
        };
        let db = Ok(match clock_micros {
            Some(start) => {
                let clock = Arc::new(ManualClock::new(start));
                Database {
                    inner: RefCell::new(Backend::Own(Box::new(sparsetable::Database::with_clock(
                        clock.clone(),
                    )))),
                    manual_clock: Some(clock),
                }
            }
            None => Database {
                inner: RefCell::new(Backend::Own(Box::new(sparsetable::Database::with_clock(
                    DateClock,
                )))),
                manual_clock: None,
            },
        });
        if let Ok(db) = &db {
            db.engine_mut(|e| {
                e.set_gc_mode(gc_mode);
                Ok(())
            })
            .map_err(to_js_error)?;
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
        let [clock_value, durability, gc_mode] =
            args::options("options", &options, ["clockMicros", "durability", "gcMode"])
                .map_err(to_js_error)?;
        let mut open = sparsetable::OpenOptions::default();
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
        open.gc_mode = args::gc_mode("gcMode", &gc_mode).map_err(to_js_error)?;
        let storage: Arc<dyn sparsetable::platform::storage::Storage> = Arc::new(storage);
        if clock_value.is_undefined() {
            let db = sparsetable::Database::open(storage, open, DateClock).map_err(to_js_error)?;
            return Ok(Database {
                inner: RefCell::new(Backend::Own(Box::new(db))),
                manual_clock: None,
            });
        }
        let start = args::clock_micros("clockMicros", clock_value).map_err(to_js_error)?;
        let clock = Arc::new(ManualClock::new(start));
        let db = sparsetable::Database::open(storage, open, clock.clone()).map_err(to_js_error)?;
        Ok(Database {
            inner: RefCell::new(Backend::Own(Box::new(db))),
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
    /// `INVALID_ARGUMENT` for a time that is negative or outside ±(2^53 − 1).
    #[wasm_bindgen(js_name = setClockMicros)]
    pub fn set_clock_micros(&self, micros: JsValue) -> JsResult<()> {
        let clock = self.manual_clock().map_err(to_js_error)?;
        let m = args::clock_micros("micros", micros).map_err(to_js_error)?;
        clock.set_micros(m);
        Ok(())
    }

    /// Moves a manual clock by `deltaMicros` (negative moves it back).
    ///
    /// # Errors
    /// As `setClockMicros`, plus `INVALID_ARGUMENT` if the result is negative or past
    /// 2^53 − 1.
    #[wasm_bindgen(js_name = advanceClockMicros)]
    pub fn advance_clock_micros(
        &self,
        #[wasm_bindgen(js_name = "deltaMicros")] delta_micros: JsValue,
    ) -> JsResult<()> {
        let clock = self.manual_clock().map_err(to_js_error)?;
        let crate::micros::Micros(delta) =
            crate::micros::from_js("deltaMicros", delta_micros).map_err(to_js_error)?;
        let target = clock
            .now_micros()
            .checked_add(delta)
            .filter(|t| (0..=MAX_SAFE_INTEGER).contains(t));
        match target {
            Some(t) => {
                clock.set_micros(t);
                Ok(())
            }
            None => Err(to_js_error(conversion_error(
                "deltaMicros",
                "moves the clock before the epoch or past 2^53 - 1",
            ))),
        }
    }

    /// `"immediate"` or `"background"`: when collectable cells stop being readable.
    #[wasm_bindgen(getter, js_name = gcMode)]
    pub fn gc_mode(&self) -> JsResult<String> {
        self.engine(|e| Ok(e.gc_mode().as_str().to_string()))
            .map_err(to_js_error)
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
        self.engine_mut(|engine| match &table_id {
            Some(t) => engine.collect_garbage(t),
            None => engine.collect_all_garbage(),
        })
        .map_err(to_js_error)
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
        self.engine_mut(|e| e.delete_table(&table_id))
            .map_err(to_js_error)
    }
}

impl Database {
    /// The bound on any bytes field, checked before it is copied (see `args::value_limit`).
    pub(crate) fn value_limit(&self) -> usize {
        args::value_limit()
    }

    /// Runs `f` on the engine for a read.
    pub(crate) fn engine<R>(
        &self,
        f: impl FnOnce(&sparsetable::Database) -> Result<R, sparsetable::Error>,
    ) -> Result<R, sparsetable::Error> {
        let backend = self.inner.try_borrow().map_err(|_| busy())?;
        match &*backend {
            Backend::Own(db) => f(db),
            Backend::Shared(db) => db.read(f),
            Backend::Moved => Err(moved()),
        }
    }

    /// Runs `f` on the engine for a change.
    pub(crate) fn engine_mut<R>(
        &self,
        f: impl FnOnce(&mut sparsetable::Database) -> Result<R, sparsetable::Error>,
    ) -> Result<R, sparsetable::Error> {
        let mut backend = self.inner.try_borrow_mut().map_err(|_| busy())?;
        match &mut *backend {
            Backend::Own(db) => f(db),
            Backend::Shared(db) => db.write(f),
            Backend::Moved => Err(moved()),
        }
    }

    /// A `Database` over one cluster's copy of a plane (the copy stays the plane's too).
    pub(crate) fn shared(db: SharedDatabase, manual_clock: Option<Arc<ManualClock>>) -> Database {
        Database {
            inner: RefCell::new(Backend::Shared(db)),
            manual_clock,
        }
    }

    /// Turns this database's own engine into a shared one (the first cluster of a plane) and
    /// returns the shared handle and the clock it runs on; a database already shared gives
    /// its handle again.
    ///
    /// # Errors
    /// `FAILED_PRECONDITION` while another call runs on it.
    pub(crate) fn share(&self) -> Result<(SharedDatabase, Arc<dyn Clock>), sparsetable::Error> {
        let mut backend = self.inner.try_borrow_mut().map_err(|_| busy())?;
        let shared = match std::mem::replace(&mut *backend, Backend::Moved) {
            Backend::Own(db) => SharedDatabase::new(*db),
            Backend::Shared(db) => db,
            Backend::Moved => return Err(moved()),
        };
        *backend = Backend::Shared(shared.clone());
        let clock: Arc<dyn Clock> = match &self.manual_clock {
            Some(c) => c.clone(),
            None => Arc::new(DateClock),
        };
        Ok((shared, clock))
    }

    /// The manual clock, if the database runs on one.
    pub(crate) fn manual_clock_handle(&self) -> Option<Arc<ManualClock>> {
        self.manual_clock.clone()
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

/// The error of a database whose engine is being moved (never seen: `share` moves it back
/// before it returns).
fn moved() -> sparsetable::Error {
    sparsetable::Error::new(
        Code::Internal,
        "this Database's engine was lost while an InstancePlane adopted it; open it again",
    )
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
