//! In-memory benchmark workloads, written once and compiled both natively and to
//! `wasm32-unknown-unknown`, so the two builds run exactly the same code on the same data.
//!
//! The workloads (issue 6): sequential writes, random writes, sequential reads, random reads
//! and a full scan over rows of one 1000-byte pseudo-random value, keys `row%010d`, the random
//! order a permutation drawn from a fixed seed. Every row gets its own value so a read that
//! returned another row's data is caught.
//!
//! This crate does not time anything: the caller (the native bin with `Instant`, or Node with
//! `performance.now()` around each call) measures [`Bench::run`]. Invariants: inputs (keys,
//! values, order) are generated before any timing; every workload verifies what it read and
//! returns an error instead of a figure when the data is wrong; the database runs on a
//! [`ManualClock`] in both builds (the engine is built without `std`, which has no clock on
//! wasm32), so no workload pays for a host clock call.

use std::sync::Arc;

use sparsetable::{Database, ManualClock, Mutation, ReadRowsRequest, TableConfig};

/// The workloads in the order a run executes them (reads need the writes before them).
pub const WORKLOADS: [&str; 5] = [
    "sequential_writes",
    "random_writes",
    "sequential_reads",
    "random_reads",
    "scans",
];

/// Bytes in each row's value.
pub const VALUE_BYTES: usize = 1000;

/// The seed of the values and of the random order; fixed so every build sees the same data.
pub const SEED: u64 = 0x5157_a6b1_e000_0006;

const FAMILY: &str = "cf";
const QUALIFIER: &[u8] = b"v";
const TIMESTAMP_MICROS: i64 = 1_700_000_000_000_000;
/// Filled by `sequential_writes`; read by both read workloads and the scan.
const SEQUENTIAL_TABLE: &str = "sequential";
/// Filled by `random_writes`.
const RANDOM_TABLE: &str = "random";

/// SplitMix64: tiny, seedable, identical on every target.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// The inputs of a benchmark and the database the workloads run against.
pub struct Bench {
    keys: Vec<Vec<u8>>,
    values: Vec<Vec<u8>>,
    /// A permutation of `0..rows`: the order of the random workloads.
    order: Vec<usize>,
    db: Database,
}

impl core::fmt::Debug for Bench {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Bench")
            .field("rows", &self.keys.len())
            .finish_non_exhaustive()
    }
}

impl Bench {
    /// Generates `rows` keys and values and the random order; the database starts empty.
    ///
    /// # Errors
    /// If `rows` is zero.
    pub fn new(rows: usize) -> Result<Self, String> {
        if rows == 0 {
            return Err("rows must be at least 1".into());
        }
        let mut random = SplitMix64(SEED);
        let keys = (0..rows)
            .map(|i| format!("row{i:010}").into_bytes())
            .collect();
        let values = (0..rows)
            .map(|_| {
                let mut value = Vec::with_capacity(VALUE_BYTES);
                while value.len() < VALUE_BYTES {
                    let word = random.next().to_le_bytes();
                    let take = (VALUE_BYTES - value.len()).min(word.len());
                    value.extend_from_slice(&word[..take]);
                }
                value
            })
            .collect();
        // Fisher-Yates from the same generator.
        let mut order: Vec<usize> = (0..rows).collect();
        for i in (1..rows).rev() {
            let j = (random.next() % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
        Ok(Bench {
            keys,
            values,
            order,
            db: empty_database()?,
        })
    }

    /// Rows per workload.
    pub fn rows(&self) -> usize {
        self.keys.len()
    }

    /// Drops the database and starts an empty one: call before each run, outside the timing.
    ///
    /// # Errors
    /// If the engine refuses to create the tables (it should not).
    pub fn reset(&mut self) -> Result<(), String> {
        self.db = empty_database()?;
        Ok(())
    }

    /// Runs one workload and returns how many operations it performed (rows written, rows
    /// read, or rows scanned).
    ///
    /// # Errors
    /// An unknown name, an engine error, or data that differs from what was written.
    pub fn run(&mut self, workload: &str) -> Result<usize, String> {
        match workload {
            "sequential_writes" => self.write(SEQUENTIAL_TABLE, false),
            "random_writes" => self.write(RANDOM_TABLE, true),
            "sequential_reads" => self.read(false),
            "random_reads" => self.read(true),
            "scans" => self.scan(),
            other => Err(format!(
                "unknown workload {other:?}; expected one of {WORKLOADS:?}"
            )),
        }
    }

    fn write(&mut self, table: &str, random: bool) -> Result<usize, String> {
        for n in 0..self.keys.len() {
            let i = if random { self.order[n] } else { n };
            let mutation = [Mutation::set_cell(
                FAMILY,
                QUALIFIER,
                TIMESTAMP_MICROS,
                self.values[i].clone(),
            )];
            self.db
                .mutate_row(table, &self.keys[i], &mutation)
                .map_err(|e| format!("{table}: writing {}: {e}", show(&self.keys[i])))?;
        }
        Ok(self.keys.len())
    }

    fn read(&self, random: bool) -> Result<usize, String> {
        for n in 0..self.keys.len() {
            let i = if random { self.order[n] } else { n };
            let row = self
                .db
                .read_row(SEQUENTIAL_TABLE, &self.keys[i])
                .map_err(|e| format!("reading {}: {e}", show(&self.keys[i])))?
                .ok_or_else(|| {
                    format!(
                        "row {} not found: did sequential_writes run first?",
                        show(&self.keys[i])
                    )
                })?;
            self.check(&row, i)?;
        }
        Ok(self.keys.len())
    }

    fn scan(&self) -> Result<usize, String> {
        let rows = self
            .db
            .read_rows(SEQUENTIAL_TABLE, &ReadRowsRequest::default())
            .map_err(|e| format!("scan: {e}"))?;
        let mut count = 0;
        for row in rows {
            // Key order equals index order, so the n-th row scanned must be row n.
            if count >= self.keys.len() {
                return Err(format!("scan returned more than {} rows", self.keys.len()));
            }
            self.check(&row, count)?;
            count += 1;
        }
        if count != self.keys.len() {
            return Err(format!(
                "scan returned {count} rows, {} were written",
                self.keys.len()
            ));
        }
        Ok(count)
    }

    /// Checks that `row` is row `i` exactly as written: its key and its one cell's value.
    fn check(&self, row: &sparsetable::Row, i: usize) -> Result<(), String> {
        if row.key != self.keys[i] {
            return Err(format!(
                "expected row {}, got {}",
                show(&self.keys[i]),
                show(&row.key)
            ));
        }
        match row.cells.as_slice() {
            [cell] if same_bytes(&cell.value, &self.values[i]) => Ok(()),
            [_] => Err(format!(
                "row {}: the value read differs from the one written",
                show(&row.key)
            )),
            cells => Err(format!(
                "row {}: expected 1 cell, got {}",
                show(&row.key),
                cells.len()
            )),
        }
    }
}

/// `a == b`, eight bytes at a time. Slice equality calls `memcmp`, which the wasm32 target
/// gets from compiler-builtins as a byte-at-a-time loop (natively it is the C library's
/// vectorised one): comparing each 1000-byte value that way made this check, not the engine,
/// most of the wasm time of the read workloads (a Node CPU profile put 60% of all `memcmp`
/// time here). Word compares cost about the same on both sides, so the ratio measures the
/// engine.
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    fn word(bytes: &[u8]) -> u64 {
        let mut w = [0u8; 8];
        w.copy_from_slice(bytes);
        u64::from_ne_bytes(w)
    }
    if a.len() != b.len() {
        return false;
    }
    let (a8, b8) = (a.chunks_exact(8), b.chunks_exact(8));
    a8.remainder() == b8.remainder() && a8.zip(b8).all(|(x, y)| word(x) == word(y))
}

fn empty_database() -> Result<Database, String> {
    let mut db = Database::with_clock(Arc::new(ManualClock::new(TIMESTAMP_MICROS)));
    for table in [SEQUENTIAL_TABLE, RANDOM_TABLE] {
        db.create_table(table, TableConfig::with_families([FAMILY]))
            .map_err(|e| format!("creating table {table}: {e}"))?;
    }
    Ok(db)
}

fn show(key: &[u8]) -> String {
    String::from_utf8_lossy(key).into_owned()
}

/// Allocates about `bytes` in 64 KiB blocks and frees them again, so the allocator holds that
/// much memory before any timing starts. On wasm32 this grows the linear memory once, up front:
/// growing it piecemeal inside a measured workload made first inserts ~10x slower in a trial.
/// Small blocks stay below the allocator's direct-mapping threshold, so freeing them returns
/// the space to its free lists rather than releasing it.
pub fn reserve_memory(bytes: usize) {
    const BLOCK: usize = 64 * 1024;
    let blocks: Vec<Vec<u8>> = (0..bytes / BLOCK)
        .map(|_| {
            let mut block = Vec::<u8>::with_capacity(BLOCK);
            // Touch the block so native builds commit the pages too.
            block.resize(BLOCK, 1);
            block
        })
        .collect();
    std::hint::black_box(&blocks);
}

/// The JavaScript face of [`Bench`]: Node times each `run` call with `performance.now()`.
#[cfg(target_arch = "wasm32")]
mod js {
    use wasm_bindgen::prelude::*;

    /// A [`Bench`](crate::Bench) for JavaScript.
    #[wasm_bindgen]
    pub struct WasmBench(crate::Bench);

    #[wasm_bindgen]
    impl WasmBench {
        /// Generates the inputs for `rows` rows.
        #[wasm_bindgen(constructor)]
        pub fn new(rows: u32) -> Result<WasmBench, JsError> {
            crate::Bench::new(rows as usize)
                .map(WasmBench)
                .map_err(|e| JsError::new(&e))
        }

        /// Starts an empty database.
        pub fn reset(&mut self) -> Result<(), JsError> {
            self.0.reset().map_err(|e| JsError::new(&e))
        }

        /// Runs one workload; returns its operation count.
        pub fn run(&mut self, workload: &str) -> Result<u32, JsError> {
            let ops = self.0.run(workload).map_err(|e| JsError::new(&e))?;
            Ok(ops as u32)
        }
    }

    /// See [`crate::reserve_memory`].
    #[wasm_bindgen(js_name = reserveMemory)]
    pub fn reserve_memory(bytes: f64) {
        crate::reserve_memory(bytes as usize);
    }

    /// The size of the linear memory in bytes: the driver checks it does not grow while timing.
    #[wasm_bindgen(js_name = memoryBytes)]
    pub fn memory_bytes() -> f64 {
        (core::arch::wasm32::memory_size(0) * 65536) as f64
    }

    /// The workload names, in run order.
    #[wasm_bindgen]
    pub fn workloads() -> Vec<String> {
        crate::WORKLOADS.iter().map(|w| w.to_string()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_all(bench: &mut Bench) -> Result<Vec<usize>, String> {
        WORKLOADS.iter().map(|w| bench.run(w)).collect()
    }

    #[test]
    fn every_workload_counts_every_row() {
        let mut bench = Bench::new(300).unwrap();
        assert_eq!(run_all(&mut bench).unwrap(), vec![300; WORKLOADS.len()]);
        // A second run on a reset database sees the same.
        bench.reset().unwrap();
        assert_eq!(run_all(&mut bench).unwrap(), vec![300; WORKLOADS.len()]);
    }

    #[test]
    fn the_order_is_a_permutation_and_values_differ() {
        let bench = Bench::new(1000).unwrap();
        let mut seen = bench.order.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..1000).collect::<Vec<_>>());
        assert_ne!(bench.order, seen, "the random order is not the identity");
        assert_ne!(bench.values[0], bench.values[1]);
        assert_eq!(bench.values[999].len(), VALUE_BYTES);
    }

    #[test]
    fn same_bytes_finds_any_difference() {
        for len in 0..40usize {
            let a: Vec<u8> = (0..len as u8).collect();
            assert!(same_bytes(&a, &a.clone()));
            assert!(!same_bytes(&a, &a[..len.saturating_sub(1)]) || len == 0);
            for at in 0..len {
                let mut b = a.clone();
                b[at] ^= 0x80;
                assert!(!same_bytes(&a, &b), "len {len}, byte {at}");
            }
        }
    }

    #[test]
    fn reads_fail_when_the_data_is_wrong() {
        let mut bench = Bench::new(50).unwrap();
        // Nothing written yet: the reads and the scan must not report a figure.
        for w in ["sequential_reads", "random_reads", "scans"] {
            assert!(bench.run(w).is_err(), "{w} on an empty table");
        }
        bench.run("sequential_writes").unwrap();
        // The engine now holds other bytes than the ones expected for row 7.
        bench.values[7][0] ^= 1;
        for w in ["sequential_reads", "random_reads", "scans"] {
            let err = bench.run(w).unwrap_err();
            assert!(err.contains("row0000000007"), "{w}: {err}");
        }
        assert!(bench.run("no_such_workload").is_err());
        assert!(Bench::new(0).is_err());
    }
}
