//! Crash safety: a child process writes with `Sync` durability from several threads and
//! prints each acknowledged write; the parent SIGKILLs it at random moments, reopens the
//! database, and checks that it opens and holds every acknowledged write. `CRASH_KILLS`
//! sets the number of kills (default 25 for CI; run 1000 by hand).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use sparsetable::{Database, Durability, Mutation, OpenOptions, SharedDatabase, TableConfig};

const CHILD_ENV: &str = "SPARSETABLE_CRASH_CHILD_DIR";

fn options() -> OpenOptions {
    OpenOptions {
        durability: Durability::Sync,
        // Rotate often so kills also land inside checkpoints and flushes.
        log_rotate_bytes: 64 * 1024,
        ..OpenOptions::default()
    }
}

/// The child's body: runs only when the parent sets the environment variable.
#[test]
fn crash_child() {
    let Ok(dir) = std::env::var(CHILD_ENV) else {
        return;
    };
    let round: u32 = std::env::var("SPARSETABLE_CRASH_ROUND")
        .unwrap()
        .parse()
        .unwrap();
    let mut db = Database::open_dir(&dir, options()).unwrap();
    if db.get_table("t").is_err() {
        let mut config = TableConfig::with_families(["cf"]);
        config.tablet_options.memtable_bytes = 16 * 1024;
        config.tablet_options.split_bytes = 256 * 1024;
        config.tablet_options.merge_bytes = 32 * 1024;
        db.create_table("t", config).unwrap();
    }
    println!("READY");
    let db = SharedDatabase::new(db);
    let threads: Vec<_> = (0..4u32)
        .map(|w| {
            let db = db.clone();
            std::thread::spawn(move || {
                for i in 0.. {
                    let key = format!("r{round:04}-w{w}-{i:06}");
                    let value = format!("value-of-{key}");
                    db.mutate_row(
                        "t",
                        key.as_bytes(),
                        &[Mutation::set_cell("cf", b"q", 1000, value.into_bytes())],
                    )
                    .unwrap();
                    println!("ACK {key}");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn sigkill_never_loses_an_acknowledged_write() {
    let kills: u32 = std::env::var("CRASH_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(25);
    let dir = std::env::temp_dir().join(format!("sparsetable-crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let exe = std::env::current_exe().unwrap();
    let mut acked_total = 0usize;
    let mut seed = 0x9e37_79b9u64;
    for round in 0..kills {
        let mut child = Command::new(&exe)
            .args([
                "--exact",
                "crash_child",
                "--nocapture",
                "--test-threads",
                "1",
            ])
            .env(CHILD_ENV, &dir)
            .env("SPARSETABLE_CRASH_ROUND", round.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            BufReader::new(stdout)
                .lines()
                .map_while(|l| l.ok())
                .collect::<Vec<String>>()
        });
        // A pseudo-random moment (fixed seed: the same schedule every run).
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        std::thread::sleep(Duration::from_millis(20 + seed % 180));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let lines = reader.join().unwrap();
        let acked: Vec<&str> = lines
            .iter()
            .filter_map(|l| l.strip_prefix("ACK "))
            .collect();
        acked_total += acked.len();

        let db = Database::open_dir(&dir, options())
            .unwrap_or_else(|e| panic!("round {round}: reopen failed: {e}"));
        for key in &acked {
            let row = db
                .read_row("t", key.as_bytes())
                .unwrap()
                .unwrap_or_else(|| panic!("round {round}: acknowledged write {key} lost"));
            assert_eq!(row.cells[0].value, format!("value-of-{key}").into_bytes());
        }
    }
    println!("{kills} kills, {acked_total} acknowledged writes, 0 lost");
    let _ = std::fs::remove_dir_all(&dir);
}
