//! Issue 12's counter-cost probe: a hot counter's reads cost a bounded number of stored
//! entries however many versions its column's GC rule hides, in the memtable, in runs (in
//! memory and as SSTable files), forward and reversed, under `max_num_versions` and
//! `max_age` rules. Counts work (`RowStream::entries_examined`), never time, so it cannot
//! flake; the latency itself is measured by `examples/counter_latency.rs` and the
//! `counter` criterion bench.

use std::sync::Arc;

use sparsetable::platform::storage::MemStorage;
use sparsetable::{
    ColumnFamily, Database, Durability, GcRule, ManualClock, OpenOptions, ReadModifyWriteRule,
    ReadRowsRequest, RowSet, TableConfig, TabletOptions,
};

const START: i64 = 1_700_000_000_000_000;
const INCREMENTS: usize = 2_000;
/// What a read of the counter may examine: a few entries per source (each steps over a
/// handful of hidden versions before it seeks), plus a reversed scan's backward gather.
fn bound(runs: usize) -> u64 {
    (12 * (runs + 2) + 80) as u64
}

fn config(rule: GcRule, memtable_bytes: u64) -> TableConfig {
    let mut config = TableConfig {
        tablet_options: TabletOptions {
            memtable_bytes,
            // Many overlapping runs: merges keep hidden versions (only a full compaction
            // drops them), so the reads below meet them in runs.
            max_runs: 16,
            ..TabletOptions::default()
        },
        ..TableConfig::default()
    };
    config.families.insert(
        "cf".into(),
        ColumnFamily {
            gc_rule: rule,
            ..ColumnFamily::default()
        },
    );
    config
}

fn database(on_storage: bool, clock: Arc<ManualClock>) -> Database {
    if on_storage {
        let options = OpenOptions {
            durability: Durability::None,
            ..OpenOptions::default()
        };
        Database::open(Arc::new(MemStorage::new()), options, clock).unwrap()
    } else {
        Database::with_clock(clock)
    }
}

/// Increments the counter `INCREMENTS` times, the clock moving `step_micros` between
/// increments (0: many share a millisecond, so they replace one cell), and returns the
/// entries a forward and a reversed read of the counter examined.
fn increments_then_read(
    db: &mut Database,
    clock: &ManualClock,
    step_micros: i64,
    after_micros: i64,
) -> (u64, u64) {
    let rule = [ReadModifyWriteRule::increment("cf", b"n".to_vec(), 1)];
    for _ in 0..INCREMENTS {
        db.read_modify_write_row("t", b"counter", &rule).unwrap();
        clock.advance_micros(step_micros);
    }
    clock.advance_micros(after_micros);
    let mut examined = [0u64; 2];
    for (i, reversed) in [false, true].into_iter().enumerate() {
        let request = ReadRowsRequest {
            row_set: RowSet::single(b"counter".to_vec()),
            reversed,
            ..ReadRowsRequest::default()
        };
        let mut stream = db.read_rows("t", &request).unwrap();
        let row = stream.next().unwrap();
        assert!(stream.next().is_none());
        assert_eq!(row.cells[0].value, (INCREMENTS as i64).to_be_bytes());
        examined[i] = stream.entries_examined();
    }
    (examined[0], examined[1])
}

fn check(rule: GcRule, step_micros: i64, after_micros: i64) {
    for on_storage in [false, true] {
        // Default memtable (every version in it) and a tiny one (most versions in runs).
        for memtable_bytes in [TabletOptions::default().memtable_bytes, 2048] {
            let clock = Arc::new(ManualClock::new(START));
            let mut db = database(on_storage, clock.clone());
            db.create_table("t", config(rule.clone(), memtable_bytes))
                .unwrap();
            let (forward, reversed) =
                increments_then_read(&mut db, &clock, step_micros, after_micros);
            let visible = db.read_row("t", b"counter").unwrap().unwrap().cells.len();
            assert_eq!(visible, 1, "one version visible");
            let runs: usize = db.tablets("t").unwrap().iter().map(|t| t.runs).sum();
            let case =
                format!("{rule:?} storage {on_storage} memtable {memtable_bytes} ({runs} runs)");
            // Far below the versions the reads would walk without skipping.
            assert!(bound(runs) < INCREMENTS as u64 / 4, "{case}");
            assert!(
                forward <= bound(runs),
                "{case}: forward read examined {forward}"
            );
            assert!(
                reversed <= bound(runs),
                "{case}: reversed read examined {reversed}"
            );
        }
    }
}

#[test]
#[ignore = "robustness suite: scripts/suites/robustness.sh"]
fn a_hot_counter_under_max_versions_reads_a_bounded_number_of_entries() {
    // One increment per millisecond: every version has its own timestamp.
    check(GcRule::MaxNumVersions(1), 1000, 0);
}

#[test]
#[ignore = "robustness suite: scripts/suites/robustness.sh"]
fn a_hot_counter_whose_increments_share_a_millisecond_reads_a_bounded_number_of_entries() {
    // Increments within one millisecond replace the cell (older writes of one cell).
    check(GcRule::MaxNumVersions(1), 0, 0);
    check(GcRule::Never, 0, 0);
}

#[test]
#[ignore = "robustness suite: scripts/suites/robustness.sh"]
fn versions_past_a_max_age_are_skipped_by_a_seek() {
    // Either rule alone hides every version but the newest.
    let rule = GcRule::Union(vec![
        GcRule::MaxAge { micros: 60_000 },
        GcRule::MaxNumVersions(1),
    ]);
    check(rule, 1000, 0);
    // Only both together hide a version: the newest is within one version, and a second
    // after the last increment every older one is past the age.
    let rule = GcRule::Intersection(vec![
        GcRule::MaxAge { micros: 10_000 },
        GcRule::MaxNumVersions(1),
    ]);
    check(rule, 1000, 1_000_000);
    // An age alone: a minute after the last increment only a fresh write is visible.
    let clock = Arc::new(ManualClock::new(START));
    let mut db = database(true, clock.clone());
    db.create_table("t", config(GcRule::MaxAge { micros: 60_000_000 }, 2048))
        .unwrap();
    let (forward, reversed) = increments_then_read(&mut db, &clock, 1000, 0);
    // Every version is younger than a minute: all of them are visible and examined.
    assert!(forward >= INCREMENTS as u64 && reversed >= INCREMENTS as u64);
}
