//! A hot counter's increment latency as its hidden versions pile up (issue 12's probe):
//! `INCREMENTS` ReadModifyWriteRow increments of one cell whose family keeps one version
//! (`max_num_versions = 1`), through `SharedDatabase` with default tablet thresholds, in
//! memory and on a directory (`FileStorage`, `Durability::Interval` of one second so an
//! fsync per write does not hide the read's cost; `DURABILITY=sync` fsyncs every write).
//! Prints the mean latency of the first and the last thousand increments and their ratio.
//!
//! Run: `cargo run --release -p sparsetable --example counter_latency`
//! (`INCREMENTS=20000` for a shorter run; `STORAGE=memory` or `STORAGE=disk` for one of them).

use std::time::{Duration, Instant};

use sparsetable::{
    ColumnFamily, Database, Durability, GcRule, OpenOptions, ReadModifyWriteRule, SharedDatabase,
    TableConfig,
};

fn config() -> TableConfig {
    let mut config = TableConfig::default();
    config.families.insert(
        "cf".into(),
        ColumnFamily {
            gc_rule: GcRule::MaxNumVersions(1),
            ..ColumnFamily::default()
        },
    );
    config
}

/// Runs `n` increments and returns each one's latency.
fn run(db: &SharedDatabase, n: usize) -> Vec<Duration> {
    db.write(|d| d.create_table("t", config())).unwrap();
    let rule = [ReadModifyWriteRule::increment("cf", b"n".to_vec(), 1)];
    let mut lat = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        db.write(|d| d.read_modify_write_row("t", b"counter", &rule))
            .unwrap();
        lat.push(t.elapsed());
    }
    let row = db.read_row("t", b"counter").unwrap().unwrap();
    assert_eq!(row.cells.len(), 1, "max_num_versions = 1 shows one version");
    assert_eq!(row.cells[0].value, (n as i64).to_be_bytes());
    lat
}

fn report(name: &str, lat: &[Duration]) {
    let k = 1000.min(lat.len());
    let mean = |s: &[Duration]| s.iter().sum::<Duration>() / s.len() as u32;
    let median = |s: &[Duration]| {
        let mut s = s.to_vec();
        s.sort();
        s[s.len() / 2]
    };
    let (head, tail) = (&lat[..k], &lat[lat.len() - k..]);
    let (first, last) = (mean(head), mean(tail));
    println!(
        "{name:<8} {} increments: first {k} mean {first:>9.1?} (median {:>9.1?}), last {k} mean {last:>9.1?} (median {:>9.1?}), last/first {:.2}x, total {:.1?}",
        lat.len(),
        median(head),
        median(tail),
        last.as_secs_f64() / first.as_secs_f64(),
        lat.iter().sum::<Duration>(),
    );
}

fn main() {
    let n: usize = std::env::var("INCREMENTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let storage = std::env::var("STORAGE").unwrap_or_default();
    if storage != "disk" {
        let db = SharedDatabase::new(Database::new());
        report("memory", &run(&db, n));
    }
    if storage != "memory" {
        let dir = std::env::temp_dir().join(format!("counter_latency_{}", std::process::id()));
        let durability = match std::env::var("DURABILITY").as_deref() {
            Ok("sync") => Durability::Sync,
            _ => Durability::Interval { micros: 1_000_000 },
        };
        {
            let options = OpenOptions {
                durability,
                ..OpenOptions::default()
            };
            let db = SharedDatabase::new(Database::open_dir(&dir, options).unwrap());
            report("disk", &run(&db, n));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
