//! The Data API (`google.bigtable.v2.Bigtable`) over the engine.
//!
//! Served: ReadRows (row sets, every RowFilter, rows_limit, reversed, `request_stats_view`,
//! and `last_scanned_row_key` for clients that ask through the `bigtable-features` header),
//! SampleRowKeys (the engine's tablet boundaries), MutateRow, MutateRows, CheckAndMutateRow,
//! ReadModifyWriteRow and PingAndWarm, on a table or through one of its authorized views (the
//! core's [`SubsetView`] rules: reads see the view's rows and cells, writes outside it are
//! PERMISSION_DENIED, each MutateRows entry on its own); GenerateInitialChangeStreamPartitions
//! and ReadChangeStream ([`crate::change_streams`]). ReadRows and SampleRowKeys with a
//! `materialized_view_name` read a continuous materialized view
//! ([`crate::instance_admin::materialized_views`]) on the instance's database (the view is
//! read-only: the write requests have no way to name one); PrepareQuery and ExecuteQuery
//! serve the core's SQL subset ([`crate::sql`]). Every request is routed by its
//! `app_profile_id` ([`Instances::route`]): on an instance with two or more clusters each
//! cluster holds its own copy and the core's replication rules apply (lag, consistency,
//! transactions only through single-cluster profiles that allow them, failover).
//!
//! MutateRows: a request the engine refuses as a whole (unknown table, no entries, too many
//! mutations, a malformed mutation message) fails the call; otherwise the stream carries one
//! `Entry { index, status }` per entry, each entry atomic on its own.

use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use std::ops::Bound;

use sparsetable::{
    samples_in_range, Error, Mutation, ReadRowsRequest, RequestKind, Result, RowMutations,
    RowRange, RowSet, SharedDatabase, SubsetView,
};

use crate::authorized_views;
use crate::change_streams;
use crate::chunks::ResponseWriter;
use crate::convert::{
    mutation_from_proto, row_range_from_proto, row_set_from_proto, row_to_proto, rules_from_proto,
};
use crate::features::{FeatureFlags, FromMetadata};
use crate::filter::filter_from_proto;
use crate::names::{InstanceName, TableName};
use crate::registry::Instances;
use crate::scan::{Scan, ScanCounts};
use crate::sql;
use crate::status::to_status;
use crate::streaming::{Deadline, MidStreamFault, ResponseStream};
use crate::stubs::data::bigtable_server::Bigtable;
use crate::stubs::v2;
use crate::wire;

/// A server stream of the given message type.
pub type ServerStream<T> = ReceiverStream<std::result::Result<T, Status>>;

/// The Data API service.
#[derive(Debug, Clone)]
pub struct DataService {
    instances: Arc<Instances>,
}

impl DataService {
    /// A service over the instances' databases.
    pub fn new(instances: Arc<Instances>) -> Self {
        DataService { instances }
    }
}

/// What a data request addresses: a table, or an authorized view of one.
struct Target {
    table: TableName,
    /// The view the request goes through, if any: reads see only its rows and cells, and
    /// writes outside it are PERMISSION_DENIED (the core's rules).
    view: Option<SubsetView>,
    /// `table.table_id` is a continuous materialized view's id, not a table's.
    materialized: bool,
}

impl DataService {
    /// The table (and view) a data request addresses.
    ///
    /// # Errors
    /// UNIMPLEMENTED for a materialized view; `InvalidArgument` for a missing or malformed
    /// name, or a table name that is not the view's table; `NotFound` for an unknown view.
    fn target(
        &self,
        table_name: &str,
        authorized_view_name: &str,
        materialized_view_name: &str,
    ) -> Result<Target> {
        if !materialized_view_name.is_empty() {
            if !table_name.is_empty() || !authorized_view_name.is_empty() {
                return Err(Error::invalid_argument(
                    "materialized_view_name cannot be combined with table_name or \
                     authorized_view_name",
                ));
            }
            let (instance, table_id) = crate::instance_admin::materialized_views::parse_name(
                "materialized_view_name",
                materialized_view_name,
            )?;
            return Ok(Target {
                table: TableName { instance, table_id },
                view: None,
                materialized: true,
            });
        }
        if !authorized_view_name.is_empty() {
            let (table, view) = authorized_views::resolve(&self.instances, authorized_view_name)?;
            if !table_name.is_empty() && TableName::parse("table_name", table_name)? != table {
                return Err(Error::invalid_argument(format!(
                    "table_name {table_name} is not the table of authorized_view_name {authorized_view_name}"
                )));
            }
            return Ok(Target {
                table,
                view: Some(view),
                materialized: false,
            });
        }
        if table_name.is_empty() {
            return Err(Error::invalid_argument("table_name is required"));
        }
        Ok(Target {
            table: TableName::parse("table_name", table_name)?,
            view: None,
            materialized: false,
        })
    }

    /// Checks one row's mutations against the target's view, if any.
    fn check_in_view(&self, target: &Target, row_key: &[u8], mutations: &[Mutation]) -> Result<()> {
        let Some(view) = &target.view else {
            return Ok(());
        };
        // The table's families matter only to a whole-row delete; read them only then.
        let families = if mutations
            .iter()
            .any(|m| matches!(m, Mutation::DeleteFromRow))
        {
            authorized_views::table_families(&self.instances, &target.table)?
        } else {
            Vec::new()
        };
        let families: Vec<&str> = families.iter().map(String::as_str).collect();
        view.check_mutations(row_key, mutations, &families)
    }

    fn mutate_row_inner(&self, req: &v2::MutateRowRequest) -> Result<()> {
        let target = self.target(&req.table_name, &req.authorized_view_name, "")?;
        let mutations = mutations_from_proto("mutations", &req.mutations)?;
        self.check_in_view(&target, &req.row_key, &mutations)?;
        let table = target.table;
        let routed = self.instances.route(
            &table.instance,
            &req.app_profile_id,
            "MutateRow",
            RequestKind::Write,
            &req.row_key,
        )?;
        routed
            .db
            .write(|db| db.mutate_row(&table.table_id, &req.row_key, &mutations))?;
        routed.after_write()
    }

    fn mutate_rows_inner(&self, req: &v2::MutateRowsRequest) -> Result<v2::MutateRowsResponse> {
        let target = self.target(&req.table_name, &req.authorized_view_name, "")?;
        let entries = req
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| {
                Ok(RowMutations {
                    row_key: e.row_key.clone(),
                    mutations: mutations_from_proto(
                        &format!("entries[{i}].mutations"),
                        &e.mutations,
                    )?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        // Through a view, an entry that reaches outside it fails on its own; the rest apply.
        let refused: Vec<Option<Error>> = entries
            .iter()
            .map(|e| self.check_in_view(&target, &e.row_key, &e.mutations).err())
            .collect();
        let allowed: Vec<RowMutations> = entries
            .into_iter()
            .zip(&refused)
            .filter(|(_, r)| r.is_none())
            .map(|(e, _)| e)
            .collect();
        let table = target.table;
        let first_key = allowed.first().map_or(&[][..], |e| e.row_key.as_slice());
        let routed = self.instances.route(
            &table.instance,
            &req.app_profile_id,
            "MutateRows",
            RequestKind::Write,
            first_key,
        )?;
        let mut applied = if allowed.is_empty() && !refused.is_empty() {
            Vec::new()
        } else {
            let statuses = routed
                .db
                .write(|db| db.mutate_rows(&table.table_id, &allowed))?;
            routed.after_write()?;
            statuses
        }
        .into_iter();
        let entries = refused
            .into_iter()
            .enumerate()
            .map(|(i, refusal)| {
                let status = match refusal {
                    Some(e) => Err(e),
                    None => applied.next().unwrap_or(Ok(())),
                };
                v2::mutate_rows_response::Entry {
                    index: i as i64,
                    status: Some(rpc_status(status)),
                }
            })
            .collect();
        Ok(v2::MutateRowsResponse {
            entries,
            ..Default::default()
        })
    }

    fn check_and_mutate_row_inner(&self, req: &wire::CheckAndMutateRowRequest) -> Result<bool> {
        let target = self.target(&req.table_name, &req.authorized_view_name, "")?;
        let mut predicate = req
            .predicate_filter
            .as_ref()
            .map(|f| filter_from_proto("predicate_filter", Some(f)))
            .transpose()?;
        let true_mutations = mutations_from_proto("true_mutations", &req.true_mutations)?;
        let false_mutations = mutations_from_proto("false_mutations", &req.false_mutations)?;
        if let Some(view) = &target.view {
            view.check_row(&req.row_key)?;
            self.check_in_view(&target, &req.row_key, &true_mutations)?;
            self.check_in_view(&target, &req.row_key, &false_mutations)?;
            // The predicate sees only the view's cells.
            predicate = Some(view.restrict_filter(predicate.as_ref()));
        }
        let table = target.table;
        let routed = self.instances.route(
            &table.instance,
            &req.app_profile_id,
            "CheckAndMutateRow",
            RequestKind::Transaction,
            &req.row_key,
        )?;
        let matched = routed.db.write(|db| {
            db.check_and_mutate_row(
                &table.table_id,
                &req.row_key,
                predicate.as_ref(),
                &true_mutations,
                &false_mutations,
            )
        })?;
        routed.after_write()?;
        Ok(matched)
    }

    fn read_modify_write_row_inner(&self, req: &v2::ReadModifyWriteRowRequest) -> Result<v2::Row> {
        let target = self.target(&req.table_name, &req.authorized_view_name, "")?;
        let rules = rules_from_proto(&req.rules)?;
        if let Some(view) = &target.view {
            view.check_rules(&req.row_key, &rules)?;
        }
        let table = target.table;
        let routed = self.instances.route(
            &table.instance,
            &req.app_profile_id,
            "ReadModifyWriteRow",
            RequestKind::Transaction,
            &req.row_key,
        )?;
        let row = routed
            .db
            .write(|db| db.read_modify_write_row(&table.table_id, &req.row_key, &rules))?;
        routed.after_write()?;
        Ok(row_to_proto(row))
    }

    fn sample_row_keys_inner(
        &self,
        req: &wire::SampleRowKeysRequest,
    ) -> Result<Vec<v2::SampleRowKeysResponse>> {
        // Through a view the samples are the table's: they say where its data is split, which
        // the view does not change.
        let target = self.target(
            &req.table_name,
            &req.authorized_view_name,
            &req.materialized_view_name,
        )?;
        if target.materialized {
            // A view is one in-memory piece: one sample, the end of its key space.
            let db = self.instances.database(&target.table.instance)?;
            db.read(|d| d.get_materialized_view(&target.table.table_id))?;
            return Ok(vec![v2::SampleRowKeysResponse {
                row_key: Vec::new(),
                offset_bytes: 0,
            }]);
        }
        let table = target.table;
        let range = req.row_range.as_ref().map(row_range_from_proto);
        if let Some(range) = &range {
            range.validate()?;
        }
        let db = self
            .instances
            .route(
                &table.instance,
                &req.app_profile_id,
                "SampleRowKeys",
                RequestKind::Read,
                b"",
            )?
            .db;
        let mut samples = db.read(|db| db.sample_row_keys(&table.table_id))?;
        if let Some(range) = &range {
            samples = samples_in_range(&samples, range);
        }
        Ok(samples
            .into_iter()
            .map(|s| v2::SampleRowKeysResponse {
                row_key: s.row_key,
                offset_bytes: i64::try_from(s.offset_bytes).unwrap_or(i64::MAX),
            })
            .collect())
    }

    /// The scan a ReadRows runs, on which database, and the mid-stream fault injected into
    /// it, if any (materialized views are read unrouted, so without faults).
    fn start_read_rows(
        &self,
        req: &wire::ReadRowsRequest,
    ) -> Result<(Scan, SharedDatabase, Option<MidStreamFault>)> {
        let target = self.target(
            &req.table_name,
            &req.authorized_view_name,
            &req.materialized_view_name,
        )?;
        let mut request = ReadRowsRequest {
            row_set: row_set_from_proto(req.rows.as_ref()),
            filter: filter_from_proto("filter", req.filter.as_ref())?,
            rows_limit: req.rows_limit,
            reversed: req.reversed,
        };
        if let Some(view) = &target.view {
            // The request's own row set is checked before the view cuts it.
            request.row_set.validate()?;
            request = view
                .restrict_read(&request)
                .unwrap_or_else(|| ReadRowsRequest {
                    // No row of the request is in the view: a set of one empty range reads nothing.
                    row_set: RowSet {
                        row_keys: Vec::new(),
                        row_ranges: vec![RowRange {
                            start: Bound::Included(vec![0]),
                            end: Bound::Excluded(vec![0]),
                        }],
                    },
                    ..request
                });
        }
        if target.materialized {
            // Views live on the instance's database (the first cluster's copy), unrouted.
            let db = self.instances.database(&target.table.instance)?;
            return Ok((
                Scan::of_materialized_view(target.table.table_id, request),
                db,
                None,
            ));
        }
        let first_key = request
            .row_set
            .row_keys
            .first()
            .cloned()
            .unwrap_or_default();
        let routed = self.instances.route(
            &target.table.instance,
            &req.app_profile_id,
            "ReadRows",
            RequestKind::Read,
            &first_key,
        )?;
        let fault = routed
            .stream_fault
            .map(|(after_rows, e)| MidStreamFault::new(after_rows, e));
        Ok((Scan::new(target.table.table_id, request), routed.db, fault))
    }
}

/// Converts a list of mutation messages; `field` names the list in errors.
fn mutations_from_proto(field: &str, mutations: &[v2::Mutation]) -> Result<Vec<Mutation>> {
    mutations
        .iter()
        .enumerate()
        .map(|(i, m)| {
            mutation_from_proto(i, m)
                .map_err(|e| Error::new(e.code(), format!("{field}: {}", e.message())))
        })
        .collect()
}

/// One MutateRows entry's outcome as a `google.rpc.Status`, through the one error mapping.
fn rpc_status(outcome: Result<()>) -> crate::stubs::rpc::Status {
    match outcome {
        Ok(()) => crate::stubs::rpc::Status::default(),
        Err(e) => {
            let status = to_status(e);
            crate::stubs::rpc::Status {
                code: status.code() as i32,
                message: status.message().to_string(),
                details: Vec::new(),
            }
        }
    }
}

/// Whether ReadRows should report `request_stats` (`REQUEST_STATS_FULL`).
///
/// # Errors
/// `InvalidArgument` for a value that is not a `RequestStatsView`.
fn wants_full_stats(view: i32) -> Result<bool> {
    use v2::read_rows_request::RequestStatsView;
    match RequestStatsView::try_from(view) {
        Ok(RequestStatsView::RequestStatsFull) => Ok(true),
        Ok(_) => Ok(false),
        Err(_) => Err(Error::invalid_argument(format!(
            "request_stats_view {view} is not a RequestStatsView"
        ))),
    }
}

/// The `request_stats` of a finished ReadRows.
fn request_stats(counts: &ScanCounts) -> v2::RequestStats {
    let n = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
    v2::RequestStats {
        stats_view: Some(v2::request_stats::StatsView::FullReadStatsView(
            v2::FullReadStatsView {
                read_iteration_stats: Some(v2::ReadIterationStats {
                    rows_seen_count: n(counts.rows_seen),
                    rows_returned_count: n(counts.rows_returned),
                    cells_seen_count: n(counts.cells_seen),
                    cells_returned_count: n(counts.cells_returned),
                }),
                request_latency_stats: None,
            },
        )),
    }
}

/// Runs a write on tokio's blocking pool. A write may wait for an fsync (shared with the
/// writers that appended before it) or flush a memtable; on the blocking pool that wait
/// never stalls the runtime's few worker threads, so other requests proceed and concurrent
/// writers really do overlap and share their fsync.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T> + Send + 'static,
) -> std::result::Result<T, Status> {
    match tokio::task::spawn_blocking(f).await {
        Ok(result) => result.map_err(to_status),
        Err(e) => Err(to_status(Error::new(
            sparsetable::Code::Internal,
            format!("a write task failed: {e}"),
        ))),
    }
}

/// Reads the scan's next batch on tokio's blocking pool, so a long scan never holds one of
/// the runtime's few async workers (every other call would wait behind it); between batches
/// the scan goes back to the runtime, which is where other calls' work interleaves. A point
/// read of a few keys ([`Scan::is_point_read`]) is read in place: it is bounded by its keys
/// and the scan budget, and the handoff would cost more than the read. The request's deadline
/// is checked before the batch starts.
///
/// # Errors
/// DEADLINE_EXCEEDED once the deadline has passed; the engine's error for the batch.
async fn read_batch(
    mut scan: Scan,
    db: SharedDatabase,
    deadline: Deadline,
) -> std::result::Result<(Scan, Vec<sparsetable::Row>), Status> {
    deadline.check()?;
    if scan.is_point_read() {
        let rows = scan.next_batch(&db).map_err(to_status)?;
        return Ok((scan, rows));
    }
    match tokio::task::spawn_blocking(move || {
        let rows = scan.next_batch(&db);
        (scan, rows)
    })
    .await
    {
        Ok((scan, rows)) => Ok((scan, rows.map_err(to_status)?)),
        Err(e) => Err(to_status(Error::new(
            sparsetable::Code::Internal,
            format!("a read task failed: {e}"),
        ))),
    }
}

/// A progress message after a batch that returned no row while the scan goes on: its
/// `last_scanned_row_key` lets a client that retries resume past the rows already examined,
/// as Cloud Bigtable sends them during long scans that match little. Sent only to clients
/// that announce support in the `bigtable-features` header.
fn progress_response(scan: &Scan, wanted: bool) -> Option<v2::ReadRowsResponse> {
    let key = scan.progress_key().filter(|_| wanted)?;
    Some(v2::ReadRowsResponse {
        chunks: Vec::new(),
        last_scanned_row_key: key.to_vec(),
        request_stats: None,
    })
}

/// The response that closes a finished ReadRows, if it has anything to say: the last row the
/// scan went past after its last returned row (when the client asked for it) and the request
/// stats (when it asked for them).
///
fn closing_response(
    scan: &Scan,
    last_scanned: bool,
    full_stats: bool,
) -> Option<v2::ReadRowsResponse> {
    let last_scanned_row_key = if last_scanned {
        scan.last_scanned_row_key().unwrap_or_default()
    } else {
        Vec::new()
    };
    (!last_scanned_row_key.is_empty() || full_stats).then(|| v2::ReadRowsResponse {
        chunks: Vec::new(),
        last_scanned_row_key,
        request_stats: full_stats.then(|| request_stats(&scan.counts)),
    })
}

/// A server stream of messages that are all known up front.
fn ready_stream<T: Send + 'static>(messages: Vec<T>) -> ServerStream<T> {
    let (tx, rx) = mpsc::channel(messages.len().max(1));
    for m in messages {
        // The channel has room for every message, so this never fails.
        let _ = tx.try_send(Ok(m));
    }
    ReceiverStream::new(rx)
}

#[tonic::async_trait]
impl Bigtable for DataService {
    type ReadRowsStream = ResponseStream<v2::ReadRowsResponse>;

    async fn read_rows(
        &self,
        request: Request<wire::ReadRowsRequest>,
    ) -> std::result::Result<Response<Self::ReadRowsStream>, Status> {
        let features = FeatureFlags::from_metadata(request.metadata()).map_err(to_status)?;
        let deadline = Deadline::from_metadata(request.metadata());
        let full_stats =
            wants_full_stats(request.get_ref().request_stats_view).map_err(to_status)?;
        let (scan, db, mut fault) = self.start_read_rows(request.get_ref()).map_err(to_status)?;
        // The first batch is read before answering, so a bad request fails the call itself.
        let (mut scan, mut first) = read_batch(scan, db.clone(), deadline).await?;
        // An injected mid-stream fault cuts the stream after its rows; nothing the scan
        // went past (progress keys, the closing response) is sent after the cut.
        let cut = fault.as_mut().and_then(|f| f.cut(&mut first));
        let mut writer = ResponseWriter::new();
        for row in first {
            writer.push_row(row);
        }
        let mut responses = writer.take();
        if let Some(status) = cut {
            return Ok(Response::new(ResponseStream::ready_then(responses, status)));
        }
        let progress = features.last_scanned_row_responses;
        if scan.is_done() {
            // The whole answer is in hand (point reads, small scans): no task, no handoff.
            responses.extend(closing_response(&scan, progress, full_stats));
            return Ok(Response::new(ResponseStream::ready(responses)));
        }
        responses.extend(progress_response(&scan, progress));
        // One batch in the channel and one being read: a client that stops reading holds
        // the server to about two batches' worth of responses (BATCH_BYTES each).
        let (tx, stream) = ResponseStream::channel();
        tokio::spawn(async move {
            if !responses.is_empty() && tx.send(Ok(responses)).await.is_err() {
                return; // The client went away.
            }
            while !scan.is_done() {
                // The channel's one slot is reserved before the next batch is read, so a
                // client that stops reading makes the scan wait without reading ahead. No
                // slot: the client went away, and the scan stops.
                let Ok(slot) = tx.reserve().await else {
                    return;
                };
                let mut rows;
                (scan, rows) = match read_batch(scan, db.clone(), deadline).await {
                    Ok(next) => next,
                    Err(status) => {
                        slot.send(Err(status));
                        return;
                    }
                };
                let cut = fault.as_mut().and_then(|f| f.cut(&mut rows));
                for row in rows {
                    writer.push_row(row);
                }
                if let Some(status) = cut {
                    let batch = writer.take();
                    if batch.is_empty() {
                        slot.send(Err(status));
                    } else {
                        slot.send(Ok(batch));
                        let _ = tx.send(Err(status)).await;
                    }
                    return;
                }
                let mut batch = writer.take();
                batch.extend(progress_response(&scan, progress));
                if scan.is_done() {
                    batch.extend(closing_response(&scan, progress, full_stats));
                }
                if !batch.is_empty() {
                    slot.send(Ok(batch));
                }
            }
        });
        Ok(Response::new(stream))
    }

    type SampleRowKeysStream = ServerStream<v2::SampleRowKeysResponse>;

    async fn sample_row_keys(
        &self,
        request: Request<wire::SampleRowKeysRequest>,
    ) -> std::result::Result<Response<Self::SampleRowKeysStream>, Status> {
        let samples = self
            .sample_row_keys_inner(request.get_ref())
            .map_err(to_status)?;
        Ok(Response::new(ready_stream(samples)))
    }

    async fn mutate_row(
        &self,
        request: Request<v2::MutateRowRequest>,
    ) -> std::result::Result<Response<v2::MutateRowResponse>, Status> {
        let this = self.clone();
        let req = request.into_inner();
        blocking(move || this.mutate_row_inner(&req)).await?;
        Ok(Response::new(v2::MutateRowResponse::default()))
    }

    type MutateRowsStream = ServerStream<v2::MutateRowsResponse>;

    async fn mutate_rows(
        &self,
        request: Request<v2::MutateRowsRequest>,
    ) -> std::result::Result<Response<Self::MutateRowsStream>, Status> {
        let this = self.clone();
        let req = request.into_inner();
        let response = blocking(move || this.mutate_rows_inner(&req)).await?;
        Ok(Response::new(ready_stream(vec![response])))
    }

    async fn check_and_mutate_row(
        &self,
        request: Request<wire::CheckAndMutateRowRequest>,
    ) -> std::result::Result<Response<v2::CheckAndMutateRowResponse>, Status> {
        let this = self.clone();
        let req = request.into_inner();
        let predicate_matched = blocking(move || this.check_and_mutate_row_inner(&req)).await?;
        Ok(Response::new(v2::CheckAndMutateRowResponse {
            predicate_matched,
        }))
    }

    async fn ping_and_warm(
        &self,
        request: Request<v2::PingAndWarmRequest>,
    ) -> std::result::Result<Response<v2::PingAndWarmResponse>, Status> {
        // Nothing to warm: the instance's database is created on first use, here.
        let instance = InstanceName::parse("name", &request.get_ref().name).map_err(to_status)?;
        self.instances.database(&instance).map_err(to_status)?;
        Ok(Response::new(v2::PingAndWarmResponse {}))
    }

    async fn read_modify_write_row(
        &self,
        request: Request<v2::ReadModifyWriteRowRequest>,
    ) -> std::result::Result<Response<v2::ReadModifyWriteRowResponse>, Status> {
        let this = self.clone();
        let req = request.into_inner();
        let row = blocking(move || this.read_modify_write_row_inner(&req)).await?;
        Ok(Response::new(v2::ReadModifyWriteRowResponse {
            row: Some(row),
        }))
    }

    type GenerateInitialChangeStreamPartitionsStream =
        ServerStream<v2::GenerateInitialChangeStreamPartitionsResponse>;

    async fn generate_initial_change_stream_partitions(
        &self,
        request: Request<v2::GenerateInitialChangeStreamPartitionsRequest>,
    ) -> std::result::Result<Response<Self::GenerateInitialChangeStreamPartitionsStream>, Status>
    {
        let instances = self.instances.clone();
        let req = request.into_inner();
        let partitions =
            blocking(move || change_streams::initial_partitions(&instances, &req)).await?;
        Ok(Response::new(ready_stream(partitions)))
    }

    type ReadChangeStreamStream = ServerStream<v2::ReadChangeStreamResponse>;

    async fn read_change_stream(
        &self,
        request: Request<v2::ReadChangeStreamRequest>,
    ) -> std::result::Result<Response<Self::ReadChangeStreamStream>, Status> {
        let instances = self.instances.clone();
        let req = request.into_inner();
        // A bad request fails the call itself; then the stream runs until the client goes
        // away, end_time passes or the partition changes.
        let mut reader = blocking(move || change_streams::Reader::open(instances, &req)).await?;
        let (tx, rx) = mpsc::channel(16);
        tokio::spawn(async move {
            let heartbeat = std::time::Duration::from_micros(reader.heartbeat_micros);
            let mut last_sent = std::time::Instant::now();
            loop {
                let polled = tokio::task::spawn_blocking(move || {
                    let polled = reader.poll();
                    (reader, polled)
                })
                .await;
                let Ok((back, polled)) = polled else {
                    return;
                };
                reader = back;
                let polled = match polled {
                    Ok(p) => p,
                    Err(e) => {
                        let _ = tx.send(Err(to_status(e))).await;
                        return;
                    }
                };
                if !polled.responses.is_empty() {
                    last_sent = std::time::Instant::now();
                }
                for r in polled.responses {
                    if tx.send(Ok(r)).await.is_err() {
                        return; // The client went away.
                    }
                }
                if polled.closed {
                    return;
                }
                if last_sent.elapsed() >= heartbeat {
                    let beat = match reader.heartbeat() {
                        Ok(b) => Ok(b),
                        Err(e) => Err(to_status(e)),
                    };
                    if tx.send(beat).await.is_err() {
                        return;
                    }
                    last_sent = std::time::Instant::now();
                }
                if tx.is_closed() {
                    return;
                }
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
        });
        Ok(Response::new(ReceiverStream::new(rx)))
    }

    async fn prepare_query(
        &self,
        request: Request<v2::PrepareQueryRequest>,
    ) -> std::result::Result<Response<v2::PrepareQueryResponse>, Status> {
        let instances = self.instances.clone();
        let req = request.into_inner();
        blocking(move || {
            let instance = sql::instance_of(&req.instance_name)?;
            let db = instances.database(&instance)?;
            sql::prepare(&db, &req, &logical_views(&instances, &instance)?)
        })
        .await
        .map(Response::new)
    }

    type ExecuteQueryStream = ServerStream<v2::ExecuteQueryResponse>;

    async fn execute_query(
        &self,
        request: Request<v2::ExecuteQueryRequest>,
    ) -> std::result::Result<Response<Self::ExecuteQueryStream>, Status> {
        // A query may read a whole table: it runs on the blocking pool, as scans do.
        let instances = self.instances.clone();
        let req = request.into_inner();
        // Preparing (and opening the read) fails the call itself; then batches are made on
        // the blocking pool as the client takes them (the channel holds at most 4).
        let mut batches = blocking(move || {
            let instance = sql::instance_of(&req.instance_name)?;
            let db = instances.database(&instance)?;
            Ok(sql::execute(
                &db,
                &req,
                &logical_views(&instances, &instance)?,
            ))
        })
        .await??;
        let (tx, rx) = mpsc::channel(4);
        tokio::task::spawn_blocking(move || loop {
            let next = match batches.next_batch() {
                Ok(Some(b)) => Ok(b),
                Ok(None) => return,
                Err(e) => Err(to_status(e)),
            };
            let failed = next.is_err();
            if tx.blocking_send(next).is_err() || failed {
                return; // The client went away, or the query failed.
            }
        });
        Ok(Response::new(ReceiverStream::new(rx)))
    }
}

/// The logical views of `instance`, which `FROM` may name in its SQL.
fn logical_views(
    instances: &Instances,
    instance: &crate::names::InstanceName,
) -> Result<Vec<sparsetable::LogicalViewRecord>> {
    instances.with_meta(instance, |meta| {
        meta.logical_views
            .iter()
            .map(crate::instance_record::view_record)
            .collect()
    })
}
