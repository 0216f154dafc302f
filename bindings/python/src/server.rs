//! The gRPC server (`sparsetable-server`, a Bigtable emulator) inside the wheel:
//! `EmulatorServer.serve_cli` runs the command line (the console script), an `EmulatorServer`
//! runs one on a thread of this process for tests (the Python API `sparsetable.server` and the pytest plugin).
//!
//! Why the server crate is linked into the extension rather than its binary shipped beside
//! it: one artifact per platform (maturin builds and tags it; a second binary would need its
//! own build, its own platform tag and a path lookup at run time), the same code as the
//! standalone server (its `cli` module), and a server started from Python needs no child
//! process to find, wait for and reap. The cost is a larger extension and the server's
//! dependencies (tonic, tokio) in the wheel build; see bindings/python/README.md.
//!
//! Invariants: the server's threads never touch Python objects, so everything here runs with
//! the GIL released; `stop()` (or dropping the handle) lets in-flight calls finish, flushes
//! every database and joins the thread, after which a data directory is free again.

use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Mutex;
use std::thread::JoinHandle;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use sparsetable_server::cli::{Options, Server};
use sparsetable_server::log::Level;

use crate::errors::to_py_err;
use crate::registry::parse_durability;

/// A `sparsetable-server` running on a thread of this process.
#[pyclass(frozen, module = "sparsetable")]
pub struct EmulatorServer {
    addr: SocketAddr,
    running: Mutex<Option<Running>>,
}

struct Running {
    stop: tokio::sync::oneshot::Sender<()>,
    thread: JoinHandle<Result<(), String>>,
}

#[pymethods]
impl EmulatorServer {
    /// Starts a server on `host:port` (0: a free port), in memory or in `data_dir`
    /// (`DIR/PROJECT/INSTANCE`, the command line's `--data-dir`), and returns once it
    /// listens. `durability` as the client's (`sync`, `interval`, `none`); `clock_micros`
    /// freezes the server's clock (`--clock-micros`); `replication_lag_micros` is how long a
    /// write takes to reach the other clusters of an instance with two or more
    /// (`--replication-lag`); `gc_mode` is `immediate` (default) or `background`
    /// (`--gc-mode`); `log_level` is `off`, `error`, `info` or `debug` (stderr).
    ///
    /// Raises `RuntimeError` if the port or the directory cannot be used (a directory held
    /// by another process, for one), `InvalidArgument` for a bad durability or log level.
    #[new]
    // The keyword arguments mirror the command line's flags one to one.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (*, host = "127.0.0.1", port = 0, data_dir = None, durability = None, clock_micros = None, log_level = "error", replication_lag_micros = 0, gc_mode = None))]
    fn new(
        py: Python<'_>,
        host: &str,
        port: u16,
        data_dir: Option<PathBuf>,
        durability: Option<&str>,
        clock_micros: Option<i64>,
        log_level: &str,
        replication_lag_micros: i64,
        gc_mode: Option<&str>,
    ) -> PyResult<Self> {
        if replication_lag_micros < 0 {
            return Err(to_py_err(
                py,
                sparsetable::Error::invalid_argument("replication_lag_micros must not be negative"),
            ));
        }
        let options = Options {
            host: host.to_string(),
            port,
            clock_micros,
            data_dir,
            durability: parse_durability(durability).map_err(|e| to_py_err(py, e))?,
            log_level: Level::parse(log_level)
                .map_err(|e| to_py_err(py, sparsetable::Error::invalid_argument(e.to_string())))?,
            replication_lag_micros,
            gc_mode: crate::registry::parse_gc_mode(gc_mode).map_err(|e| to_py_err(py, e))?,
        };
        py.detach(|| start(options))
            .map_err(|e| PyRuntimeError::new_err(format!("sparsetable-server: {e}")))
    }

    /// Runs the `sparsetable-server` command line (`args` without the program name) in
    /// this process until SIGTERM or SIGINT; returns its exit code. The console script.
    #[staticmethod]
    fn serve_cli(py: Python<'_>, args: Vec<OsString>) -> u8 {
        py.detach(|| sparsetable_server::cli::run(args))
    }

    /// `"HOST:PORT"`, the value for `BIGTABLE_EMULATOR_HOST`.
    #[getter]
    fn address(&self) -> String {
        self.addr.to_string()
    }

    #[getter]
    fn host(&self) -> String {
        self.addr.ip().to_string()
    }

    #[getter]
    fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Whether it is serving (`stop()` not yet called).
    #[getter]
    fn running(&self) -> bool {
        self.running.lock().is_ok_and(|r| r.is_some())
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Stops it on leaving a `with` block.
    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        self.stop(py)?;
        Ok(false)
    }

    fn __repr__(&self) -> String {
        format!(
            "EmulatorServer(address={:?}, running={})",
            self.address(),
            if self.running() { "True" } else { "False" }
        )
    }

    /// Stops it: calls in flight finish, every database is flushed, the thread is joined.
    /// Calling it again does nothing. Raises `RuntimeError` if the final flush failed.
    fn stop(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| self.shut_down())
            .map_err(|e| PyRuntimeError::new_err(format!("sparsetable-server: {e}")))
    }
}

impl EmulatorServer {
    fn shut_down(&self) -> Result<(), String> {
        let running = match self.running.lock() {
            Ok(mut r) => r.take(),
            Err(_) => return Err("a thread panicked while stopping the server".into()),
        };
        let Some(running) = running else {
            return Ok(());
        };
        // The server may have ended by itself (then nobody is listening for this).
        let _ = running.stop.send(());
        running
            .thread
            .join()
            .map_err(|_| "the server thread panicked".to_string())?
    }
}

impl Drop for EmulatorServer {
    fn drop(&mut self) {
        let _ = self.shut_down();
    }
}

/// Binds on a new thread with its own runtime, waits until it listens (or failed to).
fn start(options: Options) -> Result<EmulatorServer, String> {
    let (bound_tx, bound_rx) = std::sync::mpsc::channel();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::Builder::new()
        .name("sparsetable-server".into())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .map_err(|e| format!("cannot start the runtime: {e}"));
            let runtime = match runtime {
                Ok(rt) => rt,
                Err(e) => {
                    let _ = bound_tx.send(Err(e));
                    return Ok(());
                }
            };
            runtime.block_on(async move {
                let server = match Server::bind(&options).await {
                    Ok(server) => server,
                    Err(e) => {
                        let _ = bound_tx.send(Err(e));
                        return Ok(());
                    }
                };
                let _ = bound_tx.send(Ok(server.local_addr()));
                server
                    .serve(async {
                        let _ = stopped.await;
                    })
                    .await
            })
        })
        .map_err(|e| format!("cannot start a thread: {e}"))?;
    match bound_rx.recv() {
        Ok(Ok(addr)) => Ok(EmulatorServer {
            addr,
            running: Mutex::new(Some(Running { stop, thread })),
        }),
        Ok(Err(e)) => {
            let _ = thread.join();
            Err(e)
        }
        Err(_) => Err(match thread.join() {
            Ok(Err(e)) => e,
            _ => "the server thread ended before it listened".into(),
        }),
    }
}
