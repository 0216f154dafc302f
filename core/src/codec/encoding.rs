//! The byte encoding of engine values that reach disk: the building blocks of the commit log
//! (docs/format/commit_log.md) and the manifest (docs/format/manifest.md).
//!
//! The primitives: LEB128 varints (unsigned; signed values zigzag-mapped first), little-endian
//! fixed-width integers, length-prefixed byte strings, the crc32c every checksum uses, and the
//! [`Encode`] / [`Decode`] traits. The model's values are encoded with them in
//! [`super::values`].
//!
//! Invariants:
//! - every encoding is canonical: a varint has no redundant trailing `0x80`/`0x00` groups, a
//!   boolean is exactly 0 or 1. The [`Decoder`] rejects anything else, so bytes it accepts
//!   re-encode to exactly the same bytes;
//! - the [`Decoder`] never panics and never allocates more than a small multiple of its input:
//!   every length and count is checked against the bytes that remain BEFORE anything is
//!   allocated. Every malformed input is an [`Error`] with [`Code::DataLoss`] naming the field
//!   and the byte offset.
//!
//! The full grammar (field order and widths) is in docs/format/commit_log.md, "Values".

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Display;

use crate::{Code, Error, Result};

/// The crc32c (CRC-32/ISCSI, Castagnoli) every on-disk checksum uses.
///
/// Every block read, block written and log record is checksummed, so this is on the hot path
/// of flushes, compactions, recovery and disk reads. With `std`, the `crc32c` crate uses the
/// CPU's CRC32 instruction where it has one (SSE 4.2 on x86-64, found at run time) and
/// tables otherwise; without `std` (no run-time feature detection) the `crc` crate's
/// slice-by-16 tables do it. Both compute the same CRC.
pub const CRC32C: Crc32c = Crc32c;

/// See [`CRC32C`].
#[derive(Debug, Clone, Copy)]
pub struct Crc32c;

impl Crc32c {
    /// The crc32c of `bytes`.
    pub fn checksum(&self, bytes: &[u8]) -> u32 {
        let mut d = self.digest();
        d.update(bytes);
        d.finalize()
    }

    /// A running checksum, fed part by part.
    pub fn digest(&self) -> Crc32cDigest {
        Crc32cDigest::default()
    }
}

/// A crc32c computed over several parts; equal to [`Crc32c::checksum`] of their concatenation.
#[derive(Clone)]
pub struct Crc32cDigest {
    #[cfg(feature = "std")]
    crc: u32,
    #[cfg(not(feature = "std"))]
    digest: crc::Digest<'static, u32, crc::Table<16>>,
}

#[cfg(not(feature = "std"))]
const SOFTWARE_CRC32C: crc::Crc<u32, crc::Table<16>> =
    crc::Crc::<u32, crc::Table<16>>::new(&crc::CRC_32_ISCSI);

// Derivable with `std` alone: the table-driven digest has no `Default`.
#[allow(clippy::derivable_impls)]
impl Default for Crc32cDigest {
    fn default() -> Self {
        Crc32cDigest {
            #[cfg(feature = "std")]
            crc: 0,
            #[cfg(not(feature = "std"))]
            digest: SOFTWARE_CRC32C.digest(),
        }
    }
}

impl Crc32cDigest {
    /// Adds `bytes` to the checksum.
    pub fn update(&mut self, bytes: &[u8]) {
        #[cfg(feature = "std")]
        {
            self.crc = crc32c::crc32c_append(self.crc, bytes);
        }
        #[cfg(not(feature = "std"))]
        self.digest.update(bytes);
    }

    /// The checksum of everything added.
    pub fn finalize(self) -> u32 {
        #[cfg(feature = "std")]
        return self.crc;
        #[cfg(not(feature = "std"))]
        return self.digest.finalize();
    }
}

/// A `DataLoss` error with the given message.
pub fn data_loss(message: impl Display) -> Error {
    Error::new(Code::DataLoss, format!("{message}"))
}

// ---------------------------------------------------------------------------------------------
// Writing primitives. Infallible: they append to a Vec.

/// Appends one byte.
pub fn put_u8(out: &mut Vec<u8>, v: u8) {
    out.push(v);
}

/// Appends a boolean as one byte, 0 or 1.
pub fn put_bool(out: &mut Vec<u8>, v: bool) {
    out.push(u8::from(v));
}

/// Appends a u32, 4 bytes little-endian.
pub fn put_fixed32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Appends a u64, 8 bytes little-endian.
pub fn put_fixed64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Appends a u32 as a LEB128 varint (1 to 5 bytes).
pub fn put_varint32(out: &mut Vec<u8>, v: u32) {
    put_varint64(out, u64::from(v));
}

/// Appends a u64 as a LEB128 varint (1 to 10 bytes): seven bits per byte, least significant
/// group first, the high bit set on every byte but the last.
pub fn put_varint64(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends an i64 zigzag-mapped (0, -1, 1, -2, ... to 0, 1, 2, 3, ...) as a varint, so small
/// negative numbers such as the server-time timestamp `-1` stay short.
pub fn put_varint_i64(out: &mut Vec<u8>, v: i64) {
    put_varint64(out, ((v << 1) ^ (v >> 63)) as u64);
}

/// Appends a length or count as a varint.
pub fn put_len(out: &mut Vec<u8>, len: usize) {
    put_varint64(out, len as u64);
}

/// Appends a byte string: its length as a varint, then the bytes.
pub fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_len(out, bytes.len());
    out.extend_from_slice(bytes);
}

/// Appends a UTF-8 string exactly as [`put_bytes`] does its bytes.
pub fn put_str(out: &mut Vec<u8>, s: &str) {
    put_bytes(out, s.as_bytes());
}

// ---------------------------------------------------------------------------------------------
// Reading.

/// Reads values from a byte slice. Every method returns `DataLoss` (naming the field and the
/// offset) instead of panicking when the input is malformed or too short; after an error the
/// decoder's position is unspecified and it should be dropped.
#[derive(Debug, Clone)]
pub struct Decoder<'a> {
    input: &'a [u8],
    pos: usize,
}

impl<'a> Decoder<'a> {
    /// A decoder at the start of `input`.
    pub fn new(input: &'a [u8]) -> Self {
        Decoder { input, pos: 0 }
    }

    /// Bytes consumed so far.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The input from offset `start` up to the current position (empty if `start` is past
    /// it): the encoding of what was decoded since then.
    pub fn consumed_since(&self, start: usize) -> &'a [u8] {
        self.input.get(start..self.pos).unwrap_or_default()
    }

    /// Bytes not yet consumed.
    pub fn remaining(&self) -> usize {
        self.input.len().saturating_sub(self.pos)
    }

    /// Whether every byte was consumed.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// A `DataLoss` error naming `what` and the current offset.
    pub fn error(&self, what: impl Display) -> Error {
        data_loss(format_args!("at byte {}: {what}", self.pos))
    }

    /// Checks that the whole input was consumed.
    ///
    /// # Errors
    /// `DataLoss` naming `what` if bytes remain (trailing garbage after a whole value).
    pub fn finish(&self, what: &str) -> Result<()> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(self.error(format_args!(
                "{} unexpected trailing bytes after {what}",
                self.remaining()
            )))
        }
    }

    /// Consumes exactly `n` bytes.
    ///
    /// # Errors
    /// `DataLoss` if fewer than `n` bytes remain.
    pub fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.error(format_args!(
                "{what}: needs {n} bytes but only {} remain",
                self.remaining()
            )));
        }
        let bytes = self.input.get(self.pos..self.pos + n).unwrap_or_default();
        self.pos += n;
        Ok(bytes)
    }

    /// Reads one byte.
    ///
    /// # Errors
    /// `DataLoss` at the end of the input.
    pub fn u8(&mut self, what: &str) -> Result<u8> {
        let b = self.take(1, what)?;
        Ok(b.first().copied().unwrap_or_default())
    }

    /// Reads a boolean byte.
    ///
    /// # Errors
    /// `DataLoss` at the end of the input or for a byte other than 0 or 1.
    pub fn bool(&mut self, what: &str) -> Result<bool> {
        match self.u8(what)? {
            0 => Ok(false),
            1 => Ok(true),
            b => {
                self.pos -= 1;
                Err(self.error(format_args!("{what}: boolean byte {b} is neither 0 nor 1")))
            }
        }
    }

    /// Reads a 4-byte little-endian u32.
    ///
    /// # Errors
    /// `DataLoss` if fewer than 4 bytes remain.
    pub fn fixed32(&mut self, what: &str) -> Result<u32> {
        let b = self.take(4, what)?;
        let mut a = [0u8; 4];
        a.copy_from_slice(b);
        Ok(u32::from_le_bytes(a))
    }

    /// Reads an 8-byte little-endian u64.
    ///
    /// # Errors
    /// `DataLoss` if fewer than 8 bytes remain.
    pub fn fixed64(&mut self, what: &str) -> Result<u64> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// Reads a canonical LEB128 varint of at most `max_bits` significant bits.
    fn varint(&mut self, max_bits: u32, what: &str) -> Result<u64> {
        // Most varints (lengths, counts, tags' neighbours) are one byte: a byte without the
        // continuation bit is always canonical and fits every width read here (>= 7 bits).
        if let Some(&byte) = self.input.get(self.pos) {
            if byte < 0x80 && max_bits >= 7 {
                self.pos += 1;
                return Ok(u64::from(byte));
            }
        }
        let start = self.pos;
        let mut value: u64 = 0;
        let mut shift: u32 = 0;
        loop {
            let Some(&byte) = self.input.get(self.pos) else {
                self.pos = start;
                return Err(self.error(format_args!("{what}: truncated varint")));
            };
            self.pos += 1;
            let group = u64::from(byte & 0x7f);
            // Bits of this group that land at or above `max_bits` overflow the type.
            if shift >= max_bits || (max_bits - shift < 7 && group >> (max_bits - shift) != 0) {
                self.pos = start;
                return Err(self.error(format_args!("{what}: varint overflows {max_bits} bits")));
            }
            value |= group << shift;
            if byte & 0x80 == 0 {
                if byte == 0 && shift > 0 {
                    self.pos = start;
                    return Err(self.error(format_args!(
                        "{what}: non-canonical varint (redundant trailing zero group)"
                    )));
                }
                return Ok(value);
            }
            shift += 7;
        }
    }

    /// Reads a varint that must fit in a u32.
    ///
    /// # Errors
    /// `DataLoss` if truncated, non-canonical, or larger than `u32::MAX`.
    pub fn varint32(&mut self, what: &str) -> Result<u32> {
        // Cannot fail: `varint` checked the value fits in 32 bits.
        self.varint(32, what).map(|v| v as u32)
    }

    /// Reads a varint that must fit in a u64.
    ///
    /// # Errors
    /// `DataLoss` if truncated, non-canonical, or longer than 64 bits.
    pub fn varint64(&mut self, what: &str) -> Result<u64> {
        self.varint(64, what)
    }

    /// Reads a varint that must fit in this platform's `usize` (a size, not a length of
    /// bytes that follow).
    ///
    /// # Errors
    /// As [`Decoder::varint64`], plus `DataLoss` if the value exceeds `usize::MAX`.
    pub fn usize(&mut self, what: &str) -> Result<usize> {
        let start = self.pos;
        let v = self.varint64(what)?;
        usize::try_from(v).map_err(|_| {
            self.pos = start;
            self.error(format_args!(
                "{what}: {v} does not fit this platform's usize"
            ))
        })
    }

    /// Reads a zigzag-mapped signed varint (see [`put_varint_i64`]).
    ///
    /// # Errors
    /// As [`Decoder::varint64`].
    pub fn varint_i64(&mut self, what: &str) -> Result<i64> {
        let v = self.varint64(what)?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// Reads a length that must not exceed the bytes that remain.
    fn len(&mut self, what: &str) -> Result<usize> {
        let start = self.pos;
        let len = self.varint64(what)?;
        match usize::try_from(len) {
            Ok(len) if len <= self.remaining() => Ok(len),
            _ => {
                self.pos = start;
                Err(self.error(format_args!(
                    "{what}: length {len} runs past the end of the input ({} bytes remain)",
                    self.remaining()
                )))
            }
        }
    }

    /// Reads a count of items each at least `min_item_bytes` long (at least 1), checking that
    /// that many items can fit in what remains: a caller may then reserve capacity for them.
    ///
    /// # Errors
    /// `DataLoss` if truncated or if the count cannot fit.
    pub fn count(&mut self, min_item_bytes: usize, what: &str) -> Result<usize> {
        let start = self.pos;
        let n = self.varint64(what)?;
        let fits = self.remaining() / min_item_bytes.max(1);
        match usize::try_from(n) {
            Ok(n) if n <= fits => Ok(n),
            _ => {
                self.pos = start;
                Err(self.error(format_args!(
                    "{what}: count {n} cannot fit in the {} bytes that remain",
                    self.remaining()
                )))
            }
        }
    }

    /// Reads a length-prefixed byte string, borrowing it.
    ///
    /// # Errors
    /// `DataLoss` if the length is malformed or runs past the input.
    pub fn bytes(&mut self, what: &str) -> Result<&'a [u8]> {
        let len = self.len(what)?;
        self.take(len, what)
    }

    /// Reads a length-prefixed byte string into a new vector.
    ///
    /// # Errors
    /// As [`Decoder::bytes`].
    pub fn byte_vec(&mut self, what: &str) -> Result<Vec<u8>> {
        self.bytes(what).map(<[u8]>::to_vec)
    }

    /// Reads a length-prefixed UTF-8 string.
    ///
    /// # Errors
    /// As [`Decoder::bytes`], plus `DataLoss` if the bytes are not UTF-8.
    pub fn string(&mut self, what: &str) -> Result<String> {
        self.str(what).map(String::from)
    }

    /// Reads a length-prefixed UTF-8 string, borrowed from the input.
    ///
    /// # Errors
    /// As [`Decoder::string`].
    pub fn str(&mut self, what: &str) -> Result<&'a str> {
        let start = self.pos;
        let bytes = self.bytes(what)?;
        match core::str::from_utf8(bytes) {
            Ok(s) => Ok(s),
            Err(e) => {
                self.pos = start;
                Err(self.error(format_args!("{what}: invalid UTF-8 ({e})")))
            }
        }
    }

    /// Reads a one-byte tag (see [`Decoder::unknown_tag`] for one it does not know).
    pub(crate) fn tag(&mut self, what: &str) -> Result<u8> {
        self.u8(what)
    }

    /// The error for a tag the caller does not know, at the tag's own offset.
    pub(crate) fn unknown_tag(&mut self, tag: u8, what: &str) -> Error {
        self.pos = self.pos.saturating_sub(1);
        self.error(format_args!("{what}: unknown tag {tag}"))
    }
}

// ---------------------------------------------------------------------------------------------
// Values: the traits the model's encodings (`codec::values`) implement.

/// A value with a stable byte encoding.
pub trait Encode {
    /// Appends the value's encoding to `out`.
    fn encode_to(&self, out: &mut Vec<u8>);

    /// The value's encoding as a new vector.
    fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode_to(&mut out);
        out
    }
}

/// A value that can be read back from its [`Encode`] encoding.
pub trait Decode: Sized {
    /// Reads one value from the decoder, leaving it after the value's last byte.
    ///
    /// # Errors
    /// `DataLoss` on malformed input.
    fn decode_from(d: &mut Decoder<'_>) -> Result<Self>;

    /// Decodes a value that must span `bytes` exactly.
    ///
    /// # Errors
    /// `DataLoss` on malformed input or trailing bytes.
    fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut d = Decoder::new(bytes);
        let v = Self::decode_from(&mut d)?;
        d.finish(core::any::type_name::<Self>())?;
        Ok(v)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use alloc::vec;
    use proptest::prelude::*;

    fn varint_bytes(v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        put_varint64(&mut out, v);
        out
    }

    #[test]
    fn crc32c_matches_the_standard_check_value_and_the_table_implementation() {
        // The catalogue's check value of CRC-32/ISCSI.
        assert_eq!(CRC32C.checksum(b"123456789"), 0xE306_9283);
        assert_eq!(CRC32C.checksum(b""), 0);
        let table = crc::Crc::<u32, crc::Table<16>>::new(&crc::CRC_32_ISCSI);
        let data: Vec<u8> = (0..4099u32).map(|i| (i * 7 + i / 13) as u8).collect();
        for cut in [0, 1, 7, 64, 1000, 4099] {
            let mut d = CRC32C.digest();
            d.update(&data[..cut]);
            d.update(&data[cut..]);
            assert_eq!(d.finalize(), table.checksum(&data), "cut at {cut}");
        }
        assert_eq!(CRC32C.checksum(&data), table.checksum(&data));
    }

    #[test]
    fn varints_have_the_leb128_layout() {
        assert_eq!(varint_bytes(0), [0x00]);
        assert_eq!(varint_bytes(127), [0x7f]);
        assert_eq!(varint_bytes(128), [0x80, 0x01]);
        assert_eq!(varint_bytes(300), [0xac, 0x02]);
        assert_eq!(varint_bytes(u64::MAX).len(), 10);
        let mut out = Vec::new();
        put_varint_i64(&mut out, -1);
        put_varint_i64(&mut out, 1);
        put_varint_i64(&mut out, i64::MIN);
        assert_eq!(out[..2], [0x01, 0x02]);
        let mut d = Decoder::new(&out);
        assert_eq!(d.varint_i64("a").unwrap(), -1);
        assert_eq!(d.varint_i64("b").unwrap(), 1);
        assert_eq!(d.varint_i64("c").unwrap(), i64::MIN);
        d.finish("all").unwrap();
    }

    #[test]
    fn varint_overflow_is_data_loss() {
        // 2^32 does not fit a u32.
        let bytes = varint_bytes(1 << 32);
        let err = Decoder::new(&bytes).varint32("x").unwrap_err();
        assert_eq!(err.code(), Code::DataLoss);
        assert!(err.message().contains("overflows"), "{err}");
        assert_eq!(
            Decoder::new(&varint_bytes(u64::from(u32::MAX)))
                .varint32("x")
                .unwrap(),
            u32::MAX
        );
        // 11 bytes, and a 10th byte carrying more than the 64th bit.
        let eleven = [0xffu8; 10]
            .iter()
            .chain(&[0x01])
            .copied()
            .collect::<Vec<_>>();
        assert_eq!(
            Decoder::new(&eleven).varint64("x").unwrap_err().code(),
            Code::DataLoss
        );
        let mut ten = vec![0xffu8; 9];
        ten.push(0x02);
        assert_eq!(
            Decoder::new(&ten).varint64("x").unwrap_err().code(),
            Code::DataLoss
        );
        ten[9] = 0x01;
        assert_eq!(Decoder::new(&ten).varint64("x").unwrap(), u64::MAX);
    }

    #[test]
    fn truncated_and_non_canonical_varints_are_data_loss() {
        for bytes in [&[][..], &[0x80], &[0xff, 0xff]] {
            let err = Decoder::new(bytes).varint64("x").unwrap_err();
            assert_eq!(err.code(), Code::DataLoss);
            assert!(err.message().contains("truncated"), "{err}");
        }
        let err = Decoder::new(&[0x80, 0x00]).varint64("x").unwrap_err();
        assert!(err.message().contains("non-canonical"), "{err}");
    }

    #[test]
    fn lengths_beyond_the_input_fail_before_allocating() {
        // A claimed length of 2^62 with three bytes behind it.
        let mut bytes = varint_bytes(1 << 62);
        bytes.extend_from_slice(b"abc");
        let err = Decoder::new(&bytes).byte_vec("value").unwrap_err();
        assert_eq!(err.code(), Code::DataLoss);
        assert!(err.message().contains("value: length"), "{err}");
        let err = Decoder::new(&bytes).count(1, "rules").unwrap_err();
        assert_eq!(err.code(), Code::DataLoss);
    }

    #[test]
    fn strings_must_be_utf8() {
        let mut bytes = Vec::new();
        put_bytes(&mut bytes, &[0x66, 0xff]);
        let err = Decoder::new(&bytes).string("family").unwrap_err();
        assert_eq!(err.code(), Code::DataLoss);
        assert!(err.message().contains("UTF-8"), "{err}");
    }

    #[test]
    fn booleans_are_zero_or_one() {
        assert!(Decoder::new(&[1]).bool("b").unwrap());
        assert_eq!(
            Decoder::new(&[2]).bool("b").unwrap_err().code(),
            Code::DataLoss
        );
    }

    proptest! {
        #[test]
        fn varints_round_trip(v in any::<u64>(), s in any::<i64>(), w in any::<u32>()) {
            let mut out = Vec::new();
            put_varint64(&mut out, v);
            put_varint_i64(&mut out, s);
            put_varint32(&mut out, w);
            let mut d = Decoder::new(&out);
            prop_assert_eq!(d.varint64("v").unwrap(), v);
            prop_assert_eq!(d.varint_i64("s").unwrap(), s);
            prop_assert_eq!(d.varint32("w").unwrap(), w);
            prop_assert!(d.is_empty());
        }

    }
}
