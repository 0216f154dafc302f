//! Logical views through the real server binary: the Instance Admin API's Create (a finished
//! long-running operation), Get, List (paged), Update (update mask, etags) and Delete
//! (deletion protection, etags), with the errors Bigtable gives; PrepareQuery/ExecuteQuery
//! reading `FROM view`; and the views surviving a SIGKILL with a data directory.

use crate::common;
use crate::sql::{bytes, execute, prepare};

use common::{data_dir, signal, Server};
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin_v2;
use googleapis_tonic_google_bigtable_admin_v2::google::longrunning;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;
use prost::Message;

use admin_v2::bigtable_instance_admin_client::BigtableInstanceAdminClient;
use tonic::transport::Channel;

const INSTANCE: &str = "projects/p/instances/i";
const TABLE: &str = "projects/p/instances/i/tables/t";

fn view_name(id: &str) -> String {
    format!("{INSTANCE}/logicalViews/{id}")
}

async fn create(
    admin: &mut BigtableInstanceAdminClient<Channel>,
    id: &str,
    query: &str,
    protected: bool,
) -> Result<admin_v2::LogicalView, tonic::Status> {
    let op = admin
        .create_logical_view(admin_v2::CreateLogicalViewRequest {
            parent: INSTANCE.into(),
            logical_view_id: id.into(),
            logical_view: Some(admin_v2::LogicalView {
                query: query.into(),
                deletion_protection: protected,
                ..Default::default()
            }),
        })
        .await?
        .into_inner();
    Ok(finished_view(op))
}

/// The view a finished operation carries.
fn finished_view(op: longrunning::Operation) -> admin_v2::LogicalView {
    assert!(op.done, "admin operations are returned finished");
    let Some(longrunning::operation::Result::Response(any)) = op.result else {
        panic!("a response: {op:?}")
    };
    assert_eq!(
        any.type_url,
        "type.googleapis.com/google.bigtable.admin.v2.LogicalView"
    );
    admin_v2::LogicalView::decode(any.value.as_slice()).unwrap()
}

async fn update(
    admin: &mut BigtableInstanceAdminClient<Channel>,
    view: admin_v2::LogicalView,
    paths: &[&str],
) -> Result<admin_v2::LogicalView, tonic::Status> {
    let op = admin
        .update_logical_view(admin_v2::UpdateLogicalViewRequest {
            logical_view: Some(view),
            update_mask: Some(prost_types::FieldMask {
                paths: paths.iter().map(|p| p.to_string()).collect(),
            }),
        })
        .await?
        .into_inner();
    Ok(finished_view(op))
}

async fn write_rows(server: &Server) {
    let mut data = server.data().await;
    for (key, n) in [("a", "1"), ("b", "2"), ("c", "3")] {
        data.mutate_row(v2::MutateRowRequest {
            table_name: TABLE.into(),
            row_key: key.as_bytes().to_vec(),
            mutations: vec![v2::Mutation {
                mutation: Some(v2::mutation::Mutation::SetCell(v2::mutation::SetCell {
                    family_name: "cf".into(),
                    column_qualifier: b"n".to_vec(),
                    timestamp_micros: 1000,
                    value: n.as_bytes().to_vec(),
                })),
            }],
            ..Default::default()
        })
        .await
        .unwrap();
    }
}

/// The values of `query`'s rows, prepared and executed through the server.
async fn query(server: &Server, sql: &str) -> Result<Vec<Vec<u8>>, tonic::Status> {
    let prepared = prepare(server, sql, &[]).await?;
    let (values, _) = execute(server, &prepared.prepared_query, &[], &[]).await?;
    Ok(values.iter().map(|v| bytes(v).to_vec()).collect())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logical_views_are_managed_queried_and_survive_a_kill() {
    let dir = data_dir("server", "logical-views");
    let dir_arg = dir.display().to_string();
    let args = ["--data-dir", dir_arg.as_str(), "--durability", "sync"];
    let server = Server::start(&args);
    server.create_table_t().await;
    write_rows(&server).await;
    let mut admin = BigtableInstanceAdminClient::new(server.channel().await);

    // Create: the stored view, with a name and an etag, in a finished operation.
    let tail = create(
        &mut admin,
        "tail",
        "SELECT _key AS k, cf['n'] AS n FROM t WHERE _key > b'a'",
        true,
    )
    .await
    .unwrap();
    assert_eq!(tail.name, view_name("tail"));
    assert!(tail.deletion_protection);
    assert!(!tail.etag.is_empty());
    create(&mut admin, "keys", "SELECT k FROM tail", false)
        .await
        .unwrap();

    // Refusals at create: a duplicate, a bad id, a query that does not prepare (its SQL
    // error's text comes back), an unknown instance.
    let code = |r: Result<admin_v2::LogicalView, tonic::Status>| r.unwrap_err().code();
    assert_eq!(
        code(create(&mut admin, "tail", "SELECT 1 AS x", false).await),
        tonic::Code::AlreadyExists
    );
    assert_eq!(
        code(create(&mut admin, "-bad", "SELECT 1 AS x", false).await),
        tonic::Code::InvalidArgument
    );
    let e = create(&mut admin, "broken", "SELECT nope FROM t", false)
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument);
    assert!(e.message().contains("unrecognized name nope"), "{e:?}");
    let e = create(&mut admin, "missing", "SELECT * FROM nowhere", false)
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument, "{e:?}");

    // SQL reads the views: the view's filter and the outer one, a view over a view, and
    // only the columns the view exposes.
    assert_eq!(
        query(&server, "SELECT n FROM tail WHERE k < b'c'")
            .await
            .unwrap(),
        [b"2".to_vec()]
    );
    assert_eq!(
        query(&server, "SELECT * FROM keys").await.unwrap(),
        [b"b".to_vec(), b"c".to_vec()]
    );
    let hidden = query(&server, "SELECT _key FROM tail").await.unwrap_err();
    assert_eq!(hidden.code(), tonic::Code::InvalidArgument);

    // Get and List (paged by one).
    let got = admin
        .get_logical_view(admin_v2::GetLogicalViewRequest {
            name: view_name("tail"),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(got, tail);
    let missing = admin
        .get_logical_view(admin_v2::GetLogicalViewRequest {
            name: view_name("nope"),
        })
        .await
        .unwrap_err();
    assert_eq!(missing.code(), tonic::Code::NotFound);
    let mut names = Vec::new();
    let mut token = String::new();
    loop {
        let page = admin
            .list_logical_views(admin_v2::ListLogicalViewsRequest {
                parent: INSTANCE.into(),
                page_size: 1,
                page_token: token.clone(),
            })
            .await
            .unwrap()
            .into_inner();
        assert!(page.logical_views.len() <= 1);
        names.extend(page.logical_views.into_iter().map(|v| v.name));
        if page.next_page_token.is_empty() {
            break;
        }
        token = page.next_page_token;
    }
    assert_eq!(names, [view_name("keys"), view_name("tail")]);

    // Update: a stale etag is ABORTED; the mask names what changes; a query change is
    // checked and takes effect for the next query.
    let stale = update(
        &mut admin,
        admin_v2::LogicalView {
            name: view_name("tail"),
            etag: "stale".into(),
            ..Default::default()
        },
        &["deletion_protection"],
    )
    .await
    .unwrap_err();
    assert_eq!(stale.code(), tonic::Code::Aborted);
    let bad_mask = update(
        &mut admin,
        admin_v2::LogicalView {
            name: view_name("tail"),
            ..Default::default()
        },
        &["name"],
    )
    .await
    .unwrap_err();
    assert_eq!(bad_mask.code(), tonic::Code::InvalidArgument);
    let changed = update(
        &mut admin,
        admin_v2::LogicalView {
            name: view_name("tail"),
            query: "SELECT _key AS k, cf['n'] AS n FROM t WHERE _key > b'b'".into(),
            etag: tail.etag.clone(),
            ..Default::default()
        },
        &["query"],
    )
    .await
    .unwrap();
    assert!(changed.deletion_protection, "only the query changed");
    assert_ne!(changed.etag, tail.etag);
    assert_eq!(
        query(&server, "SELECT * FROM keys").await.unwrap(),
        [b"c".to_vec()]
    );

    // Delete: refused while protected, and with a stale etag.
    let protected = admin
        .delete_logical_view(admin_v2::DeleteLogicalViewRequest {
            name: view_name("tail"),
            etag: String::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(protected.code(), tonic::Code::FailedPrecondition);
    let keys = admin
        .get_logical_view(admin_v2::GetLogicalViewRequest {
            name: view_name("keys"),
        })
        .await
        .unwrap()
        .into_inner();
    let stale = admin
        .delete_logical_view(admin_v2::DeleteLogicalViewRequest {
            name: view_name("keys"),
            etag: "stale".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(stale.code(), tonic::Code::Aborted);
    admin
        .delete_logical_view(admin_v2::DeleteLogicalViewRequest {
            name: view_name("keys"),
            etag: keys.etag,
        })
        .await
        .unwrap();

    // Everything answered is on disk: a SIGKILL loses none of it.
    signal(&server, "-KILL");
    let mut server = server;
    server.wait_exit(60).expect("exit after SIGKILL");
    let server = Server::start(&args);
    let mut admin = BigtableInstanceAdminClient::new(server.channel().await);
    let listed = admin
        .list_logical_views(admin_v2::ListLogicalViewsRequest {
            parent: INSTANCE.into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(listed.logical_views, [changed]);
    assert_eq!(
        query(&server, "SELECT k FROM tail").await.unwrap(),
        [b"c".to_vec()]
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
