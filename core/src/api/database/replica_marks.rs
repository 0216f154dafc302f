//! Replication marks: for each source cluster, the highest arrival number (the replication
//! queue's number for a write, docs/format/replication_queue.md) of a write replication
//! delivered to this database. A replicated instance asks for them when it restores its
//! queue after a restart, and skips the deliveries they say were already applied: an
//! AddToCell applied just before the process died, whose delivery the queue file did not
//! record yet, is then not merged a second time.
//!
//! The mark and the write are one durable step: a delivered write's commit log record (type
//! 4, docs/format/commit_log.md) names its source and arrival, and recovery raises the mark
//! from it; a checkpoint, which stops naming that log, first writes the marks to the file
//! [`MARKS_FILE`] (docs/format/replica_marks.md, replaced whole, new-then-rename), which the
//! next open reads before replaying the logs.
//!
//! Invariants: a mark only grows; a mark is durable no later than the write that raised it
//! (same record), and stays durable after the record's log is dropped (the file is written
//! before the manifest that drops it); the file lists each source once, in id order.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{CommittedWrite, Database};
use crate::codec::encoding::{put_fixed32, put_len, put_str, put_varint64, Decoder, CRC32C};
use crate::durability::commit_log::Origin;
use crate::platform::storage::{read_all, Storage};
use crate::{Code, Error, Result};

/// The file a database keeps its replication marks in between checkpoints.
pub const MARKS_FILE: &str = "REPLICA_MARKS";

/// The first bytes of [`MARKS_FILE`].
const MARKS_MAGIC: &[u8] = b"sparsetable-replica-marks 1\n";

impl Database {
    /// Per source cluster id, the highest arrival number of a write replication delivered
    /// here ([`Database::apply_delivery`]); durable on storage with the write that raised it.
    pub fn replica_marks(&self) -> &BTreeMap<String, u64> {
        &self.replica_marks
    }

    /// Applies a delivery of replication: `writes` (of one table; the delivered write first,
    /// then later writes of its rows applied again after it) as one atomic write, whose log
    /// record names `origin` (the source cluster's id and the write's arrival number), so the
    /// replication mark for that source is raised with it (see the module docs). Rows this
    /// database cannot take are skipped and their errors returned, as
    /// [`Database::apply_committed`] does.
    ///
    /// # Errors
    /// `InvalidArgument` for writes of different tables or an origin without a source or
    /// arrival; storage errors from the commit log.
    pub fn apply_delivery(
        &mut self,
        writes: &[CommittedWrite],
        origin: Origin,
    ) -> Result<Vec<Error>> {
        if !origin.is_mark() || origin.source.is_empty() {
            return Err(Error::invalid_argument(
                "a delivery names its source cluster and arrival number",
            ));
        }
        let Some(first) = writes.first() else {
            return Ok(Vec::new());
        };
        if writes.iter().any(|w| w.table_id != first.table_id) {
            return Err(Error::invalid_argument(
                "a delivery's writes are of one table",
            ));
        }
        // One commit, so the write, the writes applied again after it and the mark are
        // durable together: a crash leaves all of them or none.
        let combined = CommittedWrite {
            table_id: first.table_id.clone(),
            rows: writes.iter().flat_map(|w| w.rows.iter().cloned()).collect(),
            commit_micros: first.commit_micros,
            sequence: 0,
        };
        let refused = self.apply_from(&combined, origin.clone())?;
        // A delivery whose every row was refused wrote no record; it is marked anyway (in
        // memory; durable with the next), since delivering it again would be refused again.
        self.raise_replica_mark(&origin.source, origin.arrival);
        Ok(refused)
    }

    /// Raises the mark of `source` to `arrival` (a no-op for an unmarked origin or a lower
    /// arrival).
    pub(super) fn raise_replica_mark(&mut self, source: &str, arrival: u64) {
        if arrival == 0 {
            return;
        }
        match self.replica_marks.get_mut(source) {
            Some(m) if *m >= arrival => {}
            Some(m) => {
                *m = arrival;
                self.replica_marks_dirty = true;
            }
            None => {
                self.replica_marks.insert(source.into(), arrival);
                self.replica_marks_dirty = true;
            }
        }
    }

    /// Reads [`MARKS_FILE`] (if any) into the marks, when opening.
    ///
    /// # Errors
    /// `DataLoss` for a damaged file; the storage's errors.
    pub(super) fn read_replica_marks(&mut self, storage: &dyn Storage) -> Result<()> {
        match read_all(storage, MARKS_FILE) {
            Ok(bytes) => {
                for (source, arrival) in decode_marks(&bytes)? {
                    self.raise_replica_mark(&source, arrival);
                }
                // What the file holds needs no rewrite.
                self.replica_marks_dirty = false;
                Ok(())
            }
            Err(e) if e.code() == Code::NotFound => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Writes the marks to [`MARKS_FILE`] (new, synced, renamed over the old one) if they
    /// changed since it was last written: before a checkpoint's manifest stops naming the
    /// logs whose records raised them. A no-op in memory.
    ///
    /// # Errors
    /// The storage's errors (the previous file stays).
    pub(super) fn write_replica_marks(&mut self) -> Result<()> {
        let Some(p) = &self.persist else {
            return Ok(());
        };
        if !self.replica_marks_dirty {
            return Ok(());
        }
        let storage = p.store.storage.clone();
        let tmp = "REPLICA_MARKS.tmp";
        let mut file = storage.create(tmp)?;
        file.append(&encode_marks(&self.replica_marks))?;
        file.sync()?;
        drop(file);
        storage.rename(tmp, MARKS_FILE)?;
        self.replica_marks_dirty = false;
        Ok(())
    }
}

/// The bytes of [`MARKS_FILE`] (docs/format/replica_marks.md).
pub(crate) fn encode_marks(marks: &BTreeMap<String, u64>) -> Vec<u8> {
    let mut out = MARKS_MAGIC.to_vec();
    put_len(&mut out, marks.len());
    for (source, arrival) in marks {
        put_str(&mut out, source);
        put_varint64(&mut out, *arrival);
    }
    let crc = CRC32C.checksum(&out);
    put_fixed32(&mut out, crc);
    out
}

/// Decodes [`MARKS_FILE`].
///
/// # Errors
/// `DataLoss` for a short file, a checksum mismatch, a wrong magic, a malformed or
/// out-of-order entry, an arrival of 0 or trailing bytes.
pub(crate) fn decode_marks(bytes: &[u8]) -> Result<Vec<(String, u64)>> {
    let bad = |what: &str| Error::new(Code::DataLoss, format!("{MARKS_FILE}: {what}"));
    let body_len = bytes
        .len()
        .checked_sub(4)
        .filter(|&n| n >= MARKS_MAGIC.len())
        .ok_or_else(|| bad("too short"))?;
    let (body, crc) = bytes.split_at(body_len);
    if CRC32C.checksum(body) != u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]) {
        return Err(bad("checksum mismatch"));
    }
    let rest = body
        .strip_prefix(MARKS_MAGIC)
        .ok_or_else(|| bad("not a marks file (magic)"))?;
    let mut d = Decoder::new(rest);
    // An entry is at least a source length, one source byte and an arrival.
    let n = d.count(3, "mark count").map_err(|e| bad(e.message()))?;
    let mut marks: Vec<(String, u64)> = Vec::with_capacity(n);
    for _ in 0..n {
        let source = d.string("source").map_err(|e| bad(e.message()))?;
        let arrival = d.varint64("arrival").map_err(|e| bad(e.message()))?;
        if source.is_empty() || arrival == 0 {
            return Err(bad("a mark needs a source and an arrival number"));
        }
        if marks.last().is_some_and(|(last, _)| *last >= source) {
            return Err(bad("sources out of order or repeated"));
        }
        marks.push((source, arrival));
    }
    d.finish("marks").map_err(|e| bad(e.message()))?;
    Ok(marks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_round_trip_and_damage_is_data_loss() {
        let mut marks = BTreeMap::new();
        marks.insert(String::from("east"), 7);
        marks.insert(String::from("west"), 300);
        let bytes = encode_marks(&marks);
        assert_eq!(
            decode_marks(&bytes).unwrap(),
            [("east".into(), 7), ("west".into(), 300)]
        );
        for cut in 0..bytes.len() {
            assert_eq!(
                decode_marks(&bytes[..cut]).unwrap_err().code(),
                Code::DataLoss
            );
        }
        let mut flipped = bytes.clone();
        flipped[MARKS_MAGIC.len() + 2] ^= 1;
        assert_eq!(decode_marks(&flipped).unwrap_err().code(), Code::DataLoss);
        assert_eq!(decode_marks(&encode_marks(&BTreeMap::new())).unwrap(), []);
    }
}
