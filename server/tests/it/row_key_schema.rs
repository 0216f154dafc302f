//! Row-key schemas through the real server: CreateTable with `row_key_schema`, GetTable
//! returning it, UpdateTable's removal (refused without `ignore_warnings`) and re-adding, and
//! ExecuteQuery typing the key's fields as columns (`SELECT *` lists them, not `_key`), a
//! TIMESTAMP field included.

use crate::common;

use common::Server;
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin_v2;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;
use prost::Message;

use admin_v2::r#type::{self as ty, r#struct};

const INSTANCE: &str = "projects/p/instances/i";
const TABLE: &str = "projects/p/instances/i/tables/sales";

fn field(name: &str, kind: ty::Kind) -> r#struct::Field {
    r#struct::Field {
        field_name: name.into(),
        r#type: Some(admin_v2::Type { kind: Some(kind) }),
    }
}

/// `user_id` BYTES, `purchase_date` STRING, `n` INT64 (ordered code), delimited by `#`.
fn schema() -> ty::Struct {
    ty::Struct {
        fields: vec![
            field(
                "user_id",
                ty::Kind::BytesType(ty::Bytes {
                    encoding: Some(ty::bytes::Encoding {
                        encoding: Some(ty::bytes::encoding::Encoding::Raw(Default::default())),
                    }),
                }),
            ),
            field(
                "purchase_date",
                ty::Kind::StringType(ty::String {
                    encoding: Some(ty::string::Encoding {
                        encoding: Some(ty::string::encoding::Encoding::Utf8Bytes(
                            Default::default(),
                        )),
                    }),
                }),
            ),
            field(
                "n",
                ty::Kind::Int64Type(ty::Int64 {
                    encoding: Some(ty::int64::Encoding {
                        encoding: Some(ty::int64::encoding::Encoding::OrderedCodeBytes(
                            Default::default(),
                        )),
                    }),
                }),
            ),
        ],
        encoding: Some(r#struct::Encoding {
            encoding: Some(r#struct::encoding::Encoding::DelimitedBytes(
                r#struct::encoding::DelimitedBytes {
                    delimiter: b"#".to_vec(),
                },
            )),
        }),
    }
}

async fn create(server: &Server, schema: ty::Struct) -> Result<admin_v2::Table, tonic::Status> {
    server
        .admin()
        .await
        .create_table(admin_v2::CreateTableRequest {
            parent: INSTANCE.into(),
            table_id: "sales".into(),
            table: Some(admin_v2::Table {
                column_families: [("cf".to_string(), admin_v2::ColumnFamily::default())].into(),
                row_key_schema: Some(schema),
                ..Default::default()
            }),
            initial_splits: vec![],
        })
        .await
        .map(|r| r.into_inner())
}

async fn get(server: &Server) -> admin_v2::Table {
    server
        .admin()
        .await
        .get_table(admin_v2::GetTableRequest {
            name: TABLE.into(),
            view: admin_v2::table::View::SchemaView as i32,
        })
        .await
        .unwrap()
        .into_inner()
}

async fn update(
    server: &Server,
    schema: Option<ty::Struct>,
    ignore_warnings: bool,
) -> Result<(), tonic::Status> {
    server
        .admin()
        .await
        .update_table(admin_v2::UpdateTableRequest {
            table: Some(admin_v2::Table {
                name: TABLE.into(),
                row_key_schema: schema,
                ..Default::default()
            }),
            update_mask: Some(prost_types::FieldMask {
                paths: vec!["row_key_schema".into()],
            }),
            ignore_warnings,
        })
        .await
        .map(|_| ())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schemas_are_set_read_removed_and_queried() {
    let server = Server::start(&[]);
    // Bigtable's rules, from the core: a field may not take a family's name.
    let mut clash = schema();
    clash.fields[0].field_name = "cf".into();
    let err = create(&server, clash).await.unwrap_err();
    assert_eq!(err.code(), tonic::Code::InvalidArgument, "{err:?}");
    let mut untyped = schema();
    untyped.fields[1].r#type = Some(admin_v2::Type {
        kind: Some(ty::Kind::BoolType(Default::default())),
    });
    let err = create(&server, untyped).await.unwrap_err();
    assert_eq!(err.code(), tonic::Code::InvalidArgument, "{err:?}");

    let created = create(&server, schema()).await.unwrap();
    assert_eq!(created.row_key_schema, Some(schema()));
    assert_eq!(get(&server).await.row_key_schema, Some(schema()));

    // A row whose key is `u1#2025-05-20#` then ordered-code 7 (0x87).
    let mut data = server.data().await;
    data.mutate_row(v2::MutateRowRequest {
        table_name: TABLE.into(),
        row_key: b"u1#2025-05-20#\x87".to_vec(),
        mutations: vec![v2::Mutation {
            mutation: Some(v2::mutation::Mutation::SetCell(v2::mutation::SetCell {
                family_name: "cf".into(),
                column_qualifier: b"q".to_vec(),
                timestamp_micros: 1000,
                value: b"v".to_vec(),
            })),
        }],
        ..Default::default()
    })
    .await
    .unwrap();
    let prepared = data
        .prepare_query(v2::PrepareQueryRequest {
            instance_name: INSTANCE.into(),
            query: "SELECT * FROM sales WHERE user_id = b'u1'".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let Some(v2::result_set_metadata::Schema::ProtoSchema(meta)) =
        prepared.metadata.unwrap().schema
    else {
        panic!("a proto schema")
    };
    let cols: Vec<(&str, Option<&v2::r#type::Kind>)> = meta
        .columns
        .iter()
        .map(|c| {
            (
                c.name.as_str(),
                c.r#type.as_ref().and_then(|t| t.kind.as_ref()),
            )
        })
        .collect();
    assert_eq!(cols.len(), 4, "{cols:?}");
    assert_eq!(
        cols.iter().map(|c| c.0).collect::<Vec<_>>(),
        ["user_id", "purchase_date", "n", "cf"]
    );
    assert!(matches!(cols[0].1, Some(v2::r#type::Kind::BytesType(_))));
    assert!(matches!(cols[1].1, Some(v2::r#type::Kind::StringType(_))));
    assert!(matches!(cols[2].1, Some(v2::r#type::Kind::Int64Type(_))));
    let mut stream = data
        .execute_query(v2::ExecuteQueryRequest {
            instance_name: INSTANCE.into(),
            prepared_query: prepared.prepared_query,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let mut values = Vec::new();
    while let Some(response) = stream.message().await.unwrap() {
        if let Some(v2::execute_query_response::Response::Results(r)) = response.response {
            if let Some(v2::partial_result_set::PartialRows::ProtoRowsBatch(b)) = r.partial_rows {
                values.extend(
                    v2::ProtoRows::decode(b.batch_data.as_slice())
                        .unwrap()
                        .values,
                );
            }
        }
    }
    let kinds: Vec<_> = values.iter().take(3).map(|v| v.kind.clone()).collect();
    assert_eq!(
        kinds,
        [
            Some(v2::value::Kind::BytesValue(b"u1".to_vec())),
            Some(v2::value::Kind::StringValue("2025-05-20".into())),
            Some(v2::value::Kind::IntValue(7)),
        ]
    );

    // Removing needs ignore_warnings; changing a schema in place is refused.
    let err = update(&server, None, false).await.unwrap_err();
    assert_eq!(err.code(), tonic::Code::InvalidArgument, "{err:?}");
    let mut other = schema();
    other.fields.pop();
    let err = update(&server, Some(other), true).await.unwrap_err();
    assert_eq!(err.code(), tonic::Code::InvalidArgument, "{err:?}");
    assert_eq!(get(&server).await.row_key_schema, Some(schema()));
    update(&server, None, true).await.unwrap();
    assert_eq!(get(&server).await.row_key_schema, None);
    // And a table without one may get one.
    update(&server, Some(schema()), false).await.unwrap();
    assert_eq!(get(&server).await.row_key_schema, Some(schema()));
}

/// A TIMESTAMP field (`unix_micros_int64` over an INT64 encoding) is kept by CreateTable,
/// returned by GetTable, and typed TIMESTAMP by PrepareQuery.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timestamp_fields_are_kept_and_typed() {
    let server = Server::start(&[]);
    let mut with_time = schema();
    with_time.fields[2] = field(
        "at",
        ty::Kind::TimestampType(ty::Timestamp {
            encoding: Some(ty::timestamp::Encoding {
                encoding: Some(ty::timestamp::encoding::Encoding::UnixMicrosInt64(
                    ty::int64::Encoding {
                        encoding: Some(ty::int64::encoding::Encoding::BigEndianBytes(
                            Default::default(),
                        )),
                    },
                )),
            }),
        }),
    );
    // Without its INT64 encoding the field is refused.
    let mut bare = with_time.clone();
    bare.fields[2] = field("at", ty::Kind::TimestampType(ty::Timestamp::default()));
    let err = create(&server, bare).await.unwrap_err();
    assert_eq!(err.code(), tonic::Code::InvalidArgument, "{err:?}");
    let created = create(&server, with_time.clone()).await.unwrap();
    assert_eq!(created.row_key_schema, Some(with_time.clone()));
    assert_eq!(get(&server).await.row_key_schema, Some(with_time));
    let prepared = server
        .data()
        .await
        .prepare_query(v2::PrepareQueryRequest {
            instance_name: INSTANCE.into(),
            query: "SELECT at FROM sales WHERE at >= TIMESTAMP '2024-01-01 00:00:00+00'".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let Some(v2::result_set_metadata::Schema::ProtoSchema(meta)) =
        prepared.metadata.unwrap().schema
    else {
        panic!("a proto schema")
    };
    assert!(matches!(
        meta.columns[0]
            .r#type
            .as_ref()
            .and_then(|t| t.kind.as_ref()),
        Some(v2::r#type::Kind::TimestampType(_))
    ));
}
