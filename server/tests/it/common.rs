//! Shared test support: the real `sparsetable-server` binary on a free 127.0.0.1 port, tonic
//! clients from the googleapis crates, and a strict ReadRows chunk merger.
//!
//! The server is started with `--port 0` and the port is read from the line it prints, so
//! tests never race for ports; it is killed when the [`Server`] value drops, even on panic.

#![allow(dead_code)] // Each test binary uses a different part of this module.

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdout, Command, Stdio};

use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin_v2;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;
use sparsetable::{Cell, Row};
use tonic::transport::Channel;

pub use admin_v2::bigtable_table_admin_client::BigtableTableAdminClient;
pub use v2::bigtable_client::BigtableClient;

/// A running server process.
pub struct Server {
    child: Child,
    /// `127.0.0.1:PORT`, as the server printed it.
    pub addr: String,
    // Kept open so the server's stdout never sees a closed pipe.
    _stdout: BufReader<ChildStdout>,
}

impl Server {
    /// Starts the binary with `--port 0` plus `args`, and waits for its address line.
    /// `SPARSETABLE_SERVER_BIN` names another build to run instead (to check that a test
    /// fails against an earlier build, or to measure one build against another).
    pub fn start(args: &[&str]) -> Server {
        match std::env::var("SPARSETABLE_SERVER_BIN") {
            Ok(binary) => Self::start_binary(&binary, args),
            Err(_) => Self::start_binary(env!("CARGO_BIN_EXE_sparsetable-server"), args),
        }
    }

    /// As [`Server::start`], with another build of the server (to measure one against
    /// another).
    pub fn start_binary(binary: &str, args: &[&str]) -> Server {
        let mut child = Command::new(binary)
            .args(["--host", "127.0.0.1", "--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            .spawn()
            .expect("start sparsetable-server");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut first = String::new();
        let mut second = String::new();
        stdout.read_line(&mut first).expect("read address line");
        stdout.read_line(&mut second).expect("read export line");
        // Owned by a Server right away, so a panic below still kills the process.
        let mut server = Server {
            child,
            addr: String::new(),
            _stdout: stdout,
        };
        server.addr = second
            .trim()
            .strip_prefix("export BIGTABLE_EMULATOR_HOST=")
            .unwrap_or_else(|| panic!("unexpected start-up output: {first:?} {second:?}"))
            .to_string();
        // "listening on ADDR (data in memory)" or "(data in DIR)".
        assert!(
            first.trim().starts_with(&format!(
                "sparsetable-server listening on {} (data in ",
                server.addr
            )),
            "unexpected start-up line {first:?}"
        );
        server
    }

    /// The process id (to send it signals).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the process to exit on its own, up to `limit_secs`; `None` if it did not.
    pub fn wait_exit(&mut self, limit_secs: u64) -> Option<std::process::ExitStatus> {
        for _ in 0..limit_secs * 10 {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return Some(status);
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        None
    }

    /// A gRPC channel to the server.
    pub async fn channel(&self) -> Channel {
        Channel::from_shared(format!("http://{}", self.addr))
            .expect("endpoint")
            .connect()
            .await
            .expect("connect to sparsetable-server")
    }

    /// A Data API client with tonic's default limits (4 MiB receive).
    pub async fn data(&self) -> BigtableClient<Channel> {
        BigtableClient::new(self.channel().await)
    }

    /// A Table Admin client.
    pub async fn admin(&self) -> BigtableTableAdminClient<Channel> {
        BigtableTableAdminClient::new(self.channel().await)
    }

    /// Creates table `t` of instance `projects/p/instances/i` with one family, `cf`, and no
    /// GC rule: the table most server tests start from.
    pub async fn create_table_t(&self) {
        self.admin()
            .await
            .create_table(create_table_request("projects/p/instances/i", "t", &["cf"]))
            .await
            .expect("create table t");
    }
}

/// The CreateTable request for table `id` of instance `parent` with `families`, none with a
/// GC rule.
pub fn create_table_request(
    parent: &str,
    id: &str,
    families: &[&str],
) -> admin_v2::CreateTableRequest {
    admin_v2::CreateTableRequest {
        parent: parent.to_string(),
        table_id: id.to_string(),
        table: Some(admin_v2::Table {
            column_families: families
                .iter()
                .map(|f| (f.to_string(), admin_v2::ColumnFamily::default()))
                .collect(),
            ..Default::default()
        }),
        initial_splits: vec![],
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Kills only the process this value started, by its id.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An empty temporary directory for one test's data, named by the test binary (`suite`), the
/// test (`tag`) and this process, so concurrent runs never share one.
pub fn data_dir(suite: &str, tag: &str) -> std::path::PathBuf {
    let dir =
        std::env::temp_dir().join(format!("sparsetable-{suite}-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Sends `sig` (e.g. `-KILL`, `-TERM`) to the server process.
pub fn signal(server: &Server, sig: &str) {
    assert!(Command::new("kill")
        .args([sig, &server.pid().to_string()])
        .status()
        .unwrap()
        .success());
}

/// gRPC's canonical upper-case name of a status code, as the vectors spell it.
pub fn code_name(code: tonic::Code) -> &'static str {
    use tonic::Code::*;
    match code {
        Ok => "OK",
        Cancelled => "CANCELLED",
        Unknown => "UNKNOWN",
        InvalidArgument => "INVALID_ARGUMENT",
        DeadlineExceeded => "DEADLINE_EXCEEDED",
        NotFound => "NOT_FOUND",
        AlreadyExists => "ALREADY_EXISTS",
        PermissionDenied => "PERMISSION_DENIED",
        ResourceExhausted => "RESOURCE_EXHAUSTED",
        FailedPrecondition => "FAILED_PRECONDITION",
        Aborted => "ABORTED",
        OutOfRange => "OUT_OF_RANGE",
        Unimplemented => "UNIMPLEMENTED",
        Internal => "INTERNAL",
        Unavailable => "UNAVAILABLE",
        DataLoss => "DATA_LOSS",
        Unauthenticated => "UNAUTHENTICATED",
    }
}

/// Runs ReadRows and merges its chunks into rows, checking the chunk protocol strictly
/// (row key only on a row's first chunk, family only with a qualifier, `value_size` on every
/// piece but the last, `commit_row` closing each row, no `reset_row`, nothing left open).
///
/// Returns the rows and how many chunks carried them.
pub async fn read_rows(
    client: &mut BigtableClient<Channel>,
    request: v2::ReadRowsRequest,
) -> Result<(Vec<Row>, usize), tonic::Status> {
    use v2::read_rows_response::cell_chunk::RowStatus;
    let mut stream = client.read_rows(request).await?.into_inner();
    let mut rows = Vec::new();
    let mut chunks = 0;
    let mut row: Option<Row> = None;
    // The cell being assembled, and whether more pieces of its value follow.
    let mut cell: Option<Cell> = None;
    let mut continuing = false;
    let (mut family, mut qualifier) = (String::new(), Vec::new());
    while let Some(response) = stream.message().await? {
        for chunk in response.chunks {
            chunks += 1;
            if continuing {
                assert!(
                    chunk.row_key.is_empty()
                        && chunk.family_name.is_none()
                        && chunk.qualifier.is_none()
                );
                assert_eq!(
                    chunk.timestamp_micros, 0,
                    "a continuation chunk carries no timestamp"
                );
                cell.as_mut()
                    .expect("open cell")
                    .value
                    .extend_from_slice(&chunk.value);
            } else {
                if row.is_none() {
                    assert!(
                        !chunk.row_key.is_empty(),
                        "a row's first chunk names the row"
                    );
                    assert!(
                        chunk.family_name.is_some() && chunk.qualifier.is_some(),
                        "a row's first chunk names its column"
                    );
                    if let Some(last) = rows.last().map(|r: &Row| r.key.clone()) {
                        assert_ne!(last, chunk.row_key, "a row is returned once");
                    }
                    row = Some(Row {
                        key: chunk.row_key.clone(),
                        cells: Vec::new(),
                    });
                } else {
                    assert!(
                        chunk.row_key.is_empty(),
                        "the row key is set on a row's first chunk only"
                    );
                }
                if let Some(f) = &chunk.family_name {
                    assert!(
                        chunk.qualifier.is_some(),
                        "a new family comes with a qualifier"
                    );
                    family = f.clone();
                }
                if let Some(q) = &chunk.qualifier {
                    qualifier = q.clone();
                }
                cell = Some(Cell {
                    family: family.clone(),
                    qualifier: qualifier.clone(),
                    timestamp_micros: chunk.timestamp_micros,
                    value: chunk.value.clone(),
                    labels: chunk.labels.clone(),
                });
            }
            continuing = chunk.value_size > 0;
            if continuing {
                assert!(
                    chunk.row_status.is_none(),
                    "a row cannot commit inside a split value"
                );
                continue;
            }
            row.as_mut()
                .expect("open row")
                .cells
                .push(cell.take().expect("open cell"));
            match chunk.row_status {
                Some(RowStatus::CommitRow(true)) => rows.push(row.take().expect("open row")),
                None => {}
                other => panic!("unexpected row status {other:?}"),
            }
        }
    }
    assert!(
        row.is_none() && !continuing,
        "the stream ended inside a row"
    );
    Ok((rows, chunks))
}

/// A CreateInstance request for instance `id` of `project` (no display name: the server
/// shows the id) with `clusters`, each `(cluster id, zone)` with `serve_nodes` nodes: the one
/// fixture the tests that create instances share.
pub fn create_instance_request(
    project: &str,
    id: &str,
    clusters: &[(&str, &str)],
    serve_nodes: i32,
) -> admin_v2::CreateInstanceRequest {
    admin_v2::CreateInstanceRequest {
        parent: format!("projects/{project}"),
        instance_id: id.into(),
        instance: Some(admin_v2::Instance::default()),
        clusters: clusters
            .iter()
            .map(|(cluster, zone)| {
                let cluster_proto = admin_v2::Cluster {
                    location: format!("projects/{project}/locations/{zone}"),
                    serve_nodes,
                    ..Default::default()
                };
                (cluster.to_string(), cluster_proto)
            })
            .collect(),
    }
}

/// Runs `sparsetable-server control --emulator-host ADDR --project p --instance i WORDS...`
/// against `server` and returns its exit code and stderr.
pub fn control(server: &Server, words: &[&str]) -> (i32, String) {
    let binary = std::env::var("SPARSETABLE_SERVER_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_sparsetable-server").to_string());
    let out = Command::new(binary)
        .args(["control", "--emulator-host", &server.addr])
        .args(["--project", "p", "--instance", "i"])
        .args(words)
        .env_remove("BIGTABLE_EMULATOR_HOST")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
