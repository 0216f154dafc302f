//! The `sparsetable-bench` command.
//!
//! - `smoke`: every engine x workload on a few thousand rows, with exact checks.
//! - `report [--rows N] [--runs K] [--reads S] [--durable-rows D] [--sync-writers W]
//!   [--recovery-mb M] [--data DIR] [--results FILE] [--wasm FILE] [--server FILE]
//!   [--appendix FILE] [--out FILE] [--command TEXT]`: runs everything `--runs` times, each
//!   engine in a child process, saves the raw figures to `--results` and renders the report.
//! - `render --results FILE [...]`: renders the report again from saved figures.
//! - `verify DIR`: opens the database directory DIR and reads and checksums every data
//!   block of every run file (`Database::verify`; opening alone reads only their metadata).
//!   Prints what it checked; exits 1 with the error (`DATA_LOSS: NNNNNN.sst: ...`) if a file
//!   is corrupt.
//! - Child subcommands (used by the above): `engine NAME MODE DIR`, `memory`, `limits DIR`,
//!   `recovery-writer DIR BYTES`, `recovery-open DIR ROWS`; the plan comes from the same flags.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use sparsetable_bench::engines::{self, Mode};
use sparsetable_bench::report::{self, Inputs, Results, Run};
use sparsetable_bench::workloads::{self, Figures, Plan};
use sparsetable_bench::{recovery, run_child, smoke};

struct Args {
    positional: Vec<String>,
    flags: BTreeMap<String, String>,
}

impl Args {
    fn parse() -> Result<Args, String> {
        let mut positional = Vec::new();
        let mut flags = BTreeMap::new();
        let mut it = std::env::args().skip(1);
        while let Some(a) = it.next() {
            if let Some(name) = a.strip_prefix("--") {
                let v = it.next().ok_or_else(|| format!("--{name} needs a value"))?;
                flags.insert(name.to_string(), v);
            } else {
                positional.push(a);
            }
        }
        Ok(Args { positional, flags })
    }

    fn num(&self, name: &str, default: u64) -> Result<u64, String> {
        match self.flags.get(name) {
            None => Ok(default),
            Some(v) => v
                .replace('_', "")
                .parse()
                .map_err(|_| format!("--{name} {v}: not a number")),
        }
    }

    fn path(&self, name: &str, default: &str) -> PathBuf {
        PathBuf::from(self.flags.get(name).map(String::as_str).unwrap_or(default))
    }

    fn plan(&self) -> Result<Plan, String> {
        Ok(Plan {
            rows: self.num("rows", 1_000_000)?.max(1),
            reads: self.num("reads", 100_000)?.max(1),
            durable_rows: self.num("durable-rows", 20_000)?.max(1),
            sync_writers: self.num("sync-writers", 8)?.max(1) as usize,
            seed: self.num("seed", 1)?,
        })
    }

    /// The flags to hand a child so it runs the same plan.
    fn plan_flags(plan: &Plan) -> Vec<String> {
        [
            ("rows", plan.rows),
            ("reads", plan.reads),
            ("durable-rows", plan.durable_rows),
            ("sync-writers", plan.sync_writers as u64),
            ("seed", plan.seed),
        ]
        .into_iter()
        .flat_map(|(k, v)| [format!("--{k}"), v.to_string()])
        .collect()
    }
}

fn print_figures(f: &Figures) -> Result<(), String> {
    println!("{}", serde_json::to_string(f).map_err(|e| e.to_string())?);
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("sparsetable-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<ExitCode, String> {
    let args = Args::parse()?;
    let pos = |i: usize| -> Result<&str, String> {
        args.positional
            .get(i)
            .map(String::as_str)
            .ok_or_else(|| format!("missing argument {i}"))
    };
    match pos(0).unwrap_or("help") {
        "smoke" => {
            let root = args
                .path("data", "/tmp")
                .join(format!("sparsetable-smoke-{}", std::process::id()));
            std::fs::create_dir_all(&root).map_err(|e| e.to_string())?;
            let (_, failed) = smoke::run(&root);
            let _ = std::fs::remove_dir_all(&root);
            Ok(if failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        "engine" => {
            let mode = Mode::parse(pos(2)?).ok_or("mode must be none, interval or sync")?;
            let f = workloads::run_engine(pos(1)?, mode, Path::new(pos(3)?), args.plan()?)?;
            print_figures(&f)?;
            Ok(ExitCode::SUCCESS)
        }
        "memory" => {
            print_figures(&workloads::run_sparsetable_memory(args.plan()?)?)?;
            Ok(ExitCode::SUCCESS)
        }
        "limits" => {
            print_figures(&workloads::run_limits(Path::new(pos(1)?), args.plan()?)?)?;
            Ok(ExitCode::SUCCESS)
        }
        "recovery-writer" => {
            let bytes = pos(2)?.parse().map_err(|_| "bytes must be a number")?;
            workloads::recovery_writer(Path::new(pos(1)?), bytes)?;
            Ok(ExitCode::SUCCESS)
        }
        "recovery-open" => {
            let rows = pos(2)?.parse().map_err(|_| "rows must be a number")?;
            print_figures(&workloads::recovery_open(Path::new(pos(1)?), rows)?)?;
            Ok(ExitCode::SUCCESS)
        }
        "report" => {
            let results = measure(&args)?;
            let path = args.path("results", "/work/bench-data/results.json");
            let text = serde_json::to_string_pretty(&results).map_err(|e| e.to_string())?;
            std::fs::write(&path, text).map_err(|e| e.to_string())?;
            eprintln!("figures saved to {}", path.display());
            render(&args, results)
        }
        "verify" => {
            let dir = Path::new(pos(1)?);
            if !dir.is_dir() {
                return Err(format!("{}: not a directory", dir.display()));
            }
            let t = std::time::Instant::now();
            let options = sparsetable::OpenOptions {
                verify_on_open: false,
                ..sparsetable::OpenOptions::default()
            };
            let db = sparsetable::Database::open_dir(dir, options).map_err(|e| e.to_string())?;
            let opened = t.elapsed().as_secs_f64();
            match db.verify() {
                Ok(report) => {
                    println!(
                        "{}: {} run files, {} bytes: every block checksummed (open {:.3} s, verify {:.3} s)",
                        dir.display(),
                        report.runs,
                        report.bytes,
                        opened,
                        t.elapsed().as_secs_f64() - opened
                    );
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => {
                    eprintln!("{}: {e}", dir.display());
                    Ok(ExitCode::FAILURE)
                }
            }
        }
        "render" => {
            let path = args.path("results", "/work/bench-data/results.json");
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let results: Results = serde_json::from_str(&text).map_err(|e| e.to_string())?;
            render(&args, results)
        }
        _ => {
            eprintln!("usage: sparsetable-bench smoke | report [--rows N] [--runs K] ... | render --results FILE | verify DIR");
            Ok(ExitCode::FAILURE)
        }
    }
}

fn render(args: &Args, results: Results) -> Result<ExitCode, String> {
    let read_opt = |name: &str| -> Result<Option<String>, String> {
        match args.flags.get(name) {
            Some(p) if Path::new(p).exists() => std::fs::read_to_string(p)
                .map(Some)
                .map_err(|e| format!("{p}: {e}")),
            _ => Ok(None),
        }
    };
    let inputs = Inputs {
        wasm: read_opt("wasm")?,
        server: read_opt("server")?,
        appendix: read_opt("appendix")?,
    };
    let text = report::render(&results, &inputs)?;
    let out = args.path("out", "docs/benchmarks.md");
    std::fs::write(&out, text).map_err(|e| e.to_string())?;
    eprintln!("report written to {}", out.display());
    Ok(ExitCode::SUCCESS)
}

/// Runs every child `--runs` times and collects their figures.
fn measure(args: &Args) -> Result<Results, String> {
    let plan = args.plan()?;
    let runs = args.num("runs", 3)?.max(1);
    let recovery_bytes = args.num("recovery-mb", 256)? << 20;
    let data = args.path("data", "/work/bench-data");
    let root = data.join(format!("run-{}", std::process::id()));
    std::fs::create_dir_all(&root).map_err(|e| e.to_string())?;
    let mut out = Results {
        date: report::utc_now(),
        command: args
            .flags
            .get("command")
            .cloned()
            .unwrap_or_else(|| std::env::args().collect::<Vec<_>>().join(" ")),
        revision: report::revision(),
        machine: report::machine(&data),
        rows: plan.rows,
        reads: plan.reads,
        durable_rows: plan.durable_rows,
        sync_writers: plan.sync_writers as u64,
        recovery_bytes,
        runs: Vec::new(),
    };
    for r in 0..runs {
        let mut run = Run::default();
        let plan_r = Plan {
            seed: plan.seed + r,
            ..plan
        };
        let flags_r = Args::plan_flags(&plan_r);
        let mut child = |key: String, mut argv: Vec<String>| {
            argv.extend(flags_r.iter().cloned());
            eprintln!("[run {}/{runs}] {key} ...", r + 1);
            let start = std::time::Instant::now();
            match run_child(&argv) {
                Ok(f) => {
                    eprintln!(
                        "[run {}/{runs}] {key} done in {:.1} s",
                        r + 1,
                        start.elapsed().as_secs_f64()
                    );
                    run.children.insert(key, f);
                }
                Err(e) => {
                    eprintln!("[run {}/{runs}] {key} FAILED: {e}", r + 1);
                    run.errors.insert(key, e);
                }
            }
        };
        let dir = root.display().to_string();
        child("limits".into(), vec!["limits".into(), dir.clone()]);
        child("sparsetable-memory".into(), vec!["memory".into()]);
        for name in engines::engine_names() {
            for mode in Mode::ALL {
                child(
                    format!("{name}/{}", mode.name()),
                    vec![
                        "engine".into(),
                        name.into(),
                        mode.name().into(),
                        dir.clone(),
                    ],
                );
            }
        }
        eprintln!("[run {}/{runs}] recovery ...", r + 1);
        match recovery(&root.join("recovery"), recovery_bytes) {
            Ok(f) => {
                run.children.insert("recovery".into(), f);
            }
            Err(e) => {
                run.errors.insert("recovery".into(), e);
            }
        }
        out.runs.push(run);
    }
    let _ = std::fs::remove_dir_all(&root);
    Ok(out)
}
