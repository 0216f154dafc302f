//! The exported database object: the core's [`sparsetable::Database`] behind a lock.
//!
//! The core is a plain `&mut self` API; the JVM may call from many threads, so reads share a
//! read lock and writes take the write lock. Each method converts its arguments, makes one
//! core call, and converts the result; errors go through [`crate::error::to_ffi`].

use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::clock::ManualClock;
use crate::error::{to_ffi, SparsetableError};
use crate::types::{FamilyModification, Mutation, ReadRowsRequest, Row, TableConfig, TableInfo};

/// An in-memory Sparsetable database.
#[derive(Debug, uniffi::Object)]
pub struct Database {
    inner: RwLock<sparsetable::Database>,
}

type Result<T> = std::result::Result<T, SparsetableError>;

#[uniffi::export]
impl Database {
    /// An empty database on the system clock.
    #[uniffi::constructor]
    pub fn new() -> Arc<Self> {
        Self::wrap(sparsetable::Database::new())
    }

    /// An empty database that reads the time from `clock`, and only from it.
    #[uniffi::constructor]
    pub fn with_manual_clock(clock: Arc<ManualClock>) -> Arc<Self> {
        Self::wrap(sparsetable::Database::with_clock(clock.inner.clone()))
    }

    /// The time the database sees, in microseconds since the epoch.
    pub fn now_micros(&self) -> i64 {
        self.read().now_micros()
    }

    /// Creates a table.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a bad id or schema; `ALREADY_EXISTS` if it exists.
    pub fn create_table(&self, table_id: String, config: TableConfig) -> Result<()> {
        let config = config.try_into().map_err(to_ffi)?;
        self.write().create_table(&table_id, config).map_err(to_ffi)
    }

    /// A table's schema.
    ///
    /// # Errors
    /// `NOT_FOUND` if the table does not exist.
    pub fn get_table(&self, table_id: String) -> Result<TableInfo> {
        self.read()
            .get_table(&table_id)
            .map(Into::into)
            .map_err(to_ffi)
    }

    /// Every table, sorted by id.
    pub fn list_tables(&self) -> Vec<TableInfo> {
        self.read()
            .list_tables()
            .into_iter()
            .map(Into::into)
            .collect()
    }

    /// Deletes a table and its data.
    ///
    /// # Errors
    /// `NOT_FOUND` if it does not exist; `FAILED_PRECONDITION` if it is protected.
    pub fn delete_table(&self, table_id: String) -> Result<()> {
        self.write().delete_table(&table_id).map_err(to_ffi)
    }

    /// Creates, updates or drops column families, all or nothing.
    ///
    /// # Errors
    /// As the core's `modify_column_families`: `NOT_FOUND`, `ALREADY_EXISTS`,
    /// `INVALID_ARGUMENT`.
    pub fn modify_column_families(
        &self,
        table_id: String,
        modifications: Vec<FamilyModification>,
    ) -> Result<TableInfo> {
        let modifications = modifications
            .into_iter()
            .map(TryInto::try_into)
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(to_ffi)?;
        self.write()
            .modify_column_families(&table_id, &modifications)
            .map(Into::into)
            .map_err(to_ffi)
    }

    /// Applies mutations to one row, atomically and in order.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table or family; `INVALID_ARGUMENT` for a bad row key or
    /// mutation. On error nothing is applied.
    pub fn mutate_row(
        &self,
        table_id: String,
        row_key: Vec<u8>,
        mutations: Vec<Mutation>,
    ) -> Result<()> {
        let mutations: Vec<sparsetable::Mutation> = mutations.into_iter().map(Into::into).collect();
        self.write()
            .mutate_row(&table_id, &row_key, &mutations)
            .map_err(to_ffi)
    }

    /// Reads one row; `None` if it has no visible cells.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table; `INVALID_ARGUMENT` for a bad row key.
    pub fn read_row(&self, table_id: String, row_key: Vec<u8>) -> Result<Option<Row>> {
        self.read()
            .read_row(&table_id, &row_key)
            .map(|row| row.map(Into::into))
            .map_err(to_ffi)
    }

    /// Reads the rows a request selects, in key order (or reversed).
    ///
    /// The rows are collected before they cross the FFI: uniffi has no streams, and the
    /// core's stream borrows the database under the lock.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table; `INVALID_ARGUMENT` for a bad request.
    pub fn read_rows(&self, table_id: String, request: ReadRowsRequest) -> Result<Vec<Row>> {
        let db = self.read();
        let rows = db.read_rows(&table_id, &request.into()).map_err(to_ffi)?;
        Ok(rows.map(Into::into).collect())
    }
}

impl Database {
    fn wrap(db: sparsetable::Database) -> Arc<Self> {
        Arc::new(Database {
            inner: RwLock::new(db),
        })
    }

    // The core validates before it changes anything, so a panic mid-call (a bug) cannot have
    // left a half-applied write: the data behind a poisoned lock is still consistent.
    fn read(&self) -> RwLockReadGuard<'_, sparsetable::Database> {
        self.inner.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, sparsetable::Database> {
        self.inner.write().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{GcRule, Granularity};
    use std::collections::HashMap;

    fn config(families: &[&str]) -> TableConfig {
        TableConfig {
            families: families
                .iter()
                .map(|f| (f.to_string(), GcRule::Never))
                .collect::<HashMap<_, _>>(),
            granularity: Granularity::Millis,
            deletion_protection: false,
            initial_splits: vec![],
            max_value_bytes: None,
        }
    }

    #[test]
    fn server_time_comes_from_the_manual_clock() {
        let clock = ManualClock::new(7_000);
        let db = Database::with_manual_clock(clock.clone());
        db.create_table("t".into(), config(&["cf"])).unwrap();
        let set = |v: &str| Mutation::SetCell {
            family: "cf".into(),
            qualifier: b"q".to_vec(),
            timestamp_micros: -1,
            value: v.as_bytes().to_vec(),
        };
        db.mutate_row("t".into(), b"r".to_vec(), vec![set("a")])
            .unwrap();
        clock.advance_micros(2_000);
        db.mutate_row("t".into(), b"r".to_vec(), vec![set("b")])
            .unwrap();
        let row = db.read_row("t".into(), b"r".to_vec()).unwrap().unwrap();
        let stamps: Vec<i64> = row.cells.iter().map(|c| c.timestamp_micros).collect();
        assert_eq!(stamps, vec![9_000, 7_000]);
    }

    #[test]
    fn unknown_table_is_not_found() {
        let db = Database::new();
        let err = db.read_row("nope".into(), b"r".to_vec()).unwrap_err();
        assert!(matches!(err, SparsetableError::NotFound { .. }), "{err:?}");
        assert_eq!(err.code(), "NOT_FOUND");
    }
}
