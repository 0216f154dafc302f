//! Renders `docs/benchmarks.md` from the figures of every run.
//!
//! Rules the report keeps: each figure is the median over runs; each ratio is computed inside
//! one run (the machine is shared and noisy, so only figures of the same run are compared)
//! and the median of those per-run ratios is printed; targets are printed beside the figures,
//! never asserted. Pieces measured elsewhere (WASM vs native, server vs emulator) are included
//! when their JSON is given and marked "not measured in this run" otherwise.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::data::median;
use crate::engines::{engine_names, Mode, INTERVAL_MS};
use crate::workloads::Figures;

/// Every figure of one run, by child (`limits`, `sparsetable-memory`, `ENGINE/MODE`,
/// `recovery`), and the children that failed.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Run {
    /// Figures by child.
    pub children: BTreeMap<String, Figures>,
    /// Error text by child.
    pub errors: BTreeMap<String, String>,
}

/// Everything measured by one `report` invocation.
#[derive(Debug, Serialize, Deserialize)]
pub struct Results {
    /// When the run started (UTC).
    pub date: String,
    /// The command as documented.
    pub command: String,
    /// The git revision measured, and whether core/ or bench/ had uncommitted changes.
    #[serde(default)]
    pub revision: String,
    /// Machine description lines.
    pub machine: Vec<String>,
    /// Rows of the full data set.
    pub rows: u64,
    /// Point reads per read workload.
    pub reads: u64,
    /// Rows written in the durable modes.
    pub durable_rows: u64,
    /// Writer threads in `sync` mode.
    pub sync_writers: u64,
    /// Commit log bytes before the recovery kill.
    pub recovery_bytes: u64,
    /// One entry per run.
    pub runs: Vec<Run>,
}

/// The JSON documents produced by other benchmarks, and the hand-written appendix.
#[derive(Debug, Default)]
pub struct Inputs {
    /// `bench/wasm/run.sh` output.
    pub wasm: Option<String>,
    /// `vs_emulator` output.
    pub server: Option<String>,
    /// Appended verbatim.
    pub appendix: Option<String>,
}

/// The current UTC time as `YYYY-MM-DD HH:MM UTC`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = sparsetable::platform::calendar::ymd_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

/// The git revision of the working tree, noting uncommitted changes under core/ and bench/
/// (the engine is under active work: a figure belongs to the code that produced it).
pub fn revision() -> String {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let Some(head) = git(&["rev-parse", "--short", "HEAD"]) else {
        return "unknown (not a git checkout)".into();
    };
    match git(&["status", "--porcelain", "--", "core", "bench"]) {
        Some(s) if !s.is_empty() => format!("`{head}` plus uncommitted changes in core/ or bench/"),
        _ => format!("`{head}`"),
    }
}

/// Cores, memory and the disk holding `data`, from /proc, /sys and `df`.
pub fn machine(data: &Path) -> Vec<String> {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cores = cpuinfo
        .lines()
        .filter(|l| l.starts_with("processor"))
        .count();
    let model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name")?.split(':').nth(1))
        .unwrap_or("unknown")
        .trim()
        .to_string();
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let mem_kb: f64 = meminfo
        .lines()
        .find_map(|l| {
            l.strip_prefix("MemTotal:")?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or(0.0);
    let df = std::process::Command::new("df")
        .args(["-h", "--output=source,fstype,size,avail"])
        .arg(data)
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .nth(1)
                .unwrap_or("")
                .to_string()
        })
        .unwrap_or_default();
    let dev = df.split_whitespace().next().unwrap_or("");
    let block = dev.trim_start_matches("/dev/");
    let rotational = std::fs::read_to_string(format!("/sys/block/{block}/queue/rotational"))
        .map(|s| {
            if s.trim() == "1" {
                "rotational"
            } else {
                "non-rotational"
            }
        })
        .unwrap_or("rotational unknown");
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    vec![
        format!("{cores} cores ({model})"),
        format!("{:.1} GiB memory", mem_kb / 1024.0 / 1024.0),
        format!(
            "data disk (df: source, type, size, free): `{}`, {rotational}",
            df.split_whitespace().collect::<Vec<_>>().join(" ")
        ),
        format!("Linux {}", kernel.trim()),
    ]
}

fn fig(run: &Run, child: &str, metric: &str) -> Option<f64> {
    run.children.get(child)?.get(metric).copied()
}

impl Results {
    /// The median over runs of `f(run)`, skipping runs where it is undefined.
    fn med(&self, f: impl Fn(&Run) -> Option<f64>) -> Option<f64> {
        let mut v: Vec<f64> = self
            .runs
            .iter()
            .filter_map(f)
            .filter(|x| x.is_finite())
            .collect();
        median(&mut v)
    }

    fn fig(&self, child: &str, metric: &str) -> Option<f64> {
        self.med(|r| fig(r, child, metric))
    }
}

const PEERS: [&str; 4] = ["fjall", "redb", "lmdb", "rocksdb"];

fn peers() -> Vec<&'static str> {
    let present = engine_names();
    PEERS.into_iter().filter(|p| present.contains(p)).collect()
}

/// The best peer's figure within one run (highest, or lowest when `lower_is_better`).
fn best_peer(run: &Run, mode: Mode, metric: &str, lower_is_better: bool) -> Option<(f64, String)> {
    PEERS
        .iter()
        .filter_map(|p| {
            fig(run, &format!("{p}/{}", mode.name()), metric).map(|v| (v, p.to_string()))
        })
        .reduce(|a, b| {
            let better = if lower_is_better {
                b.0 < a.0
            } else {
                b.0 > a.0
            };
            if better {
                b
            } else {
                a
            }
        })
}

fn num(v: Option<f64>) -> String {
    match v {
        None => "n/a".into(),
        Some(x) if x >= 100_000.0 => group(x.round() as u64),
        Some(x) if x >= 100.0 => group(x.round() as u64),
        Some(x) if x >= 10.0 => format!("{x:.1}"),
        Some(x) => format!("{x:.2}"),
    }
}

fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn ratio(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.2}x"))
        .unwrap_or_else(|| "n/a".into())
}

/// One workload: its metric prefix, title, paper figure and limits.
struct Workload {
    key: &'static str,
    title: &'static str,
    paper: &'static str,
    modes: &'static [Mode],
    latency: bool,
    /// (label, child, metric) of the limit its throughput is compared with, per mode.
    limit: fn(Mode) -> Option<(&'static str, &'static str, &'static str)>,
}

fn write_limit(mode: Mode) -> Option<(&'static str, &'static str, &'static str)> {
    Some(match mode {
        Mode::None => ("file append, no fsync", "limits", "append.nosync.mb_per_s"),
        Mode::Interval => (
            "file append, one fsync at the end",
            "limits",
            "append.one_fsync.mb_per_s",
        ),
        Mode::Sync => (
            "file append, one fdatasync per writer-count records",
            "limits",
            "append.group_fsync.mb_per_s",
        ),
    })
}

fn read_limit(_: Mode) -> Option<(&'static str, &'static str, &'static str)> {
    Some((
        "BTreeMap get (in memory)",
        "limits",
        "btreemap.gets.mb_per_s",
    ))
}

fn scan_limit(_: Mode) -> Option<(&'static str, &'static str, &'static str)> {
    Some(("memcpy", "limits", "memcpy.mb_per_s"))
}

const WORKLOADS: [Workload; 6] = [
    Workload {
        key: "seq_writes",
        title: "Sequential writes",
        paper: "8,547/s per tablet server (1000-byte values, GFS, 2006); Cloud Bigtable: 14,000 writes/s per SSD node",
        modes: &Mode::ALL,
        latency: true,
        limit: write_limit,
    },
    Workload {
        key: "random_writes",
        title: "Random writes",
        paper: "8,850/s per tablet server; Cloud Bigtable: 14,000 writes/s per SSD node",
        modes: &Mode::ALL,
        latency: true,
        limit: write_limit,
    },
    Workload {
        key: "seq_reads",
        title: "Sequential reads",
        paper: "4,425/s per tablet server; Cloud Bigtable: 17,000 reads/s per SSD node",
        modes: &[Mode::None],
        latency: true,
        limit: read_limit,
    },
    Workload {
        key: "random_reads",
        title: "Random reads",
        paper: "1,212/s per tablet server; Cloud Bigtable: 17,000 reads/s per SSD node",
        modes: &[Mode::None],
        latency: true,
        limit: read_limit,
    },
    Workload {
        key: "random_reads_mem",
        title: "Random reads, data in memory",
        paper: "10,811/s per tablet server; Cloud Bigtable: 17,000 reads/s per SSD node",
        modes: &[Mode::None],
        latency: true,
        limit: read_limit,
    },
    Workload {
        key: "scans",
        title: "Scans (warm)",
        paper: "15,385 rows/s per tablet server (about 15 MB/s); Cloud Bigtable: 220 MB/s per SSD node",
        modes: &[Mode::None],
        latency: false,
        limit: scan_limit,
    },
];

/// The report's Markdown.
///
/// # Errors
/// Malformed WASM or server JSON.
pub fn render(r: &Results, inputs: &Inputs) -> Result<String, String> {
    let mut o = String::new();
    let w = &mut o;
    let mb = |b: u64| b as f64 / 1e6;
    let _ = writeln!(w, "# Benchmarks\n");
    let _ = writeln!(
        w,
        "This file is generated by `bash scripts/bench.sh` (see `bench/`); do not edit it by hand. \
         The hand-written part is `bench/report/appendix.md`, appended at the end.\n"
    );
    let _ = writeln!(w, "- **Date:** {}", r.date);
    let _ = writeln!(w, "- **Command:** `{}`", r.command);
    if !r.revision.is_empty() {
        let _ = writeln!(w, "- **Revision:** {}", r.revision);
    }
    let _ = writeln!(w, "- **Machine:** {}", r.machine.join("; "));
    let _ = writeln!(
        w,
        "- **Data:** {} rows `row%010d`, one cell each (family `cf`, qualifier `q`, one timestamp) \
         holding 1000 random bytes: {:.0} MB of keys and values. Random writes use a seeded \
         permutation of the rows.",
        group(r.rows),
        mb(crate::workloads::user_bytes(r.rows))
    );
    let _ = writeln!(
        w,
        "- **Sampling:** the read workloads do {} point reads each (sequential reads: a run of \
         consecutive rows from a random start; random reads: uniform samples), not one per row; \
         scans read every row. Durability modes `interval` and `sync` write {} rows per write \
         workload (`sync` with {} writer threads, so Sparsetable's group commit applies); \
         mode `none` writes all rows with one writer.",
        group(r.reads),
        group(r.durable_rows.min(r.rows)),
        r.sync_writers
    );
    let _ = writeln!(
        w,
        "- **Runs:** {} (`--runs`). Each figure is the median over runs; each ratio is computed \
         within a run and the median of those ratios is shown. Every engine runs in its own \
         child process (peak memory and write bytes are per engine) on the same data directory, \
         which is deleted after each workload.",
        r.runs.len()
    );
    for (i, run) in r.runs.iter().enumerate() {
        for (child, e) in &run.errors {
            let _ = writeln!(w, "- **Failed in run {}:** `{child}`: {e}", i + 1);
        }
    }
    let _ = writeln!(w);

    // Targets.
    let _ = writeln!(w, "## Targets (measured, not asserted)\n");
    let _ = writeln!(w, "| target | measured | met |\n|---|---|---|");
    let target =
        |w: &mut String, name: &str, v: Option<f64>, goal: f64, higher: bool, unit: &str| {
            let met = match v {
                None => "not measured",
                Some(x) if (higher && x >= goal) || (!higher && x <= goal) => "yes",
                Some(_) => "no",
            };
            let shown = v
                .map(|x| format!("{x:.2}{unit}"))
                .unwrap_or_else(|| "n/a".into());
            let _ = writeln!(w, "| {name} | {shown} | {met} |");
        };
    for wl in &WORKLOADS {
        for &mode in wl.modes {
            let metric = format!("{}.ops_per_s", wl.key);
            let v = r.med(|run| {
                let s = fig(run, &format!("sparsetable/{}", mode.name()), &metric)?;
                Some(s / best_peer(run, mode, &metric, false)?.0)
            });
            target(
                w,
                &format!("{} (`{}`) ≥ 1.0x the best peer", wl.title, mode.name()),
                v,
                1.0,
                true,
                "x",
            );
        }
    }
    let mem_vs_btree = r.med(|run| {
        Some(
            fig(run, "sparsetable/none", "random_reads_mem.ops_per_s")?
                / fig(run, "limits", "btreemap.gets.ops_per_s")?,
        )
    });
    target(
        w,
        "Random reads in memory (on-disk database, data cached) ≥ 0.8x BTreeMap",
        mem_vs_btree,
        0.8,
        true,
        "x",
    );
    let mem_db_vs_btree = r.med(|run| {
        Some(
            fig(run, "sparsetable-memory", "random_reads_mem.ops_per_s")?
                / fig(run, "limits", "btreemap.gets.ops_per_s")?,
        )
    });
    target(
        w,
        "Random reads in memory (in-memory database) ≥ 0.8x BTreeMap",
        mem_db_vs_btree,
        0.8,
        true,
        "x",
    );
    target(
        w,
        "Scans ≥ 1 GB/s warm (GB/s)",
        r.fig("sparsetable/none", "scans.mb_per_s")
            .map(|x| x / 1000.0),
        1.0,
        true,
        " GB/s",
    );
    let sync_vs_append = r.med(|run| {
        Some(
            fig(run, "sparsetable/sync", "seq_writes.mb_per_s")?
                / fig(run, "limits", "append.group_fsync.mb_per_s")?,
        )
    });
    target(
        w,
        "Durable sequential writes (`sync`, group commit) ≥ 0.7x raw append bandwidth",
        sync_vs_append,
        0.7,
        true,
        "x",
    );
    target(
        w,
        "Space amplification after compaction ≤ 1.1",
        r.fig("sparsetable/none", "space_amp_compacted"),
        1.1,
        false,
        "",
    );
    let rec = r.med(|run| {
        let c = run.children.get("recovery")?;
        Some(c.get("recovery.seconds")? / (c.get("recovery.log_bytes")? / (256.0 * 1048576.0)))
    });
    target(
        w,
        "Recovery ≤ 1 s per 256 MB of log (s per 256 MB)",
        rec,
        1.0,
        false,
        " s",
    );
    let wasm = inputs.wasm.as_deref().map(parse_wasm).transpose()?;
    let wasm_worst = wasm.as_ref().and_then(|rows| {
        rows.iter()
            .map(|x| x.1)
            .fold(None, |a: Option<f64>, b| Some(a.map_or(b, |a| a.max(b))))
    });
    target(
        w,
        "WASM ≤ 1.5x native (worst workload, time ratio)",
        wasm_worst,
        1.5,
        false,
        "x",
    );
    let _ = writeln!(w);

    // Durability settings.
    let _ = writeln!(w, "## Durability settings per engine\n");
    let _ = writeln!(
        w,
        "| engine | `none` | `interval` ({INTERVAL_MS} ms) | `sync` |\n|---|---|---|---|"
    );
    let _ = writeln!(w, "| Sparsetable | `Durability::None` | `Durability::Interval` (background fsync under `SharedDatabase`) | `Durability::Sync`, group commit across writers |");
    let _ = writeln!(w, "| fjall 3.1 | journal written, never persisted by us | `persist(SyncData)` every {INTERVAL_MS} ms from a thread | `persist(SyncData)` after every insert |");
    let _ = writeln!(w, "| redb 4.5 | `Durability::None` commits | as `none`, plus an `Immediate` empty commit every {INTERVAL_MS} ms | `Durability::Immediate` commits |");
    let _ = writeln!(w, "| LMDB (heed 0.23) | `MDB_NOSYNC` | `MDB_NOSYNC` plus `mdb_env_sync` every {INTERVAL_MS} ms | default (fsync per commit) |");
    let _ = writeln!(w, "| RocksDB (crate 0.25; C++ library: the crate's bundled 11.8, or the system's when the command sets `ROCKSDB_LIB_DIR`) | WAL, `sync = false` | as `none`, plus `FlushWAL(sync)` every {INTERVAL_MS} ms | `sync = true` (RocksDB's own group commit) |");
    let _ = writeln!(w, "\nPoint reads are a seek to the first key with prefix `row 0x00` in the peers (what a row read of a wide-column store has to do) and `read_row` in Sparsetable. Compression is off in every engine (the values are random). Sparsetable runs through `SharedDatabase` in every mode.\n");
    if !engine_names().contains(&"rocksdb") {
        let _ = writeln!(w, "RocksDB was not built into this run (cargo feature `rocksdb` off), so it is absent from the tables.\n");
    }

    // Workloads.
    for wl in &WORKLOADS {
        let _ = writeln!(w, "## {}\n", wl.title);
        let _ = writeln!(w, "The paper (Figure 6, per server): {}.\n", wl.paper);
        let mut header = String::from("| engine |");
        let mut sep = String::from("|---|");
        for &mode in wl.modes {
            let _ = write!(header, " `{}` ops/s | MB/s |", mode.name());
            sep.push_str("---|---|");
            if wl.latency {
                let _ = write!(header, " p50 µs | p99 µs |");
                sep.push_str("---|---|");
            }
        }
        let _ = writeln!(w, "{header}\n{sep}");
        let mut rows: Vec<(String, String)> = vec![("Sparsetable".into(), "sparsetable".into())];
        if matches!(wl.key, "random_writes" | "random_reads_mem" | "scans") {
            rows.push((
                "Sparsetable, in-memory database".into(),
                "sparsetable-memory".into(),
            ));
        }
        for p in peers() {
            rows.push((p.to_string(), p.to_string()));
        }
        for (label, child) in rows {
            let _ = write!(w, "| {label} |");
            for &mode in wl.modes {
                let c = if child == "sparsetable-memory" {
                    if mode != Mode::None {
                        let _ = write!(w, " | |{}", if wl.latency { " | |" } else { "" });
                        continue;
                    }
                    child.clone()
                } else {
                    format!("{child}/{}", mode.name())
                };
                let _ = write!(
                    w,
                    " {} | {} |",
                    num(r.fig(&c, &format!("{}.ops_per_s", wl.key))),
                    num(r.fig(&c, &format!("{}.mb_per_s", wl.key)))
                );
                if wl.latency {
                    let _ = write!(
                        w,
                        " {} | {} |",
                        num(r.fig(&c, &format!("{}.p50_us", wl.key))),
                        num(r.fig(&c, &format!("{}.p99_us", wl.key)))
                    );
                }
            }
            let _ = writeln!(w);
        }
        let _ = writeln!(w);
        for &mode in wl.modes {
            let metric = format!("{}.ops_per_s", wl.key);
            let vs_peer = r.med(|run| {
                Some(
                    fig(run, &format!("sparsetable/{}", mode.name()), &metric)?
                        / best_peer(run, mode, &metric, false)?.0,
                )
            });
            let mut best_names: Vec<String> = r
                .runs
                .iter()
                .filter_map(|run| best_peer(run, mode, &metric, false).map(|b| b.1))
                .collect();
            best_names.dedup();
            let mut line = format!(
                "- `{}`: Sparsetable / best peer ({}) = **{}** (target ≥ 1.0x)",
                mode.name(),
                if best_names.is_empty() {
                    "none".into()
                } else {
                    best_names.join(", ")
                },
                ratio(vs_peer)
            );
            if let Some((label, child, lmetric)) = (wl.limit)(mode) {
                let mbm = format!("{}.mb_per_s", wl.key);
                let vs_limit = r.med(|run| {
                    Some(
                        fig(run, &format!("sparsetable/{}", mode.name()), &mbm)?
                            / fig(run, child, lmetric)?,
                    )
                });
                let _ = write!(
                    line,
                    "; Sparsetable / limit ({label}, {} MB/s) = **{}**",
                    num(r.fig(child, lmetric)),
                    ratio(vs_limit)
                );
            }
            if wl.key == "random_writes" && mode == Mode::None {
                let v = r.med(|run| {
                    Some(
                        fig(run, "sparsetable/none", "random_writes.ops_per_s")?
                            / fig(run, "limits", "btreemap.inserts.ops_per_s")?,
                    )
                });
                let _ = write!(
                    line,
                    "; / BTreeMap insert ({} ops/s) = **{}**",
                    num(r.fig("limits", "btreemap.inserts.ops_per_s")),
                    ratio(v)
                );
            }
            if wl.key == "random_reads_mem" {
                let v = r.med(|run| {
                    Some(
                        fig(run, "sparsetable-memory", "random_reads_mem.ops_per_s")?
                            / fig(run, "limits", "btreemap.gets.ops_per_s")?,
                    )
                });
                let _ = write!(
                    line,
                    "; in-memory database / BTreeMap get ({} ops/s, p50 {} µs) = **{}** (target ≥ 0.8x)",
                    num(r.fig("limits", "btreemap.gets.ops_per_s")),
                    num(r.fig("limits", "btreemap.gets.p50_us")),
                    ratio(v)
                );
            }
            if wl.key == "scans" {
                let v = r.med(|run| {
                    Some(
                        fig(run, "sparsetable/none", "scans.mb_per_s")?
                            / fig(run, "limits", "btreemap.scans.mb_per_s")?,
                    )
                });
                let _ = write!(
                    line,
                    "; / BTreeMap iteration ({} MB/s) = **{}**; first (cold) scan {} MB/s",
                    num(r.fig("limits", "btreemap.scans.mb_per_s")),
                    ratio(v),
                    num(r.fig("sparsetable/none", "scan_cold.mb_per_s"))
                );
            }
            let _ = writeln!(w, "{line}");
        }
        if wl.key == "seq_writes" {
            let _ = writeln!(
                w,
                "- Commit latency limit (one 1013-byte append + fdatasync): p50 {} µs, p99 {} µs; \
                 fdatasync per record: {} ops/s. `sync` p50 of Sparsetable above is per write \
                 with {} writers sharing fsyncs.",
                num(r.fig("limits", "commit.p50_us")),
                num(r.fig("limits", "commit.p99_us")),
                num(r.fig("limits", "append.fsync_each.ops_per_s")),
                r.sync_writers
            );
        }
        let _ = writeln!(w);
    }

    // Space, write amplification, memory.
    let _ = writeln!(w, "## Space, write amplification and memory\n");
    let _ = writeln!(w, "After the sequential load of mode `none`. Space: bytes allocated on disk / user bytes (keys + values), after the load (flushed) and after a full compaction. Write amplification: `write_bytes` of the engine's process (/proc/self/io) / user bytes, for the load alone and including the compaction. Memory: the child's peak resident set (VmHWM) over its whole run (all six workloads) / user bytes.\n");
    let _ = writeln!(w, "| engine | space after load | after compaction | write amp, load | write amp, load + compaction | peak RSS | RSS / user byte |\n|---|---|---|---|---|---|---|");
    let mut engines_rows: Vec<(String, String)> =
        vec![("Sparsetable".into(), "sparsetable/none".into())];
    for p in peers() {
        engines_rows.push((p.to_string(), format!("{p}/none")));
    }
    for (label, c) in &engines_rows {
        let compacts = r.fig(c, "compacts") == Some(1.0);
        let _ = writeln!(
            w,
            "| {label} | {} | {}{} | {} | {} | {} MB | {} |",
            num(r.fig(c, "space_amp_load")),
            num(r.fig(c, "space_amp_compacted")),
            if compacts || r.fig(c, "compacts").is_none() {
                ""
            } else {
                " (no compaction)"
            },
            num(r.fig(c, "write_amp_load")),
            num(r.fig(c, "write_amp_compacted")),
            num(r.fig(c, "peak_rss_bytes").map(|b| b / 1e6)),
            num(r.fig(c, "rss_per_user_byte")),
        );
    }
    let _ = writeln!(
        w,
        "| Sparsetable, in-memory database | | | | | {} MB | {} |",
        num(r
            .fig("sparsetable-memory", "peak_rss_bytes")
            .map(|b| b / 1e6)),
        num(r.fig("sparsetable-memory", "rss_per_user_byte"))
    );
    let _ = writeln!(
        w,
        "| BTreeMap limit (resident after inserts) | | | | | | {} |",
        num(r.fig("limits", "btreemap.rss_per_user_byte"))
    );
    let sa = r.med(|run| {
        Some(
            fig(run, "sparsetable/none", "space_amp_compacted")?
                / best_peer(run, Mode::None, "space_amp_compacted", true)?.0,
        )
    });
    let _ = writeln!(w, "\n- Sparsetable space after compaction / best peer = **{}** (lower is better; target ≤ 1.1 absolute).", ratio(sa));
    let wa = r.med(|run| {
        Some(
            fig(run, "sparsetable/none", "write_amp_compacted")?
                / best_peer(run, Mode::None, "write_amp_compacted", true)?.0,
        )
    });
    let _ = writeln!(
        w,
        "- Sparsetable write amplification / best peer = **{}** (lower is better).\n",
        ratio(wa)
    );

    // Opening and device reads.
    let _ = writeln!(w, "## Opening and device reads\n");
    let _ = writeln!(w, "Mode `none`, after the load and compaction. Before each read phase the engine is closed, its files are evicted from the page cache and it is opened again: *open* is that open's time and what it read; every other column is what the phase read. `read_bytes` (/proc/self/io of the engine's process) counts bytes fetched from the device (page-cache misses); `rchar` counts bytes through read calls, cached or not. Medians over runs; MB = 10^6 bytes.\n");
    let _ = writeln!(w, "| engine | open (before random reads) | open read_bytes | open rchar | sequential reads | random reads | cold scan | warm scan | random reads in memory |\n|---|---|---|---|---|---|---|---|---|");
    let mb = |v: Option<f64>| num(v.map(|b| b / 1e6));
    for (label, c) in &engines_rows {
        let _ = writeln!(
            w,
            "| {label} | {} ms | {} MB | {} MB | {} MB | {} MB | {} MB | {} MB | {} MB |",
            num(r.fig(c, "random_reads.open_seconds").map(|s| s * 1e3)),
            mb(r.fig(c, "random_reads.open.read_bytes")),
            mb(r.fig(c, "random_reads.open.rchar")),
            mb(r.fig(c, "seq_reads.read_bytes")),
            mb(r.fig(c, "random_reads.read_bytes")),
            mb(r.fig(c, "scan_cold.read_bytes")),
            mb(r.fig(c, "scans.read_bytes")),
            mb(r.fig(c, "random_reads_mem.read_bytes")),
        );
    }
    let _ = writeln!(w);

    // Recovery.
    let _ = writeln!(w, "## Recovery after SIGKILL\n");
    let _ = writeln!(
        w,
        "A child writes rows in mode `none` with `log_rotate_bytes` so large that nothing checkpoints, until its commit logs hold {} MB (memtables still flush to runs as they fill, so the directory holds more; replay skips rows the runs already hold); the parent SIGKILLs it, evicts the files from the page cache, and times `Database::open_dir` (log replay plus the checkpoint that follows it); then 201 rows are read back and compared with what was written.\n",
        r.recovery_bytes >> 20
    );
    let _ = writeln!(
        w,
        "| commit log | whole directory | rows written | open time | per 256 MB of log |\n|---|---|---|---|---|\n| {} MB | {} MB | {} | {} s | **{} s** (target ≤ 1 s) |\n",
        num(r.fig("recovery", "recovery.log_bytes").map(|b| b / 1e6)),
        num(r.fig("recovery", "recovery.dir_bytes").map(|b| b / 1e6)),
        num(r.fig("recovery", "recovery.rows")),
        num(r.fig("recovery", "recovery.seconds")),
        num(rec)
    );

    // WASM.
    let _ = writeln!(w, "## WASM vs native\n");
    match &wasm {
        None => {
            let _ = writeln!(
                w,
                "Not measured in this run (`bench/wasm/run.sh` produced no figures).\n"
            );
        }
        Some(rows) => {
            let meta: Value = inputs
                .wasm
                .as_deref()
                .and_then(|t| serde_json::from_str(t).ok())
                .unwrap_or(Value::Null);
            let _ = writeln!(
                w,
                "From `bench/wasm/run.sh` ({} rows of {} bytes, {} rounds of {} passes a side): the in-memory engine compiled natively and to WebAssembly (under Node), same workloads. Each round runs the native passes and then the wasm passes, and takes each side's median pass; ns/op are the medians over the rounds, and the ratio is the median of the rounds' own ratios.\n",
                meta["rows"].as_u64().map(group).unwrap_or_else(|| "?".into()),
                meta["value_bytes"].as_u64().unwrap_or(0),
                meta["rounds"].as_u64().unwrap_or(1),
                meta["runs"].as_u64().unwrap_or(0)
            );
            let _ = writeln!(w, "| workload | ops | native ns/op | wasm ns/op | wasm / native time |\n|---|---|---|---|---|");
            for (name, ratio_v, ops, n, wns) in rows {
                let _ = writeln!(
                    w,
                    "| {name} | {} | {} | {} | **{}** (target ≤ 1.5x) |",
                    num(Some(*ops)),
                    num(Some(*n)),
                    num(Some(*wns)),
                    ratio(Some(*ratio_v))
                );
            }
            let _ = writeln!(w);
        }
    }

    // Server.
    let _ = writeln!(w, "## Server vs Google's Bigtable emulator\n");
    match inputs.server.as_deref() {
        None => {
            let _ = writeln!(w, "Not measured in this run (`cargo bench -p sparsetable-server --bench vs_emulator` produced no figures).\n");
        }
        Some(text) => render_server(w, text)?,
    }

    if let Some(appendix) = &inputs.appendix {
        let _ = writeln!(w, "---\n");
        o.push_str(appendix);
    }
    Ok(o)
}

/// One workload of the WASM benchmark: (name, wasm/native time ratio, ops, native ns/op,
/// wasm ns/op).
type WasmRow = (String, f64, f64, f64, f64);

fn parse_wasm(text: &str) -> Result<Vec<WasmRow>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("wasm JSON: {e}"))?;
    let list = v["workloads"].as_array().ok_or("wasm JSON: no workloads")?;
    list.iter()
        .map(|x| {
            let name = x["name"]
                .as_str()
                .ok_or("wasm JSON: workload without name")?;
            let n = x["native_ns_per_op"]
                .as_f64()
                .ok_or("wasm JSON: no native_ns_per_op")?;
            let wns = x["wasm_ns_per_op"]
                .as_f64()
                .ok_or("wasm JSON: no wasm_ns_per_op")?;
            // run.sh reports the median of its rounds' ratios (each round ran both sides back to
            // back); older files have only the two medians.
            let ratio = x["ratio"].as_f64().unwrap_or(wns / n);
            Ok((
                name.to_string(),
                ratio,
                x["ops"].as_f64().unwrap_or(0.0),
                n,
                wns,
            ))
        })
        .collect()
}

fn render_server(w: &mut String, text: &str) -> Result<(), String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("server JSON: {e}"))?;
    let list = v["workloads"]
        .as_array()
        .ok_or("server JSON: no workloads")?;
    let _ = writeln!(
        w,
        "From `server/benches/vs_emulator.rs` (client: {}, {} rows, {} runs): the same gRPC client against `sparsetable-server` and against `cbtemulator` on this machine.\n",
        v["client"].as_str().unwrap_or("?"),
        v["rows"].as_u64().map(group).unwrap_or_else(|| "?".into()),
        v["runs"].as_u64().unwrap_or(0)
    );
    let _ = writeln!(w, "| workload | ops | Sparsetable ops/s | emulator ops/s | throughput ratio (Sparsetable / emulator) | Sparsetable CPU µs/op | emulator CPU µs/op | CPU per op ratio (emulator / Sparsetable) |\n|---|---|---|---|---|---|---|---|");
    for x in list {
        let s = &x["sparsetable"];
        let e = &x["emulator"];
        let (so, eo) = (s["ops_per_s"].as_f64(), e["ops_per_s"].as_f64());
        let (sc, ec) = (s["cpu_us_per_op"].as_f64(), e["cpu_us_per_op"].as_f64());
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | **{}** | {} | {} | **{}** |",
            x["name"].as_str().unwrap_or("?"),
            num(x["ops"].as_f64()),
            num(so),
            num(eo),
            ratio(so.zip(eo).map(|(a, b)| a / b)),
            num(sc),
            num(ec),
            ratio(ec.zip(sc).map(|(a, b)| a / b)),
        );
    }
    let _ = writeln!(w);
    Ok(())
}
