//! `Database::set_tablet_options`: a table's split and flush thresholds change at run time
//! (the playground turns them down so a few thousand rows split), are validated like a new
//! table's, and `tablets()` reports each tablet's memtable bytes.

use std::sync::Arc;

use sparsetable::{
    Code, ColumnFamily, Database, ManualClock, Mutation, TableConfig, TabletOptions,
};

fn db_with_table() -> Database {
    let mut db = Database::with_clock(Arc::new(ManualClock::new(1_700_000_000_000_000)));
    let mut config = TableConfig::default();
    config.families.insert("cf".into(), ColumnFamily::default());
    db.create_table("t", config).unwrap();
    db
}

fn write(db: &mut Database, from: u32, to: u32) {
    for i in from..to {
        let m = Mutation::set_cell("cf", b"q".to_vec(), 1000, vec![b'x'; 100]);
        db.mutate_row("t", format!("row{i:06}").as_bytes(), &[m])
            .unwrap();
    }
}

#[test]
fn smaller_thresholds_split_a_table_that_the_defaults_keep_whole() {
    let mut db = db_with_table();
    write(&mut db, 0, 2000);
    let tablets = db.tablets("t").unwrap();
    assert_eq!(
        tablets.len(),
        1,
        "2000 small rows stay in one 64 MiB tablet"
    );
    assert!(
        tablets[0].memtable_bytes > 200_000,
        "unflushed rows show as memtable bytes"
    );
    assert_eq!(tablets[0].runs, 0);

    let small = TabletOptions {
        memtable_bytes: 16 * 1024,
        max_runs: 4,
        split_bytes: 64 * 1024,
        merge_bytes: 8 * 1024,
        split_load_ops: 0,
    };
    db.set_tablet_options("t", small).unwrap();
    assert_eq!(db.get_table("t").unwrap().config.tablet_options, small);
    write(&mut db, 2000, 4000);
    let tablets = db.tablets("t").unwrap();
    assert!(
        tablets.len() >= 4,
        "about 400 KB over 64 KB tablets: {} tablets",
        tablets.len()
    );
    for t in &tablets {
        assert!(t.memtable_bytes <= t.size_bytes);
    }
    let events = db.take_tablet_events();
    assert!(events
        .iter()
        .any(|e| e.kind == sparsetable::TabletEventKind::Split));
    assert!(events
        .iter()
        .any(|e| e.kind == sparsetable::TabletEventKind::Flush));
}

#[test]
fn bad_options_and_unknown_tables_are_refused_and_change_nothing() {
    let mut db = db_with_table();
    let before = db.get_table("t").unwrap().config.tablet_options;
    let bad = TabletOptions {
        merge_bytes: 1 << 30,
        ..TabletOptions::default()
    };
    assert_eq!(
        db.set_tablet_options("t", bad).unwrap_err().code(),
        Code::InvalidArgument
    );
    let zero = TabletOptions {
        memtable_bytes: 0,
        ..TabletOptions::default()
    };
    assert_eq!(
        db.set_tablet_options("t", zero).unwrap_err().code(),
        Code::InvalidArgument
    );
    assert_eq!(db.get_table("t").unwrap().config.tablet_options, before);
    assert_eq!(
        db.set_tablet_options("nope", TabletOptions::default())
            .unwrap_err()
            .code(),
        Code::NotFound
    );
}
