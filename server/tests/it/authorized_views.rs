//! Authorized views through the real server binary: the admin RPCs (create, get in each
//! response view, list, update with etags, delete, deletion protection guarding the table),
//! reads and writes through a view (only the view's rows and cells are seen; anything outside
//! it is PERMISSION_DENIED, per MutateRows entry), and the definitions surviving a SIGKILL.

use crate::common;

use common::{data_dir, read_rows, signal, Server};
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin_v2;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;

use admin_v2::authorized_view::{FamilySubsets, ResponseView, SubsetView};

const PARENT: &str = "projects/p/instances/i";
const TABLE: &str = "projects/p/instances/i/tables/t";
const VIEW: &str = "projects/p/instances/i/tables/t/authorizedViews/tenant1";

/// Rows `t1#…` of the table; all of family `cf`, and of family `meta` only column `public`.
fn tenant_view() -> admin_v2::AuthorizedView {
    admin_v2::AuthorizedView {
        authorized_view: Some(admin_v2::authorized_view::AuthorizedView::SubsetView(
            SubsetView {
                row_prefixes: vec![b"t1#".to_vec()],
                family_subsets: [
                    (
                        "cf".to_string(),
                        FamilySubsets {
                            qualifiers: vec![],
                            qualifier_prefixes: vec![b"".to_vec()],
                        },
                    ),
                    (
                        "meta".to_string(),
                        FamilySubsets {
                            qualifiers: vec![b"public".to_vec()],
                            qualifier_prefixes: vec![],
                        },
                    ),
                ]
                .into(),
            },
        )),
        ..Default::default()
    }
}

fn set(family: &str, qualifier: &[u8], value: &[u8]) -> v2::Mutation {
    v2::Mutation {
        mutation: Some(v2::mutation::Mutation::SetCell(v2::mutation::SetCell {
            family_name: family.into(),
            column_qualifier: qualifier.to_vec(),
            timestamp_micros: 1000,
            value: value.to_vec(),
        })),
    }
}

async fn setup(server: &Server) {
    let mut admin = server.admin().await;
    admin
        .create_table(admin_v2::CreateTableRequest {
            parent: PARENT.into(),
            table_id: "t".into(),
            table: Some(admin_v2::Table {
                column_families: [
                    ("cf".to_string(), admin_v2::ColumnFamily::default()),
                    ("meta".to_string(), admin_v2::ColumnFamily::default()),
                ]
                .into(),
                ..Default::default()
            }),
            initial_splits: vec![],
        })
        .await
        .unwrap();
    let mut data = server.data().await;
    for key in [&b"t1#a"[..], b"t1#b", b"t2#a"] {
        data.mutate_row(v2::MutateRowRequest {
            table_name: TABLE.into(),
            row_key: key.to_vec(),
            mutations: vec![
                set("cf", b"x", b"1"),
                set("meta", b"public", b"p"),
                set("meta", b"secret", b"s"),
            ],
            ..Default::default()
        })
        .await
        .unwrap();
    }
    admin
        .create_authorized_view(admin_v2::CreateAuthorizedViewRequest {
            parent: TABLE.into(),
            authorized_view_id: "tenant1".into(),
            authorized_view: Some(tenant_view()),
        })
        .await
        .unwrap();
}

/// Each row's key and its cells as `family:qualifier`.
async fn read_view(server: &Server, request: v2::ReadRowsRequest) -> Vec<(String, Vec<String>)> {
    let mut data = server.data().await;
    let (rows, _) = read_rows(&mut data, request).await.unwrap();
    rows.into_iter()
        .map(|r| {
            (String::from_utf8(r.key).unwrap(), {
                // Sorted: families come in creation order, and the map of families in
                // CreateTable has no order of its own.
                let mut cells: Vec<String> = r
                    .cells
                    .iter()
                    .map(|c| format!("{}:{}", c.family, String::from_utf8_lossy(&c.qualifier)))
                    .collect();
                cells.sort();
                cells
            })
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_and_writes_through_a_view_stay_inside_it() {
    let server = Server::start(&[]);
    setup(&server).await;

    // A read through the view sees its rows and cells only.
    let all = read_view(
        &server,
        v2::ReadRowsRequest {
            authorized_view_name: VIEW.into(),
            ..Default::default()
        },
    )
    .await;
    let view_cells = vec!["cf:x".to_string(), "meta:public".to_string()];
    assert_eq!(
        all,
        vec![
            ("t1#a".to_string(), view_cells.clone()),
            ("t1#b".to_string(), view_cells.clone())
        ]
    );
    // A row outside the view is not there; a cell limit counts only the view's cells: two
    // cells are exactly the view's two, whichever family was created first (the families'
    // order comes from CreateTable's map, which has none), never meta:secret.
    let limited = read_view(
        &server,
        v2::ReadRowsRequest {
            authorized_view_name: VIEW.into(),
            rows: Some(v2::RowSet {
                row_keys: vec![b"t2#a".to_vec(), b"t1#a".to_vec()],
                row_ranges: vec![],
            }),
            filter: Some(v2::RowFilter {
                filter: Some(v2::row_filter::Filter::CellsPerRowLimitFilter(2)),
            }),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(limited, vec![("t1#a".to_string(), view_cells.clone())]);

    let mut data = server.data().await;
    // Writes inside the view work; outside it they are PERMISSION_DENIED and change nothing.
    data.mutate_row(v2::MutateRowRequest {
        authorized_view_name: VIEW.into(),
        row_key: b"t1#c".to_vec(),
        mutations: vec![set("cf", b"y", b"2")],
        ..Default::default()
    })
    .await
    .unwrap();
    for (key, mutation) in [
        (&b"t2#c"[..], set("cf", b"y", b"2")),
        (b"t1#c", set("meta", b"secret", b"leak")),
        (b"t1#c", set("unauthorized", b"q", b"v")),
        (
            b"t1#a",
            v2::Mutation {
                mutation: Some(v2::mutation::Mutation::DeleteFromRow(
                    v2::mutation::DeleteFromRow {},
                )),
            },
        ),
        (
            b"t1#a",
            v2::Mutation {
                mutation: Some(v2::mutation::Mutation::DeleteFromFamily(
                    v2::mutation::DeleteFromFamily {
                        family_name: "meta".into(),
                    },
                )),
            },
        ),
    ] {
        let err = data
            .mutate_row(v2::MutateRowRequest {
                authorized_view_name: VIEW.into(),
                row_key: key.to_vec(),
                mutations: vec![set("cf", b"ok", b"1"), mutation],
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert_eq!(err.code(), tonic::Code::PermissionDenied, "{err:?}");
        assert!(err.message().contains("outside the Authorized View"));
    }
    // MutateRows: the entry outside the view fails alone.
    let mut stream = data
        .mutate_rows(v2::MutateRowsRequest {
            authorized_view_name: VIEW.into(),
            entries: vec![
                v2::mutate_rows_request::Entry {
                    row_key: b"t2#z".to_vec(),
                    mutations: vec![set("cf", b"y", b"2")],
                    ..Default::default()
                },
                v2::mutate_rows_request::Entry {
                    row_key: b"t1#z".to_vec(),
                    mutations: vec![set("cf", b"y", b"2")],
                    ..Default::default()
                },
            ],
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let mut codes = Vec::new();
    while let Some(response) = stream.message().await.unwrap() {
        codes.extend(
            response
                .entries
                .iter()
                .map(|e| e.status.as_ref().unwrap().code),
        );
    }
    assert_eq!(codes, vec![tonic::Code::PermissionDenied as i32, 0]);
    // The table itself shows what got in: t1#c and t1#z, and no `ok` cell from a refused row.
    let table = read_view(
        &server,
        v2::ReadRowsRequest {
            table_name: TABLE.into(),
            ..Default::default()
        },
    )
    .await;
    let keys: Vec<&str> = table.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["t1#a", "t1#b", "t1#c", "t1#z", "t2#a"]);
    assert_eq!(table[0].1, ["cf:x", "meta:public", "meta:secret"]);

    // CheckAndMutateRow: the predicate sees only the view's cells.
    let secret_only = v2::RowFilter {
        filter: Some(v2::row_filter::Filter::ColumnQualifierRegexFilter(
            b"secret".to_vec(),
        )),
    };
    let matched = data
        .check_and_mutate_row(v2::CheckAndMutateRowRequest {
            authorized_view_name: VIEW.into(),
            row_key: b"t1#a".to_vec(),
            predicate_filter: Some(secret_only),
            true_mutations: vec![set("cf", b"seen", b"1")],
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .predicate_matched;
    assert!(!matched, "the predicate must not see meta:secret");

    // ReadModifyWriteRow outside the view is refused.
    let err = data
        .read_modify_write_row(v2::ReadModifyWriteRowRequest {
            authorized_view_name: VIEW.into(),
            row_key: b"t1#a".to_vec(),
            rules: vec![v2::ReadModifyWriteRule {
                family_name: "meta".into(),
                column_qualifier: b"secret".to_vec(),
                rule: Some(v2::read_modify_write_rule::Rule::AppendValue(b"!".to_vec())),
            }],
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::PermissionDenied);

    // An unknown view is NOT_FOUND.
    let err = data
        .mutate_row(v2::MutateRowRequest {
            authorized_view_name: format!("{TABLE}/authorizedViews/nobody"),
            row_key: b"t1#a".to_vec(),
            mutations: vec![set("cf", b"y", b"2")],
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::NotFound);
}

type Admin = common::BigtableTableAdminClient<tonic::transport::Channel>;

/// CreateAuthorizedView of the tenant view as `id` under `parent`.
async fn create(admin: &mut Admin, parent: &str, id: &str) -> Result<(), tonic::Status> {
    admin
        .create_authorized_view(admin_v2::CreateAuthorizedViewRequest {
            parent: parent.into(),
            authorized_view_id: id.into(),
            authorized_view: Some(tenant_view()),
        })
        .await
        .map(|_| ())
}

/// GetAuthorizedView of [`VIEW`] in `view`.
async fn get(
    admin: &mut Admin,
    view: ResponseView,
) -> Result<admin_v2::AuthorizedView, tonic::Status> {
    admin
        .get_authorized_view(admin_v2::GetAuthorizedViewRequest {
            name: VIEW.into(),
            view: view as i32,
        })
        .await
        .map(|r| r.into_inner())
}

/// UpdateAuthorizedView of [`VIEW`]'s deletion protection, with `etag` and `mask` (None: an
/// empty mask, which updates what the request sets).
async fn protect(
    admin: &mut Admin,
    on: bool,
    etag: &str,
    mask: Option<&str>,
) -> Result<(), tonic::Status> {
    admin
        .update_authorized_view(admin_v2::UpdateAuthorizedViewRequest {
            authorized_view: Some(admin_v2::AuthorizedView {
                name: VIEW.into(),
                etag: etag.into(),
                deletion_protection: on,
                ..Default::default()
            }),
            update_mask: mask.map(|m| prost_types::FieldMask {
                paths: vec![m.into()],
            }),
            ignore_warnings: false,
        })
        .await
        .map(|_| ())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn view_admin_calls_etags_protection_and_restart() {
    let dir = data_dir("views", "admin");
    let dir_arg = dir.display().to_string();
    let args = ["--data-dir", dir_arg.as_str(), "--durability", "sync"];
    let mut server = Server::start(&args);
    setup(&server).await;
    let mut admin = server.admin().await;

    // Creating it again is ALREADY_EXISTS; on an unknown table NOT_FOUND; a bad id INVALID.
    let code = |r: Result<(), tonic::Status>| r.unwrap_err().code();
    assert_eq!(
        code(create(&mut admin, TABLE, "tenant1").await),
        tonic::Code::AlreadyExists
    );
    let none = format!("{PARENT}/tables/none");
    assert_eq!(
        code(create(&mut admin, &none, "v").await),
        tonic::Code::NotFound
    );
    assert_eq!(
        code(create(&mut admin, TABLE, "no/slash").await),
        tonic::Code::InvalidArgument
    );

    // Get: BASIC by default (no definition), FULL with it; List: names only by default.
    let basic = get(&mut admin, ResponseView::Unspecified).await.unwrap();
    assert_eq!(basic.name, VIEW);
    assert!(basic.authorized_view.is_none() && !basic.etag.is_empty());
    let listed = admin
        .list_authorized_views(admin_v2::ListAuthorizedViewsRequest {
            parent: TABLE.into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(listed.authorized_views.len(), 1);
    assert!(listed.authorized_views[0].etag.is_empty());

    // Update with a stale etag is ABORTED; with the current one it protects the view.
    let mask = Some("deletion_protection");
    let stale = protect(&mut admin, true, "stale", mask).await;
    assert_eq!(code(stale), tonic::Code::Aborted);
    protect(&mut admin, true, &basic.etag, mask).await.unwrap();

    // Killed and restarted: the view, its definition and its protection are still there.
    signal(&server, "-KILL");
    server.wait_exit(10);
    let server = Server::start(&args);
    let mut admin = server.admin().await;
    let full = get(&mut admin, ResponseView::Full).await.unwrap();
    assert!(full.deletion_protection);
    assert_eq!(full.authorized_view, tenant_view().authorized_view);
    assert_ne!(full.etag, basic.etag);
    let rows = read_view(
        &server,
        v2::ReadRowsRequest {
            authorized_view_name: VIEW.into(),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(rows.len(), 2);

    // A protected view keeps its table and itself from deletion.
    let delete_table = admin_v2::DeleteTableRequest { name: TABLE.into() };
    let err = admin.delete_table(delete_table.clone()).await.unwrap_err();
    assert_eq!(err.code(), tonic::Code::FailedPrecondition);
    let err = admin
        .delete_authorized_view(admin_v2::DeleteAuthorizedViewRequest {
            name: VIEW.into(),
            etag: String::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::FailedPrecondition);
    // Unprotected through an empty mask, then deleted with the table, which takes it along.
    protect(&mut admin, false, "", None).await.unwrap();
    admin.delete_table(delete_table).await.unwrap();
    let gone = get(&mut admin, ResponseView::Unspecified)
        .await
        .unwrap_err();
    assert_eq!(gone.code(), tonic::Code::NotFound);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
