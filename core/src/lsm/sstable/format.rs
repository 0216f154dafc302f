//! The small fixed encodings of the SSTable format: varints, block handles, the block trailer
//! (compression type + masked crc32c) and the 64-byte footer.
//!
//! Everything here reaches disk (docs/format/sstable.md): never renumber a constant, never
//! change a layout without a new format version. Decoders return `None` or `DataLoss` on
//! malformed bytes and never panic.

use alloc::format;
use alloc::vec::Vec;

use crate::{Code, Error, Result};

/// Length of the footer at the end of every table, in bytes.
pub const FOOTER_LEN: usize = 64;
/// The 8 bytes that end every table: `89 53 50 54 53 53 54 0A` (`\x89SPTSST\n`).
pub const MAGIC: [u8; 8] = [0x89, b'S', b'P', b'T', b'S', b'S', b'T', b'\n'];
/// The format version this code writes and the only one it reads.
pub const FORMAT_VERSION: u32 = 1;

/// Bytes after every block's payload: 1-byte compression type + 4-byte masked crc32c.
pub(crate) const BLOCK_TRAILER_LEN: usize = 5;
/// Compression type byte: payload is the block contents as they are. Never renumber.
pub(crate) const TYPE_NONE: u8 = 0;
/// Compression type byte: payload is a u32 LE uncompressed length, then one LZ4 block.
/// Never renumber.
pub(crate) const TYPE_LZ4: u8 = 1;

use crate::codec::encoding::CRC32C;
const MASK_DELTA: u32 = 0xa282_ead8;

/// LevelDB's checksum mask: stored crcs are rotated and offset so that a crc computed over
/// bytes that themselves contain crcs does not degenerate.
pub(crate) fn mask_crc(crc: u32) -> u32 {
    crc.rotate_right(15).wrapping_add(MASK_DELTA)
}

/// The masked crc32c of the concatenation of `parts`.
pub(crate) fn masked_crc(parts: &[&[u8]]) -> u32 {
    let mut digest = CRC32C.digest();
    for part in parts {
        digest.update(part);
    }
    mask_crc(digest.finalize())
}

/// The error every decoder of this format returns: `DataLoss` naming what is wrong.
pub(crate) fn corruption(what: impl core::fmt::Display) -> Error {
    Error::new(Code::DataLoss, format!("sstable: {what}"))
}

/// Appends `v` as a LEB128 varint (7 bits a byte, low first, high bit = more).
pub(crate) fn put_varint(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push((v as u8) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

/// Decodes a varint of at most `max_bytes` bytes whose value fits in `bits` bits from
/// `data[*pos..]`, advancing `pos`. `None` if truncated or too large.
fn get_varint(data: &[u8], pos: &mut usize, bits: u32) -> Option<u64> {
    let mut result: u64 = 0;
    let mut shift = 0u32;
    loop {
        let byte = *data.get(*pos)?;
        *pos += 1;
        let low = u64::from(byte & 0x7f);
        if shift >= bits || (bits - shift < 7 && low >> (bits - shift) != 0) {
            return None;
        }
        result |= low << shift;
        if byte & 0x80 == 0 {
            return Some(result);
        }
        shift += 7;
    }
}

/// Decodes a varint that must fit in 32 bits.
pub(crate) fn get_varint32(data: &[u8], pos: &mut usize) -> Option<u32> {
    get_varint(data, pos, 32).map(|v| v as u32)
}

/// Decodes a varint that must fit in 64 bits.
pub(crate) fn get_varint64(data: &[u8], pos: &mut usize) -> Option<u64> {
    get_varint(data, pos, 64)
}

pub(crate) fn get_u32_le(data: &[u8], pos: usize) -> Option<u32> {
    let bytes = data.get(pos..pos.checked_add(4)?)?;
    Some(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

fn get_u64_le(data: &[u8], pos: usize) -> Option<u64> {
    let bytes = data.get(pos..pos.checked_add(8)?)?;
    let mut b = [0u8; 8];
    b.copy_from_slice(bytes);
    Some(u64::from_le_bytes(b))
}

/// Where a block's payload lives in the file: its offset and its payload length (the 5-byte
/// trailer follows and is not counted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct BlockHandle {
    pub offset: u64,
    pub size: u64,
}

impl BlockHandle {
    /// Offset just past this block's trailer.
    pub fn end(&self) -> Option<u64> {
        self.offset
            .checked_add(self.size)?
            .checked_add(BLOCK_TRAILER_LEN as u64)
    }

    /// Index-block value: varint offset, varint size.
    pub fn encode_varint(&self, buf: &mut Vec<u8>) {
        put_varint(buf, self.offset);
        put_varint(buf, self.size);
    }

    /// Decodes an index-block value, which must hold exactly one handle.
    pub fn decode_varint(data: &[u8]) -> Result<BlockHandle> {
        let mut pos = 0;
        let offset = get_varint64(data, &mut pos);
        let size = get_varint64(data, &mut pos);
        match (offset, size) {
            (Some(offset), Some(size)) if pos == data.len() => Ok(BlockHandle { offset, size }),
            _ => Err(corruption("malformed block handle in index block")),
        }
    }
}

/// The fixed-size end of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Footer {
    pub index: BlockHandle,
    pub filter: BlockHandle,
    pub meta: BlockHandle,
    pub format_version: u32,
}

impl Footer {
    pub fn encode(&self) -> [u8; FOOTER_LEN] {
        let mut out = [0u8; FOOTER_LEN];
        let fields = [
            self.index.offset,
            self.index.size,
            self.filter.offset,
            self.filter.size,
            self.meta.offset,
            self.meta.size,
        ];
        for (i, field) in fields.iter().enumerate() {
            out[i * 8..i * 8 + 8].copy_from_slice(&field.to_le_bytes());
        }
        out[48..52].copy_from_slice(&self.format_version.to_le_bytes());
        let crc = masked_crc(&[&out[..52]]);
        out[52..56].copy_from_slice(&crc.to_le_bytes());
        out[56..64].copy_from_slice(&MAGIC);
        out
    }

    /// Decodes and checks a footer: magic, then checksum, then version.
    ///
    /// # Errors
    /// `DataLoss` on a wrong length, magic or checksum; `Unimplemented` for a well-formed
    /// footer of a format version this reader does not know.
    pub fn decode(bytes: &[u8]) -> Result<Footer> {
        if bytes.len() != FOOTER_LEN {
            return Err(corruption(format!(
                "footer is {} bytes, expected {FOOTER_LEN}",
                bytes.len()
            )));
        }
        if bytes.get(56..64) != Some(&MAGIC[..]) {
            return Err(corruption("bad magic number: not an sstable"));
        }
        let stored = get_u32_le(bytes, 52);
        if stored != Some(masked_crc(&[&bytes[..52]])) {
            return Err(corruption("footer checksum mismatch"));
        }
        let field = |i: usize| get_u64_le(bytes, i * 8).unwrap_or(0);
        let format_version = get_u32_le(bytes, 48).unwrap_or(0);
        if format_version != FORMAT_VERSION {
            return Err(Error::new(
                Code::Unimplemented,
                format!(
                    "sstable: format version {format_version} is not supported \
                     (this reader knows version {FORMAT_VERSION})"
                ),
            ));
        }
        Ok(Footer {
            index: BlockHandle {
                offset: field(0),
                size: field(1),
            },
            filter: BlockHandle {
                offset: field(2),
                size: field(3),
            },
            meta: BlockHandle {
                offset: field(4),
                size: field(5),
            },
            format_version,
        })
    }
}

/// Frames block contents for disk: returns the payload and its compression type.
/// LZ4 is used only if asked and if it makes the payload strictly shorter.
pub(crate) fn compress_block(raw: &[u8], lz4: bool) -> (Vec<u8>, u8) {
    if lz4 {
        if let Ok(len) = u32::try_from(raw.len()) {
            let mut payload =
                alloc::vec![0u8; 4 + lz4_flex::block::get_maximum_output_size(raw.len())];
            payload[..4].copy_from_slice(&len.to_le_bytes());
            if let Ok(n) = lz4_flex::block::compress_into(raw, &mut payload[4..]) {
                if n.saturating_add(4) < raw.len() {
                    payload.truncate(n + 4);
                    return (payload, TYPE_LZ4);
                }
            }
        }
    }
    (raw.to_vec(), TYPE_NONE)
}

/// Checks a block read from disk (payload followed by its trailer) and returns its contents.
///
/// # Errors
/// `DataLoss` on a checksum mismatch, an unknown compression type or a bad LZ4 payload.
pub(crate) fn unframe_block(mut framed: Vec<u8>, handle: BlockHandle) -> Result<Vec<u8>> {
    let payload_len = framed
        .len()
        .checked_sub(BLOCK_TRAILER_LEN)
        .ok_or_else(|| corruption("block shorter than its trailer"))?;
    let ty = framed[payload_len];
    let stored = get_u32_le(&framed, payload_len + 1);
    if stored != Some(masked_crc(&[&framed[..payload_len + 1]])) {
        return Err(corruption(format!(
            "checksum mismatch in block at offset {} (size {})",
            handle.offset, handle.size
        )));
    }
    framed.truncate(payload_len);
    match ty {
        TYPE_NONE => Ok(framed),
        TYPE_LZ4 => {
            let declared = get_u32_le(&framed, 0)
                .ok_or_else(|| corruption("lz4 block shorter than its length prefix"))?;
            let declared = usize::try_from(declared)
                .map_err(|_| corruption("lz4 block too large for this platform"))?;
            let input = &framed[4..];
            // LZ4 cannot expand input more than 255-fold, so a larger declared size is
            // corrupt; checking first bounds the allocation by what was read.
            if declared > input.len().saturating_mul(255).saturating_add(16) {
                return Err(corruption(
                    "lz4 block declares an impossible uncompressed size",
                ));
            }
            let mut out = alloc::vec![0u8; declared];
            match lz4_flex::block::decompress_into(input, &mut out) {
                Ok(n) if n == declared => Ok(out),
                Ok(_) => Err(corruption("lz4 block decompressed to the wrong size")),
                Err(_) => Err(corruption("malformed lz4 block")),
            }
        }
        other => Err(corruption(format!(
            "unknown block compression type {other}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_reject_overflow() {
        for v in [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            let mut buf = Vec::new();
            put_varint(&mut buf, v);
            let mut pos = 0;
            assert_eq!(get_varint64(&buf, &mut pos), Some(v));
            assert_eq!(pos, buf.len());
            let mut pos = 0;
            let as32 = get_varint32(&buf, &mut pos);
            assert_eq!(as32, u32::try_from(v).ok());
        }
        // Eleven continuation bytes, and a 10th byte carrying more than one bit.
        assert_eq!(get_varint64(&[0xff; 11], &mut 0), None);
        let mut too_big = [0xffu8; 10];
        too_big[9] = 0x02;
        assert_eq!(get_varint64(&too_big, &mut 0), None);
        assert_eq!(get_varint32(&[0xff, 0xff, 0xff, 0xff, 0x10], &mut 0), None);
        assert_eq!(get_varint32(&[0x80], &mut 0), None);
    }

    #[test]
    fn footer_round_trips_and_checks_itself() {
        let footer = Footer {
            index: BlockHandle { offset: 7, size: 9 },
            filter: BlockHandle { offset: 1, size: 2 },
            meta: BlockHandle { offset: 3, size: 4 },
            format_version: FORMAT_VERSION,
        };
        let bytes = footer.encode();
        assert_eq!(Footer::decode(&bytes).unwrap(), footer);
        for i in 0..FOOTER_LEN {
            let mut bad = bytes;
            bad[i] ^= 0x40;
            assert_eq!(Footer::decode(&bad).unwrap_err().code(), Code::DataLoss);
        }
    }

    #[test]
    fn lz4_blocks_round_trip_and_incompressible_ones_stay_plain() {
        let raw: Vec<u8> = b"abcabcabcabcabcabcabcabcabcabcabcabc".to_vec();
        let (payload, ty) = compress_block(&raw, true);
        assert_eq!(ty, TYPE_LZ4);
        let crc = masked_crc(&[&payload, &[ty]]);
        let mut framed = payload.clone();
        framed.push(ty);
        framed.extend_from_slice(&crc.to_le_bytes());
        assert_eq!(unframe_block(framed, BlockHandle::default()).unwrap(), raw);
        let (payload, ty) = compress_block(b"xy", true);
        assert_eq!((payload.as_slice(), ty), (&b"xy"[..], TYPE_NONE));
    }
}
