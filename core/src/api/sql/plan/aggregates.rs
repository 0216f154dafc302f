//! The planner's aggregate calls: which arguments each aggregate takes (the general ones and
//! the approximate ones, HLL_COUNT's included) and the type it returns. Arguments are checked
//! here at prepare time (types, and a literal precision or `number` in range); values that
//! arrive as parameters are checked when the query runs ([`crate::api::sql::approx`]).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::{contains_aggregate, is_null_lit, AggCall, OrderBy, Planner};
use crate::api::sql::parse::{AggClauses, Expr, ExprKind, Nulls};
use crate::api::sql::value::{SqlType, SqlValue};
use crate::Result;

impl Planner<'_> {
    pub(super) fn aggregate(
        &mut self,
        name: &str,
        args: &mut [Expr],
        distinct: bool,
        star: bool,
        nulls: Nulls,
        pos: usize,
    ) -> Result<AggCall> {
        if star && name != "COUNT" {
            return Err(self.err(pos, format!("{name}(*) is not allowed; only COUNT(*)")));
        }
        // GoogleSQL documents the clause for these two aggregates only.
        if nulls != Nulls::Default && !matches!(name, "ARRAY_AGG" | "APPROX_QUANTILES") {
            let clause = if nulls == Nulls::Ignore {
                "IGNORE NULLS"
            } else {
                "RESPECT NULLS"
            };
            return Err(self.err(
                pos,
                format!("{clause} is accepted by ARRAY_AGG and APPROX_QUANTILES, not by {name}"),
            ));
        }
        for a in args.iter_mut() {
            if contains_aggregate(a) {
                return Err(self.err(a.pos, "aggregates cannot nest"));
            }
        }
        let want = match name {
            "STRING_AGG" | "HLL_COUNT.INIT" => 1..=2,
            "APPROX_QUANTILES" | "APPROX_TOP_COUNT" => 2..=2,
            n if crate::api::sql::stats::takes_pairs(n) => 2..=2,
            "APPROX_TOP_SUM" => 3..=3,
            _ if star => 0..=0,
            _ => 1..=1,
        };
        if !want.contains(&args.len()) {
            return Err(self.err(pos, format!("{name} takes {} argument(s)", want.end())));
        }
        let arg = args.first().cloned();
        if let Some(a) = &arg {
            let t = self.ty(a)?;
            let ok = match name {
                "SUM" | "AVG" => t.is_numeric(),
                n if crate::api::sql::stats::is_statistical(n) => t.is_numeric() || is_null_lit(a),
                "ARRAY_CONCAT_AGG" => matches!(t, SqlType::Array(_)),
                "MIN" | "MAX" | "APPROX_QUANTILES" => t.is_orderable(),
                "COUNTIF" | "LOGICAL_AND" | "LOGICAL_OR" => t == SqlType::Bool,
                "BIT_AND" | "BIT_OR" | "BIT_XOR" => t == SqlType::Int64,
                "STRING_AGG" => matches!(t, SqlType::String | SqlType::Bytes),
                "ARRAY_AGG" => !matches!(t, SqlType::Array(_)),
                "HLL_COUNT.INIT" => {
                    matches!(t, SqlType::Int64 | SqlType::String | SqlType::Bytes)
                }
                "HLL_COUNT.MERGE" | "HLL_COUNT.MERGE_PARTIAL" => {
                    t == SqlType::Bytes || is_null_lit(a)
                }
                "APPROX_COUNT_DISTINCT" => {
                    t.is_groupable() && !matches!(t, SqlType::Array(_) | SqlType::Struct(_))
                }
                "APPROX_TOP_COUNT" | "APPROX_TOP_SUM" => t.is_groupable(),
                _ => true,
            };
            if !ok || (distinct && !t.is_groupable()) {
                return Err(self.err(a.pos, format!("no matching signature for {name}({t})")));
            }
        }
        let extra: Vec<Expr> = args.iter().skip(1).cloned().collect();
        for (i, x) in extra.iter().enumerate() {
            let t = self.ty(x)?;
            let literal = match &x.kind {
                ExprKind::Lit(SqlValue::Int64(n), _) => Some(*n),
                _ => None,
            };
            let problem: Option<String> = match (name, i) {
                ("HLL_COUNT.INIT", _) if t != SqlType::Int64 => {
                    Some("HLL_COUNT.INIT's precision is an INT64".into())
                }
                ("HLL_COUNT.INIT", _) => {
                    literal.and_then(|p| crate::api::sql::hll::check_precision(p).err())
                }
                (n, 0) if crate::api::sql::stats::takes_pairs(n) => (!t.is_numeric()
                    && !is_null_lit(x))
                .then(|| format!("{name}'s second argument is a number, got {t}")),
                ("APPROX_TOP_SUM", 0) => (!t.is_numeric())
                    .then(|| format!("APPROX_TOP_SUM's weight is a number, got {t}")),
                ("APPROX_QUANTILES" | "APPROX_TOP_COUNT" | "APPROX_TOP_SUM", _) => {
                    (t != SqlType::Int64 || literal.is_some_and(|n| n < 1))
                        .then(|| format!("{name}'s number is a positive INT64"))
                }
                _ => None,
            };
            if let Some(m) = problem {
                return Err(self.err(x.pos, m));
            }
        }
        Ok(AggCall {
            name: name.to_string(),
            arg,
            extra,
            distinct,
            nulls,
            order: Vec::new(),
            limit: None,
        })
    }

    /// Checks an aggregate call's `ORDER BY` / `LIMIT` and adds them to `call`. GoogleSQL's
    /// aggregate call syntax (the "Aggregate function calls" reference page): the clauses
    /// belong to the aggregates whose result depends on the order of their input, here
    /// ARRAY_AGG and STRING_AGG; a key sorts ASC unless DESC, with NULL the smallest value
    /// (first ascending, last descending) and no NULLS FIRST / LAST; keys must be orderable;
    /// with DISTINCT the keys must be the aggregated expression itself; LIMIT is a constant
    /// INT64 (a literal or a parameter), not negative.
    pub(super) fn agg_clauses(
        &mut self,
        call: &mut AggCall,
        clauses: &mut AggClauses,
        pos: usize,
    ) -> Result<()> {
        let name = call.name.as_str();
        if !matches!(name, "ARRAY_AGG" | "STRING_AGG" | "ARRAY_CONCAT_AGG") {
            let clause = if clauses.order.is_empty() {
                "LIMIT"
            } else {
                "ORDER BY"
            };
            return Err(self.err(
                pos,
                format!("{clause} inside an aggregate call is accepted by ARRAY_AGG, ARRAY_CONCAT_AGG and STRING_AGG, not by {name}"),
            ));
        }
        for k in clauses.order.iter_mut() {
            if contains_aggregate(&mut k.expr) {
                return Err(self.err(k.expr.pos, "aggregates cannot nest"));
            }
            if k.nulls_first.is_some() {
                return Err(self.err(
                    k.expr.pos,
                    "NULLS FIRST / NULLS LAST is not accepted inside an aggregate call",
                ));
            }
            let t = self.ty(&k.expr)?;
            if !t.is_orderable() {
                return Err(self.err(k.expr.pos, format!("ORDER BY does not sort {t} values")));
            }
            if call.distinct && call.arg.as_ref() != Some(&k.expr) {
                return Err(self.err(
                    k.expr.pos,
                    format!("{name}(DISTINCT ...) can be ordered only by its argument"),
                ));
            }
            call.order.push(OrderBy {
                expr: k.expr.clone(),
                desc: k.desc,
                nulls_first: !k.desc,
            });
        }
        if let Some(n) = &clauses.limit {
            let ok = match &n.kind {
                ExprKind::Lit(SqlValue::Int64(v), _) => *v >= 0,
                ExprKind::Param(_) => self.ty(n)? == SqlType::Int64,
                _ => false,
            };
            if !ok {
                return Err(self.err(
                    n.pos,
                    "LIMIT inside an aggregate call takes a non-negative INT64 literal or parameter",
                ));
            }
            call.limit = Some(n.clone());
        }
        Ok(())
    }

    pub(super) fn agg_type(&mut self, call: &AggCall) -> Result<SqlType> {
        let t = match &call.arg {
            Some(a) => self.ty(a)?,
            None => SqlType::Int64,
        };
        Ok(match call.name.as_str() {
            "COUNT" | "COUNTIF" => SqlType::Int64,
            "SUM" => {
                if t == SqlType::Int64 {
                    SqlType::Int64
                } else {
                    SqlType::Float64
                }
            }
            "AVG" => SqlType::Float64,
            n if crate::api::sql::stats::is_statistical(n) => SqlType::Float64,
            "ARRAY_AGG" | "APPROX_QUANTILES" => SqlType::array(t),
            "HLL_COUNT.INIT" | "HLL_COUNT.MERGE_PARTIAL" => SqlType::Bytes,
            "HLL_COUNT.MERGE" | "APPROX_COUNT_DISTINCT" => SqlType::Int64,
            "APPROX_TOP_COUNT" => SqlType::array(SqlType::Struct(alloc::vec![
                ("value".into(), t),
                ("count".into(), SqlType::Int64)
            ])),
            "APPROX_TOP_SUM" => {
                let w = match call.extra.first() {
                    Some(w) => self.ty(w)?,
                    None => SqlType::Int64,
                };
                let sum = if w == SqlType::Int64 {
                    SqlType::Int64
                } else {
                    SqlType::Float64
                };
                SqlType::array(SqlType::Struct(alloc::vec![
                    ("value".into(), t),
                    ("sum".into(), sum)
                ]))
            }
            "LOGICAL_AND" | "LOGICAL_OR" => SqlType::Bool,
            _ => t,
        })
    }
}
