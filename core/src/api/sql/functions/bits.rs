//! Bit functions. From GoogleSQL for Bigtable's function list and GoogleSQL's "Bit functions"
//! and "Aggregate functions" pages, in our words:
//! - `BIT_COUNT(x)`: how many bits are set in an INT64 (in its 64-bit two's complement form,
//!   so `BIT_COUNT(-1)` is 64) or in a BYTES value (over all its bytes); NULL gives NULL.
//! - The bitwise operators `& | ^ ~ << >>` are evaluated in [`crate::api::sql::eval`]; the
//!   aggregates `BIT_AND`, `BIT_OR` and `BIT_XOR` over INT64 in the executor's grouping
//!   ([`crate::api::sql::exec`]): they skip NULL inputs and give NULL for a group with no
//!   non-NULL input.

use alloc::format;
use alloc::string::String;

use crate::api::sql::errors::bad;
use crate::api::sql::value::{to_text, SqlType, SqlValue};
use crate::Result;

/// The result type of `BIT_COUNT` over `args`, or why it does not take them.
pub fn result_type(args: &[SqlType]) -> core::result::Result<SqlType, String> {
    match args {
        [SqlType::Int64 | SqlType::Bytes] => Ok(SqlType::Int64),
        [t] => Err(format!("BIT_COUNT takes INT64 or BYTES, not {t}")),
        _ => Err(format!("BIT_COUNT takes 1 argument, got {}", args.len())),
    }
}

/// Evaluates a bit function; `None` if `name` is not one.
///
/// # Errors
/// INVALID_ARGUMENT for an argument that is neither INT64 nor BYTES.
pub fn call(name: &str, a: &[SqlValue]) -> Result<Option<SqlValue>> {
    if name != "BIT_COUNT" {
        return Ok(None);
    }
    Ok(Some(match a.first() {
        None | Some(SqlValue::Null) => SqlValue::Null,
        Some(SqlValue::Int64(i)) => SqlValue::Int64(i64::from(i.count_ones())),
        Some(SqlValue::Bytes(b)) => {
            SqlValue::Int64(b.iter().map(|x| i64::from(x.count_ones())).sum())
        }
        Some(other) => {
            return Err(bad(format!(
                "BIT_COUNT takes INT64 or BYTES, not {}",
                to_text(other)
            )))
        }
    }))
}
