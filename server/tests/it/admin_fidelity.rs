//! Admin answers as Google's clients read them, through the real binary: the bytes of a Table
//! reply (every map entry carries its value, which Google's Node.js client needs), consistency
//! tokens that are not the table's, and the clusters CreateInstance asked for (GetCluster,
//! ListClusters and a table's replication states use the requested ids).

use crate::common;

use common::Server;
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin_v2;
use prost::encoding::{self, DecodeContext, WireType};
use prost::Message;

use admin_v2::bigtable_instance_admin_client::BigtableInstanceAdminClient;

/// A Table reply kept as raw bytes: each `column_families` entry (field 3) undecoded.
#[derive(Debug, Default)]
struct RawTable {
    family_entries: Vec<Vec<u8>>,
}

impl Message for RawTable {
    fn encode_raw(&self, _buf: &mut impl prost::bytes::BufMut) {
        unreachable!("only decoded")
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl prost::bytes::Buf,
        ctx: DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        if tag == 3 {
            encoding::bytes::merge_repeated(wire_type, &mut self.family_entries, buf, ctx)
        } else {
            encoding::skip_field(wire_type, tag, buf, ctx)
        }
    }

    fn encoded_len(&self) -> usize {
        0
    }

    fn clear(&mut self) {
        self.family_entries.clear();
    }
}

/// The field numbers present at the top level of `bytes`, in order.
fn field_numbers(mut bytes: &[u8]) -> Vec<u32> {
    let mut out = Vec::new();
    while !bytes.is_empty() {
        let key = encoding::decode_varint(&mut bytes).unwrap();
        let ctx = DecodeContext::default();
        let wire = WireType::try_from(key & 7).unwrap();
        out.push((key >> 3) as u32);
        encoding::skip_field(wire, (key >> 3) as u32, &mut bytes, ctx).unwrap();
    }
    out
}

/// GetTable, decoded as raw entries.
async fn raw_get_table(server: &Server, name: &str) -> RawTable {
    let mut grpc = tonic::client::Grpc::new(server.channel().await);
    grpc.ready().await.unwrap();
    let codec = tonic_prost::ProstCodec::<admin_v2::GetTableRequest, RawTable>::default();
    grpc.unary(
        tonic::Request::new(admin_v2::GetTableRequest {
            name: name.to_string(),
            view: 0,
        }),
        http::uri::PathAndQuery::from_static(
            "/google.bigtable.admin.v2.BigtableTableAdmin/GetTable",
        ),
        codec,
    )
    .await
    .unwrap()
    .into_inner()
}

#[tokio::test]
async fn a_family_without_gc_rule_is_sent_as_an_entry_with_a_value() {
    let server = Server::start(&[]);
    let mut admin = server.admin().await;
    let parent = "projects/p/instances/wire";
    let families = [
        ("plain".to_string(), admin_v2::ColumnFamily::default()),
        (
            "versions".to_string(),
            admin_v2::ColumnFamily {
                gc_rule: Some(admin_v2::GcRule {
                    rule: Some(admin_v2::gc_rule::Rule::MaxNumVersions(1)),
                }),
                value_type: None,
            },
        ),
    ];
    admin
        .create_table(admin_v2::CreateTableRequest {
            parent: parent.into(),
            table_id: "t".into(),
            table: Some(admin_v2::Table {
                column_families: families.into_iter().collect(),
                ..Default::default()
            }),
            initial_splits: vec![],
        })
        .await
        .unwrap();
    let raw = raw_get_table(&server, &format!("{parent}/tables/t")).await;
    assert_eq!(raw.family_entries.len(), 2);
    for entry in &raw.family_entries {
        // Key (1) and value (2), even for the family whose value is an empty message.
        assert_eq!(field_numbers(entry), [1, 2], "entry {entry:?}");
    }
}

#[tokio::test]
async fn check_consistency_refuses_a_token_it_did_not_issue() {
    let server = Server::start(&[]);
    let mut admin = server.admin().await;
    let parent = "projects/p/instances/tokens";
    for id in ["t", "u"] {
        admin
            .create_table(admin_v2::CreateTableRequest {
                parent: parent.into(),
                table_id: id.into(),
                table: Some(Default::default()),
                initial_splits: vec![],
            })
            .await
            .unwrap();
    }
    let t = format!("{parent}/tables/t");
    let u = format!("{parent}/tables/u");
    let token = |name: String| {
        let mut admin = admin.clone();
        async move {
            admin
                .generate_consistency_token(admin_v2::GenerateConsistencyTokenRequest { name })
                .await
                .unwrap()
                .into_inner()
                .consistency_token
        }
    };
    let check = |name: String, consistency_token: String| {
        let mut admin = admin.clone();
        async move {
            admin
                .check_consistency(admin_v2::CheckConsistencyRequest {
                    name,
                    consistency_token,
                    ..Default::default()
                })
                .await
        }
    };
    let t_token = token(t.clone()).await;
    assert!(
        check(t.clone(), t_token.clone())
            .await
            .unwrap()
            .into_inner()
            .consistent
    );
    for bad in ["not-a-token".to_string(), token(u.clone()).await] {
        let err = check(t.clone(), bad.clone()).await.unwrap_err();
        assert_eq!(err.code(), tonic::Code::InvalidArgument, "token {bad:?}");
    }
}

#[tokio::test]
async fn create_instance_keeps_the_requested_clusters() {
    let server = Server::start(&[]);
    let mut instances = BigtableInstanceAdminClient::new(server.channel().await);
    let mut admin = server.admin().await;
    let clusters = [
        ("east-cluster", "us-east1-b"),
        ("west-cluster", "us-west1-a"),
    ];
    instances
        .create_instance(common::create_instance_request(
            "p",
            "made-here",
            &clusters,
            3,
        ))
        .await
        .unwrap();
    let instance = "projects/p/instances/made-here";
    let got = instances
        .get_cluster(admin_v2::GetClusterRequest {
            name: format!("{instance}/clusters/west-cluster"),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(got.location, "projects/p/locations/us-west1-a");
    assert_eq!(got.serve_nodes, 3);
    assert_eq!(got.state, admin_v2::cluster::State::Ready as i32);
    let listed: Vec<_> = instances
        .list_clusters(admin_v2::ListClustersRequest {
            parent: instance.into(),
            page_token: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .clusters
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert_eq!(
        listed,
        [
            format!("{instance}/clusters/east-cluster"),
            format!("{instance}/clusters/west-cluster")
        ]
    );
    // The default cluster id is not one of this instance's.
    let err = instances
        .get_cluster(admin_v2::GetClusterRequest {
            name: format!("{instance}/clusters/made-here-c1"),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::NotFound);

    // A table's replication states are keyed by the same ids, READY in each.
    admin
        .create_table(admin_v2::CreateTableRequest {
            parent: instance.into(),
            table_id: "t".into(),
            table: Some(Default::default()),
            initial_splits: vec![],
        })
        .await
        .unwrap();
    let table = admin
        .get_table(admin_v2::GetTableRequest {
            name: format!("{instance}/tables/t"),
            view: admin_v2::table::View::ReplicationView as i32,
        })
        .await
        .unwrap()
        .into_inner();
    let mut states: Vec<_> = table
        .cluster_states
        .iter()
        .map(|(id, s)| (id.clone(), s.replication_state))
        .collect();
    states.sort();
    let ready = admin_v2::table::cluster_state::ReplicationState::Ready as i32;
    assert_eq!(
        states,
        [
            ("east-cluster".to_string(), ready),
            ("west-cluster".to_string(), ready)
        ]
    );

    // An instance nobody created explicitly has the one default cluster.
    let implicit = admin
        .get_table(admin_v2::GetTableRequest {
            name: "projects/p/instances/implicit/tables/none".into(),
            view: admin_v2::table::View::ReplicationView as i32,
        })
        .await
        .unwrap_err();
    assert_eq!(implicit.code(), tonic::Code::NotFound);
    let clusters = instances
        .list_clusters(admin_v2::ListClustersRequest {
            parent: "projects/p/instances/implicit".into(),
            page_token: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .clusters;
    assert_eq!(clusters.len(), 1);
    assert_eq!(
        clusters[0].name,
        "projects/p/instances/implicit/clusters/implicit-c1"
    );
}

#[tokio::test]
async fn create_instance_refuses_a_malformed_cluster_id() {
    let server = Server::start(&[]);
    let mut instances = BigtableInstanceAdminClient::new(server.channel().await);
    let err = instances
        .create_instance(admin_v2::CreateInstanceRequest {
            parent: "projects/p".into(),
            instance_id: "bad-cluster".into(),
            instance: Some(Default::default()),
            clusters: [("UPPER".to_string(), admin_v2::Cluster::default())]
                .into_iter()
                .collect(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::InvalidArgument);
}
