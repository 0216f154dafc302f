//! The memtable: the layers of in-memory entries a tablet writes to, each a [`Source`]
//! (`lsm::source`) like the immutable runs.
//!
//! A memtable is a stack of layers, each an ordered map behind an `Arc`. Writes go to the
//! newest layer. A read that must outlive the database's lock (a `RowStream`) clones the
//! memtable, which only clones the `Arc`s: the layers it holds are then frozen for it. The
//! next write to a frozen newest layer starts a fresh one on top instead of changing it
//! (one allocation, never a copy of the entries), so a read's view never changes and a
//! writer never waits for or copies on behalf of a reader. Layers merge back into one when
//! the memtable is flushed (the table flushes early once readers have sealed a few).

use alloc::boxed::Box;
use alloc::collections::btree_map;
use alloc::collections::BTreeMap;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::ops::Bound;

use crate::lsm::internal_key::row_prefix_len;
use crate::lsm::row_bloom::{FrozenRowBloom, RowBloom};
use crate::lsm::row_merge::Entry;
use crate::lsm::source::{RowProbe, Source, SourceCursor};
use crate::lsm::sstable::bloom::row_hash;
use crate::platform::bytes;

/// Appends the row key an escaped row part (`esc(row_key)` with its terminator) stands for.
fn unescape_row(part: &[u8], out: &mut Vec<u8>) {
    let body = part.get(..part.len().saturating_sub(2)).unwrap_or_default();
    let mut i = 0;
    while let Some(&b) = body.get(i) {
        out.push(b);
        // An escaped zero is 0x00 0xFF: skip the 0xFF.
        i += if b == 0 { 2 } else { 1 };
    }
}

/// The filter hash of the row an internal key belongs to (`None`: a malformed row part,
/// which only a caller bypassing the key encoder could make). Rows without a zero byte (most)
/// are hashed straight from the key; others are unescaped into a scratch buffer first.
fn key_row_hash(key: &[u8]) -> Option<u32> {
    // One pass for the common case: the key's first zero byte is the row's terminator
    // (`0x00 0x01`) when the row itself has no zero byte.
    let zero = key.iter().position(|&b| b == 0)?;
    if key.get(zero + 1) == Some(&0x01) {
        return Some(row_hash(&key[..zero]));
    }
    let n = row_prefix_len(key)?;
    let mut row = Vec::new();
    unescape_row(&key[..n], &mut row);
    Some(row_hash(&row))
}

/// The ordered map of one memtable layer.
type MemMap = BTreeMap<MemKey, Vec<u8>>;

/// A cursor over a memtable layer: its map's range, then its tail (every tail key is above
/// every map key). Consumed forward after `seek` and backward after `seek_before`.
struct LayerCursor<'a> {
    layer: &'a MemLayer,
    range: Option<btree_map::Range<'a, MemKey, Vec<u8>>>,
    /// `Some(i)` while the current entry is `tail[i]`; `None` while it comes from `range`.
    tail_pos: Option<usize>,
    current: Option<(&'a [u8], &'a [u8])>,
}

impl<'a> LayerCursor<'a> {
    fn tail_entry(&self, i: usize) -> Option<(&'a [u8], &'a [u8])> {
        let layer: &'a MemLayer = self.layer;
        layer.tail.get(i).map(|(k, v)| (k.as_slice(), v.as_slice()))
    }
}

fn map_entry<'a>(e: Option<(&'a MemKey, &'a Vec<u8>)>) -> Option<(&'a [u8], &'a [u8])> {
    e.map(|(k, v)| (k.0.as_slice(), v.as_slice()))
}

impl<'a> SourceCursor<'a> for LayerCursor<'a> {
    fn seek(&mut self, key: &[u8]) {
        let mut range = self
            .layer
            .map
            .range::<[u8], _>((Bound::Included(key), Bound::Unbounded));
        self.current = map_entry(range.next());
        self.range = Some(range);
        if self.current.is_some() {
            self.tail_pos = None;
        } else {
            let i = self
                .layer
                .tail
                .partition_point(|(k, _)| bytes::less(k, key));
            self.tail_pos = Some(i);
            self.current = self.tail_entry(i);
        }
    }
    fn seek_before(&mut self, key: Option<&[u8]>) {
        let tail = &self.layer.tail;
        let i = key.map_or(tail.len(), |k| {
            tail.partition_point(|(t, _)| bytes::less(t, k))
        });
        if i > 0 {
            // Every map key lies below every tail key, so the map is walked whole after.
            self.range = Some(self.layer.map.range::<[u8], _>(..));
            self.tail_pos = Some(i - 1);
            self.current = self.tail_entry(i - 1);
        } else {
            let end = key.map_or(Bound::Unbounded, Bound::Excluded);
            let mut range = self.layer.map.range::<[u8], _>((Bound::Unbounded, end));
            self.current = map_entry(range.next_back());
            self.range = Some(range);
            self.tail_pos = None;
        }
    }
    fn entry(&self) -> Option<(&[u8], &[u8])> {
        self.lasting_entry()
    }
    fn lasting_entry(&self) -> Option<(&'a [u8], &'a [u8])> {
        self.current
    }
    fn next(&mut self) {
        if self.current.is_none() {
            return;
        }
        match self.tail_pos {
            Some(i) => {
                self.tail_pos = Some(i + 1);
                self.current = self.tail_entry(i + 1);
            }
            None => {
                self.current = map_entry(self.range.as_mut().and_then(Iterator::next));
                if self.current.is_none() {
                    self.tail_pos = Some(0);
                    self.current = self.tail_entry(0);
                }
            }
        }
    }
    fn prev(&mut self) {
        if self.current.is_none() {
            return;
        }
        match self.tail_pos {
            Some(i) if i > 0 => {
                self.tail_pos = Some(i - 1);
                self.current = self.tail_entry(i - 1);
            }
            _ => {
                self.tail_pos = None;
                self.current =
                    map_entry(self.range.as_mut().and_then(DoubleEndedIterator::next_back));
            }
        }
    }
}

/// A cursor over an in-memory run: an index into its sorted entries (`entries.len()` when
/// exhausted).
struct MemRunCursor<'a> {
    run: &'a MemRun,
    entries: &'a [Entry],
    pos: usize,
}

impl<'a> SourceCursor<'a> for MemRunCursor<'a> {
    fn seek(&mut self, key: &[u8]) {
        self.pos = self.run.lower_bound(key);
    }
    fn seek_before(&mut self, key: Option<&[u8]>) {
        let end = key.map_or(self.entries.len(), |k| self.run.lower_bound(k));
        self.pos = end.checked_sub(1).unwrap_or(self.entries.len());
    }
    fn entry(&self) -> Option<(&[u8], &[u8])> {
        self.lasting_entry()
    }
    fn lasting_entry(&self) -> Option<(&'a [u8], &'a [u8])> {
        self.entries
            .get(self.pos)
            .map(|(k, v)| (k.as_slice(), v.as_slice()))
    }
    fn next(&mut self) {
        if self.pos < self.entries.len() {
            self.pos += 1;
        }
    }
    fn prev(&mut self) {
        self.pos = match self.pos {
            0 => self.entries.len(),
            p if p >= self.entries.len() => p,
            p => p - 1,
        };
    }
}

/// One layer of a memtable (see the module docs). Frozen once a read view shares it.
///
/// Invariant: `tail` is strictly ascending and every key in it is above every key in `map`;
/// together they hold the layer's entries, each key once.
#[derive(Debug, Default, Clone)]
pub struct MemLayer {
    map: MemMap,
    /// Entries written in ascending key order past the map's last key (a load in key order,
    /// a time series): each is appended after one comparison. In the map each would walk the
    /// tree comparing with up to eleven keys a node; in a Node profile that walk was a
    /// quarter of a sequential write's time on wasm32, whose comparisons cost more.
    tail: Vec<Entry>,
    /// The rows the layer holds an entry of, so a point read of another row opens no
    /// cursor here (`lsm::row_bloom`). Keys are only ever added to a layer, so it never
    /// has to forget one.
    rows: RowBloom,
    /// Set if a key without a well-formed row part was inserted: the filter then answers
    /// "may contain" for every row.
    unfiltered: bool,
}

impl MemLayer {
    fn is_empty(&self) -> bool {
        self.map.is_empty() && self.tail.is_empty()
    }

    /// Stores `value` under `key`, returning the value it replaced.
    fn insert(&mut self, key: Vec<u8>, value: Vec<u8>) -> Option<Vec<u8>> {
        use core::cmp::Ordering;
        match key_row_hash(&key) {
            Some(h) => self.rows.add(h),
            None => self.unfiltered = true,
        }
        let past_map = |map: &MemMap, key: &[u8]| {
            map.last_key_value()
                .is_none_or(|(last, _)| bytes::less(&last.0, key))
        };
        match self.tail.last_mut() {
            Some((last, old)) => match bytes::compare(&key, last) {
                Ordering::Greater => {
                    self.tail.push((key, value));
                    return None;
                }
                Ordering::Equal => return Some(core::mem::replace(old, value)),
                Ordering::Less => {}
            },
            None if past_map(&self.map, &key) => {
                self.tail.push((key, value));
                return None;
            }
            None => {}
        }
        if self
            .tail
            .first()
            .is_some_and(|(first, _)| !bytes::less(&key, first))
        {
            // Inside the tail's span: replace in place, or move the tail into the map (each
            // entry moves at most once) so the new key can go between its neighbours.
            match self.tail.binary_search_by(|(k, _)| bytes::compare(k, &key)) {
                Ok(i) => return Some(core::mem::replace(&mut self.tail[i].1, value)),
                Err(_) => {
                    for (k, v) in self.tail.drain(..) {
                        self.map.insert(MemKey(k), v);
                    }
                }
            }
        }
        self.map.insert(MemKey(key), value)
    }

    /// Every entry, in key order, copied.
    pub(crate) fn all_entries(&self) -> Vec<Entry> {
        self.map
            .iter()
            .map(|(k, v)| (k.0.clone(), v.clone()))
            .chain(self.tail.iter().cloned())
            .collect()
    }

    /// The entries in key order, moved out.
    fn into_entries(self) -> impl Iterator<Item = Entry> {
        self.map.into_iter().map(|(k, v)| (k.0, v)).chain(self.tail)
    }
}

impl Source for MemLayer {
    fn size_bytes(&self) -> u64 {
        let map: u64 = self
            .map
            .iter()
            .map(|(k, v)| (k.0.len() + v.len()) as u64)
            .sum();
        let tail: u64 = self
            .tail
            .iter()
            .map(|(k, v)| (k.len() + v.len()) as u64)
            .sum();
        map + tail
    }
    fn max_sequence(&self) -> u64 {
        // Only runs answer this (recovery reads it of runs); a layer's writes are counted
        // by its memtable.
        0
    }
    fn is_known_empty(&self) -> bool {
        self.is_empty()
    }
    fn may_contain_row(&self, row: &RowProbe<'_>) -> bool {
        self.unfiltered || self.rows.may_contain(row.hash)
    }
    // Known without a search: the map's ends are its first and last leaves, the tail's are
    // its ends, and the tail lies above the map. A point read of a row outside the range
    // (most of them, once the memtable holds only recent writes) opens no cursor here.
    fn key_range(&self) -> Option<(&[u8], &[u8])> {
        let first = match self.map.first_key_value() {
            Some((k, _)) => k.0.as_slice(),
            None => self.tail.first()?.0.as_slice(),
        };
        let last = match self.tail.last() {
            Some((k, _)) => k.as_slice(),
            None => self.map.last_key_value()?.0 .0.as_slice(),
        };
        Some((first, last))
    }
    fn cursor(&self) -> Box<dyn SourceCursor<'_> + '_> {
        Box::new(LayerCursor {
            layer: self,
            range: None,
            tail_pos: None,
            current: None,
        })
    }
}

/// The mutable, in-memory newest layer of a tablet: a stack of [`MemLayer`]s.
///
/// Invariant: `layers` is never empty; `layers[0]` takes writes and is the newest. Keys
/// are unique across layers (each carries its own sequence number), so the layers are
/// simply more sources to merge. Cloning shares the layers: that is how a read view
/// freezes the memtable.
#[derive(Debug, Clone)]
pub struct Memtable {
    layers: Vec<Arc<MemLayer>>,
    bytes: u64,
    max_sequence: u64,
}

impl Default for Memtable {
    fn default() -> Self {
        Memtable {
            layers: alloc::vec![Arc::default()],
            bytes: 0,
            max_sequence: 0,
        }
    }
}

/// A memtable key. Ordered by [`bytes::compare`] (the same order as the bytes'), so that
/// inserts, which compare most, skip wasm32's byte-at-a-time `memcmp`. Lookups borrow it as
/// `[u8]`, which orders identically, as `Borrow` requires.
#[derive(Debug, Clone, PartialEq, Eq)]
struct MemKey(Vec<u8>);

impl Ord for MemKey {
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        bytes::compare(&self.0, &other.0)
    }
}

impl PartialOrd for MemKey {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl core::borrow::Borrow<[u8]> for MemKey {
    fn borrow(&self) -> &[u8] {
        &self.0
    }
}

impl Memtable {
    /// Adds an entry written with sequence number `sequence` (keys are unique: each carries
    /// its own sequence number). If a read view shares the newest layer, a fresh layer
    /// takes the entry and the shared one stays as the view saw it.
    pub fn insert(&mut self, key: Vec<u8>, value: Vec<u8>, sequence: u64) {
        self.max_sequence = self.max_sequence.max(sequence);
        self.bytes += (key.len() + value.len()) as u64;
        let (shared, empty) = self.layers.first().map_or((true, false), |l| {
            (Arc::strong_count(l) + Arc::weak_count(l) > 1, l.is_empty())
        });
        if shared && empty {
            // Shared but empty (a backup's snapshot of a flushed tablet): nothing to keep.
            self.layers[0] = Arc::default();
        } else if shared {
            self.layers.insert(0, Arc::default());
        }
        // Unshared now, so `make_mut` never copies.
        if let Some(old) = Arc::make_mut(&mut self.layers[0]).insert(key, value) {
            self.bytes -= old.len() as u64;
        }
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.layers.iter().all(|l| l.is_empty())
    }

    /// Layers sealed because a read view held them when a write came (beyond the one
    /// taking writes). Each is one more source for every read of the tablet to merge, so
    /// the table flushes a memtable that has gathered a few.
    pub(crate) fn sealed_layers(&self) -> usize {
        self.layers.len() - 1
    }

    /// The layers, newest first, as sources to read.
    pub(crate) fn layers(&self) -> impl Iterator<Item = &dyn Source> {
        self.layers.iter().map(|l| l.as_ref() as &dyn Source)
    }

    /// Bytes of keys and values held.
    pub fn size_bytes(&self) -> u64 {
        self.bytes
    }

    /// The highest sequence number of any write it holds (or held: a flush keeps it).
    pub fn max_sequence(&self) -> u64 {
        self.max_sequence
    }

    /// The entries, in order, leaving the memtable as it is (a flush copies first and
    /// clears only once the run is safely written).
    pub fn entries(&self) -> Vec<Entry> {
        let mut out: Vec<Entry> = self.layers.iter().flat_map(|l| l.all_entries()).collect();
        if self.layers.len() > 1 {
            out.sort_by(|a, b| a.0.cmp(&b.0));
            out.dedup_by(|a, b| a.0 == b.0);
        }
        out
    }

    /// Moves the entries out, in order, leaving the memtable empty (its max sequence stays).
    /// Layers no read view shares are moved, not copied.
    pub(crate) fn take_entries(&mut self) -> Vec<Entry> {
        self.bytes = 0;
        let layers = core::mem::replace(&mut self.layers, alloc::vec![Arc::default()]);
        let several = layers.len() > 1;
        let mut out: Vec<Entry> = Vec::new();
        for l in layers {
            match Arc::try_unwrap(l) {
                Ok(l) => out.extend(l.into_entries()),
                Err(shared) => out.extend(shared.all_entries()),
            }
        }
        if several {
            out.sort_by(|a, b| a.0.cmp(&b.0));
            out.dedup_by(|a, b| a.0 == b.0);
        }
        out
    }

    /// Removes the layers a flush outside the lock wrote: `flushed` is a clone of this
    /// memtable taken when the flush began (which froze its layers, so writes since went to
    /// fresh layers on top). True if this memtable still holds all of `flushed`'s non-empty
    /// layers as its oldest ones (the same `Arc`s); otherwise (it was flushed, split or
    /// cleared meanwhile) nothing changes and the flush's run must be discarded.
    #[cfg(feature = "std")]
    pub(crate) fn remove_flushed(&mut self, flushed: &Memtable) -> bool {
        let done: Vec<&Arc<MemLayer>> = flushed.layers.iter().filter(|l| !l.is_empty()).collect();
        if done.is_empty() || done.len() > self.layers.len() {
            return false;
        }
        let keep = self.layers.len() - done.len();
        let same = self.layers[keep..]
            .iter()
            .zip(&done)
            .all(|(a, b)| Arc::ptr_eq(a, b));
        if !same {
            return false;
        }
        self.layers.truncate(keep);
        if self.layers.is_empty() {
            self.layers.push(Arc::default());
        }
        self.bytes = self.layers.iter().map(|l| l.size_bytes()).sum();
        true
    }

    /// Empties it (read views keep the layers they hold).
    pub fn clear(&mut self) {
        self.layers = alloc::vec![Arc::default()];
        self.bytes = 0;
    }
}

/// An immutable sorted run held in memory (the in-memory backend's SSTable).
#[derive(Debug)]
pub struct MemRun {
    entries: Vec<Entry>,
    bytes: u64,
    max_sequence: u64,
    /// A bloom filter of the row keys (8-16 bits per row, one cache line per probe set:
    /// `lsm::row_bloom`), so point reads skip runs that do not hold the row, as they skip
    /// run files.
    rows: FrozenRowBloom,
    /// Set if an entry's key has no well-formed row part: every row may then be held.
    unfiltered: bool,
    /// How many leading bytes every key shares (the first and last keys' common prefix).
    shared: usize,
    /// Per entry, the 8 key bytes after the shared prefix as a big-endian number (zero
    /// padded): a search first bisects these, in one compact array, and compares whole keys
    /// only among entries with the same head. Invariant: non-decreasing, as the keys are.
    heads: Vec<u64>,
    /// Every [`HEAD_BLOCK`]-th head (`top[j] == heads[j * HEAD_BLOCK]`): small enough to stay
    /// in cache, so a search bisects it first and then only one block of `heads`, touching
    /// a few cache lines of the big array instead of one per bisection step.
    top: Vec<u64>,
}

/// Heads per block of [`MemRun::top`] (512 bytes of heads: 8 cache lines).
const HEAD_BLOCK: usize = 64;

/// The 8 bytes of `key` after its first `shared`, zero padded, as a big-endian number. For
/// keys sharing those `shared` bytes, `a < b` implies `head(a) <= head(b)`.
fn head(key: &[u8], shared: usize) -> u64 {
    let mut b = [0u8; 8];
    let rest = key.get(shared..).unwrap_or_default();
    let n = rest.len().min(8);
    b[..n].copy_from_slice(&rest[..n]);
    u64::from_be_bytes(b)
}

impl MemRun {
    /// A run of entries already sorted by key.
    pub fn new(entries: Vec<Entry>, max_sequence: u64) -> Arc<Self> {
        let mut unfiltered = false;
        debug_assert!(entries.windows(2).all(|w| w[0].0 < w[1].0));
        let bytes = entries
            .iter()
            .map(|(k, v)| (k.len() + v.len()) as u64)
            .sum();
        let mut hashes = Vec::new();
        let mut last_part: &[u8] = &[];
        for (k, _) in &entries {
            if !last_part.is_empty() && bytes::starts_with(k, last_part) {
                continue;
            }
            let Some(n) = row_prefix_len(k) else {
                // Not an entry key the encoder makes: let every row through.
                unfiltered = true;
                break;
            };
            last_part = &k[..n];
            if let Some(h) = key_row_hash(k) {
                hashes.push(h);
            }
        }
        // Each row once (the entries are sorted): sized once, never grown.
        let rows = if unfiltered {
            FrozenRowBloom::default()
        } else {
            RowBloom::of_distinct(hashes).freeze()
        };
        let shared = match (entries.first(), entries.last()) {
            (Some((a, _)), Some((b, _))) => a.iter().zip(b).take_while(|(x, y)| x == y).count(),
            _ => 0,
        };
        let heads: Vec<u64> = entries.iter().map(|(k, _)| head(k, shared)).collect();
        let top = heads.iter().step_by(HEAD_BLOCK).copied().collect();
        Arc::new(MemRun {
            entries,
            bytes,
            max_sequence,
            rows,
            unfiltered,
            shared,
            heads,
            top,
        })
    }

    /// The index of the first entry whose key is `>= key`.
    fn lower_bound(&self, key: &[u8]) -> usize {
        let Some((first, _)) = self.entries.first() else {
            return 0;
        };
        let common = &first[..self.shared];
        let n = key.len().min(self.shared);
        match bytes::compare(&key[..n], &common[..n]) {
            core::cmp::Ordering::Less => return 0,
            core::cmp::Ordering::Greater => return self.entries.len(),
            // A key that is a proper prefix of the shared bytes is below every entry.
            core::cmp::Ordering::Equal if n < self.shared => return 0,
            core::cmp::Ordering::Equal => {}
        }
        // Entries with a smaller head are below `key`, with a larger head above it.
        let h = head(key, self.shared);
        // The first block starting at or above `h`: every head before the previous block's
        // start is below `h`, and the block's own first head is not.
        let j = self.top.partition_point(|&x| x < h);
        let start = j.saturating_sub(1) * HEAD_BLOCK;
        let end = (j * HEAD_BLOCK).min(self.heads.len());
        let lo = start + self.heads[start..end].partition_point(|&x| x < h);
        // Equal heads are few (one row's versions, mostly): gallop forward from `lo`
        // rather than bisect the rest of the run.
        let mut step = 1;
        let mut hi = lo;
        while self.heads.get(hi).is_some_and(|&x| x <= h) {
            hi = (lo + step).min(self.heads.len());
            if self.heads.get(hi).is_none_or(|&x| x > h) {
                let from = lo + step / 2;
                hi = from + self.heads[from..hi].partition_point(|&x| x <= h);
                break;
            }
            step *= 2;
        }
        lo + self.entries[lo..hi].partition_point(|(k, _)| bytes::less(k, key))
    }
}

impl Source for MemRun {
    fn size_bytes(&self) -> u64 {
        self.bytes
    }
    fn max_sequence(&self) -> u64 {
        self.max_sequence
    }
    fn may_contain_row(&self, row: &RowProbe<'_>) -> bool {
        self.unfiltered || self.rows.may_contain(row.hash)
    }
    fn key_range(&self) -> Option<(&[u8], &[u8])> {
        let first = self.entries.first()?;
        let last = self.entries.last()?;
        Some((&first.0, &last.0))
    }
    fn cursor(&self) -> Box<dyn SourceCursor<'_> + '_> {
        Box::new(MemRunCursor {
            run: self,
            entries: &self.entries,
            pos: self.entries.len(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsm::internal_key::{EntryKind, InternalKey};

    fn entries() -> Vec<Entry> {
        let mut out: Vec<Entry> = [&b"a"[..], b"a\0b", b"b", b"c\0"]
            .iter()
            .enumerate()
            .flat_map(|(i, row)| {
                (0..3u64).map(move |q| {
                    let key = InternalKey {
                        row_key: row.to_vec(),
                        sequence: i as u64 * 10 + q,
                        kind: EntryKind::Cell {
                            family: "cf".into(),
                            qualifier: alloc::vec![q as u8],
                            timestamp_micros: 5,
                        },
                    };
                    (key.encode(), alloc::vec![i as u8, q as u8])
                })
            })
            .collect();
        out.sort();
        out
    }

    fn walk(s: &dyn Source, from: &[u8]) -> Vec<Entry> {
        let mut c = s.cursor();
        c.seek(from);
        let mut out = Vec::new();
        while let Some((k, v)) = c.entry() {
            out.push((k.to_vec(), v.to_vec()));
            c.next();
        }
        out
    }

    fn walk_back(s: &dyn Source, before: Option<&[u8]>) -> Vec<Entry> {
        let mut c = s.cursor();
        c.seek_before(before);
        let mut out = Vec::new();
        while let Some((k, v)) = c.entry() {
            out.push((k.to_vec(), v.to_vec()));
            c.prev();
        }
        out
    }

    #[test]
    fn every_cursor_walks_the_same_entries_both_ways_from_every_position() {
        let all = entries();
        let run = MemRun::new(all.clone(), 40);
        let mut mem = Memtable::default();
        for (k, v) in &all {
            mem.insert(k.clone(), v.clone(), 1);
        }
        let layer = mem.layers[0].clone();
        let mut seeks: Vec<Vec<u8>> = all.iter().map(|(k, _)| k.clone()).collect();
        seeks.extend(all.iter().map(|(k, _)| [k.as_slice(), &[0]].concat()));
        seeks.push(Vec::new());
        seeks.push(alloc::vec![0xff; 4]);
        for from in &seeks {
            let expected: Vec<Entry> = all.iter().filter(|(k, _)| k >= from).cloned().collect();
            assert_eq!(walk(&*run, from), expected);
            assert_eq!(walk(&*layer, from), expected);
            let mut below: Vec<Entry> = all.iter().filter(|(k, _)| k < from).cloned().collect();
            below.reverse();
            assert_eq!(walk_back(&*run, Some(from)), below);
            assert_eq!(walk_back(&*layer, Some(from)), below);
        }
        let mut reversed = all.clone();
        reversed.reverse();
        assert_eq!(walk_back(&*run, None), reversed);
        assert_eq!(walk_back(&*layer, None), reversed);
    }

    proptest::proptest! {
        /// A layer against a plain ordered map, under inserts that mix ascending runs (the
        /// tail), keys below and inside the tail (the map, and the tail's spill) and
        /// overwrites: the same contents, the same replaced values, and cursors that walk the
        /// same entries both ways from every position.
        #[test]
        fn a_layer_holds_and_walks_what_an_ordered_map_would(
            ops in proptest::collection::vec((0u8..4, 0u16..300, proptest::prelude::any::<u8>()), 0..120),
        ) {
            let mut layer = MemLayer::default();
            let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
            let mut next = 0u16;
            for (kind, k, v) in ops {
                // Kind 0 and 1 continue an ascending run; 2 and 3 pick any key (overwrites
                // included), which lands in the map or inside the tail.
                let n = if kind < 2 { next = next.wrapping_add(1 + k % 3); next } else { k };
                // Keys with a shared prefix longer than a word, as internal keys have.
                let key = alloc::format!("row-prefix-{n:05}").into_bytes();
                let replaced = layer.insert(key.clone(), alloc::vec![v]);
                proptest::prop_assert_eq!(replaced, model.insert(key, alloc::vec![v]));
            }
            let all: Vec<Entry> = model.into_iter().collect();
            proptest::prop_assert_eq!(layer.all_entries(), all.clone());
            proptest::prop_assert_eq!(layer.is_known_empty(), all.is_empty());
            proptest::prop_assert_eq!(
                layer.key_range(),
                all.first().zip(all.last()).map(|(f, l)| (f.0.as_slice(), l.0.as_slice()))
            );
            proptest::prop_assert_eq!(
                layer.size_bytes(),
                all.iter().map(|(k, v)| (k.len() + v.len()) as u64).sum::<u64>()
            );
            let mut seeks: Vec<Vec<u8>> = all.iter().map(|(k, _)| k.clone()).collect();
            seeks.extend(all.iter().map(|(k, _)| [k.as_slice(), &[0]].concat()));
            seeks.push(Vec::new());
            seeks.push(alloc::vec![0xff; 4]);
            for from in &seeks {
                let expected: Vec<Entry> =
                    all.iter().filter(|(k, _)| k >= from).cloned().collect();
                proptest::prop_assert_eq!(walk(&layer, from), expected);
                let mut below: Vec<Entry> =
                    all.iter().filter(|(k, _)| k < from).cloned().collect();
                below.reverse();
                proptest::prop_assert_eq!(walk_back(&layer, Some(from)), below);
            }
            let mut reversed = all.clone();
            reversed.reverse();
            proptest::prop_assert_eq!(walk_back(&layer, None), reversed);
            proptest::prop_assert_eq!(layer.into_entries().collect::<Vec<_>>(), all);
        }
    }

    proptest::proptest! {
        /// A layer's row filter, and that of a run flushed from it, against the set of rows
        /// written: every row with an entry (row keys with zero bytes, whose escaping the filter undoes, included) may
        /// be held, across the filter's growths and rows written again; the point reads of
        /// absent rows it lets through are few.
        #[test]
        fn layer_and_run_filters_never_rule_out_a_row_they_hold(
            writes in proptest::collection::vec(
                (proptest::collection::vec(0u8..4, 0..6), 0u16..2000, 0u8..3), 0..400),
        ) {
            let mut mem = Memtable::default();
            let mut rows: alloc::collections::BTreeSet<Vec<u8>> = Default::default();
            for (i, (extra, n, q)) in writes.into_iter().enumerate() {
                // Rows from a small space (written again often) with a tail of zero bytes
                // and other small bytes.
                let mut row = alloc::format!("r{n}").into_bytes();
                row.extend(extra);
                let key = InternalKey {
                    row_key: row.clone(),
                    sequence: i as u64,
                    kind: EntryKind::Cell {
                        family: "cf".into(),
                        qualifier: alloc::vec![q],
                        timestamp_micros: 1,
                    },
                };
                mem.insert(key.encode(), alloc::vec![1], i as u64);
                rows.insert(row);
            }
            // The layer, and an in-memory run made of its entries (a flush's).
            let run = MemRun::new(mem.entries(), 1);
            let sources: [&dyn Source; 2] = [&*mem.layers[0], &*run];
            for source in sources {
                for row in &rows {
                    proptest::prop_assert!(
                        source.may_contain_row(&RowProbe::new(row)), "{:?}", row
                    );
                }
                let absent = (0..1000u32)
                    .map(|i| alloc::format!("absent{i}").into_bytes())
                    .filter(|r| source.may_contain_row(&RowProbe::new(r)))
                    .count();
                proptest::prop_assert!(absent < 100, "{} of 1000 absent rows passed", absent);
            }
        }
    }

    #[test]
    fn a_shared_layer_is_frozen_and_writes_go_to_a_fresh_one() {
        let all = entries();
        let mut mem = Memtable::default();
        let (first, rest) = all.split_at(4);
        for (k, v) in first {
            mem.insert(k.clone(), v.clone(), 1);
        }
        let view = mem.clone();
        for (k, v) in rest {
            mem.insert(k.clone(), v.clone(), 2);
        }
        // The view still holds exactly what it held; the memtable holds everything.
        let seen: Vec<Entry> = view.layers.iter().flat_map(|l| l.all_entries()).collect();
        assert_eq!(seen, first);
        assert_eq!(mem.sealed_layers(), 1);
        assert_eq!(mem.entries(), all);
        assert_eq!(mem.take_entries(), all);
        assert!(mem.is_empty());
        assert_eq!(mem.sealed_layers(), 0);
        // A view of an empty memtable (a backup of a flushed tablet) seals nothing.
        let empty_view = mem.clone();
        mem.insert(all[2].0.clone(), all[2].1.clone(), 3);
        assert_eq!(mem.sealed_layers(), 0);
        assert!(empty_view.is_empty());
        mem.clear();
        // Unshared, the newest layer takes writes in place.
        mem.insert(all[0].0.clone(), all[0].1.clone(), 3);
        mem.insert(all[1].0.clone(), all[1].1.clone(), 3);
        assert_eq!(mem.sealed_layers(), 0);
    }

    #[test]
    fn run_searches_agree_with_a_plain_bisection_under_a_long_shared_prefix() {
        let mut all: Vec<Entry> = (0..300u32)
            .map(|i| {
                let mut k = b"row00000".to_vec();
                k.extend_from_slice(alloc::format!("{:05}", i * 3).as_bytes());
                if i % 7 == 0 {
                    k.extend_from_slice(b"\0tail");
                }
                (k, alloc::vec![1])
            })
            .collect();
        all.sort();
        let run = MemRun::new(all.clone(), 1);
        let mut probes: Vec<Vec<u8>> = Vec::new();
        for (k, _) in &all {
            for cut in 0..=k.len() {
                probes.push(k[..cut].to_vec());
            }
            probes.push([k.as_slice(), &[0]].concat());
            let mut bumped = k.clone();
            *bumped.last_mut().unwrap() += 1;
            probes.push(bumped);
        }
        probes.extend([
            alloc::vec![],
            b"rox".to_vec(),
            b"ro".to_vec(),
            alloc::vec![0xff],
        ]);
        for p in &probes {
            let expected = all.partition_point(|(k, _)| k < p);
            assert_eq!(run.lower_bound(p), expected, "{p:?}");
        }
    }

    #[test]
    fn run_searches_agree_with_a_plain_bisection_across_long_runs_of_equal_heads() {
        // Keys equal for 8 bytes after the shared prefix, for runs longer than a head
        // block: the search gallops across blocks and then compares whole keys.
        let mut all: Vec<Entry> = (0..700u32)
            .map(|i| {
                let group = [b'a', b'b', b'c'][(i % 3) as usize];
                let mut k = alloc::vec![b'k', group];
                k.extend_from_slice(b"SAMEHEAD");
                k.extend_from_slice(alloc::format!("{i:04}").as_bytes());
                (k, alloc::vec![1])
            })
            .collect();
        all.push((b"ka".to_vec(), alloc::vec![]));
        all.push((b"kz".to_vec(), alloc::vec![]));
        all.sort();
        let run = MemRun::new(all.clone(), 1);
        let mut probes: Vec<Vec<u8>> = all.iter().map(|(k, _)| k.clone()).collect();
        for (k, _) in &all {
            probes.push([k.as_slice(), &[0]].concat());
            probes.push(k[..k.len() - 1].to_vec());
        }
        probes.extend([b"kb".to_vec(), b"kbSAMEHEAD".to_vec(), b"kc\xff".to_vec()]);
        for p in &probes {
            let expected = all.partition_point(|(k, _)| k < p);
            assert_eq!(run.lower_bound(p), expected, "{p:?}");
        }
    }

    #[test]
    fn a_run_filter_never_rules_out_a_row_it_holds() {
        let run = MemRun::new(entries(), 40);
        for row in [&b"a"[..], b"a\0b", b"b", b"c\0"] {
            assert!(run.may_contain_row(&RowProbe::new(row)), "{row:?}");
        }
        // Rows it does not hold are mostly ruled out (10 bits per key: about 1% pass).
        let passed = (0..1000u32)
            .filter(|i| run.may_contain_row(&RowProbe::new(&i.to_be_bytes())))
            .count();
        assert!(
            passed < 100,
            "{passed} of 1000 absent rows passed the filter"
        );
    }
}
