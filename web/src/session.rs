//! Keep and share: the playground's tables and data as a document, in three encodings.
//!
//! - JSON: `{"format": "sparsetable-playground/1", "nowMicros": "...", "gcMode": "background",
//!   "tables": [{"tableId",
//!   "table": <admin Table>, "rows": [<v2 Row>...]}]}`, where the table and rows use the core's
//!   proto3 JSON model (`sparsetable::json`), so an export reads like Bigtable's own messages.
//! - CSV: one line per cell version, `table,row_key,family,qualifier,timestamp_micros,value,
//!   value_encoding` (RFC 4180 quoting; `value_encoding` is `utf8` or `base64`).
//! - A share token: the JSON deflated (miniz_oxide) and base64url-encoded, for a URL fragment.
//!
//! Exports read through untracked streams (no access statistics) and hold what reads return
//! (in Immediate mode, versions GC hides are not exported; in Background mode, eligible
//! versions not yet collected are). `gcMode` (optional; older documents lack it) is the GC
//! mode the session ran in, restored with it. Imports are all-or-nothing: the whole document is
//! parsed and checked (no table may exist yet) before the first table is created; the
//! engine then checks the data exactly as it checks any write.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use base64::Engine as _;
use serde_json::{json, Value};
use sparsetable::{Database, Mutation, ReadRowsRequest, Row, RowMutations, TableConfig};

use crate::display::ShownError;

extern crate alloc;

/// The document's format tag.
pub const FORMAT: &str = "sparsetable-playground/1";
/// Largest document a share token or stored session may inflate to.
pub const MAX_DOCUMENT_BYTES: usize = 256 << 20;
/// Most mutations sent in one MutateRows call (the engine's own limit is 100,000).
const BATCH_MUTATIONS: usize = 20_000;

/// One table of a session.
#[derive(Debug, Clone, PartialEq)]
pub struct TableDump {
    /// The table id.
    pub table_id: String,
    /// Its families and settings.
    pub config: TableConfig,
    /// Its rows, in key order.
    pub rows: Vec<Row>,
}

/// Everything a session holds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Session {
    /// The clock's time when it was saved.
    pub now_micros: i64,
    /// The tables.
    pub tables: Vec<TableDump>,
    /// The GC mode it ran in (`None`: the document did not say; the mode stays as it is).
    pub gc_mode: Option<sparsetable::GcMode>,
}

fn invalid(message: impl Into<String>) -> ShownError {
    ShownError {
        code: "INVALID_ARGUMENT".into(),
        message: message.into(),
    }
}

fn engine(e: sparsetable::Error) -> ShownError {
    ShownError {
        code: e.code().as_str().to_string(),
        message: e.message().to_string(),
    }
}

/// Reads every table whole, without counting the reads.
///
/// # Errors
/// The engine's, if a table vanished in between (it cannot in the single-threaded page).
pub fn capture(db: &Database) -> Result<Session, ShownError> {
    let mut tables = Vec::new();
    for info in db.list_tables() {
        let mut stream = db
            .read_rows(&info.name, &ReadRowsRequest::default())
            .map_err(engine)?;
        stream.set_access_stats(false);
        tables.push(TableDump {
            table_id: info.name,
            config: info.config,
            rows: stream.collect(),
        });
    }
    Ok(Session {
        now_micros: db.now_micros(),
        tables,
        gc_mode: Some(db.gc_mode()),
    })
}

/// Creates the session's tables and writes their cells into `db`, whose clock the caller
/// moves to the session's time. Checked first: a table that already exists is
/// `ALREADY_EXISTS` and nothing is created.
///
/// # Errors
/// `ALREADY_EXISTS`, or the engine's error for a bad table or cell (tables created before
/// it stay; the page reports it).
pub fn restore(db: &mut Database, session: &Session) -> Result<(), ShownError> {
    let existing: Vec<String> = db.list_tables().into_iter().map(|t| t.name).collect();
    if let Some(t) = session
        .tables
        .iter()
        .find(|t| existing.contains(&t.table_id))
    {
        return Err(ShownError {
            code: "ALREADY_EXISTS".into(),
            message: alloc::format!(
                "table {:?} already exists: delete it or import into a fresh page",
                t.table_id
            ),
        });
    }
    if let Some(mode) = session.gc_mode {
        db.set_gc_mode(mode);
    }
    for t in &session.tables {
        let mut config = t.config.clone();
        // Families the rows use but the config lacks (a CSV import) are created too.
        for row in &t.rows {
            for c in &row.cells {
                if !config.families.contains_key(&c.family) {
                    config.families.insert(c.family.clone(), Default::default());
                }
            }
        }
        // The playground's tables split at the lab's small thresholds (its tablet maps show
        // them); rows imported into them split as they arrive, not in a later compaction.
        if config.tablet_options == sparsetable::TabletOptions::default() {
            config.tablet_options = crate::lab::LAB_TABLET_OPTIONS;
        }
        db.create_table(&t.table_id, config).map_err(engine)?;
        let mut batch: Vec<RowMutations> = Vec::new();
        let mut in_batch = 0;
        for row in &t.rows {
            let mutations: Vec<Mutation> = row
                .cells
                .iter()
                .map(|c| {
                    Mutation::set_cell(
                        c.family.clone(),
                        c.qualifier.clone(),
                        c.timestamp_micros,
                        c.value.clone(),
                    )
                })
                .collect();
            in_batch += mutations.len();
            batch.push(RowMutations {
                row_key: row.key.clone(),
                mutations,
            });
            if in_batch >= BATCH_MUTATIONS {
                apply(db, &t.table_id, &mut batch)?;
                in_batch = 0;
            }
        }
        apply(db, &t.table_id, &mut batch)?;
    }
    Ok(())
}

fn apply(db: &mut Database, table: &str, batch: &mut Vec<RowMutations>) -> Result<(), ShownError> {
    if batch.is_empty() {
        return Ok(());
    }
    let statuses = db.mutate_rows(table, batch).map_err(engine)?;
    batch.clear();
    statuses.into_iter().try_for_each(|s| s.map_err(engine))
}

/// The session as JSON.
///
/// Serialized straight into the string, without a `serde_json::Value` tree in between: the
/// page saves the session after every change, and for the lab's tables (tens of thousands of
/// rows) building that tree was most of the time the save held the page.
///
/// # Errors
/// The JSON layer's (it has none for values the engine produced).
pub fn to_json(session: &Session) -> Result<String, ShownError> {
    #[derive(serde::Serialize)]
    struct Table<'a> {
        #[serde(rename = "tableId")]
        table_id: &'a str,
        table: &'a TableConfig,
        rows: &'a [Row],
    }
    #[derive(serde::Serialize)]
    struct Document<'a> {
        format: &'a str,
        #[serde(rename = "nowMicros")]
        now_micros: String,
        #[serde(rename = "gcMode", skip_serializing_if = "Option::is_none")]
        gc_mode: Option<&'a str>,
        tables: Vec<Table<'a>>,
    }
    let document = Document {
        format: FORMAT,
        now_micros: session.now_micros.to_string(),
        gc_mode: session.gc_mode.map(sparsetable::GcMode::as_str),
        tables: session
            .tables
            .iter()
            .map(|t| Table {
                table_id: &t.table_id,
                table: &t.config,
                rows: &t.rows,
            })
            .collect(),
    };
    sparsetable::json::to_string(&document).map_err(engine)
}

/// Parses a session from JSON.
///
/// # Errors
/// `INVALID_ARGUMENT` for anything that is not such a document.
pub fn from_json(text: &str) -> Result<Session, ShownError> {
    let doc: Value =
        serde_json::from_str(text).map_err(|e| invalid(alloc::format!("JSON: {e}")))?;
    if doc.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(invalid(alloc::format!(
            "not a playground export: \"format\" must be {FORMAT:?}"
        )));
    }
    let now_micros = doc
        .get("nowMicros")
        .and_then(Value::as_str)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| invalid("nowMicros: a decimal string is required"))?;
    let gc_mode = match doc.get("gcMode") {
        None => None,
        Some(v) => Some(
            v.as_str()
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| invalid("gcMode: \"immediate\" or \"background\" is required"))?,
        ),
    };
    let mut tables = Vec::new();
    for t in doc
        .get("tables")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid("tables: an array is required"))?
    {
        let table_id = t
            .get("tableId")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid("tableId: a string is required"))?
            .to_string();
        let config = sparsetable::json::from_value(t.get("table").cloned().unwrap_or(json!({})))
            .map_err(engine)?;
        let rows = sparsetable::json::from_value(t.get("rows").cloned().unwrap_or(json!([])))
            .map_err(engine)?;
        tables.push(TableDump {
            table_id,
            config,
            rows,
        });
    }
    Ok(Session {
        now_micros,
        tables,
        gc_mode,
    })
}

const CSV_HEADER: &str = "table,row_key,family,qualifier,timestamp_micros,value,value_encoding";

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        alloc::format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The session's cells as CSV, one line per cell version.
pub fn to_csv(session: &Session) -> String {
    let mut out = String::from(CSV_HEADER);
    out.push('\n');
    for t in &session.tables {
        for row in &t.rows {
            for c in &row.cells {
                // Text only when it reads as text: counters and other binary values (control
                // bytes) travel as base64.
                let (value, encoding) = match core::str::from_utf8(&c.value) {
                    Ok(s) if !s.chars().any(char::is_control) => (s.to_string(), "utf8"),
                    _ => (
                        base64::engine::general_purpose::STANDARD.encode(&c.value),
                        "base64",
                    ),
                };
                let fields = [
                    csv_field(&t.table_id),
                    csv_field(&String::from_utf8_lossy(&row.key)),
                    csv_field(&c.family),
                    csv_field(&String::from_utf8_lossy(&c.qualifier)),
                    c.timestamp_micros.to_string(),
                    csv_field(&value),
                    encoding.to_string(),
                ];
                out.push_str(&fields.join(","));
                out.push('\n');
            }
        }
    }
    out
}

/// Splits CSV text into records of fields (RFC 4180: quoted fields may hold commas, quotes
/// doubled, and line breaks).
fn csv_records(text: &str) -> Result<Vec<Vec<String>>, ShownError> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    let mut any = false;
    while let Some(c) = chars.next() {
        any = true;
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => quoted = false,
                _ => field.push(c),
            }
            continue;
        }
        match c {
            '"' if field.is_empty() => quoted = true,
            ',' => record.push(core::mem::take(&mut field)),
            '\r' => {}
            '\n' => {
                record.push(core::mem::take(&mut field));
                records.push(core::mem::take(&mut record));
                any = false;
            }
            _ => field.push(c),
        }
    }
    if quoted {
        return Err(invalid("CSV: a quoted field is not closed"));
    }
    if any {
        record.push(field);
        records.push(record);
    }
    Ok(records)
}

/// Parses cells from CSV (the format [`to_csv`] writes) into tables, each with the families
/// its cells use (GC rule: keep everything).
///
/// # Errors
/// `INVALID_ARGUMENT` naming the line of a bad record.
pub fn from_csv(text: &str, now_micros: i64) -> Result<Session, ShownError> {
    let records = csv_records(text)?;
    let mut it = records.into_iter().enumerate();
    match it.next() {
        Some((_, header)) if header.join(",") == CSV_HEADER => {}
        _ => {
            return Err(invalid(alloc::format!(
                "CSV: the first line must be {CSV_HEADER}"
            )))
        }
    }
    let mut session = Session {
        now_micros,
        tables: Vec::new(),
        gc_mode: None,
    };
    for (i, r) in it {
        let line = i + 1;
        if r.len() == 1 && r[0].is_empty() {
            continue;
        }
        let [table, key, family, qualifier, ts, value, encoding] = <[String; 7]>::try_from(r)
            .map_err(|_| invalid(alloc::format!("CSV line {line}: 7 fields expected")))?;
        let timestamp_micros = ts.parse().map_err(|_| {
            invalid(alloc::format!(
                "CSV line {line}: bad timestamp_micros {ts:?}"
            ))
        })?;
        let value = match encoding.as_str() {
            "utf8" | "" => value.into_bytes(),
            "base64" => base64::engine::general_purpose::STANDARD
                .decode(value)
                .map_err(|_| invalid(alloc::format!("CSV line {line}: bad base64 value")))?,
            other => {
                return Err(invalid(alloc::format!(
                    "CSV line {line}: value_encoding {other:?} is not utf8 or base64"
                )))
            }
        };
        let at = match session.tables.iter().position(|t| t.table_id == table) {
            Some(at) => at,
            None => {
                session.tables.push(TableDump {
                    table_id: table,
                    config: TableConfig::default(),
                    rows: Vec::new(),
                });
                session.tables.len() - 1
            }
        };
        let t = &mut session.tables[at];
        if !t.config.families.contains_key(&family) {
            t.config.families.insert(family.clone(), Default::default());
        }
        let cell = sparsetable::Cell {
            family,
            qualifier: qualifier.into_bytes(),
            timestamp_micros,
            value,
            labels: Vec::new(),
        };
        match t.rows.last_mut() {
            Some(last) if last.key == key.as_bytes() => last.cells.push(cell),
            _ => t.rows.push(Row {
                key: key.into_bytes(),
                cells: alloc::vec![cell],
            }),
        }
    }
    Ok(session)
}

/// A share token: the JSON deflated at `level` (1 fast .. 9 small) and base64url-encoded (no
/// padding), URL-safe as is.
pub fn share_token(json: &str, level: u8) -> String {
    let packed = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), level);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(packed)
}

/// The JSON a share token holds.
///
/// # Errors
/// `INVALID_ARGUMENT` for a token that is not base64url, not deflate, too large or not UTF-8.
pub fn from_share_token(token: &str) -> Result<String, ShownError> {
    let packed = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(token.trim_end_matches('='))
        .map_err(|_| invalid("share link: not base64url"))?;
    let bytes = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_DOCUMENT_BYTES)
        .map_err(|_| invalid("share link: not a deflated playground (or too large)"))?;
    String::from_utf8(bytes).map_err(|_| invalid("share link: not UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::sync::Arc;
    use sparsetable::{ColumnFamily, GcRule, ManualClock};

    const T0: i64 = 1_700_000_000_000_000;

    fn sample() -> Database {
        let mut db = Database::with_clock(Arc::new(ManualClock::new(T0)));
        let mut config = TableConfig::with_families(["cf", "meta"]);
        *config.families.get_mut("cf").unwrap() = ColumnFamily {
            gc_rule: GcRule::MaxNumVersions(3),
            ..ColumnFamily::default()
        };
        db.create_table("users", config).unwrap();
        for (k, q, ts, v) in [
            ("u1", "name", T0, &b"Ada, \"the\" first"[..]),
            ("u1", "name", T0 - 1000, b"Ada"),
            ("u2", "bin", T0, b"\x00\xff\n"),
        ] {
            db.mutate_row(
                "users",
                k.as_bytes(),
                &[Mutation::set_cell(
                    "cf",
                    q.as_bytes().to_vec(),
                    ts,
                    v.to_vec(),
                )],
            )
            .unwrap();
        }
        db.create_table("empty", TableConfig::with_families(["f"]))
            .unwrap();
        db
    }

    #[test]
    fn a_table_saved_with_the_engines_thresholds_comes_back_with_the_labs() {
        let mut db = Database::with_clock(Arc::new(ManualClock::new(T0)));
        db.create_table("old", TableConfig::with_families(["f"]))
            .unwrap();
        let session = capture(&db).unwrap();
        let mut fresh = Database::with_clock(Arc::new(ManualClock::new(T0)));
        restore(&mut fresh, &session).unwrap();
        assert_eq!(
            fresh.get_table("old").unwrap().config.tablet_options,
            crate::lab::LAB_TABLET_OPTIONS
        );
    }

    #[test]
    fn json_round_trips_tables_rows_and_gc_rules_through_a_fresh_database() {
        let db = sample();
        let session = capture(&db).unwrap();
        let text = to_json(&session).unwrap();
        assert!(text.contains("\"maxNumVersions\":3"), "{text}");
        let back = from_json(&text).unwrap();
        assert_eq!(back, session);
        let mut fresh = Database::with_clock(Arc::new(ManualClock::new(T0)));
        restore(&mut fresh, &back).unwrap();
        // Restored tables split at the lab's thresholds; all else is as saved.
        let mut expected = session.clone();
        for t in &mut expected.tables {
            t.config.tablet_options = crate::lab::LAB_TABLET_OPTIONS;
        }
        assert_eq!(capture(&fresh).unwrap(), expected);
        // Nothing is created when one table already exists.
        let err = restore(&mut fresh, &back).unwrap_err();
        assert_eq!(err.code, "ALREADY_EXISTS");
    }

    #[test]
    fn csv_round_trips_cells_with_quotes_and_binary_values() {
        let session = capture(&sample()).unwrap();
        let csv = to_csv(&session);
        assert!(csv.contains("users,u1,cf,name,1700000000000000,\"Ada, \"\"the\"\" first\",utf8\n"));
        assert!(csv.contains(",base64\n"));
        let back = from_csv(&csv, T0).unwrap();
        // CSV carries cells, not GC rules or empty tables.
        let users = &back.tables[0];
        assert_eq!(users.rows, session.tables[1].rows);
        assert_eq!(back.tables.len(), 1);
        let err = from_csv("a,b\n", T0).unwrap_err();
        assert_eq!(err.code, "INVALID_ARGUMENT");
        let bad = from_csv(&(String::from(CSV_HEADER) + "\nt,r,cf,q,x,v,utf8\n"), T0).unwrap_err();
        assert!(bad.message.contains("line 2"), "{}", bad.message);
    }

    #[test]
    fn a_share_token_is_compressed_and_decodes_back() {
        let text = to_json(&capture(&sample()).unwrap()).unwrap();
        let token = share_token(&text, 9);
        assert!(token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
        assert_eq!(from_share_token(&token).unwrap(), text);
        let big = "x".repeat(100_000);
        assert!(
            share_token(&big, 1).len() < 1_000,
            "deflate shrinks repetition"
        );
        assert_eq!(from_share_token("!!").unwrap_err().code, "INVALID_ARGUMENT");
        assert_eq!(
            from_share_token("AAAA").unwrap_err().code,
            "INVALID_ARGUMENT"
        );
    }

    #[test]
    fn from_json_refuses_other_documents() {
        assert_eq!(from_json("{}").unwrap_err().code, "INVALID_ARGUMENT");
        assert_eq!(from_json("nope").unwrap_err().code, "INVALID_ARGUMENT");
    }
}
