//! Row-key schemas ("structured row keys"): a table's description of its row keys as a
//! struct of typed fields, with the encoding that maps the fields to the key's bytes.
//!
//! Source: Bigtable's "Manage row key schemas" and "Structured row key queries" pages, and the
//! comments on `Table.row_key_schema` and `Type.Struct.Encoding` in the admin protos
//! (google/bigtable/admin/v2/table.proto, types.proto). The rules, in our words:
//!
//! - A schema has at least one field. Every field has a non-empty name, unique in the schema,
//!   that is neither `_key` nor `_timestamp` nor the name of one of the table's column
//!   families. Every field's type is a scalar type *with an encoding*: BYTES (raw), STRING
//!   (UTF-8 bytes), INT64 (8-byte big-endian, or Google's variable-length "ordered code"),
//!   or TIMESTAMP over an INT64 encoding (`Type.Timestamp.Encoding.unix_micros_int64` in
//!   types.proto: the microseconds since the Unix epoch, written as that INT64 encoding
//!   writes them; the proto asks for microsecond-aligned values, which is all a key can
//!   hold). Struct, array, map and aggregate types are refused, and so are the types whose
//!   protos carry no encoding (BOOL, FLOAT32/64, DATE).
//! - The struct's encoding joins the fields into the key:
//!   - *singleton*: exactly one field; the key is that field's encoding.
//!   - *delimited bytes*: the fields' encodings joined by a delimiter of 1 to 50 bytes.
//!   - *ordered code bytes*: the fields' encodings joined by the byte pair `00 01`, every
//!     `00` inside a field written as `00 FF`; a field that encodes to nothing is written
//!     `00 00`, except that trailing empty fields are left out (and a struct whose fields are
//!     all empty is just `00 00`).
//! - Field encodings: BYTES raw is the bytes; STRING is its UTF-8; INT64 big-endian is 8
//!   bytes two's complement (in sorted mode only non-negative values keep their order);
//!   INT64 ordered code is 1 to 10 bytes whose first bits give the length and sign, so that
//!   byte order is numeric order for every value. A TIMESTAMP is its microseconds as INT64;
//!   a key whose microseconds fall outside GoogleSQL's TIMESTAMP range (years 1 to 9999)
//!   does not conform (our rule: SQL has no such TIMESTAMP to give).
//! - A schema is set at CreateTable, or by UpdateTable on a table that has none. Removing it
//!   needs UpdateTable's `ignore_warnings` (INVALID_ARGUMENT without); changing an existing
//!   schema is refused.
//! - In SQL, a table with a schema has one column per field (with the field's type), and
//!   `_key` becomes a pseudo-column: still the raw BYTES key, but left out of `SELECT *`.
//!   A row key that does not decode by the schema makes a query that reads the fields fail
//!   (the docs: "queries that select structured row key columns fail and return an error").
//!
//! Invariants: [`RowKeySchema::decode`] never panics, whatever the bytes; it either returns
//! one value per field, each of the field's type, or `FailedPrecondition` saying why the key
//! does not conform. [`RowKeySchema::encode`] of decoded values gives the key back.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::error::quoted;
use crate::{Error, Result};

/// How an INT64 field is written in the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Int64Encoding {
    /// 8 bytes, big-endian two's complement.
    BigEndianBytes,
    /// Google's ordered code for signed numbers: 1 to 10 bytes, order-preserving.
    OrderedCodeBytes,
}

/// A key field's type with its encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyFieldType {
    /// BYTES, raw.
    Bytes,
    /// STRING, UTF-8 bytes.
    String,
    /// INT64 with its encoding.
    Int64(Int64Encoding),
    /// TIMESTAMP: microseconds since the Unix epoch, in this INT64 encoding.
    Timestamp(Int64Encoding),
}

impl KeyFieldType {
    /// The INT64 encoding of an INT64 or TIMESTAMP field.
    pub fn int64_encoding(self) -> Option<Int64Encoding> {
        match self {
            KeyFieldType::Int64(e) | KeyFieldType::Timestamp(e) => Some(e),
            KeyFieldType::Bytes | KeyFieldType::String => None,
        }
    }
}

/// GoogleSQL's TIMESTAMP range in microseconds since the epoch: 0001-01-01 00:00:00 to
/// 9999-12-31 23:59:59.999999 UTC.
pub const TIMESTAMP_MICROS: core::ops::RangeInclusive<i64> =
    -62_135_596_800_000_000..=253_402_300_799_999_999;

/// One field of a row-key schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyField {
    /// The field's name, its SQL column name.
    pub name: String,
    /// Its type and encoding.
    pub field_type: KeyFieldType,
}

/// How the fields are joined into the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StructEncoding {
    /// One field, encoded as-is.
    Singleton,
    /// Fields joined by this delimiter (1 to 50 bytes).
    DelimitedBytes(Vec<u8>),
    /// Fields joined by `00 01`, with `00` escaped as `00 FF` and empty fields as `00 00`.
    OrderedCodeBytes,
}

/// A table's row-key schema (`Table.row_key_schema`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowKeySchema {
    /// The fields, in key order.
    pub fields: Vec<KeyField>,
    /// How they are joined.
    pub encoding: StructEncoding,
}

/// One decoded key field.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum KeyValue {
    /// A BYTES field.
    Bytes(Vec<u8>),
    /// A STRING field.
    String(String),
    /// An INT64 field.
    Int64(i64),
    /// A TIMESTAMP field: microseconds since the Unix epoch.
    Timestamp(i64),
}

/// The longest delimiter Bigtable accepts.
pub const MAX_DELIMITER_BYTES: usize = 50;

fn nonconforming(what: impl core::fmt::Display) -> Error {
    Error::failed_precondition(format!(
        "row key does not conform to the table's row key schema: {what}"
    ))
}

impl RowKeySchema {
    /// Checks the schema against Bigtable's rules (see the module doc); `is_family` says
    /// whether a name is one of the table's column families (a field may not take one).
    ///
    /// # Errors
    /// `InvalidArgument` naming the rule broken.
    pub fn validate(&self, is_family: impl Fn(&str) -> bool) -> Result<()> {
        if self.fields.is_empty() {
            return Err(Error::invalid_argument(
                "row_key_schema must have at least one field",
            ));
        }
        for (i, f) in self.fields.iter().enumerate() {
            if f.name.is_empty() {
                return Err(Error::invalid_argument(format!(
                    "row_key_schema.fields[{i}]: a field must have a non-empty name"
                )));
            }
            if f.name == "_key" || f.name == "_timestamp" {
                return Err(Error::invalid_argument(format!(
                    "row_key_schema field name {} is reserved",
                    quoted(&f.name)
                )));
            }
            if is_family(&f.name) {
                return Err(Error::invalid_argument(format!(
                    "row_key_schema field name {} collides with a column family",
                    quoted(&f.name)
                )));
            }
            if self.fields[..i].iter().any(|g| g.name == f.name) {
                return Err(Error::invalid_argument(format!(
                    "row_key_schema field name {} is used twice",
                    quoted(&f.name)
                )));
            }
        }
        match &self.encoding {
            StructEncoding::Singleton if self.fields.len() != 1 => Err(Error::invalid_argument(
                "row_key_schema: the singleton encoding needs exactly one field",
            )),
            StructEncoding::DelimitedBytes(d) if d.is_empty() || d.len() > MAX_DELIMITER_BYTES => {
                Err(Error::invalid_argument(format!(
                    "row_key_schema: the delimiter must be 1 to {MAX_DELIMITER_BYTES} bytes"
                )))
            }
            _ => Ok(()),
        }
    }

    /// The index of the field named `name`.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }

    /// Decodes a row key into one value per field.
    ///
    /// # Errors
    /// `FailedPrecondition` when the key does not conform (too few or too many parts, a
    /// STRING that is not UTF-8, an INT64 of the wrong length or form).
    pub fn decode(&self, key: &[u8]) -> Result<Vec<KeyValue>> {
        let n = self.fields.len();
        let parts: Vec<Vec<u8>> = match &self.encoding {
            StructEncoding::Singleton => alloc::vec![key.to_vec()],
            StructEncoding::DelimitedBytes(d) => self.split_delimited(key, d)?,
            StructEncoding::OrderedCodeBytes => {
                let mut parts = split_ordered_code(key)?;
                if parts.len() > n {
                    return Err(nonconforming(format!(
                        "{} parts for {n} fields",
                        parts.len()
                    )));
                }
                // Trailing empty fields are left out of the encoding.
                parts.resize(n, Vec::new());
                parts
            }
        };
        if parts.len() != n {
            return Err(nonconforming(format!(
                "{} parts for {n} fields",
                parts.len()
            )));
        }
        self.fields
            .iter()
            .zip(parts)
            .map(|(f, part)| decode_field(f, part))
            .collect()
    }

    /// Splits a delimited key: a fixed-width or self-delimiting INT64 takes its own length,
    /// any other field runs to the next delimiter, and the last field takes the rest.
    fn split_delimited(&self, key: &[u8], d: &[u8]) -> Result<Vec<Vec<u8>>> {
        let mut parts = Vec::with_capacity(self.fields.len());
        let mut rest = key;
        for (i, f) in self.fields.iter().enumerate() {
            let last = i + 1 == self.fields.len();
            let len = match f.field_type.int64_encoding() {
                _ if last => rest.len(),
                Some(Int64Encoding::BigEndianBytes) => 8.min(rest.len()),
                Some(Int64Encoding::OrderedCodeBytes) => {
                    // A length past the key's end is a malformed number: the decode
                    // of the whole remainder then fails.
                    ordered_code_len(rest)
                        .filter(|&l| l <= rest.len())
                        .unwrap_or(rest.len())
                }
                None => find(rest, d).ok_or_else(|| {
                    nonconforming(format!("no delimiter after field {}", quoted(&f.name)))
                })?,
            };
            parts.push(rest[..len].to_vec());
            rest = &rest[len..];
            if !last {
                rest = rest.strip_prefix(d).ok_or_else(|| {
                    nonconforming(format!("no delimiter after field {}", quoted(&f.name)))
                })?;
            }
        }
        Ok(parts)
    }

    /// Encodes one value per field into a row key.
    ///
    /// # Errors
    /// `InvalidArgument` for a value of the wrong type or count, a value the encoding cannot
    /// hold (a delimiter inside a delimited field that is not last), or a key that would not
    /// decode back to the same values.
    pub fn encode(&self, values: &[KeyValue]) -> Result<Vec<u8>> {
        if values.len() != self.fields.len() {
            return Err(Error::invalid_argument(format!(
                "a row key of this schema has {} fields, not {}",
                self.fields.len(),
                values.len()
            )));
        }
        let key = self.encode_prefix(values)?;
        if self.decode(&key).ok().as_deref() != Some(values) {
            return Err(Error::invalid_argument(
                "these values have no row key that decodes back to them",
            ));
        }
        Ok(key)
    }

    /// The bytes every key whose first `values.len()` fields equal `values` starts with (for
    /// key-range pushdown). Equal to [`RowKeySchema::encode`] for a full set of values.
    ///
    /// # Errors
    /// `InvalidArgument` for a value of the wrong type, too many values, or a delimiter
    /// inside a delimited field.
    pub fn encode_prefix(&self, values: &[KeyValue]) -> Result<Vec<u8>> {
        if values.len() > self.fields.len() {
            return Err(Error::invalid_argument("more values than key fields"));
        }
        let full = values.len() == self.fields.len();
        let mut encoded = Vec::with_capacity(values.len());
        for (f, v) in self.fields.iter().zip(values) {
            encoded.push(encode_field(f, v)?);
        }
        let mut out = Vec::new();
        match &self.encoding {
            StructEncoding::Singleton => {
                if let Some(e) = encoded.pop() {
                    out = e;
                }
            }
            StructEncoding::DelimitedBytes(d) => {
                for (i, e) in encoded.iter().enumerate() {
                    let last_field = i + 1 == self.fields.len();
                    let var_width = matches!(
                        self.fields[i].field_type,
                        KeyFieldType::Bytes | KeyFieldType::String
                    );
                    if !last_field && var_width && find(e, d).is_some() {
                        return Err(Error::invalid_argument(format!(
                            "key field {} holds the delimiter",
                            quoted(&self.fields[i].name)
                        )));
                    }
                    out.extend_from_slice(e);
                    if !last_field {
                        out.extend_from_slice(d);
                    }
                }
            }
            StructEncoding::OrderedCodeBytes => {
                // A prefix stops at its last non-empty field: the fields after it may be
                // empty and then are left out of the key, separator included.
                let keep = encoded
                    .iter()
                    .rposition(|e| !e.is_empty())
                    .map_or(0, |i| i + 1);
                if full && keep == 0 {
                    return Ok(alloc::vec![0, 0]);
                }
                for (i, e) in encoded[..keep].iter().enumerate() {
                    if i > 0 {
                        out.extend_from_slice(&[0, 1]);
                    }
                    if e.is_empty() {
                        out.extend_from_slice(&[0, 0]);
                    }
                    escape_into(&mut out, e);
                }
            }
        }
        Ok(out)
    }

    /// The exact bytes that come before field `fixed.len()` in every key whose first fields
    /// equal `fixed` and in which that field is written out (for key-range pushdown of a
    /// range on it): the fixed fields with their delimiters or `00 01` separators, an empty
    /// ordered-code field as its `00 00` marker. Unlike [`RowKeySchema::encode_prefix`] it
    /// ends with the separator, and keeps empty fields.
    ///
    /// # Errors
    /// `InvalidArgument` for a value of the wrong type, as many values as fields (no field
    /// follows), or a delimiter inside a delimited field.
    pub fn encode_head(&self, fixed: &[KeyValue]) -> Result<Vec<u8>> {
        if fixed.len() >= self.fields.len() {
            return Err(Error::invalid_argument("no key field follows these values"));
        }
        match &self.encoding {
            // Fewer values than fields: each is followed by its delimiter.
            StructEncoding::Singleton | StructEncoding::DelimitedBytes(_) => {
                self.encode_prefix(fixed)
            }
            StructEncoding::OrderedCodeBytes => {
                let mut out = Vec::new();
                for (f, v) in self.fields.iter().zip(fixed) {
                    let e = encode_field(f, v)?;
                    if e.is_empty() {
                        out.extend_from_slice(&[0, 0]);
                    }
                    escape_into(&mut out, &e);
                    out.extend_from_slice(&[0, 1]);
                }
                Ok(out)
            }
        }
    }

    /// Field `index`'s value as its bytes appear in a key (escaped in an ordered-code
    /// struct; an empty value gives no bytes, whatever marker stands for it).
    ///
    /// # Errors
    /// `InvalidArgument` for a value of another type than the field's.
    pub fn encode_in_key(&self, index: usize, v: &KeyValue) -> Result<Vec<u8>> {
        let f = self
            .fields
            .get(index)
            .ok_or_else(|| Error::invalid_argument("no such key field"))?;
        let e = encode_field(f, v)?;
        Ok(match self.encoding {
            StructEncoding::OrderedCodeBytes => {
                let mut out = Vec::with_capacity(e.len());
                escape_into(&mut out, &e);
                out
            }
            _ => e,
        })
    }
}

/// Appends `e` with every `00` written `00 FF` (an ordered-code struct's field escaping).
fn escape_into(out: &mut Vec<u8>, e: &[u8]) {
    for &b in e {
        out.push(b);
        if b == 0 {
            out.push(0xff);
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || hay.len() < needle.len() {
        return None;
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Splits an ordered-code struct into its fields' (unescaped) encodings.
fn split_ordered_code(key: &[u8]) -> Result<Vec<Vec<u8>>> {
    if key == [0, 0] {
        return Ok(Vec::new());
    }
    let mut parts = Vec::new();
    let mut cur = Vec::new();
    let mut empty_marker = false;
    let mut i = 0;
    while i < key.len() {
        let b = key[i];
        if b != 0 {
            if empty_marker {
                return Err(nonconforming("bytes after an empty-field marker"));
            }
            cur.push(b);
            i += 1;
            continue;
        }
        match key.get(i + 1) {
            Some(0xff) if !empty_marker => cur.push(0),
            Some(0x01) => {
                if cur.is_empty() && !empty_marker {
                    return Err(nonconforming("an empty field without its 00 00 marker"));
                }
                parts.push(core::mem::take(&mut cur));
                empty_marker = false;
            }
            Some(0x00) if cur.is_empty() && !empty_marker => empty_marker = true,
            _ => return Err(nonconforming("a 00 byte that is not 00 01, 00 FF or 00 00")),
        }
        i += 2;
    }
    if cur.is_empty() && !empty_marker {
        return Err(nonconforming("an empty field without its 00 00 marker"));
    }
    if cur.is_empty() && !parts.is_empty() {
        // Trailing empty fields are left out, never written as `00 00`.
        return Err(nonconforming("a trailing empty field written out"));
    }
    parts.push(cur);
    Ok(parts)
}

fn decode_field(f: &KeyField, part: Vec<u8>) -> Result<KeyValue> {
    let name = || quoted(&f.name);
    match f.field_type {
        KeyFieldType::Bytes => Ok(KeyValue::Bytes(part)),
        KeyFieldType::String => String::from_utf8(part)
            .map(KeyValue::String)
            .map_err(|_| nonconforming(format!("field {} is not UTF-8", name()))),
        KeyFieldType::Int64(e) => decode_int(f, e, &part).map(KeyValue::Int64),
        KeyFieldType::Timestamp(e) => {
            let micros = decode_int(f, e, &part)?;
            if !TIMESTAMP_MICROS.contains(&micros) {
                return Err(nonconforming(format!(
                    "field {} is outside the TIMESTAMP range",
                    name()
                )));
            }
            Ok(KeyValue::Timestamp(micros))
        }
    }
}

/// An INT64 (or a TIMESTAMP's microseconds) in encoding `e`.
fn decode_int(f: &KeyField, e: Int64Encoding, part: &[u8]) -> Result<i64> {
    match e {
        Int64Encoding::BigEndianBytes => <[u8; 8]>::try_from(part)
            .map(i64::from_be_bytes)
            .map_err(|_| nonconforming(format!("field {} is not 8 bytes", quoted(&f.name)))),
        Int64Encoding::OrderedCodeBytes => decode_ordered_int(part).ok_or_else(|| {
            nonconforming(format!(
                "field {} is not an ordered-code INT64",
                quoted(&f.name)
            ))
        }),
    }
}

/// A TIMESTAMP field's INT64 twin, whose bytes it shares.
fn int_field(f: &KeyField, e: Int64Encoding) -> KeyField {
    KeyField {
        name: f.name.clone(),
        field_type: KeyFieldType::Int64(e),
    }
}

fn encode_field(f: &KeyField, v: &KeyValue) -> Result<Vec<u8>> {
    Ok(match (f.field_type, v) {
        (KeyFieldType::Bytes, KeyValue::Bytes(b)) => b.clone(),
        (KeyFieldType::String, KeyValue::String(s)) => s.as_bytes().to_vec(),
        (KeyFieldType::Int64(Int64Encoding::BigEndianBytes), KeyValue::Int64(i)) => {
            i.to_be_bytes().to_vec()
        }
        (KeyFieldType::Int64(Int64Encoding::OrderedCodeBytes), KeyValue::Int64(i)) => {
            encode_ordered_int(*i)
        }
        (KeyFieldType::Timestamp(e), KeyValue::Timestamp(micros)) => {
            if !TIMESTAMP_MICROS.contains(micros) {
                return Err(Error::invalid_argument(format!(
                    "key field {} is outside the TIMESTAMP range",
                    quoted(&f.name)
                )));
            }
            encode_field(&int_field(f, e), &KeyValue::Int64(*micros))?
        }
        _ => {
            return Err(Error::invalid_argument(format!(
                "key field {} has a value of another type",
                quoted(&f.name)
            )))
        }
    })
}

/// Header bits of an ordered-code signed number of each length (1 to 10 bytes): `len` one
/// bits then the value's sign bit; negative numbers have them inverted.
const HEADER: [[u8; 2]; 11] = [
    [0, 0],
    [0x80, 0],
    [0xc0, 0],
    [0xe0, 0],
    [0xf0, 0],
    [0xf8, 0],
    [0xfc, 0],
    [0xfe, 0],
    [0xff, 0],
    [0xff, 0x80],
    [0xff, 0xc0],
];

/// Encodes `v` in ordered code: the shortest length `len` (1 to 10) whose `7 * len - 1`
/// value bits hold `v` (or `!v` when negative), the value sign-extended to `len` bytes, the
/// header XORed into its first bits. Byte order of the results is numeric order.
pub fn encode_ordered_int(v: i64) -> Vec<u8> {
    let x = if v < 0 { !v as u64 } else { v as u64 };
    let bits = 64 - x.leading_zeros() as usize;
    let len = (bits + 1).div_ceil(7).max(1);
    let sign = if v < 0 { 0xff } else { 0 };
    let mut buf = [sign; 10];
    buf[2..].copy_from_slice(&v.to_be_bytes());
    buf[10 - len] ^= HEADER[len][0];
    if len > 1 {
        buf[11 - len] ^= HEADER[len][1];
    }
    buf[10 - len..].to_vec()
}

/// The length an ordered-code number starting `bytes` claims, if it has one (1 to 10).
fn ordered_code_len(bytes: &[u8]) -> Option<usize> {
    let first = *bytes.first()?;
    let invert = if first & 0x80 == 0 { 0xff } else { 0 };
    let b0 = first ^ invert;
    let mut len = b0.leading_ones() as usize;
    if len == 8 {
        let b1 = bytes.get(1)? ^ invert;
        len += b1.leading_ones() as usize;
    }
    (1..=10).contains(&len).then_some(len)
}

/// Decodes exactly one ordered-code number filling `bytes`; `None` if it is malformed or not
/// in its shortest form (so every value has one encoding).
pub fn decode_ordered_int(bytes: &[u8]) -> Option<i64> {
    let len = ordered_code_len(bytes)?;
    if bytes.len() != len {
        return None;
    }
    let mut buf = [0u8; 10];
    buf[..len].copy_from_slice(bytes);
    buf[0] ^= HEADER[len][0];
    if len > 1 {
        buf[1] ^= HEADER[len][1];
    }
    // Sign-extend from the value's sign bit, the bit right after the header.
    let negative = bytes[0] & 0x80 == 0;
    let mut full = [if negative { 0xff } else { 0 }; 16];
    full[16 - len..].copy_from_slice(&buf[..len]);
    let high = &full[..8];
    let v = i64::from_be_bytes(full[8..].try_into().ok()?);
    if high.iter().any(|&b| b != if negative { 0xff } else { 0 }) || (v < 0) != negative {
        return None;
    }
    (encode_ordered_int(v) == bytes).then_some(v)
}

#[cfg(test)]
#[path = "row_key_schema_tests.rs"]
mod tests;
