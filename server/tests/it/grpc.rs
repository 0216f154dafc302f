//! gRPC behaviour of the real server binary beyond the shared vectors: status codes and their
//! messages, instances as separate databases, huge values through default client limits,
//! ListTables paging, the command line, and a clean exit on SIGTERM.

use crate::common;

use std::process::Command;

use common::{create_table_request, read_rows, Server};
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin_v2;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;
use sparsetable_server::test_clock::service::test_clock_client::TestClockClient;
use sparsetable_server::test_clock::AdvanceTimeRequest;

fn set_cell(family: &str, qualifier: &[u8], ts: i64, value: Vec<u8>) -> v2::Mutation {
    v2::Mutation {
        mutation: Some(v2::mutation::Mutation::SetCell(v2::mutation::SetCell {
            family_name: family.to_string(),
            column_qualifier: qualifier.to_vec(),
            timestamp_micros: ts,
            value,
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

fn read_all(table: &str) -> v2::ReadRowsRequest {
    v2::ReadRowsRequest {
        table_name: table.to_string(),
        ..Default::default()
    }
}

#[track_caller]
fn assert_status<T: std::fmt::Debug>(
    result: Result<T, tonic::Status>,
    code: tonic::Code,
    mentions: &str,
) {
    let status = result.expect_err("the call should fail");
    assert_eq!(status.code(), code, "{status:?}");
    assert!(
        status.message().contains(mentions),
        "message {:?} should mention {mentions:?}",
        status.message()
    );
}

#[tokio::test]
async fn errors_carry_grpc_codes_and_name_the_field() {
    let server = Server::start(&[]);
    let (mut data, mut admin) = (server.data().await, server.admin().await);
    let parent = "projects/p/instances/errors";
    let t = format!("{parent}/tables/t");
    admin
        .create_table(create_table_request(parent, "t", &["cf"]))
        .await
        .unwrap();

    // Unknown table: NOT_FOUND from the data and the admin API.
    let missing = format!("{parent}/tables/missing");
    assert_status(
        data.mutate_row(mutate(
            &missing,
            b"r",
            vec![set_cell("cf", b"q", 1000, b"v".to_vec())],
        ))
        .await,
        tonic::Code::NotFound,
        "missing",
    );
    assert_status(
        read_rows(&mut data, read_all(&missing)).await,
        tonic::Code::NotFound,
        "missing",
    );
    assert_status(
        admin
            .get_table(admin_v2::GetTableRequest {
                name: missing.clone(),
                view: 0,
            })
            .await,
        tonic::Code::NotFound,
        "missing",
    );
    assert_status(
        admin
            .delete_table(admin_v2::DeleteTableRequest {
                name: missing.clone(),
            })
            .await,
        tonic::Code::NotFound,
        "missing",
    );

    // Unknown family: NOT_FOUND (Google's emulator says UNKNOWN), and nothing is applied.
    let both = vec![
        set_cell("cf", b"q", 1000, b"v".to_vec()),
        set_cell("nope", b"q", 1000, b"v".to_vec()),
    ];
    assert_status(
        data.mutate_row(mutate(&t, b"r", both)).await,
        tonic::Code::NotFound,
        "mutations[1]",
    );
    assert!(
        read_rows(&mut data, read_all(&t))
            .await
            .unwrap()
            .0
            .is_empty(),
        "a failed MutateRow applies nothing"
    );

    // Bad timestamps: INVALID_ARGUMENT naming the mutation.
    assert_status(
        data.mutate_row(mutate(
            &t,
            b"r",
            vec![set_cell("cf", b"q", 1500, b"v".to_vec())],
        ))
        .await,
        tonic::Code::InvalidArgument,
        "mutations[0]",
    );
    assert_status(
        data.mutate_row(mutate(
            &t,
            b"r",
            vec![set_cell("cf", b"q", -5, b"v".to_vec())],
        ))
        .await,
        tonic::Code::InvalidArgument,
        "timestamp",
    );

    // Malformed names and requests: INVALID_ARGUMENT naming the field.
    assert_status(
        data.mutate_row(mutate(
            "tables/t",
            b"r",
            vec![set_cell("cf", b"q", 1000, vec![])],
        ))
        .await,
        tonic::Code::InvalidArgument,
        "table_name",
    );
    assert_status(
        admin
            .create_table(create_table_request("projects/p", "t", &[]))
            .await,
        tonic::Code::InvalidArgument,
        "parent",
    );
    assert_status(
        admin
            .create_table(create_table_request(parent, "bad/id", &[]))
            .await,
        tonic::Code::InvalidArgument,
        "table_id",
    );
    assert_status(
        admin
            .create_table(create_table_request(parent, "t", &[]))
            .await,
        tonic::Code::AlreadyExists,
        "t",
    );
    let negative = v2::ReadRowsRequest {
        rows_limit: -1,
        ..read_all(&t)
    };
    assert_status(
        read_rows(&mut data, negative).await,
        tonic::Code::InvalidArgument,
        "rows_limit",
    );

    // Requests the engine refuses: INVALID_ARGUMENT naming the field.
    let check = v2::CheckAndMutateRowRequest {
        table_name: t.clone(),
        row_key: b"r".to_vec(),
        ..Default::default()
    };
    assert_status(
        data.check_and_mutate_row(check).await,
        tonic::Code::InvalidArgument,
        "true_mutations",
    );
    let drop = admin_v2::DropRowRangeRequest {
        name: t.clone(),
        ..Default::default()
    };
    assert_status(
        admin.drop_row_range(drop).await,
        tonic::Code::InvalidArgument,
        "row_key_prefix",
    );
    let block_false = v2::RowFilter {
        filter: Some(v2::row_filter::Filter::Chain(v2::row_filter::Chain {
            filters: vec![
                v2::RowFilter {
                    filter: Some(v2::row_filter::Filter::PassAllFilter(true)),
                },
                v2::RowFilter {
                    filter: Some(v2::row_filter::Filter::BlockAllFilter(false)),
                },
            ],
        })),
    };
    assert_status(
        read_rows(
            &mut data,
            v2::ReadRowsRequest {
                filter: Some(block_false),
                ..read_all(&t)
            },
        )
        .await,
        tonic::Code::InvalidArgument,
        "filter.chain.filters[1].block_all_filter",
    );
    let bad_regex = v2::RowFilter {
        filter: Some(v2::row_filter::Filter::ValueRegexFilter(b"(".to_vec())),
    };
    assert_status(
        read_rows(
            &mut data,
            v2::ReadRowsRequest {
                filter: Some(bad_regex),
                ..read_all(&t)
            },
        )
        .await,
        tonic::Code::InvalidArgument,
        "",
    );

    // A change stream of a table that has none enabled: FAILED_PRECONDITION naming the
    // setting that enables it.
    let stream = v2::ReadChangeStreamRequest {
        table_name: t.clone(),
        ..Default::default()
    };
    assert_status(
        data.read_change_stream(stream).await,
        tonic::Code::FailedPrecondition,
        "change_stream_config",
    );
    // A change stream's retention is 1 to 7 days.
    let update = admin_v2::UpdateTableRequest {
        table: Some(admin_v2::Table {
            name: t.clone(),
            change_stream_config: Some(admin_v2::ChangeStreamConfig {
                retention_period: Some(prost_types::Duration {
                    seconds: 60,
                    nanos: 0,
                }),
            }),
            ..Default::default()
        }),
        update_mask: Some(prost_types::FieldMask {
            paths: vec!["change_stream_config".into()],
        }),
        ..Default::default()
    };
    assert_status(
        admin.update_table(update).await,
        tonic::Code::InvalidArgument,
        "change_stream_config.retention_period",
    );
    // The TestClock exists only on a frozen clock.
    let mut clock = TestClockClient::new(server.channel().await);
    assert_status(
        clock
            .advance_time(AdvanceTimeRequest { delta_micros: 1 })
            .await,
        tonic::Code::Unimplemented,
        "",
    );
}

#[tokio::test]
async fn instances_are_separate_and_families_can_be_modified() {
    let server = Server::start(&[]);
    let (mut data, mut admin) = (server.data().await, server.admin().await);
    let (a, b) = ("projects/p/instances/a", "projects/p/instances/b");
    admin
        .create_table(create_table_request(a, "t", &["cf"]))
        .await
        .unwrap();
    admin
        .create_table(create_table_request(b, "t", &["cf"]))
        .await
        .unwrap();
    data.mutate_row(mutate(
        &format!("{a}/tables/t"),
        b"r",
        vec![set_cell("cf", b"q", 1000, b"in-a".to_vec())],
    ))
    .await
    .unwrap();
    let (rows, _) = read_rows(&mut data, read_all(&format!("{b}/tables/t")))
        .await
        .unwrap();
    assert!(rows.is_empty(), "instance b does not see instance a's rows");
    let (rows, _) = read_rows(&mut data, read_all(&format!("{a}/tables/t")))
        .await
        .unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].cells[0].value, b"in-a");

    use admin_v2::modify_column_families_request::{modification::Mod, Modification};
    let versions = |n| admin_v2::ColumnFamily {
        gc_rule: Some(admin_v2::GcRule {
            rule: Some(admin_v2::gc_rule::Rule::MaxNumVersions(n)),
        }),
        ..Default::default()
    };
    let modify = admin_v2::ModifyColumnFamiliesRequest {
        name: format!("{a}/tables/t"),
        modifications: vec![
            Modification {
                id: "new".into(),
                r#mod: Some(Mod::Create(versions(1))),
                ..Default::default()
            },
            Modification {
                id: "cf".into(),
                r#mod: Some(Mod::Update(versions(3))),
                ..Default::default()
            },
        ],
        ignore_warnings: false,
    };
    let table = admin
        .modify_column_families(modify)
        .await
        .unwrap()
        .into_inner();
    assert_eq!(table.name, format!("{a}/tables/t"));
    assert_eq!(table.column_families.len(), 2);
    assert_eq!(table.column_families["new"], versions(1));
    assert_eq!(table.column_families["cf"], versions(3));
    let dropped = admin_v2::ModifyColumnFamiliesRequest {
        name: format!("{a}/tables/t"),
        modifications: vec![Modification {
            id: "cf".into(),
            r#mod: Some(Mod::Drop(true)),
            ..Default::default()
        }],
        ignore_warnings: false,
    };
    admin.modify_column_families(dropped).await.unwrap();
    let (rows, _) = read_rows(&mut data, read_all(&format!("{a}/tables/t")))
        .await
        .unwrap();
    assert!(rows.is_empty(), "dropping a family deletes its cells");
}

#[tokio::test]
async fn a_value_larger_than_the_default_receive_limit_round_trips_in_chunks() {
    let server = Server::start(&[]);
    let (mut data, mut admin) = (server.data().await, server.admin().await);
    let parent = "projects/p/instances/big";
    admin
        .create_table(create_table_request(parent, "t", &["cf"]))
        .await
        .unwrap();
    let t = format!("{parent}/tables/t");
    // 9 MiB: above tonic's default 4 MiB decode limit on both sides, so this passes only if
    // the server accepts large messages and splits the value when reading.
    let value: Vec<u8> = (0..9 * 1024 * 1024 + 17)
        .map(|i: usize| (i % 251) as u8)
        .collect();
    let small = b"small".to_vec();
    let mut client = data.clone().max_encoding_message_size(usize::MAX);
    client
        .mutate_row(mutate(
            &t,
            b"big",
            vec![
                set_cell("cf", b"q", 2000, value.clone()),
                set_cell("cf", b"q", 1000, small.clone()),
            ],
        ))
        .await
        .unwrap();
    data.mutate_row(mutate(
        &t,
        b"next",
        vec![set_cell("cf", b"q", 1000, small.clone())],
    ))
    .await
    .unwrap();
    let (rows, chunks) = read_rows(&mut data, read_all(&t)).await.unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].cells.len(), 2);
    assert!(
        rows[0].cells[0].value == value,
        "the large value comes back byte for byte"
    );
    assert_eq!(rows[0].cells[1].value, small);
    assert_eq!(rows[1].key, b"next");
    assert!(
        chunks >= 10,
        "a 9 MiB value travels in 1 MiB chunks, got {chunks} chunks"
    );
}

#[tokio::test]
async fn list_tables_pages_in_id_order() {
    let server = Server::start(&[]);
    let mut admin = server.admin().await;
    let parent = "projects/p/instances/paging";
    for id in ["c", "a", "b"] {
        admin
            .create_table(create_table_request(parent, id, &["cf"]))
            .await
            .unwrap();
    }
    let list = |token: String| admin_v2::ListTablesRequest {
        parent: parent.into(),
        page_size: 2,
        page_token: token,
        ..Default::default()
    };
    let first = admin
        .list_tables(list(String::new()))
        .await
        .unwrap()
        .into_inner();
    let names: Vec<&str> = first.tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [format!("{parent}/tables/a"), format!("{parent}/tables/b")]
    );
    assert!(
        first.tables[0].column_families.is_empty(),
        "NAME_ONLY is ListTables' default view"
    );
    assert!(!first.next_page_token.is_empty());
    let second = admin
        .list_tables(list(first.next_page_token))
        .await
        .unwrap()
        .into_inner();
    let names: Vec<&str> = second.tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, [format!("{parent}/tables/c")]);
    assert!(second.next_page_token.is_empty());
}

#[test]
fn the_command_line_prints_help_and_version_and_rejects_unknown_flags() {
    let bin = env!("CARGO_BIN_EXE_sparsetable-server");
    let help = Command::new(bin).arg("--help").output().unwrap();
    assert!(help.status.success());
    let text = String::from_utf8(help.stdout).unwrap();
    assert!(
        text.contains("--host")
            && text.contains("--port")
            && text.contains("BIGTABLE_EMULATOR_HOST"),
        "{text}"
    );
    let version = Command::new(bin).arg("--version").output().unwrap();
    assert_eq!(
        String::from_utf8(version.stdout).unwrap().trim(),
        format!("sparsetable-server {}", env!("CARGO_PKG_VERSION"))
    );
    let bad = Command::new(bin).arg("--nope").output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--nope"));
}

#[test]
fn sigterm_ends_the_server_cleanly() {
    let mut server = Server::start(&[]);
    let sent = Command::new("kill")
        .args(["-TERM", &server.pid().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    // A generous bound so a hang fails instead of blocking the suite; not a timing assertion.
    let status = server
        .wait_exit(60)
        .expect("the server should exit after SIGTERM");
    assert!(status.success(), "exit status {status:?}");
}

/// `--log-level debug` logs every RPC and why a request failed; `info` logs only start-up and
/// shutdown; an unknown level is refused.
#[test]
fn log_levels_control_what_the_server_writes_to_stderr() {
    use std::io::{BufRead, BufReader, Read};
    use std::process::Stdio;
    let bin = env!("CARGO_BIN_EXE_sparsetable-server");
    let run = |level: &str| -> String {
        let mut child = Command::new(bin)
            .args(["--host", "127.0.0.1", "--port", "0", "--log-level", level])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (mut first, mut second) = (String::new(), String::new());
        stdout.read_line(&mut first).unwrap();
        stdout.read_line(&mut second).unwrap();
        let addr = second
            .trim()
            .strip_prefix("export BIGTABLE_EMULATOR_HOST=")
            .unwrap()
            .to_string();
        tokio::runtime::Runtime::new().unwrap().block_on(async {
            let channel = tonic::transport::Channel::from_shared(format!("http://{addr}"))
                .unwrap()
                .connect()
                .await
                .unwrap();
            let mut data = common::BigtableClient::new(channel);
            let err = data
                .mutate_row(mutate(
                    "projects/p/instances/i/tables/missing",
                    b"r",
                    vec![set_cell("cf", b"q", 1000, b"v".to_vec())],
                ))
                .await
                .unwrap_err();
            assert_eq!(err.code(), tonic::Code::NotFound);
        });
        assert!(Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap()
            .success());
        assert!(child.wait().unwrap().success());
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        stderr
    };
    let debug = run("debug");
    assert!(
        debug.contains("DEBUG sparsetable-server: rpc /google.bigtable.v2.Bigtable/MutateRow"),
        "{debug}"
    );
    assert!(debug.contains("request failed: NotFound"), "{debug}");
    assert!(
        debug.contains("INFO sparsetable-server: serving on"),
        "{debug}"
    );
    let info = run("info");
    assert!(
        info.contains("INFO sparsetable-server: serving on"),
        "{info}"
    );
    assert!(info.contains("shutting down"), "{info}");
    assert!(!info.contains("DEBUG"), "{info}");
    assert_eq!(run("off"), "");

    let bad = Command::new(bin)
        .args(["--log-level", "loud"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--log-level must be"));
}

/// Google's Node.js client constructed with no project (`new Bigtable()`) names the project
/// `{{projectId}}` in every request to an emulator (server/src/names.rs): it is a project like
/// any other, persisted under --data-dir (recovered after a kill), while anything else with
/// braces is still refused.
#[tokio::test]
async fn the_node_clients_placeholder_project_is_served_and_persisted() {
    let dir = common::data_dir("server", "placeholder-project");
    let dir_arg = dir.to_str().expect("utf-8 temp dir").to_string();
    let args = ["--data-dir", dir_arg.as_str(), "--durability", "sync"];
    let parent = "projects/{{projectId}}/instances/i";
    let t = format!("{parent}/tables/t");
    {
        let server = Server::start(&args);
        let (mut data, mut admin) = (server.data().await, server.admin().await);
        let created = admin
            .create_table(create_table_request(parent, "t", &["cf"]))
            .await
            .expect("a table under the placeholder project")
            .into_inner();
        assert_eq!(created.name, t);
        data.mutate_row(mutate(
            &t,
            b"r",
            vec![set_cell("cf", b"q", 1000, b"v".to_vec())],
        ))
        .await
        .expect("a write under the placeholder project");
        for bad in [
            "projects/{{project}}/instances/i/tables/t",
            "projects/{{projectId}}x/instances/i/tables/t",
            "projects/p/instances/{{projectId}}/tables/t",
        ] {
            assert_status(
                read_rows(&mut data, read_all(bad)).await,
                tonic::Code::InvalidArgument,
                "table_name",
            );
        }
        // Killed (Drop): sync durability means the write is in the log; the next server recovers it.
    }
    let server = Server::start(&args);
    let mut data = server.data().await;
    let (rows, _) = read_rows(&mut data, read_all(&t))
        .await
        .expect("the placeholder project's table after a restart");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].cells[0].value, b"v");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
