//! Inspection reads, for tools that show a table without being traffic on it: the stored
//! versions of a row with the GC rule hiding each, untracked streams that leave the access
//! statistics alone, and the explain counters of a stream (tablets touched, bytes examined).

use std::sync::Arc;

use sparsetable::{Database, GcRule, ManualClock, Mutation, ReadRowsRequest, RowSet, TableConfig};

const T0: i64 = 1_700_000_000_000_000;

fn db_with(rule: GcRule, splits: &[&str]) -> Database {
    let mut db = Database::with_clock(Arc::new(ManualClock::new(T0)));
    let mut config = TableConfig::with_families(["cf", "other"]);
    config.families.get_mut("cf").unwrap().gc_rule = rule;
    config.initial_splits = splits.iter().map(|s| s.as_bytes().to_vec()).collect();
    db.create_table("t", config).unwrap();
    db
}

fn put(db: &mut Database, row: &str, family: &str, ts: i64, value: &str) {
    db.mutate_row(
        "t",
        row.as_bytes(),
        &[Mutation::set_cell(family, b"q", ts, value.as_bytes())],
    )
    .unwrap();
}

#[test]
fn row_versions_include_what_max_versions_hides_and_name_the_rule() {
    let mut db = db_with(GcRule::MaxNumVersions(2), &[]);
    for (i, v) in ["one", "two", "three"].iter().enumerate() {
        put(&mut db, "r", "cf", T0 - 3000 + i as i64 * 1000, v);
    }
    put(&mut db, "r", "other", T0 - 5000, "kept");
    let stored = db.read_row_versions("t", b"r").unwrap();
    let shown: Vec<_> = stored
        .iter()
        .map(|s| {
            (
                s.cell.family.as_str(),
                String::from_utf8(s.cell.value.clone()).unwrap(),
                s.collected_by.clone(),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            ("cf", "three".to_string(), None),
            ("cf", "two".to_string(), None),
            ("cf", "one".to_string(), Some(GcRule::MaxNumVersions(2))),
            ("other", "kept".to_string(), None),
        ]
    );
    // Reads return exactly the versions no rule hides.
    let read = db.read_row("t", b"r").unwrap().unwrap();
    let visible: Vec<_> = stored
        .iter()
        .filter(|s| s.collected_by.is_none())
        .map(|s| s.cell.clone())
        .collect();
    assert_eq!(read.cells, visible);
}

#[test]
fn row_versions_name_the_age_rule_inside_a_union_and_skip_deleted_cells() {
    let age = GcRule::MaxAge { micros: 60_000_000 };
    let mut db = db_with(
        GcRule::Union(vec![GcRule::MaxNumVersions(5), age.clone()]),
        &[],
    );
    put(&mut db, "r", "cf", T0 - 120_000_000, "old");
    put(&mut db, "r", "cf", T0 - 1000, "new");
    put(&mut db, "r", "cf", T0 - 2000, "deleted");
    let values = |db: &Database| -> Vec<(Vec<u8>, Option<GcRule>)> {
        db.read_row_versions("t", b"r")
            .unwrap()
            .into_iter()
            .map(|s| (s.cell.value, s.collected_by))
            .collect()
    };
    assert_eq!(
        values(&db),
        [
            (b"new".to_vec(), None),
            (b"deleted".to_vec(), None),
            (b"old".to_vec(), Some(age)),
        ]
    );
    db.mutate_row(
        "t",
        b"r",
        &[Mutation::DeleteFromColumn {
            family: "cf".into(),
            qualifier: b"q".to_vec(),
            time_range: sparsetable::TimestampRange {
                start_micros: T0 - 2000,
                end_micros: Some(T0 - 1000),
            },
        }],
    )
    .unwrap();
    // The delete hides its cell; a ranged delete also buries what GC collects (the engine's
    // rule: once collectable, gone), so only the newest version is left.
    assert_eq!(values(&db), [(b"new".to_vec(), None)]);
    assert!(db.read_row_versions("t", b"absent").unwrap().is_empty());
    assert!(db.read_row_versions("nope", b"r").is_err());
}

#[test]
fn an_untracked_stream_leaves_access_stats_alone() {
    let mut db = db_with(GcRule::Never, &[]);
    put(&mut db, "a", "cf", T0, "1");
    let before = db.access_stats("t").unwrap();
    let mut stream = db.read_rows("t", &ReadRowsRequest::default()).unwrap();
    stream.set_access_stats(false);
    assert_eq!(stream.by_ref().count(), 1);
    db.read_row_versions("t", b"a").unwrap();
    assert_eq!(db.access_stats("t").unwrap(), before);
    // The same read tracked is counted: the check above can fail.
    let reads = |db: &Database| -> u64 {
        db.access_stats("t")
            .unwrap()
            .iter()
            .map(|s| s.counters.reads)
            .sum()
    };
    let tracked_before = reads(&db);
    assert_eq!(
        db.read_rows("t", &ReadRowsRequest::default())
            .unwrap()
            .count(),
        1
    );
    assert!(reads(&db) > tracked_before);
}

#[test]
fn a_stream_counts_the_tablets_it_touches_and_the_bytes_it_examines() {
    let mut db = db_with(GcRule::Never, &["m", "t"]);
    for row in ["a", "b", "n", "u"] {
        put(&mut db, row, "cf", T0, "vv");
    }
    let mut all = db.read_rows("t", &ReadRowsRequest::default()).unwrap();
    assert_eq!(all.by_ref().count(), 4);
    assert_eq!(all.tablets_touched(), 3);
    // Each row: its 1-byte key, the 1-byte qualifier, the 2-byte value.
    assert_eq!(all.bytes_examined(), 4 * 4);
    let request = ReadRowsRequest {
        row_set: RowSet::single(b"b".to_vec()),
        ..ReadRowsRequest::default()
    };
    let mut one = db.read_rows("t", &request).unwrap();
    assert_eq!(one.by_ref().count(), 1);
    assert_eq!(one.tablets_touched(), 1);
}
