//! `--gc-mode`: the server opens every database in the core's GC mode (`sparsetable::GcMode`).
//! In `background` a family's extra versions stay readable, across a restart too, until
//! `sparsetable-server control ... collect` runs a collection; by default (`immediate`) reads
//! hide them at once; a bad mode is refused at start-up.

use crate::common::{self, read_rows, Server};

use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin_v2;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;

const PARENT: &str = "projects/p/instances/i";

/// Creates `t` with family `cf` keeping one version, and writes three versions of `r`.
async fn three_versions_of_one(server: &Server) {
    use admin_v2::gc_rule::Rule;
    server
        .admin()
        .await
        .create_table(admin_v2::CreateTableRequest {
            parent: PARENT.into(),
            table_id: "t".into(),
            table: Some(admin_v2::Table {
                column_families: [(
                    "cf".to_string(),
                    admin_v2::ColumnFamily {
                        gc_rule: Some(admin_v2::GcRule {
                            rule: Some(Rule::MaxNumVersions(1)),
                        }),
                        value_type: None,
                    },
                )]
                .into(),
                ..Default::default()
            }),
            initial_splits: vec![],
        })
        .await
        .expect("create table t");
    let mut data = server.data().await;
    for ts in [1000, 2000, 3000] {
        data.mutate_row(v2::MutateRowRequest {
            table_name: format!("{PARENT}/tables/t"),
            row_key: b"r".to_vec(),
            mutations: vec![v2::Mutation {
                mutation: Some(v2::mutation::Mutation::SetCell(v2::mutation::SetCell {
                    family_name: "cf".into(),
                    column_qualifier: b"q".to_vec(),
                    timestamp_micros: ts,
                    value: b"v".to_vec(),
                })),
            }],
            ..Default::default()
        })
        .await
        .expect("mutate_row");
    }
}

/// How many cells reading table `t` returns.
async fn cells(server: &Server) -> usize {
    let (rows, _) = read_rows(
        &mut server.data().await,
        v2::ReadRowsRequest {
            table_name: format!("{PARENT}/tables/t"),
            ..Default::default()
        },
    )
    .await
    .expect("read_rows");
    rows.iter().map(|r| r.cells.len()).sum()
}

#[tokio::test]
async fn background_mode_keeps_versions_readable_across_a_restart_until_collect() {
    let dir = common::data_dir("gc_mode", "background");
    let dir_arg = dir.to_str().unwrap();
    let args = ["--gc-mode", "background", "--data-dir", dir_arg];
    let server = Server::start(&args);
    three_versions_of_one(&server).await;
    assert_eq!(cells(&server).await, 3);
    drop(server);
    let server = Server::start(&args);
    assert_eq!(
        cells(&server).await,
        3,
        "uncollected versions survive a restart"
    );
    // An unknown table is the server's NOT_FOUND: exit status 1.
    let (code, err) = common::control(&server, &["collect", "missing"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("NotFound"), "{err}");
    assert_eq!(
        common::control(&server, &["collect", "t"]),
        (0, String::new())
    );
    assert_eq!(cells(&server).await, 1);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn immediate_mode_is_the_default_and_a_bad_mode_is_refused() {
    let server = Server::start(&[]);
    three_versions_of_one(&server).await;
    assert_eq!(cells(&server).await, 1);
    // Collecting changes nothing a read returns in immediate mode.
    assert_eq!(common::control(&server, &["collect"]).0, 0);
    assert_eq!(cells(&server).await, 1);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sparsetable-server"))
        .args(["--port", "0", "--gc-mode", "lazy"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--gc-mode"), "{err}");
}
