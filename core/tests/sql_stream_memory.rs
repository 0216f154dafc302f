//! Memory while a SQL result streams (issue 29: "memory while streaming a 1,000,000-row result
//! stays flat"), measured by a global allocator that keeps the bytes live on this thread and
//! their peak: no timing, so the test is exact. A query without ORDER BY, GROUP BY or
//! DISTINCT holds one row at a time, so the peak over the whole result must be the peak over
//! its first rows; an ORDER BY over the same rows has to hold them all, which the same
//! measure shows (so the test cannot pass by measuring nothing).
//!
//! The table has 100,000 rows here (seconds in a debug build); `SPARSETABLE_STREAM_ROWS`
//! sets another count (docs/benchmarks.md has the 1,000,000-row run, release build).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::Arc;

use sparsetable::api::sql;
use sparsetable::{Database, ManualClock, Mutation, TableConfig};

struct Tracking;

thread_local! {
    static LIVE: Cell<i64> = const { Cell::new(0) };
    static PEAK: Cell<i64> = const { Cell::new(0) };
}

fn add(bytes: i64) {
    // `try_with`: the allocator also runs while a thread's locals are torn down.
    let _ = LIVE.try_with(|live| {
        let now = live.get() + bytes;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

fn size(l: Layout) -> i64 {
    i64::try_from(l.size()).unwrap_or(i64::MAX)
}

// SAFETY: every call is forwarded unchanged to `System`; the accounting touches only
// thread-local `Cell`s with const initialisers (no allocation, no destructor).
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        add(size(l));
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        add(size(l));
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        add(-size(l));
        // SAFETY: forwarded with the caller's pointer and layout.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        add(i64::try_from(n).unwrap_or(i64::MAX) - size(l));
        // SAFETY: forwarded with the caller's pointer, layout and size.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Tracking = Tracking;

const VALUE_BYTES: usize = 100;

fn rows() -> usize {
    std::env::var("SPARSETABLE_STREAM_ROWS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000)
}

fn loaded(n: usize) -> Database {
    let mut db = Database::with_clock(Arc::new(ManualClock::new(1_700_000_000_000_000)));
    db.create_table("t", TableConfig::with_families(["cf"]))
        .unwrap();
    for i in 0..n {
        let key = format!("row{i:08}");
        let value = format!("{i:0width$}", width = VALUE_BYTES).into_bytes();
        db.mutate_row(
            "t",
            key.as_bytes(),
            &[Mutation::set_cell("cf", b"v".to_vec(), 1000, value)],
        )
        .unwrap();
    }
    db
}

/// Streams `query`'s result row by row; returns the rows and the peak of the bytes live on
/// this thread above what was live before it started, after the first 1,000 rows and at
/// the end.
fn stream(db: &Database, query: &str) -> (usize, i64, i64) {
    let prepared = sql::prepare(db, query, BTreeMap::new()).unwrap();
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let mut rows = sql::execute_stream(db, &prepared, &BTreeMap::new()).unwrap();
    let (mut n, mut early) = (0, 0);
    while let Some(row) = rows.try_next().unwrap() {
        drop(row);
        n += 1;
        if n == 1_000 {
            early = PEAK.with(Cell::get) - base;
        }
    }
    drop(rows);
    (n, early, PEAK.with(Cell::get) - base)
}

#[test]
fn a_streamed_result_holds_one_row_at_a_time() {
    let n = rows();
    let db = loaded(n);
    for query in [
        "SELECT _key, cf['v'] AS v FROM t",
        "SELECT _key, LENGTH(cf['v']) AS len FROM t WHERE cf['v'] IS NOT NULL",
        "SELECT * FROM t LIMIT 1000000000",
    ] {
        let (seen, early, peak) = stream(&db, query);
        assert_eq!(seen, n, "{query}");
        // Flat: the whole result never needs more than its first thousand rows did, give
        // or take a few blocks of the read path's buffers.
        assert!(
            peak <= early + 64 * 1024,
            "{query}: {peak} bytes at the peak over {n} rows, {early} over the first 1,000"
        );
        println!("{query}: peak {peak} B over {n} rows, {early} B over the first 1,000");
    }
    // The same measure sees a result that must be held whole.
    let (seen, _, peak) = stream(&db, "SELECT _key, cf['v'] AS v FROM t ORDER BY v DESC");
    assert_eq!(seen, n);
    assert!(
        peak > i64::try_from(n * VALUE_BYTES).unwrap(),
        "ORDER BY holds every row: {peak} bytes"
    );
    println!("ORDER BY: peak {peak} B over {n} rows");
}
