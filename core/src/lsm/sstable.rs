//! SSTables: immutable files of byte-string keys in strictly ascending bytewise order, each
//! with a byte-string value; the sorted runs of a tablet's LSM. Format: docs/format/sstable.md.
//!
//! The layout is LevelDB's, simplified: data blocks of prefix-compressed entries with restart
//! points, one bloom filter over the caller's *filter keys* (the engine passes row keys), a
//! meta block of [`SstableProperties`], an index block mapping each data block's last key to
//! its handle, and a 64-byte footer ending in the magic `\x89SPTSST\n`.
//!
//! Write with [`SstableBuilder`] (keys strictly ascending, then `finish`, which syncs); read
//! with [`Sstable::open`], which checks the footer, index, filter and meta blocks, and then
//! [`SstableIter`] (bidirectional) or [`Sstable::may_contain`].
//!
//! Invariants: every block on disk carries a masked crc32c, checked on every read; decoding
//! never panics and never returns data that did not pass its checksum: any malformed byte
//! yields `DataLoss` (a newer format version yields `Unimplemented`). Keys are only ever
//! compared bytewise: the engine encodes its internal keys so that bytewise order is the order
//! it needs. All I/O goes through [`crate::platform::storage`]'s traits; data blocks are read in exactly
//! one place ([`Sstable`]'s `read_block`), where a block cache can be added.

use alloc::format;
use alloc::vec::Vec;

use crate::{Error, Result};

mod block;
pub(crate) mod bloom;
mod builder;
mod format;
mod reader;
#[cfg(test)]
mod tests;

pub use builder::SstableBuilder;
pub use format::{FOOTER_LEN, FORMAT_VERSION, MAGIC};
pub use reader::{Sstable, SstableIter};

use block::{Block, BlockBuilder};
use format::{corruption, get_varint32, get_varint64, put_varint};

/// How data blocks are compressed on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    /// Blocks are stored as they are.
    #[default]
    None,
    /// Each data block is LZ4-compressed (lz4_flex block format) when that makes it smaller.
    Lz4,
}

/// The largest block size and the largest key or value a table accepts (1 GiB): keeps every
/// in-block offset within 32 bits.
pub const MAX_ENTRY_LEN: usize = 1 << 30;

/// How a table is written. Reading needs no options: everything is recorded in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SstableOptions {
    /// Target uncompressed size of a data block in bytes; a block is cut once it reaches this
    /// (an entry is never split, so one large value makes one large block). Default 4096.
    pub block_size: usize,
    /// Entries between restart points (full keys) in data blocks. Default 16; at least 1.
    pub restart_interval: usize,
    /// Data block compression. Default none.
    pub compression: Compression,
    /// Bloom filter bits per distinct filter key; 0 writes no filter. Default 10 (about 1%
    /// false positives). At most 100.
    pub bloom_bits_per_key: u32,
}

impl Default for SstableOptions {
    fn default() -> Self {
        SstableOptions {
            block_size: 4096,
            restart_interval: 16,
            compression: Compression::None,
            bloom_bits_per_key: 10,
        }
    }
}

impl SstableOptions {
    fn validate(&self) -> Result<()> {
        if self.restart_interval == 0 {
            return Err(Error::invalid_argument(
                "sstable restart_interval must be at least 1",
            ));
        }
        if self.block_size > MAX_ENTRY_LEN {
            return Err(Error::invalid_argument(format!(
                "sstable block_size {} exceeds {MAX_ENTRY_LEN}",
                self.block_size
            )));
        }
        if self.bloom_bits_per_key > 100 {
            return Err(Error::invalid_argument(format!(
                "sstable bloom_bits_per_key {} exceeds 100",
                self.bloom_bits_per_key
            )));
        }
        Ok(())
    }
}

/// Facts about a table, recorded in its meta block (all but `file_size`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SstableProperties {
    /// The format version the table was written with.
    pub format_version: u32,
    /// Number of entries.
    pub num_entries: u64,
    /// Number of data blocks.
    pub num_data_blocks: u64,
    /// Number of filter keys added, counting a run of equal consecutive ones once.
    pub num_filter_keys: u64,
    /// Sum of the lengths of all keys.
    pub raw_key_bytes: u64,
    /// Sum of the lengths of all values.
    pub raw_value_bytes: u64,
    /// The first key; `None` for an empty table.
    pub smallest_key: Option<Vec<u8>>,
    /// The last key; `None` for an empty table.
    pub largest_key: Option<Vec<u8>>,
    /// The table's length in bytes (not stored: taken from the file).
    pub file_size: u64,
}

// Meta block property names, in the block's (bytewise) order. They reach disk: never rename.
const PROP_DATA_BLOCKS: &[u8] = b"data_blocks";
const PROP_ENTRIES: &[u8] = b"entries";
const PROP_FILTER_KEYS: &[u8] = b"filter_keys";
const PROP_FORMAT_VERSION: &[u8] = b"format_version";
const PROP_LARGEST_KEY: &[u8] = b"largest_key";
const PROP_RAW_KEY_BYTES: &[u8] = b"raw_key_bytes";
const PROP_RAW_VALUE_BYTES: &[u8] = b"raw_value_bytes";
const PROP_SMALLEST_KEY: &[u8] = b"smallest_key";

impl SstableProperties {
    /// The meta block's contents: one entry per property, names ascending, numbers as
    /// varints, keys as their bytes (omitted for an empty table).
    fn encode_meta(&self) -> Vec<u8> {
        let mut b = BlockBuilder::new(1);
        let varint = |v: u64| {
            let mut buf = Vec::new();
            put_varint(&mut buf, v);
            buf
        };
        b.add(PROP_DATA_BLOCKS, &varint(self.num_data_blocks));
        b.add(PROP_ENTRIES, &varint(self.num_entries));
        b.add(PROP_FILTER_KEYS, &varint(self.num_filter_keys));
        b.add(PROP_FORMAT_VERSION, &varint(self.format_version.into()));
        if let Some(k) = &self.largest_key {
            b.add(PROP_LARGEST_KEY, k);
        }
        b.add(PROP_RAW_KEY_BYTES, &varint(self.raw_key_bytes));
        b.add(PROP_RAW_VALUE_BYTES, &varint(self.raw_value_bytes));
        if let Some(k) = &self.smallest_key {
            b.add(PROP_SMALLEST_KEY, k);
        }
        b.finish()
    }

    /// Parses a meta block. Unknown property names are skipped (a later writer may add
    /// properties without a version change); missing required ones are `DataLoss`.
    fn decode_meta(block: &Block) -> Result<SstableProperties> {
        fn number(name: &[u8], v: &[u8]) -> Result<u64> {
            let mut pos = 0;
            match get_varint64(v, &mut pos) {
                Some(n) if pos == v.len() => Ok(n),
                _ => Err(corruption(format!(
                    "malformed property {}",
                    alloc::string::String::from_utf8_lossy(name)
                ))),
            }
        }
        let mut p = SstableProperties::default();
        let mut seen = [false; 6];
        let mut it = block.iter();
        it.seek_to_first();
        while it.valid() {
            let (k, v) = (it.key(), it.value());
            match k {
                PROP_DATA_BLOCKS => (p.num_data_blocks, seen[0]) = (number(k, v)?, true),
                PROP_ENTRIES => (p.num_entries, seen[1]) = (number(k, v)?, true),
                PROP_FILTER_KEYS => (p.num_filter_keys, seen[2]) = (number(k, v)?, true),
                PROP_FORMAT_VERSION => {
                    let mut pos = 0;
                    p.format_version = get_varint32(v, &mut pos)
                        .filter(|_| pos == v.len())
                        .ok_or_else(|| corruption("malformed property format_version"))?;
                    seen[3] = true;
                }
                PROP_RAW_KEY_BYTES => (p.raw_key_bytes, seen[4]) = (number(k, v)?, true),
                PROP_RAW_VALUE_BYTES => (p.raw_value_bytes, seen[5]) = (number(k, v)?, true),
                PROP_LARGEST_KEY => p.largest_key = Some(v.to_vec()),
                PROP_SMALLEST_KEY => p.smallest_key = Some(v.to_vec()),
                _ => {}
            }
            it.next();
        }
        it.status()?;
        if seen.contains(&false) {
            return Err(corruption("meta block lacks a required property"));
        }
        let has_keys = p.num_entries > 0;
        if p.smallest_key.is_some() != has_keys || p.largest_key.is_some() != has_keys {
            return Err(corruption(
                "meta block smallest/largest keys disagree with the entry count",
            ));
        }
        Ok(p)
    }
}
