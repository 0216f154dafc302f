//! The query tree the parser builds and the planner rewrites: expressions with their byte
//! positions, SELECT items, ORDER BY keys and the query.
//!
//! Invariants: two expressions are equal when their trees are, wherever they were written
//! (positions are ignored), which is how GROUP BY keys match SELECT items.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use super::value::{SqlType, SqlValue};

/// A binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (always FLOAT64)
    Div,
    /// `||`
    Concat,
    /// `=`
    Eq,
    /// `!=` / `<>`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `AND`
    And,
    /// `OR`
    Or,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
}

/// How `array[...]` indexes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexMode {
    /// `a[i]` or `a[OFFSET(i)]`: zero-based, out of range is an error. For a map, `m[k]`.
    Offset,
    /// `a[SAFE_OFFSET(i)]`: zero-based, out of range is NULL.
    SafeOffset,
    /// `a[ORDINAL(i)]`: one-based.
    Ordinal,
    /// `a[SAFE_ORDINAL(i)]`: one-based, out of range is NULL.
    SafeOrdinal,
}

/// An expression and where it starts in the query text.
#[derive(Debug, Clone)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Byte offset in the query.
    pub pos: usize,
}

impl PartialEq for Expr {
    /// Expressions are the same when their trees are, wherever they were written (GROUP BY
    /// matches SELECT items this way).
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
    }
}

/// An aggregate call's NULL handling, as GoogleSQL's `{IGNORE | RESPECT} NULLS` clause.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Nulls {
    /// No clause: the function's own default.
    #[default]
    Default,
    /// `IGNORE NULLS`: NULL inputs are skipped.
    Ignore,
    /// `RESPECT NULLS`: NULL inputs count.
    Respect,
}

impl BinOp {
    /// The comparison with its operands swapped (`a < b` is `b > a`); `None` for operators
    /// that are not comparisons.
    pub fn mirrored(self) -> Option<BinOp> {
        Some(match self {
            BinOp::Eq => BinOp::Eq,
            BinOp::Lt => BinOp::Gt,
            BinOp::Le => BinOp::Ge,
            BinOp::Gt => BinOp::Lt,
            BinOp::Ge => BinOp::Le,
            _ => return None,
        })
    }
}

/// The kinds of expression.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub enum ExprKind {
    Lit(SqlValue, Option<SqlType>),
    Param(String),
    Ident(String),
    Index(Box<Expr>, Box<Expr>, IndexMode),
    Field(Box<Expr>, String),
    Neg(Box<Expr>),
    BitNot(Box<Expr>),
    Not(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    IsNull(Box<Expr>, bool),
    IsBool(Box<Expr>, bool, bool),
    In(Box<Expr>, Vec<Expr>, bool),
    InUnnest(Box<Expr>, Box<Expr>, bool),
    Between(Box<Expr>, Box<Expr>, Box<Expr>, bool),
    Like(Box<Expr>, Box<Expr>, bool),
    Case(Option<Box<Expr>>, Vec<(Expr, Expr)>, Option<Box<Expr>>),
    Cast(Box<Expr>, SqlType, bool),
    Call {
        name: String,
        args: Vec<Expr>,
        distinct: bool,
        star: bool,
        /// `IGNORE NULLS` / `RESPECT NULLS` after the arguments (aggregates only).
        nulls: Nulls,
        /// `ORDER BY` / `LIMIT` before the `)` (aggregates only).
        clauses: Option<Box<AggClauses>>,
    },
    Array(Vec<Expr>),
    Struct(Vec<(String, Expr)>),
    /// `EXTRACT(part FROM x [AT TIME ZONE zone])`.
    Extract(String, Box<Expr>, Option<Box<Expr>>),
    /// Set by the planner: the i-th aggregate of the query.
    AggRef(usize),
    /// Set by the planner: the i-th GROUP BY key.
    GroupRef(usize),
    /// Set by the planner: the i-th SELECT item (ORDER BY a name or a position).
    ItemRef(usize),
    /// A lambda argument (`e -> body`, `(e, i) -> body`) of ARRAY_FILTER, ARRAY_TRANSFORM
    /// or ARRAY_INCLUDES: its parameter count and its body, in which the parameters are
    /// [`ExprKind::LambdaVar`]s.
    Lambda(usize, Box<Expr>),
    /// The i-th parameter of the enclosing lambda (0: the element, 1: its offset).
    LambdaVar(usize),
    /// Set by the planner: `s.name` as the position of `name` in `s`'s STRUCT type.
    FieldAt(Box<Expr>, usize),
    /// Set by the planner: the i-th column an `UNNEST` in FROM adds (for the j-th UNNEST,
    /// slot `2j` is its element and `2j + 1` its offset).
    UnnestRef(usize),
}

/// One SELECT item.
#[derive(Debug, Clone)]
pub enum SelectItem {
    /// `*`, at a position.
    Star(usize),
    /// An expression and its alias.
    Expr(Expr, Option<String>),
}

/// `ORDER BY` and `LIMIT` inside an aggregate call: the order of the values it collects and
/// how many it keeps.
#[derive(Debug, Clone, PartialEq)]
pub struct AggClauses {
    /// The ORDER BY keys, over the row (empty: the order rows come in).
    pub order: Vec<OrderKey>,
    /// LIMIT's count.
    pub limit: Option<Expr>,
}

/// One ORDER BY key.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderKey {
    /// The key.
    pub expr: Expr,
    /// DESC.
    pub desc: bool,
    /// NULLS FIRST (`Some(true)`) / LAST; default NULLs first ascending, last descending.
    pub nulls_first: Option<bool>,
}

/// A parsed query.
#[derive(Debug, Clone)]
pub struct Query {
    /// SELECT DISTINCT.
    pub distinct: bool,
    /// The SELECT list.
    pub items: Vec<SelectItem>,
    /// The FROM table and its position.
    pub table: Option<(String, usize)>,
    /// Named arguments of the table (`t(with_history => TRUE)`).
    pub table_args: Vec<(String, Expr)>,
    /// WHERE.
    pub filter: Option<Expr>,
    /// GROUP BY.
    pub group_by: Vec<Expr>,
    /// HAVING.
    pub having: Option<Expr>,
    /// ORDER BY.
    pub order_by: Vec<OrderKey>,
    /// LIMIT.
    pub limit: Option<Expr>,
    /// OFFSET.
    pub offset: Option<Expr>,
    /// `FROM UNPACK((inner))`: the inner query, whose table is also `table` above.
    pub unpack: Option<Box<Query>>,
    /// The table's alias (`FROM t AS a`): a path in UNNEST may start with it or the name.
    pub table_alias: Option<String>,
    /// `UNNEST(...)` items of FROM, in order (after the table, or alone).
    pub unnest: Vec<Unnest>,
}

/// One `UNNEST(array) [AS alias] [WITH OFFSET [AS alias]]` of FROM.
#[derive(Debug, Clone)]
pub struct Unnest {
    /// The array, over the row (and the UNNESTs before this one).
    pub array: Expr,
    /// The element column's name (empty: anonymous, as `UNNEST([1, 2])` alone).
    pub alias: String,
    /// `WITH OFFSET`: the offset column's name (`offset` unless aliased).
    pub offset: Option<String>,
    /// Where `UNNEST` is written.
    pub pos: usize,
}

/// The direct sub-expressions of `e`, for the planner's rewrites and checks.
pub fn children_mut(e: &mut Expr) -> Vec<&mut Expr> {
    use ExprKind as K;
    match &mut e.kind {
        K::Lambda(_, body) => alloc::vec![&mut **body],
        K::Lit(..)
        | K::Param(_)
        | K::Ident(_)
        | K::AggRef(_)
        | K::GroupRef(_)
        | K::ItemRef(_)
        | K::UnnestRef(_)
        | K::LambdaVar(_) => Vec::new(),
        K::Index(a, b, _) | K::Bin(_, a, b) | K::Like(a, b, _) | K::InUnnest(a, b, _) => {
            alloc::vec![&mut **a, &mut **b]
        }
        K::Field(a, _)
        | K::FieldAt(a, _)
        | K::Neg(a)
        | K::BitNot(a)
        | K::Not(a)
        | K::IsNull(a, _)
        | K::IsBool(a, ..)
        | K::Cast(a, ..)
        | K::Extract(_, a, None) => alloc::vec![&mut **a],
        K::Extract(_, a, Some(z)) => alloc::vec![&mut **a, &mut **z],
        K::In(a, list, _) => {
            let mut v = alloc::vec![&mut **a];
            v.extend(list.iter_mut());
            v
        }
        K::Between(a, b, c, _) => alloc::vec![&mut **a, &mut **b, &mut **c],
        K::Case(o, whens, els) => {
            let mut v = Vec::new();
            if let Some(o) = o {
                v.push(&mut **o);
            }
            for (w, t) in whens {
                v.push(w);
                v.push(t);
            }
            if let Some(e) = els {
                v.push(&mut **e);
            }
            v
        }
        K::Call { args, clauses, .. } => {
            let mut v: Vec<&mut Expr> = args.iter_mut().collect();
            if let Some(c) = clauses {
                let AggClauses { order, limit } = &mut **c;
                v.extend(order.iter_mut().map(|k| &mut k.expr));
                v.extend(limit.as_mut());
            }
            v
        }
        K::Array(args) => args.iter_mut().collect(),
        K::Struct(fields) => fields.iter_mut().map(|(_, e)| e).collect(),
    }
}
