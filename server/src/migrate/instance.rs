//! The instance an export reads or an import writes: a data directory opened in this process
//! (the core's [`Database`] over [`FileStorage`], as the server opens `DIR/P/I`) or a running
//! server reached over gRPC (the googleapis crates' tonic clients, as any Bigtable client).
//!
//! Both answer the same four questions (the tables, one table's schema, a stream of rows a
//! [`Selection`] picks, a batch of rows to write), so the drivers never know which they have.
//! Every selection is expressed in the read request itself (row range, families, time range),
//! never filtered here. Invariants: a data directory is opened only when no server holds it
//! (the server's lock on `DIR` and the database's on `DIR/P/I` are both taken), and each
//! written batch is durable when [`Instance::write`] returns (the server's `sync` durability,
//! or the server's own acknowledgement), so a progress file that records it never lies.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin_v2;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;
use sparsetable::platform::storage::FileStorage;
use sparsetable::{
    Code, Database, Error, Mutation, OpenOptions, ReadRowsRequest, Row, RowFilter, RowMutations,
    RowRange, RowSet, RowStream, SystemClock, TableConfig,
};
use tonic::transport::Channel;

use super::Selection;

use admin_v2::bigtable_table_admin_client::BigtableTableAdminClient;
use v2::bigtable_client::BigtableClient;

/// Where the data is: `--data-dir` with `--project` and `--instance`, or `--emulator-host`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// The instance folder `DIR/P/I` the server would use.
    DataDir {
        /// The server's `--data-dir`.
        dir: PathBuf,
        /// The project id.
        project: String,
        /// The instance id.
        instance: String,
    },
    /// A running server at `HOST:PORT`.
    Server {
        /// `HOST:PORT`.
        host: String,
        /// The project id.
        project: String,
        /// The instance id.
        instance: String,
    },
}

/// An open instance (see the module docs).
pub enum Instance {
    /// A data directory, locked by this process.
    Local {
        /// The instance's database.
        db: Box<Database>,
        /// Held so no server opens the directory while we use it.
        _root_lock: FileStorage,
    },
    /// A running server.
    Remote(Box<Remote>),
}

/// A running server's clients and the runtime that drives them.
pub struct Remote {
    runtime: tokio::runtime::Runtime,
    data: BigtableClient<Channel>,
    admin: BigtableTableAdminClient<Channel>,
    /// `projects/P/instances/I`.
    parent: String,
    host: String,
}

/// A gRPC status as one line: `CODE: message`.
fn status_text(s: &tonic::Status) -> String {
    let code = i32::from(s.code());
    let name = Code::ALL
        .into_iter()
        .find(|c| c.grpc_code() == code)
        .map_or("UNKNOWN", Code::as_str);
    format!("{name}: {}", s.message())
}

/// A core error as one line: `CODE: message`.
pub fn error_text(e: &Error) -> String {
    format!("{}: {}", e.code().as_str(), e.message())
}

/// The largest message the clients accept: the server's own limit, so a 100 MiB cell reads.
const MAX_MESSAGE_BYTES: usize = crate::MAX_MESSAGE_BYTES;

impl Instance {
    /// Opens the instance. `create` (imports) makes a missing data-directory instance folder;
    /// an export refuses one, since it would read nothing.
    ///
    /// # Errors
    /// A message saying what failed: a directory held by a running server (the core's
    /// `FailedPrecondition`, with the advice to stop it or use `--emulator-host`), a missing
    /// instance folder, a corrupt database, an unreachable server.
    pub fn open(endpoint: &Endpoint, create: bool) -> Result<Instance, String> {
        match endpoint {
            Endpoint::DataDir {
                dir,
                project,
                instance,
            } => open_local(dir, project, instance, create),
            Endpoint::Server {
                host,
                project,
                instance,
            } => {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| format!("cannot start the runtime: {e}"))?;
                let channel = runtime
                    .block_on(async {
                        Channel::from_shared(format!("http://{host}"))
                            .map_err(|e| e.to_string())?
                            .connect()
                            .await
                            .map_err(|e| e.to_string())
                    })
                    .map_err(|e| format!("cannot reach the server at {host}: {e}"))?;
                let data = BigtableClient::new(channel.clone())
                    .max_decoding_message_size(MAX_MESSAGE_BYTES)
                    .max_encoding_message_size(MAX_MESSAGE_BYTES);
                let admin = BigtableTableAdminClient::new(channel)
                    .max_decoding_message_size(MAX_MESSAGE_BYTES);
                Ok(Instance::Remote(Box::new(Remote {
                    runtime,
                    data,
                    admin,
                    parent: format!("projects/{project}/instances/{instance}"),
                    host: host.clone(),
                })))
            }
        }
    }

    /// The ids of the instance's tables, sorted.
    ///
    /// # Errors
    /// The server's refusal.
    pub fn table_ids(&mut self) -> Result<Vec<String>, String> {
        match self {
            Instance::Local { db, .. } => {
                let mut ids: Vec<String> = db.list_tables().into_iter().map(|t| t.name).collect();
                ids.sort();
                Ok(ids)
            }
            Instance::Remote(r) => {
                let mut ids = Vec::new();
                let mut page_token = String::new();
                loop {
                    let reply = r
                        .runtime
                        .block_on(r.admin.list_tables(admin_v2::ListTablesRequest {
                            parent: r.parent.clone(),
                            view: admin_v2::table::View::NameOnly as i32,
                            page_size: 0,
                            page_token: page_token.clone(),
                        }))
                        .map_err(|s| format!("listing the tables: {}", status_text(&s)))?
                        .into_inner();
                    ids.extend(
                        reply
                            .tables
                            .iter()
                            .map(|t| t.name.rsplit('/').next().unwrap_or("").to_string()),
                    );
                    if reply.next_page_token.is_empty() {
                        break;
                    }
                    page_token = reply.next_page_token;
                }
                ids.sort();
                Ok(ids)
            }
        }
    }

    /// Table `table`'s schema as the core validates mutations against it: its families (in
    /// the table's order) and timestamp granularity.
    ///
    /// # Errors
    /// `NOT_FOUND: table "t" not found` and the like.
    pub fn table_config(&mut self, table: &str) -> Result<TableConfig, String> {
        match self {
            Instance::Local { db, .. } => db
                .get_table(table)
                .map(|t| t.config)
                .map_err(|e| error_text(&e)),
            Instance::Remote(r) => {
                let reply = r
                    .runtime
                    .block_on(r.admin.get_table(admin_v2::GetTableRequest {
                        name: format!("{}/tables/{table}", r.parent),
                        view: admin_v2::table::View::SchemaView as i32,
                    }))
                    .map_err(|s| status_text(&s))?
                    .into_inner();
                let mut names: Vec<String> = reply.column_families.into_keys().collect();
                names.sort();
                Ok(TableConfig::with_families(names))
            }
        }
    }

    /// A stream of the rows of `table` that `selection` picks, strictly after `after` when
    /// resuming, in key order.
    ///
    /// # Errors
    /// The core's or the server's refusal of the request (an unknown table, a bad range).
    pub fn read(
        &mut self,
        table: &str,
        selection: &Selection,
        after: Option<&[u8]>,
    ) -> Result<Rows<'_>, String> {
        let Some(range) = selection.range(after) else {
            return Ok(Rows::Empty);
        };
        let filter = selection.filter();
        match self {
            Instance::Local { db, .. } => {
                let request = ReadRowsRequest {
                    row_set: RowSet {
                        row_keys: Vec::new(),
                        row_ranges: vec![range],
                    },
                    filter,
                    rows_limit: 0,
                    reversed: false,
                };
                let mut stream = db.read_rows(table, &request).map_err(|e| error_text(&e))?;
                // A migration is not traffic: it must not split tablets by load.
                stream.set_access_stats(false);
                Ok(Rows::Local(stream))
            }
            Instance::Remote(r) => {
                let request = v2::ReadRowsRequest {
                    table_name: format!("{}/tables/{table}", r.parent),
                    rows: Some(v2::RowSet {
                        row_keys: Vec::new(),
                        row_ranges: vec![range_to_proto(&range)],
                    }),
                    filter: filter_to_proto(&filter),
                    ..Default::default()
                };
                let stream = r
                    .runtime
                    .block_on(r.data.read_rows(request))
                    .map_err(|s| status_text(&s))?
                    .into_inner();
                Ok(Rows::Remote {
                    runtime: &r.runtime,
                    stream,
                    merger: ChunkMerger::default(),
                    ready: std::collections::VecDeque::new(),
                })
            }
        }
    }

    /// Writes `entries` to `table`, each row atomically; returns when the write is durable.
    ///
    /// # Errors
    /// The first failed entry's error (`entries[i]` named), or the refusal of the whole call.
    pub fn write(&mut self, table: &str, entries: &[RowMutations]) -> Result<(), String> {
        if entries.is_empty() {
            return Ok(());
        }
        match self {
            Instance::Local { db, .. } => {
                let statuses = db.mutate_rows(table, entries).map_err(|e| error_text(&e))?;
                match statuses.into_iter().find_map(Result::err) {
                    Some(e) => Err(error_text(&e)),
                    None => Ok(()),
                }
            }
            Instance::Remote(r) => {
                let request = v2::MutateRowsRequest {
                    table_name: format!("{}/tables/{table}", r.parent),
                    entries: entries.iter().map(entry_to_proto).collect(),
                    ..Default::default()
                };
                let host = r.host.clone();
                r.runtime.block_on(async {
                    let mut stream = r
                        .data
                        .mutate_rows(request)
                        .await
                        .map_err(|s| status_text(&s))?
                        .into_inner();
                    let mut answered = 0;
                    while let Some(reply) = stream.message().await.map_err(|s| status_text(&s))? {
                        for entry in reply.entries {
                            answered += 1;
                            if let Some(status) = entry.status.filter(|s| s.code != 0) {
                                let code = Code::ALL
                                    .into_iter()
                                    .find(|c| c.grpc_code() == status.code)
                                    .map_or("UNKNOWN", Code::as_str);
                                return Err(format!("{code}: {}", status.message));
                            }
                        }
                    }
                    if answered != entries.len() {
                        return Err(format!(
                            "the server at {host} answered {answered} of {} entries",
                            entries.len()
                        ));
                    }
                    Ok(())
                })
            }
        }
    }

    /// Flushes a data directory's memtables to run files (a clean state for the server
    /// that opens it next); nothing for a server.
    ///
    /// # Errors
    /// Storage errors.
    pub fn finish(&mut self) -> Result<(), String> {
        match self {
            Instance::Local { db, .. } => db.checkpoint().map_err(|e| error_text(&e)),
            Instance::Remote(_) => Ok(()),
        }
    }
}

fn open_local(dir: &Path, project: &str, instance: &str, create: bool) -> Result<Instance, String> {
    for (what, id) in [("--project", project), ("--instance", instance)] {
        crate::names::check_id("data directory", what, id).map_err(|e| error_text(&e))?;
    }
    let folder = dir.join(project).join(instance);
    if !create && !folder.is_dir() {
        return Err(format!(
            "no instance folder {}: --data-dir, --project and --instance name DIR/P/I as the \
             server lays it out",
            folder.display()
        ));
    }
    let in_use = |e: Error| {
        if e.code() == Code::FailedPrecondition && e.message().contains("in use") {
            format!(
                "{}: a running server holds this data directory; stop it first, or export \
                 from it with --emulator-host HOST:PORT",
                error_text(&e)
            )
        } else {
            error_text(&e)
        }
    };
    // The server locks DIR for as long as it runs and DIR/P/I once a request names the
    // instance: holding both keeps a server from opening it under us, and us under it.
    let root_lock = FileStorage::new(dir).map_err(in_use)?;
    let storage = Arc::new(FileStorage::new(&folder).map_err(in_use)?);
    let db = Database::open(storage, OpenOptions::default(), SystemClock).map_err(in_use)?;
    Ok(Instance::Local {
        db: Box::new(db),
        _root_lock: root_lock,
    })
}

/// A core row range as the Data API spells it.
fn range_to_proto(range: &RowRange) -> v2::RowRange {
    use std::ops::Bound;
    use v2::row_range::{EndKey, StartKey};
    v2::RowRange {
        start_key: match &range.start {
            Bound::Included(k) => Some(StartKey::StartKeyClosed(k.clone())),
            Bound::Excluded(k) => Some(StartKey::StartKeyOpen(k.clone())),
            Bound::Unbounded => None,
        },
        end_key: match &range.end {
            Bound::Included(k) => Some(EndKey::EndKeyClosed(k.clone())),
            Bound::Excluded(k) => Some(EndKey::EndKeyOpen(k.clone())),
            Bound::Unbounded => None,
        },
    }
}

/// The selection's filter (families, time range: see [`Selection::filter`]) as the Data
/// API spells it; `None` for every cell.
fn filter_to_proto(filter: &RowFilter) -> Option<v2::RowFilter> {
    use v2::row_filter::{Chain, Filter};
    let one = |f: &RowFilter| -> Option<v2::RowFilter> {
        let filter = match f {
            RowFilter::FamilyNameRegex(re) => Filter::FamilyNameRegexFilter(re.clone()),
            RowFilter::TimestampRange {
                start_micros,
                end_micros,
            } => Filter::TimestampRangeFilter(v2::TimestampRange {
                start_timestamp_micros: *start_micros,
                end_timestamp_micros: *end_micros,
            }),
            _ => return None,
        };
        Some(v2::RowFilter {
            filter: Some(filter),
        })
    };
    match filter {
        RowFilter::PassAll => None,
        RowFilter::Chain(members) => Some(v2::RowFilter {
            filter: Some(Filter::Chain(Chain {
                filters: members.iter().filter_map(one).collect(),
            })),
        }),
        f => one(f),
    }
}

/// A SetCell-only row as a MutateRows entry (imports write nothing else).
fn entry_to_proto(entry: &RowMutations) -> v2::mutate_rows_request::Entry {
    use v2::mutation::{Mutation as M, SetCell};
    v2::mutate_rows_request::Entry {
        row_key: entry.row_key.clone(),
        mutations: entry
            .mutations
            .iter()
            .filter_map(|m| match m {
                Mutation::SetCell {
                    family,
                    qualifier,
                    timestamp_micros,
                    value,
                } => Some(v2::Mutation {
                    mutation: Some(M::SetCell(SetCell {
                        family_name: family.clone(),
                        column_qualifier: qualifier.clone(),
                        timestamp_micros: *timestamp_micros,
                        value: value.clone(),
                    })),
                }),
                _ => None,
            })
            .collect(),
        ..Default::default()
    }
}

/// Rows as they arrive: from the core's stream or a server's ReadRows.
pub enum Rows<'a> {
    /// The selection is empty (a resume past its end).
    Empty,
    /// A data directory's snapshot stream.
    Local(RowStream),
    /// A server's ReadRows stream and the rows merged from it so far.
    Remote {
        /// Drives the stream.
        runtime: &'a tokio::runtime::Runtime,
        /// The responses.
        stream: tonic::Streaming<v2::ReadRowsResponse>,
        /// Chunks of the row being received.
        merger: ChunkMerger,
        /// Rows merged and not yet taken.
        ready: std::collections::VecDeque<Row>,
    },
}

impl Rows<'_> {
    /// The next row, `None` at the end.
    ///
    /// # Errors
    /// The stream's error, or a response that breaks the chunk protocol.
    pub fn next_row(&mut self) -> Result<Option<Row>, String> {
        match self {
            Rows::Empty => Ok(None),
            Rows::Local(stream) => Ok(stream.next()),
            Rows::Remote {
                runtime,
                stream,
                merger,
                ready,
            } => loop {
                if let Some(row) = ready.pop_front() {
                    return Ok(Some(row));
                }
                match runtime
                    .block_on(stream.message())
                    .map_err(|s| status_text(&s))?
                {
                    Some(response) => {
                        for chunk in response.chunks {
                            if let Some(row) = merger.push(chunk)? {
                                ready.push_back(row);
                            }
                        }
                    }
                    None => {
                        merger.finish()?;
                        return Ok(None);
                    }
                }
            },
        }
    }
}

/// Merges ReadRows cell chunks into rows, as every Bigtable client does: a row key on a
/// row's first chunk, family and qualifier carried until changed, a value split over chunks
/// while `value_size` is set, `commit_row` closing a row and `reset_row` dropping it.
#[derive(Debug, Default)]
pub struct ChunkMerger {
    row: Option<Row>,
    family: String,
    qualifier: Vec<u8>,
    /// The cell whose value is still arriving.
    open: Option<sparsetable::Cell>,
}

impl ChunkMerger {
    fn push(&mut self, chunk: v2::read_rows_response::CellChunk) -> Result<Option<Row>, String> {
        use v2::read_rows_response::cell_chunk::RowStatus;
        let broken = |what: &str| format!("the server broke the ReadRows protocol: {what}");
        if chunk.row_status == Some(RowStatus::ResetRow(true)) {
            // The server takes back the row so far; it sends the row again.
            self.row = None;
            self.open = None;
            return Ok(None);
        }
        if let Some(cell) = self.open.as_mut() {
            cell.value.extend_from_slice(&chunk.value);
        } else {
            if self.row.is_none() {
                if chunk.row_key.is_empty() {
                    return Err(broken("a row's first chunk has no row key"));
                }
                self.row = Some(Row {
                    key: chunk.row_key.clone(),
                    cells: Vec::new(),
                });
            }
            if let Some(f) = &chunk.family_name {
                self.family.clone_from(f);
            }
            if let Some(q) = &chunk.qualifier {
                self.qualifier.clone_from(q);
            }
            self.open = Some(sparsetable::Cell {
                family: self.family.clone(),
                qualifier: self.qualifier.clone(),
                timestamp_micros: chunk.timestamp_micros,
                value: chunk.value,
                labels: chunk.labels,
            });
        }
        if chunk.value_size > 0 {
            return Ok(None);
        }
        let row = self
            .row
            .as_mut()
            .ok_or_else(|| broken("a cell outside a row"))?;
        row.cells.extend(self.open.take());
        match chunk.row_status {
            Some(RowStatus::CommitRow(true)) => Ok(self.row.take()),
            _ => Ok(None),
        }
    }

    fn finish(&self) -> Result<(), String> {
        if self.row.is_some() || self.open.is_some() {
            return Err("the server's ReadRows stream ended inside a row".into());
        }
        Ok(())
    }
}
