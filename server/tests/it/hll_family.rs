//! The HyperLogLog++ aggregate family through the real server: created by CreateTable and
//! ModifyColumnFamilies and reported by GetTable as `hllpp_unique_count`; written with AddToCell
//! (raw and int64 inputs) and MergeToCell (a sketch read back from another cell) through
//! MutateRow and MutateRows; counted by SQL's HLL_COUNT.EXTRACT and HLL_COUNT.MERGE; and the
//! refusals (a malformed sketch, SetCell, a string input) as INVALID_ARGUMENT.

use crate::common;
use crate::sql::{execute, prepare};

use common::Server;
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin_v2;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;

const PARENT: &str = "projects/p/instances/i";
const TABLE: &str = "projects/p/instances/i/tables/h";

fn hll_family() -> admin_v2::ColumnFamily {
    use admin_v2::r#type::{aggregate::Aggregator, Aggregate, Kind};
    admin_v2::ColumnFamily {
        value_type: Some(admin_v2::Type {
            kind: Some(Kind::AggregateType(Box::new(Aggregate {
                aggregator: Some(Aggregator::HllppUniqueCount(Default::default())),
                ..Default::default()
            }))),
        }),
        ..Default::default()
    }
}

fn is_hll(family: Option<&admin_v2::ColumnFamily>) -> bool {
    use admin_v2::r#type::{aggregate::Aggregator, Kind};
    matches!(
        family.and_then(|f| f.value_type.as_ref()).and_then(|t| t.kind.as_ref()),
        Some(Kind::AggregateType(a)) if matches!(a.aggregator, Some(Aggregator::HllppUniqueCount(_)))
    )
}

fn value(kind: v2::value::Kind) -> Option<v2::Value> {
    Some(v2::Value {
        r#type: None,
        kind: Some(kind),
    })
}

fn add(input: v2::value::Kind) -> v2::Mutation {
    v2::Mutation {
        mutation: Some(v2::mutation::Mutation::AddToCell(v2::mutation::AddToCell {
            family_name: "u".into(),
            column_qualifier: value(v2::value::Kind::RawValue(b"q".to_vec())),
            timestamp: value(v2::value::Kind::RawTimestampMicros(0)),
            input: value(input),
        })),
    }
}

fn merge(state: Vec<u8>) -> v2::Mutation {
    v2::Mutation {
        mutation: Some(v2::mutation::Mutation::MergeToCell(
            v2::mutation::MergeToCell {
                family_name: "u".into(),
                column_qualifier: value(v2::value::Kind::RawValue(b"q".to_vec())),
                timestamp: value(v2::value::Kind::RawTimestampMicros(0)),
                input: value(v2::value::Kind::RawValue(state)),
            },
        )),
    }
}

fn raw(s: &str) -> v2::value::Kind {
    v2::value::Kind::RawValue(s.as_bytes().to_vec())
}

async fn mutate(server: &Server, key: &str, mutations: Vec<v2::Mutation>) -> tonic::Result<()> {
    server
        .data()
        .await
        .mutate_row(v2::MutateRowRequest {
            table_name: TABLE.into(),
            row_key: key.as_bytes().to_vec(),
            mutations,
            ..Default::default()
        })
        .await
        .map(|_| ())
}

/// The INT64 values a query returns.
async fn ints(server: &Server, sql: &str) -> Vec<i64> {
    let prepared = prepare(server, sql, &[]).await.unwrap();
    let (values, _) = execute(server, &prepared.prepared_query, &[], &[])
        .await
        .unwrap();
    values
        .iter()
        .map(|v| match v.kind {
            Some(v2::value::Kind::IntValue(n)) => n,
            ref other => panic!("not an int: {other:?}"),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hll_family_is_created_written_merged_and_counted() {
    let server = Server::start(&[]);
    let mut admin = server.admin().await;
    admin
        .create_table(admin_v2::CreateTableRequest {
            parent: PARENT.into(),
            table_id: "h".into(),
            table: Some(admin_v2::Table {
                column_families: [("u".to_string(), hll_family())].into(),
                ..Default::default()
            }),
            initial_splits: vec![],
        })
        .await
        .expect("an hllpp_unique_count family is created");
    let got = admin
        .get_table(admin_v2::GetTableRequest {
            name: TABLE.into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(is_hll(got.column_families.get("u")), "{got:?}");

    // Row a: three raw inputs (two equal) and an int64 input; row b, through MutateRows:
    // "carol", "dave" and "alice" again.
    mutate(
        &server,
        "a",
        vec![
            add(raw("alice")),
            add(raw("bob")),
            add(raw("alice")),
            add(v2::value::Kind::IntValue(7)),
        ],
    )
    .await
    .unwrap();
    let mut data = server.data().await;
    let mut stream = data
        .mutate_rows(v2::MutateRowsRequest {
            table_name: TABLE.into(),
            entries: vec![v2::mutate_rows_request::Entry {
                row_key: b"b".to_vec(),
                mutations: vec![add(raw("carol")), add(raw("dave")), add(raw("alice"))],
                ..Default::default()
            }],
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    while let Some(r) = stream.message().await.unwrap() {
        for e in r.entries {
            assert_eq!(e.status.map_or(0, |s| s.code), 0);
        }
    }
    assert_eq!(
        ints(&server, "SELECT HLL_COUNT.EXTRACT(u['q']) AS n FROM h").await,
        [3, 3]
    );
    assert_eq!(
        ints(&server, "SELECT HLL_COUNT.MERGE(u['q']) AS n FROM h").await,
        [5]
    );

    // Read b's sketch back and merge it into a: the union (alice, bob, 7, carol, dave).
    let (rows, _) = common::read_rows(
        &mut data,
        v2::ReadRowsRequest {
            table_name: TABLE.into(),
            rows: Some(v2::RowSet {
                row_keys: vec![b"b".to_vec()],
                row_ranges: vec![],
            }),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let sketch = rows[0].cells[0].value.clone();
    assert!(sketch.starts_with(b"STHL"), "a read returns the sketch");
    mutate(&server, "a", vec![merge(sketch)]).await.unwrap();
    assert_eq!(
        ints(
            &server,
            "SELECT HLL_COUNT.EXTRACT(u['q']) AS n FROM h WHERE _key = 'a'"
        )
        .await,
        [5]
    );

    // Refusals: not a sketch, SetCell on the family, a string input.
    for bad in [
        merge(b"not a sketch".to_vec()),
        merge(7i64.to_be_bytes().to_vec()),
        v2::Mutation {
            mutation: Some(v2::mutation::Mutation::SetCell(v2::mutation::SetCell {
                family_name: "u".into(),
                column_qualifier: b"q".to_vec(),
                timestamp_micros: 0,
                value: b"x".to_vec(),
            })),
        },
        add(v2::value::Kind::StringValue("x".into())),
    ] {
        let e = mutate(&server, "a", vec![bad]).await.unwrap_err();
        assert_eq!(e.code(), tonic::Code::InvalidArgument, "{e:?}");
    }
    // Nothing of the refused writes landed.
    assert_eq!(
        ints(
            &server,
            "SELECT HLL_COUNT.EXTRACT(u['q']) AS n FROM h WHERE _key = 'a'"
        )
        .await,
        [5]
    );

    // ModifyColumnFamilies creates one too.
    let modified = admin
        .modify_column_families(admin_v2::ModifyColumnFamiliesRequest {
            name: TABLE.into(),
            modifications: vec![admin_v2::modify_column_families_request::Modification {
                id: "v".into(),
                update_mask: None,
                r#mod: Some(
                    admin_v2::modify_column_families_request::modification::Mod::Create(
                        hll_family(),
                    ),
                ),
            }],
            ignore_warnings: false,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(is_hll(modified.column_families.get("v")), "{modified:?}");
}
