//! Typing the lambda functions: ARRAY_FILTER(array, e -> bool), ARRAY_TRANSFORM(array,
//! e -> value) and ARRAY_INCLUDES(array, e -> bool); the two-parameter form binds the
//! element's zero-based offset (INT64) as the second parameter. The body is typed with the
//! parameters bound to the array's element type and INT64. A lambda inside a lambda's body
//! is refused (GoogleSQL's reference shows none, and one level keeps a parameter's meaning
//! plain); so is a lambda anywhere else.

use alloc::format;
use alloc::vec;

use super::{is_null_lit, Planner};
use crate::api::sql::parse::{Expr, ExprKind};
use crate::api::sql::value::SqlType;
use crate::Result;

impl Planner<'_> {
    /// The type of `name(args)` whose second argument is a lambda.
    pub(super) fn lambda_call_type(
        &mut self,
        e: &Expr,
        name: &str,
        args: &[Expr],
    ) -> Result<SqlType> {
        let base = name.strip_prefix("SAFE.").unwrap_or(name);
        let (
            Some(array),
            Some(Expr {
                kind: ExprKind::Lambda(_, body),
                ..
            }),
            2,
        ) = (args.first(), args.get(1), args.len())
        else {
            return Err(self.err(e.pos, format!("{base} takes an array and a lambda")));
        };
        if !self.lambda_types.is_empty() {
            return Err(self.err(args[1].pos, "a lambda inside a lambda is not supported"));
        }
        let element = match self.ty(array)? {
            SqlType::Array(t) => *t,
            t => return Err(self.err(array.pos, format!("{base} takes an ARRAY, got {t}"))),
        };
        self.lambda_types = vec![element.clone(), SqlType::Int64];
        let body_type = self.ty(body);
        self.lambda_types.clear();
        let body_type = body_type?;
        match base {
            "ARRAY_TRANSFORM" => Ok(SqlType::array(body_type)),
            _ if body_type != SqlType::Bool && !is_null_lit(body) => Err(self.err(
                body.pos,
                format!("{base}'s lambda must give a BOOL, not {body_type}"),
            )),
            "ARRAY_FILTER" => Ok(SqlType::array(element)),
            _ => Ok(SqlType::Bool),
        }
    }

    /// The type of lambda parameter `i` where it is bound.
    pub(super) fn lambda_var_type(&self, e: &Expr, i: usize) -> Result<SqlType> {
        self.lambda_types
            .get(i)
            .cloned()
            .ok_or_else(|| self.err(e.pos, "a lambda parameter outside its lambda"))
    }
}
