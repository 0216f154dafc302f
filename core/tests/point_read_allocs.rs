//! Allocations per point read, counted by a global allocator: a regression in the read
//! path's allocations fails here without any timing (docs/benchmarks.md has the timings).
//!
//! The counter is per thread (the test harness runs tests on threads of its own), so each
//! figure is exactly what one `read_row` allocated. The budgets are today's counts, each
//! allocation named in [`budget`]'s comments; lowering one is welcome (update the number),
//! raising one needs a reason.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;

use sparsetable::platform::storage::MemStorage;
use sparsetable::{
    Database, Durability, ManualClock, Mutation, OpenOptions, Row, TableConfig, TabletOptions,
};

struct Counting;

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: the allocator also runs while a thread's locals are torn down.
    let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: every call is forwarded unchanged to `System`; counting touches only a
// thread-local `Cell` with a const initialiser (no allocation, no destructor).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count();
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        count();
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: forwarded with the caller's pointer and layout.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        count();
        // SAFETY: forwarded with the caller's pointer, layout and size.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const NOW: i64 = 50_000_000;
const VALUE_BYTES: usize = 1000;

/// The allocations of `read` on this thread, and its result.
fn allocations<T>(read: impl FnOnce() -> T) -> (u64, T) {
    let before = ALLOCS.with(Cell::get);
    let out = read();
    (ALLOCS.with(Cell::get) - before, out)
}

/// One tablet (no splits, merges or compactions of its own) whose memtable becomes a run
/// past 64 KiB: the benchmark's schema, one family, one cell per row.
fn config() -> TableConfig {
    TableConfig {
        tablet_options: TabletOptions {
            memtable_bytes: 64 << 10,
            max_runs: 10_000,
            split_bytes: u64::MAX,
            merge_bytes: 0,
            split_load_ops: 0,
        },
        ..TableConfig::with_families(["cf"])
    }
}

fn key(i: u32) -> Vec<u8> {
    format!("row{i:010}").into_bytes()
}

fn value(i: u32) -> Vec<u8> {
    (0..VALUE_BYTES)
        .map(|j| (i as usize * 31 + j) as u8)
        .collect()
}

/// Writes `rows` rows (key order scrambled) of one 1000-byte cell each.
fn load(db: &mut Database, rows: u32) {
    db.create_table("t", config()).unwrap();
    for n in 0..rows {
        let i = (n * 7919) % rows;
        let m = Mutation::set_cell("cf", b"q", 1_000, value(i));
        db.mutate_row("t", &key(i), &[m]).unwrap();
    }
}

/// Reads row `i` (twice, so any one-time warm-up is not counted) and checks it; returns the
/// second read's allocations.
fn read_allocations(db: &Database, i: u32) -> u64 {
    let k = key(i);
    db.read_row("t", &k).unwrap();
    let (n, row) = allocations(|| db.read_row("t", &k));
    let row: Row = row.unwrap().expect("row exists");
    assert_eq!(row.key, k);
    assert_eq!(row.cells.len(), 1);
    assert_eq!(row.cells[0].value, value(i));
    n
}

/// Allocations allowed for one point read returning one cell: the row's key, its cell list,
/// the cell's family, qualifier and value (the public `Row` owns them all), plus one cursor
/// per source the read opens (a memtable layer, a run) and, for a run in a file, each data
/// block it reads (its buffer) and the block's iterator state.
mod budget {
    /// `Row` itself: key, cells, and the cell's family, qualifier and value.
    pub const ROW: u64 = 5;
    /// A row held only by the memtable: one cursor.
    pub const MEMTABLE_HIT: u64 = ROW + 1;
    /// A row held by an in-memory run: its cursor, and one more for a run whose bloom
    /// filter lets the row through without holding it (deterministic for a given data set:
    /// row 500 below meets one). The memtable layer's key range covers the row, but its row
    /// filter rules the row out, so it opens no cursor (it did before that filter: one more).
    pub const MEMORY_RUN_HIT: u64 = ROW + 2;
    /// One data block read from a file: its buffer, the shared block, the block iterator's
    /// key buffer.
    pub const BLOCK: u64 = 3;
    /// A row held by a run file (the memtable empty): the run's cursor and its index
    /// position, and the row's data block.
    pub const FILE_RUN_HIT: u64 = ROW + 2 + BLOCK;
}

#[test]
fn a_memtable_hit_allocates_the_row_and_one_cursor() {
    let mut db = Database::with_clock(ManualClock::new(NOW));
    load(&mut db, 20);
    let tablets = db.tablets("t").unwrap();
    assert_eq!(tablets[0].runs, 0, "20 rows stay in the memtable");
    for i in [0, 7, 19] {
        let n = read_allocations(&db, i);
        assert!(
            n <= budget::MEMTABLE_HIT,
            "row {i}: {n} allocations, budget {}",
            budget::MEMTABLE_HIT
        );
    }
}

#[test]
fn an_in_memory_run_hit_allocates_the_row_and_its_cursors() {
    let mut db = Database::with_clock(ManualClock::new(NOW));
    load(&mut db, 1_000);
    let tablets = db.tablets("t").unwrap();
    assert!(tablets[0].runs >= 2, "1 MB of rows fill several runs");
    // Row 0 was written first: it is in the oldest run, not the memtable.
    for i in [0, 1, 500] {
        let n = read_allocations(&db, i);
        assert!(
            n <= budget::MEMORY_RUN_HIT,
            "row {i}: {n} allocations, budget {}",
            budget::MEMORY_RUN_HIT
        );
    }
}

#[test]
fn a_file_run_hit_allocates_the_row_a_cursor_and_its_blocks() {
    let storage = Arc::new(MemStorage::default());
    let options = OpenOptions {
        durability: Durability::None,
        ..OpenOptions::default()
    };
    let mut db = Database::open(storage, options, Arc::new(ManualClock::new(NOW))).unwrap();
    load(&mut db, 1_000);
    db.compact_table("t").unwrap();
    db.checkpoint().unwrap();
    assert_eq!(
        db.tablets("t").unwrap()[0].runs,
        1,
        "compacted into one run"
    );
    // Rows 0..=3 fill the first data block (4 KiB blocks, about 1 KiB per entry): row 3
    // ends it, so its read also reads the next block to see that the row is over.
    for i in [0, 4, 500, 999] {
        let n = read_allocations(&db, i);
        assert!(
            n <= budget::FILE_RUN_HIT,
            "row {i}: {n} allocations, budget {}",
            budget::FILE_RUN_HIT
        );
    }
    let n = read_allocations(&db, 3);
    let next = budget::FILE_RUN_HIT + budget::BLOCK;
    assert!(n <= next, "row 3: {n} allocations, budget {next}");
}
