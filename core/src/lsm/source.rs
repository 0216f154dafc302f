//! What a tablet reads from: a [`Source`] is anything holding LSM entries sorted by internal
//! key (the layers of a memtable, `lsm::memtable`, and the immutable sorted runs,
//! `lsm::persist`). Reads ask one thing of a source: a [`SourceCursor`] that seeks and then
//! steps forward or backward, lending each entry's bytes without copying them. Every read
//! (forward and reversed scans, point reads, the reads a write makes) merges the cursors of
//! a tablet's sources (`table::scan::TabletScan`), so row navigation lives in one place and
//! does not depend on how a source stores its bytes. A run on storage describes itself with
//! a [`RunMeta`].
//!
//! Invariant: a source's entries never change once a reader can see them (memtable layers
//! are frozen by a reader's clone; runs are immutable), so a cursor needs no lock.

use alloc::boxed::Box;
use alloc::vec::Vec;

/// One immutable sorted run (SSTable file) of a tablet or backup.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunMeta {
    /// The run's file number (its file name is derived from it).
    pub file_number: u64,
    /// The file's size in bytes.
    pub size_bytes: u64,
    /// The number of entries in the run.
    pub entries: u64,
    /// The smallest key in the run.
    pub smallest_key: Vec<u8>,
    /// The largest key in the run.
    pub largest_key: Vec<u8>,
    /// The largest sequence number of any entry in the run.
    pub max_sequence: u64,
}

/// A row a point read asks sources about: its key and the key's filter hash
/// (`sstable::bloom::row_hash`), computed once for every source's filter rather than once per
/// source (a tablet's memtable layers and several runs may each be asked).
#[derive(Debug, Clone, Copy)]
pub struct RowProbe<'a> {
    /// The row key (unescaped).
    pub key: &'a [u8],
    /// `row_hash(key)`.
    pub hash: u32,
}

impl<'a> RowProbe<'a> {
    /// The probe of row `key`.
    pub fn new(key: &'a [u8]) -> Self {
        RowProbe {
            key,
            hash: crate::lsm::sstable::bloom::row_hash(key),
        }
    }
}

/// A sorted collection of LSM entries.
pub trait Source: Send + Sync {
    /// Bytes of keys and values held.
    fn size_bytes(&self) -> u64;
    /// The highest sequence number of any write this source has absorbed (for a run made
    /// by compaction: of any input, kept or dropped). Recovery skips log records at or below
    /// it, since they are already in the source.
    fn max_sequence(&self) -> u64;
    /// The run's on-disk description, if it is a file.
    fn run_meta(&self) -> Option<RunMeta> {
        None
    }
    /// A cursor over the entries, positioned nowhere until its first `seek` or
    /// `seek_before`.
    fn cursor(&self) -> Box<dyn SourceCursor<'_> + '_>;
    /// False only if the source surely holds no entry of `row.key` (a bloom filter's
    /// answer); a point read skips such sources. The default is always true.
    fn may_contain_row(&self, _row: &RowProbe<'_>) -> bool {
        true
    }
    /// The source's smallest and largest keys, where it knows them without a search
    /// (`None`: unknown or empty). A scan skips a source whose range lies outside it before
    /// opening a cursor, and walks sources of disjoint ranges as one (see `scan`).
    fn key_range(&self) -> Option<(&[u8], &[u8])> {
        None
    }
    /// True only if the source surely holds no entry: a scan opens no cursor for it.
    fn is_known_empty(&self) -> bool {
        false
    }
    /// Reads and checks every entry the source holds (a file's every block against its
    /// checksum and recorded counts): the explicit full check. In-memory sources have
    /// nothing to check.
    ///
    /// # Errors
    /// `DataLoss` naming the file for a corrupt block; the storage's errors.
    fn verify(&self) -> crate::Result<()> {
        Ok(())
    }
}

/// A bidirectional cursor over one [`Source`]'s entries in key order.
///
/// Invariant: after `seek(k)` the cursor is at the first entry `>= k` and `next` moves to
/// the following entry; after `seek_before(k)` it is at the last entry `< k` and `prev`
/// moves to the preceding one. REQUIRES: `next` only after `seek`, `prev` only after
/// `seek_before` (a read walks in one direction; implementations may rely on it). `entry`
/// lends the current key and value; `None` once the cursor is exhausted.
pub trait SourceCursor<'a> {
    /// Positions at the first entry whose key is `>= key`.
    fn seek(&mut self, key: &[u8]);
    /// Positions at the last entry whose key is `< key` (`None`: the last entry of all).
    fn seek_before(&mut self, key: Option<&[u8]>);
    /// The current entry's key and value; `None` once the cursor is exhausted (or before
    /// the first seek).
    fn entry(&self) -> Option<(&[u8], &[u8])>;
    /// The current entry borrowed for as long as the source itself, for sources that hold
    /// their entries in memory (a scan then lends them on without copying). `None` when
    /// exhausted or when the bytes live only in the cursor (a file's block).
    fn lasting_entry(&self) -> Option<(&'a [u8], &'a [u8])> {
        None
    }
    /// Moves to the next entry (nothing when exhausted).
    fn next(&mut self);
    /// Moves to the previous entry (nothing when exhausted).
    fn prev(&mut self);
    /// `Ok` unless an error ended the cursor: a source read lazily from storage (a run
    /// file) stops at a block that fails its checksum or cannot be read, and reports it
    /// here. An exhausted cursor whose status is an error has NOT reached the end of its
    /// data: every reader checks this before taking `entry() == None` for the end. Sources
    /// in memory never fail.
    ///
    /// # Errors
    /// `DataLoss` (naming the file) for a corrupt block; the storage's errors.
    fn status(&self) -> crate::Result<()> {
        Ok(())
    }
}
