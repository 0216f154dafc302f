//! `sparsetable._native`: the Python binding of the Sparsetable engine (pyo3, abi3).
//!
//! This module is private; the pure-Python package `sparsetable` re-exports it and ships its
//! type stub. The API mirrors `google.cloud.bigtable.data` (client, table, mutations, query,
//! row, cell) so code moves to Cloud Bigtable by changing an import; table administration
//! lives on `TableAdmin`. The binding converts types and errors and nothing else: every
//! check and every behaviour is the engine's. Engine errors become the exception classes of
//! `errors`, mapped in one function.

mod bulk;
mod change_stream;
mod client;
mod convert;
mod errors;
mod filters;
mod gc_rule;
mod instance_admin;
mod instance_control;
mod materialized_views;
mod mutations;
mod query;
mod read_modify_write;
mod registry;
mod resume;
mod row;
mod row_key_schema;
mod server;
mod sql;
mod table_admin;

use pyo3::prelude::*;

/// Rust allocations of the extension (engine rows, their keys and values, batches) go to
/// mimalloc rather than glibc's malloc: a profile of a full scan spent a third of its time in
/// glibc's malloc and free (several allocations per row, freed by Python later, out of order),
/// and mimalloc's thread-local free lists cut that. Python's own objects still use Python's
/// allocator; every Rust allocation is freed by Rust, so the two never mix.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_class::<client::ManualClock>()?;
    m.add_class::<client::BigtableDataClient>()?;
    m.add_class::<client::Table>()?;
    m.add_class::<client::RowIterator>()?;
    m.add_class::<change_stream::ChangeStreamIterator>()?;
    m.add_class::<change_stream::ChangeStreamRecord>()?;
    m.add_class::<table_admin::TableAdmin>()?;
    m.add_class::<table_admin::TableInfo>()?;
    m.add_class::<table_admin::ColumnFamilyModification>()?;
    m.add_class::<mutations::Mutation>()?;
    m.add_class::<mutations::SetCell>()?;
    m.add_class::<mutations::DeleteRangeFromColumn>()?;
    m.add_class::<mutations::DeleteAllFromFamily>()?;
    m.add_class::<mutations::DeleteAllFromRow>()?;
    m.add_class::<mutations::AddToCell>()?;
    m.add_class::<gc_rule::GarbageCollectionRule>()?;
    m.add_class::<gc_rule::MaxVersionsGCRule>()?;
    m.add_class::<gc_rule::MaxAgeGCRule>()?;
    m.add_class::<gc_rule::GCRuleUnion>()?;
    m.add_class::<gc_rule::GCRuleIntersection>()?;
    m.add_class::<query::RowRange>()?;
    m.add_class::<query::ReadRowsQuery>()?;
    m.add_class::<row::Row>()?;
    m.add_class::<row::Cell>()?;
    filters::register(m)?;
    m.add_class::<read_modify_write::ReadModifyWriteRule>()?;
    m.add_class::<read_modify_write::IncrementRule>()?;
    m.add_class::<read_modify_write::AppendValueRule>()?;
    m.add_class::<server::EmulatorServer>()?;
    m.add_class::<instance_control::InstanceControl>()?;
    m.add_class::<instance_admin::InstanceAdmin>()?;
    m.add_function(wrap_pyfunction!(_limits, m)?)?;
    Ok(())
}

/// Bigtable's limits as the engine enforces them, by the core's constant names, for the
/// Python layer's constants that Google's client also exports (`row.MAX_MUTATIONS`): the
/// values live in the core (`sparsetable::limits`), never copied into Python.
#[pyfunction]
fn _limits() -> std::collections::BTreeMap<&'static str, usize> {
    use sparsetable::limits::*;
    [
        ("MAX_ROW_KEY_BYTES", MAX_ROW_KEY_BYTES),
        ("MAX_QUALIFIER_BYTES", MAX_QUALIFIER_BYTES),
        ("MAX_MUTATIONS_PER_REQUEST", MAX_MUTATIONS_PER_REQUEST),
        ("DEFAULT_MAX_VALUE_BYTES", DEFAULT_MAX_VALUE_BYTES),
        ("MAX_FAMILY_NAME_CHARS", MAX_FAMILY_NAME_CHARS),
        ("MAX_TABLE_ID_CHARS", MAX_TABLE_ID_CHARS),
    ]
    .into_iter()
    .collect()
}
