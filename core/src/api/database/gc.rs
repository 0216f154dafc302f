//! The database's garbage-collection mode and its explicit collection passes (see
//! `model::gc` for what the two modes mean and Bigtable's documentation behind them).
//!
//! Invariant: every table's `gc_mode` equals the database's; a collection pass is a full
//! compaction of the table at the clock's time, so its result depends only on the table's
//! contents, its families' current rules and that time.

use alloc::string::String;
use alloc::vec::Vec;

use super::Database;
use crate::model::gc::GcMode;
use crate::Result;

impl Database {
    /// When collectable cells stop being readable (see [`GcMode`]).
    pub fn gc_mode(&self) -> GcMode {
        self.gc_mode
    }

    /// Switches the GC mode of every table, now and for tables made later. Changes nothing
    /// stored: switching to Background makes the collectable cells no collection removed
    /// yet readable; switching to Immediate hides them at once.
    pub fn set_gc_mode(&mut self, mode: GcMode) {
        self.gc_mode = mode;
        for t in self.tables.values_mut() {
            t.gc_mode = mode;
        }
    }

    /// A garbage collection pass over one table, now: flushes and fully compacts every
    /// tablet, removing for good every cell its family's current GC rule makes collectable
    /// at the clock's time (and what deletes cover). In Background mode this is the
    /// "collect now" that makes reads stop returning collectable cells; in Immediate mode
    /// reads do not change. The cells removed reach the table's change stream, if any, as
    /// garbage collection.
    ///
    /// # Errors
    /// `NotFound` for an unknown table; the storage's errors.
    pub fn collect_garbage(&mut self, table_id: &str) -> Result<()> {
        self.compact_table(table_id)
    }

    /// [`Database::collect_garbage`] for every table, in name order.
    ///
    /// # Errors
    /// The storage's errors; tables collected before the failure stay collected.
    pub fn collect_all_garbage(&mut self) -> Result<()> {
        let names: Vec<String> = self.tables.keys().cloned().collect();
        for name in names {
            self.collect_garbage(&name)?;
        }
        Ok(())
    }
}
