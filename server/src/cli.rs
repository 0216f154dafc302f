//! The `sparsetable-server` command line as a library function, so the binary and the Python
//! wheel's console script (`sparsetable-server` from `pip install sparsetable`) are one program:
//! options, start-up lines, signals and the flush on exit. [`Server`] is the same start-up
//! without the command line, for hosts that run the server on a thread of their own.
//!
//! Prints the listening address and an `export BIGTABLE_EMULATOR_HOST=...` line on start (the
//! only lines it writes to stdout), serves until SIGTERM or SIGINT, then lets in-flight calls
//! finish, flushes every database and exits 0. Data lives in memory unless `--data-dir` is
//! given, in which case it persists (commit log, SSTables, manifest) across restarts.

use std::ffi::OsString;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use sparsetable::{Clock, Durability, GcMode, ManualClock, OpenOptions, SystemClock};

use crate::log::{log, set_level, Level};
use crate::Instances;

const USAGE: &str = "\
Usage: sparsetable-server [--host HOST] [--port PORT] [--data-dir DIR] [--durability MODE]
                          [--clock-micros MICROS] [--replication-lag DURATION]
                          [--gc-mode MODE] [--log-level LEVEL]

Serves Cloud Bigtable's Data, Table Admin and Instance Admin gRPC APIs, as an emulator: point
clients at it with BIGTABLE_EMULATOR_HOST=HOST:PORT.

Options:
  --host HOST             address to listen on [default: 127.0.0.1]
  --port PORT             port to listen on; 0 picks a free one [default: 8086]
  --data-dir DIR          keep data in DIR (one folder per project/instance) so it survives
                          restarts; without it, data is in memory and gone on exit
  --durability MODE       with --data-dir: sync (a write is acknowledged after its log
                          record is fsynced), interval (fsync at most every 100 ms) or
                          none [default: sync]
  --clock-micros MICROS   freeze the server's clock at MICROS since the Unix epoch, so
                          server-assigned timestamps and max_age GC are deterministic
                          (for tests); by default the system clock is used. A frozen
                          clock moves only through the extra gRPC service
                          sparsetable.testing.v1.TestClock, served only with this flag:
                            rpc SetTime(SetTimeRequest {int64 micros = 1})
                            rpc AdvanceTime(AdvanceTimeRequest {int64 delta_micros = 1})
                          both returning TimeResponse {int64 now_micros = 1}
  --replication-lag DURATION
                          on an instance with two or more clusters (CreateInstance or
                          CreateCluster), how long a write takes to reach the other
                          clusters, on the server's clock: e.g. 2s, 250ms, 1m, 0s
                          [default: 0s: every cluster sees a write at once]
  --gc-mode MODE          when cells a column family's GC rule makes collectable stop
                          being readable: immediate (at once, so reads never depend on
                          when compaction ran) or background (as Cloud Bigtable: they
                          stay readable until a collection pass removes them, at a
                          compaction or on sparsetable-server control ... collect)
                          [default: immediate]
  --log-level LEVEL       what to log on stderr: off, error (the server's own failures),
                          info (also start-up and shutdown) or debug (also every RPC
                          and every failed request with its code) [default: info]
  -h, --help              print this help
  -V, --version           print the version

sparsetable-server control ... talks to a running server's control surface (cluster
outages, replication lag, injected faults): see sparsetable-server control --help.
sparsetable-server export ... and import ... move tables to and from Cloud Bigtable as
Avro or Parquet (the Dataflow templates' layouts) or CSV (as cbt import reads it): see
sparsetable-server export --help and sparsetable-server import --help.";

/// What the command line asked for (also what [`Server::bind`] takes).
#[derive(Debug, Clone)]
pub struct Options {
    /// Address to listen on.
    pub host: String,
    /// Port to listen on; 0 picks a free one.
    pub port: u16,
    /// Freezes the clock at these microseconds (the TestClock service moves it).
    pub clock_micros: Option<i64>,
    /// Keeps data in this directory (`DIR/PROJECT/INSTANCE`); `None`: in memory.
    pub data_dir: Option<std::path::PathBuf>,
    /// With `data_dir`: when writes reach the disk.
    pub durability: Durability,
    /// What to log on stderr.
    pub log_level: Level,
    /// The replication delay of replicated instances, in microseconds.
    pub replication_lag_micros: i64,
    /// When collectable cells stop being readable.
    pub gc_mode: GcMode,
}

impl Default for Options {
    /// The command line's defaults: 127.0.0.1:8086, in memory, system clock, info.
    fn default() -> Self {
        Options {
            host: "127.0.0.1".to_string(),
            port: 8086,
            clock_micros: None,
            data_dir: None,
            durability: Durability::Sync,
            log_level: Level::Info,
            replication_lag_micros: 0,
            gc_mode: GcMode::Immediate,
        }
    }
}

enum Command {
    Serve(Options),
    Help,
    Version,
}

fn parse_args(args: impl IntoIterator<Item = OsString>) -> Result<Command, lexopt::Error> {
    use lexopt::prelude::*;
    let mut options = Options::default();
    let mut parser = lexopt::Parser::from_args(args);
    while let Some(arg) = parser.next()? {
        match arg {
            Long("host") => options.host = parser.value()?.string()?,
            Long("port") => options.port = parser.value()?.parse()?,
            Long("clock-micros") => options.clock_micros = Some(parser.value()?.parse()?),
            Long("data-dir") => options.data_dir = Some(parser.value()?.into()),
            Long("gc-mode") => {
                options.gc_mode =
                    parser
                        .value()?
                        .string()?
                        .parse()
                        .map_err(|e: sparsetable::Error| {
                            lexopt::Error::Custom(format!("--gc-mode: {}", e.message()).into())
                        })?;
            }
            Long("durability") => {
                options.durability = match parser.value()?.string()?.as_str() {
                    "sync" => Durability::Sync,
                    "interval" => Durability::Interval { micros: 100_000 },
                    "none" => Durability::None,
                    other => {
                        return Err(lexopt::Error::Custom(
                            format!("--durability must be sync, interval or none, not {other:?}")
                                .into(),
                        ))
                    }
                }
            }
            Long("replication-lag") => {
                options.replication_lag_micros =
                    crate::duration::parse_duration(&parser.value()?.string()?).map_err(|e| {
                        lexopt::Error::Custom(format!("--replication-lag {e}").into())
                    })?
            }
            Long("log-level") => {
                options.log_level = Level::parse(&parser.value()?.string()?)
                    .map_err(|e| lexopt::Error::Custom(e.into()))?
            }
            Short('h') | Long("help") => return Ok(Command::Help),
            Short('V') | Long("version") => return Ok(Command::Version),
            _ => return Err(arg.unexpected()),
        }
    }
    Ok(Command::Serve(options))
}

/// Resolves when the process receives SIGTERM or SIGINT.
async fn shutdown_signal(mut terminate: tokio::signal::unix::Signal) {
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate.recv() => {}
    }
    log(
        Level::Info,
        "shutting down: finishing calls and flushing every database",
    );
}

/// A server bound to its port, not yet serving.
pub struct Server {
    listener: tokio::net::TcpListener,
    addr: SocketAddr,
    instances: Arc<Instances>,
    test_clock: Option<Arc<ManualClock>>,
    /// Where the data is, for the start-up lines.
    place: String,
    // Held until the server exits: a second server on the same --data-dir would overwrite
    // this one's manifests and lose acknowledged writes, so it must not start at all.
    _data_dir_lock: Option<sparsetable::platform::storage::FileStorage>,
}

impl Server {
    /// Sets the log level, binds the port and prepares the databases (locking the data
    /// directory, if any). Must run inside a tokio runtime.
    ///
    /// # Errors
    /// A message naming what failed: the port, or the data directory (in use by another
    /// process, not writable).
    pub async fn bind(options: &Options) -> Result<Server, String> {
        set_level(options.log_level);
        let listener = tokio::net::TcpListener::bind((options.host.as_str(), options.port))
            .await
            .map_err(|e| format!("cannot listen on {}:{}: {e}", options.host, options.port))?;
        let addr: SocketAddr = listener.local_addr().map_err(|e| e.to_string())?;
        let test_clock = options.clock_micros.map(|m| Arc::new(ManualClock::new(m)));
        let clock: Arc<dyn Clock> = match &test_clock {
            Some(manual) => manual.clone(),
            None => Arc::new(SystemClock),
        };
        let mut instances = Instances::with_clock(clock)
            .with_replication_lag(options.replication_lag_micros)
            .with_gc_mode(options.gc_mode);
        let mut _data_dir_lock = None;
        let place = match &options.data_dir {
            Some(dir) => {
                std::fs::create_dir_all(dir)
                    .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
                _data_dir_lock = Some(
                    sparsetable::platform::storage::FileStorage::new(dir)
                        .map_err(|e| format!("cannot use --data-dir: {}", e.message()))?,
                );
                let open = OpenOptions {
                    durability: options.durability,
                    ..OpenOptions::default()
                };
                instances = instances.with_data_dir(dir.clone(), open);
                format!("data in {}", dir.display())
            }
            None => "data in memory".to_string(),
        };
        log(
            Level::Info,
            format_args!(
                "serving on {addr} ({place}{}{})",
                match (&options.data_dir, options.durability) {
                    (None, _) => "",
                    (Some(_), Durability::Sync) => ", durability sync",
                    (Some(_), Durability::Interval { .. }) => ", durability interval",
                    (Some(_), Durability::None) => ", durability none",
                },
                // The default goes unsaid; the other mode changes what reads return.
                match options.gc_mode {
                    GcMode::Background => ", GC mode background",
                    _ => "",
                }
            ),
        );
        Ok(Server {
            listener,
            addr,
            instances: Arc::new(instances),
            test_clock,
            place,
            _data_dir_lock,
        })
    }

    /// The address it listens on (the port chosen when 0 was asked).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves until `shutdown` resolves, lets in-flight calls finish, then flushes every
    /// database (memtables to run files, a fresh log) before returning.
    ///
    /// # Errors
    /// The transport's failure, or a storage error of the final flush.
    pub async fn serve(self, shutdown: impl Future<Output = ()>) -> Result<(), String> {
        crate::serve(
            self.listener,
            self.instances.clone(),
            self.test_clock,
            shutdown,
        )
        .await
        .map_err(|e| format!("server failed: {e}"))?;
        self.instances
            .checkpoint_all()
            .map_err(|e| format!("flushing on shutdown failed: {e}"))
    }
}

async fn serve(options: Options) -> Result<(), String> {
    let server = Server::bind(&options).await?;
    let terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|e| format!("cannot install the SIGTERM handler: {e}"))?;
    let addr = server.local_addr();
    println!("sparsetable-server listening on {addr} ({})", server.place);
    println!("export BIGTABLE_EMULATOR_HOST={addr}");
    // SIGTERM or SIGINT: calls finish, every database flushes, then the process exits.
    server.serve(shutdown_signal(terminate)).await
}

/// Runs the command line `args` (without the program name): serves until SIGTERM or SIGINT
/// and returns the process's exit code (0, 1 on failure, 2 for bad usage).
pub fn run(args: impl IntoIterator<Item = OsString>) -> u8 {
    let mut args = args.into_iter().peekable();
    if args.peek().is_some_and(|a| a == "control") {
        args.next();
        return crate::control::run(args);
    }
    if let Some(export) = args
        .peek()
        .and_then(|a| {
            [("export", true), ("import", false)]
                .into_iter()
                .find(|(n, _)| a == n)
        })
        .map(|(_, export)| export)
    {
        args.next();
        return crate::migrate::run(export, args);
    }
    let options = match parse_args(args) {
        Ok(Command::Serve(options)) => options,
        Ok(Command::Help) => {
            println!("{USAGE}");
            return 0;
        }
        Ok(Command::Version) => {
            println!("sparsetable-server {}", env!("CARGO_PKG_VERSION"));
            return 0;
        }
        Err(e) => {
            eprintln!("sparsetable-server: {e}\n\n{USAGE}");
            return 2;
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("sparsetable-server: cannot start the runtime: {e}");
            return 1;
        }
    };
    match runtime.block_on(serve(options)) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("sparsetable-server: {e}");
            1
        }
    }
}
