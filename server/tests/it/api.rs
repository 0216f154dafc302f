//! The server's own surface beyond the shared vectors, through the real binary: ReadRows'
//! request stats and `last_scanned_row_key` (asked for through the `bigtable-features`
//! header), labels on chunks, PingAndWarm, the TestClock moving a frozen clock, UpdateTable,
//! consistency tokens, and backups as finished long-running operations that
//! `google.longrunning.Operations` also answers for.

use crate::common;

use common::{read_rows, Server};
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin_v2;
use googleapis_tonic_google_bigtable_admin_v2::google::longrunning;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;
use prost::Message;
use sparsetable_server::test_clock::service::test_clock_client::TestClockClient;
use sparsetable_server::test_clock::{AdvanceTimeRequest, SetTimeRequest};

fn family_table(
    parent: &str,
    id: &str,
    family: admin_v2::ColumnFamily,
) -> admin_v2::CreateTableRequest {
    admin_v2::CreateTableRequest {
        parent: parent.to_string(),
        table_id: id.to_string(),
        table: Some(admin_v2::Table {
            column_families: [("cf".to_string(), family)].into_iter().collect(),
            ..Default::default()
        }),
        initial_splits: vec![],
    }
}

fn set_cell(ts: i64, value: &[u8]) -> v2::Mutation {
    v2::Mutation {
        mutation: Some(v2::mutation::Mutation::SetCell(v2::mutation::SetCell {
            family_name: "cf".into(),
            column_qualifier: b"q".to_vec(),
            timestamp_micros: ts,
            value: value.to_vec(),
        })),
    }
}

fn mutate(table: &str, key: &[u8], mutations: Vec<v2::Mutation>) -> v2::MutateRowRequest {
    v2::MutateRowRequest {
        table_name: table.to_string(),
        row_key: key.to_vec(),
        mutations,
        ..Default::default()
    }
}

/// Standard base64 with padding, written out here so the test does not share the server's
/// decoder.
fn base64(bytes: &[u8]) -> String {
    const TABLE: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for group in bytes.chunks(3) {
        let mut b = [0u8; 3];
        b[..group.len()].copy_from_slice(group);
        let n = u32::from_be_bytes([0, b[0], b[1], b[2]]);
        for i in 0..4 {
            if i <= group.len() {
                out.push(TABLE[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Every response of a ReadRows call, raw.
async fn read_responses(
    server: &Server,
    request: v2::ReadRowsRequest,
    last_scanned_row_responses: bool,
) -> Vec<v2::ReadRowsResponse> {
    let mut request = tonic::Request::new(request);
    if last_scanned_row_responses {
        let flags = v2::FeatureFlags {
            last_scanned_row_responses: true,
            ..Default::default()
        };
        request.metadata_mut().insert(
            "bigtable-features",
            base64(&flags.encode_to_vec()).parse().unwrap(),
        );
    }
    let mut stream = server
        .data()
        .await
        .read_rows(request)
        .await
        .unwrap()
        .into_inner();
    let mut responses = Vec::new();
    while let Some(r) = stream.message().await.unwrap() {
        responses.push(r);
    }
    responses
}

#[tokio::test]
async fn read_rows_reports_stats_labels_and_the_last_scanned_row() {
    let server = Server::start(&[]);
    let mut admin = server.admin().await;
    let mut data = server.data().await;
    let parent = "projects/p/instances/reads";
    let t = format!("{parent}/tables/t");
    admin
        .create_table(family_table(parent, "t", Default::default()))
        .await
        .unwrap();
    for (key, value) in [
        ("a", "keep"),
        ("b", "drop"),
        ("c", "keep"),
        ("d", "drop"),
        ("e", "drop"),
    ] {
        data.mutate_row(mutate(
            &t,
            key.as_bytes(),
            vec![
                set_cell(1000, value.as_bytes()),
                set_cell(2000, value.as_bytes()),
            ],
        ))
        .await
        .unwrap();
    }
    let keep_labelled = v2::RowFilter {
        filter: Some(v2::row_filter::Filter::Chain(v2::row_filter::Chain {
            filters: vec![
                v2::RowFilter {
                    filter: Some(v2::row_filter::Filter::ValueRegexFilter(b"keep".to_vec())),
                },
                v2::RowFilter {
                    filter: Some(v2::row_filter::Filter::CellsPerColumnLimitFilter(1)),
                },
                v2::RowFilter {
                    filter: Some(v2::row_filter::Filter::ApplyLabelTransformer("kept".into())),
                },
            ],
        })),
    };
    let request = v2::ReadRowsRequest {
        table_name: t.clone(),
        filter: Some(keep_labelled),
        request_stats_view: v2::read_rows_request::RequestStatsView::RequestStatsFull as i32,
        ..Default::default()
    };

    let (rows, _) = read_rows(&mut data, request.clone()).await.unwrap();
    assert_eq!(
        rows.iter().map(|r| r.key.as_slice()).collect::<Vec<_>>(),
        [b"a", b"c"]
    );
    for row in &rows {
        assert_eq!(row.cells.len(), 1);
        assert_eq!(row.cells[0].timestamp_micros, 2000);
        assert_eq!(row.cells[0].labels, ["kept"]);
    }

    let responses = read_responses(&server, request.clone(), true).await;
    let last = responses.last().unwrap();
    assert!(last.chunks.is_empty(), "stats travel in a closing response");
    // d and e were scanned and filtered out after the last returned row, c.
    assert_eq!(last.last_scanned_row_key, b"e");
    let Some(v2::request_stats::StatsView::FullReadStatsView(view)) =
        last.request_stats.and_then(|s| s.stats_view)
    else {
        panic!("no FullReadStatsView in {last:?}");
    };
    assert_eq!(
        view.read_iteration_stats.unwrap(),
        v2::ReadIterationStats {
            rows_seen_count: 5,
            rows_returned_count: 2,
            cells_seen_count: 10,
            cells_returned_count: 2,
        }
    );
    assert!(
        responses
            .iter()
            .all(|r| r.last_scanned_row_key.is_empty() || r.chunks.is_empty()),
        "last_scanned_row_key only in responses without chunks"
    );

    // Without the header no last_scanned_row_key; without the stats view no stats.
    let plain = read_responses(
        &server,
        v2::ReadRowsRequest {
            request_stats_view: 0,
            ..request.clone()
        },
        false,
    )
    .await;
    assert!(plain
        .iter()
        .all(|r| r.last_scanned_row_key.is_empty() && r.request_stats.is_none()));
    // When the last row scanned is returned, there is nothing to report.
    let everything = read_responses(
        &server,
        v2::ReadRowsRequest {
            filter: None,
            request_stats_view: 0,
            ..request
        },
        true,
    )
    .await;
    assert!(everything.iter().all(|r| r.last_scanned_row_key.is_empty()));
}

#[tokio::test]
async fn the_test_clock_moves_the_frozen_clock_and_ping_answers() {
    let server = Server::start(&["--clock-micros", "1700000000000000"]);
    let mut admin = server.admin().await;
    let mut data = server.data().await;
    let mut clock = TestClockClient::new(server.channel().await);
    let parent = "projects/p/instances/clock";
    let t = format!("{parent}/tables/t");
    data.ping_and_warm(v2::PingAndWarmRequest {
        name: parent.to_string(),
        ..Default::default()
    })
    .await
    .unwrap();
    let one_hour = admin_v2::GcRule {
        rule: Some(admin_v2::gc_rule::Rule::MaxAge(prost_types::Duration {
            seconds: 3600,
            nanos: 0,
        })),
    };
    admin
        .create_table(family_table(
            parent,
            "t",
            admin_v2::ColumnFamily {
                gc_rule: Some(one_hour),
                ..Default::default()
            },
        ))
        .await
        .unwrap();
    // Server time: the frozen clock, then the time it was set to.
    data.mutate_row(mutate(&t, b"r", vec![set_cell(-1, b"old")]))
        .await
        .unwrap();
    let now = clock
        .set_time(SetTimeRequest {
            micros: 1_700_000_100_000_000,
        })
        .await
        .unwrap()
        .into_inner()
        .now_micros;
    assert_eq!(now, 1_700_000_100_000_000);
    data.mutate_row(mutate(&t, b"r", vec![set_cell(-1, b"new")]))
        .await
        .unwrap();
    let read = || v2::ReadRowsRequest {
        table_name: t.clone(),
        ..Default::default()
    };
    let (rows, _) = read_rows(&mut data, read()).await.unwrap();
    let stamps: Vec<i64> = rows[0].cells.iter().map(|c| c.timestamp_micros).collect();
    assert_eq!(stamps, [1_700_000_100_000_000, 1_700_000_000_000_000]);
    // Just over an hour after the first write, max_age hides it, and only it.
    let now = clock
        .advance_time(AdvanceTimeRequest {
            delta_micros: 3_500_000_001,
        })
        .await
        .unwrap()
        .into_inner()
        .now_micros;
    assert_eq!(now, 1_700_003_600_000_001);
    let (rows, _) = read_rows(&mut data, read()).await.unwrap();
    assert_eq!(rows[0].cells.len(), 1);
    assert_eq!(rows[0].cells[0].value, b"new");
    // The clock never goes before the epoch.
    let err = clock
        .advance_time(AdvanceTimeRequest {
            delta_micros: -now - 1,
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::InvalidArgument);
}

fn unpack<M: Message + Default>(any: &prost_types::Any, name: &str) -> M {
    assert_eq!(any.type_url, format!("type.googleapis.com/{name}"));
    M::decode(any.value.as_slice()).unwrap()
}

fn response(op: &longrunning::Operation) -> &prost_types::Any {
    assert!(op.done, "operations are born done: {op:?}");
    match &op.result {
        Some(longrunning::operation::Result::Response(any)) => any,
        other => panic!("no response in {other:?}"),
    }
}

#[tokio::test]
async fn backups_restore_as_new_tables_through_finished_operations() {
    let server = Server::start(&["--clock-micros", "1700000000000000"]);
    let mut admin = server.admin().await;
    let mut data = server.data().await;
    let mut operations =
        longrunning::operations_client::OperationsClient::new(server.channel().await);
    let parent = "projects/p/instances/backups";
    let cluster = format!("{parent}/clusters/c1");
    let t = format!("{parent}/tables/t");
    admin
        .create_table(family_table(parent, "t", Default::default()))
        .await
        .unwrap();
    data.mutate_row(mutate(&t, b"r", vec![set_cell(1000, b"before")]))
        .await
        .unwrap();

    let expire_time = prost_types::Timestamp {
        seconds: 1_800_000_000,
        nanos: 0,
    };
    let create = admin_v2::CreateBackupRequest {
        parent: cluster.clone(),
        backup_id: "b1".into(),
        backup: Some(admin_v2::Backup {
            source_table: t.clone(),
            expire_time: Some(expire_time),
            ..Default::default()
        }),
    };
    let op = admin
        .create_backup(create.clone())
        .await
        .unwrap()
        .into_inner();
    let backup: admin_v2::Backup = unpack(response(&op), "google.bigtable.admin.v2.Backup");
    assert_eq!(backup.name, format!("{cluster}/backups/b1"));
    assert_eq!(backup.source_table, t);
    assert_eq!(backup.state, admin_v2::backup::State::Ready as i32);
    assert_eq!(backup.expire_time, Some(expire_time));
    assert_eq!(
        backup.start_time.unwrap().seconds,
        1_700_000_000,
        "taken at the server's time"
    );
    // A client polling the operation gets it back.
    let polled = operations
        .get_operation(longrunning::GetOperationRequest {
            name: op.name.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(polled, op);
    let err = admin.create_backup(create).await.unwrap_err();
    assert_eq!(err.code(), tonic::Code::AlreadyExists);

    // Later writes do not reach the backup.
    data.mutate_row(mutate(&t, b"r", vec![set_cell(2000, b"after")]))
        .await
        .unwrap();
    let got = admin
        .get_backup(admin_v2::GetBackupRequest {
            name: format!("{cluster}/backups/b1"),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(got.source_table, t);
    let listed = admin
        .list_backups(admin_v2::ListBackupsRequest {
            parent: format!("{parent}/clusters/-"),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(listed.backups.len(), 1);
    assert!(listed.backups[0].name.ends_with("/backups/b1"));

    let restore = admin_v2::RestoreTableRequest {
        parent: parent.to_string(),
        table_id: "restored".into(),
        source: Some(admin_v2::restore_table_request::Source::Backup(format!(
            "{cluster}/backups/b1"
        ))),
    };
    let op = admin.restore_table(restore).await.unwrap().into_inner();
    let table: admin_v2::Table = unpack(response(&op), "google.bigtable.admin.v2.Table");
    assert_eq!(table.name, format!("{parent}/tables/restored"));
    let (rows, _) = read_rows(
        &mut data,
        v2::ReadRowsRequest {
            table_name: table.name.clone(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(
        rows[0]
            .cells
            .iter()
            .map(|c| c.value.as_slice())
            .collect::<Vec<_>>(),
        [&b"before"[..]]
    );

    admin
        .delete_backup(admin_v2::DeleteBackupRequest {
            name: format!("{cluster}/backups/b1"),
        })
        .await
        .unwrap();
    let err = admin
        .get_backup(admin_v2::GetBackupRequest {
            name: format!("{cluster}/backups/b1"),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::NotFound);
}

#[tokio::test]
async fn update_table_protects_from_deletion_and_consistency_is_immediate() {
    let server = Server::start(&[]);
    let mut admin = server.admin().await;
    let parent = "projects/p/instances/update";
    let t = format!("{parent}/tables/t");
    admin
        .create_table(family_table(parent, "t", Default::default()))
        .await
        .unwrap();
    let protect = |on: bool| admin_v2::UpdateTableRequest {
        table: Some(admin_v2::Table {
            name: t.clone(),
            deletion_protection: on,
            ..Default::default()
        }),
        update_mask: Some(prost_types::FieldMask {
            paths: vec!["deletion_protection".into()],
        }),
        ..Default::default()
    };
    let op = admin
        .update_table(protect(true))
        .await
        .unwrap()
        .into_inner();
    let table: admin_v2::Table = unpack(response(&op), "google.bigtable.admin.v2.Table");
    assert!(table.deletion_protection);
    let err = admin
        .delete_table(admin_v2::DeleteTableRequest { name: t.clone() })
        .await
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::FailedPrecondition);
    let no_mask = admin_v2::UpdateTableRequest {
        update_mask: None,
        ..protect(false)
    };
    assert_eq!(
        admin.update_table(no_mask).await.unwrap_err().code(),
        tonic::Code::InvalidArgument
    );
    admin.update_table(protect(false)).await.unwrap();

    let token = admin
        .generate_consistency_token(admin_v2::GenerateConsistencyTokenRequest { name: t.clone() })
        .await
        .unwrap()
        .into_inner()
        .consistency_token;
    let consistent = admin
        .check_consistency(admin_v2::CheckConsistencyRequest {
            name: t.clone(),
            consistency_token: token,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .consistent;
    assert!(consistent);
    admin
        .delete_table(admin_v2::DeleteTableRequest { name: t.clone() })
        .await
        .unwrap();
    let err = admin
        .generate_consistency_token(admin_v2::GenerateConsistencyTokenRequest { name: t })
        .await
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::NotFound);
}
