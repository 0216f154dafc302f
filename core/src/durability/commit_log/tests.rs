//! Tests of the commit log's writer and reader (docs/format/commit_log.md).

use super::*;
use crate::platform::storage::{MemStorage, Storage};
use crate::TimestampRange;
use alloc::string::ToString;
use alloc::vec;
use proptest::prelude::*;

fn batch(sequence: u64, rows: &[&str]) -> WriteBatch {
    WriteBatch {
        commit_micros: None,
        collected: false,
        one_sequence: false,
        origin: None,
        outbound: None,
        sequence,
        entries: rows
            .iter()
            .map(|r| BatchEntry {
                table: "t".to_string(),
                row_key: r.as_bytes().to_vec(),
                mutations: vec![
                    Mutation::set_cell("cf", b"q".to_vec(), 1000, r.as_bytes().to_vec()),
                    Mutation::DeleteFromColumn {
                        family: "cf".to_string(),
                        qualifier: b"old".to_vec(),
                        time_range: TimestampRange::default(),
                    },
                ],
            })
            .collect(),
    }
}

fn three() -> Vec<WriteBatch> {
    vec![batch(1, &["a"]), batch(2, &["b", "c"]), batch(4, &["d"])]
}

/// The log bytes and the end offset of each record.
fn log_of(batches: &[WriteBatch]) -> (Vec<u8>, Vec<usize>) {
    let storage = MemStorage::new();
    let mut w = LogWriter::new(storage.create("log").unwrap());
    let mut ends = Vec::new();
    let mut total = 0;
    for b in batches {
        total += w.append(b).unwrap() as usize;
        ends.push(total);
    }
    w.sync().unwrap();
    assert_eq!(w.len(), total as u64);
    let bytes = crate::platform::storage::read_all(&storage, "log").unwrap();
    (bytes, ends)
}

/// Replays all of `bytes`: the batches read before the end or error, and the outcome.
fn read(bytes: &[u8]) -> (Vec<WriteBatch>, Result<ReplayEnd>) {
    let mut reader = LogReader::from_bytes(bytes.to_vec());
    let mut out = Vec::new();
    for item in reader.by_ref() {
        match item {
            Ok(b) => out.push(b),
            Err(e) => {
                assert!(reader.next().is_none(), "an error ends the iteration");
                return (out, Err(e));
            }
        }
    }
    (out, Ok(reader.end().unwrap()))
}

#[test]
fn batches_round_trip_through_storage() {
    let batches = three();
    let storage = MemStorage::new();
    let mut w = LogWriter::new(storage.create("000001.log").unwrap());
    for b in &batches {
        w.append(b).unwrap();
    }
    w.sync().unwrap();
    let (read, end) = replay(storage.open("000001.log").unwrap()).unwrap();
    assert_eq!(read, batches);
    assert_eq!(end, ReplayEnd::Clean);
}

#[test]
fn an_empty_log_ends_cleanly() {
    assert_eq!(read(&[]), (vec![], Ok(ReplayEnd::Clean)));
    let (batches, end) = read(&encode_record(&WriteBatch::default()).unwrap());
    assert_eq!(batches, [WriteBatch::default()]);
    assert_eq!(end, Ok(ReplayEnd::Clean));
}

#[test]
fn header_layout_matches_the_spec() {
    let record = encode_record(&WriteBatch {
        sequence: 5,
        entries: vec![],
        commit_micros: None,
        collected: false,
        one_sequence: false,
        origin: None,
        outbound: None,
    })
    .unwrap();
    assert_eq!(record[4..], [2, 0, 0, 0, RECORD_TYPE_BATCH, 5, 0]);
    let crc = CRC32C.checksum(&record[4..]);
    assert_eq!(record[..4], crc.to_le_bytes());
}

#[test]
fn every_truncation_replays_exactly_the_complete_records() {
    let batches = three();
    let (bytes, ends) = log_of(&batches);
    for cut in 0..=bytes.len() {
        let complete = ends.iter().filter(|&&e| e <= cut).count();
        let valid = if complete == 0 { 0 } else { ends[complete - 1] };
        let (read, end) = read(&bytes[..cut]);
        assert_eq!(read, batches[..complete], "cut at {cut}");
        let expected = if valid == cut {
            ReplayEnd::Clean
        } else {
            ReplayEnd::TornTail {
                valid_bytes: valid as u64,
            }
        };
        assert_eq!(end, Ok(expected), "cut at {cut}");
    }
}

#[test]
fn a_damaged_record_before_a_valid_one_is_data_loss() {
    let batches = three();
    let (bytes, ends) = log_of(&batches);
    for i in 0..ends[1] {
        for mask in [0x01u8, 0x80, 0xff] {
            let mut damaged = bytes.clone();
            damaged[i] ^= mask;
            let (read, end) = read(&damaged);
            let err = end.unwrap_err();
            assert_eq!(err.code(), Code::DataLoss, "byte {i} ^ {mask:#x}");
            // Only records before the damaged one were returned.
            let damaged_record = ends.iter().position(|&e| i < e).unwrap();
            assert_eq!(read, batches[..damaged_record], "byte {i}");
        }
    }
}

#[test]
fn a_damaged_last_record_is_a_torn_tail() {
    let batches = three();
    let (bytes, ends) = log_of(&batches);
    for i in ends[1]..bytes.len() {
        for mask in [0x01u8, 0x80, 0xff] {
            let mut damaged = bytes.clone();
            damaged[i] ^= mask;
            let (read, end) = read(&damaged);
            assert_eq!(read, batches[..2], "byte {i} ^ {mask:#x}");
            assert_eq!(
                end,
                Ok(ReplayEnd::TornTail {
                    valid_bytes: ends[1] as u64
                })
            );
        }
    }
}

#[test]
fn zeros_or_garbage_after_the_last_record_are_a_torn_tail() {
    let batches = three();
    let (bytes, ends) = log_of(&batches);
    for tail in [vec![0u8; 100], vec![0xa5; 3], (0..=255u8).collect()] {
        let mut log = bytes.clone();
        log.extend_from_slice(&tail);
        let (read, end) = read(&log);
        assert_eq!(read, batches);
        assert_eq!(
            end,
            Ok(ReplayEnd::TornTail {
                valid_bytes: ends[2] as u64
            })
        );
    }
    assert_ne!(CRC32C.checksum(&[0; 5]), 0, "a zeroed header never checks");
}

#[test]
fn decreasing_sequences_are_data_loss() {
    let mut log = encode_record(&batch(5, &["a"])).unwrap();
    log.extend(encode_record(&batch(5, &["b"])).unwrap());
    let (read, end) = read(&log);
    assert_eq!(read.len(), 1);
    let err = end.unwrap_err();
    assert_eq!(err.code(), Code::DataLoss);
    assert!(err.message().contains("sequence 5"), "{err}");
}

#[test]
fn a_checked_record_of_unknown_type_or_bad_payload_is_data_loss() {
    let unknown = frame(8, &batch(1, &["a"]).to_bytes()).unwrap();
    let err = read(&unknown).1.unwrap_err();
    assert!(err.message().contains("unsupported type 8"), "{err}");
    // A replicated write whose origin names a source without an arrival number.
    let mut payload = vec![0];
    put_origin(
        &mut payload,
        &Origin {
            source: "c1".into(),
            arrival: 0,
        },
    );
    payload.extend(batch(1, &["a"]).to_bytes());
    let err = read(&frame(RECORD_TYPE_REPLICATED, &payload).unwrap())
        .1
        .unwrap_err();
    assert!(err.message().contains("batch.origin"), "{err}");
    // A collected record whose time is missing.
    let err = read(&frame(RECORD_TYPE_COLLECTED, &[]).unwrap())
        .1
        .unwrap_err();
    assert!(err.message().contains("malformed write batch"), "{err}");
    // A timed batch whose time is missing.
    let err = read(&frame(RECORD_TYPE_TIMED_BATCH, &[]).unwrap())
        .1
        .unwrap_err();
    assert!(err.message().contains("malformed write batch"), "{err}");
    let mut payload = batch(1, &["a"]).to_bytes();
    payload.push(0);
    let err = read(&frame(RECORD_TYPE_BATCH, &payload).unwrap())
        .1
        .unwrap_err();
    assert_eq!(err.code(), Code::DataLoss);
    assert!(err.message().contains("malformed write batch"), "{err}");
}

#[test]
fn the_writer_refuses_sequences_that_do_not_increase() {
    let storage = MemStorage::new();
    let mut w = LogWriter::new(storage.create("log").unwrap());
    w.append(&batch(3, &["a"])).unwrap();
    let err = w.append(&batch(3, &["b"])).unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    w.append(&batch(4, &["b"])).unwrap();
}

#[test]
fn a_record_encoded_from_borrowed_rows_is_the_batch_record() {
    let b = batch(7, &["a", "bb", "ccc"]);
    let rows: Vec<(&[u8], &[Mutation])> = b
        .entries
        .iter()
        .map(|e| (e.row_key.as_slice(), e.mutations.as_slice()))
        .collect();
    let record = encode_rows_record(7, "t", &rows, None).unwrap();
    assert_eq!(record, encode_record(&b).unwrap());
    let storage = MemStorage::new();
    let mut w = LogWriter::new(storage.create("log").unwrap());
    w.append_rows(7, "t", &rows, None).unwrap();
    let err = w.append_rows(7, "t", &rows, None).unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    let (read, end) = read(&crate::platform::storage::read_all(&storage, "log").unwrap());
    assert_eq!(read, vec![b]);
    assert_eq!(end, Ok(ReplayEnd::Clean));
}

#[test]
fn a_replicated_record_carries_its_origin_and_needs_a_commit_time() {
    let b = batch(7, &["a", "bb"]);
    let rows: Vec<(&[u8], &[Mutation])> = b
        .entries
        .iter()
        .map(|e| (e.row_key.as_slice(), e.mutations.as_slice()))
        .collect();
    let origin = Origin {
        source: "west".into(),
        arrival: 42,
    };
    let record = encode_rows_record_from(7, "t", &rows, Some(-9), Some(&origin)).unwrap();
    assert_eq!(record[8], RECORD_TYPE_REPLICATED);
    let mut want = b.clone();
    want.commit_micros = Some(-9);
    want.origin = Some(origin.clone());
    assert_eq!(record, encode_record(&want).unwrap());
    let (read_back, end) = read(&record);
    assert_eq!(read_back, vec![want.clone()]);
    assert_eq!(end, Ok(ReplayEnd::Clean));
    let err = encode_rows_record_from(7, "t", &rows, None, Some(&origin)).unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    want.commit_micros = None;
    assert_eq!(
        encode_record(&want).unwrap_err().code(),
        Code::InvalidArgument
    );
}

#[test]
fn outbound_records_round_trip_and_are_nothing_else() {
    let b = batch(7, &["a", "bb"]);
    let rows: Vec<(&[u8], &[Mutation])> = b
        .entries
        .iter()
        .map(|e| (e.row_key.as_slice(), e.mutations.as_slice()))
        .collect();
    for (kind, record_type) in [
        (Outbound::Captured, RECORD_TYPE_CAPTURED),
        (Outbound::Carried, RECORD_TYPE_CARRIED),
    ] {
        let record = encode_rows_record_as(7, "t", &rows, Some(5), None, Some(kind)).unwrap();
        assert_eq!(record[8], record_type);
        let mut want = b.clone();
        want.commit_micros = Some(5);
        want.outbound = Some(kind);
        assert_eq!(record, encode_record(&want).unwrap());
        assert_eq!(read(&record).0, vec![want.clone()]);
        let origin = Origin {
            source: "c1".into(),
            arrival: 1,
        };
        for bad in [
            encode_rows_record_as(7, "t", &rows, None, None, Some(kind)),
            encode_rows_record_as(7, "t", &rows, Some(5), Some(&origin), Some(kind)),
        ] {
            assert_eq!(bad.unwrap_err().code(), Code::InvalidArgument);
        }
        want.collected = true;
        assert_eq!(
            encode_record(&want).unwrap_err().code(),
            Code::InvalidArgument
        );
    }
}

/// A DeleteFromColumn of the one cell at `ts` in `cf:q`.
fn point(ts: i64) -> Mutation {
    Mutation::DeleteFromColumn {
        family: "cf".to_string(),
        qualifier: b"q".to_vec(),
        time_range: TimestampRange {
            start_micros: ts,
            end_micros: Some(ts + 1),
        },
    }
}

/// Garbage collection's record of two cells in each of `rows`, collected at time -3.
fn collected_batch(sequence: u64, rows: &[&str]) -> WriteBatch {
    let mut b = batch(sequence, rows);
    for e in &mut b.entries {
        e.mutations = vec![point(1000), point(2000)];
    }
    b.commit_micros = Some(-3);
    b.collected = true;
    b
}

#[test]
fn a_collected_record_takes_a_sequence_per_cell_and_needs_a_commit_time() {
    // Four cells: sequences 9 to 12.
    let mut b = collected_batch(9, &["a", "b"]);
    let rows: Vec<(&[u8], &[Mutation])> = b
        .entries
        .iter()
        .map(|e| (e.row_key.as_slice(), e.mutations.as_slice()))
        .collect();
    let record = encode_collected_record(9, "t", &rows, -3).unwrap();
    assert_eq!(record, encode_record(&b).unwrap());
    assert_eq!(record[8], RECORD_TYPE_COLLECTED_CELLS);
    // The payload is a timed batch's: only the type byte (and so the checksum) differs;
    // and the older type 3's, whose cells share one sequence.
    let mut timed = b.clone();
    timed.collected = false;
    let timed = encode_record(&timed).unwrap();
    assert_eq!(record[9..], timed[9..]);
    assert_eq!(timed[8], RECORD_TYPE_TIMED_BATCH);
    let mut old = b.clone();
    old.one_sequence = true;
    let old_record = encode_record(&old).unwrap();
    assert_eq!(old_record[8], RECORD_TYPE_COLLECTED);
    assert_eq!(record[9..], old_record[9..]);
    let storage = MemStorage::new();
    let mut w = LogWriter::new(storage.create("log").unwrap());
    w.append(&batch(8, &["x"])).unwrap();
    w.append_collected(9, "t", &rows, -3).unwrap();
    // The next record starts above the last cell's sequence.
    let err = w.append(&batch(12, &["y"])).unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("last sequence 12"), "{err}");
    w.append(&batch(13, &["y"])).unwrap();
    let (read_back, end) = read(&crate::platform::storage::read_all(&storage, "log").unwrap());
    assert_eq!(
        read_back,
        vec![batch(8, &["x"]), b.clone(), batch(13, &["y"])]
    );
    assert_eq!(end, Ok(ReplayEnd::Clean));
    // A reader refuses a record inside the cells' sequences (it would tie with one of
    // them when both are applied); after a type 3 record the next sequence is enough.
    let mut log = record.clone();
    log.extend(encode_record(&batch(12, &["y"])).unwrap());
    let err = read(&log).1.unwrap_err();
    assert_eq!(err.code(), Code::DataLoss);
    assert!(err.message().contains("last sequence 12"), "{err}");
    let mut log = old_record.clone();
    log.extend(encode_record(&batch(10, &["y"])).unwrap());
    assert_eq!(
        read(&log),
        (vec![old.clone(), batch(10, &["y"])], Ok(ReplayEnd::Clean))
    );
    // Type 7 names cells and nothing else: the writer refuses anything more
    // (InvalidArgument), a reader finding it is DataLoss; type 3 takes its mutations as
    // they are.
    let mut bad = b.clone();
    bad.entries[1].mutations.push(Mutation::DeleteFromRow);
    assert_eq!(
        encode_record(&bad).unwrap_err().code(),
        Code::InvalidArgument
    );
    bad.entries[1].mutations[2] = Mutation::DeleteFromColumn {
        family: "cf".to_string(),
        qualifier: b"q".to_vec(),
        time_range: TimestampRange {
            start_micros: 5,
            end_micros: Some(7),
        },
    };
    assert_eq!(
        encode_record(&bad).unwrap_err().code(),
        Code::InvalidArgument
    );
    bad.one_sequence = true;
    let as_old = encode_record(&bad).unwrap();
    assert_eq!(read(&as_old).0, vec![bad.clone()]);
    let err = read(&frame(RECORD_TYPE_COLLECTED_CELLS, &as_old[9..]).unwrap())
        .1
        .unwrap_err();
    assert_eq!(err.code(), Code::DataLoss);
    assert!(err.message().contains("one timestamp"), "{err}");
    // A compaction's record of a cell at `i64::MAX` ends there (`ts + 1` saturates): still
    // that one cell.
    let mut top = collected_batch(20, &["z"]);
    top.entries[0].mutations = vec![Mutation::DeleteFromColumn {
        family: "cf".to_string(),
        qualifier: b"q".to_vec(),
        time_range: TimestampRange {
            start_micros: i64::MAX,
            end_micros: Some(i64::MAX),
        },
    }];
    let top_record = encode_record(&top).unwrap();
    assert_eq!(top_record[8], RECORD_TYPE_COLLECTED_CELLS);
    assert_eq!(read(&top_record).0, vec![top]);
    // Sharing one sequence is for garbage collection's records only.
    let mut shared = batch(1, &["a"]);
    shared.one_sequence = true;
    assert_eq!(
        encode_record(&shared).unwrap_err().code(),
        Code::InvalidArgument
    );
    b.commit_micros = None;
    assert_eq!(encode_record(&b).unwrap_err().code(), Code::InvalidArgument);
}

struct FailingFile;
impl WritableFile for FailingFile {
    fn append(&mut self, _: &[u8]) -> Result<()> {
        Err(Error::new(Code::Unavailable, "disk full"))
    }
    fn sync(&mut self) -> Result<()> {
        Ok(())
    }
    fn len(&self) -> u64 {
        0
    }
}

#[test]
fn a_writer_is_unusable_after_an_io_error() {
    let mut w = LogWriter::new(Box::new(FailingFile));
    assert_eq!(
        w.append(&batch(1, &["a"])).unwrap_err().code(),
        Code::Unavailable
    );
    assert!(w.is_failed());
    assert_eq!(
        w.append(&batch(2, &["a"])).unwrap_err().code(),
        Code::Unavailable
    );
    assert_eq!(w.sync().unwrap_err().code(), Code::Unavailable);
}

proptest! {
    #[test]
    fn random_batches_round_trip(
        batches in proptest::collection::vec(
            (
                "[a-z]{1,4}",
                proptest::collection::vec(any::<u8>(), 0..8),
                proptest::collection::vec(crate::codec::values::tests::arb_mutation(), 0..4),
            ),
            0..6,
        )
    ) {
        let batches: Vec<WriteBatch> = batches
            .into_iter()
            .enumerate()
            .map(|(i, (table, row_key, mutations))| WriteBatch {
                sequence: 10 * i as u64 + 1,
                entries: vec![BatchEntry { table, row_key, mutations }],
                // Every record type, and times of either sign.
                commit_micros: (i % 6 != 0).then_some(i as i64 * 1_000_003 - 5),
                // Type 3 (older: cells share one sequence) and type 7 (a sequence each).
                collected: i % 6 == 2,
                one_sequence: i % 12 == 2,
                // Type 4, marking a delivery or not.
                origin: (i % 6 == 3).then(|| if i % 12 == 3 {
                    Origin { source: "c2".into(), arrival: i as u64 }
                } else {
                    Origin::default()
                }),
                // Types 5 and 6.
                outbound: match i % 6 {
                    4 => Some(Outbound::Captured),
                    5 => Some(Outbound::Carried),
                    _ => None,
                },
            })
            .map(|mut b: WriteBatch| {
                if b.collected && !b.one_sequence {
                    // Type 7 names cells: a DeleteFromColumn of one timestamp each.
                    for m in &mut b.entries[0].mutations {
                        let start = match m {
                            Mutation::SetCell { timestamp_micros, .. } => *timestamp_micros,
                            _ => 7,
                        }
                        .min(i64::MAX - 1);
                        *m = Mutation::DeleteFromColumn {
                            family: "cf".into(),
                            qualifier: b"q".to_vec(),
                            time_range: TimestampRange { start_micros: start, end_micros: Some(start + 1) },
                        };
                    }
                }
                b
            })
            .collect();
        let (bytes, _) = log_of(&batches);
        let (read, end) = read(&bytes);
        prop_assert_eq!(read, batches);
        prop_assert_eq!(end, Ok(ReplayEnd::Clean));
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let (read, end) = read(&bytes);
        if let Err(e) = end {
            prop_assert_eq!(e.code(), Code::DataLoss);
        }
        // Whatever was returned re-encodes to a prefix of the input.
        let mut prefix = Vec::new();
        for b in &read {
            prefix.extend(encode_record(b).unwrap());
        }
        prop_assert!(bytes.starts_with(&prefix));
    }
}
