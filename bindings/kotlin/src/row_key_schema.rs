//! A table's row-key schema (Bigtable's `Table.row_key_schema`, "structured row keys")
//! across the FFI: the core's `model::row_key_schema` as flat uniffi records, and the
//! UpdateTable call that sets or removes one.
//!
//! Every rule (which field types and encodings exist, field names, delimiters, when a schema
//! may be set, changed or removed, how SQL reads the fields) is the core's; this module
//! converts only. Invariant: converting a core schema to the record and back gives it back,
//! and no exported function panics on any input.

use sparsetable::model::row_key_schema::{
    Int64Encoding, KeyField, KeyFieldType, RowKeySchema, StructEncoding,
};

use crate::database::Database;
use crate::error::SparsetableError;
use crate::types::TableInfo;

/// A key field's type with its encoding (`Type.Bytes`/`String`/`Int64` with theirs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum KeyFieldKind {
    /// BYTES, raw.
    Bytes,
    /// STRING, its UTF-8 bytes.
    String,
    /// INT64 as 8 big-endian bytes.
    Int64BigEndian,
    /// INT64 in Google's order-preserving ordered code.
    Int64OrderedCode,
}

/// One field of a row-key schema.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct RowKeyField {
    /// The field's name, its SQL column name.
    pub name: String,
    /// Its type and encoding.
    pub kind: KeyFieldKind,
}

/// How the fields are joined into the key (`Type.Struct.Encoding`).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum RowKeyEncoding {
    /// One field, encoded as is.
    Singleton,
    /// The fields joined by a delimiter.
    DelimitedBytes {
        /// The delimiter (1 to 50 bytes).
        delimiter: Vec<u8>,
    },
    /// The fields in ordered-code form.
    OrderedCodeBytes,
}

/// A table's row-key schema.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct RowKeySchemaConfig {
    /// The fields, in key order.
    pub fields: Vec<RowKeyField>,
    /// How they are joined.
    pub encoding: RowKeyEncoding,
}

impl From<RowKeySchemaConfig> for RowKeySchema {
    fn from(s: RowKeySchemaConfig) -> Self {
        RowKeySchema {
            fields: s
                .fields
                .into_iter()
                .map(|f| KeyField {
                    name: f.name,
                    field_type: match f.kind {
                        KeyFieldKind::Bytes => KeyFieldType::Bytes,
                        KeyFieldKind::String => KeyFieldType::String,
                        KeyFieldKind::Int64BigEndian => {
                            KeyFieldType::Int64(Int64Encoding::BigEndianBytes)
                        }
                        KeyFieldKind::Int64OrderedCode => {
                            KeyFieldType::Int64(Int64Encoding::OrderedCodeBytes)
                        }
                    },
                })
                .collect(),
            encoding: match s.encoding {
                RowKeyEncoding::Singleton => StructEncoding::Singleton,
                RowKeyEncoding::DelimitedBytes { delimiter } => {
                    StructEncoding::DelimitedBytes(delimiter)
                }
                RowKeyEncoding::OrderedCodeBytes => StructEncoding::OrderedCodeBytes,
            },
        }
    }
}

impl From<RowKeySchema> for RowKeySchemaConfig {
    fn from(s: RowKeySchema) -> Self {
        RowKeySchemaConfig {
            fields: s
                .fields
                .into_iter()
                .map(|f| RowKeyField {
                    name: f.name,
                    kind: match f.field_type {
                        KeyFieldType::Bytes => KeyFieldKind::Bytes,
                        KeyFieldType::String => KeyFieldKind::String,
                        KeyFieldType::Int64(Int64Encoding::BigEndianBytes) => {
                            KeyFieldKind::Int64BigEndian
                        }
                        KeyFieldType::Int64(Int64Encoding::OrderedCodeBytes) => {
                            KeyFieldKind::Int64OrderedCode
                        }
                    },
                })
                .collect(),
            encoding: match s.encoding {
                StructEncoding::Singleton => RowKeyEncoding::Singleton,
                StructEncoding::DelimitedBytes(delimiter) => {
                    RowKeyEncoding::DelimitedBytes { delimiter }
                }
                StructEncoding::OrderedCodeBytes => RowKeyEncoding::OrderedCodeBytes,
            },
        }
    }
}

#[uniffi::export]
impl Database {
    /// Sets (`Some`) or removes (`None`) a table's row-key schema (UpdateTable of
    /// `row_key_schema`), the core's `set_row_key_schema`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table; `INVALID_ARGUMENT` for a schema the core refuses, a
    /// change of an existing schema, or a removal without `ignore_warnings`.
    pub fn set_row_key_schema(
        &self,
        table_id: String,
        schema: Option<RowKeySchemaConfig>,
        ignore_warnings: bool,
    ) -> Result<TableInfo, SparsetableError> {
        self.write(|db| db.set_row_key_schema(&table_id, schema.map(Into::into), ignore_warnings))
            .map(Into::into)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_kind_and_encoding_round_trips() {
        let kinds = [
            KeyFieldKind::Bytes,
            KeyFieldKind::String,
            KeyFieldKind::Int64BigEndian,
            KeyFieldKind::Int64OrderedCode,
        ];
        let encodings = [
            RowKeyEncoding::Singleton,
            RowKeyEncoding::DelimitedBytes {
                delimiter: b"#".to_vec(),
            },
            RowKeyEncoding::OrderedCodeBytes,
        ];
        for encoding in encodings {
            let config = RowKeySchemaConfig {
                fields: kinds
                    .iter()
                    .enumerate()
                    .map(|(i, k)| RowKeyField {
                        name: format!("f{i}"),
                        kind: *k,
                    })
                    .collect(),
                encoding,
            };
            let core: RowKeySchema = config.clone().into();
            assert_eq!(RowKeySchemaConfig::from(core), config);
        }
    }
}
