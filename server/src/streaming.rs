//! Server streams with back-pressure, and the request deadline a client sends.
//!
//! A [`ResponseStream`] hands tonic responses that are either all in hand (a point read, a
//! small scan) or arrive in batches through a channel of capacity one. The producer reserves
//! the channel's one slot before it reads the next batch (see `data::read_rows`), so a
//! client that stops reading holds the server to at most two batches: the one tonic is
//! draining and the one waiting in the slot. Nothing is read ahead for it beyond that.
//!
//! [`MidStreamFault`] is an injected mid-stream fault (the core's
//! `FaultInjector::add_mid_stream`) as a stream applies it: it lets a set number of rows
//! through, cuts the batch that reaches it there, and gives the status that then ends the
//! stream. A stream that finishes with fewer rows ends normally.
//!
//! [`Deadline`] is gRPC's `grpc-timeout` request header turned into an instant. tonic applies
//! it to producing the response headers only; a long stream checks it between batches
//! itself and ends with DEADLINE_EXCEEDED, as Cloud Bigtable does.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tokio_stream::Stream;
use tonic::metadata::MetadataMap;
use tonic::Status;

/// What a batch producer sends: a batch of responses, or the status that ends the stream.
pub type Batch<T> = Result<Vec<T>, Status>;

/// A server stream of responses fed in batches (see the module docs).
#[derive(Debug)]
pub struct ResponseStream<T> {
    ready: VecDeque<T>,
    batches: Option<mpsc::Receiver<Batch<T>>>,
    /// The status that ends a stream whose responses were all in hand (see
    /// [`ResponseStream::ready_then`]).
    end: Option<Status>,
}

impl<T> ResponseStream<T> {
    /// A stream of responses that are all known up front.
    pub fn ready(responses: Vec<T>) -> Self {
        ResponseStream {
            ready: responses.into(),
            batches: None,
            end: None,
        }
    }

    /// A stream of responses all known up front that ends with `status` after them.
    pub fn ready_then(responses: Vec<T>, status: Status) -> Self {
        ResponseStream {
            end: Some(status),
            ..Self::ready(responses)
        }
    }

    /// A stream fed through the returned sender, one batch at a time; it ends when the
    /// sender is dropped or after a batch that is an error.
    pub fn channel() -> (mpsc::Sender<Batch<T>>, Self) {
        let (tx, rx) = mpsc::channel(1);
        (
            tx,
            ResponseStream {
                ready: VecDeque::new(),
                batches: Some(rx),
                end: None,
            },
        )
    }
}

impl<T: Unpin> Stream for ResponseStream<T> {
    type Item = Result<T, Status>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            if let Some(response) = this.ready.pop_front() {
                return Poll::Ready(Some(Ok(response)));
            }
            let Some(rx) = this.batches.as_mut() else {
                return Poll::Ready(this.end.take().map(Err));
            };
            match rx.poll_recv(cx) {
                Poll::Ready(Some(Ok(batch))) => this.ready = batch.into(),
                Poll::Ready(Some(Err(status))) => {
                    this.batches = None;
                    return Poll::Ready(Some(Err(status)));
                }
                Poll::Ready(None) => {
                    this.batches = None;
                    return Poll::Ready(None);
                }
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

/// An injected mid-stream fault as a stream applies it (see the module docs).
#[derive(Debug)]
pub struct MidStreamFault {
    left: u64,
    error: Option<sparsetable::Error>,
}

impl MidStreamFault {
    /// A fault that lets `after_rows` rows through, then ends the stream with `error` (made a
    /// status, and logged as a failed request, only if the stream gets that far).
    pub fn new(after_rows: u64, error: sparsetable::Error) -> Self {
        MidStreamFault {
            left: after_rows,
            error: Some(error),
        }
    }

    /// Cuts `rows`, the stream's next batch, to the rows the fault still lets through; once
    /// they are used up, the status that ends the stream after this batch (given once).
    /// Whatever the scan read past the cut, its progress key included, is then not sent: a
    /// client resumes after the last row it received.
    pub fn cut<R>(&mut self, rows: &mut Vec<R>) -> Option<Status> {
        let n = rows.len() as u64;
        if n < self.left {
            self.left -= n;
            return None;
        }
        rows.truncate(usize::try_from(self.left).unwrap_or(usize::MAX));
        self.left = 0;
        self.error.take().map(crate::status::to_status)
    }
}

/// When a call must be finished by, from its `grpc-timeout` header; unbounded without one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline(Option<Instant>);

impl Deadline {
    /// The deadline the request's `grpc-timeout` header sets, counted from now. A missing or
    /// malformed header means no deadline.
    pub fn from_metadata(metadata: &MetadataMap) -> Self {
        let timeout = metadata
            .get("grpc-timeout")
            .and_then(|v| v.to_str().ok())
            .and_then(parse_grpc_timeout);
        Deadline(timeout.and_then(|t| Instant::now().checked_add(t)))
    }

    /// A deadline `after` from now (tests).
    pub fn after(after: Duration) -> Self {
        Deadline(Instant::now().checked_add(after))
    }

    /// # Errors
    /// DEADLINE_EXCEEDED once the deadline has passed.
    pub fn check(&self) -> Result<(), Status> {
        match self.0 {
            Some(at) if Instant::now() >= at => Err(Status::deadline_exceeded(
                "the request's deadline passed before the read finished",
            )),
            _ => Ok(()),
        }
    }
}

/// gRPC's `TimeoutValue TimeoutUnit`: at most 8 digits, then one of `H M S m u n`.
fn parse_grpc_timeout(text: &str) -> Option<Duration> {
    let (digits, unit) = text.split_at(text.len().checked_sub(1)?);
    if digits.is_empty() || digits.len() > 8 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(n * 3600),
        "M" => Duration::from_secs(n * 60),
        "S" => Duration::from_secs(n),
        "m" => Duration::from_millis(n),
        "u" => Duration::from_micros(n),
        "n" => Duration::from_nanos(n),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparsetable::{Code, Error};
    use tokio_stream::StreamExt;

    #[test]
    fn grpc_timeout_values_parse_as_the_spec_writes_them() {
        assert_eq!(parse_grpc_timeout("100m"), Some(Duration::from_millis(100)));
        assert_eq!(parse_grpc_timeout("2S"), Some(Duration::from_secs(2)));
        assert_eq!(parse_grpc_timeout("1H"), Some(Duration::from_secs(3600)));
        assert_eq!(parse_grpc_timeout("5n"), Some(Duration::from_nanos(5)));
        for bad in ["", "m", "123456789m", "10x", "-1S", "1.5S"] {
            assert_eq!(parse_grpc_timeout(bad), None, "{bad}");
        }
        assert!(Deadline::after(Duration::ZERO).check().is_err());
        assert!(Deadline::after(Duration::from_secs(60)).check().is_ok());
        assert!(Deadline(None).check().is_ok());
    }

    #[test]
    fn a_mid_stream_fault_lets_its_rows_through_then_ends_the_stream_once() {
        let mut fault = MidStreamFault::new(5, Error::new(Code::Unavailable, "dropped"));
        let mut batch = vec![1, 2, 3];
        assert!(fault.cut(&mut batch).is_none());
        assert_eq!(batch, [1, 2, 3]);
        let mut batch = vec![4, 5, 6, 7];
        let status = fault
            .cut(&mut batch)
            .expect("the fifth row ends the stream");
        assert_eq!(status.code(), tonic::Code::Unavailable);
        assert_eq!(batch, [4, 5]);
        // Exactly at the count: the whole batch goes, then the status.
        let mut exact = MidStreamFault::new(2, Error::new(Code::Aborted, "dropped"));
        let mut batch = vec![1, 2];
        assert!(exact.cut(&mut batch).is_some());
        assert_eq!(batch, [1, 2]);
        let mut later = vec![3];
        assert!(exact.cut(&mut later).is_none());
        assert!(later.is_empty(), "nothing passes a spent fault");
    }

    #[tokio::test]
    async fn a_ready_stream_can_end_with_a_status() {
        let stream = ResponseStream::ready_then(vec![1, 2], Status::unavailable("dropped"));
        let got: Vec<_> = stream.map(|r| r.map_err(|s| s.code())).collect().await;
        assert_eq!(got, [Ok(1), Ok(2), Err(tonic::Code::Unavailable)]);
        let plain: Vec<_> = ResponseStream::ready(vec![1])
            .map(|r| r.map_err(|s| s.code()))
            .collect()
            .await;
        assert_eq!(plain, [Ok(1)]);
    }

    #[tokio::test]
    async fn batches_arrive_in_order_and_an_error_ends_the_stream() {
        let (tx, mut stream) = ResponseStream::<u32>::channel();
        tokio::spawn(async move {
            tx.send(Ok(vec![1, 2])).await.unwrap();
            tx.send(Ok(vec![])).await.unwrap();
            tx.send(Ok(vec![3])).await.unwrap();
            tx.send(Err(Status::deadline_exceeded("late")))
                .await
                .unwrap();
            let _ = tx.send(Ok(vec![4])).await;
        });
        let mut got = Vec::new();
        while let Some(item) = stream.next().await {
            got.push(item.map_err(|s| s.code()));
        }
        assert_eq!(
            got,
            [Ok(1), Ok(2), Ok(3), Err(tonic::Code::DeadlineExceeded)]
        );
    }
}
