//! Reads that retry and resume the way Google's Python data client does
//! (`google.cloud.bigtable.data`'s `read_rows` / `read_rows_stream`): an attempt that fails
//! with a retryable code (by default DEADLINE_EXCEEDED, UNAVAILABLE and ABORTED), before its
//! first row or in the middle of its rows, is re-issued for the rows not yet received, after
//! an exponential backoff (10 ms, doubling, at most 60 s), until the operation timeout
//! (600 s by default) would pass; a failure with any other code ends the read at once.
//!
//! Where the failures come from: the instance's injected faults (the core's
//! `FaultInjector`), checked when an attempt is routed; a mid-stream rule
//! (`Routed::stream_fault`) lets the attempt deliver its rows and then fails it. Which read is
//! re-issued is the core's rule, `ReadRowsRequest::resume_after_rows` (the row set cut past
//! the last key received, the limit lowered by the rows received; nothing left: the read is
//! over); this module only counts rows and waits.
//!
//! Differences from Google's client, by design: the backoff is the upper bound of each of
//! its random draws (no jitter), so a test's timing repeats; the attempt timeout has nothing
//! to bound in-process and is not applied.
//!
//! Invariants: every row is delivered once and in the read's order (a resumed attempt starts
//! strictly past the last row delivered); `delivered` never exceeds the read's limit; the
//! stream holds no lock between batches.

use std::sync::Arc;
use std::time::{Duration, Instant};

use sparsetable::{
    BatchLimits, Code, Error, InstanceData, ReadRowsRequest, RequestKind, Result, Row, RowStream,
};

/// How a read retries (see the module docs).
#[derive(Debug, Clone)]
pub struct RetryPolicy {
    /// The codes an attempt is re-issued after.
    pub retryable: Vec<Code>,
    /// How long the whole read may take, retries and backoff included; `None`: no bound.
    pub operation_timeout: Option<Duration>,
}

/// Google's client's first backoff, its growth and its bound.
const INITIAL_BACKOFF: Duration = Duration::from_millis(10);
const BACKOFF_MULTIPLIER: u32 = 2;
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// The wait before retry number `failures` (1 for the first).
fn backoff(failures: u32) -> Duration {
    let mut wait = INITIAL_BACKOFF;
    for _ in 1..failures {
        wait = wait.saturating_mul(BACKOFF_MULTIPLIER);
        if wait >= MAX_BACKOFF {
            return MAX_BACKOFF;
        }
    }
    wait
}

/// One attempt's engine stream and the mid-stream fault it was routed with.
struct Attempt {
    stream: RowStream,
    /// Rows this attempt delivers before it fails with the error.
    fault: Option<(u64, Error)>,
    rows: u64,
}

/// A read over an instance's routed clusters that retries and resumes (see the module docs).
pub struct ResumingRead {
    plane: Arc<InstanceData>,
    app_profile_id: String,
    table_id: String,
    base: ReadRowsRequest,
    policy: RetryPolicy,
    started: Instant,
    failures: u32,
    delivered: u64,
    last_key: Option<Vec<u8>>,
    attempt: Option<Attempt>,
    done: bool,
}

impl ResumingRead {
    /// A read of `request` on `table_id` through `app_profile_id`; nothing is routed yet.
    pub fn new(
        plane: Arc<InstanceData>,
        app_profile_id: String,
        table_id: String,
        request: ReadRowsRequest,
        policy: RetryPolicy,
    ) -> Self {
        ResumingRead {
            plane,
            app_profile_id,
            table_id,
            base: request,
            policy,
            started: Instant::now(),
            failures: 0,
            delivered: 0,
            last_key: None,
            attempt: None,
            done: false,
        }
    }

    /// Opens the first attempt now, so a request the engine refuses (a bad filter, an
    /// unknown table) fails the call itself; a retryable failure is retried here.
    ///
    /// # Errors
    /// As [`ResumingRead::next_batch`].
    pub fn start(&mut self) -> Result<()> {
        while !self.done && self.attempt.is_none() {
            if let Err(e) = self.open() {
                self.failed(e)?;
            }
        }
        Ok(())
    }

    /// Routes and opens the next attempt: the whole read first, then what is left of it.
    fn open(&mut self) -> Result<()> {
        let request = if self.failures == 0 && self.delivered == 0 {
            self.base.clone()
        } else {
            match self
                .base
                .resume_after_rows(self.last_key.as_deref(), self.delivered)
            {
                Some(next) => next,
                None => {
                    self.done = true;
                    return Ok(());
                }
            }
        };
        let routed = self
            .plane
            .route(&self.app_profile_id, "ReadRows", RequestKind::Read, b"")?;
        if routed.latency_micros > 0 {
            std::thread::sleep(Duration::from_micros(routed.latency_micros));
        }
        let stream = routed.db.read_rows_stream(&self.table_id, &request)?;
        self.attempt = Some(Attempt {
            stream,
            fault: routed.stream_fault,
            rows: 0,
        });
        Ok(())
    }

    /// After an attempt failed with `error`: waits out the backoff and drops the attempt if
    /// the read may retry, or gives the error back.
    fn failed(&mut self, error: Error) -> Result<()> {
        self.attempt = None;
        if !self.policy.retryable.contains(&error.code()) {
            self.done = true;
            return Err(error);
        }
        self.failures = self.failures.saturating_add(1);
        let wait = backoff(self.failures);
        if let Some(limit) = self.policy.operation_timeout {
            if self.started.elapsed() + wait > limit {
                self.done = true;
                return Err(Error::new(
                    Code::DeadlineExceeded,
                    format!(
                        "operation_timeout of {:.1}s exceeded after {} failed attempts; the last: {}",
                        limit.as_secs_f64(),
                        self.failures,
                        error.message()
                    ),
                ));
            }
        }
        std::thread::sleep(wait);
        Ok(())
    }

    /// The next rows, and whether more may follow (an empty batch with more: the engine
    /// examined rows the filter dropped; the caller checks for signals and asks again).
    /// Runs without the GIL: it may route, read and wait out a backoff.
    ///
    /// # Errors
    /// A failure whose code the policy does not retry; DEADLINE_EXCEEDED once the operation
    /// timeout would pass before the next attempt.
    pub fn next_batch(&mut self, limits: &BatchLimits) -> Result<(Vec<Row>, bool)> {
        loop {
            if self.done {
                return Ok((Vec::new(), false));
            }
            let Some(attempt) = self.attempt.as_mut() else {
                if let Err(e) = self.open() {
                    self.failed(e)?;
                }
                continue;
            };
            let mut limits = *limits;
            if let Some((after, error)) = &attempt.fault {
                let left = after.saturating_sub(attempt.rows);
                if left == 0 {
                    // The attempt delivered its rows: it fails here.
                    let error = error.clone();
                    self.failed(error)?;
                    continue;
                }
                limits.max_rows = limits
                    .max_rows
                    .min(usize::try_from(left).unwrap_or(usize::MAX));
            }
            let batch = match attempt.stream.next_batch(&limits) {
                Ok(batch) => batch,
                Err(e) => {
                    self.failed(e)?;
                    continue;
                }
            };
            let n = batch.rows.len() as u64;
            attempt.rows += n;
            self.delivered += n;
            if let Some(last) = batch.rows.last() {
                self.last_key = Some(last.key.clone());
            }
            // A stream that reached its fault's rows fails on the next call even if it ended
            // there, as the server's stream does.
            let faulted = attempt
                .fault
                .as_ref()
                .is_some_and(|(a, _)| attempt.rows >= *a);
            if !batch.more && !faulted {
                self.attempt = None;
                self.done = true;
            }
            return Ok((batch.rows, !self.done));
        }
    }
}
