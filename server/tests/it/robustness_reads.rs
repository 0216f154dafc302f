//! Reads never block other work, against the real server binary over loopback.
//!
//! - Scans whose filter matches nothing run while a point read is made: the point read
//!   finishes before any scan does (counted, not timed), and within a generous bound derived
//!   from the scans' own unloaded duration measured in the same test.
//! - A ReadRows with a `grpc-timeout` shorter than its scan ends with DEADLINE_EXCEEDED from
//!   the server (tonic's client enforces the header only until the response headers).
//! - Clients that open ReadRows and never read hold little server memory: the server's
//!   resident set is measured before and after opening the streams.
//! - Rows are streamed one per response message, as Google's emulator does, so clients that
//!   fail or resume mid-stream see rows on both sides of the failure.
//! - A scan that matches nothing sends `last_scanned_row_key` progress messages to clients
//!   that ask for them, so a retry resumes where the scan got to.

use crate::common;

use std::time::{Duration, Instant};

use common::{read_rows, BigtableClient, Server};
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;
use tonic::transport::Channel;

const TABLE: &str = "projects/p/instances/i/tables/t";

fn set_cell(value: Vec<u8>) -> v2::Mutation {
    v2::Mutation {
        mutation: Some(v2::mutation::Mutation::SetCell(v2::mutation::SetCell {
            family_name: "cf".into(),
            column_qualifier: b"q".to_vec(),
            timestamp_micros: 1000,
            value,
        })),
    }
}

/// Writes `rows` rows `row0000000`... with a value of `value_bytes` bytes each.
async fn load(client: &mut BigtableClient<Channel>, rows: usize, value_bytes: usize) {
    for start in (0..rows).step_by(5000) {
        let entries = (start..rows.min(start + 5000))
            .map(|i| v2::mutate_rows_request::Entry {
                row_key: format!("row{i:07}").into_bytes(),
                mutations: vec![set_cell(vec![b'v'; value_bytes])],
                ..Default::default()
            })
            .collect();
        write_entries(client, entries).await;
    }
}

/// Writes `entries` with one MutateRows and expects every entry to succeed.
async fn write_entries(
    client: &mut BigtableClient<Channel>,
    entries: Vec<v2::mutate_rows_request::Entry>,
) {
    let mut stream = client
        .mutate_rows(v2::MutateRowsRequest {
            table_name: TABLE.into(),
            entries,
            ..Default::default()
        })
        .await
        .expect("mutate rows")
        .into_inner();
    while let Some(response) = stream.message().await.expect("mutate rows stream") {
        assert!(response
            .entries
            .iter()
            .all(|e| e.status.as_ref().is_none_or(|s| s.code == 0)));
    }
}

/// A ReadRows of the whole table.
fn full_read() -> v2::ReadRowsRequest {
    v2::ReadRowsRequest {
        table_name: TABLE.into(),
        ..Default::default()
    }
}

/// A server with the empty table `t` (family `cf`), and a data client of it.
async fn server_with_table() -> (Server, BigtableClient<Channel>) {
    let server = Server::start(&[]);
    server.create_table_t().await;
    let client = server.data().await;
    (server, client)
}

/// A full scan whose filter matches no cell (every value is `v...`).
fn scan_matching_nothing() -> v2::ReadRowsRequest {
    v2::ReadRowsRequest {
        table_name: TABLE.into(),
        filter: Some(v2::RowFilter {
            filter: Some(v2::row_filter::Filter::ValueRegexFilter(b"x.*".to_vec())),
        }),
        ..Default::default()
    }
}

fn point_read(key: &[u8]) -> v2::ReadRowsRequest {
    v2::ReadRowsRequest {
        table_name: TABLE.into(),
        rows: Some(v2::RowSet {
            row_keys: vec![key.to_vec()],
            row_ranges: vec![],
        }),
        ..Default::default()
    }
}

const SCAN_ROWS: usize = 100_000;
/// More scans than the server has async worker threads (one per core), so a server that
/// scans on its workers has none left for the point read.
fn scans() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get()) * 2
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "robustness suite: scripts/suites/robustness.sh"]
async fn point_reads_finish_while_scans_that_match_nothing_run() {
    let (server, mut client) = server_with_table().await;
    load(&mut client, SCAN_ROWS, 8).await;

    // Unloaded: one scan alone, and a point read alone.
    let started = Instant::now();
    let (rows, _) = read_rows(&mut client, scan_matching_nothing())
        .await
        .expect("scan");
    let one_scan = started.elapsed();
    assert!(rows.is_empty());
    let started = Instant::now();
    let (rows, _) = read_rows(&mut client, point_read(b"row0000007"))
        .await
        .expect("point read");
    let unloaded_point = started.elapsed();
    assert_eq!(rows.len(), 1);

    // Loaded: the scans on their own connections, then the point read on another.
    let mut running = Vec::new();
    for _ in 0..scans() {
        let mut scanner = server.data().await;
        running.push(tokio::spawn(async move {
            read_rows(&mut scanner, scan_matching_nothing())
                .await
                .expect("scan");
            Instant::now()
        }));
    }
    // Let every scan get going (each takes about `one_scan` alone).
    tokio::time::sleep(one_scan / 10).await;
    let mut reader = server.data().await;
    let started = Instant::now();
    let (rows, _) = read_rows(&mut reader, point_read(b"row0000042"))
        .await
        .expect("point read under load");
    let point_done = Instant::now();
    let loaded_point = point_done - started;
    assert_eq!(rows.len(), 1);
    let mut first_scan_done = None::<Instant>;
    for scan in running {
        let done = scan.await.expect("scan task");
        first_scan_done = Some(first_scan_done.map_or(done, |d| d.min(done)));
    }
    let first_scan_done = first_scan_done.expect("at least one scan");
    eprintln!(
        "one scan alone {one_scan:?}; point read alone {unloaded_point:?}, \
         beside {} scans {loaded_point:?}",
        scans()
    );
    assert!(
        point_done < first_scan_done,
        "the point read waited for a scan to finish ({loaded_point:?})"
    );
    // A generous bound: a third of what one scan alone takes, and never less than a
    // hundred unloaded point reads (the machine may be busy).
    let bound = (one_scan / 3).max(unloaded_point * 100);
    assert!(
        loaded_point < bound,
        "point read took {loaded_point:?} beside the scans (bound {bound:?})"
    );
}

#[tokio::test]
#[ignore = "robustness suite: scripts/suites/robustness.sh"]
async fn a_scan_past_its_deadline_ends_with_deadline_exceeded() {
    let (_server, mut client) = server_with_table().await;
    load(&mut client, SCAN_ROWS, 8).await;
    let started = Instant::now();
    read_rows(&mut client, scan_matching_nothing())
        .await
        .expect("scan");
    let one_scan = started.elapsed();
    // The header: tonic's client enforces it only until the response headers arrive, which
    // the server sends after the first batch (a fraction of the scan), so the end of the
    // stream is the server's doing.
    let mut request = tonic::Request::new(scan_matching_nothing());
    request.set_timeout(one_scan / 2);
    let started = Instant::now();
    let outcome = async {
        let mut stream = client.read_rows(request).await?.into_inner();
        while stream.message().await?.is_some() {}
        Ok::<_, tonic::Status>(())
    }
    .await;
    let status = outcome.expect_err("the scan outlives its deadline");
    assert_eq!(status.code(), tonic::Code::DeadlineExceeded, "{status:?}");
    assert!(
        started.elapsed() < one_scan,
        "ended at the deadline, not after the whole scan ({:?} vs {one_scan:?})",
        started.elapsed()
    );
}

/// The server process's resident set, in bytes (Linux).
fn rss_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("VmRSS");
    kib * 1024
}

/// Stalled streams: how many (`SPARSETABLE_STALLED_STREAMS` overrides, for measuring).
fn stalled_streams() -> usize {
    std::env::var("SPARSETABLE_STALLED_STREAMS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(64)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "robustness suite: scripts/suites/robustness.sh"]
async fn clients_that_never_read_hold_little_server_memory() {
    let (server, mut client) = server_with_table().await;
    // 20,000 rows of 1 KiB: about 20 MiB, far more than any stream may hold.
    load(&mut client, 20_000, 1024).await;
    // Warm the server's allocator with a full read, so what is measured is the streams.
    let (rows, _) = read_rows(&mut client, full_read())
        .await
        .expect("full read");
    assert_eq!(rows.len(), 20_000);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = rss_bytes(server.pid());

    let n = stalled_streams();
    let mut held = Vec::new();
    for i in 0..n {
        // One connection per 16 streams, like a few clients with many reads each.
        if i % 16 == 0 {
            held.push((server.data().await, Vec::new()));
        }
        let (client, streams) = held.last_mut().expect("a client");
        let response = client.read_rows(full_read()).await.expect("open read");
        // Held, never read.
        streams.push(response.into_inner());
    }
    // Let the server fill whatever it will hold for them.
    let mut after = rss_bytes(server.pid());
    for _ in 0..20 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        after = after.max(rss_bytes(server.pid()));
    }
    let per_stream = after.saturating_sub(before) / n as u64;
    eprintln!(
        "{n} stalled streams: server RSS {:.1} MiB -> {:.1} MiB, {:.0} KiB per stream",
        before as f64 / 1048576.0,
        after as f64 / 1048576.0,
        per_stream as f64 / 1024.0
    );
    assert!(
        per_stream < 1024 * 1024,
        "each stalled stream holds {per_stream} bytes of server memory"
    );
    drop(held);
}

#[tokio::test]
#[ignore = "robustness suite: scripts/suites/robustness.sh"]
async fn rows_are_streamed_one_per_response() {
    let (_server, mut client) = server_with_table().await;
    // Google's Python system tests read 32 rows of 32 cells and fail the stream mid-way.
    let entries = (0..32)
        .map(|r| v2::mutate_rows_request::Entry {
            row_key: format!("row{r:02}").into_bytes(),
            mutations: (0..32)
                .map(|c| {
                    let mut m = set_cell(format!("value{c}").into_bytes());
                    if let Some(v2::mutation::Mutation::SetCell(s)) = &mut m.mutation {
                        s.column_qualifier = format!("q{c:02}").into_bytes();
                    }
                    m
                })
                .collect(),
            ..Default::default()
        })
        .collect();
    write_entries(&mut client, entries).await;
    let mut stream = client
        .read_rows(full_read())
        .await
        .expect("read")
        .into_inner();
    let mut responses = 0;
    while let Some(response) = stream.message().await.expect("read stream") {
        responses += 1;
        assert_eq!(response.chunks.len(), 32, "one whole row per response");
        assert!(response.chunks[0].row_key.starts_with(b"row"));
    }
    assert_eq!(responses, 32);
}

#[tokio::test]
#[ignore = "robustness suite: scripts/suites/robustness.sh"]
async fn a_scan_that_matches_nothing_reports_progress_to_clients_that_ask() {
    let (_server, mut client) = server_with_table().await;
    load(&mut client, SCAN_ROWS, 8).await;
    let mut request = tonic::Request::new(scan_matching_nothing());
    request.metadata_mut().insert(
        "bigtable-features",
        features_with_last_scanned_row_responses()
            .parse()
            .expect("ascii header"),
    );
    let mut stream = client.read_rows(request).await.expect("scan").into_inner();
    let mut keys = Vec::new();
    while let Some(response) = stream.message().await.expect("scan stream") {
        assert!(response.chunks.is_empty(), "nothing matches");
        keys.push(response.last_scanned_row_key);
    }
    assert!(
        keys.len() >= 3,
        "a long scan reports progress on the way, not only at the end ({} messages)",
        keys.len()
    );
    assert!(
        keys.windows(2).all(|w| w[0] < w[1]),
        "progress moves forward"
    );
    assert_eq!(
        keys.last().map(Vec::as_slice),
        Some(format!("row{:07}", SCAN_ROWS - 1).as_bytes())
    );
}

/// A `google.bigtable.v2.FeatureFlags` message with `last_scanned_row_responses` set, as
/// Google's clients send it in the `bigtable-features` header (URL-safe base64).
fn features_with_last_scanned_row_responses() -> String {
    use base64::Engine as _;
    use prost::Message;
    let flags = v2::FeatureFlags {
        last_scanned_row_responses: true,
        ..Default::default()
    };
    base64::engine::general_purpose::URL_SAFE.encode(flags.encode_to_vec())
}
