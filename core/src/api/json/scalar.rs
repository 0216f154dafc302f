//! proto3 JSON's scalar forms: bytes as base64, 64-bit integers as decimal strings, 32-bit
//! integers and doubles as numbers (or strings on input), and `google.protobuf.Duration`.
//!
//! Each is a newtype with hand-written `Serialize`/`Deserialize`, so the message types can use
//! serde's derive and still read every form the spec allows.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use crate::error::quoted;
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

const STANDARD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding: what proto3 JSON writes.
pub(crate) fn encode_base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(STANDARD[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Reads standard or URL-safe base64, padded or not, as the proto3 JSON spec asks of parsers.
pub(crate) fn decode_base64(text: &str) -> Result<Vec<u8>, String> {
    let trimmed = text.trim_end_matches('=');
    let padded = text.len() != trimmed.len();
    if text.len() - trimmed.len() > 2
        || trimmed.len() % 4 == 1
        || (padded && !text.len().is_multiple_of(4))
    {
        return Err(format!("invalid base64 {}", quoted(text)));
    }
    let mut out = Vec::with_capacity(trimmed.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in trimmed.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return Err(format!("invalid base64 {}", quoted(text))),
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    // Leftover bits must be zero, or two different texts would decode to the same bytes.
    if acc != 0 {
        return Err(format!("invalid base64 {}: trailing bits", quoted(text)));
    }
    Ok(out)
}

/// A proto `bytes` field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct B64(pub Vec<u8>);

impl Serialize for B64 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&encode_base64(&self.0))
    }
}

impl<'de> Deserialize<'de> for B64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = B64;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a base64 string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<B64, E> {
                decode_base64(v).map(B64).map_err(E::custom)
            }
        }
        d.deserialize_str(V)
    }
}

/// `#[serde(with = ...)]` for a `Vec<u8>` field that is a proto `bytes`.
pub(crate) mod bytes_field {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&encode_base64(v))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        B64::deserialize(d).map(|b| b.0)
    }
}

/// A proto `int64`: a decimal string on output; a string or an integral number on input.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct I64(pub i64);

impl Serialize for I64 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for I64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(IntVisitor {
            min: i64::MIN.into(),
            max: i64::MAX.into(),
            what: "an int64",
        })
        .map(|v| I64(v as i64))
    }
}

/// A proto `int32`: a number on output; a number or a string on input.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct I32(pub i32);

impl Serialize for I32 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i32(self.0)
    }
}

impl<'de> Deserialize<'de> for I32 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(IntVisitor {
            min: i32::MIN.into(),
            max: i32::MAX.into(),
            what: "an int32",
        })
        .map(|v| I32(v as i32))
    }
}

/// Reads an integer in `[min, max]` from a JSON number or a decimal string.
struct IntVisitor {
    min: i128,
    max: i128,
    what: &'static str,
}

impl IntVisitor {
    fn check<E: de::Error>(&self, v: i128) -> Result<i128, E> {
        if v < self.min || v > self.max {
            Err(E::custom(format!("{v} is out of range for {}", self.what)))
        } else {
            Ok(v)
        }
    }
}

impl Visitor<'_> for IntVisitor {
    type Value = i128;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{} as a number or a decimal string", self.what)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<i128, E> {
        self.check(v.into())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<i128, E> {
        self.check(v.into())
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<i128, E> {
        // The spec lets a number like 1e3 stand for an integer, if it is integral. Floats above
        // 2^63 cannot be exact here; the range check rejects them.
        // (`fract` and `abs` need std; a round trip through i128 checks the same.)
        if !(-9.3e18..=9.3e18).contains(&v) || (v as i128) as f64 != v {
            return Err(E::custom(format!("{v} is not {}", self.what)));
        }
        self.check(v as i128)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<i128, E> {
        let parsed: i128 = v
            .parse()
            .map_err(|_| E::custom(format!("{v:?} is not {}", self.what)))?;
        self.check(parsed)
    }
}

/// A proto `double`: a number, or on input also a numeric string or `"NaN"`, `"Infinity"`,
/// `"-Infinity"`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct F64(pub f64);

impl Serialize for F64 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            v if v.is_nan() => s.serialize_str("NaN"),
            v if v == f64::INFINITY => s.serialize_str("Infinity"),
            v if v == f64::NEG_INFINITY => s.serialize_str("-Infinity"),
            v => s.serialize_f64(v),
        }
    }
}

impl<'de> Deserialize<'de> for F64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = F64;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a double")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<F64, E> {
                Ok(F64(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<F64, E> {
                Ok(F64(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<F64, E> {
                Ok(F64(v as f64))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<F64, E> {
                match v {
                    "NaN" => Ok(F64(f64::NAN)),
                    "Infinity" => Ok(F64(f64::INFINITY)),
                    "-Infinity" => Ok(F64(f64::NEG_INFINITY)),
                    _ => v
                        .parse()
                        .map(F64)
                        .map_err(|_| E::custom(format!("{v:?} is not a double"))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// A `google.protobuf.Duration`, held as microseconds (the core's unit).
///
/// Output has 0, 3 or 6 fractional digits, as the spec asks ("3s", "3.500s", "0.000001s").
/// Input takes up to 9; digits below a microsecond are truncated, as Bigtable truncates
/// `max_age` to microseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Duration(pub i64);

/// The spec's range for a Duration: about 10,000 years.
const MAX_DURATION_SECONDS: i64 = 315_576_000_000;

impl Serialize for Duration {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        let (secs, micros) = (abs / 1_000_000, abs % 1_000_000);
        let text = if micros == 0 {
            format!("{sign}{secs}s")
        } else if micros % 1000 == 0 {
            format!("{sign}{secs}.{:03}s", micros / 1000)
        } else {
            format!("{sign}{secs}.{micros:06}s")
        };
        s.serialize_str(&text)
    }
}

impl<'de> Deserialize<'de> for Duration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Duration;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a duration string such as \"3.5s\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Duration, E> {
                parse_duration(v).map(Duration).map_err(E::custom)
            }
        }
        d.deserialize_str(V)
    }
}

fn parse_duration(text: &str) -> Result<i64, String> {
    let bad = || format!("{} is not a duration such as \"3.5s\"", quoted(text));
    let body = text.strip_suffix('s').ok_or_else(bad)?;
    let (negative, body) = match body.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, body),
    };
    let (whole, frac) = body.split_once('.').unwrap_or((body, ""));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || (body.contains('.') && !digits(frac)) || frac.len() > 9 {
        return Err(bad());
    }
    let secs: i64 = whole.parse().map_err(|_| bad())?;
    if secs > MAX_DURATION_SECONDS {
        return Err(format!("{} is beyond a Duration's range", quoted(text)));
    }
    let mut micros_text = frac.to_string();
    micros_text.truncate(6);
    while micros_text.len() < 6 {
        micros_text.push('0');
    }
    let micros: i64 = micros_text.parse().map_err(|_| bad())?;
    let total = secs * 1_000_000 + micros;
    Ok(if negative { -total } else { total })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_every_length_and_reads_url_safe_and_unpadded() {
        for len in 0..10u8 {
            let bytes: Vec<u8> = (0..len)
                .map(|i| i.wrapping_mul(97).wrapping_add(250))
                .collect();
            let text = encode_base64(&bytes);
            assert_eq!(decode_base64(&text).unwrap(), bytes);
            assert_eq!(decode_base64(text.trim_end_matches('=')).unwrap(), bytes);
            let url = text.replace('+', "-").replace('/', "_");
            assert_eq!(decode_base64(&url).unwrap(), bytes);
        }
        assert_eq!(encode_base64(b"\xfb\xff"), "+/8=");
        assert_eq!(decode_base64("-_8").unwrap(), b"\xfb\xff");
    }

    #[test]
    fn base64_rejects_bad_characters_lengths_and_trailing_bits() {
        for bad in ["a", "ab$=", "abc==", "ab===", "YR==", "Zg=x"] {
            assert!(decode_base64(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn durations_parse_truncate_and_print_with_0_3_or_6_digits() {
        assert_eq!(parse_duration("3.5s"), Ok(3_500_000));
        assert_eq!(parse_duration("-1.000000001s"), Ok(-1_000_000));
        assert_eq!(parse_duration("0.000001999s"), Ok(1));
        assert!(parse_duration("3").is_err());
        assert!(parse_duration("1.s").is_err());
        assert!(parse_duration("1.0000000001s").is_err());
        assert!(parse_duration("315576000001s").is_err());
        let show = |m| serde_json::to_string(&Duration(m)).unwrap();
        assert_eq!(show(3_000_000), "\"3s\"");
        assert_eq!(show(3_500_000), "\"3.500s\"");
        assert_eq!(show(1), "\"0.000001s\"");
        assert_eq!(show(-1_500_000), "\"-1.500s\"");
    }
}
