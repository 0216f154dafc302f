//! The benchmark's data set and the process-level measurements around it.
//!
//! Rows are `row%010d`; row `i` holds one 1000-byte value that is a pure function of `i`
//! (a SplitMix64 stream seeded by `i`), so any reader can check a value it got back without
//! keeping the data set in memory. Write orders come from a seeded Fisher-Yates permutation,
//! so every engine sees the same order in a run.

use std::fs;
use std::path::Path;

/// Bytes of each row's value, as in the Bigtable paper's benchmark.
pub const VALUE_BYTES: usize = 1000;
/// Column family of the single cell of each row.
pub const FAMILY: &str = "cf";
/// Column qualifier of the single cell of each row.
pub const QUALIFIER: &[u8] = b"q";
/// Explicit timestamp of every cell (a multiple of 1000: valid at millisecond granularity).
pub const TIMESTAMP_MICROS: i64 = 1_000;

/// A small, fast, seedable generator (SplitMix64): enough for shuffles and value bytes.
#[derive(Debug, Clone)]
pub struct SplitMix(u64);

impl SplitMix {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value below `n` (`n` > 0); the modulo bias is irrelevant at these sizes.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// The row key of row `i`.
pub fn row_key(i: u64) -> Vec<u8> {
    format!("row{i:010}").into_bytes()
}

/// The value of row `i`.
pub fn value(i: u64) -> Vec<u8> {
    let mut v = vec![0u8; VALUE_BYTES];
    fill_value(i, &mut v);
    v
}

/// Writes row `i`'s value into `out` (reused buffers keep generation out of the timings' way).
pub fn fill_value(i: u64, out: &mut [u8]) {
    let mut rng = SplitMix::new(i ^ 0x5EED_0000_0000_0000);
    for chunk in out.chunks_mut(8) {
        let bytes = rng.next_u64().to_le_bytes();
        chunk.copy_from_slice(&bytes[..chunk.len()]);
    }
}

/// The peers' key of a cell: row ++ 0x00 ++ family ++ 0x00 ++ qualifier ++ big-endian
/// inverted timestamp, so newer versions sort first within a column, as in Bigtable.
pub fn cell_key(row: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(row.len() + FAMILY.len() + QUALIFIER.len() + 10);
    k.extend_from_slice(row);
    k.push(0);
    k.extend_from_slice(FAMILY.as_bytes());
    k.push(0);
    k.extend_from_slice(QUALIFIER);
    k.extend_from_slice(&(u64::MAX - TIMESTAMP_MICROS as u64).to_be_bytes());
    k
}

/// The prefix every cell key of `row` starts with (what a point read seeks to).
pub fn row_prefix(row: &[u8]) -> Vec<u8> {
    let mut p = Vec::with_capacity(row.len() + 1);
    p.extend_from_slice(row);
    p.push(0);
    p
}

/// The row key a peer's cell key belongs to (everything before the first 0x00).
pub fn row_of_cell_key(key: &[u8]) -> &[u8] {
    let end = key.iter().position(|&b| b == 0).unwrap_or(key.len());
    &key[..end]
}

/// Row index from a row key `row%010d`, if it is one.
pub fn row_index(key: &[u8]) -> Option<u64> {
    std::str::from_utf8(key.strip_prefix(b"row")?)
        .ok()?
        .parse()
        .ok()
}

/// A seeded permutation of `0..n`.
pub fn permutation(n: u64, seed: u64) -> Vec<u64> {
    let mut p: Vec<u64> = (0..n).collect();
    let mut rng = SplitMix::new(seed);
    for i in (1..p.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        p.swap(i, j);
    }
    p
}

/// `count` row indexes drawn uniformly (with repetition) from `0..n`.
pub fn sample(n: u64, count: u64, seed: u64) -> Vec<u64> {
    let mut rng = SplitMix::new(seed);
    (0..count).map(|_| rng.below(n)).collect()
}

/// A number from /proc/self/status (in kB), e.g. `VmHWM`.
pub fn status_kb(field: &str) -> u64 {
    let text = fs::read_to_string("/proc/self/status").unwrap_or_default();
    text.lines()
        .find_map(|l| {
            let rest = l.strip_prefix(field)?.strip_prefix(':')?;
            rest.split_whitespace().next()?.parse().ok()
        })
        .unwrap_or(0)
}

/// Bytes this process (every thread, live or exited) caused to be written to storage, from
/// /proc/self/io `write_bytes`.
pub fn write_bytes() -> u64 {
    io().write_bytes
}

/// This process's I/O counters from /proc/self/io (zeros where the kernel gives none).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Io {
    /// Bytes the process caused to be fetched from the storage device (`read_bytes`):
    /// page-cache misses, so reads served from memory do not count.
    pub read_bytes: u64,
    /// Bytes passed to `read`/`pread` and friends (`rchar`), from the cache or not.
    pub rchar: u64,
    /// Bytes the process caused to be sent to the storage device (`write_bytes`).
    pub write_bytes: u64,
}

impl Io {
    /// The counts since `earlier`.
    pub fn since(self, earlier: Io) -> Io {
        Io {
            read_bytes: self.read_bytes.saturating_sub(earlier.read_bytes),
            rchar: self.rchar.saturating_sub(earlier.rchar),
            write_bytes: self.write_bytes.saturating_sub(earlier.write_bytes),
        }
    }
}

/// This process's I/O counters now.
pub fn io() -> Io {
    let text = fs::read_to_string("/proc/self/io").unwrap_or_default();
    let get = |name: &str| -> u64 {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(':')?.trim().parse().ok())
            .unwrap_or(0)
    };
    Io {
        read_bytes: get("read_bytes"),
        rchar: get("rchar"),
        write_bytes: get("write_bytes"),
    }
}

/// Allocated bytes of every file under `path` (blocks, as `du` counts them: sparse files
/// such as LMDB's map count only what they use).
pub fn disk_usage(path: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let mut total = 0;
    if let Ok(entries) = fs::read_dir(path) {
        for e in entries.flatten() {
            let Ok(meta) = e.metadata() else { continue };
            if meta.is_dir() {
                total += disk_usage(&e.path());
            } else {
                total += meta.blocks() * 512;
            }
        }
    }
    total
}

/// Total length of the files in `path` (not recursive) whose names end with `suffix`, e.g.
/// Sparsetable's commit logs (`.log`).
pub fn files_len(path: &Path, suffix: &str) -> u64 {
    fs::read_dir(path)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(suffix))
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// Drops every file under `path` from the page cache (after writing back its dirty pages),
/// so the next reads come from the disk. Works without privileges, per file.
pub fn evict_page_cache(path: &Path) {
    use std::os::unix::io::AsRawFd;
    let Ok(entries) = fs::read_dir(path) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            evict_page_cache(&p);
        } else if let Ok(f) = fs::File::open(&p) {
            let _ = f.sync_all();
            // SAFETY: a valid open descriptor; fadvise only changes caching.
            unsafe {
                libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED);
            }
        }
    }
}

/// The value at quantile `q` (0..=1) of `v`, which is sorted in place; 0 for an empty `v`.
pub fn quantile(v: &mut [f64], q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let idx = ((v.len() - 1) as f64 * q).round() as usize;
    v[idx]
}

/// The median of `v` (sorted in place); `None` for an empty `v`.
pub fn median(v: &mut [f64]) -> Option<f64> {
    (!v.is_empty()).then(|| quantile(v, 0.5))
}
