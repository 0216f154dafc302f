//! `sparsetable.testing.v1.ReplicationControl`: the control surface for what an instance
//! simulates (the rules are the core's, `sparsetable::Replication`,
//! `sparsetable::FaultInjector` and `sparsetable::GcMode`): take a cluster down and bring it
//! back, change an instance's replication lag, inject faults into any RPC, run the
//! background garbage collection now, and read the state back.
//!
//! There is no .proto file: the messages are defined here with `prost::Message` and
//! `build.rs` generates the service (server and client) over them. The wire contract, which
//! must never change (field numbers are on the wire):
//!
//! ```text
//! package sparsetable.testing.v1;
//! service ReplicationControl {
//!   rpc GetReplication(GetReplicationRequest) returns (ReplicationStatus);
//!   rpc SetClusterAvailable(SetClusterAvailableRequest) returns (ReplicationStatus);
//!   rpc SetReplicationLag(SetReplicationLagRequest) returns (ReplicationStatus);
//!   rpc InjectFault(InjectFaultRequest) returns (ReplicationStatus);
//!   rpc ClearFaults(ClearFaultsRequest) returns (ReplicationStatus);
//!   rpc CollectGarbage(CollectGarbageRequest) returns (ReplicationStatus);
//! }
//! message GetReplicationRequest { string instance = 1; }   // projects/P/instances/I
//! message SetClusterAvailableRequest { string instance = 1; string cluster_id = 2;
//!                                      bool available = 3; }
//! message SetReplicationLagRequest { string instance = 1; int64 lag_micros = 2; }
//! message InjectFaultRequest { string instance = 1;
//!   string rpc = 2;             // e.g. "ReadRows"; empty: every RPC
//!   string cluster_id = 3;      // empty: every cluster
//!   int32 code = 4;             // a gRPC code number; 0 (OK): latency only
//!   uint64 count = 5;           // how many matching requests; 0: no limit
//!   optional double probability = 6;  // 0 to 1; unset: every matching request
//!   uint64 latency_micros = 7;
//!   uint64 after_rows = 8;      // ReadRows only: deliver N rows, then end the stream
//!                               // with the code; 0: fail before answering
//! }
//! message ClearFaultsRequest { string instance = 1; uint64 seed = 2; }
//! message CollectGarbageRequest { string instance = 1;
//!   string table_id = 2;        // empty: every table of the instance
//! }
//! message ReplicationStatus { repeated ClusterStatus clusters = 1; int64 lag_micros = 2;
//!   uint64 in_flight = 3; uint64 faults = 4; }
//! message ClusterStatus { string cluster_id = 1; bool available = 2; }
//! ```
//!
//! Served by every server: it changes only simulated behaviour. Outages need an instance
//! with two or more clusters (FAILED_PRECONDITION otherwise); a lag set on a one-cluster
//! instance is kept for when it gets a second cluster; faults work on any. A fault with
//! `after_rows` (the core's `FaultInjector::add_mid_stream`: a code is required, ReadRows
//! only) lets a ReadRows stream answer that many rows and then end with the code, the way a
//! connection drops in the middle of a long scan; Google's clients re-issue the read for the
//! rows they have not received (see `crate::data`). CollectGarbage
//! runs a collection pass (`Database::collect_garbage`) on every cluster: in
//! `--gc-mode background` it removes the collectable cells reads still return; in the
//! default immediate mode reads do not change (they never showed those cells). The command line
//! `sparsetable-server control` ([`crate::control`]) is this service's client.

use std::sync::Arc;

use sparsetable::{Code, Error, FaultRule, Result};
use tonic::{Request, Response, Status};

use crate::names::InstanceName;
use crate::registry::Instances;
use crate::status::to_status;

/// Generated server and client of the service.
pub mod service {
    include!(concat!(
        env!("OUT_DIR"),
        "/sparsetable.testing.v1.ReplicationControl.rs"
    ));
}

/// `GetReplication`'s request.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct GetReplicationRequest {
    /// `projects/P/instances/I`.
    #[prost(string, tag = "1")]
    pub instance: String,
}

/// `SetClusterAvailable`'s request.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct SetClusterAvailableRequest {
    /// `projects/P/instances/I`.
    #[prost(string, tag = "1")]
    pub instance: String,
    /// The cluster's id.
    #[prost(string, tag = "2")]
    pub cluster_id: String,
    /// `false` takes it down, `true` brings it back (it then catches up).
    #[prost(bool, tag = "3")]
    pub available: bool,
}

/// `SetReplicationLag`'s request.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct SetReplicationLagRequest {
    /// `projects/P/instances/I`.
    #[prost(string, tag = "1")]
    pub instance: String,
    /// The new delay, in microseconds of the server's clock.
    #[prost(int64, tag = "2")]
    pub lag_micros: i64,
}

/// `InjectFault`'s request (see the module docs).
#[derive(Clone, PartialEq, prost::Message)]
pub struct InjectFaultRequest {
    /// `projects/P/instances/I`.
    #[prost(string, tag = "1")]
    pub instance: String,
    /// The RPC's name; empty: every RPC.
    #[prost(string, tag = "2")]
    pub rpc: String,
    /// The cluster; empty: every cluster.
    #[prost(string, tag = "3")]
    pub cluster_id: String,
    /// A gRPC code number; 0: latency only.
    #[prost(int32, tag = "4")]
    pub code: i32,
    /// How many matching requests; 0: no limit.
    #[prost(uint64, tag = "5")]
    pub count: u64,
    /// The chance a matching request is affected; unset: always.
    #[prost(double, optional, tag = "6")]
    pub probability: Option<f64>,
    /// Latency added to affected requests.
    #[prost(uint64, tag = "7")]
    pub latency_micros: u64,
    /// ReadRows only: the stream delivers this many rows, then ends with `code`; 0: the
    /// request fails before answering.
    #[prost(uint64, tag = "8")]
    pub after_rows: u64,
}

/// `ClearFaults`'s request.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct ClearFaultsRequest {
    /// `projects/P/instances/I`.
    #[prost(string, tag = "1")]
    pub instance: String,
    /// The seed later probabilistic faults draw from.
    #[prost(uint64, tag = "2")]
    pub seed: u64,
}

/// `CollectGarbage`'s request.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct CollectGarbageRequest {
    /// `projects/P/instances/I`.
    #[prost(string, tag = "1")]
    pub instance: String,
    /// The table to collect; empty: every table.
    #[prost(string, tag = "2")]
    pub table_id: String,
}

/// One cluster's state.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct ClusterStatus {
    /// Its id.
    #[prost(string, tag = "1")]
    pub cluster_id: String,
    /// Whether it serves, sends and receives.
    #[prost(bool, tag = "2")]
    pub available: bool,
}

/// Every RPC's answer: the instance's replication state after the call.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct ReplicationStatus {
    /// Its clusters, in the instance's order.
    #[prost(message, repeated, tag = "1")]
    pub clusters: Vec<ClusterStatus>,
    /// The replication delay, in microseconds.
    #[prost(int64, tag = "2")]
    pub lag_micros: i64,
    /// Writes still on their way to some cluster.
    #[prost(uint64, tag = "3")]
    pub in_flight: u64,
    /// Fault rules in force.
    #[prost(uint64, tag = "4")]
    pub faults: u64,
}

/// The service over the server's instances.
#[derive(Debug, Clone)]
pub struct ReplicationControlService {
    instances: Arc<Instances>,
}

impl ReplicationControlService {
    /// Controls `instances`.
    pub fn new(instances: Arc<Instances>) -> Self {
        ReplicationControlService { instances }
    }

    fn status(&self, instance: &InstanceName) -> Result<ReplicationStatus> {
        let plane = self.instances.plane(instance)?;
        Ok(ReplicationStatus {
            clusters: plane
                .availability()?
                .into_iter()
                .map(|(cluster_id, available)| ClusterStatus {
                    cluster_id,
                    available,
                })
                .collect(),
            lag_micros: plane.delay_micros()?,
            in_flight: plane.in_flight()? as u64,
            faults: plane.fault_count()? as u64,
        })
    }

    fn instance(&self, name: &str) -> Result<InstanceName> {
        let instance = InstanceName::parse("instance", name)?;
        if !self.instances.is_known(&instance)? {
            return Err(Error::not_found(format!("instance {instance} not found")));
        }
        Ok(instance)
    }

    fn inject(&self, req: &InjectFaultRequest) -> Result<ReplicationStatus> {
        let instance = self.instance(&req.instance)?;
        let code = match req.code {
            0 => None,
            n => Some(
                Code::ALL
                    .into_iter()
                    .find(|c| c.grpc_code() == n)
                    .ok_or_else(|| {
                        Error::invalid_argument(format!(
                            "code {n} cannot be injected: the engine's codes are {}",
                            Code::ALL.map(|c| c.grpc_code().to_string()).join(", ")
                        ))
                    })?,
            ),
        };
        let rule = FaultRule {
            rpc: (!req.rpc.is_empty()).then(|| req.rpc.clone()),
            cluster_id: (!req.cluster_id.is_empty()).then(|| req.cluster_id.clone()),
            code,
            remaining: (req.count > 0).then_some(req.count),
            probability: req.probability.unwrap_or(1.0),
            latency_micros: req.latency_micros,
        };
        let plane = self.instances.plane(&instance)?;
        match req.after_rows {
            0 => plane.add_fault(rule)?,
            n => plane.add_mid_stream_fault(rule, n)?,
        }
        self.status(&instance)
    }
}

fn answer(
    outcome: Result<ReplicationStatus>,
) -> std::result::Result<Response<ReplicationStatus>, Status> {
    outcome.map(Response::new).map_err(to_status)
}

#[tonic::async_trait]
impl service::replication_control_server::ReplicationControl for ReplicationControlService {
    async fn get_replication(
        &self,
        request: Request<GetReplicationRequest>,
    ) -> std::result::Result<Response<ReplicationStatus>, Status> {
        answer(
            self.instance(&request.get_ref().instance)
                .and_then(|i| self.status(&i)),
        )
    }

    async fn set_cluster_available(
        &self,
        request: Request<SetClusterAvailableRequest>,
    ) -> std::result::Result<Response<ReplicationStatus>, Status> {
        let req = request.get_ref();
        answer(self.instance(&req.instance).and_then(|i| {
            self.instances
                .plane(&i)?
                .set_available(&req.cluster_id, req.available)?;
            self.status(&i)
        }))
    }

    async fn set_replication_lag(
        &self,
        request: Request<SetReplicationLagRequest>,
    ) -> std::result::Result<Response<ReplicationStatus>, Status> {
        let req = request.get_ref();
        answer(self.instance(&req.instance).and_then(|i| {
            self.instances.plane(&i)?.set_delay_micros(req.lag_micros)?;
            self.status(&i)
        }))
    }

    async fn inject_fault(
        &self,
        request: Request<InjectFaultRequest>,
    ) -> std::result::Result<Response<ReplicationStatus>, Status> {
        answer(self.inject(request.get_ref()))
    }

    async fn clear_faults(
        &self,
        request: Request<ClearFaultsRequest>,
    ) -> std::result::Result<Response<ReplicationStatus>, Status> {
        let req = request.get_ref();
        answer(self.instance(&req.instance).and_then(|i| {
            self.instances.clear_faults(&i, req.seed)?;
            self.status(&i)
        }))
    }

    async fn collect_garbage(
        &self,
        request: Request<CollectGarbageRequest>,
    ) -> std::result::Result<Response<ReplicationStatus>, Status> {
        let req = request.get_ref().clone();
        let this = self.clone();
        // A full compaction of every table can take a while: off the async workers.
        let outcome = tokio::task::spawn_blocking(move || {
            let i = this.instance(&req.instance)?;
            let table = (!req.table_id.is_empty()).then_some(req.table_id.as_str());
            this.instances.collect_garbage(&i, table)?;
            this.status(&i)
        })
        .await
        .unwrap_or_else(|e| {
            Err(Error::new(
                Code::Internal,
                format!("a collect_garbage task failed: {e}"),
            ))
        });
        answer(outcome)
    }
}
