//! A bloom filter of the rows a memtable layer holds, grown as rows arrive, so that a point
//! read skips a layer that surely lacks its row (as it skips runs by their filters) instead
//! of walking the layer's tree.
//!
//! Why: after random writes a layer's key range spans the whole tablet, so the range check
//! lets every point read through, and the layer's `BTreeMap` descent (a comparison of whole
//! keys at each of up to eleven slots per node, a cache miss per node) was the largest single
//! cost of a random in-memory point read (15% of its instructions in a callgrind profile),
//! although most reads find nothing there.
//!
//! Layout: a blocked bloom filter. Each row sets [`PROBES`] bits inside one 512-bit block
//! (one cache line), picked from the row's 32-bit filter hash (`sstable::bloom::row_hash`,
//! the hash the runs' filters use, so a point read hashes its row once for every source).
//! The row hashes are kept too (4 bytes a row) so that growing the bit array, when the rows
//! outnumber [`BITS_PER_ROW`]-th of its bits, re-sets them without walking the layer's keys.
//!
//! In-memory runs use it too ([`FrozenRowBloom`], built once): their filter never reaches
//! disk, and one cache line per probe set costs a point read one miss a run where the
//! LevelDB-layout filter of run files spreads its probes over the whole array.
//!
//! Invariant: every hash added answers `may_contain == true` (no false negatives), before
//! and after any growth; a filter holding nothing answers false.

use alloc::vec::Vec;

/// Probes per row, all within one block.
const PROBES: u32 = 6;
/// 64-bit words per block (512 bits: one cache line).
const BLOCK_WORDS: usize = 8;
/// The bit array is rebuilt once the rows would leave fewer than half this many bits each,
/// doubled until they have at least this many: it holds between `BITS_PER_ROW / 2` and
/// `BITS_PER_ROW` bits per distinct row, or more (about 1-4% false positives with six probes
/// in a block).
const BITS_PER_ROW: usize = 16;
/// The smallest bit array: one block.
const MIN_WORDS: usize = BLOCK_WORDS;

/// A growable blocked bloom filter over row hashes (see the module docs).
#[derive(Debug, Clone, Default)]
pub(crate) struct RowBloom {
    /// The bit array: a power-of-two number of blocks, or empty while no row is held.
    words: Vec<u64>,
    /// The hash of every row added (a row added again right after itself is kept once;
    /// other repeats are dropped when the array fills).
    hashes: Vec<u32>,
    /// Adds since the last rebuild whose bits were all set already: repeats of a row, or
    /// false positives.
    maybe_repeats: usize,
}

/// How many rows (repeats included) an array of `words` holds before it is rebuilt.
fn capacity(words: usize) -> usize {
    words * 64 * 2 / BITS_PER_ROW
}

/// The block index (below `blocks`, a power of two) and the word/bit pairs of `h`'s probes.
#[inline]
fn probes(h: u32, blocks: usize) -> (usize, [(usize, u64); PROBES as usize]) {
    // Spread the 32 bits over 64 (Fibonacci hashing): the block comes from the top bits,
    // each probe's 9 bits (word 3, bit 6) from the rest.
    let x = u64::from(h).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let block = ((x >> 40) as usize) & (blocks - 1);
    let mut bits = [(0usize, 0u64); PROBES as usize];
    let mut y = x ^ (x >> 29);
    for slot in &mut bits {
        let p = (y & 511) as usize;
        *slot = (p >> 6, 1u64 << (p & 63));
        y >>= 9;
    }
    (block * BLOCK_WORDS, bits)
}

/// Whether every probe bit of `h` is set in `words` (false for an empty array).
#[inline]
fn contains(words: &[u64], h: u32) -> bool {
    if words.is_empty() {
        return false;
    }
    let (base, bits) = probes(h, words.len() / BLOCK_WORDS);
    let block = &words[base..base + BLOCK_WORDS];
    bits.iter().all(|&(w, b)| block[w] & b != 0)
}

/// A [`RowBloom`] that takes no more rows: its bit array alone (an in-memory run's filter,
/// built once from the run's rows).
#[derive(Debug, Clone, Default)]
pub(crate) struct FrozenRowBloom {
    words: Vec<u64>,
}

impl FrozenRowBloom {
    /// False only if no row with filter hash `h` was added before it froze.
    #[inline]
    pub(crate) fn may_contain(&self, h: u32) -> bool {
        contains(&self.words, h)
    }
}

impl RowBloom {
    /// False only if no row with filter hash `h` was added.
    #[inline]
    pub(crate) fn may_contain(&self, h: u32) -> bool {
        contains(&self.words, h)
    }

    /// A filter of rows whose hashes are `hashes`, each row once (an in-memory run's rows),
    /// sized for them at once: no growth, no sort.
    pub(crate) fn of_distinct(hashes: Vec<u32>) -> Self {
        let mut words = MIN_WORDS;
        while hashes.len() * 2 > capacity(words) {
            words *= 2;
        }
        let mut f = RowBloom {
            words: alloc::vec![0; words],
            hashes: Vec::new(),
            maybe_repeats: 0,
        };
        for &h in &hashes {
            f.set(h);
        }
        f.hashes = hashes;
        f
    }

    /// The filter without its row hashes (which only growing needs).
    pub(crate) fn freeze(self) -> FrozenRowBloom {
        FrozenRowBloom { words: self.words }
    }

    /// Adds the row with filter hash `h`.
    pub(crate) fn add(&mut self, h: u32) {
        if self.hashes.last() == Some(&h) {
            // The same row as the last add (a mutation's cells): its bits are set.
            return;
        }
        // Kept even when its bits are all set already: that may be a false positive, whose
        // bits a growth would not set again without its hash.
        if self.may_contain(h) {
            self.maybe_repeats += 1;
        }
        self.hashes.push(h);
        if self.hashes.len() <= capacity(self.words.len()) {
            self.set(h);
            return;
        }
        // Full (counting repeats of rows written again). When many adds may have been
        // repeats, drop them (a sort: in a profile of random writes, sorting at every growth
        // was most of what the filter cost a write, with almost no repeats to drop); then
        // double the array until the rows fill at most half of it, and re-set every row.
        // Each rebuild follows at least half a capacity of adds: amortised O(log n) per add.
        if self.maybe_repeats * 4 > self.hashes.len() {
            self.hashes.sort_unstable();
            self.hashes.dedup();
        }
        self.maybe_repeats = 0;
        let mut words = self.words.len().max(MIN_WORDS);
        while self.hashes.len() * 2 > capacity(words) {
            words *= 2;
        }
        if words == self.words.len() {
            self.set(h);
            return;
        }
        self.words.clear();
        self.words.resize(words, 0);
        for i in 0..self.hashes.len() {
            self.set(self.hashes[i]);
        }
    }

    fn set(&mut self, h: u32) {
        let (base, bits) = probes(h, self.words.len() / BLOCK_WORDS);
        for (w, b) in bits {
            self.words[base + w] |= b;
        }
    }

    /// Bytes of memory it holds (its bit array and its row hashes).
    #[cfg(test)]
    pub(crate) fn heap_bytes(&self) -> usize {
        self.words.capacity() * 8 + self.hashes.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mix(i: u32) -> u32 {
        // Distinct, well spread test hashes (a bijection of u32).
        i.wrapping_mul(0x9e37_79b1).rotate_left(13) ^ 0x5bd1_e995
    }

    #[test]
    fn an_empty_filter_holds_nothing() {
        let f = RowBloom::default();
        assert!((0..1000).all(|i| !f.may_contain(mix(i))));
    }

    #[test]
    fn every_row_added_is_found_through_every_growth_and_few_others_pass() {
        let mut f = RowBloom::default();
        for n in 0..20_000u32 {
            f.add(mix(n));
            // After each growth (and between), every row added so far answers true.
            if n.is_power_of_two() || n % 997 == 0 {
                assert!((0..=n).all(|i| f.may_contain(mix(i))), "after {n} rows");
            }
        }
        assert!((0..20_000).all(|i| f.may_contain(mix(i))));
        let passed = (20_000..120_000u32)
            .filter(|&i| f.may_contain(mix(i)))
            .count();
        // Between 8 and 16 bits a row: at most a few percent of absent rows pass.
        assert!(passed < 5_000, "{passed} of 100000 absent rows passed");
        // Bounded memory: under 16 bits a row plus the 4-byte hashes (and Vec slack).
        assert!(f.heap_bytes() < 20_000 * (2 + 4) * 2, "{}", f.heap_bytes());
    }

    #[test]
    fn rows_written_again_and_again_do_not_grow_the_array() {
        let mut f = RowBloom::default();
        for round in 0..200u32 {
            for i in 0..100u32 {
                f.add(mix(i));
            }
            assert!((0..100).all(|i| f.may_contain(mix(i))), "round {round}");
        }
        // 100 distinct rows: at most 16 bits each, rounded up to a power of two blocks.
        assert!(
            f.words.len() * 64 <= 100 * 16 * 2,
            "{} words",
            f.words.len()
        );
    }

    #[test]
    fn a_filter_built_at_once_holds_its_rows_and_few_others() {
        let f = RowBloom::of_distinct((0..20_000).map(mix).collect());
        assert!((0..20_000).all(|i| f.may_contain(mix(i))));
        let passed = (20_000..120_000u32)
            .filter(|&i| f.may_contain(mix(i)))
            .count();
        assert!(passed < 5_000, "{passed} of 100000 absent rows passed");
        assert!(!RowBloom::of_distinct(Vec::new()).may_contain(mix(1)));
    }

    #[test]
    fn a_frozen_filter_answers_as_it_did() {
        let mut f = RowBloom::default();
        (0..3000).for_each(|i| f.add(mix(i)));
        let answers: Vec<bool> = (0..6000).map(|i| f.may_contain(mix(i))).collect();
        let frozen = f.freeze();
        assert!((0..6000).all(|i| frozen.may_contain(mix(i)) == answers[i as usize]));
        assert!(!FrozenRowBloom::default().may_contain(1));
    }

    #[test]
    fn adding_a_row_twice_keeps_one_hash() {
        let mut f = RowBloom::default();
        f.add(7);
        f.add(7);
        assert_eq!(f.hashes.len(), 1);
        assert!(f.may_contain(7));
    }
}
