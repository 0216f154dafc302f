//! A bare point-read loop for profiling the read path: `rows` rows of 1000 bytes (the
//! benchmark's data) written in a seeded random order, then `reads` random `read_row`s,
//! beside the same gets on a `BTreeMap` keyed as the benchmark's `limits` keys it. Prints the
//! time per read of each and, from a counting global allocator, the allocations per read:
//! separately for rows still in the memtable (the last rows written) and for rows in runs.
//!
//! `cargo run --release -p sparsetable-bench --example point_read -- 200000 100000 memory`
//! (`memory`: `Database::new`; a directory path: `Database::open_dir` there, emptied first,
//! flushed and compacted before the reads so they hit cached runs). Under
//! `valgrind --tool=callgrind --toggle-collect='*point_read::reads*'` only the read loop
//! is counted.

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use sparsetable::{Database, Durability, Mutation, OpenOptions, TableConfig};
use sparsetable_bench::data::{self, row_key, sample, FAMILY, QUALIFIER, TIMESTAMP_MICROS};

/// The system allocator, counting allocations (reallocations included: each may move).
struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is forwarded unchanged to `System`.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: forwarded with the caller's pointer and layout.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded with the caller's pointer, layout and size.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocs() -> u64 {
    ALLOCS.load(Ordering::Relaxed)
}

/// Reads every row of `rows` once; returns (ns per read, allocations per read).
#[inline(never)]
fn reads(db: &Database, keys: &[Vec<u8>]) -> Result<(f64, f64), String> {
    let a0 = allocs();
    let start = Instant::now();
    let mut bytes = 0usize;
    for key in keys {
        let row = db
            .read_row("t", key)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("row {key:?} missing"))?;
        bytes += row.cells[0].value.len();
    }
    let ns = start.elapsed().as_nanos() as f64 / keys.len() as f64;
    std::hint::black_box(bytes);
    let a = (allocs() - a0) as f64 / keys.len() as f64;
    Ok((ns, a))
}

/// The benchmark's `BTreeMap` get on the same rows; returns (ns per get, allocations per get).
#[inline(never)]
fn btree_reads(map: &BTreeMap<Vec<u8>, Vec<u8>>, keys: &[Vec<u8>]) -> (f64, f64) {
    let a0 = allocs();
    let start = Instant::now();
    let mut bytes = 0usize;
    for key in keys {
        let prefix = data::row_prefix(key);
        let hit = map
            .range(prefix.clone()..)
            .next()
            .filter(|(k, _)| k.starts_with(&prefix))
            .map(|(_, v)| v.clone());
        bytes += hit.map_or(0, |v| v.len());
    }
    std::hint::black_box(bytes);
    let ns = start.elapsed().as_nanos() as f64 / keys.len() as f64;
    (ns, (allocs() - a0) as f64 / keys.len() as f64)
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let num = |i: usize, d: u64| -> Result<u64, String> {
        args.get(i).map_or(Ok(d), |n| {
            n.parse().map_err(|_| format!("{n}: not a number"))
        })
    };
    let rows = num(1, 200_000)?;
    let count = num(2, 100_000)?;
    let place = args.get(3).map_or("memory", String::as_str);
    let err = |e: sparsetable::Error| e.to_string();
    let mut db = if place == "memory" {
        Database::new()
    } else {
        let _ = std::fs::remove_dir_all(place);
        let options = OpenOptions {
            durability: Durability::None,
            ..OpenOptions::default()
        };
        Database::open_dir(place, options).map_err(err)?
    };
    db.create_table("t", TableConfig::with_families([FAMILY]))
        .map_err(err)?;
    let order = data::permutation(rows, 1);
    let mut v = vec![0u8; data::VALUE_BYTES];
    for &r in &order {
        data::fill_value(r, &mut v);
        let m = Mutation::set_cell(FAMILY, QUALIFIER, TIMESTAMP_MICROS, v.as_slice());
        db.mutate_row("t", &row_key(r), &[m]).map_err(err)?;
    }
    if place != "memory" {
        db.compact_table("t").map_err(err)?;
        db.checkpoint().map_err(err)?;
    }
    let mut map = BTreeMap::new();
    for &r in &order {
        map.insert(data::cell_key(&row_key(r)), data::value(r));
    }
    // The last rows written: a few are still in the memtable (in memory) unless compacted.
    let keys = |rows: &[u64]| rows.iter().map(|&r| row_key(r)).collect::<Vec<_>>();
    let recent = keys(&order[order.len().saturating_sub(64)..]);
    let random = keys(&sample(rows, count.min(rows), 13));
    // Warm up (block cache, page cache), then measure.
    reads(&db, &random)?;
    let (ns, a) = reads(&db, &random)?;
    let (bns, ba) = btree_reads(&map, &random);
    let (rns, ra) = reads(&db, &recent)?;
    println!(
        "{place}: {rows} rows; random read_row {ns:.0} ns, {a:.2} allocs; BTreeMap {bns:.0} ns, \
         {ba:.2} allocs; ratio {:.2}x; recent rows {rns:.0} ns, {ra:.2} allocs; runs per tablet \
         {:?}",
        bns / ns,
        db.tablets("t")
            .map_err(err)?
            .iter()
            .map(|t| t.runs)
            .collect::<Vec<_>>()
    );
    Ok(())
}
