//! Sparsetable's server beside Google's Bigtable emulator (`cbtemulator`): the same workloads
//! from the same Rust tonic client against both, in one run, both servers alive side by side.
//!
//! Workloads, each on a fresh table per run (one family, rows `row%010d` of one 1000-byte
//! pseudo-random value each):
//! 1. `bulk_writes`: MutateRows batches of 100 rows from several concurrent client tasks;
//! 2. `point_reads`: one ReadRows per row key, from several concurrent tasks, for the first
//!    `--point-reads` keys (default 10,000, at most all rows) of a seeded random order;
//! 3. `full_scans`: one ReadRows over the whole table (an op is a row scanned).
//!
//! Figures: throughput (ops/s, wall clock) and the server's CPU time per op, from utime+stime
//! in `/proc/PID/stat` before and after the workload (the client's own CPU is not counted).
//! Each figure is the median of `--runs` runs. Sparsetable runs with a data directory (a fresh
//! temporary one, persistence on) and `--durability` (default `sync`); the emulator keeps
//! everything in memory, which is all it can do.
//!
//! Verification, or the bench fails: every MutateRows entry must report OK, every point read
//! must return exactly the value written, and the scan must return every row in key order with
//! its value.
//!
//! Run: `cargo bench -p sparsetable-server --bench vs_emulator -- [--rows N] [--runs K]
//! [--point-reads N] [--durability sync|interval|none] [--json FILE] [--server-bin PATH]
//! [--emulator-bin PATH]`.
//! By default the server is the `sparsetable-server` binary cargo built for this bench (the
//! bench profile, i.e. release settings).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin_v2;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;
use tonic::transport::Channel;

use admin_v2::bigtable_table_admin_client::BigtableTableAdminClient;
use v2::bigtable_client::BigtableClient;

type Error = Box<dyn std::error::Error + Send + Sync>;
type Result<T> = std::result::Result<T, Error>;

const EMULATOR: &str = "/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator";
const INSTANCE: &str = "projects/bench/instances/bench";
const FAMILY: &str = "cf";
const QUALIFIER: &[u8] = b"v";
/// Explicit cell timestamps (millisecond granularity, as Bigtable requires).
const TIMESTAMP_MICROS: i64 = 1_700_000_000_000_000;
const VALUE_BYTES: usize = 1000;
const BATCH_ROWS: usize = 100;
const WRITE_TASKS: usize = 4;
const READ_TASKS: usize = 8;
const WORKLOADS: [&str; 3] = ["bulk_writes", "point_reads", "full_scans"];

struct Options {
    rows: usize,
    runs: usize,
    point_reads: usize,
    durability: String,
    json: Option<PathBuf>,
    server_bin: PathBuf,
    emulator_bin: PathBuf,
}

fn parse_args() -> Result<Options> {
    let mut options = Options {
        rows: 100_000,
        runs: 3,
        point_reads: 10_000,
        durability: "sync".into(),
        json: None,
        server_bin: PathBuf::from(env!("CARGO_BIN_EXE_sparsetable-server")),
        emulator_bin: PathBuf::from(EMULATOR),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        // `cargo bench` passes `--bench` to every harness-less bench binary.
        if flag == "--bench" {
            continue;
        }
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let count = || -> Result<usize> {
            match value.parse::<usize>() {
                Ok(n) if n > 0 => Ok(n),
                _ => Err(format!("{flag}: {value:?} is not a positive count").into()),
            }
        };
        match flag.as_str() {
            "--rows" => options.rows = count()?,
            "--runs" => options.runs = count()?,
            "--point-reads" => options.point_reads = count()?,
            "--durability" => match value.as_str() {
                "sync" | "interval" | "none" => options.durability = value,
                _ => return Err("--durability must be sync, interval or none".into()),
            },
            "--json" => options.json = Some(value.into()),
            "--server-bin" => options.server_bin = value.into(),
            "--emulator-bin" => options.emulator_bin = value.into(),
            _ => {
                return Err(format!(
                    "unknown option {flag}; options: --rows N --runs K --point-reads N \
                     --durability MODE \
                     --json FILE --server-bin PATH --emulator-bin PATH"
                )
                .into())
            }
        }
    }
    Ok(options)
}

/// A server process this bench started; killed (by its own id) when dropped.
struct ServerProcess {
    label: &'static str,
    child: Child,
    addr: String,
    // Held open so the server never writes into a closed pipe.
    _stdout: Option<BufReader<ChildStdout>>,
    data_dir: Option<PathBuf>,
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(dir) = &self.data_dir {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

impl ServerProcess {
    /// Starts `sparsetable-server` on a free port with a fresh data directory.
    fn sparsetable(bin: &Path, durability: &str) -> Result<Self> {
        let data_dir = std::env::temp_dir().join(format!(
            "sparsetable-vs-emulator-{}-{}",
            std::process::id(),
            durability
        ));
        let _ = std::fs::remove_dir_all(&data_dir);
        std::fs::create_dir_all(&data_dir)?;
        let mut child = Command::new(bin)
            .args([
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--durability",
                durability,
            ])
            .arg("--data-dir")
            .arg(&data_dir)
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("starting {}: {e}", bin.display()))?;
        let mut stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut server = ServerProcess {
            label: "sparsetable",
            child,
            addr: String::new(),
            _stdout: None,
            data_dir: Some(data_dir),
        };
        let mut line = String::new();
        stdout.read_line(&mut line)?;
        // "sparsetable-server listening on ADDR (data in DIR)".
        server.addr = line
            .strip_prefix("sparsetable-server listening on ")
            .and_then(|rest| rest.split_whitespace().next())
            .ok_or_else(|| format!("unexpected start-up line {line:?}"))?
            .to_string();
        server._stdout = Some(stdout);
        Ok(server)
    }

    /// Starts Google's emulator on a free port and waits until it accepts connections.
    fn emulator(bin: &Path) -> Result<Self> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let child = Command::new(bin)
            .args(["-host", "127.0.0.1", "-port", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("starting {}: {e}", bin.display()))?;
        let server = ServerProcess {
            label: "emulator",
            child,
            addr: format!("127.0.0.1:{port}"),
            _stdout: None,
            data_dir: None,
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(&server.addr).is_err() {
            if Instant::now() > deadline {
                return Err("the emulator did not open its port within 30 s".into());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(server)
    }

    /// The process's CPU time so far (user + system), in clock ticks.
    fn cpu_ticks(&self) -> Result<u64> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id()))?;
        // Fields after the parenthesised command name; utime and stime are the 14th and 15th
        // fields overall, i.e. the 12th and 13th after the name.
        let rest = &stat[stat.rfind(')').ok_or("malformed /proc stat")? + 2..];
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let utime: u64 = fields.get(11).ok_or("short /proc stat")?.parse()?;
        let stime: u64 = fields.get(12).ok_or("short /proc stat")?.parse()?;
        Ok(utime + stime)
    }

    async fn channel(&self) -> Result<Channel> {
        Ok(Channel::from_shared(format!("http://{}", self.addr))?
            .connect()
            .await?)
    }

    async fn data(&self) -> Result<BigtableClient<Channel>> {
        // A full scan's responses may be large; the limit is the client's, not the server's.
        Ok(BigtableClient::new(self.channel().await?).max_decoding_message_size(256 << 20))
    }
}

/// The rows every workload uses: keys and one distinct value per row, and a random order.
struct Data {
    keys: Vec<Vec<u8>>,
    values: Vec<Vec<u8>>,
    order: Vec<usize>,
}

fn split_mix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Data {
    fn new(rows: usize) -> Self {
        let mut seed = 0x5157_a6b1_e000_0006;
        let keys = (0..rows)
            .map(|i| format!("row{i:010}").into_bytes())
            .collect();
        let values = (0..rows)
            .map(|_| {
                (0..VALUE_BYTES.div_ceil(8))
                    .flat_map(|_| split_mix(&mut seed).to_le_bytes())
                    .take(VALUE_BYTES)
                    .collect()
            })
            .collect();
        let mut order: Vec<usize> = (0..rows).collect();
        for i in (1..rows).rev() {
            order.swap(i, (split_mix(&mut seed) % (i as u64 + 1)) as usize);
        }
        Data {
            keys,
            values,
            order,
        }
    }
}

/// One workload's wall time and the server CPU it cost.
#[derive(Clone, Copy)]
struct Sample {
    ops: usize,
    ops_per_s: f64,
    cpu_us_per_op: f64,
}

async fn create_table(server: &ServerProcess, table_id: &str) -> Result<String> {
    let mut admin = BigtableTableAdminClient::new(server.channel().await?);
    let table = admin
        .create_table(admin_v2::CreateTableRequest {
            parent: INSTANCE.into(),
            table_id: table_id.into(),
            table: Some(admin_v2::Table {
                column_families: [(FAMILY.to_string(), admin_v2::ColumnFamily::default())]
                    .into_iter()
                    .collect(),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await?
        .into_inner();
    Ok(table.name)
}

async fn delete_table(server: &ServerProcess, name: &str) -> Result<()> {
    let mut admin = BigtableTableAdminClient::new(server.channel().await?);
    admin
        .delete_table(admin_v2::DeleteTableRequest { name: name.into() })
        .await?;
    Ok(())
}

/// Writes rows `range` in MutateRows batches of [`BATCH_ROWS`], checking every entry's status.
async fn write_rows(
    mut client: BigtableClient<Channel>,
    table: String,
    data: Arc<Data>,
    batches: Vec<std::ops::Range<usize>>,
) -> Result<()> {
    for batch in batches {
        let entries = batch
            .clone()
            .map(|i| v2::mutate_rows_request::Entry {
                row_key: data.keys[i].clone(),
                mutations: vec![v2::Mutation {
                    mutation: Some(v2::mutation::Mutation::SetCell(v2::mutation::SetCell {
                        family_name: FAMILY.into(),
                        column_qualifier: QUALIFIER.to_vec(),
                        timestamp_micros: TIMESTAMP_MICROS,
                        value: data.values[i].clone(),
                    })),
                }],
                ..Default::default()
            })
            .collect();
        let mut stream = client
            .mutate_rows(v2::MutateRowsRequest {
                table_name: table.clone(),
                entries,
                ..Default::default()
            })
            .await?
            .into_inner();
        let mut acknowledged = 0;
        while let Some(response) = stream.message().await? {
            for entry in response.entries {
                let code = entry.status.map_or(-1, |s| s.code);
                if code != 0 {
                    return Err(
                        format!("MutateRows entry {} failed: code {code}", entry.index).into(),
                    );
                }
                acknowledged += 1;
            }
        }
        if acknowledged != batch.len() {
            return Err(format!(
                "MutateRows acknowledged {acknowledged} of {} entries",
                batch.len()
            )
            .into());
        }
    }
    Ok(())
}

/// A row as read back: its key and its cells' (family, qualifier, value).
type ReadRow = (Vec<u8>, Vec<(String, Vec<u8>, Vec<u8>)>);

/// Runs ReadRows and merges its chunks into rows (values split across chunks joined again).
async fn read_rows(
    client: &mut BigtableClient<Channel>,
    request: v2::ReadRowsRequest,
) -> Result<Vec<ReadRow>> {
    use v2::read_rows_response::cell_chunk::RowStatus;
    let mut stream = client.read_rows(request).await?.into_inner();
    let mut rows = Vec::new();
    let mut row: Option<ReadRow> = None;
    let (mut family, mut qualifier) = (String::new(), Vec::new());
    let mut continuing = false;
    while let Some(response) = stream.message().await? {
        for chunk in response.chunks {
            let current = row.get_or_insert_with(|| (chunk.row_key.clone(), Vec::new()));
            if continuing {
                current
                    .1
                    .last_mut()
                    .ok_or("a continuation chunk without a cell")?
                    .2
                    .extend_from_slice(&chunk.value);
            } else {
                if let Some(f) = chunk.family_name {
                    family = f;
                }
                if let Some(q) = chunk.qualifier {
                    qualifier = q;
                }
                current
                    .1
                    .push((family.clone(), qualifier.clone(), chunk.value));
            }
            continuing = chunk.value_size > 0;
            match chunk.row_status {
                Some(RowStatus::CommitRow(true)) => rows.push(row.take().ok_or("no row")?),
                Some(RowStatus::ResetRow(true)) => row = None,
                _ => {}
            }
        }
    }
    if row.is_some() {
        return Err("the ReadRows stream ended inside a row".into());
    }
    Ok(rows)
}

/// Checks that `row` is row `i` as written: its key, one cell, the value.
fn check_row(data: &Data, row: &ReadRow, i: usize) -> Result<()> {
    let key = String::from_utf8_lossy(&data.keys[i]);
    if row.0 != data.keys[i] {
        return Err(format!(
            "expected row {key}, got {}",
            String::from_utf8_lossy(&row.0)
        )
        .into());
    }
    match row.1.as_slice() {
        [(f, q, v)] if f == FAMILY && q == QUALIFIER && *v == data.values[i] => Ok(()),
        [_] => Err(format!("row {key}: the cell read differs from the one written").into()),
        cells => Err(format!("row {key}: expected 1 cell, got {}", cells.len()).into()),
    }
}

/// Reads each row in `indexes` with a single-key ReadRows and checks it.
async fn read_points(
    mut client: BigtableClient<Channel>,
    table: String,
    data: Arc<Data>,
    indexes: Vec<usize>,
) -> Result<()> {
    for i in indexes {
        let rows = read_rows(
            &mut client,
            v2::ReadRowsRequest {
                table_name: table.clone(),
                rows: Some(v2::RowSet {
                    row_keys: vec![data.keys[i].clone()],
                    ..Default::default()
                }),
                ..Default::default()
            },
        )
        .await?;
        match rows.as_slice() {
            [row] => check_row(&data, row, i)?,
            _ => {
                return Err(format!(
                    "point read of {}: {} rows",
                    String::from_utf8_lossy(&data.keys[i]),
                    rows.len()
                )
                .into())
            }
        }
    }
    Ok(())
}

/// Times `work` and reads the server's CPU ticks around it.
async fn measure<F>(server: &ServerProcess, ops: usize, tick_us: f64, work: F) -> Result<Sample>
where
    F: std::future::Future<Output = Result<()>>,
{
    let cpu_before = server.cpu_ticks()?;
    let start = Instant::now();
    work.await?;
    let secs = start.elapsed().as_secs_f64();
    let cpu_ticks = server.cpu_ticks()? - cpu_before;
    Ok(Sample {
        ops,
        ops_per_s: ops as f64 / secs,
        cpu_us_per_op: cpu_ticks as f64 * tick_us / ops as f64,
    })
}

/// One run of the three workloads against `server`, on a fresh table it deletes afterwards.
async fn run_once(
    server: &ServerProcess,
    data: &Arc<Data>,
    table_id: &str,
    point_reads: usize,
    tick_us: f64,
) -> Result<[Sample; 3]> {
    let rows = data.keys.len();
    let table = create_table(server, table_id).await?;

    // Each task gets every WRITE_TASKS-th batch, so all tasks write across the key space.
    let batches: Vec<_> = (0..rows)
        .step_by(BATCH_ROWS)
        .map(|start| start..(start + BATCH_ROWS).min(rows))
        .collect();
    let mut writers = Vec::new();
    for t in 0..WRITE_TASKS {
        let mine = batches
            .iter()
            .skip(t)
            .step_by(WRITE_TASKS)
            .cloned()
            .collect();
        writers.push((server.data().await?, mine));
    }
    let writes = measure(server, rows, tick_us, async {
        let tasks: Vec<_> = writers
            .into_iter()
            .map(|(client, mine)| {
                tokio::spawn(write_rows(client, table.clone(), data.clone(), mine))
            })
            .collect();
        for task in tasks {
            task.await??;
        }
        Ok(())
    })
    .await?;

    let point_reads = point_reads.min(rows);
    let mut readers = Vec::new();
    for t in 0..READ_TASKS {
        let mine: Vec<usize> = data.order[..point_reads]
            .iter()
            .skip(t)
            .step_by(READ_TASKS)
            .copied()
            .collect();
        readers.push((server.data().await?, mine));
    }
    let reads = measure(server, point_reads, tick_us, async {
        let tasks: Vec<_> = readers
            .into_iter()
            .map(|(client, mine)| {
                tokio::spawn(read_points(client, table.clone(), data.clone(), mine))
            })
            .collect();
        for task in tasks {
            task.await??;
        }
        Ok(())
    })
    .await?;

    let mut client = server.data().await?;
    let scan = measure(server, rows, tick_us, async {
        let scanned = read_rows(
            &mut client,
            v2::ReadRowsRequest {
                table_name: table.clone(),
                ..Default::default()
            },
        )
        .await?;
        if scanned.len() != rows {
            return Err(format!(
                "the scan returned {} rows, {rows} were written",
                scanned.len()
            )
            .into());
        }
        for (i, row) in scanned.iter().enumerate() {
            check_row(data, row, i)?;
        }
        Ok(())
    })
    .await?;

    delete_table(server, &table).await?;
    Ok([writes, reads, scan])
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

fn clock_ticks_per_second() -> Result<f64> {
    let out = Command::new("getconf").arg("CLK_TCK").output()?;
    Ok(String::from_utf8(out.stdout)?.trim().parse()?)
}

async fn bench(options: Options) -> Result<String> {
    let tick_us = 1e6 / clock_ticks_per_second()?;
    let data = Arc::new(Data::new(options.rows));
    let servers = [
        ServerProcess::sparsetable(&options.server_bin, &options.durability)?,
        ServerProcess::emulator(&options.emulator_bin)?,
    ];
    for server in &servers {
        eprintln!(
            "{} (pid {}) on {}",
            server.label,
            server.child.id(),
            server.addr
        );
    }

    // A small unmeasured pass first: connections, JIT-free but cold caches and allocators.
    let warm = Arc::new(Data::new(options.rows.min(1000)));
    for server in &servers {
        run_once(server, &warm, "warmup", options.point_reads, tick_us).await?;
    }

    // samples[server][workload] over runs; the servers alternate within each run.
    let mut samples: Vec<Vec<Vec<Sample>>> = vec![vec![Vec::new(); 3]; servers.len()];
    for run in 0..options.runs {
        for (s, server) in servers.iter().enumerate() {
            let started = Instant::now();
            let result = run_once(
                server,
                &data,
                &format!("bench{run}"),
                options.point_reads,
                tick_us,
            )
            .await
            .map_err(|e| format!("{} run {run}: {e}", server.label))?;
            for (w, sample) in result.into_iter().enumerate() {
                samples[s][w].push(sample);
            }
            eprintln!(
                "run {}/{} {}: {:.1} s",
                run + 1,
                options.runs,
                server.label,
                started.elapsed().as_secs_f64()
            );
        }
    }

    let summary = |s: usize, w: usize| {
        let ops_per_s = median(samples[s][w].iter().map(|x| x.ops_per_s).collect());
        let cpu = median(samples[s][w].iter().map(|x| x.cpu_us_per_op).collect());
        (ops_per_s, cpu)
    };
    println!(
        "Sparsetable server (data dir, durability {}) vs Google's Bigtable emulator (in memory)",
        options.durability
    );
    println!(
        "{} rows of {VALUE_BYTES} bytes, median of {} runs; CPU = server utime+stime per op",
        options.rows, options.runs
    );
    println!(
        "{:<12} {:>16} {:>16} {:>8} {:>16} {:>16}",
        "workload", "sparsetable op/s", "emulator op/s", "ratio", "sparsetable cpu", "emulator cpu"
    );
    let mut workloads = Vec::new();
    for (w, name) in WORKLOADS.iter().enumerate() {
        let (st_ops, st_cpu) = summary(0, w);
        let (em_ops, em_cpu) = summary(1, w);
        println!(
            "{name:<12} {st_ops:>16.0} {em_ops:>16.0} {:>7.2}x {:>13.1} us {:>13.1} us",
            st_ops / em_ops,
            st_cpu,
            em_cpu
        );
        workloads.push(format!(
            r#"{{"name":"{name}","ops":{},"sparsetable":{{"ops_per_s":{st_ops:.1},"cpu_us_per_op":{st_cpu:.3}}},"emulator":{{"ops_per_s":{em_ops:.1},"cpu_us_per_op":{em_cpu:.3}}}}}"#,
            samples[0][w][0].ops
        ));
    }
    Ok(format!(
        r#"{{"client":"rust tonic {}","rows":{},"runs":{},"value_bytes":{VALUE_BYTES},"batch_rows":{BATCH_ROWS},"write_tasks":{WRITE_TASKS},"read_tasks":{READ_TASKS},"sparsetable_durability":"{}","workloads":[{}]}}"#,
        "0.14 (googleapis-tonic-google-bigtable-v2 0.39)",
        options.rows,
        options.runs,
        options.durability,
        workloads.join(",")
    ))
}

fn main() -> ExitCode {
    let result = parse_args().and_then(|options| {
        let json_path = options.json.clone();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?;
        let json = runtime.block_on(bench(options))?;
        if let Some(path) = json_path {
            std::fs::write(&path, json + "\n")
                .map_err(|e| format!("writing {}: {e}", path.display()))?;
        }
        Ok(())
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("vs_emulator: {e}");
            ExitCode::FAILURE
        }
    }
}
