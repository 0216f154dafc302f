//! Criterion bench of a hot counter (issue 12): a ReadModifyWriteRow increment of one cell
//! under `max_num_versions = 1`, on a fresh counter and on one that already took 20,000
//! increments (their hidden versions still in the memtable and runs). Skipping what GC
//! hides keeps the two within a small factor; walking every version made the second grow
//! with the count. The clock moves a millisecond per increment, so each is a new version.
//! Run: `cargo bench -p sparsetable --bench counter`. The 100,000-increment latency
//! report through `SharedDatabase` is `cargo run --release -p sparsetable --example
//! counter_latency`.
#![allow(missing_docs)] // criterion's macros generate undocumented functions

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use sparsetable::{
    ColumnFamily, Database, GcRule, ManualClock, ReadModifyWriteRule, ReadRowsRequest, RowSet,
    TableConfig,
};

fn counter(increments: usize) -> (Database, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000_000));
    let mut db = Database::with_clock(clock.clone());
    let mut config = TableConfig::default();
    config.families.insert(
        "cf".into(),
        ColumnFamily {
            gc_rule: GcRule::MaxNumVersions(1),
            ..ColumnFamily::default()
        },
    );
    db.create_table("t", config).unwrap();
    let rule = [ReadModifyWriteRule::increment("cf", b"n".to_vec(), 1)];
    for _ in 0..increments {
        db.read_modify_write_row("t", b"counter", &rule).unwrap();
        clock.advance_micros(1000);
    }
    (db, clock)
}

fn benches(c: &mut Criterion) {
    let rule = [ReadModifyWriteRule::increment("cf", b"n".to_vec(), 1)];
    let mut g = c.benchmark_group("counter");
    for (name, before) in [("increment_fresh", 0), ("increment_after_20k", 20_000)] {
        let (mut db, clock) = counter(before);
        g.bench_function(name, |b| {
            b.iter(|| {
                clock.advance_micros(1000);
                black_box(db.read_modify_write_row("t", b"counter", &rule).unwrap())
            })
        });
    }
    let (db, _) = counter(20_000);
    let request = ReadRowsRequest {
        row_set: RowSet::single(b"counter".to_vec()),
        ..ReadRowsRequest::default()
    };
    g.bench_function("read_newest_of_20k", |b| {
        b.iter(|| black_box(db.read_rows("t", &request).unwrap().count()))
    });
    g.finish();
}

criterion_group!(counter_bench, benches);
criterion_main!(counter_bench);
