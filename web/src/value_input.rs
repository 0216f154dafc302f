//! Typed value input for the write form: the text a person typed turned into the bytes a
//! cell stores, as text (UTF-8), hex, int64 (8 bytes big-endian, the encoding Bigtable's
//! increments and aggregates use for counters) or JSON (validated, stored as typed).
//!
//! Invariant: a bad input is an `INVALID_ARGUMENT` [`ShownError`] naming the type and what is
//! wrong, never a panic and never bytes the person did not mean.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::display::ShownError;

/// How the write form reads its value field.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ValueType {
    /// UTF-8 text, as typed.
    #[default]
    Text,
    /// Hex digits, two per byte; spaces and a `0x` prefix are allowed.
    Hex,
    /// A whole number stored as 8 bytes big-endian (a Bigtable counter).
    Int64,
    /// A JSON document, checked, stored as typed (UTF-8).
    Json,
}

impl ValueType {
    /// Every type, in the order the form offers them.
    pub const ALL: [ValueType; 4] = [
        ValueType::Text,
        ValueType::Hex,
        ValueType::Int64,
        ValueType::Json,
    ];

    /// The option's label (also its `value`).
    pub fn label(self) -> &'static str {
        match self {
            ValueType::Text => "text",
            ValueType::Hex => "hex",
            ValueType::Int64 => "int64",
            ValueType::Json => "JSON",
        }
    }

    /// The type whose [`ValueType::label`] is `label`.
    pub fn from_label(label: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.label() == label)
    }

    /// An example for the field's placeholder.
    pub fn example(self) -> &'static str {
        match self {
            ValueType::Text => "Ada Lovelace",
            ValueType::Hex => "0x00ff10",
            ValueType::Int64 => "42",
            ValueType::Json => "{\"name\": \"Ada\"}",
        }
    }

    /// The bytes `input` stands for.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT`, saying what is wrong with the input for this type.
    pub fn parse(self, input: &str) -> Result<Vec<u8>, ShownError> {
        let bad = |why: String| ShownError {
            code: "INVALID_ARGUMENT".into(),
            message: format!("value ({}): {why}", self.label()),
        };
        match self {
            ValueType::Text => Ok(input.as_bytes().to_vec()),
            ValueType::Hex => {
                let digits: Vec<u8> = input
                    .trim()
                    .trim_start_matches("0x")
                    .bytes()
                    .filter(|b| !b.is_ascii_whitespace())
                    .collect();
                if let Some(at) = digits.iter().position(|b| !b.is_ascii_hexdigit()) {
                    return Err(bad(format!(
                        "{:?} is not a hex digit",
                        char::from(digits[at])
                    )));
                }
                if !digits.len().is_multiple_of(2) {
                    return Err(bad(format!(
                        "{} hex digits is an odd number; each byte takes two",
                        digits.len()
                    )));
                }
                Ok(digits
                    .chunks(2)
                    .map(|pair| (nibble(pair[0]) << 4) | nibble(pair[1]))
                    .collect())
            }
            ValueType::Int64 => input
                .trim()
                .parse::<i64>()
                .map(|n| n.to_be_bytes().to_vec())
                .map_err(|_| {
                    bad(format!(
                        "{:?} is not a whole number from {} to {}",
                        input.trim(),
                        i64::MIN,
                        i64::MAX
                    ))
                }),
            ValueType::Json => serde_json::from_str::<serde_json::Value>(input)
                .map(|_| input.as_bytes().to_vec())
                .map_err(|e| bad(format!("not valid JSON: {e}"))),
        }
    }
}

/// The value of one hex digit (checked by the caller).
fn nibble(digit: u8) -> u8 {
    match digit {
        b'0'..=b'9' => digit - b'0',
        b'a'..=b'f' => digit - b'a' + 10,
        _ => digit - b'A' + 10,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_type_reads_its_form_and_rejects_bad_input_with_a_clear_error() {
        assert_eq!(ValueType::Text.parse("Ada").unwrap(), b"Ada");
        assert_eq!(
            ValueType::Hex.parse("0x00 ff1A").unwrap(),
            [0x00, 0xff, 0x1a]
        );
        assert_eq!(ValueType::Hex.parse("").unwrap(), b"");
        assert_eq!(ValueType::Int64.parse(" 1 ").unwrap(), 1i64.to_be_bytes());
        assert_eq!(
            ValueType::Int64.parse("-2").unwrap(),
            [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe]
        );
        assert_eq!(
            ValueType::Json.parse("{\"a\": [1]}").unwrap(),
            b"{\"a\": [1]}"
        );
        for (t, input, says) in [
            (ValueType::Hex, "abc", "odd number"),
            (ValueType::Hex, "zz", "'z' is not a hex digit"),
            (ValueType::Int64, "1.5", "not a whole number"),
            (
                ValueType::Int64,
                "9223372036854775808",
                "not a whole number",
            ),
            (ValueType::Json, "{a:1}", "not valid JSON"),
            (ValueType::Json, "", "not valid JSON"),
        ] {
            let e = t.parse(input).unwrap_err();
            assert_eq!(e.code, "INVALID_ARGUMENT");
            assert!(
                e.message.contains(says),
                "{input:?} as {t:?}: {}",
                e.message
            );
            assert!(e.message.starts_with(&format!("value ({})", t.label())));
        }
        for t in ValueType::ALL {
            assert_eq!(ValueType::from_label(t.label()), Some(t));
            assert!(t.parse(t.example()).is_ok(), "{t:?}'s example parses");
        }
    }
}
