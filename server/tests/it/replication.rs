//! A replicated instance through the real server: CreateInstance with two clusters, app
//! profiles that route to each, `--replication-lag` on the TestClock's frozen clock, stale
//! reads, consistency tokens, transactions refused through multi-cluster routing, and the
//! ReplicationControl service's outages and injected faults.

use crate::common;
use common::Server;
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin_v2;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;
use sparsetable_server::replication_control::service::replication_control_client::ReplicationControlClient;
use sparsetable_server::replication_control::{
    ClearFaultsRequest, InjectFaultRequest, SetClusterAvailableRequest, SetReplicationLagRequest,
};
use sparsetable_server::test_clock::service::test_clock_client::TestClockClient;
use sparsetable_server::test_clock::AdvanceTimeRequest;

use admin_v2::app_profile::{MultiClusterRoutingUseAny, RoutingPolicy, SingleClusterRouting};
use admin_v2::bigtable_instance_admin_client::BigtableInstanceAdminClient;

const INSTANCE: &str = "projects/p/instances/replicated";
const TABLE: &str = "projects/p/instances/replicated/tables/t";

/// Starts a server with a 2 s lag and a frozen clock, and makes the instance: clusters
/// `east-cluster` and `west-cluster`, profiles `to-east` (transactions allowed), `to-west`
/// and `any` (multi-cluster), table `t` with family `cf`.
async fn replicated_server() -> Server {
    let server = start_lagging(&[]);
    make_instance(&server).await;
    server
}

/// The server with a 2 s lag on a frozen clock, plus `extra` flags.
fn start_lagging(extra: &[&str]) -> Server {
    let mut args = vec![
        "--clock-micros",
        "1700000000000000",
        "--replication-lag",
        "2s",
    ];
    args.extend_from_slice(extra);
    Server::start(&args)
}

/// Makes the instance, its profiles and table `t` (see [`replicated_server`]), which also
/// has the Int64Sum family `n`.
async fn make_instance(server: &Server) {
    let mut instances = BigtableInstanceAdminClient::new(server.channel().await);
    let clusters = [
        ("east-cluster", "us-east1-b"),
        ("west-cluster", "us-west1-a"),
    ];
    instances
        .create_instance(common::create_instance_request(
            "p",
            "replicated",
            &clusters,
            1,
        ))
        .await
        .unwrap();
    let profiles = [
        (
            "to-east",
            RoutingPolicy::SingleClusterRouting(SingleClusterRouting {
                cluster_id: "east-cluster".into(),
                allow_transactional_writes: true,
            }),
        ),
        (
            "to-west",
            RoutingPolicy::SingleClusterRouting(SingleClusterRouting {
                cluster_id: "west-cluster".into(),
                allow_transactional_writes: false,
            }),
        ),
        (
            "any",
            RoutingPolicy::MultiClusterRoutingUseAny(MultiClusterRoutingUseAny::default()),
        ),
    ];
    for (id, routing) in profiles {
        instances
            .create_app_profile(admin_v2::CreateAppProfileRequest {
                parent: INSTANCE.into(),
                app_profile_id: id.into(),
                app_profile: Some(admin_v2::AppProfile {
                    routing_policy: Some(routing),
                    ..Default::default()
                }),
                ignore_warnings: true,
            })
            .await
            .unwrap();
    }
    server
        .admin()
        .await
        .create_table(admin_v2::CreateTableRequest {
            parent: INSTANCE.into(),
            table_id: "t".into(),
            table: Some(admin_v2::Table {
                column_families: [
                    ("cf".to_string(), admin_v2::ColumnFamily::default()),
                    (
                        "n".to_string(),
                        crate::vector_specs::family_to_proto(&sparsetable::ColumnFamily {
                            value_type: sparsetable::ValueType::Int64Sum,
                            ..Default::default()
                        }),
                    ),
                ]
                .into(),
                ..Default::default()
            }),
            initial_splits: vec![],
        })
        .await
        .unwrap();
}

/// A write of `value` to `cf:q` in `row` through app profile `profile` (`""`: the default).
fn set_cell(profile: &str, row: &str, value: &str) -> v2::MutateRowRequest {
    v2::MutateRowRequest {
        table_name: TABLE.into(),
        app_profile_id: profile.into(),
        row_key: row.as_bytes().to_vec(),
        mutations: vec![v2::Mutation {
            mutation: Some(v2::mutation::Mutation::SetCell(v2::mutation::SetCell {
                family_name: "cf".into(),
                column_qualifier: b"q".to_vec(),
                timestamp_micros: 1_000,
                value: value.as_bytes().to_vec(),
            })),
        }],
        ..Default::default()
    }
}

async fn value_through(server: &Server, profile: &str, row: &str) -> Option<Vec<u8>> {
    let rows = common::read_rows(
        &mut server.data().await,
        v2::ReadRowsRequest {
            table_name: TABLE.into(),
            app_profile_id: profile.into(),
            rows: Some(v2::RowSet {
                row_keys: vec![row.as_bytes().to_vec()],
                row_ranges: vec![],
            }),
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .0;
    rows.into_iter().next().map(|r| r.cells[0].value.clone())
}

/// Takes the east cluster down (`false`) or brings it back.
fn east_available(available: bool) -> SetClusterAvailableRequest {
    SetClusterAvailableRequest {
        instance: INSTANCE.into(),
        cluster_id: "east-cluster".into(),
        available,
    }
}

async fn advance(server: &Server, micros: i64) {
    TestClockClient::new(server.channel().await)
        .advance_time(AdvanceTimeRequest {
            delta_micros: micros,
        })
        .await
        .unwrap();
}

#[tokio::test]
async fn a_write_through_one_cluster_reaches_the_other_after_the_lag() {
    let server = replicated_server().await;
    let mut data = server.data().await;
    let mut admin = server.admin().await;
    data.mutate_row(set_cell("to-east", "r", "v"))
        .await
        .unwrap();
    assert_eq!(
        value_through(&server, "to-east", "r").await,
        Some(b"v".to_vec())
    );
    assert_eq!(value_through(&server, "to-west", "r").await, None, "stale");
    let token = admin
        .generate_consistency_token(admin_v2::GenerateConsistencyTokenRequest {
            name: TABLE.into(),
        })
        .await
        .unwrap()
        .into_inner()
        .consistency_token;
    let check = |token: String| admin_v2::CheckConsistencyRequest {
        name: TABLE.into(),
        consistency_token: token,
        mode: None,
    };
    assert!(
        !admin
            .check_consistency(check(token.clone()))
            .await
            .unwrap()
            .into_inner()
            .consistent
    );
    advance(&server, 2_000_000).await;
    assert_eq!(
        value_through(&server, "to-west", "r").await,
        Some(b"v".to_vec())
    );
    assert!(
        admin
            .check_consistency(check(token))
            .await
            .unwrap()
            .into_inner()
            .consistent
    );
    let bad = admin
        .check_consistency(check("not-a-token".into()))
        .await
        .unwrap_err();
    assert_eq!(bad.code(), tonic::Code::InvalidArgument);
    let unknown = data
        .mutate_row(set_cell("no-such-profile", "r", "v"))
        .await
        .unwrap_err();
    assert_eq!(unknown.code(), tonic::Code::NotFound);
}

#[tokio::test]
async fn transactions_through_multi_cluster_profiles_are_refused() {
    let server = replicated_server().await;
    let mut data = server.data().await;
    let increment = |profile: &str| v2::ReadModifyWriteRowRequest {
        table_name: TABLE.into(),
        app_profile_id: profile.into(),
        row_key: b"counter".to_vec(),
        rules: vec![v2::ReadModifyWriteRule {
            family_name: "cf".into(),
            column_qualifier: b"n".to_vec(),
            rule: Some(v2::read_modify_write_rule::Rule::IncrementAmount(1)),
        }],
        ..Default::default()
    };
    for profile in ["any", "", "to-west"] {
        let e = data
            .read_modify_write_row(increment(profile))
            .await
            .unwrap_err();
        assert_eq!(e.code(), tonic::Code::FailedPrecondition, "{profile:?}");
        assert_eq!(
            e.message(),
            "Single-row transactions are not allowed by this app profile"
        );
    }
    data.read_modify_write_row(increment("to-east"))
        .await
        .unwrap();
}

#[tokio::test]
async fn conflicting_writes_converge_and_an_outage_fails_over() {
    let server = replicated_server().await;
    let mut data = server.data().await;
    let mut control = ReplicationControlClient::new(server.channel().await);
    data.mutate_row(set_cell("to-east", "r", "east"))
        .await
        .unwrap();
    advance(&server, 1).await;
    data.mutate_row(set_cell("to-west", "r", "west"))
        .await
        .unwrap();
    advance(&server, 3_000_000).await;
    for profile in ["to-east", "to-west"] {
        assert_eq!(
            value_through(&server, profile, "r").await,
            Some(b"west".to_vec()),
            "{profile}"
        );
    }
    let status = control
        .set_cluster_available(east_available(false))
        .await
        .unwrap()
        .into_inner();
    assert!(!status.clusters[0].available);
    let e = data
        .mutate_row(set_cell("to-east", "r", "x"))
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::Unavailable);
    // Multi-cluster routing fails over to the west cluster.
    data.mutate_row(set_cell("any", "s", "while-east-down"))
        .await
        .unwrap();
    advance(&server, 10_000_000).await;
    control
        .set_cluster_available(east_available(true))
        .await
        .unwrap();
    assert_eq!(
        value_through(&server, "to-east", "s").await,
        Some(b"while-east-down".to_vec()),
        "caught up"
    );
    let status = control
        .set_replication_lag(SetReplicationLagRequest {
            instance: INSTANCE.into(),
            lag_micros: 0,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!((status.lag_micros, status.in_flight), (0, 0));
}

#[tokio::test]
async fn injected_faults_fail_the_rpc_they_name_then_clear() {
    let server = replicated_server().await;
    let mut data = server.data().await;
    let mut control = ReplicationControlClient::new(server.channel().await);
    control
        .inject_fault(InjectFaultRequest {
            instance: INSTANCE.into(),
            rpc: "MutateRow".into(),
            cluster_id: "west-cluster".into(),
            code: 14,
            count: 1,
            probability: None,
            latency_micros: 0,
            after_rows: 0,
        })
        .await
        .unwrap();
    data.mutate_row(set_cell("to-east", "r", "v"))
        .await
        .unwrap();
    let e = data
        .mutate_row(set_cell("to-west", "r", "v"))
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::Unavailable);
    assert!(e.message().contains("injected fault"), "{}", e.message());
    // Used up.
    data.mutate_row(set_cell("to-west", "r", "v"))
        .await
        .unwrap();
    let bad = control
        .inject_fault(InjectFaultRequest {
            instance: INSTANCE.into(),
            code: 99,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(bad.code(), tonic::Code::InvalidArgument);
    let status = control
        .clear_faults(ClearFaultsRequest {
            instance: INSTANCE.into(),
            seed: 1,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(status.faults, 0);
    // Outages need two clusters.
    let single = control
        .set_cluster_available(SetClusterAvailableRequest {
            instance: "projects/p/instances/plain".into(),
            cluster_id: "plain-c1".into(),
            available: false,
        })
        .await
        .unwrap_err();
    assert!(
        matches!(
            single.code(),
            tonic::Code::FailedPrecondition | tonic::Code::NotFound
        ),
        "{single:?}"
    );
}

#[tokio::test]
async fn every_non_ok_grpc_code_can_be_injected_and_reaches_the_client_as_that_status() {
    let server = replicated_server().await;
    let mut data = server.data().await;
    let mut control = ReplicationControlClient::new(server.channel().await);
    // CANCELLED (1), UNKNOWN (2) and UNAUTHENTICATED (16) included: Bigtable clients see
    // all sixteen, so an application's handling of each can be tested.
    for n in 1..=16 {
        control
            .inject_fault(InjectFaultRequest {
                instance: INSTANCE.into(),
                rpc: "MutateRow".into(),
                code: n,
                count: 1,
                ..Default::default()
            })
            .await
            .unwrap_or_else(|e| panic!("code {n}: {e:?}"));
        let e = data
            .mutate_row(set_cell("to-east", "r", "v"))
            .await
            .unwrap_err();
        assert_eq!(e.code() as i32, n, "{e:?}");
        assert!(e.message().contains("injected fault"), "{}", e.message());
    }
    // 17 is past gRPC's table.
    let bad = control
        .inject_fault(InjectFaultRequest {
            instance: INSTANCE.into(),
            code: 17,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(bad.code(), tonic::Code::InvalidArgument);
    assert!(bad.message().contains("1, 2, 3"), "{}", bad.message());
}

#[tokio::test]
async fn list_hot_tablets_names_the_busy_tablet_of_a_cluster() {
    let server = replicated_server().await;
    let mut data = server.data().await;
    for i in 0..20 {
        data.mutate_row(set_cell("to-east", &format!("r{i}"), "v"))
            .await
            .unwrap();
    }
    let mut instances = BigtableInstanceAdminClient::new(server.channel().await);
    let hot = instances
        .list_hot_tablets(admin_v2::ListHotTabletsRequest {
            parent: format!("{INSTANCE}/clusters/east-cluster"),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .hot_tablets;
    assert_eq!(hot.len(), 1, "{hot:?}");
    assert_eq!(hot[0].table_name, TABLE);
    assert!((hot[0].node_cpu_usage_percent - 100.0).abs() < 0.01);
    let unknown = instances
        .list_hot_tablets(admin_v2::ListHotTabletsRequest {
            parent: format!("{INSTANCE}/clusters/nowhere-cluster"),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(unknown.code(), tonic::Code::NotFound);
    let reversed = instances
        .list_hot_tablets(admin_v2::ListHotTabletsRequest {
            parent: format!("{INSTANCE}/clusters/east-cluster"),
            start_time: Some(prost_types::Timestamp {
                seconds: 1_700_000_100,
                nanos: 0,
            }),
            end_time: Some(prost_types::Timestamp {
                seconds: 1_700_000_000,
                nanos: 0,
            }),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(reversed.code(), tonic::Code::InvalidArgument);
}

#[tokio::test]
async fn kill_9_loses_no_acknowledged_write_and_replication_resumes_after_restart() {
    let dir = common::data_dir("server", "replication-kill");
    let dir_arg = dir.to_str().unwrap().to_string();
    let server = start_lagging(&["--data-dir", &dir_arg]);
    make_instance(&server).await;
    let mut data = server.data().await;
    data.mutate_row(set_cell("to-east", "r", "acknowledged"))
        .await
        .unwrap();
    assert_eq!(
        value_through(&server, "to-west", "r").await,
        None,
        "still on its way"
    );
    common::signal(&server, "-KILL");
    drop(server);

    let server = start_lagging(&["--data-dir", &dir_arg]);
    assert_eq!(
        value_through(&server, "to-east", "r").await,
        Some(b"acknowledged".to_vec()),
        "the cluster that acknowledged it still has it"
    );
    assert_eq!(value_through(&server, "to-west", "r").await, None);
    advance(&server, 2_000_000).await;
    assert_eq!(
        value_through(&server, "to-west", "r").await,
        Some(b"acknowledged".to_vec()),
        "replication resumed"
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// An increment of `n:q` in `row` through the profile `to-east`.
fn add_through_east(row: &str, input: i64) -> v2::MutateRowRequest {
    v2::MutateRowRequest {
        table_name: TABLE.into(),
        app_profile_id: "to-east".into(),
        row_key: row.as_bytes().to_vec(),
        mutations: vec![v2::Mutation {
            mutation: Some(v2::mutation::Mutation::AddToCell(v2::mutation::AddToCell {
                family_name: "n".into(),
                column_qualifier: Some(v2::Value {
                    kind: Some(v2::value::Kind::RawValue(b"q".to_vec())),
                    ..Default::default()
                }),
                timestamp: Some(v2::Value {
                    kind: Some(v2::value::Kind::RawTimestampMicros(0)),
                    ..Default::default()
                }),
                input: Some(v2::Value {
                    kind: Some(v2::value::Kind::IntValue(input)),
                    ..Default::default()
                }),
            })),
        }],
        ..Default::default()
    }
}

/// The counter `row` holds as read through `profile`.
async fn sum_through(server: &Server, profile: &str, row: &str) -> Option<i64> {
    let bytes = value_through(server, profile, row).await?;
    Some(i64::from_be_bytes(bytes.try_into().unwrap()))
}

#[tokio::test]
async fn after_kill_9_an_increment_counts_once_and_a_write_the_queue_lacked_still_replicates() {
    let dir = common::data_dir("server", "replication-windows");
    let dir_arg = dir.to_str().unwrap().to_string();
    let queue = dir.join("p/replicated/replication/REPLICATION");
    let server = start_lagging(&["--data-dir", &dir_arg]);
    make_instance(&server).await;
    let mut data = server.data().await;
    data.mutate_row(add_through_east("c", 5)).await.unwrap();
    // The queue file while +5 is on its way to west.
    let on_its_way = std::fs::read(&queue).unwrap();
    advance(&server, 2_000_000).await;
    assert_eq!(sum_through(&server, "to-west", "c").await, Some(5));
    data.mutate_row(add_through_east("c", 2)).await.unwrap();
    common::signal(&server, "-KILL");
    drop(server);
    // The file as it was before +5 reached west: it says west has yet to apply +5 (as if the
    // process had died between west's write and the file's replacement) and it lacks +2 (as
    // if it had died between east's commit and the file recording it).
    std::fs::write(&queue, &on_its_way).unwrap();

    let server = start_lagging(&["--data-dir", &dir_arg]);
    assert_eq!(sum_through(&server, "to-east", "c").await, Some(7));
    // The restarted clock starts where the first one did; +2 was committed 2 s later.
    advance(&server, 2_000_000).await;
    assert_eq!(
        sum_through(&server, "to-west", "c").await,
        Some(5),
        "not +5 again"
    );
    advance(&server, 2_000_000).await;
    assert_eq!(
        sum_through(&server, "to-west", "c").await,
        Some(7),
        "+5 merged once at west, and +2 reached it"
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `sparsetable-server control --emulator-host ADDR --project p --instance replicated
/// WORDS...` (the binary under test) and returns its exit code and stdout.
fn control_cli(server: &Server, words: &[&str]) -> (i32, String, String) {
    let binary = std::env::var("SPARSETABLE_SERVER_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_sparsetable-server").to_string());
    let out = std::process::Command::new(binary)
        .args([
            "control",
            "--emulator-host",
            &server.addr,
            "--project",
            "p",
            "--instance",
            "replicated",
        ])
        .args(words)
        .env_remove("BIGTABLE_EMULATOR_HOST")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test]
async fn the_control_command_line_takes_a_cluster_down_sets_the_lag_and_injects_faults() {
    let server = replicated_server().await;
    let (code, out, _) = control_cli(&server, &["status"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "projects/p/instances/replicated: lag 2000000 us, 0 writes in flight, 0 fault rules\n  east-cluster\tavailable\n  west-cluster\tavailable\n"
    );
    let (code, out, _) = control_cli(&server, &["down", "west-cluster"]);
    assert_eq!(code, 0);
    assert!(out.contains("west-cluster\tunavailable"), "{out}");
    let mut data = server.data().await;
    let e = data
        .mutate_row(set_cell("to-west", "c", "v"))
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::Unavailable);
    assert_eq!(control_cli(&server, &["up", "west-cluster"]).0, 0);
    let (code, out, _) = control_cli(&server, &["lag", "0s"]);
    assert_eq!(code, 0);
    assert!(out.contains("lag 0 us"), "{out}");
    let (code, out, _) = control_cli(
        &server,
        &[
            "fault",
            "--rpc",
            "MutateRow",
            "--code",
            "DEADLINE_EXCEEDED",
            "--count",
            "1",
        ],
    );
    assert_eq!(code, 0);
    assert!(out.contains("1 fault rules"), "{out}");
    let e = data
        .mutate_row(set_cell("to-west", "c", "v"))
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::DeadlineExceeded);
    data.mutate_row(set_cell("to-west", "c", "v"))
        .await
        .expect("a fault with a count of one fails one request");
    assert_eq!(control_cli(&server, &["clear-faults", "--seed", "3"]).0, 0);
    // The server refuses: an unknown cluster is its NOT_FOUND, exit status 1.
    let (code, _, err) = control_cli(&server, &["down", "north-cluster"]);
    assert_eq!(code, 1);
    assert!(err.contains("NotFound"), "{err}");
    // A malformed command line: exit status 2 and the usage.
    let (code, _, err) = control_cli(&server, &["lag", "soon"]);
    assert_eq!(code, 2);
    assert!(err.contains("Usage: sparsetable-server control"), "{err}");
}
