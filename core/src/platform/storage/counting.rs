//! A storage that counts what is read through it: for tests and benchmarks that measure
//! how many bytes an operation (opening a database, a read) takes from storage.
//!
//! [`CountingStorage`] wraps any [`Storage`] and delegates every call unchanged; each
//! [`RandomAccessFile::read_at`] that succeeds adds its length to the count of the file it
//! read, by name. Invariants: behaviour is exactly the inner storage's; counts only grow
//! until [`CountingStorage::reset`]; clones share the counts.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec::Vec;

use super::{RandomAccessFile, Storage, WritableFile};
use crate::Result;

/// Bytes and reads per file name.
type Counts = Arc<spin::Mutex<BTreeMap<String, (u64, u64)>>>;

/// Delegates to an inner storage, counting the bytes read from each file.
#[derive(Clone)]
pub struct CountingStorage {
    inner: Arc<dyn Storage>,
    counts: Counts,
}

impl core::fmt::Debug for CountingStorage {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CountingStorage")
            .field("bytes_read", &self.bytes_read())
            .finish_non_exhaustive()
    }
}

impl CountingStorage {
    /// Wraps `inner`, with every count at zero.
    pub fn new(inner: impl Storage + 'static) -> Self {
        Self::wrap(Arc::new(inner))
    }

    /// Wraps a shared storage, with every count at zero.
    pub fn wrap(inner: Arc<dyn Storage>) -> Self {
        CountingStorage {
            inner,
            counts: Arc::default(),
        }
    }

    /// Bytes read so far from every file.
    pub fn bytes_read(&self) -> u64 {
        self.counts.lock().values().map(|c| c.0).sum()
    }

    /// Bytes read so far from files whose name ends with `suffix` (e.g. `".sst"`).
    pub fn bytes_read_of(&self, suffix: &str) -> u64 {
        self.counts
            .lock()
            .iter()
            .filter(|(n, _)| n.ends_with(suffix))
            .map(|(_, c)| c.0)
            .sum()
    }

    /// Reads (`read_at` calls that succeeded) so far, from every file.
    pub fn reads(&self) -> u64 {
        self.counts.lock().values().map(|c| c.1).sum()
    }

    /// Bytes and reads so far per file name, sorted by name.
    pub fn per_file(&self) -> Vec<(String, u64, u64)> {
        self.counts
            .lock()
            .iter()
            .map(|(n, c)| (n.clone(), c.0, c.1))
            .collect()
    }

    /// Sets every count back to zero.
    pub fn reset(&self) {
        self.counts.lock().clear();
    }
}

struct CountingReader {
    inner: Arc<dyn RandomAccessFile>,
    name: String,
    counts: Counts,
}

impl RandomAccessFile for CountingReader {
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let bytes = self.inner.read_at(offset, len)?;
        let mut counts = self.counts.lock();
        let c = counts.entry(self.name.clone()).or_default();
        c.0 += bytes.len() as u64;
        c.1 += 1;
        Ok(bytes)
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
}

impl Storage for CountingStorage {
    fn create(&self, name: &str) -> Result<Box<dyn WritableFile>> {
        self.inner.create(name)
    }
    fn append_to(&self, name: &str) -> Result<Box<dyn WritableFile>> {
        self.inner.append_to(name)
    }
    fn open(&self, name: &str) -> Result<Arc<dyn RandomAccessFile>> {
        Ok(Arc::new(CountingReader {
            inner: self.inner.open(name)?,
            name: name.to_string(),
            counts: self.counts.clone(),
        }))
    }
    fn rename(&self, from: &str, to: &str) -> Result<()> {
        self.inner.rename(from, to)
    }
    fn remove(&self, name: &str) -> Result<()> {
        self.inner.remove(name)
    }
    fn list(&self) -> Result<Vec<String>> {
        self.inner.list()
    }
    fn sync_dir(&self) -> Result<()> {
        self.inner.sync_dir()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{read_all, MemStorage};
    use super::*;

    #[test]
    fn counts_the_bytes_read_from_each_file_and_changes_nothing() {
        let s = CountingStorage::new(MemStorage::new());
        let mut w = s.create("a.sst").unwrap();
        w.append(b"0123456789").unwrap();
        drop(w);
        let mut w = s.create("b.log").unwrap();
        w.append(b"abc").unwrap();
        drop(w);
        assert_eq!(s.bytes_read(), 0);
        let f = s.open("a.sst").unwrap();
        assert_eq!(f.read_at(2, 4).unwrap(), b"2345");
        assert!(f.read_at(8, 4).is_err());
        assert_eq!(read_all(&s, "b.log").unwrap(), b"abc");
        assert_eq!(s.bytes_read(), 7);
        assert_eq!(s.bytes_read_of(".sst"), 4);
        assert_eq!(s.bytes_read_of(".log"), 3);
        assert_eq!(s.reads(), 2);
        assert_eq!(
            s.per_file(),
            [("a.sst".into(), 4, 1), ("b.log".into(), 3, 1)]
        );
        s.reset();
        assert_eq!(s.bytes_read(), 0);
        assert_eq!(s.list().unwrap(), ["a.sst", "b.log"]);
    }
}
