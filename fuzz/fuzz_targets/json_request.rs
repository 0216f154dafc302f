//! The proto3 JSON request model (`sparsetable::json`, feature `serde`) over arbitrary bytes.
//!
//! Never panics. Every refusal is INVALID_ARGUMENT. Whatever decodes re-encodes, and the
//! encoding is a fixed point: decoding the output and encoding it again gives the same text,
//! so the JSON form loses nothing the core keeps.
//!
//! The first byte picks the message type; the rest is the JSON text (bytes that are not UTF-8
//! must be refused like any other bad input).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde::de::DeserializeOwned;
use serde::Serialize;
use sparsetable::json::{
    self, CheckAndMutateRow, MutateRow, MutateRows, ReadModifyWriteRow, ReadRows,
};
use sparsetable::{
    Code, ColumnFamily, GcRule, Mutation, ReadModifyWriteRule, ReadRowsRequest, Row, RowFilter,
    RowSet, TableConfig,
};

/// Decodes `text` as `T`; on success checks the encode/decode/encode fixed point.
fn round_trip<T: Serialize + DeserializeOwned>(text: &str) {
    let value: T = match json::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            assert_eq!(
                e.code(),
                Code::InvalidArgument,
                "bad JSON answered {:?}: {e}",
                e.code()
            );
            return;
        }
    };
    let first = json::to_string(&value).expect("a decoded value encodes");
    let again: T = json::from_str(&first)
        .unwrap_or_else(|e| panic!("the encoder's own output {first} is refused: {e}"));
    let second = json::to_string(&again).expect("a decoded value encodes");
    assert_eq!(first, second, "the JSON form is not a fixed point");
}

fuzz_target!(|data: &[u8]| {
    let Some((&kind, bytes)) = data.split_first() else {
        return;
    };
    let Ok(text) = core::str::from_utf8(bytes) else {
        return;
    };
    match kind % 15 {
        0 => round_trip::<Mutation>(text),
        1 => round_trip::<RowFilter>(text),
        2 => round_trip::<RowSet>(text),
        3 => round_trip::<ReadRowsRequest>(text),
        4 => round_trip::<ReadModifyWriteRule>(text),
        5 => round_trip::<Row>(text),
        6 => round_trip::<GcRule>(text),
        7 => round_trip::<ColumnFamily>(text),
        8 => round_trip::<TableConfig>(text),
        9 => round_trip::<MutateRow>(text),
        10 => round_trip::<MutateRows>(text),
        11 => round_trip::<CheckAndMutateRow>(text),
        12 => round_trip::<ReadModifyWriteRow>(text),
        13 => round_trip::<ReadRows>(text),
        _ => round_trip::<sparsetable::FamilyModification>(text),
    }
});
