//! A ReadRows stream the JVM pulls from: the core's [`sparsetable::RowStream`], which owns
//! its view of the table (taken under the read lock, released before the stream is handed
//! out), behind a mutex so uniffi may share the object between threads.
//!
//! Invariant: the database lock is never held while rows are pulled; writers go on while a
//! reader iterates, and the reader sees the snapshot it opened. Rows cross the FFI a batch at
//! a time (the caller picks the batch size), so a scan of any size costs the JVM at most one
//! batch of memory, and stopping early ([`RowStream::close`]) leaves the rest unread. A pull
//! examines at most one slice of the table, so an interrupted JVM thread notices between pulls.

use std::sync::Mutex;

use crate::error::SparsetableError;
use crate::types::Row;

/// An open ReadRows stream. Closing it (or dropping it) frees its view.
#[derive(Debug, uniffi::Object)]
pub struct RowStream {
    inner: Mutex<Option<sparsetable::RowStream>>,
}

impl RowStream {
    pub(crate) fn new(stream: sparsetable::RowStream) -> Self {
        RowStream {
            inner: Mutex::new(Some(stream)),
        }
    }
}

/// One pull's scanning bound (cells, bytes examined, returned or filtered out) before it
/// returns to the JVM, so a thread interrupted during a scan whose filter drops every row
/// notices within a slice (the bound the server gives a ReadRows batch and the Python
/// binding a slice).
const SLICE: (u64, u64) = (16 * 1024, 1 << 20);

/// What one pull returns: rows, and whether the stream may have more (a pull the slice's scan
/// budget ended may hold no row while `more` is true).
#[derive(Debug, uniffi::Record)]
pub struct RowBatch {
    /// The rows, in order.
    pub rows: Vec<Row>,
    /// False once the stream is exhausted, stopped by its limit, or closed.
    pub more: bool,
}

#[uniffi::export]
impl RowStream {
    /// The next rows, at most `max_rows` (at least one is asked for), and whether more may
    /// follow. A pull examines at most one slice of the table, so it returns to the JVM (which
    /// looks for an interrupt) even when a filter drops every row it reads.
    ///
    /// # Errors
    /// `DATA_LOSS` (or a storage code) if the read failed part-way; `INTERNAL` if a thread
    /// panicked while pulling from this stream.
    pub fn next_batch(&self, max_rows: u32) -> Result<RowBatch, SparsetableError> {
        let mut guard = self
            .inner
            .lock()
            .map_err(|_| crate::error::to_ffi(sparsetable::api::shared::poisoned()))?;
        let Some(stream) = guard.as_mut() else {
            return Ok(RowBatch {
                rows: Vec::new(),
                more: false,
            });
        };
        let limits = sparsetable::BatchLimits::rows(max_rows as usize).with_slice(SLICE.0, SLICE.1);
        // A read that failed part-way (a corrupt block: DATA_LOSS) fails here rather than
        // ending short as if the table ended there.
        let batch = match stream.next_batch(&limits) {
            Ok(batch) => batch,
            Err(e) => {
                *guard = None;
                return Err(crate::error::to_ffi(e));
            }
        };
        let rows: Vec<Row> = batch.rows.into_iter().map(Into::into).collect();
        let more = batch.more;
        if !more {
            // Exhausted: free the view now rather than when the JVM collects the object.
            *guard = None;
        }
        Ok(RowBatch { rows, more })
    }

    /// Stops the stream and frees its view; later batches are empty. Idempotent.
    pub fn cancel(&self) {
        if let Ok(mut guard) = self.inner.lock() {
            *guard = None;
        }
    }
}
