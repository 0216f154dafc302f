//! Persistence of the real server binary with `--data-dir`: data written through gRPC is read
//! back after a SIGTERM (clean flush) and after a SIGKILL (with `sync` durability every
//! acknowledged write is in the commit log), and instances keep separate directories.

use crate::common;

use std::process::Command;

use admin_v2::bigtable_instance_admin_client::BigtableInstanceAdminClient;
use common::{data_dir, read_rows, signal, Server};
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin_v2;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;

const PARENT: &str = "projects/p/instances/i";
const TABLE: &str = "projects/p/instances/i/tables/t";

fn set_cell(key: &[u8], value: &[u8]) -> v2::MutateRowRequest {
    v2::MutateRowRequest {
        table_name: TABLE.to_string(),
        row_key: key.to_vec(),
        mutations: vec![v2::Mutation {
            mutation: Some(v2::mutation::Mutation::SetCell(v2::mutation::SetCell {
                family_name: "cf".into(),
                column_qualifier: b"q".to_vec(),
                timestamp_micros: 1000,
                value: value.to_vec(),
            })),
        }],
        ..Default::default()
    }
}

async fn write_rows(server: &Server, create: bool, from: u32, to: u32) {
    if create {
        let mut admin = server.admin().await;
        admin
            .create_table(admin_v2::CreateTableRequest {
                parent: PARENT.into(),
                table_id: "t".into(),
                table: Some(admin_v2::Table {
                    column_families: [("cf".to_string(), admin_v2::ColumnFamily::default())].into(),
                    ..Default::default()
                }),
                initial_splits: vec![],
            })
            .await
            .unwrap();
    }
    let mut data = server.data().await;
    for i in from..to {
        data.mutate_row(set_cell(
            format!("row{i:04}").as_bytes(),
            format!("v{i}").as_bytes(),
        ))
        .await
        .unwrap();
    }
}

async fn row_keys(server: &Server) -> Vec<Vec<u8>> {
    let mut data = server.data().await;
    let (rows, _) = read_rows(
        &mut data,
        v2::ReadRowsRequest {
            table_name: TABLE.into(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    rows.into_iter().map(|r| r.key).collect()
}

fn expected(n: u32) -> Vec<Vec<u8>> {
    (0..n).map(|i| format!("row{i:04}").into_bytes()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_survives_sigterm_and_sigkill_restarts() {
    let dir = data_dir("server", "restart");
    let dir_arg = dir.to_str().unwrap().to_string();
    let args = ["--data-dir", dir_arg.as_str(), "--durability", "sync"];

    let mut server = Server::start(&args);
    write_rows(&server, true, 0, 200).await;
    signal(&server, "-TERM");
    let status = server.wait_exit(60).expect("exit after SIGTERM");
    assert!(status.success(), "{status:?}");

    let mut server = Server::start(&args);
    assert_eq!(row_keys(&server).await, expected(200));
    write_rows(&server, false, 200, 300).await;
    signal(&server, "-KILL");
    server.wait_exit(60).expect("exit after SIGKILL");

    let server = Server::start(&args);
    assert_eq!(
        row_keys(&server).await,
        expected(300),
        "acknowledged writes lost after SIGKILL"
    );
    // The instance has its own folder under the data directory.
    assert!(dir.join("p").join("i").join("MANIFEST").is_file());
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_data_dir_nothing_persists() {
    let mut server = Server::start(&[]);
    write_rows(&server, true, 0, 3).await;
    signal(&server, "-TERM");
    server.wait_exit(60).expect("exit after SIGTERM");
    let server = Server::start(&[]);
    let mut admin = server.admin().await;
    let tables = admin
        .list_tables(admin_v2::ListTablesRequest {
            parent: PARENT.into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(tables.tables.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_server_on_the_same_data_dir_refuses_to_start() {
    let dir = data_dir("server", "second-server");
    let dir_arg = dir.display().to_string();
    let args = ["--data-dir", dir_arg.as_str(), "--durability", "sync"];
    let first = Server::start(&args);
    write_rows(&first, true, 0, 3).await;

    // The second server must exit at once with a message, not serve the same files.
    let second = Command::new(env!("CARGO_BIN_EXE_sparsetable-server"))
        .args(["--host", "127.0.0.1", "--port", "0"])
        .args(args)
        .output()
        .expect("run a second sparsetable-server");
    assert!(
        !second.status.success(),
        "the second server exited non-zero"
    );
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(
        stderr.contains("in use by process") && stderr.contains(&first.pid().to_string()),
        "the message names the first server: {stderr}"
    );
    // The first one is untouched and still serves its rows.
    assert_eq!(row_keys(&first).await, expected(3));
    drop(first);
    let _ = std::fs::remove_dir_all(&dir);
}

/// (name, location, nodes) of each cluster of `instance`.
async fn clusters_of(server: &Server, instance: &str) -> Vec<(String, String, i32)> {
    let mut instances = BigtableInstanceAdminClient::new(server.channel().await);
    instances
        .list_clusters(admin_v2::ListClustersRequest {
            parent: instance.into(),
            page_token: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .clusters
        .into_iter()
        .map(|c| (c.name, c.location, c.serve_nodes))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instances_requested_clusters_survive_a_restart() {
    let dir = data_dir("server", "clusters");
    let dir_arg = dir.display().to_string();
    let args = ["--data-dir", dir_arg.as_str(), "--durability", "sync"];
    let instance = "projects/p/instances/kept-here";
    let mut server = Server::start(&args);
    let mut instances = BigtableInstanceAdminClient::new(server.channel().await);
    instances
        .create_instance(common::create_instance_request(
            "p",
            "kept-here",
            &[("east-cluster", "us-east1-b")],
            3,
        ))
        .await
        .unwrap();
    let expected = vec![(
        format!("{instance}/clusters/east-cluster"),
        "projects/p/locations/us-east1-b".to_string(),
        3,
    )];
    assert_eq!(clusters_of(&server, instance).await, expected);
    signal(&server, "-KILL");
    server.wait_exit(60).expect("exit after SIGKILL");

    let server = Server::start(&args);
    assert_eq!(
        clusters_of(&server, instance).await,
        expected,
        "the requested cluster, not the default one, after a restart"
    );
    assert!(dir.join("p").join("kept-here").join("INSTANCE").is_file());
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Everything the instance admin API records (labels and type, clusters with autoscaling,
/// app profiles, a table's IAM policy, a backup's expire time) is written before the call
/// answers, so a SIGKILL right after loses none of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instance_admin_metadata_survives_a_kill() {
    use admin_v2::bigtable_table_admin_client::BigtableTableAdminClient;
    use googleapis_tonic_google_bigtable_admin_v2::google::iam::v1 as iam;
    let dir = data_dir("server", "instance-meta");
    let dir_arg = dir.display().to_string();
    let args = ["--data-dir", dir_arg.as_str(), "--durability", "sync"];
    let instance = "projects/p/instances/meta-kept";
    let server = Server::start(&args);
    let mut instances = BigtableInstanceAdminClient::new(server.channel().await);
    let mut tables = BigtableTableAdminClient::new(server.channel().await);
    instances
        .create_instance(admin_v2::CreateInstanceRequest {
            parent: "projects/p".into(),
            instance_id: "meta-kept".into(),
            instance: Some(admin_v2::Instance {
                display_name: "Kept metadata".into(),
                r#type: admin_v2::instance::Type::Development as i32,
                labels: [("team".to_string(), "storage".to_string())].into(),
                ..Default::default()
            }),
            clusters: [("first-cluster".to_string(), admin_v2::Cluster::default())].into(),
        })
        .await
        .unwrap();
    let autoscaled = admin_v2::Cluster {
        location: "projects/p/locations/us-east1-c".into(),
        config: Some(admin_v2::cluster::Config::ClusterConfig(
            admin_v2::cluster::ClusterConfig {
                cluster_autoscaling_config: Some(admin_v2::cluster::ClusterAutoscalingConfig {
                    autoscaling_limits: Some(admin_v2::AutoscalingLimits {
                        min_serve_nodes: 1,
                        max_serve_nodes: 5,
                    }),
                    autoscaling_targets: Some(admin_v2::AutoscalingTargets {
                        cpu_utilization_percent: 60,
                        storage_utilization_gib_per_node: 0,
                    }),
                }),
            },
        )),
        ..Default::default()
    };
    instances
        .create_cluster(admin_v2::CreateClusterRequest {
            parent: instance.into(),
            cluster_id: "second-cluster".into(),
            cluster: Some(autoscaled),
        })
        .await
        .unwrap();
    let profile = instances
        .create_app_profile(admin_v2::CreateAppProfileRequest {
            parent: instance.into(),
            app_profile_id: "reports".into(),
            app_profile: Some(admin_v2::AppProfile {
                description: "batch reports".into(),
                routing_policy: Some(admin_v2::app_profile::RoutingPolicy::SingleClusterRouting(
                    admin_v2::app_profile::SingleClusterRouting {
                        cluster_id: "second-cluster".into(),
                        allow_transactional_writes: false,
                    },
                )),
                ..Default::default()
            }),
            ignore_warnings: false,
        })
        .await
        .unwrap()
        .into_inner();
    tables
        .create_table(admin_v2::CreateTableRequest {
            parent: instance.into(),
            table_id: "t".into(),
            table: Some(admin_v2::Table::default()),
            initial_splits: vec![],
        })
        .await
        .unwrap();
    let table = format!("{instance}/tables/t");
    let policy = tables
        .set_iam_policy(iam::SetIamPolicyRequest {
            resource: table.clone(),
            policy: Some(iam::Policy {
                bindings: vec![iam::Binding {
                    role: "roles/bigtable.reader".into(),
                    members: vec!["user:someone@example.com".into()],
                    condition: None,
                }],
                ..Default::default()
            }),
            update_mask: None,
        })
        .await
        .unwrap()
        .into_inner();
    // A stale etag loses the race: ABORTED, and the policy stays.
    let stale = tables
        .set_iam_policy(iam::SetIamPolicyRequest {
            resource: table.clone(),
            policy: Some(iam::Policy {
                etag: b"stale".to_vec(),
                ..Default::default()
            }),
            update_mask: None,
        })
        .await
        .unwrap_err();
    assert_eq!(stale.code(), tonic::Code::Aborted);
    signal(&server, "-KILL");
    let mut server = server;
    server.wait_exit(60).expect("exit after SIGKILL");

    let server = Server::start(&args);
    let mut instances = BigtableInstanceAdminClient::new(server.channel().await);
    let mut tables = BigtableTableAdminClient::new(server.channel().await);
    let got = instances
        .get_instance(admin_v2::GetInstanceRequest {
            name: instance.into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(got.display_name, "Kept metadata");
    assert_eq!(got.r#type, admin_v2::instance::Type::Development as i32);
    assert_eq!(got.labels.get("team").map(String::as_str), Some("storage"));
    let second = instances
        .get_cluster(admin_v2::GetClusterRequest {
            name: format!("{instance}/clusters/second-cluster"),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(second.location, "projects/p/locations/us-east1-c");
    assert!(
        matches!(&second.config, Some(admin_v2::cluster::Config::ClusterConfig(c))
            if c.cluster_autoscaling_config.and_then(|a| a.autoscaling_limits).map(|l| l.max_serve_nodes) == Some(5)),
        "the autoscaling limits after a restart: {second:?}"
    );
    let profiles = instances
        .list_app_profiles(admin_v2::ListAppProfilesRequest {
            parent: instance.into(),
            page_size: 0,
            page_token: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .app_profiles;
    // The stored profile, beside the implied `default` every instance lists.
    let names: Vec<&str> = profiles.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names[0].ends_with("/appProfiles/default"), "{names:?}");
    assert_eq!(profiles[1], profile);
    let after = tables
        .get_iam_policy(iam::GetIamPolicyRequest {
            resource: table,
            options: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(after, policy);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A data directory written by an older server keeps its instance's clusters in a
/// version-1 `CLUSTERS` file and has no `INSTANCE` file: the clusters are still reported.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_older_servers_clusters_file_is_still_read() {
    use admin_v2::bigtable_table_admin_client::BigtableTableAdminClient;
    let dir = data_dir("server", "legacy-clusters");
    let dir_arg = dir.display().to_string();
    let args = ["--data-dir", dir_arg.as_str()];
    let instance = "projects/p/instances/old-instance";
    // The instance exists (its folder holds a database) without admin metadata.
    let server = Server::start(&args);
    BigtableTableAdminClient::new(server.channel().await)
        .create_table(admin_v2::CreateTableRequest {
            parent: instance.into(),
            table_id: "t".into(),
            table: Some(admin_v2::Table::default()),
            initial_splits: vec![],
        })
        .await
        .unwrap();
    drop(server);
    let folder = dir.join("p").join("old-instance");
    assert!(!folder.join("INSTANCE").exists());
    std::fs::write(
        folder.join("CLUSTERS"),
        "sparsetable-clusters 1\nold-cluster\tprojects/p/locations/us-west1-a\t2\t1\n",
    )
    .unwrap();
    let server = Server::start(&args);
    assert_eq!(
        clusters_of(&server, instance).await,
        vec![(
            format!("{instance}/clusters/old-cluster"),
            "projects/p/locations/us-west1-a".to_string(),
            2
        )]
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
