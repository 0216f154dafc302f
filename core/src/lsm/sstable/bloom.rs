//! The table's bloom filter over filter keys (docs/format/sstable.md, "Filter block").
//!
//! One filter per table, built from LevelDB's 32-bit `Hash` (seed `0xbc9f1d34`) and double
//! hashing: probe `i` sets bit `(h + i * delta) mod m` with `delta = h rotated right by 17`.
//! Invariant: every filter key added answers `may_contain == true` (no false negatives);
//! other keys answer true with probability about 1% at 10 bits per key.

use alloc::vec::Vec;

use super::format::corruption;
use crate::Result;

/// Seed of the filter hash. Reaches disk (through the bit positions): never change.
const SEED: u32 = 0xbc9f_1d34;
/// Largest number of probes a filter may declare.
const MAX_PROBES: u8 = 30;

/// LevelDB's `Hash(data, n, seed)`: a Murmur-like 32-bit hash, little-endian words.
pub(crate) fn hash(data: &[u8], seed: u32) -> u32 {
    const M: u32 = 0xc6a4_a793;
    let mut h = seed ^ (data.len() as u32).wrapping_mul(M);
    let mut words = data.chunks_exact(4);
    for w in &mut words {
        h = h.wrapping_add(u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
        h = h.wrapping_mul(M);
        h ^= h >> 16;
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        for (i, b) in rest.iter().enumerate().rev() {
            h = h.wrapping_add(u32::from(*b) << (8 * i));
        }
        h = h.wrapping_mul(M);
        h ^= h >> 24;
    }
    h
}

fn filter_hash(key: &[u8]) -> u32 {
    hash(key, SEED)
}

/// The filter hash of a filter key (a row key): what [`Filter::may_contain_hash`] takes, so
/// a point read hashes its row once for every run's filter and memtable layer's.
pub(crate) fn row_hash(key: &[u8]) -> u32 {
    filter_hash(key)
}

/// Collects filter-key hashes while a table is written, then lays out the filter.
#[derive(Debug)]
pub(crate) struct FilterBuilder {
    bits_per_key: u32,
    hashes: Vec<u32>,
    last: Option<Vec<u8>>,
}

impl FilterBuilder {
    /// `bits_per_key == 0` builds no filter (an empty filter block).
    pub fn new(bits_per_key: u32) -> Self {
        FilterBuilder {
            bits_per_key,
            hashes: Vec::new(),
            last: None,
        }
    }

    /// Adds a filter key; a key equal to the previous one is skipped, as a row's cells all
    /// pass the same row key.
    pub fn add(&mut self, key: &[u8]) {
        if self.last.as_deref() == Some(key) {
            return;
        }
        self.hashes.push(filter_hash(key));
        let last = self.last.get_or_insert_with(Vec::new);
        last.clear();
        last.extend_from_slice(key);
    }

    /// Distinct consecutive filter keys added.
    pub fn num_keys(&self) -> u64 {
        self.hashes.len() as u64
    }

    /// The filter block's contents: the bit array then one byte, the number of probes.
    pub fn finish(&self) -> Vec<u8> {
        if self.bits_per_key == 0 {
            return Vec::new();
        }
        let probes = (self.bits_per_key * 69 / 100).clamp(1, u32::from(MAX_PROBES)) as u8;
        let bits = (self.hashes.len() as u64)
            .saturating_mul(u64::from(self.bits_per_key))
            .max(64);
        let bytes = bits.div_ceil(8);
        let bits = bytes * 8;
        let mut out = alloc::vec![0u8; bytes as usize + 1];
        for &h in &self.hashes {
            let mut h = h;
            let delta = h.rotate_right(17);
            for _ in 0..probes {
                let pos = u64::from(h) % bits;
                out[(pos / 8) as usize] |= 1 << (pos % 8);
                h = h.wrapping_add(delta);
            }
        }
        out[bytes as usize] = probes;
        out
    }
}

/// A filter read from disk.
#[derive(Debug, Clone)]
pub(crate) enum Filter {
    /// The table was written without a filter: every key may be present.
    None,
    /// A bit array (at least 8 bytes) and its number of probes (1..=30).
    Bloom { bits: Vec<u8>, probes: u8 },
}

impl Filter {
    /// Parses filter block contents.
    ///
    /// # Errors
    /// `DataLoss` if the contents are not empty and not a bit array of at least 8 bytes
    /// followed by a probe count in 1..=30.
    pub fn decode(mut contents: Vec<u8>) -> Result<Filter> {
        let Some(probes) = contents.pop() else {
            return Ok(Filter::None);
        };
        if contents.len() < 8 || probes == 0 || probes > MAX_PROBES {
            return Err(corruption("malformed filter block"));
        }
        Ok(Filter::Bloom {
            bits: contents,
            probes,
        })
    }

    /// False only if `key` was certainly never added.
    pub fn may_contain(&self, key: &[u8]) -> bool {
        self.may_contain_hash(filter_hash(key))
    }

    /// [`may_contain`](Self::may_contain) given the key's [`row_hash`].
    pub fn may_contain_hash(&self, mut h: u32) -> bool {
        let Filter::Bloom { bits, probes } = self else {
            return true;
        };
        let nbits = bits.len() as u64 * 8;
        let delta = h.rotate_right(17);
        for _ in 0..*probes {
            let pos = u64::from(h) % nbits;
            let byte = bits.get((pos / 8) as usize).copied().unwrap_or(0);
            if byte & (1 << (pos % 8)) == 0 {
                return false;
            }
            h = h.wrapping_add(delta);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;

    #[test]
    fn hash_matches_leveldb_reference_values() {
        // From LevelDB's util/hash_test.cc (seed 0xbc9f1d34).
        assert_eq!(hash(&[], SEED), 0xbc9f_1d34);
        assert_eq!(hash(&[0x62], SEED), 0xef13_45c4);
        assert_eq!(hash(&[0xc3, 0x97], SEED), 0x5b66_3814);
        assert_eq!(hash(&[0xe2, 0x99, 0xa5], SEED), 0x323c_078f);
        assert_eq!(hash(&[0xe1, 0x80, 0xb9, 0x32], SEED), 0xed21_633a);
        let mut data5 = [0u8; 48];
        for (i, b) in [
            (0, 0x01),
            (1, 0xc0),
            (16, 0x14),
            (22, 0x04),
            (27, 0x14),
            (31, 0x18),
            (32, 0x28),
            (40, 0x02),
        ] {
            data5[i] = b;
        }
        assert_eq!(hash(&data5, 0x1234_5678), 0xf333_dabb);
    }

    #[test]
    fn no_false_negatives_and_few_false_positives() {
        let mut b = FilterBuilder::new(10);
        for i in 0..10_000u32 {
            let key = format!("row{i:08}");
            b.add(key.as_bytes());
            b.add(key.as_bytes());
        }
        assert_eq!(b.num_keys(), 10_000);
        let f = Filter::decode(b.finish()).unwrap();
        for i in 0..10_000u32 {
            assert!(f.may_contain(format!("row{i:08}").as_bytes()));
        }
        let fp = (10_000..20_000u32)
            .filter(|i| f.may_contain(format!("row{i:08}").as_bytes()))
            .count();
        assert!(fp < 300, "{fp} false positives in 10000");
    }

    #[test]
    fn empty_and_disabled_filters() {
        let f = Filter::decode(FilterBuilder::new(10).finish()).unwrap();
        assert!(!f.may_contain(b"anything"));
        let f = Filter::decode(FilterBuilder::new(0).finish()).unwrap();
        assert!(f.may_contain(b"anything"));
        assert!(Filter::decode(alloc::vec![0u8; 9]).is_err());
        assert!(Filter::decode(alloc::vec![6u8; 3]).is_err());
    }
}
