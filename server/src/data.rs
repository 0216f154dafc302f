//! The Data API (`google.bigtable.v2.Bigtable`) over the engine.
//!
//! Served: MutateRow and ReadRows (row keys, ranges, rows_limit, reversed; no filter but
//! pass-all). Every other RPC answers UNIMPLEMENTED naming itself. Requests through an
//! authorized or materialized view are UNIMPLEMENTED too; `app_profile_id` only routes
//! traffic in Cloud Bigtable and is ignored.

use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use sparsetable::{Error, Mutation, ReadRowsRequest, Result};

use crate::chunks::ResponseWriter;
use crate::convert::{check_filter, mutation_from_proto, row_set_from_proto};
use crate::names::TableName;
use crate::registry::{lock, Instances};
use crate::scan::Scan;
use crate::status::{to_status, unimplemented};
use crate::stubs::data::bigtable_server::Bigtable;
use crate::stubs::v2;

/// Responses buffered between the scan and the client: enough to overlap reading and sending.
const STREAM_BUFFER: usize = 4;

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

/// The table a data request addresses.
///
/// # Errors
/// UNIMPLEMENTED for an authorized or materialized view; `InvalidArgument` for a missing or
/// malformed table name.
fn target_table(
    table_name: &str,
    authorized_view_name: &str,
    materialized_view_name: &str,
) -> Result<TableName> {
    if !authorized_view_name.is_empty() {
        return Err(unimplemented("authorized_view_name (authorized views)"));
    }
    if !materialized_view_name.is_empty() {
        return Err(unimplemented("materialized_view_name (materialized views)"));
    }
    if table_name.is_empty() {
        return Err(Error::invalid_argument("table_name is required"));
    }
    TableName::parse("table_name", table_name)
}

impl DataService {
    fn mutate_row_inner(&self, req: &v2::MutateRowRequest) -> Result<()> {
        let table = target_table(&req.table_name, &req.authorized_view_name, "")?;
        let mutations = req
            .mutations
            .iter()
            .enumerate()
            .map(|(i, m)| mutation_from_proto(i, m))
            .collect::<Result<Vec<Mutation>>>()?;
        let db = self.instances.database(&table.instance)?;
        let mut db = lock(&db)?;
        db.mutate_row(&table.table_id, &req.row_key, &mutations)
    }

    fn start_read_rows(
        &self,
        req: &v2::ReadRowsRequest,
    ) -> Result<(Scan, Arc<std::sync::Mutex<sparsetable::Database>>)> {
        let table = target_table(
            &req.table_name,
            &req.authorized_view_name,
            &req.materialized_view_name,
        )?;
        check_filter(req.filter.as_ref())?;
        let request = ReadRowsRequest {
            row_set: row_set_from_proto(req.rows.as_ref()),
            rows_limit: req.rows_limit,
            reversed: req.reversed,
            ..ReadRowsRequest::default()
        };
        let db = self.instances.database(&table.instance)?;
        Ok((Scan::new(table.table_id, request), db))
    }
}

fn unimplemented_rpc<T>(rpc: &str) -> std::result::Result<T, Status> {
    Err(to_status(unimplemented(format!(
        "RPC google.bigtable.v2.Bigtable/{rpc}"
    ))))
}

#[tonic::async_trait]
impl Bigtable for DataService {
    type ReadRowsStream = ServerStream<v2::ReadRowsResponse>;

    async fn read_rows(
        &self,
        request: Request<v2::ReadRowsRequest>,
    ) -> std::result::Result<Response<Self::ReadRowsStream>, Status> {
        let (mut scan, db) = self.start_read_rows(request.get_ref()).map_err(to_status)?;
        // The first batch is read before answering, so a bad request fails the call itself.
        let first = scan.next_batch(&db).map_err(to_status)?;
        let (tx, rx) = mpsc::channel(STREAM_BUFFER);
        tokio::spawn(async move {
            let mut writer = ResponseWriter::new();
            let mut batch = first;
            loop {
                for row in batch {
                    writer.push_row(row);
                }
                for response in writer.take() {
                    if tx.send(Ok(response)).await.is_err() {
                        return; // The client went away.
                    }
                }
                if scan.is_done() {
                    return;
                }
                batch = match scan.next_batch(&db) {
                    Ok(rows) => rows,
                    Err(e) => {
                        let _ = tx.send(Err(to_status(e))).await;
                        return;
                    }
                };
            }
        });
        Ok(Response::new(ReceiverStream::new(rx)))
    }

    type SampleRowKeysStream = ServerStream<v2::SampleRowKeysResponse>;

    async fn sample_row_keys(
        &self,
        _request: Request<v2::SampleRowKeysRequest>,
    ) -> std::result::Result<Response<Self::SampleRowKeysStream>, Status> {
        unimplemented_rpc("SampleRowKeys")
    }

    async fn mutate_row(
        &self,
        request: Request<v2::MutateRowRequest>,
    ) -> std::result::Result<Response<v2::MutateRowResponse>, Status> {
        self.mutate_row_inner(request.get_ref())
            .map_err(to_status)?;
        Ok(Response::new(v2::MutateRowResponse::default()))
    }

    type MutateRowsStream = ServerStream<v2::MutateRowsResponse>;

    async fn mutate_rows(
        &self,
        _request: Request<v2::MutateRowsRequest>,
    ) -> std::result::Result<Response<Self::MutateRowsStream>, Status> {
        unimplemented_rpc("MutateRows")
    }

    async fn check_and_mutate_row(
        &self,
        _request: Request<v2::CheckAndMutateRowRequest>,
    ) -> std::result::Result<Response<v2::CheckAndMutateRowResponse>, Status> {
        unimplemented_rpc("CheckAndMutateRow")
    }

    async fn ping_and_warm(
        &self,
        _request: Request<v2::PingAndWarmRequest>,
    ) -> std::result::Result<Response<v2::PingAndWarmResponse>, Status> {
        unimplemented_rpc("PingAndWarm")
    }

    async fn read_modify_write_row(
        &self,
        _request: Request<v2::ReadModifyWriteRowRequest>,
    ) -> std::result::Result<Response<v2::ReadModifyWriteRowResponse>, Status> {
        unimplemented_rpc("ReadModifyWriteRow")
    }

    type GenerateInitialChangeStreamPartitionsStream =
        ServerStream<v2::GenerateInitialChangeStreamPartitionsResponse>;

    async fn generate_initial_change_stream_partitions(
        &self,
        _request: Request<v2::GenerateInitialChangeStreamPartitionsRequest>,
    ) -> std::result::Result<Response<Self::GenerateInitialChangeStreamPartitionsStream>, Status>
    {
        unimplemented_rpc("GenerateInitialChangeStreamPartitions")
    }

    type ReadChangeStreamStream = ServerStream<v2::ReadChangeStreamResponse>;

    async fn read_change_stream(
        &self,
        _request: Request<v2::ReadChangeStreamRequest>,
    ) -> std::result::Result<Response<Self::ReadChangeStreamStream>, Status> {
        unimplemented_rpc("ReadChangeStream")
    }

    async fn prepare_query(
        &self,
        _request: Request<v2::PrepareQueryRequest>,
    ) -> std::result::Result<Response<v2::PrepareQueryResponse>, Status> {
        unimplemented_rpc("PrepareQuery")
    }

    type ExecuteQueryStream = ServerStream<v2::ExecuteQueryResponse>;

    async fn execute_query(
        &self,
        _request: Request<v2::ExecuteQueryRequest>,
    ) -> std::result::Result<Response<Self::ExecuteQueryStream>, Status> {
        unimplemented_rpc("ExecuteQuery")
    }
}
