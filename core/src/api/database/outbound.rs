//! Outbound writes: the writes committed at a database whose writes replicate (capture is
//! on, see [`Database::set_capture_committed`]) that the replicated instance's queue has not
//! confirmed recording yet. A crash between a write's commit and the queue file that
//! records it must not leave the write at this cluster only (never acknowledged, but the
//! clusters would disagree forever), so until the queue confirms it
//! ([`Database::confirm_outbound`]) such a write stays durable here:
//! - its own commit log record says it is outbound (type 5, docs/format/commit_log.md),
//!   applied on replay like any write and kept as outbound again;
//! - a checkpoint, which stops naming that log, carries every outbound write into the new
//!   log first (type 6: never applied, the rows are in the runs it wrote);
//! - recovery collects both into [`Database::outbound`], and the instance restoring its
//!   queue records those it lacks (`Replication::restore_queue_with`, by each cluster's
//!   `captured-through` sequence in the queue file).
//!
//! Invariants: an outbound write is kept from its commit until confirmed, in sequence order;
//! a carried record keeps the write's own sequence and commit time, so recovery cannot tell
//! it from the original but for not applying it; nothing here changes a table.

use alloc::vec::Vec;

use super::{CommittedWrite, Database, RowMutations};
use crate::durability::commit_log::{BatchView, LogWriter, Outbound};
use crate::Result;

impl Database {
    /// The writes committed here that replication took (or recovery found) and the queue
    /// has not yet confirmed recording, oldest first.
    pub fn outbound(&self) -> &[CommittedWrite] {
        &self.outbound
    }

    /// As [`Database::take_committed`], and keeps the writes as outbound until
    /// [`Database::confirm_outbound`]: for a caller that keeps its queue on storage and
    /// records them there after this returns.
    pub fn take_committed_held(&mut self) -> Vec<CommittedWrite> {
        let taken = self.take_committed();
        self.outbound.extend(taken.iter().cloned());
        taken
    }

    /// The queue has recorded durably every write committed here up to sequence `through`:
    /// they stop being outbound.
    pub fn confirm_outbound(&mut self, through: u64) {
        self.outbound.retain(|w| w.sequence > through);
    }

    /// Keeps a replayed outbound record (type 5 or 6) as outbound.
    pub(super) fn recover_outbound(&mut self, batch: &BatchView<'_>) {
        let mut rows: Vec<RowMutations> = Vec::new();
        let mut table_id = None;
        for entry in batch.entries() {
            table_id.get_or_insert(entry.table);
            rows.push(RowMutations {
                row_key: entry.row_key.to_vec(),
                mutations: entry.to_mutations(),
            });
        }
        let write = CommittedWrite {
            table_id: table_id.unwrap_or_default().into(),
            rows,
            commit_micros: batch.commit_micros.unwrap_or_default(),
            sequence: batch.sequence,
        };
        // A write carried over more than one checkpoint before a crash is found once per
        // log that holds it: keep it once.
        if !self.outbound.iter().any(|w| w.sequence == write.sequence) {
            let at = self
                .outbound
                .partition_point(|w| w.sequence < write.sequence);
            self.outbound.insert(at, write);
        }
    }

    /// Appends every outbound write (and every captured one replication has not taken yet)
    /// to `log`, a checkpoint's new log, as carried records (type 6) with their own
    /// sequences, oldest first.
    ///
    /// # Errors
    /// The log's errors (the checkpoint then fails and the old log stays named).
    pub(super) fn carry_outbound(&self, log: &mut LogWriter) -> Result<()> {
        let waiting = self.committed.as_deref().unwrap_or_default();
        let mut all: Vec<&CommittedWrite> = self.outbound.iter().chain(waiting).collect();
        all.sort_by_key(|w| w.sequence);
        all.dedup_by_key(|w| w.sequence);
        for w in all {
            let rows: Vec<(&[u8], &[crate::model::mutation::Mutation])> = w
                .rows
                .iter()
                .map(|r| (r.row_key.as_slice(), r.mutations.as_slice()))
                .collect();
            log.append_rows_as(
                w.sequence,
                &w.table_id,
                &rows,
                Some(w.commit_micros),
                None,
                Some(Outbound::Carried),
            )?;
        }
        Ok(())
    }
}
