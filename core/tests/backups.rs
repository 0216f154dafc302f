//! Backups: a consistent snapshot of a table, restorable as a new table, unaffected by later
//! writes to the source.

use std::sync::Arc;

use sparsetable::{
    Code, Database, ManualClock, Mutation, ReadRowsRequest, TableConfig, TabletOptions,
};

#[test]
fn restore_gives_the_table_as_it_was_at_backup_time() {
    let mut db = Database::with_clock(Arc::new(ManualClock::new(5_000_000)));
    let config = TableConfig {
        tablet_options: TabletOptions {
            memtable_bytes: 500,
            max_runs: 2,
            split_bytes: 3_000,
            merge_bytes: 500,
            split_load_ops: 0,
        },
        ..TableConfig::with_families(["cf"])
    };
    db.create_table("t", config).unwrap();
    for i in 0..200u32 {
        db.mutate_row(
            "t",
            format!("k{i:03}").as_bytes(),
            &[Mutation::set_cell("cf", b"q", 1000, b"before")],
        )
        .unwrap();
    }
    let info = db.create_backup("t", "b1").unwrap();
    assert_eq!(info.source_table, "t");
    assert_eq!(info.created_micros, 5_000_000);
    // Later writes and deletes to the source do not reach the backup.
    for i in 0..200u32 {
        db.mutate_row(
            "t",
            format!("k{i:03}").as_bytes(),
            &[Mutation::set_cell("cf", b"q", 2000, b"after")],
        )
        .unwrap();
    }
    db.mutate_row("t", b"k000", &[Mutation::DeleteFromRow])
        .unwrap();
    db.compact_table("t").unwrap();

    db.restore_table("b1", "restored").unwrap();
    let rows: Vec<_> = db
        .read_rows("restored", &ReadRowsRequest::default())
        .unwrap()
        .collect();
    assert_eq!(rows.len(), 200);
    assert!(rows
        .iter()
        .all(|r| r.cells.len() == 1 && r.cells[0].value == b"before"));
    // The restored table is independent too.
    db.mutate_row(
        "restored",
        b"new",
        &[Mutation::set_cell("cf", b"q", 1000, b"x")],
    )
    .unwrap();
    assert!(db.read_row("t", b"new").unwrap().is_none());

    assert_eq!(db.list_backups().len(), 1);
    assert_eq!(
        db.create_backup("t", "b1").unwrap_err().code(),
        Code::AlreadyExists
    );
    assert_eq!(
        db.restore_table("b1", "t").unwrap_err().code(),
        Code::AlreadyExists
    );
    assert_eq!(
        db.restore_table("nope", "x").unwrap_err().code(),
        Code::NotFound
    );
    db.delete_backup("b1").unwrap();
    assert_eq!(db.get_backup("b1").unwrap_err().code(), Code::NotFound);
    assert_eq!(
        db.read_rows("restored", &ReadRowsRequest::default())
            .unwrap()
            .count(),
        201
    );
}

#[test]
fn deleting_every_table_is_all_or_nothing_under_deletion_protection() {
    let mut db = Database::with_clock(Arc::new(ManualClock::new(5_000_000)));
    db.create_table("a", TableConfig::with_families(["cf"]))
        .unwrap();
    db.create_table(
        "b",
        TableConfig {
            deletion_protection: true,
            ..TableConfig::with_families(["cf"])
        },
    )
    .unwrap();
    db.mutate_row("a", b"r", &[Mutation::set_cell("cf", b"q", 1000, b"v")])
        .unwrap();
    db.create_backup("a", "bk").unwrap();
    // One protected table: refused, and nothing is gone (not even the unprotected table).
    let err = db.delete_all_tables().unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition);
    assert!(err.message().contains("\"b\""), "{}", err.message());
    assert_eq!(db.list_tables().len(), 2);
    assert_eq!(db.list_backups().len(), 1);
    // Protection off: every table and backup goes.
    db.set_deletion_protection("b", false).unwrap();
    db.delete_all_tables().unwrap();
    assert!(db.list_tables().is_empty() && db.list_backups().is_empty());
}
