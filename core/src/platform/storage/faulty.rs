//! A storage that fails on request: fault injection for the tests of every crate.
//!
//! [`FaultyStorage`] wraps any [`Storage`] and delegates to it, except that an operation a
//! [`Fault`] matches returns the fault's error instead. Faults model what a real disk does:
//! a full disk (`ENOSPC`) or a failing one (`EIO`) are `Unavailable`, a read-only file
//! system is `FailedPrecondition` (the same codes `FileStorage` gives those OS errors), and
//! a *torn* append writes part of its bytes before it fails, as a `write(2)` cut short by a
//! full disk does. A fault can wait for a number of matching operations, fire a number of
//! times, or fire until [`FaultyStorage::heal`] ("space was freed").
//!
//! Invariants: an operation no fault matches behaves exactly as the inner storage's; a
//! failed operation other than a torn append leaves the inner storage unchanged; faults are
//! checked in the order they were injected, and the first match decides.

use alloc::boxed::Box;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec::Vec;

use super::{RandomAccessFile, Storage, Syncer, WritableFile};
use crate::{Code, Error, Result};

/// An operation of the storage interface a [`Fault`] can fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Op {
    /// [`Storage::create`] and [`Storage::append_to`].
    Create,
    /// [`WritableFile::append`].
    Append,
    /// [`WritableFile::sync`] and the file's [`Syncer`].
    Sync,
    /// [`Storage::rename`].
    Rename,
    /// [`Storage::remove`].
    Remove,
    /// [`Storage::sync_dir`].
    SyncDir,
    /// [`RandomAccessFile::read_at`].
    Read,
}

/// One injected failure: which operations it matches and what they return.
#[derive(Debug, Clone)]
pub struct Fault {
    op: Op,
    /// Only files whose name ends with this (e.g. `".log"`, `".sst"`); `None`: every file.
    suffix: Option<String>,
    /// Matching operations that still succeed before the first failure.
    skip: u64,
    /// Failures left; `None`: until healed.
    times: Option<u64>,
    error: Error,
    torn: bool,
}

impl Fault {
    /// Fails every `op` from now on with `error`, until healed.
    pub fn new(op: Op, error: Error) -> Self {
        Fault {
            op,
            suffix: None,
            skip: 0,
            times: None,
            error,
            torn: false,
        }
    }

    /// A full disk: `Unavailable`, with the OS's `ENOSPC` text.
    pub fn no_space(op: Op) -> Self {
        Fault::new(
            op,
            Error::new(Code::Unavailable, "No space left on device (os error 28)"),
        )
    }

    /// A failing disk: `Unavailable`, with the OS's `EIO` text.
    pub fn io_error(op: Op) -> Self {
        Fault::new(
            op,
            Error::new(Code::Unavailable, "Input/output error (os error 5)"),
        )
    }

    /// A read-only file system: `FailedPrecondition`, with the OS's `EROFS` text.
    pub fn read_only(op: Op) -> Self {
        Fault::new(
            op,
            Error::new(
                Code::FailedPrecondition,
                "Read-only file system (os error 30)",
            ),
        )
    }

    /// Matches only files whose name ends with `suffix`.
    #[must_use]
    pub fn on_files(mut self, suffix: &str) -> Self {
        self.suffix = Some(suffix.to_string());
        self
    }

    /// Lets `n` matching operations succeed first.
    #[must_use]
    pub fn after(mut self, n: u64) -> Self {
        self.skip = n;
        self
    }

    /// Fails `n` times, then stops matching.
    #[must_use]
    pub fn times(mut self, n: u64) -> Self {
        self.times = Some(n);
        self
    }

    /// A failing append first writes the first half of its bytes (rounded down), as a write
    /// cut short by a full disk does.
    #[must_use]
    pub fn torn(mut self) -> Self {
        self.torn = true;
        self
    }

    fn matches(&self, op: Op, name: &str) -> bool {
        self.op == op
            && self.times != Some(0)
            && self.suffix.as_deref().is_none_or(|s| name.ends_with(s))
    }
}

#[derive(Default)]
struct Faults {
    active: Vec<Fault>,
    fired: u64,
}

impl Faults {
    /// The fault that fails this operation, if any (counting it against the fault).
    fn check(&mut self, op: Op, name: &str) -> Option<Fault> {
        let fault = self.active.iter_mut().find(|f| f.matches(op, name))?;
        if fault.skip > 0 {
            fault.skip -= 1;
            return None;
        }
        if let Some(t) = &mut fault.times {
            *t -= 1;
        }
        self.fired += 1;
        Some(fault.clone())
    }
}

type Shared = Arc<spin::Mutex<Faults>>;

/// A [`Storage`] that fails the operations its [`Fault`]s match and otherwise delegates to
/// the storage it wraps. Cloning shares the files and the faults, so a test keeps a handle
/// to inject and heal faults while the database owns another.
#[derive(Clone)]
pub struct FaultyStorage {
    inner: Arc<dyn Storage>,
    faults: Shared,
}

impl core::fmt::Debug for FaultyStorage {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let faults = self.faults.lock();
        f.debug_struct("FaultyStorage")
            .field("faults", &faults.active)
            .field("fired", &faults.fired)
            .finish_non_exhaustive()
    }
}

impl FaultyStorage {
    /// Wraps `inner`, with no fault yet.
    pub fn new(inner: impl Storage + 'static) -> Self {
        FaultyStorage {
            inner: Arc::new(inner),
            faults: Shared::default(),
        }
    }

    /// Adds a fault (checked after the ones already injected).
    pub fn inject(&self, fault: Fault) {
        self.faults.lock().active.push(fault);
    }

    /// Removes every fault: the disk works again.
    pub fn heal(&self) {
        self.faults.lock().active.clear();
    }

    /// How many operations have failed by injection so far.
    pub fn fired(&self) -> u64 {
        self.faults.lock().fired
    }

    fn check(&self, op: Op, name: &str) -> Result<()> {
        match self.faults.lock().check(op, name) {
            Some(f) => Err(f.error),
            None => Ok(()),
        }
    }

    fn writer(&self, name: &str, inner: Box<dyn WritableFile>) -> Box<dyn WritableFile> {
        Box::new(FaultyFile {
            inner,
            name: name.to_string(),
            faults: self.faults.clone(),
        })
    }
}

struct FaultyFile {
    inner: Box<dyn WritableFile>,
    name: String,
    faults: Shared,
}

impl WritableFile for FaultyFile {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        let fault = self.faults.lock().check(Op::Append, &self.name);
        match fault {
            None => self.inner.append(data),
            Some(f) => {
                if f.torn {
                    self.inner
                        .append(data.get(..data.len() / 2).unwrap_or_default())?;
                }
                Err(f.error)
            }
        }
    }
    fn sync(&mut self) -> Result<()> {
        match self.faults.lock().check(Op::Sync, &self.name) {
            Some(f) => Err(f.error),
            None => self.inner.sync(),
        }
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
    fn syncer(&self) -> Option<Arc<dyn Syncer>> {
        // Always a syncer, even where the inner file needs none, so group commit's fsyncs
        // (which go through it) can fail too.
        Some(Arc::new(FaultySyncer {
            inner: self.inner.syncer(),
            name: self.name.clone(),
            faults: self.faults.clone(),
        }))
    }
}

struct FaultySyncer {
    inner: Option<Arc<dyn Syncer>>,
    name: String,
    faults: Shared,
}

impl Syncer for FaultySyncer {
    fn sync(&self) -> Result<()> {
        if let Some(f) = self.faults.lock().check(Op::Sync, &self.name) {
            return Err(f.error);
        }
        match &self.inner {
            Some(s) => s.sync(),
            None => Ok(()),
        }
    }
}

struct FaultyReader {
    inner: Arc<dyn RandomAccessFile>,
    name: String,
    faults: Shared,
}

impl RandomAccessFile for FaultyReader {
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        if let Some(f) = self.faults.lock().check(Op::Read, &self.name) {
            return Err(f.error);
        }
        self.inner.read_at(offset, len)
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
}

impl Storage for FaultyStorage {
    fn create(&self, name: &str) -> Result<Box<dyn WritableFile>> {
        self.check(Op::Create, name)?;
        Ok(self.writer(name, self.inner.create(name)?))
    }
    fn append_to(&self, name: &str) -> Result<Box<dyn WritableFile>> {
        self.check(Op::Create, name)?;
        Ok(self.writer(name, self.inner.append_to(name)?))
    }
    fn open(&self, name: &str) -> Result<Arc<dyn RandomAccessFile>> {
        Ok(Arc::new(FaultyReader {
            inner: self.inner.open(name)?,
            name: name.to_string(),
            faults: self.faults.clone(),
        }))
    }
    fn rename(&self, from: &str, to: &str) -> Result<()> {
        self.check(Op::Rename, to)?;
        self.inner.rename(from, to)
    }
    fn remove(&self, name: &str) -> Result<()> {
        self.check(Op::Remove, name)?;
        self.inner.remove(name)
    }
    fn list(&self) -> Result<Vec<String>> {
        self.inner.list()
    }
    fn sync_dir(&self) -> Result<()> {
        self.check(Op::SyncDir, "")?;
        self.inner.sync_dir()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{read_all, MemStorage};
    use super::*;

    #[test]
    fn a_fault_fires_after_its_skips_for_its_times_and_only_on_its_files() {
        let s = FaultyStorage::new(MemStorage::new());
        s.inject(
            Fault::no_space(Op::Append)
                .on_files(".log")
                .after(1)
                .times(2),
        );
        let mut other = s.create("a.sst").unwrap();
        let mut log = s.create("1.log").unwrap();
        log.append(b"ok").unwrap();
        other.append(b"ok").unwrap();
        assert_eq!(log.append(b"x").unwrap_err().code(), Code::Unavailable);
        assert_eq!(log.append(b"y").unwrap_err().code(), Code::Unavailable);
        log.append(b"!").unwrap();
        assert_eq!(s.fired(), 2);
        assert_eq!(read_all(&s, "1.log").unwrap(), b"ok!");
    }

    #[test]
    fn a_torn_append_leaves_half_its_bytes_and_healing_ends_every_fault() {
        let s = FaultyStorage::new(MemStorage::new());
        s.inject(Fault::io_error(Op::Append).torn());
        s.inject(Fault::read_only(Op::Create));
        let code = s.create("x").err().map(|e| e.code());
        assert_eq!(code, Some(Code::FailedPrecondition));
        s.heal();
        let mut w = s.create("x").unwrap();
        s.inject(Fault::io_error(Op::Append).torn());
        assert!(w.append(b"abcd").is_err());
        assert_eq!(read_all(&s, "x").unwrap(), b"ab");
        s.inject(Fault::io_error(Op::Sync));
        assert!(w.syncer().unwrap().sync().is_err());
        assert_eq!(w.sync().unwrap_err().code(), Code::Unavailable);
    }
}
