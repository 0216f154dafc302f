//! The byte encoding of engine values that reach disk: the building blocks of the commit log
//! (docs/format/commit_log.md) and the manifest (docs/format/manifest.md).
//!
//! Primitives: LEB128 varints (unsigned; signed values zigzag-mapped first), little-endian
//! fixed-width integers, and length-prefixed byte strings. On top of them, stable encodings of
//! [`Mutation`], [`TimestampRange`], [`GcRule`], [`ValueType`], [`Granularity`],
//! [`ColumnFamily`], [`TabletOptions`] and [`TableConfig`]: each enum starts with a one-byte tag. Tags reach disk:
//! never renumber them, never reuse a retired one. Tag 0 is invalid everywhere, so a zero-filled
//! region never decodes as a value.
//!
//! Invariants:
//! - every encoding is canonical: a varint has no redundant trailing `0x80`/`0x00` groups, a
//!   boolean is exactly 0 or 1, a table's families are listed in creation order with each
//!   name once ([`FamilyOrder`]: manifests before version 3 listed them in strictly ascending
//!   name order, which their readers still check). The [`Decoder`] rejects anything else, so
//!   bytes it accepts re-encode to exactly the same bytes;
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

use crate::model::gc::GcRule;
use crate::model::mutation::{Mutation, TimestampRange};
use crate::model::schema::{
    ColumnFamily, Families, Granularity, TableConfig, TabletOptions, ValueType,
};
use crate::{Code, Error, Result};

/// Deepest nesting of [`GcRule::Intersection`] / [`GcRule::Union`] the decoder accepts (the
/// one limit of `limits.rs`); it keeps a hostile input from exhausting the stack. Rules nested
/// deeper encode but do not decode, so the engine must not accept them in a schema.
pub use crate::limits::MAX_GC_RULE_DEPTH;

/// Stable one-byte tags of [`Mutation`] variants. Reach disk: never renumber.
pub mod mutation_tag {
    /// [`crate::Mutation::SetCell`].
    pub const SET_CELL: u8 = 1;
    /// [`crate::Mutation::AddToCell`].
    pub const ADD_TO_CELL: u8 = 2;
    /// [`crate::Mutation::MergeToCell`].
    pub const MERGE_TO_CELL: u8 = 3;
    /// [`crate::Mutation::DeleteFromColumn`].
    pub const DELETE_FROM_COLUMN: u8 = 4;
    /// [`crate::Mutation::DeleteFromFamily`].
    pub const DELETE_FROM_FAMILY: u8 = 5;
    /// [`crate::Mutation::DeleteFromRow`].
    pub const DELETE_FROM_ROW: u8 = 6;
}

/// Stable one-byte tags of [`GcRule`] variants. Reach disk: never renumber.
pub mod gc_rule_tag {
    /// [`crate::GcRule::Never`].
    pub const NEVER: u8 = 1;
    /// [`crate::GcRule::MaxNumVersions`].
    pub const MAX_NUM_VERSIONS: u8 = 2;
    /// [`crate::GcRule::MaxAge`].
    pub const MAX_AGE: u8 = 3;
    /// [`crate::GcRule::Intersection`].
    pub const INTERSECTION: u8 = 4;
    /// [`crate::GcRule::Union`].
    pub const UNION: u8 = 5;
}

/// Stable one-byte tags of [`ValueType`]. Reach disk: never renumber.
pub mod value_type_tag {
    /// [`crate::ValueType::Bytes`].
    pub const BYTES: u8 = 1;
    /// [`crate::ValueType::Int64Sum`].
    pub const INT64_SUM: u8 = 2;
    /// [`crate::ValueType::Int64Min`].
    pub const INT64_MIN: u8 = 3;
    /// [`crate::ValueType::Int64Max`].
    pub const INT64_MAX: u8 = 4;
}

/// Stable one-byte tags of [`Granularity`]. Reach disk: never renumber.
pub mod granularity_tag {
    /// [`crate::Granularity::Millis`].
    pub const MILLIS: u8 = 1;
    /// [`crate::Granularity::Micros`].
    pub const MICROS: u8 = 2;
}

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
        let start = self.pos;
        let bytes = self.bytes(what)?;
        match core::str::from_utf8(bytes) {
            Ok(s) => Ok(String::from(s)),
            Err(e) => {
                self.pos = start;
                Err(self.error(format_args!("{what}: invalid UTF-8 ({e})")))
            }
        }
    }

    /// Reads a one-byte tag, reporting an unknown one with the tag's offset.
    fn tag(&mut self, what: &str) -> Result<u8> {
        self.u8(what)
    }

    fn unknown_tag(&mut self, tag: u8, what: &str) -> Error {
        self.pos = self.pos.saturating_sub(1);
        self.error(format_args!("{what}: unknown tag {tag}"))
    }
}

// ---------------------------------------------------------------------------------------------
// Values.

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

impl Encode for TimestampRange {
    /// `start` (zigzag varint), then a presence byte (0 = unbounded, 1 = bounded) and, when
    /// bounded, `end` (zigzag varint).
    fn encode_to(&self, out: &mut Vec<u8>) {
        put_varint_i64(out, self.start_micros);
        match self.end_micros {
            None => put_bool(out, false),
            Some(end) => {
                put_bool(out, true);
                put_varint_i64(out, end);
            }
        }
    }
}

impl Decode for TimestampRange {
    fn decode_from(d: &mut Decoder<'_>) -> Result<Self> {
        let start_micros = d.varint_i64("time_range.start_micros")?;
        let end_micros = if d.bool("time_range.has_end")? {
            Some(d.varint_i64("time_range.end_micros")?)
        } else {
            None
        };
        Ok(TimestampRange {
            start_micros,
            end_micros,
        })
    }
}

impl Encode for Mutation {
    fn encode_to(&self, out: &mut Vec<u8>) {
        use mutation_tag::*;
        match self {
            Mutation::SetCell {
                family,
                qualifier,
                timestamp_micros,
                value,
            } => {
                put_u8(out, SET_CELL);
                put_str(out, family);
                put_bytes(out, qualifier);
                put_varint_i64(out, *timestamp_micros);
                put_bytes(out, value);
            }
            Mutation::AddToCell {
                family,
                qualifier,
                timestamp_micros,
                input,
            } => {
                put_u8(out, ADD_TO_CELL);
                put_str(out, family);
                put_bytes(out, qualifier);
                put_varint_i64(out, *timestamp_micros);
                put_varint_i64(out, *input);
            }
            Mutation::MergeToCell {
                family,
                qualifier,
                timestamp_micros,
                state,
            } => {
                put_u8(out, MERGE_TO_CELL);
                put_str(out, family);
                put_bytes(out, qualifier);
                put_varint_i64(out, *timestamp_micros);
                put_bytes(out, state);
            }
            Mutation::DeleteFromColumn {
                family,
                qualifier,
                time_range,
            } => {
                put_u8(out, DELETE_FROM_COLUMN);
                put_str(out, family);
                put_bytes(out, qualifier);
                time_range.encode_to(out);
            }
            Mutation::DeleteFromFamily { family } => {
                put_u8(out, DELETE_FROM_FAMILY);
                put_str(out, family);
            }
            Mutation::DeleteFromRow => put_u8(out, DELETE_FROM_ROW),
        }
    }
}

impl Decode for Mutation {
    fn decode_from(d: &mut Decoder<'_>) -> Result<Self> {
        use mutation_tag::*;
        Ok(match d.tag("mutation tag")? {
            SET_CELL => Mutation::SetCell {
                family: d.string("set_cell.family")?,
                qualifier: d.byte_vec("set_cell.qualifier")?,
                timestamp_micros: d.varint_i64("set_cell.timestamp_micros")?,
                value: d.byte_vec("set_cell.value")?,
            },
            ADD_TO_CELL => Mutation::AddToCell {
                family: d.string("add_to_cell.family")?,
                qualifier: d.byte_vec("add_to_cell.qualifier")?,
                timestamp_micros: d.varint_i64("add_to_cell.timestamp_micros")?,
                input: d.varint_i64("add_to_cell.input")?,
            },
            MERGE_TO_CELL => Mutation::MergeToCell {
                family: d.string("merge_to_cell.family")?,
                qualifier: d.byte_vec("merge_to_cell.qualifier")?,
                timestamp_micros: d.varint_i64("merge_to_cell.timestamp_micros")?,
                state: d.byte_vec("merge_to_cell.state")?,
            },
            DELETE_FROM_COLUMN => Mutation::DeleteFromColumn {
                family: d.string("delete_from_column.family")?,
                qualifier: d.byte_vec("delete_from_column.qualifier")?,
                time_range: TimestampRange::decode_from(d)?,
            },
            DELETE_FROM_FAMILY => Mutation::DeleteFromFamily {
                family: d.string("delete_from_family.family")?,
            },
            DELETE_FROM_ROW => Mutation::DeleteFromRow,
            tag => return Err(d.unknown_tag(tag, "mutation")),
        })
    }
}

impl Encode for GcRule {
    fn encode_to(&self, out: &mut Vec<u8>) {
        use gc_rule_tag::*;
        match self {
            GcRule::Never => put_u8(out, NEVER),
            GcRule::MaxNumVersions(n) => {
                put_u8(out, MAX_NUM_VERSIONS);
                put_varint32(out, *n);
            }
            GcRule::MaxAge { micros } => {
                put_u8(out, MAX_AGE);
                put_varint_i64(out, *micros);
            }
            GcRule::Intersection(rules) | GcRule::Union(rules) => {
                let tag = if matches!(self, GcRule::Intersection(_)) {
                    INTERSECTION
                } else {
                    UNION
                };
                put_u8(out, tag);
                put_len(out, rules.len());
                for rule in rules {
                    rule.encode_to(out);
                }
            }
        }
    }
}

fn decode_gc_rule(d: &mut Decoder<'_>, depth: usize) -> Result<GcRule> {
    use gc_rule_tag::*;
    Ok(match d.tag("gc_rule tag")? {
        NEVER => GcRule::Never,
        MAX_NUM_VERSIONS => GcRule::MaxNumVersions(d.varint32("gc_rule.max_num_versions")?),
        MAX_AGE => GcRule::MaxAge {
            micros: d.varint_i64("gc_rule.max_age_micros")?,
        },
        tag @ (INTERSECTION | UNION) => {
            if depth >= MAX_GC_RULE_DEPTH {
                return Err(d.error(format_args!(
                    "gc_rule nested deeper than {MAX_GC_RULE_DEPTH} levels"
                )));
            }
            let n = d.count(1, "gc_rule.rules count")?;
            let mut rules = Vec::with_capacity(n);
            for _ in 0..n {
                rules.push(decode_gc_rule(d, depth + 1)?);
            }
            if tag == INTERSECTION {
                GcRule::Intersection(rules)
            } else {
                GcRule::Union(rules)
            }
        }
        tag => return Err(d.unknown_tag(tag, "gc_rule")),
    })
}

impl Decode for GcRule {
    fn decode_from(d: &mut Decoder<'_>) -> Result<Self> {
        decode_gc_rule(d, 0)
    }
}

impl Encode for ValueType {
    fn encode_to(&self, out: &mut Vec<u8>) {
        use value_type_tag::*;
        put_u8(
            out,
            match self {
                ValueType::Bytes => BYTES,
                ValueType::Int64Sum => INT64_SUM,
                ValueType::Int64Min => INT64_MIN,
                ValueType::Int64Max => INT64_MAX,
            },
        );
    }
}

impl Decode for ValueType {
    fn decode_from(d: &mut Decoder<'_>) -> Result<Self> {
        use value_type_tag::*;
        Ok(match d.tag("value_type")? {
            BYTES => ValueType::Bytes,
            INT64_SUM => ValueType::Int64Sum,
            INT64_MIN => ValueType::Int64Min,
            INT64_MAX => ValueType::Int64Max,
            tag => return Err(d.unknown_tag(tag, "value_type")),
        })
    }
}

impl Encode for Granularity {
    fn encode_to(&self, out: &mut Vec<u8>) {
        use granularity_tag::*;
        put_u8(
            out,
            match self {
                Granularity::Millis => MILLIS,
                Granularity::Micros => MICROS,
            },
        );
    }
}

impl Decode for Granularity {
    fn decode_from(d: &mut Decoder<'_>) -> Result<Self> {
        use granularity_tag::*;
        Ok(match d.tag("granularity")? {
            MILLIS => Granularity::Millis,
            MICROS => Granularity::Micros,
            tag => return Err(d.unknown_tag(tag, "granularity")),
        })
    }
}

impl Encode for ColumnFamily {
    /// The GC rule, then the value type.
    fn encode_to(&self, out: &mut Vec<u8>) {
        self.gc_rule.encode_to(out);
        self.value_type.encode_to(out);
    }
}

impl Decode for ColumnFamily {
    fn decode_from(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(ColumnFamily {
            gc_rule: GcRule::decode_from(d)?,
            value_type: ValueType::decode_from(d)?,
        })
    }
}

/// How a `table_config` lists its families (docs/format/commit_log.md, "Values").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FamilyOrder {
    /// Creation order, each name once: what this code writes (manifest version 3 on).
    Creation,
    /// Strictly ascending names (manifest versions 1 and 2, written before families had an
    /// order of their own); read as the families' creation order.
    NameAscending,
}

impl Encode for TableConfig {
    /// Family count, then (name, family) pairs in creation order; granularity;
    /// deletion protection (boolean byte); split count, then each split key as bytes;
    /// `max_value_bytes` as a varint; the tablet options.
    fn encode_to(&self, out: &mut Vec<u8>) {
        put_len(out, self.families.len());
        for (name, family) in &self.families {
            put_str(out, name);
            family.encode_to(out);
        }
        self.granularity.encode_to(out);
        put_bool(out, self.deletion_protection);
        put_len(out, self.initial_splits.len());
        for key in &self.initial_splits {
            put_bytes(out, key);
        }
        put_len(out, self.max_value_bytes);
        self.tablet_options.encode_to(out);
    }
}

impl Encode for TabletOptions {
    /// Five varints: `memtable_bytes`, `max_runs`, `split_bytes`, `merge_bytes`,
    /// `split_load_ops`.
    fn encode_to(&self, out: &mut Vec<u8>) {
        put_varint64(out, self.memtable_bytes);
        put_len(out, self.max_runs);
        put_varint64(out, self.split_bytes);
        put_varint64(out, self.merge_bytes);
        put_varint64(out, self.split_load_ops);
    }
}

impl Decode for TabletOptions {
    fn decode_from(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(TabletOptions {
            memtable_bytes: d.varint64("tablet_options.memtable_bytes")?,
            max_runs: d.usize("tablet_options.max_runs")?,
            split_bytes: d.varint64("tablet_options.split_bytes")?,
            merge_bytes: d.varint64("tablet_options.merge_bytes")?,
            split_load_ops: d.varint64("tablet_options.split_load_ops")?,
        })
    }
}

impl Decode for TableConfig {
    /// A `table_config` as this code writes it: families in creation order.
    fn decode_from(d: &mut Decoder<'_>) -> Result<Self> {
        decode_table_config(d, FamilyOrder::Creation)
    }
}

/// Decodes a `table_config` whose families are listed as `order` says.
///
/// # Errors
/// `DataLoss` for a malformed value, a family named twice, or (with
/// [`FamilyOrder::NameAscending`]) names out of ascending order.
pub fn decode_table_config(d: &mut Decoder<'_>, order: FamilyOrder) -> Result<TableConfig> {
    // A family is at least a name length, a GC rule tag and a value type tag.
    let n = d.count(3, "table_config.families count")?;
    let mut families = Families::new();
    let mut previous: Option<String> = None;
    for _ in 0..n {
        let name = d.string("table_config.family name")?;
        if order == FamilyOrder::NameAscending && previous.as_ref().is_some_and(|p| *p >= name) {
            return Err(d.error(format_args!(
                "table_config: family {name:?} is not after {:?} (names must be strictly ascending)",
                previous.unwrap_or_default()
            )));
        }
        if families.contains_key(&name) {
            return Err(d.error(format_args!(
                "table_config: family {name:?} is listed twice"
            )));
        }
        let family = ColumnFamily::decode_from(d)?;
        if order == FamilyOrder::NameAscending {
            previous = Some(name.clone());
        }
        families.insert(name, family);
    }
    let granularity = Granularity::decode_from(d)?;
    let deletion_protection = d.bool("table_config.deletion_protection")?;
    let n = d.count(1, "table_config.initial_splits count")?;
    let mut initial_splits = Vec::with_capacity(n);
    for _ in 0..n {
        initial_splits.push(d.byte_vec("table_config.initial_splits key")?);
    }
    let max_value_bytes = d.usize("table_config.max_value_bytes")?;
    let tablet_options = TabletOptions::decode_from(d)?;
    Ok(TableConfig {
        families,
        granularity,
        deletion_protection,
        initial_splits,
        max_value_bytes,
        tablet_options,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use alloc::string::ToString;
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

    #[test]
    fn unknown_tags_and_trailing_bytes_are_data_loss() {
        for bad in [&[0u8][..], &[7], &[0xff]] {
            let err = Mutation::from_bytes(bad).unwrap_err();
            assert_eq!(err.code(), Code::DataLoss);
            assert!(err.message().contains("unknown tag"), "{err}");
        }
        let err = Mutation::from_bytes(&[mutation_tag::DELETE_FROM_ROW, 0]).unwrap_err();
        assert!(err.message().contains("trailing"), "{err}");
        assert_eq!(GcRule::from_bytes(&[0]).unwrap_err().code(), Code::DataLoss);
    }

    #[test]
    fn mutation_encoding_is_stable() {
        let m = Mutation::set_cell("cf", b"q".to_vec(), -1, b"v".to_vec());
        assert_eq!(m.to_bytes(), [1, 2, b'c', b'f', 1, b'q', 0x01, 1, b'v']);
        let m = Mutation::DeleteFromColumn {
            family: "f".to_string(),
            qualifier: vec![],
            time_range: TimestampRange {
                start_micros: 1000,
                end_micros: Some(2000),
            },
        };
        assert_eq!(m.to_bytes(), [4, 1, b'f', 0, 0xd0, 0x0f, 1, 0xa0, 0x1f]);
    }

    #[test]
    fn gc_rule_nesting_is_limited() {
        let mut rule = GcRule::MaxNumVersions(1);
        for _ in 0..MAX_GC_RULE_DEPTH {
            rule = GcRule::Union(vec![rule]);
        }
        assert_eq!(GcRule::from_bytes(&rule.to_bytes()).unwrap(), rule);
        let deeper = GcRule::Intersection(vec![rule]);
        let err = GcRule::from_bytes(&deeper.to_bytes()).unwrap_err();
        assert_eq!(err.code(), Code::DataLoss);
        assert!(err.message().contains("nested deeper"), "{err}");
        // A hostile input of only opening tags fails on depth, not on the stack.
        let hostile: Vec<u8> = core::iter::repeat_n([gc_rule_tag::UNION, 1], 100_000)
            .flatten()
            .collect();
        assert_eq!(
            GcRule::from_bytes(&hostile).unwrap_err().code(),
            Code::DataLoss
        );
    }

    #[test]
    fn families_keep_creation_order_and_old_manifests_ascending_names() {
        let config = TableConfig::with_families(["b", "a"]);
        let bytes = config.to_bytes();
        // [count, 1, 'b', rule, type, 1, 'a', ...]: creation order on disk.
        assert_eq!((bytes[2], bytes[6]), (b'b', b'a'));
        let decoded = TableConfig::from_bytes(&bytes).unwrap();
        assert_eq!(decoded, config);
        assert_eq!(decoded.families.keys().collect::<Vec<_>>(), ["b", "a"]);
        // The older manifests' order rule refuses the same bytes...
        let err =
            decode_table_config(&mut Decoder::new(&bytes), FamilyOrder::NameAscending).unwrap_err();
        assert_eq!(err.code(), Code::DataLoss);
        assert!(err.message().contains("strictly ascending"), "{err}");
        // ...and reads name order as the creation order.
        let sorted = TableConfig::with_families(["a", "b"]).to_bytes();
        let old =
            decode_table_config(&mut Decoder::new(&sorted), FamilyOrder::NameAscending).unwrap();
        assert_eq!(old.families.keys().collect::<Vec<_>>(), ["a", "b"]);
        // A name listed twice is damage under either rule.
        let mut twice = bytes.clone();
        twice[6] = b'b';
        for order in [FamilyOrder::Creation, FamilyOrder::NameAscending] {
            let err = decode_table_config(&mut Decoder::new(&twice), order).unwrap_err();
            assert_eq!(err.code(), Code::DataLoss);
        }
    }

    pub(crate) fn arb_mutation() -> impl Strategy<Value = Mutation> {
        let family = "[a-z_.-]{0,8}";
        let bytes = || proptest::collection::vec(any::<u8>(), 0..12);
        prop_oneof![
            (family, bytes(), any::<i64>(), bytes()).prop_map(|(f, q, t, v)| {
                Mutation::SetCell {
                    family: f,
                    qualifier: q,
                    timestamp_micros: t,
                    value: v,
                }
            }),
            (family, bytes(), any::<i64>(), any::<i64>()).prop_map(|(f, q, t, i)| {
                Mutation::AddToCell {
                    family: f,
                    qualifier: q,
                    timestamp_micros: t,
                    input: i,
                }
            }),
            (family, bytes(), any::<i64>(), bytes()).prop_map(|(f, q, t, s)| {
                Mutation::MergeToCell {
                    family: f,
                    qualifier: q,
                    timestamp_micros: t,
                    state: s,
                }
            }),
            (family, bytes(), any::<i64>(), any::<Option<i64>>()).prop_map(|(f, q, s, e)| {
                Mutation::DeleteFromColumn {
                    family: f,
                    qualifier: q,
                    time_range: TimestampRange {
                        start_micros: s,
                        end_micros: e,
                    },
                }
            }),
            family.prop_map(|f| Mutation::DeleteFromFamily { family: f }),
            Just(Mutation::DeleteFromRow),
        ]
    }

    pub(crate) fn arb_gc_rule() -> impl Strategy<Value = GcRule> {
        let leaf = prop_oneof![
            Just(GcRule::Never),
            any::<u32>().prop_map(GcRule::MaxNumVersions),
            any::<i64>().prop_map(|micros| GcRule::MaxAge { micros }),
        ];
        leaf.prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(GcRule::Intersection),
                proptest::collection::vec(inner, 0..4).prop_map(GcRule::Union),
            ]
        })
    }

    pub(crate) fn arb_table_config() -> impl Strategy<Value = TableConfig> {
        let value_type = prop_oneof![
            Just(ValueType::Bytes),
            Just(ValueType::Int64Sum),
            Just(ValueType::Int64Min),
            Just(ValueType::Int64Max),
        ];
        let family = (arb_gc_rule(), value_type).prop_map(|(gc_rule, value_type)| ColumnFamily {
            gc_rule,
            value_type,
        });
        (
            // Any creation order: repeated names keep their first place, as inserts do.
            proptest::collection::vec(("[a-z]{1,6}", family), 0..4)
                .prop_map(|v| v.into_iter().collect::<Families>()),
            any::<bool>(),
            any::<bool>(),
            proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..6), 0..4),
            any::<u32>(),
            (
                any::<u64>(),
                any::<u32>(),
                any::<u64>(),
                any::<u64>(),
                any::<u64>(),
            ),
        )
            .prop_map(
                |(families, micros, dp, splits, max, (m, r, s, g, l))| TableConfig {
                    families,
                    granularity: if micros {
                        Granularity::Micros
                    } else {
                        Granularity::Millis
                    },
                    deletion_protection: dp,
                    initial_splits: splits,
                    max_value_bytes: max as usize,
                    tablet_options: TabletOptions {
                        memtable_bytes: m,
                        max_runs: r as usize,
                        split_bytes: s,
                        merge_bytes: g,
                        split_load_ops: l,
                    },
                },
            )
    }

    /// Every strict prefix fails with DataLoss, never a panic or a value.
    fn assert_prefixes_fail<T: Decode + core::fmt::Debug>(bytes: &[u8]) {
        for cut in 0..bytes.len() {
            let err = T::from_bytes(&bytes[..cut]).unwrap_err();
            assert_eq!(err.code(), Code::DataLoss);
        }
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

        #[test]
        fn mutations_round_trip(m in arb_mutation()) {
            let bytes = m.to_bytes();
            prop_assert_eq!(Mutation::from_bytes(&bytes).unwrap(), m);
            assert_prefixes_fail::<Mutation>(&bytes);
        }

        #[test]
        fn gc_rules_round_trip(rule in arb_gc_rule()) {
            let bytes = rule.to_bytes();
            prop_assert_eq!(GcRule::from_bytes(&bytes).unwrap(), rule);
            assert_prefixes_fail::<GcRule>(&bytes);
        }

        #[test]
        fn table_configs_round_trip(config in arb_table_config()) {
            let bytes = config.to_bytes();
            prop_assert_eq!(TableConfig::from_bytes(&bytes).unwrap(), config);
            assert_prefixes_fail::<TableConfig>(&bytes);
        }

        /// Arbitrary bytes either fail with DataLoss or decode to a value that re-encodes to
        /// exactly the same bytes (the encoding is canonical).
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            match Mutation::from_bytes(&bytes) {
                Ok(m) => prop_assert_eq!(m.to_bytes(), bytes.clone()),
                Err(e) => prop_assert_eq!(e.code(), Code::DataLoss),
            }
            match TableConfig::from_bytes(&bytes) {
                Ok(c) => prop_assert_eq!(c.to_bytes(), bytes.clone()),
                Err(e) => prop_assert_eq!(e.code(), Code::DataLoss),
            }
            match GcRule::from_bytes(&bytes) {
                Ok(r) => prop_assert_eq!(r.to_bytes(), bytes),
                Err(e) => prop_assert_eq!(e.code(), Code::DataLoss),
            }
        }
    }
}
