//! Backups of a database's tables: a backup captures a table's immutable runs at a consistent
//! point (no copy: runs are shared), survives a reopen (the manifest names its runs), and
//! restores into a new table. Invariants: a backup never changes after it is taken; later
//! writes to its table do not reach it; a restored table starts with the backup's runs.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::Database;
use crate::error::quoted;
use crate::model::schema::{validate_table_id, TableInfo};
use crate::table::table::{Table, TableSnapshot};
use crate::{Error, Result};

/// What `get_backup` and `list_backups` report about a backup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupInfo {
    /// The backup's id.
    pub name: String,
    /// The table it was taken from.
    pub source_table: String,
    /// When it was taken (the database clock).
    pub created_micros: i64,
    /// Approximate bytes it holds.
    pub size_bytes: u64,
}

/// A backup: what is reported about it and the runs it keeps.
pub(super) struct Backup {
    pub(super) info: BackupInfo,
    pub(super) snapshot: TableSnapshot,
}

impl Database {
    /// Snapshots a table at a consistent point as backup `backup_id`. Later writes to the
    /// table do not change the backup.
    ///
    /// # Errors
    /// `NotFound` for an unknown table; `AlreadyExists` if the backup id is taken;
    /// `InvalidArgument` for a bad id.
    pub fn create_backup(&mut self, table_id: &str, backup_id: &str) -> Result<BackupInfo> {
        validate_table_id(backup_id).map_err(|_| {
            Error::invalid_argument(format!(
                "backup_id {} must match [_a-zA-Z0-9][-_.a-zA-Z0-9]* and be at most 50 characters",
                quoted(backup_id)
            ))
        })?;
        if self.backups.contains_key(backup_id) {
            return Err(Error::already_exists(format!(
                "backup {} already exists",
                quoted(backup_id)
            )));
        }
        let now = self.now()?;
        let persistent = self.persist.is_some();
        let table = self.table_mut(table_id)?;
        if persistent {
            // Compacting first leaves every tablet with runs of its own rows only, so the
            // backup's runs can be read back as one tablet after a reopen.
            table.compact_all(now)?;
        }
        let snapshot = table.snapshot()?;
        let info = BackupInfo {
            name: backup_id.to_string(),
            source_table: table_id.to_string(),
            created_micros: now,
            size_bytes: snapshot.size_bytes(),
        };
        self.backups.insert(
            backup_id.to_string(),
            Backup {
                info: info.clone(),
                snapshot,
            },
        );
        self.write_manifest()?;
        Ok(info)
    }

    /// A backup's description.
    ///
    /// # Errors
    /// `NotFound` for an unknown backup.
    pub fn get_backup(&self, backup_id: &str) -> Result<BackupInfo> {
        self.backups
            .get(backup_id)
            .map(|b| b.info.clone())
            .ok_or_else(|| backup_not_found(backup_id))
    }

    /// Every backup, by id.
    pub fn list_backups(&self) -> Vec<BackupInfo> {
        self.backups.values().map(|b| b.info.clone()).collect()
    }

    /// Deletes a backup (tables restored from it keep their data).
    ///
    /// # Errors
    /// `NotFound` for an unknown backup.
    pub fn delete_backup(&mut self, backup_id: &str) -> Result<()> {
        self.backups
            .remove(backup_id)
            .ok_or_else(|| backup_not_found(backup_id))?;
        self.write_manifest()
    }

    /// DeleteInstance's data: every backup and every table, all or nothing. The admin
    /// protos' `Table.deletion_protection` comment says a protected table forbids deleting
    /// the instance that holds it, so every table is checked before anything is deleted.
    ///
    /// # Errors
    /// `FailedPrecondition` naming the first table with deletion protection (nothing is
    /// deleted); storage errors.
    pub fn delete_all_tables(&mut self) -> Result<()> {
        if let Some((name, _)) = self
            .tables
            .iter()
            .find(|(_, t)| t.config.deletion_protection)
        {
            return Err(Error::failed_precondition(format!(
                "table {} has deletion protection enabled; disable it before deleting the instance",
                quoted(name)
            )));
        }
        // Materialized views go with the instance, unless one is protected.
        self.check_views_deletable()?;
        let backups: Vec<String> = self.backups.keys().cloned().collect();
        for backup in backups {
            self.delete_backup(&backup)?;
        }
        self.drop_all_materialized_views();
        let tables: Vec<String> = self.tables.keys().cloned().collect();
        for table in tables {
            self.delete_table(&table)?;
        }
        Ok(())
    }

    /// Creates table `table_id` holding a backup's data and schema.
    ///
    /// # Errors
    /// `NotFound` for an unknown backup; `AlreadyExists` if the table exists;
    /// `InvalidArgument` for a bad table id.
    pub fn restore_table(&mut self, backup_id: &str, table_id: &str) -> Result<TableInfo> {
        validate_table_id(table_id)?;
        let backup = self
            .backups
            .get(backup_id)
            .ok_or_else(|| backup_not_found(backup_id))?;
        if self.tables.contains_key(table_id) {
            return Err(Error::already_exists(format!(
                "table {} already exists",
                quoted(table_id)
            )));
        }
        let store = self.persist.as_ref().map(|p| p.store.clone());
        let mut table = Table::from_snapshot(table_id, &backup.snapshot, store);
        table.defer_maintenance = self.background_maintenance;
        table.gc_mode = self.gc_mode;
        let info = TableInfo {
            name: table_id.to_string(),
            config: table.config.clone(),
        };
        self.tables.insert(table_id.to_string(), table);
        self.schema_epoch += 1;
        self.write_manifest()?;
        Ok(info)
    }
}

/// The error for a backup id no backup has: INVALID_ARGUMENT when the id is malformed.
fn backup_not_found(backup_id: &str) -> Error {
    match validate_table_id(backup_id) {
        Err(_) => Error::invalid_argument(format!(
            "backup_id {} must match [_a-zA-Z0-9][-_.a-zA-Z0-9]* and be at most 50 characters",
            quoted(backup_id)
        )),
        Ok(()) => Error::not_found(format!("backup {} not found", quoted(backup_id))),
    }
}
