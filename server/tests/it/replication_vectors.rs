//! Replays every shared replication vector (tests/vectors/replication) through the real
//! server, as a client of the Bigtable APIs does: the instance by CreateInstance and
//! CreateAppProfile, data by MutateRow, ReadModifyWriteRow and ReadRows with the step's
//! `app_profile_id`, tokens by GenerateConsistencyToken/CheckConsistency, the clock by the
//! TestClock service, outages and the lag by the ReplicationControl service. One server, one
//! instance per vector. The runner applies no rule itself, and every vector runs.

use crate::common;

use common::{code_name, Server};
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin_v2;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;
use sparsetable::Mutation;
use sparsetable_server::replication_control::service::replication_control_client::ReplicationControlClient;
use sparsetable_server::replication_control::{
    SetClusterAvailableRequest, SetReplicationLagRequest,
};
use sparsetable_server::test_clock::service::test_clock_client::TestClockClient;
use sparsetable_server::test_clock::AdvanceTimeRequest;
use sparsetable_test_vectors::replication::{
    change_line, load_replication, ProfileSpec, ReplicationVector, Step,
};

use admin_v2::app_profile::{
    DataBoostIsolationReadOnly, Isolation, MultiClusterRoutingUseAny, RoutingPolicy,
    SingleClusterRouting,
};
use admin_v2::bigtable_instance_admin_client::BigtableInstanceAdminClient;

/// Makes the vector's instance `projects/p/instances/{id}` with its clusters, profiles,
/// table `t` (family `cf`) and lag.
async fn make_instance(server: &Server, id: &str, v: &ReplicationVector) {
    let mut instances = BigtableInstanceAdminClient::new(server.channel().await);
    let parent = format!("projects/p/instances/{id}");
    instances
        .create_instance(common::create_instance_request(
            "p",
            id,
            &v.clusters
                .iter()
                .map(|c| (c.as_str(), "us-east1-b"))
                .collect::<Vec<_>>(),
            1,
        ))
        .await
        .unwrap();
    for p in &v.app_profiles {
        instances
            .create_app_profile(admin_v2::CreateAppProfileRequest {
                parent: parent.clone(),
                app_profile_id: p.id.clone(),
                app_profile: Some(profile_proto(p)),
                ignore_warnings: true,
            })
            .await
            .unwrap();
    }
    server
        .admin()
        .await
        .create_table(admin_v2::CreateTableRequest {
            parent: parent.clone(),
            table_id: "t".into(),
            table: Some(admin_v2::Table {
                column_families: [("cf".to_string(), admin_v2::ColumnFamily::default())].into(),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap();
    if v.lag_micros != 0 {
        ReplicationControlClient::new(server.channel().await)
            .set_replication_lag(SetReplicationLagRequest {
                instance: parent,
                lag_micros: v.lag_micros,
            })
            .await
            .unwrap();
    }
}

fn profile_proto(p: &ProfileSpec) -> admin_v2::AppProfile {
    let routing = match (&p.single, &p.multi) {
        (Some(cluster), _) => RoutingPolicy::SingleClusterRouting(SingleClusterRouting {
            cluster_id: cluster.clone(),
            allow_transactional_writes: p.transactions,
        }),
        (None, multi) => RoutingPolicy::MultiClusterRoutingUseAny(MultiClusterRoutingUseAny {
            cluster_ids: multi.clone().unwrap_or_default(),
            ..Default::default()
        }),
    };
    admin_v2::AppProfile {
        routing_policy: Some(routing),
        isolation: p
            .data_boost
            .then(|| Isolation::DataBoostIsolationReadOnly(DataBoostIsolationReadOnly::default())),
        ..Default::default()
    }
}

fn set_cell(value: &str, timestamp: i64) -> v2::Mutation {
    v2::Mutation {
        mutation: Some(v2::mutation::Mutation::SetCell(v2::mutation::SetCell {
            family_name: "cf".into(),
            column_qualifier: b"q".to_vec(),
            timestamp_micros: timestamp,
            value: value.as_bytes().to_vec(),
        })),
    }
}

/// Runs one step; `Ok(Some(..))` carries a read's value or a check's answer as text.
async fn run(
    server: &Server,
    instance: &str,
    tokens: &mut std::collections::BTreeMap<String, String>,
    step: &Step,
) -> Result<Option<String>, tonic::Status> {
    let table = format!("{instance}/tables/t");
    let row = step.row.as_bytes().to_vec();
    let mut data = server.data().await;
    match step.op.as_str() {
        "write" | "delete_row" => {
            let mutation = match (&step.value, step.op.as_str()) {
                (Some(value), "write") => set_cell(value, step.timestamp),
                _ => v2::Mutation {
                    mutation: Some(v2::mutation::Mutation::DeleteFromRow(
                        v2::mutation::DeleteFromRow {},
                    )),
                },
            };
            data.mutate_row(v2::MutateRowRequest {
                table_name: table,
                app_profile_id: step.profile.clone(),
                row_key: row,
                mutations: vec![mutation],
                ..Default::default()
            })
            .await?;
            Ok(None)
        }
        "increment" => {
            data.read_modify_write_row(v2::ReadModifyWriteRowRequest {
                table_name: table,
                app_profile_id: step.profile.clone(),
                row_key: row,
                rules: vec![v2::ReadModifyWriteRule {
                    family_name: "cf".into(),
                    column_qualifier: b"n".to_vec(),
                    rule: Some(v2::read_modify_write_rule::Rule::IncrementAmount(1)),
                }],
                ..Default::default()
            })
            .await?;
            Ok(None)
        }
        "read" => {
            let (rows, _) = common::read_rows(
                &mut data,
                v2::ReadRowsRequest {
                    table_name: table,
                    app_profile_id: step.profile.clone(),
                    rows: Some(v2::RowSet {
                        row_keys: vec![row],
                        row_ranges: vec![],
                    }),
                    ..Default::default()
                },
            )
            .await?;
            Ok(rows.into_iter().next().and_then(|r| {
                r.cells
                    .into_iter()
                    .find(|c| c.family == "cf" && c.qualifier == b"q")
                    .map(|c| String::from_utf8_lossy(&c.value).into_owned())
            }))
        }
        "advance" => {
            TestClockClient::new(server.channel().await)
                .advance_time(AdvanceTimeRequest {
                    delta_micros: step.micros,
                })
                .await?;
            Ok(None)
        }
        "token" => {
            let token = server
                .admin()
                .await
                .generate_consistency_token(admin_v2::GenerateConsistencyTokenRequest {
                    name: table,
                })
                .await?
                .into_inner()
                .consistency_token;
            tokens.insert(step.token.clone(), token);
            Ok(None)
        }
        "check" => {
            let token = tokens.get(&step.token).unwrap_or(&step.token).clone();
            let consistent = server
                .admin()
                .await
                .check_consistency(admin_v2::CheckConsistencyRequest {
                    name: table,
                    consistency_token: token,
                    ..Default::default()
                })
                .await?
                .into_inner()
                .consistent;
            Ok(Some(consistent.to_string()))
        }
        "set_available" => {
            ReplicationControlClient::new(server.channel().await)
                .set_cluster_available(SetClusterAvailableRequest {
                    instance: instance.into(),
                    cluster_id: step.cluster.clone(),
                    available: step.up,
                })
                .await?;
            Ok(None)
        }
        "set_lag" => {
            ReplicationControlClient::new(server.channel().await)
                .set_replication_lag(SetReplicationLagRequest {
                    instance: instance.into(),
                    lag_micros: step.micros,
                })
                .await?;
            Ok(None)
        }
        "enable_changes" => {
            server
                .admin()
                .await
                .update_table(admin_v2::UpdateTableRequest {
                    table: Some(admin_v2::Table {
                        name: table,
                        change_stream_config: Some(admin_v2::ChangeStreamConfig {
                            retention_period: Some(prost_types::Duration {
                                seconds: step.micros / 1_000_000,
                                nanos: ((step.micros % 1_000_000) * 1000) as i32,
                            }),
                        }),
                        ..Default::default()
                    }),
                    update_mask: Some(prost_types::FieldMask {
                        paths: vec!["change_stream_config".into()],
                    }),
                    ..Default::default()
                })
                .await?;
            Ok(None)
        }
        "mark" => {
            let now = now_micros(server).await?;
            tokens.insert(format!("mark:{}", step.token), now.to_string());
            Ok(None)
        }
        "changes" => {
            let start: i64 = tokens
                .get(&format!("mark:{}", step.token))
                .and_then(|t| t.parse().ok())
                .expect("the vector marks the time first");
            let now = now_micros(server).await?;
            let ts = |micros: i64| prost_types::Timestamp {
                seconds: micros.div_euclid(1_000_000),
                nanos: (micros.rem_euclid(1_000_000) * 1000) as i32,
            };
            let mut parts = data
                .generate_initial_change_stream_partitions(
                    v2::GenerateInitialChangeStreamPartitionsRequest {
                        table_name: table.clone(),
                        app_profile_id: step.profile.clone(),
                    },
                )
                .await?
                .into_inner();
            let mut partitions = Vec::new();
            while let Some(p) = parts.message().await? {
                partitions.extend(p.partition);
            }
            let mut lines = Vec::new();
            for partition in partitions {
                let mut stream = data
                    .read_change_stream(v2::ReadChangeStreamRequest {
                        table_name: table.clone(),
                        app_profile_id: step.profile.clone(),
                        partition: Some(partition),
                        start_from: Some(v2::read_change_stream_request::StartFrom::StartTime(ts(
                            start,
                        ))),
                        end_time: Some(ts(now)),
                        ..Default::default()
                    })
                    .await?
                    .into_inner();
                // A change's mutations may come in several messages (chunks); `done` ends it.
                let mut mutations = Vec::new();
                while let Some(msg) = stream.message().await? {
                    use v2::read_change_stream_response::StreamRecord;
                    let Some(StreamRecord::DataChange(change)) = msg.stream_record else {
                        continue;
                    };
                    mutations.extend(
                        change
                            .chunks
                            .iter()
                            .filter_map(|c| c.mutation.clone())
                            .map(core_mutation),
                    );
                    if change.done {
                        let kind = match change.r#type {
                            1 => "USER",
                            2 => "GARBAGE_COLLECTION",
                            _ => "UNSPECIFIED",
                        };
                        let commit = change
                            .commit_timestamp
                            .map_or(0, |t| t.seconds * 1_000_000 + i64::from(t.nanos) / 1000);
                        lines.push((
                            commit,
                            change.tiebreaker,
                            change_line(
                                kind,
                                &change.source_cluster_id,
                                &change.row_key,
                                &std::mem::take(&mut mutations),
                            ),
                        ));
                    }
                }
            }
            lines.sort();
            let lines: Vec<String> = lines.into_iter().map(|l| l.2).collect();
            Ok(Some(serde_json::to_string(&lines).unwrap()))
        }
        other => panic!("unknown step op {other}"),
    }
}

/// The server's clock now (TestClock.AdvanceTime by zero).
async fn now_micros(server: &Server) -> Result<i64, tonic::Status> {
    Ok(TestClockClient::new(server.channel().await)
        .advance_time(AdvanceTimeRequest { delta_micros: 0 })
        .await?
        .into_inner()
        .now_micros)
}

/// A change record's mutation as the core's type, for its change line (conversion only).
fn core_mutation(m: v2::Mutation) -> Mutation {
    use v2::mutation::Mutation as M;
    match m.mutation {
        Some(M::SetCell(c)) => Mutation::SetCell {
            family: c.family_name,
            qualifier: c.column_qualifier,
            timestamp_micros: c.timestamp_micros,
            value: c.value,
        },
        Some(M::DeleteFromColumn(c)) => Mutation::DeleteFromColumn {
            family: c.family_name,
            qualifier: c.column_qualifier,
            time_range: Default::default(),
        },
        Some(M::DeleteFromFamily(f)) => Mutation::DeleteFromFamily {
            family: f.family_name,
        },
        Some(M::AddToCell(c)) => Mutation::AddToCell {
            family: c.family_name,
            qualifier: c
                .column_qualifier
                .and_then(|q| match q.kind {
                    Some(v2::value::Kind::RawValue(b)) => Some(b),
                    _ => None,
                })
                .unwrap_or_default(),
            timestamp_micros: c
                .timestamp
                .and_then(|t| match t.kind {
                    Some(v2::value::Kind::RawTimestampMicros(m)) => Some(m),
                    _ => None,
                })
                .unwrap_or_default(),
            input: c
                .input
                .and_then(|i| match i.kind {
                    Some(v2::value::Kind::IntValue(n)) => Some(n),
                    _ => None,
                })
                .unwrap_or_default(),
        },
        _ => Mutation::DeleteFromRow,
    }
}

#[tokio::test]
async fn every_shared_replication_vector_replays_through_the_server() {
    let vectors = load_replication();
    assert!(vectors.len() >= 20, "vectors found: {}", vectors.len());
    let server = Server::start(&["--clock-micros", "1700000000000000"]);
    let mut failures = Vec::new();
    for (n, v) in vectors.iter().enumerate() {
        let id = format!("vector-{n:02}");
        make_instance(&server, &id, v).await;
        let instance = format!("projects/p/instances/{id}");
        let mut tokens = std::collections::BTreeMap::new();
        for (i, step) in v.steps.iter().enumerate() {
            let at = format!("{}: step {i} ({})", v.name, step.op);
            let outcome = run(&server, &instance, &mut tokens, step).await;
            match (outcome, &step.expect_error) {
                (Err(s), Some(code)) if code_name(s.code()) == code => {}
                (Err(s), _) => {
                    failures.push(format!("{at}: {s:?}, expected {:?}", step.expect_error));
                    break;
                }
                (Ok(_), Some(code)) => {
                    failures.push(format!("{at}: succeeded, expected {code}"));
                    break;
                }
                (Ok(got), None) => {
                    let want = match step.op.as_str() {
                        "read" => Some(step.expect_value.clone()),
                        "changes" => Some(
                            step.expect_changes
                                .as_ref()
                                .map(|c| serde_json::to_string(c).unwrap()),
                        ),
                        "check" => Some(step.expect_consistent.map(|b| b.to_string())),
                        _ => None,
                    };
                    if let Some(want) = want {
                        if got != want {
                            failures.push(format!("{at}: got {got:?}, expected {want:?}"));
                            break;
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
