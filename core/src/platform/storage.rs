//! The one narrow interface through which the engine touches persistent bytes.
//!
//! Like LevelDB's `Env`, but only files: a flat namespace of named, append-only files that
//! can be read at any offset, renamed atomically and removed. The clock and randomness have
//! their own traits. Two backends: [`MemStorage`] (no_std; the browser and fast tests) and,
//! with `std`, [`FileStorage`] (a directory). Contract every backend keeps:
//! - `create` makes an empty file, replacing any file of that name;
//! - bytes appended are readable through a later `open` once `append` returned, and survive a
//!   crash once `sync` returned (MemStorage: always, as nothing crashes);
//! - `rename` replaces the target atomically; `sync_dir` makes creations, renames and removals
//!   durable (a no-op where the backend needs none).
//!
//! Errors are the engine's: `Unavailable` for I/O failures the same call may survive later
//! (a full or failing disk: the caller retries), `FailedPrecondition` for a file system that
//! refuses writes (read-only, permissions: an operator must act), `NotFound` for a missing
//! file. [`FaultyStorage`] injects the same errors into any backend, for tests;
//! [`CountingStorage`] counts the bytes read through any backend, for tests and benchmarks.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec::Vec;

use crate::{Code, Error, Result};

pub mod counting;
pub mod faulty;
pub use counting::CountingStorage;
pub use faulty::FaultyStorage;

/// A file being written: append-only.
pub trait WritableFile: Send + Sync {
    /// Appends bytes at the end.
    ///
    /// # Errors
    /// `Unavailable` on I/O failure.
    fn append(&mut self, data: &[u8]) -> Result<()>;
    /// Makes everything appended so far durable.
    ///
    /// # Errors
    /// `Unavailable` on I/O failure.
    fn sync(&mut self) -> Result<()>;
    /// Bytes written so far.
    fn len(&self) -> u64;
    /// Whether nothing was written yet.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// A handle that makes this file's appended bytes durable without borrowing the
    /// writer, so many writers can share one fsync outside any lock (group commit). `None`
    /// where syncing is a no-op (memory).
    fn syncer(&self) -> Option<Arc<dyn Syncer>> {
        None
    }
}

/// Makes a file's written bytes durable; see [`WritableFile::syncer`].
pub trait Syncer: Send + Sync {
    /// Syncs everything written to the file so far.
    ///
    /// # Errors
    /// `Unavailable` on I/O failure.
    fn sync(&self) -> Result<()>;
}

/// A file opened for reading at arbitrary offsets.
pub trait RandomAccessFile: Send + Sync {
    /// Reads exactly `len` bytes at `offset`.
    ///
    /// # Errors
    /// `DataLoss` if the range runs past the end of the file; `Unavailable` on I/O failure.
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>>;
    /// Reads exactly `len` bytes at `offset` into `buf`, replacing what it held. A file
    /// that can reuses `buf`'s allocation (a reader of many large chunks, like the commit
    /// log's, then allocates and clears memory once, not per chunk); by default it is
    /// [`RandomAccessFile::read_at`]. After an error `buf` holds unspecified bytes.
    ///
    /// # Errors
    /// As [`RandomAccessFile::read_at`].
    fn read_at_into(&self, offset: u64, len: usize, buf: &mut Vec<u8>) -> Result<()> {
        *buf = self.read_at(offset, len)?;
        Ok(())
    }
    /// The file's length in bytes.
    fn len(&self) -> u64;
    /// Whether the file is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A flat namespace of files.
pub trait Storage: Send + Sync {
    /// Creates (or truncates) a file for appending.
    ///
    /// # Errors
    /// `Unavailable` on I/O failure.
    fn create(&self, name: &str) -> Result<Box<dyn WritableFile>>;
    /// Opens an existing file for appending at its end (used to continue a log).
    ///
    /// # Errors
    /// `NotFound` if absent; `Unavailable` on I/O failure.
    fn append_to(&self, name: &str) -> Result<Box<dyn WritableFile>>;
    /// Opens a file for reading.
    ///
    /// # Errors
    /// `NotFound` if absent; `Unavailable` on I/O failure.
    fn open(&self, name: &str) -> Result<Arc<dyn RandomAccessFile>>;
    /// Renames a file, atomically replacing `to`.
    ///
    /// # Errors
    /// `NotFound` if `from` is absent; `Unavailable` on I/O failure.
    fn rename(&self, from: &str, to: &str) -> Result<()>;
    /// Removes a file; removing a missing file is not an error.
    ///
    /// # Errors
    /// `Unavailable` on I/O failure.
    fn remove(&self, name: &str) -> Result<()>;
    /// The names of all files, sorted.
    ///
    /// # Errors
    /// `Unavailable` on I/O failure.
    fn list(&self) -> Result<Vec<String>>;
    /// Makes creations, renames and removals durable.
    ///
    /// # Errors
    /// `Unavailable` on I/O failure.
    fn sync_dir(&self) -> Result<()>;
}

/// Reads a whole file.
///
/// # Errors
/// As [`Storage::open`] and [`RandomAccessFile::read_at`].
pub fn read_all(storage: &dyn Storage, name: &str) -> Result<Vec<u8>> {
    let f = storage.open(name)?;
    let len = usize::try_from(f.len())
        .map_err(|_| Error::new(Code::ResourceExhausted, format!("{name}: file too large")))?;
    f.read_at(0, len)
}

fn past_end(offset: u64, len: usize, size: u64) -> Error {
    Error::new(
        Code::DataLoss,
        format!("read of {len} bytes at offset {offset} runs past the end of a {size}-byte file"),
    )
}

type Shared = Arc<spin::Mutex<Vec<u8>>>;

/// Files held in memory. Cloning shares the same files (so a test can "reopen").
#[derive(Clone, Default)]
pub struct MemStorage {
    files: Arc<spin::Mutex<BTreeMap<String, Shared>>>,
}

impl core::fmt::Debug for MemStorage {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MemStorage")
            .field("files", &self.files.lock().keys().collect::<Vec<_>>())
            .finish()
    }
}

impl MemStorage {
    /// An empty storage.
    pub fn new() -> Self {
        Self::default()
    }

    /// Replaces a file's bytes wholesale: for corruption tests.
    pub fn set_bytes(&self, name: &str, bytes: Vec<u8>) {
        self.files
            .lock()
            .insert(name.to_string(), Arc::new(spin::Mutex::new(bytes)));
    }

    fn get(&self, name: &str) -> Result<Shared> {
        self.files
            .lock()
            .get(name)
            .cloned()
            .ok_or_else(|| Error::not_found(format!("file {name:?} not found")))
    }
}

struct MemWriter(Shared);

impl WritableFile for MemWriter {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        self.0.lock().extend_from_slice(data);
        Ok(())
    }
    fn sync(&mut self) -> Result<()> {
        Ok(())
    }
    fn len(&self) -> u64 {
        self.0.lock().len() as u64
    }
}

struct MemReader(Vec<u8>);

impl RandomAccessFile for MemReader {
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let start = usize::try_from(offset).map_err(|_| past_end(offset, len, self.len()))?;
        let end = start.checked_add(len).filter(|e| *e <= self.0.len());
        match end {
            Some(end) => Ok(self.0[start..end].to_vec()),
            None => Err(past_end(offset, len, self.len())),
        }
    }
    fn len(&self) -> u64 {
        self.0.len() as u64
    }
}

impl Storage for MemStorage {
    fn create(&self, name: &str) -> Result<Box<dyn WritableFile>> {
        let file: Shared = Arc::default();
        self.files.lock().insert(name.to_string(), file.clone());
        Ok(Box::new(MemWriter(file)))
    }
    fn append_to(&self, name: &str) -> Result<Box<dyn WritableFile>> {
        Ok(Box::new(MemWriter(self.get(name)?)))
    }
    fn open(&self, name: &str) -> Result<Arc<dyn RandomAccessFile>> {
        // A snapshot: files being read are immutable in the engine (runs, manifests) or read
        // once during recovery (logs).
        Ok(Arc::new(MemReader(self.get(name)?.lock().clone())))
    }
    fn rename(&self, from: &str, to: &str) -> Result<()> {
        let mut files = self.files.lock();
        let f = files
            .remove(from)
            .ok_or_else(|| Error::not_found(format!("file {from:?} not found")))?;
        files.insert(to.to_string(), f);
        Ok(())
    }
    fn remove(&self, name: &str) -> Result<()> {
        self.files.lock().remove(name);
        Ok(())
    }
    fn list(&self) -> Result<Vec<String>> {
        Ok(self.files.lock().keys().cloned().collect())
    }
    fn sync_dir(&self) -> Result<()> {
        Ok(())
    }
}

// The directory backend needs positional reads (`FileExt`), which exist on Unix; wasm32
// builds with `std` get the in-memory backend only.
#[cfg(all(feature = "std", unix))]
pub use file::{FileStorage, LOCK_FILE};

#[cfg(all(feature = "std", unix))]
mod file {
    use super::*;
    use std::fs;
    use std::io::Write;
    use std::os::unix::fs::FileExt;
    use std::path::{Path, PathBuf};

    /// The engine's code for an OS error (see docs/errors.md).
    fn io(context: &str, e: std::io::Error) -> Error {
        use std::io::ErrorKind;
        match e.kind() {
            ErrorKind::NotFound => Error::not_found(format!("{context}: {e}")),
            // Retrying cannot help until an operator remounts the directory read-write or
            // fixes its permissions.
            ErrorKind::ReadOnlyFilesystem | ErrorKind::PermissionDenied => {
                Error::failed_precondition(format!(
                    "{context}: {e} (the data directory must be writable)"
                ))
            }
            // A full disk (ENOSPC, EDQUOT), a failing one (EIO), an interrupted call: the
            // same request may succeed later, so the caller may retry.
            _ => Error::new(Code::Unavailable, format!("{context}: {e}")),
        }
    }

    /// The refusal of a directory the process cannot write to.
    fn not_writable(dir: &Path, e: &std::io::Error) -> Error {
        Error::failed_precondition(format!(
            "{} is not writable ({e}): Sparsetable needs a writable data directory, since \
             opening a database writes its commit log and manifest; mount it read-write, fix \
             its permissions, or copy it to a writable place",
            dir.display()
        ))
    }

    fn is_not_writable(e: &std::io::Error) -> bool {
        use std::io::ErrorKind;
        matches!(
            e.kind(),
            ErrorKind::ReadOnlyFilesystem | ErrorKind::PermissionDenied
        )
    }

    /// Files in one directory of the host file system, held exclusively.
    ///
    /// Opening takes an OS lock (`flock`) on the file [`LOCK_FILE`] in the directory and
    /// keeps it until the last clone of this value is dropped, so two processes (or two
    /// opens in one process) never write one directory at once: the second would silently
    /// overwrite the first's manifest and lose its acknowledged writes. The OS releases the
    /// lock when the holder dies, so a crash never leaves the directory locked.
    #[derive(Debug, Clone)]
    pub struct FileStorage {
        dir: PathBuf,
        // Held for its lock; the value's clones share it.
        _lock: Arc<fs::File>,
    }

    /// The name of the lock file [`FileStorage`] holds in its directory. It is not a data
    /// file: the database never lists, reads or removes it.
    pub const LOCK_FILE: &str = "LOCK";

    /// A file [`FileStorage::new`] creates and removes at once, to learn whether the
    /// directory accepts new files. Not a data file either.
    const WRITE_PROBE: &str = "LOCK.probe";

    impl FileStorage {
        /// Uses (and creates if needed) the directory `dir`, and locks it for as long as
        /// this value (or a clone) lives.
        ///
        /// # Errors
        /// `FailedPrecondition` if the directory is not writable (a read-only mount or
        /// permissions: Sparsetable refuses it at open rather than failing every later
        /// write); `Unavailable` if the directory or its lock file cannot be created;
        /// `FailedPrecondition` if another `FileStorage`, in this process or another, holds
        /// the directory (the message names the holder's process id when it is known).
        pub fn new(dir: impl AsRef<Path>) -> Result<Self> {
            let dir = dir.as_ref().to_path_buf();
            fs::create_dir_all(&dir).map_err(|e| io(&dir.display().to_string(), e))?;
            let lock_path = dir.join(LOCK_FILE);
            let mut file = fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&lock_path)
                .map_err(|e| {
                    if is_not_writable(&e) {
                        not_writable(&dir, &e)
                    } else {
                        io(&lock_path.display().to_string(), e)
                    }
                })?;
            match file.try_lock() {
                Ok(()) => {}
                Err(fs::TryLockError::WouldBlock) => {
                    let holder = fs::read_to_string(&lock_path).unwrap_or_default();
                    let holder = holder.trim();
                    let by = if holder.is_empty() {
                        String::from("another process")
                    } else {
                        format!("process {holder}")
                    };
                    return Err(Error::failed_precondition(format!(
                        "{} is in use by {by}: one database directory can be opened by one \
                         process at a time",
                        dir.display()
                    )));
                }
                Err(fs::TryLockError::Error(e)) => {
                    return Err(io(&lock_path.display().to_string(), e));
                }
            }
            // A writable lock file in a directory that refuses new files (its permissions)
            // would fail the first write instead: refuse now, with the reason.
            let probe = dir.join(WRITE_PROBE);
            match fs::File::create(&probe) {
                Ok(_) => {
                    let _ = fs::remove_file(&probe);
                }
                Err(e) if is_not_writable(&e) => return Err(not_writable(&dir, &e)),
                Err(e) => return Err(io(&probe.display().to_string(), e)),
            }
            // Record who holds it, for the next opener's message. Best effort: the lock,
            // not this text, is what excludes.
            let _ = file
                .set_len(0)
                .and_then(|()| file.write_all(std::process::id().to_string().as_bytes()));
            Ok(FileStorage {
                dir,
                _lock: Arc::new(file),
            })
        }

        fn path(&self, name: &str) -> PathBuf {
            self.dir.join(name)
        }
    }

    struct Writer {
        file: fs::File,
        len: u64,
        name: String,
    }

    impl WritableFile for Writer {
        fn append(&mut self, data: &[u8]) -> Result<()> {
            self.file.write_all(data).map_err(|e| io(&self.name, e))?;
            self.len += data.len() as u64;
            Ok(())
        }
        fn sync(&mut self) -> Result<()> {
            self.file.sync_data().map_err(|e| io(&self.name, e))
        }
        fn len(&self) -> u64 {
            self.len
        }
        fn syncer(&self) -> Option<Arc<dyn Syncer>> {
            let file = self.file.try_clone().ok()?;
            Some(Arc::new(FileSyncer {
                file,
                name: self.name.clone(),
            }))
        }
    }

    struct FileSyncer {
        file: fs::File,
        name: String,
    }

    impl Syncer for FileSyncer {
        fn sync(&self) -> Result<()> {
            self.file.sync_data().map_err(|e| io(&self.name, e))
        }
    }

    struct Reader {
        file: fs::File,
        len: u64,
    }

    impl RandomAccessFile for Reader {
        fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
            if offset
                .checked_add(len as u64)
                .is_none_or(|end| end > self.len)
            {
                return Err(past_end(offset, len, self.len));
            }
            let mut buf = alloc::vec![0u8; len];
            self.file
                .read_exact_at(&mut buf, offset)
                .map_err(|e| io("read", e))?;
            Ok(buf)
        }
        fn read_at_into(&self, offset: u64, len: usize, buf: &mut Vec<u8>) -> Result<()> {
            if offset
                .checked_add(len as u64)
                .is_none_or(|end| end > self.len)
            {
                return Err(past_end(offset, len, self.len));
            }
            // Zero-fills only bytes beyond the buffer's previous length: a reader that asks
            // for same-sized chunks clears its memory once.
            buf.resize(len, 0);
            self.file
                .read_exact_at(buf, offset)
                .map_err(|e| io("read", e))
        }
        fn len(&self) -> u64 {
            self.len
        }
    }

    impl Storage for FileStorage {
        fn create(&self, name: &str) -> Result<Box<dyn WritableFile>> {
            let file = fs::File::create(self.path(name)).map_err(|e| io(name, e))?;
            Ok(Box::new(Writer {
                file,
                len: 0,
                name: name.to_string(),
            }))
        }
        fn append_to(&self, name: &str) -> Result<Box<dyn WritableFile>> {
            let file = fs::OpenOptions::new()
                .append(true)
                .open(self.path(name))
                .map_err(|e| io(name, e))?;
            let len = file.metadata().map_err(|e| io(name, e))?.len();
            Ok(Box::new(Writer {
                file,
                len,
                name: name.to_string(),
            }))
        }
        fn open(&self, name: &str) -> Result<Arc<dyn RandomAccessFile>> {
            let file = fs::File::open(self.path(name)).map_err(|e| io(name, e))?;
            let len = file.metadata().map_err(|e| io(name, e))?.len();
            Ok(Arc::new(Reader { file, len }))
        }
        fn rename(&self, from: &str, to: &str) -> Result<()> {
            fs::rename(self.path(from), self.path(to)).map_err(|e| io(from, e))
        }
        fn remove(&self, name: &str) -> Result<()> {
            match fs::remove_file(self.path(name)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io(name, e)),
                _ => Ok(()),
            }
        }
        fn list(&self) -> Result<Vec<String>> {
            let mut names: Vec<String> = fs::read_dir(&self.dir)
                .map_err(|e| io("list", e))?
                .filter_map(|e| e.ok())
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .filter_map(|e| e.file_name().into_string().ok())
                // The lock is this backend's own, not one of the engine's files.
                .filter(|name| name != LOCK_FILE && name != WRITE_PROBE)
                .collect();
            names.sort();
            Ok(names)
        }
        fn sync_dir(&self) -> Result<()> {
            fs::File::open(&self.dir)
                .and_then(|d| d.sync_all())
                .map_err(|e| io("sync dir", e))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exercise(s: &dyn Storage) {
        let mut w = s.create("a").unwrap();
        w.append(b"hello ").unwrap();
        w.append(b"world").unwrap();
        w.sync().unwrap();
        assert_eq!(w.len(), 11);
        drop(w);
        assert_eq!(read_all(s, "a").unwrap(), b"hello world");
        let r = s.open("a").unwrap();
        assert_eq!(r.read_at(6, 5).unwrap(), b"world");
        assert_eq!(r.read_at(8, 5).unwrap_err().code(), Code::DataLoss);
        let mut w = s.append_to("a").unwrap();
        w.append(b"!").unwrap();
        drop(w);
        s.rename("a", "b").unwrap();
        assert_eq!(s.open("a").err().map(|e| e.code()), Some(Code::NotFound));
        assert_eq!(read_all(s, "b").unwrap(), b"hello world!");
        assert_eq!(s.list().unwrap(), ["b"]);
        s.remove("b").unwrap();
        s.remove("b").unwrap();
        assert!(s.list().unwrap().is_empty());
        s.sync_dir().unwrap();
    }

    #[test]
    fn mem_storage_keeps_the_contract() {
        exercise(&MemStorage::new());
    }

    #[cfg(all(feature = "std", unix))]
    #[test]
    fn file_storage_keeps_the_contract() {
        let dir = std::env::temp_dir().join(format!("sparsetable-storage-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        exercise(&FileStorage::new(&dir).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
