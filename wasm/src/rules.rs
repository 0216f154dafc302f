//! Rules of Bigtable the npm package needs outside a database call, exported from the core so
//! that JavaScript keeps no copy of them: gRPC's status numbers by name (the package's
//! `Status`, and the numeric `code` of every `BigtableError`) and the key range a row-key
//! prefix covers (`getRows({prefix})`), and the read a client re-issues to resume a stream.
//! Each function converts the core's answer and nothing else.

use js_sys::{Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::error::{conversion_error, to_js_error};

/// gRPC's status codes by name (`{OK: 0, CANCELLED: 1, ..., UNAUTHENTICATED: 16}`), in number
/// order: the core's table (`sparsetable::error::GRPC_STATUS_CODES`).
#[wasm_bindgen(js_name = grpcStatusCodes, unchecked_return_type = "Record<string, number>")]
pub fn grpc_status_codes() -> JsValue {
    let out = Object::new();
    for (name, number) in sparsetable::error::GRPC_STATUS_CODES {
        // Reflect::set only fails on frozen or proxied objects; a fresh object is neither.
        let _ = Reflect::set(&out, &name.into(), &number.into());
    }
    out.into()
}

/// The exclusive end of the row keys that start with `prefix`: the core's prefix successor
/// (the prefix with its last byte below 0xff incremented and the rest dropped), or `null`
/// when no key ends the range (an empty prefix, or one of only 0xff bytes).
///
/// # Errors
/// `INVALID_ARGUMENT` if `prefix` is not a `Uint8Array`.
#[wasm_bindgen(js_name = prefixSuccessor, unchecked_return_type = "Uint8Array | null")]
pub fn prefix_successor(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] prefix: JsValue,
) -> Result<JsValue, JsValue> {
    let Some(bytes) = prefix.dyn_ref::<Uint8Array>() else {
        return Err(to_js_error(conversion_error(
            "prefix",
            format_args!(
                "expected a Uint8Array, found {}",
                crate::args::describe(&prefix)
            ),
        )));
    };
    Ok(
        match sparsetable::model::row_set::prefix_successor(&bytes.to_vec()) {
            Some(end) => Uint8Array::from(end.as_slice()).into(),
            None => JsValue::NULL,
        },
    )
}

/// The read a client re-issues after a `ReadRowsRequest` body failed mid-stream, having
/// received `rowsDelivered` rows, the last with key `lastKey` (`null`: none yet): the core's
/// `ReadRowsRequest::resume_after_rows` (the row set cut past the last key, in the read's
/// direction, and `rowsLimit` lowered by the rows received), or `null` when nothing is left.
///
/// # Errors
/// `INVALID_ARGUMENT` for a malformed request, key or count.
#[wasm_bindgen(js_name = resumeReadRows, unchecked_return_type = "ProtoReadRowsRequest | null")]
pub fn resume_read_rows(
    #[wasm_bindgen(unchecked_param_type = "ProtoReadRowsRequest")] request: JsValue,
    #[wasm_bindgen(js_name = "lastKey", unchecked_param_type = "Uint8Array | null")]
    last_key: JsValue,
    #[wasm_bindgen(js_name = "rowsDelivered")] rows_delivered: f64,
) -> Result<JsValue, JsValue> {
    let request: sparsetable::ReadRowsRequest =
        crate::proto::parse("request", &request, crate::args::value_limit())
            .map_err(to_js_error)?;
    let last_key = if last_key.is_null() || last_key.is_undefined() {
        None
    } else {
        Some(crate::proto::b64_key("lastKey", &last_key).map_err(to_js_error)?)
    };
    if !(rows_delivered >= 0.0 && rows_delivered.fract() == 0.0) {
        return Err(to_js_error(conversion_error(
            "rowsDelivered",
            "expected a non-negative integer",
        )));
    }
    match request.resume_after_rows(last_key.as_deref(), rows_delivered as u64) {
        Some(next) => crate::proto::output(&next).map_err(to_js_error),
        None => Ok(JsValue::NULL),
    }
}
