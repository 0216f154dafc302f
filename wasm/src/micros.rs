//! Microseconds as JavaScript carries them: a `number` (or `bigint`) that holds the value
//! exactly, so within ±(2^53 - 1). Every module that reads or writes a timestamp (requests,
//! GC rules, clocks) uses this one type, and this module uses none of them.

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};

/// Largest integer a JS `number` holds exactly (`Number.MAX_SAFE_INTEGER`).
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// A timestamp in microseconds that a JS `number` holds exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Micros(pub i64);

impl<'de> Deserialize<'de> for Micros {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct MicrosVisitor;
        impl Visitor<'_> for MicrosVisitor {
            type Value = Micros;
            fn expecting(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
                f.write_str("an integer number of microseconds within ±(2^53 - 1)")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Micros, E> {
                if (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&v) {
                    Ok(Micros(v))
                } else {
                    Err(E::invalid_value(de::Unexpected::Signed(v), &self))
                }
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Micros, E> {
                match i64::try_from(v) {
                    Ok(v) => self.visit_i64(v),
                    Err(_) => Err(E::invalid_value(de::Unexpected::Unsigned(v), &self)),
                }
            }
        }
        // `deserialize_any` so that a number outside the safe range (which arrives as a float)
        // gets the same message as a bigint outside it.
        d.deserialize_any(MicrosVisitor)
    }
}

impl Serialize for Micros {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i64(self.0)
    }
}

/// Reads a timestamp argument, reporting a failure as `INVALID_ARGUMENT` naming `argument`.
pub fn from_js(argument: &str, value: wasm_bindgen::JsValue) -> Result<Micros, sparsetable::Error> {
    serde_wasm_bindgen::from_value(value).map_err(|e| {
        // The error wraps a JS Error whose string form starts with "Error: ".
        let text = e.to_string();
        crate::error::conversion_error(argument, text.strip_prefix("Error: ").unwrap_or(&text))
    })
}
