//! Row atomicity: for each mutation kind, a call whose last mutation is invalid leaves the
//! row exactly as it was (Google's emulator applies the earlier mutations; Bigtable does not).

use std::sync::Arc;

use sparsetable::{
    Code, ColumnFamily, Database, ManualClock, Mutation, ReadModifyWriteRule, Row, TableConfig,
    TimestampRange, ValueType,
};

fn db() -> Database {
    let mut config = TableConfig::with_families(["cf", "other"]);
    config.families.insert(
        "sum".into(),
        ColumnFamily {
            value_type: ValueType::Int64Sum,
            ..ColumnFamily::default()
        },
    );
    let mut db = Database::with_clock(Arc::new(ManualClock::new(1_700_000_000_000_000)));
    db.create_table("t", config).unwrap();
    db.mutate_row(
        "t",
        b"r",
        &[
            Mutation::set_cell("cf", b"q", 1000, b"one"),
            Mutation::set_cell("cf", b"q", 2000, b"two"),
            Mutation::set_cell("other", b"x", 1000, b"x"),
            Mutation::AddToCell {
                family: "sum".into(),
                qualifier: b"n".to_vec(),
                timestamp_micros: 0,
                input: 5,
            },
        ],
    )
    .unwrap();
    db
}

fn snapshot(db: &Database) -> Option<Row> {
    db.read_row("t", b"r").unwrap()
}

/// A mutation that always fails validation: an unknown family.
fn invalid() -> Mutation {
    Mutation::set_cell("missing", b"q", 1000, b"v")
}

#[test]
fn every_mutation_kind_is_rolled_back_when_a_later_mutation_is_invalid() {
    let kinds = [
        Mutation::set_cell("cf", b"q", 3000, b"three"),
        Mutation::AddToCell {
            family: "sum".into(),
            qualifier: b"n".to_vec(),
            timestamp_micros: 0,
            input: 1,
        },
        Mutation::MergeToCell {
            family: "sum".into(),
            qualifier: b"n".to_vec(),
            timestamp_micros: 0,
            state: 7i64.to_be_bytes().to_vec(),
        },
        Mutation::DeleteFromColumn {
            family: "cf".into(),
            qualifier: b"q".to_vec(),
            time_range: TimestampRange::default(),
        },
        Mutation::DeleteFromFamily {
            family: "other".into(),
        },
        Mutation::DeleteFromRow,
    ];
    for kind in kinds {
        let mut db = db();
        let before = snapshot(&db);
        let err = db
            .mutate_row("t", b"r", &[kind.clone(), invalid()])
            .unwrap_err();
        assert_eq!(err.code(), Code::NotFound, "{kind:?}");
        assert_eq!(
            snapshot(&db),
            before,
            "{kind:?} was applied although the call failed"
        );
        // And the same mutation alone does change the row, so the check above can fail.
        db.mutate_row("t", b"r", std::slice::from_ref(&kind))
            .unwrap();
        assert_ne!(snapshot(&db), before, "{kind:?} had no effect on its own");
    }
}

#[test]
fn check_and_mutate_rejects_an_invalid_branch_not_taken() {
    let mut db = db();
    let before = snapshot(&db);
    let err = db
        .check_and_mutate_row(
            "t",
            b"r",
            None,
            &[Mutation::set_cell("cf", b"q", 5000, b"five")],
            &[invalid()],
        )
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound);
    assert_eq!(snapshot(&db), before);
}

#[test]
fn read_modify_write_failing_rule_rolls_back_earlier_rules() {
    let mut db = db();
    let before = snapshot(&db);
    let err = db
        .read_modify_write_row(
            "t",
            b"r",
            &[
                ReadModifyWriteRule::append("other", b"x", b"-more"),
                // "one"/"two" are not 8 bytes: the increment fails the whole call.
                ReadModifyWriteRule::increment("cf", b"q", 1),
            ],
        )
        .unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition);
    assert_eq!(snapshot(&db), before);
}

#[test]
fn mutate_rows_entries_are_atomic_each_but_not_together() {
    let mut db = db();
    let statuses = db
        .mutate_rows(
            "t",
            &[
                sparsetable::RowMutations {
                    row_key: b"a".to_vec(),
                    mutations: vec![Mutation::set_cell("cf", b"q", 1000, b"ok")],
                },
                sparsetable::RowMutations {
                    row_key: b"b".to_vec(),
                    mutations: vec![Mutation::set_cell("cf", b"q", 1000, b"no"), invalid()],
                },
            ],
        )
        .unwrap();
    assert!(statuses[0].is_ok());
    assert_eq!(statuses[1].as_ref().unwrap_err().code(), Code::NotFound);
    assert!(db.read_row("t", b"a").unwrap().is_some());
    assert!(db.read_row("t", b"b").unwrap().is_none());
}

/// A `MutateRows` batch's own limits are checked on the whole batch, by the function a
/// front-end that applies it in slices calls first: one entry too many refuses it all.
#[test]
fn mutate_rows_batch_limits_hold_for_the_whole_batch() {
    use sparsetable::{validate_mutate_rows_batch, RowMutations};
    let entry = |i: usize| RowMutations {
        row_key: format!("k{i}").into_bytes(),
        mutations: vec![Mutation::set_cell("cf", b"q", 1000, b"v")],
    };
    let full: Vec<RowMutations> = (0..100_000).map(entry).collect();
    assert!(validate_mutate_rows_batch(&full).is_ok());
    let over: Vec<RowMutations> = (0..100_001).map(entry).collect();
    assert_eq!(
        validate_mutate_rows_batch(&over).unwrap_err().code(),
        Code::InvalidArgument
    );
    assert_eq!(
        validate_mutate_rows_batch(&[]).unwrap_err().code(),
        Code::InvalidArgument
    );
    // The engine's own mutate_rows refuses the same batch, nothing applied.
    let mut db = db();
    assert_eq!(
        db.mutate_rows("t", &over).unwrap_err().code(),
        Code::InvalidArgument
    );
    assert!(db.read_row("t", b"k0").unwrap().is_none());
}
