//! Reads that keep only the newest cells of each column seek past the rest (issue 30): a
//! `CellsPerColumnLimit(n)` filter, alone or after family, qualifier, column-range and
//! row-key filters, is pushed down into the row merge, as is ReadModifyWriteRow's read of
//! the current cells and CheckAndMutateRow's predicate read. So is a filter's leading
//! column selection (family, qualifier and column-range filters at the head of a chain, or
//! heading every branch of an interleave): the columns it leaves out are sought past and
//! never built. These property tests check that the seeking read returns exactly what the
//! plain read returns: every row read
//! without a filter (every visible cell resolved) and then filtered by the same compiled
//! filter must equal the row read with the filter, in streams both ways, point reads and
//! the reads writes make. Random versions, column/family/row deletes (ranged ones
//! included), GC rules, flushes into SSTable runs (a tiny memtable, many overlapping runs,
//! reopens that read the run files) and compactions make the sources.

use std::ops::Bound;
use std::sync::Arc;

use proptest::prelude::*;
use sparsetable::platform::storage::MemStorage;
use sparsetable::{
    Cell, ColumnFamily, Database, Durability, GcRule, ManualClock, Mutation, OpenOptions,
    ReadModifyWriteRule, ReadRowsRequest, Row, RowFilter, RowSet, SplitMix64, TableConfig,
    TabletOptions, TimestampRange,
};

const NOW: i64 = 40_000;
const ROWS: u8 = 3;

fn row(i: u8) -> Vec<u8> {
    format!("r{i}").into_bytes()
}

fn family() -> impl Strategy<Value = String> {
    (0usize..2).prop_map(|i| ["a", "b"][i].to_string())
}

fn qualifier() -> impl Strategy<Value = Vec<u8>> {
    (0u8..3).prop_map(|i| format!("q{i}").into_bytes())
}

/// Timestamps in milliseconds, few enough that versions collide (rewrites of one cell).
fn ts() -> impl Strategy<Value = i64> {
    (0i64..40).prop_map(|i| i * 1000)
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        12 => (family(), qualifier(), ts(), 0u8..8).prop_map(|(f, q, t, v)| {
            Mutation::set_cell(f, q, t, vec![v; 8])
        }),
        3 => (family(), qualifier(), ts(), proptest::option::of(ts())).prop_map(|(f, q, s, e)| {
            Mutation::DeleteFromColumn {
                family: f,
                qualifier: q,
                time_range: TimestampRange {
                    start_micros: s.min(e.unwrap_or(s)),
                    end_micros: e.map(|e| e.max(s)),
                },
            }
        }),
        1 => family().prop_map(|f| Mutation::DeleteFromFamily { family: f }),
        1 => Just(Mutation::DeleteFromRow),
    ]
}

fn gc_rule() -> impl Strategy<Value = GcRule> {
    let leaf = prop_oneof![
        3 => Just(GcRule::Never),
        2 => (1u32..5).prop_map(GcRule::MaxNumVersions),
        2 => (5i64..40).prop_map(|s| GcRule::MaxAge { micros: s * 1000 }),
    ];
    leaf.prop_recursive(2, 6, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 1..3).prop_map(GcRule::Intersection),
            proptest::collection::vec(inner, 1..3).prop_map(GcRule::Union),
        ]
    })
}

#[derive(Debug, Clone)]
enum Op {
    /// Up to four mutations of one row.
    Mutate(u8, Vec<Mutation>),
    /// Many versions of one column at once (a column's history piling up).
    Versions(u8, String, Vec<u8>, Vec<i64>),
    /// Flushes every memtable into runs and reopens (the runs then read from their files).
    Reopen,
    Compact,
    /// Checks every read (see `check_reads`).
    Check,
    /// ReadModifyWriteRow (append) on a column, checked against the plain read.
    Append(u8, String, Vec<u8>),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (0..ROWS, proptest::collection::vec(mutation(), 1..4)).prop_map(|(r, m)| Op::Mutate(r, m)),
        3 => (0..ROWS, family(), qualifier(), proptest::collection::vec(ts(), 1..60))
            .prop_map(|(r, f, q, t)| Op::Versions(r, f, q, t)),
        1 => Just(Op::Reopen),
        1 => Just(Op::Compact),
        2 => Just(Op::Check),
        1 => (0..ROWS, family(), qualifier()).prop_map(|(r, f, q)| Op::Append(r, f, q)),
    ]
}

/// Filters in front of the limit that keep or drop whole columns.
fn column_selector() -> impl Strategy<Value = RowFilter> {
    prop_oneof![
        Just(RowFilter::FamilyNameRegex("a".into())),
        Just(RowFilter::FamilyNameRegex("a|b".into())),
        Just(RowFilter::ColumnQualifierRegex(b"q[01]".to_vec())),
        Just(RowFilter::ColumnRange {
            family: "b".into(),
            start: Bound::Included(b"q1".to_vec()),
            end: Bound::Unbounded,
        }),
        Just(RowFilter::RowKeyRegex(b"r[02]".to_vec())),
        Just(RowFilter::PassAll),
    ]
}

/// Filters in front of the limit that drop some cells of a column: a limit behind them is
/// not pushed down (the newest cells may be the ones they drop), and the reads must still
/// agree.
fn cell_selector() -> impl Strategy<Value = RowFilter> {
    prop_oneof![
        Just(RowFilter::TimestampRange {
            start_micros: 0,
            end_micros: 20_000
        }),
        Just(RowFilter::ValueRange {
            start: Bound::Unbounded,
            end: Bound::Excluded(vec![4]),
        }),
        Just(RowFilter::CellsPerRowOffset(2)),
    ]
}

/// Filters after the limit: they see the same cells either way.
fn tail() -> impl Strategy<Value = RowFilter> {
    prop_oneof![
        Just(RowFilter::CellsPerRowLimit(2)),
        Just(RowFilter::CellsPerRowOffset(1)),
        Just(RowFilter::StripValue),
        Just(RowFilter::ApplyLabel("x".into())),
        Just(RowFilter::TimestampRange {
            start_micros: 10_000,
            end_micros: 30_000
        }),
    ]
}

/// `CellsPerColumnLimit(n)`, n in 1..=3, alone or in a chain, possibly nested, with
/// whole-column filters in front (pushed down) or filters that drop cells inside a column
/// (not pushed down), and other filters after.
fn limit_filter() -> impl Strategy<Value = RowFilter> {
    (
        1i32..4,
        proptest::collection::vec(
            prop_oneof![4 => column_selector(), 1 => cell_selector()],
            0..3,
        ),
        proptest::collection::vec(tail(), 0..2),
        any::<bool>(),
    )
        .prop_map(|(n, front, back, nest)| {
            let limit = RowFilter::CellsPerColumnLimit(n);
            if front.is_empty() && back.is_empty() {
                return limit;
            }
            let mut members = front;
            if nest && !members.is_empty() {
                // The selectors and the limit as a chain of their own, inside the chain.
                members.push(limit);
                members = vec![RowFilter::Chain(members)];
            } else {
                members.push(limit);
            }
            members.extend(back);
            if members.len() == 1 {
                members.pop().unwrap()
            } else {
                RowFilter::Chain(members)
            }
        })
}

/// Any filter, weighted towards column selections at the head of chains and interleave
/// branches (what the selection pushdown looks at), with conditions, sinks and nesting: the
/// pushed down read must agree whatever the filter. (No row samples: the plain read's
/// filter draws from another generator than the database's reads.)
fn selection_filter() -> impl Strategy<Value = RowFilter> {
    let leaf = prop_oneof![
        6 => column_selector(),
        2 => cell_selector(),
        2 => tail(),
        1 => (1i32..3).prop_map(RowFilter::CellsPerColumnLimit),
        1 => Just(RowFilter::BlockAll),
        1 => Just(RowFilter::ColumnQualifierRegex(b"q2|z".to_vec())),
        // Sinks are refused inside conditions (those filters are dropped below).
        1 => Just(RowFilter::Sink),
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            3 => proptest::collection::vec(inner.clone(), 2..4).prop_map(RowFilter::Chain),
            2 => proptest::collection::vec(inner.clone(), 2..4).prop_map(RowFilter::Interleave),
            1 => (inner.clone(), proptest::option::of(inner.clone()), proptest::option::of(inner))
                .prop_map(|(p, t, f)| RowFilter::Condition {
                    predicate: Box::new(p),
                    true_filter: t.map(Box::new),
                    false_filter: f.map(Box::new),
                }),
        ]
    })
    // A chain may apply one label at most: such filters are refused, not read.
    .prop_filter("compiles", |f| f.compile().is_ok())
}

fn database(storage: &MemStorage, clock: Arc<ManualClock>) -> Database {
    let options = OpenOptions {
        durability: Durability::None,
        ..OpenOptions::default()
    };
    Database::open(Arc::new(storage.clone()), options, clock).unwrap()
}

/// The plain read of every row: every visible cell, no filter.
fn plain_rows(db: &Database) -> Vec<Row> {
    db.read_rows("t", &ReadRowsRequest::default())
        .unwrap()
        .collect()
}

/// What the filter returns from the plain read's rows.
fn filtered(rows: &[Row], filter: &RowFilter) -> Vec<Row> {
    let compiled = filter.compile().unwrap();
    let mut random = SplitMix64::new(7);
    rows.iter()
        .filter_map(|r| {
            let cells = compiled.apply(&r.key, r.cells.clone(), &mut random);
            (!cells.is_empty()).then(|| Row {
                key: r.key.clone(),
                cells,
            })
        })
        .collect()
}

fn check_reads(db: &mut Database, filters: &[RowFilter]) -> Result<(), TestCaseError> {
    for filter in filters {
        // Read again for each filter: the checks of the one before wrote marks.
        let want = filtered(&plain_rows(db), filter);
        for reversed in [false, true] {
            let request = ReadRowsRequest {
                filter: filter.clone(),
                reversed,
                ..ReadRowsRequest::default()
            };
            let mut got: Vec<Row> = db.read_rows("t", &request).unwrap().collect();
            if reversed {
                got.reverse();
            }
            prop_assert_eq!(&got, &want, "{:?} reversed {}", filter, reversed);
        }
        for i in 0..ROWS {
            let key = row(i);
            let want_row = want.iter().find(|r| r.key == key);
            // A point read without a stream, and a stream of one row key.
            let got = db.read_row_filtered("t", &key, filter).unwrap();
            prop_assert_eq!(got.as_ref(), want_row, "point {:?} {:?}", key, filter);
            let request = ReadRowsRequest {
                row_set: RowSet::single(key.clone()),
                filter: filter.clone(),
                ..ReadRowsRequest::default()
            };
            let got: Vec<Row> = db.read_rows("t", &request).unwrap().collect();
            prop_assert_eq!(got.first(), want_row, "single-row stream {:?}", key);
            // CheckAndMutateRow's predicate read. The mark it writes is checked from the
            // next filter on (the plain read is taken again).
            let mark = [Mutation::set_cell("a", b"z".to_vec(), 0, b"m".to_vec())];
            let matched = db
                .check_and_mutate_row("t", &key, Some(filter), &mark, &[])
                .unwrap();
            prop_assert_eq!(
                matched,
                want_row.is_some(),
                "predicate {:?} {:?}",
                key,
                filter
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn seeking_reads_equal_plain_reads(
        gc_a in gc_rule(),
        gc_b in gc_rule(),
        ops in proptest::collection::vec(op(), 1..50),
        filters in proptest::collection::vec(limit_filter(), 1..4),
        memtable_bytes in prop_oneof![Just(1u64 << 20), 200u64..2000],
    ) {
        run(gc_a, gc_b, ops, &filters, memtable_bytes)?;
    }

    #[test]
    fn reads_that_seek_past_unselected_columns_equal_plain_reads(
        gc_a in gc_rule(),
        gc_b in gc_rule(),
        ops in proptest::collection::vec(op(), 1..50),
        filters in proptest::collection::vec(selection_filter(), 1..4),
        memtable_bytes in prop_oneof![Just(1u64 << 20), 200u64..2000],
    ) {
        run(gc_a, gc_b, ops, &filters, memtable_bytes)?;
    }
}

/// Applies `ops` to a fresh table with the families' GC rules, checking every read with
/// each filter at each `Op::Check` and at the end.
fn run(
    gc_a: GcRule,
    gc_b: GcRule,
    ops: Vec<Op>,
    filters: &[RowFilter],
    memtable_bytes: u64,
) -> Result<(), TestCaseError> {
    let mut config = TableConfig {
        tablet_options: TabletOptions {
            memtable_bytes,
            // Overlapping runs stay unmerged (merges keep hidden versions and
            // tombstones), so a row's entries come from many sources.
            max_runs: 8,
            split_bytes: u64::MAX,
            ..TabletOptions::default()
        },
        ..TableConfig::default()
    };
    config.families.insert(
        "a".into(),
        ColumnFamily {
            gc_rule: gc_a,
            ..ColumnFamily::default()
        },
    );
    config.families.insert(
        "b".into(),
        ColumnFamily {
            gc_rule: gc_b,
            ..ColumnFamily::default()
        },
    );
    let storage = MemStorage::new();
    let clock = Arc::new(ManualClock::new(NOW));
    let mut db = database(&storage, clock.clone());
    db.create_table("t", config).unwrap();
    for op in ops.into_iter().chain([Op::Check]) {
        match op {
            Op::Mutate(r, muts) => db.mutate_row("t", &row(r), &muts).unwrap(),
            Op::Versions(r, f, q, stamps) => {
                let muts: Vec<_> = stamps
                    .iter()
                    .map(|t| Mutation::set_cell(f.clone(), q.clone(), *t, t.to_be_bytes().to_vec()))
                    .collect();
                db.mutate_row("t", &row(r), &muts).unwrap();
            }
            Op::Reopen => {
                db.checkpoint().unwrap();
                drop(db);
                db = database(&storage, clock.clone());
            }
            Op::Compact => db.compact_table("t").unwrap(),
            Op::Check => check_reads(&mut db, filters)?,
            Op::Append(r, f, q) => {
                // The newest visible cell of the column, from the plain read.
                let key = row(r);
                let newest: Option<Cell> = plain_rows(&db)
                    .into_iter()
                    .find(|x| x.key == key)
                    .and_then(|x| {
                        x.cells
                            .into_iter()
                            .find(|c| c.family == f && c.qualifier == q)
                    });
                let rule = [ReadModifyWriteRule::append(
                    f.clone(),
                    q.clone(),
                    b"+".to_vec(),
                )];
                let got = db.read_modify_write_row("t", &key, &rule).unwrap();
                let mut value = newest.as_ref().map(|c| c.value.clone()).unwrap_or_default();
                value.extend_from_slice(b"+");
                let ts = newest.map_or(NOW, |c| c.timestamp_micros.max(NOW));
                prop_assert_eq!(got.cells.len(), 1);
                prop_assert_eq!(
                    &got.cells[0].value,
                    &value,
                    "append to {:?} {} {:?}",
                    key,
                    f,
                    q
                );
                prop_assert_eq!(got.cells[0].timestamp_micros, ts);
            }
        }
    }
    Ok(())
}

/// The cost side, counted rather than timed: the newest version of a column of 2,000
/// visible versions (no GC rule) costs a read a bounded number of entries with a pushed
/// down limit, in the memtable and in SSTable runs, forward and reversed; the same read
/// without the limit walks every version.
#[test]
fn a_column_limit_read_examines_a_bounded_number_of_entries() {
    const VERSIONS: i64 = 2_000;
    for memtable_bytes in [1u64 << 20, 4096] {
        let storage = MemStorage::new();
        let mut db = database(&storage, Arc::new(ManualClock::new(NOW)));
        let mut config = TableConfig {
            tablet_options: TabletOptions {
                memtable_bytes,
                max_runs: 16,
                ..TabletOptions::default()
            },
            ..TableConfig::default()
        };
        config.families.insert("a".into(), ColumnFamily::default());
        db.create_table("t", config).unwrap();
        for t in 0..VERSIONS {
            let m = Mutation::set_cell("a", b"n".to_vec(), t * 1000, t.to_be_bytes().to_vec());
            db.mutate_row("t", b"counter", &[m]).unwrap();
        }
        let runs: usize = db.tablets("t").unwrap().iter().map(|t| t.runs).sum();
        let read = |filter: RowFilter, reversed: bool| {
            let request = ReadRowsRequest {
                row_set: RowSet::single(b"counter".to_vec()),
                filter,
                reversed,
                ..ReadRowsRequest::default()
            };
            let mut stream = db.read_rows("t", &request).unwrap();
            let row = stream.next().unwrap();
            assert!(stream.next().is_none());
            (row.cells, stream.entries_examined())
        };
        let limited = [
            RowFilter::CellsPerColumnLimit(1),
            RowFilter::Chain(vec![
                RowFilter::FamilyNameRegex("a".into()),
                RowFilter::CellsPerColumnLimit(1),
            ]),
        ];
        // A few entries per source before each seeks, plus a reversed read's backward
        // gather of a long row (64 entries) before it re-reads forward.
        let bound = (12 * (runs + 2) + 80) as u64;
        assert!(bound < VERSIONS as u64 / 4, "{runs} runs");
        for filter in limited {
            for reversed in [false, true] {
                let (cells, examined) = read(filter.clone(), reversed);
                assert_eq!(cells.len(), 1);
                assert_eq!(cells[0].value, (VERSIONS - 1).to_be_bytes());
                assert!(
                    examined <= bound,
                    "{filter:?} reversed {reversed}, {runs} runs: {examined} entries examined"
                );
            }
        }
        let (cells, examined) = read(RowFilter::PassAll, false);
        assert_eq!(cells.len(), VERSIONS as usize);
        assert!(examined >= VERSIONS as u64, "{examined}");
    }
}

/// A read that seeks past the columns its filter leaves out still scans every row, and
/// counts one cell for each column it skipped that holds a visible cell: with one version per
/// column the counts are the plain read's. Rows whose cells the filter all drops are scanned
/// and not returned; the skipped columns' other versions are not examined.
#[test]
fn a_read_that_skips_columns_counts_rows_and_cells_scanned() {
    let storage = MemStorage::new();
    let mut db = database(&storage, Arc::new(ManualClock::new(NOW)));
    db.create_table("t", TableConfig::with_families(["a", "b"]))
        .unwrap();
    for i in 0..4u8 {
        let mut muts = vec![
            Mutation::set_cell("b", b"q0".to_vec(), 1000, vec![i]),
            Mutation::set_cell("b", b"q1".to_vec(), 1000, vec![i]),
        ];
        if i % 2 == 0 {
            muts.push(Mutation::set_cell("a", b"q0".to_vec(), 1000, vec![i]));
        }
        db.mutate_row("t", &row(i), &muts).unwrap();
    }
    // Many versions of a column the filter leaves out.
    for t in 0..500i64 {
        let m = Mutation::set_cell("b", b"q1".to_vec(), (2 + t) * 1000, vec![0]);
        db.mutate_row("t", &row(0), &[m]).unwrap();
    }
    let counts = |filter: RowFilter| {
        let request = ReadRowsRequest {
            filter,
            ..ReadRowsRequest::default()
        };
        let mut stream = db.read_rows("t", &request).unwrap();
        let rows = stream.by_ref().count();
        (
            rows,
            stream.rows_scanned(),
            stream.cells_scanned(),
            stream.entries_examined(),
        )
    };
    let limit = RowFilter::CellsPerColumnLimit(1);
    let (rows, rows_scanned, cells, plain_entries) = counts(limit.clone());
    assert_eq!((rows, rows_scanned, cells), (4, 4, 10));
    let selected = RowFilter::Chain(vec![RowFilter::FamilyNameRegex("a".into()), limit]);
    let (rows, rows_scanned, cells, entries) = counts(selected);
    assert_eq!((rows, rows_scanned, cells), (2, 4, 10));
    // The 499 older versions of r0's b:q1 are sought past either way (by the limit, or as
    // a left-out column), not stepped through.
    assert!(entries <= plain_entries + 8, "{entries} vs {plain_entries}");
    assert!(entries < 100, "{entries} entries examined");
}
