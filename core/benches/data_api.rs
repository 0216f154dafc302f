//! Criterion benches of the Data API on the in-memory engine: single-row writes and reads,
//! a 100k-row scan with and without a filter chain, reversed, with its two families created
//! out of name order (every row regrouped into creation order), and a regex filter scan.
//! Each group also runs a plain `BTreeMap<Vec<u8>, Vec<u8>>` doing the same work (one entry
//! per cell, key = row key + qualifier), the in-memory limit the engine is measured against.
//! Run: `cargo bench -p sparsetable --bench data_api`.
#![allow(missing_docs)] // criterion's macros generate undocumented functions

use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sparsetable::{Database, ManualClock, Mutation, ReadRowsRequest, RowFilter, TableConfig};

const ROWS: u64 = 100_000;

fn loaded() -> Database {
    loaded_with(["cf", "meta"])
}

/// 100k rows of one cell in each of two families, created in the order given.
fn loaded_with(families: [&str; 2]) -> Database {
    let mut db = Database::with_clock(Arc::new(ManualClock::new(1_700_000_000_000_000)));
    db.create_table("t", TableConfig::with_families(families))
        .unwrap();
    for i in 0..ROWS {
        let key = format!("row{i:010}");
        db.mutate_row(
            "t",
            key.as_bytes(),
            &[
                Mutation::set_cell("cf", b"a", 1000, vec![b'x'; 100]),
                Mutation::set_cell("meta", b"b", 1000, format!("v{}", i % 10).into_bytes()),
            ],
        )
        .unwrap();
    }
    db
}

fn baseline() -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut map = BTreeMap::new();
    for i in 0..ROWS {
        let key = format!("row{i:010}");
        map.insert([key.as_bytes(), b"cf:a"].concat(), vec![b'x'; 100]);
        map.insert(
            [key.as_bytes(), b"meta:b"].concat(),
            format!("v{}", i % 10).into_bytes(),
        );
    }
    map
}

fn benches(c: &mut Criterion) {
    let mut db = loaded();
    let mut map = baseline();
    let mut g = c.benchmark_group("row");
    g.throughput(Throughput::Elements(1));
    let mut i = 0u64;
    g.bench_function("mutate_row", |b| {
        b.iter(|| {
            i = (i + 7919) % ROWS;
            let key = format!("row{i:010}");
            db.mutate_row(
                "t",
                key.as_bytes(),
                &[Mutation::set_cell("cf", b"a", 2000, vec![b'y'; 100])],
            )
            .unwrap();
        })
    });
    g.bench_function("btreemap_insert", |b| {
        b.iter(|| {
            i = (i + 7919) % ROWS;
            let key = format!("row{i:010}");
            map.insert([key.as_bytes(), b"cf:a"].concat(), vec![b'y'; 100]);
        })
    });
    g.bench_function("btreemap_get_row", |b| {
        b.iter(|| {
            i = (i + 7919) % ROWS;
            let key = format!("row{i:010}");
            let cells: Vec<(Vec<u8>, Vec<u8>)> = map
                .range(key.as_bytes().to_vec()..[key.as_bytes(), b"\xff"].concat())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            black_box(cells);
        })
    });
    g.bench_function("read_row", |b| {
        b.iter(|| {
            i = (i + 7919) % ROWS;
            let key = format!("row{i:010}");
            black_box(db.read_row("t", key.as_bytes()).unwrap());
        })
    });
    g.finish();

    let mut g = c.benchmark_group("scan_100k");
    g.throughput(Throughput::Elements(ROWS));
    g.sample_size(10);
    g.bench_function("btreemap_scan", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for (k, v) in &map {
                black_box((k.clone(), v.clone()));
                n += 1;
            }
            n
        })
    });
    g.bench_function("no_filter", |b| {
        b.iter(|| {
            black_box(
                db.read_rows("t", &ReadRowsRequest::default())
                    .unwrap()
                    .count(),
            )
        })
    });
    // The same rows with `meta` created before `cf`: storage keeps `cf` first, so every row
    // is regrouped into creation order. Compare with `no_filter`.
    let reordered = loaded_with(["meta", "cf"]);
    g.bench_function("no_filter_families_out_of_name_order", |b| {
        b.iter(|| {
            black_box(
                reordered
                    .read_rows("t", &ReadRowsRequest::default())
                    .unwrap()
                    .count(),
            )
        })
    });
    drop(reordered);
    let chain = ReadRowsRequest {
        filter: RowFilter::Chain(vec![
            RowFilter::FamilyNameRegex("cf".into()),
            RowFilter::CellsPerColumnLimit(1),
            RowFilter::StripValue,
        ]),
        ..ReadRowsRequest::default()
    };
    g.bench_function("filter_chain", |b| {
        b.iter(|| black_box(db.read_rows("t", &chain).unwrap().count()))
    });
    // The same scan in descending key order: the target is within 1.3x of `no_filter`.
    let reversed = ReadRowsRequest {
        reversed: true,
        ..ReadRowsRequest::default()
    };
    g.bench_function("reversed", |b| {
        b.iter(|| black_box(db.read_rows("t", &reversed).unwrap().count()))
    });
    let regex = ReadRowsRequest {
        filter: RowFilter::ValueRegex(b"v[0-4]".to_vec()),
        ..ReadRowsRequest::default()
    };
    g.bench_function("value_regex", |b| {
        b.iter(|| black_box(db.read_rows("t", &regex).unwrap().count()))
    });
    g.finish();

    // Scan bandwidth with 1000-byte values, warm (the data is in memory).
    let (big_db, big_map) = loaded_1kb();
    let mut g = c.benchmark_group("scan_1kb");
    g.throughput(Throughput::Bytes(BIG_ROWS * 1000));
    g.sample_size(10);
    g.bench_function("btreemap_scan", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for (k, v) in &big_map {
                black_box((k.clone(), v.clone()));
                n += 1;
            }
            n
        })
    });
    g.bench_function("no_filter", |b| {
        b.iter(|| {
            black_box(
                big_db
                    .read_rows("t", &ReadRowsRequest::default())
                    .unwrap()
                    .count(),
            )
        })
    });
    g.finish();
}

const BIG_ROWS: u64 = 20_000;

/// 20,000 rows of one 1000-byte cell each, and the same as a `BTreeMap`.
fn loaded_1kb() -> (Database, BTreeMap<Vec<u8>, Vec<u8>>) {
    let mut db = Database::with_clock(Arc::new(ManualClock::new(1_700_000_000_000_000)));
    db.create_table("t", TableConfig::with_families(["cf"]))
        .unwrap();
    let mut map = BTreeMap::new();
    for i in 0..BIG_ROWS {
        let key = format!("row{i:010}");
        let value = vec![(i % 251) as u8; 1000];
        db.mutate_row(
            "t",
            key.as_bytes(),
            &[Mutation::set_cell("cf", b"a", 1000, value.clone())],
        )
        .unwrap();
        map.insert([key.as_bytes(), b"cf:a"].concat(), value);
    }
    (db, map)
}

criterion_group!(data_api, benches);
criterion_main!(data_api);
