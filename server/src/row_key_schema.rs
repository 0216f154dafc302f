//! Conversion of a table's row-key schema between the admin protos' `Type.Struct` and the
//! core's [`RowKeySchema`]. The rules (allowed types, names, encodings) live in the core
//! (`sparsetable::model::row_key_schema`); this module only maps shapes and says which proto
//! field was not understood.

use sparsetable::{
    Error, Int64Encoding, KeyField, KeyFieldType, Result, RowKeySchema, StructEncoding,
};

use crate::stubs::admin_v2::r#type::{self, bytes, int64, r#struct, string, timestamp};
use crate::stubs::admin_v2::Type;

/// The core's schema for `table.row_key_schema`.
///
/// # Errors
/// `InvalidArgument` naming the field: a field without a type, a type other than BYTES,
/// STRING, INT64 or TIMESTAMP, a type or struct without an encoding.
// `Utf8Raw` is deprecated in the protos but still accepted, as Bigtable does.
#[allow(deprecated)]
pub fn row_key_schema_from_proto(field: &str, s: &r#type::Struct) -> Result<RowKeySchema> {
    let mut fields = Vec::with_capacity(s.fields.len());
    for (i, f) in s.fields.iter().enumerate() {
        let at = format!("{field}.fields[{i}]");
        let kind = f.r#type.as_ref().and_then(|t| t.kind.as_ref());
        let field_type = match kind {
            Some(r#type::Kind::BytesType(b)) => {
                match b.encoding.as_ref().and_then(|e| e.encoding.as_ref()) {
                    Some(bytes::encoding::Encoding::Raw(_)) => KeyFieldType::Bytes,
                    None => return Err(no_encoding(&at)),
                }
            }
            Some(r#type::Kind::StringType(s)) => {
                match s.encoding.as_ref().and_then(|e| e.encoding.as_ref()) {
                    // Utf8Raw is the deprecated spelling of Utf8Bytes.
                    Some(
                        string::encoding::Encoding::Utf8Bytes(_)
                        | string::encoding::Encoding::Utf8Raw(_),
                    ) => KeyFieldType::String,
                    None => return Err(no_encoding(&at)),
                }
            }
            Some(r#type::Kind::Int64Type(n)) => {
                match n.encoding.as_ref().and_then(|e| e.encoding.as_ref()) {
                    Some(e) => KeyFieldType::Int64(int64_from_proto(e)),
                    None => return Err(no_encoding(&at)),
                }
            }
            // TIMESTAMP: microseconds since the epoch in an INT64 encoding.
            Some(r#type::Kind::TimestampType(t)) => {
                let int = t.encoding.as_ref().and_then(|e| match &e.encoding {
                    Some(timestamp::encoding::Encoding::UnixMicrosInt64(i)) => i.encoding.as_ref(),
                    None => None,
                });
                match int {
                    Some(e) => KeyFieldType::Timestamp(int64_from_proto(e)),
                    None => return Err(no_encoding(&at)),
                }
            }
            Some(_) => {
                return Err(Error::invalid_argument(format!(
                    "{at}.type: a row key field must be BYTES, STRING, INT64 or TIMESTAMP with an encoding"
                )))
            }
            None => return Err(Error::invalid_argument(format!("{at}.type is required"))),
        };
        fields.push(KeyField {
            name: f.field_name.clone(),
            field_type,
        });
    }
    let encoding = match s.encoding.as_ref().and_then(|e| e.encoding.as_ref()) {
        Some(r#struct::encoding::Encoding::Singleton(_)) => StructEncoding::Singleton,
        Some(r#struct::encoding::Encoding::DelimitedBytes(d)) => {
            StructEncoding::DelimitedBytes(d.delimiter.clone())
        }
        Some(r#struct::encoding::Encoding::OrderedCodeBytes(_)) => StructEncoding::OrderedCodeBytes,
        None => return Err(no_encoding(field)),
    };
    Ok(RowKeySchema { fields, encoding })
}

fn int64_from_proto(e: &int64::encoding::Encoding) -> Int64Encoding {
    match e {
        int64::encoding::Encoding::BigEndianBytes(_) => Int64Encoding::BigEndianBytes,
        int64::encoding::Encoding::OrderedCodeBytes(_) => Int64Encoding::OrderedCodeBytes,
    }
}

fn int64_to_proto(e: Int64Encoding) -> int64::Encoding {
    int64::Encoding {
        encoding: Some(match e {
            Int64Encoding::BigEndianBytes => {
                int64::encoding::Encoding::BigEndianBytes(Default::default())
            }
            Int64Encoding::OrderedCodeBytes => {
                int64::encoding::Encoding::OrderedCodeBytes(Default::default())
            }
        }),
    }
}

fn no_encoding(at: &str) -> Error {
    Error::invalid_argument(format!("{at}: an encoding is required"))
}

/// The proto form of a schema, as GetTable returns it.
pub fn row_key_schema_to_proto(schema: &RowKeySchema) -> r#type::Struct {
    let fields = schema
        .fields
        .iter()
        .map(|f| {
            let kind = match f.field_type {
                KeyFieldType::Bytes => r#type::Kind::BytesType(r#type::Bytes {
                    encoding: Some(bytes::Encoding {
                        encoding: Some(bytes::encoding::Encoding::Raw(Default::default())),
                    }),
                }),
                KeyFieldType::String => r#type::Kind::StringType(r#type::String {
                    encoding: Some(string::Encoding {
                        encoding: Some(string::encoding::Encoding::Utf8Bytes(Default::default())),
                    }),
                }),
                KeyFieldType::Int64(e) => r#type::Kind::Int64Type(r#type::Int64 {
                    encoding: Some(int64_to_proto(e)),
                }),
                KeyFieldType::Timestamp(e) => r#type::Kind::TimestampType(r#type::Timestamp {
                    encoding: Some(timestamp::Encoding {
                        encoding: Some(timestamp::encoding::Encoding::UnixMicrosInt64(
                            int64_to_proto(e),
                        )),
                    }),
                }),
            };
            r#struct::Field {
                field_name: f.name.clone(),
                r#type: Some(Type { kind: Some(kind) }),
            }
        })
        .collect();
    let encoding = match &schema.encoding {
        StructEncoding::Singleton => r#struct::encoding::Encoding::Singleton(Default::default()),
        StructEncoding::DelimitedBytes(d) => {
            r#struct::encoding::Encoding::DelimitedBytes(r#struct::encoding::DelimitedBytes {
                delimiter: d.clone(),
            })
        }
        StructEncoding::OrderedCodeBytes => {
            r#struct::encoding::Encoding::OrderedCodeBytes(Default::default())
        }
    };
    r#type::Struct {
        fields,
        encoding: Some(r#struct::Encoding {
            encoding: Some(encoding),
        }),
    }
}
