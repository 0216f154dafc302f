//! Write latency percentiles with tiny memtables, so flushes, compactions and splits are
//! frequent: a bare `Database` (maintenance inline on the writing call) against a
//! `SharedDatabase` (maintenance on its background thread), on a `MemStorage` (runs are
//! SSTable files, the manifest is rewritten) and in memory. One writer thread; optionally
//! a second writer on another key range (`WRITERS=2`).
//! Run: `cargo bench -p sparsetable --bench write_latency`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use sparsetable::platform::storage::MemStorage;
use sparsetable::{
    Database, Durability, ManualClock, Mutation, OpenOptions, SharedDatabase, TableConfig,
    TabletOptions,
};

const WRITES: usize = 40_000;

fn config() -> TableConfig {
    TableConfig {
        tablet_options: TabletOptions {
            memtable_bytes: 8 * 1024,
            max_runs: 4,
            split_bytes: 256 * 1024,
            merge_bytes: 16 * 1024,
            split_load_ops: 0,
        },
        ..TableConfig::with_families(["cf"])
    }
}

fn database(on_storage: bool) -> Database {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000_000));
    let mut db = if on_storage {
        let options = OpenOptions {
            durability: Durability::None,
            ..OpenOptions::default()
        };
        Database::open(Arc::new(MemStorage::new()), options, clock).unwrap()
    } else {
        Database::with_clock(clock)
    };
    db.create_table("t", config()).unwrap();
    db
}

fn mutation(i: usize) -> (Vec<u8>, Vec<Mutation>) {
    // Scattered keys, so compactions rewrite overlapping runs rather than splitting cheaply.
    let k = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) % 1_000_000;
    (
        format!("row{k:08}").into_bytes(),
        vec![Mutation::set_cell("cf", b"q", 1000, vec![b'x'; 100])],
    )
}

fn report(name: &str, mut lat: Vec<Duration>, total: Duration) {
    lat.sort();
    let p = |q: f64| lat[((lat.len() as f64 * q) as usize).min(lat.len() - 1)];
    println!(
        "{name:<34} p50 {:>8.1?} p99 {:>8.1?} p99.9 {:>8.1?} max {:>8.1?}  total {:>7.1?}",
        p(0.5),
        p(0.99),
        p(0.999),
        lat[lat.len() - 1],
        total
    );
}

fn bare(on_storage: bool) -> (Vec<Duration>, Duration) {
    let mut db = database(on_storage);
    let start = Instant::now();
    let mut lat = Vec::with_capacity(WRITES);
    for i in 0..WRITES {
        let (key, m) = mutation(i);
        let t = Instant::now();
        db.mutate_row("t", &key, &m).unwrap();
        lat.push(t.elapsed());
    }
    (lat, start.elapsed())
}

fn shared(on_storage: bool, writers: usize) -> (Vec<Duration>, Duration) {
    let db = SharedDatabase::new(database(on_storage));
    let start = Instant::now();
    let threads: Vec<_> = (0..writers)
        .map(|w| {
            let db = db.clone();
            std::thread::spawn(move || {
                let mut lat = Vec::with_capacity(WRITES / writers);
                for i in (w..WRITES).step_by(writers) {
                    let (key, m) = mutation(i);
                    let t = Instant::now();
                    db.mutate_row("t", &key, &m).unwrap();
                    lat.push(t.elapsed());
                }
                lat
            })
        })
        .collect();
    let lat = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    (lat, start.elapsed())
}

fn main() {
    let writers: usize = std::env::var("WRITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    for on_storage in [false, true] {
        let place = if on_storage { "MemStorage" } else { "memory" };
        let (lat, total) = bare(on_storage);
        report(&format!("{place}: Database (inline)"), lat, total);
        let (lat, total) = shared(on_storage, writers);
        report(
            &format!("{place}: Shared x{writers} (background)"),
            lat,
            total,
        );
    }
}
