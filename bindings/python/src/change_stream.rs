//! Change streams for Python: the core's reader (`sparsetable::api::change_stream_reader`)
//! behind `Table.read_change_stream`, its events converted to `ChangeStreamRecord` objects
//! whose mutations are this module's own `SetCell`, `DeleteRangeFromColumn`, ... Every rule
//! (partitions, where a read starts, what a poll returns, tokens, retention) is the core's.
//!
//! Invariant: the database lock is held only inside one poll, with the GIL released.

use std::collections::VecDeque;
use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use sparsetable::api::change_stream_reader::{ChangeStreamReader, StreamEvent};
use sparsetable::Mutation as CoreMutation;

use crate::errors::to_py_err;
use crate::mutations::{
    new_mutation, AddToCell, DeleteAllFromFamily, DeleteAllFromRow, DeleteRangeFromColumn, SetCell,
};
use crate::query::RowRange;

/// What a change stream returns: a committed change of one row (`kind == "mutation"`) or the
/// end of the stream (`kind == "close"`, with continuation tokens and new partitions when the
/// partition changed).
#[pyclass(frozen, module = "sparsetable")]
pub struct ChangeStreamRecord {
    kind: &'static str,
    change_type: &'static str,
    row_key: Vec<u8>,
    source_cluster_id: String,
    commit_timestamp_micros: i64,
    tiebreaker: i32,
    token: String,
    mutations: Vec<Py<PyAny>>,
    continuation_tokens: Vec<(RowRange, String)>,
    new_partitions: Vec<RowRange>,
}

#[pymethods]
impl ChangeStreamRecord {
    /// `"mutation"` or `"close"`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.kind
    }

    /// Who made a mutation record: `"USER"` (a write) or `"GARBAGE_COLLECTION"` (cells a
    /// family's GC rule collected; no source cluster); empty for a close.
    #[getter]
    fn change_type(&self) -> &'static str {
        self.change_type
    }

    /// The row changed (empty for a close).
    #[getter]
    fn row_key<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.row_key)
    }

    /// The cluster that committed the change.
    #[getter]
    fn source_cluster_id(&self) -> &str {
        &self.source_cluster_id
    }

    /// When the change committed (microseconds since the epoch).
    #[getter]
    fn commit_timestamp_micros(&self) -> i64 {
        self.commit_timestamp_micros
    }

    /// Orders changes with the same commit time.
    #[getter]
    fn tiebreaker(&self) -> i32 {
        self.tiebreaker
    }

    /// Resume here (with this stream's partition) to read what follows.
    #[getter]
    fn token(&self) -> &str {
        &self.token
    }

    /// The change's mutations (`SetCell`, `DeleteRangeFromColumn`, `DeleteAllFromFamily`,
    /// `DeleteAllFromRow`, `AddToCell`), in order.
    #[getter]
    fn mutations(&self, py: Python<'_>) -> Vec<Py<PyAny>> {
        self.mutations.iter().map(|m| m.clone_ref(py)).collect()
    }

    /// For a close caused by a split or merge: `(partition, token)` per piece of the old
    /// partition.
    #[getter]
    fn continuation_tokens(&self) -> Vec<(RowRange, String)> {
        self.continuation_tokens.clone()
    }

    /// For a close caused by a split or merge: the partitions that now cover the old one.
    #[getter]
    fn new_partitions(&self) -> Vec<RowRange> {
        self.new_partitions.clone()
    }

    fn __repr__(&self) -> String {
        match self.kind {
            "mutation" => format!(
                "ChangeStreamRecord(kind='mutation', row_key={}, commit_timestamp_micros={}, mutations={})",
                crate::convert::bytes_repr(&self.row_key),
                self.commit_timestamp_micros,
                self.mutations.len()
            ),
            _ => format!(
                "ChangeStreamRecord(kind='close', new_partitions={})",
                self.new_partitions.len()
            ),
        }
    }
}

fn mutation_to_py(py: Python<'_>, m: CoreMutation) -> PyResult<Py<PyAny>> {
    Ok(match &m {
        CoreMutation::SetCell { .. } => Py::new(py, new_mutation(m, SetCell {}))?.into_any(),
        CoreMutation::DeleteFromColumn { .. } => {
            Py::new(py, new_mutation(m, DeleteRangeFromColumn {}))?.into_any()
        }
        CoreMutation::DeleteFromFamily { .. } => {
            Py::new(py, new_mutation(m, DeleteAllFromFamily {}))?.into_any()
        }
        CoreMutation::DeleteFromRow => {
            Py::new(py, new_mutation(m, DeleteAllFromRow {}))?.into_any()
        }
        CoreMutation::AddToCell { .. } => Py::new(py, new_mutation(m, AddToCell {}))?.into_any(),
        _ => Py::new(py, crate::mutations::Mutation { inner: m })?.into_any(),
    })
}

/// An open read of one change stream partition: iterating returns the changes committed
/// since it opened (in commit order) and ends after the close record (at the end time or
/// when the partition changed); `poll()` returns what is there now without waiting.
#[pyclass(frozen, module = "sparsetable")]
pub struct ChangeStreamIterator {
    reader: Mutex<Option<ChangeStreamReader>>,
    /// The instance's data plane: each fetch first delivers the replicated writes that are
    /// due, so a change made at another cluster shows once the lag has passed.
    plane: std::sync::Arc<sparsetable::InstanceData>,
    ready: Mutex<VecDeque<StreamEvent>>,
}

impl ChangeStreamIterator {
    pub(crate) fn new(
        reader: ChangeStreamReader,
        plane: std::sync::Arc<sparsetable::InstanceData>,
    ) -> Self {
        ChangeStreamIterator {
            reader: Mutex::new(Some(reader)),
            plane,
            ready: Mutex::new(VecDeque::new()),
        }
    }

    fn fetch(&self, py: Python<'_>) -> PyResult<()> {
        let events = py.detach(|| -> sparsetable::Result<Vec<StreamEvent>> {
            self.plane.pump()?;
            let mut guard = self
                .reader
                .lock()
                .map_err(|_| sparsetable::api::shared::poisoned())?;
            let Some(reader) = guard.as_mut() else {
                return Ok(Vec::new());
            };
            let events = reader.poll()?;
            if matches!(events.last(), Some(StreamEvent::Close { .. })) {
                *guard = None;
            }
            Ok(events)
        });
        let events = events.map_err(|e| to_py_err(py, e))?;
        self.ready
            .lock()
            .map_err(|_| to_py_err(py, sparsetable::api::shared::poisoned()))?
            .extend(events);
        Ok(())
    }

    fn finished(&self) -> bool {
        self.reader.lock().map(|g| g.is_none()).unwrap_or(true)
    }

    fn pop(&self, py: Python<'_>) -> PyResult<Option<StreamEvent>> {
        Ok(self
            .ready
            .lock()
            .map_err(|_| to_py_err(py, sparsetable::api::shared::poisoned()))?
            .pop_front())
    }
}

fn event_to_py(py: Python<'_>, e: StreamEvent) -> PyResult<ChangeStreamRecord> {
    Ok(match e {
        StreamEvent::Change {
            record,
            source_cluster_id,
            tiebreaker,
            token,
        } => ChangeStreamRecord {
            kind: "mutation",
            change_type: match record.kind {
                sparsetable::ChangeKind::User => "USER",
                sparsetable::ChangeKind::GarbageCollection => "GARBAGE_COLLECTION",
            },
            row_key: record.row_key,
            source_cluster_id,
            commit_timestamp_micros: record.commit_micros,
            tiebreaker,
            token,
            mutations: record
                .mutations
                .into_iter()
                .map(|m| mutation_to_py(py, m))
                .collect::<PyResult<_>>()?,
            continuation_tokens: Vec::new(),
            new_partitions: Vec::new(),
        },
        StreamEvent::Close {
            continuation_tokens,
            new_partitions,
        } => ChangeStreamRecord {
            kind: "close",
            change_type: "",
            row_key: Vec::new(),
            source_cluster_id: String::new(),
            commit_timestamp_micros: 0,
            tiebreaker: 0,
            token: String::new(),
            mutations: Vec::new(),
            continuation_tokens: continuation_tokens
                .into_iter()
                .map(|(r, t)| (RowRange::from_core(&r), t))
                .collect(),
            new_partitions: new_partitions.iter().map(RowRange::from_core).collect(),
        },
    })
}

#[pymethods]
impl ChangeStreamIterator {
    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<ChangeStreamRecord>> {
        loop {
            if let Some(e) = self.pop(py)? {
                return event_to_py(py, e).map(Some);
            }
            if self.finished() {
                return Ok(None);
            }
            self.fetch(py)?;
            if self.ready.lock().map(|r| r.is_empty()).unwrap_or(true) && !self.finished() {
                // Nothing new: wait a little without the GIL, and let Ctrl-C through.
                py.detach(|| std::thread::sleep(std::time::Duration::from_millis(5)));
                py.check_signals()?;
            }
        }
    }

    /// The records available now (an empty list if nothing is new, or after the end).
    fn poll(&self, py: Python<'_>) -> PyResult<Vec<ChangeStreamRecord>> {
        self.fetch(py)?;
        let mut out = Vec::new();
        while let Some(e) = self.pop(py)? {
            out.push(event_to_py(py, e)?);
        }
        Ok(out)
    }

    /// Where the read is: a token for this stream's partition.
    fn token(&self) -> String {
        self.reader
            .lock()
            .ok()
            .and_then(|g| g.as_ref().map(|r| r.token()))
            .unwrap_or_default()
    }

    /// Stops the read; iteration ends.
    fn cancel(&self) {
        if let Ok(mut g) = self.reader.lock() {
            *g = None;
        }
        if let Ok(mut r) = self.ready.lock() {
            r.clear();
        }
    }
}
