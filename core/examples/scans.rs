//! Full-table scans of the criterion bench's table (`scan_100k` in `benches/data_api.rs`):
//! `ROWS` rows of two families, then `SCANS` forward scans (`REVERSED=1`: reversed ones)
//! through `Database::read_rows`. Made to be counted, not timed: run it under
//! `valgrind --tool=callgrind` with `SCANS=N` and `SCANS=0` and divide the difference by
//! `N * ROWS` for the instructions a scan spends per row, a figure the machine's load does
//! not move (see bench/report/appendix.md).
//!
//! Run: `cargo run --release -p sparsetable --example scans`

use std::sync::Arc;
use std::time::Instant;

use sparsetable::{Database, ManualClock, Mutation, ReadRowsRequest, TableConfig};

fn main() {
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let rows = env("ROWS", 100_000);
    let scans = env("SCANS", 10);
    let reversed = env("REVERSED", 0) == 1;
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
    let request = ReadRowsRequest {
        reversed,
        ..ReadRowsRequest::default()
    };
    let start = Instant::now();
    let mut seen = 0u64;
    for _ in 0..scans {
        seen += db.read_rows("t", &request).unwrap().count() as u64;
    }
    assert_eq!(seen, scans * rows);
    println!(
        "{scans} {} scans of {rows} rows: {:.3} us per row",
        if reversed { "reversed" } else { "forward" },
        start.elapsed().as_secs_f64() * 1e6 / (scans * rows).max(1) as f64
    );
}
