//! The table administration of one instance (`client.table_admin(instance_id)`), with the
//! method names of Bigtable's table admin API: create, get, list, modify and delete tables,
//! drop row ranges, deletion protection, row-key schemas. Converts Python values and errors; the rules are the
//! core's `Database` table-admin calls, run on the instance's first cluster (the primary copy
//! of the schema, which the other clusters follow), except DropRowRange, which the core's
//! `InstanceData` applies at every cluster's copy.

use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use sparsetable::{
    ColumnFamily, DropRowRange, FamilyModification, Granularity, InstanceData, SharedDatabase,
    TableConfig, TableInfo as CoreTableInfo, ValueType,
};

use crate::gc_rule::{extract_gc_rule, gc_rule_to_py};
use crate::row_key_schema::{schema_from_py, schema_to_py};

use crate::convert::{bytes_or_str, with_db, with_db_mut};
use crate::errors::{invalid_argument, to_py_err};

/// Table administration of one instance, with the method names of Bigtable's table admin API.
#[pyclass(frozen, module = "sparsetable")]
pub struct TableAdmin {
    pub(crate) db: Arc<SharedDatabase>,
    /// The instance's data plane: DropRowRange reaches every cluster through it.
    pub(crate) plane: Arc<InstanceData>,
    pub(crate) instance_id: String,
}

#[pymethods]
impl TableAdmin {
    #[getter]
    fn instance_id(&self) -> &str {
        &self.instance_id
    }

    /// Creates a table. `column_families` maps a family name to its GC rule (or `None`); the
    /// families are created in the dict's order, the order reads return them in;
    /// `granularity` is `"MILLIS"` (Bigtable's default) or `"MICROS"`. `value_types` gives a
    /// family a value type other than bytes: `"int64_sum"`, `"int64_min"`, `"int64_max"` or
    /// `"hllpp_unique_count"` (HyperLogLog++) make it an aggregate family, written with
    /// `AddToCell` (Bigtable's `value_type`). `row_key_schema` structures the row keys (a
    /// `Type.Struct` dict, see `row_key_schema.rs`): SQL then reads the key's fields as
    /// columns.
    #[pyo3(signature = (table_id, column_families = None, *, granularity = "MILLIS", deletion_protection = false, initial_splits = None, value_types = None, row_key_schema = None))]
    #[allow(clippy::too_many_arguments)]
    fn create_table(
        &self,
        py: Python<'_>,
        table_id: String,
        column_families: Option<&Bound<'_, PyDict>>,
        granularity: &str,
        deletion_protection: bool,
        initial_splits: Option<&Bound<'_, PyList>>,
        value_types: Option<&Bound<'_, PyDict>>,
        row_key_schema: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<TableInfo> {
        let mut config = TableConfig {
            granularity: match granularity {
                "MILLIS" => Granularity::Millis,
                "MICROS" => Granularity::Micros,
                other => {
                    return Err(invalid_argument(
                        py,
                        format!("granularity {other:?} must be \"MILLIS\" or \"MICROS\""),
                    ))
                }
            },
            deletion_protection,
            ..TableConfig::default()
        };
        if let Some(families) = column_families {
            for (name, rule) in families.iter() {
                let name: String = name
                    .extract()
                    .map_err(|_| PyTypeError::new_err("column_families keys must be str"))?;
                config.families.insert(name, family_with(Some(&rule))?);
            }
        }
        if let Some(types) = value_types {
            for (name, value_type) in types.iter() {
                let name: String = name
                    .extract()
                    .map_err(|_| PyTypeError::new_err("value_types keys must be str"))?;
                let value_type: String = value_type.extract().map_err(|_| {
                    PyTypeError::new_err("value_types values must be str (\"int64_sum\", ...)")
                })?;
                let value_type = ValueType::from_name(&value_type).map_err(|e| to_py_err(py, e))?;
                let Some(family) = config.families.get_mut(&name) else {
                    return Err(invalid_argument(
                        py,
                        format!("value_types names family {name:?}, which column_families does not create"),
                    ));
                };
                family.value_type = value_type;
            }
        }
        if let Some(schema) = row_key_schema.filter(|s| !s.is_none()) {
            config.row_key_schema = Some(schema_from_py(schema)?.map_err(|e| to_py_err(py, e))?);
        }
        if let Some(splits) = initial_splits {
            for key in splits.iter() {
                config
                    .initial_splits
                    .push(bytes_or_str(&key, "initial_splits")?);
            }
        }
        let inner = with_db_mut(py, &self.db, |db| {
            db.create_table(&table_id, config)?;
            db.get_table(&table_id)
        })?;
        Ok(TableInfo { inner })
    }

    /// A table's schema; `NotFound` if it does not exist.
    fn get_table(&self, py: Python<'_>, table_id: String) -> PyResult<TableInfo> {
        let inner = with_db(py, &self.db, |db| db.get_table(&table_id))?;
        Ok(TableInfo { inner })
    }

    /// Every table of the instance, by id.
    fn list_tables(&self, py: Python<'_>) -> PyResult<Vec<TableInfo>> {
        let tables = with_db(py, &self.db, |db| Ok(db.list_tables()))?;
        Ok(tables
            .into_iter()
            .map(|inner| TableInfo { inner })
            .collect())
    }

    /// Deletes a table and its data; `FailedPrecondition` under deletion protection.
    fn delete_table(&self, py: Python<'_>, table_id: String) -> PyResult<()> {
        with_db_mut(py, &self.db, |db| db.delete_table(&table_id))
    }

    /// Changes what is given (Bigtable's UpdateTable): `deletion_protection` turns it on or
    /// off; `row_key_schema` sets a schema on a table without one, and
    /// `clear_row_key_schema=True` removes the schema, which needs `ignore_warnings=True` (the
    /// core's rules). Returns the new schema.
    #[pyo3(signature = (table_id, *, deletion_protection = None, row_key_schema = None, clear_row_key_schema = false, ignore_warnings = false))]
    fn update_table(
        &self,
        py: Python<'_>,
        table_id: String,
        deletion_protection: Option<bool>,
        row_key_schema: Option<&Bound<'_, PyAny>>,
        clear_row_key_schema: bool,
        ignore_warnings: bool,
    ) -> PyResult<TableInfo> {
        let schema = match (
            row_key_schema.filter(|s| !s.is_none()),
            clear_row_key_schema,
        ) {
            (Some(_), true) => {
                return Err(invalid_argument(
                    py,
                    "update_table: give row_key_schema or clear_row_key_schema=True, not both",
                ))
            }
            (Some(s), false) => Some(Some(schema_from_py(s)?.map_err(|e| to_py_err(py, e))?)),
            (None, true) => Some(None),
            (None, false) => None,
        };
        let inner = with_db_mut(py, &self.db, |db| {
            // The schema first: it is the change that may be refused, and then nothing
            // changes (the core checks before it writes).
            let mut info = match schema {
                Some(schema) => Some(db.set_row_key_schema(&table_id, schema, ignore_warnings)?),
                None => None,
            };
            if let Some(on) = deletion_protection {
                info = Some(db.set_deletion_protection(&table_id, on)?);
            }
            match info {
                Some(info) => Ok(info),
                None => db.get_table(&table_id),
            }
        })?;
        Ok(TableInfo { inner })
    }

    /// Deletes every row whose key starts with `row_key_prefix`, or every row of the table
    /// with `delete_all_data_from_table=True`; exactly one of the two must be given.
    #[pyo3(signature = (table_id, *, row_key_prefix = None, delete_all_data_from_table = false))]
    fn drop_row_range(
        &self,
        py: Python<'_>,
        table_id: String,
        row_key_prefix: Option<&Bound<'_, PyAny>>,
        delete_all_data_from_table: bool,
    ) -> PyResult<()> {
        let range = match (row_key_prefix, delete_all_data_from_table) {
            (Some(prefix), false) => DropRowRange::Prefix(bytes_or_str(prefix, "row_key_prefix")?),
            (None, true) => DropRowRange::All,
            _ => {
                return Err(invalid_argument(
                    py,
                    "drop_row_range: give exactly one of row_key_prefix and delete_all_data_from_table=True",
                ))
            }
        };
        // Through the plane: on a replicated instance every cluster's copy drops the range
        // (and the queued writes it covers), not only the first's.
        py.detach(|| self.plane.drop_row_range(&table_id, &range))
            .map_err(|e| to_py_err(py, e))
    }

    /// Runs garbage collection now (the core's `collect_garbage`) on `table_id`, or on every
    /// table of the instance when `None`, on every cluster. With `gc_mode="background"` reads
    /// stop returning the cells GC rules made collectable; in `"immediate"` they never did.
    #[pyo3(signature = (table_id = None))]
    fn collect_garbage(&self, py: Python<'_>, table_id: Option<String>) -> PyResult<()> {
        py.detach(|| self.plane.collect_garbage(table_id.as_deref()))
            .map_err(|e| to_py_err(py, e))
    }

    /// Applies the modifications in order, all or nothing; returns the new schema.
    fn modify_column_families(
        &self,
        py: Python<'_>,
        table_id: String,
        modifications: &Bound<'_, PyList>,
    ) -> PyResult<TableInfo> {
        let modifications = modifications
            .iter()
            .map(|m| {
                m.cast::<ColumnFamilyModification>()
                    .map(|m| m.get().inner.clone())
                    .map_err(|_| {
                        PyTypeError::new_err(
                            "modifications must hold ColumnFamilyModification objects",
                        )
                    })
            })
            .collect::<PyResult<Vec<_>>>()?;
        let inner = with_db_mut(py, &self.db, |db| {
            db.modify_column_families(&table_id, &modifications)
        })?;
        Ok(TableInfo { inner })
    }
}

/// A table's schema as `get_table` / `list_tables` report it.
#[pyclass(frozen, module = "sparsetable")]
pub struct TableInfo {
    pub(crate) inner: CoreTableInfo,
}

#[pymethods]
impl TableInfo {
    #[getter]
    fn table_id(&self) -> &str {
        &self.inner.name
    }

    /// Family name -> its GC rule (`None` = keep everything), in creation order.
    #[getter]
    fn column_families<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (name, family) in &self.inner.config.families {
            dict.set_item(name, gc_rule_to_py(py, &family.gc_rule)?)?;
        }
        Ok(dict)
    }

    /// Family name -> its value type (`"bytes"`, or an aggregate's `"int64_sum"`,
    /// `"int64_min"`, `"int64_max"`, `"hllpp_unique_count"`), in creation order.
    #[getter]
    fn value_types<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (name, family) in &self.inner.config.families {
            dict.set_item(name, family.value_type.name())?;
        }
        Ok(dict)
    }

    /// `"MILLIS"` or `"MICROS"`.
    #[getter]
    fn granularity(&self) -> &'static str {
        match self.inner.config.granularity {
            Granularity::Millis => "MILLIS",
            Granularity::Micros => "MICROS",
        }
    }

    #[getter]
    fn deletion_protection(&self) -> bool {
        self.inner.config.deletion_protection
    }

    /// The row-key schema as a `Type.Struct` dict (`None` when the table has none).
    #[getter]
    fn row_key_schema<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.inner
            .config
            .row_key_schema
            .as_ref()
            .map(|s| schema_to_py(py, s))
            .transpose()
    }

    fn __repr__(&self) -> String {
        format!(
            "TableInfo(table_id={:?}, column_families={:?}, granularity={:?}, deletion_protection={})",
            self.inner.name,
            self.inner.config.families.keys().collect::<Vec<_>>(),
            self.granularity(),
            if self.inner.config.deletion_protection { "True" } else { "False" }
        )
    }
}

/// One change to a table's column families, as Bigtable's
/// `ModifyColumnFamiliesRequest.Modification`; build it with `create`, `update` or `drop`.
#[pyclass(frozen, module = "sparsetable")]
pub struct ColumnFamilyModification {
    pub(crate) inner: FamilyModification,
}

#[pymethods]
impl ColumnFamilyModification {
    /// Adds family `family_id` with `gc_rule` (`None` = keep everything).
    #[staticmethod]
    #[pyo3(signature = (family_id, gc_rule = None))]
    fn create(family_id: String, gc_rule: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        Ok(ColumnFamilyModification {
            inner: FamilyModification::Create {
                name: family_id,
                family: family_with(gc_rule)?,
            },
        })
    }

    /// Replaces the GC rule of family `family_id`.
    #[staticmethod]
    #[pyo3(signature = (family_id, gc_rule = None))]
    fn update(family_id: String, gc_rule: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        Ok(ColumnFamilyModification {
            inner: FamilyModification::Update {
                name: family_id,
                family: family_with(gc_rule)?,
            },
        })
    }

    /// Drops family `family_id` and deletes its data.
    #[staticmethod]
    fn drop(family_id: String) -> Self {
        ColumnFamilyModification {
            inner: FamilyModification::Drop { name: family_id },
        }
    }

    fn __repr__(&self) -> String {
        format!("{:?}", self.inner)
    }
}

pub(crate) fn family_with(gc_rule: Option<&Bound<'_, PyAny>>) -> PyResult<ColumnFamily> {
    Ok(ColumnFamily {
        gc_rule: match gc_rule {
            Some(r) => extract_gc_rule(r)?,
            None => Default::default(),
        },
        ..ColumnFamily::default()
    })
}
