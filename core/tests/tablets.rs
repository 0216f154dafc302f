//! Tablets split as data grows, merge when emptied, report every structural event, and keep
//! reads exact throughout; SampleRowKeys returns the real tablet boundaries.

use std::sync::Arc;

use sparsetable::{
    Database, DropRowRange, ManualClock, Mutation, ReadRowsRequest, RowRange, RowSet, TableConfig,
    TabletEventKind, TabletOptions,
};

fn small_tablets() -> TableConfig {
    TableConfig {
        tablet_options: TabletOptions {
            memtable_bytes: 2_000,
            max_runs: 2,
            split_bytes: 20_000,
            merge_bytes: 4_000,
            split_load_ops: 0,
        },
        ..TableConfig::with_families(["cf"])
    }
}

fn key(i: u32) -> Vec<u8> {
    format!("row{i:05}").into_bytes()
}

#[test]
fn tablets_split_as_data_grows_and_reads_stay_exact() {
    let mut db = Database::with_clock(Arc::new(ManualClock::new(1_000_000)));
    db.create_table("t", small_tablets()).unwrap();
    for i in 0..2_000u32 {
        db.mutate_row(
            "t",
            &key(i),
            &[Mutation::set_cell("cf", b"q", 1000, vec![b'x'; 64])],
        )
        .unwrap();
    }
    let tablets = db.tablets("t").unwrap();
    assert!(
        tablets.len() >= 4,
        "expected splits, got {} tablets",
        tablets.len()
    );
    assert!(tablets[0].start_key.is_empty() && tablets.last().unwrap().end_key.is_empty());
    for w in tablets.windows(2) {
        assert_eq!(w[0].end_key, w[1].start_key, "tablets must be contiguous");
    }
    let events = db.take_tablet_events();
    for kind in [TabletEventKind::Flush, TabletEventKind::Split] {
        assert!(events.iter().any(|e| e.kind == kind), "no {kind:?} event");
    }
    // Rows written in key order make runs of disjoint row ranges: tablets split between
    // runs, and nothing is rewritten.
    assert!(
        !events.iter().any(|e| e.kind == TabletEventKind::Compaction),
        "a sequential load compacted"
    );
    let split = events
        .iter()
        .find(|e| e.kind == TabletEventKind::Split)
        .unwrap();
    assert_eq!(split.before.len(), 1);
    assert_eq!(split.after.len(), 2);
    assert_eq!(split.after[0].end_key, split.after[1].start_key);
    assert_eq!(split.before[0].start_key, split.after[0].start_key);

    // SampleRowKeys: the tablet boundaries, then the empty key; offsets grow.
    let samples = db.sample_row_keys("t").unwrap();
    let boundaries: Vec<Vec<u8>> = tablets.iter().map(|t| t.end_key.clone()).collect();
    assert_eq!(
        samples
            .iter()
            .map(|s| s.row_key.clone())
            .collect::<Vec<_>>(),
        boundaries
    );
    assert!(samples
        .windows(2)
        .all(|w| w[0].offset_bytes <= w[1].offset_bytes));

    // Every row reads back once, in order, forwards and backwards, across tablet boundaries.
    let rows: Vec<_> = db
        .read_rows("t", &ReadRowsRequest::default())
        .unwrap()
        .collect();
    assert_eq!(rows.len(), 2_000);
    assert!(rows.iter().enumerate().all(|(i, r)| r.key == key(i as u32)));
    let reversed = ReadRowsRequest {
        reversed: true,
        rows_limit: 1_500,
        ..ReadRowsRequest::default()
    };
    let back: Vec<_> = db.read_rows("t", &reversed).unwrap().collect();
    assert_eq!(back.len(), 1_500);
    assert!(back
        .iter()
        .enumerate()
        .all(|(i, r)| r.key == key(1_999 - i as u32)));
    let mid = ReadRowsRequest {
        row_set: RowSet {
            row_keys: vec![key(5), key(1_999)],
            row_ranges: vec![RowRange::closed_open(key(990), key(1_010))],
        },
        ..ReadRowsRequest::default()
    };
    let got: Vec<_> = db.read_rows("t", &mid).unwrap().map(|r| r.key).collect();
    let mut want = vec![key(5)];
    want.extend((990..1_010).map(key));
    want.push(key(1_999));
    assert_eq!(got, want);

    // Overwrites in scattered order make overlapping runs: those merge, and every row
    // still reads back once with its newest value.
    for n in 0..2_000u32 {
        let i = (n * 7919) % 2_000;
        db.mutate_row(
            "t",
            &key(i),
            &[Mutation::set_cell("cf", b"q", 2000, vec![b'y'; 64])],
        )
        .unwrap();
    }
    let events = db.take_tablet_events();
    assert!(
        events.iter().any(|e| e.kind == TabletEventKind::Compaction),
        "overlapping runs never merged"
    );
    let rows: Vec<_> = db
        .read_rows("t", &ReadRowsRequest::default())
        .unwrap()
        .collect();
    assert_eq!(rows.len(), 2_000);
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r.key, key(i as u32));
        assert_eq!(r.cells[0].value, vec![b'y'; 64]);
        assert_eq!(r.cells[0].timestamp_micros, 2000);
    }
}

#[test]
fn emptied_tablets_merge_back() {
    let mut db = Database::with_clock(Arc::new(ManualClock::new(1_000_000)));
    db.create_table("t", small_tablets()).unwrap();
    for i in 0..2_000u32 {
        db.mutate_row(
            "t",
            &key(i),
            &[Mutation::set_cell("cf", b"q", 1000, vec![b'x'; 64])],
        )
        .unwrap();
    }
    let before = db.tablets("t").unwrap().len();
    db.drop_row_range("t", &DropRowRange::Prefix(b"row0".to_vec()))
        .unwrap();
    db.drop_row_range("t", &DropRowRange::Prefix(b"row1".to_vec()))
        .unwrap();
    db.take_tablet_events();
    db.compact_table("t").unwrap();
    let after = db.tablets("t").unwrap().len();
    assert!(after < before, "no merge: {before} -> {after} tablets");
    assert!(db
        .take_tablet_events()
        .iter()
        .any(|e| e.kind == TabletEventKind::Merge));
    assert_eq!(
        db.read_rows("t", &ReadRowsRequest::default())
            .unwrap()
            .count(),
        0
    );
}

#[test]
fn initial_splits_are_kept_as_boundaries() {
    let mut db = Database::with_clock(Arc::new(ManualClock::new(1_000_000)));
    let config = TableConfig {
        initial_splits: vec![b"m".to_vec(), b"g".to_vec()],
        ..small_tablets()
    };
    db.create_table("t", config).unwrap();
    db.compact_table("t").unwrap();
    let keys: Vec<Vec<u8>> = db
        .sample_row_keys("t")
        .unwrap()
        .into_iter()
        .map(|s| s.row_key)
        .collect();
    assert_eq!(keys, vec![b"g".to_vec(), b"m".to_vec(), vec![]]);
}

#[test]
fn a_hot_small_tablet_splits_by_load() {
    let mut db = Database::with_clock(Arc::new(ManualClock::new(1_000_000)));
    let mut config = small_tablets();
    config.tablet_options.split_bytes = 1 << 30; // never by size
    config.tablet_options.merge_bytes = 1;
    config.tablet_options.split_load_ops = 50;
    db.create_table("t", config).unwrap();
    for round in 0..3 {
        for i in 0..30u32 {
            db.mutate_row(
                "t",
                &key(i),
                &[Mutation::set_cell("cf", b"q", 1000 * (round + 1), b"v")],
            )
            .unwrap();
        }
    }
    assert!(
        db.tablets("t").unwrap().len() > 1,
        "90 writes in one minute should split"
    );
    assert!(db
        .take_tablet_events()
        .iter()
        .any(|e| e.kind == TabletEventKind::Split));
    let stats = db.access_stats("t").unwrap();
    let writes: u64 = stats.iter().map(|s| s.counters.writes).sum();
    assert_eq!(writes, 90);
    assert!(
        stats.iter().all(|s| s.key_bucket == b"row0"),
        "4-byte key buckets"
    );
    let rows = db
        .read_rows("t", &ReadRowsRequest::default())
        .unwrap()
        .count();
    assert_eq!(rows, 30);
    let reads: u64 = db
        .access_stats("t")
        .unwrap()
        .iter()
        .map(|s| s.counters.reads)
        .sum();
    assert_eq!(reads, 30);
}

/// ListHotTablets' source: the tablet that did most of the work in a window comes first,
/// with its share; quiet tablets and windows outside the work are left out.
#[test]
fn hot_tablets_rank_tablets_by_their_share_of_the_work() {
    use sparsetable::{ManualClock, Mutation, TableConfig};
    let clock = std::sync::Arc::new(ManualClock::new(1_700_000_000_000_000));
    let mut db = sparsetable::Database::with_clock(clock.clone());
    let mut config = TableConfig::with_families(["cf"]);
    config.initial_splits = vec![b"m".to_vec()];
    db.create_table("t", config).unwrap();
    for i in 0..30 {
        let key = format!("z{i}");
        db.mutate_row(
            "t",
            key.as_bytes(),
            &[Mutation::set_cell("cf", "q", 1000, "v")],
        )
        .unwrap();
    }
    db.mutate_row("t", b"a", &[Mutation::set_cell("cf", "q", 1000, "v")])
        .unwrap();
    let now = db.now_micros();
    let hot = db
        .hot_tablets(now - 3_600_000_000, now + 60_000_000, 0.0)
        .unwrap();
    assert_eq!(hot.len(), 2);
    assert_eq!(hot[0].start_key, b"m");
    assert!(hot[0].cpu_share_percent > 90.0, "{hot:?}");
    let total: f32 = hot.iter().map(|h| h.cpu_share_percent).sum();
    assert!((total - 100.0).abs() < 0.01);
    assert_eq!(
        db.hot_tablets(now - 3_600_000_000, now + 60_000_000, 50.0)
            .unwrap()
            .len(),
        1
    );
    assert!(db.hot_tablets(0, 1, 0.0).unwrap().is_empty());
    assert_eq!(
        db.hot_tablets(5, 5, 0.0).unwrap_err().code(),
        sparsetable::Code::InvalidArgument
    );
}
