//! Runs on storage: writing sorted runs as SSTable files and reading them back as sources.
//!
//! A [`RunStore`] allocates file numbers and turns a sorted list of LSM entries into an
//! SSTable file (docs/format/sstable.md) whose bloom filter is keyed by row, then opens it as
//! an [`SstableRun`], a [`Source`] the tablets read through. File names: `NNNNNN.sst` for
//! runs and `NNNNNN.log` for commit logs, from one counter, so a number names one file ever.
//!
//! Opening a run reads only its metadata: the footer, the meta (properties), index and filter
//! blocks, each checksummed (`Sstable::open`). Data blocks are read when a read needs them,
//! and each block's crc32c is checked every time it is read, so opening a database costs
//! time and bytes proportional to its metadata, not its data. A corrupt data block is then
//! found by the read that touches it: the run's cursor stops with `DataLoss` (its
//! [`SourceCursor::status`]), which every read path (point reads, scans both ways,
//! compactions, merges) returns rather than taking for the end of the data; rows in other
//! blocks still read. The full check (every block of the run read and checksummed, and its
//! entry count and byte total compared with its properties) is [`Source::verify`]: run at
//! open when [`RunStore::set_verify_on_open`] says so (`OpenOptions::verify_on_open`), and
//! by `Database::verify`. A run this process just wrote is not read back: its entries were
//! in hand, and its counts come from the file's own properties.

use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

use crate::lsm::internal_key;
use crate::lsm::row_merge::Entry;
use crate::lsm::source::{Source, SourceCursor};
use crate::lsm::sstable::{Sstable, SstableBuilder, SstableOptions};
use crate::platform::storage::Storage;
use crate::{Code, Error, Result};

/// The file name of run `n`.
pub fn run_file_name(n: u64) -> String {
    format!("{n:06}.sst")
}

/// The file name of commit log `n`.
pub fn log_file_name(n: u64) -> String {
    format!("{n:06}.log")
}

/// The file number in a run or log file name, if it is one.
pub fn parse_file_name(name: &str) -> Option<(u64, &'static str)> {
    let (num, ext) = name.split_once('.')?;
    let n = num.parse().ok()?;
    match ext {
        "sst" => Some((n, "sst")),
        "log" => Some((n, "log")),
        _ => None,
    }
}

pub use crate::lsm::source::RunMeta;

/// Writes and opens runs on a storage.
pub struct RunStore {
    pub(crate) storage: Arc<dyn Storage>,
    next_file: spin::Mutex<u64>,
    options: SstableOptions,
    /// File numbers from which runs may be being written outside the database lock (one
    /// entry per [`FilePin`]): the manifest's garbage collection leaves those files alone.
    pins: spin::Mutex<Vec<u64>>,
    /// Whether [`RunStore::open_run`] reads and checks every data block (the full verify)
    /// rather than only the run's metadata.
    verify_on_open: core::sync::atomic::AtomicBool,
}

/// Keeps the files a [`RunStore`] creates from now on out of garbage collection until
/// dropped (a background flush holds one while it writes and installs its runs).
#[cfg(feature = "std")]
pub(crate) struct FilePin {
    store: Arc<RunStore>,
    from: u64,
}

#[cfg(feature = "std")]
impl Drop for FilePin {
    fn drop(&mut self) {
        let mut pins = self.store.pins.lock();
        if let Some(i) = pins.iter().position(|&p| p == self.from) {
            pins.swap_remove(i);
        }
    }
}

impl core::fmt::Debug for RunStore {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RunStore")
            .field("next_file", &*self.next_file.lock())
            .finish()
    }
}

impl RunStore {
    pub(crate) fn new(storage: Arc<dyn Storage>, next_file: u64, options: SstableOptions) -> Self {
        RunStore {
            storage,
            next_file: spin::Mutex::new(next_file),
            options,
            pins: spin::Mutex::new(Vec::new()),
            verify_on_open: core::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Makes [`open_run`](Self::open_run) verify every data block of each run it opens
    /// (`true`), or read only the run's metadata (`false`, the default).
    pub(crate) fn set_verify_on_open(&self, verify: bool) {
        self.verify_on_open
            .store(verify, core::sync::atomic::Ordering::Relaxed);
    }

    /// Pins the files created from now on (see [`FilePin`]).
    #[cfg(feature = "std")]
    pub(crate) fn pin_new_files(self: &Arc<Self>) -> FilePin {
        let from = self.next_file_number();
        self.pins.lock().push(from);
        FilePin {
            store: self.clone(),
            from,
        }
    }

    /// The smallest file number garbage collection must leave alone (`u64::MAX`: none).
    pub(crate) fn pinned_from(&self) -> u64 {
        self.pins.lock().iter().copied().min().unwrap_or(u64::MAX)
    }

    /// A fresh file number.
    pub(crate) fn allocate(&self) -> u64 {
        let mut n = self.next_file.lock();
        let f = *n;
        *n += 1;
        f
    }

    /// The next file number that would be allocated.
    pub(crate) fn next_file_number(&self) -> u64 {
        *self.next_file.lock()
    }

    /// Writes sorted entries as a new run file and opens it.
    ///
    /// # Errors
    /// The storage's errors; nothing is left referenced on failure.
    pub(crate) fn write_run(
        &self,
        entries: &[Entry],
        max_sequence: u64,
    ) -> Result<Arc<dyn Source>> {
        let mut w = self.run_writer()?;
        for (k, v) in entries {
            w.add(k, v)?;
        }
        w.finish(max_sequence)
    }

    /// A new run file to stream sorted entries into (compactions write this way, so no
    /// tablet's worth of entries is copied into memory first).
    ///
    /// # Errors
    /// The storage's errors creating the file.
    pub(crate) fn run_writer(&self) -> Result<RunWriter<'_>> {
        let number = self.allocate();
        let name = run_file_name(number);
        let builder = SstableBuilder::new(self.storage.create(&name)?, self.options.clone());
        let builder = match builder {
            Ok(b) => b,
            Err(e) => {
                let _ = self.storage.remove(&name);
                return Err(e);
            }
        };
        Ok(RunWriter {
            store: self,
            number,
            name,
            builder: Some(builder),
            prefix: Vec::new(),
            row: Vec::new(),
        })
    }

    /// Opens a run file: reads and checks its footer, properties, index and filter; with
    /// verify-on-open set, also reads and checks every data block ([`Source::verify`]).
    ///
    /// # Errors
    /// `DataLoss` for a corrupt file (its metadata, or with verify-on-open any block);
    /// `NotFound` if it is missing. The message names the file.
    pub(crate) fn open_run(&self, meta: &RunMeta) -> Result<Arc<dyn Source>> {
        let name = run_file_name(meta.file_number);
        let table = Sstable::open(self.storage.open(&name)?)
            .map_err(|e| Error::new(e.code(), format!("{name}: {}", e.message())))?;
        let run = SstableRun::into_source(table, meta.file_number, meta.max_sequence);
        if self
            .verify_on_open
            .load(core::sync::atomic::Ordering::Relaxed)
        {
            run.verify()?;
        }
        Ok(run)
    }
}

/// A run file being written: entries in strictly ascending key order, then
/// [`RunWriter::finish`]. Dropped unfinished (or failed), the file is removed.
pub(crate) struct RunWriter<'a> {
    store: &'a RunStore,
    number: u64,
    name: String,
    builder: Option<SstableBuilder>,
    /// The row part of the last key added and its decoded row key (the bloom filter's key),
    /// so a row's key is decoded once, not once per entry.
    prefix: Vec<u8>,
    row: Vec<u8>,
}

impl RunWriter<'_> {
    /// Appends an entry.
    ///
    /// # Errors
    /// `InvalidArgument` for keys out of order or a key that names no row; the storage's
    /// errors.
    pub(crate) fn add(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        let Some(builder) = self.builder.as_mut() else {
            return Err(Error::new(
                Code::Internal,
                "run writer used after it failed",
            ));
        };
        if self.prefix.is_empty() || !key.starts_with(&self.prefix) {
            self.row = internal_key::row_key_of(key)?;
            let n = internal_key::row_prefix_len(key).unwrap_or(key.len());
            self.prefix.clear();
            self.prefix.extend_from_slice(&key[..n]);
        }
        builder.add(key, value, &self.row)
    }

    /// Finishes and syncs the file and opens it as a run.
    ///
    /// # Errors
    /// The storage's errors; the file is removed.
    pub(crate) fn finish(mut self, max_sequence: u64) -> Result<Arc<dyn Source>> {
        let Some(builder) = self.builder.take() else {
            return Err(Error::new(
                Code::Internal,
                "run writer used after it failed",
            ));
        };
        let name = core::mem::take(&mut self.name);
        let result = builder.finish().and_then(|_| {
            Sstable::open(self.store.storage.open(&name)?)
                .map_err(|e| Error::new(e.code(), format!("{name}: {}", e.message())))
        });
        match result {
            Ok(table) => Ok(SstableRun::into_source(table, self.number, max_sequence)),
            Err(e) => {
                let _ = self.store.storage.remove(&name);
                Err(e)
            }
        }
    }
}

impl Drop for RunWriter<'_> {
    fn drop(&mut self) {
        // Not finished: the file is a fragment nothing will reference.
        if self.builder.is_some() {
            self.builder = None;
            let _ = self.store.storage.remove(&self.name);
        }
    }
}

/// An SSTable file read as a tablet source.
pub struct SstableRun {
    table: Sstable,
    meta: RunMeta,
    bytes: u64,
}

impl SstableRun {
    /// Wraps an opened table; sizes and key bounds come from its properties.
    fn into_source(table: Sstable, file_number: u64, max_sequence: u64) -> Arc<dyn Source> {
        let props = table.properties();
        let meta = RunMeta {
            file_number,
            size_bytes: props.file_size,
            entries: props.num_entries,
            smallest_key: props.smallest_key.clone().unwrap_or_default(),
            largest_key: props.largest_key.clone().unwrap_or_default(),
            max_sequence,
        };
        let bytes = props.raw_key_bytes + props.raw_value_bytes;
        Arc::new(SstableRun { table, meta, bytes })
    }

    /// `e` with the run's file name in front, so a `DataLoss` says which file to restore.
    fn named(&self, e: Error) -> Error {
        named(self.meta.file_number, e)
    }
}

/// `e` with run file `file_number`'s name in front.
fn named(file_number: u64, e: Error) -> Error {
    Error::new(
        e.code(),
        format!("{}: {}", run_file_name(file_number), e.message()),
    )
}

impl core::fmt::Debug for SstableRun {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SstableRun")
            .field("meta", &self.meta)
            .finish()
    }
}

impl Source for SstableRun {
    fn size_bytes(&self) -> u64 {
        self.bytes
    }
    fn verify(&self) -> Result<()> {
        self.table.verify().map_err(|e| self.named(e))
    }
    fn max_sequence(&self) -> u64 {
        self.meta.max_sequence
    }
    fn run_meta(&self) -> Option<RunMeta> {
        Some(self.meta.clone())
    }
    fn cursor(&self) -> alloc::boxed::Box<dyn SourceCursor<'_> + '_> {
        alloc::boxed::Box::new(SstableCursor {
            it: self.table.iter(),
            file_number: self.meta.file_number,
        })
    }
    fn may_contain_row(&self, row: &crate::lsm::source::RowProbe<'_>) -> bool {
        self.table.may_contain_hash(row.hash)
    }
    fn key_range(&self) -> Option<(&[u8], &[u8])> {
        (self.meta.entries > 0).then_some((
            self.meta.smallest_key.as_slice(),
            self.meta.largest_key.as_slice(),
        ))
    }
}

/// A cursor over a run file: its two-level iterator. A block that fails its checksum (or a
/// read that fails) ends the cursor, and [`SourceCursor::status`] reports it, naming the
/// file: the scan above returns it instead of taking it for the end of the data.
struct SstableCursor {
    it: crate::lsm::sstable::SstableIter,
    file_number: u64,
}

impl SourceCursor<'_> for SstableCursor {
    fn seek(&mut self, key: &[u8]) {
        self.it.seek(key);
    }
    fn entry(&self) -> Option<(&[u8], &[u8])> {
        self.it.valid().then(|| (self.it.key(), self.it.value()))
    }
    fn seek_before(&mut self, key: Option<&[u8]>) {
        match key {
            None => self.it.seek_to_last(),
            Some(k) => {
                self.it.seek(k);
                if self.it.valid() {
                    self.it.prev();
                } else if self.it.status().is_ok() {
                    // Every key is below `k`.
                    self.it.seek_to_last();
                }
            }
        }
    }
    fn next(&mut self) {
        self.it.next();
    }
    fn prev(&mut self) {
        self.it.prev();
    }
    fn status(&self) -> Result<()> {
        self.it.status().map_err(|e| named(self.file_number, e))
    }
}
