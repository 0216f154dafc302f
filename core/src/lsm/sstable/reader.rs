//! Reads an SSTable: [`Sstable::open`] checks the footer and the file layout, reads and checks
//! the index, filter and meta blocks (held in memory from then on); [`SstableIter`] walks the
//! index and reads data blocks on demand (docs/format/sstable.md, "Reading").
//!
//! Invariants: data blocks are read only in `read_block`, which checks the handle lies inside
//! the data region before reading (so no allocation is sized by an unchecked length) and the
//! checksum after. The iterator's first error makes it invalid for good and is returned by
//! [`SstableIter::status`]: it never skips a bad block to carry on.

use alloc::format;
use alloc::sync::Arc;
use alloc::vec::Vec;

use super::block::{Block, BlockIter};
use super::bloom::Filter;
use super::format::{corruption, unframe_block, BlockHandle, Footer, BLOCK_TRAILER_LEN};
use super::{SstableProperties, FOOTER_LEN};
use crate::platform::storage::RandomAccessFile;
use crate::{Error, Result};

/// An open, immutable table. Cheap to clone; iterators keep it alive.
#[derive(Clone)]
pub struct Sstable {
    inner: Arc<Inner>,
}

struct Inner {
    file: Arc<dyn RandomAccessFile>,
    index: Block,
    filter: Filter,
    properties: SstableProperties,
    /// Offset where the data blocks end (the filter block's offset).
    data_end: u64,
}

impl core::fmt::Debug for Sstable {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sstable")
            .field("properties", &self.inner.properties)
            .finish_non_exhaustive()
    }
}

/// Reads `handle`'s payload and trailer, REQUIRES: the block ends by `limit`.
fn read_contents(file: &dyn RandomAccessFile, handle: BlockHandle, limit: u64) -> Result<Vec<u8>> {
    let len = handle
        .end()
        .filter(|end| *end <= limit)
        .and_then(|_| usize::try_from(handle.size).ok())
        .and_then(|size| size.checked_add(BLOCK_TRAILER_LEN))
        .ok_or_else(|| {
            corruption(format!(
                "block handle (offset {}, size {}) runs outside its region",
                handle.offset, handle.size
            ))
        })?;
    unframe_block(file.read_at(handle.offset, len)?, handle)
}

fn check_contiguous(what: &str, end: Option<u64>, next: u64) -> Result<()> {
    if end == Some(next) {
        Ok(())
    } else {
        Err(corruption(format!(
            "{what} does not end where the next part starts"
        )))
    }
}

impl Sstable {
    /// Opens a table: reads the footer, index, filter and meta blocks and checks them.
    ///
    /// # Errors
    /// `DataLoss` for a file that is not a well-formed table (too short, bad magic, checksum
    /// mismatch, inconsistent layout or properties); `Unimplemented` for a newer format
    /// version; the file's own errors (`Unavailable`) as they are.
    pub fn open(file: Arc<dyn RandomAccessFile>) -> Result<Sstable> {
        let len = file.len();
        let footer_offset = len.checked_sub(FOOTER_LEN as u64).ok_or_else(|| {
            corruption(format!(
                "file of {len} bytes is shorter than the {FOOTER_LEN}-byte footer"
            ))
        })?;
        let footer = Footer::decode(&file.read_at(footer_offset, FOOTER_LEN)?)?;
        // The writer lays the parts out back to back; anything else is corruption.
        check_contiguous("filter block", footer.filter.end(), footer.meta.offset)?;
        check_contiguous("meta block", footer.meta.end(), footer.index.offset)?;
        check_contiguous("index block", footer.index.end(), footer_offset)?;
        let data_end = footer.filter.offset;

        let index = Block::new(read_contents(&*file, footer.index, footer_offset)?)?;
        let filter = Filter::decode(read_contents(&*file, footer.filter, footer_offset)?)?;
        let meta = Block::new(read_contents(&*file, footer.meta, footer_offset)?)?;
        let mut properties = SstableProperties::decode_meta(&meta)?;
        if properties.format_version != footer.format_version {
            return Err(corruption(
                "meta block format version differs from the footer's",
            ));
        }
        properties.file_size = len;
        Self::check_index(&index, &properties, data_end)?;
        Ok(Sstable {
            inner: Arc::new(Inner {
                file,
                index,
                filter,
                properties,
                data_end,
            }),
        })
    }

    /// Index keys strictly ascending, the last one the largest key; data block handles back
    /// to back from offset 0 to the filter block; one per data block counted in the meta.
    fn check_index(index: &Block, props: &SstableProperties, data_end: u64) -> Result<()> {
        let mut it = index.iter();
        it.seek_to_first();
        let mut count = 0u64;
        let mut expected_offset = 0u64;
        let mut last_key: Option<Vec<u8>> = None;
        while it.valid() {
            if last_key.as_deref().is_some_and(|k| k >= it.key()) {
                return Err(corruption("index block keys out of order"));
            }
            let handle = BlockHandle::decode_varint(it.value())?;
            if handle.offset != expected_offset {
                return Err(corruption("data blocks are not back to back"));
            }
            expected_offset = handle
                .end()
                .ok_or_else(|| corruption("data block handle overflows"))?;
            count += 1;
            last_key = Some(it.key().to_vec());
            it.next();
        }
        it.status()?;
        check_contiguous("the last data block", Some(expected_offset), data_end)?;
        if count != props.num_data_blocks {
            return Err(corruption(format!(
                "index has {count} data blocks, meta block says {}",
                props.num_data_blocks
            )));
        }
        if (count == 0) != (props.num_entries == 0) || last_key != props.largest_key {
            return Err(corruption(
                "index block disagrees with the meta block's entries",
            ));
        }
        Ok(())
    }

    /// False only if no entry was added with this filter key. Always true for a table
    /// written without a filter.
    pub fn may_contain(&self, filter_key: &[u8]) -> bool {
        self.inner.filter.may_contain(filter_key)
    }

    /// [`may_contain`](Self::may_contain) given the filter key's hash
    /// (`bloom::row_hash`), computed once by a point read for all its sources.
    pub(crate) fn may_contain_hash(&self, hash: u32) -> bool {
        self.inner.filter.may_contain_hash(hash)
    }

    /// The bytes of the data blocks (offset 0 up to the filter block): what opening does not
    /// read. The rest of the file (filter, meta, index, footer) is what it does.
    pub fn data_bytes(&self) -> u64 {
        self.inner.data_end
    }

    /// The table's recorded properties.
    pub fn properties(&self) -> &SstableProperties {
        &self.inner.properties
    }

    /// An iterator over all entries, positioned nowhere: call a `seek*` first.
    pub fn iter(&self) -> SstableIter {
        SstableIter {
            index: self.inner.index.iter(),
            table: self.clone(),
            data: None,
            data_handle: None,
            err: None,
        }
    }

    /// The value stored under exactly `key`, if any.
    ///
    /// # Errors
    /// `DataLoss` if the block holding `key` is corrupt.
    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let mut it = self.iter();
        it.seek(key);
        it.status()?;
        Ok((it.valid() && it.key() == key).then(|| it.value().to_vec()))
    }

    /// The approximate file offset where entries `>= key` start (the offset of the data
    /// block that would hold `key`; the end of the data for keys past the last one). Lets
    /// the engine size key ranges (SampleRowKeys, splits) without reading data blocks.
    pub fn approximate_offset_of(&self, key: &[u8]) -> u64 {
        let mut it = self.inner.index.iter();
        it.seek(key);
        if it.valid() {
            if let Ok(h) = BlockHandle::decode_varint(it.value()) {
                return h.offset;
            }
        }
        self.inner.data_end
    }

    /// Reads and checks every data block, in file order, and compares what they hold with the
    /// properties (entry count and key and value bytes): the full check that opening no
    /// longer makes (see `persist`), for an explicit verify.
    ///
    /// # Errors
    /// `DataLoss` for a block that fails its checksum or does not parse, or contents that
    /// disagree with the properties; the file's own errors.
    pub fn verify(&self) -> Result<()> {
        let mut it = self.iter();
        it.seek_to_first();
        let mut bytes = 0u64;
        let mut count = 0u64;
        while it.valid() {
            bytes += (it.key().len() + it.value().len()) as u64;
            count += 1;
            it.next();
        }
        it.status()?;
        let props = self.properties();
        let recorded = props.raw_key_bytes + props.raw_value_bytes;
        if count != props.num_entries || bytes != recorded {
            return Err(corruption(format!(
                "holds {count} entries of {bytes} bytes, its properties say {} of {recorded}",
                props.num_entries
            )));
        }
        Ok(())
    }

    /// Reads and checks one data block: the one place data blocks are read, and so the place
    /// for a block cache. The block's crc32c is checked here, on every read, so a lazily
    /// opened table never hands out an entry of a corrupt block.
    fn read_block(&self, handle: BlockHandle) -> Result<Block> {
        let contents = read_contents(&*self.inner.file, handle, self.inner.data_end)?;
        Block::new(contents)
    }
}

/// A bidirectional iterator over a table's entries in key order (LevelDB's two-level
/// iterator: the index block, then one data block at a time).
///
/// Starts positioned nowhere. After an error (`DataLoss` from a data block, or the file's
/// own error) it is invalid for good and [`SstableIter::status`] returns the error; it never
/// returns an entry that did not pass its block's checksum.
pub struct SstableIter {
    table: Sstable,
    index: BlockIter,
    data: Option<BlockIter>,
    data_handle: Option<BlockHandle>,
    err: Option<Error>,
}

impl core::fmt::Debug for SstableIter {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SstableIter")
            .field("valid", &self.valid())
            .field("key", &self.valid().then(|| self.key()))
            .field("err", &self.err)
            .finish_non_exhaustive()
    }
}

impl SstableIter {
    /// Whether the iterator is at an entry.
    pub fn valid(&self) -> bool {
        self.err.is_none() && self.data.as_ref().is_some_and(BlockIter::valid)
    }

    /// The current key; empty when not [`valid`](Self::valid).
    pub fn key(&self) -> &[u8] {
        match &self.data {
            Some(d) if self.err.is_none() && d.valid() => d.key(),
            _ => &[],
        }
    }

    /// The current value; empty when not [`valid`](Self::valid).
    pub fn value(&self) -> &[u8] {
        match &self.data {
            Some(d) if self.err.is_none() && d.valid() => d.value(),
            _ => &[],
        }
    }

    /// `Ok` unless an error stopped the iterator.
    ///
    /// # Errors
    /// The first error met: `DataLoss` for corrupt blocks, or the file's own error.
    pub fn status(&self) -> Result<()> {
        match &self.err {
            Some(e) => Err(e.clone()),
            None => self.index.status(),
        }
    }

    /// Positions at the first entry (invalid for an empty table).
    pub fn seek_to_first(&mut self) {
        if self.err.is_some() {
            return;
        }
        self.index.seek_to_first();
        self.init_data_block();
        if let Some(d) = &mut self.data {
            d.seek_to_first();
        }
        self.skip_empty_forward();
    }

    /// Positions at the last entry (invalid for an empty table).
    pub fn seek_to_last(&mut self) {
        if self.err.is_some() {
            return;
        }
        self.index.seek_to_last();
        self.init_data_block();
        if let Some(d) = &mut self.data {
            d.seek_to_last();
        }
        self.skip_empty_backward();
    }

    /// Positions at the first entry whose key is `>= target` (invalid if there is none).
    pub fn seek(&mut self, target: &[u8]) {
        if self.err.is_some() {
            return;
        }
        self.index.seek(target);
        self.init_data_block();
        if let Some(d) = &mut self.data {
            d.seek(target);
        }
        self.skip_empty_forward();
    }

    /// Moves to the next entry. REQUIRES: [`valid`](Self::valid) (otherwise does nothing).
    pub fn next(&mut self) {
        if !self.valid() {
            return;
        }
        if let Some(d) = &mut self.data {
            d.next();
        }
        self.skip_empty_forward();
    }

    /// Moves to the previous entry. REQUIRES: [`valid`](Self::valid) (otherwise does nothing).
    pub fn prev(&mut self) {
        if !self.valid() {
            return;
        }
        if let Some(d) = &mut self.data {
            d.prev();
        }
        self.skip_empty_backward();
    }

    fn fail(&mut self, e: Error) {
        if self.err.is_none() {
            self.err = Some(e);
        }
        self.data = None;
        self.data_handle = None;
    }

    /// Loads the data block the index points at (keeping the current one if it is the same).
    fn init_data_block(&mut self) {
        if !self.index.valid() {
            self.data = None;
            self.data_handle = None;
            if let Err(e) = self.index.status() {
                self.fail(e);
            }
            return;
        }
        let handle = match BlockHandle::decode_varint(self.index.value()) {
            Ok(h) => h,
            Err(e) => return self.fail(e),
        };
        if self.data.is_some() && self.data_handle == Some(handle) {
            return;
        }
        match self.table.read_block(handle) {
            Ok(block) => {
                self.data = Some(block.iter());
                self.data_handle = Some(handle);
            }
            Err(e) => self.fail(e),
        }
    }

    /// Returns true if the data iterator is at an entry; records its error if it failed.
    fn data_ready(&mut self) -> bool {
        let status = match &self.data {
            Some(d) if d.valid() => return true,
            Some(d) => d.status(),
            None => Ok(()),
        };
        if let Err(e) = status {
            self.fail(e);
        }
        false
    }

    fn skip_empty_forward(&mut self) {
        while self.err.is_none() && !self.data_ready() && self.err.is_none() {
            if !self.index.valid() {
                self.data = None;
                return;
            }
            self.index.next();
            self.init_data_block();
            if let Some(d) = &mut self.data {
                d.seek_to_first();
            }
        }
    }

    fn skip_empty_backward(&mut self) {
        while self.err.is_none() && !self.data_ready() && self.err.is_none() {
            if !self.index.valid() {
                self.data = None;
                return;
            }
            self.index.prev();
            self.init_data_block();
            if let Some(d) = &mut self.data {
                d.seek_to_last();
            }
        }
    }
}
