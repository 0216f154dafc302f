//! `sparsetable.testing.v1.TestClock`: moves the frozen clock of a server started with
//! `--clock-micros`, so tests can watch time-dependent behaviour (max_age GC, server-assigned
//! timestamps, ReadModifyWriteRow's `max(old, now)`) through the real API.
//!
//! There is no .proto file: the two request messages and the response are defined here with
//! `prost::Message`, and `build.rs` generates the service over them. The wire contract, which
//! must never change (field numbers are on the wire):
//!
//! ```text
//! package sparsetable.testing.v1;
//! service TestClock {
//!   rpc SetTime(SetTimeRequest) returns (TimeResponse);        // the clock reads `micros`
//!   rpc AdvanceTime(AdvanceTimeRequest) returns (TimeResponse); // the clock moves by delta
//! }
//! message SetTimeRequest { int64 micros = 1; }
//! message AdvanceTimeRequest { int64 delta_micros = 1; }  // may be negative
//! message TimeResponse { int64 now_micros = 1; }          // the time after the change
//! ```
//!
//! The service is only served when the clock is manual; a server on the system clock answers
//! UNIMPLEMENTED for it, as for any unknown service.

use std::sync::Arc;

use sparsetable::{Clock, Error, ManualClock};
use tonic::{Request, Response, Status};

use crate::status::to_status;

/// Generated server and client of the service.
pub mod service {
    include!(concat!(
        env!("OUT_DIR"),
        "/sparsetable.testing.v1.TestClock.rs"
    ));
}

/// `SetTime`'s request: the new time.
#[derive(Clone, Copy, PartialEq, Eq, prost::Message)]
pub struct SetTimeRequest {
    /// Microseconds since the Unix epoch; must not be negative.
    #[prost(int64, tag = "1")]
    pub micros: i64,
}

/// `AdvanceTime`'s request: how far to move.
#[derive(Clone, Copy, PartialEq, Eq, prost::Message)]
pub struct AdvanceTimeRequest {
    /// Microseconds to add (negative moves back); the result must not be negative.
    #[prost(int64, tag = "1")]
    pub delta_micros: i64,
}

/// Both RPCs' answer: the time the server now reads.
#[derive(Clone, Copy, PartialEq, Eq, prost::Message)]
pub struct TimeResponse {
    /// Microseconds since the Unix epoch.
    #[prost(int64, tag = "1")]
    pub now_micros: i64,
}

/// The service over the server's manual clock.
#[derive(Debug, Clone)]
pub struct TestClockService {
    clock: Arc<ManualClock>,
}

impl TestClockService {
    /// Controls `clock`, the one every database of the server reads.
    pub fn new(clock: Arc<ManualClock>) -> Self {
        TestClockService { clock }
    }

    fn set(&self, micros: Option<i64>) -> Result<TimeResponse, Error> {
        // Timestamps are non-negative in Bigtable: a clock before the epoch would make the
        // server hand out invalid ones.
        let micros = micros.filter(|m| *m >= 0).ok_or_else(|| {
            Error::invalid_argument("the clock must stay at or after the Unix epoch (0 micros)")
        })?;
        self.clock.set_micros(micros);
        Ok(TimeResponse {
            now_micros: self.clock.now_micros(),
        })
    }
}

#[tonic::async_trait]
impl service::test_clock_server::TestClock for TestClockService {
    async fn set_time(
        &self,
        request: Request<SetTimeRequest>,
    ) -> Result<Response<TimeResponse>, Status> {
        self.set(Some(request.get_ref().micros))
            .map(Response::new)
            .map_err(to_status)
    }

    async fn advance_time(
        &self,
        request: Request<AdvanceTimeRequest>,
    ) -> Result<Response<TimeResponse>, Status> {
        let target = self
            .clock
            .now_micros()
            .checked_add(request.get_ref().delta_micros);
        self.set(target).map(Response::new).map_err(to_status)
    }
}
