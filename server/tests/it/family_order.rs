//! Family order through the real server: a CreateTable request's families are created in
//! the order its encoded map entries come in (as Cloud Bigtable does), rows and GetTable's
//! listing follow creation order, and the order survives a restart on a data directory.
//!
//! The requests are encoded by hand: prost encodes a map from a HashMap, in whatever order
//! that iterates, so a prost client cannot choose the order the way Java's or Node's can.

use crate::common;

use common::{read_rows, Server};
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin_v2;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;
use prost::bytes::{Buf, BufMut};
use prost::encoding::{DecodeContext, WireType};
use prost::{DecodeError, Message};
use sparsetable::Row;

/// An already encoded request message, sent as it is.
#[derive(Debug, Default, Clone)]
struct Encoded(Vec<u8>);

impl Message for Encoded {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        buf.put_slice(&self.0);
    }
    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        prost::encoding::skip_field(wire_type, tag, buf, ctx)
    }
    fn encoded_len(&self) -> usize {
        self.0.len()
    }
    fn clear(&mut self) {
        self.0.clear();
    }
}

/// CreateTable for `parent/tables/t` with families encoded in `order`.
fn create_table_in_order(parent: &str, order: &[&str]) -> Encoded {
    let mut table = Vec::new();
    for name in order {
        let mut entry = Vec::new();
        prost::encoding::string::encode(1, &(*name).to_string(), &mut entry);
        prost::encoding::message::encode(2, &admin_v2::ColumnFamily::default(), &mut entry);
        prost::encoding::bytes::encode(3, &entry, &mut table);
    }
    let mut request = admin_v2::CreateTableRequest {
        parent: parent.into(),
        table_id: "t".into(),
        ..Default::default()
    }
    .encode_to_vec();
    prost::encoding::bytes::encode(3, &table, &mut request);
    Encoded(request)
}

async fn create_table(server: &Server, request: Encoded) {
    let mut grpc = tonic::client::Grpc::new(server.channel().await);
    grpc.ready().await.unwrap();
    let path = tonic::codegen::http::uri::PathAndQuery::from_static(
        "/google.bigtable.admin.v2.BigtableTableAdmin/CreateTable",
    );
    let codec = tonic_prost::ProstCodec::<Encoded, admin_v2::Table>::default();
    grpc.unary(tonic::Request::new(request), path, codec)
        .await
        .unwrap();
}

fn families_of(row: &Row) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for c in &row.cells {
        if out.last() != Some(&c.family.as_str()) {
            out.push(&c.family);
        }
    }
    out
}

async fn read_families(server: &Server, table: &str) -> Vec<String> {
    let mut data = server.data().await;
    let request = v2::ReadRowsRequest {
        table_name: table.into(),
        ..Default::default()
    };
    let (rows, _) = read_rows(&mut data, request).await.unwrap();
    assert_eq!(rows.len(), 1);
    families_of(&rows[0])
        .into_iter()
        .map(String::from)
        .collect()
}

async fn write_each(server: &Server, table: &str, families: &[&str]) {
    let mutations = families
        .iter()
        .map(|f| v2::Mutation {
            mutation: Some(v2::mutation::Mutation::SetCell(v2::mutation::SetCell {
                family_name: (*f).into(),
                column_qualifier: b"q".to_vec(),
                timestamp_micros: 1000,
                value: b"v".to_vec(),
            })),
        })
        .collect();
    server
        .data()
        .await
        .mutate_row(v2::MutateRowRequest {
            table_name: table.into(),
            row_key: b"r".to_vec(),
            mutations,
            ..Default::default()
        })
        .await
        .unwrap();
}

#[tokio::test]
async fn create_table_keeps_the_request_order_of_its_families() {
    let server = Server::start(&[]);
    for (i, order) in [["z", "a", "m"], ["m", "z", "a"]].iter().enumerate() {
        let parent = format!("projects/p/instances/order{i}");
        let table = format!("{parent}/tables/t");
        create_table(&server, create_table_in_order(&parent, order)).await;
        write_each(&server, &table, &["a", "m", "z"]).await;
        assert_eq!(read_families(&server, &table).await, order);
    }
}

#[tokio::test]
async fn family_order_survives_a_restart() {
    let dir = std::env::temp_dir().join(format!("sparsetable-famorder-srv-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let dir_arg = dir.to_str().unwrap().to_string();
    let parent = "projects/p/instances/i";
    let table = format!("{parent}/tables/t");
    {
        let server = Server::start(&["--data-dir", &dir_arg]);
        create_table(&server, create_table_in_order(parent, &["z", "a"])).await;
        // A family created later goes after those.
        server
            .admin()
            .await
            .modify_column_families(admin_v2::ModifyColumnFamiliesRequest {
                name: table.clone(),
                modifications: vec![admin_v2::modify_column_families_request::Modification {
                    id: "b".into(),
                    r#mod: Some(
                        admin_v2::modify_column_families_request::modification::Mod::Create(
                            admin_v2::ColumnFamily::default(),
                        ),
                    ),
                    ..Default::default()
                }],
                ..Default::default()
            })
            .await
            .unwrap();
        write_each(&server, &table, &["a", "b", "z"]).await;
        assert_eq!(read_families(&server, &table).await, ["z", "a", "b"]);
    }
    let server = Server::start(&["--data-dir", &dir_arg]);
    assert_eq!(read_families(&server, &table).await, ["z", "a", "b"]);
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}
