//! The commit log (write-ahead log): every write batch is appended here, and synced, before
//! it is applied, so that recovery can replay what the memtables lost in a crash.
//!
//! A log file is a sequence of records, one [`WriteBatch`] each; a batch is atomic (it is in
//! one record, whole or not at all). The format is specified in docs/format/commit_log.md:
//! a 9-byte header (crc32c, payload length, record type) followed by the payload.
//!
//! Invariants:
//! - the sequence numbers of a log's batches strictly increase; [`LogWriter`] refuses a batch
//!   that would break this and [`LogReader`] reports `DataLoss` if a file does;
//! - a crash can only damage the end of a log (the bytes appended after the last sync). So the
//!   reader treats a damaged record with nothing valid after it as a torn tail: it stops there
//!   and reports [`ReplayEnd::TornTail`] with the length of the valid prefix. A damaged record
//!   followed by a valid one is corruption of acknowledged data: `DataLoss`, never skipped;
//! - the reader never panics and never allocates more than the file's own length.
//!
//! The storage interface cannot truncate, so after a torn tail the engine starts a new log
//! file rather than appending to the damaged one (appending would turn the torn tail into
//! corruption in the middle of the log).

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::codec::encoding::{
    put_bytes, put_len, put_str, put_varint64, put_varint_i64, Decode, Decoder, Encode, CRC32C,
};
use crate::model::mutation::Mutation;
use crate::platform::storage::WritableFile;
use crate::{Code, Error, Result};

/// Bytes in a record header: crc32c (4), payload length (4), record type (1).
pub const HEADER_LEN: usize = 9;

/// Record type of a version-1 write batch. Reaches disk: never renumber. Type 0 is invalid
/// (zero-filled space is never a record).
pub const RECORD_TYPE_BATCH: u8 = 1;

/// Record type of a write batch with its commit time (a zigzag varint of microseconds)
/// before it: written for tables with a change stream, so recovery logs the change with the
/// time it was committed. Reaches disk: never renumber.
pub const RECORD_TYPE_TIMED_BATCH: u8 = 2;

/// Record type of the changes garbage collection made to tables with a change stream, in
/// the form engines before [`RECORD_TYPE_COLLECTED_CELLS`] wrote: the commit time, then a
/// write batch whose entries are the collected cells (one DeleteFromColumn of `[ts, ts + 1)`
/// each), all sharing the record's one sequence. Still read (an older engine's log replays),
/// never written: recovery logs them in the change streams as GARBAGE_COLLECTION records and
/// never applies them to the tables (with one sequence for many cells, applying them could
/// tie with the next record's). Reaches disk: never renumber.
pub const RECORD_TYPE_COLLECTED: u8 = 3;

/// Record type of a write another cluster of a replicated instance committed, applied here
/// by replication: the local commit time, the [`Origin`] (the source cluster and the
/// write's arrival number in the replication queue, or an empty source and 0 for a write
/// applied again or a table copy), then a write batch. Applied on replay like type 1, never
/// logged in this database's change streams (the change is the source cluster's), and its
/// origin becomes the database's replication mark for that source, atomically with the
/// write (docs/format/commit_log.md, type 4). Reaches disk: never renumber.
pub const RECORD_TYPE_REPLICATED: u8 = 4;

/// Record type of a write committed here while the database's writes replicate (it
/// captures them for a replicated instance's queue): type 2's layout, applied on replay as
/// type 2 is, and also kept as outbound (see [`Outbound`]) until the replication queue has
/// recorded it. Reaches disk: never renumber.
pub const RECORD_TYPE_CAPTURED: u8 = 5;

/// Record type of an outbound write carried over a checkpoint: type 2's layout, with the
/// write's own sequence; never applied (its rows are in the runs the checkpoint wrote), only
/// kept as outbound again on replay. Reaches disk: never renumber.
pub const RECORD_TYPE_CARRIED: u8 = 6;

/// Record type of the changes garbage collection made to tables with a change stream, one
/// sequence per collected cell: type 3's layout, but every mutation must be a
/// DeleteFromColumn of one timestamp (`[ts, ts + 1)`), and the record takes one sequence per
/// mutation, `sequence` for the first and counting up in entry and mutation order (the
/// numbering a write batch's mutations get), so the next record's sequence is above the
/// last. Recovery logs them in the change streams, and applies each entry's deletes to a
/// tablet whose flushed sequence is below them: then no manifest written after the record
/// was read, the collected cells may still be in the runs it names, and the deletes remove
/// them so that the next collection does not record them again. Reaches disk: never
/// renumber.
pub const RECORD_TYPE_COLLECTED_CELLS: u8 = 7;

/// A record that holds a write on its way to the replication queue (record types 5 and 6,
/// which always have a commit time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outbound {
    /// Type 5: a write committed here; applied on replay.
    Captured,
    /// Type 6: a write a checkpoint carried over; never applied.
    Carried,
}

/// Largest payload a record can hold (its length field is a u32).
pub const MAX_PAYLOAD_LEN: usize = u32::MAX as usize;

/// One row's mutations within a batch: applied atomically, in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BatchEntry {
    /// The table id.
    pub table: String,
    /// The row the mutations change.
    pub row_key: Vec<u8>,
    /// The mutations, in order.
    pub mutations: Vec<Mutation>,
}

/// One atomic write: the unit of the commit log (one record each).
///
/// A batch may hold several rows' mutations (group commit); each row's list is atomic and the
/// whole batch is durable, or not, as one.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WriteBatch {
    /// The first sequence number of the batch; strictly greater than the previous batch's in
    /// the same log.
    pub sequence: u64,
    /// The rows written, in the order they are applied.
    pub entries: Vec<BatchEntry>,
    /// When the batch committed (microseconds, the engine clock), if its record says so
    /// (record type [`RECORD_TYPE_TIMED_BATCH`]); not part of the batch's own encoding.
    pub commit_micros: Option<i64>,
    /// Whether the entries are cells garbage collection removed, for the change streams only
    /// (record types [`RECORD_TYPE_COLLECTED_CELLS`] and [`RECORD_TYPE_COLLECTED`], which
    /// always have a commit time), rather than a write.
    pub collected: bool,
    /// For garbage collection's changes: whether all the cells share the record's one
    /// sequence (the older record type [`RECORD_TYPE_COLLECTED`], only read, never applied)
    /// rather than taking one each (type [`RECORD_TYPE_COLLECTED_CELLS`], what the engine
    /// writes). Always false for other records.
    pub one_sequence: bool,
    /// For a write applied from another cluster (record type [`RECORD_TYPE_REPLICATED`],
    /// which always has a commit time): where it came from.
    pub origin: Option<Origin>,
    /// For a write on its way to the replication queue (record types
    /// [`RECORD_TYPE_CAPTURED`] and [`RECORD_TYPE_CARRIED`], which always have a commit
    /// time): which of the two.
    pub outbound: Option<Outbound>,
}

/// Where a write applied by replication came from (record type [`RECORD_TYPE_REPLICATED`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Origin {
    /// The id of the cluster that committed it; empty for a write that marks no delivery
    /// (a later write applied again after a late one, a table copied whole).
    pub source: String,
    /// Its arrival number in the replication queue (docs/format/replication_queue.md); 0
    /// with an empty source.
    pub arrival: u64,
}

impl Origin {
    /// Whether this origin names a delivery (a source and an arrival number).
    pub fn is_mark(&self) -> bool {
        self.arrival != 0
    }
}

impl Encode for WriteBatch {
    /// `sequence` (varint), entry count (varint), then per entry: table (string), row key
    /// (bytes), mutation count (varint) and the mutations.
    fn encode_to(&self, out: &mut Vec<u8>) {
        put_batch(
            out,
            self.sequence,
            self.entries.iter().map(|e| {
                (
                    e.table.as_str(),
                    e.row_key.as_slice(),
                    e.mutations.as_slice(),
                )
            }),
        );
    }
}

/// The one encoding of a write batch's payload, from borrowed parts: a [`WriteBatch`]'s,
/// and the commit path's, which never builds one (a large value is not copied into it).
fn put_batch<'a>(
    out: &mut Vec<u8>,
    sequence: u64,
    entries: impl ExactSizeIterator<Item = (&'a str, &'a [u8], &'a [Mutation])>,
) {
    put_varint64(out, sequence);
    put_len(out, entries.len());
    for (table, row_key, mutations) in entries {
        put_str(out, table);
        put_bytes(out, row_key);
        put_len(out, mutations.len());
        for m in mutations {
            m.encode_to(out);
        }
    }
}

/// Slightly more than the bytes `m` encodes to, so a record is allocated once.
fn size_hint(m: &Mutation) -> usize {
    let (family, qualifier, bytes) = match m {
        Mutation::SetCell {
            family,
            qualifier,
            value,
            ..
        } => (family.len(), qualifier.len(), value.len()),
        Mutation::MergeToCell {
            family,
            qualifier,
            state,
            ..
        } => (family.len(), qualifier.len(), state.len()),
        Mutation::AddToCell {
            family, qualifier, ..
        }
        | Mutation::DeleteFromColumn {
            family, qualifier, ..
        } => (family.len(), qualifier.len(), 0),
        Mutation::DeleteFromFamily { family } => (family.len(), 0, 0),
        Mutation::DeleteFromRow => (0, 0, 0),
    };
    // Tag, three length varints, two timestamps or an input: at most 1 + 3 * 10 + 2 * 10.
    family + qualifier + bytes + 51
}

impl Decode for WriteBatch {
    /// Through [`BatchView`], the one decoder of the encoding (what replay validates with).
    fn decode_from(d: &mut Decoder<'_>) -> Result<Self> {
        BatchView::decode_from(d, None, &mut Vec::new()).map(|b| b.to_batch())
    }
}

/// Frames a payload as one record: header, then payload.
#[cfg(test)]
fn frame(record_type: u8, payload: &[u8]) -> Result<Vec<u8>> {
    framed(record_type, payload.len(), |out| {
        out.extend_from_slice(payload)
    })
}

/// One record whose payload `write` appends (about `hint` bytes): the payload is encoded
/// straight into the record, never into a buffer of its own that is then copied.
fn framed(record_type: u8, hint: usize, write: impl FnOnce(&mut Vec<u8>)) -> Result<Vec<u8>> {
    let mut record = Vec::with_capacity(HEADER_LEN.saturating_add(hint));
    record.extend_from_slice(&[0; HEADER_LEN]);
    write(&mut record);
    let payload_len = record.len() - HEADER_LEN;
    let len = u32::try_from(payload_len).map_err(|_| {
        Error::invalid_argument(format!(
            "write batch of {payload_len} bytes exceeds the commit log's record limit of {MAX_PAYLOAD_LEN} bytes"
        ))
    })?;
    record[4..8].copy_from_slice(&len.to_le_bytes());
    record[8] = record_type;
    let crc = CRC32C.checksum(record.get(4..).unwrap_or_default());
    record[..4].copy_from_slice(&crc.to_le_bytes());
    Ok(record)
}

/// The complete record (header and payload) of a batch, exactly as [`LogWriter::append`]
/// writes it.
///
/// # Errors
/// `InvalidArgument` if the encoded batch exceeds [`MAX_PAYLOAD_LEN`].
pub fn encode_record(batch: &WriteBatch) -> Result<Vec<u8>> {
    let hint = batch
        .entries
        .iter()
        .map(|e| {
            e.table.len() + e.row_key.len() + 30 + e.mutations.iter().map(size_hint).sum::<usize>()
        })
        .sum::<usize>()
        + 20;
    if batch.one_sequence && !batch.collected {
        return Err(Error::invalid_argument(
            "only a garbage collection record can share one sequence among its cells",
        ));
    }
    if batch.collected && !batch.one_sequence {
        collected_cells(batch.entries.iter().map(|e| e.mutations.as_slice()))?;
    }
    if let Some(kind) = batch.outbound {
        let Some(t) = batch
            .commit_micros
            .filter(|_| !batch.collected && batch.origin.is_none())
        else {
            return Err(Error::invalid_argument(
                "an outbound write's record has a commit time and is nothing else",
            ));
        };
        return framed(outbound_type(kind), hint + 10, |out| {
            put_varint_i64(out, t);
            batch.encode_to(out);
        });
    }
    match (batch.commit_micros, batch.collected, &batch.origin) {
        (Some(t), false, Some(origin)) => framed(RECORD_TYPE_REPLICATED, hint + 30, |out| {
            put_varint_i64(out, t);
            put_origin(out, origin);
            batch.encode_to(out);
        }),
        (_, true, Some(_)) => Err(Error::invalid_argument(
            "a garbage collection record has no origin",
        )),
        (None, _, Some(_)) => Err(Error::invalid_argument(
            "a replicated write's record needs its commit time",
        )),
        (None, false, None) => framed(RECORD_TYPE_BATCH, hint, |out| batch.encode_to(out)),
        (Some(t), collected, None) => framed(
            match (collected, batch.one_sequence) {
                (false, _) => RECORD_TYPE_TIMED_BATCH,
                (true, false) => RECORD_TYPE_COLLECTED_CELLS,
                (true, true) => RECORD_TYPE_COLLECTED,
            },
            hint + 10,
            |out| {
                put_varint_i64(out, t);
                batch.encode_to(out);
            },
        ),
        (None, true, None) => Err(Error::invalid_argument(
            "a garbage collection record needs its commit time",
        )),
    }
}

/// The number of cells a garbage collection record of type [`RECORD_TYPE_COLLECTED_CELLS`]
/// with these entries' mutations names, each of which must be a DeleteFromColumn of one
/// timestamp (`[ts, ts + 1)`, the end saturating at `i64::MAX` as the compaction writes it):
/// the sequences the record takes.
///
/// # Errors
/// `InvalidArgument` naming the first other mutation.
fn collected_cells<'a>(entries: impl Iterator<Item = &'a [Mutation]>) -> Result<u64> {
    let mut cells = 0u64;
    for m in entries.flatten() {
        match m {
            Mutation::DeleteFromColumn { time_range, .. }
                if time_range.end_micros == Some(time_range.start_micros.saturating_add(1)) =>
            {
                cells += 1;
            }
            other => {
                return Err(Error::invalid_argument(format!(
                    "a garbage collection record names cells, one DeleteFromColumn of one \
                     timestamp each, not {other:?}"
                )))
            }
        }
    }
    Ok(cells)
}

/// The last sequence a record takes: a garbage collection record of type
/// [`RECORD_TYPE_COLLECTED_CELLS`] one per cell from its `sequence` on (at least its own),
/// every other record its `sequence` (how many a write batch's mutations take is the
/// engine's business).
///
/// # Errors
/// `InvalidArgument` if the cells' sequences pass `u64::MAX`.
fn last_sequence_of(sequence: u64, cells: Option<u64>) -> Result<u64> {
    match cells {
        None => Ok(sequence),
        Some(n) => sequence
            .checked_add(n.saturating_sub(1))
            .ok_or_else(|| Error::invalid_argument("a record's cell sequences pass 2^64 - 1")),
    }
}

/// The record type of an outbound write.
fn outbound_type(kind: Outbound) -> u8 {
    match kind {
        Outbound::Captured => RECORD_TYPE_CAPTURED,
        Outbound::Carried => RECORD_TYPE_CARRIED,
    }
}

/// An [`Origin`]'s encoding in a type 4 record: the source id (string), the arrival
/// (varint).
fn put_origin(out: &mut Vec<u8>, origin: &Origin) {
    put_str(out, &origin.source);
    put_varint64(out, origin.arrival);
}

/// The record of the batch `sequence` that writes `rows` of table `table`: the bytes
/// [`encode_record`] gives for the equivalent [`WriteBatch`], without building one.
///
/// # Errors
/// As [`encode_record`].
pub fn encode_rows_record(
    sequence: u64,
    table: &str,
    rows: &[(&[u8], &[Mutation])],
    commit_micros: Option<i64>,
) -> Result<Vec<u8>> {
    encode_rows_record_from(sequence, table, rows, commit_micros, None)
}

/// As [`encode_rows_record`], for a write applied from another cluster when `origin` is
/// given (record type [`RECORD_TYPE_REPLICATED`], which needs `commit_micros`).
///
/// # Errors
/// As [`encode_record`].
pub fn encode_rows_record_from(
    sequence: u64,
    table: &str,
    rows: &[(&[u8], &[Mutation])],
    commit_micros: Option<i64>,
    origin: Option<&Origin>,
) -> Result<Vec<u8>> {
    encode_rows_record_as(sequence, table, rows, commit_micros, origin, None)
}

/// As [`encode_rows_record_from`], for an outbound write when `outbound` is given (record
/// type 5 or 6, which needs `commit_micros` and no origin).
///
/// # Errors
/// As [`encode_record`]; `InvalidArgument` for an outbound write with an origin or without
/// a commit time.
pub fn encode_rows_record_as(
    sequence: u64,
    table: &str,
    rows: &[(&[u8], &[Mutation])],
    commit_micros: Option<i64>,
    origin: Option<&Origin>,
    outbound: Option<Outbound>,
) -> Result<Vec<u8>> {
    let hint = rows
        .iter()
        .map(|(k, ms)| table.len() + k.len() + 30 + ms.iter().map(size_hint).sum::<usize>())
        .sum::<usize>()
        + 20;
    let record_type = match (commit_micros, origin, outbound) {
        (None, None, None) => RECORD_TYPE_BATCH,
        (Some(_), None, None) => RECORD_TYPE_TIMED_BATCH,
        (Some(_), Some(_), None) => RECORD_TYPE_REPLICATED,
        (Some(_), None, Some(kind)) => outbound_type(kind),
        (None, Some(_), _) => {
            return Err(Error::invalid_argument(
                "a replicated write's record needs its commit time",
            ))
        }
        (_, _, Some(_)) => {
            return Err(Error::invalid_argument(
                "an outbound write's record has a commit time and no origin",
            ))
        }
    };
    let origin_hint = origin.map_or(0, |o| o.source.len() + 20);
    framed(record_type, hint + 10 + origin_hint, |out| {
        if let Some(t) = commit_micros {
            put_varint_i64(out, t);
        }
        if let Some(o) = origin {
            put_origin(out, o);
        }
        put_batch(out, sequence, rows.iter().map(|&(k, ms)| (table, k, ms)))
    })
}

/// The record [`LogWriter::append_collected`] writes (type [`RECORD_TYPE_COLLECTED_CELLS`]):
/// the bytes [`encode_record`] gives for the equivalent [`WriteBatch`] with `collected` set.
///
/// # Errors
/// As [`encode_record`]; `InvalidArgument` if a mutation is not a DeleteFromColumn of one
/// timestamp.
pub fn encode_collected_record(
    sequence: u64,
    table: &str,
    rows: &[(&[u8], &[Mutation])],
    commit_micros: i64,
) -> Result<Vec<u8>> {
    collected_cells(rows.iter().map(|&(_, ms)| ms))?;
    let hint = rows
        .iter()
        .map(|(k, ms)| table.len() + k.len() + 30 + ms.iter().map(size_hint).sum::<usize>())
        .sum::<usize>()
        + 30;
    framed(RECORD_TYPE_COLLECTED_CELLS, hint, |out| {
        put_varint_i64(out, commit_micros);
        put_batch(out, sequence, rows.iter().map(|&(k, ms)| (table, k, ms)))
    })
}

/// Appends batches to one log file.
///
/// After any I/O error (append or sync) the writer refuses further work: the file may end in
/// a partial record, and appending after it would make that partial record look like
/// corruption in the middle of the log. The engine then starts a new log file (and, by a
/// checkpoint, stops naming this one, so a record whose append or sync failed is never
/// replayed).
pub struct LogWriter {
    file: Box<dyn WritableFile>,
    last_sequence: Option<u64>,
    failed: bool,
}

impl core::fmt::Debug for LogWriter {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LogWriter")
            .field("len", &self.file.len())
            .field("last_sequence", &self.last_sequence)
            .field("failed", &self.failed)
            .finish()
    }
}

impl LogWriter {
    /// A writer appending to `file` (normally a newly created, empty file).
    pub fn new(file: Box<dyn WritableFile>) -> Self {
        LogWriter {
            file,
            last_sequence: None,
            failed: false,
        }
    }

    /// Appends one batch as one record and returns the bytes written. The record is durable
    /// only after [`LogWriter::sync`].
    ///
    /// # Errors
    /// `InvalidArgument` if the batch's sequence is not greater than the previous batch's or
    /// the batch is too large; `Unavailable` if an earlier I/O error broke the writer; the
    /// file's error (`Unavailable`) if the append fails.
    pub fn append(&mut self, batch: &WriteBatch) -> Result<u64> {
        self.check_sequence(batch.sequence)?;
        let cells = (batch.collected && !batch.one_sequence)
            .then(|| collected_cells(batch.entries.iter().map(|e| e.mutations.as_slice())))
            .transpose()?;
        let last = last_sequence_of(batch.sequence, cells)?;
        self.append_record(last, &encode_record(batch)?)
    }

    /// As [`LogWriter::append`] for the batch `sequence` writing `rows` of `table`, encoded
    /// from the borrowed rows ([`encode_rows_record`]): the commit path's, which copies a
    /// value once, into the record.
    ///
    /// # Errors
    /// As [`LogWriter::append`].
    pub fn append_rows(
        &mut self,
        sequence: u64,
        table: &str,
        rows: &[(&[u8], &[Mutation])],
        commit_micros: Option<i64>,
    ) -> Result<u64> {
        self.append_rows_from(sequence, table, rows, commit_micros, None)
    }

    /// As [`LogWriter::append_rows`], for a write applied from another cluster when
    /// `origin` is given ([`encode_rows_record_from`]).
    ///
    /// # Errors
    /// As [`LogWriter::append`]; `InvalidArgument` for an origin without a commit time.
    pub fn append_rows_from(
        &mut self,
        sequence: u64,
        table: &str,
        rows: &[(&[u8], &[Mutation])],
        commit_micros: Option<i64>,
        origin: Option<&Origin>,
    ) -> Result<u64> {
        self.append_rows_as(sequence, table, rows, commit_micros, origin, None)
    }

    /// As [`LogWriter::append_rows_from`], for an outbound write when `outbound` is given
    /// ([`encode_rows_record_as`]).
    ///
    /// # Errors
    /// As [`encode_rows_record_as`] and [`LogWriter::append`].
    pub fn append_rows_as(
        &mut self,
        sequence: u64,
        table: &str,
        rows: &[(&[u8], &[Mutation])],
        commit_micros: Option<i64>,
        origin: Option<&Origin>,
        outbound: Option<Outbound>,
    ) -> Result<u64> {
        self.check_sequence(sequence)?;
        self.append_record(
            sequence,
            &encode_rows_record_as(sequence, table, rows, commit_micros, origin, outbound)?,
        )
    }

    /// Appends the record (type [`RECORD_TYPE_COLLECTED_CELLS`]) of the cells garbage
    /// collection removed from `table` at `commit_micros`, `rows` in row order, the first
    /// cell taking `sequence` and each next one the next: the next record's sequence must
    /// be above the last. Durable only after [`LogWriter::sync`].
    ///
    /// # Errors
    /// As [`LogWriter::append`]; `InvalidArgument` if a mutation is not a DeleteFromColumn
    /// of one timestamp.
    pub fn append_collected(
        &mut self,
        sequence: u64,
        table: &str,
        rows: &[(&[u8], &[Mutation])],
        commit_micros: i64,
    ) -> Result<u64> {
        self.check_sequence(sequence)?;
        let cells = collected_cells(rows.iter().map(|&(_, ms)| ms))?;
        let last = last_sequence_of(sequence, Some(cells))?;
        self.append_record(
            last,
            &encode_collected_record(sequence, table, rows, commit_micros)?,
        )
    }

    fn check_sequence(&self, sequence: u64) -> Result<()> {
        self.check_usable()?;
        match self.last_sequence {
            Some(last) if sequence <= last => Err(Error::invalid_argument(format!(
                "write batch sequence {sequence} is not greater than the previous record's last sequence {last}"
            ))),
            _ => Ok(()),
        }
    }

    /// Appends `record`, whose last sequence is `last`.
    fn append_record(&mut self, last: u64, record: &[u8]) -> Result<u64> {
        if let Err(e) = self.file.append(record) {
            self.failed = true;
            return Err(e);
        }
        self.last_sequence = Some(last);
        Ok(record.len() as u64)
    }

    /// Makes every appended record durable.
    ///
    /// # Errors
    /// `Unavailable` if an earlier I/O error broke the writer; the file's error if the sync
    /// fails (after which the writer is broken: what reached the disk is unknown).
    pub fn sync(&mut self) -> Result<()> {
        self.check_usable()?;
        self.file.sync().inspect_err(|_| self.failed = true)
    }

    /// The log file's length in bytes.
    pub fn len(&self) -> u64 {
        self.file.len()
    }

    /// Whether nothing was written to the file yet.
    pub fn is_empty(&self) -> bool {
        self.file.is_empty()
    }

    /// Whether an I/O error broke the writer (see the type's documentation).
    pub fn is_failed(&self) -> bool {
        self.failed
    }

    /// Breaks the writer: a sync of its file failed through a [`crate::platform::storage::Syncer`]
    /// (group commit), so what the file holds is unknown.
    pub fn mark_failed(&mut self) {
        self.failed = true;
    }

    fn check_usable(&self) -> Result<()> {
        if self.failed {
            // `Unavailable`, not a precondition: the engine starts a new log file and the
            // caller's retry goes there.
            Err(Error::new(
                Code::Unavailable,
                "commit log writer failed earlier; start a new log file",
            ))
        } else {
            Ok(())
        }
    }
}

mod reader;
pub use reader::{replay, replay_views, BatchView, EntrySpan, EntryView, LogReader, ReplayEnd};

#[cfg(test)]
mod tests;
