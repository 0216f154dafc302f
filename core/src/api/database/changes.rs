//! The committed changes that leave a database: writes captured for replication (with
//! server time resolved, so another database applies exactly the same cells) and applied
//! from another database, the change logs of tables with a change stream, and the schema
//! epoch a replicated instance watches to keep its copies' schemas in line.
//!
//! On storage, the change records garbage collection makes (a compaction's, at any time) are
//! written to the commit log as records of their own (docs/format/commit_log.md, type 7)
//! before a manifest names the runs the collection left, so a crash before the next
//! checkpoint (which writes the change log file) does not lose them; recovery logs them
//! again in the change streams and deletes their cells again where the runs may still hold
//! them (the manifest it found predates the record), so no later collection records them
//! a second time.
//!
//! Invariants: a captured write is taken once; a write applied from elsewhere is not this
//! database's change (it is neither captured again nor logged in its change streams); a
//! table's garbage-collection records reach the commit log before any later write of that
//! table does, so recovery logs a table's changes in the order they were made (and gives
//! them the same sequences); a record is in the commit log or the change log file at most
//! once after the last checkpoint, and recovery logs only those after the file's
//! `through_sequence`, so opening twice logs nothing twice; a garbage-collection record
//! takes one sequence per cell, so the deletes recovery makes of them never tie with a later
//! write.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{Database, RowMutations};
use crate::durability::commit_log::{BatchView, Origin};
use crate::error::quoted;
use crate::model::mutation::{validate_row_mutations, Mutation};
use crate::table::change_log::ChangeLog;
use crate::{Error, Result};

/// One committed write as the commit log recorded it: a table, its rows' mutations with
/// every server-time SetCell stamped with the server timestamp it was given, and the
/// database clock at the commit. Replaying it on another database with the same tables
/// writes exactly the same cells there (what replication does).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommittedWrite {
    /// The table written.
    pub table_id: String,
    /// Each row's mutations, in commit order, no timestamp left at server time.
    pub rows: Vec<RowMutations>,
    /// The database clock when it committed (microseconds since the epoch).
    pub commit_micros: i64,
    /// The first sequence number of its batch at the database that committed it (0 for a
    /// write built elsewhere): how a replicated instance's queue tells which of a cluster's
    /// writes it has recorded (docs/format/replication_queue.md, `captured-through`).
    pub sequence: u64,
}

impl Database {
    /// A number that changes whenever a table is created, deleted or restored or a table's
    /// families change: a replica compares it to know whether its schema may differ.
    pub fn schema_epoch(&self) -> u64 {
        self.schema_epoch
    }

    /// Whether writes are waiting for [`Database::take_committed`] (checked under a read
    /// lock before taking the write lock).
    pub fn has_committed(&self) -> bool {
        self.committed.as_ref().is_some_and(|c| !c.is_empty())
    }

    /// Enables (`Some(retention)`), changes the retention of, or disables (`None`) a table's
    /// change stream. Enabling starts an empty log: changes before it are not in the stream.
    ///
    /// # Errors
    /// `NotFound` for an unknown table; `InvalidArgument` for a retention outside 1 to 7
    /// days; on storage, the storage's errors keeping the setting (the change log file).
    pub fn set_change_stream(
        &mut self,
        table_id: &str,
        retention_micros: Option<i64>,
    ) -> Result<()> {
        let now = self.now()?;
        let table = self.table_mut(table_id)?;
        match retention_micros {
            None => table.change_log = None,
            Some(r) => match &mut table.change_log {
                Some(log) => log.set_retention(r)?,
                None => table.change_log = Some(ChangeLog::new(r, now)?),
            },
        }
        // On storage the setting (and the log so far) is kept at once, so a restart keeps
        // the stream as it was set.
        self.write_changes()
    }

    /// Appends the garbage-collection records not yet durable (of table `only`, or of every
    /// table) to the commit log, one record per table and commit time, each cell taking the
    /// next database sequence number. Not synced here: a manifest write syncs them first
    /// (`write_manifest`), a write's record after them is synced with them. In memory there
    /// is nothing to do.
    ///
    /// # Errors
    /// The log's errors (the records stay not durable; after an I/O error the checkpoint
    /// that starts a new log writes them to the change log file instead).
    pub(super) fn log_collected(&mut self, only: Option<&str>) -> Result<()> {
        let Some(p) = &mut self.persist else {
            return Ok(());
        };
        for (table_id, table) in &mut self.tables {
            if only.is_some_and(|o| o != table_id) {
                continue;
            }
            let Some(log) = &mut table.change_log else {
                continue;
            };
            if !log.has_unlogged() {
                continue;
            }
            let records = log.unlogged();
            for group in records.chunk_by(|a, b| a.commit_micros == b.commit_micros) {
                let rows: Vec<(&[u8], &[Mutation])> = group
                    .iter()
                    .map(|r| (r.row_key.as_slice(), r.mutations.as_slice()))
                    .collect();
                let commit = group.first().map_or(0, |r| r.commit_micros);
                let sequence = self.sequence + 1;
                // One sequence per cell (record type 7), so that recovery can apply them
                // as deletes without tying with the next record.
                let cells = rows.iter().map(|(_, ms)| ms.len() as u64).sum::<u64>();
                p.log.append_collected(sequence, table_id, &rows, commit)?;
                self.sequence = sequence + cells.saturating_sub(1);
                p.collected_unsynced = true;
            }
            log.clear_unlogged();
        }
        Ok(())
    }

    /// Logs a replayed garbage-collection record (`batch.collected`) in the change logs of
    /// its tables (those that have one), one change record per entry, at the commit time
    /// the record carries. Applies nothing (see [`Database::replay_collected_cells`]).
    pub(super) fn log_replayed_collection(&mut self, batch: &BatchView<'_>) {
        let commit = batch.commit_micros.unwrap_or_default();
        for entry in batch.entries() {
            if let Some(log) = self
                .tables
                .get_mut(entry.table)
                .and_then(|t| t.change_log.as_mut())
            {
                log.push_collected_rows(
                    alloc::vec![(entry.row_key.to_vec(), entry.to_mutations())],
                    commit,
                );
            }
        }
    }

    /// Applies a replayed garbage-collection record of type 7 (`batch.collected`, not
    /// `one_sequence`) as deletes of its cells, each with its own sequence, to the rows
    /// whose tablet's flushed sequence is below the entry's last cell. A manifest written
    /// after the record names the runs its compaction left; if the tablet's flushed mark is
    /// below the record, the manifest recovered may predate it, the collected cells may
    /// still be in the runs, and these deletes remove them as the compaction had (with no
    /// burial of other cells: exactly those), so no later collection records them a second
    /// time. Where the runs no longer hold them a delete removes nothing that was there
    /// before the crash: every later write of the cell has a higher sequence. A table or
    /// family gone since is skipped. The database's sequence becomes at least the last
    /// cell's.
    pub(super) fn replay_collected_cells(&mut self, batch: &BatchView<'_>, now: i64) {
        let mut first = batch.sequence;
        for entry in batch.entries() {
            let n = entry.len() as u64;
            if let Some(table) = self.tables.get_mut(entry.table) {
                let last = first + n.saturating_sub(1);
                if n > 0 && last > table.flushed_sequence(entry.row_key) {
                    table.delete_collected(entry.row_key, entry.mutations(), first, now);
                }
            }
            first += n;
        }
        let last = batch.last_sequence().unwrap_or(batch.sequence);
        self.sequence = self.sequence.max(last);
    }

    /// A table's change log, if its change stream is enabled.
    pub fn change_log(&self, table_id: &str) -> Option<&ChangeLog> {
        self.tables.get(table_id)?.change_log.as_ref()
    }

    /// Starts (`true`) or stops keeping every committed write for
    /// [`Database::take_committed`]. Off by default: keeping costs a copy of each write.
    /// Starting again while on keeps what is waiting; stopping also forgets the outbound
    /// writes ([`Database::outbound`]): nothing will replicate them.
    pub fn set_capture_committed(&mut self, on: bool) {
        if !on {
            self.committed = None;
            self.outbound.clear();
        } else if self.committed.is_none() {
            self.committed = Some(Vec::new());
        }
    }

    /// The writes committed since the last call (oldest first) while capture is on.
    pub fn take_committed(&mut self) -> Vec<CommittedWrite> {
        self.committed
            .as_mut()
            .map(core::mem::take)
            .unwrap_or_default()
    }

    /// Applies writes another database committed (see [`CommittedWrite`]): each row
    /// atomically, validated against this database's schema first. A row this database
    /// cannot take (its table or a family is gone here) is skipped and its error returned
    /// in the list; the others are applied. Nothing applied here is captured again.
    ///
    /// # Errors
    /// Storage errors from the commit log.
    pub fn apply_committed(&mut self, write: &CommittedWrite) -> Result<Vec<Error>> {
        self.apply_from(write, Origin::default())
    }

    /// [`Database::apply_committed`], logging the write (record type 4) as coming from
    /// `origin`; a marking origin raises the database's replication mark for its source in
    /// the same record (see [`Database::replica_marks`]).
    pub(super) fn apply_from(
        &mut self,
        write: &CommittedWrite,
        origin: Origin,
    ) -> Result<Vec<Error>> {
        let mut refused = Vec::new();
        let Ok(table) = self.table(&write.table_id) else {
            refused.push(Error::not_found(format!(
                "table {} is not in this replica",
                quoted(&write.table_id)
            )));
            return Ok(refused);
        };
        let mut rows: Vec<(&[u8], &[Mutation])> = Vec::new();
        for r in &write.rows {
            match validate_row_mutations(&table.config, &r.row_key, &r.mutations) {
                Ok(()) => rows.push((&r.row_key, &r.mutations)),
                Err(e) => refused.push(e),
            }
        }
        let keep = self.committed.take();
        self.replaying = Some(origin);
        let now = self.now();
        let result = now.and_then(|now| self.commit(&write.table_id, &rows, now));
        self.replaying = None;
        self.committed = keep;
        result.map(|()| refused)
    }
}
