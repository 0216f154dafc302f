//! The planner: checks a parsed query against the table's schema and the parameters' types,
//! works out every result column's type, rewrites aggregate queries into GROUP BY keys and
//! aggregate slots, and derives what the one read path can be told: key ranges, the
//! families and qualifiers read, version limits and time bounds.
//!
//! Invariants: pushdown only narrows what is read to a superset of what the query keeps (the
//! WHERE clause is still evaluated on every row read), so a pushed-down plan never answers
//! differently from a full scan. Anything the planner does not understand is an error naming
//! it and its position.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::ast::children_mut;
use super::eval::FamilyInfo;
use super::functions;
use super::parse::{err_at, BinOp, Expr, ExprKind, IndexMode, Nulls, Query, SelectItem};
use super::unpack::{desugar, UnpackPlan};
use super::value::{SqlType, SqlValue};
use super::SqlColumn;
use crate::model::row_key_schema::RowKeySchema;
use crate::Result;

mod aggregates;
mod fields;
mod lambdas;
mod unnest;

/// One aggregate of an aggregate query.
#[derive(Debug, Clone, PartialEq)]
pub struct AggCall {
    /// COUNT, SUM, ...
    pub name: String,
    /// Its argument (`None` for COUNT(*)).
    pub arg: Option<Expr>,
    /// The further arguments (STRING_AGG's separator, HLL_COUNT.INIT's precision,
    /// APPROX_TOP_SUM's weight, the APPROX functions' `number`).
    pub extra: Vec<Expr>,
    /// `DISTINCT`.
    pub distinct: bool,
    /// `IGNORE NULLS` / `RESPECT NULLS` (ARRAY_AGG and APPROX_QUANTILES only).
    pub nulls: Nulls,
    /// `ORDER BY` inside the call, over the row (ARRAY_AGG and STRING_AGG only).
    pub order: Vec<OrderBy>,
    /// `LIMIT` inside the call: a constant INT64.
    pub limit: Option<Expr>,
}

/// The grouping part of a plan.
#[derive(Debug, Clone, PartialEq)]
pub struct AggPlan {
    /// GROUP BY keys, over the row.
    pub groups: Vec<Expr>,
    /// The aggregates, over the row.
    pub aggs: Vec<AggCall>,
    /// HAVING, over the group.
    pub having: Option<Expr>,
}

/// One ORDER BY key, over the output row (items, groups and aggregates).
#[derive(Debug, Clone, PartialEq)]
pub struct OrderBy {
    /// The key.
    pub expr: Expr,
    /// Descending.
    pub desc: bool,
    /// NULLs sort first.
    pub nulls_first: bool,
}

/// A checked query.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The FROM table (or materialized view, see `view`).
    pub table: Option<String>,
    /// `table` names a continuous materialized view: its rows are the view's, and each
    /// family is an output column ([`FamilyInfo::column`]).
    pub view: bool,
    /// Every family of the table.
    pub families: BTreeMap<String, FamilyInfo>,
    /// Families read: `None` = the whole family, else these qualifiers.
    pub used: BTreeMap<String, Option<BTreeSet<Vec<u8>>>>,
    /// `with_history => TRUE`.
    pub history: bool,
    /// `latest_n`.
    pub latest_n: Option<Expr>,
    /// Time bounds: (`after`, `after_or_equal`, `before`, `before_or_equal`) argument values.
    pub time_bounds: Vec<(String, Expr)>,
    /// WHERE, over the row.
    pub filter: Option<Expr>,
    /// SELECT items: over the row, or over the group in an aggregate query.
    pub items: Vec<Expr>,
    /// Grouping, for an aggregate query.
    pub agg: Option<AggPlan>,
    /// ORDER BY.
    pub order: Vec<OrderBy>,
    /// LIMIT.
    pub limit: Option<Expr>,
    /// OFFSET.
    pub offset: Option<Expr>,
    /// SELECT DISTINCT.
    pub distinct: bool,
    /// `FROM UNPACK(...)`: rows are split by cell timestamp after the inner WHERE.
    pub unpack: Option<UnpackPlan>,
    /// The table's row-key schema: its fields are columns (see `key_fields`).
    pub key_schema: Option<RowKeySchema>,
    /// `UNNEST(array)` items of FROM: each array, over the row and the slots before it.
    pub unnest: Vec<Expr>,
}

pub(crate) struct Planner<'a> {
    pub sql: &'a str,
    pub params: &'a BTreeMap<String, SqlType>,
    pub plan: Plan,
    pub has_table: bool,
    /// A materialized view's query: `GROUP BY _key` names the SELECT item aliased `_key`
    /// (the view's row key, as Bigtable's view queries write it), not the table's key.
    pub view_key_alias: bool,
    /// FROM names a continuous materialized view (see [`Plan::view`]).
    pub reads_view: bool,
    group_types: Vec<SqlType>,
    agg_types: Vec<SqlType>,
    item_types: Vec<SqlType>,
    /// The parameter types of the lambda whose body is being typed (empty outside one).
    lambda_types: Vec<SqlType>,
    /// The types of the UNNEST slots ([`ExprKind::UnnestRef`]).
    unnest_types: Vec<SqlType>,
}

fn contains_aggregate(e: &mut Expr) -> bool {
    if let ExprKind::Call { name, .. } = &e.kind {
        if functions::is_aggregate(name) {
            return true;
        }
    }
    children_mut(e).into_iter().any(contains_aggregate)
}

/// Replaces SELECT aliases named in HAVING by the items they name (not `_key` or a family).
fn substitute_aliases(
    e: &mut Expr,
    items: &[(Expr, Option<String>)],
    families: &BTreeMap<String, FamilyInfo>,
) {
    if let ExprKind::Ident(n) = &e.kind {
        if n != "_key" && !families.contains_key(n) {
            if let Some((item, _)) = items
                .iter()
                .find(|(_, a)| a.as_deref().is_some_and(|a| a.eq_ignore_ascii_case(n)))
            {
                *e = item.clone();
            }
        }
        return;
    }
    for c in children_mut(e) {
        substitute_aliases(c, items, families);
    }
}

fn is_null_lit(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Lit(SqlValue::Null, _))
}

fn family_value(info: &FamilyInfo, history: bool) -> SqlType {
    let v = if info.aggregate {
        SqlType::Int64
    } else {
        SqlType::Bytes
    };
    if history {
        SqlType::array(SqlType::Struct(alloc::vec![
            ("timestamp".into(), SqlType::Timestamp),
            ("value".into(), v)
        ]))
    } else {
        v
    }
}

/// Whether `t` may be compared with `u` (`=`, `<`, IN, ...): the same type, two numbers, or
/// BYTES with a STRING (Bigtable coerces string literals to BYTES, as in `_key = 'r1'`).
fn comparable(t: &SqlType, u: &SqlType) -> bool {
    t == u
        || (t.is_numeric() && u.is_numeric())
        || matches!(
            (t, u),
            (SqlType::Bytes, SqlType::String) | (SqlType::String, SqlType::Bytes)
        )
        || matches!((t, u), (SqlType::Array(a), SqlType::Array(b)) if comparable(a, b))
}

impl<'a> Planner<'a> {
    pub fn new(sql: &'a str, params: &'a BTreeMap<String, SqlType>) -> Self {
        Planner {
            sql,
            params,
            plan: Plan {
                table: None,
                view: false,
                families: BTreeMap::new(),
                used: BTreeMap::new(),
                history: false,
                latest_n: None,
                time_bounds: Vec::new(),
                filter: None,
                items: Vec::new(),
                agg: None,
                order: Vec::new(),
                limit: None,
                offset: None,
                distinct: false,
                unpack: None,
                key_schema: None,
                unnest: Vec::new(),
            },
            has_table: false,
            view_key_alias: false,
            reads_view: false,
            group_types: Vec::new(),
            agg_types: Vec::new(),
            item_types: Vec::new(),
            lambda_types: Vec::new(),
            unnest_types: Vec::new(),
        }
    }

    /// Plans against a table whose row keys follow `schema`.
    pub fn with_key_schema(mut self, schema: Option<RowKeySchema>) -> Self {
        self.plan.key_schema = schema;
        self
    }

    /// The index and type of the key field `name`, if the table has one.
    fn key_field(&self, name: &str) -> Option<SqlType> {
        let schema = self.plan.key_schema.as_ref()?;
        let i = schema.position(name)?;
        Some(super::key_fields::field_type(schema.fields[i].field_type))
    }

    fn err(&self, pos: usize, msg: impl core::fmt::Display) -> crate::Error {
        err_at(self.sql, pos, msg)
    }

    /// The type of `e`, recording the families and qualifiers it reads.
    pub fn ty(&mut self, e: &Expr) -> Result<SqlType> {
        use ExprKind as K;
        use SqlType as T;
        Ok(match &e.kind {
            K::Lit(v, _) => match v {
                SqlValue::Null => T::Int64,
                SqlValue::Bytes(_) => T::Bytes,
                SqlValue::String(_) => T::String,
                SqlValue::Int64(_) => T::Int64,
                SqlValue::Float32(_) => T::Float32,
                SqlValue::Float64(_) => T::Float64,
                SqlValue::Bool(_) => T::Bool,
                SqlValue::Timestamp { .. } => T::Timestamp,
                SqlValue::Date { .. } => T::Date,
                _ => return Err(self.err(e.pos, "unexpected literal")),
            },
            K::Param(p) => self.params.get(p).cloned().ok_or_else(|| {
                self.err(
                    e.pos,
                    format!("parameter @{p} has no type (give it in param_types)"),
                )
            })?,
            K::Ident(name) => {
                if !self.has_table {
                    return Err(self.err(
                        e.pos,
                        format!("unrecognized name {name} (the query has no FROM table)"),
                    ));
                }
                if name == "_key" {
                    T::Bytes
                } else if let Some(t) = self.key_field(name) {
                    t
                } else if name == "_timestamp" && self.plan.unpack.is_some() {
                    T::Timestamp
                } else if name == "_timestamp" {
                    return Err(self.err(e.pos, "_timestamp exists only under UNPACK"));
                } else if let Some(info) = self.plan.families.get(name).cloned() {
                    self.plan.used.insert(name.clone(), None);
                    match info.column {
                        Some(t) => t,
                        None => T::map(T::Bytes, family_value(&info, self.plan.history)),
                    }
                } else {
                    let what = match (&self.plan.table, self.plan.view) {
                        (Some(v), true) => format!("not a column of materialized view {v}"),
                        _ => "not _key and not a column family of the table".to_string(),
                    };
                    return Err(self.err(e.pos, format!("unrecognized name {name}: {what}")));
                }
            }
            K::GroupRef(i) => self.group_types.get(*i).cloned().unwrap_or(T::Int64),
            K::AggRef(i) => self.agg_types.get(*i).cloned().unwrap_or(T::Int64),
            K::ItemRef(i) => self.item_types.get(*i).cloned().unwrap_or(T::Int64),
            K::UnnestRef(i) => self.unnest_types.get(*i).cloned().unwrap_or(T::Int64),
            K::Index(base, idx, mode) => {
                // `family['q']` records one qualifier rather than the whole family.
                if let (K::Ident(f), K::Lit(q, _)) = (&base.kind, &idx.kind) {
                    if let (Some(info), Some(q)) =
                        (self.plan.families.get(f).cloned(), q.as_bytes())
                    {
                        if self.has_table && *mode == IndexMode::Offset && info.column.is_none() {
                            let entry = self
                                .plan
                                .used
                                .entry(f.clone())
                                .or_insert_with(|| Some(BTreeSet::new()));
                            if let Some(set) = entry {
                                set.insert(q.to_vec());
                            }
                            return Ok(family_value(&info, self.plan.history));
                        }
                    }
                }
                let b = self.ty(base)?;
                let i = self.ty(idx)?;
                match (b, *mode) {
                    (T::Map(k, v), IndexMode::Offset) => {
                        if !comparable(&k, &i) && !is_null_lit(idx) {
                            return Err(
                                self.err(idx.pos, format!("a MAP<{k}, ...> key cannot be a {i}"))
                            );
                        }
                        *v
                    }
                    (T::Array(el), _) => {
                        if i != T::Int64 {
                            return Err(
                                self.err(idx.pos, format!("an array index is INT64, not {i}"))
                            );
                        }
                        *el
                    }
                    (other, _) => {
                        return Err(self.err(e.pos, format!("a {other} cannot be indexed")))
                    }
                }
            }
            K::FieldAt(base, i) => match self.ty(base)? {
                T::Struct(fields) => fields.get(*i).map_or(T::Int64, |f| f.1.clone()),
                other => return Err(self.err(e.pos, format!("{other} has no fields"))),
            },
            K::Field(base, name) => match self.ty(base)? {
                T::Struct(fields) => fields
                    .into_iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case(name))
                    .map(|(_, t)| t)
                    .ok_or_else(|| self.err(e.pos, format!("the struct has no field {name}")))?,
                other => return Err(self.err(e.pos, format!("{other} has no field {name}"))),
            },
            K::Neg(x) => {
                let t = self.ty(x)?;
                if !t.is_numeric() {
                    return Err(self.err(e.pos, format!("unary minus takes a number, not {t}")));
                }
                t
            }
            K::BitNot(x) => self.ty(x)?,
            K::Not(x) => {
                self.want_bool(x)?;
                T::Bool
            }
            K::Bin(op, l, r) => {
                let (a, b) = (self.ty(l)?, self.ty(r)?);
                match op {
                    BinOp::And | BinOp::Or => {
                        self.want_bool(l)?;
                        self.want_bool(r)?;
                        T::Bool
                    }
                    BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                        let ordered = !matches!(op, BinOp::Eq | BinOp::Ne);
                        let untyped = is_null_lit(l) || is_null_lit(r);
                        if !untyped && !comparable(&a, &b)
                            || (ordered && !a.is_orderable())
                            || (!ordered && !a.is_groupable())
                        {
                            return Err(self
                                .err(e.pos, format!("no matching signature for {a} {op:?} {b}")));
                        }
                        if !self.coercible(l, &a, r, &b) {
                            return Err(
                                self.err(e.pos, format!("{a} and {b} need a CAST to be compared"))
                            );
                        }
                        T::Bool
                    }
                    BinOp::Concat => {
                        if a == T::Bytes || b == T::Bytes {
                            T::Bytes
                        } else {
                            T::String
                        }
                    }
                    BinOp::Div => {
                        if !(a.is_numeric() || is_null_lit(l))
                            || !(b.is_numeric() || is_null_lit(r))
                        {
                            return Err(
                                self.err(e.pos, format!("no matching signature for {a} / {b}"))
                            );
                        }
                        T::Float64
                    }
                    BinOp::Add | BinOp::Sub | BinOp::Mul => {
                        if !(a.is_numeric() || is_null_lit(l))
                            || !(b.is_numeric() || is_null_lit(r))
                        {
                            return Err(self
                                .err(e.pos, format!("no matching signature for {a} {op:?} {b}")));
                        }
                        if a == T::Int64 && b == T::Int64 {
                            T::Int64
                        } else if a == T::Float32 && b == T::Float32 {
                            T::Float32
                        } else {
                            T::Float64
                        }
                    }
                    _ => {
                        if !((a == T::Int64 && b == T::Int64) || (a == T::Bytes && b == T::Bytes)) {
                            return Err(self.err(
                                e.pos,
                                format!("bit operators take INT64 or BYTES, not {a} and {b}"),
                            ));
                        }
                        a
                    }
                }
            }
            K::IsNull(x, _) => {
                self.ty(x)?;
                T::Bool
            }
            K::IsBool(x, ..) => {
                self.want_bool(x)?;
                T::Bool
            }
            K::In(x, list, _) => {
                let t = self.ty(x)?;
                for item in list {
                    let u = self.ty(item)?;
                    if !comparable(&t, &u) && !is_null_lit(item) && !is_null_lit(x) {
                        return Err(self.err(item.pos, format!("IN compares {t} with {u}")));
                    }
                }
                T::Bool
            }
            K::InUnnest(x, a, _) => {
                self.ty(x)?;
                if !matches!(self.ty(a)?, T::Array(_)) {
                    return Err(self.err(a.pos, "UNNEST takes an ARRAY"));
                }
                T::Bool
            }
            K::Between(x, lo, hi, _) => {
                let t = self.ty(x)?;
                for b in [lo, hi] {
                    let u = self.ty(b)?;
                    if (!comparable(&t, &u) && !is_null_lit(b) && !is_null_lit(x))
                        || !t.is_orderable()
                    {
                        return Err(self.err(b.pos, format!("BETWEEN compares {t} with {u}")));
                    }
                }
                T::Bool
            }
            K::Like(x, p, _) => {
                let (t, u) = (self.ty(x)?, self.ty(p)?);
                if !is_null_lit(x)
                    && !is_null_lit(p)
                    && (!matches!(t, T::String | T::Bytes) || !comparable(&t, &u))
                {
                    return Err(self.err(
                        e.pos,
                        format!("LIKE takes STRING or BYTES, not {t} and {u}"),
                    ));
                }
                T::Bool
            }
            K::Case(operand, whens, els) => {
                let subject = match operand {
                    Some(o) => Some(self.ty(o)?),
                    None => None,
                };
                let mut result: Option<SqlType> = None;
                for (w, t) in whens {
                    let wt = self.ty(w)?;
                    match &subject {
                        Some(s) if !comparable(s, &wt) => {
                            return Err(self.err(w.pos, format!("CASE compares {s} with {wt}")))
                        }
                        None if wt != T::Bool => {
                            return Err(
                                self.err(w.pos, format!("a WHEN condition is BOOL, not {wt}"))
                            )
                        }
                        _ => {}
                    }
                    let tt = self.ty(t)?;
                    result = Some(self.unify(result, tt, t)?);
                }
                if let Some(x) = els {
                    let tt = self.ty(x)?;
                    result = Some(self.unify(result, tt, x)?);
                }
                result.unwrap_or(T::Int64)
            }
            K::Cast(x, ty, _) => {
                self.ty(x)?;
                ty.clone()
            }
            K::Extract(part, x, zone) => {
                let t = self.ty(x)?;
                if !matches!(t, T::Timestamp | T::Date) {
                    return Err(
                        self.err(e.pos, format!("EXTRACT takes a TIMESTAMP or DATE, not {t}"))
                    );
                }
                if let Some(z) = zone {
                    if t != T::Timestamp {
                        return Err(self.err(e.pos, "EXTRACT ... AT TIME ZONE takes a TIMESTAMP"));
                    }
                    let zt = self.ty(z)?;
                    if !matches!(zt, T::String) {
                        return Err(self.err(z.pos, format!("a time zone is a STRING, not {zt}")));
                    }
                }
                if part == "DATE" {
                    T::Date
                } else {
                    T::Int64
                }
            }
            K::Array(items) => {
                let mut el: Option<SqlType> = None;
                for i in items {
                    let t = self.ty(i)?;
                    el = Some(self.unify(el, t, i)?);
                }
                T::array(el.unwrap_or(T::Int64))
            }
            K::Struct(fields) => {
                let mut out = Vec::new();
                for (n, f) in fields {
                    out.push((n.clone(), self.ty(f)?));
                }
                T::Struct(out)
            }
            K::Call { name, args, .. }
                if matches!(args.get(1).map(|a| &a.kind), Some(K::Lambda(..))) =>
            {
                self.lambda_call_type(e, name, args)?
            }
            K::Lambda(..) => return Err(self.err(
                e.pos,
                "a lambda is an argument of ARRAY_FILTER, ARRAY_TRANSFORM or ARRAY_INCLUDES only",
            )),
            K::LambdaVar(i) => self.lambda_var_type(e, *i)?,
            K::Call {
                name,
                args,
                star,
                distinct,
                nulls,
                clauses,
            } => {
                if functions::is_aggregate(name) {
                    return Err(self.err(e.pos, format!("aggregate {name} is not allowed here")));
                }
                if *star || *distinct || *nulls != Nulls::Default || clauses.is_some() {
                    return Err(self.err(e.pos, format!("{name} is not an aggregate")));
                }
                let mut types = Vec::with_capacity(args.len());
                for a in args {
                    types.push(self.ty(a)?);
                }
                // An untyped NULL argument takes the type of its siblings (IF's from its
                // branches), so COALESCE(NULL, 'x') is a STRING.
                let from = usize::from(name == "IF");
                let fill = args
                    .iter()
                    .zip(&types)
                    .skip(from)
                    .find(|(a, _)| !is_null_lit(a))
                    .map(|(_, t)| t.clone());
                if let Some(fill) = fill {
                    for (i, a) in args.iter().enumerate().skip(from) {
                        if is_null_lit(a) {
                            types[i] = fill.clone();
                        }
                    }
                }
                // HLL_COUNT.EXTRACT(NULL): the NULL is a NULL sketch.
                if name == "HLL_COUNT.EXTRACT" && args.len() == 1 && is_null_lit(&args[0]) {
                    types[0] = T::Bytes;
                }
                match functions::result_type(name, &types) {
                    None => return Err(self.err(e.pos, format!("function not found: {name}"))),
                    Some(Err(m)) => return Err(self.err(e.pos, m)),
                    Some(Ok(t)) => t,
                }
            }
        })
    }

    /// A STRING compared with BYTES must be a literal or a parameter (literal coercion).
    fn coercible(&self, l: &Expr, a: &SqlType, r: &Expr, b: &SqlType) -> bool {
        let loose = |e: &Expr| matches!(e.kind, ExprKind::Lit(..) | ExprKind::Param(_));
        match (a, b) {
            (SqlType::String, SqlType::Bytes) => loose(l),
            (SqlType::Bytes, SqlType::String) => loose(r),
            _ => true,
        }
    }

    fn unify(&self, have: Option<SqlType>, t: SqlType, at: &Expr) -> Result<SqlType> {
        let is_null = matches!(at.kind, ExprKind::Lit(SqlValue::Null, _));
        match have {
            None => Ok(t),
            Some(h) if h == t || is_null => Ok(h),
            Some(h) if h.is_numeric() && t.is_numeric() => Ok(SqlType::Float64),
            Some(h) => Err(self.err(
                at.pos,
                format!("the branches have different types {h} and {t}"),
            )),
        }
    }

    fn want_bool(&mut self, e: &Expr) -> Result<()> {
        let t = self.ty(e)?;
        if t != SqlType::Bool && !is_null_lit(e) {
            return Err(self.err(e.pos, format!("expected a BOOL, got {t}")));
        }
        Ok(())
    }

    /// Replaces GROUP BY keys and aggregate calls in `e` by slots.
    fn rewrite(&mut self, e: &mut Expr, aggs: &mut Vec<AggCall>, groups: &[Expr]) -> Result<()> {
        if let Some(i) = groups.iter().position(|g| g == e) {
            e.kind = ExprKind::GroupRef(i);
            return Ok(());
        }
        if let ExprKind::Call {
            name,
            args,
            distinct,
            star,
            nulls,
            clauses,
        } = &mut e.kind
        {
            if functions::is_aggregate(name) {
                let mut call = self.aggregate(name, args, *distinct, *star, *nulls, e.pos)?;
                if let Some(c) = clauses {
                    self.agg_clauses(&mut call, c, e.pos)?;
                }
                let i = match aggs.iter().position(|a| *a == call) {
                    Some(i) => i,
                    None => {
                        aggs.push(call);
                        aggs.len() - 1
                    }
                };
                e.kind = ExprKind::AggRef(i);
                return Ok(());
            }
        }
        if let ExprKind::Ident(name) = &e.kind {
            return Err(self.err(e.pos, format!("{name} is neither grouped nor aggregated")));
        }
        for c in children_mut(e) {
            self.rewrite(c, aggs, groups)?;
        }
        Ok(())
    }

    /// Plans a parsed query; `families` is the table's schema (in creation order).
    pub fn plan(
        mut self,
        mut q: Query,
        families: Vec<(String, FamilyInfo)>,
    ) -> Result<(Plan, Vec<SqlColumn>)> {
        let unpack = desugar(self.sql, &mut q, &families)?;
        self.has_table = q.table.is_some();
        self.plan.table = q.table.as_ref().map(|(t, _)| t.clone());
        self.plan.view = self.reads_view;
        self.plan.families = families.iter().cloned().collect();
        self.plan.distinct = q.distinct;
        for (name, value) in core::mem::take(&mut q.table_args) {
            match name.to_ascii_lowercase().as_str() {
                "with_history" => match &value.kind {
                    ExprKind::Lit(SqlValue::Bool(b), _) => self.plan.history = *b,
                    _ => return Err(self.err(value.pos, "with_history takes TRUE or FALSE")),
                },
                "latest_n" => {
                    let positive =
                        !matches!(value.kind, ExprKind::Lit(SqlValue::Int64(n), _) if n < 1);
                    if self.ty(&value)? != SqlType::Int64 || !positive {
                        return Err(self.err(value.pos, "latest_n takes a positive INT64"));
                    }
                    self.plan.latest_n = Some(value);
                }
                n @ ("after" | "after_or_equal" | "before" | "before_or_equal") => {
                    if self.ty(&value)? != SqlType::Timestamp {
                        return Err(self.err(value.pos, format!("{n} takes a TIMESTAMP")));
                    }
                    self.plan.time_bounds.push((n.to_string(), value));
                }
                other => {
                    return Err(self.err(value.pos, format!("unknown table argument {other}")));
                }
            }
        }
        if !self.plan.history && (self.plan.latest_n.is_some() || !self.plan.time_bounds.is_empty())
        {
            let pos = q.table.as_ref().map_or(0, |t| t.1);
            return Err(self.err(pos, "latest_n, after and before need with_history => TRUE"));
        }
        if let Some(u) = unpack {
            // The inner query reads with history and filters whole rows; the outer query
            // sees one row per timestamp, read as newest values.
            let pos = q.table.as_ref().map_or(0, |t| t.1);
            if !self.plan.history {
                return Err(self.err(pos, "UNPACK's query must read with_history => TRUE"));
            }
            if let Some(f) = &u.filter {
                if contains_aggregate(&mut f.clone()) {
                    return Err(self.err(f.pos, "aggregates are not allowed in WHERE"));
                }
                self.want_bool(f)?;
            }
            for c in &u.columns {
                self.ty(c)?;
            }
            self.plan.history = false;
            self.plan.unpack = Some(u);
        }
        let unnest_star = self.plan_unnest(&mut q)?;
        // SELECT items, with `*` expanded to _key and every family in creation order.
        let mut items: Vec<(Expr, Option<String>)> = Vec::new();
        for item in core::mem::take(&mut q.items) {
            match item {
                SelectItem::Star(pos) if !self.has_table => {
                    if unnest_star.is_empty() {
                        return Err(self.err(pos, "SELECT * needs a FROM table"));
                    }
                    items.extend(unnest_star.iter().cloned());
                }
                SelectItem::Star(pos) => {
                    // With a row-key schema `_key` is a pseudo-column: the key's fields
                    // stand in for it.
                    let key_columns: Vec<String> = match &self.plan.key_schema {
                        Some(s) => s.fields.iter().map(|f| f.name.clone()).collect(),
                        None => alloc::vec!["_key".into()],
                    };
                    for name in key_columns {
                        items.push((
                            Expr {
                                kind: ExprKind::Ident(name),
                                pos,
                            },
                            None,
                        ));
                    }
                    for (f, _) in &families {
                        items.push((
                            Expr {
                                kind: ExprKind::Ident(f.clone()),
                                pos,
                            },
                            None,
                        ));
                    }
                    items.extend(unnest_star.iter().cloned());
                }
                SelectItem::Expr(e, alias) => items.push((e, alias)),
            }
        }
        let names: Vec<String> = items
            .iter()
            .enumerate()
            .map(|(i, (e, alias))| match (alias, &e.kind) {
                (Some(a), _) => a.clone(),
                (None, ExprKind::Ident(n)) => n.clone(),
                _ => format!("$col{}", i + 1),
            })
            .collect();
        if let Some(f) = q.filter.take() {
            let mut f = f;
            if contains_aggregate(&mut f) {
                return Err(self.err(f.pos, "aggregates are not allowed in WHERE (use HAVING)"));
            }
            self.want_bool(&f)?;
            self.plan.filter = Some(f);
        }
        let aggregate = !q.group_by.is_empty()
            || q.having.is_some()
            || items.iter_mut().any(|(e, _)| contains_aggregate(e));
        let resolve_alias = |e: &Expr, items: &[(Expr, Option<String>)]| -> Option<usize> {
            match &e.kind {
                ExprKind::Ident(n) => items
                    .iter()
                    .position(|(_, a)| a.as_deref().is_some_and(|a| a.eq_ignore_ascii_case(n))),
                ExprKind::Lit(SqlValue::Int64(i), _) if *i >= 1 && (*i as usize) <= items.len() => {
                    Some(*i as usize - 1)
                }
                _ => None,
            }
        };
        let mut columns = Vec::new();
        if aggregate {
            let mut groups = Vec::new();
            for g in core::mem::take(&mut q.group_by) {
                // GROUP BY an alias or a position means that SELECT item.
                let g = match resolve_alias(&g, &items) {
                    Some(i) if !matches!(&g.kind, ExprKind::Ident(n) if (n == "_key" && !self.view_key_alias) || self.plan.families.contains_key(n) || self.key_field(n).is_some()) => {
                        items[i].0.clone()
                    }
                    _ => g,
                };
                let mut probe = g.clone();
                if contains_aggregate(&mut probe) {
                    return Err(self.err(g.pos, "GROUP BY cannot group by an aggregate"));
                }
                let t = self.ty(&g)?;
                if !t.is_groupable() {
                    return Err(self.err(g.pos, format!("cannot GROUP BY a {t}")));
                }
                self.group_types.push(t);
                groups.push(g);
            }
            let mut aggs = Vec::new();
            let mut planned = Vec::new();
            for (e, _) in &items {
                let mut e = e.clone();
                self.rewrite(&mut e, &mut aggs, &groups)?;
                planned.push(e);
            }
            let mut having = q.having.take();
            if let Some(h) = &mut having {
                substitute_aliases(h, &items, &self.plan.families);
                self.rewrite(h, &mut aggs, &groups)?;
            }
            let mut order = Vec::new();
            for k in core::mem::take(&mut q.order_by) {
                let mut e = match resolve_alias(&k.expr, &items) {
                    Some(i) => Expr {
                        kind: ExprKind::ItemRef(i),
                        pos: k.expr.pos,
                    },
                    None => k.expr,
                };
                self.rewrite(&mut e, &mut aggs, &groups)?;
                order.push(OrderBy {
                    expr: e,
                    desc: k.desc,
                    nulls_first: k.nulls_first.unwrap_or(!k.desc),
                });
            }
            for a in aggs.clone() {
                let t = self.agg_type(&a)?;
                self.agg_types.push(t);
            }
            for (e, name) in planned.iter().zip(&names) {
                let ty = self.ty(e)?;
                self.item_types.push(ty.clone());
                columns.push(SqlColumn {
                    name: name.clone(),
                    ty,
                });
            }
            if let Some(h) = &having {
                self.want_bool(h)?;
            }
            for o in &order {
                let t = self.ty(&o.expr)?;
                if !t.is_orderable() {
                    return Err(self.err(o.expr.pos, format!("cannot ORDER BY a {t}")));
                }
            }
            self.plan.items = planned;
            self.plan.agg = Some(AggPlan {
                groups,
                aggs,
                having,
            });
            self.plan.order = order;
        } else {
            for ((e, _), name) in items.iter().zip(&names) {
                let ty = self.ty(e)?;
                self.item_types.push(ty.clone());
                columns.push(SqlColumn {
                    name: name.clone(),
                    ty,
                });
            }
            for k in core::mem::take(&mut q.order_by) {
                let e = match resolve_alias(&k.expr, &items) {
                    Some(i) => Expr {
                        kind: ExprKind::ItemRef(i),
                        pos: k.expr.pos,
                    },
                    None => {
                        if let Some(i) = items.iter().position(|(e, _)| *e == k.expr) {
                            Expr {
                                kind: ExprKind::ItemRef(i),
                                pos: k.expr.pos,
                            }
                        } else {
                            if q.distinct {
                                return Err(self.err(
                                    k.expr.pos,
                                    "with SELECT DISTINCT, ORDER BY must name a SELECT item",
                                ));
                            }
                            k.expr
                        }
                    }
                };
                let t = self.ty(&e)?;
                if !t.is_orderable() {
                    return Err(self.err(e.pos, format!("cannot ORDER BY a {t}")));
                }
                self.plan.order.push(OrderBy {
                    expr: e,
                    desc: k.desc,
                    nulls_first: k.nulls_first.unwrap_or(!k.desc),
                });
            }
            self.plan.items = items.into_iter().map(|(e, _)| e).collect();
        }
        if q.distinct {
            for c in &columns {
                if !c.ty.is_groupable() {
                    return Err(self.err(
                        0,
                        format!(
                            "SELECT DISTINCT cannot compare column {} of type {}",
                            c.name, c.ty
                        ),
                    ));
                }
            }
        }
        for (slot, e) in [
            (&mut self.plan.limit, q.limit),
            (&mut self.plan.offset, q.offset),
        ] {
            if let Some(e) = e {
                let ok = matches!(e.kind, ExprKind::Lit(SqlValue::Int64(n), _) if n >= 0)
                    || matches!(&e.kind, ExprKind::Param(p) if self.params.get(p) == Some(&SqlType::Int64));
                if !ok {
                    return Err(err_at(
                        self.sql,
                        e.pos,
                        "LIMIT and OFFSET take a non-negative INT64 literal or parameter",
                    ));
                }
                *slot = Some(e);
            }
        }
        self.finish_types()?;
        Ok((self.plan, columns))
    }
}
