//! Criterion bench of issue 30's O(versions) pattern: reading the newest version of a column
//! with `CellsPerColumnLimit(1)`, and a ReadModifyWriteRow increment, on a column whose
//! family has no GC rule (every version visible) holding 1, 1,000, 10,000 or 50,000
//! versions, side by side in one run, in a table that also holds 1,000 other rows around
//! it. The versions sit in the memtable (`memtable/N`, an in-memory database) or in SSTable
//! runs (`runs/N`, a database on in-memory storage, checkpointed after the load so every
//! version is in a run file).
//!
//! - `newest_stream/*`: a ReadRows stream of the one row key with the filter (what the
//!   server and the bindings' `read_rows` do);
//! - `newest_point/*`: `read_row_filtered` (a single-row read without a stream);
//! - `increment/*`: an increment of the column. The clock stands still while it is
//!   measured, so every timed increment rewrites the newest cell (an older write of one cell,
//!   which reads already skip) and the versions below stay `N`: the measurement is the cost
//!   of the read over those versions, the same in every iteration, on old code and new.
//!
//! Goal: the 50,000-version cases within 2x of the 1-version ones.
//! Run: `cargo bench -p sparsetable --bench newest_version -- --warm-up-time 1
//! --measurement-time 3`.
#![allow(missing_docs)] // criterion's macros generate undocumented functions

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use sparsetable::platform::storage::MemStorage;
use sparsetable::{
    ColumnFamily, Database, Durability, ManualClock, Mutation, OpenOptions, ReadModifyWriteRule,
    ReadRowsRequest, RowFilter, RowSet, TableConfig,
};

const START: i64 = 1_700_000_000_000_000;
const VERSIONS: [i64; 4] = [1, 1_000, 10_000, 50_000];

/// A table whose family `cf` has no GC rule, with `versions` versions of `cf:n` in row
/// `counter` (8-byte counters, a millisecond apart), in the memtable or, `in_runs`, in
/// SSTable runs on in-memory storage. The clock stands at the newest version's timestamp,
/// so an increment rewrites that cell.
fn loaded(versions: i64, in_runs: bool) -> Database {
    let clock = Arc::new(ManualClock::new(START));
    let mut db = if in_runs {
        let options = OpenOptions {
            durability: Durability::None,
            ..OpenOptions::default()
        };
        Database::open(Arc::new(MemStorage::new()), options, clock.clone()).unwrap()
    } else {
        Database::with_clock(clock.clone())
    };
    let mut config = TableConfig::default();
    config.families.insert("cf".into(), ColumnFamily::default());
    db.create_table("t", config).unwrap();
    // Neighbours: 500 rows before the counter's and 500 after, one 100-byte cell each, so
    // the counter's blocks are full-size ones whatever its versions (a one-version column
    // alone in a table would sit in one tiny block and make that case look cheaper than a
    // read of a real table's row is).
    for i in 0..500 {
        for prefix in ["a", "z"] {
            let key = format!("{prefix}{i:04}");
            let m = Mutation::set_cell("cf", b"n".to_vec(), START, vec![7u8; 100]);
            db.mutate_row("t", key.as_bytes(), &[m]).unwrap();
        }
    }
    for v in 0..versions {
        let ts = START - (versions - 1 - v) * 1000;
        let m = Mutation::set_cell("cf", b"n".to_vec(), ts, v.to_be_bytes().to_vec());
        db.mutate_row("t", b"counter", &[m]).unwrap();
    }
    if in_runs {
        db.checkpoint().unwrap();
    }
    let row = db.read_row("t", b"counter").unwrap().unwrap();
    assert_eq!(row.cells.len(), versions as usize, "every version visible");
    db
}

fn benches(c: &mut Criterion) {
    let newest = RowFilter::CellsPerColumnLimit(1);
    let request = ReadRowsRequest {
        row_set: RowSet::single(b"counter".to_vec()),
        filter: newest.clone(),
        ..ReadRowsRequest::default()
    };
    let increment = [ReadModifyWriteRule::increment("cf", b"n".to_vec(), 1)];
    for (place, in_runs) in [("memtable", false), ("runs", true)] {
        let mut g = c.benchmark_group(format!("newest_version/{place}"));
        for versions in VERSIONS {
            let mut db = loaded(versions, in_runs);
            g.bench_function(BenchmarkId::new("newest_stream", versions), |b| {
                b.iter(|| {
                    let rows: Vec<_> = db.read_rows("t", &request).unwrap().collect();
                    assert_eq!(rows[0].cells.len(), 1);
                    black_box(rows)
                })
            });
            g.bench_function(BenchmarkId::new("newest_point", versions), |b| {
                b.iter(|| black_box(db.read_row_filtered("t", b"counter", &newest).unwrap()))
            });
            g.bench_function(BenchmarkId::new("increment", versions), |b| {
                b.iter(|| {
                    black_box(
                        db.read_modify_write_row("t", b"counter", &increment)
                            .unwrap(),
                    )
                })
            });
            // The increments rewrote the newest cell only: the versions below are intact.
            let cells = db.read_row("t", b"counter").unwrap().unwrap().cells;
            assert_eq!(cells.len(), versions as usize);
        }
        g.finish();
    }
}

criterion_group!(newest_version_bench, benches);
criterion_main!(newest_version_bench);
