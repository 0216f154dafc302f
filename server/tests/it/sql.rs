//! PrepareQuery and ExecuteQuery through the real server binary: a prepared query's metadata,
//! its rows decoded from checksummed ProtoRows batches, parameters, a resume token, and the
//! refusals (a query outside the served subset, an unknown table, a token from elsewhere).

use crate::common;

use common::Server;
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin_v2;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;
use prost::Message;

const INSTANCE: &str = "projects/p/instances/i";
const TABLE: &str = "projects/p/instances/i/tables/t";

fn bytes_type() -> v2::Type {
    v2::Type {
        kind: Some(v2::r#type::Kind::BytesType(Default::default())),
    }
}

pub(crate) async fn prepare(
    server: &Server,
    query: &str,
    param_types: &[(&str, v2::Type)],
) -> Result<v2::PrepareQueryResponse, tonic::Status> {
    server
        .data()
        .await
        .prepare_query(v2::PrepareQueryRequest {
            instance_name: INSTANCE.into(),
            query: query.into(),
            param_types: param_types
                .iter()
                .map(|(n, t)| (n.to_string(), t.clone()))
                .collect(),
            ..Default::default()
        })
        .await
        .map(|r| r.into_inner())
}

/// Every value the stream carries, in order, and the last resume token.
pub(crate) async fn execute(
    server: &Server,
    prepared: &[u8],
    params: &[(&str, v2::Value)],
    resume_token: &[u8],
) -> Result<(Vec<v2::Value>, Vec<u8>), tonic::Status> {
    let mut stream = server
        .data()
        .await
        .execute_query(v2::ExecuteQueryRequest {
            instance_name: INSTANCE.into(),
            prepared_query: prepared.to_vec(),
            params: params
                .iter()
                .map(|(n, v)| (n.to_string(), v.clone()))
                .collect(),
            resume_token: resume_token.to_vec(),
            ..Default::default()
        })
        .await?
        .into_inner();
    let (mut values, mut token) = (Vec::new(), Vec::new());
    while let Some(response) = stream.message().await? {
        let Some(v2::execute_query_response::Response::Results(results)) = response.response else {
            panic!("only results are streamed")
        };
        let Some(v2::partial_result_set::PartialRows::ProtoRowsBatch(batch)) = results.partial_rows
        else {
            panic!("each message carries a batch")
        };
        let mut crc = sparsetable::codec::encoding::Crc32cDigest::default();
        crc.update(&batch.batch_data);
        assert_eq!(results.batch_checksum, Some(crc.finalize()));
        values.extend(
            v2::ProtoRows::decode(batch.batch_data.as_slice())
                .unwrap()
                .values,
        );
        token = results.resume_token;
    }
    Ok((values, token))
}

pub(crate) fn bytes(v: &v2::Value) -> &[u8] {
    match &v.kind {
        Some(v2::value::Kind::BytesValue(b)) => b,
        other => panic!("not bytes: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queries_are_prepared_executed_and_resumed() {
    let server = Server::start(&[]);
    server.create_table_t().await;
    let mut data = server.data().await;
    for key in ["a", "b", "c"] {
        data.mutate_row(v2::MutateRowRequest {
            table_name: TABLE.into(),
            row_key: key.as_bytes().to_vec(),
            mutations: vec![v2::Mutation {
                mutation: Some(v2::mutation::Mutation::SetCell(v2::mutation::SetCell {
                    family_name: "cf".into(),
                    column_qualifier: b"q".to_vec(),
                    timestamp_micros: 1000,
                    value: format!("value-{key}").into_bytes(),
                })),
            }],
            ..Default::default()
        })
        .await
        .unwrap();
    }

    let prepared = prepare(
        &server,
        "SELECT _key, cf['q'] AS q FROM t WHERE _key >= @from",
        &[("from", bytes_type())],
    )
    .await
    .unwrap();
    let Some(v2::result_set_metadata::Schema::ProtoSchema(schema)) =
        prepared.metadata.unwrap().schema
    else {
        panic!("a proto schema")
    };
    let names: Vec<&str> = schema.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["_key", "q"]);
    let from = v2::Value {
        r#type: Some(bytes_type()),
        kind: Some(v2::value::Kind::BytesValue(b"b".to_vec())),
    };
    let (values, token) = execute(
        &server,
        &prepared.prepared_query,
        &[("from", from.clone())],
        &[],
    )
    .await
    .unwrap();
    let got: Vec<&[u8]> = values.iter().map(bytes).collect();
    assert_eq!(got, [&b"b"[..], b"value-b", b"c", b"value-c"]);
    // Resumed after the first row, only the second comes.
    assert_eq!(token, b"2");
    let (values, _) = execute(&server, &prepared.prepared_query, &[("from", from)], b"1")
        .await
        .unwrap();
    assert_eq!(bytes(&values[0]), b"c");

    // Refusals: outside the subset, an unknown table, a missing parameter, a foreign token.
    let outside = prepare(&server, "SELECT * FROM t JOIN t AS u ON TRUE", &[])
        .await
        .unwrap_err();
    assert_eq!(outside.code(), tonic::Code::InvalidArgument);
    let missing = prepare(&server, "SELECT * FROM nowhere", &[])
        .await
        .unwrap_err();
    assert_eq!(missing.code(), tonic::Code::NotFound);
    let unset = execute(&server, &prepared.prepared_query, &[], &[])
        .await
        .unwrap_err();
    assert_eq!(unset.code(), tonic::Code::InvalidArgument);
    let foreign = execute(&server, b"not a token", &[], &[])
        .await
        .unwrap_err();
    assert_eq!(foreign.code(), tonic::Code::InvalidArgument);
}

/// The `PREPARED_QUERY_EXPIRED` violation a status carries, if any.
fn expired_violation(status: &tonic::Status) -> Option<String> {
    use googleapis_tonic_google_bigtable_v2::google::rpc;
    let details = rpc::Status::decode(status.details()).ok()?;
    details
        .details
        .iter()
        .filter(|any| any.type_url == "type.googleapis.com/google.rpc.PreconditionFailure")
        .filter_map(|any| rpc::PreconditionFailure::decode(any.value.as_slice()).ok())
        .flat_map(|f| f.violations)
        .find(|v| v.r#type == "PREPARED_QUERY_EXPIRED")
        .map(|v| v.description)
}

/// Adds an empty family `id` to table t.
async fn add_family(server: &Server, id: &str) {
    use admin_v2::modify_column_families_request::{modification::Mod, Modification};
    server
        .admin()
        .await
        .modify_column_families(admin_v2::ModifyColumnFamiliesRequest {
            name: TABLE.into(),
            modifications: vec![Modification {
                id: id.into(),
                r#mod: Some(Mod::Create(admin_v2::ColumnFamily::default())),
                ..Default::default()
            }],
            ..Default::default()
        })
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prepared_queries_expire_after_an_hour_and_when_the_schema_changes() {
    use sparsetable_server::test_clock::service::test_clock_client::TestClockClient;
    use sparsetable_server::test_clock::AdvanceTimeRequest;
    let server = Server::start(&["--clock-micros", "1700000000000000"]);
    server.create_table_t().await;
    let mut clock = TestClockClient::new(server.channel().await);
    let prepared = prepare(&server, "SELECT * FROM t", &[]).await.unwrap();
    let valid_until = prepared.valid_until.unwrap();
    assert_eq!(
        (valid_until.seconds, valid_until.nanos),
        (1_700_000_000 + 3600, 0)
    );
    execute(&server, &prepared.prepared_query, &[], &[])
        .await
        .unwrap();

    // A microsecond before `valid_until` it runs; at `valid_until` it has expired, with the
    // violation Google's clients prepare again on.
    clock
        .advance_time(AdvanceTimeRequest {
            delta_micros: 3_600_000_000 - 1,
        })
        .await
        .unwrap();
    execute(&server, &prepared.prepared_query, &[], &[])
        .await
        .unwrap();
    clock
        .advance_time(AdvanceTimeRequest { delta_micros: 1 })
        .await
        .unwrap();
    let err = execute(&server, &prepared.prepared_query, &[], &[])
        .await
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::FailedPrecondition, "{err:?}");
    let why = expired_violation(&err).expect("a PREPARED_QUERY_EXPIRED violation");
    assert!(why.contains("expired"), "{why}");

    // Prepared again, it runs; a family added to the table makes `SELECT *` stale.
    let fresh = prepare(&server, "SELECT * FROM t", &[]).await.unwrap();
    execute(&server, &fresh.prepared_query, &[], &[])
        .await
        .unwrap();
    add_family(&server, "extra").await;
    let err = execute(&server, &fresh.prepared_query, &[], &[])
        .await
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::FailedPrecondition);
    assert!(expired_violation(&err).unwrap().contains("changed"));
    // A query whose columns the change does not touch is still good.
    let keys = prepare(&server, "SELECT _key FROM t", &[]).await.unwrap();
    add_family(&server, "more").await;
    execute(&server, &keys.prepared_query, &[], &[])
        .await
        .unwrap();
    // Other failures carry no such violation (clients must not retry them as expired).
    let other = execute(&server, b"not a token", &[], &[])
        .await
        .unwrap_err();
    assert_eq!(other.code(), tonic::Code::InvalidArgument);
    assert!(expired_violation(&other).is_none());
}
