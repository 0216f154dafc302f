//! Secondary-index views: a continuous materialized view whose query has `ORDER BY` instead
//! of `GROUP BY` re-keys the source table's rows by the ordered expressions (Bigtable's
//! "asynchronous secondary index").
//!
//! Bigtable's rules, in our words, from "Create an asynchronous secondary index"
//! (cloud.google.com/bigtable/docs/asynchronous-secondary-index) and "Continuous
//! materialized view queries" (.../continuous-materialized-view-queries):
//! - The query is `SELECT expr AS alias, ... FROM table [WHERE ...] ORDER BY expr, ...`,
//!   never with GROUP BY as well; the ORDER BY expressions form the view's row key, and
//!   every one must be a column of the SELECT list.
//! - The key must contain the source table's row key, unmodified, so that source rows and
//!   index rows map one to one; it may be combined with other attributes (column values,
//!   qualifiers, parts of the key).
//! - Sorting is ascending only (`DESC` is refused); LIMIT/OFFSET, DISTINCT, SELECT * and the
//!   other refusals of every view query apply.
//! - The index follows every change of the source eventually; applications read it and
//!   write only the source.
//!
//! Our choices, where the pages say nothing:
//! - The view's row key is a row-key schema (see `model::row_key_schema`) with one field
//!   per ORDER BY column, named by its alias and typed as it: BYTES, STRING, INT64 or
//!   TIMESTAMP (the types a key field can encode; others are refused). One field is the
//!   singleton encoding (an index keyed by `_key` alone has the source's keys); several
//!   are ordered-code bytes with INT64 and TIMESTAMP in ordered code, so byte order of the
//!   keys is the ascending order of the columns, left to right. A key column needs an
//!   alias other than `_key` (`_key AS original_key`): `_key` names the raw key.
//! - Every column, the key columns too, is stored as a GROUP BY view's output is: one
//!   family per alias holding one cell. A key column is thus in the key and in a cell: a
//!   row with no cell does not exist (an index of only key columns, or whose other columns
//!   are NULL, would have none), and ReadRows readers get the values without decoding the
//!   key. SQL reads a key column from the key.
//! - A source row whose key columns cannot make a key (a NULL, a TIMESTAMP finer than the
//!   microsecond, an encoded key longer than 4 KiB) is left out of the index, as Bigtable
//!   leaves out rows it cannot key; a row whose columns fail to evaluate is left out and the
//!   error is the view's `last_error`.
//! - SQL reads the index as a table with that row-key schema: its key columns by name,
//!   `SELECT *` lists them first, rows come in key order, and WHERE on the leading key
//!   columns narrows the read (`api::sql::key_narrow`).
//!
//! Invariant, after every refresh: `index_rows[k] == v` exactly when source row `k`, read
//! through the query's read filter, passes WHERE and keys to `v`; the view's table holds
//! exactly the rows in `index_rows` (distinct source keys give distinct view keys, since
//! `_key` is a field of an injective encoding).

use alloc::format;
use alloc::vec::Vec;

pub(crate) use super::index_key::IndexKey;
use super::unsupported;
use super::view::{encode_value, View, MAX_VIEW_KEY};
use crate::api::sql::ast::ExprKind;
use crate::api::sql::incremental::{key_value_of, row_items};
use crate::api::sql::{PreparedQuery, SqlType};
use crate::error::quoted;
use crate::model::mutation::Mutation;
use crate::model::row_key_schema::{
    Int64Encoding, KeyField, KeyFieldType, RowKeySchema, StructEncoding,
};
use crate::model::schema::validate_family_name;
use crate::platform::random::SplitMix64;
use crate::table::read::{read_one, RowStream};
use crate::table::table::Table;
use crate::{Error, Result, Row};

fn invalid(what: impl core::fmt::Display) -> Error {
    Error::invalid_argument(format!("materialized view query: {what}"))
}

/// Checks an ORDER BY view query's ordering (the module docs' rules) and builds its key.
///
/// # Errors
/// INVALID_ARGUMENT naming the rule broken.
pub(crate) fn check_index(query: &PreparedQuery) -> Result<IndexKey> {
    let plan = query.plan();
    let columns = query.columns();
    let mut items: Vec<usize> = Vec::new();
    for o in &plan.order {
        if o.desc {
            return Err(unsupported(
                "DESC sort in the output (an index is ascending)",
            ));
        }
        if !o.nulls_first {
            return Err(unsupported("NULLS LAST in ORDER BY"));
        }
        let ExprKind::ItemRef(i) = o.expr.kind else {
            return Err(invalid(
                "every ORDER BY expression of a secondary index must be one of its SELECT \
                 columns (name it by its alias)",
            ));
        };
        if items.contains(&i) {
            return Err(invalid(format!(
                "ORDER BY names column {} twice",
                quoted(&columns[i].name)
            )));
        }
        items.push(i);
    }
    let has_source_key = items
        .iter()
        .any(|i| matches!(&plan.items[*i].kind, ExprKind::Ident(n) if n == "_key"));
    if !has_source_key {
        return Err(invalid(
            "ORDER BY of a secondary index must include the source table's unmodified row \
             key (for example `SELECT _key AS original_key, ... ORDER BY ..., original_key`)",
        ));
    }
    let mut fields = Vec::with_capacity(items.len());
    for &i in &items {
        let c = &columns[i];
        if c.name == "_key" || validate_family_name(&c.name).is_err() {
            return Err(invalid(format!(
                "row key column {} needs an alias other than `_key` (for example `_key AS \
                 original_key`)",
                quoted(&c.name)
            )));
        }
        let field_type = match c.ty {
            SqlType::Bytes => KeyFieldType::Bytes,
            SqlType::String => KeyFieldType::String,
            SqlType::Int64 => KeyFieldType::Int64(Int64Encoding::OrderedCodeBytes),
            SqlType::Timestamp => KeyFieldType::Timestamp(Int64Encoding::OrderedCodeBytes),
            ref other => {
                return Err(invalid(format!(
                    "row key column {} is a {other}; a key column must be BYTES, STRING, \
                     INT64 or TIMESTAMP",
                    quoted(&c.name)
                )))
            }
        };
        fields.push(KeyField {
            name: c.name.clone(),
            field_type,
        });
    }
    let schema = RowKeySchema {
        encoding: if fields.len() == 1 {
            StructEncoding::Singleton
        } else {
            StructEncoding::OrderedCodeBytes
        },
        fields,
    };
    // Field names are checked against the other columns (families) by the caller.
    schema
        .validate(|_| false)
        .map_err(|e| invalid(e.message()))?;
    Ok(IndexKey { items, schema })
}

impl View {
    /// The index row of source row `row`: its key and its cells, or `None` when the row is
    /// left out (WHERE, a key that cannot be made, an error kept as `last_error`).
    fn index_row(
        &mut self,
        index: &IndexKey,
        row: &Row,
        now: i64,
    ) -> Option<(Vec<u8>, Vec<Mutation>)> {
        let items = match row_items(&self.query, row, now) {
            Ok(Some(items)) => items,
            Ok(None) => return None,
            Err(e) => {
                self.last_error = Some(e);
                return None;
            }
        };
        let mut values = Vec::with_capacity(index.items.len());
        for (field, &i) in index.schema.fields.iter().zip(&index.items) {
            values.push(key_value_of(field.field_type, items.get(i)?.clone())?);
        }
        let key = index.schema.encode(&values).ok()?;
        if key.is_empty() || key.len() > MAX_VIEW_KEY {
            return None;
        }
        let mut mutations = alloc::vec![Mutation::DeleteFromRow];
        let key_columns = index
            .items
            .iter()
            .zip(&index.schema.fields)
            .map(|(i, f)| (*i, &f.name));
        let other_columns = self.families.iter().map(|(i, f)| (*i, f));
        for (i, family) in key_columns.chain(other_columns) {
            if let Some(value) = items.get(i).and_then(encode_value) {
                mutations.push(Mutation::SetCell {
                    family: family.clone(),
                    qualifier: Vec::new(),
                    timestamp_micros: 0,
                    value,
                });
            }
        }
        Some((key, mutations))
    }

    /// Writes (or, for a row left out, does not) the index row of source row `row`.
    fn put_index_row(&mut self, index: &IndexKey, row: &Row, now: i64) {
        if let Some((key, mutations)) = self.index_row(index, row, now) {
            self.rows.apply(&key, &mutations, now, &mut self.sequence);
            self.index_rows.insert(row.key.clone(), key);
        }
    }

    /// [`View::rebuild`] for an index: every row of `source` again.
    pub(super) fn rebuild_index(
        &mut self,
        index: &IndexKey,
        source: &Table,
        now: i64,
    ) -> Result<()> {
        for key in core::mem::take(&mut self.index_rows).into_values() {
            self.delete_view_row(&key, now);
        }
        self.last_error = None;
        let mut stream = RowStream::new(
            source,
            crate::model::row_set::RowSet::default().normalized_ranges(),
            false,
            None,
            now,
            self.filter.clone(),
            SplitMix64::new(0),
        );
        while let Some(row) = stream.try_next()? {
            self.put_index_row(index, &row, now);
        }
        Ok(())
    }

    /// [`View::refresh`] for an index: each changed source row's index row is replaced.
    pub(super) fn refresh_index<'k>(
        &mut self,
        index: &IndexKey,
        source: &Table,
        keys: impl IntoIterator<Item = &'k [u8]>,
        now: i64,
    ) -> Result<()> {
        let mut random = SplitMix64::new(0);
        for k in keys {
            if let Some(old) = self.index_rows.remove(k) {
                self.delete_view_row(&old, now);
            }
            if let Some(row) = read_one(source, k, now, &self.filter, &mut random)? {
                self.put_index_row(index, &row, now);
            }
        }
        Ok(())
    }
}
