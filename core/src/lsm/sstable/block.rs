//! Blocks of prefix-compressed entries: the builder, the parsed [`Block`] and its
//! bidirectional iterator. Data, index and meta blocks all use this layout
//! (docs/format/sstable.md, "Block contents"):
//!
//! ```text
//! entry*  restart: u32 LE * num_restarts  num_restarts: u32 LE
//! entry = shared: varint32, unshared: varint32, value_len: varint32,
//!         key[shared..] (unshared bytes), value (value_len bytes)
//! ```
//!
//! Invariants: keys are strictly ascending within a block; every `restart_interval`-th entry
//! (starting with the first) stores its whole key (`shared == 0`) and its offset is in the
//! restart array, so a seek binary-searches the restart points and then scans at most
//! `restart_interval` entries. A [`Block`] is checked structurally when parsed (restart array
//! in bounds and ascending); each entry is checked as it is decoded. Nothing here panics on
//! malformed contents: the iterator stops and reports `DataLoss`.

use alloc::sync::Arc;
use alloc::vec::Vec;

use super::format::{corruption, get_u32_le, get_varint32, put_varint};
use crate::{Error, Result};

/// Builds the contents of one block. REQUIRES: keys added in strictly ascending order (the
/// table builder checks this before calling).
#[derive(Debug)]
pub(crate) struct BlockBuilder {
    buf: Vec<u8>,
    restarts: Vec<u32>,
    counter: usize,
    restart_interval: usize,
    last_key: Vec<u8>,
}

impl BlockBuilder {
    /// REQUIRES: `restart_interval >= 1`.
    pub fn new(restart_interval: usize) -> Self {
        BlockBuilder {
            buf: Vec::new(),
            restarts: alloc::vec![0],
            counter: 0,
            restart_interval: restart_interval.max(1),
            last_key: Vec::new(),
        }
    }

    /// Whether no entry was added since the last `finish`.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The size of the contents `finish` would return now.
    pub fn size_estimate(&self) -> usize {
        self.buf.len() + self.restarts.len() * 4 + 4
    }

    /// Appends an entry. REQUIRES: `key` greater than every key added before; key, value and
    /// the block so far each shorter than 4 GiB (the table builder bounds them).
    pub fn add(&mut self, key: &[u8], value: &[u8]) {
        let mut shared = 0;
        if self.counter < self.restart_interval {
            shared = self
                .last_key
                .iter()
                .zip(key)
                .take_while(|(a, b)| a == b)
                .count();
        } else {
            self.restarts.push(self.buf.len() as u32);
            self.counter = 0;
        }
        put_varint(&mut self.buf, shared as u64);
        put_varint(&mut self.buf, (key.len() - shared) as u64);
        put_varint(&mut self.buf, value.len() as u64);
        self.buf.extend_from_slice(&key[shared..]);
        self.buf.extend_from_slice(value);
        self.last_key.clear();
        self.last_key.extend_from_slice(key);
        self.counter += 1;
    }

    /// Returns the finished contents and resets the builder for the next block.
    pub fn finish(&mut self) -> Vec<u8> {
        let mut out = core::mem::take(&mut self.buf);
        for r in &self.restarts {
            out.extend_from_slice(&r.to_le_bytes());
        }
        out.extend_from_slice(&(self.restarts.len() as u32).to_le_bytes());
        self.restarts.clear();
        self.restarts.push(0);
        self.counter = 0;
        self.last_key.clear();
        out
    }
}

/// The parsed contents of one block, cheap to clone (a block cache can hold these).
#[derive(Debug, Clone)]
pub struct Block {
    data: Arc<Vec<u8>>,
    restarts_offset: usize,
    num_restarts: usize,
}

impl Block {
    /// Parses block contents, checking the restart array.
    ///
    /// # Errors
    /// `DataLoss` if the restart array does not fit, is not ascending, or points outside the
    /// entries.
    pub(crate) fn new(data: Vec<u8>) -> Result<Block> {
        let len = data.len();
        let num_restarts = len
            .checked_sub(4)
            .and_then(|p| get_u32_le(&data, p))
            .ok_or_else(|| corruption("block shorter than its restart count"))?;
        let num_restarts = num_restarts as usize;
        let max_restarts = (len - 4) / 4;
        if num_restarts > max_restarts {
            return Err(corruption("block restart array larger than the block"));
        }
        let restarts_offset = len - 4 - num_restarts * 4;
        if num_restarts == 0 && restarts_offset != 0 {
            return Err(corruption("block has entries but no restart points"));
        }
        let mut previous: Option<usize> = None;
        for i in 0..num_restarts {
            let r = get_u32_le(&data, restarts_offset + i * 4).unwrap_or(u32::MAX) as usize;
            let ok = match previous {
                None => r == 0,
                Some(p) => r > p && r < restarts_offset,
            };
            if !ok {
                return Err(corruption(
                    "block restart points out of order or out of bounds",
                ));
            }
            previous = Some(r);
        }
        Ok(Block {
            data: Arc::new(data),
            restarts_offset,
            num_restarts,
        })
    }

    /// An iterator over the block's entries, positioned nowhere.
    pub(crate) fn iter(&self) -> BlockIter {
        BlockIter {
            block: self.clone(),
            current: self.restarts_offset,
            restart_index: self.num_restarts,
            key: Vec::new(),
            value: (self.restarts_offset, self.restarts_offset),
            err: None,
            back: Vec::new(),
            back_keys: Vec::new(),
        }
    }

    fn restart_point(&self, i: usize) -> usize {
        if i >= self.num_restarts {
            return self.restarts_offset;
        }
        get_u32_le(&self.data, self.restarts_offset + i * 4)
            .map_or(self.restarts_offset, |r| r as usize)
    }
}

/// One decoded entry header: where the unshared key bytes and the value lie.
struct EntryHeader {
    shared: usize,
    key_start: usize,
    value_start: usize,
    value_end: usize,
}

/// A bidirectional iterator over one block, after LevelDB's `Block::Iter`.
///
/// Invalid (positioned nowhere) when `current == restarts_offset`. The first malformed entry
/// makes it invalid for good and is reported by [`BlockIter::status`].
///
/// Stepping back decodes the restart interval before the current entry once and keeps its
/// entries (`back`), so a backward walk decodes each entry about twice, not once per
/// entry before it in its interval (LevelDB rescans from the restart point on every step).
#[derive(Debug, Clone)]
pub(crate) struct BlockIter {
    block: Block,
    current: usize,
    restart_index: usize,
    key: Vec<u8>,
    /// Start and end of the current value; `value.1` is where the next entry starts.
    value: (usize, usize),
    err: Option<Error>,
    /// The entries of the current restart interval before the current one, decoded by the
    /// last backward rescan, oldest first; their keys are back to back in `back_keys`.
    /// Emptied by every forward move and seek.
    back: Vec<BackEntry>,
    back_keys: Vec<u8>,
}

/// An entry decoded ahead for a backward walk: its key's span in `back_keys`, its value's
/// span in the block and its offset.
#[derive(Debug, Clone, Copy)]
struct BackEntry {
    key: (usize, usize),
    value: (usize, usize),
    offset: usize,
}

impl BlockIter {
    pub fn valid(&self) -> bool {
        self.err.is_none() && self.current < self.block.restarts_offset
    }

    pub fn status(&self) -> Result<()> {
        match &self.err {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// REQUIRES: `valid()`.
    pub fn key(&self) -> &[u8] {
        &self.key
    }

    /// REQUIRES: `valid()`.
    pub fn value(&self) -> &[u8] {
        self.block
            .data
            .get(self.value.0..self.value.1)
            .unwrap_or(&[])
    }

    fn decode_header(&self, offset: usize) -> Option<EntryHeader> {
        let data = self.block.data.get(..self.block.restarts_offset)?;
        let mut pos = offset;
        let shared = get_varint32(data, &mut pos)? as usize;
        let unshared = get_varint32(data, &mut pos)? as usize;
        let value_len = get_varint32(data, &mut pos)? as usize;
        let value_start = pos.checked_add(unshared)?;
        let value_end = value_start.checked_add(value_len)?;
        if value_end > data.len() {
            return None;
        }
        Some(EntryHeader {
            shared,
            key_start: pos,
            value_start,
            value_end,
        })
    }

    fn fail(&mut self, what: &str) {
        self.err = Some(corruption(what));
        self.invalidate();
    }

    fn invalidate(&mut self) {
        self.forget_back();
        self.current = self.block.restarts_offset;
        self.restart_index = self.block.num_restarts;
        self.key.clear();
        self.value = (self.block.restarts_offset, self.block.restarts_offset);
    }

    fn forget_back(&mut self) {
        self.back.clear();
        self.back_keys.clear();
    }

    fn seek_to_restart_point(&mut self, index: usize) {
        self.key.clear();
        self.restart_index = index;
        let offset = self.block.restart_point(index);
        self.value = (offset, offset);
    }

    /// Decodes the entry at `value.1` into the current position; false at the end or on
    /// corruption.
    fn parse_next_key(&mut self) -> bool {
        self.current = self.value.1;
        if self.current >= self.block.restarts_offset {
            self.invalidate();
            return false;
        }
        let Some(h) = self.decode_header(self.current) else {
            self.fail("malformed block entry");
            return false;
        };
        if h.shared > self.key.len() {
            self.fail("block entry shares more key bytes than the previous key has");
            return false;
        }
        self.key.truncate(h.shared);
        let unshared = self
            .block
            .data
            .get(h.key_start..h.value_start)
            .unwrap_or(&[]);
        self.key.extend_from_slice(unshared);
        self.value = (h.value_start, h.value_end);
        while self.restart_index + 1 < self.block.num_restarts
            && self.block.restart_point(self.restart_index + 1) <= self.current
        {
            self.restart_index += 1;
        }
        true
    }

    pub fn seek_to_first(&mut self) {
        if self.err.is_some() {
            return;
        }
        self.forget_back();
        self.seek_to_restart_point(0);
        self.parse_next_key();
    }

    pub fn seek_to_last(&mut self) {
        if self.err.is_some() {
            return;
        }
        self.forget_back();
        if self.block.num_restarts == 0 {
            self.invalidate();
            return;
        }
        self.seek_to_restart_point(self.block.num_restarts - 1);
        while self.parse_next_key() && self.value.1 < self.block.restarts_offset {}
    }

    /// Positions at the first entry whose key is `>= target` (invalid if none).
    pub fn seek(&mut self, target: &[u8]) {
        if self.err.is_some() {
            return;
        }
        self.forget_back();
        if self.block.num_restarts == 0 {
            self.invalidate();
            return;
        }
        // Binary search for the last restart point whose key is < target.
        let (mut left, mut right) = (0usize, self.block.num_restarts - 1);
        while left < right {
            let mid = left + (right - left).div_ceil(2);
            let offset = self.block.restart_point(mid);
            let Some(h) = self.decode_header(offset) else {
                self.fail("malformed block entry at a restart point");
                return;
            };
            if h.shared != 0 {
                self.fail("block entry at a restart point shares key bytes");
                return;
            }
            let mid_key = self
                .block
                .data
                .get(h.key_start..h.value_start)
                .unwrap_or(&[]);
            if mid_key < target {
                left = mid;
            } else {
                right = mid - 1;
            }
        }
        self.seek_to_restart_point(left);
        while self.parse_next_key() {
            if self.key.as_slice() >= target {
                return;
            }
        }
    }

    /// REQUIRES: `valid()`.
    pub fn next(&mut self) {
        if self.valid() {
            self.forget_back();
            self.parse_next_key();
        }
    }

    /// REQUIRES: `valid()`. Steps back to the entry decoded by the last rescan, or rescans
    /// the restart interval holding the previous entry.
    pub fn prev(&mut self) {
        if !self.valid() {
            return;
        }
        if let Some(e) = self.back.pop() {
            // Same restart interval as the current entry: `restart_index` stays.
            self.current = e.offset;
            self.key.clear();
            self.key
                .extend_from_slice(self.back_keys.get(e.key.0..e.key.1).unwrap_or(&[]));
            self.back_keys.truncate(e.key.0);
            self.value = e.value;
            return;
        }
        let original = self.current;
        while self.block.restart_point(self.restart_index) >= original {
            if self.restart_index == 0 {
                self.invalidate();
                return;
            }
            self.restart_index -= 1;
        }
        self.seek_to_restart_point(self.restart_index);
        while self.parse_next_key() && self.value.1 < original {
            // Not the target yet: keep it for the next steps back.
            let start = self.back_keys.len();
            self.back_keys.extend_from_slice(&self.key);
            self.back.push(BackEntry {
                key: (start, self.back_keys.len()),
                value: self.value,
                offset: self.current,
            });
        }
        if self.valid() && self.value.1 != original {
            self.fail("block entries do not chain from a restart point");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Code;
    use alloc::format;

    type Entries = Vec<(Vec<u8>, Vec<u8>)>;

    fn build(n: usize, interval: usize) -> (Block, Entries) {
        let mut b = BlockBuilder::new(interval);
        let entries: Vec<_> = (0..n)
            .map(|i| {
                (
                    format!("key{:04}", i * 2).into_bytes(),
                    format!("v{i}").into_bytes(),
                )
            })
            .collect();
        for (k, v) in &entries {
            b.add(k, v);
        }
        (Block::new(b.finish()).unwrap(), entries)
    }

    #[test]
    fn iterates_both_ways_and_seeks() {
        for interval in [1, 2, 3, 16] {
            for n in [0, 1, 2, 5, 40] {
                let (block, entries) = build(n, interval);
                let mut it = block.iter();
                it.seek_to_first();
                for (k, v) in &entries {
                    assert!(it.valid());
                    assert_eq!((it.key(), it.value()), (k.as_slice(), v.as_slice()));
                    it.next();
                }
                assert!(!it.valid());
                it.seek_to_last();
                for (k, _) in entries.iter().rev() {
                    assert_eq!(it.key(), k.as_slice());
                    it.prev();
                }
                assert!(!it.valid());
                for i in 0..=2 * n + 1 {
                    it.seek(format!("key{i:04}").as_bytes());
                    match entries.get(i.div_ceil(2)) {
                        Some((k, _)) => assert_eq!(it.key(), k.as_slice()),
                        None => assert!(!it.valid()),
                    }
                }
                it.seek(b"");
                assert_eq!(it.valid(), n > 0);
                it.status().unwrap();
            }
        }
    }

    #[test]
    fn malformed_restart_arrays_are_data_loss() {
        for bytes in [
            &[][..],
            &[1, 0, 0][..],
            &[5, 0, 0, 0][..],
            &[9, 0, 0, 0, 0, 0, 0, 0, 0][..],
            &[0, 0, 0, 0, 7, 0, 0, 0, 1, 0, 0, 0][..],
        ] {
            assert_eq!(
                Block::new(bytes.to_vec()).unwrap_err().code(),
                Code::DataLoss
            );
        }
        let mut empty = Block::new(alloc::vec![0, 0, 0, 0]).unwrap().iter();
        empty.seek_to_first();
        assert!(!empty.valid());
    }

    #[test]
    fn every_mutation_of_a_block_is_rejected_or_decodes_without_panic() {
        let mut b = BlockBuilder::new(2);
        for k in ["a", "ab", "abc", "b", "bcd"] {
            b.add(k.as_bytes(), b"value");
        }
        let contents = b.finish();
        for i in 0..contents.len() {
            for x in [0x01u8, 0x80, 0xff] {
                let mut bad = contents.clone();
                bad[i] ^= x;
                let Ok(block) = Block::new(bad) else { continue };
                let mut it = block.iter();
                it.seek_to_first();
                let mut steps = 0;
                while it.valid() && steps < 100 {
                    it.next();
                    steps += 1;
                }
                it.seek_to_last();
                while it.valid() && steps < 200 {
                    it.prev();
                    steps += 1;
                }
                it.seek(b"abc");
            }
        }
    }
}
