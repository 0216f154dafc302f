//! The commit log reader and the value decoders under it, over arbitrary bytes. Never panics;
//! every error is `DataLoss`; whatever decodes re-encodes to exactly the bytes it came from.
//!
//! The first byte picks what the rest is: 0 a raw log file; 1, 5, 6 and 7 a record payload
//! of type 1 (write batch), 2 (timed write batch), 3 (garbage collection, one sequence) or 7
//! (garbage collection, a sequence per cell), framed with a valid header so the payload
//! decoder is reached; 2 a mutation, 3 a GC rule, 4 a table config (each encoding is
//! canonical, so a successful decode must re-encode identically).
#![no_main]

use libfuzzer_sys::fuzz_target;
use sparsetable::codec::encoding::{Decode, Encode, CRC32C};
use sparsetable::durability::commit_log::{
    encode_record, LogReader, ReplayEnd, RECORD_TYPE_BATCH, RECORD_TYPE_COLLECTED,
    RECORD_TYPE_COLLECTED_CELLS, RECORD_TYPE_TIMED_BATCH,
};
use sparsetable::{Code, GcRule, Mutation, TableConfig};

fn replay(log: &[u8]) {
    let mut reader = LogReader::from_bytes(log.to_vec());
    let mut prefix = Vec::new();
    for item in reader.by_ref() {
        match item {
            Ok(batch) => prefix.extend(encode_record(&batch).unwrap()),
            Err(e) => {
                assert_eq!(e.code(), Code::DataLoss, "{e}");
                assert!(log.starts_with(&prefix));
                return;
            }
        }
    }
    assert!(log.starts_with(&prefix));
    match reader.end().unwrap() {
        ReplayEnd::Clean => assert_eq!(prefix.len(), log.len()),
        ReplayEnd::TornTail { valid_bytes } => {
            assert_eq!(valid_bytes, prefix.len() as u64);
            assert!(valid_bytes < log.len() as u64);
        }
    }
}

fn canonical<T: Decode + Encode>(bytes: &[u8]) {
    match T::from_bytes(bytes) {
        Ok(v) => assert_eq!(v.to_bytes(), bytes),
        Err(e) => assert_eq!(e.code(), Code::DataLoss, "{e}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let framed = |record_type: u8| {
        let mut record = vec![0; 4];
        record.extend_from_slice(&(rest.len() as u32).to_le_bytes());
        record.push(record_type);
        record.extend_from_slice(rest);
        let crc = CRC32C.checksum(&record[4..]);
        record[..4].copy_from_slice(&crc.to_le_bytes());
        replay(&record);
    };
    match mode % 8 {
        0 => replay(rest),
        1 => framed(RECORD_TYPE_BATCH),
        5 => framed(RECORD_TYPE_TIMED_BATCH),
        6 => framed(RECORD_TYPE_COLLECTED),
        7 => framed(RECORD_TYPE_COLLECTED_CELLS),
        2 => canonical::<Mutation>(rest),
        3 => canonical::<GcRule>(rest),
        _ => canonical::<TableConfig>(rest),
    }
});
