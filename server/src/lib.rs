//! A gRPC server speaking Cloud Bigtable's Data API (`google.bigtable.v2.Bigtable`) and Table
//! Admin API (`google.bigtable.admin.v2.BigtableTableAdmin`) over the Sparsetable engine: a
//! drop-in Bigtable emulator for `cbt` and the official client libraries
//! (`BIGTABLE_EMULATOR_HOST=HOST:PORT`).
//!
//! The crate converts messages and errors and nothing else; every Bigtable rule lives in the
//! engine. Layout, one concept per module:
//! - [`stubs`]: the generated service traits over the googleapis crates' message types;
//!   [`codec`]: their message codec, and the statuses of requests refused before a handler;
//! - [`names`]: resource names; [`registry`]: one shared engine database per instance, one
//!   per cluster on an instance with two or more (the core's `ReplicatedInstance`), and
//!   routing by app profile;
//! - [`convert`]: messages to engine types and back; [`filter`]: RowFilter messages;
//!   [`family_order`]: CreateTable's families in the order the request lists them;
//!   [`features`]: the client's `bigtable-features` header; [`status`]: the one error mapping;
//!   [`log`]: the `--log-level` filtered log on stderr;
//! - [`chunks`]: ReadRows' CellChunk encoding; [`scan`]: reading in batches off the lock;
//!   [`streaming`]: server streams with back-pressure, and request deadlines;
//! - [`data`] and [`admin`]: the two main services ([`change_streams`]: ReadChangeStream); [`table_reply`]: the `Table` message as
//!   Cloud Bigtable encodes it; [`instance_admin`]: the instance-admin calls clients make at
//!   start-up, over [`clusters`]; [`operations`]: long-running operations and
//!   the `google.longrunning.Operations` service; [`test_clock`]: the TestClock service that
//!   moves a frozen clock (served only when the server runs on one);
//!   [`replication_control`]: our own service that takes clusters down, sets an instance's
//!   replication lag and injects faults (the rules are the core's replication and faults);
//! - [`cli`]: the command line, with its `control` ([`control`]) and `export`/`import`
//!   ([`migrate`]: Avro and CSV files to and from Cloud Bigtable) subcommands.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8086").await?;
//! let instances = Arc::new(sparsetable_server::Instances::new());
//! sparsetable_server::serve(listener, instances, None, std::future::pending()).await?;
//! # Ok(()) }
//! ```

pub mod admin;
pub mod authorized_views;
pub mod change_streams;
pub mod chunks;
pub mod cli;
pub mod clusters;
pub mod codec;
pub mod control;
pub mod convert;
pub mod data;
pub mod duration;
pub mod family_order;
pub mod features;
pub mod filter;
pub mod instance_admin;
pub mod instance_meta;
pub mod instance_record;
pub mod log;
pub mod migrate;
pub mod names;
pub mod operations;
pub mod registry;
pub mod replication_control;
pub mod row_key_schema;
pub mod scan;
pub mod sql;
pub mod status;
pub mod streaming;
pub mod stubs;
pub mod table_reply;
pub mod test_clock;
pub mod wire;

use std::future::Future;
use std::sync::Arc;

use sparsetable::ManualClock;
use tonic::transport::server::TcpIncoming;
use tonic::transport::Server;

pub use admin::AdminService;
pub use data::DataService;
pub use registry::Instances;
use replication_control::service::replication_control_server::ReplicationControlServer;
use stubs::admin::bigtable_table_admin_server::BigtableTableAdminServer;
use stubs::data::bigtable_server::BigtableServer;
use stubs::instance_admin::bigtable_instance_admin_server::BigtableInstanceAdminServer;
use stubs::operations::operations_server::OperationsServer;
use test_clock::service::test_clock_server::TestClockServer;

/// Largest gRPC message the server accepts or sends: the core's request limit
/// (`limits::MAX_REQUEST_BYTES`), so a 100 MiB cell can be written in one MutateRow.
pub const MAX_MESSAGE_BYTES: usize = sparsetable::limits::MAX_REQUEST_BYTES;

/// The Data API as a tonic service, with Bigtable's message size limits.
pub fn data_server(instances: Arc<Instances>) -> BigtableServer<DataService> {
    BigtableServer::new(DataService::new(instances))
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES)
}

/// The Table Admin API as a tonic service, with Bigtable's message size limits.
pub fn admin_server(instances: Arc<Instances>) -> BigtableTableAdminServer<AdminService> {
    BigtableTableAdminServer::new(AdminService::new(instances))
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES)
}

/// Serves the Data and Table Admin APIs and `google.longrunning.Operations` on `listener`
/// until `shutdown` completes, then finishes in-flight calls. With `test_clock` (the manual
/// clock `instances` reads), also serves `sparsetable.testing.v1.TestClock` over it.
///
/// # Errors
/// A transport error from tonic (the listener failed).
pub async fn serve(
    listener: tokio::net::TcpListener,
    instances: Arc<Instances>,
    test_clock: Option<Arc<ManualClock>>,
    shutdown: impl Future<Output = ()>,
) -> Result<(), tonic::transport::Error> {
    let operations = OperationsServer::new(operations::OperationsService::new(
        instances.operations().clone(),
    ));
    Server::builder()
        // At debug level, a line per RPC naming its method.
        .layer(tower::util::MapRequestLayer::new(
            |request: http::Request<tonic::body::Body>| {
                if log::enabled(log::Level::Debug) {
                    log::log(
                        log::Level::Debug,
                        format_args!("rpc {}", request.uri().path()),
                    );
                }
                request
            },
        ))
        // A request over MAX_MESSAGE_BYTES: RESOURCE_EXHAUSTED, not tonic's OUT_OF_RANGE.
        .layer(tower::util::MapResponseLayer::new(
            codec::oversized_is_resource_exhausted,
        ))
        .add_service(data_server(instances.clone()))
        .add_service(admin_server(instances.clone()))
        .add_service(ReplicationControlServer::new(
            replication_control::ReplicationControlService::new(instances.clone()),
        ))
        .add_service(BigtableInstanceAdminServer::new(
            instance_admin::InstanceAdminService::new(instances),
        ))
        .add_service(operations)
        .add_optional_service(
            test_clock.map(|c| TestClockServer::new(test_clock::TestClockService::new(c))),
        )
        // TCP_NODELAY: a unary or streaming reply is several small HTTP/2 frames (headers,
        // data, trailers); with Nagle's algorithm the last waits for the client's delayed ACK,
        // which capped ReadRows and MutateRows at a few hundred calls a second per connection.
        .serve_with_incoming_shutdown(
            TcpIncoming::from(listener).with_nodelay(Some(true)),
            shutdown,
        )
        .await
}
