//! Mathematical functions. From Bigtable's "Mathematical functions" page, in our words:
//! INT64 results that overflow are errors (OUT_OF_RANGE); MOD and DIV by zero are errors;
//! SQRT and LN/LOG of a negative number are errors (OUT_OF_RANGE), while FLOAT64 arithmetic
//! otherwise follows IEEE 754 (IEEE_DIVIDE gives inf and NaN instead of failing); SAFE_DIVIDE
//! gives NULL for a zero divisor. ROUND rounds halves away from zero.
//!
//! The trigonometric and hyperbolic functions follow the page's tables: a finite argument
//! outside a function's domain is OUT_OF_RANGE (ACOSH below 1, ATANH outside (-1, 1)), as is a
//! pole (COT, CSC, COTH, CSCH of 0) and an overflow (COSH, SINH of a large finite argument);
//! infinite and NaN arguments give what IEEE 754 gives (COTH(+inf) is 1, COT(+inf) NaN).
//! SAFE_ADD, SAFE_SUBTRACT, SAFE_MULTIPLY and SAFE_NEGATE are their operators with NULL
//! instead of an overflow (an INT64 result out of range, or a FLOAT result that becomes
//! infinite from finite arguments).

use alloc::format;

use crate::api::sql::errors::{bad, out_of_range};
use crate::api::sql::value::SqlValue;
use crate::Result;

fn f(v: &SqlValue) -> Result<f64> {
    v.as_f64().ok_or_else(|| bad("expected a number"))
}

fn like_float(original: &SqlValue, x: f64) -> SqlValue {
    match original {
        SqlValue::Float32(_) => SqlValue::Float32(x as f32),
        _ => SqlValue::Float64(x),
    }
}

/// `x` rounded to `digits` decimal places, halves away from zero.
fn round_to(x: f64, digits: i64, op: fn(f64) -> f64) -> f64 {
    if digits == 0 {
        return op(x);
    }
    let scale = libm_pow10(digits.clamp(-30, 30) as i32);
    let r = op(x * scale) / scale;
    if r.is_finite() {
        r
    } else {
        x
    }
}

fn libm_pow10(n: i32) -> f64 {
    let mut r = 1.0;
    for _ in 0..n.unsigned_abs() {
        r *= 10.0;
    }
    if n < 0 {
        1.0 / r
    } else {
        r
    }
}

fn finite(name: &str, x: f64) -> Result<f64> {
    if x.is_nan() {
        Err(out_of_range(format!("{name}: the result is not a number")))
    } else {
        Ok(x)
    }
}

/// Evaluates a math function; `None` if `name` is not one.
///
/// # Errors
/// OUT_OF_RANGE for overflow, division by zero and domain errors.
pub fn call(name: &str, a: &[SqlValue]) -> Result<Option<SqlValue>> {
    use SqlValue as V;
    let arg = |i: usize| a.get(i).unwrap_or(&V::Null);
    let any_null = a.iter().any(V::is_null);
    let v = match name {
        "GREATEST" | "LEAST" => {
            if any_null {
                return Ok(Some(V::Null));
            }
            // NaN wins both, as GoogleSQL documents.
            if let Some(nan) = a.iter().find(|x| x.as_f64().is_some_and(f64::is_nan)) {
                return Ok(Some(nan.clone()));
            }
            let mixed = a.iter().any(|x| matches!(x, V::Float64(_) | V::Float32(_)))
                && a.iter().any(|x| matches!(x, V::Int64(_)));
            let mut best = arg(0).clone();
            for x in &a[1..] {
                let o = x.total_cmp(&best);
                if (name == "GREATEST" && o.is_gt()) || (name == "LEAST" && o.is_lt()) {
                    best = x.clone();
                }
            }
            if mixed {
                V::Float64(best.as_f64().unwrap_or(0.0))
            } else {
                best
            }
        }
        "ABS" | "SIGN" | "MOD" | "DIV" | "ROUND" | "TRUNC" | "FLOOR" | "CEIL" | "CEILING"
        | "SQRT" | "POW" | "POWER" | "EXP" | "LN" | "LOG" | "LOG10" | "IEEE_DIVIDE"
        | "SAFE_DIVIDE" | "IS_NAN" | "IS_INF" | "SIN" | "COS" | "TAN" | "ASIN" | "ACOS"
        | "ATAN" | "ATAN2" | "SINH" | "COSH" | "TANH" | "ASINH" | "ACOSH" | "ATANH" | "COT"
        | "CSC" | "SEC" | "COTH" | "CSCH" | "SECH" | "SAFE_ADD" | "SAFE_SUBTRACT"
        | "SAFE_MULTIPLY" | "SAFE_NEGATE"
            if any_null =>
        {
            V::Null
        }
        "ABS" => match arg(0) {
            V::Int64(i) => V::Int64(
                i.checked_abs()
                    .ok_or_else(|| out_of_range("int64 overflow: ABS(-9223372036854775808)"))?,
            ),
            x => like_float(x, f(x)?.abs()),
        },
        "SIGN" => match arg(0) {
            V::Int64(i) => V::Int64(i.signum()),
            x => {
                let v = f(x)?;
                like_float(
                    x,
                    if v > 0.0 {
                        1.0
                    } else if v < 0.0 {
                        -1.0
                    } else {
                        v
                    },
                )
            }
        },
        "MOD" | "DIV" => match (arg(0), arg(1)) {
            (V::Int64(x), V::Int64(y)) => {
                if *y == 0 {
                    return Err(out_of_range(format!("division by zero: {name}({x}, 0)")));
                }
                // MOD takes the sign of the dividend, as Rust's `%` does; DIV truncates.
                let r = if name == "MOD" {
                    x.checked_rem(*y)
                } else {
                    x.checked_div(*y)
                };
                V::Int64(r.ok_or_else(|| out_of_range(format!("int64 overflow: {name}")))?)
            }
            _ => return Err(bad(format!("{name} takes INT64 arguments"))),
        },
        "ROUND" | "TRUNC" | "FLOOR" | "CEIL" | "CEILING" => {
            let x = f(arg(0))?;
            let digits = match a.get(1) {
                Some(V::Int64(d)) => *d,
                Some(_) => return Err(bad(format!("{name}: the digits are INT64"))),
                None => 0,
            };
            let op: fn(f64) -> f64 = match name {
                "ROUND" => libm::round,
                "TRUNC" => libm::trunc,
                "FLOOR" => libm::floor,
                _ => libm::ceil,
            };
            like_float(arg(0), round_to(x, digits, op))
        }
        "SQRT" => {
            let x = f(arg(0))?;
            if x < 0.0 {
                return Err(out_of_range(format!("SQRT of a negative number: {x}")));
            }
            V::Float64(libm::sqrt(x))
        }
        "POW" | "POWER" => {
            let (x, y) = (f(arg(0))?, f(arg(1))?);
            if x == 0.0 && y < 0.0 {
                return Err(out_of_range("POW: zero to a negative power"));
            }
            let r = libm::pow(x, y);
            if r.is_infinite() && x.is_finite() && y.is_finite() {
                return Err(out_of_range(format!("POW({x}, {y}) overflows")));
            }
            V::Float64(finite("POW", r)?)
        }
        "EXP" => V::Float64(libm::exp(f(arg(0))?)),
        "LN" | "LOG10" | "LOG" => {
            let x = f(arg(0))?;
            if x <= 0.0 {
                return Err(out_of_range(format!(
                    "{name} of a non-positive number: {x}"
                )));
            }
            V::Float64(match (name, a.get(1)) {
                ("LOG10", _) => libm::log10(x),
                ("LN", _) | (_, None) => libm::log(x),
                (_, Some(b)) => {
                    let base = f(b)?;
                    if base <= 0.0 || base == 1.0 {
                        return Err(out_of_range(format!("LOG: bad base {base}")));
                    }
                    libm::log(x) / libm::log(base)
                }
            })
        }
        "IEEE_DIVIDE" => V::Float64(f(arg(0))? / f(arg(1))?),
        "SAFE_DIVIDE" => {
            let y = f(arg(1))?;
            if y == 0.0 {
                V::Null
            } else {
                V::Float64(f(arg(0))? / y)
            }
        }
        "IS_NAN" => V::Bool(f(arg(0))?.is_nan()),
        "IS_INF" => V::Bool(f(arg(0))?.is_infinite()),
        "SIN" => V::Float64(libm::sin(f(arg(0))?)),
        "COS" => V::Float64(libm::cos(f(arg(0))?)),
        "TAN" => V::Float64(libm::tan(f(arg(0))?)),
        "ASIN" => V::Float64(finite("ASIN", libm::asin(f(arg(0))?))?),
        "ACOS" => V::Float64(finite("ACOS", libm::acos(f(arg(0))?))?),
        "ATAN" => V::Float64(libm::atan(f(arg(0))?)),
        "ATAN2" => V::Float64(libm::atan2(f(arg(0))?, f(arg(1))?)),
        "SINH" | "COSH" => {
            let x = f(arg(0))?;
            let r = if name == "SINH" {
                libm::sinh(x)
            } else {
                libm::cosh(x)
            };
            if r.is_infinite() && x.is_finite() {
                return Err(out_of_range(format!("{name}({x}) overflows")));
            }
            V::Float64(r)
        }
        "TANH" => V::Float64(libm::tanh(f(arg(0))?)),
        "ASINH" => V::Float64(libm::asinh(f(arg(0))?)),
        "ACOSH" => {
            let x = f(arg(0))?;
            if x < 1.0 && x.is_finite() {
                return Err(out_of_range(format!("ACOSH of a number below 1: {x}")));
            }
            V::Float64(libm::acosh(x))
        }
        "ATANH" => {
            let x = f(arg(0))?;
            if x.is_finite() && x.abs() >= 1.0 {
                return Err(out_of_range(format!("ATANH outside (-1, 1): {x}")));
            }
            V::Float64(libm::atanh(x))
        }
        "COT" | "CSC" | "COTH" | "CSCH" => {
            let x = f(arg(0))?;
            if x == 0.0 {
                return Err(out_of_range(format!("{name}(0) is a division by zero")));
            }
            V::Float64(match name {
                "COT" => 1.0 / libm::tan(x),
                "CSC" => 1.0 / libm::sin(x),
                "COTH" => 1.0 / libm::tanh(x),
                _ => 1.0 / libm::sinh(x),
            })
        }
        "SEC" => V::Float64(1.0 / libm::cos(f(arg(0))?)),
        "SECH" => V::Float64(1.0 / libm::cosh(f(arg(0))?)),
        "SAFE_NEGATE" => match arg(0) {
            V::Int64(i) => i.checked_neg().map_or(V::Null, V::Int64),
            x => like_float(x, -f(x)?),
        },
        "SAFE_ADD" | "SAFE_SUBTRACT" | "SAFE_MULTIPLY" => match (arg(0), arg(1)) {
            (V::Int64(x), V::Int64(y)) => match name {
                "SAFE_ADD" => x.checked_add(*y),
                "SAFE_SUBTRACT" => x.checked_sub(*y),
                _ => x.checked_mul(*y),
            }
            .map_or(V::Null, V::Int64),
            (x, y) => {
                let (p, q) = (f(x)?, f(y)?);
                let r = match name {
                    "SAFE_ADD" => p + q,
                    "SAFE_SUBTRACT" => p - q,
                    _ => p * q,
                };
                let both32 = matches!((x, y), (V::Float32(_), V::Float32(_)));
                let overflow = p.is_finite()
                    && q.is_finite()
                    && (r.is_infinite() || (both32 && (r as f32).is_infinite()));
                if overflow {
                    V::Null
                } else if both32 {
                    V::Float32(r as f32)
                } else {
                    V::Float64(r)
                }
            }
        },
        _ => return Ok(None),
    };
    Ok(Some(v))
}
