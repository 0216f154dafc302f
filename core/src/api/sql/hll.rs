//! The HLL_COUNT functions' and APPROX_COUNT_DISTINCT's side of the HyperLogLog++ sketch
//! (the sketch itself, its algorithm and bytes are [`crate::model::hll`], shared with the
//! HyperLogLog++ aggregate column family): which SQL values a sketch takes and how they hash,
//! the precision argument, and HLL_COUNT.EXTRACT.
//!
//! What the functions mean, in our words, from GoogleSQL's HyperLogLog++ function page
//! (cloud.google.com/bigtable/docs/reference/sql/hll_functions, shared with BigQuery's
//! .../bigquery/docs/reference/standard-sql/hll_functions):
//! - `HLL_COUNT.INIT(input [, precision])` is an aggregate building a sketch (BYTES) of the
//!   group's non-NULL INT64, STRING or BYTES inputs (GoogleSQL also lists NUMERIC and
//!   BIGNUMERIC, which Bigtable's SQL has no values of). `precision` is 10 to 24 (default 15);
//!   outside that range is an error. A group with no non-NULL input gives NULL.
//! - `HLL_COUNT.MERGE(sketch)` is an aggregate giving the INT64 estimate of the union of the
//!   group's sketches (0 when there are none); `HLL_COUNT.MERGE_PARTIAL(sketch)` gives the
//!   union as a sketch (NULL when there are none). NULL sketches are skipped. Sketches of
//!   different precisions merge at the lowest; sketches of different input types are an error.
//! - `HLL_COUNT.EXTRACT(sketch)` is a scalar giving a sketch's INT64 estimate (0 for NULL).
//!
//! A cell of a HyperLogLog++ aggregate family holds a sketch of BYTES inputs, so
//! `HLL_COUNT.EXTRACT(cf['q'])` and `HLL_COUNT.MERGE(cf['q'])` read it, and it merges with
//! `HLL_COUNT.INIT` sketches of BYTES values (a raw AddToCell input `b` counts as the BYTES
//! value `b`).
//!
//! Invariants: equal SQL values hash alike (the hash of a STRING is its UTF-8 bytes', kept
//! apart from BYTES by the sketch's input type); errors are the sketch's INVALID_ARGUMENT.

use alloc::string::String;
use alloc::vec::Vec;

use super::errors::bad;
use super::value::SqlValue;
use crate::model::farmhash::fingerprint64;
pub use crate::model::hll::{Kind, Sketch, DEFAULT_PRECISION, MAX_PRECISION, MIN_PRECISION};
use crate::Result;
use alloc::format;

/// Checks a precision argument.
///
/// # Errors
/// A message naming the accepted range (the caller picks the error code: INVALID_ARGUMENT
/// for a literal at prepare time, OUT_OF_RANGE for a parameter at run time).
pub fn check_precision(p: i64) -> core::result::Result<u8, String> {
    if (MIN_PRECISION..=MAX_PRECISION).contains(&p) {
        Ok(p as u8)
    } else {
        Err(format!(
            "HLL_COUNT.INIT: precision must be between {MIN_PRECISION} and {MAX_PRECISION}, got {p}"
        ))
    }
}

/// The 64-bit hash of an HLL_COUNT.INIT input, or `None` for a type it does not take.
pub fn hash_input(v: &SqlValue) -> Option<(Kind, u64)> {
    Some(match v {
        SqlValue::Int64(n) => (Kind::Int64, fingerprint64(&n.to_le_bytes())),
        SqlValue::String(s) => (Kind::String, fingerprint64(s.as_bytes())),
        SqlValue::Bytes(b) => (Kind::Bytes, fingerprint64(b)),
        _ => return None,
    })
}

/// The 64-bit hash of any groupable value, for APPROX_COUNT_DISTINCT: equal values (as
/// `COUNT(DISTINCT)` sees them: every NaN alike, -0.0 as 0.0) hash alike.
pub fn hash_any(v: &SqlValue) -> u64 {
    let mut out = Vec::new();
    encode(v, &mut out);
    fingerprint64(&out)
}

fn encode(v: &SqlValue, out: &mut Vec<u8>) {
    let float = |f: f64| -> u64 {
        if f.is_nan() {
            f64::NAN.to_bits()
        } else if f == 0.0 {
            0
        } else {
            f.to_bits()
        }
    };
    match v {
        SqlValue::Null => out.push(0),
        SqlValue::Bytes(b) => {
            out.push(1);
            out.extend_from_slice(&(b.len() as u64).to_le_bytes());
            out.extend_from_slice(b);
        }
        SqlValue::String(s) => {
            out.push(2);
            out.extend_from_slice(&(s.len() as u64).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        SqlValue::Int64(n) => {
            out.push(3);
            out.extend_from_slice(&n.to_le_bytes());
        }
        SqlValue::Float32(f) => {
            out.push(4);
            out.extend_from_slice(&float(f64::from(*f)).to_le_bytes());
        }
        SqlValue::Float64(f) => {
            out.push(4);
            out.extend_from_slice(&float(*f).to_le_bytes());
        }
        SqlValue::Bool(b) => out.extend_from_slice(&[5, u8::from(*b)]),
        SqlValue::Timestamp { seconds, nanos } => {
            out.push(6);
            out.extend_from_slice(&seconds.to_le_bytes());
            out.extend_from_slice(&nanos.to_le_bytes());
        }
        SqlValue::Date { year, month, day } => {
            out.push(7);
            for n in [year, month, day] {
                out.extend_from_slice(&n.to_le_bytes());
            }
        }
        SqlValue::Array(items) | SqlValue::Struct(items) => {
            out.push(8);
            out.extend_from_slice(&(items.len() as u64).to_le_bytes());
            for i in items {
                encode(i, out);
            }
        }
        SqlValue::Map(entries) => {
            out.push(9);
            out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
            for (k, v) in entries {
                encode(k, out);
                encode(v, out);
            }
        }
    }
}

/// HLL_COUNT.EXTRACT, the scalar: a sketch's estimate, 0 for NULL. It lives here rather than
/// with the aggregates (`approx.rs`) because the scalar functions call it, and the aggregates
/// import the evaluator that calls the scalar functions.
///
/// # Errors
/// `InvalidArgument` for bytes that are not our sketch, or a value that is not BYTES.
pub fn extract(v: &SqlValue) -> Result<SqlValue> {
    match v {
        SqlValue::Null => Ok(SqlValue::Int64(0)),
        SqlValue::Bytes(b) => Ok(SqlValue::Int64(Sketch::from_bytes(b)?.estimate())),
        _ => Err(bad("HLL_COUNT.EXTRACT takes BYTES")),
    }
}

#[cfg(test)]
#[path = "hll_tests.rs"]
mod tests;
