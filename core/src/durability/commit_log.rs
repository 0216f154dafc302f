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

/// Record type of the changes garbage collection made to tables with a change stream: the
/// commit time, then a write batch whose entries are the collected cells (one
/// DeleteFromColumn of `[ts, ts + 1)` each). Recovery logs them in the change streams as
/// GARBAGE_COLLECTION records and never applies them to the tables (the collection itself is
/// in the run files the manifest names, or is redone by a later one). Reaches disk: never
/// renumber.
pub const RECORD_TYPE_COLLECTED: u8 = 3;

/// Record type of a write another cluster of a replicated instance committed, applied here
/// by replication: the local commit time, the [`Origin`] (the source cluster and the
/// write's arrival number in the replication queue, or an empty source and 0 for a write
/// applied again or a table copy), then a write batch. Applied on replay like type 1, never
/// logged in this database's change streams (the change is the source cluster's), and its
/// origin becomes the database's replication mark for that source, atomically with the
/// write (docs/format/commit_log.md, type 4). Reaches disk: never renumber.
pub const RECORD_TYPE_REPLICATED: u8 = 4;

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
    /// (record type [`RECORD_TYPE_COLLECTED`], which always has a commit time), rather than a
    /// write to apply.
    pub collected: bool,
    /// For a write applied from another cluster (record type [`RECORD_TYPE_REPLICATED`],
    /// which always has a commit time): where it came from.
    pub origin: Option<Origin>,
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
            if collected {
                RECORD_TYPE_COLLECTED
            } else {
                RECORD_TYPE_TIMED_BATCH
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
    let hint = rows
        .iter()
        .map(|(k, ms)| table.len() + k.len() + 30 + ms.iter().map(size_hint).sum::<usize>())
        .sum::<usize>()
        + 20;
    let record_type = match (commit_micros, origin) {
        (None, None) => RECORD_TYPE_BATCH,
        (Some(_), None) => RECORD_TYPE_TIMED_BATCH,
        (Some(_), Some(_)) => RECORD_TYPE_REPLICATED,
        (None, Some(_)) => {
            return Err(Error::invalid_argument(
                "a replicated write's record needs its commit time",
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

/// The record [`LogWriter::append_collected`] writes: the bytes [`encode_record`] gives for
/// the equivalent [`WriteBatch`] with `collected` set.
///
/// # Errors
/// As [`encode_record`].
pub fn encode_collected_record(
    sequence: u64,
    table: &str,
    rows: &[(&[u8], &[Mutation])],
    commit_micros: i64,
) -> Result<Vec<u8>> {
    let hint = rows
        .iter()
        .map(|(k, ms)| table.len() + k.len() + 30 + ms.iter().map(size_hint).sum::<usize>())
        .sum::<usize>()
        + 30;
    framed(RECORD_TYPE_COLLECTED, hint, |out| {
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
        self.append_record(batch.sequence, &encode_record(batch)?)
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
        self.check_sequence(sequence)?;
        self.append_record(
            sequence,
            &encode_rows_record_from(sequence, table, rows, commit_micros, origin)?,
        )
    }

    /// Appends the record (type [`RECORD_TYPE_COLLECTED`]) of the cells garbage collection
    /// removed from `table` at `commit_micros`, `rows` in row order, as batch `sequence`.
    /// Durable only after [`LogWriter::sync`].
    ///
    /// # Errors
    /// As [`LogWriter::append`].
    pub fn append_collected(
        &mut self,
        sequence: u64,
        table: &str,
        rows: &[(&[u8], &[Mutation])],
        commit_micros: i64,
    ) -> Result<u64> {
        self.check_sequence(sequence)?;
        self.append_record(
            sequence,
            &encode_collected_record(sequence, table, rows, commit_micros)?,
        )
    }

    fn check_sequence(&self, sequence: u64) -> Result<()> {
        self.check_usable()?;
        match self.last_sequence {
            Some(last) if sequence <= last => Err(Error::invalid_argument(format!(
                "write batch sequence {sequence} is not greater than the previous batch's {last}"
            ))),
            _ => Ok(()),
        }
    }

    fn append_record(&mut self, sequence: u64, record: &[u8]) -> Result<u64> {
        if let Err(e) = self.file.append(record) {
            self.failed = true;
            return Err(e);
        }
        self.last_sequence = Some(sequence);
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
mod tests {
    use super::*;
    use crate::platform::storage::{MemStorage, Storage};
    use crate::TimestampRange;
    use alloc::string::ToString;
    use alloc::vec;
    use proptest::prelude::*;

    fn batch(sequence: u64, rows: &[&str]) -> WriteBatch {
        WriteBatch {
            commit_micros: None,
            collected: false,
            origin: None,
            sequence,
            entries: rows
                .iter()
                .map(|r| BatchEntry {
                    table: "t".to_string(),
                    row_key: r.as_bytes().to_vec(),
                    mutations: vec![
                        Mutation::set_cell("cf", b"q".to_vec(), 1000, r.as_bytes().to_vec()),
                        Mutation::DeleteFromColumn {
                            family: "cf".to_string(),
                            qualifier: b"old".to_vec(),
                            time_range: TimestampRange::default(),
                        },
                    ],
                })
                .collect(),
        }
    }

    fn three() -> Vec<WriteBatch> {
        vec![batch(1, &["a"]), batch(2, &["b", "c"]), batch(4, &["d"])]
    }

    /// The log bytes and the end offset of each record.
    fn log_of(batches: &[WriteBatch]) -> (Vec<u8>, Vec<usize>) {
        let storage = MemStorage::new();
        let mut w = LogWriter::new(storage.create("log").unwrap());
        let mut ends = Vec::new();
        let mut total = 0;
        for b in batches {
            total += w.append(b).unwrap() as usize;
            ends.push(total);
        }
        w.sync().unwrap();
        assert_eq!(w.len(), total as u64);
        let bytes = crate::platform::storage::read_all(&storage, "log").unwrap();
        (bytes, ends)
    }

    /// Replays all of `bytes`: the batches read before the end or error, and the outcome.
    fn read(bytes: &[u8]) -> (Vec<WriteBatch>, Result<ReplayEnd>) {
        let mut reader = LogReader::from_bytes(bytes.to_vec());
        let mut out = Vec::new();
        for item in reader.by_ref() {
            match item {
                Ok(b) => out.push(b),
                Err(e) => {
                    assert!(reader.next().is_none(), "an error ends the iteration");
                    return (out, Err(e));
                }
            }
        }
        (out, Ok(reader.end().unwrap()))
    }

    #[test]
    fn batches_round_trip_through_storage() {
        let batches = three();
        let storage = MemStorage::new();
        let mut w = LogWriter::new(storage.create("000001.log").unwrap());
        for b in &batches {
            w.append(b).unwrap();
        }
        w.sync().unwrap();
        let (read, end) = replay(storage.open("000001.log").unwrap()).unwrap();
        assert_eq!(read, batches);
        assert_eq!(end, ReplayEnd::Clean);
    }

    #[test]
    fn an_empty_log_ends_cleanly() {
        assert_eq!(read(&[]), (vec![], Ok(ReplayEnd::Clean)));
        let (batches, end) = read(&encode_record(&WriteBatch::default()).unwrap());
        assert_eq!(batches, [WriteBatch::default()]);
        assert_eq!(end, Ok(ReplayEnd::Clean));
    }

    #[test]
    fn header_layout_matches_the_spec() {
        let record = encode_record(&WriteBatch {
            sequence: 5,
            entries: vec![],
            commit_micros: None,
            collected: false,
            origin: None,
        })
        .unwrap();
        assert_eq!(record[4..], [2, 0, 0, 0, RECORD_TYPE_BATCH, 5, 0]);
        let crc = CRC32C.checksum(&record[4..]);
        assert_eq!(record[..4], crc.to_le_bytes());
    }

    #[test]
    fn every_truncation_replays_exactly_the_complete_records() {
        let batches = three();
        let (bytes, ends) = log_of(&batches);
        for cut in 0..=bytes.len() {
            let complete = ends.iter().filter(|&&e| e <= cut).count();
            let valid = if complete == 0 { 0 } else { ends[complete - 1] };
            let (read, end) = read(&bytes[..cut]);
            assert_eq!(read, batches[..complete], "cut at {cut}");
            let expected = if valid == cut {
                ReplayEnd::Clean
            } else {
                ReplayEnd::TornTail {
                    valid_bytes: valid as u64,
                }
            };
            assert_eq!(end, Ok(expected), "cut at {cut}");
        }
    }

    #[test]
    fn a_damaged_record_before_a_valid_one_is_data_loss() {
        let batches = three();
        let (bytes, ends) = log_of(&batches);
        for i in 0..ends[1] {
            for mask in [0x01u8, 0x80, 0xff] {
                let mut damaged = bytes.clone();
                damaged[i] ^= mask;
                let (read, end) = read(&damaged);
                let err = end.unwrap_err();
                assert_eq!(err.code(), Code::DataLoss, "byte {i} ^ {mask:#x}");
                // Only records before the damaged one were returned.
                let damaged_record = ends.iter().position(|&e| i < e).unwrap();
                assert_eq!(read, batches[..damaged_record], "byte {i}");
            }
        }
    }

    #[test]
    fn a_damaged_last_record_is_a_torn_tail() {
        let batches = three();
        let (bytes, ends) = log_of(&batches);
        for i in ends[1]..bytes.len() {
            for mask in [0x01u8, 0x80, 0xff] {
                let mut damaged = bytes.clone();
                damaged[i] ^= mask;
                let (read, end) = read(&damaged);
                assert_eq!(read, batches[..2], "byte {i} ^ {mask:#x}");
                assert_eq!(
                    end,
                    Ok(ReplayEnd::TornTail {
                        valid_bytes: ends[1] as u64
                    })
                );
            }
        }
    }

    #[test]
    fn zeros_or_garbage_after_the_last_record_are_a_torn_tail() {
        let batches = three();
        let (bytes, ends) = log_of(&batches);
        for tail in [vec![0u8; 100], vec![0xa5; 3], (0..=255u8).collect()] {
            let mut log = bytes.clone();
            log.extend_from_slice(&tail);
            let (read, end) = read(&log);
            assert_eq!(read, batches);
            assert_eq!(
                end,
                Ok(ReplayEnd::TornTail {
                    valid_bytes: ends[2] as u64
                })
            );
        }
        assert_ne!(CRC32C.checksum(&[0; 5]), 0, "a zeroed header never checks");
    }

    #[test]
    fn decreasing_sequences_are_data_loss() {
        let mut log = encode_record(&batch(5, &["a"])).unwrap();
        log.extend(encode_record(&batch(5, &["b"])).unwrap());
        let (read, end) = read(&log);
        assert_eq!(read.len(), 1);
        let err = end.unwrap_err();
        assert_eq!(err.code(), Code::DataLoss);
        assert!(err.message().contains("sequence 5"), "{err}");
    }

    #[test]
    fn a_checked_record_of_unknown_type_or_bad_payload_is_data_loss() {
        let unknown = frame(5, &batch(1, &["a"]).to_bytes()).unwrap();
        let err = read(&unknown).1.unwrap_err();
        assert!(err.message().contains("unsupported type 5"), "{err}");
        // A replicated write whose origin names a source without an arrival number.
        let mut payload = vec![0];
        put_origin(
            &mut payload,
            &Origin {
                source: "c1".into(),
                arrival: 0,
            },
        );
        payload.extend(batch(1, &["a"]).to_bytes());
        let err = read(&frame(RECORD_TYPE_REPLICATED, &payload).unwrap())
            .1
            .unwrap_err();
        assert!(err.message().contains("batch.origin"), "{err}");
        // A collected record whose time is missing.
        let err = read(&frame(RECORD_TYPE_COLLECTED, &[]).unwrap())
            .1
            .unwrap_err();
        assert!(err.message().contains("malformed write batch"), "{err}");
        // A timed batch whose time is missing.
        let err = read(&frame(RECORD_TYPE_TIMED_BATCH, &[]).unwrap())
            .1
            .unwrap_err();
        assert!(err.message().contains("malformed write batch"), "{err}");
        let mut payload = batch(1, &["a"]).to_bytes();
        payload.push(0);
        let err = read(&frame(RECORD_TYPE_BATCH, &payload).unwrap())
            .1
            .unwrap_err();
        assert_eq!(err.code(), Code::DataLoss);
        assert!(err.message().contains("malformed write batch"), "{err}");
    }

    #[test]
    fn the_writer_refuses_sequences_that_do_not_increase() {
        let storage = MemStorage::new();
        let mut w = LogWriter::new(storage.create("log").unwrap());
        w.append(&batch(3, &["a"])).unwrap();
        let err = w.append(&batch(3, &["b"])).unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument);
        w.append(&batch(4, &["b"])).unwrap();
    }

    #[test]
    fn a_record_encoded_from_borrowed_rows_is_the_batch_record() {
        let b = batch(7, &["a", "bb", "ccc"]);
        let rows: Vec<(&[u8], &[Mutation])> = b
            .entries
            .iter()
            .map(|e| (e.row_key.as_slice(), e.mutations.as_slice()))
            .collect();
        let record = encode_rows_record(7, "t", &rows, None).unwrap();
        assert_eq!(record, encode_record(&b).unwrap());
        let storage = MemStorage::new();
        let mut w = LogWriter::new(storage.create("log").unwrap());
        w.append_rows(7, "t", &rows, None).unwrap();
        let err = w.append_rows(7, "t", &rows, None).unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument);
        let (read, end) = read(&crate::platform::storage::read_all(&storage, "log").unwrap());
        assert_eq!(read, vec![b]);
        assert_eq!(end, Ok(ReplayEnd::Clean));
    }

    #[test]
    fn a_replicated_record_carries_its_origin_and_needs_a_commit_time() {
        let b = batch(7, &["a", "bb"]);
        let rows: Vec<(&[u8], &[Mutation])> = b
            .entries
            .iter()
            .map(|e| (e.row_key.as_slice(), e.mutations.as_slice()))
            .collect();
        let origin = Origin {
            source: "west".into(),
            arrival: 42,
        };
        let record = encode_rows_record_from(7, "t", &rows, Some(-9), Some(&origin)).unwrap();
        assert_eq!(record[8], RECORD_TYPE_REPLICATED);
        let mut want = b.clone();
        want.commit_micros = Some(-9);
        want.origin = Some(origin.clone());
        assert_eq!(record, encode_record(&want).unwrap());
        let (read_back, end) = read(&record);
        assert_eq!(read_back, vec![want.clone()]);
        assert_eq!(end, Ok(ReplayEnd::Clean));
        let err = encode_rows_record_from(7, "t", &rows, None, Some(&origin)).unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument);
        want.commit_micros = None;
        assert_eq!(
            encode_record(&want).unwrap_err().code(),
            Code::InvalidArgument
        );
    }

    #[test]
    fn a_collected_record_round_trips_and_needs_a_commit_time() {
        let mut b = batch(9, &["a", "b"]);
        b.commit_micros = Some(-3);
        b.collected = true;
        let rows: Vec<(&[u8], &[Mutation])> = b
            .entries
            .iter()
            .map(|e| (e.row_key.as_slice(), e.mutations.as_slice()))
            .collect();
        let record = encode_collected_record(9, "t", &rows, -3).unwrap();
        assert_eq!(record, encode_record(&b).unwrap());
        assert_eq!(record[8], RECORD_TYPE_COLLECTED);
        // The payload is a timed batch's: only the type byte (and so the checksum) differs.
        let mut timed = b.clone();
        timed.collected = false;
        let timed = encode_record(&timed).unwrap();
        assert_eq!(record[9..], timed[9..]);
        assert_eq!(timed[8], RECORD_TYPE_TIMED_BATCH);
        let storage = MemStorage::new();
        let mut w = LogWriter::new(storage.create("log").unwrap());
        w.append(&batch(8, &["x"])).unwrap();
        w.append_collected(9, "t", &rows, -3).unwrap();
        let err = w.append_collected(9, "t", &rows, -3).unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument);
        let (read, end) = read(&crate::platform::storage::read_all(&storage, "log").unwrap());
        assert_eq!(read, vec![batch(8, &["x"]), b.clone()]);
        assert_eq!(end, Ok(ReplayEnd::Clean));
        b.commit_micros = None;
        assert_eq!(encode_record(&b).unwrap_err().code(), Code::InvalidArgument);
    }

    struct FailingFile;
    impl WritableFile for FailingFile {
        fn append(&mut self, _: &[u8]) -> Result<()> {
            Err(Error::new(Code::Unavailable, "disk full"))
        }
        fn sync(&mut self) -> Result<()> {
            Ok(())
        }
        fn len(&self) -> u64 {
            0
        }
    }

    #[test]
    fn a_writer_is_unusable_after_an_io_error() {
        let mut w = LogWriter::new(Box::new(FailingFile));
        assert_eq!(
            w.append(&batch(1, &["a"])).unwrap_err().code(),
            Code::Unavailable
        );
        assert!(w.is_failed());
        assert_eq!(
            w.append(&batch(2, &["a"])).unwrap_err().code(),
            Code::Unavailable
        );
        assert_eq!(w.sync().unwrap_err().code(), Code::Unavailable);
    }

    proptest! {
        #[test]
        fn random_batches_round_trip(
            batches in proptest::collection::vec(
                (
                    "[a-z]{1,4}",
                    proptest::collection::vec(any::<u8>(), 0..8),
                    proptest::collection::vec(crate::codec::values::tests::arb_mutation(), 0..4),
                ),
                0..6,
            )
        ) {
            let batches: Vec<WriteBatch> = batches
                .into_iter()
                .enumerate()
                .map(|(i, (table, row_key, mutations))| WriteBatch {
                    sequence: 10 * i as u64 + 1,
                    entries: vec![BatchEntry { table, row_key, mutations }],
                    // Every record type, and times of either sign.
                    commit_micros: (i % 4 != 0).then_some(i as i64 * 1_000_003 - 5),
                    collected: i % 4 == 2,
                    // Type 4, marking a delivery or not.
                    origin: (i % 4 == 3).then(|| if i % 8 == 3 {
                        Origin { source: "c2".into(), arrival: i as u64 }
                    } else {
                        Origin::default()
                    }),
                })
                .collect();
            let (bytes, _) = log_of(&batches);
            let (read, end) = read(&bytes);
            prop_assert_eq!(read, batches);
            prop_assert_eq!(end, Ok(ReplayEnd::Clean));
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let (read, end) = read(&bytes);
            if let Err(e) = end {
                prop_assert_eq!(e.code(), Code::DataLoss);
            }
            // Whatever was returned re-encodes to a prefix of the input.
            let mut prefix = Vec::new();
            for b in &read {
                prefix.extend(encode_record(b).unwrap());
            }
            prop_assert!(bytes.starts_with(&prefix));
        }
    }
}
