//! The shared SQL test vectors (tests/vectors/sql/*.json, and tests/vectors/sql_views/*.json
//! for queries over logical views): their types, loading, the
//! conversion of their JSON values and types to the core's, comparison of results, and a
//! replay against the core engine. The format is in tests/vectors/sql/README.md.
//!
//! Runners pass each query, its parameters and the table contents to their front-end as a
//! user would, and compare what comes back with [`check_result`]: the rules (column types,
//! row order, float tolerance) live here and in the README, not in the runners.

use std::collections::BTreeMap;
use std::path::PathBuf;

use base64::Engine as _;
use serde::Deserialize;
use serde_json::Value;
use sparsetable::api::sql::{self, SqlType, SqlValue};
use sparsetable::{Database, LogicalViewRecord, ManualClock, Mutation, TableConfig};

use crate::Bytes;

/// A file of SQL vectors.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SqlFile {
    /// The vectors.
    pub vectors: Vec<SqlVector>,
}

/// One vector: tables, their rows, and queries over them.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SqlVector {
    /// Unique name.
    pub name: String,
    /// What it checks.
    #[serde(default)]
    pub description: String,
    /// The manual clock (CURRENT_TIMESTAMP); default [`crate::DEFAULT_CLOCK_MICROS`].
    pub clock_micros: Option<i64>,
    /// Tables by id (admin `Table` proto3 JSON, as the other vectors).
    pub tables: BTreeMap<String, Value>,
    /// Rows written before the queries run.
    #[serde(default)]
    pub rows: Vec<SqlRow>,
    /// The queries.
    pub queries: Vec<SqlQuery>,
    /// Logical views `[id, query]` of the instance, created in order after the rows (only in
    /// tests/vectors/sql_views, which the runners that serve views replay).
    #[serde(default)]
    pub logical_views: Vec<(String, String)>,
}

/// A row's cells.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SqlRow {
    /// The table (default `t`).
    #[serde(default = "default_table")]
    pub table: String,
    /// The key.
    pub key: Bytes,
    /// `[family, qualifier, value, timestamp_micros]` (value: text, `{"base64"}` or
    /// `{"int64"}`; an aggregate family's value is its INT64 input as a JSON integer).
    pub cells: Vec<(String, Bytes, Value, i64)>,
}

fn default_table() -> String {
    "t".into()
}

/// A query and what it must return.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SqlQuery {
    /// The SQL text.
    pub sql: String,
    /// Parameters: name -> `{"type": TYPE, "value": VALUE}`.
    #[serde(default)]
    pub params: BTreeMap<String, SqlParam>,
    /// The result columns: `[name, TYPE]`, checked when given.
    pub expect_columns: Option<Vec<(String, Value)>>,
    /// The rows, each a list of VALUEs.
    pub expect_rows: Option<Vec<Vec<Value>>>,
    /// Compare rows as a multiset (the query has no ORDER BY and its order is not defined).
    #[serde(default)]
    pub unordered: bool,
    /// The error code (prepare or execute), e.g. `INVALID_ARGUMENT`.
    pub expect_error: Option<String>,
}

/// A typed parameter.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SqlParam {
    /// Its TYPE.
    #[serde(rename = "type")]
    pub ty: Value,
    /// Its VALUE.
    pub value: Value,
}

/// All SQL vectors, from every file, in file order.
///
/// # Panics
/// On an unreadable or malformed file, or duplicate names.
pub fn load_sql() -> Vec<SqlVector> {
    let all = load_sql_dir("sql");
    for v in &all {
        assert!(
            v.logical_views.is_empty(),
            "vector {} has logical views: it belongs in tests/vectors/sql_views",
            v.name
        );
    }
    all
}

/// The SQL vectors that read logical views (tests/vectors/sql_views), replayed by the
/// runners that serve views (the core and the server).
///
/// # Panics
/// As [`load_sql`].
pub fn load_sql_views() -> Vec<SqlVector> {
    load_sql_dir("sql_views")
}

fn load_sql_dir(name: &str) -> Vec<SqlVector> {
    let dir: PathBuf = crate::vectors_dir().join(name);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("read tests/vectors/{name}: {e}"))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut all: Vec<SqlVector> = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read vector file");
        let file: SqlFile =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        for v in file.vectors {
            assert!(
                all.iter().all(|o| o.name != v.name),
                "duplicate SQL vector name {}",
                v.name
            );
            all.push(v);
        }
    }
    all
}

/// A TYPE as the core's type: `"INT64"`, `{"ARRAY": T}`, `{"MAP": [K, V]}`,
/// `{"STRUCT": [[name, T], ...]}`.
///
/// # Errors
/// A message for an unknown type.
pub fn sql_type(v: &Value) -> Result<SqlType, String> {
    if let Some(s) = v.as_str() {
        return Ok(match s {
            "BYTES" => SqlType::Bytes,
            "STRING" => SqlType::String,
            "INT64" => SqlType::Int64,
            "FLOAT32" => SqlType::Float32,
            "FLOAT64" => SqlType::Float64,
            "BOOL" => SqlType::Bool,
            "TIMESTAMP" => SqlType::Timestamp,
            "DATE" => SqlType::Date,
            other => return Err(format!("unknown type {other}")),
        });
    }
    if let Some(e) = v.get("ARRAY") {
        return Ok(SqlType::array(sql_type(e)?));
    }
    if let Some(kv) = v.get("MAP").and_then(Value::as_array) {
        if kv.len() == 2 {
            return Ok(SqlType::map(sql_type(&kv[0])?, sql_type(&kv[1])?));
        }
    }
    if let Some(fields) = v.get("STRUCT").and_then(Value::as_array) {
        return fields
            .iter()
            .map(|f| {
                let name = f[0].as_str().ok_or("a struct field's name")?;
                Ok((name.to_string(), sql_type(&f[1])?))
            })
            .collect::<Result<_, String>>()
            .map(SqlType::Struct);
    }
    Err(format!("bad type {v}"))
}

/// A VALUE of type `ty` as the core's value (see the README for the JSON forms).
///
/// # Errors
/// A message when the JSON does not give a `ty`.
pub fn sql_value(v: &Value, ty: &SqlType) -> Result<SqlValue, String> {
    let bad = || format!("{v} is not a {ty}");
    Ok(match (v, ty) {
        (Value::Null, _) => SqlValue::Null,
        (Value::Bool(b), SqlType::Bool) => SqlValue::Bool(*b),
        (Value::Number(n), SqlType::Int64) => SqlValue::Int64(n.as_i64().ok_or_else(bad)?),
        (Value::Number(n), SqlType::Float64) => SqlValue::Float64(n.as_f64().ok_or_else(bad)?),
        (Value::Number(n), SqlType::Float32) => {
            SqlValue::Float32(n.as_f64().ok_or_else(bad)? as f32)
        }
        (Value::String(s), SqlType::Float64 | SqlType::Float32) => {
            let f = match s.as_str() {
                "NaN" => f64::NAN,
                "Infinity" => f64::INFINITY,
                "-Infinity" => f64::NEG_INFINITY,
                _ => return Err(bad()),
            };
            if *ty == SqlType::Float32 {
                SqlValue::Float32(f as f32)
            } else {
                SqlValue::Float64(f)
            }
        }
        (Value::String(s), SqlType::String) => SqlValue::String(s.clone()),
        (Value::String(s), SqlType::Bytes) => SqlValue::Bytes(s.as_bytes().to_vec()),
        (Value::Object(o), SqlType::Bytes) => {
            let b: Bytes = serde_json::from_value(Value::Object(o.clone())).map_err(|_| bad())?;
            SqlValue::Bytes(b.0)
        }
        (Value::Number(n), SqlType::Timestamp) => {
            SqlValue::timestamp_micros(n.as_i64().ok_or_else(bad)?)
        }
        (Value::String(s), SqlType::Date) => {
            let p: Vec<i32> = s.split('-').filter_map(|x| x.parse().ok()).collect();
            if p.len() != 3 {
                return Err(bad());
            }
            SqlValue::Date {
                year: p[0],
                month: p[1],
                day: p[2],
            }
        }
        (Value::Array(items), SqlType::Array(e)) => SqlValue::Array(
            items
                .iter()
                .map(|i| sql_value(i, e))
                .collect::<Result<_, _>>()?,
        ),
        (Value::Array(entries), SqlType::Map(k, val)) => SqlValue::Map(
            entries
                .iter()
                .map(|e| Ok((sql_value(&e[0], k)?, sql_value(&e[1], val)?)))
                .collect::<Result<_, String>>()?,
        ),
        (Value::Array(items), SqlType::Struct(fields)) if items.len() == fields.len() => {
            SqlValue::Struct(
                items
                    .iter()
                    .zip(fields)
                    .map(|(i, (_, t))| sql_value(i, t))
                    .collect::<Result<_, _>>()?,
            )
        }
        _ => return Err(bad()),
    })
}

/// A front-end's answer: the result's columns and rows, or the error as `"CODE message"`.
pub type Answer = Result<(Vec<(String, SqlType)>, Vec<Vec<SqlValue>>), String>;

/// Whether two values are equal for a vector: floats within a relative 1e-9 (NaN equals
/// NaN), everything else exactly.
pub fn same(a: &SqlValue, b: &SqlValue) -> bool {
    match (a, b) {
        (
            SqlValue::Float64(_) | SqlValue::Float32(_),
            SqlValue::Float64(_) | SqlValue::Float32(_),
        ) => {
            let (x, y) = (a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0));
            (x.is_nan() && y.is_nan())
                || x == y
                || (x - y).abs() <= 1e-12
                || (x - y).abs() <= 1e-9 * x.abs().max(y.abs())
                || (matches!(a, SqlValue::Float32(_))
                    && (x - y).abs() <= 1e-6 * x.abs().max(y.abs()))
        }
        (SqlValue::Array(x), SqlValue::Array(y)) | (SqlValue::Struct(x), SqlValue::Struct(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (SqlValue::Map(x), SqlValue::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k1, v1), (k2, v2))| same(k1, k2) && same(v1, v2))
        }
        _ => a == b,
    }
}

/// Checks a front-end's answer to `q`: `Ok(columns, rows)` or the error's code name.
///
/// # Errors
/// A message describing the difference.
pub fn check_result(q: &SqlQuery, got: Answer) -> Result<(), String> {
    let (columns, rows) = match (got, &q.expect_error) {
        (Err(code), Some(want)) if code.split(' ').next() == Some(want.as_str()) => return Ok(()),
        (Err(code), _) => return Err(format!("{}: failed with {code}", q.sql)),
        (Ok(_), Some(want)) => return Err(format!("{}: succeeded, expected {want}", q.sql)),
        (Ok(r), None) => r,
    };
    let types: Vec<SqlType> = match &q.expect_columns {
        Some(cols) => {
            let want: Vec<(String, SqlType)> = cols
                .iter()
                .map(|(n, t)| Ok((n.clone(), sql_type(t)?)))
                .collect::<Result<_, String>>()?;
            if want != columns {
                return Err(format!("{}: columns {columns:?}, expected {want:?}", q.sql));
            }
            want.into_iter().map(|(_, t)| t).collect()
        }
        None => columns.iter().map(|(_, t)| t.clone()).collect(),
    };
    let Some(expect) = &q.expect_rows else {
        return Ok(());
    };
    let mut want: Vec<Vec<SqlValue>> = Vec::new();
    for r in expect {
        if r.len() != types.len() {
            return Err(format!(
                "{}: an expected row has {} values for {} columns",
                q.sql,
                r.len(),
                types.len()
            ));
        }
        want.push(
            r.iter()
                .zip(&types)
                .map(|(v, t)| sql_value(v, t))
                .collect::<Result<_, _>>()?,
        );
    }
    let row_eq = |a: &Vec<SqlValue>, b: &Vec<SqlValue>| {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
    };
    let ok = if q.unordered {
        let mut left = rows.clone();
        want.len() == rows.len()
            && want
                .iter()
                .all(|w| match left.iter().position(|r| row_eq(r, w)) {
                    Some(i) => {
                        left.remove(i);
                        true
                    }
                    None => false,
                })
    } else {
        want.len() == rows.len() && want.iter().zip(&rows).all(|(w, r)| row_eq(w, r))
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{}:\n got  {rows:?}\n want {want:?}", q.sql))
    }
}

/// The mutations writing a row's cells (aggregate families take AddToCell of an INT64).
///
/// # Errors
/// A message for a malformed cell.
pub fn row_mutations(
    row: &SqlRow,
    aggregate: &dyn Fn(&str, &str) -> bool,
) -> Result<Vec<Mutation>, String> {
    row.cells
        .iter()
        .map(|(family, qualifier, value, ts)| {
            if aggregate(&row.table, family) {
                let input = value
                    .as_i64()
                    .ok_or("an aggregate cell's value is an integer")?;
                Ok(Mutation::AddToCell {
                    family: family.clone(),
                    qualifier: qualifier.0.clone(),
                    timestamp_micros: *ts,
                    input,
                })
            } else {
                let b: Bytes = serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
                Ok(Mutation::set_cell(family, qualifier.0.clone(), *ts, b.0))
            }
        })
        .collect()
}

/// Replays a vector against the core.
///
/// # Errors
/// The first query that differs.
pub fn replay_sql_core(v: &SqlVector) -> Result<(), String> {
    let clock = std::sync::Arc::new(ManualClock::new(
        v.clock_micros.unwrap_or(crate::DEFAULT_CLOCK_MICROS),
    ));
    let mut db = Database::with_clock(clock);
    let mut configs: BTreeMap<String, TableConfig> = BTreeMap::new();
    for (id, spec) in &v.tables {
        let config = crate::table_config(spec).map_err(|e| e.to_string())?;
        db.create_table(id, config.clone())
            .map_err(|e| e.to_string())?;
        configs.insert(id.clone(), config);
    }
    let aggregate = |t: &str, f: &str| {
        configs
            .get(t)
            .and_then(|c| c.families.get(f))
            .is_some_and(|f| f.value_type.is_aggregate())
    };
    for row in &v.rows {
        let m = row_mutations(row, &aggregate)?;
        db.mutate_row(&row.table, &row.key.0, &m)
            .map_err(|e| e.to_string())?;
    }
    // The views, each checked as CreateLogicalView checks it (prepared with those before it).
    let mut views: Vec<LogicalViewRecord> = Vec::new();
    for (id, query) in &v.logical_views {
        views.push(LogicalViewRecord {
            id: id.clone(),
            query: query.clone(),
            deletion_protection: false,
            etag: String::new(),
        });
        sql::prepare_with_views(&db, query, BTreeMap::new(), &views)
            .map_err(|e| format!("logical view {id}: {e}"))?;
    }
    let failures: Vec<String> = v
        .queries
        .iter()
        .filter_map(|q| check_result(q, run_core(&db, q, &views)).err())
        .collect();
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}: {} of {} queries differ:\n{}",
            v.name,
            failures.len(),
            v.queries.len(),
            failures.join("\n")
        ))
    }
}

fn run_core(db: &Database, q: &SqlQuery, views: &[LogicalViewRecord]) -> Answer {
    // The code, then the message (runners compare only the code).
    let code = |e: sparsetable::Error| format!("{} {}", e.code().as_str(), e.message());
    let mut types = BTreeMap::new();
    let mut params = BTreeMap::new();
    for (name, p) in &q.params {
        let t = sql_type(&p.ty)?;
        params.insert(name.clone(), sql_value(&p.value, &t)?);
        types.insert(name.clone(), t);
    }
    let prepared = sql::prepare_with_views(db, &q.sql, types, views).map_err(code)?;
    let rows = sql::execute(db, &prepared, &params).map_err(code)?;
    let columns = prepared
        .columns()
        .iter()
        .map(|c| (c.name.clone(), c.ty.clone()))
        .collect();
    Ok((columns, rows))
}

/// Decodes standard base64 (for runners that carry bytes as text).
///
/// # Errors
/// A message for bad input.
pub fn base64(text: &str) -> Result<Vec<u8>, String> {
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| e.to_string())
}
