//! `sparsetable-console`: the playground's cbt-compatible console as a native program. It
//! reads commands from stdin, one per line (a cbt command line without `cbt` and its flags),
//! runs them against an in-memory database, and prints what `cbt` would print: its stdout
//! byte for byte, and on stderr its log messages without their date and time. It exits with
//! status 1 if any command failed.
//!
//! `--clock-micros N` freezes the database clock at N (as the server's flag does), so runs
//! are reproducible; otherwise the system clock runs.

use std::io::{BufRead, Write};
use std::sync::Arc;

use sparsetable::{Clock, Database, ManualClock};
use sparsetable_console::Console;

/// The system clock (the core's own needs its `std` feature, which the console leaves off
/// so the playground links the same code).
struct SystemClock;

impl Clock for SystemClock {
    fn now_micros(&self) -> i64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut db = match args.as_slice() {
        [] => Database::with_clock(SystemClock),
        [flag, n] if flag == "--clock-micros" => match n.parse::<i64>() {
            Ok(n) => Database::with_clock(Arc::new(ManualClock::new(n))),
            Err(_) => usage(),
        },
        _ => usage(),
    };
    let mut console = Console::new();
    let stdin = std::io::stdin();
    let mut failed = false;
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let out = console.run_line(&mut db, &line);
        std::io::stdout().write_all(&out.stdout).ok();
        std::io::stdout().flush().ok();
        eprint!("{}", out.stderr);
        failed |= out.failed;
    }
    std::process::exit(i32::from(failed));
}

fn usage() -> ! {
    eprintln!("usage: sparsetable-console [--clock-micros N] < commands");
    std::process::exit(2);
}
