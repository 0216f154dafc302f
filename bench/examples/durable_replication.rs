//! What durable replication costs (issue 28): `rows` rows of 1000 bytes written one
//! MutateRow at a time to a durable single-cluster database, and the same writes to durable
//! replicated instances of 2 and 3 clusters (every cluster's copy a durable database in its
//! own directory, the queue of writes on their way in a file; no lag, so each write is
//! delivered to the other clusters at once), in the same process with the same durability,
//! rounds alternating the three so a busy machine slows them alike.
//!
//! Each configuration's time runs from its first write to the last delivery and the end of
//! the background flushes and compactions its writes caused (so a configuration whose
//! writes finish before a flush does is not spared it).
//!
//! Printed per configuration and round: the time per write, the bytes handed to storage (by
//! file kind: commit logs, run files, the replication queue file, the rest) and the fsyncs,
//! and the bytes the kernel sent to the device (`/proc/self/io` `write_bytes`); then each
//! replicated configuration's ratios to the single database of the same round, and their
//! medians. What each write costs beyond the single database's: the write is logged at its
//! cluster as outbound (record type 5) until the queue file records it, the queue file is
//! rewritten before the write is acknowledged, and each other cluster logs (type 4) and
//! applies it.
//!
//! `cargo run --release -p sparsetable-bench --example durable_replication -- ROWS ROUNDS DIR [sync|none]`
//! (defaults 2000, 3, a directory under the system's temp dir, `sync`; DIR is emptied first).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use sparsetable::platform::clock::SystemClock;
use sparsetable::platform::storage::{
    FileStorage, RandomAccessFile, Storage, Syncer, WritableFile,
};
use sparsetable::{
    Database, Durability, Mutation, OpenOptions, ReplicatedInstance, RequestKind, SharedDatabase,
    TableConfig,
};
use sparsetable_bench::data::{self, row_key, FAMILY, QUALIFIER, TIMESTAMP_MICROS};

/// Bytes appended to storage by file kind (log, runs, queue, other: see [`kind`]), and
/// fsyncs (files and directories).
#[derive(Default)]
struct Counters {
    bytes: [AtomicU64; 4],
    syncs: AtomicU64,
}

/// The file kind a name is counted as: 0 commit logs, 1 run files, 2 the replication queue
/// file, 3 the rest (manifests, change logs, replication marks).
fn kind(name: &str) -> usize {
    if name.ends_with(".log") {
        0
    } else if name.ends_with(".sst") {
        1
    } else if name.starts_with("REPLICATION") {
        2
    } else {
        3
    }
}

/// A snapshot of [`Counters`]: log, runs, queue, other bytes, fsyncs.
#[derive(Debug, Clone, Copy, Default)]
struct Count([u64; 5]);

impl Counters {
    fn now(&self) -> Count {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let b = &self.bytes;
        Count([g(&b[0]), g(&b[1]), g(&b[2]), g(&b[3]), g(&self.syncs)])
    }
}

impl Count {
    fn since(self, earlier: Count) -> Count {
        let mut out = [0; 5];
        for (i, o) in out.iter_mut().enumerate() {
            *o = self.0[i] - earlier.0[i];
        }
        Count(out)
    }

    fn bytes(&self) -> u64 {
        self.0[..4].iter().sum()
    }
}

/// A directory whose writes are counted into shared [`Counters`].
struct Counted {
    inner: FileStorage,
    counters: Arc<Counters>,
}

struct CountedFile {
    inner: Box<dyn WritableFile>,
    kind: usize,
    counters: Arc<Counters>,
}

struct CountedSyncer {
    inner: Arc<dyn Syncer>,
    counters: Arc<Counters>,
}

impl Syncer for CountedSyncer {
    fn sync(&self) -> sparsetable::Result<()> {
        self.counters.syncs.fetch_add(1, Ordering::Relaxed);
        self.inner.sync()
    }
}

impl WritableFile for CountedFile {
    fn append(&mut self, data: &[u8]) -> sparsetable::Result<()> {
        self.counters.bytes[self.kind].fetch_add(data.len() as u64, Ordering::Relaxed);
        self.inner.append(data)
    }
    fn sync(&mut self) -> sparsetable::Result<()> {
        self.counters.syncs.fetch_add(1, Ordering::Relaxed);
        self.inner.sync()
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
    fn syncer(&self) -> Option<Arc<dyn Syncer>> {
        let inner = self.inner.syncer()?;
        Some(Arc::new(CountedSyncer {
            inner,
            counters: self.counters.clone(),
        }))
    }
}

impl Counted {
    fn wrap(&self, name: &str, inner: Box<dyn WritableFile>) -> Box<dyn WritableFile> {
        Box::new(CountedFile {
            inner,
            kind: kind(name),
            counters: self.counters.clone(),
        })
    }
}

impl Storage for Counted {
    fn create(&self, name: &str) -> sparsetable::Result<Box<dyn WritableFile>> {
        Ok(self.wrap(name, self.inner.create(name)?))
    }
    fn append_to(&self, name: &str) -> sparsetable::Result<Box<dyn WritableFile>> {
        Ok(self.wrap(name, self.inner.append_to(name)?))
    }
    fn open(&self, name: &str) -> sparsetable::Result<Arc<dyn RandomAccessFile>> {
        self.inner.open(name)
    }
    fn rename(&self, from: &str, to: &str) -> sparsetable::Result<()> {
        self.inner.rename(from, to)
    }
    fn remove(&self, name: &str) -> sparsetable::Result<()> {
        self.inner.remove(name)
    }
    fn list(&self) -> sparsetable::Result<Vec<String>> {
        self.inner.list()
    }
    fn sync_dir(&self) -> sparsetable::Result<()> {
        self.counters.syncs.fetch_add(1, Ordering::Relaxed);
        self.inner.sync_dir()
    }
}

fn err(e: sparsetable::Error) -> String {
    e.to_string()
}

fn storage(dir: &std::path::Path, counters: &Arc<Counters>) -> Result<Arc<Counted>, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    Ok(Arc::new(Counted {
        inner: FileStorage::new(dir).map_err(err)?,
        counters: counters.clone(),
    }))
}

fn open(
    dir: &std::path::Path,
    counters: &Arc<Counters>,
    durability: Durability,
) -> Result<SharedDatabase, String> {
    let options = OpenOptions {
        durability,
        ..OpenOptions::default()
    };
    let db = Database::open(storage(dir, counters)?, options, SystemClock).map_err(err)?;
    Ok(SharedDatabase::new(db))
}

/// One configuration's measured writes.
struct Run {
    secs: f64,
    count: Count,
    device: u64,
}

/// Writes `rows` rows to a single database (`clusters` 1) or a replicated instance of
/// `clusters` clusters, all kept under `dir`.
fn run(
    dir: &std::path::Path,
    clusters: usize,
    rows: u64,
    durability: Durability,
) -> Result<Run, String> {
    let _ = std::fs::remove_dir_all(dir);
    let counters = Arc::new(Counters::default());
    let order = data::permutation(rows, 1);
    let mut v = vec![0u8; data::VALUE_BYTES];
    let config = TableConfig::with_families([FAMILY]);
    if clusters == 1 {
        let db = open(&dir.join("c0"), &counters, durability)?;
        db.write(|d| d.create_table("t", config)).map_err(err)?;
        let (c0, io0, t0) = (counters.now(), data::io(), Instant::now());
        for &r in &order {
            data::fill_value(r, &mut v);
            let m = Mutation::set_cell(FAMILY, QUALIFIER, TIMESTAMP_MICROS, v.as_slice());
            db.mutate_row("t", &row_key(r), &[m]).map_err(err)?;
        }
        // Background flushes and compactions count for every configuration alike.
        db.wait_maintenance().map_err(err)?;
        let secs = t0.elapsed().as_secs_f64();
        return Ok(Run {
            secs,
            count: counters.now().since(c0),
            device: data::io().since(io0).write_bytes,
        });
    }
    let copies = (0..clusters)
        .map(|i| {
            Ok((
                format!("c{i}"),
                open(&dir.join(format!("c{i}")), &counters, durability)?,
            ))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let inst = ReplicatedInstance::new(copies)
        .map_err(err)?
        .with_queue_storage(storage(&dir.join("replication"), &counters)?)
        .map_err(err)?;
    inst.primary()
        .write(|d| d.create_table("t", config))
        .map_err(err)?;
    inst.pump().map_err(err)?;
    let (c0, io0, t0) = (counters.now(), data::io(), Instant::now());
    for &r in &order {
        data::fill_value(r, &mut v);
        let key = row_key(r);
        let m = Mutation::set_cell(FAMILY, QUALIFIER, TIMESTAMP_MICROS, v.as_slice());
        let (c, db) = inst.route("", RequestKind::Write, &key).map_err(err)?;
        db.mutate_row("t", &key, &[m]).map_err(err)?;
        inst.after_write(c).map_err(err)?;
    }
    inst.pump().map_err(err)?;
    for i in 0..clusters {
        inst.replica(i)
            .ok_or("no replica")?
            .wait_maintenance()
            .map_err(err)?;
    }
    let secs = t0.elapsed().as_secs_f64();
    if inst.in_flight().map_err(err)? != 0 {
        return Err("writes still in flight after the last pump".into());
    }
    // Every cluster has every row.
    for i in 0..clusters {
        let db = inst.replica(i).ok_or("no replica")?;
        for &r in order.iter().step_by((rows as usize / 50).max(1)) {
            if db
                .read(|d| d.read_row("t", &row_key(r)))
                .map_err(err)?
                .is_none()
            {
                return Err(format!("cluster {i} lacks row {r}"));
            }
        }
    }
    Ok(Run {
        secs,
        count: counters.now().since(c0),
        device: data::io().since(io0).write_bytes,
    })
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let num = |i: usize, d: u64| -> Result<u64, String> {
        args.get(i).map_or(Ok(d), |n| {
            n.parse().map_err(|_| format!("{n}: not a number"))
        })
    };
    let rows = num(1, 2000)?.max(1);
    let rounds = num(2, 3)?.max(1);
    let dir = args.get(3).map_or_else(
        || std::env::temp_dir().join(format!("durable-replication-{}", std::process::id())),
        std::path::PathBuf::from,
    );
    let durability = match args.get(4).map_or("sync", String::as_str) {
        "sync" => Durability::Sync,
        "none" => Durability::None,
        other => return Err(format!("{other}: sync or none")),
    };
    println!(
        "{rows} rows of {} bytes, one MutateRow each, durability {durability:?}, {rounds} round(s)",
        data::VALUE_BYTES
    );
    println!(
        "| round | configuration | µs per write | bytes to storage per write (log / runs / queue / other) | fsyncs per write | device bytes per write |"
    );
    println!("|---|---|---|---|---|---|");
    let mut ratios: Vec<[Vec<f64>; 4]> = vec![Default::default(), Default::default()];
    for round in 1..=rounds {
        let mut single = None;
        for clusters in [1usize, 2, 3] {
            let r = run(&dir.join(format!("{clusters}")), clusters, rows, durability)?;
            let per = |x: u64| x as f64 / rows as f64;
            let c = r.count.0;
            println!(
                "| {round} | {} | {:.1} | {:.0} ({:.0} / {:.0} / {:.0} / {:.0}) | {:.2} | {:.0} |",
                if clusters == 1 {
                    "single database".to_string()
                } else {
                    format!("{clusters} clusters")
                },
                r.secs * 1e6 / rows as f64,
                per(r.count.bytes()),
                per(c[0]),
                per(c[1]),
                per(c[2]),
                per(c[3]),
                per(c[4]),
                per(r.device),
            );
            match &single {
                None => single = Some(r),
                Some(s) => {
                    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::NAN };
                    let slot = &mut ratios[clusters - 2];
                    slot[0].push(ratio(r.secs, s.secs));
                    slot[1].push(ratio(r.count.bytes() as f64, s.count.bytes() as f64));
                    // Under `none` the single database fsyncs only when it writes a run
                    // or a manifest: a ratio to that says nothing (printed as n/a).
                    let fsyncs = s.count.0[4] as f64;
                    slot[2].push(if fsyncs * 10.0 >= rows as f64 {
                        ratio(r.count.0[4] as f64, fsyncs)
                    } else {
                        f64::NAN
                    });
                    slot[3].push(ratio(r.device as f64, s.device as f64));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!();
    println!("| replicated / single (median of {rounds} round(s)) | time | bytes to storage | fsyncs | device bytes |");
    println!("|---|---|---|---|---|");
    for (i, r) in ratios.into_iter().enumerate() {
        let [t, b, s, d] = r.map(median);
        let s = if s.is_nan() {
            "n/a".to_string()
        } else {
            format!("{s:.2}x")
        };
        println!("| {} clusters | {t:.2}x | {b:.2}x | {s} | {d:.2}x |", i + 2);
    }
    Ok(())
}
