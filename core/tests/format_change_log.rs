//! Compatibility test for the change log file (docs/format/change_log.md) and the commit
//! log's timed write batch and garbage collection records (docs/format/commit_log.md, record
//! types 2, 3 and 7), kept forever:
//! the committed fixtures must decode to the values below, and encoding those values must
//! reproduce them byte for byte.
//!
//! If this test fails, a format changed: that needs a new version or record type and an
//! entry in the doc, never an edited fixture. (`SPARSETABLE_WRITE_FIXTURES=1` writes the
//! fixtures from the values below; use it only for a new fixture.)

use sparsetable::api::change_stream::{decode_changes, encode_changes, ChangeKind, ChangeLog};
use sparsetable::durability::commit_log::{
    encode_record, BatchEntry, LogReader, WriteBatch, RECORD_TYPE_COLLECTED,
    RECORD_TYPE_COLLECTED_CELLS, RECORD_TYPE_TIMED_BATCH,
};
use sparsetable::{Mutation, RowMutations, RowRange, TimestampRange};

const CHANGES: &[u8] = include_bytes!("../../tests/fixtures/change_log/one_table.changes");
const TIMED: &[u8] = include_bytes!("../../tests/fixtures/commit_log/timed_record.log");
const COLLECTED: &[u8] = include_bytes!("../../tests/fixtures/commit_log/collected_record.log");
const COLLECTED_CELLS: &[u8] =
    include_bytes!("../../tests/fixtures/commit_log/collected_cells_record.log");

/// The change log file's contents, as in the doc's worked example: table `users`, enabled
/// at 1,700,000,000,000,000 with one day's retention, a user write and a garbage collection.
fn log() -> ChangeLog {
    let mut log = ChangeLog::new(86_400_000_000, 1_700_000_000_000_000).unwrap();
    log.push(
        &[RowMutations {
            row_key: b"alice".to_vec(),
            mutations: vec![Mutation::set_cell("cf", b"q".to_vec(), 1000, b"v".to_vec())],
        }],
        1_700_000_000_000_005,
    );
    log.push_collected(
        vec![(
            b"alice".to_vec(),
            Mutation::DeleteFromColumn {
                family: "cf".into(),
                qualifier: b"q".to_vec(),
                time_range: TimestampRange {
                    start_micros: 1000,
                    end_micros: Some(1001),
                },
            },
        )],
        1_700_000_000_000_009,
    );
    log
}

fn timed_batch() -> WriteBatch {
    WriteBatch {
        sequence: 3,
        entries: vec![BatchEntry {
            table: "users".into(),
            row_key: b"bob".to_vec(),
            mutations: vec![Mutation::DeleteFromRow],
        }],
        commit_micros: Some(1_700_000_000_000_005),
        collected: false,
        one_sequence: false,
        origin: None,
        outbound: None,
    }
}

/// The garbage collection record of the doc's example in its older form (type 3, the cells
/// sharing one sequence): at 1,700,000,000,000,009, batch 4, table `users`, row `alice`:
/// the cell `cf:q` @1000 collected.
fn collected_batch() -> WriteBatch {
    WriteBatch {
        sequence: 4,
        entries: vec![BatchEntry {
            table: "users".into(),
            row_key: b"alice".to_vec(),
            mutations: vec![Mutation::DeleteFromColumn {
                family: "cf".into(),
                qualifier: b"q".to_vec(),
                time_range: TimestampRange {
                    start_micros: 1000,
                    end_micros: Some(1001),
                },
            }],
        }],
        commit_micros: Some(1_700_000_000_000_009),
        collected: true,
        one_sequence: true,
        origin: None,
        outbound: None,
    }
}

/// The same collection as written now (type 7: its one cell takes sequence 4).
fn collected_cells_batch() -> WriteBatch {
    WriteBatch {
        one_sequence: false,
        ..collected_batch()
    }
}

fn write_fixtures() {
    if std::env::var_os("SPARSETABLE_WRITE_FIXTURES").is_some() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/");
        std::fs::write(
            format!("{root}change_log/one_table.changes"),
            encode_changes(2, &[("users", &log())]),
        )
        .unwrap();
        std::fs::write(
            format!("{root}commit_log/timed_record.log"),
            encode_record(&timed_batch()).unwrap(),
        )
        .unwrap();
        std::fs::write(
            format!("{root}commit_log/collected_record.log"),
            encode_record(&collected_batch()).unwrap(),
        )
        .unwrap();
        std::fs::write(
            format!("{root}commit_log/collected_cells_record.log"),
            encode_record(&collected_cells_batch()).unwrap(),
        )
        .unwrap();
    }
}

#[test]
fn the_change_log_fixture_decodes_and_encodes_byte_for_byte() {
    write_fixtures();
    let (through, logs) = decode_changes(CHANGES).unwrap();
    assert_eq!(through, 2);
    assert_eq!(logs.len(), 1);
    let (table, decoded) = &logs[0];
    assert_eq!(table, "users");
    let all = RowRange::all();
    let records = decoded.since(0, None, &all);
    assert_eq!(records, log().since(0, None, &all));
    assert_eq!(
        records.iter().map(|r| r.kind).collect::<Vec<_>>(),
        [ChangeKind::User, ChangeKind::GarbageCollection]
    );
    assert_eq!(decoded.retention_micros(), 86_400_000_000);
    assert_eq!(decoded.enabled_micros(), 1_700_000_000_000_000);
    assert_eq!(encode_changes(through, &[("users", decoded)]), CHANGES);
}

#[test]
fn the_timed_record_fixture_decodes_and_encodes_byte_for_byte() {
    write_fixtures();
    assert_eq!(TIMED[8], RECORD_TYPE_TIMED_BATCH);
    let batches: Vec<WriteBatch> = LogReader::from_bytes(TIMED.to_vec())
        .collect::<sparsetable::Result<_>>()
        .unwrap();
    assert_eq!(batches, vec![timed_batch()]);
    assert_eq!(encode_record(&batches[0]).unwrap(), TIMED);
}

#[test]
fn the_collected_record_fixture_decodes_and_encodes_byte_for_byte() {
    write_fixtures();
    assert_eq!(COLLECTED[8], RECORD_TYPE_COLLECTED);
    let batches: Vec<WriteBatch> = LogReader::from_bytes(COLLECTED.to_vec())
        .collect::<sparsetable::Result<_>>()
        .unwrap();
    assert_eq!(batches, vec![collected_batch()]);
    assert_eq!(encode_record(&batches[0]).unwrap(), COLLECTED);
    // A log of version-1 and timed records followed by it reads in order.
    let mut log = TIMED.to_vec();
    log.extend_from_slice(COLLECTED);
    let batches: Vec<WriteBatch> = LogReader::from_bytes(log)
        .collect::<sparsetable::Result<_>>()
        .unwrap();
    assert_eq!(batches, vec![timed_batch(), collected_batch()]);
}

#[test]
fn the_collected_cells_record_fixture_decodes_and_encodes_byte_for_byte() {
    write_fixtures();
    assert_eq!(COLLECTED_CELLS[8], RECORD_TYPE_COLLECTED_CELLS);
    let batches: Vec<WriteBatch> = LogReader::from_bytes(COLLECTED_CELLS.to_vec())
        .collect::<sparsetable::Result<_>>()
        .unwrap();
    assert_eq!(batches, vec![collected_cells_batch()]);
    assert_eq!(encode_record(&batches[0]).unwrap(), COLLECTED_CELLS);
    // The payload is the older type 3 record's, byte for byte: only the type (and so the
    // checksum) differs.
    assert_eq!(COLLECTED_CELLS.len(), COLLECTED.len());
    assert_eq!(COLLECTED_CELLS[4..8], COLLECTED[4..8]);
    assert_eq!(COLLECTED_CELLS[9..], COLLECTED[9..]);
}
