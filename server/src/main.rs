//! `sparsetable-server`: Sparsetable as a Bigtable emulator on a TCP port.
//!
//! Prints the listening address and an `export BIGTABLE_EMULATOR_HOST=...` line on start (the
//! only lines it writes to stdout), serves until SIGTERM or SIGINT, then lets in-flight calls
//! finish, flushes every database and exits 0. Data lives in memory unless `--data-dir` is
//! given, in which case it persists (commit log, SSTables, manifest) across restarts.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use sparsetable::{Clock, Durability, ManualClock, OpenOptions, SystemClock};
use sparsetable_server::log::{log, set_level, Level};
use sparsetable_server::Instances;

const USAGE: &str = "\
Usage: sparsetable-server [--host HOST] [--port PORT] [--data-dir DIR] [--durability MODE]
                          [--clock-micros MICROS] [--log-level LEVEL]

Serves Cloud Bigtable's Data and Table Admin gRPC APIs (and the Instance Admin calls clients
make at start-up), as an emulator: point clients at it with BIGTABLE_EMULATOR_HOST=HOST:PORT.

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
  --log-level LEVEL       what to log on stderr: off, error (the server's own failures),
                          info (also start-up and shutdown) or debug (also every RPC
                          and every failed request with its code) [default: info]
  -h, --help              print this help
  -V, --version           print the version";

/// What the command line asked for.
struct Options {
    host: String,
    port: u16,
    clock_micros: Option<i64>,
    data_dir: Option<std::path::PathBuf>,
    durability: Durability,
    log_level: Level,
}

enum Command {
    Serve(Options),
    Help,
    Version,
}

fn parse_args() -> Result<Command, lexopt::Error> {
    use lexopt::prelude::*;
    let mut options = Options {
        host: "127.0.0.1".to_string(),
        port: 8086,
        clock_micros: None,
        data_dir: None,
        durability: Durability::Sync,
        log_level: Level::Info,
    };
    let mut parser = lexopt::Parser::from_env();
    while let Some(arg) = parser.next()? {
        match arg {
            Long("host") => options.host = parser.value()?.string()?,
            Long("port") => options.port = parser.value()?.parse()?,
            Long("clock-micros") => options.clock_micros = Some(parser.value()?.parse()?),
            Long("data-dir") => options.data_dir = Some(parser.value()?.into()),
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

async fn serve(options: Options) -> Result<(), String> {
    set_level(options.log_level);
    let listener = tokio::net::TcpListener::bind((options.host.as_str(), options.port))
        .await
        .map_err(|e| format!("cannot listen on {}:{}: {e}", options.host, options.port))?;
    let addr: SocketAddr = listener.local_addr().map_err(|e| e.to_string())?;
    let terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|e| format!("cannot install the SIGTERM handler: {e}"))?;
    let test_clock = options.clock_micros.map(|m| Arc::new(ManualClock::new(m)));
    let clock: Arc<dyn Clock> = match &test_clock {
        Some(manual) => manual.clone(),
        None => Arc::new(SystemClock),
    };
    let mut instances = Instances::with_clock(clock);
    // Held until the server exits: a second server on the same --data-dir would overwrite
    // this one's manifests and lose acknowledged writes, so it must not start at all.
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
    let instances = Arc::new(instances);
    println!("sparsetable-server listening on {addr} ({place})");
    println!("export BIGTABLE_EMULATOR_HOST={addr}");
    log(
        Level::Info,
        format_args!(
            "serving on {addr} ({place}{})",
            match (&options.data_dir, options.durability) {
                (None, _) => "",
                (Some(_), Durability::Sync) => ", durability sync",
                (Some(_), Durability::Interval { .. }) => ", durability interval",
                (Some(_), Durability::None) => ", durability none",
            }
        ),
    );
    sparsetable_server::serve(
        listener,
        instances.clone(),
        test_clock,
        shutdown_signal(terminate),
    )
    .await
    .map_err(|e| format!("server failed: {e}"))?;
    // SIGTERM: every database flushes its memtables and starts a fresh log before exit.
    instances
        .checkpoint_all()
        .map_err(|e| format!("flushing on shutdown failed: {e}"))
}

fn main() -> ExitCode {
    let options = match parse_args() {
        Ok(Command::Serve(options)) => options,
        Ok(Command::Help) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Ok(Command::Version) => {
            println!("sparsetable-server {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("sparsetable-server: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("sparsetable-server: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(serve(options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sparsetable-server: {e}");
            ExitCode::FAILURE
        }
    }
}
