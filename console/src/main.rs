//! `sparsetable-console`: the playground's cbt-compatible console as a native program. It
//! reads commands from stdin, one per line (a cbt command line without `cbt` and its flags),
//! runs them against an in-memory database, and prints what `cbt` would print: its stdout
//! byte for byte, and on stderr its log messages without their date and time. It exits with
//! status 1 if any command failed.
//!
//! `--clock-micros N` freezes the database clock at N (as the server's flag does), so runs
//! are reproducible; otherwise the system clock runs. `--clusters N` (2 to 8) runs an
//! instance of N clusters instead of one database (see [`sparsetable_console::instance`]:
//! `app-profile=` routes each data command, and `status`, `down`, `up`, `lag`, `fault`
//! control the instance); `--lag DURATION` sets its replication lag from the start. An
//! injected latency (`fault latency=250ms`) moves the frozen clock by that much, or sleeps
//! while the system clock runs.

use std::io::{BufRead, Write};
use std::sync::Arc;

use sparsetable::{Clock, Database, ManualClock};
use sparsetable_console::{Console, InstanceConsole, Output};

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

/// The console a run drives: one database, or an instance of several clusters.
enum Target {
    Single(Console, Database),
    Instance(InstanceConsole),
}

impl Target {
    fn run_line(&mut self, line: &str) -> Output {
        match self {
            Target::Single(console, db) => console.run_line(db, line),
            Target::Instance(instance) => instance.run_line(line),
        }
    }
}

fn target(args: &[String]) -> Option<Target> {
    let (mut clock, mut clusters, mut lag) = (None, None, None);
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it.next()?;
        match flag.as_str() {
            "--clock-micros" => clock = Some(value.parse::<i64>().ok()?),
            "--clusters" => clusters = Some(value.parse::<usize>().ok()?),
            "--lag" => lag = Some(sparsetable_console::gc::parse_duration(value).ok()?),
            _ => return None,
        }
    }
    let manual = clock.map(|n| Arc::new(ManualClock::new(n)));
    let db = || match &manual {
        Some(c) => Database::with_clock(c.clone()),
        None => Database::with_clock(SystemClock),
    };
    match clusters {
        None if lag.is_none() => Some(Target::Single(Console::new(), db())),
        None => None,
        Some(n) => {
            let dbs = (1..=n).map(|i| (format!("console-c{i}"), db())).collect();
            let mut instance = match InstanceConsole::new("console", "console", dbs) {
                Ok(instance) => instance,
                Err(e) => {
                    eprintln!(
                        "sparsetable-console: {}: {}",
                        e.code().as_str(),
                        e.message()
                    );
                    std::process::exit(2);
                }
            };
            if let Some(micros) = lag {
                instance.set_lag_micros(micros).ok()?;
            }
            instance.set_latency_wait(match manual {
                Some(clock) => Box::new(move |micros| {
                    clock.advance_micros(i64::try_from(micros).unwrap_or(i64::MAX));
                }),
                None => Box::new(|micros| {
                    std::thread::sleep(std::time::Duration::from_micros(micros));
                }),
            });
            Some(Target::Instance(instance))
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(mut target) = target(&args) else {
        eprintln!(
            "usage: sparsetable-console [--clock-micros N] [--clusters N [--lag DURATION]] < commands"
        );
        std::process::exit(2);
    };
    let stdin = std::io::stdin();
    let mut failed = false;
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let out = target.run_line(&line);
        std::io::stdout().write_all(&out.stdout).ok();
        std::io::stdout().flush().ok();
        eprint!("{}", out.stderr);
        failed |= out.failed;
    }
    std::process::exit(i32::from(failed));
}
