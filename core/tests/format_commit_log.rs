//! Compatibility test for the commit log format (docs/format/commit_log.md), kept forever:
//! the committed fixture `tests/fixtures/commit_log/three_records.log` must decode to the
//! batches below, and encoding those batches must reproduce the fixture byte for byte.
//!
//! If this test fails, the format changed: that needs a new record type or version and a
//! "Version changes" entry in the doc, never an edited fixture.

use std::sync::Arc;

use sparsetable::durability::commit_log::{
    encode_record, replay, BatchEntry, LogReader, LogWriter, ReplayEnd, WriteBatch,
};
use sparsetable::platform::storage::{read_all, MemStorage, Storage};
use sparsetable::{Code, Mutation, TimestampRange};

const FIXTURE: &[u8] = include_bytes!("../../tests/fixtures/commit_log/three_records.log");

fn entry(row_key: &str, mutations: Vec<Mutation>) -> BatchEntry {
    BatchEntry {
        table: "users".to_string(),
        row_key: row_key.as_bytes().to_vec(),
        mutations,
    }
}

/// The fixture's contents, as in the doc's worked example.
fn batches() -> Vec<WriteBatch> {
    vec![
        WriteBatch {
            commit_micros: None,
            collected: false,
            one_sequence: false,
            origin: None,
            outbound: None,
            sequence: 1,
            entries: vec![entry(
                "alice",
                vec![Mutation::set_cell(
                    "cf",
                    b"name".to_vec(),
                    1000,
                    b"Alice".to_vec(),
                )],
            )],
        },
        WriteBatch {
            commit_micros: None,
            collected: false,
            one_sequence: false,
            origin: None,
            outbound: None,
            sequence: 2,
            entries: vec![
                entry(
                    "bob",
                    vec![
                        Mutation::AddToCell {
                            family: "n".to_string(),
                            qualifier: b"v".to_vec(),
                            timestamp_micros: 2000,
                            input: 1,
                        },
                        Mutation::MergeToCell {
                            family: "n".to_string(),
                            qualifier: b"v".to_vec(),
                            timestamp_micros: 2000,
                            state: 5i64.to_be_bytes().to_vec(),
                        },
                    ],
                ),
                entry(
                    "carol",
                    vec![Mutation::DeleteFromColumn {
                        family: "cf".to_string(),
                        qualifier: b"name".to_vec(),
                        time_range: TimestampRange {
                            start_micros: 1000,
                            end_micros: Some(3000),
                        },
                    }],
                ),
            ],
        },
        WriteBatch {
            commit_micros: None,
            collected: false,
            one_sequence: false,
            origin: None,
            outbound: None,
            sequence: 4,
            entries: vec![
                entry(
                    "alice",
                    vec![Mutation::DeleteFromFamily {
                        family: "cf".to_string(),
                    }],
                ),
                entry("dave", vec![Mutation::DeleteFromRow]),
            ],
        },
    ]
}

#[test]
fn fixture_decodes_to_the_documented_batches() {
    let storage = MemStorage::new();
    storage.set_bytes("000001.log", FIXTURE.to_vec());
    let (read, end) = replay(storage.open("000001.log").unwrap()).unwrap();
    assert_eq!(read, batches());
    assert_eq!(end, ReplayEnd::Clean);
}

#[test]
fn encoding_the_batches_reproduces_the_fixture() {
    let storage = MemStorage::new();
    let mut writer = LogWriter::new(storage.create("log").unwrap());
    let mut sizes = Vec::new();
    for batch in &batches() {
        sizes.push(writer.append(batch).unwrap());
    }
    writer.sync().unwrap();
    assert_eq!(read_all(&storage, "log").unwrap(), FIXTURE);
    // The record sizes the doc's worked example lists.
    assert_eq!(sizes, [41, 73, 41]);
    let records: Vec<u8> = batches()
        .iter()
        .flat_map(|b| encode_record(b).unwrap())
        .collect();
    assert_eq!(records, FIXTURE);
}

#[test]
fn the_fixture_truncated_anywhere_replays_a_prefix() {
    let ends = [41usize, 114, 155];
    for cut in 0..=FIXTURE.len() {
        let mut reader = LogReader::from_bytes(FIXTURE[..cut].to_vec());
        let read: Vec<WriteBatch> = reader.by_ref().map(Result::unwrap).collect();
        let complete = ends.iter().filter(|&&e| e <= cut).count();
        assert_eq!(read, batches()[..complete], "cut at {cut}");
        let valid = ends[..complete].last().copied().unwrap_or(0) as u64;
        let expected = if valid == cut as u64 {
            ReplayEnd::Clean
        } else {
            ReplayEnd::TornTail { valid_bytes: valid }
        };
        assert_eq!(reader.end(), Some(expected), "cut at {cut}");
    }
}

#[test]
fn the_fixture_with_a_flipped_middle_byte_is_data_loss() {
    let mut damaged = FIXTURE.to_vec();
    damaged[60] ^= 0x10;
    let storage = MemStorage::new();
    storage.set_bytes("log", damaged);
    let file: Arc<dyn sparsetable::platform::storage::RandomAccessFile> =
        storage.open("log").unwrap();
    let err = replay(file).unwrap_err();
    assert_eq!(err.code(), Code::DataLoss);
    assert!(err.message().contains("offset 41"), "{err}");
}
