//! The client, its tables and the table admin: `BigtableDataClient`, `Table`, `TableAdmin`,
//! `TableInfo`, `ColumnFamilyModification`, and `ManualClock`.
//!
//! A client is one Bigtable project: each instance id names an engine database shared by
//! every client of the process naming the same project (see `registry` for where it lives and
//! how long), so tables of different instances never meet, as in Cloud Bigtable. `get_table`
//! is lazy as in Google's client: a missing table surfaces as `NotFound` on the first call.
//!
//! Every engine call converts its arguments while holding the GIL, runs with the GIL released
//! (`convert::with_db`), then converts the result back.

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use sparsetable::{Clock, RowMutations, SharedDatabase};

use crate::convert::{bytes_or_str, poisoned, with_db, with_db_mut, with_db_point};
use crate::errors::{invalid_argument, to_py_err, SparsetableError};
use crate::filters::extract_filter;
use crate::mutations::extract_mutations;
use crate::query::ReadRowsQuery;
use crate::read_modify_write::extract_rules as extract_rmw_rules;
use crate::registry::{
    parse_durability, parse_gc_mode, resolve_root, Store, Worlds, DEFAULT_PROJECT,
};
use crate::resume::{ResumingRead, RetryPolicy};
use crate::row::{row_to_py, Row};
use crate::table_admin::TableAdmin;
use sparsetable::api::shared::poisoned as poisoned_error;

/// A clock that moves only when told to; pass it to `BigtableDataClient(clock=...)` for
/// deterministic timestamps (server-time `SetCell`, `MaxAgeGCRule`). In memory, the clock
/// owns its databases: clients on one clock share them, clients on different clocks never
/// meet (see `registry`).
#[pyclass(frozen, module = "sparsetable")]
pub struct ManualClock {
    inner: Arc<sparsetable::ManualClock>,
    worlds: Arc<Worlds>,
}

#[pymethods]
impl ManualClock {
    #[new]
    fn new(micros: i64) -> Self {
        ManualClock {
            inner: Arc::new(sparsetable::ManualClock::new(micros)),
            worlds: Arc::default(),
        }
    }

    /// The current time in microseconds since the epoch.
    fn now_micros(&self) -> i64 {
        self.inner.now_micros()
    }

    /// Sets the time.
    fn set_micros(&self, micros: i64) {
        self.inner.set_micros(micros);
    }

    /// Moves the time by `delta_micros` (negative moves it back).
    fn advance_micros(&self, delta_micros: i64) {
        self.inner.advance_micros(delta_micros);
    }
}

/// The native client, under `google.cloud.bigtable.data.BigtableDataClient`'s name: a
/// project whose instances are the process's shared databases (see `registry`), in memory
/// or in a directory.
#[pyclass(frozen, module = "sparsetable")]
pub struct BigtableDataClient {
    project: Option<String>,
    clock: Arc<dyn Clock>,
    store: Store,
    /// The GC mode of the databases this client opens.
    gc_mode: sparsetable::GcMode,
    /// The databases this client has used, kept open while it lives (a directory's lock
    /// with them), by instance id.
    opened: Mutex<BTreeMap<String, Arc<SharedDatabase>>>,
}

#[pymethods]
impl BigtableDataClient {
    /// `clock=None` uses the system clock; a `ManualClock` makes time deterministic.
    /// `path=None` reads `$SPARSETABLE_PATH`; without either, the data is in memory.
    /// `durability` (`"sync"`, `"interval"` or `"none"`; default `$SPARSETABLE_DURABILITY`,
    /// else `"sync"`) applies to a path only. `gc_mode` (`"immediate"`, the default, or
    /// `"background"`) is the core's `GcMode`: whether cells a GC rule makes collectable
    /// disappear from reads at once or stay readable until a collection
    /// (`TableAdmin.collect_garbage`).
    #[new]
    #[pyo3(signature = (project = None, clock = None, *, path = None, durability = None, gc_mode = None))]
    fn new(
        py: Python<'_>,
        project: Option<String>,
        clock: Option<&Bound<'_, ManualClock>>,
        path: Option<PathBuf>,
        durability: Option<&str>,
        gc_mode: Option<&str>,
    ) -> PyResult<Self> {
        let gc_mode = parse_gc_mode(gc_mode).map_err(|e| to_py_err(py, e))?;
        let manual = clock.map(|c| c.get());
        let clock: Arc<dyn Clock> = match manual {
            Some(c) => c.inner.clone(),
            None => Arc::new(sparsetable::SystemClock),
        };
        let root = py
            .detach(|| resolve_root(path))
            .map_err(|e| to_py_err(py, e))?;
        let store = match root {
            None => {
                if durability.is_some() {
                    return Err(invalid_argument(
                        py,
                        "durability applies to a database in a directory: give path= (or set SPARSETABLE_PATH)",
                    ));
                }
                Store::memory(clock.clone(), manual.map(|c| c.worlds.clone()))
            }
            Some(root) => Store::Dir {
                root,
                durability: parse_durability(durability).map_err(|e| to_py_err(py, e))?,
                clock: clock.clone(),
                clock_id: manual.map_or(0, |c| Arc::as_ptr(&c.inner) as usize),
            },
        };
        Ok(BigtableDataClient {
            project,
            clock,
            store,
            gc_mode,
            opened: Mutex::default(),
        })
    }

    /// The project id given at construction, if any.
    #[getter]
    fn project(&self) -> Option<String> {
        self.project.clone()
    }

    /// The directory the data lives in (`None`: in memory).
    #[getter]
    fn path(&self) -> Option<PathBuf> {
        self.store.root().map(Path::to_path_buf)
    }

    /// `"immediate"` or `"background"`: the GC mode of the databases this client opens.
    #[getter]
    fn gc_mode(&self) -> &'static str {
        self.gc_mode.as_str()
    }

    /// `"sync"`, `"interval"` or `"none"` for a directory; `None` in memory.
    #[getter]
    fn durability(&self) -> Option<&'static str> {
        self.store.durability()
    }

    /// A handle on a table's data. Lazy: no check that the table exists. Every data call goes
    /// through `app_profile_id`'s routing (empty: the instance's default profile).
    #[pyo3(signature = (instance_id, table_id, app_profile_id = None))]
    fn get_table(
        &self,
        py: Python<'_>,
        instance_id: String,
        table_id: String,
        app_profile_id: Option<String>,
    ) -> PyResult<Table> {
        let db = self.instance_db(py, &instance_id)?;
        Ok(Table {
            plane: self.plane(py, &instance_id)?,
            db,
            instance_id,
            table_id,
            app_profile_id: app_profile_id.unwrap_or_default(),
        })
    }

    /// The control surface of an instance's simulated replication: its clusters and app
    /// profiles, outages, lag and injected faults (not part of Google's client; see README).
    fn instance_control(
        &self,
        py: Python<'_>,
        instance_id: String,
    ) -> PyResult<crate::instance_control::InstanceControl> {
        Ok(crate::instance_control::InstanceControl::new(
            self.plane(py, &instance_id)?,
            instance_id,
        ))
    }

    /// The classic Instance Admin of one instance (`sparsetable.Instance` uses it; see
    /// `instance_admin`).
    fn _instance_admin(
        &self,
        py: Python<'_>,
        instance_id: String,
    ) -> PyResult<crate::instance_admin::InstanceAdmin> {
        let records = self.store.records().map_err(|e| to_py_err(py, e))?;
        let project = self
            .project
            .clone()
            .unwrap_or_else(|| DEFAULT_PROJECT.to_string());
        let folder = self
            .store
            .instance_dir(&project, &instance_id)
            .map_err(|e| to_py_err(py, e))?;
        Ok(crate::instance_admin::InstanceAdmin::new(
            records,
            project,
            instance_id.clone(),
            self.plane(py, &instance_id)?,
            self.instance_db(py, &instance_id)?,
            self.clock.now_micros(),
            folder,
        ))
    }

    /// The instances of this client's project created through the Instance Admin (in a
    /// directory: those with an `INSTANCE` file, whoever wrote it), as dicts (see
    /// `instance_admin::instance_to_py`), by id.
    fn _list_instances<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Vec<Bound<'py, pyo3::types::PyDict>>> {
        let project = self.project.as_deref().unwrap_or(DEFAULT_PROJECT);
        let listed = py
            .detach(|| self.store.listed_instances(project))
            .map_err(|e| to_py_err(py, e))?;
        listed
            .iter()
            .map(|r| crate::instance_admin::instance_to_py(py, r))
            .collect()
    }

    /// The admin of one instance's tables (not part of Google's data client; see README).
    fn table_admin(&self, py: Python<'_>, instance_id: String) -> PyResult<TableAdmin> {
        Ok(TableAdmin {
            db: self.instance_db(py, &instance_id)?,
            plane: self.plane(py, &instance_id)?,
            instance_id,
        })
    }

    /// Runs a SQL query (the core's subset, `sparsetable::api::sql`) on an instance:
    /// `param_types` maps names to type tags and `params` names to plain values (see
    /// `sql.rs`). Returns the columns as `(name, type tag)` and the rows as lists of plain
    /// values; `sparsetable._sql` shapes both into Google's classes.
    #[allow(clippy::type_complexity)]
    fn _execute_query(
        &self,
        py: Python<'_>,
        instance_id: String,
        query: String,
        param_types: &Bound<'_, pyo3::types::PyDict>,
        params: &Bound<'_, pyo3::types::PyDict>,
    ) -> PyResult<(Vec<(String, Py<PyAny>)>, Vec<Vec<Py<PyAny>>>)> {
        use sparsetable::api::sql;
        let mut types = std::collections::BTreeMap::new();
        let mut values = std::collections::BTreeMap::new();
        for (name, tag) in param_types.iter() {
            let name: String = name.extract()?;
            let ty = crate::sql::type_from_py(&tag)?;
            if let Some(v) = params.get_item(&name)? {
                values.insert(name.clone(), crate::sql::value_from_py(&v, &ty)?);
            }
            types.insert(name, ty);
        }
        let db = self.instance_db(py, &instance_id)?;
        // The instance's logical views, for a query that names one in FROM (the records'
        // lock is let go before the database's is taken).
        let project = self.project.as_deref().unwrap_or(DEFAULT_PROJECT);
        let views = py
            .detach(|| {
                let records = self.store.records()?;
                crate::instance_admin::logical_views_of(&records, project, &instance_id)
            })
            .map_err(|e| to_py_err(py, e))?;
        let (columns, rows) = crate::convert::with_db(py, &db, |db| {
            let prepared = sql::prepare_with_views(db, &query, types, &views)?;
            let rows = sql::execute(db, &prepared, &values)?;
            Ok((prepared.columns().to_vec(), rows))
        })?;
        let columns = columns
            .iter()
            .map(|c| Ok((c.name.clone(), crate::sql::type_to_py(py, &c.ty)?)))
            .collect::<PyResult<_>>()?;
        let rows = rows
            .iter()
            .map(|r| r.iter().map(|v| crate::sql::value_to_py(py, v)).collect())
            .collect::<PyResult<_>>()?;
        Ok((columns, rows))
    }

    /// The time the engine sees, in microseconds since the epoch.
    fn now_micros(&self) -> i64 {
        self.clock.now_micros()
    }
}

impl BigtableDataClient {
    /// The data plane of `instance_id` (see `registry::plane`).
    fn plane(&self, py: Python<'_>, instance_id: &str) -> PyResult<Arc<sparsetable::InstanceData>> {
        let db = self.instance_db(py, instance_id)?;
        let project = self.project.as_deref().unwrap_or(DEFAULT_PROJECT);
        py.detach(|| {
            let records = self.store.records()?;
            crate::registry::plane(&db, instance_id, self.clock.clone(), |plane| {
                crate::instance_admin::configure_from(&records, project, instance_id, plane)
            })
        })
        .map_err(|e| to_py_err(py, e))
    }

    /// The shared database of `instance_id` (opened, with recovery, with the GIL released).
    fn instance_db(&self, py: Python<'_>, instance_id: &str) -> PyResult<Arc<SharedDatabase>> {
        let project = self.project.as_deref().unwrap_or(DEFAULT_PROJECT);
        // The lock is taken with the GIL released: opening may run a long recovery.
        py.detach(|| {
            let mut opened = self.opened.lock().map_err(|_| poisoned_error())?;
            if let Some(db) = opened.get(instance_id) {
                return Ok(db.clone());
            }
            let db = self.store.database(project, instance_id, self.gc_mode)?;
            opened.insert(instance_id.to_string(), db.clone());
            Ok(db)
        })
        .map_err(|e| to_py_err(py, e))
    }
}

/// The data of one table, as `google.cloud.bigtable.data.Table`.
#[pyclass(frozen, module = "sparsetable")]
pub struct Table {
    /// The instance's first database (schema and table-level calls).
    db: Arc<SharedDatabase>,
    /// Routes every data call by `app_profile_id` (see `registry::plane`).
    plane: Arc<sparsetable::InstanceData>,
    instance_id: String,
    table_id: String,
    app_profile_id: String,
}

impl Table {
    /// The database a data call of `rpc` runs on, by the table's app profile: the core's
    /// routing and injected faults; an injected latency is waited out with the GIL released.
    fn route(
        &self,
        py: Python<'_>,
        rpc: &str,
        kind: sparsetable::RequestKind,
        row_key: &[u8],
    ) -> PyResult<sparsetable::Routed> {
        let routed = self
            .plane
            .route(&self.app_profile_id, rpc, kind, row_key)
            .map_err(|e| to_py_err(py, e))?;
        if routed.latency_micros > 0 {
            py.detach(|| {
                std::thread::sleep(std::time::Duration::from_micros(routed.latency_micros))
            });
        }
        Ok(routed)
    }

    /// Hands what a write committed to replication (nothing with one cluster).
    fn after_write(py: Python<'_>, routed: &sparsetable::Routed) -> PyResult<()> {
        py.detach(|| routed.after_write())
            .map_err(|e| to_py_err(py, e))
    }
}

#[pymethods]
impl Table {
    #[getter]
    fn instance_id(&self) -> &str {
        &self.instance_id
    }

    #[getter]
    fn table_id(&self) -> &str {
        &self.table_id
    }

    /// Applies `mutations` (one or a list) to one row, atomically and in order.
    fn mutate_row(
        &self,
        py: Python<'_>,
        row_key: &Bound<'_, PyAny>,
        mutations: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let key = bytes_or_str(row_key, "row_key")?;
        // One mutation (the common way to write a large value): the engine reads it where
        // the frozen Python object holds it, so the value's size is checked before any
        // further copy, and a valid value is copied only into the memtable.
        if let Ok(one) = mutations.cast::<crate::mutations::Mutation>() {
            let one = std::slice::from_ref(&one.get().inner);
            let routed = self.route(py, "MutateRow", sparsetable::RequestKind::Write, &key)?;
            with_db_mut(py, &routed.db, |db| {
                db.mutate_row(&self.table_id, &key, one)
            })?;
            return Self::after_write(py, &routed);
        }
        let mutations = extract_mutations(mutations, &self.config(py)?)?;
        let routed = self.route(py, "MutateRow", sparsetable::RequestKind::Write, &key)?;
        with_db_mut(py, &routed.db, |db| {
            db.mutate_row(&self.table_id, &key, &mutations)
        })?;
        Self::after_write(py, &routed)
    }

    /// Applies many rows' mutations, as Bigtable's `MutateRows`: each entry
    /// `(row_key, mutation_or_list)` atomically, the batch not; in `sync` durability each
    /// slice of the batch (see `bulk`) shares one fsync. Returns one item per entry, in
    /// order: `None` if it was applied, else its exception (a `SparsetableError`, not
    /// raised: an unknown family, an invalid mutation...). Raises for the whole call, with
    /// nothing applied: `TypeError` for a malformed entry, `NotFound` for an unknown table,
    /// `InvalidArgument` for an empty batch or too many mutations. Ctrl-C stops a large
    /// batch between slices: the `KeyboardInterrupt` carries `completed_entries`, the
    /// number of leading entries applied (or failed alone); the rest were not applied.
    fn mutate_rows<'py>(
        &self,
        py: Python<'py>,
        entries: &Bound<'py, PyAny>,
    ) -> PyResult<Vec<Option<Py<PyAny>>>> {
        let config = self.config(py)?;
        let mut statuses: Vec<Option<Py<PyAny>>> = Vec::new();
        let mut batch = Vec::new();
        // Where each batch entry's status goes.
        let mut slots = Vec::new();
        for entry in entries.try_iter()? {
            // Reading a large list holds the GIL: look for Ctrl-C now and then.
            if statuses
                .len()
                .is_multiple_of(crate::bulk::EXTRACT_CHECK_EVERY)
                && !statuses.is_empty()
            {
                crate::bulk::check_signals_before_applying(py)?;
            }
            let entry = entry?;
            let (key, mutations): (Bound<'py, PyAny>, Bound<'py, PyAny>) =
                entry.extract().map_err(|_| {
                    PyTypeError::new_err("mutate_rows entries must be (row_key, mutations) pairs")
                })?;
            let row_key = bytes_or_str(&key, "row_key")?;
            match extract_mutations(&mutations, &config) {
                Ok(mutations) => {
                    slots.push(statuses.len());
                    statuses.push(None);
                    batch.push(RowMutations { row_key, mutations });
                }
                // The engine's own kind of error (checked here against the table's schema
                // before copying values) fails this entry only, as it would in the engine.
                Err(e) if e.is_instance_of::<SparsetableError>(py) => {
                    statuses.push(Some(e.into_value(py).into_any()));
                }
                Err(e) => return Err(e),
            }
        }
        if statuses.is_empty() || !batch.is_empty() {
            let first = batch.first().map_or(&[][..], |e| e.row_key.as_slice());
            let routed = self.route(py, "MutateRows", sparsetable::RequestKind::Write, first)?;
            let results = if batch.is_empty() {
                // The engine's answer to an empty batch (InvalidArgument).
                with_db_mut(py, &routed.db, |db| db.mutate_rows(&self.table_id, &batch))?
            } else {
                // The batch's own limits hold for the whole batch, before any slice.
                sparsetable::validate_mutate_rows_batch(&batch).map_err(|e| to_py_err(py, e))?;
                crate::bulk::mutate_rows_interruptibly(py, &routed, &self.table_id, &batch, |b| {
                    slots[b]
                })?
            };
            for (slot, result) in slots.iter().zip(results) {
                if let Err(e) = result {
                    statuses[*slot] = Some(to_py_err(py, e).into_value(py).into_any());
                }
            }
        }
        Ok(statuses)
    }

    /// One row (what `row_filter` keeps of it), or `None` if nothing is left.
    #[pyo3(signature = (row_key, *, row_filter = None))]
    fn read_row(
        &self,
        py: Python<'_>,
        row_key: &Bound<'_, PyAny>,
        row_filter: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<Py<Row>>> {
        let key = bytes_or_str(row_key, "row_key")?;
        let filter = extract_filter(row_filter)?.unwrap_or_default();
        let routed = self.route(py, "ReadRows", sparsetable::RequestKind::Read, &key)?;
        let row = with_db_point(py, &routed.db, |db| {
            db.read_row_filtered(&self.table_id, &key, &filter)
        })?;
        row.map(|r| row_to_py(py, r)).transpose()
    }

    /// Applies `true_case_mutations` if `predicate` (a `RowFilter`, or `None` for "the row
    /// has any cell") yields a cell of the row, else `false_case_mutations`; returns whether
    /// it matched.
    #[pyo3(signature = (row_key, predicate, *, true_case_mutations = None, false_case_mutations = None))]
    fn check_and_mutate_row(
        &self,
        py: Python<'_>,
        row_key: &Bound<'_, PyAny>,
        predicate: Option<&Bound<'_, PyAny>>,
        true_case_mutations: Option<&Bound<'_, PyAny>>,
        false_case_mutations: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let key = bytes_or_str(row_key, "row_key")?;
        let predicate = extract_filter(predicate)?;
        let config = self.config(py)?;
        let mutations = |m: Option<&Bound<'_, PyAny>>| match m.filter(|m| !m.is_none()) {
            Some(m) => extract_mutations(m, &config),
            None => Ok(Vec::new()),
        };
        let (on_true, on_false) = (
            mutations(true_case_mutations)?,
            mutations(false_case_mutations)?,
        );
        let routed = self.route(
            py,
            "CheckAndMutateRow",
            sparsetable::RequestKind::Transaction,
            &key,
        )?;
        let matched = with_db_mut(py, &routed.db, |db| {
            db.check_and_mutate_row(
                &self.table_id,
                &key,
                predicate.as_ref(),
                &on_true,
                &on_false,
            )
        })?;
        Self::after_write(py, &routed)?;
        Ok(matched)
    }

    /// Applies the rules (one or a list) to the row's latest cells atomically; returns the
    /// row holding the new cells.
    fn read_modify_write_row(
        &self,
        py: Python<'_>,
        row_key: &Bound<'_, PyAny>,
        rules: &Bound<'_, PyAny>,
    ) -> PyResult<Py<Row>> {
        let key = bytes_or_str(row_key, "row_key")?;
        let rules = extract_rmw_rules(rules)?;
        let routed = self.route(
            py,
            "ReadModifyWriteRow",
            sparsetable::RequestKind::Transaction,
            &key,
        )?;
        let row = with_db_mut(py, &routed.db, |db| {
            db.read_modify_write_row(&self.table_id, &key, &rules)
        })?;
        Self::after_write(py, &routed)?;
        row_to_py(py, row)
    }

    /// Whether the row has any cell.
    fn row_exists(&self, py: Python<'_>, row_key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let key = bytes_or_str(row_key, "row_key")?;
        let routed = self.route(py, "ReadRows", sparsetable::RequestKind::Read, &key)?;
        with_db_point(py, &routed.db, |db| {
            db.read_row(&self.table_id, &key).map(|r| r.is_some())
        })
    }

    /// Every row the query selects, in key order. The rows come from the engine in batches
    /// converted as they arrive (never the whole result twice in memory), and Ctrl-C
    /// (any pending signal) interrupts the read between batches. An attempt that fails with
    /// one of `retryable_codes` (gRPC code names) is re-issued for the rows not yet received
    /// until `operation_timeout` seconds would pass (see `resume`: Google's client's retries).
    #[pyo3(signature = (query, *, retryable_codes = Vec::new(), operation_timeout = None))]
    fn read_rows<'py>(
        &self,
        py: Python<'py>,
        query: &Bound<'py, ReadRowsQuery>,
        retryable_codes: Vec<String>,
        operation_timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyList>> {
        let policy = retry_policy(py, &retryable_codes, operation_timeout)?;
        let mut read = self.open_read(py, query, policy)?;
        let list = PyList::empty(py);
        loop {
            let (batch, more) = py
                .detach(|| next_batch(&mut read))
                .map_err(|e| to_py_err(py, e))?;
            for row in batch {
                list.append(row_to_py(py, row)?)?;
            }
            if !more {
                return Ok(list);
            }
            py.check_signals()?;
        }
    }

    /// `(row_key, offset_bytes)` pairs splitting the table into chunks, as Google's
    /// `RowKeySamples`; the last key is empty and its offset the table's size. With a
    /// `row_range`, the core's `samples_in_range`: the boundaries inside it, then its end.
    #[pyo3(signature = (row_range = None))]
    fn sample_row_keys<'py>(
        &self,
        py: Python<'py>,
        row_range: Option<PyRef<'py, crate::query::RowRange>>,
    ) -> PyResult<Vec<(Bound<'py, PyBytes>, u64)>> {
        let range = row_range.map(|r| r.to_core());
        let routed = self.route(py, "SampleRowKeys", sparsetable::RequestKind::Read, b"")?;
        let samples = with_db(py, &routed.db, |db| {
            let all = db.sample_row_keys(&self.table_id)?;
            match &range {
                Some(r) => {
                    r.validate()?;
                    Ok(sparsetable::samples_in_range(&all, r))
                }
                None => Ok(all),
            }
        })?;
        Ok(samples
            .into_iter()
            .map(|s| (PyBytes::new(py, &s.row_key), s.offset_bytes))
            .collect())
    }

    /// Enables (a retention of 1 to 7 days, in microseconds), changes or (`None`) disables
    /// the table's change stream.
    #[pyo3(signature = (retention_micros))]
    fn set_change_stream_retention(
        &self,
        py: Python<'_>,
        retention_micros: Option<i64>,
    ) -> PyResult<()> {
        // Every cluster's copy logs its changes.
        py.detach(|| {
            self.plane
                .set_change_stream(&self.table_id, retention_micros)
        })
        .map_err(|e| to_py_err(py, e))
    }

    /// The partitions of the table's change stream (its tablets).
    fn generate_initial_change_stream_partitions(
        &self,
        py: Python<'_>,
    ) -> PyResult<Vec<crate::query::RowRange>> {
        // The partitions are the tablets of the cluster the table's app profile routes to.
        let routed = self.route(
            py,
            "GenerateInitialChangeStreamPartitions",
            sparsetable::RequestKind::Read,
            b"",
        )?;
        let parts = py
            .detach(|| {
                sparsetable::api::change_stream_reader::partitions(&routed.db, &self.table_id)
            })
            .map_err(|e| to_py_err(py, e))?;
        Ok(parts
            .iter()
            .map(crate::query::RowRange::from_core)
            .collect())
    }

    /// Reads one partition of the table's change stream: from `start_time_micros`, from
    /// `continuation_tokens` (`(partition, token)` pairs covering `partition` exactly), or
    /// (neither) from now; until `end_time_micros` if given.
    #[pyo3(signature = (partition, *, start_time_micros = None, continuation_tokens = None, end_time_micros = None))]
    fn read_change_stream(
        &self,
        py: Python<'_>,
        partition: PyRef<'_, crate::query::RowRange>,
        start_time_micros: Option<i64>,
        continuation_tokens: Option<Vec<(PyRef<'_, crate::query::RowRange>, String)>>,
        end_time_micros: Option<i64>,
    ) -> PyResult<crate::change_stream::ChangeStreamIterator> {
        use sparsetable::api::change_stream_reader::{ChangeStreamReader, StreamStart};
        let tokens: Vec<(sparsetable::RowRange, String)> = continuation_tokens
            .unwrap_or_default()
            .iter()
            .map(|(r, t)| (r.to_core(), t.clone()))
            .collect();
        let start = match (start_time_micros, tokens.is_empty()) {
            (Some(_), false) => {
                return Err(to_py_err(
                    py,
                    sparsetable::Error::invalid_argument(
                        "give start_time_micros or continuation_tokens, not both",
                    ),
                ))
            }
            (Some(t), true) => StreamStart::Time(t),
            (None, false) => StreamStart::Tokens(tokens),
            (None, true) => StreamStart::Now,
        };
        let partition = partition.to_core();
        // As the server does: the partition is of the routed cluster's tablets, and the read
        // merges every cluster's log (each change under the cluster it was written at).
        let routed = self.route(py, "ReadChangeStream", sparsetable::RequestKind::Read, b"")?;
        let reader = py
            .detach(|| {
                ChangeStreamReader::open(
                    self.plane.clusters()?,
                    routed.cluster,
                    &self.table_id,
                    partition,
                    start,
                    end_time_micros,
                )
            })
            .map_err(|e| to_py_err(py, e))?;
        Ok(crate::change_stream::ChangeStreamIterator::new(
            reader,
            self.plane.clone(),
        ))
    }

    /// The same rows as an iterator. The engine's view of the table is taken now (later
    /// writes are not seen; an attempt re-issued after a retryable failure takes a new view
    /// for the rows not yet received); rows are then produced as the iterator is advanced, a
    /// small batch at a time with the GIL released, and no database lock is held between
    /// rows, so writers (on any thread) go on while the stream is open. Retries as
    /// `read_rows`.
    #[pyo3(signature = (query, *, retryable_codes = Vec::new(), operation_timeout = None))]
    fn read_rows_stream(
        &self,
        py: Python<'_>,
        query: &Bound<'_, ReadRowsQuery>,
        retryable_codes: Vec<String>,
        operation_timeout: Option<f64>,
    ) -> PyResult<RowIterator> {
        let policy = retry_policy(py, &retryable_codes, operation_timeout)?;
        let read = self.open_read(py, query, policy)?;
        Ok(RowIterator {
            state: Mutex::new(StreamState {
                stream: Some(read),
                ready: VecDeque::new(),
            }),
        })
    }
}

impl Table {
    /// The table's configuration, which mutations are checked against before they are
    /// copied out of their Python objects.
    fn config(&self, py: Python<'_>) -> PyResult<sparsetable::TableConfig> {
        with_db(py, &self.db, |db| Ok(db.get_table(&self.table_id)?.config))
    }

    /// Starts a read: its first attempt is routed and opened now (the engine's view of the
    /// table taken under the read lock, released before this returns), so a bad request
    /// fails here; retryable failures are retried as `policy` says.
    fn open_read(
        &self,
        py: Python<'_>,
        query: &Bound<'_, ReadRowsQuery>,
        policy: RetryPolicy,
    ) -> PyResult<ResumingRead> {
        let request = query.borrow().to_request();
        let mut read = ResumingRead::new(
            self.plane.clone(),
            self.app_profile_id.clone(),
            self.table_id.clone(),
            request,
            policy,
        );
        py.detach(|| read.start()).map_err(|e| to_py_err(py, e))?;
        Ok(read)
    }
}

/// The retry policy of a read from its keywords: gRPC code names and seconds.
fn retry_policy(
    py: Python<'_>,
    codes: &[String],
    operation_timeout: Option<f64>,
) -> PyResult<RetryPolicy> {
    let retryable = codes
        .iter()
        .map(|name| {
            sparsetable::Code::from_name(name).ok_or_else(|| {
                invalid_argument(
                    py,
                    format!("retryable code {name:?} is not a gRPC code name"),
                )
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    let operation_timeout = match operation_timeout {
        None => None,
        Some(s) if s.is_finite() && s > 0.0 => Some(std::time::Duration::from_secs_f64(s)),
        Some(s) => {
            return Err(invalid_argument(
                py,
                format!("operation_timeout must be greater than 0, got {s}"),
            ))
        }
    };
    Ok(RetryPolicy {
        retryable,
        operation_timeout,
    })
}

/// A batch's bounds (the core's `RowStream::next_batch`): 64 rows, enough to amortise handing
/// the GIL back (which can wait a whole switch interval when other threads run Python) and
/// few enough that a batch's memory is small whatever the result's size; 1 MiB of cells, so
/// large rows stay few; and one slice of scanning (16 Ki cells or 1 MiB examined) before the
/// binding takes the GIL back to look for Ctrl-C, so a filter that matches nothing over a
/// large table is interruptible too (the bound the server gives a ReadRows batch).
const BATCH: sparsetable::BatchLimits = sparsetable::BatchLimits::rows(64)
    .with_max_bytes(1 << 20)
    .with_slice(16 * 1024, 1 << 20);

/// The next rows of `read`, and whether it may have more (an empty batch with more: the
/// slice examined only rows the filter dropped; the caller checks for signals and asks
/// again). Or the error that ended the read part-way (a corrupt block: `DataLoss`; a failure
/// its policy does not retry). Runs without the GIL.
fn next_batch(read: &mut ResumingRead) -> sparsetable::Result<(Vec<sparsetable::Row>, bool)> {
    read.next_batch(&BATCH)
}

/// Iterator returned by `Table.read_rows_stream`.
#[pyclass(frozen, module = "sparsetable")]
pub struct RowIterator {
    state: Mutex<StreamState>,
}

struct StreamState {
    /// `None` once the read ended (its view is freed then, not with the iterator).
    stream: Option<ResumingRead>,
    /// Rows fetched and not yet returned.
    ready: VecDeque<sparsetable::Row>,
}

/// What one slow-path step of a stream produced.
enum Step {
    /// A row.
    Row(sparsetable::Row),
    /// Nothing yet: a slice examined rows that the filter dropped; look for signals and ask
    /// again.
    Again,
    /// The stream ended.
    End,
}

impl StreamState {
    fn pop(&mut self) -> sparsetable::Result<Step> {
        if self.ready.is_empty() {
            if let Some(stream) = &mut self.stream {
                let batch = next_batch(stream);
                if batch.is_err() {
                    self.stream = None;
                }
                let (rows, more) = batch?;
                self.ready.extend(rows);
                if !more {
                    self.stream = None;
                } else if self.ready.is_empty() {
                    return Ok(Step::Again);
                }
            }
        }
        Ok(self.ready.pop_front().map_or(Step::End, Step::Row))
    }
}

#[pymethods]
impl RowIterator {
    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<Row>>> {
        // Fast path, with the GIL: a row already fetched. The lock is only tried, never
        // waited for while holding the GIL: a thread inside the slow path below wants the
        // GIL back while it holds the lock.
        if let Ok(mut state) = self.state.try_lock() {
            if let Some(row) = state.ready.pop_front() {
                drop(state);
                return row_to_py(py, row).map(Some);
            }
        }
        // Slow path: fetch the next batch from the engine with the GIL released, slice by
        // slice, looking for Ctrl-C between slices that found nothing.
        loop {
            let next = py
                .detach(|| self.state.lock().map(|mut s| s.pop()).map_err(|_| ()))
                .map_err(|_| poisoned(py))?
                .map_err(|e| to_py_err(py, e))?;
            match next {
                Step::Row(row) => return row_to_py(py, row).map(Some),
                Step::End => return Ok(None),
                Step::Again => py.check_signals()?,
            }
        }
    }
}
