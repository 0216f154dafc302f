//! The LSM's internal keys: cells and deletes of a table encoded as byte strings whose
//! bytewise order is the order the engine merges and reads them in.
//!
//! Every write becomes one or more entries keyed here; memtables and sorted runs store them
//! as plain ordered byte strings (the SSTable format knows nothing of rows). The order is:
//! by row key; inside a row, the row-delete tombstones first, then per family (by name) the
//! family-delete tombstones first, then per qualifier the column-delete tombstones first, then
//! the cells newest timestamp first and, for one timestamp, newest sequence first. So a reader
//! going forward through a row meets every delete before the cells it may cover.
//!
//! Grammar (all integers big-endian):
//! ```text
//! key        = esc(row_key) row_part
//! row_part   = 0x00 seq_desc                                   ; DeleteFromRow
//!            | 0x01 esc(family) family_part
//! family_part= 0x00 seq_desc                                   ; DeleteFromFamily
//!            | 0x01 esc(qualifier) column_part
//! column_part= 0x00 seq_desc u64(start) u64(end)               ; DeleteFromColumn [start, end)
//!            | 0x01 u64(!timestamp) seq_desc                   ; a cell; value = the cell value
//! esc(b)     = b with each 0x00 written as 0x00 0xFF, then 0x00 0x01
//! seq_desc   = u64(u64::MAX - sequence)
//! ```
//! Escaping keeps prefix order: `a` < `a\0` < `ab` holds for the encoded forms. An unbounded
//! column-delete end is stored as `u64::MAX`. Timestamps are non-negative here (server time
//! is resolved before a mutation is encoded), so `!timestamp` as u64 sorts newest first.
//! This encoding reaches disk: never change it without a format version bump.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use smallvec::SmallVec;

use crate::{Code, Error, Result};

/// What an entry is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryKind {
    /// Every older cell of the row is deleted.
    DeleteRow,
    /// Every older cell of the family is deleted.
    DeleteFamily {
        /// The family.
        family: String,
    },
    /// Older cells of the column with timestamps in `[start, end)` are deleted.
    DeleteColumn {
        /// The family.
        family: String,
        /// The qualifier.
        qualifier: Vec<u8>,
        /// Inclusive start.
        start_micros: u64,
        /// Exclusive end; `u64::MAX` = unbounded.
        end_micros: u64,
    },
    /// A cell; its value is the entry's value.
    Cell {
        /// The family.
        family: String,
        /// The qualifier.
        qualifier: Vec<u8>,
        /// The cell timestamp.
        timestamp_micros: i64,
    },
}

/// A decoded internal key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InternalKey {
    /// The row.
    pub row_key: Vec<u8>,
    /// The write's sequence number: higher is newer.
    pub sequence: u64,
    /// What the entry is.
    pub kind: EntryKind,
}

/// An encoded key or key part held inline when short, as most row prefixes are: the
/// bounds and row part of a point read are built without an allocation each (on wasm32 an
/// allocation and its free cost about as much as comparing a short key).
pub(crate) type KeyBuf = SmallVec<[u8; 32]>;

/// What [`escape`] writes into: a `Vec` or a [`KeyBuf`].
trait Sink {
    fn put(&mut self, bytes: &[u8]);
}

impl Sink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

impl Sink for KeyBuf {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

fn escape(out: &mut impl Sink, bytes: &[u8]) {
    // The stretches between zero bytes are copied whole (most keys have no zero byte at all):
    // a push per byte was 6% of a point read's time on wasm32, where every key is escaped.
    let mut rest = bytes;
    while let Some(i) = rest.iter().position(|&b| b == 0) {
        out.put(&rest[..=i]);
        out.put(&[0xff]);
        rest = &rest[i + 1..];
    }
    out.put(rest);
    out.put(&[0x00, 0x01]);
}

/// The encoded prefix shared by every entry of `row_key`: seek here to read the row.
pub fn row_prefix(row_key: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(row_key.len() + 2);
    escape(&mut out, row_key);
    out
}

/// [`row_prefix`] into a [`KeyBuf`].
pub(crate) fn row_prefix_buf(row_key: &[u8]) -> KeyBuf {
    let mut out = KeyBuf::new();
    escape(&mut out, row_key);
    out
}

/// The key after every internal key of `row_key`: its row prefix with the terminator bumped
/// (`0x00 0x02`), so seeking here skips the row.
pub fn after_row(row_key: &[u8]) -> Vec<u8> {
    let mut p = row_prefix(row_key);
    bump_terminator(&mut p);
    p
}

/// [`after_row`] of the row whose [`row_prefix`] is `prefix`, without escaping its key again.
pub(crate) fn after_prefix(prefix: &[u8]) -> KeyBuf {
    let mut p = KeyBuf::from_slice(prefix);
    bump_terminator(&mut p);
    p
}

/// A row prefix's terminator `0x00 0x01` becomes `0x00 0x02`.
fn bump_terminator(prefix: &mut [u8]) {
    if let Some(last) = prefix.last_mut() {
        *last += 1;
    }
}

/// A key a read seeks to past what it skips ([`column_end`], [`cell_end`]), inline for the
/// keys of most tables: a read that keeps a column's newest cells builds one per column,
/// and allocating it cost a one-version column's point read about 70 instructions (1.4%).
pub(crate) type SeekKey = SmallVec<[u8; 64]>;

/// A key after every entry of the column of `cell_key` (an encoded cell key) and before
/// every entry of the next column: the column's part (`... esc(qualifier)`, which ends in
/// the terminator `0x00 0x01`) with the terminator bumped, as [`after_row`] does for a row.
/// Seeking here skips the rest of the column. `None` if the key is too short to be a cell.
pub(crate) fn column_end(cell_key: &[u8]) -> Option<SeekKey> {
    // A cell key ends in `0x01 u64(!timestamp) seq_desc`.
    let column = cell_key.get(..cell_key.len().checked_sub(17)?)?;
    let mut out = SeekKey::from_slice(column);
    *out.last_mut()? += 1;
    Some(out)
}

/// A key after every write of the cell of `cell_key` (same column and timestamp, any
/// sequence) and before the column's next timestamp: seeking here skips the older writes
/// of the cell. `None` if the key is too short to be a cell.
pub(crate) fn cell_end(cell_key: &[u8]) -> Option<SeekKey> {
    let cell = cell_key.get(..cell_key.len().checked_sub(8)?)?;
    let mut out = SeekKey::new();
    out.extend_from_slice(cell);
    out.extend_from_slice(&[0xff; 9]);
    Some(out)
}

/// The encoded key of a cell, from borrowed parts: `InternalKey { row_key, sequence,
/// kind: EntryKind::Cell { family, qualifier, timestamp_micros } }.encode()` without building
/// the owned key first.
pub fn encode_cell(
    row_key: &[u8],
    family: &str,
    qualifier: &[u8],
    timestamp_micros: i64,
    sequence: u64,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(row_key.len() + family.len() + qualifier.len() + 25);
    escape(&mut out, row_key);
    push_cell_after_row(&mut out, family, qualifier, timestamp_micros, sequence);
    out
}

/// Appends the part of a cell's key that follows its row part (`row_prefix`): what
/// [`encode_cell`] writes after the escaped row key. A compaction, which holds the row part
/// already, builds keys this way without escaping the row again.
pub fn push_cell_after_row(
    out: &mut Vec<u8>,
    family: &str,
    qualifier: &[u8],
    timestamp_micros: i64,
    sequence: u64,
) {
    out.push(0x01);
    escape(out, family.as_bytes());
    out.push(0x01);
    escape(out, qualifier);
    out.push(0x01);
    out.extend_from_slice(&(!(timestamp_micros as u64)).to_be_bytes());
    out.extend_from_slice(&(u64::MAX - sequence).to_be_bytes());
}

impl InternalKey {
    /// Encodes the key.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.row_key.len() + 32);
        escape(&mut out, &self.row_key);
        let seq = (u64::MAX - self.sequence).to_be_bytes();
        match &self.kind {
            EntryKind::DeleteRow => {
                out.push(0x00);
                out.extend_from_slice(&seq);
            }
            EntryKind::DeleteFamily { family } => {
                out.push(0x01);
                escape(&mut out, family.as_bytes());
                out.push(0x00);
                out.extend_from_slice(&seq);
            }
            EntryKind::DeleteColumn {
                family,
                qualifier,
                start_micros,
                end_micros,
            } => {
                out.push(0x01);
                escape(&mut out, family.as_bytes());
                out.push(0x01);
                escape(&mut out, qualifier);
                out.push(0x00);
                out.extend_from_slice(&seq);
                out.extend_from_slice(&start_micros.to_be_bytes());
                out.extend_from_slice(&end_micros.to_be_bytes());
            }
            EntryKind::Cell {
                family,
                qualifier,
                timestamp_micros,
            } => {
                out.push(0x01);
                escape(&mut out, family.as_bytes());
                out.push(0x01);
                escape(&mut out, qualifier);
                out.push(0x01);
                out.extend_from_slice(&(!(*timestamp_micros as u64)).to_be_bytes());
                out.extend_from_slice(&seq);
            }
        }
        out
    }

    /// Decodes a key.
    ///
    /// # Errors
    /// `DataLoss` if the bytes are not a well-formed internal key.
    // The reference decoder: the engine reads keys through the borrowed view below, and the
    // tests hold that view to this one.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        // The row key, then the rest exactly as the read path's borrowed view parses it (one
        // decoder for the entry part, so both fail on the same bytes with the same message).
        let mut r = Reader { bytes, pos: 0 };
        let row_key = r.unescape()?;
        let KeyRef { sequence, kind } = KeyRef::parse(bytes, r.pos)?;
        // `parse` has checked the family's UTF-8.
        let family = |f: Cow<'_, [u8]>| {
            String::from_utf8(f.into_owned()).map_err(|_| corrupt("family name is not UTF-8"))
        };
        let kind = match kind {
            KindRef::DeleteRow => EntryKind::DeleteRow,
            KindRef::DeleteFamily { family: f } => EntryKind::DeleteFamily { family: family(f)? },
            KindRef::DeleteColumn {
                family: f,
                qualifier,
                start_micros,
                end_micros,
            } => EntryKind::DeleteColumn {
                family: family(f)?,
                qualifier: qualifier.into_owned(),
                start_micros,
                end_micros,
            },
            KindRef::Cell {
                family: f,
                qualifier,
                timestamp_micros,
            } => EntryKind::Cell {
                family: family(f)?,
                qualifier: qualifier.into_owned(),
                timestamp_micros,
            },
        };
        Ok(InternalKey {
            row_key,
            sequence,
            kind,
        })
    }
}

/// The row key of an encoded internal key, without decoding the rest.
///
/// # Errors
/// `DataLoss` if the row key's escaping is malformed.
pub fn row_key_of(bytes: &[u8]) -> Result<Vec<u8>> {
    Reader { bytes, pos: 0 }.unescape()
}

/// [`row_key_of`] appended to `out` (which is left as it was on an error).
///
/// # Errors
/// `DataLoss` when the escaping is malformed.
pub fn row_key_into(bytes: &[u8], out: &mut Vec<u8>) -> Result<()> {
    let len = out.len();
    let result = Reader { bytes, pos: 0 }.unescape_into(out);
    if result.is_err() {
        out.truncate(len);
    }
    result
}

/// The length of the encoded row part (`esc(row_key)`, terminator included) at the start of
/// an internal key: `bytes[..n]` is the `row_prefix` every entry of the row shares. `None`
/// when the row's escaping is malformed.
pub fn row_prefix_len(bytes: &[u8]) -> Option<usize> {
    let mut i = 0;
    loop {
        let zero = i + bytes.get(i..)?.iter().position(|&b| b == 0)?;
        match bytes.get(zero + 1)? {
            0x01 => return Some(zero + 2),
            0xff => i = zero + 2,
            _ => return None,
        }
    }
}

/// What an entry is, borrowing its names from the encoded key (the read path's view: no
/// allocation unless a name holds an escaped zero byte).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KindRef<'a> {
    /// Every older cell of the row is deleted.
    DeleteRow,
    /// Every older cell of the family is deleted.
    DeleteFamily {
        /// The family's name bytes (UTF-8 is checked by the reader that needs a `str`).
        family: Cow<'a, [u8]>,
    },
    /// Older cells of the column with timestamps in `[start, end)` are deleted.
    DeleteColumn {
        /// The family's name bytes.
        family: Cow<'a, [u8]>,
        /// The qualifier.
        qualifier: Cow<'a, [u8]>,
        /// Inclusive start.
        start_micros: u64,
        /// Exclusive end; `u64::MAX` = unbounded.
        end_micros: u64,
    },
    /// A cell.
    Cell {
        /// The family's name bytes.
        family: Cow<'a, [u8]>,
        /// The qualifier.
        qualifier: Cow<'a, [u8]>,
        /// The cell timestamp.
        timestamp_micros: i64,
    },
}

/// An internal key decoded past its row part, borrowing from the encoded bytes: what
/// [`InternalKey::decode`] yields without the row key and without allocating.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRef<'a> {
    /// The write's sequence number.
    pub sequence: u64,
    /// What the entry is.
    pub kind: KindRef<'a>,
}

impl<'a> KeyRef<'a> {
    /// Decodes `bytes`, an encoded internal key whose row part is `bytes[..row_len]`
    /// (`row_len` from [`row_prefix_len`]; the row part is not checked again).
    ///
    /// # Errors
    /// `DataLoss` exactly where [`InternalKey::decode`] would fail after the row key.
    pub fn parse(bytes: &'a [u8], row_len: usize) -> Result<Self> {
        Self::parse_with(bytes, row_len, true)
    }

    /// [`parse`](Self::parse) without the family name's UTF-8 check, for a reader that
    /// checks each family once rather than once per entry (`row_merge`). A key this accepts
    /// and `parse` rejects differs only in that check; on any error, callers that must
    /// report exactly what `parse` reports call it for the message.
    pub(crate) fn parse_unchecked_family(bytes: &'a [u8], row_len: usize) -> Result<Self> {
        Self::parse_with(bytes, row_len, false)
    }

    fn parse_with(bytes: &'a [u8], row_len: usize, check_family: bool) -> Result<Self> {
        let mut r = Reader {
            bytes,
            pos: row_len.min(bytes.len()),
        };
        let (sequence, kind) = match r.byte()? {
            0x00 => {
                let sequence = r.seq()?;
                r.end()?;
                return Ok(KeyRef {
                    sequence,
                    kind: KindRef::DeleteRow,
                });
            }
            0x01 => {
                let family = r.unescape_borrowed()?;
                if check_family && core::str::from_utf8(&family).is_err() {
                    return Err(corrupt("family name is not UTF-8"));
                }
                match r.byte()? {
                    0x00 => (r.seq()?, KindRef::DeleteFamily { family }),
                    0x01 => {
                        let qualifier = r.unescape_borrowed()?;
                        match r.byte()? {
                            0x00 => {
                                let sequence = r.seq()?;
                                let start_micros = r.u64()?;
                                let end_micros = r.u64()?;
                                (
                                    sequence,
                                    KindRef::DeleteColumn {
                                        family,
                                        qualifier,
                                        start_micros,
                                        end_micros,
                                    },
                                )
                            }
                            0x01 => {
                                let ts = !r.u64()?;
                                let timestamp_micros = i64::try_from(ts)
                                    .map_err(|_| corrupt("negative cell timestamp"))?;
                                let sequence = r.seq()?;
                                (
                                    sequence,
                                    KindRef::Cell {
                                        family,
                                        qualifier,
                                        timestamp_micros,
                                    },
                                )
                            }
                            other => return Err(corrupt_tag(other)),
                        }
                    }
                    other => return Err(corrupt_tag(other)),
                }
            }
            other => return Err(corrupt_tag(other)),
        };
        r.end()?;
        Ok(KeyRef { sequence, kind })
    }
}

fn corrupt(what: &str) -> Error {
    Error::new(Code::DataLoss, alloc::format!("internal key: {what}"))
}

fn corrupt_tag(tag: u8) -> Error {
    Error::new(
        Code::DataLoss,
        alloc::format!("internal key: unknown section tag {tag:#04x}"),
    )
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Result<u8> {
        let b = *self
            .bytes
            .get(self.pos)
            .ok_or_else(|| corrupt("truncated"))?;
        self.pos += 1;
        Ok(b)
    }

    fn u64(&mut self) -> Result<u64> {
        let end = self
            .pos
            .checked_add(8)
            .ok_or_else(|| corrupt("truncated"))?;
        let chunk = self
            .bytes
            .get(self.pos..end)
            .ok_or_else(|| corrupt("truncated"))?;
        self.pos = end;
        let mut b = [0u8; 8];
        b.copy_from_slice(chunk);
        Ok(u64::from_be_bytes(b))
    }

    fn seq(&mut self) -> Result<u64> {
        Ok(u64::MAX - self.u64()?)
    }

    fn unescape(&mut self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.unescape_into(&mut out)?;
        Ok(out)
    }

    /// `unescape` appending to `out`.
    fn unescape_into(&mut self, out: &mut Vec<u8>) -> Result<()> {
        // Copies the runs between zero bytes whole: pushing byte by byte grew the vector a
        // byte at a time (a reallocation every few bytes of a row key, on every scanned row).
        loop {
            let rest = self
                .bytes
                .get(self.pos..)
                .ok_or_else(|| corrupt("truncated"))?;
            let zero = rest
                .iter()
                .position(|&b| b == 0)
                .ok_or_else(|| corrupt("truncated"))?;
            out.extend_from_slice(&rest[..zero]);
            self.pos += zero + 1;
            match self.byte()? {
                0xff => out.push(0),
                0x01 => return Ok(()),
                _ => return Err(corrupt("bad escape")),
            }
        }
    }

    /// `unescape` that borrows when the name holds no escaped zero byte.
    fn unescape_borrowed(&mut self) -> Result<Cow<'a, [u8]>> {
        let start = self.pos;
        let rest = self
            .bytes
            .get(start..)
            .ok_or_else(|| corrupt("truncated"))?;
        let zero = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| corrupt("truncated"))?;
        if rest.get(zero + 1) == Some(&0x01) {
            self.pos = start + zero + 2;
            return Ok(Cow::Borrowed(&rest[..zero]));
        }
        self.unescape().map(Cow::Owned)
    }

    fn end(&self) -> Result<()> {
        if self.pos == self.bytes.len() {
            Ok(())
        } else {
            Err(corrupt("trailing bytes"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec;

    fn cell(row: &[u8], fam: &str, q: &[u8], ts: i64, seq: u64) -> InternalKey {
        InternalKey {
            row_key: row.to_vec(),
            sequence: seq,
            kind: EntryKind::Cell {
                family: fam.to_string(),
                qualifier: q.to_vec(),
                timestamp_micros: ts,
            },
        }
    }

    #[test]
    fn encoded_order_is_the_read_order() {
        let keys = vec![
            InternalKey {
                row_key: b"a".to_vec(),
                sequence: 9,
                kind: EntryKind::DeleteRow,
            },
            InternalKey {
                row_key: b"a".to_vec(),
                sequence: 3,
                kind: EntryKind::DeleteRow,
            },
            InternalKey {
                row_key: b"a".to_vec(),
                sequence: 5,
                kind: EntryKind::DeleteFamily {
                    family: "cf".into(),
                },
            },
            InternalKey {
                row_key: b"a".to_vec(),
                sequence: 5,
                kind: EntryKind::DeleteColumn {
                    family: "cf".into(),
                    qualifier: vec![],
                    start_micros: 0,
                    end_micros: u64::MAX,
                },
            },
            cell(b"a", "cf", b"", 5000, 1),
            InternalKey {
                row_key: b"a".to_vec(),
                sequence: 7,
                kind: EntryKind::DeleteColumn {
                    family: "cf".into(),
                    qualifier: b"\0".to_vec(),
                    start_micros: 0,
                    end_micros: 10,
                },
            },
            cell(b"a", "cf", b"\0", 0, 1),
            cell(b"a", "cf", b"q", 9000, 2),
            cell(b"a", "cf", b"q", 9000, 1),
            cell(b"a", "cf", b"q", 1000, 8),
            cell(b"a", "cf", b"q\0", 1000, 8),
            cell(b"a", "cf", b"qa", 1000, 8),
            cell(b"a", "cf2", b"", 1000, 8),
            cell(b"a\0", "cf", b"", 1000, 8),
            cell(b"ab", "cf", b"", 1000, 8),
            cell(&[0xff], "cf", b"", 1000, 8),
        ];
        let encoded: Vec<Vec<u8>> = keys.iter().map(InternalKey::encode).collect();
        for w in encoded.windows(2) {
            assert!(w[0] < w[1], "{:?} !< {:?}", w[0], w[1]);
        }
        for (k, e) in keys.iter().zip(&encoded) {
            assert_eq!(&InternalKey::decode(e).unwrap(), k);
            if let EntryKind::Cell {
                family,
                qualifier,
                timestamp_micros,
            } = &k.kind
            {
                let direct =
                    encode_cell(&k.row_key, family, qualifier, *timestamp_micros, k.sequence);
                assert_eq!(&direct, e);
            }
            let n = row_prefix_len(e).unwrap();
            assert_eq!(&e[..n], row_prefix(&k.row_key).as_slice());
            assert_eq!(owned(KeyRef::parse(e, n).unwrap(), &k.row_key), *k);
            assert_eq!(row_key_of(e).unwrap(), k.row_key);
            assert!(e.starts_with(&row_prefix(&k.row_key)));
        }
    }

    /// The borrowed view turned back into the owned key, to compare with `decode`.
    fn owned(k: KeyRef<'_>, row: &[u8]) -> InternalKey {
        let name = |f: Cow<'_, [u8]>| String::from_utf8(f.into_owned()).unwrap();
        InternalKey {
            row_key: row.to_vec(),
            sequence: k.sequence,
            kind: match k.kind {
                KindRef::DeleteRow => EntryKind::DeleteRow,
                KindRef::DeleteFamily { family } => EntryKind::DeleteFamily {
                    family: name(family),
                },
                KindRef::DeleteColumn {
                    family,
                    qualifier,
                    start_micros,
                    end_micros,
                } => EntryKind::DeleteColumn {
                    family: name(family),
                    qualifier: qualifier.into_owned(),
                    start_micros,
                    end_micros,
                },
                KindRef::Cell {
                    family,
                    qualifier,
                    timestamp_micros,
                } => EntryKind::Cell {
                    family: name(family),
                    qualifier: qualifier.into_owned(),
                    timestamp_micros,
                },
            },
        }
    }

    #[test]
    fn borrowed_view_agrees_with_decode_on_every_mutilation() {
        let good = cell(b"r\0w", "c\0f", b"q\0", 1000, 4).encode();
        let mut inputs = alloc::vec![good.clone()];
        for cut in 0..good.len() {
            inputs.push(good[..cut].to_vec());
        }
        for i in 0..good.len() {
            for bit in 0..8 {
                let mut bad = good.clone();
                bad[i] ^= 1 << bit;
                inputs.push(bad);
            }
        }
        for bytes in inputs {
            let full = InternalKey::decode(&bytes);
            let view = row_prefix_len(&bytes)
                .ok_or(())
                .and_then(|n| KeyRef::parse(&bytes, n).map(|k| (k, n)).map_err(|_| ()));
            match (full, view) {
                (Ok(k), Ok((v, _))) => assert_eq!(owned(v, &k.row_key), k),
                (Err(_), Err(())) => {}
                (a, b) => panic!("decode {a:?} but view {b:?} for {bytes:?}"),
            }
        }
    }

    #[test]
    fn column_and_cell_ends_bound_exactly_their_entries() {
        let keys = [
            cell(b"a", "cf", b"q", 9000, 7).encode(),
            cell(b"a", "cf", b"q", 9000, 1).encode(),
            cell(b"a", "cf", b"q", 0, 1).encode(),
            cell(b"a", "cf", b"q\0", 1000, 8).encode(),
            cell(b"a", "cf", b"qa", 1000, 8).encode(),
        ];
        let col = column_end(&keys[0]).unwrap();
        assert!(keys[..3].iter().all(|k| k.as_slice() < col.as_slice()));
        assert!(keys[3..].iter().all(|k| k.as_slice() > col.as_slice()));
        let c = cell_end(&keys[0]).unwrap();
        assert!(keys[..2].iter().all(|k| k.as_slice() < c.as_slice()));
        assert!(keys[2..].iter().all(|k| k.as_slice() > c.as_slice()));
        assert_eq!(column_end(b"short"), None);
    }

    proptest::proptest! {
        /// The escaping copies stretches between zero bytes; it must equal the format's
        /// definition, byte by byte: every 0x00 followed by 0xFF, then the terminator.
        #[test]
        fn escaping_is_the_bytewise_definition(
            bytes in proptest::collection::vec(
                proptest::prop_oneof![proptest::strategy::Just(0u8), proptest::prelude::any::<u8>()],
                0..40,
            ),
        ) {
            let mut want = Vec::new();
            for &b in &bytes {
                want.push(b);
                if b == 0 {
                    want.push(0xff);
                }
            }
            want.extend_from_slice(&[0x00, 0x01]);
            let mut got = Vec::new();
            escape(&mut got, &bytes);
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn worked_example_of_the_format_doc() {
        // docs/format/internal_key.md, "Worked example".
        let expected: &[u8] = &[
            0x72, 0x00, 0x01, 0x01, 0x63, 0x66, 0x00, 0x01, 0x01, 0x71, 0x00, 0x01, 0x01, 0xff,
            0xff, 0xff, 0xff, 0xff, 0xff, 0xfc, 0x17, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            0xf8,
        ];
        assert_eq!(cell(b"r", "cf", b"q", 1000, 7).encode(), expected);
    }

    #[test]
    fn malformed_keys_are_data_loss_never_panics() {
        let good = cell(b"r\0w", "cf", b"q", 1000, 4).encode();
        for cut in 0..good.len() {
            assert_eq!(
                InternalKey::decode(&good[..cut]).unwrap_err().code(),
                Code::DataLoss
            );
        }
        for i in 0..good.len() {
            for bit in 0..8 {
                let mut bad = good.clone();
                bad[i] ^= 1 << bit;
                // Either an error or some other well-formed key; never a panic.
                let _ = InternalKey::decode(&bad);
            }
        }
        let mut trailing = good.clone();
        trailing.push(0);
        assert_eq!(
            InternalKey::decode(&trailing).unwrap_err().code(),
            Code::DataLoss
        );
    }
}
