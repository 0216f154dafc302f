//! CreateTable's column families in the order the request lists them.
//!
//! Cloud Bigtable creates the families of one CreateTable request in the request's order,
//! and reads return a row's families in creation order (REFERENCE.md, "Data model"). On the
//! wire `Table.column_families` is a protobuf map: a repeated entry message, so the encoded
//! request does carry an order (clients that keep insertion order, such as Java's and
//! Node's, send the user's order). prost decodes the map into a `HashMap`, which drops it.
//! [`CreateTableRequestInOrder`] is the request decoded as usual plus the order of the
//! map's keys as they appear in the bytes: the `table` field is decoded from a copy of its
//! bytes, which are also scanned for the entries' keys.
//!
//! Invariant: the decoded request is exactly what prost decodes alone (same fields, same
//! errors); the scan only reads, stops at the first malformed byte (the decode reports it),
//! and lists each key once, where it first appears.

use prost::bytes::{Buf, BufMut, Bytes};
use prost::encoding::{decode_key, decode_varint, skip_field, DecodeContext, WireType};
use prost::{DecodeError, Message};

use crate::stubs::admin_v2;

/// `CreateTableRequest.table`'s field number.
const TABLE_FIELD: u32 = 3;
/// `Table.column_families`' field number.
const COLUMN_FAMILIES_FIELD: u32 = 3;
/// A map entry's key field number.
const MAP_KEY_FIELD: u32 = 1;

/// A CreateTable request and the order its `table.column_families` entries came in.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct CreateTableRequestInOrder {
    /// The request as prost decodes it.
    pub request: admin_v2::CreateTableRequest,
    /// The family names in the order the encoded request lists them, each once.
    pub family_order: Vec<String>,
}

impl Message for CreateTableRequestInOrder {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        self.request.encode_raw(buf);
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        if tag != TABLE_FIELD || wire_type != WireType::LengthDelimited {
            return self.request.merge_field(tag, wire_type, buf, ctx);
        }
        // A copy of the field (its length checked first, as prost does), scanned for the
        // keys' order and then merged like any other occurrence of the field.
        let len = decode_varint(buf)?;
        if len > buf.remaining() as u64 {
            // Too short: prost reports it, from the field as it was.
            let mut rest = length_prefix(len).chain(buf);
            return self.request.merge_field(tag, wire_type, &mut rest, ctx);
        }
        let bytes = buf.copy_to_bytes(len as usize);
        for name in family_keys(&bytes) {
            if !self.family_order.contains(&name) {
                self.family_order.push(name);
            }
        }
        let mut prefixed = length_prefix(len).chain(bytes);
        self.request.merge_field(tag, wire_type, &mut prefixed, ctx)
    }

    fn encoded_len(&self) -> usize {
        self.request.encoded_len()
    }

    fn clear(&mut self) {
        self.request.clear();
        self.family_order.clear();
    }
}

/// `len` as a varint, to put back in front of a field's bytes.
fn length_prefix(len: u64) -> Bytes {
    let mut out = Vec::with_capacity(10);
    prost::encoding::encode_varint(len, &mut out);
    Bytes::from(out)
}

/// The keys of a `Table` message's `column_families` entries, in the order they appear.
/// Stops at the first malformed field.
fn family_keys(table: &[u8]) -> Vec<String> {
    let mut keys = Vec::new();
    let mut buf = table;
    while buf.has_remaining() {
        let Ok((tag, wire_type)) = decode_key(&mut buf) else {
            break;
        };
        if tag == COLUMN_FAMILIES_FIELD && wire_type == WireType::LengthDelimited {
            let Some(entry) = length_delimited(&mut buf) else {
                break;
            };
            if let Some(key) = entry_key(entry) {
                keys.push(key);
            }
        } else if skip_field(wire_type, tag, &mut buf, DecodeContext::default()).is_err() {
            break;
        }
    }
    keys
}

/// The key of one map entry (the last key field, as a decoder keeps; absent = "").
fn entry_key(mut entry: &[u8]) -> Option<String> {
    let mut key = String::new();
    while entry.has_remaining() {
        let (tag, wire_type) = decode_key(&mut entry).ok()?;
        if tag == MAP_KEY_FIELD && wire_type == WireType::LengthDelimited {
            key = String::from_utf8(length_delimited(&mut entry)?.to_vec()).ok()?;
        } else {
            skip_field(wire_type, tag, &mut entry, DecodeContext::default()).ok()?;
        }
    }
    Some(key)
}

/// Takes a length-delimited field's bytes off the front of `buf`.
fn length_delimited<'a>(buf: &mut &'a [u8]) -> Option<&'a [u8]> {
    let len = usize::try_from(decode_varint(buf).ok()?).ok()?;
    if len > buf.len() {
        return None;
    }
    let (field, rest) = buf.split_at(len);
    *buf = rest;
    Some(field)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A CreateTable request whose families are encoded in `order`, by hand: prost would
    /// encode its HashMap in whatever order it iterates.
    fn encoded(order: &[&str]) -> Vec<u8> {
        let mut table = Vec::new();
        for name in order {
            let mut entry = Vec::new();
            prost::encoding::string::encode(MAP_KEY_FIELD, &(*name).to_string(), &mut entry);
            let family = admin_v2::ColumnFamily {
                gc_rule: Some(admin_v2::GcRule {
                    rule: Some(admin_v2::gc_rule::Rule::MaxNumVersions(1)),
                }),
                ..Default::default()
            };
            prost::encoding::message::encode(2, &family, &mut entry);
            prost::encoding::bytes::encode(COLUMN_FAMILIES_FIELD, &entry, &mut table);
        }
        let mut request = admin_v2::CreateTableRequest {
            parent: "projects/p/instances/i".into(),
            table_id: "t".into(),
            ..Default::default()
        }
        .encode_to_vec();
        prost::encoding::bytes::encode(TABLE_FIELD, &table, &mut request);
        request
    }

    #[test]
    fn keeps_the_order_the_request_lists_its_families_in() {
        for order in [["z", "a", "m"], ["a", "m", "z"], ["m", "z", "a"]] {
            let bytes = encoded(&order);
            let got = CreateTableRequestInOrder::decode(&bytes[..]).unwrap();
            assert_eq!(got.family_order, order);
            // The request itself is what prost alone decodes.
            let alone = admin_v2::CreateTableRequest::decode(&bytes[..]).unwrap();
            assert_eq!(got.request, alone);
            let families: HashMap<_, _> = alone.table.unwrap().column_families;
            assert_eq!(families.len(), 3);
        }
    }

    #[test]
    fn a_malformed_table_fails_as_prost_fails() {
        let mut bytes = encoded(&["a", "b"]);
        bytes.truncate(bytes.len() - 3);
        assert!(admin_v2::CreateTableRequest::decode(&bytes[..]).is_err());
        assert!(CreateTableRequestInOrder::decode(&bytes[..]).is_err());
    }
}
