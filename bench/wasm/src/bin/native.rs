//! The native side of the WASM-to-native comparison: runs the crate's workloads with
//! `std::time::Instant` around each call and prints the median ns per operation as JSON
//! (`{"rows":N,"runs":K,"workloads":[{"name":..,"ops":..,"ns_per_op":..}]}`) on stdout.
//! `bench/wasm/run.sh` merges it with the Node figures. Usage: `native [--rows N] [--runs K]`.
//!
//! One unmeasured warm-up run precedes the K measured runs, as in the Node driver, and every
//! run starts from an empty database.

use std::process::ExitCode;
use std::time::Instant;

use sparsetable_bench_wasm::{reserve_memory, Bench, VALUE_BYTES, WORKLOADS};

fn main() -> ExitCode {
    match run() {
        Ok(json) => {
            println!("{json}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("native: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<String, String> {
    let (rows, runs) = parse_args()?;
    let mut bench = Bench::new(rows)?;
    // The same reservation the wasm driver makes, so both start with a sized heap.
    reserve_memory(rows.saturating_mul(VALUE_BYTES).saturating_mul(4));
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); WORKLOADS.len()];
    let mut ops_of = vec![0; WORKLOADS.len()];
    for run in 0..=runs {
        bench.reset()?;
        for (w, name) in WORKLOADS.iter().enumerate() {
            let start = Instant::now();
            let ops = bench.run(name)?;
            let elapsed = start.elapsed();
            // Run 0 warms up caches and the allocator; it is not reported.
            if run > 0 {
                samples[w].push(elapsed.as_nanos() as f64 / ops as f64);
                ops_of[w] = ops;
            }
        }
        eprintln!(
            "native: {} {run}/{runs} done",
            if run == 0 { "warm-up" } else { "run" }
        );
    }
    let workloads: Vec<String> = WORKLOADS
        .iter()
        .enumerate()
        .map(|(w, name)| {
            format!(
                r#"{{"name":"{name}","ops":{},"ns_per_op":{:.3}}}"#,
                ops_of[w],
                median(&mut samples[w])
            )
        })
        .collect();
    Ok(format!(
        r#"{{"rows":{rows},"runs":{runs},"workloads":[{}]}}"#,
        workloads.join(",")
    ))
}

fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    let n = samples.len();
    if n % 2 == 1 {
        samples[n / 2]
    } else {
        (samples[n / 2 - 1] + samples[n / 2]) / 2.0
    }
}

fn parse_args() -> Result<(usize, usize), String> {
    let (mut rows, mut runs) = (100_000, 3);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = value
            .parse::<usize>()
            .map_err(|_| format!("{flag}: {value:?} is not a count"))?;
        match flag.as_str() {
            "--rows" => rows = number,
            "--runs" => runs = number,
            _ => return Err(format!("unknown option {flag}; use --rows N --runs K")),
        }
    }
    if rows == 0 || runs == 0 {
        return Err("--rows and --runs must be at least 1".into());
    }
    Ok((rows, runs))
}
