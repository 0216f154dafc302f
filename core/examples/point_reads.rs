//! Point reads as the server makes them (a ReadRows stream of one row key), for profiling
//! the read path's per-request cost: loads `ROWS` rows of two cells, then reads `READS`
//! single keys through `Database::read_rows` and prints the mean time per read.
//!
//! Run: `cargo run --release -p sparsetable --example point_reads`; under callgrind:
//! `READS=20000 valgrind --tool=callgrind target/release/examples/point_reads`.

use std::sync::Arc;
use std::time::Instant;

use sparsetable::{Database, ManualClock, Mutation, ReadRowsRequest, RowSet, TableConfig};

fn main() {
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let rows = env("ROWS", 100_000);
    let reads = env("READS", 200_000);
    let mut db = Database::with_clock(Arc::new(ManualClock::new(1_700_000_000_000_000)));
    db.create_table("t", TableConfig::with_families(["cf", "meta"]))
        .unwrap();
    for i in 0..rows {
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
    let start = Instant::now();
    let mut cells = 0usize;
    let mut i = 0u64;
    for _ in 0..reads {
        i = (i + 7919) % rows;
        let request = ReadRowsRequest {
            row_set: RowSet::single(format!("row{i:010}").into_bytes()),
            ..ReadRowsRequest::default()
        };
        for row in db.read_rows("t", &request).unwrap() {
            cells += row.cells.len();
        }
    }
    let elapsed = start.elapsed();
    assert_eq!(cells as u64, 2 * reads);
    println!(
        "{reads} point reads of {rows} rows: {:.2} us per read",
        elapsed.as_secs_f64() * 1e6 / reads as f64
    );
}
