//! UpdateTable of a table's row-key schema across the FFI: sets or removes it through the
//! core's `set_row_key_schema` (apart from `row_key_schema.rs`, which the table types use, so
//! that the conversions do not import the database and the database's types in a circle).
//!
//! Invariant: every rule is the core's; this module converts only and never panics.

use crate::database::Database;
use crate::error::SparsetableError;
use crate::row_key_schema::RowKeySchemaConfig;
use crate::types::TableInfo;

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
