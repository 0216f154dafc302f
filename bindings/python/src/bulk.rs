//! Bulk writes that Ctrl-C can stop: `Table.mutate_rows` applies its batch in slices, with
//! the GIL released during each slice and a look for pending signals (Ctrl-C) between them.
//!
//! Invariants: every entry stays atomic (a slice boundary never falls inside an entry), and
//! entries are applied in the order given, so an interrupted call has applied exactly a
//! prefix of the entries. The exception the signal handler raised (`KeyboardInterrupt`)
//! carries that prefix's length as `completed_entries`: entries before that index were each
//! applied (or failed on their own), entries from it on were not applied at all. This is
//! what a user of Google's client can reason about too: `MutateRows` is not atomic across
//! entries, and a cancelled call leaves some entries applied and others not; here the
//! boundary is exact.

use pyo3::prelude::*;
use sparsetable::{Routed, RowMutations};

use crate::convert::with_db_mut;
use crate::errors::to_py_err;

/// Entries one slice applies before the binding takes the GIL back to look for Ctrl-C:
/// milliseconds of engine work, and (in `sync` durability) one fsync shared by them.
const SLICE_ENTRIES: usize = 4096;
/// A slice also ends once its entries hold this many bytes of keys and values.
const SLICE_BYTES: usize = 4 << 20;

/// Entries converted from Python objects between two looks for Ctrl-C while a large list
/// is read (the GIL is held then, so Python's own signal check does not run).
pub const EXTRACT_CHECK_EVERY: usize = 4096;

/// Looks for pending signals while the entries are still being read: nothing was applied.
pub fn check_signals_before_applying(py: Python<'_>) -> PyResult<()> {
    py.check_signals().map_err(|e| with_completed(py, e, 0))
}

/// Applies `batch` to `table_id` on `routed`'s database slice by slice; the engine's result
/// for each entry, in order. On a pending signal between slices, the handler's exception
/// with `completed_entries` set to `input_index(done)`: the index, among the caller's
/// entries, of the first entry not applied.
pub fn mutate_rows_interruptibly(
    py: Python<'_>,
    routed: &Routed,
    table_id: &str,
    batch: &[RowMutations],
    input_index: impl Fn(usize) -> usize,
) -> PyResult<Vec<sparsetable::Result<()>>> {
    let mut results = Vec::with_capacity(batch.len());
    let mut start = 0;
    while start < batch.len() {
        if start > 0 {
            if let Err(e) = py.check_signals() {
                return Err(with_completed(py, e, input_index(start)));
            }
        }
        let end = slice_end(batch, start);
        let slice = &batch[start..end];
        let applied = with_db_mut(py, &routed.db, |db| db.mutate_rows(table_id, slice))?;
        // What the slice committed goes to replication before anything else can fail.
        py.detach(|| routed.after_write())
            .map_err(|e| to_py_err(py, e))?;
        results.extend(applied);
        start = end;
    }
    Ok(results)
}

/// Where the slice starting at `start` ends: after its entry or byte bound, never before
/// taking one entry.
fn slice_end(batch: &[RowMutations], start: usize) -> usize {
    let mut bytes = 0;
    let mut end = start;
    while end < batch.len() && end - start < SLICE_ENTRIES && (end == start || bytes < SLICE_BYTES)
    {
        bytes += batch[end].row_key.len()
            + batch[end]
                .mutations
                .iter()
                .map(mutation_bytes)
                .sum::<usize>();
        end += 1;
    }
    end
}

/// The bytes of a mutation's qualifier and value (what makes a slice's work long).
fn mutation_bytes(m: &sparsetable::Mutation) -> usize {
    use sparsetable::Mutation::*;
    match m {
        SetCell {
            qualifier, value, ..
        } => qualifier.len() + value.len(),
        MergeToCell {
            qualifier, state, ..
        } => qualifier.len() + state.len(),
        AddToCell { qualifier, .. } | DeleteFromColumn { qualifier, .. } => qualifier.len(),
        DeleteFromFamily { .. } | DeleteFromRow => 0,
    }
}

/// `e` with `completed_entries` set (if the exception object takes attributes, as
/// `KeyboardInterrupt` does).
fn with_completed(py: Python<'_>, e: PyErr, completed: usize) -> PyErr {
    let _ = e.value(py).setattr("completed_entries", completed);
    e
}
