//! STRUCT field access by position: values do not carry their fields' names, so once a
//! query is typed each `s.name` whose `s` is a STRUCT becomes [`ExprKind::FieldAt`], the
//! field's position in that STRUCT type (GoogleSQL matches field names without regard to
//! case), in lambda bodies too. A `.name` whose base does not type as a STRUCT keeps its
//! name (the executor then knows only `.timestamp`, `.key` and `.value`).

use alloc::boxed::Box;
use alloc::vec::Vec;

use super::{functions, Plan, Planner};
use crate::api::sql::ast::{children_mut, Expr, ExprKind};
use crate::api::sql::value::SqlType;
use crate::Result;

impl Planner<'_> {
    /// The passes that need the whole query typed: TO_JSON_STRING's argument shapes and
    /// field positions. They type with a copy of the planner, whose plan they rewrite.
    pub(super) fn finish_types(&mut self) -> Result<()> {
        // TO_JSON_STRING needs its argument's STRUCT field names, which values do not carry.
        let mut typer = Planner {
            sql: self.sql,
            params: self.params,
            plan: self.plan.clone(),
            has_table: self.has_table,
            view_key_alias: self.view_key_alias,
            reads_view: self.reads_view,
            group_types: self.group_types.clone(),
            agg_types: self.agg_types.clone(),
            item_types: self.item_types.clone(),
            lambda_types: Vec::new(),
            unnest_types: self.unnest_types.clone(),
        };
        let mut exprs: Vec<&mut Expr> = self.plan.items.iter_mut().collect();
        exprs.extend(self.plan.filter.as_mut());
        exprs.extend(self.plan.order.iter_mut().map(|o| &mut o.expr));
        if let Some(agg) = self.plan.agg.as_mut() {
            exprs.extend(agg.having.as_mut());
            exprs.extend(agg.groups.iter_mut());
            for a in &mut agg.aggs {
                exprs.extend(a.arg.as_mut());
                exprs.extend(a.extra.iter_mut());
            }
        }
        for e in exprs {
            functions::to_json::annotate(e, &mut |x| typer.ty(x))?;
        }
        resolve(&mut self.plan, &mut typer);
        Ok(())
    }
}

/// Rewrites the field accesses of every expression of `plan`, typed by `typer`.
fn resolve(plan: &mut Plan, typer: &mut Planner<'_>) {
    let mut exprs: Vec<&mut Expr> = plan.items.iter_mut().collect();
    exprs.extend(plan.filter.as_mut());
    exprs.extend(plan.order.iter_mut().map(|o| &mut o.expr));
    exprs.extend(plan.unnest.iter_mut());
    if let Some(agg) = plan.agg.as_mut() {
        exprs.extend(agg.having.as_mut());
        exprs.extend(agg.groups.iter_mut());
        for a in &mut agg.aggs {
            exprs.extend(a.arg.as_mut());
            exprs.extend(a.extra.iter_mut());
            exprs.extend(a.order.iter_mut().map(|o| &mut o.expr));
        }
    }
    for e in exprs {
        rewrite(e, typer);
    }
}

fn rewrite(e: &mut Expr, typer: &mut Planner<'_>) {
    if let ExprKind::Field(base, name) = &mut e.kind {
        if let Ok(SqlType::Struct(fields)) = typer.ty(base) {
            if let Some(i) = fields
                .iter()
                .position(|(n, _)| n.eq_ignore_ascii_case(name))
            {
                let base = core::mem::replace(
                    &mut **base,
                    Expr {
                        kind: ExprKind::LambdaVar(0),
                        pos: 0,
                    },
                );
                e.kind = ExprKind::FieldAt(Box::new(base), i);
            }
        }
    }
    // A lambda's body is typed with its parameters bound to the array's element and offset.
    if let ExprKind::Call { args, .. } = &mut e.kind {
        if let [array, Expr {
            kind: ExprKind::Lambda(_, body),
            ..
        }] = args.as_mut_slice()
        {
            rewrite(array, typer);
            if let Ok(SqlType::Array(element)) = typer.ty(array) {
                typer.lambda_types = alloc::vec![*element, SqlType::Int64];
                rewrite(body, typer);
                typer.lambda_types.clear();
            }
            return;
        }
    }
    for c in children_mut(e) {
        rewrite(c, typer);
    }
}
