//! Clocks outside Bigtable's timestamp range (`0 ..= MAX_TIMESTAMP_MICROS`): the engine
//! refuses the reading with `FailedPrecondition` and changes nothing, instead of stamping
//! cells no read returns (before 1970) or wrapping round (near the int64 limit).

use std::sync::Arc;

use sparsetable::limits::MAX_TIMESTAMP_MICROS;
use sparsetable::platform::storage::MemStorage;
use sparsetable::{
    Code, Database, ManualClock, Mutation, OpenOptions, ReadRowsRequest, TableConfig,
    SERVER_TIME_MICROS,
};

fn db_at(micros: i64) -> (Arc<ManualClock>, Database) {
    let clock = Arc::new(ManualClock::new(1_000_000));
    let mut db = Database::with_clock(clock.clone());
    db.create_table("t", TableConfig::with_families(["cf"]))
        .unwrap();
    clock.set_micros(micros);
    (clock, db)
}

fn server_time_set() -> Vec<Mutation> {
    vec![Mutation::set_cell(
        "cf",
        b"q",
        SERVER_TIME_MICROS,
        b"v".to_vec(),
    )]
}

#[test]
#[ignore = "robustness suite: scripts/suites/robustness.sh"]
fn a_clock_outside_the_timestamp_range_is_refused_and_changes_nothing() {
    for bad in [
        -1,
        -1_000_000_000,
        i64::MIN,
        MAX_TIMESTAMP_MICROS + 1,
        i64::MAX,
    ] {
        let (clock, mut db) = db_at(bad);
        let err = db.mutate_row("t", b"r", &server_time_set()).unwrap_err();
        assert_eq!(err.code(), Code::FailedPrecondition, "{bad}: {err}");
        assert!(err.message().contains("clock"), "{err}");
        let err = db.read_rows("t", &ReadRowsRequest::default()).unwrap_err();
        assert_eq!(err.code(), Code::FailedPrecondition, "{bad}: {err}");
        clock.set_micros(2_000_000);
        assert_eq!(
            db.read_rows("t", &ReadRowsRequest::default())
                .unwrap()
                .count(),
            0
        );
        db.mutate_row("t", b"r", &server_time_set()).unwrap();
        let row = db.read_row("t", b"r").unwrap().unwrap();
        assert_eq!(row.cells[0].timestamp_micros, 2_000_000);
    }
}

#[test]
#[ignore = "robustness suite: scripts/suites/robustness.sh"]
fn the_ends_of_the_range_are_valid_times() {
    for good in [0, MAX_TIMESTAMP_MICROS] {
        let (_clock, mut db) = db_at(good);
        db.mutate_row("t", b"r", &server_time_set()).unwrap();
        let row = db
            .read_row("t", b"r")
            .unwrap()
            .expect("the cell is visible");
        assert_eq!(row.cells[0].timestamp_micros, good);
    }
}

#[test]
#[ignore = "robustness suite: scripts/suites/robustness.sh"]
fn opening_on_storage_with_a_bad_clock_is_refused() {
    let err = Database::open(
        Arc::new(MemStorage::new()),
        OpenOptions::default(),
        ManualClock::new(-5_000_000),
    )
    .unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition, "{err}");
}

#[test]
#[ignore = "robustness suite: scripts/suites/robustness.sh"]
fn a_manual_clock_saturates_instead_of_wrapping() {
    let clock = ManualClock::new(i64::MAX - 5);
    clock.advance_micros(1_000);
    assert_eq!(sparsetable::Clock::now_micros(&clock), i64::MAX);
    let clock = ManualClock::new(i64::MIN + 5);
    clock.advance_micros(-1_000);
    assert_eq!(sparsetable::Clock::now_micros(&clock), i64::MIN);
}
