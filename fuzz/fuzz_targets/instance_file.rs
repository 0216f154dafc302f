//! The core's instance file (`sparsetable::api::instances::decode_file`) over arbitrary
//! bytes. Never panics; every error is `DataLoss`; a successful decode re-encodes to a file
//! that decodes to the same record and extension.
//!
//! An even first byte frames the rest as a body behind the version-2 magic and in front of a
//! valid CRC-32C, so the field decoders and the invariant checks are reached; an odd one
//! passes the rest as a whole file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sparsetable::api::instances::{decode_file, encode_file, INSTANCE_FILE_MAGIC};
use sparsetable::codec::encoding::CRC32C;
use sparsetable::Code;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let file = if mode % 2 == 0 {
        let mut file = INSTANCE_FILE_MAGIC.to_vec();
        file.extend_from_slice(rest);
        let crc = CRC32C.checksum(&file);
        file.extend_from_slice(&crc.to_le_bytes());
        file
    } else {
        rest.to_vec()
    };
    match decode_file(&file) {
        Err(e) => assert_eq!(e.code(), Code::DataLoss, "{e}"),
        Ok(stored) => {
            let again = decode_file(&encode_file(&stored.record, &stored.extension))
                .expect("a re-encoded record decodes");
            assert_eq!(again, stored);
        }
    }
});
