//! A prepared SQL query that names one row by its key (`WHERE _key = @k`) reads that row with
//! the point read ReadRow uses instead of a stream over a one-key range (issue 29's point-query
//! target). This property test checks that the shortcut changes no answer: on random tables
//! (versions, deletes, two families, rows compacted into runs), each query with `_key = @k`
//! returns exactly what the same query returns when its key test cannot be pushed down
//! (`CONCAT(_key, b'') = @k`, evaluated row by row over a full scan), for keys that exist,
//! keys that do not, and with history, time ranges and version limits.

use std::collections::BTreeMap;
use std::sync::Arc;

use proptest::prelude::*;
use sparsetable::api::sql::{self, SqlType, SqlValue};
use sparsetable::{ColumnFamily, Database, ManualClock, Mutation, TableConfig, TimestampRange};

const NOW: i64 = 1_700_000_000_000_000;

fn key(i: u8) -> Vec<u8> {
    format!("r{i}").into_bytes()
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let family = (0usize..2).prop_map(|i| ["a", "b"][i].to_string());
    let qualifier = (0u8..3).prop_map(|i| format!("q{i}").into_bytes());
    prop_oneof![
        8 => (family.clone(), qualifier.clone(), 1i64..20, any::<u8>())
            .prop_map(|(f, q, t, v)| Mutation::set_cell(f, q, t * 1000, vec![v; 3])),
        1 => (family.clone(), qualifier).prop_map(|(f, q)| Mutation::DeleteFromColumn {
            family: f,
            qualifier: q,
            time_range: TimestampRange::default(),
        }),
        1 => family.prop_map(|f| Mutation::DeleteFromFamily { family: f }),
    ]
}

/// The queries, each with `{key}` standing for the key test.
const QUERIES: &[&str] = &[
    "SELECT * FROM t WHERE {key}",
    "SELECT _key, a['q0'] AS v, b FROM t WHERE {key}",
    // One column: a row holding only others must still be a result row (the point read
    // seeks past the other columns and must still see that the row exists).
    "SELECT _key, a['q2'] AS v FROM t WHERE {key}",
    "SELECT _key, a FROM t(with_history => TRUE) WHERE {key}",
    "SELECT _key, a FROM t(with_history => TRUE, latest_n => 2) WHERE {key}",
    "SELECT _key, b['q1'] AS v FROM t(with_history => TRUE, after => TIMESTAMP_MICROS(5000)) WHERE {key}",
    "SELECT COUNT(*) AS n FROM t WHERE {key}",
    // The key pinned among other AND terms, and pinned twice (to one row or to none).
    "SELECT _key, a['q1'] AS v FROM t WHERE a['q0'] IS NULL AND {key}",
    "SELECT _key FROM t WHERE {key} AND _key = b'r1'",
    // A parameter read by a SELECT item as well as by the key test.
    "SELECT _key, CONCAT(@k, b'!') AS k2 FROM t WHERE {key}",
    // Not pinned: either key.
    "SELECT _key FROM t WHERE {key} OR _key = b'r1'",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_point_query_answers_as_the_scan_does(
        writes in proptest::collection::vec((0u8..4, proptest::collection::vec(mutation(), 1..4)), 0..24),
        flush_after in 0usize..24,
        wanted in 0u8..5,
    ) {
        let mut db = Database::with_clock(Arc::new(ManualClock::new(NOW)));
        let config = TableConfig {
            families: ["a", "b"]
                .into_iter()
                .map(|f| (f.to_string(), ColumnFamily::default()))
                .collect(),
            ..TableConfig::default()
        };
        db.create_table("t", config).unwrap();
        for (i, (row, mutations)) in writes.iter().enumerate() {
            db.mutate_row("t", &key(*row), mutations).unwrap();
            if i == flush_after {
                db.compact_table("t").unwrap();
            }
        }
        let types = BTreeMap::from([("k".to_string(), SqlType::Bytes)]);
        let params = BTreeMap::from([("k".to_string(), SqlValue::Bytes(key(wanted)))]);
        for q in QUERIES {
            let point = sql::prepare(&db, &q.replace("{key}", "_key = @k"), types.clone()).unwrap();
            let scan = sql::prepare(&db, &q.replace("{key}", "CONCAT(_key, b'') = @k"), types.clone())
                .unwrap();
            prop_assert_eq!(
                sql::execute(&db, &point, &params).unwrap(),
                sql::execute(&db, &scan, &params).unwrap(),
                "{}", q
            );
        }
    }
}
