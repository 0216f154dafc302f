//! Evaluates a planned expression against one row (or one group) to a [`SqlValue`].
//!
//! The rules, in our words, from GoogleSQL's "Operators" and "Conditional expressions" pages
//! (cloud.google.com/bigtable/docs/reference/sql/operators, .../conditional_expressions):
//! - NULL in, NULL out: arithmetic, comparisons, LIKE, IN, BETWEEN and almost every function
//!   return NULL when an input is NULL. AND/OR use three-valued logic (`FALSE AND NULL` is
//!   FALSE, `TRUE OR NULL` is TRUE); `x IN (...)` is NULL when no element matches and one is
//!   NULL; `IS [NOT] NULL` is never NULL.
//! - INT64 `+ - *`, unary `-` and SUM overflow are errors (OUT_OF_RANGE), never wrapped. `/`
//!   always yields FLOAT64 and dividing by zero is an error; `IEEE_DIVIDE` and `SAFE_DIVIDE`
//!   are the ways around it.
//! - WHERE and HAVING keep a row only when the condition is TRUE (NULL drops it).
//! - CASE, IF, IFNULL, COALESCE and the short-circuiting AND/OR evaluate only the branch they
//!   need, so an error in an untaken branch is not raised.
//! - `SAFE_CAST` and `SAFE.` functions turn an error into NULL.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::cmp::Ordering;

use super::functions;
use super::parse::{BinOp, Expr, ExprKind, IndexMode};
use super::value::{to_text, SqlType, SqlValue};
use crate::model::row::Row;
use crate::platform::random::{RandomSource, SplitMix64};
use crate::Result;

/// How a family of the table reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FamilyInfo {
    /// An int64 aggregate family: values are 8-byte big-endian INT64 states (a HyperLogLog++
    /// family's cells are BYTES, the sketch HLL_COUNT.EXTRACT and HLL_COUNT.MERGE read).
    pub aggregate: bool,
    /// A continuous materialized view's output column of this type: the family holds one
    /// cell (empty qualifier) with the value as `materialized_views::encode_value` wrote it,
    /// and the name reads as that value (NULL without the cell), not as a map.
    pub column: Option<SqlType>,
}

/// What an expression is evaluated against.
pub struct Ctx<'a> {
    /// The row read (absent for a query without FROM and for groups).
    pub row: Option<&'a Row>,
    /// The table's families.
    pub families: &'a BTreeMap<String, FamilyInfo>,
    /// The table's row-key schema: its fields are columns.
    pub key_schema: Option<&'a crate::model::row_key_schema::RowKeySchema>,
    /// `with_history => TRUE`: families read as maps to arrays of (timestamp, value).
    pub history: bool,
    /// The parameters.
    pub params: &'a BTreeMap<String, SqlValue>,
    /// GROUP BY keys of the current group.
    pub groups: &'a [SqlValue],
    /// Aggregate results of the current group.
    pub aggs: &'a [SqlValue],
    /// SELECT item values of the current output row (for ORDER BY).
    pub items: &'a [SqlValue],
    /// The UNNEST slots of the current row (element, offset per UNNEST in FROM).
    pub unnest: &'a [SqlValue],
    /// The engine clock (CURRENT_TIMESTAMP), microseconds.
    pub now_micros: i64,
}

pub use super::errors::{bad, out_of_range};

/// A cell value as SQL sees it: an aggregate's 8-byte big-endian state is its INT64.
pub fn cell_value(value: &[u8], aggregate: bool) -> SqlValue {
    match (aggregate, <[u8; 8]>::try_from(value)) {
        (true, Ok(b)) => SqlValue::Int64(i64::from_be_bytes(b)),
        (true, Err(_)) => SqlValue::Null,
        (false, _) => SqlValue::Bytes(value.to_vec()),
    }
}

/// Cells carrying this label were read only so that a row with no selected cell still
/// appears (see the planner's filter); they are not data.
pub const PRESENCE_LABEL: &str = "sql-row";

fn data_cells<'r>(
    row: &'r Row,
    family: &'r str,
) -> impl Iterator<Item = &'r crate::model::row::Cell> {
    row.cells
        .iter()
        .filter(move |c| c.family == family && c.labels.is_empty())
}

/// A materialized view's output column `family` of type `ty` in `row` (see
/// [`FamilyInfo::column`]); NULL when the row has no cell for it.
fn view_column(row: &Row, family: &str, ty: &SqlType) -> SqlValue {
    data_cells(row, family)
        .find(|c| c.qualifier.is_empty())
        .and_then(|c| crate::api::materialized_views::decode_value(ty, &c.value))
        .unwrap_or(SqlValue::Null)
}

/// The map a family reads as in `row`.
pub fn family_map(ctx: &Ctx<'_>, row: &Row, family: &str) -> SqlValue {
    let aggregate = ctx.families.get(family).is_some_and(|f| f.aggregate);
    let mut out: Vec<(SqlValue, SqlValue)> = Vec::new();
    for c in data_cells(row, family) {
        let v = cell_value(&c.value, aggregate);
        let same = matches!(out.last(), Some((SqlValue::Bytes(q), _)) if *q == c.qualifier);
        if ctx.history {
            let version = SqlValue::Struct(alloc::vec![
                SqlValue::timestamp_micros(c.timestamp_micros),
                v
            ]);
            if same {
                if let Some((_, SqlValue::Array(versions))) = out.last_mut() {
                    versions.push(version);
                }
            } else {
                out.push((
                    SqlValue::Bytes(c.qualifier.clone()),
                    SqlValue::Array(alloc::vec![version]),
                ));
            }
        } else if !same {
            // Cells come newest first within a column: the first is the value.
            out.push((SqlValue::Bytes(c.qualifier.clone()), v));
        }
    }
    SqlValue::Map(out)
}

fn column(ctx: &Ctx<'_>, row: &Row, family: &str, qualifier: &[u8]) -> SqlValue {
    if ctx.history {
        return match family_map(ctx, row, family) {
            SqlValue::Map(entries) => entries
                .into_iter()
                .find(|(k, _)| k.as_bytes() == Some(qualifier))
                .map_or(SqlValue::Null, |(_, v)| v),
            _ => SqlValue::Null,
        };
    }
    let aggregate = ctx.families.get(family).is_some_and(|f| f.aggregate);
    data_cells(row, family)
        .find(|c| c.qualifier == qualifier)
        .map_or(SqlValue::Null, |c| cell_value(&c.value, aggregate))
}

/// Whether a condition's value keeps a row (only TRUE does).
pub fn truthy(v: &SqlValue) -> bool {
    matches!(v, SqlValue::Bool(true))
}

fn as_bool(v: &SqlValue) -> Result<Option<bool>> {
    match v {
        SqlValue::Null => Ok(None),
        SqlValue::Bool(b) => Ok(Some(*b)),
        other => Err(bad(format!("expected a BOOL, got {}", to_text(other)))),
    }
}

/// Evaluates `e` in `ctx`.
///
/// # Errors
/// OUT_OF_RANGE for overflow, division by zero and out-of-range indexes; INVALID_ARGUMENT
/// for values a function cannot take.
pub fn eval(e: &Expr, ctx: &Ctx<'_>) -> Result<SqlValue> {
    use ExprKind as K;
    Ok(match &e.kind {
        K::Lit(v, _) => v.clone(),
        K::Param(p) => ctx.params.get(p).cloned().unwrap_or(SqlValue::Null),
        K::Ident(name) => match ctx.row {
            Some(row) if name == "_key" => SqlValue::Bytes(row.key.clone()),
            // Under UNPACK a row holds the cells of one timestamp (see `unpack::split`).
            Some(row) if name == "_timestamp" => row
                .cells
                .iter()
                .find(|c| c.labels.is_empty())
                .map_or(SqlValue::Null, |c| {
                    SqlValue::timestamp_micros(c.timestamp_micros)
                }),
            Some(row) => match ctx.key_schema.and_then(|s| Some((s, s.position(name)?))) {
                Some((schema, i)) => super::key_fields::field_value(schema, row, i)?,
                None => match ctx.families.get(name).and_then(|f| f.column.as_ref()) {
                    Some(ty) => view_column(row, name, ty),
                    None => family_map(ctx, row, name),
                },
            },
            None => SqlValue::Null,
        },
        K::GroupRef(i) => ctx.groups.get(*i).cloned().unwrap_or(SqlValue::Null),
        K::FieldAt(b, i) => match eval(b, ctx)? {
            SqlValue::Struct(values) => values.get(*i).cloned().unwrap_or(SqlValue::Null),
            _ => SqlValue::Null,
        },
        K::UnnestRef(i) => ctx.unnest.get(*i).cloned().unwrap_or(SqlValue::Null),
        K::AggRef(i) => ctx.aggs.get(*i).cloned().unwrap_or(SqlValue::Null),
        K::ItemRef(i) => ctx.items.get(*i).cloned().unwrap_or(SqlValue::Null),
        // The planner lets a lambda appear only as its function's argument, which `call`
        // evaluates with the parameters substituted.
        K::Lambda(..) | K::LambdaVar(_) => {
            return Err(super::errors::bad("a lambda outside its function"))
        }
        K::Index(base, idx, mode) => {
            // `family['q']` reads the one column without building the family's map.
            if let (K::Ident(f), Some(row)) = (&base.kind, ctx.row) {
                if f != "_key" && *mode == IndexMode::Offset {
                    let q = eval(idx, ctx)?;
                    return Ok(match q.as_bytes() {
                        Some(q) => column(ctx, row, f, q),
                        None => SqlValue::Null,
                    });
                }
            }
            let b = eval(base, ctx)?;
            let i = eval(idx, ctx)?;
            index(&b, &i, *mode)?
        }
        K::Field(base, name) => {
            let b = eval(base, ctx)?;
            field(&b, name, base, ctx)?
        }
        K::Neg(x) => match eval(x, ctx)? {
            SqlValue::Int64(i) => SqlValue::Int64(
                i.checked_neg()
                    .ok_or_else(|| out_of_range("int64 overflow: -(-9223372036854775808)"))?,
            ),
            SqlValue::Float64(f) => SqlValue::Float64(-f),
            SqlValue::Float32(f) => SqlValue::Float32(-f),
            SqlValue::Null => SqlValue::Null,
            other => return Err(bad(format!("cannot negate {}", to_text(&other)))),
        },
        K::BitNot(x) => match eval(x, ctx)? {
            SqlValue::Int64(i) => SqlValue::Int64(!i),
            SqlValue::Bytes(b) => SqlValue::Bytes(b.iter().map(|x| !x).collect()),
            _ => SqlValue::Null,
        },
        K::Not(x) => match as_bool(&eval(x, ctx)?)? {
            Some(b) => SqlValue::Bool(!b),
            None => SqlValue::Null,
        },
        K::Bin(BinOp::And, l, r) => {
            let a = as_bool(&eval(l, ctx)?)?;
            if a == Some(false) {
                return Ok(SqlValue::Bool(false));
            }
            match (a, as_bool(&eval(r, ctx)?)?) {
                (_, Some(false)) => SqlValue::Bool(false),
                (Some(true), Some(true)) => SqlValue::Bool(true),
                _ => SqlValue::Null,
            }
        }
        K::Bin(BinOp::Or, l, r) => {
            let a = as_bool(&eval(l, ctx)?)?;
            if a == Some(true) {
                return Ok(SqlValue::Bool(true));
            }
            match (a, as_bool(&eval(r, ctx)?)?) {
                (_, Some(true)) => SqlValue::Bool(true),
                (Some(false), Some(false)) => SqlValue::Bool(false),
                _ => SqlValue::Null,
            }
        }
        K::Bin(op, l, r) => binary(*op, eval(l, ctx)?, eval(r, ctx)?)?,
        K::IsNull(x, neg) => SqlValue::Bool(eval(x, ctx)?.is_null() != *neg),
        K::IsBool(x, want, neg) => {
            let v = as_bool(&eval(x, ctx)?)?;
            SqlValue::Bool((v == Some(*want)) != *neg)
        }
        K::In(x, list, neg) => {
            let v = eval(x, ctx)?;
            let mut values = Vec::with_capacity(list.len());
            for item in list {
                values.push(eval(item, ctx)?);
            }
            in_list(&v, &values, *neg)
        }
        K::InUnnest(x, a, neg) => {
            let v = eval(x, ctx)?;
            match eval(a, ctx)? {
                SqlValue::Array(values) => in_list(&v, &values, *neg),
                _ => SqlValue::Bool(*neg),
            }
        }
        K::Between(x, lo, hi, neg) => {
            let v = eval(x, ctx)?;
            let ge = v.sql_cmp(&eval(lo, ctx)?).map(|o| o != Ordering::Less);
            let le = v.sql_cmp(&eval(hi, ctx)?).map(|o| o != Ordering::Greater);
            match (ge, le) {
                (Some(false), _) | (_, Some(false)) => SqlValue::Bool(*neg),
                (Some(true), Some(true)) => SqlValue::Bool(!*neg),
                _ => SqlValue::Null,
            }
        }
        K::Like(x, pattern, neg) => {
            let v = eval(x, ctx)?;
            let p = eval(pattern, ctx)?;
            match (v.as_bytes(), p.as_bytes()) {
                (Some(v), Some(p)) => SqlValue::Bool(like(v, p) != *neg),
                _ => SqlValue::Null,
            }
        }
        K::Case(operand, whens, otherwise) => {
            let subject = match operand {
                Some(o) => Some(eval(o, ctx)?),
                None => None,
            };
            for (w, then) in whens {
                let c = eval(w, ctx)?;
                let hit = match &subject {
                    Some(s) => s.sql_eq(&c) == Some(true),
                    None => truthy(&c),
                };
                if hit {
                    return eval(then, ctx);
                }
            }
            match otherwise {
                Some(o) => eval(o, ctx)?,
                None => SqlValue::Null,
            }
        }
        K::Cast(x, ty, safe) => {
            let v = eval(x, ctx)?;
            match cast(&v, ty) {
                Ok(v) => v,
                Err(_) if *safe => SqlValue::Null,
                Err(err) => return Err(err),
            }
        }
        K::Call { name, args, .. } => call(name, args, ctx)?,
        K::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for i in items {
                out.push(eval(i, ctx)?);
            }
            SqlValue::Array(out)
        }
        K::Struct(fields) => {
            let mut out = Vec::with_capacity(fields.len());
            for (_, f) in fields {
                out.push(eval(f, ctx)?);
            }
            SqlValue::Struct(out)
        }
        K::Extract(part, x, None) => functions::time::extract(part, &eval(x, ctx)?)?,
        K::Extract(part, x, Some(z)) => match eval(z, ctx)? {
            SqlValue::Null => SqlValue::Null,
            SqlValue::String(z) => {
                let zone = functions::zones::Zone::parse(&z)?;
                functions::time::extract_in(part, &eval(x, ctx)?, &zone)?
            }
            _ => return Err(super::errors::bad("EXTRACT: the time zone is a STRING")),
        },
    })
}

fn in_list(v: &SqlValue, values: &[SqlValue], neg: bool) -> SqlValue {
    if v.is_null() {
        return SqlValue::Null;
    }
    let mut unknown = false;
    for item in values {
        match v.sql_eq(item) {
            Some(true) => return SqlValue::Bool(!neg),
            None => unknown = true,
            Some(false) => {}
        }
    }
    if unknown {
        SqlValue::Null
    } else {
        SqlValue::Bool(neg)
    }
}

fn field(b: &SqlValue, name: &str, base: &Expr, ctx: &Ctx<'_>) -> Result<SqlValue> {
    let SqlValue::Struct(values) = b else {
        return Ok(SqlValue::Null);
    };
    // The only structs with named fields the executor builds are history versions
    // (timestamp, value) and MAP_ENTRIES entries (key, value).
    let _ = (base, ctx);
    let i = match name.to_ascii_lowercase().as_str() {
        "timestamp" | "key" => 0,
        "value" => 1,
        _ => return Err(bad(format!("no field {name} in this struct"))),
    };
    Ok(values.get(i).cloned().unwrap_or(SqlValue::Null))
}

/// `base[idx]` for arrays (by mode) and maps (by key).
pub fn index(b: &SqlValue, i: &SqlValue, mode: IndexMode) -> Result<SqlValue> {
    match b {
        SqlValue::Null => Ok(SqlValue::Null),
        SqlValue::Map(entries) => Ok(entries
            .iter()
            .find(|(k, _)| k.sql_eq(i) == Some(true))
            .map_or(SqlValue::Null, |(_, v)| v.clone())),
        SqlValue::Array(items) => {
            let SqlValue::Int64(n) = i else {
                return Ok(SqlValue::Null);
            };
            let (at, safe) = match mode {
                IndexMode::Offset => (Some(*n), false),
                IndexMode::SafeOffset => (Some(*n), true),
                IndexMode::Ordinal => (n.checked_sub(1), false),
                IndexMode::SafeOrdinal => (n.checked_sub(1), true),
            };
            match at
                .and_then(|a| usize::try_from(a).ok())
                .and_then(|a| items.get(a))
            {
                Some(v) => Ok(v.clone()),
                None if safe => Ok(SqlValue::Null),
                None => Err(out_of_range(format!(
                    "array index {n} is out of bounds (the array has {} elements)",
                    items.len()
                ))),
            }
        }
        _ => Err(bad("only arrays and maps can be indexed")),
    }
}

/// SQL LIKE: `%` any run of characters, `_` exactly one, `\` escapes; STRING patterns match
/// characters and BYTES patterns bytes (we match UTF-8 bytes, treating `_` as one character
/// when the text is valid UTF-8).
pub fn like(v: &[u8], p: &[u8]) -> bool {
    let text: Vec<u32> = match core::str::from_utf8(v) {
        Ok(s) => s.chars().map(u32::from).collect(),
        Err(_) => v.iter().map(|b| u32::from(*b)).collect(),
    };
    let pat: Vec<u32> = match core::str::from_utf8(p) {
        Ok(s) => s.chars().map(u32::from).collect(),
        Err(_) => p.iter().map(|b| u32::from(*b)).collect(),
    };
    // Iterative wildcard match with backtracking to the last `%`.
    let (mut t, mut q) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        let (lit, step) = match pat.get(q) {
            Some(&c) if c == u32::from(b'\\') => (pat.get(q + 1).copied(), 2),
            Some(&c) if c == u32::from(b'%') => {
                star = Some((q, t));
                q += 1;
                continue;
            }
            Some(&c) if c == u32::from(b'_') => (None, 1),
            Some(&c) => (Some(c), 1),
            None => (Some(u32::MAX), 0),
        };
        let ok = step > 0 && lit.is_none_or(|c| c == text[t]);
        if ok {
            t += 1;
            q += step;
        } else if let Some((sq, st)) = star {
            q = sq + 1;
            t = st + 1;
            star = Some((sq, st + 1));
        } else {
            return false;
        }
    }
    while pat.get(q) == Some(&u32::from(b'%')) {
        q += 1;
    }
    q == pat.len()
}

/// ARRAY_FILTER, ARRAY_TRANSFORM or ARRAY_INCLUDES with a lambda: the body evaluated once
/// per element, with the element and its offset in place of the parameters. NULL for a NULL
/// array; FILTER keeps the elements whose body is TRUE (FALSE and NULL drop them).
fn lambda_call(name: &str, array: &Expr, body: &Expr, ctx: &Ctx<'_>) -> Result<SqlValue> {
    let items = match eval(array, ctx)? {
        SqlValue::Array(items) => items,
        _ => return Ok(SqlValue::Null),
    };
    let base = name.strip_prefix("SAFE.").unwrap_or(name);
    let mut out = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let mut bound = body.clone();
        substitute(&mut bound, &[item.clone(), SqlValue::Int64(i as i64)]);
        let v = eval(&bound, ctx)?;
        match base {
            "ARRAY_TRANSFORM" => out.push(v),
            "ARRAY_FILTER" if v == SqlValue::Bool(true) => out.push(item),
            "ARRAY_INCLUDES" if v == SqlValue::Bool(true) => return Ok(SqlValue::Bool(true)),
            _ => {}
        }
    }
    Ok(if base == "ARRAY_INCLUDES" {
        SqlValue::Bool(false)
    } else {
        SqlValue::Array(out)
    })
}

/// Replaces lambda parameter `i` with the literal `values[i]` throughout `e`.
fn substitute(e: &mut Expr, values: &[SqlValue]) {
    if let ExprKind::LambdaVar(i) = e.kind {
        e.kind = ExprKind::Lit(values.get(i).cloned().unwrap_or(SqlValue::Null), None);
        return;
    }
    for c in super::ast::children_mut(e) {
        substitute(c, values);
    }
}

/// The state of RAND(): one sequence for the process, behind a lock that works without std
/// (64-bit atomics are missing on some no_std targets). RAND is the only function whose
/// value is determined neither by its arguments nor by the engine's clock; nothing may depend
/// on its sequence (materialized views refuse it), so tests check only its range.
static RAND_STATE: spin::Mutex<SplitMix64> =
    spin::Mutex::new(SplitMix64::new(0x853c_49e6_748f_ea9b));

/// RAND(): a FLOAT64 uniformly drawn from [0, 1).
fn rand() -> f64 {
    RAND_STATE.lock().next_f64()
}

fn int_op(op: BinOp, a: i64, b: i64) -> Result<SqlValue> {
    let r = match op {
        BinOp::Add => a.checked_add(b),
        BinOp::Sub => a.checked_sub(b),
        BinOp::Mul => a.checked_mul(b),
        BinOp::BitAnd => Some(a & b),
        BinOp::BitOr => Some(a | b),
        BinOp::BitXor => Some(a ^ b),
        BinOp::Shl => Some(if (0..64).contains(&b) { a << b } else { 0 }),
        BinOp::Shr => Some(if (0..64).contains(&b) {
            ((a as u64) >> b) as i64
        } else {
            0
        }),
        _ => None,
    };
    r.map(SqlValue::Int64)
        .ok_or_else(|| out_of_range(format!("int64 overflow: {a} {op:?} {b}")))
}

/// A binary operator (not AND/OR) on two values.
///
/// # Errors
/// OUT_OF_RANGE for overflow and division by zero.
pub fn binary(op: BinOp, a: SqlValue, b: SqlValue) -> Result<SqlValue> {
    use SqlValue as V;
    if a.is_null() || b.is_null() {
        return Ok(V::Null);
    }
    let cmp = |want: fn(Ordering) -> bool| -> SqlValue {
        match a.sql_cmp(&b) {
            Some(o) => V::Bool(want(o)),
            None => V::Bool(false),
        }
    };
    Ok(match op {
        BinOp::Eq => V::Bool(a.sql_eq(&b) == Some(true)),
        BinOp::Ne => V::Bool(a.sql_eq(&b) == Some(false)),
        BinOp::Lt => cmp(|o| o == Ordering::Less),
        BinOp::Le => cmp(|o| o != Ordering::Greater),
        BinOp::Gt => cmp(|o| o == Ordering::Greater),
        BinOp::Ge => cmp(|o| o != Ordering::Less),
        BinOp::Concat => functions::string::concat(&[a, b])?,
        BinOp::Div => {
            let (x, y) = (num(&a)?, num(&b)?);
            if y == 0.0 {
                return Err(out_of_range(format!("division by zero: {x} / {y}")));
            }
            V::Float64(x / y)
        }
        _ => match (&a, &b) {
            (V::Int64(x), V::Int64(y)) => int_op(op, *x, *y)?,
            (V::Bytes(x), V::Bytes(y))
                if matches!(op, BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor) =>
            {
                if x.len() != y.len() {
                    return Err(bad("bitwise operators need BYTES of equal length"));
                }
                V::Bytes(
                    x.iter()
                        .zip(y)
                        .map(|(p, q)| match op {
                            BinOp::BitAnd => p & q,
                            BinOp::BitOr => p | q,
                            _ => p ^ q,
                        })
                        .collect(),
                )
            }
            (V::Timestamp { .. }, _) | (_, V::Timestamp { .. }) | (V::Date { .. }, _) => {
                return Err(bad(
                    "date and timestamp arithmetic uses TIMESTAMP_ADD and kin",
                ))
            }
            _ => {
                let (x, y) = (num(&a)?, num(&b)?);
                let r = match op {
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    BinOp::Mul => x * y,
                    _ => return Err(bad(format!("{op:?} takes INT64 operands"))),
                };
                if matches!((&a, &b), (V::Float32(_), V::Float32(_))) {
                    V::Float32(r as f32)
                } else {
                    V::Float64(r)
                }
            }
        },
    })
}

fn num(v: &SqlValue) -> Result<f64> {
    v.as_f64()
        .ok_or_else(|| bad(format!("expected a number, got {}", to_text(v))))
}

/// CAST(v AS ty), GoogleSQL's conversion rules (conversion_rules page): numbers to and from
/// STRING in decimal, floats to INT64 rounding half away from zero (out of range is an
/// error), STRING and BYTES by UTF-8 (invalid UTF-8 is an error), BOOL to and from "true" /
/// "false" and 0/1.
///
/// # Errors
/// OUT_OF_RANGE or INVALID_ARGUMENT when the value has no image in `ty`.
pub fn cast(v: &SqlValue, ty: &SqlType) -> Result<SqlValue> {
    use SqlValue as V;
    if v.is_null() || v.fits(ty) {
        return Ok(v.clone());
    }
    let fail = || bad(format!("cannot cast {} to {ty}", to_text(v)));
    Ok(match (v, ty) {
        (V::Float64(_) | V::Float32(_), SqlType::Int64) => {
            let f = v.as_f64().unwrap_or(f64::NAN);
            let r = libm::round(f);
            if !r.is_finite() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&r)
            {
                return Err(out_of_range(format!("{f} is out of range for INT64")));
            }
            V::Int64(r as i64)
        }
        (V::Int64(_) | V::Float32(_), SqlType::Float64) => V::Float64(v.as_f64().unwrap_or(0.0)),
        (V::Int64(_) | V::Float64(_), SqlType::Float32) => {
            V::Float32(v.as_f64().unwrap_or(0.0) as f32)
        }
        (V::Bool(b), SqlType::Int64) => V::Int64(i64::from(*b)),
        (V::Int64(i), SqlType::Bool) => V::Bool(*i != 0),
        (V::String(s), SqlType::Int64) => {
            let t = s.trim();
            let parsed = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                i64::from_str_radix(h, 16).ok()
            } else if let Some(h) = t.strip_prefix("-0x").or_else(|| t.strip_prefix("-0X")) {
                i64::from_str_radix(h, 16).ok().and_then(i64::checked_neg)
            } else {
                t.parse().ok()
            };
            V::Int64(parsed.ok_or_else(fail)?)
        }
        (V::String(s), SqlType::Float64 | SqlType::Float32) => {
            let t = s.trim();
            let f: f64 = match t.to_ascii_lowercase().as_str() {
                "nan" => f64::NAN,
                "inf" | "+inf" | "infinity" => f64::INFINITY,
                "-inf" | "-infinity" => f64::NEG_INFINITY,
                _ => t.parse().map_err(|_| fail())?,
            };
            if *ty == SqlType::Float32 {
                V::Float32(f as f32)
            } else {
                V::Float64(f)
            }
        }
        (V::String(s), SqlType::Bool) => match s.to_ascii_lowercase().as_str() {
            "true" => V::Bool(true),
            "false" => V::Bool(false),
            _ => return Err(fail()),
        },
        (V::String(s), SqlType::Bytes) => V::Bytes(s.as_bytes().to_vec()),
        (V::Bytes(b), SqlType::String) => V::String(
            String::from_utf8(b.clone())
                .map_err(|_| bad("cannot cast BYTES that are not valid UTF-8 to STRING"))?,
        ),
        (V::String(s), SqlType::Date) => functions::time::parse_date(s).ok_or_else(fail)?,
        (V::String(s), SqlType::Timestamp) => {
            functions::time::parse_timestamp(s).ok_or_else(fail)?
        }
        (V::Date { .. }, SqlType::Timestamp) => {
            let days = functions::time::days_from_civil(v).ok_or_else(fail)?;
            V::timestamp_micros(days * 86_400_000_000)
        }
        (V::Timestamp { .. }, SqlType::Date) => {
            let micros = v.as_micros().ok_or_else(fail)?;
            functions::time::civil_from_days(micros.div_euclid(86_400_000_000))
        }
        (_, SqlType::String) if !matches!(v, V::Array(_) | V::Map(_) | V::Struct(_)) => {
            V::String(to_text(v))
        }
        (V::Array(items), SqlType::Array(e)) => {
            V::Array(items.iter().map(|i| cast(i, e)).collect::<Result<_>>()?)
        }
        _ => return Err(fail()),
    })
}

/// The text of a value for messages.
pub fn describe(v: &SqlValue) -> String {
    match v {
        SqlValue::String(s) => format!("{s:?}"),
        other => to_text(other).to_string(),
    }
}

/// Evaluates a scalar call: the conditional functions (IF, IFNULL, COALESCE) evaluate only
/// the arguments they need, CURRENT_TIMESTAMP and CURRENT_DATE read the engine's clock, and
/// the rest get their evaluated arguments ([`functions::apply`]).
///
/// # Errors
/// As the function: OUT_OF_RANGE or INVALID_ARGUMENT; with `SAFE.` never (NULL instead).
fn call(name: &str, args: &[Expr], ctx: &Ctx<'_>) -> Result<SqlValue> {
    if let Some(Expr {
        kind: ExprKind::Lambda(_, body),
        ..
    }) = args.get(1)
    {
        return lambda_call(name, &args[0], body, ctx);
    }
    if let Some(inner) = name.strip_prefix("SAFE.") {
        return Ok(call(inner, args, ctx).unwrap_or(SqlValue::Null));
    }
    match name {
        "IF" => {
            let c = eval(&args[0], ctx)?;
            return eval(&args[if truthy(&c) { 1 } else { 2 }], ctx);
        }
        "IFNULL" | "COALESCE" => {
            for a in args {
                let v = eval(a, ctx)?;
                if !v.is_null() {
                    return Ok(v);
                }
            }
            return Ok(SqlValue::Null);
        }
        "CURRENT_TIMESTAMP" => return Ok(SqlValue::timestamp_micros(ctx.now_micros)),
        "RAND" => return Ok(SqlValue::Float64(rand())),
        "CURRENT_DATE" => {
            // CURRENT_DATE([zone]): today's date on the zone's wall clock (UTC without one).
            let zone = match args.first() {
                None => functions::zones::Zone::UTC,
                Some(z) => match eval(z, ctx)? {
                    SqlValue::Null => return Ok(SqlValue::Null),
                    SqlValue::String(z) => functions::zones::Zone::parse(&z)?,
                    _ => {
                        return Err(super::errors::bad(
                            "CURRENT_DATE: the time zone is a STRING",
                        ))
                    }
                },
            };
            return Ok(functions::time::civil_from_days(
                zone.local(ctx.now_micros).div_euclid(86_400_000_000),
            ));
        }
        _ => {}
    }
    let mut values = Vec::with_capacity(args.len());
    for a in args {
        values.push(eval(a, ctx)?);
    }
    functions::apply(name, &values)
}
