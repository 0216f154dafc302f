//! Continuous materialized views in the Python module's Instance Admin
//! (`InstanceAdmin.create_materialized_view` ... `delete_materialized_view`, which call the
//! steps here): the definition (id, query, etag, deletion protection) is the core's instance
//! record's, whose rules and words apply; the view's rows are the instance's first database's,
//! which checks the query, backfills the view and keeps it up to date with every write, and
//! which `execute_query` reads in `FROM <view>`.
//!
//! Invariants, as the server keeps them (`server/src/instance_admin/materialized_views.rs`):
//! - A view is in the database exactly when the record has it: Create makes the view's rows
//!   inside the record's change, before the record is stored, and takes them away again when
//!   the change then fails (the plane's refusal, a failed `INSTANCE` write), so a refused call
//!   leaves neither. Delete removes the rows once the record allowed it.
//! - The database keeps a copy of each view's deletion protection (its own DeleteTable and
//!   DeleteInstance checks read it), set after the record changed.
//! - Views live in memory: when a directory's database is opened, each view its `INSTANCE`
//!   file records is made again from its table ([`recreate`]), so a view is recovered by
//!   recomputation, never from a stored copy (one whose table is gone is left out; its record
//!   stays, for Delete).

use std::cell::Cell;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use sparsetable::{Code, InstanceRecord, MaterializedViewRecord, Result, SharedDatabase};

/// What the steps here need of an instance's admin (`instance_admin::InstanceAdmin`, which
/// calls them; a trait, so this file does not import that one, which imports this).
pub trait RecordAdmin {
    /// Applies `op` to a copy of the stored record and keeps the copy only if everything
    /// after it (the plane, the `INSTANCE` file) accepts it too.
    ///
    /// # Errors
    /// `op`'s; the instance's absence; the plane's or the disk's refusal.
    fn change<T>(&self, op: impl FnOnce(&mut InstanceRecord) -> Result<T>) -> Result<T>;
    /// The instance's first database (where a view's rows are).
    fn db(&self) -> &SharedDatabase;
}

/// A materialized view as a dict: `materialized_view_id`, `query`, `deletion_protection`,
/// `etag`.
pub fn view_to_py<'py>(
    py: Python<'py>,
    v: &MaterializedViewRecord,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("materialized_view_id", &v.id)?;
    d.set_item("query", &v.query)?;
    d.set_item("deletion_protection", v.deletion_protection)?;
    d.set_item("etag", &v.etag)?;
    Ok(d)
}

/// Makes each view `record` defines again in `db`, just opened (see the module docs); a view
/// the database cannot make (its table is gone) is left out.
pub fn recreate(db: &SharedDatabase, record: &InstanceRecord) {
    for view in record.materialized_views() {
        let _ = db.write(|d| {
            d.create_materialized_view(&view.id, &view.query, view.deletion_protection)
                .map(|_| ())
        });
    }
}

/// Removes view `id`'s rows from `db`, whatever its deletion protection there; a view the
/// database does not have is no error (its table was gone when the database was opened).
fn forget(db: &SharedDatabase, id: &str) -> Result<()> {
    db.write(|d| d.forget_materialized_view(id))
}

/// CreateMaterializedView: the record's checks, then the database makes the view.
///
/// # Errors
/// The record's (`InvalidArgument`, `AlreadyExists`, `NotFound` for an instance never
/// created) and the database's (a query views do not maintain, an unknown table).
pub fn create(
    admin: &impl RecordAdmin,
    id: &str,
    query: &str,
    deletion_protection: bool,
) -> Result<MaterializedViewRecord> {
    let made = Cell::new(false);
    let created = admin.change(|r| {
        r.create_materialized_view(id, query, deletion_protection, |q| {
            admin.db().write(|d| {
                d.create_materialized_view(id, q, deletion_protection)
                    .map(|_| ())
            })?;
            made.set(true);
            Ok(())
        })
        .cloned()
    });
    if created.is_err() && made.get() {
        // Made but not recorded: the view must not outlive the refused call.
        let _ = forget(admin.db(), id);
    }
    created
}

/// UpdateMaterializedView: the record's deletion protection, then the database's copy.
///
/// # Errors
/// The record's (`NotFound`, `Aborted` for a stale etag).
pub fn update(
    admin: &impl RecordAdmin,
    id: &str,
    deletion_protection: bool,
    etag: &str,
) -> Result<MaterializedViewRecord> {
    let updated = admin.change(|r| {
        r.update_materialized_view(id, deletion_protection, etag)
            .cloned()
    })?;
    admin.db().write(
        |d| match d.update_materialized_view(id, deletion_protection, None) {
            Err(e) if e.code() == Code::NotFound => Ok(()),
            other => other.map(|_| ()),
        },
    )?;
    Ok(updated)
}

/// DeleteMaterializedView: the record's checks, then the view's rows go.
///
/// # Errors
/// The record's (`NotFound`, `Aborted`, `FailedPrecondition` for deletion protection).
pub fn delete(admin: &impl RecordAdmin, id: &str, etag: &str) -> Result<()> {
    admin.change(|r| r.delete_materialized_view(id, etag))?;
    forget(admin.db(), id)
}
