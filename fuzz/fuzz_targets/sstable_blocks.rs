//! Reaches the decoders behind the checksums: the input is cut into the contents of up to
//! four blocks (data, filter, meta, index), each framed with a valid trailer (type none, or
//! LZ4 when the first byte says so) and a valid footer as docs/format/sstable.md specifies,
//! then opened and iterated. Must never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sparsetable::lsm::sstable::{Sstable, FORMAT_VERSION, MAGIC};
use sparsetable::platform::storage::{MemStorage, Storage};

const CRC32C: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);

fn masked_crc(bytes: &[u8]) -> u32 {
    CRC32C
        .checksum(bytes)
        .rotate_right(15)
        .wrapping_add(0xa282_ead8)
}

/// Appends a block; returns (offset, size).
fn frame(file: &mut Vec<u8>, contents: &[u8], ty: u8) -> (u64, u64) {
    let offset = file.len() as u64;
    let start = file.len();
    file.extend_from_slice(contents);
    file.push(ty);
    let crc = masked_crc(&file[start..]);
    file.extend_from_slice(&crc.to_le_bytes());
    (offset, contents.len() as u64)
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    // Parts are separated by the two bytes 0xFE 0xFE; missing parts are empty.
    let mut parts: Vec<&[u8]> = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i + 1 < rest.len() && parts.len() < 3 {
        if rest[i] == 0xFE && rest[i + 1] == 0xFE {
            parts.push(&rest[start..i]);
            start = i + 2;
            i += 2;
        } else {
            i += 1;
        }
    }
    parts.push(&rest[start..]);
    parts.resize(4, &[]);
    let mut file = Vec::new();
    // Data blocks: the first part as one block (the index, part 3, may point anywhere).
    frame(&mut file, parts[0], flags & 1);
    let filter = frame(&mut file, parts[1], 0);
    let meta = frame(&mut file, parts[2], flags >> 1 & 1);
    let index = frame(&mut file, parts[3], flags >> 2 & 1);
    let mut footer = Vec::new();
    for v in [index.0, index.1, filter.0, filter.1, meta.0, meta.1] {
        footer.extend_from_slice(&v.to_le_bytes());
    }
    footer.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    let crc = masked_crc(&footer);
    footer.extend_from_slice(&crc.to_le_bytes());
    footer.extend_from_slice(&MAGIC);
    file.extend_from_slice(&footer);

    let storage = MemStorage::new();
    storage.set_bytes("t", file);
    let Ok(f) = storage.open("t") else { return };
    let Ok(t) = Sstable::open(f) else { return };
    let mut it = t.iter();
    it.seek_to_first();
    let mut n = 0;
    while it.valid() && n < 100_000 {
        it.next();
        n += 1;
    }
    it.seek_to_last();
    while it.valid() && n < 200_000 {
        it.prev();
        n += 1;
    }
    for p in parts.iter().map(|p| &p[..p.len().min(8)]) {
        it = t.iter();
        it.seek(p);
        it.prev();
        let _ = t.may_contain(p);
    }
});
