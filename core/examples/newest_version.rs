//! Issue 30's probe, for instruction counts: `READS` reads of the newest version of a column
//! (no GC rule, `VERSIONS` versions, 1,000 other rows around its row) with
//! `CellsPerColumnLimit(1)`, or `READS`
//! ReadModifyWriteRow increments of it, after loading it. Under callgrind the instructions
//! per read are (total(READS) - total(0)) / READS, which does not depend on the machine's
//! load (the criterion bench `newest_version` times the same cases).
//!
//! Run: `VERSIONS=50000 READS=10000 KIND=point PLACE=memtable valgrind --tool=callgrind
//! target/release/examples/newest_version` (KIND: `stream`, `point` or `increment`;
//! PLACE: `memtable` or `runs`).

use std::hint::black_box;
use std::sync::Arc;

use sparsetable::platform::storage::MemStorage;
use sparsetable::{
    ColumnFamily, Database, Durability, ManualClock, Mutation, OpenOptions, ReadModifyWriteRule,
    ReadRowsRequest, RowFilter, RowSet, TableConfig,
};

const START: i64 = 1_700_000_000_000_000;

fn env(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_string())
}

fn main() {
    let versions: i64 = env("VERSIONS", "50000").parse().expect("VERSIONS");
    let reads: usize = env("READS", "10000").parse().expect("READS");
    let kind = env("KIND", "point");
    let in_runs = env("PLACE", "memtable") == "runs";
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
    let newest = RowFilter::CellsPerColumnLimit(1);
    let request = ReadRowsRequest {
        row_set: RowSet::single(b"counter".to_vec()),
        filter: newest.clone(),
        ..ReadRowsRequest::default()
    };
    let increment = [ReadModifyWriteRule::increment("cf", b"n".to_vec(), 1)];
    for _ in 0..reads {
        match kind.as_str() {
            "stream" => {
                let rows: Vec<_> = db.read_rows("t", &request).unwrap().collect();
                black_box(rows);
            }
            "point" => {
                black_box(db.read_row_filtered("t", b"counter", &newest).unwrap());
            }
            "increment" => {
                black_box(
                    db.read_modify_write_row("t", b"counter", &increment)
                        .unwrap(),
                );
            }
            other => panic!("KIND {other}: stream, point or increment"),
        }
    }
}
