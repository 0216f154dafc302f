//! The server's state: one engine `Database` per Bigtable instance.
//!
//! As Google's emulator, every `projects/P/instances/I` exists implicitly: its database is
//! created, empty, the first time a request names it. Instances never share tables. All
//! databases read time from one clock, the system clock unless the caller supplies another
//! (a frozen `ManualClock` makes server timestamps and max_age GC deterministic in tests).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use sparsetable::{Clock, Code, Database, Error, Result, SystemClock};

use crate::names::InstanceName;
use crate::operations::Operations;

/// Every instance's database, created on first use, and the server's long-running operations.
pub struct Instances {
    clock: Arc<dyn Clock>,
    databases: Mutex<BTreeMap<InstanceName, Arc<Mutex<Database>>>>,
    operations: Arc<Operations>,
}

impl core::fmt::Debug for Instances {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Instances").finish_non_exhaustive()
    }
}

impl Default for Instances {
    fn default() -> Self {
        Self::new()
    }
}

impl Instances {
    /// No instances yet; databases will run on the system clock.
    pub fn new() -> Self {
        Self::with_clock(Arc::new(SystemClock))
    }

    /// No instances yet; every database will read time from `clock`.
    pub fn with_clock(clock: Arc<dyn Clock>) -> Self {
        Instances {
            clock,
            databases: Mutex::new(BTreeMap::new()),
            operations: Arc::new(Operations::new()),
        }
    }

    /// The long-running operations admin RPCs have returned.
    pub fn operations(&self) -> &Arc<Operations> {
        &self.operations
    }

    /// The database of `instance`, created empty if this is the first request naming it.
    ///
    /// # Errors
    /// `Internal` if a panic poisoned the registry's lock (a bug, never a user mistake).
    pub fn database(&self, instance: &InstanceName) -> Result<Arc<Mutex<Database>>> {
        let mut databases = self.databases.lock().map_err(|_| poisoned())?;
        let db = databases
            .entry(instance.clone())
            .or_insert_with(|| Arc::new(Mutex::new(Database::with_clock(self.clock.clone()))));
        Ok(db.clone())
    }
}

/// Locks one database.
///
/// # Errors
/// `Internal` if an earlier panic poisoned the lock: the database may be half-changed, so the
/// server refuses to serve it rather than return data that breaks the engine's invariants.
pub fn lock(db: &Mutex<Database>) -> Result<MutexGuard<'_, Database>> {
    db.lock().map_err(|_| poisoned())
}

fn poisoned() -> Error {
    Error::new(
        Code::Internal,
        "a database lock was poisoned by an earlier panic",
    )
}
