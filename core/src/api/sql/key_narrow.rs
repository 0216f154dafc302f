//! Key-range pushdown for structured row keys: what WHERE's conjuncts on the key's fields
//! say about the row keys a query can match, as the row ranges its read is narrowed to.
//!
//! `field = constant` on a leading run of fields fixes the key's first bytes; `<`, `<=`, `>`,
//! `>=` and `BETWEEN` on the field after that run (the first field when no run) bound where
//! the key can lie after them. Constants are literals and parameters; a NULL bound matches
//! no row (the comparison is never TRUE), so nothing is read.
//!
//! Invariant: the ranges always hold every key whose row could satisfy the conjuncts (they
//! may hold more). WHERE is still evaluated on every row read, so narrowing never changes an
//! answer, only how many rows are read. What keeps that true for each encoding:
//!
//! - The field's own bytes. BYTES and STRING (UTF-8, compared by code point, which is byte
//!   order) and INT64 in ordered code sort as their values do. INT64 big-endian is two's
//!   complement: the bytes keep the order among non-negative values and among negative
//!   values, but every negative value sorts after every non-negative one; so a value range
//!   that crosses zero becomes two key ranges, `[0, hi]` then `[lo, -1]`. A TIMESTAMP is
//!   its microseconds in one of those INT64 encodings, so it narrows as they do (a bound
//!   with nanoseconds below the microsecond does not narrow: see `key_fields::key_value`).
//! - What follows the field. In a *singleton* key, or as the *last field of a delimited* key,
//!   the key ends with the field: its range is exact. INT64 fields are fixed-width or
//!   self-delimiting, so "starts with the bytes of a value in `[lo, hi]`" is exact too. A
//!   BYTES or STRING field that is *not last in a delimited key* is followed by the
//!   delimiter, and a value that is a prefix of the upper bound sorts by the delimiter's
//!   bytes, which may be greater than the bound's next byte ("a#" against "ab" with `#`, or
//!   "a~" with `~`): the range's end is then the largest of the ends of the bound and of
//!   each of its prefixes followed by the delimiter. A lower bound needs no such care: a
//!   value not below it starts with it or is greater at their first difference.
//! - *Ordered-code* structs escape `00` as `00 FF` and separate fields by `00 01`, which
//!   keeps a field's order whatever follows it (the separator sorts below any escaped byte
//!   that can follow), except for the empty value: it is written `00 00`, or left out of
//!   the key with the separator before it when every field after it is empty too. So a range
//!   that can hold the empty value starts at the fixed fields' prefix instead.
//!
//! Nothing narrows on an OR, a NOT, a comparison with a non-constant, or a constant of
//! another type than the field's (a FLOAT64 against an INT64 field): those rows are read
//! and WHERE decides.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use core::ops::Bound;

use super::key_fields::{equalities, key_value};
use super::parse::{BinOp, Expr, ExprKind};
use super::value::SqlValue;
use crate::model::row_key_schema::StructEncoding;
use crate::model::row_key_schema::{
    Int64Encoding, KeyFieldType, KeyValue, RowKeySchema, TIMESTAMP_MICROS,
};
use crate::model::row_set::RowRange;

/// A bound on one field's value: the value and whether it is included.
type ValueBound = Option<(KeyValue, bool)>;

/// What the conjuncts say about one field.
#[derive(Default)]
struct Bounds {
    lo: ValueBound,
    hi: ValueBound,
    /// A bound is NULL: no row matches.
    none: bool,
}

impl Bounds {
    fn lower(&mut self, v: KeyValue, inclusive: bool) {
        let tighter = match &self.lo {
            None => true,
            Some((c, ci)) => v > *c || (v == *c && *ci && !inclusive),
        };
        if tighter {
            self.lo = Some((v, inclusive));
        }
    }

    fn upper(&mut self, v: KeyValue, inclusive: bool) {
        let tighter = match &self.hi {
            None => true,
            Some((c, ci)) => v < *c || (v == *c && *ci && !inclusive),
        };
        if tighter {
            self.hi = Some((v, inclusive));
        }
    }
}

/// Collects the range conjuncts of `e` (an AND tree) on field `index`.
fn collect(
    e: &Expr,
    schema: &RowKeySchema,
    index: usize,
    constant: &dyn Fn(&Expr) -> Option<SqlValue>,
    out: &mut Bounds,
) {
    let name = &schema.fields[index].name;
    let ty = schema.fields[index].field_type;
    let is_field = |e: &Expr| matches!(&e.kind, ExprKind::Ident(n) if n == name);
    // `Some(None)`: a NULL constant; `None`: not a constant of the field's type.
    let value = |e: &Expr| match constant(e)? {
        SqlValue::Null => Some(None),
        v => key_value(ty, v).map(Some),
    };
    match &e.kind {
        ExprKind::Bin(BinOp::And, l, r) => {
            collect(l, schema, index, constant, out);
            collect(r, schema, index, constant, out);
        }
        ExprKind::Bin(op, l, r) => {
            let (op, other) = if is_field(l) {
                (*op, r)
            } else if is_field(r) {
                match op.mirrored() {
                    Some(op) => (op, l),
                    None => return,
                }
            } else {
                return;
            };
            if !matches!(op, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge) {
                return;
            }
            match value(other) {
                None => {}
                Some(None) => out.none = true,
                Some(Some(v)) => match op {
                    BinOp::Lt => out.upper(v, false),
                    BinOp::Le => out.upper(v, true),
                    BinOp::Gt => out.lower(v, false),
                    _ => out.lower(v, true),
                },
            }
        }
        ExprKind::Between(x, lo, hi, false) if is_field(x) => {
            // Each side bounds on its own: `f BETWEEN NULL AND 5` is never TRUE either.
            match value(lo) {
                Some(None) => out.none = true,
                Some(Some(v)) => out.lower(v, true),
                None => {}
            }
            match value(hi) {
                Some(None) => out.none = true,
                Some(Some(v)) => out.upper(v, true),
                None => {}
            }
        }
        _ => {}
    }
}

/// The key ranges WHERE's conjuncts on the key's fields narrow a read to, or `None` when
/// they do not narrow it. An empty list: no row can match.
pub fn narrow(
    e: &Expr,
    schema: &RowKeySchema,
    constant: &dyn Fn(&Expr) -> Option<SqlValue>,
) -> Option<Vec<RowRange>> {
    let mut fixed = BTreeMap::new();
    equalities(e, schema, constant, &mut fixed);
    let values: Vec<KeyValue> = (0..schema.fields.len())
        .map_while(|i| fixed.remove(&i))
        .collect();
    let n = schema.fields.len();
    let base = if values.is_empty() {
        None
    } else {
        let p = schema.encode_prefix(&values).ok()?;
        // Every field fixed: exactly one key can match.
        Some(if values.len() == n {
            RowRange {
                start: Bound::Included(p.clone()),
                end: Bound::Included(p),
            }
        } else {
            RowRange::prefix(p)
        })
    };
    if values.len() == n {
        return base.map(|r| alloc::vec![r]);
    }
    let mut bounds = Bounds::default();
    collect(e, schema, values.len(), constant, &mut bounds);
    if bounds.none {
        return Some(Vec::new());
    }
    let Some(ranges) = field_ranges(schema, &values, &bounds) else {
        return base.map(|r| alloc::vec![r]);
    };
    Some(match base {
        Some(b) => ranges.iter().filter_map(|r| r.intersect(&b)).collect(),
        None => ranges.into_iter().filter(|r| !r.is_empty()).collect(),
    })
}

/// The end of the range of keys starting with `prefix`.
fn prefix_end(prefix: &[u8]) -> Bound<Vec<u8>> {
    RowRange::prefix(prefix).end
}

/// The later of two exclusive ends (`Unbounded` is the latest).
fn later(a: Bound<Vec<u8>>, b: Bound<Vec<u8>>) -> Bound<Vec<u8>> {
    match (a, b) {
        (Bound::Excluded(x), Bound::Excluded(y)) => Bound::Excluded(x.max(y)),
        _ => Bound::Unbounded,
    }
}

/// The key ranges of the rows whose field after `fixed` lies within `b`, among those whose
/// first fields are `fixed`; `None` when `b` bounds nothing.
fn field_ranges(schema: &RowKeySchema, fixed: &[KeyValue], b: &Bounds) -> Option<Vec<RowRange>> {
    if b.lo.is_none() && b.hi.is_none() {
        return None;
    }
    let k = fixed.len();
    let head = schema.encode_head(fixed).ok()?;
    let at = |v: &KeyValue| -> Option<Vec<u8>> {
        let mut key = head.clone();
        key.extend(schema.encode_in_key(k, v).ok()?);
        Some(key)
    };
    match schema.fields[k].field_type {
        KeyFieldType::Int64(encoding) | KeyFieldType::Timestamp(encoding) => {
            // A TIMESTAMP is its microseconds, written as an INT64.
            let int = |v: &KeyValue| match v {
                KeyValue::Int64(i) | KeyValue::Timestamp(i) => Some(*i),
                _ => None,
            };
            let typed = |i: i64| match schema.fields[k].field_type {
                KeyFieldType::Timestamp(_) => KeyValue::Timestamp(i),
                _ => KeyValue::Int64(i),
            };
            // Integers: an excluded bound is the included one next to it.
            let lo = match &b.lo {
                None => i64::MIN,
                Some((v, true)) => int(v)?,
                Some((v, false)) => match int(v)?.checked_add(1) {
                    Some(x) => x,
                    None => return Some(Vec::new()),
                },
            };
            let hi = match &b.hi {
                None => i64::MAX,
                Some((v, true)) => int(v)?,
                Some((v, false)) => match int(v)?.checked_sub(1) {
                    Some(x) => x,
                    None => return Some(Vec::new()),
                },
            };
            // A TIMESTAMP key holds only GoogleSQL's TIMESTAMP range (and encodes nothing
            // outside it).
            let (lo, hi) = match schema.fields[k].field_type {
                KeyFieldType::Timestamp(_) => (
                    lo.max(*TIMESTAMP_MICROS.start()),
                    hi.min(*TIMESTAMP_MICROS.end()),
                ),
                _ => (lo, hi),
            };
            if lo > hi {
                return Some(Vec::new());
            }
            let segments = match encoding {
                Int64Encoding::BigEndianBytes if lo < 0 && hi >= 0 => {
                    alloc::vec![(0, hi), (lo, -1)]
                }
                _ => alloc::vec![(lo, hi)],
            };
            segments
                .into_iter()
                .map(|(lo, hi)| {
                    Some(RowRange {
                        start: Bound::Included(at(&typed(lo))?),
                        end: prefix_end(&at(&typed(hi))?),
                    })
                })
                .collect()
        }
        KeyFieldType::Bytes | KeyFieldType::String => {
            let last = k + 1 == schema.fields.len();
            // The key ends with the field: its bytes compare as the values do.
            let exact = match &schema.encoding {
                StructEncoding::Singleton => true,
                StructEncoding::DelimitedBytes(_) => last,
                StructEncoding::OrderedCodeBytes => false,
            };
            let ordered_code = schema.encoding == StructEncoding::OrderedCodeBytes;
            let start = match &b.lo {
                None => Bound::Unbounded,
                Some((v, inclusive)) => {
                    let bytes = at(v)?;
                    if exact && !inclusive {
                        Bound::Excluded(bytes)
                    } else if ordered_code && *inclusive && bytes.len() == head.len() {
                        // The empty value may be left out of the key, separator and all.
                        Bound::Unbounded
                    } else {
                        Bound::Included(bytes)
                    }
                }
            };
            let end = match &b.hi {
                None => Bound::Unbounded,
                Some((v, inclusive)) => {
                    let bytes = at(v)?;
                    match &schema.encoding {
                        _ if exact && *inclusive => Bound::Included(bytes),
                        _ if exact => Bound::Excluded(bytes),
                        StructEncoding::DelimitedBytes(d) => {
                            // A value that is a prefix of the bound is followed by the
                            // delimiter, which may sort after the bound's next byte.
                            let mut end = prefix_end(&bytes);
                            for j in 0..=bytes.len() - head.len() {
                                let mut p = bytes[..head.len() + j].to_vec();
                                p.extend_from_slice(d);
                                end = later(end, prefix_end(&p));
                            }
                            end
                        }
                        _ => prefix_end(&bytes),
                    }
                }
            };
            Some(alloc::vec![RowRange { start, end }])
        }
    }
}

#[cfg(test)]
#[path = "key_narrow_tests.rs"]
mod tests;
