//! Reading a commit log: [`LogReader`] walks a log file's records in order, checks each
//! one's checksum and decodes its write batch, and tells a torn tail (the crash's damage, at
//! the end) from corruption of acknowledged data (anything valid after the damage:
//! `DataLoss`). docs/format/commit_log.md, "Reading, and what a reader does on damage", is
//! the rule it implements.
//!
//! Recovery reads logs of hundreds of megabytes, most of whose rows the runs already hold,
//! so the reader is built for that:
//! - it reads the file in large chunks into one reused buffer ([`READ_CHUNK`] bytes a call,
//!   or one record if that is larger; `RandomAccessFile::read_at_into`), not two reads and
//!   two allocations per record;
//! - a record decodes into a [`BatchView`] that borrows the buffer: the whole payload is
//!   validated (every field, canonical encodings, exact length) without an allocation, and
//!   the caller copies out only the rows it applies ([`EntryView::to_mutations`]).
//!
//! Invariants: the reader never panics and never asks for more bytes than the file holds (a
//! chunk is at most what remains of the file); a batch is validated whole before it is
//! returned, so a caller never sees half of a malformed batch; the owned API
//! ([`LogReader`] as an iterator of [`WriteBatch`], [`replay`]) converts the same views, so
//! both accept and reject exactly the same files.

use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

use super::{
    BatchEntry, Origin, Outbound, WriteBatch, HEADER_LEN, RECORD_TYPE_BATCH, RECORD_TYPE_CAPTURED,
    RECORD_TYPE_CARRIED, RECORD_TYPE_COLLECTED, RECORD_TYPE_COLLECTED_CELLS,
    RECORD_TYPE_REPLICATED, RECORD_TYPE_TIMED_BATCH,
};
use crate::codec::encoding::{data_loss, Decoder, CRC32C};
use crate::codec::values::MutationRef;
use crate::model::mutation::Mutation;
use crate::platform::storage::RandomAccessFile;
use crate::{Code, Error, Result};

/// Bytes asked of the file per read while records are smaller than this: a few hundred
/// system calls for a 256 MB log instead of two per record, and one buffer's worth of
/// memory at a time.
pub const READ_CHUNK: usize = 4 << 20;

/// How a replayed log ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplayEnd {
    /// The file ended exactly after its last record.
    Clean,
    /// The file ends in a damaged record that nothing valid follows (a write torn by a
    /// crash); it was discarded. The first `valid_bytes` bytes hold every complete record.
    TornTail {
        /// The length of the valid prefix of the file.
        valid_bytes: u64,
    },
}

/// One write batch as its record holds it: validated whole, its rows still encoded in the
/// reader's buffer. [`BatchView::entries`] walks them; [`BatchView::to_batch`] copies it out.
#[derive(Debug, Clone, Copy)]
pub struct BatchView<'a> {
    /// The first sequence number of the batch.
    pub sequence: u64,
    /// When the batch committed, for a timed record (and always for a collected one).
    pub commit_micros: Option<i64>,
    /// Whether the entries are cells garbage collection removed (record types 7 and 3):
    /// logged in the change streams; type 7's applied as deletes where the runs may still
    /// hold them.
    pub collected: bool,
    /// For garbage collection's cells: whether they share the record's one sequence (the
    /// older type 3, never applied) rather than taking one each from `sequence` on (type 7).
    pub one_sequence: bool,
    /// For a write applied from another cluster (record type 4): its source cluster's id
    /// (empty when it marks no delivery) and its arrival number in the replication queue.
    pub origin: Option<(&'a str, u64)>,
    /// For a write on its way to the replication queue (record types 5 and 6): which.
    pub outbound: Option<Outbound>,
    /// Where each entry's parts are in `bytes`, found while validating, so walking the
    /// entries decodes nothing again.
    spans: &'a [EntrySpan],
    /// The batch's encoding, already validated.
    bytes: &'a [u8],
}

/// Where one entry's table, row key and mutations lie in a batch's encoding.
#[derive(Debug, Clone, Copy, Default)]
pub struct EntrySpan {
    table: (usize, usize),
    row_key: (usize, usize),
    mutations: (usize, usize),
    count: usize,
}

/// One row's mutations within a [`BatchView`].
#[derive(Debug, Clone, Copy)]
pub struct EntryView<'a> {
    /// The table id.
    pub table: &'a str,
    /// The row key.
    pub row_key: &'a [u8],
    count: usize,
    /// The mutations' encoding, already validated.
    mutations: &'a [u8],
}

impl<'a> BatchView<'a> {
    /// Reads and validates one write batch (`sequence`, count, entries): the one decoder of
    /// the encoding. Every mutation is decoded (borrowed) so that a malformed batch fails
    /// here, whole, before any of it is used. `spans` (cleared first) receives where each
    /// entry lies; the view borrows it.
    ///
    /// # Errors
    /// `DataLoss` on malformed input.
    pub fn decode_from<'s: 'a>(
        d: &mut Decoder<'s>,
        commit_micros: Option<i64>,
        spans: &'a mut Vec<EntrySpan>,
    ) -> Result<Self> {
        spans.clear();
        let start = d.position();
        let sequence = d.varint64("batch.sequence")?;
        // An entry is at least a table length, a row key length and a mutation count.
        let count = d.count(3, "batch.entries count")?;
        let at = |d: &Decoder<'_>| d.position() - start;
        for _ in 0..count {
            let table = d.str("batch.entry.table")?.len();
            let table = (at(d) - table, at(d));
            let row_key = d.bytes("batch.entry.row_key")?.len();
            let row_key = (at(d) - row_key, at(d));
            let m = d.count(1, "batch.entry.mutations count")?;
            let first = at(d);
            for _ in 0..m {
                MutationRef::decode_from(d)?;
            }
            spans.push(EntrySpan {
                table,
                row_key,
                mutations: (first, at(d)),
                count: m,
            });
        }
        Ok(BatchView {
            sequence,
            commit_micros,
            collected: false,
            one_sequence: false,
            origin: None,
            outbound: None,
            spans,
            bytes: d.consumed_since(start),
        })
    }

    /// Decodes a record's payload of type `record_type` (types 2, 3 and 4 carry the commit
    /// time first, type 4 then its origin); the payload must be consumed exactly.
    fn from_payload<'s: 'a>(
        record_type: u8,
        payload: &'s [u8],
        spans: &'a mut Vec<EntrySpan>,
    ) -> Result<Self> {
        let mut d = Decoder::new(payload);
        let commit = match record_type {
            RECORD_TYPE_TIMED_BATCH
            | RECORD_TYPE_COLLECTED
            | RECORD_TYPE_COLLECTED_CELLS
            | RECORD_TYPE_REPLICATED
            | RECORD_TYPE_CAPTURED
            | RECORD_TYPE_CARRIED => Some(d.varint_i64("batch.commit_micros")?),
            _ => None,
        };
        let origin = if record_type == RECORD_TYPE_REPLICATED {
            let source = d.str("batch.origin.source")?;
            let arrival = d.varint64("batch.origin.arrival")?;
            // One encoding per meaning: a delivery names both, a write that marks none
            // neither.
            if source.is_empty() != (arrival == 0) {
                return Err(data_loss(
                    "batch.origin: a source without an arrival number, or the reverse",
                ));
            }
            Some((source, arrival))
        } else {
            None
        };
        let mut batch = BatchView::decode_from(&mut d, commit, spans)?;
        batch.collected = matches!(
            record_type,
            RECORD_TYPE_COLLECTED | RECORD_TYPE_COLLECTED_CELLS
        );
        batch.one_sequence = record_type == RECORD_TYPE_COLLECTED;
        if record_type == RECORD_TYPE_COLLECTED_CELLS {
            // Applied on replay as deletes of single cells: nothing else may be here.
            let point = |m: MutationRef<'_>| {
                matches!(m, MutationRef::DeleteFromColumn { time_range, .. }
                    if time_range.end_micros == Some(time_range.start_micros.saturating_add(1)))
            };
            if !batch.entries().all(|e| e.mutations().all(point)) {
                return Err(data_loss(
                    "batch: a garbage collection record holds a mutation other than a \
                     DeleteFromColumn of one timestamp",
                ));
            }
        }
        batch.origin = origin;
        batch.outbound = match record_type {
            RECORD_TYPE_CAPTURED => Some(Outbound::Captured),
            RECORD_TYPE_CARRIED => Some(Outbound::Carried),
            _ => None,
        };
        d.finish("write batch")?;
        Ok(batch)
    }

    /// The last sequence the record takes: for garbage collection's cells of type 7, one
    /// per cell from `sequence` on (at least `sequence`); else `sequence`. `None` if that
    /// passes `u64::MAX`.
    pub fn last_sequence(&self) -> Option<u64> {
        if !self.collected || self.one_sequence {
            return Some(self.sequence);
        }
        let cells = self.spans.iter().map(|s| s.count as u64).sum::<u64>();
        self.sequence.checked_add(cells.saturating_sub(1))
    }

    /// The number of entries (rows).
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether the batch writes no row.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The entries, in order.
    pub fn entries(&self) -> impl Iterator<Item = EntryView<'a>> + 'a {
        let bytes = self.bytes;
        let part = move |(a, b): (usize, usize)| bytes.get(a..b).unwrap_or_default();
        self.spans.iter().map(move |s| EntryView {
            // Checked UTF-8 when the view was made; checking again costs a few bytes'
            // worth and keeps this free of `unsafe`.
            table: core::str::from_utf8(part(s.table)).unwrap_or_default(),
            row_key: part(s.row_key),
            count: s.count,
            mutations: part(s.mutations),
        })
    }

    /// The batch, copied out.
    pub fn to_batch(&self) -> WriteBatch {
        WriteBatch {
            sequence: self.sequence,
            entries: self
                .entries()
                .map(|e| BatchEntry {
                    table: e.table.into(),
                    row_key: e.row_key.to_vec(),
                    mutations: e.to_mutations(),
                })
                .collect(),
            commit_micros: self.commit_micros,
            collected: self.collected,
            one_sequence: self.one_sequence,
            origin: self.origin.map(|(source, arrival)| Origin {
                source: source.into(),
                arrival,
            }),
            outbound: self.outbound,
        }
    }
}

impl<'a> EntryView<'a> {
    /// The number of mutations.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether the entry holds no mutation.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The mutations, borrowed, in order.
    pub fn mutations(&self) -> impl Iterator<Item = MutationRef<'a>> {
        let mut d = Decoder::new(self.mutations);
        (0..self.count).map_while(move |_| MutationRef::decode_from(&mut d).ok())
    }

    /// The mutations, copied out (what applying them needs).
    pub fn to_mutations(&self) -> Vec<Mutation> {
        self.mutations().map(|m| m.to_mutation()).collect()
    }
}

/// A file of bytes held in memory, for [`LogReader::from_bytes`].
struct Bytes(Vec<u8>);

impl RandomAccessFile for Bytes {
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let range = usize::try_from(offset)
            .ok()
            .and_then(|start| Some(start..start.checked_add(len)?));
        match range.and_then(|r| self.0.get(r)) {
            Some(bytes) => Ok(bytes.to_vec()),
            None => Err(data_loss(format!(
                "read of {len} bytes at offset {offset} runs past the end of a {}-byte log",
                self.0.len()
            ))),
        }
    }
    fn len(&self) -> u64 {
        self.0.len() as u64
    }
}

/// Reads a log's batches in order. [`LogReader::next_view`] lends each batch as a
/// [`BatchView`]; as an iterator of `Result<WriteBatch>` the reader copies them out. Either
/// way it stops after the last complete record, or after the first error.
///
/// After the last batch, [`LogReader::end`] tells whether the log ended cleanly or in a torn
/// tail.
pub struct LogReader {
    file: Arc<dyn RandomAccessFile>,
    len: u64,
    pos: u64,
    last_sequence: Option<u64>,
    /// The last sequence the last record took (see [`BatchView::last_sequence`]): the next
    /// record's must be above it.
    taken_through: Option<u64>,
    end: Option<ReplayEnd>,
    failed: bool,
    /// Bytes of the file from offset `buf_start` on (a window of at most `chunk` bytes, or
    /// one record).
    buf: Vec<u8>,
    buf_start: u64,
    chunk: usize,
    /// The current batch's entry spans (reused from record to record).
    spans: Vec<EntrySpan>,
}

impl core::fmt::Debug for LogReader {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LogReader")
            .field("len", &self.len)
            .field("pos", &self.pos)
            .field("last_sequence", &self.last_sequence)
            .field("end", &self.end)
            .field("failed", &self.failed)
            .finish()
    }
}

impl LogReader {
    /// A reader from the start of `file`.
    pub fn new(file: Arc<dyn RandomAccessFile>) -> Self {
        Self::with_chunk(file, READ_CHUNK)
    }

    /// A reader that asks the file for `chunk` bytes at a time (at least one; a record
    /// larger than that is read whole).
    pub fn with_chunk(file: Arc<dyn RandomAccessFile>, chunk: usize) -> Self {
        LogReader {
            len: file.len(),
            file,
            pos: 0,
            last_sequence: None,
            taken_through: None,
            end: None,
            failed: false,
            buf: Vec::new(),
            buf_start: 0,
            chunk: chunk.max(1),
            spans: Vec::new(),
        }
    }

    /// A reader over a log held in memory.
    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        Self::new(Arc::new(Bytes(bytes)))
    }

    /// The offset just past the last record returned: the length of the valid prefix so far.
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// The sequence number of the last batch returned.
    pub fn last_sequence(&self) -> Option<u64> {
        self.last_sequence
    }

    /// How the log ended; `None` until the last batch was returned, and after an error.
    pub fn end(&self) -> Option<ReplayEnd> {
        self.end
    }

    /// The next batch, borrowed from the reader's buffer; `Ok(None)` once the log ended
    /// (see [`LogReader::end`]) and after an error.
    ///
    /// # Errors
    /// `DataLoss` if the log is corrupt (anywhere but in a torn tail); the file's read
    /// errors. The reader returns nothing more after one.
    pub fn next_view(&mut self) -> Result<Option<BatchView<'_>>> {
        if self.end.is_some() || self.failed {
            return Ok(None);
        }
        // Marked failed until the step succeeds: the step's error is its last answer.
        self.failed = true;
        self.step()
    }

    /// Makes `need` bytes from file offset `pos` available in the buffer (`need` is at most
    /// what the file holds from `pos`) and returns where they start in it.
    fn window(&mut self, pos: u64, need: usize) -> Result<usize> {
        let buf_end = self.buf_start + self.buf.len() as u64;
        if pos >= self.buf_start && pos + need as u64 <= buf_end {
            return Ok((pos - self.buf_start) as usize);
        }
        let remaining = usize::try_from(self.len - pos).unwrap_or(usize::MAX);
        let want = need.max(self.chunk.min(remaining));
        if let Err(e) = self.file.read_at_into(pos, want, &mut self.buf) {
            self.buf.clear();
            return Err(e);
        }
        self.buf_start = pos;
        if self.buf.len() < need {
            return Err(Error::new(Code::Internal, "short log read"));
        }
        Ok(0)
    }

    /// Checks the record at `self.pos` and moves past it: the batch it holds, or `None` at
    /// the end of the log.
    fn step(&mut self) -> Result<Option<BatchView<'_>>> {
        let pos = self.pos;
        let remaining = self.len.saturating_sub(pos);
        if remaining == 0 {
            self.end = Some(ReplayEnd::Clean);
            self.failed = false;
            return Ok(None);
        }
        if remaining < HEADER_LEN as u64 {
            return self.damaged(format!(
                "the file ends inside the header of the record at offset {pos}"
            ));
        }
        let at = self.window(pos, HEADER_LEN)?;
        let (crc, len) = match (self.buf.get(at..at + 4), self.buf.get(at + 4..at + 8)) {
            (Some(c), Some(l)) => (le32(c), le32(l)),
            _ => return Err(Error::new(Code::Internal, "short header read")),
        };
        let body_len = 5 + u64::from(len);
        if body_len > remaining - 4 {
            return self.damaged(format!(
                "the record at offset {pos} claims {len} payload bytes but the file ends first"
            ));
        }
        // `4 + body_len <= remaining`, which came from the file's own length: safe to read.
        let body_len = usize::try_from(body_len)
            .map_err(|_| Error::new(Code::ResourceExhausted, "log record too large"))?;
        let at = self.window(pos, 4 + body_len)? + 4;
        let stored = self.buf.get(at..at + body_len).unwrap_or_default();
        if CRC32C.checksum(stored) != crc {
            return self.damaged(format!("checksum mismatch in the record at offset {pos}"));
        }
        let body = self.buf.get(at..at + body_len).unwrap_or_default();
        let (record_type, payload) = match body.get(4..) {
            Some([t, payload @ ..]) => (*t, payload),
            _ => return Err(Error::new(Code::Internal, "short record read")),
        };
        // The checksum held: these bytes are what a writer wrote, so a problem from here on
        // is not a torn write.
        if !matches!(
            record_type,
            RECORD_TYPE_BATCH
                | RECORD_TYPE_TIMED_BATCH
                | RECORD_TYPE_COLLECTED
                | RECORD_TYPE_COLLECTED_CELLS
                | RECORD_TYPE_REPLICATED
                | RECORD_TYPE_CAPTURED
                | RECORD_TYPE_CARRIED
        ) {
            return Err(data_loss(format!(
                "record at offset {pos} has unsupported type {record_type}"
            )));
        }
        let batch =
            BatchView::from_payload(record_type, payload, &mut self.spans).map_err(|e| {
                data_loss(format!(
                    "record at offset {pos}: malformed write batch: {}",
                    e.message()
                ))
            })?;
        if let Some(last) = self.taken_through {
            if batch.sequence <= last {
                return Err(data_loss(format!(
                    "record at offset {pos}: sequence {} is not greater than the previous record's last sequence {last}",
                    batch.sequence
                )));
            }
        }
        let Some(taken) = batch.last_sequence() else {
            return Err(data_loss(format!(
                "record at offset {pos}: its cells' sequences pass 2^64 - 1"
            )));
        };
        self.last_sequence = Some(batch.sequence);
        self.taken_through = Some(taken);
        self.pos = pos + 4 + body_len as u64;
        self.failed = false;
        Ok(Some(batch))
    }

    /// The record at `self.pos` is damaged. It is a torn tail if no valid record starts
    /// anywhere after its first byte; otherwise acknowledged data was corrupted.
    fn damaged(&mut self, why: String) -> Result<Option<BatchView<'static>>> {
        let pos = self.pos;
        let tail_len = usize::try_from(self.len - pos)
            .map_err(|_| Error::new(Code::ResourceExhausted, "log tail too large to scan"))?;
        let tail = self.file.read_at(pos, tail_len)?;
        match (1..tail.len()).find(|&q| tail.get(q..).is_some_and(is_valid_record)) {
            Some(q) => Err(data_loss(format!(
                "{why}, and a valid record follows at offset {}: the log is corrupt",
                pos + q as u64
            ))),
            None => {
                self.end = Some(ReplayEnd::TornTail { valid_bytes: pos });
                self.failed = false;
                Ok(None)
            }
        }
    }
}

fn le32(b: &[u8]) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(b.get(..4).unwrap_or(&[0; 4]));
    u32::from_le_bytes(a)
}

/// Whether `bytes` starts with a complete record whose checksum holds (whatever its type).
fn is_valid_record(bytes: &[u8]) -> bool {
    let (Some(crc), Some(len)) = (bytes.get(0..4), bytes.get(4..8)) else {
        return false;
    };
    let Ok(len) = usize::try_from(le32(len)) else {
        return false;
    };
    match len
        .checked_add(HEADER_LEN)
        .and_then(|end| bytes.get(4..end))
    {
        Some(body) => CRC32C.checksum(body) == le32(crc),
        None => false,
    }
}

impl Iterator for LogReader {
    type Item = Result<WriteBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_view()
            .map(|b| b.map(|b| b.to_batch()))
            .transpose()
    }
}

/// Reads a whole log: its batches in order and how it ended.
///
/// # Errors
/// `DataLoss` if the log is corrupt anywhere but in a torn tail; the file's read errors.
pub fn replay(file: Arc<dyn RandomAccessFile>) -> Result<(Vec<WriteBatch>, ReplayEnd)> {
    let mut reader = LogReader::new(file);
    let batches = reader.by_ref().collect::<Result<Vec<_>>>()?;
    let end = reader.end.unwrap_or(ReplayEnd::Clean);
    Ok((batches, end))
}

/// Reads a whole log, handing each batch to `apply` as it is read (recovery's way: no batch
/// is copied out or kept, and `apply` copies only what it uses).
///
/// # Errors
/// As [`replay`], checked batch by batch: `apply` has seen the batches before a corrupt
/// record when this fails. `apply`'s own error, which stops the reading.
pub fn replay_views(
    file: Arc<dyn RandomAccessFile>,
    mut apply: impl FnMut(&BatchView<'_>) -> Result<()>,
) -> Result<ReplayEnd> {
    let mut reader = LogReader::new(file);
    while let Some(batch) = reader.next_view()? {
        apply(&batch)?;
    }
    Ok(reader.end.unwrap_or(ReplayEnd::Clean))
}

#[cfg(test)]
mod tests {
    use super::super::encode_record;
    use super::*;
    use crate::TimestampRange;
    use alloc::vec;
    use proptest::prelude::*;

    fn mutation() -> impl Strategy<Value = Mutation> {
        let fam = prop_oneof![Just("cf"), Just("family_two")];
        let bytes = proptest::collection::vec(any::<u8>(), 0..40);
        prop_oneof![
            (fam.clone(), bytes.clone(), any::<i64>(), bytes.clone())
                .prop_map(|(f, q, t, v)| { Mutation::set_cell(f, q, t, v) }),
            (fam.clone(), bytes.clone(), any::<i64>(), any::<i64>()).prop_map(|(f, q, t, n)| {
                Mutation::AddToCell {
                    family: f.into(),
                    qualifier: q,
                    timestamp_micros: t,
                    input: n,
                }
            }),
            (fam.clone(), bytes.clone(), any::<i64>(), bytes.clone()).prop_map(|(f, q, t, s)| {
                Mutation::MergeToCell {
                    family: f.into(),
                    qualifier: q,
                    timestamp_micros: t,
                    state: s,
                }
            }),
            (
                fam.clone(),
                bytes,
                any::<i64>(),
                proptest::option::of(any::<i64>())
            )
                .prop_map(|(f, q, start, end)| Mutation::DeleteFromColumn {
                    family: f.into(),
                    qualifier: q,
                    time_range: TimestampRange {
                        start_micros: start,
                        end_micros: end,
                    },
                }),
            fam.prop_map(|f| Mutation::DeleteFromFamily { family: f.into() }),
            Just(Mutation::DeleteFromRow),
        ]
    }

    fn batches() -> impl Strategy<Value = Vec<WriteBatch>> {
        let entry = (
            prop_oneof![Just("t"), Just("other")],
            proptest::collection::vec(any::<u8>(), 0..12),
            proptest::collection::vec(mutation(), 0..4),
        )
            .prop_map(|(t, row_key, mutations)| BatchEntry {
                table: t.into(),
                row_key,
                mutations,
            });
        let batch = (
            1u64..5,
            proptest::collection::vec(entry, 0..4),
            proptest::option::of(any::<i64>()),
            any::<bool>(),
        );
        proptest::collection::vec(batch, 0..12).prop_map(|bs| {
            let mut sequence = 0;
            bs.into_iter()
                .map(|(step, mut entries, commit_micros, collected)| {
                    sequence += step;
                    let collected = collected && commit_micros.is_some();
                    // Every other collected record is type 7, whose entries name cells
                    // (one-timestamp deletes) and which takes a sequence per cell.
                    let one_sequence = collected && sequence % 2 == 0;
                    let first = sequence;
                    if collected && !one_sequence {
                        for e in &mut entries {
                            for m in &mut e.mutations {
                                *m = Mutation::DeleteFromColumn {
                                    family: "cf".into(),
                                    qualifier: e.row_key.clone(),
                                    time_range: TimestampRange {
                                        start_micros: sequence as i64,
                                        end_micros: Some(sequence as i64 + 1),
                                    },
                                };
                                sequence += 1;
                            }
                        }
                        sequence = sequence.max(first + 1) - 1;
                    }
                    WriteBatch {
                        sequence: first,
                        entries,
                        commit_micros,
                        // Type 3 and 7 records (those need a commit time) among types 1
                        // and 2.
                        collected,
                        one_sequence,
                        // And type 4 (also with a commit time), every few.
                        origin: (!collected && commit_micros.is_some() && sequence % 3 == 0).then(
                            || Origin {
                                source: "c1".into(),
                                arrival: sequence,
                            },
                        ),
                        // And types 5 and 6 (with a commit time, nothing else), every few.
                        outbound: (!collected && commit_micros.is_some() && sequence % 3 != 0)
                            .then_some(if sequence % 3 == 1 {
                                Outbound::Captured
                            } else {
                                Outbound::Carried
                            }),
                    }
                })
                .collect()
        })
    }

    /// Everything a reader with `chunk`-byte reads says about `log`: the batches, then how
    /// it ended (or its error's code and message).
    fn outcome(
        log: &[u8],
        chunk: usize,
    ) -> (
        Vec<WriteBatch>,
        core::result::Result<ReplayEnd, (Code, String)>,
    ) {
        let mut reader = LogReader::with_chunk(Arc::new(Bytes(log.to_vec())), chunk);
        let mut out = vec![];
        loop {
            match reader.next_view() {
                Ok(Some(b)) => out.push(b.to_batch()),
                Ok(None) => return (out, Ok(reader.end().unwrap())),
                Err(e) => {
                    assert!(
                        matches!(reader.next_view(), Ok(None)),
                        "an error is the last answer"
                    );
                    return (out, Err((e.code(), e.message().into())));
                }
            }
        }
    }

    proptest! {
        /// The chunked reader answers exactly what reading the whole file at once does
        /// (the simple path: one buffer, no refills) for every chunk size, on logs that are
        /// whole, truncated anywhere, or damaged anywhere; and a whole log reads back as
        /// the batches written.
        #[test]
        fn chunked_reads_answer_as_one_whole_read(
            batches in batches(),
            chunk in 1usize..96,
            cut in any::<proptest::sample::Index>(),
            flip in proptest::option::of((any::<proptest::sample::Index>(), 1u8..=255)),
        ) {
            let mut log = vec![];
            for b in &batches {
                log.extend(encode_record(b).unwrap());
            }
            let (read, end) = outcome(&log, chunk);
            prop_assert_eq!(&read, &batches);
            prop_assert_eq!(end, Ok(ReplayEnd::Clean));
            let mut damaged = log.clone();
            if let (Some((at, mask)), false) = (flip, log.is_empty()) {
                damaged[at.index(log.len())] ^= mask;
            }
            damaged.truncate(cut.index(log.len() + 1));
            let whole = outcome(&damaged, usize::MAX);
            prop_assert_eq!(outcome(&damaged, chunk), whole.clone());
            // Whatever the damage, what was returned is a prefix of what was written.
            prop_assert!(batches.starts_with(&whole.0));
        }
    }

    #[test]
    fn a_view_validates_the_whole_batch_before_it_is_used() {
        let batch = WriteBatch {
            sequence: 3,
            entries: vec![
                BatchEntry {
                    table: "t".into(),
                    row_key: b"a".to_vec(),
                    mutations: vec![Mutation::set_cell("cf", "q", 1, "v")],
                },
                BatchEntry {
                    table: "t".into(),
                    row_key: b"b".to_vec(),
                    mutations: vec![Mutation::DeleteFromRow],
                },
            ],
            commit_micros: None,
            collected: false,
            one_sequence: false,
            origin: None,
            outbound: None,
        };
        let record = encode_record(&batch).unwrap();
        let mut spans = vec![];
        let view =
            BatchView::from_payload(RECORD_TYPE_BATCH, &record[HEADER_LEN..], &mut spans).unwrap();
        assert_eq!(view.to_batch(), batch);
        assert_eq!(view.len(), 2);
        let rows: Vec<_> = view.entries().map(|e| (e.row_key, e.len())).collect();
        assert_eq!(rows, [(&b"a"[..], 1), (&b"b"[..], 1)]);
        // The last mutation's tag made unknown: the batch fails whole, not after row `a`.
        let mut bad = record[HEADER_LEN..].to_vec();
        *bad.last_mut().unwrap() = 0x7f;
        let err = BatchView::from_payload(RECORD_TYPE_BATCH, &bad, &mut vec![]).unwrap_err();
        assert_eq!(err.code(), Code::DataLoss);
    }
}
