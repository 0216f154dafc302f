//! SQL (Bigtable's PrepareQuery/ExecuteQuery) for the Kotlin layer: converts types and values
//! between uniffi records and the core's `api::sql`, which decides what a query means.
//!
//! Types and values cross as flat pre-order node lists, as filters do (see `tree.rs` for why
//! no recursive uniffi type): a node, then its children. A type node's `children` is 1 for
//! ARRAY (the element), 2 for MAP (key, value) and the field count for STRUCT (each field's
//! node carries its `name`). A value node's `children` is the element count of an ARRAY, twice
//! the entry count of a MAP (key, value, key, value, ...) and the field count of a STRUCT; its
//! scalar sits in the field its type names (`int` for INT64, `int` seconds and `nanos` for
//! TIMESTAMP, `int` year with `month` and `day` for DATE, ...), and `is_null` marks NULL.
//!
//! Invariants: decoding checks every count against the list before reading, nests at most
//! [`MAX_SQL_DEPTH`] levels (so no input recurses deep on the native stack), and refuses
//! leftover nodes; a parameter's value is checked against its type by the core.

use std::collections::{BTreeMap, HashMap};

use sparsetable::api::sql::{self, PreparedQuery, SqlColumn, SqlType, SqlValue};
use sparsetable::{Error, LogicalViewRecord};

use crate::database::Database;
use crate::error::{to_ffi, SparsetableError};

/// Deepest nesting of a type or value across the FFI (ARRAY of ARRAY ...): far more than any
/// query's parameters or results need, few enough that decoding cannot exhaust a stack.
pub const MAX_SQL_DEPTH: usize = 32;

/// A SQL type's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum SqlKind {
    /// BYTES.
    Bytes,
    /// STRING.
    String,
    /// INT64.
    Int64,
    /// FLOAT32.
    Float32,
    /// FLOAT64.
    Float64,
    /// BOOL.
    Bool,
    /// TIMESTAMP.
    Timestamp,
    /// DATE.
    Date,
    /// ARRAY (one child: the element type).
    Array,
    /// MAP (two children: key and value types).
    Map,
    /// STRUCT (one child per field).
    Struct,
}

/// One node of a type's pre-order list.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct SqlTypeNode {
    /// The kind.
    pub kind: SqlKind,
    /// A STRUCT field's name (the node is that field's type); empty otherwise or unnamed.
    pub name: String,
    /// How many child subtrees follow (see the module docs).
    pub children: u32,
}

/// One node of a value's pre-order list; which field holds the value depends on its type.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct SqlValueNode {
    /// NULL (of any type).
    pub is_null: bool,
    /// BYTES.
    pub bytes: Vec<u8>,
    /// STRING.
    pub text: String,
    /// INT64; a TIMESTAMP's seconds since the epoch; a DATE's year.
    pub int: i64,
    /// FLOAT32 / FLOAT64.
    pub float: f64,
    /// BOOL.
    pub boolean: bool,
    /// A TIMESTAMP's nanoseconds within the second; a DATE's month.
    pub nanos: i32,
    /// A DATE's day.
    pub day: i32,
    /// How many child subtrees follow (see the module docs).
    pub children: u32,
}

impl SqlValueNode {
    fn empty(children: u32) -> Self {
        SqlValueNode {
            is_null: false,
            bytes: Vec::new(),
            text: String::new(),
            int: 0,
            float: 0.0,
            boolean: false,
            nanos: 0,
            day: 0,
            children,
        }
    }
}

/// A result column: its name and its type as a node list.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct SqlColumnInfo {
    /// The name (an alias, `_key`, a family, or `$colN`).
    pub name: String,
    /// The type, pre-order.
    pub type_nodes: Vec<SqlTypeNode>,
}

/// A query's result: its columns, and each row as the pre-order value lists of its columns,
/// one after another.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct SqlResult {
    /// The columns, in order.
    pub columns: Vec<SqlColumnInfo>,
    /// The rows.
    pub rows: Vec<Vec<SqlValueNode>>,
}

fn bad(what: &str, detail: &str) -> Error {
    Error::invalid_argument(format!("{what}: {detail}"))
}

/// Reads one type from `nodes` at `*at`.
fn read_type(
    what: &str,
    nodes: &[SqlTypeNode],
    at: &mut usize,
    depth: usize,
) -> Result<SqlType, Error> {
    if depth > MAX_SQL_DEPTH {
        return Err(bad(what, "the type nests too deep"));
    }
    let node = nodes
        .get(*at)
        .ok_or_else(|| bad(what, "the type's node list ends early"))?;
    *at += 1;
    let want = match node.kind {
        SqlKind::Array => 1,
        SqlKind::Map => 2,
        SqlKind::Struct => node.children,
        _ => 0,
    };
    if node.children != want {
        return Err(bad(
            what,
            &format!("a {:?} type node has {} children", node.kind, node.children),
        ));
    }
    Ok(match node.kind {
        SqlKind::Bytes => SqlType::Bytes,
        SqlKind::String => SqlType::String,
        SqlKind::Int64 => SqlType::Int64,
        SqlKind::Float32 => SqlType::Float32,
        SqlKind::Float64 => SqlType::Float64,
        SqlKind::Bool => SqlType::Bool,
        SqlKind::Timestamp => SqlType::Timestamp,
        SqlKind::Date => SqlType::Date,
        SqlKind::Array => SqlType::array(read_type(what, nodes, at, depth + 1)?),
        SqlKind::Map => {
            let k = read_type(what, nodes, at, depth + 1)?;
            SqlType::map(k, read_type(what, nodes, at, depth + 1)?)
        }
        SqlKind::Struct => {
            let mut fields = Vec::new();
            for _ in 0..node.children {
                let name = nodes.get(*at).map(|n| n.name.clone()).unwrap_or_default();
                fields.push((name, read_type(what, nodes, at, depth + 1)?));
            }
            SqlType::Struct(fields)
        }
    })
}

/// A whole node list as one type.
pub fn type_from_nodes(what: &str, nodes: &[SqlTypeNode]) -> Result<SqlType, Error> {
    let mut at = 0;
    let ty = read_type(what, nodes, &mut at, 1)?;
    if at != nodes.len() {
        return Err(bad(what, "nodes left over after the type"));
    }
    Ok(ty)
}

/// A type as its node list (`name` is the node's field name in a STRUCT).
pub fn type_to_nodes(ty: &SqlType, name: &str, out: &mut Vec<SqlTypeNode>) {
    let (kind, children) = match ty {
        SqlType::Bytes => (SqlKind::Bytes, 0),
        SqlType::String => (SqlKind::String, 0),
        SqlType::Int64 => (SqlKind::Int64, 0),
        SqlType::Float32 => (SqlKind::Float32, 0),
        SqlType::Float64 => (SqlKind::Float64, 0),
        SqlType::Bool => (SqlKind::Bool, 0),
        SqlType::Timestamp => (SqlKind::Timestamp, 0),
        SqlType::Date => (SqlKind::Date, 0),
        SqlType::Array(_) => (SqlKind::Array, 1),
        SqlType::Map(..) => (SqlKind::Map, 2),
        SqlType::Struct(f) => (SqlKind::Struct, f.len() as u32),
    };
    out.push(SqlTypeNode {
        kind,
        name: name.to_string(),
        children,
    });
    match ty {
        SqlType::Array(e) => type_to_nodes(e, "", out),
        SqlType::Map(k, v) => {
            type_to_nodes(k, "", out);
            type_to_nodes(v, "", out);
        }
        SqlType::Struct(fields) => fields.iter().for_each(|(n, t)| type_to_nodes(t, n, out)),
        _ => {}
    }
}

/// Reads one value of type `ty` from `nodes` at `*at` (the type bounds the depth).
fn read_value(
    what: &str,
    nodes: &[SqlValueNode],
    at: &mut usize,
    ty: &SqlType,
) -> Result<SqlValue, Error> {
    let node = nodes
        .get(*at)
        .ok_or_else(|| bad(what, "the value's node list ends early"))?;
    *at += 1;
    if node.is_null {
        return if node.children == 0 {
            Ok(SqlValue::Null)
        } else {
            Err(bad(what, "a NULL node has children"))
        };
    }
    let leaf = |v: SqlValue| {
        if node.children == 0 {
            Ok(v)
        } else {
            Err(bad(what, "a scalar node has children"))
        }
    };
    match ty {
        SqlType::Bytes => leaf(SqlValue::Bytes(node.bytes.clone())),
        SqlType::String => leaf(SqlValue::String(node.text.clone())),
        SqlType::Int64 => leaf(SqlValue::Int64(node.int)),
        SqlType::Float32 => leaf(SqlValue::Float32(node.float as f32)),
        SqlType::Float64 => leaf(SqlValue::Float64(node.float)),
        SqlType::Bool => leaf(SqlValue::Bool(node.boolean)),
        SqlType::Timestamp => leaf(SqlValue::Timestamp {
            seconds: node.int,
            nanos: node.nanos,
        }),
        SqlType::Date => leaf(SqlValue::Date {
            year: i32::try_from(node.int)
                .map_err(|_| bad(what, "a DATE's year is out of range"))?,
            month: node.nanos,
            day: node.day,
        }),
        SqlType::Array(e) => {
            let n = node.children as usize;
            if n > nodes.len() - *at {
                return Err(bad(what, "an ARRAY node names more elements than follow"));
            }
            (0..n)
                .map(|_| read_value(what, nodes, at, e))
                .collect::<Result<_, _>>()
                .map(SqlValue::Array)
        }
        SqlType::Map(..) | SqlType::Struct(_) => {
            Err(bad(what, "MAP and STRUCT parameters are not served"))
        }
    }
}

/// A whole node list as one value of type `ty`.
pub fn value_from_nodes(
    what: &str,
    nodes: &[SqlValueNode],
    ty: &SqlType,
) -> Result<SqlValue, Error> {
    let mut at = 0;
    let v = read_value(what, nodes, &mut at, ty)?;
    if at != nodes.len() {
        return Err(bad(what, "nodes left over after the value"));
    }
    Ok(v)
}

/// A value as its node list.
pub fn value_to_nodes(value: &SqlValue, out: &mut Vec<SqlValueNode>) {
    let mut node = SqlValueNode::empty(0);
    match value {
        SqlValue::Null => node.is_null = true,
        SqlValue::Bytes(b) => node.bytes = b.clone(),
        SqlValue::String(s) => node.text = s.clone(),
        SqlValue::Int64(i) => node.int = *i,
        SqlValue::Float32(f) => node.float = f64::from(*f),
        SqlValue::Float64(f) => node.float = *f,
        SqlValue::Bool(b) => node.boolean = *b,
        SqlValue::Timestamp { seconds, nanos } => {
            node.int = *seconds;
            node.nanos = *nanos;
        }
        SqlValue::Date { year, month, day } => {
            node.int = i64::from(*year);
            node.nanos = *month;
            node.day = *day;
        }
        SqlValue::Array(items) | SqlValue::Struct(items) => node.children = items.len() as u32,
        SqlValue::Map(entries) => node.children = 2 * entries.len() as u32,
    }
    out.push(node);
    match value {
        SqlValue::Array(items) | SqlValue::Struct(items) => {
            items.iter().for_each(|v| value_to_nodes(v, out))
        }
        SqlValue::Map(entries) => entries.iter().for_each(|(k, v)| {
            value_to_nodes(k, out);
            value_to_nodes(v, out);
        }),
        _ => {}
    }
}

fn columns(query: &PreparedQuery) -> Vec<SqlColumnInfo> {
    query
        .columns()
        .iter()
        .map(|SqlColumn { name, ty }| {
            let mut type_nodes = Vec::new();
            type_to_nodes(ty, "", &mut type_nodes);
            SqlColumnInfo {
                name: name.clone(),
                type_nodes,
            }
        })
        .collect()
}

fn param_types(
    types: &HashMap<String, Vec<SqlTypeNode>>,
) -> Result<BTreeMap<String, SqlType>, Error> {
    types
        .iter()
        .map(|(name, nodes)| {
            Ok((
                name.clone(),
                type_from_nodes(&format!("parameter @{name}"), nodes)?,
            ))
        })
        .collect()
}

#[uniffi::export]
impl Database {
    /// Checks a SQL query against the tables' schemas with parameters of `param_types` and
    /// returns its result columns (the core's `sql::prepare`).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` naming what was not understood and its position; `NOT_FOUND` for an
    /// unknown table.
    pub fn prepare_query(
        &self,
        query: String,
        param_types: HashMap<String, Vec<SqlTypeNode>>,
    ) -> Result<Vec<SqlColumnInfo>, SparsetableError> {
        self.prepare_query_with(query, param_types, &[])
    }

    /// Runs a SQL query with typed parameters and returns its columns and every row.
    ///
    /// # Errors
    /// As `prepare_query`, plus `INVALID_ARGUMENT` for a value that does not fit its
    /// parameter's type and `OUT_OF_RANGE` for errors while running (overflow, division by
    /// zero).
    pub fn execute_query(
        &self,
        query: String,
        param_types: HashMap<String, Vec<SqlTypeNode>>,
        params: HashMap<String, Vec<SqlValueNode>>,
    ) -> Result<SqlResult, SparsetableError> {
        self.execute_query_with(query, param_types, params, &[])
    }
}

impl Database {
    /// [`prepare_query`](Database::prepare_query) with the instance's logical `views`.
    pub(crate) fn prepare_query_with(
        &self,
        query: String,
        param_types: HashMap<String, Vec<SqlTypeNode>>,
        views: &[LogicalViewRecord],
    ) -> Result<Vec<SqlColumnInfo>, SparsetableError> {
        let types = param_types_ffi(&param_types)?;
        self.read(|db| sql::prepare_with_views(db, &query, types, views))
            .map(|q| columns(&q))
    }

    /// [`execute_query`](Database::execute_query) with the instance's logical `views`.
    pub(crate) fn execute_query_with(
        &self,
        query: String,
        param_types: HashMap<String, Vec<SqlTypeNode>>,
        params: HashMap<String, Vec<SqlValueNode>>,
        views: &[LogicalViewRecord],
    ) -> Result<SqlResult, SparsetableError> {
        let types = param_types_ffi(&param_types)?;
        let mut values = BTreeMap::new();
        for (name, nodes) in &params {
            let ty = types.get(name).ok_or_else(|| {
                to_ffi(Error::invalid_argument(format!(
                    "parameter @{name} has a value but no type"
                )))
            })?;
            values.insert(
                name.clone(),
                value_from_nodes(&format!("parameter @{name}"), nodes, ty).map_err(to_ffi)?,
            );
        }
        self.read(|db| {
            let prepared = sql::prepare_with_views(db, &query, types, views)?;
            let rows = sql::execute(db, &prepared, &values)?;
            Ok(SqlResult {
                columns: columns(&prepared),
                rows: rows
                    .iter()
                    .map(|r| {
                        let mut out = Vec::new();
                        r.iter().for_each(|v| value_to_nodes(v, &mut out));
                        out
                    })
                    .collect(),
            })
        })
    }
}

fn param_types_ffi(
    types: &HashMap<String, Vec<SqlTypeNode>>,
) -> Result<BTreeMap<String, SqlType>, SparsetableError> {
    param_types(types).map_err(to_ffi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_and_values_round_trip_through_node_lists() {
        let ty = SqlType::map(
            SqlType::Bytes,
            SqlType::array(SqlType::Struct(vec![
                ("timestamp".into(), SqlType::Timestamp),
                ("value".into(), SqlType::Bytes),
            ])),
        );
        let mut nodes = Vec::new();
        type_to_nodes(&ty, "", &mut nodes);
        assert_eq!(type_from_nodes("t", &nodes).unwrap(), ty);
        let arr = SqlType::array(SqlType::Date);
        let v = SqlValue::Array(vec![
            SqlValue::Date {
                year: 2024,
                month: 2,
                day: 29,
            },
            SqlValue::Null,
        ]);
        let mut vn = Vec::new();
        value_to_nodes(&v, &mut vn);
        assert_eq!(value_from_nodes("v", &vn, &arr).unwrap(), v);
    }

    #[test]
    fn malformed_node_lists_are_invalid_argument() {
        let node = |kind, children| SqlTypeNode {
            kind,
            name: String::new(),
            children,
        };
        assert!(type_from_nodes("t", &[]).is_err());
        assert!(type_from_nodes("t", &[node(SqlKind::Array, 1)]).is_err());
        assert!(type_from_nodes("t", &[node(SqlKind::Int64, 0), node(SqlKind::Int64, 0)]).is_err());
        assert!(type_from_nodes("t", &[node(SqlKind::Map, 1), node(SqlKind::Int64, 0)]).is_err());
        let deep: Vec<_> = (0..100)
            .map(|_| node(SqlKind::Array, 1))
            .chain([node(SqlKind::Int64, 0)])
            .collect();
        assert!(type_from_nodes("t", &deep).is_err());
        let mut arr = SqlValueNode::empty(5);
        arr.is_null = false;
        let e = value_from_nodes("v", &[arr], &SqlType::array(SqlType::Int64)).unwrap_err();
        assert_eq!(e.code(), sparsetable::Code::InvalidArgument);
    }
}
