//! Writes one SSTable front to back (docs/format/sstable.md, "File layout").
//!
//! Data blocks are appended as they fill; the filter, meta and index blocks and the footer
//! follow at `finish`, which then syncs the file. The only state held in memory beyond the
//! current data block is one index entry per data block and one 32-bit hash per distinct
//! filter key. After a failed write the builder is poisoned: every later call returns the
//! same error, so a half-written file is never mistaken for a finished one.

use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;

use super::block::BlockBuilder;
use super::bloom::FilterBuilder;
use super::format::{
    compress_block, masked_crc, BlockHandle, Footer, BLOCK_TRAILER_LEN, FORMAT_VERSION,
};
use super::{Compression, SstableOptions, SstableProperties, MAX_ENTRY_LEN};
use crate::platform::storage::WritableFile;
use crate::{Error, Result};

/// How many bytes the builder gathers before writing them to the file.
const WRITE_BUFFER_BYTES: usize = 256 << 10;

/// Writes a table to a fresh file. Keys must be added in strictly ascending bytewise order.
pub struct SstableBuilder {
    file: Box<dyn WritableFile>,
    /// Bytes appended but not yet handed to the file: blocks are a few KiB and each comes
    /// with a 5-byte trailer, so writing them one by one cost two system calls per block
    /// (a third of a compaction's time in profiles).
    pending: Vec<u8>,
    options: SstableOptions,
    offset: u64,
    data_block: BlockBuilder,
    index_block: BlockBuilder,
    filter: FilterBuilder,
    last_key: Vec<u8>,
    props: SstableProperties,
    error: Option<Error>,
}

impl core::fmt::Debug for SstableBuilder {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SstableBuilder")
            .field("options", &self.options)
            .field("offset", &self.offset)
            .field("num_entries", &self.props.num_entries)
            .finish_non_exhaustive()
    }
}

impl SstableBuilder {
    /// Starts a table in `file`, which must be empty.
    ///
    /// # Errors
    /// `InvalidArgument` for out-of-range options or a non-empty file.
    pub fn new(file: Box<dyn WritableFile>, options: SstableOptions) -> Result<Self> {
        options.validate()?;
        if !file.is_empty() {
            return Err(Error::invalid_argument(
                "an sstable must be written to an empty file",
            ));
        }
        Ok(SstableBuilder {
            file,
            pending: Vec::new(),
            data_block: BlockBuilder::new(options.restart_interval),
            index_block: BlockBuilder::new(1),
            filter: FilterBuilder::new(options.bloom_bits_per_key),
            options,
            offset: 0,
            last_key: Vec::new(),
            props: SstableProperties {
                format_version: FORMAT_VERSION,
                ..SstableProperties::default()
            },
            error: None,
        })
    }

    /// Appends an entry; `filter_key` is what [`super::Sstable::may_contain`] will be asked
    /// about (the engine passes the row key; equal consecutive filter keys count once).
    ///
    /// # Errors
    /// `InvalidArgument` if `key` is not greater than the previous key or if the key or value
    /// is longer than [`MAX_ENTRY_LEN`] (the builder stays usable); `Unavailable` from the
    /// file (the builder is then poisoned).
    pub fn add(&mut self, key: &[u8], value: &[u8], filter_key: &[u8]) -> Result<()> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if self.props.num_entries > 0 && key <= self.last_key.as_slice() {
            return Err(Error::invalid_argument(format!(
                "sstable keys must be strictly ascending: {key:?} after {:?}",
                self.last_key
            )));
        }
        if key.len() > MAX_ENTRY_LEN || value.len() > MAX_ENTRY_LEN {
            return Err(Error::invalid_argument(format!(
                "sstable entry too large: key {} bytes, value {} bytes (limit {MAX_ENTRY_LEN})",
                key.len(),
                value.len()
            )));
        }
        if self.props.num_entries == 0 {
            self.props.smallest_key = Some(key.to_vec());
        }
        self.filter.add(filter_key);
        self.data_block.add(key, value);
        self.last_key.clear();
        self.last_key.extend_from_slice(key);
        self.props.num_entries += 1;
        self.props.raw_key_bytes += key.len() as u64;
        self.props.raw_value_bytes += value.len() as u64;
        if self.data_block.size_estimate() >= self.options.block_size {
            self.flush_data_block()?;
        }
        Ok(())
    }

    /// Entries added so far.
    pub fn num_entries(&self) -> u64 {
        self.props.num_entries
    }

    /// Bytes written so far plus the pending data block: what the file would measure if
    /// finished now, less the filter, meta, index blocks and footer.
    pub fn estimated_file_size(&self) -> u64 {
        self.offset + self.data_block.size_estimate() as u64
    }

    /// Writes the pending data block, filter, meta and index blocks and footer, then syncs.
    ///
    /// # Errors
    /// `Unavailable` from the file, or the error that poisoned the builder.
    pub fn finish(mut self) -> Result<SstableProperties> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if !self.data_block.is_empty() {
            self.flush_data_block()?;
        }
        let filter_contents = self.filter.finish();
        let filter = self.write_block(&filter_contents, false)?;
        self.props.num_filter_keys = self.filter.num_keys();
        if self.props.num_entries > 0 {
            self.props.largest_key = Some(core::mem::take(&mut self.last_key));
        }
        let meta_contents = self.props.encode_meta();
        let meta = self.write_block(&meta_contents, false)?;
        let index_contents = self.index_block.finish();
        let index = self.write_block(&index_contents, false)?;
        let footer = Footer {
            index,
            filter,
            meta,
            format_version: FORMAT_VERSION,
        };
        self.append(&footer.encode())?;
        self.write_pending()?;
        self.file.sync()?;
        self.props.file_size = self.offset;
        Ok(self.props)
    }

    fn flush_data_block(&mut self) -> Result<()> {
        let contents = self.data_block.finish();
        let handle = self.write_block(&contents, self.options.compression == Compression::Lz4)?;
        let mut value = Vec::new();
        handle.encode_varint(&mut value);
        self.index_block.add(&self.last_key, &value);
        self.props.num_data_blocks += 1;
        Ok(())
    }

    /// Appends payload + trailer and returns the block's handle.
    fn write_block(&mut self, contents: &[u8], lz4: bool) -> Result<BlockHandle> {
        let (payload, ty) = compress_block(contents, lz4);
        let crc = masked_crc(&[&payload, &[ty]]);
        let handle = BlockHandle {
            offset: self.offset,
            size: payload.len() as u64,
        };
        let mut trailer = [0u8; BLOCK_TRAILER_LEN];
        trailer[0] = ty;
        trailer[1..].copy_from_slice(&crc.to_le_bytes());
        self.append(&payload)?;
        self.append(&trailer)?;
        Ok(handle)
    }

    fn append(&mut self, bytes: &[u8]) -> Result<()> {
        if self.pending.capacity() == 0 {
            self.pending.reserve(WRITE_BUFFER_BYTES);
        }
        self.pending.extend_from_slice(bytes);
        self.offset += bytes.len() as u64;
        if self.pending.len() >= WRITE_BUFFER_BYTES {
            self.write_pending()?;
        }
        Ok(())
    }

    /// Hands the buffered bytes to the file. A failure poisons the builder.
    fn write_pending(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let result = self.file.append(&self.pending);
        self.pending.clear();
        if let Err(e) = result {
            self.error = Some(e.clone());
            return Err(e);
        }
        Ok(())
    }
}
