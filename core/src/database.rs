//! The database: a set of named tables and the Data API over them.
//!
//! Every entry point validates its whole input before changing anything, so a failed call
//! leaves the database exactly as it was.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::clock::Clock;
use crate::mutation::{validate_row_key, validate_row_mutations, Mutation};
use crate::row::Row;
use crate::row_set::{RowRange, RowSet};
use crate::schema::{validate_family_name, validate_table_id, FamilyModification, TableConfig, TableInfo};
use crate::table::{RowData, Table};
use crate::{Error, Result};

/// What to read: which rows, how many, in which direction.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReadRowsRequest {
    /// The rows to visit; empty means all.
    pub row_set: RowSet,
    /// Most rows to return; 0 means no limit, negative is `InvalidArgument`.
    pub rows_limit: i64,
    /// Return rows in descending key order (cells within a row keep their order).
    pub reversed: bool,
}

/// A database of tables.
pub struct Database {
    tables: BTreeMap<String, Table>,
    clock: Box<dyn Clock>,
}

impl core::fmt::Debug for Database {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Database")
            .field("tables", &self.tables.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "std")]
impl Default for Database {
    fn default() -> Self {
        Self::new()
    }
}

impl Database {
    /// An empty in-memory database on the system clock.
    #[cfg(feature = "std")]
    pub fn new() -> Self {
        Self::with_clock(crate::clock::SystemClock)
    }

    /// An empty in-memory database reading time from `clock`.
    pub fn with_clock(clock: impl Clock + 'static) -> Self {
        Database {
            tables: BTreeMap::new(),
            clock: Box::new(clock),
        }
    }

    /// The time the database sees, in microseconds since the epoch.
    pub fn now_micros(&self) -> i64 {
        self.clock.now_micros()
    }

    /// Creates a table.
    ///
    /// # Errors
    /// `InvalidArgument` for a bad id or schema; `AlreadyExists` if the table exists.
    pub fn create_table(&mut self, table_id: &str, config: TableConfig) -> Result<()> {
        validate_table_id(table_id)?;
        config.validate()?;
        if self.tables.contains_key(table_id) {
            return Err(Error::already_exists(format!("table {table_id:?} already exists")));
        }
        self.tables.insert(table_id.to_string(), Table::new(config));
        Ok(())
    }

    /// A table's schema and options.
    ///
    /// # Errors
    /// `NotFound` if the table does not exist.
    pub fn get_table(&self, table_id: &str) -> Result<TableInfo> {
        let table = self.table(table_id)?;
        Ok(TableInfo {
            name: table_id.to_string(),
            config: table.config.clone(),
        })
    }

    /// Every table, by id.
    pub fn list_tables(&self) -> Vec<TableInfo> {
        self.tables
            .iter()
            .map(|(name, t)| TableInfo {
                name: name.clone(),
                config: t.config.clone(),
            })
            .collect()
    }

    /// Deletes a table and its data.
    ///
    /// # Errors
    /// `NotFound` if the table does not exist; `FailedPrecondition` if it has deletion
    /// protection.
    pub fn delete_table(&mut self, table_id: &str) -> Result<()> {
        let table = self.table(table_id)?;
        if table.config.deletion_protection {
            return Err(Error::failed_precondition(format!(
                "table {table_id:?} has deletion protection enabled"
            )));
        }
        self.tables.remove(table_id);
        Ok(())
    }

    /// Creates, updates or drops column families, in order and all or nothing. Dropping a
    /// family deletes its data; re-creating it later starts empty.
    ///
    /// # Errors
    /// `NotFound` for an unknown table, or a family to update or drop that does not exist;
    /// `AlreadyExists` for a family to create that exists; `InvalidArgument` for a bad name
    /// or GC rule or an empty list. On error nothing changes.
    pub fn modify_column_families(
        &mut self,
        table_id: &str,
        modifications: &[FamilyModification],
    ) -> Result<TableInfo> {
        let table = self.table_mut(table_id)?;
        if modifications.is_empty() {
            return Err(Error::invalid_argument("modifications: at least one is required"));
        }
        // Work on a copy of the schema so a failure half-way changes nothing.
        let mut config = table.config.clone();
        let mut dropped = Vec::new();
        for (i, m) in modifications.iter().enumerate() {
            match m {
                FamilyModification::Create { name, family } => {
                    validate_family_name(name)?;
                    family.gc_rule.validate()?;
                    if config.families.contains_key(name) {
                        return Err(Error::already_exists(format!(
                            "modifications[{i}]: column family {name:?} already exists"
                        )));
                    }
                    config.families.insert(name.clone(), family.clone());
                }
                FamilyModification::Update { name, family } => {
                    family.gc_rule.validate()?;
                    match config.families.get_mut(name) {
                        Some(f) => *f = family.clone(),
                        None => {
                            return Err(Error::not_found(format!(
                                "modifications[{i}]: column family {name:?} not found"
                            )))
                        }
                    }
                }
                FamilyModification::Drop { name } => {
                    if config.families.remove(name).is_none() {
                        return Err(Error::not_found(format!(
                            "modifications[{i}]: column family {name:?} not found"
                        )));
                    }
                    dropped.push(name.clone());
                }
            }
        }
        for name in &dropped {
            table.drop_family_data(name);
        }
        table.config = config;
        Ok(TableInfo {
            name: table_id.to_string(),
            config: table.config.clone(),
        })
    }

    /// Applies `mutations` to one row, atomically and in order.
    ///
    /// # Errors
    /// `NotFound` for an unknown table or family; `InvalidArgument` for a bad row key, an
    /// empty list or any invalid mutation. On error nothing is applied.
    pub fn mutate_row(&mut self, table_id: &str, row_key: &[u8], mutations: &[Mutation]) -> Result<()> {
        let now = self.clock.now_micros();
        let table = self.table_mut(table_id)?;
        validate_row_mutations(&table.config, row_key, mutations)?;
        table.apply(row_key, mutations, now);
        Ok(())
    }

    /// Reads one row; `None` if it has no visible cells.
    ///
    /// # Errors
    /// `NotFound` for an unknown table; `InvalidArgument` for a bad row key.
    pub fn read_row(&self, table_id: &str, row_key: &[u8]) -> Result<Option<Row>> {
        let table = self.table(table_id)?;
        validate_row_key(row_key)?;
        let now = self.clock.now_micros();
        Ok(table
            .get(row_key)
            .and_then(|data| table.materialize(row_key, data, now)))
    }

    /// Streams the rows a request selects, in key order (or reversed), without
    /// materialising the table.
    ///
    /// # Errors
    /// `NotFound` for an unknown table; `InvalidArgument` for a negative limit or a bad
    /// row set.
    pub fn read_rows(&self, table_id: &str, request: &ReadRowsRequest) -> Result<RowStream<'_>> {
        let table = self.table(table_id)?;
        if request.rows_limit < 0 {
            return Err(Error::invalid_argument(format!(
                "rows_limit {} must not be negative",
                request.rows_limit
            )));
        }
        request.row_set.validate()?;
        let mut ranges = request.row_set.normalized_ranges();
        if request.reversed {
            ranges.reverse();
        }
        Ok(RowStream {
            table,
            ranges: ranges.into_iter(),
            current: None,
            reversed: request.reversed,
            remaining: if request.rows_limit == 0 {
                None
            } else {
                Some(request.rows_limit as u64)
            },
            now_micros: self.clock.now_micros(),
        })
    }

    fn table(&self, table_id: &str) -> Result<&Table> {
        self.tables
            .get(table_id)
            .ok_or_else(|| Error::not_found(format!("table {table_id:?} not found")))
    }

    fn table_mut(&mut self, table_id: &str) -> Result<&mut Table> {
        self.tables
            .get_mut(table_id)
            .ok_or_else(|| Error::not_found(format!("table {table_id:?} not found")))
    }
}

/// The rows of a read, produced one at a time.
pub struct RowStream<'a> {
    table: &'a Table,
    ranges: alloc::vec::IntoIter<RowRange>,
    current: Option<alloc::collections::btree_map::Range<'a, Vec<u8>, RowData>>,
    reversed: bool,
    remaining: Option<u64>,
    now_micros: i64,
}

impl Iterator for RowStream<'_> {
    type Item = Row;

    fn next(&mut self) -> Option<Row> {
        if self.remaining == Some(0) {
            return None;
        }
        loop {
            let current = match &mut self.current {
                Some(c) => c,
                None => {
                    let range = self.ranges.next()?;
                    self.current.insert(self.table.range(&range))
                }
            };
            let next = if self.reversed {
                current.next_back()
            } else {
                current.next()
            };
            match next {
                None => self.current = None,
                Some((key, data)) => {
                    // Rows whose cells are all hidden are skipped and do not count.
                    if let Some(row) = self.table.materialize(key, data, self.now_micros) {
                        if let Some(r) = &mut self.remaining {
                            *r -= 1;
                        }
                        return Some(row);
                    }
                }
            }
        }
    }
}
