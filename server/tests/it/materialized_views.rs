//! Continuous materialized views through the real server binary: the Instance Admin RPCs
//! (create with a backfill, get, list, update of deletion protection with etags, delete),
//! a query views do not maintain refused with INVALID_ARGUMENT naming what, ReadRows with
//! `materialized_view_name` following writes and deletes of the source table, the source
//! table's deletion refused while a view reads it, the view recovered after a SIGKILL, a
//! data directory whose definitions an older server kept in its own metadata, and
//! PrepareQuery/ExecuteQuery reading `FROM view`.

use crate::common;
use crate::sql::{bytes, execute, prepare};

use common::{data_dir, read_rows, signal, Server};
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin_v2;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;

use admin_v2::bigtable_instance_admin_client::BigtableInstanceAdminClient;
use tonic::transport::Channel;

const PARENT: &str = "projects/p/instances/i";
const TABLE: &str = "projects/p/instances/i/tables/t";
const VIEW: &str = "projects/p/instances/i/materializedViews/by_group";
const QUERY: &str = "SELECT cf['g'] AS _key, COUNT(*) AS n, SUM(TO_INT64(cf['v'])) AS total \
                     FROM t GROUP BY _key";

fn set(qualifier: &[u8], value: &[u8]) -> v2::Mutation {
    v2::Mutation {
        mutation: Some(v2::mutation::Mutation::SetCell(v2::mutation::SetCell {
            family_name: "cf".into(),
            column_qualifier: qualifier.to_vec(),
            timestamp_micros: 1000,
            value: value.to_vec(),
        })),
    }
}

async fn put(server: &Server, row: &str, group: &str, v: i64) {
    server
        .data()
        .await
        .mutate_row(v2::MutateRowRequest {
            table_name: TABLE.into(),
            row_key: row.as_bytes().to_vec(),
            mutations: vec![set(b"g", group.as_bytes()), set(b"v", &v.to_be_bytes())],
            ..Default::default()
        })
        .await
        .expect("write");
}

/// The view's rows as (key, n, total).
async fn view_rows(server: &Server) -> Result<Vec<(String, i64, i64)>, tonic::Status> {
    let mut data = server.data().await;
    let (rows, _) = read_rows(
        &mut data,
        v2::ReadRowsRequest {
            materialized_view_name: VIEW.into(),
            ..Default::default()
        },
    )
    .await?;
    let int = |row: &sparsetable::Row, family: &str| {
        let cell = row.cells.iter().find(|c| c.family == family).expect("cell");
        assert!(cell.qualifier.is_empty());
        i64::from_be_bytes(cell.value.as_slice().try_into().expect("8 bytes"))
    };
    Ok(rows
        .iter()
        .map(|r| {
            (
                String::from_utf8(r.key.clone()).unwrap(),
                int(r, "n"),
                int(r, "total"),
            )
        })
        .collect())
}

async fn instances(server: &Server) -> BigtableInstanceAdminClient<Channel> {
    BigtableInstanceAdminClient::new(server.channel().await)
}

async fn create(
    server: &Server,
    id: &str,
    query: &str,
) -> Result<admin_v2::MaterializedView, tonic::Status> {
    let op = instances(server)
        .await
        .create_materialized_view(admin_v2::CreateMaterializedViewRequest {
            parent: PARENT.into(),
            materialized_view_id: id.into(),
            materialized_view: Some(admin_v2::MaterializedView {
                query: query.into(),
                ..Default::default()
            }),
        })
        .await?
        .into_inner();
    assert!(op.done);
    let Some(
        googleapis_tonic_google_bigtable_admin_v2::google::longrunning::operation::Result::Response(
            any,
        ),
    ) = op.result
    else {
        panic!("a finished operation with a response");
    };
    Ok(prost::Message::decode(any.value.as_slice()).expect("a MaterializedView"))
}

async fn set_protection(
    server: &Server,
    etag: &str,
    on: bool,
) -> Result<admin_v2::MaterializedView, tonic::Status> {
    instances(server)
        .await
        .update_materialized_view(admin_v2::UpdateMaterializedViewRequest {
            materialized_view: Some(admin_v2::MaterializedView {
                name: VIEW.into(),
                etag: etag.into(),
                deletion_protection: on,
                ..Default::default()
            }),
            update_mask: Some(prost_types::FieldMask {
                paths: vec!["deletion_protection".into()],
            }),
        })
        .await?;
    get(server).await
}

async fn get(server: &Server) -> Result<admin_v2::MaterializedView, tonic::Status> {
    Ok(instances(server)
        .await
        .get_materialized_view(admin_v2::GetMaterializedViewRequest { name: VIEW.into() })
        .await?
        .into_inner())
}

async fn delete(server: &Server, etag: &str) -> Result<(), tonic::Status> {
    instances(server)
        .await
        .delete_materialized_view(admin_v2::DeleteMaterializedViewRequest {
            name: VIEW.into(),
            etag: etag.into(),
        })
        .await
        .map(|_| ())
}

#[tokio::test]
async fn materialized_views_are_created_read_maintained_and_recovered() {
    let dir = data_dir("mviews", "admin");
    let dir_arg = dir.display().to_string();
    let args = ["--data-dir", dir_arg.as_str(), "--durability", "sync"];
    let mut server = Server::start(&args);
    server.create_table_t().await;
    put(&server, "r1", "x", 5).await;
    put(&server, "r2", "x", 7).await;
    put(&server, "r3", "y", 1).await;

    // What views do not maintain is refused, naming it.
    let refused = create(
        &server,
        "bad",
        "SELECT cf['g'] AS _key, ARRAY_AGG(cf['v']) AS a FROM t GROUP BY _key",
    )
    .await
    .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    assert!(
        refused.message().contains("ARRAY_AGG"),
        "{}",
        refused.message()
    );

    // Created with a backfill of the rows already there.
    let created = create(&server, "by_group", QUERY).await.unwrap();
    assert_eq!(created.name, VIEW);
    assert_eq!(created.query, QUERY);
    assert!(!created.etag.is_empty());
    assert_eq!(
        view_rows(&server).await.unwrap(),
        [("x".into(), 2, 12), ("y".into(), 1, 1)]
    );
    let listed = instances(&server)
        .await
        .list_materialized_views(admin_v2::ListMaterializedViewsRequest {
            parent: PARENT.into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(listed.materialized_views, std::slice::from_ref(&created));

    // Writes and deletes of the source reach the view.
    put(&server, "r3", "x", 10).await;
    server
        .data()
        .await
        .mutate_row(v2::MutateRowRequest {
            table_name: TABLE.into(),
            row_key: b"r1".to_vec(),
            mutations: vec![v2::Mutation {
                mutation: Some(v2::mutation::Mutation::DeleteFromRow(Default::default())),
            }],
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(view_rows(&server).await.unwrap(), [("x".into(), 2, 17)]);

    // Deletion protection, with etags; the source table cannot go while the view reads it.
    assert_eq!(
        set_protection(&server, "stale", true)
            .await
            .unwrap_err()
            .code(),
        tonic::Code::Aborted
    );
    let protected = set_protection(&server, &created.etag, true).await.unwrap();
    assert!(protected.deletion_protection);
    assert_ne!(protected.etag, created.etag);
    assert_eq!(
        delete(&server, "").await.unwrap_err().code(),
        tonic::Code::FailedPrecondition
    );
    let dropped = server
        .admin()
        .await
        .delete_table(admin_v2::DeleteTableRequest { name: TABLE.into() })
        .await
        .unwrap_err();
    assert_eq!(dropped.code(), tonic::Code::FailedPrecondition);

    // A crash: the definition is in the instance's metadata and the view is recomputed.
    signal(&server, "-KILL");
    server.wait_exit(10);
    let server = Server::start(&args);
    assert_eq!(get(&server).await.unwrap(), protected);
    assert_eq!(view_rows(&server).await.unwrap(), [("x".into(), 2, 17)]);
    put(&server, "r4", "z", 3).await;
    assert_eq!(
        view_rows(&server).await.unwrap(),
        [("x".into(), 2, 17), ("z".into(), 1, 3)]
    );

    let open = set_protection(&server, &protected.etag, false)
        .await
        .unwrap();
    delete(&server, &open.etag).await.unwrap();
    assert_eq!(
        get(&server).await.unwrap_err().code(),
        tonic::Code::NotFound
    );
    assert_eq!(
        view_rows(&server).await.unwrap_err().code(),
        tonic::Code::NotFound
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A data directory an older server wrote kept the view's definition in its own metadata
/// (the `INSTANCE` file's extension, version 2); it moves into the instance record when the
/// server reads the file, and the next admin change writes it there (version 4).
#[tokio::test]
async fn definitions_an_older_server_kept_move_into_the_instance_record() {
    use sparsetable::api::instances::file::version_of;
    use sparsetable::api::instances::store::{read_bytes, read_file, replace_file};
    let dir = data_dir("mviews", "migrate");
    let dir_arg = dir.display().to_string();
    let args = ["--data-dir", dir_arg.as_str(), "--durability", "sync"];
    let mut server = Server::start(&args);
    server.create_table_t().await;
    put(&server, "r1", "x", 5).await;
    let created = create(&server, "by_group", QUERY).await.unwrap();
    signal(&server, "-KILL");
    server.wait_exit(10);

    // The file as a server before version 4 left it: the record without the view.
    let folder = dir.join("p").join("i");
    let stored = read_file(&folder).unwrap().expect("an INSTANCE file");
    assert_eq!(stored.record.materialized_views().len(), 1);
    let mut record = stored.record.clone();
    record.set_materialized_views(Vec::new()).unwrap();
    replace_file(&folder, &record, &stored.extension).unwrap();
    assert_eq!(version_of(&read_bytes(&folder).unwrap().unwrap()), Some(2));

    let server = Server::start(&args);
    assert_eq!(get(&server).await.unwrap(), created);
    assert_eq!(view_rows(&server).await.unwrap(), [("x".into(), 1, 5)]);
    // The etag the older server gave still guards the view.
    assert_eq!(
        set_protection(&server, "stale", true)
            .await
            .unwrap_err()
            .code(),
        tonic::Code::Aborted
    );
    let protected = set_protection(&server, &created.etag, true).await.unwrap();
    let bytes = read_bytes(&folder).unwrap().unwrap();
    assert_eq!(version_of(&bytes), Some(4));
    let record = read_file(&folder).unwrap().unwrap().record;
    let views = record.materialized_views();
    assert_eq!(views.len(), 1);
    assert_eq!(views[0].etag, protected.etag);
    assert!(views[0].deletion_protection);
    std::fs::remove_dir_all(&dir).ok();
}

fn int(v: &v2::Value) -> i64 {
    match &v.kind {
        Some(v2::value::Kind::IntValue(i)) => *i,
        other => panic!("not an int: {other:?}"),
    }
}

/// The rows of `sql` through PrepareQuery and ExecuteQuery, as (key, n, total).
async fn query(server: &Server, sql: &str) -> Result<Vec<(String, i64, i64)>, tonic::Status> {
    let prepared = prepare(server, sql, &[]).await?;
    let Some(v2::result_set_metadata::Schema::ProtoSchema(schema)) =
        prepared.metadata.and_then(|m| m.schema)
    else {
        panic!("a proto schema");
    };
    let names: Vec<&str> = schema.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["_key", "n", "total"]);
    let (values, _) = execute(server, &prepared.prepared_query, &[], &[]).await?;
    Ok(values
        .chunks(3)
        .map(|r| {
            (
                String::from_utf8(bytes(&r[0]).to_vec()).unwrap(),
                int(&r[1]),
                int(&r[2]),
            )
        })
        .collect())
}

/// SQL reads a view by its id, as a table of `_key` and the view's output columns, and
/// follows the view as its table changes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queries_read_a_materialized_view_by_name() {
    let server = Server::start(&[]);
    server.create_table_t().await;
    put(&server, "r1", "x", 5).await;
    put(&server, "r2", "x", 7).await;
    put(&server, "r3", "y", 1).await;
    create(&server, "by_group", QUERY).await.unwrap();
    assert_eq!(
        query(&server, "SELECT * FROM by_group").await.unwrap(),
        [("x".into(), 2, 12), ("y".into(), 1, 1)]
    );
    assert_eq!(
        query(
            &server,
            "SELECT _key, n, total FROM by_group WHERE total > 5 AND _key >= 'a'"
        )
        .await
        .unwrap(),
        [("x".into(), 2, 12)]
    );
    put(&server, "r4", "y", 10).await;
    assert_eq!(
        query(
            &server,
            "SELECT _key, n, total FROM by_group ORDER BY total DESC"
        )
        .await
        .unwrap(),
        [("x".into(), 2, 12), ("y".into(), 2, 11)]
    );
    let unknown = prepare(&server, "SELECT cf FROM by_group", &[])
        .await
        .unwrap_err();
    assert_eq!(unknown.code(), tonic::Code::InvalidArgument);
    assert!(
        unknown.message().contains("materialized view by_group"),
        "{}",
        unknown.message()
    );
    delete(&server, "").await.unwrap();
    assert_eq!(
        prepare(&server, "SELECT * FROM by_group", &[])
            .await
            .unwrap_err()
            .code(),
        tonic::Code::NotFound
    );
}
