//! `ManifestState::decode` over arbitrary bytes. Never panics; every error is `DataLoss`; a
//! successful decode re-encodes to exactly the input (the encoding is canonical).
//!
//! An even first byte frames the rest as a payload behind a valid header (magic, version,
//! length, crc32c) so the payload decoder and the invariant checks are reached; an odd one
//! passes the rest as a whole file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sparsetable::codec::encoding::CRC32C;
use sparsetable::durability::manifest::{ManifestState, FORMAT_VERSION, MAGIC};
use sparsetable::Code;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let file = if mode % 2 == 0 {
        let mut file = MAGIC.to_vec();
        file.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        file.extend_from_slice(&(rest.len() as u32).to_le_bytes());
        let mut digest = CRC32C.digest();
        digest.update(&file[8..16]);
        digest.update(rest);
        file.extend_from_slice(&digest.finalize().to_le_bytes());
        file.extend_from_slice(rest);
        file
    } else {
        rest.to_vec()
    };
    match ManifestState::decode(&file) {
        Ok(state) => assert_eq!(state.encode(), file),
        Err(e) => assert_eq!(e.code(), Code::DataLoss, "{e}"),
    }
});
