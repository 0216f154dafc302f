//! The fields of a structured row key as SQL columns (Bigtable's "Structured row key
//! queries"): a table with a row-key schema has one column per key field, typed as the field
//! (BYTES, STRING, INT64, TIMESTAMP); `SELECT *` lists them, in key order, before the families, and
//! leaves `_key` out (it stays readable by name as the raw BYTES key, a pseudo-column).
//!
//! Invariants: a field's value is decoded from the row's key by the schema each time it is
//! read; a key that does not conform fails the query with `FailedPrecondition` (Bigtable:
//! queries that select structured row key columns fail on such rows), and a query that reads
//! no field never decodes. WHERE equalities on a leading run of fields, and comparisons on
//! the field after them, narrow the read's key range (`key_narrow.rs`); the WHERE is still
//! evaluated on every row read, so the narrowing only ever drops rows that could not match.

use super::parse::{BinOp, Expr, ExprKind};
use super::value::{SqlType, SqlValue};
use crate::model::row_key_schema::{KeyFieldType, KeyValue, RowKeySchema};
use crate::{Result, Row};
use alloc::collections::BTreeMap;

/// The SQL type of a key field.
pub fn field_type(t: KeyFieldType) -> SqlType {
    match t {
        KeyFieldType::Bytes => SqlType::Bytes,
        KeyFieldType::String => SqlType::String,
        KeyFieldType::Int64(_) => SqlType::Int64,
        KeyFieldType::Timestamp(_) => SqlType::Timestamp,
    }
}

/// The value of field `index` of `row`'s key.
///
/// # Errors
/// `FailedPrecondition` when the key does not conform to the schema.
pub fn field_value(schema: &RowKeySchema, row: &Row, index: usize) -> Result<SqlValue> {
    let mut values = schema.decode(&row.key)?;
    Ok(match values.swap_remove(index) {
        KeyValue::Bytes(b) => SqlValue::Bytes(b),
        KeyValue::String(s) => SqlValue::String(s),
        KeyValue::Int64(i) => SqlValue::Int64(i),
        KeyValue::Timestamp(micros) => SqlValue::timestamp_micros(micros),
    })
}

/// A constant as a value of key field type `t`, if it is one (string literals compare with
/// BYTES fields, as with `_key`). A TIMESTAMP with nanoseconds below the microsecond is not:
/// no key holds it, and its microseconds alone would bound a range on the wrong side.
pub(super) fn key_value(t: KeyFieldType, v: SqlValue) -> Option<KeyValue> {
    match (t, v) {
        (KeyFieldType::Bytes, SqlValue::Bytes(b)) => Some(KeyValue::Bytes(b)),
        (KeyFieldType::Bytes, SqlValue::String(s)) => Some(KeyValue::Bytes(s.into_bytes())),
        (KeyFieldType::String, SqlValue::String(s)) => Some(KeyValue::String(s)),
        (KeyFieldType::Int64(_), SqlValue::Int64(i)) => Some(KeyValue::Int64(i)),
        (KeyFieldType::Timestamp(_), SqlValue::Timestamp { seconds, nanos })
            if nanos % 1000 == 0 =>
        {
            let micros = seconds
                .checked_mul(1_000_000)?
                .checked_add(i64::from(nanos / 1000))?;
            Some(KeyValue::Timestamp(micros))
        }
        _ => None,
    }
}

/// Collects `field = constant` conjuncts of `e` (an AND tree) into `out` by field index;
/// `constant` gives a row-independent operand's value (a literal or parameter).
pub(super) fn equalities(
    e: &Expr,
    schema: &RowKeySchema,
    constant: &dyn Fn(&Expr) -> Option<SqlValue>,
    out: &mut BTreeMap<usize, KeyValue>,
) {
    match &e.kind {
        ExprKind::Bin(BinOp::And, l, r) => {
            equalities(l, schema, constant, out);
            equalities(r, schema, constant, out);
        }
        ExprKind::Bin(BinOp::Eq, l, r) => {
            let (field, other) = match (&l.kind, &r.kind) {
                (ExprKind::Ident(n), _) if schema.position(n).is_some() => (n, r),
                (_, ExprKind::Ident(n)) if schema.position(n).is_some() => (n, l),
                _ => return,
            };
            let Some(i) = schema.position(field) else {
                return;
            };
            let Some(v) = constant(other) else {
                return;
            };
            if let Some(v) = key_value(schema.fields[i].field_type, v) {
                out.insert(i, v);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
#[path = "key_fields_tests.rs"]
mod tests;
