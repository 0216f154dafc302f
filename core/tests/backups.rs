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
