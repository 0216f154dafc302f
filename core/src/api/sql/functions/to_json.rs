//! `TO_JSON_STRING(value[, pretty_print])`. From GoogleSQL for Bigtable's "JSON functions"
//! page and its JSON encodings table (cloud.google.com/bigtable/docs/reference/sql/
//! json_functions), in our words:
//! - NULL is `null`; BOOL is `true`/`false`; INT64 is a JSON number when it lies within
//!   ±2^53 (where a double holds it exactly) and a quoted decimal string outside;
//!   FLOAT32/FLOAT64 are numbers in shortest round-trip form (`1.0` is `1`), and infinities
//!   and NaN are the strings `"Infinity"`, `"-Infinity"` and `"NaN"`; STRING is a JSON string
//!   with `"`, `\` and the control characters U+0000 to U+001F escaped; BYTES is its base64
//!   (RFC 4648) as a string; DATE is `"YYYY-MM-DD"`; TIMESTAMP is `"YYYY-MM-DDTHH:MM:SS[.f]Z"`
//!   (UTC, trailing zeros of the fraction dropped); ARRAY is an array; STRUCT is an object
//!   with its fields in order, duplicates kept and unnamed fields under `""`.
//! - `pretty_print` TRUE puts each element and member on its own line, indented by two
//!   spaces per level, with a space after each `:`; FALSE or NULL gives the compact form.
//! - MAP values (column families) are refused at prepare time: the encodings table has no
//!   MAP entry, so we do not invent one.
//!
//! Values do not carry their STRUCT field names, so the planner appends the argument's
//! *shape* (see [`shape`]) as a hidden third argument after typing ([`annotate`]).

use alloc::format;
use alloc::string::String;

use crate::api::sql::ast::{children_mut, Expr, ExprKind};
use crate::api::sql::calendar::timestamp_text;
use crate::api::sql::errors::bad;
use crate::api::sql::value::{to_text, SqlType, SqlValue};
use crate::Result;

/// The result type of `TO_JSON_STRING` over `args`, or why it does not take them.
pub fn result_type(args: &[SqlType]) -> core::result::Result<SqlType, String> {
    if args.is_empty() || args.len() > 2 {
        return Err(format!(
            "TO_JSON_STRING takes 1 to 2 arguments, got {}",
            args.len()
        ));
    }
    if has_map(&args[0]) {
        return Err(format!(
            "TO_JSON_STRING does not take {} (a MAP has no JSON encoding in Bigtable's SQL)",
            args[0]
        ));
    }
    // INT64 stands for an untyped NULL literal, and so does the first argument's type (the
    // planner gives an untyped NULL its siblings' type); a non-BOOL value of those types is
    // refused when the call runs.
    if let Some(t) = args
        .get(1)
        .filter(|t| !matches!(t, SqlType::Bool | SqlType::Int64) && **t != args[0])
    {
        return Err(format!("TO_JSON_STRING's pretty_print is a BOOL, not {t}"));
    }
    Ok(SqlType::String)
}

fn has_map(t: &SqlType) -> bool {
    match t {
        SqlType::Map(..) => true,
        SqlType::Array(e) => has_map(e),
        SqlType::Struct(fields) => fields.iter().any(|(_, t)| has_map(t)),
        _ => false,
    }
}

/// A type's shape as a value: NULL for a scalar, `[shape]` for an ARRAY, and for a STRUCT a
/// STRUCT of one `[name, shape]` pair per field.
pub fn shape(t: &SqlType) -> SqlValue {
    match t {
        SqlType::Array(e) => SqlValue::Array(alloc::vec![shape(e)]),
        SqlType::Struct(fields) => SqlValue::Struct(
            fields
                .iter()
                .map(|(n, t)| SqlValue::Array(alloc::vec![SqlValue::String(n.clone()), shape(t)]))
                .collect(),
        ),
        _ => SqlValue::Null,
    }
}

/// Gives every `TO_JSON_STRING` call in `e` its argument's shape as a hidden third argument
/// (a `pretty_print` of FALSE is added first when the call has none); `ty` types an
/// expression. Runs after the query is typed, so the hidden argument is never type-checked.
///
/// # Errors
/// As `ty`.
pub fn annotate(e: &mut Expr, ty: &mut dyn FnMut(&Expr) -> Result<SqlType>) -> Result<()> {
    if let ExprKind::Call { name, args, .. } = &mut e.kind {
        if name.strip_prefix("SAFE.").unwrap_or(name) == "TO_JSON_STRING" && args.len() <= 2 {
            let t = match args.first() {
                Some(a) => ty(a)?,
                None => SqlType::Int64,
            };
            if args.len() == 1 {
                args.push(Expr {
                    kind: ExprKind::Lit(SqlValue::Bool(false), None),
                    pos: e.pos,
                });
            }
            args.push(Expr {
                kind: ExprKind::Lit(shape(&t), None),
                pos: e.pos,
            });
        }
    }
    for c in children_mut(e) {
        annotate(c, ty)?;
    }
    Ok(())
}

/// Appends `s` as a JSON string.
fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn float(out: &mut String, f: f64, text: String) {
    if f.is_nan() {
        out.push_str("\"NaN\"");
    } else if f.is_infinite() {
        out.push_str(if f > 0.0 {
            "\"Infinity\""
        } else {
            "\"-Infinity\""
        });
    } else {
        out.push_str(&text);
    }
}

fn newline(out: &mut String, pretty: bool, level: usize) {
    if pretty {
        out.push('\n');
        for _ in 0..level {
            out.push_str("  ");
        }
    }
}

/// Appends `v` (of shape `shape`) as JSON.
fn encode(out: &mut String, v: &SqlValue, shape: &SqlValue, pretty: bool, level: usize) {
    match v {
        SqlValue::Null | SqlValue::Map(_) => out.push_str("null"),
        SqlValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        SqlValue::Int64(i) => {
            const EXACT: i64 = 1 << 53;
            if (-EXACT..=EXACT).contains(i) {
                out.push_str(&format!("{i}"));
            } else {
                out.push_str(&format!("\"{i}\""));
            }
        }
        SqlValue::Float64(f) => float(out, *f, format!("{f}")),
        SqlValue::Float32(f) => float(out, f64::from(*f), format!("{f}")),
        SqlValue::String(s) => string(out, s),
        SqlValue::Bytes(b) => string(out, &super::string::to_base64(b)),
        SqlValue::Date { year, month, day } => {
            out.push_str(&format!("\"{year:04}-{month:02}-{day:02}\""));
        }
        SqlValue::Timestamp { .. } => {
            let text = v.as_micros().map(timestamp_text).unwrap_or_default();
            let iso = text.replacen(' ', "T", 1);
            string(out, &format!("{}Z", iso.trim_end_matches("+00")));
        }
        SqlValue::Array(items) => {
            let element = match shape {
                SqlValue::Array(s) => s.first().unwrap_or(&SqlValue::Null),
                _ => &SqlValue::Null,
            };
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, pretty, level + 1);
                encode(out, item, element, pretty, level + 1);
            }
            if !items.is_empty() {
                newline(out, pretty, level);
            }
            out.push(']');
        }
        SqlValue::Struct(values) => {
            let fields: &[SqlValue] = match shape {
                SqlValue::Struct(f) => f,
                _ => &[],
            };
            out.push('{');
            for (i, value) in values.iter().enumerate() {
                let (name, field_shape) = match fields.get(i) {
                    Some(SqlValue::Array(pair)) => (
                        match pair.first() {
                            Some(SqlValue::String(n)) => n.as_str(),
                            _ => "",
                        },
                        pair.get(1).unwrap_or(&SqlValue::Null),
                    ),
                    _ => ("", &SqlValue::Null),
                };
                if i > 0 {
                    out.push(',');
                }
                newline(out, pretty, level + 1);
                string(out, name);
                out.push(':');
                if pretty {
                    out.push(' ');
                }
                encode(out, value, field_shape, pretty, level + 1);
            }
            if !values.is_empty() {
                newline(out, pretty, level);
            }
            out.push('}');
        }
    }
}

/// Evaluates `TO_JSON_STRING`; `None` for any other name. `a` is the value, `pretty_print`
/// and the shape the planner added.
///
/// # Errors
/// INVALID_ARGUMENT for a `pretty_print` that is not a BOOL.
pub fn call(name: &str, a: &[SqlValue]) -> Result<Option<SqlValue>> {
    if name != "TO_JSON_STRING" {
        return Ok(None);
    }
    let pretty = match a.get(1) {
        None | Some(SqlValue::Null) => false,
        Some(SqlValue::Bool(b)) => *b,
        Some(other) => {
            return Err(bad(format!(
                "TO_JSON_STRING's pretty_print is a BOOL, not {}",
                to_text(other)
            )))
        }
    };
    let mut out = String::new();
    let v = a.first().unwrap_or(&SqlValue::Null);
    encode(&mut out, v, a.get(2).unwrap_or(&SqlValue::Null), pretty, 0);
    Ok(Some(SqlValue::String(out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(v: SqlValue, t: &SqlType, pretty: bool) -> String {
        match call("TO_JSON_STRING", &[v, SqlValue::Bool(pretty), shape(t)]) {
            Ok(Some(SqlValue::String(s))) => s,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn encodes_as_the_table_says() {
        let t = SqlType::Struct(alloc::vec![
            ("id".into(), SqlType::Int64),
            ("xs".into(), SqlType::array(SqlType::Int64)),
        ]);
        let v = SqlValue::Struct(alloc::vec![
            SqlValue::Int64(1),
            SqlValue::Array(alloc::vec![SqlValue::Int64(10), SqlValue::Int64(20)]),
        ]);
        assert_eq!(json(v.clone(), &t, false), r#"{"id":1,"xs":[10,20]}"#);
        assert_eq!(
            json(v, &t, true),
            "{\n  \"id\": 1,\n  \"xs\": [\n    10,\n    20\n  ]\n}"
        );
        let i = SqlType::Int64;
        assert_eq!(
            json(SqlValue::Int64(9_007_199_254_740_993), &i, false),
            "\"9007199254740993\""
        );
        assert_eq!(json(SqlValue::Float64(1.0), &i, false), "1");
        assert_eq!(json(SqlValue::Float64(f64::NAN), &i, false), "\"NaN\"");
        assert_eq!(
            json(SqlValue::Bytes(b"Google".to_vec()), &i, false),
            "\"R29vZ2xl\""
        );
        assert_eq!(
            json(SqlValue::String("a\"\u{1}".into()), &i, false),
            r#""a\"\u0001""#
        );
        assert_eq!(
            json(SqlValue::timestamp_micros(1_488_803_696_789_012), &i, false),
            "\"2017-03-06T12:34:56.789012Z\""
        );
    }
}
