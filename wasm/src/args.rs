//! Values JavaScript hands over that wasm-bindgen's glue would otherwise convert on its own:
//! strings and bytes, type-checked here into `INVALID_ARGUMENT`.
//!
//! Why the binding does this itself: a method declared with a `&str` parameter makes the
//! generated glue copy its argument into wasm memory as a string whatever it is, and a number
//! there reaches the allocator with an undefined length and traps (`RuntimeError:
//! unreachable`), leaking a little of the wasm stack each time until every call fails. So
//! every parameter is a `JsValue` and its type is checked here, before any copy.
//!
//! Invariants: nothing here panics or calls JavaScript that can throw; a string must be
//! well-formed UTF-16 (a lone surrogate has no UTF-8 encoding, and the glue would silently
//! replace it with U+FFFD, changing a row key into another one).

use js_sys::{ArrayBuffer, JsString, Uint8Array};
use sparsetable::Error;
use wasm_bindgen::{JsCast, JsValue};

use crate::error::conversion_error;

/// A table id: a string, refused before it is copied when it is far longer than any valid id
/// (the core checks the id itself; this only spares copying and quoting a huge one).
///
/// # Errors
/// `INVALID_ARGUMENT` for a value that is not a string, a string with a lone surrogate, or an id of more than twice
/// [`MAX_TABLE_ID_CHARS`](sparsetable::limits::MAX_TABLE_ID_CHARS) UTF-16 units.
pub fn table_id(value: &JsValue) -> Result<String, Error> {
    string_at_most(
        "tableId",
        value,
        2 * sparsetable::limits::MAX_TABLE_ID_CHARS,
    )
}

fn string_at_most(argument: &str, value: &JsValue, max_units: usize) -> Result<String, Error> {
    let Some(s) = value.dyn_ref::<JsString>() else {
        return Err(conversion_error(
            argument,
            format_args!("expected a string, found {}", describe(value)),
        ));
    };
    let units = s.length() as usize;
    if units > max_units {
        return Err(conversion_error(
            argument,
            format_args!("{units} UTF-16 units is longer than any valid value"),
        ));
    }
    if !s.is_well_formed() {
        return Err(conversion_error(argument, LONE_SURROGATE));
    }
    Ok(String::from(s))
}

const LONE_SURROGATE: &str =
    "a string with a lone surrogate has no UTF-8 encoding (pass a Uint8Array for such bytes)";

/// Bytes given as a `Uint8Array` (or an `ArrayBuffer`) or a `string` (its UTF-8 encoding).
///
/// # Errors
/// A message (the caller names the argument) for any other value, or a string with a lone
/// surrogate.
pub fn bytes(value: &JsValue) -> Result<Vec<u8>, String> {
    if let Some(s) = value.dyn_ref::<JsString>() {
        if !s.is_well_formed() {
            return Err(LONE_SURROGATE.into());
        }
        Ok(String::from(s).into_bytes())
    } else if let Some(a) = value.dyn_ref::<Uint8Array>() {
        Ok(a.to_vec())
    } else if let Some(b) = value.dyn_ref::<ArrayBuffer>() {
        Ok(Uint8Array::new(b).to_vec())
    } else {
        Err(format!(
            "expected a Uint8Array or a string, found {}",
            describe(value)
        ))
    }
}

/// A short name for a value's type in error messages; never quotes the value itself.
pub fn describe(value: &JsValue) -> String {
    if value.is_null() {
        "null".into()
    } else if js_sys::Array::is_array(value) {
        "an array".into()
    } else {
        value
            .js_typeof()
            .as_string()
            .unwrap_or_else(|| "a value".into())
    }
}
