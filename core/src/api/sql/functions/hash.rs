//! Hash functions. From GoogleSQL for Bigtable's function list and GoogleSQL's "Hash
//! functions" page (cloud.google.com/bigtable/docs/reference/sql/functions-all and
//! .../hash_functions), in our words:
//! - `FARM_FINGERPRINT(value)`: FarmHash's `Fingerprint64` of a STRING (its UTF-8 bytes) or
//!   BYTES value, as a signed INT64; the same input gives the same output on every run and
//!   every engine (see [`super::farmhash`]).
//! - `MD5`, `SHA1`, `SHA256`, `SHA512`: the digest of a STRING (its UTF-8 bytes) or BYTES value
//!   as BYTES of 16, 20, 32 and 64 bytes. MD5 and SHA-1 are documented as not secure; they
//!   are served for checksums and compatibility.
//! - NULL gives NULL. Any other argument type is refused at prepare time (INVALID_ARGUMENT);
//!   an untyped NULL literal is accepted and gives NULL.

use alloc::vec::Vec;

use md5::Md5;
use sha1::Sha1;
use sha2::{Digest, Sha256, Sha512};

use crate::api::sql::errors::bad;
use crate::api::sql::value::{to_text, SqlType, SqlValue};
use crate::Result;

/// The hash functions' names.
pub const NAMES: &[&str] = &["FARM_FINGERPRINT", "MD5", "SHA1", "SHA256", "SHA512"];

/// The result type of hash function `name` over `args`, or why it does not take them.
pub fn result_type(
    name: &str,
    args: &[SqlType],
) -> core::result::Result<SqlType, alloc::string::String> {
    // INT64 stands for an untyped NULL literal here (the planner types `NULL` as INT64); a
    // real INT64 value is refused when the call runs.
    match args {
        [SqlType::String | SqlType::Bytes | SqlType::Int64] => Ok(if name == "FARM_FINGERPRINT" {
            SqlType::Int64
        } else {
            SqlType::Bytes
        }),
        [t] => Err(alloc::format!("{name} takes STRING or BYTES, not {t}")),
        _ => Err(alloc::format!(
            "{name} takes 1 argument, got {}",
            args.len()
        )),
    }
}

fn digest<D: Digest>(data: &[u8]) -> Vec<u8> {
    D::digest(data).to_vec()
}

/// Evaluates a hash function; `None` if `name` is not one.
///
/// # Errors
/// INVALID_ARGUMENT for an argument that is neither STRING nor BYTES.
pub fn call(name: &str, a: &[SqlValue]) -> Result<Option<SqlValue>> {
    if !NAMES.contains(&name) {
        return Ok(None);
    }
    let data = match a.first() {
        None | Some(SqlValue::Null) => return Ok(Some(SqlValue::Null)),
        Some(SqlValue::String(s)) => s.as_bytes(),
        Some(SqlValue::Bytes(b)) => b.as_slice(),
        Some(other) => {
            return Err(bad(alloc::format!(
                "{name} takes STRING or BYTES, not {}",
                to_text(other)
            )))
        }
    };
    Ok(Some(match name {
        "FARM_FINGERPRINT" => SqlValue::Int64(super::farmhash::fingerprint64(data) as i64),
        "MD5" => SqlValue::Bytes(digest::<Md5>(data)),
        "SHA1" => SqlValue::Bytes(digest::<Sha1>(data)),
        "SHA256" => SqlValue::Bytes(digest::<Sha256>(data)),
        _ => SqlValue::Bytes(digest::<Sha512>(data)),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(v: Option<SqlValue>) -> alloc::string::String {
        match v {
            Some(SqlValue::Bytes(b)) => b.iter().map(|x| alloc::format!("{x:02x}")).collect(),
            other => panic!("not bytes: {other:?}"),
        }
    }

    #[test]
    fn digests_match_the_standard_test_values() {
        // FIPS 180 / RFC 1321 test values for "abc".
        let abc = [SqlValue::String("abc".into())];
        assert_eq!(
            hex(call("MD5", &abc).unwrap()),
            "900150983cd24fb0d6963f7d28e17f72"
        );
        assert_eq!(
            hex(call("SHA1", &abc).unwrap()),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(
            hex(call("SHA256", &abc).unwrap()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(hex(call("SHA512", &abc).unwrap()).starts_with("ddaf35a193617aba"));
    }

    #[test]
    fn null_gives_null_and_other_types_are_refused() {
        assert_eq!(
            call("SHA256", &[SqlValue::Null]).unwrap(),
            Some(SqlValue::Null)
        );
        assert!(call("SHA256", &[SqlValue::Int64(1)]).is_err());
        assert!(call("LOWER", &[SqlValue::Null]).unwrap().is_none());
    }
}
