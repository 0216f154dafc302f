//! Long-running operations: the admin RPCs that answer with a `google.longrunning.Operation`
//! (UpdateTable, CreateBackup, RestoreTable), and the `google.longrunning.Operations` service
//! clients poll them with.
//!
//! The engine finishes every such change before the RPC returns, so every operation is born
//! `done: true` with its response (or error) packed in an `Any`. Google's clients then never
//! poll, but a client that does (GetOperation, WaitOperation, ListOperations) gets the same
//! operation back. Operations are named `{resource}/operations/{n}` with `n` counting from 1
//! per server; only the newest [`KEPT_OPERATIONS`] are remembered, so memory stays bounded.

use std::collections::BTreeMap;
use std::sync::Mutex;

use prost::Message;
use sparsetable::error::quoted;
use sparsetable::{Error, Result};
use tonic::{Request, Response, Status};

use crate::status::to_status;
use crate::stubs::admin_v2;
use crate::stubs::operations::operations_server;
use googleapis_tonic_google_bigtable_admin_v2::google::longrunning;

/// The metadata message of an admin request answered with a finished operation: Google's
/// `{Request}Metadata`, which carries the request and when it started and finished. Here both
/// times are the same instant (every operation is finished when its call returns), so one
/// constructor serves every such message, and [`Operations::finished_request`] packs it.
pub trait RequestMetadata: Message + Sized {
    /// The request the metadata carries.
    type Request;
    /// The message's full protobuf name (its `Any` type).
    const NAME: &'static str;
    /// The metadata of `request`, started and finished at `now`.
    fn finished_at(request: &Self::Request, now: Option<prost_types::Timestamp>) -> Self;
}

/// Implements [`RequestMetadata`] for admin v2 metadata messages whose two times are named
/// `$start` and `$end`: `Metadata(Request)`, ...
macro_rules! request_metadata {
    ($start:ident, $end:ident: $($meta:ident($request:ident)),* $(,)?) => {$(
        impl RequestMetadata for admin_v2::$meta {
            type Request = admin_v2::$request;
            const NAME: &'static str = concat!("google.bigtable.admin.v2.", stringify!($meta));
            // Some of these messages carry more fields (CreateClusterMetadata's tables),
            // left at their defaults.
            #[allow(clippy::needless_update)]
            fn finished_at(request: &admin_v2::$request, now: Option<prost_types::Timestamp>) -> Self {
                admin_v2::$meta {
                    original_request: Some(request.clone()),
                    $start: now,
                    $end: now,
                    ..Default::default()
                }
            }
        }
    )*};
}

request_metadata!(request_time, finish_time:
    CreateInstanceMetadata(CreateInstanceRequest),
    UpdateInstanceMetadata(PartialUpdateInstanceRequest),
    CreateClusterMetadata(CreateClusterRequest),
    UpdateClusterMetadata(Cluster),
    PartialUpdateClusterMetadata(PartialUpdateClusterRequest),
    CreateAuthorizedViewMetadata(CreateAuthorizedViewRequest),
    UpdateAuthorizedViewMetadata(UpdateAuthorizedViewRequest),
);
request_metadata!(start_time, end_time:
    CreateLogicalViewMetadata(CreateLogicalViewRequest),
    UpdateLogicalViewMetadata(UpdateLogicalViewRequest),
    CreateMaterializedViewMetadata(CreateMaterializedViewRequest),
    UpdateMaterializedViewMetadata(UpdateMaterializedViewRequest),
);

/// How many finished operations GetOperation can still find.
pub const KEPT_OPERATIONS: usize = 1000;

/// Packs a message in an `Any` under its full protobuf name (what clients unpack by).
pub fn pack(full_name: &str, message: &impl Message) -> prost_types::Any {
    prost_types::Any {
        type_url: format!("type.googleapis.com/{full_name}"),
        value: message.encode_to_vec(),
    }
}

/// The server's finished operations, by name.
#[derive(Debug, Default)]
pub struct Operations {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    next_id: u64,
    by_name: BTreeMap<String, (u64, longrunning::Operation)>,
}

impl Operations {
    /// No operations yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// [`Operations::finished`] for a request whose metadata is an `M`
    /// ([`RequestMetadata`], started and finished at `now`) and whose answer is `response`,
    /// packed as `response_type` (a full protobuf name).
    pub fn finished_request<M: RequestMetadata>(
        &self,
        resource: &str,
        request: &M::Request,
        now: Option<prost_types::Timestamp>,
        response_type: &str,
        response: &impl Message,
    ) -> longrunning::Operation {
        self.finished(
            resource,
            pack(M::NAME, &M::finished_at(request, now)),
            pack(response_type, response),
        )
    }

    /// Records a finished operation on `resource` and returns it: `response` is the packed
    /// answer, `metadata` the packed progress message.
    pub fn finished(
        &self,
        resource: &str,
        metadata: prost_types::Any,
        response: prost_types::Any,
    ) -> longrunning::Operation {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.next_id += 1;
        let id = state.next_id;
        let operation = longrunning::Operation {
            name: format!("{resource}/operations/{id}"),
            metadata: Some(metadata),
            done: true,
            result: Some(longrunning::operation::Result::Response(response)),
        };
        state
            .by_name
            .insert(operation.name.clone(), (id, operation.clone()));
        if state.by_name.len() > KEPT_OPERATIONS {
            let oldest = state
                .by_name
                .iter()
                .min_by_key(|(_, (id, _))| *id)
                .map(|(name, _)| name.clone());
            if let Some(name) = oldest {
                state.by_name.remove(&name);
            }
        }
        operation
    }

    fn get(&self, name: &str) -> Result<longrunning::Operation> {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state
            .by_name
            .get(name)
            .map(|(_, op)| op.clone())
            .ok_or_else(|| Error::not_found(format!("operation {} not found", quoted(name))))
    }

    fn delete(&self, name: &str) -> Result<()> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state
            .by_name
            .remove(name)
            .map(|_| ())
            .ok_or_else(|| Error::not_found(format!("operation {} not found", quoted(name))))
    }

    /// Operations whose name starts with `prefix`, oldest first, paged by operation number.
    fn list(
        &self,
        prefix: &str,
        page_size: i32,
        page_token: &str,
    ) -> Result<longrunning::ListOperationsResponse> {
        let after: u64 = if page_token.is_empty() {
            0
        } else {
            page_token.parse().map_err(|_| {
                Error::invalid_argument(format!(
                    "page_token {} is not a page token",
                    quoted(page_token)
                ))
            })?
        };
        let page_size = usize::try_from(page_size).map_err(|_| {
            Error::invalid_argument(format!("page_size {page_size} must not be negative"))
        })?;
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let mut matching: Vec<&(u64, longrunning::Operation)> = state
            .by_name
            .iter()
            .filter(|(name, (id, _))| name.starts_with(prefix) && *id > after)
            .map(|(_, entry)| entry)
            .collect();
        matching.sort_by_key(|(id, _)| *id);
        let more = page_size != 0 && matching.len() > page_size;
        if more {
            matching.truncate(page_size);
        }
        Ok(longrunning::ListOperationsResponse {
            next_page_token: if more {
                matching
                    .last()
                    .map(|(id, _)| id.to_string())
                    .unwrap_or_default()
            } else {
                String::new()
            },
            operations: matching.into_iter().map(|(_, op)| op.clone()).collect(),
            ..Default::default()
        })
    }
}

/// The `google.longrunning.Operations` service over the server's operations.
#[derive(Debug, Clone)]
pub struct OperationsService {
    operations: std::sync::Arc<Operations>,
}

impl OperationsService {
    /// A service over `operations`.
    pub fn new(operations: std::sync::Arc<Operations>) -> Self {
        OperationsService { operations }
    }
}

#[tonic::async_trait]
impl operations_server::Operations for OperationsService {
    async fn list_operations(
        &self,
        request: Request<longrunning::ListOperationsRequest>,
    ) -> std::result::Result<Response<longrunning::ListOperationsResponse>, Status> {
        let req = request.get_ref();
        if !req.filter.is_empty() {
            return Err(to_status(crate::status::unimplemented(
                "ListOperations' filter",
            )));
        }
        self.operations
            .list(&req.name, req.page_size, &req.page_token)
            .map(Response::new)
            .map_err(to_status)
    }

    async fn get_operation(
        &self,
        request: Request<longrunning::GetOperationRequest>,
    ) -> std::result::Result<Response<longrunning::Operation>, Status> {
        self.operations
            .get(&request.get_ref().name)
            .map(Response::new)
            .map_err(to_status)
    }

    async fn delete_operation(
        &self,
        request: Request<longrunning::DeleteOperationRequest>,
    ) -> std::result::Result<Response<()>, Status> {
        self.operations
            .delete(&request.get_ref().name)
            .map(Response::new)
            .map_err(to_status)
    }

    async fn cancel_operation(
        &self,
        request: Request<longrunning::CancelOperationRequest>,
    ) -> std::result::Result<Response<()>, Status> {
        // Every operation is already done; cancelling a done operation changes nothing.
        self.operations
            .get(&request.get_ref().name)
            .map(|_| Response::new(()))
            .map_err(to_status)
    }

    async fn wait_operation(
        &self,
        request: Request<longrunning::WaitOperationRequest>,
    ) -> std::result::Result<Response<longrunning::Operation>, Status> {
        // Already done: nothing to wait for.
        self.operations
            .get(&request.get_ref().name)
            .map(Response::new)
            .map_err(to_status)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn any(n: u8) -> prost_types::Any {
        prost_types::Any {
            type_url: "type.googleapis.com/x".into(),
            value: vec![n],
        }
    }

    #[test]
    fn finished_operations_are_found_listed_and_deleted() {
        let ops = Operations::new();
        let a = ops.finished("projects/p/instances/i/tables/t", any(1), any(2));
        let b = ops.finished("projects/p/instances/i/tables/u", any(3), any(4));
        assert!(a.done && b.done);
        assert_eq!(a.name, "projects/p/instances/i/tables/t/operations/1");
        assert_eq!(ops.get(&a.name).unwrap(), a);
        let page = ops.list("projects/p/instances/i", 1, "").unwrap();
        assert_eq!(page.operations, std::slice::from_ref(&a));
        let rest = ops
            .list("projects/p/instances/i", 1, &page.next_page_token)
            .unwrap();
        assert_eq!(rest.operations, std::slice::from_ref(&b));
        assert!(rest.next_page_token.is_empty());
        ops.delete(&a.name).unwrap();
        assert_eq!(
            ops.get(&a.name).unwrap_err().code(),
            sparsetable::Code::NotFound
        );
    }

    #[test]
    fn only_the_newest_operations_are_kept() {
        let ops = Operations::new();
        let first = ops.finished("r", any(0), any(0));
        for _ in 0..KEPT_OPERATIONS {
            ops.finished("r", any(0), any(0));
        }
        assert!(ops.get(&first.name).is_err());
        assert!(ops.get("r/operations/2").is_ok());
    }
}
