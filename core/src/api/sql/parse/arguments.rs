//! Arguments written in a function's own syntax rather than as expressions.
//!
//! NORMALIZE's and NORMALIZE_AND_CASEFOLD's mode is a bare word, `NFC`, `NFKC`, `NFD` or
//! `NFKD` (read as its name, so it never resolves as a column).
//!
//! Lambda arguments: `element -> body` or `(element, offset) -> body`, the second argument
//! of ARRAY_FILTER, ARRAY_TRANSFORM and ARRAY_INCLUDES (GoogleSQL's "Lambdas" in the
//! functions reference; Bigtable's array functions page uses them in those three). The body's
//! mentions of the parameters become [`ExprKind::LambdaVar`]s here, so the planner and the
//! evaluator never confuse a parameter with a column of the same name (the parameter wins,
//! as a name bound closer does). ARRAY_INCLUDES takes only the one-parameter form.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{children_mut, err_at, lit, Expr, ExprKind, Parser, Tok};
use crate::api::sql::value::SqlValue;
use crate::Result;

/// The functions whose second argument may be a lambda, with the most parameters it takes.
const LAMBDA_FUNCTIONS: [(&str, usize); 3] = [
    ("ARRAY_FILTER", 2),
    ("ARRAY_TRANSFORM", 2),
    ("ARRAY_INCLUDES", 1),
];

impl Parser<'_> {
    /// Argument `index` of function `name`: a lambda where the function takes one there,
    /// any expression otherwise.
    pub(super) fn argument(&mut self, name: &str, index: usize) -> Result<Expr> {
        if matches!(name, "NORMALIZE" | "NORMALIZE_AND_CASEFOLD") && index == 1 {
            if let Tok::Word(w) = self.peek().clone() {
                let mode = w.to_ascii_uppercase();
                if matches!(mode.as_str(), "NFC" | "NFKC" | "NFD" | "NFKD") {
                    let pos = self.pos();
                    self.at += 1;
                    return Ok(lit(SqlValue::String(mode), pos));
                }
                return Err(err_at(
                    self.sql,
                    self.pos(),
                    format!("{name}'s mode is NFC, NFKC, NFD or NFKD, got {w}"),
                ));
            }
        }
        let most = LAMBDA_FUNCTIONS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, most)| *most);
        match most {
            Some(most) if index == 1 => match self.lambda_params()? {
                Some(params) => self.lambda(name, params, most),
                None => self.expr(),
            },
            _ => self.expr(),
        }
    }

    /// The parameters of a lambda starting here (`e ->`, `(e) ->`, `(e, i) ->`), consumed;
    /// `None` (nothing consumed) when no lambda starts here.
    fn lambda_params(&mut self) -> Result<Option<Vec<(String, usize)>>> {
        let word = |t: &Tok| match t {
            Tok::Word(w) => Some(w.clone()),
            _ => None,
        };
        if let (Some(w), Tok::Sym("->")) = (word(self.peek()), self.peek_at(1)) {
            let at = self.pos();
            self.at += 2;
            return Ok(Some(alloc::vec![(w, at)]));
        }
        if !matches!(self.peek(), Tok::Sym("(")) {
            return Ok(None);
        }
        // `(a) ->` or `(a, b) ->`: look ahead without consuming.
        let mut params = Vec::new();
        let mut k = 1;
        loop {
            let Some(w) = word(self.peek_at(k)) else {
                return Ok(None);
            };
            params.push((w, k));
            match self.peek_at(k + 1) {
                Tok::Sym(",") => k += 2,
                Tok::Sym(")") => break,
                _ => return Ok(None),
            }
        }
        if !matches!(self.peek_at(k + 2), Tok::Sym("->")) {
            return Ok(None);
        }
        let base = self.at;
        let params = params
            .into_iter()
            .map(|(w, k)| (w, self.toks[base + k].1))
            .collect();
        self.at += k + 3;
        Ok(Some(params))
    }

    fn lambda(&mut self, name: &str, params: Vec<(String, usize)>, most: usize) -> Result<Expr> {
        let pos = params.first().map_or(self.pos(), |p| p.1);
        if params.len() > most {
            return Err(err_at(
                self.sql,
                pos,
                format!("{name}'s lambda takes at most {most} parameter(s)"),
            ));
        }
        if params.len() == 2 && params[0].0.eq_ignore_ascii_case(&params[1].0) {
            return Err(err_at(
                self.sql,
                params[1].1,
                format!("the lambda names {} twice", params[1].0),
            ));
        }
        let mut body = self.expr()?;
        let names: Vec<String> = params.iter().map(|p| p.0.to_ascii_lowercase()).collect();
        bind(&mut body, &names);
        Ok(Expr {
            kind: ExprKind::Lambda(params.len(), Box::new(body)),
            pos,
        })
    }
}

/// Replaces the body's mentions of the parameters `names` (lowercase) with their
/// [`ExprKind::LambdaVar`]s.
fn bind(e: &mut Expr, names: &[String]) {
    if let ExprKind::Ident(n) = &e.kind {
        if let Some(i) = names.iter().position(|p| n.eq_ignore_ascii_case(p)) {
            e.kind = ExprKind::LambdaVar(i);
            return;
        }
    }
    for c in children_mut(e) {
        bind(c, names);
    }
}
