//! FORMAT(format_string, value, ...): printf-style formatting, from the FORMAT section of the
//! string functions page of GoogleSQL's reference (Bigtable lists FORMAT among its string
//! functions), in our words:
//! - a specifier is `%[flags][width][.precision]specifier`; flags `-` (left-justify), `+`
//!   (always a sign), space (a space where no sign is written), `#` (`0`/`0x`/`0X` before a
//!   non-zero `%o`/`%x`/`%X`; a decimal point always for `%f %e %g`, and `%g` keeps its
//!   trailing zeros), `0` (pad numbers with zeros), `'` (group digits: `,` every three for
//!   `%d`, `:` every four for `%x`/`%X`, `,` every four for `%o`); width and precision may be
//!   `*` (taken from the next INT64 argument);
//! - `%d`/`%i` INT64; `%o`/`%x`/`%X` a non-negative INT64; `%f %F %e %E %g %G` a FLOAT
//!   (precision: digits after the point, 6 by default; for `%g` the significant digits, and
//!   the notation chosen by the exponent as the page describes); `%s` a STRING; `%t` any value
//!   readably (a float always with `.0`), `%T` any value as a SQL literal; `%%` a percent
//!   sign. Precision on `%s %t %T` is the most characters shown, on integers the fewest digits;
//! - a NULL format gives NULL; a NULL argument gives NULL except under `%t`/`%T`, which write
//!   `NULL`;
//! - a bad specifier, an argument of the wrong type, too few or too many arguments, or a
//!   negative value for `%o %x %X` is an error (OUT_OF_RANGE here, raised when the row is
//!   evaluated, so `SAFE.FORMAT` gives NULL).
//!
//! Not served: `%u` (Bigtable has no unsigned integers), `%p`/`%P` (PROTO and JSON values,
//! which Bigtable's SQL does not have), and a MAP under `%t`/`%T` (the page defines no text
//! for one).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::api::sql::calendar::timestamp_text;
use crate::api::sql::errors::out_of_range;
use crate::api::sql::value::SqlValue;
use crate::Result;

#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    group: bool,
    width: usize,
    precision: Option<usize>,
}

/// FORMAT(fmt, args...).
///
/// # Errors
/// OUT_OF_RANGE as the module docs say.
pub fn format_sql(fmt: &str, args: &[SqlValue]) -> Result<SqlValue> {
    let mut out = String::new();
    let mut args = Args { args, next: 0 };
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut spec = Spec::default();
        while let Some(&f) = chars.peek() {
            match f {
                '-' => spec.left = true,
                '+' => spec.plus = true,
                ' ' => spec.space = true,
                '#' => spec.alt = true,
                '0' => spec.zero = true,
                '\'' => spec.group = true,
                _ => break,
            }
            chars.next();
        }
        spec.width = number(&mut chars, &mut args)?.unwrap_or(0);
        if chars.peek() == Some(&'.') {
            chars.next();
            spec.precision = Some(number(&mut chars, &mut args)?.unwrap_or(0));
        }
        let Some(kind) = chars.next() else {
            return Err(out_of_range("FORMAT: the format ends inside a specifier"));
        };
        if kind == '%' {
            out.push('%');
            continue;
        }
        let v = args.take(&format!("%{kind}"))?;
        if v.is_null() && !matches!(kind, 't' | 'T') {
            // Still check the specifier, then give NULL.
            if !"dioxXfFeEgGstT".contains(kind) {
                return Err(out_of_range(format!(
                    "FORMAT: unsupported specifier %{kind}"
                )));
            }
            return Ok(SqlValue::Null);
        }
        let body = render(kind, v, &spec)?;
        out.push_str(&pad(
            body,
            &spec,
            matches!(
                kind,
                'd' | 'i' | 'o' | 'x' | 'X' | 'f' | 'F' | 'e' | 'E' | 'g' | 'G'
            ),
        ));
    }
    if args.next != args.args.len() {
        return Err(out_of_range(format!(
            "FORMAT: {} argument(s) given, the format uses {}",
            args.args.len(),
            args.next
        )));
    }
    Ok(SqlValue::String(out))
}

/// The arguments after the format, taken in order.
struct Args<'a> {
    args: &'a [SqlValue],
    next: usize,
}

impl<'a> Args<'a> {
    fn take(&mut self, what: &str) -> Result<&'a SqlValue> {
        let v = self
            .args
            .get(self.next)
            .ok_or_else(|| out_of_range(format!("FORMAT: too few arguments for {what}")))?;
        self.next += 1;
        Ok(v)
    }
}

/// A width or precision: digits, or `*` (the next argument, a non-negative INT64).
fn number(
    chars: &mut core::iter::Peekable<core::str::Chars<'_>>,
    args: &mut Args<'_>,
) -> Result<Option<usize>> {
    if chars.peek() == Some(&'*') {
        chars.next();
        return match args.take("*")? {
            SqlValue::Int64(n) if *n >= 0 => Ok(Some((*n as usize).min(1 << 20))),
            SqlValue::Int64(_) => Err(out_of_range("FORMAT: a negative * value")),
            _ => Err(out_of_range("FORMAT: * takes an INT64")),
        };
    }
    let mut n: Option<usize> = None;
    while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
        chars.next();
        n = Some(
            n.unwrap_or(0)
                .saturating_mul(10)
                .saturating_add(d as usize)
                .min(1 << 20),
        );
    }
    Ok(n)
}

/// `body` padded to the width: spaces (left or right), or zeros after the sign and prefix.
fn pad(body: String, spec: &Spec, numeric: bool) -> String {
    let len = body.chars().count();
    if len >= spec.width {
        return body;
    }
    let fill = spec.width - len;
    if spec.left {
        return body + &" ".repeat(fill);
    }
    let finite = !body.contains("inf")
        && !body.contains("nan")
        && !body.contains("INF")
        && !body.contains("NAN");
    if spec.zero && numeric && finite {
        let sign_len = body
            .find(|c: char| !matches!(c, '+' | '-' | ' '))
            .unwrap_or(0);
        let prefix = if body[sign_len..].starts_with("0x") || body[sign_len..].starts_with("0X") {
            sign_len + 2
        } else {
            sign_len
        };
        return format!("{}{}{}", &body[..prefix], "0".repeat(fill), &body[prefix..]);
    }
    " ".repeat(fill) + &body
}

fn sign(negative: bool, spec: &Spec) -> &'static str {
    if negative {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    }
}

/// Inserts `sep` every `every` digits from the right.
fn group(digits: &str, every: usize, sep: char) -> String {
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(every) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

fn render(kind: char, v: &SqlValue, spec: &Spec) -> Result<String> {
    let wrong = || out_of_range(format!("FORMAT: %{kind} cannot format a {}", kind_of(v)));
    Ok(match kind {
        'd' | 'i' | 'o' | 'x' | 'X' => {
            let SqlValue::Int64(n) = v else {
                return Err(wrong());
            };
            if *n < 0 && kind != 'd' && kind != 'i' {
                return Err(out_of_range(format!(
                    "FORMAT: %{kind} of a negative number"
                )));
            }
            let magnitude = n.unsigned_abs();
            let mut digits = match kind {
                'o' => format!("{magnitude:o}"),
                'x' => format!("{magnitude:x}"),
                'X' => format!("{magnitude:X}"),
                _ => format!("{magnitude}"),
            };
            if let Some(p) = spec.precision {
                if p == 0 && magnitude == 0 {
                    digits.clear();
                } else if digits.len() < p {
                    digits = "0".repeat(p - digits.len()) + &digits;
                }
            }
            if spec.group {
                digits = match kind {
                    'x' | 'X' => group(&digits, 4, ':'),
                    'o' => group(&digits, 4, ','),
                    _ => group(&digits, 3, ','),
                };
            }
            let prefix = match (kind, spec.alt && magnitude != 0) {
                ('o', true) => "0",
                ('x', true) => "0x",
                ('X', true) => "0X",
                _ => "",
            };
            format!("{}{prefix}{digits}", sign(*n < 0, spec))
        }
        'f' | 'F' | 'e' | 'E' | 'g' | 'G' => {
            let x = match v {
                SqlValue::Float64(x) => *x,
                SqlValue::Float32(x) => f64::from(*x),
                _ => return Err(wrong()),
            };
            float(kind, x, spec)
        }
        's' => match v {
            SqlValue::String(s) => truncate(s, spec.precision),
            _ => return Err(wrong()),
        },
        't' => truncate(&readable(v)?, spec.precision),
        'T' => truncate(&literal(v)?, spec.precision),
        other => {
            return Err(out_of_range(format!(
                "FORMAT: unsupported specifier %{other}"
            )))
        }
    })
}

fn kind_of(v: &SqlValue) -> &'static str {
    match v {
        SqlValue::Null => "NULL",
        SqlValue::Bool(_) => "BOOL",
        SqlValue::Int64(_) => "INT64",
        SqlValue::Float32(_) => "FLOAT32",
        SqlValue::Float64(_) => "FLOAT64",
        SqlValue::String(_) => "STRING",
        SqlValue::Bytes(_) => "BYTES",
        SqlValue::Date { .. } => "DATE",
        SqlValue::Timestamp { .. } => "TIMESTAMP",
        SqlValue::Array(_) => "ARRAY",
        SqlValue::Map(_) => "MAP",
        SqlValue::Struct(_) => "STRUCT",
    }
}

fn truncate(s: &str, precision: Option<usize>) -> String {
    match precision {
        Some(p) => s.chars().take(p).collect(),
        None => s.to_string(),
    }
}

/// `%e`'s mantissa and exponent as C writes them: `d.ddddde+XX`.
fn exponential(x: f64, precision: usize, upper: bool) -> String {
    let s = format!("{:.*e}", precision, x.abs());
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let e = if upper { 'E' } else { 'e' };
    format!(
        "{mantissa}{e}{}{:02}",
        if exp < 0 { '-' } else { '+' },
        exp.unsigned_abs()
    )
}

fn float(kind: char, x: f64, spec: &Spec) -> String {
    let upper = kind.is_ascii_uppercase();
    if !x.is_finite() {
        let t = if x.is_nan() { "nan" } else { "inf" };
        let t = if upper {
            t.to_ascii_uppercase()
        } else {
            t.to_string()
        };
        return format!("{}{t}", sign(x.is_sign_negative() && !x.is_nan(), spec));
    }
    let p = spec.precision.unwrap_or(6);
    let mut body = match kind {
        'f' | 'F' => format!("{:.*}", p, x.abs()),
        'e' | 'E' => exponential(x, p, upper),
        _ => {
            // %g: p significant digits (1 if less); the exponent of the %e form decides.
            let p = p.max(1);
            let e_form = exponential(x, p - 1, upper);
            let exp: i32 = e_form
                .rsplit(['e', 'E'])
                .next()
                .and_then(|t| t.parse().ok())
                .unwrap_or(0);
            let mut s = if exp < -4 || exp >= p as i32 {
                e_form
            } else {
                format!("{:.*}", (p as i32 - 1 - exp).max(0) as usize, x.abs())
            };
            if !spec.alt {
                // Trailing zeros after the point go, then a bare point.
                let (num, exp_part) = match s.find(['e', 'E']) {
                    Some(i) => (String::from(&s[..i]), String::from(&s[i..])),
                    None => (s.clone(), String::new()),
                };
                let num = if num.contains('.') {
                    num.trim_end_matches('0').trim_end_matches('.').to_string()
                } else {
                    num
                };
                s = num + &exp_part;
            }
            s
        }
    };
    if spec.alt && !body.contains('.') {
        match body.find(['e', 'E']) {
            Some(i) => body.insert(i, '.'),
            None => body.push('.'),
        }
    }
    format!("{}{body}", sign(x.is_sign_negative(), spec))
}

/// `%t`: the value readably.
fn readable(v: &SqlValue) -> Result<String> {
    Ok(match v {
        SqlValue::Null => "NULL".into(),
        SqlValue::Float64(_) | SqlValue::Float32(_) => {
            let x = v.as_f64().unwrap_or(0.0);
            if x.is_nan() {
                "nan".into()
            } else if x.is_infinite() {
                (if x > 0.0 { "inf" } else { "-inf" }).into()
            } else {
                float_text(v)
            }
        }
        SqlValue::Bytes(b) => escape_bytes(b, false),
        SqlValue::Timestamp { .. } => timestamp_text(v.as_micros().unwrap_or(0)),
        SqlValue::Array(items) => {
            let parts = items.iter().map(readable).collect::<Result<Vec<_>>>()?;
            format!("[{}]", parts.join(", "))
        }
        SqlValue::Struct(fields) => structure(fields, readable)?,
        SqlValue::Map(_) => return Err(out_of_range("FORMAT: %t cannot format a MAP")),
        SqlValue::Bool(b) => (if *b { "true" } else { "false" }).into(),
        SqlValue::Int64(n) => n.to_string(),
        SqlValue::String(s) => s.clone(),
        SqlValue::Date { year, month, day } => format!("{year:04}-{month:02}-{day:02}"),
    })
}

/// `%T`: the value as a SQL literal.
fn literal(v: &SqlValue) -> Result<String> {
    Ok(match v {
        SqlValue::Float64(x) if !x.is_finite() => {
            format!("CAST(\"{}\" AS FLOAT64)", readable(v)?)
        }
        SqlValue::Float32(x) if !x.is_finite() => {
            format!("CAST(\"{}\" AS FLOAT32)", readable(v)?)
        }
        SqlValue::String(s) => quote(s),
        SqlValue::Bytes(b) => format!("b\"{}\"", escape_bytes(b, true)),
        SqlValue::Date { .. } => format!("DATE \"{}\"", readable(v)?),
        SqlValue::Timestamp { .. } => format!("TIMESTAMP \"{}\"", readable(v)?),
        SqlValue::Array(items) => {
            let parts = items.iter().map(literal).collect::<Result<Vec<_>>>()?;
            format!("[{}]", parts.join(", "))
        }
        SqlValue::Struct(fields) => structure(fields, literal)?,
        SqlValue::Map(_) => return Err(out_of_range("FORMAT: %T cannot format a MAP")),
        other => readable(other)?,
    })
}

fn structure(fields: &[SqlValue], each: fn(&SqlValue) -> Result<String>) -> Result<String> {
    let parts = fields.iter().map(each).collect::<Result<Vec<_>>>()?;
    Ok(match parts.len() {
        0 => "STRUCT()".into(),
        1 => format!("STRUCT({})", parts[0]),
        _ => format!("({})", parts.join(", ")),
    })
}

/// A finite float's shortest round-trip text, always with a point or an exponent
/// (`1.0`, `0.25`, `1e+20`).
fn float_text(v: &SqlValue) -> String {
    let x = v.as_f64().unwrap_or(0.0);
    let s = match v {
        SqlValue::Float32(f) if x.abs() >= 1e15 || (x != 0.0 && x.abs() < 1e-4) => format!("{f:e}"),
        SqlValue::Float32(f) => format!("{f}"),
        _ if x.abs() >= 1e15 || (x != 0.0 && x.abs() < 1e-4) => format!("{x:e}"),
        _ => format!("{x}"),
    };
    match s.split_once('e') {
        Some((m, e)) => {
            let (sign, digits) = match e.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', e),
            };
            format!("{m}e{sign}{digits:0>2}")
        }
        None if s.contains('.') => s,
        None => s + ".0",
    }
}

/// Bytes as text: printable ASCII as is, the rest `\xNN`; inside a quoted literal
/// (`quoted`) also `"` and `\` escaped.
fn escape_bytes(b: &[u8], quoted: bool) -> String {
    let mut out = String::new();
    for &c in b {
        match c {
            b'"' | b'\\' if quoted => {
                out.push('\\');
                out.push(c as char);
            }
            0x20..0x7f => out.push(c as char),
            _ => out.push_str(&format!("\\x{c:02x}")),
        }
    }
    out
}

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
