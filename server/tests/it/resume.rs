//! ReadRows failing mid-stream through the real server: a ReplicationControl fault with
//! `after_rows` makes a stream deliver that many rows and then end with the fault's status,
//! and a client that re-issues the read the way Google's clients do (the core's
//! `ReadRowsRequest::resume_after_rows`: the row set cut past the last row received, the
//! limit lowered by the rows received) gets every row exactly once, under ranges, keys,
//! limits and reversed reads, whether the cut falls in the stream's first batch (answered
//! whole) or in a later one (streamed by the server's task).

use std::ops::Bound;

use crate::common;
use common::Server;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;
use sparsetable_server::replication_control::service::replication_control_client::ReplicationControlClient;
use sparsetable_server::replication_control::InjectFaultRequest;
use tonic::transport::Channel;
use v2::bigtable_client::BigtableClient;

const INSTANCE: &str = "projects/p/instances/i";
const TABLE: &str = "projects/p/instances/i/tables/t";
/// More rows than one server batch (`scan::BATCH_ROWS`, 256), so later batches are streamed.
const ROWS: usize = 600;

fn key(i: usize) -> Vec<u8> {
    format!("r{i:04}").into_bytes()
}

/// A server with table `t` holding rows `r0000` to `r0599`, one cell each.
async fn server_with_rows() -> Server {
    let server = Server::start(&[]);
    server.create_table_t().await;
    let entries = (0..ROWS)
        .map(|i| v2::mutate_rows_request::Entry {
            row_key: key(i),
            mutations: vec![v2::Mutation {
                mutation: Some(v2::mutation::Mutation::SetCell(v2::mutation::SetCell {
                    family_name: "cf".into(),
                    column_qualifier: b"q".to_vec(),
                    timestamp_micros: 1_000,
                    value: key(i),
                })),
            }],
            ..Default::default()
        })
        .collect();
    let mut stream = server
        .data()
        .await
        .mutate_rows(v2::MutateRowsRequest {
            table_name: TABLE.into(),
            entries,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    while let Some(r) = stream.message().await.unwrap() {
        assert!(r
            .entries
            .iter()
            .all(|e| e.status.as_ref().unwrap().code == 0));
    }
    server
}

/// Injects `count` ReadRows faults that fail a stream with UNAVAILABLE after `after_rows`.
async fn inject(server: &Server, after_rows: u64, count: u64) {
    ReplicationControlClient::new(server.channel().await)
        .inject_fault(InjectFaultRequest {
            instance: INSTANCE.into(),
            rpc: "ReadRows".into(),
            code: 14,
            count,
            after_rows,
            ..Default::default()
        })
        .await
        .expect("inject a mid-stream fault");
}

/// One ReadRows attempt: the keys of the rows it committed, and the status that ended it
/// (`None`: it finished). Every row here has one cell, so a chunk is a row.
async fn attempt(
    client: &mut BigtableClient<Channel>,
    request: v2::ReadRowsRequest,
) -> (Vec<Vec<u8>>, Option<tonic::Status>) {
    let mut stream = match client.read_rows(request).await {
        Ok(s) => s.into_inner(),
        Err(e) => return (Vec::new(), Some(e)),
    };
    let mut keys = Vec::new();
    loop {
        match stream.message().await {
            Ok(Some(response)) => {
                assert!(
                    response.last_scanned_row_key.is_empty(),
                    "no progress key without the feature header"
                );
                for chunk in response.chunks {
                    assert_eq!(
                        chunk.row_status,
                        Some(v2::read_rows_response::cell_chunk::RowStatus::CommitRow(
                            true
                        ))
                    );
                    keys.push(chunk.row_key);
                }
            }
            Ok(None) => return (keys, None),
            Err(status) => return (keys, Some(status)),
        }
    }
}

fn bound_to_start(b: &Bound<Vec<u8>>) -> Option<v2::row_range::StartKey> {
    match b {
        Bound::Included(k) => Some(v2::row_range::StartKey::StartKeyClosed(k.clone())),
        Bound::Excluded(k) => Some(v2::row_range::StartKey::StartKeyOpen(k.clone())),
        Bound::Unbounded => None,
    }
}

fn bound_to_end(b: &Bound<Vec<u8>>) -> Option<v2::row_range::EndKey> {
    match b {
        Bound::Included(k) => Some(v2::row_range::EndKey::EndKeyClosed(k.clone())),
        Bound::Excluded(k) => Some(v2::row_range::EndKey::EndKeyOpen(k.clone())),
        Bound::Unbounded => None,
    }
}

/// The core's request as the wire's (what a client would send).
fn to_proto(request: &sparsetable::ReadRowsRequest) -> v2::ReadRowsRequest {
    let set = &request.row_set;
    let rows = (!set.row_keys.is_empty() || !set.row_ranges.is_empty()).then(|| v2::RowSet {
        row_keys: set.row_keys.clone(),
        row_ranges: set
            .row_ranges
            .iter()
            .map(|r| v2::RowRange {
                start_key: bound_to_start(&r.start),
                end_key: bound_to_end(&r.end),
            })
            .collect(),
    });
    v2::ReadRowsRequest {
        table_name: TABLE.into(),
        rows,
        rows_limit: request.rows_limit,
        reversed: request.reversed,
        ..Default::default()
    }
}

/// Reads `request` to the end, re-issuing it after each UNAVAILABLE with the core's
/// `resume_after_rows`; returns every key received and how many attempts failed.
async fn read_resuming(
    client: &mut BigtableClient<Channel>,
    request: sparsetable::ReadRowsRequest,
) -> (Vec<Vec<u8>>, usize) {
    let mut got: Vec<Vec<u8>> = Vec::new();
    let mut failures = 0;
    let mut next = Some(request.clone());
    while let Some(req) = next {
        let (keys, status) = attempt(client, to_proto(&req)).await;
        got.extend(keys);
        match status {
            None => break,
            Some(s) => {
                assert_eq!(s.code(), tonic::Code::Unavailable, "{s:?}");
                assert!(s.message().contains("injected fault"), "{}", s.message());
                failures += 1;
                assert!(failures < 50, "the read never finished");
                next = request.resume_after_rows(got.last().map(Vec::as_slice), got.len() as u64);
            }
        }
    }
    (got, failures)
}

#[tokio::test]
async fn a_mid_stream_fault_delivers_its_rows_then_ends_the_stream_with_its_code() {
    let server = server_with_rows().await;
    let mut data = server.data().await;
    // A cut inside the first batch (answered whole) and one in a later, streamed batch.
    for after in [7u64, 300] {
        inject(&server, after, 1).await;
        let (keys, status) = attempt(
            &mut data,
            v2::ReadRowsRequest {
                table_name: TABLE.into(),
                ..Default::default()
            },
        )
        .await;
        let status = status.expect("the stream ends with the fault");
        assert_eq!(status.code(), tonic::Code::Unavailable);
        let expected: Vec<_> = (0..after as usize).map(key).collect();
        assert_eq!(keys, expected, "after_rows {after}");
        // The fault had a count of one: the next read is whole.
        let (keys, status) = attempt(
            &mut data,
            v2::ReadRowsRequest {
                table_name: TABLE.into(),
                ..Default::default()
            },
        )
        .await;
        assert!(status.is_none(), "{status:?}");
        assert_eq!(keys.len(), ROWS);
    }
    // A read with fewer rows than the fault lets through ends normally.
    inject(&server, 50, 1).await;
    let (keys, status) = attempt(
        &mut data,
        v2::ReadRowsRequest {
            table_name: TABLE.into(),
            rows_limit: 10,
            ..Default::default()
        },
    )
    .await;
    assert!(status.is_none(), "{status:?}");
    assert_eq!(keys.len(), 10);
}

#[tokio::test]
async fn a_resuming_client_reads_every_row_once_under_ranges_keys_limits_and_reversal() {
    use sparsetable::{ReadRowsRequest, RowRange, RowSet};
    let server = server_with_rows().await;
    let mut data = server.data().await;
    let range = |a: usize, b: usize| RowRange {
        start: Bound::Included(key(a)),
        end: Bound::Excluded(key(b)),
    };
    let cases: Vec<(&str, ReadRowsRequest, Vec<usize>)> = vec![
        (
            "full table",
            ReadRowsRequest::default(),
            (0..ROWS).collect(),
        ),
        (
            "limit",
            ReadRowsRequest {
                rows_limit: 450,
                ..Default::default()
            },
            (0..450).collect(),
        ),
        (
            "ranges and keys",
            ReadRowsRequest {
                row_set: RowSet {
                    row_keys: vec![key(3), key(590)],
                    row_ranges: vec![range(100, 200), range(250, 520)],
                },
                ..Default::default()
            },
            std::iter::once(3)
                .chain(100..200)
                .chain(250..520)
                .chain(std::iter::once(590))
                .collect(),
        ),
        (
            "reversed with a limit",
            ReadRowsRequest {
                row_set: RowSet {
                    row_keys: Vec::new(),
                    row_ranges: vec![range(20, 580)],
                },
                rows_limit: 400,
                reversed: true,
                ..Default::default()
            },
            (180..580).rev().collect(),
        ),
    ];
    for (name, request, expected) in cases {
        // Three drops, each after 130 rows: the first in a streamed batch, later ones in
        // first batches of resumed reads.
        inject(&server, 130, 3).await;
        let (got, failures) = read_resuming(&mut data, request).await;
        let expected: Vec<_> = expected.into_iter().map(key).collect();
        assert_eq!(got.len(), expected.len(), "{name}");
        assert_eq!(got, expected, "{name}: every row once, in order");
        // A drop fires once a stream reaches 130 rows; a last attempt with fewer ends normally.
        let drops = (expected.len() / 130).min(3);
        assert_eq!(failures, drops, "{name}: each drop was met and resumed");
    }
}

#[tokio::test]
async fn the_control_command_line_injects_a_mid_stream_fault_and_refuses_bad_ones() {
    let server = server_with_rows().await;
    let fault = ["fault", "--rpc", "ReadRows", "--code", "UNAVAILABLE"];
    let (code, err) = common::control(
        &server,
        &[&fault[..], &["--count", "1", "--after-rows", "5"]].concat(),
    );
    assert_eq!(code, 0, "{err}");
    let (keys, status) = attempt(
        &mut server.data().await,
        v2::ReadRowsRequest {
            table_name: TABLE.into(),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(status.map(|s| s.code()), Some(tonic::Code::Unavailable));
    assert_eq!(keys, (0..5).map(key).collect::<Vec<_>>());
    // The core's rules: ReadRows only, a code, at least one row.
    for (words, why) in [
        (
            &[
                "fault",
                "--rpc",
                "MutateRow",
                "--code",
                "UNAVAILABLE",
                "--after-rows",
                "5",
            ][..],
            "ReadRows only",
        ),
        (
            &[
                "fault",
                "--rpc",
                "ReadRows",
                "--latency",
                "1ms",
                "--after-rows",
                "5",
            ][..],
            "needs a code",
        ),
    ] {
        let (code, err) = common::control(&server, words);
        assert_eq!(code, 1, "{words:?}: {err}");
        assert!(err.contains(why), "{words:?}: {err}");
    }
}
