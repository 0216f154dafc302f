//! The approximate aggregates' running states and results: the HLL_COUNT family and
//! APPROX_COUNT_DISTINCT (over [`super::hll`] sketches), APPROX_QUANTILES, APPROX_TOP_COUNT
//! and APPROX_TOP_SUM. The executor's grouping ([`super::exec::Group`]) calls in here.
//!
//! What they mean, in our words, from Bigtable's approximate aggregate functions page
//! (cloud.google.com/bigtable/docs/reference/sql/approximate_aggregate_functions):
//! - `APPROX_COUNT_DISTINCT(x)`: about `COUNT(DISTINCT x)`; x of any type but ARRAY, STRUCT
//!   (and MAP, which cannot be compared). Ours is a HyperLogLog++ sketch at precision 15:
//!   exact up to 8,192 distinct values, then within about 0.57% (one standard error).
//! - `APPROX_QUANTILES(x, number [{IGNORE | RESPECT} NULLS])`: `number + 1` boundaries, the
//!   minimum first and the maximum last. NULLs are ignored by default (`IGNORE NULLS`); with
//!   `RESPECT NULLS` they count, as the smallest values, so the result may hold NULLs (the
//!   page's example: `[NULL, 4, 10]`). NULL when there is no input it counts.
//! - `APPROX_TOP_COUNT(x, number)`: the `number` most frequent values as
//!   `ARRAY<STRUCT<value, count INT64>>`, most frequent first; NULL is a value like any other.
//! - `APPROX_TOP_SUM(x, weight, number)`: the `number` values with the largest summed weight as
//!   `ARRAY<STRUCT<value, sum>>` (`sum` INT64 for INT64 weights, else FLOAT64); rows with a
//!   NULL weight are skipped, a NULL value counts.
//!
//! Our choice, within what the page allows ("the value returned is a statistical estimate"):
//! APPROX_QUANTILES, APPROX_TOP_COUNT and APPROX_TOP_SUM are computed **exactly** (an exact
//! answer is a valid approximation), so their memory grows with the group's values or distinct
//! values, like ARRAY_AGG's. Quantile `i` of `n` sorted values is the one at rank
//! `ceil(i * n / number)` (nearest rank); ties in the top lists go to the smaller value.
//! `number` must be a positive INT64 (at most [`MAX_NUMBER`] for quantiles, to bound the result).

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::vec::Vec;

use super::errors::out_of_range;
use super::eval::{eval, Ctx};
use super::hll::{self, Kind, Sketch};
use super::plan::AggCall;
use super::value::{Key, SqlValue};
use crate::Result;

/// Most quantiles APPROX_QUANTILES returns (ours; the result is one array).
pub const MAX_NUMBER: i64 = 100_000;

/// Whether `name` keeps a sketch.
pub fn is_sketch(name: &str) -> bool {
    matches!(
        name,
        "HLL_COUNT.INIT" | "HLL_COUNT.MERGE" | "HLL_COUNT.MERGE_PARTIAL" | "APPROX_COUNT_DISTINCT"
    )
}

/// Whether `name` keeps a tally per value (and counts NULL values).
pub fn is_tally(name: &str) -> bool {
    matches!(name, "APPROX_TOP_COUNT" | "APPROX_TOP_SUM")
}

/// Adds one non-NULL input `v` to a sketch aggregate.
pub fn add_sketch(a: &AggCall, s: &mut Option<Sketch>, v: &SqlValue, ctx: &Ctx<'_>) -> Result<()> {
    match a.name.as_str() {
        "HLL_COUNT.INIT" => {
            let Some((kind, h)) = hll::hash_input(v) else {
                return Err(out_of_range("HLL_COUNT.INIT takes INT64, STRING or BYTES"));
            };
            if s.is_none() {
                let p = match a.extra.first() {
                    None => hll::DEFAULT_PRECISION,
                    Some(e) => match eval(e, ctx)? {
                        SqlValue::Int64(p) => p,
                        _ => return Err(out_of_range("HLL_COUNT.INIT: precision is NULL")),
                    },
                };
                let p = hll::check_precision(p).map_err(out_of_range)?;
                *s = Some(Sketch::new(kind, p));
            }
            if let Some(s) = s {
                s.add_hash(h);
            }
        }
        "APPROX_COUNT_DISTINCT" => s
            .get_or_insert_with(|| Sketch::new(Kind::Other, hll::DEFAULT_PRECISION as u8))
            .add_hash(hll::hash_any(v)),
        _ => {
            let SqlValue::Bytes(b) = v else {
                return Err(out_of_range(format!("{} takes BYTES", a.name)));
            };
            let other = Sketch::from_bytes(b)?;
            match s {
                None => *s = Some(other),
                Some(s) => s.merge(&other)?,
            }
        }
    }
    Ok(())
}

/// A sketch aggregate's result.
pub fn finish_sketch(a: &AggCall, s: &Option<Sketch>) -> SqlValue {
    match (a.name.as_str(), s) {
        ("HLL_COUNT.INIT" | "HLL_COUNT.MERGE_PARTIAL", None) => SqlValue::Null,
        ("HLL_COUNT.INIT" | "HLL_COUNT.MERGE_PARTIAL", Some(s)) => SqlValue::Bytes(s.to_bytes()),
        (_, None) => SqlValue::Int64(0),
        (_, Some(s)) => SqlValue::Int64(s.estimate()),
    }
}

/// APPROX_TOP_COUNT's and APPROX_TOP_SUM's state: each value's count or summed weight.
#[derive(Debug, Clone, Default)]
pub struct Tally(BTreeMap<Key, SqlValue>);

/// Adds one input `v` (NULL included) to a tally aggregate.
pub fn add_tally(a: &AggCall, Tally(tally): &mut Tally, v: SqlValue, ctx: &Ctx<'_>) -> Result<()> {
    let weight = if a.name == "APPROX_TOP_SUM" {
        match a.extra.first().map(|e| eval(e, ctx)).transpose()? {
            None | Some(SqlValue::Null) => return Ok(()),
            Some(w) => w,
        }
    } else {
        SqlValue::Int64(1)
    };
    let slot = tally.entry(Key(alloc::vec![v])).or_insert(match weight {
        SqlValue::Int64(_) => SqlValue::Int64(0),
        _ => SqlValue::Float64(0.0),
    });
    *slot = match (&*slot, &weight) {
        (SqlValue::Int64(s), SqlValue::Int64(w)) => SqlValue::Int64(
            s.checked_add(*w)
                .ok_or_else(|| out_of_range(format!("int64 overflow in {}", a.name)))?,
        ),
        (s, w) => SqlValue::Float64(s.as_f64().unwrap_or(0.0) + w.as_f64().unwrap_or(0.0)),
    };
    Ok(())
}

/// The `number` argument (the last one), checked.
fn number(a: &AggCall, ctx: &Ctx<'_>) -> Result<i64> {
    match a.extra.last().map(|e| eval(e, ctx)).transpose()? {
        Some(SqlValue::Int64(n)) if n > 0 => Ok(n),
        _ => Err(out_of_range(format!(
            "{}: number must be a positive INT64",
            a.name
        ))),
    }
}

/// A tally aggregate's result: the top `number` entries, largest first.
pub fn finish_tally(a: &AggCall, Tally(tally): &Tally, ctx: &Ctx<'_>) -> Result<SqlValue> {
    let n = number(a, ctx)?;
    if tally.is_empty() {
        return Ok(SqlValue::Null);
    }
    let mut entries: Vec<(&Key, &SqlValue)> = tally.iter().collect();
    // Stable: equal counts keep key order (the smaller value first).
    entries.sort_by(|x, y| y.1.total_cmp(x.1));
    Ok(SqlValue::Array(
        entries
            .into_iter()
            .take(usize::try_from(n).unwrap_or(usize::MAX))
            .map(|(k, s)| SqlValue::Struct(alloc::vec![k.0[0].clone(), s.clone()]))
            .collect(),
    ))
}

/// APPROX_QUANTILES' result over the group's values it counts (NULLs only under RESPECT NULLS).
pub fn quantiles(a: &AggCall, items: &[SqlValue], ctx: &Ctx<'_>) -> Result<SqlValue> {
    let number = number(a, ctx)?;
    if number > MAX_NUMBER {
        return Err(out_of_range(format!(
            "APPROX_QUANTILES: number must be at most {MAX_NUMBER}"
        )));
    }
    if items.is_empty() {
        return Ok(SqlValue::Null);
    }
    let mut sorted: Vec<&SqlValue> = items.iter().collect();
    sorted.sort_by(|x, y| x.total_cmp(y));
    let n = sorted.len() as u128;
    let number = number as u128;
    let out = (0..=number)
        .map(|i| {
            let rank = (i * n).div_ceil(number).max(1);
            sorted[(rank - 1) as usize].clone()
        })
        .collect();
    Ok(SqlValue::Array(out))
}
