//! Change streams: the log of a table's committed changes that ReadChangeStream serves, with
//! its retention, and the positions (continuation tokens) readers resume from.
//!
//! From the Data API protos (`google.bigtable.v2`, ReadChangeStream and its messages) and
//! Bigtable's documentation ("Change streams overview"), in our words:
//! - A table's change stream is enabled with a retention period of 1 to 7 days
//!   (`change_stream_config.retention_period`); changes older than that are gone.
//! - Each change is one committed row write: its row key, its mutations (a server-time
//!   SetCell carries the timestamp it was given, a ReadModifyWriteRow appears as the SetCells
//!   it wrote), its commit time, the cluster it was committed at and a tiebreaker that orders
//!   changes with the same commit time. The stream is partitioned by row range (here: one
//!   partition per tablet), and a reader resumes a partition from a continuation token.
//! - A DeleteFromRow is recorded as one DeleteFromFamily per family the row has data in
//!   (the overview's description of a row delete); a delete of a row with no data records
//!   nothing. The database does this conversion when it logs the write.
//! - Deletions that garbage collection makes are captured too, as GARBAGE_COLLECTION records
//!   ("Change streams overview": "Garbage collection changes are also captured"). Here
//!   collection happens when a compaction drops the cells a family's GC rule collects
//!   (reads hide them at once; the record comes when the data is really removed, later, as in
//!   Bigtable): one record per row, a DeleteFromColumn of each collected cell's timestamp
//!   (`[ts, ts + 1)`), committed at the compaction's time. The protos leave a GC record's
//!   source cluster unset.
//!
//! Where the protos are silent, our choices: the tiebreaker is the position of the cluster
//! that committed the change; a position is, per cluster, the sequence number of the last
//! change delivered; a token names its table so one from another table is refused.
//!
//! On storage the logs persist in one file (docs/format/change_log.md, [`encode_changes`]),
//! which the database rewrites at each checkpoint; writes after it are logged again from the
//! commit log on recovery, with the commit times their records carry, and so are the
//! garbage-collection records after it, which the database puts in the commit log (record
//! type 7, a sequence per cell) before a manifest names the runs their collection left (until then a log notes
//! them as not durable: [`ChangeLog::unlogged`]).
//!
//! Invariants: sequence numbers grow by one per change in one log and are never reused (a
//! log read back from its file continues after its `last_sequence`); the log holds changes
//! in commit order; pruning removes only changes older than the retention.

use alloc::collections::VecDeque;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::codec::encoding::{
    data_loss, put_bytes, put_fixed32, put_len, put_str, put_u8, put_varint64, put_varint_i64,
    Decode, Decoder, Encode, CRC32C,
};
use crate::error::quoted;
use crate::model::mutation::Mutation;
use crate::model::mutation::RowMutations;
use crate::model::row_set::RowRange;
use crate::{Error, Result};

/// The shortest change stream retention Bigtable accepts: one day.
pub const MIN_RETENTION_MICROS: i64 = 24 * 3600 * 1_000_000;
/// The longest: seven days.
pub const MAX_RETENTION_MICROS: i64 = 7 * MIN_RETENTION_MICROS;

/// Checks a change stream retention period.
///
/// # Errors
/// `InvalidArgument` outside 1 to 7 days.
pub fn validate_retention(micros: i64) -> Result<()> {
    if (MIN_RETENTION_MICROS..=MAX_RETENTION_MICROS).contains(&micros) {
        Ok(())
    } else {
        Err(Error::invalid_argument(format!(
            "change_stream_config.retention_period must be between 1 and 7 days, got {micros} microseconds"
        )))
    }
}

/// What made a change (the Data API's `DataChange.Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// A write a user sent (MutateRow(s), CheckAndMutateRow, ReadModifyWriteRow, or a
    /// DropRowRange's deletions).
    User,
    /// Cells garbage collection removed.
    GarbageCollection,
}

/// One committed change of one row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeRecord {
    /// Who made it.
    pub kind: ChangeKind,
    /// Its place in the log (1, 2, ...).
    pub sequence: u64,
    /// The commit time (microseconds since the epoch, the engine clock).
    pub commit_micros: i64,
    /// The row.
    pub row_key: Vec<u8>,
    /// Its mutations, no timestamp left at server time.
    pub mutations: Vec<Mutation>,
}

/// One table's change log (see the module docs).
#[derive(Debug, Clone)]
pub struct ChangeLog {
    retention_micros: i64,
    enabled_micros: i64,
    records: VecDeque<ChangeRecord>,
    last_sequence: u64,
    /// The sequences of garbage-collection records that are in neither the commit log nor
    /// the change log file yet (on storage only): the database logs them before the
    /// manifest names the runs the collection left (`Database::log_collected`). Not stored.
    unlogged: Vec<u64>,
}

impl ChangeLog {
    /// An empty log, enabled at `now`.
    ///
    /// # Errors
    /// As [`validate_retention`].
    pub fn new(retention_micros: i64, now: i64) -> Result<Self> {
        validate_retention(retention_micros)?;
        Ok(ChangeLog {
            retention_micros,
            enabled_micros: now,
            records: VecDeque::new(),
            last_sequence: 0,
            unlogged: Vec::new(),
        })
    }

    /// The retention period.
    pub fn retention_micros(&self) -> i64 {
        self.retention_micros
    }

    /// Changes the retention period (changes already older than it go at the next prune).
    ///
    /// # Errors
    /// As [`validate_retention`].
    pub fn set_retention(&mut self, micros: i64) -> Result<()> {
        validate_retention(micros)?;
        self.retention_micros = micros;
        Ok(())
    }

    /// When the stream was enabled.
    pub fn enabled_micros(&self) -> i64 {
        self.enabled_micros
    }

    /// The sequence number of the newest change (0 when none was ever logged).
    pub fn last_sequence(&self) -> u64 {
        self.last_sequence
    }

    /// Logs one committed write's rows, then drops changes past the retention.
    pub fn push(&mut self, rows: &[RowMutations], commit_micros: i64) {
        for r in rows {
            self.last_sequence += 1;
            self.records.push_back(ChangeRecord {
                kind: ChangeKind::User,
                sequence: self.last_sequence,
                commit_micros,
                row_key: r.row_key.clone(),
                mutations: r.mutations.clone(),
            });
        }
        self.prune(commit_micros);
    }

    /// Logs the cells garbage collection removed, one record per row (`collected` is in
    /// row order, each cell as a DeleteFromColumn of its one timestamp), at `now`. Returns
    /// the sequences the records were given.
    pub fn push_collected(
        &mut self,
        collected: Vec<(Vec<u8>, Mutation)>,
        now: i64,
    ) -> core::ops::Range<u64> {
        let mut rows: Vec<(Vec<u8>, Vec<Mutation>)> = Vec::new();
        for (row_key, mutation) in collected {
            match rows.last_mut() {
                Some((key, mutations)) if *key == row_key => mutations.push(mutation),
                _ => rows.push((row_key, alloc::vec![mutation])),
            }
        }
        self.push_collected_rows(rows, now)
    }

    /// Logs one garbage-collection record per row of `rows` (row key, its collected cells),
    /// at `now`: how recovery logs a garbage-collection record of the commit log, whose
    /// entries are the records as first logged. Returns the sequences given.
    pub fn push_collected_rows(
        &mut self,
        rows: Vec<(Vec<u8>, Vec<Mutation>)>,
        now: i64,
    ) -> core::ops::Range<u64> {
        let first = self.last_sequence + 1;
        for (row_key, mutations) in rows {
            self.last_sequence += 1;
            self.records.push_back(ChangeRecord {
                kind: ChangeKind::GarbageCollection,
                sequence: self.last_sequence,
                commit_micros: now,
                row_key,
                mutations,
            });
        }
        self.prune(now);
        first..self.last_sequence + 1
    }

    /// Notes that the records `sequences` are not durable yet (see the field's docs).
    pub(crate) fn mark_unlogged(&mut self, sequences: core::ops::Range<u64>) {
        self.unlogged.extend(sequences);
    }

    /// The records not durable yet, oldest first (those the retention already pruned are
    /// gone and need no logging).
    pub(crate) fn unlogged(&self) -> Vec<&ChangeRecord> {
        self.unlogged
            .iter()
            .filter_map(|&s| {
                let i = self.records.partition_point(|r| r.sequence < s);
                self.records.get(i).filter(|r| r.sequence == s)
            })
            .collect()
    }

    /// Whether some record is not durable yet.
    pub(crate) fn has_unlogged(&self) -> bool {
        !self.unlogged.is_empty()
    }

    /// Forgets the records [`ChangeLog::unlogged`] named: they are durable now.
    pub(crate) fn clear_unlogged(&mut self) {
        self.unlogged.clear();
    }

    /// Drops changes committed before `now - retention`.
    pub fn prune(&mut self, now: i64) {
        let oldest = now.saturating_sub(self.retention_micros);
        while self
            .records
            .front()
            .is_some_and(|r| r.commit_micros < oldest)
        {
            self.records.pop_front();
        }
    }

    /// The changes after sequence `after` (in order), committed at or before `until`, whose
    /// rows are in `range`.
    pub fn since(&self, after: u64, until: Option<i64>, range: &RowRange) -> Vec<ChangeRecord> {
        let start = self.records.partition_point(|r| r.sequence <= after);
        self.records
            .range(start..)
            .take_while(|r| until.is_none_or(|u| r.commit_micros <= u))
            .filter(|r| range.contains(&r.row_key))
            .cloned()
            .collect()
    }

    /// The position just before the first change committed at or after `micros`.
    ///
    /// # Errors
    /// `InvalidArgument` for a time before the retention window or before the stream was
    /// enabled (its changes are not kept), or after `now`.
    pub fn position_at(&self, micros: i64, now: i64) -> Result<u64> {
        let oldest = now
            .saturating_sub(self.retention_micros)
            .max(self.enabled_micros);
        if micros < oldest || micros > now {
            return Err(Error::invalid_argument(format!(
                "start_time must be within the change stream's retention, at or after {oldest} and at or before {now} (microseconds), got {micros}"
            )));
        }
        let first = self.records.partition_point(|r| r.commit_micros < micros);
        Ok(match first {
            0 => self
                .records
                .front()
                .map_or(self.last_sequence, |r| r.sequence - 1),
            n => self.records[n - 1].sequence,
        })
    }
}

/// A reader's position in a change stream: per cluster, the last sequence delivered;
/// encoded in continuation tokens as `table-hash/seq,seq,...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamPosition(pub Vec<u64>);

impl StreamPosition {
    /// The token for this position in `table_id`.
    pub fn encode(&self, table_id: &str) -> String {
        let mut s = format!("{:016x}/", fnv1a(table_id.as_bytes()));
        for (i, n) in self.0.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push_str(&format!("{n}"));
        }
        s
    }

    /// Reads a token for `table_id` with `clusters` positions.
    ///
    /// # Errors
    /// `InvalidArgument` for a malformed token or one from another table or instance.
    pub fn decode(token: &str, table_id: &str, clusters: usize) -> Result<Self> {
        let bad = || {
            Error::invalid_argument(format!(
                "continuation token {} is not a token of table {}",
                quoted(token),
                quoted(table_id)
            ))
        };
        let (hash, rest) = token.split_once('/').ok_or_else(bad)?;
        if u64::from_str_radix(hash, 16).ok() != Some(fnv1a(table_id.as_bytes())) {
            return Err(bad());
        }
        let seqs: Vec<u64> = rest
            .split(',')
            .map(|n| n.parse().map_err(|_| bad()))
            .collect::<Result<_>>()?;
        if seqs.len() != clusters {
            return Err(bad());
        }
        Ok(StreamPosition(seqs))
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The first bytes of a change-log file (docs/format/change_log.md): the format and its
/// version, then a line feed.
pub const CHANGES_MAGIC: &[u8] = b"sparsetable-changes 1\n";

/// The change logs of a database's tables as one file (docs/format/change_log.md): every
/// write with a sequence number up to `through_sequence` is in them; recovery logs the
/// commit log's later batches.
pub fn encode_changes(through_sequence: u64, logs: &[(&str, &ChangeLog)]) -> Vec<u8> {
    let mut out = CHANGES_MAGIC.to_vec();
    put_varint64(&mut out, through_sequence);
    put_len(&mut out, logs.len());
    for (table, log) in logs {
        put_str(&mut out, table);
        put_varint_i64(&mut out, log.retention_micros);
        put_varint_i64(&mut out, log.enabled_micros);
        put_varint64(&mut out, log.last_sequence);
        put_len(&mut out, log.records.len());
        for r in &log.records {
            put_varint64(&mut out, r.sequence);
            put_varint_i64(&mut out, r.commit_micros);
            put_u8(
                &mut out,
                match r.kind {
                    ChangeKind::User => 1,
                    ChangeKind::GarbageCollection => 2,
                },
            );
            put_bytes(&mut out, &r.row_key);
            put_len(&mut out, r.mutations.len());
            for m in &r.mutations {
                m.encode_to(&mut out);
            }
        }
    }
    let crc = CRC32C.checksum(&out);
    put_fixed32(&mut out, crc);
    out
}

/// The change logs [`encode_changes`] wrote, and its `through_sequence`.
///
/// # Errors
/// `DataLoss` for bytes that are not such a file (magic, checksum, truncation, a bad
/// retention or kind, sequences out of order); never a panic.
pub fn decode_changes(bytes: &[u8]) -> Result<(u64, Vec<(String, ChangeLog)>)> {
    let bad = |what: &str| data_loss(format!("change log file: {what}"));
    let body_len = bytes
        .len()
        .checked_sub(4)
        .filter(|&n| n >= CHANGES_MAGIC.len())
        .ok_or_else(|| bad("too short"))?;
    let (body, crc) = bytes.split_at(body_len);
    if CRC32C.checksum(body) != u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]) {
        return Err(bad("checksum mismatch"));
    }
    let rest = body
        .strip_prefix(CHANGES_MAGIC)
        .ok_or_else(|| bad("not a change log file (magic)"))?;
    let in_file = |e: Error| bad(e.message());
    let mut d = Decoder::new(rest);
    let through = d.varint64("through_sequence").map_err(in_file)?;
    // A table is at least its id's length, four numbers and a record count.
    let n = d.count(6, "table count").map_err(in_file)?;
    let mut logs = Vec::with_capacity(n);
    for _ in 0..n {
        let table = d.string("table id").map_err(in_file)?;
        let retention_micros = d.varint_i64("retention").map_err(in_file)?;
        validate_retention(retention_micros).map_err(in_file)?;
        let enabled_micros = d.varint_i64("enabled time").map_err(in_file)?;
        let last_sequence = d.varint64("last sequence").map_err(in_file)?;
        // A record is at least a sequence, a time, a kind, a row key length and a count.
        let m = d.count(5, "record count").map_err(in_file)?;
        let mut records = VecDeque::with_capacity(m);
        let mut previous = 0u64;
        for _ in 0..m {
            let sequence = d.varint64("record sequence").map_err(in_file)?;
            if sequence <= previous || sequence > last_sequence {
                return Err(bad("record sequences out of order"));
            }
            previous = sequence;
            let commit_micros = d.varint_i64("commit time").map_err(in_file)?;
            let kind = match d.u8("kind").map_err(in_file)? {
                1 => ChangeKind::User,
                2 => ChangeKind::GarbageCollection,
                k => return Err(bad(&format!("unknown record kind {k}"))),
            };
            let row_key = d.byte_vec("row key").map_err(in_file)?;
            let k = d.count(1, "mutation count").map_err(in_file)?;
            let mut mutations = Vec::with_capacity(k);
            for _ in 0..k {
                mutations.push(Mutation::decode_from(&mut d).map_err(in_file)?);
            }
            records.push_back(ChangeRecord {
                kind,
                sequence,
                commit_micros,
                row_key,
                mutations,
            });
        }
        logs.push((
            table,
            ChangeLog {
                retention_micros,
                enabled_micros,
                records,
                last_sequence,
                unlogged: Vec::new(),
            },
        ));
    }
    d.finish("change log file").map_err(in_file)?;
    Ok((through, logs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::ops::Bound;

    fn rows(key: &[u8]) -> Vec<RowMutations> {
        alloc::vec![RowMutations {
            row_key: key.to_vec(),
            mutations: alloc::vec![Mutation::DeleteFromRow],
        }]
    }

    #[test]
    fn retention_is_one_to_seven_days() {
        assert!(validate_retention(MIN_RETENTION_MICROS).is_ok());
        assert!(validate_retention(MAX_RETENTION_MICROS).is_ok());
        assert!(validate_retention(MIN_RETENTION_MICROS - 1).is_err());
        assert!(validate_retention(MAX_RETENTION_MICROS + 1).is_err());
    }

    #[test]
    fn since_resumes_after_a_position_and_prunes_old_changes() {
        let day = MIN_RETENTION_MICROS;
        let mut log = ChangeLog::new(day, 0).unwrap();
        log.push(&rows(b"a"), 10);
        log.push(&rows(b"b"), 20);
        let all = RowRange::all();
        assert_eq!(log.since(0, None, &all).len(), 2);
        assert_eq!(log.since(1, None, &all)[0].row_key, b"b");
        assert_eq!(log.since(0, Some(15), &all).len(), 1);
        let only_b = RowRange {
            start: Bound::Included(b"b".to_vec()),
            end: Bound::Unbounded,
        };
        assert_eq!(log.since(0, None, &only_b).len(), 1);
        assert_eq!(log.position_at(15, 30).unwrap(), 1);
        assert!(log.position_at(31, 30).is_err());
        log.push(&rows(b"c"), day + 15);
        assert_eq!(log.since(0, None, &all).len(), 2, "a is past the retention");
    }

    #[test]
    fn tokens_round_trip_and_name_their_table() {
        let p = StreamPosition(alloc::vec![3, 0]);
        let t = p.encode("t");
        assert_eq!(StreamPosition::decode(&t, "t", 2).unwrap(), p);
        for (token, table, n) in [
            (&t[..], "u", 2),
            (&t[..], "t", 3),
            ("x", "t", 2),
            ("0/1", "t", 1),
        ] {
            assert!(StreamPosition::decode(token, table, n).is_err(), "{token}");
        }
    }

    #[test]
    fn a_change_log_file_reads_back_and_no_damage_panics() {
        let mut log = ChangeLog::new(MIN_RETENTION_MICROS, 5).unwrap();
        log.push(&rows(b"a"), 10);
        log.push_collected(
            alloc::vec![(
                b"b".to_vec(),
                Mutation::DeleteFromColumn {
                    family: "cf".into(),
                    qualifier: b"q".to_vec(),
                    time_range: crate::model::mutation::TimestampRange {
                        start_micros: 7,
                        end_micros: Some(8),
                    },
                },
            )],
            11,
        );
        let bytes = encode_changes(42, &[("t", &log)]);
        let (through, logs) = decode_changes(&bytes).unwrap();
        assert_eq!(through, 42);
        assert_eq!(logs.len(), 1);
        assert_eq!(logs[0].0, "t");
        let all = RowRange::all();
        assert_eq!(logs[0].1.since(0, None, &all), log.since(0, None, &all));
        assert_eq!(logs[0].1.last_sequence(), 2);
        for cut in 0..bytes.len() {
            assert!(decode_changes(&bytes[..cut]).is_err());
        }
        for at in 0..bytes.len() {
            let mut b = bytes.clone();
            b[at] ^= 0x01;
            let e = decode_changes(&b).unwrap_err();
            assert_eq!(e.code(), crate::Code::DataLoss);
        }
    }
}
