//! Criterion bench of replication's cost (issue 28): a routed MutateRow (route, write, hand
//! the write to replication, deliver) on an instance of 1, 2 and 3 clusters with no lag, side
//! by side with the same write on a bare `SharedDatabase`; and the catch-up of a cluster that
//! comes back after 10,000 writes were made without it.
//! Run: `cargo bench -p sparsetable --bench replication`.
#![allow(missing_docs)] // criterion's macros generate undocumented functions

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use sparsetable::{
    Database, ManualClock, Mutation, ReplicatedInstance, RequestKind, SharedDatabase, TableConfig,
};

const START: i64 = 1_700_000_000_000_000;

fn instance(clusters: usize) -> (Arc<ManualClock>, ReplicatedInstance) {
    let clock = Arc::new(ManualClock::new(START));
    let replicas = (0..clusters)
        .map(|i| {
            (
                format!("cluster-{i}"),
                SharedDatabase::new(Database::with_clock(clock.clone())),
            )
        })
        .collect();
    let inst = ReplicatedInstance::new(replicas).unwrap();
    inst.primary()
        .write(|d| d.create_table("t", TableConfig::with_families(["cf"])))
        .unwrap();
    inst.pump().unwrap();
    (clock, inst)
}

fn row(i: u64) -> Vec<u8> {
    format!(
        "row{:010}",
        i.wrapping_mul(0x9e37_79b9_7f4a_7c15) % 1_000_000
    )
    .into_bytes()
}

fn benches(c: &mut Criterion) {
    let value = vec![7u8; 100];
    let mut g = c.benchmark_group("replicated_mutate_row");
    {
        let db = SharedDatabase::new(Database::with_clock(ManualClock::new(START)));
        db.write(|d| d.create_table("t", TableConfig::with_families(["cf"])))
            .unwrap();
        let mut i = 0u64;
        g.bench_function("bare SharedDatabase", |b| {
            b.iter(|| {
                i += 1;
                db.mutate_row(
                    "t",
                    &row(i),
                    &[Mutation::set_cell("cf", "q", 1000, value.clone())],
                )
                .unwrap();
            })
        });
    }
    for clusters in [1usize, 2, 3] {
        let (_clock, inst) = instance(clusters);
        let mut i = 0u64;
        g.bench_function(format!("{clusters} cluster(s)"), |b| {
            b.iter(|| {
                i += 1;
                let key = row(i);
                let (c, db) = inst.route("", RequestKind::Write, &key).unwrap();
                db.mutate_row(
                    "t",
                    &key,
                    &[Mutation::set_cell("cf", "q", 1000, value.clone())],
                )
                .unwrap();
                inst.after_write(c).unwrap();
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("catch_up");
    g.sample_size(10);
    g.bench_function("10,000 writes to a returning cluster", |b| {
        b.iter_batched(
            || {
                let (clock, inst) = instance(2);
                inst.set_available("cluster-1", false).unwrap();
                for i in 0..10_000u64 {
                    let key = row(i);
                    let db = inst.primary();
                    db.mutate_row(
                        "t",
                        &key,
                        &[Mutation::set_cell("cf", "q", 1000, value.clone())],
                    )
                    .unwrap();
                    inst.after_write(0).unwrap();
                }
                clock.advance_micros(1);
                inst
            },
            |inst| inst.set_available("cluster-1", true).unwrap(),
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

criterion_group!(replication, benches);
criterion_main!(replication);
