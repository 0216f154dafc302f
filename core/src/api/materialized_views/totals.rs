//! Running totals for views whose aggregates are all COUNT or SUM (without DISTINCT): a
//! change retracts a source row's old inputs from its group's totals and adds its new ones,
//! so the group's row is rewritten without reading the group's other rows.
//!
//! Invariants: a group's totals are the sums over its member rows' inputs (each INT64 input
//! counted once); `finish` answers only when the result is exactly what the query computes
//! adding the rows one by one in key order — no row of the group failed to evaluate, and the
//! sum of absolute values fits INT64, so no partial sum in any order can overflow (else the
//! caller recomputes the group from its rows, which reports an overflow as the query does).

use alloc::vec::Vec;

use crate::api::sql::plan::AggCall;
use crate::api::sql::SqlValue;

/// What one aggregate totals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// COUNT(*) or COUNT(x): non-NULL inputs.
    Count,
    /// SUM(x) of INT64 inputs.
    Sum,
}

/// The kinds of `aggs`, if every one has running totals.
pub(crate) fn kinds(aggs: &[AggCall]) -> Option<Vec<Kind>> {
    aggs.iter()
        .map(|a| match (a.name.as_str(), a.distinct) {
            ("COUNT", false) => Some(Kind::Count),
            ("SUM", false) => Some(Kind::Sum),
            _ => None,
        })
        .collect()
}

#[derive(Debug, Clone, Copy, Default)]
struct Acc {
    sum: i128,
    inputs: u64,
    abs: u128,
}

/// One group's totals.
#[derive(Debug, Clone, Default)]
pub(crate) struct Totals {
    accs: Vec<Acc>,
    /// Member rows whose inputs failed to evaluate.
    bad: u64,
}

impl Totals {
    /// Adds (or, with `retract`, removes) one row's inputs. False when an input is not one
    /// the totals follow (a SUM of a non-INT64 value): the caller stops using totals.
    pub(crate) fn apply(&mut self, kinds: &[Kind], inputs: &[SqlValue], retract: bool) -> bool {
        self.accs.resize(kinds.len(), Acc::default());
        for ((kind, acc), v) in kinds.iter().zip(&mut self.accs).zip(inputs) {
            let x = match (kind, v) {
                (_, SqlValue::Null) => continue,
                (Kind::Count, _) => 0,
                (Kind::Sum, SqlValue::Int64(x)) => i128::from(*x),
                (Kind::Sum, _) => return false,
            };
            if retract {
                acc.sum -= x;
                acc.inputs -= 1;
                acc.abs -= x.unsigned_abs();
            } else {
                acc.sum += x;
                acc.inputs += 1;
                acc.abs += x.unsigned_abs();
            }
        }
        true
    }

    /// Counts (or, with `retract`, uncounts) a member row whose inputs failed to evaluate.
    pub(crate) fn mark_bad(&mut self, retract: bool) {
        if retract {
            self.bad -= 1;
        } else {
            self.bad += 1;
        }
    }

    /// The aggregates' results, or `None` when the group must be recomputed from its rows.
    pub(crate) fn finish(&self, kinds: &[Kind]) -> Option<Vec<SqlValue>> {
        if self.bad > 0 {
            return None;
        }
        let mut out = Vec::with_capacity(kinds.len());
        for (i, kind) in kinds.iter().enumerate() {
            let acc = self.accs.get(i).copied().unwrap_or_default();
            out.push(match kind {
                Kind::Count => SqlValue::Int64(i64::try_from(acc.inputs).ok()?),
                Kind::Sum if acc.inputs == 0 => SqlValue::Null,
                Kind::Sum => {
                    if acc.abs > i64::MAX as u128 {
                        return None;
                    }
                    SqlValue::Int64(i64::try_from(acc.sum).ok()?)
                }
            });
        }
        Some(out)
    }
}
