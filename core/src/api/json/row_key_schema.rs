//! `Table.rowKeySchema` in proto3 JSON: a `Type.Struct` of key fields (BYTES raw, STRING
//! UTF-8, INT64 big-endian or ordered code, TIMESTAMP as `unixMicrosInt64` over either INT64
//! encoding) and its encoding (singleton, delimitedBytes with
//! a base64 delimiter, orderedCodeBytes). Shapes only: the schema's rules are the model's
//! (`model::row_key_schema`), checked when the table is created.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::check_oneof;
use super::data::WEmpty;
use super::scalar::B64;
use crate::{Int64Encoding, KeyField, KeyFieldType, RowKeySchema, StructEncoding};

message!(WKeyStruct {
    fields: Vec<WKeyField>,
    encoding: WKeyStructEncoding,
});
message!(WKeyField {
    field_name | "field_name": String,
    r#type: WKeyType,
});
message!(WKeyType {
    bytes_type | "bytes_type": WKeyBytes,
    string_type | "string_type": WKeyString,
    int64_type | "int64_type": WKeyInt64,
    timestamp_type | "timestamp_type": WKeyTimestamp,
});
message!(WKeyTimestamp {
    encoding: WKeyTimestampEncoding,
});
message!(WKeyTimestampEncoding {
    unix_micros_int64 | "unix_micros_int64": WKeyInt64Encoding,
});
message!(WKeyBytes {
    encoding: WKeyBytesEncoding,
});
message!(WKeyBytesEncoding { raw: WEmpty });
message!(WKeyString {
    encoding: WKeyStringEncoding,
});
message!(WKeyStringEncoding {
    utf8_bytes | "utf8_bytes": WEmpty,
    utf8_raw | "utf8_raw": WEmpty,
});
message!(WKeyInt64 {
    encoding: WKeyInt64Encoding,
});
message!(WKeyInt64Encoding {
    big_endian_bytes | "big_endian_bytes": WKeyBigEndian,
    ordered_code_bytes | "ordered_code_bytes": WEmpty,
});
message!(WKeyBigEndian {
    bytes_type | "bytes_type": WKeyBytes,
});
message!(WKeyStructEncoding {
    singleton: WEmpty,
    delimited_bytes | "delimited_bytes": WKeyDelimited,
    ordered_code_bytes | "ordered_code_bytes": WEmpty,
});
message!(WKeyDelimited { delimiter: B64 });

fn field_type(at: &str, t: WKeyType) -> Result<KeyFieldType, String> {
    check_oneof(
        at,
        &[
            ("bytesType", t.bytes_type.is_some()),
            ("stringType", t.string_type.is_some()),
            ("int64Type", t.int64_type.is_some()),
            ("timestampType", t.timestamp_type.is_some()),
        ],
        true,
    )?;
    let missing = || format!("{at}: an encoding is required");
    if let Some(b) = t.bytes_type {
        b.encoding.and_then(|e| e.raw).ok_or_else(missing)?;
        Ok(KeyFieldType::Bytes)
    } else if let Some(s) = t.string_type {
        let e = s.encoding.ok_or_else(missing)?;
        check_oneof(
            at,
            &[
                ("utf8Bytes", e.utf8_bytes.is_some()),
                ("utf8Raw", e.utf8_raw.is_some()),
            ],
            true,
        )?;
        Ok(KeyFieldType::String)
    } else if let Some(ts) = t.timestamp_type {
        let e = ts
            .encoding
            .and_then(|e| e.unix_micros_int64)
            .ok_or_else(missing)?;
        Ok(KeyFieldType::Timestamp(int64_encoding(at, e)?))
    } else {
        let e = t.int64_type.and_then(|i| i.encoding).ok_or_else(missing)?;
        Ok(KeyFieldType::Int64(int64_encoding(at, e)?))
    }
}

fn int64_encoding(at: &str, e: WKeyInt64Encoding) -> Result<Int64Encoding, String> {
    check_oneof(
        at,
        &[
            ("bigEndianBytes", e.big_endian_bytes.is_some()),
            ("orderedCodeBytes", e.ordered_code_bytes.is_some()),
        ],
        true,
    )?;
    Ok(if e.big_endian_bytes.is_some() {
        Int64Encoding::BigEndianBytes
    } else {
        Int64Encoding::OrderedCodeBytes
    })
}

fn int64_wire(e: Int64Encoding) -> WKeyInt64Encoding {
    match e {
        Int64Encoding::BigEndianBytes => WKeyInt64Encoding {
            big_endian_bytes: Some(WKeyBigEndian::default()),
            ordered_code_bytes: None,
        },
        Int64Encoding::OrderedCodeBytes => WKeyInt64Encoding {
            big_endian_bytes: None,
            ordered_code_bytes: Some(WEmpty {}),
        },
    }
}

fn to_wire(t: KeyFieldType) -> WKeyType {
    let bytes = || WKeyBytes {
        encoding: Some(WKeyBytesEncoding {
            raw: Some(WEmpty {}),
        }),
    };
    match t {
        KeyFieldType::Bytes => WKeyType {
            bytes_type: Some(bytes()),
            ..WKeyType::default()
        },
        KeyFieldType::String => WKeyType {
            string_type: Some(WKeyString {
                encoding: Some(WKeyStringEncoding {
                    utf8_bytes: Some(WEmpty {}),
                    utf8_raw: None,
                }),
            }),
            ..WKeyType::default()
        },
        KeyFieldType::Int64(e) => WKeyType {
            int64_type: Some(WKeyInt64 {
                encoding: Some(int64_wire(e)),
            }),
            ..WKeyType::default()
        },
        KeyFieldType::Timestamp(e) => WKeyType {
            timestamp_type: Some(WKeyTimestamp {
                encoding: Some(WKeyTimestampEncoding {
                    unix_micros_int64: Some(int64_wire(e)),
                }),
            }),
            ..WKeyType::default()
        },
    }
}

via!(
    RowKeySchema,
    WKeyStruct,
    |s: &RowKeySchema| WKeyStruct {
        fields: Some(
            s.fields
                .iter()
                .map(|f| WKeyField {
                    field_name: Some(f.name.clone()),
                    r#type: Some(to_wire(f.field_type)),
                })
                .collect()
        ),
        encoding: Some(match &s.encoding {
            StructEncoding::Singleton => WKeyStructEncoding {
                singleton: Some(WEmpty {}),
                ..WKeyStructEncoding::default()
            },
            StructEncoding::DelimitedBytes(d) => WKeyStructEncoding {
                delimited_bytes: Some(WKeyDelimited {
                    delimiter: Some(B64(d.clone())),
                }),
                ..WKeyStructEncoding::default()
            },
            StructEncoding::OrderedCodeBytes => WKeyStructEncoding {
                ordered_code_bytes: Some(WEmpty {}),
                ..WKeyStructEncoding::default()
            },
        }),
    },
    |w: WKeyStruct| {
        let mut fields = Vec::new();
        for (i, f) in w.fields.unwrap_or_default().into_iter().enumerate() {
            let at = format!("rowKeySchema.fields[{i}].type");
            let t = f.r#type.ok_or_else(|| format!("{at} is required"))?;
            fields.push(KeyField {
                name: f.field_name.unwrap_or_default(),
                field_type: field_type(&at, t)?,
            });
        }
        let e = w
            .encoding
            .ok_or_else(|| String::from("rowKeySchema.encoding is required"))?;
        check_oneof(
            "rowKeySchema.encoding",
            &[
                ("singleton", e.singleton.is_some()),
                ("delimitedBytes", e.delimited_bytes.is_some()),
                ("orderedCodeBytes", e.ordered_code_bytes.is_some()),
            ],
            true,
        )?;
        let encoding = if e.singleton.is_some() {
            StructEncoding::Singleton
        } else if let Some(d) = e.delimited_bytes {
            StructEncoding::DelimitedBytes(d.delimiter.map(|b| b.0).unwrap_or_default())
        } else {
            StructEncoding::OrderedCodeBytes
        };
        Ok::<_, String>(RowKeySchema { fields, encoding })
    }
);
