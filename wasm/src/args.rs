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

/// An id (backup ids and the like): a string of at most 1024 UTF-16 units; the core checks
/// its syntax.
///
/// # Errors
/// As [`table_id`].
pub fn id(argument: &str, value: &JsValue) -> Result<String, Error> {
    string_at_most(argument, value, 1024)
}

/// The bound on any bytes argument: the largest value a table may hold
/// ([`DEFAULT_MAX_VALUE_BYTES`](sparsetable::limits::DEFAULT_MAX_VALUE_BYTES); the proto3 JSON
/// `Table` has no field to raise it). Longer bytes are refused before they are copied into
/// wasm memory; the engine then checks each table's exact limit.
pub fn value_limit() -> usize {
    sparsetable::limits::DEFAULT_MAX_VALUE_BYTES
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
/// A message (the caller names the argument) for any other value, a string with a lone
/// surrogate, or bytes longer than [`value_limit`] (checked before the copy: a string of `n`
/// UTF-16 units has at least `n` UTF-8 bytes).
pub fn bytes(value: &JsValue) -> Result<Vec<u8>, String> {
    let limit = value_limit();
    let too_long = |n: usize| {
        format!("{n} bytes (or characters) is longer than any value a table here may hold ({limit} bytes)")
    };
    if let Some(s) = value.dyn_ref::<JsString>() {
        if s.length() as usize > limit {
            return Err(too_long(s.length() as usize));
        }
        if !s.is_well_formed() {
            return Err(LONE_SURROGATE.into());
        }
        Ok(String::from(s).into_bytes())
    } else if let Some(a) = value.dyn_ref::<Uint8Array>() {
        if a.length() as usize > limit {
            return Err(too_long(a.length() as usize));
        }
        Ok(a.to_vec())
    } else if let Some(b) = value.dyn_ref::<ArrayBuffer>() {
        if b.byte_length() as usize > limit {
            return Err(too_long(b.byte_length() as usize));
        }
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

/// The fields `known` of an options object, in that order (`undefined` where absent).
/// `undefined` or `null` is no options at all. Anything but a plain object (one whose
/// prototype is `Object.prototype` or `null`) is refused rather than read as an empty object:
/// an array, an `ArrayBuffer`, a typed array, a `Map`, a `Date`, a function or a primitive
/// each gets `INVALID_ARGUMENT`. So is a key outside `known` (a misspelt option would
/// otherwise be dropped without a word).
///
/// # Errors
/// `INVALID_ARGUMENT` as above, naming `argument`.
pub fn options<const N: usize>(
    argument: &str,
    value: &JsValue,
    known: [&str; N],
) -> Result<[JsValue; N], Error> {
    if value.is_undefined() || value.is_null() {
        return Ok(core::array::from_fn(|_| JsValue::UNDEFINED));
    }
    if !is_plain_object(value) {
        return Err(conversion_error(
            argument,
            format_args!("expected a plain object, found {}", describe_object(value)),
        ));
    }
    let object: &js_sys::Object = value.unchecked_ref();
    for key in js_sys::Object::keys(object).iter() {
        let key = key.as_string().unwrap_or_default();
        if !known.contains(&key.as_str()) {
            let shown: String = key.chars().take(64).collect();
            return Err(conversion_error(
                argument,
                format_args!("unknown option {shown:?} (known: {})", known.join(", ")),
            ));
        }
    }
    Ok(known
        .map(|k| js_sys::Reflect::get(value, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED)))
}

/// Whether `value` is a plain object: an object literal, `Object.create(null)`, or a proxy of
/// one (not an array, a buffer, a typed array, a `Map`, a class instance or a function).
pub fn is_plain_object(value: &JsValue) -> bool {
    if !value.is_object() || js_sys::Array::is_array(value) {
        return false;
    }
    let proto = js_sys::Object::get_prototype_of(value);
    proto.is_null()
        || js_sys::Object::is(
            &proto,
            &js_sys::Object::get_prototype_of(&js_sys::Object::new()),
        )
}

/// [`describe`], naming an object's constructor too (`an ArrayBuffer`, `a Map`).
pub fn describe_object(value: &JsValue) -> String {
    if value.is_object() && !js_sys::Array::is_array(value) {
        let ctor = js_sys::Reflect::get(value, &"constructor".into())
            .ok()
            .and_then(|c| js_sys::Reflect::get(&c, &"name".into()).ok())
            .and_then(|n| n.as_string())
            .filter(|n| !n.is_empty() && n.len() <= 64);
        if let Some(name) = ctor {
            let article = if name.starts_with(['A', 'E', 'I', 'O', 'U']) {
                "an"
            } else {
                "a"
            };
            return format!("{article} {name}");
        }
    }
    describe(value)
}

/// A clock reading in microseconds since the epoch: an exact integer (see
/// [`Micros`](crate::micros::Micros)) that is not negative. A clock before 1970 is refused
/// rather than run: Bigtable's timestamps are never negative, and `-1` means "server time" in a
/// mutation, so a clock there would stamp cells with a value no write can name.
///
/// # Errors
/// `INVALID_ARGUMENT` naming `argument`.
pub fn clock_micros(argument: &str, value: JsValue) -> Result<i64, Error> {
    let crate::micros::Micros(m) = crate::micros::from_js(argument, value)?;
    if m < 0 {
        return Err(conversion_error(
            argument,
            format_args!("a clock reads microseconds since the epoch and cannot be negative ({m})"),
        ));
    }
    Ok(m)
}

/// A GC mode by name: `undefined` is the engine's default, a string is parsed by the core
/// (`"immediate"` or `"background"`, its `GcMode`).
///
/// # Errors
/// `INVALID_ARGUMENT` naming `argument` for anything else.
pub fn gc_mode(argument: &str, value: &JsValue) -> Result<sparsetable::GcMode, Error> {
    if value.is_undefined() {
        return Ok(sparsetable::GcMode::default());
    }
    let name = value
        .as_string()
        .ok_or_else(|| conversion_error(argument, "expected \"immediate\" or \"background\""))?;
    name.parse()
        .map_err(|e: Error| conversion_error(argument, e.message()))
}
