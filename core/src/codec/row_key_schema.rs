//! The stable byte encoding of a table's row-key schema ([`RowKeySchema`]), the optional
//! last element of a `table_config` from manifest version 4 on. Grammar in
//! docs/format/commit_log.md, "Values" (`row_key_schema`).
//!
//! Invariants: tags reach disk (never renumber, never reuse; 0 is invalid); decoding never
//! panics, answers `DataLoss` for malformed bytes, and accepts only schemas that pass the
//! model's own validation against the table's families, so a reopened table has the schema
//! it was given.

use alloc::vec::Vec;

use crate::codec::encoding::{put_bool, put_bytes, put_len, put_str, put_u8, Decoder};
use crate::model::row_key_schema::{
    Int64Encoding, KeyField, KeyFieldType, RowKeySchema, StructEncoding,
};
use crate::model::schema::Families;
use crate::Result;

/// Tags of a key field's type and encoding.
mod field_tag {
    pub const BYTES_RAW: u8 = 1;
    pub const STRING_UTF8: u8 = 2;
    pub const INT64_BIG_ENDIAN: u8 = 3;
    pub const INT64_ORDERED_CODE: u8 = 4;
    pub const TIMESTAMP_BIG_ENDIAN: u8 = 5;
    pub const TIMESTAMP_ORDERED_CODE: u8 = 6;
}

/// Tags of the struct encoding.
mod struct_tag {
    pub const SINGLETON: u8 = 1;
    pub const DELIMITED_BYTES: u8 = 2;
    pub const ORDERED_CODE_BYTES: u8 = 3;
}

/// Appends `row_key_schema_opt`: a presence byte, then the schema if present.
pub fn put_row_key_schema(out: &mut Vec<u8>, schema: Option<&RowKeySchema>) {
    put_bool(out, schema.is_some());
    let Some(schema) = schema else { return };
    put_len(out, schema.fields.len());
    for f in &schema.fields {
        put_str(out, &f.name);
        put_u8(
            out,
            match f.field_type {
                KeyFieldType::Bytes => field_tag::BYTES_RAW,
                KeyFieldType::String => field_tag::STRING_UTF8,
                KeyFieldType::Int64(Int64Encoding::BigEndianBytes) => field_tag::INT64_BIG_ENDIAN,
                KeyFieldType::Int64(Int64Encoding::OrderedCodeBytes) => {
                    field_tag::INT64_ORDERED_CODE
                }
                KeyFieldType::Timestamp(Int64Encoding::BigEndianBytes) => {
                    field_tag::TIMESTAMP_BIG_ENDIAN
                }
                KeyFieldType::Timestamp(Int64Encoding::OrderedCodeBytes) => {
                    field_tag::TIMESTAMP_ORDERED_CODE
                }
            },
        );
    }
    match &schema.encoding {
        StructEncoding::Singleton => put_u8(out, struct_tag::SINGLETON),
        StructEncoding::DelimitedBytes(d) => {
            put_u8(out, struct_tag::DELIMITED_BYTES);
            put_bytes(out, d);
        }
        StructEncoding::OrderedCodeBytes => put_u8(out, struct_tag::ORDERED_CODE_BYTES),
    }
}

/// Reads `row_key_schema_opt`, checking the schema against the table's `families`.
///
/// # Errors
/// `DataLoss` for malformed bytes, an unknown tag, or a schema the model refuses.
pub fn decode_row_key_schema(
    d: &mut Decoder<'_>,
    families: &Families,
) -> Result<Option<RowKeySchema>> {
    if !d.bool("row_key_schema present")? {
        return Ok(None);
    }
    // A field is at least a name length and a type tag.
    let n = d.count(2, "row_key_schema.fields count")?;
    let mut fields = Vec::with_capacity(n);
    for _ in 0..n {
        let name = d.string("row_key_schema field name")?;
        let field_type = match d.tag("row_key_schema field type")? {
            field_tag::BYTES_RAW => KeyFieldType::Bytes,
            field_tag::STRING_UTF8 => KeyFieldType::String,
            field_tag::INT64_BIG_ENDIAN => KeyFieldType::Int64(Int64Encoding::BigEndianBytes),
            field_tag::INT64_ORDERED_CODE => KeyFieldType::Int64(Int64Encoding::OrderedCodeBytes),
            field_tag::TIMESTAMP_BIG_ENDIAN => {
                KeyFieldType::Timestamp(Int64Encoding::BigEndianBytes)
            }
            field_tag::TIMESTAMP_ORDERED_CODE => {
                KeyFieldType::Timestamp(Int64Encoding::OrderedCodeBytes)
            }
            tag => return Err(d.unknown_tag(tag, "row_key_schema field type")),
        };
        fields.push(KeyField { name, field_type });
    }
    let encoding = match d.tag("row_key_schema encoding")? {
        struct_tag::SINGLETON => StructEncoding::Singleton,
        struct_tag::DELIMITED_BYTES => {
            StructEncoding::DelimitedBytes(d.byte_vec("row_key_schema delimiter")?)
        }
        struct_tag::ORDERED_CODE_BYTES => StructEncoding::OrderedCodeBytes,
        tag => return Err(d.unknown_tag(tag, "row_key_schema encoding")),
    };
    let schema = RowKeySchema { fields, encoding };
    schema
        .validate(|n| families.contains_key(n))
        .map_err(|e| d.error(format_args!("row_key_schema: {}", e.message())))?;
    Ok(Some(schema))
}
