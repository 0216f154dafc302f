//! Continuous materialized views: what is refused at create time, the row layout, and the
//! view following writes, deletes, collection and schema changes.

use alloc::string::String;
use alloc::vec::Vec;

use crate::model::gc::GcRule;
use crate::model::mutation::Mutation;
use crate::model::request::ReadRowsRequest;
use crate::model::schema::{FamilyModification, TableConfig};
use crate::platform::clock::ManualClock;
use crate::{Code, Database};

const T0: i64 = 1_700_000_000_000_000;

fn db() -> Database {
    let mut db = Database::with_clock(ManualClock::new(T0));
    db.create_table("t", TableConfig::with_families(["cf", "other"]))
        .unwrap();
    db
}

fn put(db: &mut Database, row: &str, group: &str, v: i64) {
    db.mutate_row(
        "t",
        row.as_bytes(),
        &[
            Mutation::set_cell("cf", b"g", 1000, group.as_bytes()),
            Mutation::set_cell("cf", b"v", 1000, v.to_be_bytes()),
        ],
    )
    .unwrap();
}

/// A view's rows as (key, [(family, value)]).
type ViewRows = Vec<(String, Vec<(String, Vec<u8>)>)>;

fn view(db: &Database, id: &str) -> ViewRows {
    let mut s = db
        .read_materialized_view(id, &ReadRowsRequest::default())
        .unwrap();
    let mut out = Vec::new();
    while let Some(r) = s.try_next().unwrap() {
        out.push((
            String::from_utf8(r.key).unwrap(),
            r.cells.into_iter().map(|c| (c.family, c.value)).collect(),
        ));
    }
    out
}

fn int(v: i64) -> Vec<u8> {
    v.to_be_bytes().to_vec()
}

const BY_GROUP: &str = "SELECT cf['g'] AS _key, COUNT(*) AS n, SUM(TO_INT64(cf['v'])) AS total, \
     MIN(TO_INT64(cf['v'])) AS lo, MAX(TO_INT64(cf['v'])) AS hi FROM t GROUP BY _key";

#[test]
fn a_count_of_every_row_is_one_view_row_kept_up_to_date() {
    let mut db = db();
    put(&mut db, "a", "x", 1);
    db.create_materialized_view(
        "all",
        "SELECT '*' AS _key, COUNT(*) AS count FROM t GROUP BY _key",
        false,
    )
    .unwrap();
    assert_eq!(
        view(&db, "all"),
        [("*".into(), alloc::vec![("count".into(), int(1))])]
    );
    put(&mut db, "b", "y", 2);
    put(&mut db, "c", "y", 3);
    assert_eq!(view(&db, "all")[0].1[0].1, int(3));
    db.mutate_row("t", b"b", &[Mutation::DeleteFromRow])
        .unwrap();
    assert_eq!(view(&db, "all")[0].1[0].1, int(2));
    db.drop_row_range("t", &crate::api::database::DropRowRange::All)
        .unwrap();
    assert_eq!(view(&db, "all"), []);
}

#[test]
fn groups_follow_rows_that_move_between_them_and_min_max_are_retracted() {
    let mut db = db();
    put(&mut db, "a", "x", 5);
    put(&mut db, "b", "x", 9);
    put(&mut db, "c", "y", 1);
    db.create_materialized_view("g", BY_GROUP, false).unwrap();
    let row = |n, total, lo, hi| {
        // Families in creation order: the SELECT's order.
        alloc::vec![
            ("n".into(), int(n)),
            ("total".into(), int(total)),
            ("lo".into(), int(lo)),
            ("hi".into(), int(hi)),
        ]
    };
    assert_eq!(
        view(&db, "g"),
        [
            ("x".into(), row(2, 14, 5, 9)),
            ("y".into(), row(1, 1, 1, 1))
        ]
    );
    // "b" (the max of x) moves to y: x's MAX falls back to 5, y's rises to 9.
    db.mutate_row("t", b"b", &[Mutation::set_cell("cf", b"g", 2000, b"y")])
        .unwrap();
    assert_eq!(
        view(&db, "g"),
        [
            ("x".into(), row(1, 5, 5, 5)),
            ("y".into(), row(2, 10, 1, 9))
        ]
    );
    // The last row of x goes: so does x.
    db.mutate_row("t", b"a", &[Mutation::DeleteFromRow])
        .unwrap();
    assert_eq!(view(&db, "g"), [("y".into(), row(2, 10, 1, 9))]);
}

#[test]
fn garbage_collection_reaches_the_view_when_it_removes_cells() {
    let mut db = db();
    db.set_gc_mode(crate::model::gc::GcMode::Background);
    // "old" is past its family's age limit from the start (timestamp 1000, in 1970) but,
    // in the Background mode, readable until a collection removes it.
    db.mutate_row("t", b"a", &[Mutation::set_cell("old", b"g", 1000, b"x")])
        .unwrap_err();
    db.modify_column_families(
        "t",
        &[FamilyModification::Create {
            name: "old".into(),
            family: crate::model::schema::ColumnFamily {
                gc_rule: GcRule::MaxAge {
                    micros: 3_600_000_000,
                },
                ..Default::default()
            },
        }],
    )
    .unwrap();
    db.mutate_row("t", b"a", &[Mutation::set_cell("old", b"g", 1000, b"x")])
        .unwrap();
    db.mutate_row("t", b"b", &[Mutation::set_cell("old", b"g", T0, b"x")])
        .unwrap();
    let q = "SELECT old['g'] AS _key, COUNT(*) AS n FROM t GROUP BY _key";
    db.create_materialized_view("g", q, false).unwrap();
    assert_eq!(
        view(&db, "g"),
        [("x".into(), alloc::vec![("n".into(), int(2))])]
    );
    db.collect_garbage("t").unwrap();
    assert_eq!(
        view(&db, "g"),
        [("x".into(), alloc::vec![("n".into(), int(1))])]
    );
    assert_eq!(db.materialized_view_status("g").unwrap(), (1, None));
}

#[test]
fn queries_views_do_not_maintain_are_refused_naming_what() {
    let mut db = db();
    let cases = [
        ("SELECT cf['g'] AS _key FROM t ORDER BY _key", "ORDER BY"),
        ("SELECT COUNT(*) AS n FROM t", "GROUP BY"),
        (
            "SELECT cf['g'] AS _key, COUNT(*) AS n FROM t GROUP BY _key ORDER BY n",
            "not both",
        ),
        (
            "SELECT cf['g'] AS _key, ARRAY_AGG(cf['v']) AS a FROM t GROUP BY _key",
            "ARRAY_AGG",
        ),
        (
            "SELECT cf['g'] AS _key, COUNT(DISTINCT cf['v']) AS a FROM t GROUP BY _key",
            "DISTINCT",
        ),
        (
            "SELECT cf['g'] AS _key, COUNT(*) AS n FROM t GROUP BY _key LIMIT 3",
            "LIMIT",
        ),
        (
            "SELECT cf['g'] AS g, COUNT(*) AS n FROM t GROUP BY g",
            "_key",
        ),
        (
            "SELECT cf['g'] AS _key, COUNT(*) FROM t GROUP BY _key",
            "alias",
        ),
        (
            "SELECT cf['g'] AS _key, MAX(CURRENT_TIMESTAMP()) AS n FROM t GROUP BY _key",
            "CURRENT_TIMESTAMP",
        ),
        (
            "SELECT cf['g'] AS _key, COUNT(*) AS n FROM t WHERE TIMESTAMP_MICROS(1) < current_timestamp() GROUP BY _key",
            "CURRENT_TIMESTAMP",
        ),
        (
            "SELECT cf['g'] AS _key, COUNT(*) AS n FROM t WHERE RAND() < 0.5 GROUP BY _key",
            "RAND",
        ),
        (
            "SELECT cf['g'] AS _key, COUNT(*) AS n FROM t GROUP BY _key HAVING n > 1",
            "HAVING",
        ),
        (
            "SELECT cf['g'] AS _key, COUNT(*) AS n FROM t GROUP BY _key, cf['v']",
            "more than one",
        ),
    ];
    // The names only as text (a string, an alias) are no calls.
    db.create_materialized_view(
        "named",
        "SELECT cf['g'] AS _key, COUNT(*) AS current_time_n FROM t WHERE cf['v'] != b'CURRENT_DATE' GROUP BY _key",
        false,
    )
    .unwrap();
    db.delete_materialized_view("named").unwrap();
    for (q, what) in cases {
        let e = db.create_materialized_view("v", q, false).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{q}: {e:?}");
        assert!(e.message().contains(what), "{q}: {}", e.message());
    }
    assert_eq!(
        db.create_materialized_view(
            "v",
            "SELECT cf['g'] AS _key, COUNT(*) AS n FROM nope GROUP BY _key",
            false
        )
        .unwrap_err()
        .code(),
        Code::NotFound
    );
    assert!(db.list_materialized_views().is_empty());
}

#[test]
fn settings_etags_protection_and_the_source_table() {
    let mut db = db();
    let info = db.create_materialized_view("v", BY_GROUP, true).unwrap();
    assert_eq!(info.source_table, "t");
    assert_eq!(
        db.create_materialized_view("v", BY_GROUP, false)
            .unwrap_err()
            .code(),
        Code::AlreadyExists
    );
    assert_eq!(
        db.delete_materialized_view("v").unwrap_err().code(),
        Code::FailedPrecondition
    );
    assert_eq!(
        db.delete_table("t").unwrap_err().code(),
        Code::FailedPrecondition
    );
    assert_eq!(
        db.update_materialized_view("v", false, Some("stale"))
            .unwrap_err()
            .code(),
        Code::Aborted
    );
    let updated = db
        .update_materialized_view("v", false, Some(&info.etag))
        .unwrap();
    assert_ne!(updated.etag, info.etag);
    assert_eq!(db.get_materialized_view("v").unwrap(), updated);
    db.delete_materialized_view("v").unwrap();
    assert_eq!(
        db.get_materialized_view("v").unwrap_err().code(),
        Code::NotFound
    );
    db.delete_table("t").unwrap();
}

#[test]
fn running_totals_leave_out_a_group_whose_sum_overflows_as_the_query_fails() {
    let mut db = db();
    let q = "SELECT cf['g'] AS _key, COUNT(*) AS n, SUM(TO_INT64(cf['v'])) AS total FROM t \
             GROUP BY _key";
    db.create_materialized_view("v", q, false).unwrap();
    put(&mut db, "a", "x", i64::MAX);
    put(&mut db, "b", "y", 1);
    assert_eq!(view(&db, "v").len(), 2);
    // x's sum overflows INT64: the query fails, and the view leaves x out with the error.
    put(&mut db, "c", "x", 1);
    assert_eq!(
        view(&db, "v")
            .iter()
            .map(|r| r.0.as_str())
            .collect::<Vec<_>>(),
        ["y"]
    );
    assert_eq!(
        db.materialized_view_status("v")
            .unwrap()
            .1
            .map(|e| e.code()),
        Some(Code::OutOfRange)
    );
    // Moving "c" to y brings x back, from the totals.
    put(&mut db, "c", "y", 1);
    assert_eq!(
        view(&db, "v"),
        [
            (
                "x".into(),
                alloc::vec![("n".into(), int(1)), ("total".into(), int(i64::MAX))]
            ),
            (
                "y".into(),
                alloc::vec![("n".into(), int(2)), ("total".into(), int(2))]
            ),
        ]
    );
}
