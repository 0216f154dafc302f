//! SQL scans read with the data filter alone and learn which rows exist from the stream
//! (`RowStream::set_keep_present`), so the filter's column selection is pushed down into
//! the read (issue 30). This property test checks that the shortcut changes no answer: on
//! random tables (versions, column, family and row deletes, GC rules, rows compacted into
//! runs), each query returns exactly what it returns when read the old way, with the
//! presence branch in the filter (the prepared query's data filter dropped).

use super::*;
use crate::model::gc::GcRule;
use crate::model::mutation::{Mutation, TimestampRange};
use crate::model::schema::{ColumnFamily, TableConfig};
use crate::platform::clock::ManualClock;
use alloc::string::ToString;
use alloc::sync::Arc;
use alloc::vec;
use proptest::prelude::*;

const NOW: i64 = 1_700_000_000_000_000;

fn key(i: u8) -> Vec<u8> {
    alloc::format!("r{i}").into_bytes()
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let family = (0usize..2).prop_map(|i| ["a", "b"][i].to_string());
    let qualifier = (0u8..3).prop_map(|i| alloc::format!("q{i}").into_bytes());
    prop_oneof![
        8 => (family.clone(), qualifier.clone(), 1i64..20, 0u8..3)
            .prop_map(|(f, q, t, v)| Mutation::set_cell(f, q, t * 1000, vec![b'0' + v])),
        1 => (family.clone(), qualifier).prop_map(|(f, q)| Mutation::DeleteFromColumn {
            family: f,
            qualifier: q,
            time_range: TimestampRange::default(),
        }),
        1 => family.prop_map(|f| Mutation::DeleteFromFamily { family: f }),
        1 => Just(Mutation::DeleteFromRow),
    ]
}

/// Table scans (no `_key = @k`): GROUP BY, COUNT(*), keys only, some columns, one column,
/// history, filters on values, limits and key ranges.
const QUERIES: &[&str] = &[
    "SELECT a['q0'] AS g, COUNT(*) AS c FROM t GROUP BY g",
    "SELECT COUNT(*) AS n FROM t",
    "SELECT _key FROM t",
    "SELECT * FROM t",
    "SELECT _key, a['q0'] AS v, b FROM t",
    "SELECT _key, a['q2'] AS v FROM t",
    "SELECT _key FROM t WHERE b['q1'] IS NULL",
    "SELECT _key, a FROM t(with_history => TRUE, latest_n => 2)",
    "SELECT _key, b['q0'] AS v FROM t LIMIT 2",
    "SELECT _key, b FROM t WHERE _key >= b'r2'",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn a_scan_that_learns_presence_from_the_stream_answers_as_the_presence_filter_does(
        writes in proptest::collection::vec((0u8..5, proptest::collection::vec(mutation(), 1..4)), 0..24),
        flush_after in 0usize..24,
        versions in 0u32..3,
    ) {
        let mut db = Database::with_clock(Arc::new(ManualClock::new(NOW)));
        let gc_rule = match versions {
            0 => GcRule::Never,
            n => GcRule::MaxNumVersions(n),
        };
        let config = TableConfig {
            families: ["a", "b"]
                .into_iter()
                .map(|f| (f.to_string(), ColumnFamily { gc_rule: gc_rule.clone(), ..ColumnFamily::default() }))
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
        let none = BTreeMap::new();
        for q in QUERIES {
            let query = prepare(&db, q, BTreeMap::new()).unwrap();
            // The old way: the read filter with its presence branch.
            let mut old = query.clone();
            old.point_filter = None;
            prop_assert!(old.filter.is_some(), "{}", q);
            let got = execute(&db, &query, &none).unwrap();
            let want = execute(&db, &old, &none).unwrap();
            prop_assert_eq!(got, want, "{}", q);
        }
    }
}
