//! Benchmarks of Sparsetable: the Bigtable paper's six workloads (OSDI 2006, Figure 6) against
//! fjall, redb, LMDB and (feature `rocksdb`) RocksDB on the same data, beside the machine's
//! physical limits, with a smoke mode that checks every engine returns what it was given.
//!
//! Every measurement runs in a child process (the `bench` binary re-executing itself), so each
//! engine's peak resident memory and write bytes are its own; children print their figures as
//! JSON on stdout. [`report`] renders `docs/benchmarks.md` from the collected figures.

pub mod data;
pub mod engines;
pub mod report;
pub mod smoke;
pub mod workloads;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use engines::Result;
use workloads::Figures;

/// Runs this executable with `args` and parses the JSON figures it prints last on stdout.
pub fn run_child(args: &[String]) -> Result<Figures> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = Command::new(exe)
        .args(args)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!("child {args:?} failed ({}): {stdout}", out.status));
    }
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last).map_err(|e| format!("child {args:?} printed {last:?}: {e}"))
}

/// The recovery benchmark: a child writes Sparsetable rows with a commit log that never
/// rotates until `log_bytes` are in `dir`, is SIGKILLed, and another child times
/// `Database::open_dir` on what it left (and checks the rows came back).
pub fn recovery(dir: &Path, log_bytes: u64) -> Result<Figures> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut child = Command::new(exe)
        .arg("recovery-writer")
        .arg(dir)
        .arg(log_bytes.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut line = String::new();
    let stdout = child.stdout.take().ok_or("no stdout")?;
    BufReader::new(stdout)
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    // Child::kill is SIGKILL on unix: no destructor, no flush, no checkpoint runs.
    child.kill().map_err(|e| e.to_string())?;
    let _ = child.wait();
    let rows: u64 = line
        .strip_prefix("READY ")
        .and_then(|r| r.trim().parse().ok())
        .ok_or_else(|| format!("recovery writer said {line:?}"))?;
    let f = run_child(&[
        "recovery-open".into(),
        dir.display().to_string(),
        rows.to_string(),
    ]);
    let _ = std::fs::remove_dir_all(dir);
    f
}
