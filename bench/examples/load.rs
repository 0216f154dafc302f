//! A bare load for profiling the write path: `rows` rows of 1000 bytes written one
//! `mutate_row` at a time into a `Database::open_dir` with `Durability::None`, in key order
//! (`seq`) or in a seeded shuffle (`random`). Prints rows per second and the tablet count.
//!
//! `cargo run --release -p sparsetable-bench --example load -- 300000 seq /tmp/load-db`
//! (under `perf record -g --call-graph dwarf` or `valgrind --tool=callgrind` for a profile).
//! The directory is emptied first.

use std::time::Instant;

use sparsetable::{Database, Durability, Mutation, OpenOptions, SplitMix64, TableConfig};

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let rows: u64 = match args.get(1) {
        Some(n) => n
            .parse()
            .map_err(|_| format!("rows: {n} is not a number"))?,
        None => 300_000,
    };
    let random = match args.get(2).map(String::as_str) {
        None | Some("seq") => false,
        Some("random") => true,
        Some(other) => return Err(format!("order must be seq or random, not {other}")),
    };
    let dir = std::path::PathBuf::from(args.get(3).map_or("/tmp/load-db", String::as_str));
    let _ = std::fs::remove_dir_all(&dir);
    let options = OpenOptions {
        durability: Durability::None,
        log_rotate_bytes: 64 << 20,
        ..OpenOptions::default()
    };
    let err = |e: sparsetable::Error| e.to_string();
    let mut db = Database::open_dir(&dir, options).map_err(err)?;
    db.create_table("t", TableConfig::with_families(["cf"]))
        .map_err(err)?;
    let mut order: Vec<u64> = (0..rows).collect();
    let mut rng = SplitMix64::new(12345);
    if random {
        for i in (1..order.len()).rev() {
            let j = (rng.next_u64() % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
    }
    let mut value = vec![0u8; 1000];
    let start = Instant::now();
    for &i in &order {
        for chunk in value.chunks_mut(8) {
            chunk.copy_from_slice(&rng.next_u64().to_le_bytes()[..chunk.len()]);
        }
        let key = format!("row{i:010}");
        let m = Mutation::set_cell("cf", b"q", 1000, value.as_slice());
        db.mutate_row("t", key.as_bytes(), &[m]).map_err(err)?;
    }
    let secs = start.elapsed().as_secs_f64();
    let tablets = db.tablets("t").map_err(err)?.len();
    println!(
        "{} rows/s ({rows} rows in {secs:.2} s, {}), {tablets} tablets",
        (rows as f64 / secs) as u64,
        if random { "random order" } else { "key order" }
    );
    Ok(())
}
