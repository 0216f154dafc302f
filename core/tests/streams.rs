//! Read streams that own their view: a `RowStream` yields the snapshot it opened on while
//! writers mutate, delete, flush, compact and split under it (tiny tablet thresholds make
//! all of those happen); resuming a read strictly after a key, both ways; and the counters
//! Bigtable's ReadRows reports (`cells_scanned`, `last_scanned_key`) on filtered reads.

use std::sync::Arc;

use sparsetable::platform::storage::MemStorage;
use sparsetable::{
    Database, Durability, ManualClock, Mutation, OpenOptions, ReadRowsRequest, Row, RowFilter,
    RowRange, RowSet, SharedDatabase, TableConfig, TabletEventKind, TabletOptions,
};

const NOW: i64 = 1_700_000_000_000_000;

fn tiny() -> TableConfig {
    TableConfig {
        tablet_options: TabletOptions {
            memtable_bytes: 300,
            max_runs: 2,
            split_bytes: 1_500,
            merge_bytes: 300,
            split_load_ops: 0,
        },
        ..TableConfig::with_families(["cf", "meta"])
    }
}

fn key(i: usize) -> Vec<u8> {
    format!("row{i:04}").into_bytes()
}

fn write(db: &mut Database, i: usize, value: &str) {
    db.mutate_row(
        "t",
        &key(i),
        &[
            Mutation::set_cell("cf", b"a", 1000, value.as_bytes()),
            Mutation::set_cell("meta", b"b", 1000, format!("m{i}").into_bytes()),
        ],
    )
    .unwrap();
}

/// Databases to run each test on: in memory, and on storage (runs are SSTable files, whose
/// cursors step backwards through blocks).
fn databases() -> Vec<Database> {
    let in_memory = Database::with_clock(Arc::new(ManualClock::new(NOW)));
    let options = OpenOptions {
        durability: Durability::None,
        ..OpenOptions::default()
    };
    let on_storage = Database::open(
        Arc::new(MemStorage::new()),
        options,
        Arc::new(ManualClock::new(NOW)),
    )
    .unwrap();
    vec![in_memory, on_storage]
}

fn loaded(mut db: Database, rows: usize) -> Database {
    db.create_table("t", tiny()).unwrap();
    for i in 0..rows {
        write(&mut db, i, &format!("v{i}"));
    }
    db
}

fn read(db: &Database, request: &ReadRowsRequest) -> Vec<Row> {
    db.read_rows("t", request).unwrap().collect()
}

fn reversed() -> ReadRowsRequest {
    ReadRowsRequest {
        reversed: true,
        ..ReadRowsRequest::default()
    }
}

#[test]
fn a_stream_keeps_its_snapshot_while_writers_mutate_delete_flush_and_split() {
    for db in databases() {
        let mut db = loaded(db, 120);
        assert!(
            db.tablets("t").unwrap().len() > 1,
            "the load split the table"
        );
        let forward_before = read(&db, &ReadRowsRequest::default());
        let reversed_before = read(&db, &reversed());
        assert_eq!(forward_before.len(), 120);
        let mut want_reversed = forward_before.clone();
        want_reversed.reverse();
        assert_eq!(reversed_before, want_reversed);

        let mut forward = db.read_rows("t", &ReadRowsRequest::default()).unwrap();
        let mut backward = db.read_rows("t", &reversed()).unwrap();
        let mut got_forward: Vec<Row> = forward.by_ref().take(10).collect();
        let mut got_backward: Vec<Row> = backward.by_ref().take(10).collect();
        // Writers change every row: overwrite, delete, add rows between and past them, and
        // force flushes, compactions and splits.
        db.take_tablet_events();
        for i in 0..120 {
            if i % 3 == 0 {
                db.mutate_row("t", &key(i), &[Mutation::DeleteFromRow])
                    .unwrap();
            } else {
                write(&mut db, i, &format!("changed{i}-with-a-longer-value"));
            }
            write(&mut db, 1000 + i, "new");
        }
        db.compact_table("t").unwrap();
        let kinds: Vec<TabletEventKind> = db.take_tablet_events().iter().map(|e| e.kind).collect();
        for kind in [
            TabletEventKind::Flush,
            TabletEventKind::Compaction,
            TabletEventKind::Split,
        ] {
            assert!(
                kinds.contains(&kind),
                "no {kind:?} while the streams were open"
            );
        }
        got_forward.extend(forward);
        got_backward.extend(backward);
        assert_eq!(got_forward, forward_before);
        assert_eq!(got_backward, reversed_before);
        // A stream opened now sees the writes.
        let after = read(&db, &ReadRowsRequest::default());
        assert_eq!(after.len(), 80 + 120);
    }
}

#[test]
fn a_shared_database_stream_holds_no_lock_and_crosses_threads() {
    let db = SharedDatabase::new(loaded(
        Database::with_clock(Arc::new(ManualClock::new(NOW))),
        60,
    ));
    let expected = db.read_rows("t", &ReadRowsRequest::default()).unwrap();
    let mut stream = db
        .read_rows_stream("t", &ReadRowsRequest::default())
        .unwrap();
    let first = stream.next().unwrap();
    // The lock is free: a writer gets it while the stream is open, and the stream finishes
    // on another thread, unchanged.
    for i in 0..60 {
        db.mutate_row("t", &key(i), &[Mutation::DeleteFromRow])
            .unwrap();
    }
    let rest = std::thread::spawn(move || stream.collect::<Vec<_>>())
        .join()
        .unwrap();
    let mut got = vec![first];
    got.extend(rest);
    assert_eq!(got, expected);
    assert!(db
        .read_rows("t", &ReadRowsRequest::default())
        .unwrap()
        .is_empty());
}

#[test]
fn resuming_after_a_key_continues_strictly_beyond_it_in_both_directions() {
    for db in databases() {
        let db = loaded(db, 50);
        let row_set = RowSet {
            row_keys: vec![key(3), key(40)],
            row_ranges: vec![RowRange::closed_open(key(10), key(30))],
        };
        for reversed in [false, true] {
            let request = ReadRowsRequest {
                row_set: row_set.clone(),
                reversed,
                ..ReadRowsRequest::default()
            };
            let all: Vec<Vec<u8>> = read(&db, &request).into_iter().map(|r| r.key).collect();
            assert_eq!(all.len(), 22);
            // Resuming after each row read (and after keys between rows) yields the rest.
            for cut in 0..all.len() {
                let rest = request.resume_after(&all[cut]);
                let got: Vec<Vec<u8>> = rest
                    .map(|r| read(&db, &r).into_iter().map(|r| r.key).collect())
                    .unwrap_or_default();
                assert_eq!(got, all[cut + 1..], "after {:?}", all[cut]);
                let mut between = all[cut].clone();
                if reversed {
                    between.pop();
                } else {
                    between.push(0);
                }
                let got: Vec<Vec<u8>> = request
                    .resume_after(&between)
                    .map(|r| read(&db, &r).into_iter().map(|r| r.key).collect())
                    .unwrap_or_default();
                let want: Vec<Vec<u8>> = all
                    .iter()
                    .filter(|k| {
                        if reversed {
                            **k < between
                        } else {
                            **k > between
                        }
                    })
                    .cloned()
                    .collect();
                assert_eq!(got, want, "after {between:?}");
            }
            // Nothing is left after the last row: no request (an empty row set would read
            // every row).
            assert!(request.resume_after(all.last().unwrap()).is_none());
        }
        // An unbounded read resumes too.
        let all = read(&db, &reversed());
        let rest = reversed().resume_after(&all[9].key).unwrap();
        assert_eq!(read(&db, &rest), all[10..]);
    }
}

#[test]
fn filtered_reads_report_cells_scanned_and_the_last_scanned_key() {
    for db in databases() {
        let db = loaded(db, 10);
        // Rows hold cf:a = "v<i>" and meta:b = "m<i>"; keep only the cf cells of rows 2 and 5.
        let request = ReadRowsRequest {
            filter: RowFilter::ValueRegex(b"v[25]".to_vec()),
            ..ReadRowsRequest::default()
        };
        for reversed in [false, true] {
            let request = ReadRowsRequest {
                reversed,
                ..request.clone()
            };
            let mut stream = db.read_rows("t", &request).unwrap();
            assert_eq!(stream.last_scanned_key(), None);
            let (first, second) = if reversed { (5, 2) } else { (2, 5) };
            let row = stream.next().unwrap();
            assert_eq!(row.key, key(first));
            assert_eq!(stream.last_scanned_key(), Some(&key(first)[..]));
            let examined = if reversed { 10 - first } else { first + 1 } as u64;
            assert_eq!(stream.rows_scanned(), examined);
            assert_eq!(stream.cells_scanned(), 2 * examined);
            assert_eq!(stream.next().unwrap().key, key(second));
            assert_eq!(stream.last_scanned_key(), Some(&key(second)[..]));
            assert!(stream.next().is_none());
            // Rows after the last returned one were examined and filtered out.
            let last = if reversed { 0 } else { 9 };
            assert_eq!(stream.last_scanned_key(), Some(&key(last)[..]));
            assert_eq!(stream.rows_scanned(), 10);
            assert_eq!(stream.cells_scanned(), 20);
            assert!(stream.is_exhausted());
        }
        // A limit stops the read: only what was examined counts, and it is not exhausted.
        let mut limited = db
            .read_rows(
                "t",
                &ReadRowsRequest {
                    rows_limit: 1,
                    ..request.clone()
                },
            )
            .unwrap();
        assert_eq!(limited.by_ref().count(), 1);
        assert_eq!(limited.last_scanned_key(), Some(&key(2)[..]));
        assert_eq!(limited.rows_scanned(), 3);
        assert_eq!(limited.cells_scanned(), 6);
        assert!(!limited.is_exhausted());
    }
}

/// A read without a filter packs the rows it reads ahead and builds each when taken; a
/// filtered read builds them as it reads. A filter that keeps everything (but is not the
/// pass-all filter) must therefore see exactly what an unfiltered read sees: the rows (with
/// families in creation order, not name order), the counters after every row, the last
/// scanned key, and the bytes the access statistics count. Several batches (more rows than
/// a batch holds, values big enough to end batches by size), deleted rows, and both
/// directions.
#[test]
fn rows_read_ahead_without_a_filter_equal_rows_built_by_a_filter_that_keeps_everything() {
    let mut config = TableConfig::with_families(["zeta", "alpha", "mid"]);
    config.tablet_options.split_load_ops = 0;
    let fresh = || {
        let mut db = Database::with_clock(ManualClock::new(NOW));
        db.create_table("t", config.clone()).unwrap();
        for i in 0..300 {
            let big = vec![b'v'; if i % 7 == 0 { 40_000 } else { 10 }];
            db.mutate_row(
                "t",
                &key(i),
                &[
                    Mutation::set_cell("alpha", b"a", 1000, big),
                    Mutation::set_cell("zeta", b"z", 2000, format!("z{i}").into_bytes()),
                    Mutation::set_cell("zeta", b"z", 1000, b"older".to_vec()),
                    Mutation::set_cell("mid", format!("q{i}").as_bytes(), 1000, vec![]),
                ],
            )
            .unwrap();
            if i % 11 == 3 {
                db.mutate_row("t", &key(i), &[Mutation::DeleteFromRow])
                    .unwrap();
            }
        }
        db
    };
    for reversed in [false, true] {
        let mut seen = Vec::new();
        for filter in [RowFilter::default(), RowFilter::CellsPerColumnLimit(1_000)] {
            let db = fresh();
            let request = ReadRowsRequest {
                filter,
                reversed,
                ..ReadRowsRequest::default()
            };
            let mut stream = db.read_rows("t", &request).unwrap();
            let mut steps = Vec::new();
            while let Some(row) = stream.next() {
                steps.push((
                    row,
                    stream.rows_scanned(),
                    stream.cells_scanned(),
                    stream.last_scanned_key().map(<[u8]>::to_vec),
                ));
            }
            let end = (
                stream.rows_scanned(),
                stream.cells_scanned(),
                stream.last_scanned_key().map(<[u8]>::to_vec),
                stream.bytes_examined(),
            );
            drop(stream);
            let stats: Vec<_> = db
                .access_stats("t")
                .unwrap()
                .into_iter()
                .map(|s| {
                    (
                        s.key_bucket,
                        s.counters.reads,
                        s.counters.bytes_read,
                        s.counters.cells_scanned,
                    )
                })
                .collect();
            seen.push((steps, end, stats));
        }
        let (packed, built) = (&seen[0], &seen[1]);
        assert_eq!(
            packed.0.len(),
            (0..300).filter(|i| i % 11 != 3).count(),
            "every row not deleted, reversed: {reversed}"
        );
        let families: Vec<&str> = packed.0[1]
            .0
            .cells
            .iter()
            .map(|c| c.family.as_str())
            .collect();
        assert_eq!(
            families,
            ["zeta", "zeta", "alpha", "mid"],
            "creation order, all versions"
        );
        assert!(
            packed == built,
            "packed and built reads differ (reversed: {reversed})"
        );
        assert!(
            packed.2.iter().any(|s| s.2 > 0),
            "the statistics counted the reads"
        );
    }
}

/// A stream paused by its scan budget goes on in the same view once the budget is extended:
/// slice by slice it returns exactly the rows a read without a budget returns, though a write
/// made between slices is not seen (the snapshot is kept, unlike resuming with a new stream).
#[test]
fn a_paused_stream_goes_on_in_its_own_view_when_its_budget_is_extended() {
    let mut db = Database::with_clock(Arc::new(ManualClock::new(NOW)));
    db.create_table("t", tiny()).unwrap();
    for i in 0..300 {
        write(&mut db, i, if i % 7 == 0 { "keep" } else { "drop" });
    }
    let request = ReadRowsRequest {
        filter: RowFilter::ValueRegex(b"keep".to_vec()),
        ..ReadRowsRequest::default()
    };
    let want: Vec<Vec<u8>> = db
        .read_rows("t", &request)
        .unwrap()
        .map(|r| r.key)
        .collect();
    assert_eq!(want.len(), 43);
    let db = SharedDatabase::new(db);
    let mut stream = db.read_rows_stream("t", &request).unwrap();
    let mut got = Vec::new();
    let mut slices = 0;
    loop {
        stream.extend_scan_budget(8, u64::MAX);
        slices += 1;
        while let Some(row) = stream.try_next().unwrap() {
            got.push(row.key);
        }
        if !stream.is_paused() {
            break;
        }
        if slices == 3 {
            // A write between slices: the stream keeps the view it opened on.
            db.write(|d| {
                d.mutate_row(
                    "t",
                    b"row0299x",
                    &[Mutation::set_cell("cf", b"a", 1000, b"keep".to_vec())],
                )
            })
            .unwrap();
        }
    }
    assert_eq!(got, want);
    assert!(
        slices > 10,
        "the budget paused the stream ({slices} slices)"
    );
    assert!(stream.is_exhausted() && !stream.is_paused());
}

/// Reads the whole request through `next_batch` with `limits`: the rows, and the batches.
fn batched(
    db: &Database,
    request: &ReadRowsRequest,
    limits: &sparsetable::BatchLimits,
) -> (Vec<Vec<u8>>, Vec<sparsetable::RowBatch>) {
    let mut stream = db.read_rows("t", request).unwrap();
    let mut batches = Vec::new();
    loop {
        let batch = stream.next_batch(limits).unwrap();
        let more = batch.more;
        batches.push(batch);
        if !more {
            break;
        }
        assert!(batches.len() < 10_000, "a batched read ends");
    }
    let keys = batches
        .iter()
        .flat_map(|b| b.rows.iter().map(|r| r.key.clone()))
        .collect();
    (keys, batches)
}

#[test]
fn batches_hold_every_row_once_within_their_row_byte_and_slice_bounds() {
    use sparsetable::{row_bytes, BatchLimits};
    for db in databases() {
        let db = loaded(db, 120);
        for request in [
            ReadRowsRequest::default(),
            reversed(),
            ReadRowsRequest {
                rows_limit: 50,
                ..ReadRowsRequest::default()
            },
            ReadRowsRequest {
                filter: RowFilter::ValueRegex(b"v1.*".to_vec()),
                ..reversed()
            },
        ] {
            let want: Vec<Vec<u8>> = read(&db, &request).into_iter().map(|r| r.key).collect();
            // Rows only: full batches of 7, then the rest; `more` false only at the end.
            let (keys, batches) = batched(&db, &request, &BatchLimits::rows(7));
            assert_eq!(keys, want);
            assert!(batches[..batches.len() - 1]
                .iter()
                .all(|b| b.rows.len() == 7));
            assert!(batches.last().unwrap().rows.len() < 7);
            // Bytes: a batch stops at the row that crosses the bound, and is never empty
            // while rows remain (no slice bound here).
            let limits = BatchLimits::rows(usize::MAX).with_max_bytes(40);
            let (keys, batches) = batched(&db, &request, &limits);
            assert_eq!(keys, want);
            for b in &batches[..batches.len() - 1] {
                let sizes: Vec<usize> = b.rows.iter().map(row_bytes).collect();
                assert!(!sizes.is_empty());
                assert!(
                    sizes[..sizes.len() - 1].iter().sum::<usize>() < 40,
                    "{sizes:?}"
                );
                assert!(sizes.iter().sum::<usize>() >= 40, "{sizes:?}");
            }
            // Slices: a batch examines a bounded number of cells, so batches may be empty
            // while `more` holds, and the rows are still all there, once, in order.
            let limits = BatchLimits::rows(usize::MAX).with_slice(5, u64::MAX);
            let (keys, batches) = batched(&db, &request, &limits);
            assert_eq!(keys, want);
            assert!(batches.len() > want.len() / 5, "{} batches", batches.len());
        }
    }
}
