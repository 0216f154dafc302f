//! The `bigtable-features` request header: the client's `google.bigtable.v2.FeatureFlags`.
//!
//! Clients announce what they understand by sending the FeatureFlags message, serialized and
//! base64-encoded (Google's clients use the URL-safe alphabet; the standard one is accepted
//! too, padding optional). The server reads `last_scanned_row_responses` from it, to send
//! ReadRows responses that carry only `last_scanned_row_key`. An absent header means no
//! features; a malformed one is INVALID_ARGUMENT rather than silently ignored.

use prost::Message;
use sparsetable::{Error, Result};
use tonic::metadata::MetadataMap;

use crate::stubs::v2;

/// The header's name.
pub const HEADER: &str = "bigtable-features";

/// What the client announced.
pub type FeatureFlags = v2::FeatureFlags;

/// Reading the flags off a request.
pub trait FromMetadata: Sized {
    /// The flags in `metadata`, or all false if the header is absent.
    ///
    /// # Errors
    /// `InvalidArgument` if the header is not base64 of a FeatureFlags message.
    fn from_metadata(metadata: &MetadataMap) -> Result<Self>;
}

impl FromMetadata for FeatureFlags {
    fn from_metadata(metadata: &MetadataMap) -> Result<Self> {
        let Some(value) = metadata.get(HEADER) else {
            return Ok(FeatureFlags::default());
        };
        let bad = || {
            Error::invalid_argument(format!(
                "header {HEADER} is not base64 of a FeatureFlags message"
            ))
        };
        let bytes = decode_base64(value.as_bytes()).ok_or_else(bad)?;
        FeatureFlags::decode(bytes.as_slice()).map_err(|_| bad())
    }
}

/// Decodes base64 in either alphabet (standard `+/` or URL-safe `-_`), padding optional.
/// `None` for any other character or an impossible length.
pub fn decode_base64(text: &[u8]) -> Option<Vec<u8>> {
    let text = text
        .strip_suffix(b"==")
        .or_else(|| text.strip_suffix(b"="))
        .unwrap_or(text);
    if text.len() % 4 == 1 {
        return None;
    }
    let sextet = |c: u8| -> Option<u32> {
        Some(u32::from(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        }))
    };
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for group in text.chunks(4) {
        let mut bits = 0u32;
        for (i, &c) in group.iter().enumerate() {
            bits |= sextet(c)? << (18 - 6 * i);
        }
        let bytes = bits.to_be_bytes();
        out.extend_from_slice(&bytes[1..group.len()]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes_both_alphabets_with_or_without_padding() {
        assert_eq!(decode_base64(b"").unwrap(), b"");
        assert_eq!(decode_base64(b"Zm9vYmFy").unwrap(), b"foobar");
        assert_eq!(decode_base64(b"Zm9vYg==").unwrap(), b"foob");
        assert_eq!(decode_base64(b"Zm9vYg").unwrap(), b"foob");
        assert_eq!(decode_base64(b"Zm8=").unwrap(), b"fo");
        assert_eq!(decode_base64(b"-_8").unwrap(), [0xfb, 0xff]);
        assert_eq!(decode_base64(b"+/8=").unwrap(), [0xfb, 0xff]);
        assert!(decode_base64(b"Zm9vY").is_none());
        assert!(decode_base64(b"Zm9*").is_none());
    }

    #[test]
    fn the_header_carries_last_scanned_row_responses() {
        let flags = FeatureFlags {
            last_scanned_row_responses: true,
            reverse_scans: true,
            ..Default::default()
        };
        let bytes = flags.encode_to_vec();
        // URL-safe encoding without padding, written out by hand for the test.
        let table = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let mut text = String::new();
        for group in bytes.chunks(3) {
            let mut b = [0u8; 3];
            b[..group.len()].copy_from_slice(group);
            let n = u32::from_be_bytes([0, b[0], b[1], b[2]]);
            for i in 0..=group.len() {
                text.push(table[(n >> (18 - 6 * i) & 63) as usize] as char);
            }
        }
        let mut metadata = MetadataMap::new();
        metadata.insert(HEADER, text.parse().unwrap());
        assert_eq!(FeatureFlags::from_metadata(&metadata).unwrap(), flags);
        assert_eq!(
            FeatureFlags::from_metadata(&MetadataMap::new()).unwrap(),
            FeatureFlags::default()
        );
        let mut bad = MetadataMap::new();
        bad.insert(HEADER, "not base64!".parse().unwrap());
        assert_eq!(
            FeatureFlags::from_metadata(&bad).unwrap_err().code(),
            sparsetable::Code::InvalidArgument
        );
    }
}
