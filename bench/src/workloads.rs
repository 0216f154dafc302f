//! The paper's six workloads against one engine, and the machine's limits, each run inside a
//! child process of its own (so its peak resident memory and its write bytes are its alone).
//! Every function here returns a flat map of named figures; the parent collects them.
//!
//! Writers take row indexes from one shared counter, so with several threads the key order
//! stays (nearly) sequential for sequential writes; latencies are per call.

use std::collections::BTreeMap;
use std::fs::{self, OpenOptions as FileOptions};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use crate::data::{
    self, disk_usage, evict_page_cache, io, permutation, quantile, row_key, sample, status_kb,
    write_bytes, Io, SplitMix, VALUE_BYTES,
};
use crate::engines::{self, Engine, Mode, Result, Sparsetable};

/// Named figures of one child run.
pub type Figures = BTreeMap<String, f64>;

/// Sizes of one child's work.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Rows of the full data set (mode `none`).
    pub rows: u64,
    /// Point reads per read workload (a sample of the rows).
    pub reads: u64,
    /// Rows written in the `interval` and `sync` modes.
    pub durable_rows: u64,
    /// Writer threads in `sync` mode (group commit needs concurrent writers).
    pub sync_writers: usize,
    /// Seed of the write order and the read samples (the run number).
    pub seed: u64,
}

/// User bytes of `rows` rows: key plus value, as an application would count them.
pub fn user_bytes(rows: u64) -> u64 {
    rows * (row_key(0).len() + VALUE_BYTES) as u64
}

fn record(f: &mut Figures, name: &str, ops: u64, secs: f64, bytes_per_op: u64, lat: &mut [f64]) {
    // Progress on stderr (the parent passes it through), so a slow phase is visible live.
    eprintln!("    {name}: {ops} ops in {secs:.1} s");
    f.insert(format!("{name}.ops"), ops as f64);
    f.insert(format!("{name}.ops_per_s"), ops as f64 / secs);
    f.insert(
        format!("{name}.mb_per_s"),
        (ops * bytes_per_op) as f64 / secs / 1e6,
    );
    if !lat.is_empty() {
        f.insert(format!("{name}.p50_us"), quantile(lat, 0.5));
        f.insert(format!("{name}.p99_us"), quantile(lat, 0.99));
    }
}

/// Writes the rows of `order` with `threads` writers; returns seconds and per-put latencies
/// in microseconds.
fn write_rows(e: &dyn Engine, order: &[u64], threads: usize) -> Result<(f64, Vec<f64>)> {
    let next = AtomicUsize::new(0);
    let start = Instant::now();
    let results: Vec<Result<Vec<f64>>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut lat = Vec::with_capacity(order.len() / threads + 1);
                    let mut v = vec![0u8; VALUE_BYTES];
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&row) = order.get(i) else { break };
                        data::fill_value(row, &mut v);
                        let key = row_key(row);
                        let t = Instant::now();
                        e.put(&key, &v)?;
                        lat.push(t.elapsed().as_nanos() as f64 / 1000.0);
                    }
                    Ok(lat)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let secs = start.elapsed().as_secs_f64();
    let mut all = Vec::with_capacity(order.len());
    for r in results {
        all.extend(r?);
    }
    Ok((secs, all))
}

/// Point-reads the rows of `rows`, checking each value's length and first bytes against the
/// generator (the smoke mode checks whole values); returns seconds and latencies.
fn read_rows(e: &dyn Engine, rows: &[u64]) -> Result<(f64, Vec<f64>)> {
    let mut lat = Vec::with_capacity(rows.len());
    let start = Instant::now();
    for &row in rows {
        let key = row_key(row);
        let t = Instant::now();
        let v = e.get(&key)?;
        lat.push(t.elapsed().as_nanos() as f64 / 1000.0);
        let v = v.ok_or_else(|| format!("row {row} missing"))?;
        let mut head = [0u8; 8];
        data::fill_value(row, &mut head);
        if v.len() != VALUE_BYTES || v[..8] != head {
            return Err(format!("row {row} read back a wrong value"));
        }
    }
    Ok((start.elapsed().as_secs_f64(), lat))
}

/// Scans everything; returns seconds, rows and bytes seen.
fn scan(e: &dyn Engine) -> Result<(f64, u64, u64)> {
    let mut bytes = 0u64;
    let start = Instant::now();
    let n = e.scan(&mut |k, v| bytes += (k.len() + v.len()) as u64)?;
    Ok((start.elapsed().as_secs_f64(), n, bytes))
}

/// Records what the process read during a phase: `{name}.read_bytes` (from the device:
/// page-cache misses) and `{name}.rchar` (through read calls, cached or not).
fn record_io(f: &mut Figures, name: &str, before: Io) {
    let d = io().since(before);
    eprintln!(
        "    {name}: read {} bytes from the device, {} through read calls",
        d.read_bytes, d.rchar
    );
    f.insert(format!("{name}.read_bytes"), d.read_bytes as f64);
    f.insert(format!("{name}.rchar"), d.rchar as f64);
}

/// Closes the engine, evicts its files from the page cache and opens it again, recording
/// the open's time and reads as `{phase}.open_seconds`, `{phase}.open.read_bytes` and
/// `{phase}.open.rchar`: what an engine reads before it can serve the first read.
fn reopen(
    name: &str,
    dir: &Path,
    mode: Mode,
    e: Box<dyn Engine>,
    f: &mut Figures,
    phase: &str,
) -> Result<Box<dyn Engine>> {
    drop(e);
    evict_page_cache(dir);
    let before = io();
    let t = Instant::now();
    let e = engines::open(name, dir, mode)?;
    let secs = t.elapsed().as_secs_f64();
    eprintln!("    {phase}: open in {secs:.3} s");
    f.insert(format!("{phase}.open_seconds"), secs);
    record_io(f, &format!("{phase}.open"), before);
    Ok(e)
}

/// The full set of workloads of engine `name` in `mode` under directory `root`.
///
/// Mode `none` runs all six workloads on `plan.rows` rows and measures space, write
/// amplification and memory; `interval` and `sync` run only the two write workloads on
/// `plan.durable_rows` rows (reads do not depend on the durability mode).
pub fn run_engine(name: &str, mode: Mode, root: &Path, plan: Plan) -> Result<Figures> {
    let mut f = Figures::new();
    let full = mode == Mode::None;
    let rows = if full {
        plan.rows
    } else {
        plan.durable_rows.min(plan.rows)
    };
    let threads = if mode == Mode::Sync {
        plan.sync_writers
    } else {
        1
    };
    f.insert("writer_threads".into(), threads as f64);
    let row_bytes = (row_key(0).len() + VALUE_BYTES) as u64;
    let user = user_bytes(rows);
    let seq: Vec<u64> = (0..rows).collect();

    // Sequential writes, then space and write amplification of the load.
    let dir = engines::fresh_dir(root, name)?;
    let wb0 = write_bytes();
    let e = engines::open(name, &dir, mode)?;
    let (secs, mut lat) = write_rows(e.as_ref(), &seq, threads)?;
    record(&mut f, "seq_writes", rows, secs, row_bytes, &mut lat);
    drop(lat);
    let mut e = e;
    if full {
        e.flush()?;
        f.insert(
            "write_amp_load".into(),
            (write_bytes() - wb0) as f64 / user as f64,
        );
        f.insert(
            "space_amp_load".into(),
            disk_usage(&dir) as f64 / user as f64,
        );
        let t = Instant::now();
        let compacted = e.compact()?;
        eprintln!("    compaction: {:.1} s", t.elapsed().as_secs_f64());
        f.insert("compact_seconds".into(), t.elapsed().as_secs_f64());
        f.insert(
            "space_amp_compacted".into(),
            disk_usage(&dir) as f64 / user as f64,
        );
        f.insert("compacts".into(), if compacted { 1.0 } else { 0.0 });
        f.insert(
            "write_amp_compacted".into(),
            (write_bytes() - wb0) as f64 / user as f64,
        );

        // Reads from storage: each phase starts with the files out of the page cache.
        let reads = plan.reads.min(rows);
        let start = SplitMix::new(plan.seed ^ 7).below(rows - reads + 1);
        let in_order: Vec<u64> = (start..start + reads).collect();
        e = reopen(name, &dir, mode, e, &mut f, "seq_reads")?;
        let before = io();
        let (secs, mut lat) = read_rows(e.as_ref(), &in_order)?;
        record(&mut f, "seq_reads", reads, secs, row_bytes, &mut lat);
        record_io(&mut f, "seq_reads", before);
        let random = sample(rows, reads, plan.seed ^ 11);
        e = reopen(name, &dir, mode, e, &mut f, "random_reads")?;
        let before = io();
        let (secs, mut lat) = read_rows(e.as_ref(), &random)?;
        record(&mut f, "random_reads", reads, secs, row_bytes, &mut lat);
        record_io(&mut f, "random_reads", before);

        // Scans: the first pulls the table into memory, the second is the warm figure.
        let before = io();
        let (secs, n, bytes) = scan(e.as_ref())?;
        if n != rows {
            return Err(format!("scan saw {n} rows, wrote {rows}"));
        }
        f.insert("scan_cold.mb_per_s".into(), bytes as f64 / secs / 1e6);
        f.insert("scan_cold.ops_per_s".into(), n as f64 / secs);
        record_io(&mut f, "scan_cold", before);
        let before = io();
        let (secs, n, bytes) = scan(e.as_ref())?;
        record(&mut f, "scans", n, secs, bytes / n.max(1), &mut []);
        record_io(&mut f, "scans", before);

        // Random reads with every byte already in memory (after the scans).
        let random = sample(rows, reads, plan.seed ^ 13);
        let before = io();
        let (secs, mut lat) = read_rows(e.as_ref(), &random)?;
        record(&mut f, "random_reads_mem", reads, secs, row_bytes, &mut lat);
        record_io(&mut f, "random_reads_mem", before);
    }
    drop(e);
    fs::remove_dir_all(&dir).map_err(|e| e.to_string())?;

    // Random writes into an empty store.
    let dir = engines::fresh_dir(root, name)?;
    let order = permutation(rows, plan.seed);
    let e = engines::open(name, &dir, mode)?;
    let (secs, mut lat) = write_rows(e.as_ref(), &order, threads)?;
    record(&mut f, "random_writes", rows, secs, row_bytes, &mut lat);
    drop(e);
    fs::remove_dir_all(&dir).map_err(|e| e.to_string())?;

    let hwm = status_kb("VmHWM") * 1024;
    f.insert("peak_rss_bytes".into(), hwm as f64);
    f.insert("rss_per_user_byte".into(), hwm as f64 / user as f64);
    Ok(f)
}

/// Sparsetable entirely in memory (no storage): random writes then random reads and a scan,
/// the fairest comparison with the `BTreeMap` limit.
pub fn run_sparsetable_memory(plan: Plan) -> Result<Figures> {
    let mut f = Figures::new();
    let e = Sparsetable::memory()?;
    let order = permutation(plan.rows, plan.seed);
    let row_bytes = (row_key(0).len() + VALUE_BYTES) as u64;
    let (secs, mut lat) = write_rows(&e, &order, 1)?;
    record(
        &mut f,
        "random_writes",
        plan.rows,
        secs,
        row_bytes,
        &mut lat,
    );
    let random = sample(plan.rows, plan.reads.min(plan.rows), plan.seed ^ 13);
    let (secs, mut lat) = read_rows(&e, &random)?;
    record(
        &mut f,
        "random_reads_mem",
        random.len() as u64,
        secs,
        row_bytes,
        &mut lat,
    );
    let (secs, n, bytes) = scan(&e)?;
    if n != plan.rows {
        return Err(format!("scan saw {n} rows, wrote {}", plan.rows));
    }
    record(&mut f, "scans", n, secs, bytes / n.max(1), &mut []);
    let hwm = status_kb("VmHWM") * 1024;
    f.insert("peak_rss_bytes".into(), hwm as f64);
    f.insert(
        "rss_per_user_byte".into(),
        hwm as f64 / user_bytes(plan.rows) as f64,
    );
    Ok(f)
}

/// The physical limits on this machine, measured on the same data and sizes:
/// - `btreemap`: a `BTreeMap<Vec<u8>, Vec<u8>>` keyed like the peers (inserts in the random
///   order, random gets, a full scan);
/// - `append`: sequential appends of the same records to one file, without fsync, with one
///   fdatasync at the end, and with an fdatasync per `sync_writers` records (perfect group
///   commit with that many writers);
/// - `commit`: one 1013-byte append plus fdatasync, its p50 and p99 latency;
/// - `memcpy`: copying a 64 MiB buffer, GB/s.
pub fn run_limits(root: &Path, plan: Plan) -> Result<Figures> {
    let mut f = Figures::new();
    let row_bytes = (row_key(0).len() + VALUE_BYTES) as u64;
    let rows = plan.rows;
    let ioerr = |e: std::io::Error| e.to_string();

    // BTreeMap.
    {
        let order = permutation(rows, plan.seed);
        let mut map = std::collections::BTreeMap::<Vec<u8>, Vec<u8>>::new();
        let mut lat = Vec::with_capacity(rows as usize);
        let start = Instant::now();
        for &row in &order {
            let k = data::cell_key(&row_key(row));
            let v = data::value(row);
            let t = Instant::now();
            map.insert(k, v);
            lat.push(t.elapsed().as_nanos() as f64 / 1000.0);
        }
        // Value generation is inside the loop for every engine too; time it the same way.
        record(
            &mut f,
            "btreemap.inserts",
            rows,
            start.elapsed().as_secs_f64(),
            row_bytes,
            &mut lat,
        );
        let random = sample(rows, plan.reads.min(rows), plan.seed ^ 13);
        let mut lat = Vec::with_capacity(random.len());
        let start = Instant::now();
        for &row in &random {
            let key = row_key(row);
            let t = Instant::now();
            let prefix = data::row_prefix(&key);
            let hit = map
                .range(prefix.clone()..)
                .next()
                .filter(|(k, _)| k.starts_with(&prefix))
                .map(|(_, v)| v.clone());
            lat.push(t.elapsed().as_nanos() as f64 / 1000.0);
            if hit.map(|v| v.len()) != Some(VALUE_BYTES) {
                return Err(format!("BTreeMap lost row {row}"));
            }
        }
        record(
            &mut f,
            "btreemap.gets",
            random.len() as u64,
            start.elapsed().as_secs_f64(),
            row_bytes,
            &mut lat,
        );
        let start = Instant::now();
        let mut bytes = 0u64;
        for (k, v) in &map {
            bytes += (data::row_of_cell_key(k).len() + v.len()) as u64;
        }
        let secs = start.elapsed().as_secs_f64();
        std::hint::black_box(bytes);
        record(
            &mut f,
            "btreemap.scans",
            rows,
            secs,
            bytes / rows.max(1),
            &mut [],
        );
        f.insert(
            "btreemap.rss_per_user_byte".into(),
            (status_kb("VmRSS") * 1024) as f64 / user_bytes(rows) as f64,
        );
    }

    // Appends.
    let dir = engines::fresh_dir(root, "limits")?;
    let path = dir.join("append");
    let record_bytes = vec![0xA5u8; row_bytes as usize];
    let append = |sync_every: Option<u64>, count: u64| -> Result<f64> {
        let mut file = FileOptions::new()
            .create(true)
            .truncate(true)
            .write(true)
            .open(&path)
            .map_err(ioerr)?;
        let start = Instant::now();
        if let Some(every) = sync_every {
            for i in 0..count {
                file.write_all(&record_bytes).map_err(ioerr)?;
                if (i + 1) % every == 0 {
                    file.sync_data().map_err(ioerr)?;
                }
            }
            file.sync_data().map_err(ioerr)?;
        } else {
            // Buffered like a log writer's batching: 64 KiB writes.
            let mut w = std::io::BufWriter::with_capacity(64 << 10, &mut file);
            for _ in 0..count {
                w.write_all(&record_bytes).map_err(ioerr)?;
            }
            w.flush().map_err(ioerr)?;
        }
        Ok(start.elapsed().as_secs_f64())
    };
    let secs = append(None, rows)?;
    record(&mut f, "append.nosync", rows, secs, row_bytes, &mut []);
    let secs = append(Some(u64::MAX), rows)?;
    record(&mut f, "append.one_fsync", rows, secs, row_bytes, &mut []);
    let durable = plan.durable_rows.min(rows);
    let secs = append(Some(plan.sync_writers as u64), durable)?;
    record(
        &mut f,
        "append.group_fsync",
        durable,
        secs,
        row_bytes,
        &mut [],
    );
    let secs = append(Some(1), durable)?;
    record(
        &mut f,
        "append.fsync_each",
        durable,
        secs,
        row_bytes,
        &mut [],
    );

    // Commit latency: one append + fdatasync.
    {
        let mut file = FileOptions::new()
            .create(true)
            .truncate(true)
            .write(true)
            .open(&path)
            .map_err(ioerr)?;
        let n = 1000.min(durable.max(100));
        let mut lat = Vec::with_capacity(n as usize);
        let start = Instant::now();
        for _ in 0..n {
            let t = Instant::now();
            file.write_all(&record_bytes).map_err(ioerr)?;
            file.sync_data().map_err(ioerr)?;
            lat.push(t.elapsed().as_nanos() as f64 / 1000.0);
        }
        record(
            &mut f,
            "commit",
            n,
            start.elapsed().as_secs_f64(),
            row_bytes,
            &mut lat,
        );
    }
    fs::remove_dir_all(&dir).map_err(ioerr)?;

    // memcpy bandwidth.
    {
        let src = vec![0x5Au8; 64 << 20];
        let mut dst = vec![0u8; 64 << 20];
        let passes = (user_bytes(rows) / (64 << 20)).clamp(4, 64);
        dst.copy_from_slice(&src); // fault the pages in first
        let start = Instant::now();
        for _ in 0..passes {
            dst.copy_from_slice(std::hint::black_box(&src));
            std::hint::black_box(&mut dst);
        }
        let secs = start.elapsed().as_secs_f64();
        f.insert(
            "memcpy.mb_per_s".into(),
            (passes * (64 << 20)) as f64 / secs / 1e6,
        );
    }
    Ok(f)
}

/// The recovery writer: opens Sparsetable in `dir` so that nothing checkpoints, writes rows
/// until its commit logs (`*.log`) hold `log_bytes` (memtables still flush to runs as they
/// fill; replay skips what runs already hold), then prints `READY rows` and waits to be killed.
pub fn recovery_writer(dir: &Path, log_bytes: u64) -> Result<()> {
    let e = Sparsetable::open(dir, Mode::None, u64::MAX / 4)?;
    let mut v = vec![0u8; VALUE_BYTES];
    let mut row = 0u64;
    // Checks the size every 1024 rows: reading the directory per write would dominate.
    while !row.is_multiple_of(1024) || data::files_len(dir, ".log") < log_bytes {
        data::fill_value(row, &mut v);
        e.put(&row_key(row), &v)?;
        row += 1;
    }
    println!("READY {row}");
    std::io::stdout().flush().map_err(|e| e.to_string())?;
    loop {
        std::thread::sleep(std::time::Duration::from_secs(60));
    }
}

/// Times `Database::open_dir` on a directory whose writer was SIGKILLed (with the files out
/// of the page cache first), then checks sampled rows and the last row came back exactly.
pub fn recovery_open(dir: &Path, rows: u64) -> Result<Figures> {
    let mut f = Figures::new();
    f.insert(
        "recovery.log_bytes".into(),
        data::files_len(dir, ".log") as f64,
    );
    f.insert("recovery.dir_bytes".into(), disk_usage(dir) as f64);
    evict_page_cache(dir);
    let start = Instant::now();
    let e = Sparsetable::open(dir, Mode::None, 64 << 20)?;
    f.insert("recovery.seconds".into(), start.elapsed().as_secs_f64());
    f.insert("recovery.rows".into(), rows as f64);
    let mut check = sample(rows, 200.min(rows), 3);
    check.push(rows - 1);
    for row in check {
        if e.get(&row_key(row))? != Some(data::value(row)) {
            return Err(format!("row {row} did not survive the kill"));
        }
    }
    if e.get(&row_key(rows))?.is_some() {
        return Err("a row that was never written exists".into());
    }
    Ok(f)
}
