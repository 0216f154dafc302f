//! Scalar functions of GoogleSQL for Bigtable, by family: this module dispatches a call by
//! name and states each function's result type; [`string`], [`math`], [`collection`] (map,
//! array and vector), [`time`], [`hash`] (with [`farmhash`]), [`json`], [`to_json`] and
//! [`bits`] implement them.
//!
//! Rules, in our words, from Bigtable's function reference
//! (cloud.google.com/bigtable/docs/reference/sql/functions-all): a function given NULL
//! returns NULL unless its page says otherwise (COALESCE, IFNULL, IF, CONCAT of arrays,
//! ARRAY_LENGTH of NULL is NULL); a function given a value it cannot handle raises an error,
//! which the `SAFE.` prefix turns into NULL. Unknown names are INVALID_ARGUMENT at prepare
//! time, naming the function and its position.

pub mod bits;
pub mod collection;
pub mod format;
pub use crate::model::farmhash;
pub mod hash;
pub mod json;
pub mod math;
pub mod string;
pub mod text;
pub mod time;
pub mod time_format;
pub mod to_json;
pub mod zones;

use alloc::format;
use alloc::string::String;

use super::errors::bad;
use super::value::{SqlType, SqlValue};
use crate::Result;

/// Aggregate function names (handled by the executor's grouping, not here).
pub const AGGREGATES: &[&str] = &[
    "COUNT",
    "SUM",
    "AVG",
    "MIN",
    "MAX",
    "ARRAY_AGG",
    "COUNTIF",
    "LOGICAL_AND",
    "LOGICAL_OR",
    "ANY_VALUE",
    "STRING_AGG",
    "BIT_AND",
    "BIT_OR",
    "BIT_XOR",
    "HLL_COUNT.INIT",
    "HLL_COUNT.MERGE",
    "HLL_COUNT.MERGE_PARTIAL",
    "APPROX_COUNT_DISTINCT",
    "APPROX_QUANTILES",
    "APPROX_TOP_COUNT",
    "APPROX_TOP_SUM",
];

/// Whether `name` is an aggregate function.
pub fn is_aggregate(name: &str) -> bool {
    AGGREGATES.contains(&name)
}

/// The result type of scalar function `name` over arguments of `args` types, or an error
/// message when it does not take them (`None`: unknown function).
pub fn result_type(name: &str, args: &[SqlType]) -> Option<core::result::Result<SqlType, String>> {
    use SqlType as T;
    let name = name.strip_prefix("SAFE.").unwrap_or(name);
    let n = args.len();
    let arity = |lo: usize, hi: usize, t: SqlType| -> core::result::Result<SqlType, String> {
        if n < lo || n > hi {
            Err(if lo == hi {
                format!("{name} takes {lo} argument(s), got {n}")
            } else {
                format!("{name} takes {lo} to {hi} arguments, got {n}")
            })
        } else {
            Ok(t)
        }
    };
    let first = args.first().cloned().unwrap_or(T::Int64);
    let string_or_bytes = if first == T::Bytes {
        T::Bytes
    } else {
        T::String
    };
    let float = |t: &SqlType| {
        if *t == T::Float32 {
            T::Float32
        } else {
            T::Float64
        }
    };
    let common = || -> SqlType {
        // The common supertype: any FLOAT64 (or INT64 mixed with a float) is FLOAT64.
        if args.iter().all(|t| *t == first) {
            first.clone()
        } else if args.iter().all(SqlType::is_numeric) {
            T::Float64
        } else {
            first.clone()
        }
    };
    Some(match name {
        // Conditional.
        "IF" => arity(3, 3, args.get(1).cloned().unwrap_or(T::Int64)),
        "IFNULL" | "NULLIF" => arity(2, 2, first),
        "COALESCE" => arity(1, usize::MAX, common()),
        // String and bytes.
        "CONCAT" => arity(1, usize::MAX, string_or_bytes),
        "FORMAT" if first != T::String => Err(format!("FORMAT's format is a STRING, not {first}")),
        "FORMAT" => arity(1, usize::MAX, T::String),
        "LENGTH" | "CHAR_LENGTH" | "CHARACTER_LENGTH" | "BYTE_LENGTH" | "OCTET_LENGTH"
        | "ASCII" | "UNICODE" => arity(1, 1, T::Int64),
        "STRPOS" => arity(2, 2, T::Int64),
        "INSTR" | "REGEXP_INSTR" if args.get(1).is_some_and(|t| *t != first) => Err(format!(
            "{name} takes a value and a search value of one type, got {first} and {}",
            args[1]
        )),
        "INSTR" => arity(2, 4, T::Int64),
        "REGEXP_INSTR" => arity(2, 5, T::Int64),
        "TRANSLATE" => arity(3, 3, string_or_bytes.clone()),
        "SOUNDEX" | "TO_BASE32" => arity(1, 1, T::String),
        "NORMALIZE" | "NORMALIZE_AND_CASEFOLD" if first != T::String => {
            Err(format!("{name} takes a STRING, got {first}"))
        }
        "NORMALIZE" | "NORMALIZE_AND_CASEFOLD" => arity(1, 2, T::String),
        "FROM_BASE32" => arity(1, 1, T::Bytes),
        "LOWER" | "UPPER" | "REVERSE" | "LTRIM" | "RTRIM" | "TRIM" | "SUBSTR" | "SUBSTRING"
        | "LEFT" | "RIGHT" | "REPLACE" | "REPEAT" | "LPAD" | "RPAD" | "REGEXP_REPLACE"
        | "INITCAP" => arity(1, 4, string_or_bytes),
        "STARTS_WITH" | "ENDS_WITH" | "REGEXP_CONTAINS" => arity(2, 2, T::Bool),
        "SPLIT" | "REGEXP_EXTRACT_ALL" => arity(1, 2, T::array(string_or_bytes)),
        "REGEXP_EXTRACT" | "REGEXP_SUBSTR" => arity(2, 4, string_or_bytes),
        "CHR" | "TO_BASE64" | "TO_HEX" => arity(1, 1, T::String),
        "FROM_BASE64" | "FROM_HEX" => arity(1, 1, T::Bytes),
        "SAFE_CONVERT_BYTES_TO_STRING" => arity(1, 1, T::String),
        "TO_CODE_POINTS" => arity(1, 1, T::array(T::Int64)),
        "CODE_POINTS_TO_STRING" => arity(1, 1, T::String),
        "CODE_POINTS_TO_BYTES" => arity(1, 1, T::Bytes),
        // Conversion of Bigtable's byte encodings.
        "TO_INT64" => arity(1, 1, T::Int64),
        "TO_FLOAT64" => arity(1, 1, T::Float64),
        "TO_FLOAT32" => arity(1, 1, T::Float32),
        // Math.
        "ABS" | "SIGN" => arity(1, 1, first),
        "MOD" | "DIV" => arity(2, 2, T::Int64),
        "ROUND" | "TRUNC" | "FLOOR" | "CEIL" | "CEILING" => arity(1, 2, float(&first)),
        "SQRT" | "POW" | "POWER" | "EXP" | "LN" | "LOG" | "LOG10" | "IEEE_DIVIDE"
        | "SAFE_DIVIDE" | "SIN" | "COS" | "TAN" | "ASIN" | "ACOS" | "ATAN" | "ATAN2" => {
            arity(1, 2, T::Float64)
        }
        "SINH" | "COSH" | "TANH" | "ASINH" | "ACOSH" | "ATANH" | "COT" | "CSC" | "SEC" | "COTH"
        | "CSCH" | "SECH" => arity(1, 1, T::Float64),
        "SAFE_NEGATE" => arity(1, 1, first),
        "SAFE_ADD" | "SAFE_SUBTRACT" | "SAFE_MULTIPLY" => {
            let both = |t: &SqlType| args.iter().all(|a| a == t);
            arity(
                2,
                2,
                if both(&T::Int64) {
                    T::Int64
                } else if both(&T::Float32) {
                    T::Float32
                } else {
                    T::Float64
                },
            )
        }
        "RAND" => arity(0, 0, T::Float64),
        "GREATEST" | "LEAST" => arity(1, usize::MAX, common()),
        "IS_NAN" | "IS_INF" => arity(1, 1, T::Bool),
        // Map and array.
        "MAP_KEYS" => arity(
            1,
            2,
            match &first {
                T::Map(k, _) => T::array((**k).clone()),
                _ => return Some(Err(format!("MAP_KEYS takes a MAP, got {first}"))),
            },
        ),
        "MAP_VALUES" => arity(
            1,
            1,
            match &first {
                T::Map(_, v) => T::array((**v).clone()),
                _ => return Some(Err(format!("MAP_VALUES takes a MAP, got {first}"))),
            },
        ),
        "MAP_ENTRIES" => arity(
            1,
            2,
            match &first {
                T::Map(k, v) => T::array(T::Struct(alloc::vec![
                    ("key".into(), (**k).clone()),
                    ("value".into(), (**v).clone())
                ])),
                _ => return Some(Err(format!("MAP_ENTRIES takes a MAP, got {first}"))),
            },
        ),
        "MAP_CONTAINS_KEY" => arity(2, 2, T::Bool),
        "MAP_EMPTY" => arity(1, 1, T::Bool),
        "ARRAY_LENGTH" => arity(1, 1, T::Int64),
        "ARRAY_CONCAT" => arity(1, usize::MAX, first),
        "ARRAY_REVERSE" => arity(1, 1, first),
        "ARRAY_TO_STRING" => arity(
            2,
            3,
            match &first {
                T::Array(e) => (**e).clone(),
                _ => T::String,
            },
        ),
        "ARRAY_INCLUDES_ALL" | "ARRAY_INCLUDES_ANY" | "ARRAY_IS_DISTINCT" | "ARRAY_SLICE"
        | "ARRAY_LAST_N" | "ARRAY_OFFSET" | "ARRAY_OFFSETS"
            if !matches!(first, T::Array(_)) =>
        {
            Err(format!("{name} takes an ARRAY, got {first}"))
        }
        "ARRAY_INCLUDES" => arity(2, 2, T::Bool),
        "ARRAY_INCLUDES_ALL" | "ARRAY_INCLUDES_ANY" => match args.get(1) {
            Some(t) if *t != first => Err(format!(
                "{name} takes two arrays of one element type, got {first} and {t}"
            )),
            _ => arity(2, 2, T::Bool),
        },
        "ARRAY_IS_DISTINCT" => arity(1, 1, T::Bool),
        "ARRAY_SLICE" => arity(3, 3, first.clone()),
        "ARRAY_LAST_N" => arity(2, 2, first.clone()),
        "ARRAY_OFFSET" => arity(2, 3, T::Int64),
        "ARRAY_OFFSETS" => arity(2, 2, T::array(T::Int64)),
        "ARRAY_FIRST" | "ARRAY_LAST" => arity(
            1,
            1,
            match &first {
                T::Array(e) => (**e).clone(),
                _ => return Some(Err(format!("{name} takes an ARRAY, got {first}"))),
            },
        ),
        "GENERATE_ARRAY" => arity(2, 3, T::array(T::Int64)),
        // Vector.
        "COSINE_DISTANCE" | "EUCLIDEAN_DISTANCE" | "DOT_PRODUCT" => arity(2, 2, T::Float64),
        "TO_VECTOR32" => arity(1, 1, T::array(T::Float32)),
        "TO_VECTOR64" => arity(1, 1, T::array(T::Float64)),
        // Time.
        "CURRENT_TIMESTAMP" => arity(0, 0, T::Timestamp),
        "CURRENT_DATE" => arity(0, 1, T::Date),
        "TIMESTAMP_MICROS"
        | "TIMESTAMP_MILLIS"
        | "TIMESTAMP_SECONDS"
        | "TIMESTAMP_FROM_UNIX_MICROS"
        | "TIMESTAMP_FROM_UNIX_MILLIS"
        | "TIMESTAMP_FROM_UNIX_SECONDS" => arity(1, 1, T::Timestamp),
        // TIMESTAMP(string | date [, zone]).
        "TIMESTAMP" => arity(1, 2, T::Timestamp),
        "STRING" => match args.first() {
            Some(T::Timestamp) => arity(1, 2, T::String),
            Some(t) => Err(format!("STRING takes a TIMESTAMP, got {t}")),
            None => arity(1, 2, T::String),
        },
        "PARSE_TIMESTAMP" => arity(2, 3, T::Timestamp),
        "PARSE_DATE" => arity(2, 2, T::Date),
        // The parser reads `INTERVAL n PART` as two arguments.
        "GENERATE_TIMESTAMP_ARRAY" => arity(4, 4, T::array(T::Timestamp)),
        "GENERATE_DATE_ARRAY" => match n {
            2 | 4 => Ok(T::array(T::Date)),
            _ => Err(format!(
                "GENERATE_DATE_ARRAY takes (start, end[, INTERVAL n part]), got {n} arguments"
            )),
        },
        "UNIX_MICROS" | "UNIX_MILLIS" | "UNIX_SECONDS" | "UNIX_DATE" => arity(1, 1, T::Int64),
        "FORMAT_TIMESTAMP" => arity(2, 3, T::String),
        "FORMAT_DATE" => arity(2, 2, T::String),
        "DATE" | "DATE_FROM_UNIX_DATE" => arity(1, 3, T::Date),
        // The parser reads `INTERVAL n PART` as two arguments and a bare PART as its name.
        "TIMESTAMP_ADD" | "TIMESTAMP_SUB" => arity(3, 3, T::Timestamp),
        "TIMESTAMP_DIFF" | "DATE_DIFF" => arity(3, 3, T::Int64),
        "TIMESTAMP_TRUNC" => arity(2, 3, T::Timestamp),
        "DATE_ADD" | "DATE_SUB" => arity(3, 3, T::Date),
        "DATE_TRUNC" => arity(2, 2, first),
        "LAST_DAY" => arity(1, 2, T::Date),
        // Hash, JSON and bit functions check their argument types here.
        _ if hash::NAMES.contains(&name) => hash::result_type(name, args),
        _ if json::NAMES.contains(&name) => json::result_type(name, args),
        "TO_JSON_STRING" => to_json::result_type(args),
        "BIT_COUNT" => bits::result_type(args),
        "HLL_COUNT.EXTRACT" => match args {
            [T::Bytes] => Ok(T::Int64),
            [t] => Err(format!("HLL_COUNT.EXTRACT takes BYTES, got {t}")),
            _ => arity(1, 1, T::Int64),
        },
        _ => return None,
    })
}

/// Applies scalar function `name` (not a conditional one, which [`super::eval`] evaluates
/// lazily) to its evaluated arguments.
///
/// # Errors
/// As the function: OUT_OF_RANGE or INVALID_ARGUMENT; INVALID_ARGUMENT for an unknown name.
pub fn apply(name: &str, values: &[SqlValue]) -> Result<SqlValue> {
    if name == "FORMAT" {
        return match values.split_first() {
            Some((SqlValue::String(f), rest)) => format::format_sql(f, rest),
            _ => Ok(SqlValue::Null),
        };
    }
    if let Some(v) = string::call(name, values)? {
        return Ok(v);
    }
    if let Some(v) = math::call(name, values)? {
        return Ok(v);
    }
    if let Some(v) = collection::call(name, values)? {
        return Ok(v);
    }
    if let Some(v) = time::call(name, values)? {
        return Ok(v);
    }
    if let ("HLL_COUNT.EXTRACT", [v]) = (name, values) {
        return super::hll::extract(v);
    }
    for family in [hash::call, json::call, to_json::call, bits::call] {
        if let Some(v) = family(name, values)? {
            return Ok(v);
        }
    }
    Err(bad(format!("function {name} is not implemented")))
}
