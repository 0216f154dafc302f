//! Engine errors as JavaScript `Error` objects.
//!
//! [`to_js_error`] is the binding's one mapping from [`sparsetable::Error`] to JavaScript: every
//! thrown error is a real `Error` (so `instanceof Error` and stack traces work) whose `code`
//! property is the core's gRPC name (`NOT_FOUND`, `INVALID_ARGUMENT`, ...) and whose `name`
//! is `SparsetableError`; `details` is the core's message alone (the `message` is `CODE:
//! details`), so a layer above needs no parsing to pass it on word for word. Input that cannot even be converted (a number where bytes belong, an
//! unknown option) becomes the core's `InvalidArgument` first, so it goes through the same
//! function and callers see one shape of error.

use sparsetable::Error;
use wasm_bindgen::JsValue;

/// The `name` of every error this binding throws.
pub const ERROR_NAME: &str = "SparsetableError";

/// Turns an engine error into the JavaScript error the binding throws.
pub fn to_js_error(error: Error) -> JsValue {
    let js = js_sys::Error::new(&error.to_string());
    js.set_name(ERROR_NAME);
    // Reflect::set only fails on frozen or proxied objects; a fresh Error is neither.
    let _ = js_sys::Reflect::set(&js, &"code".into(), &error.code().as_str().into());
    let _ = js_sys::Reflect::set(&js, &"details".into(), &error.message().into());
    js.into()
}

/// An `InvalidArgument` engine error for input the binding could not convert, naming the
/// argument it came from.
pub fn conversion_error(argument: &str, detail: impl core::fmt::Display) -> Error {
    Error::invalid_argument(format!("{argument}: {detail}"))
}
