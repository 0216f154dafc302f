//! Stored copies of materialized views (docs/format/materialized_view.md): a database on
//! storage keeps each view's state in a file `VIEW-<id>`, so that opening the database and
//! creating its views again loads them instead of recomputing them from their tables.
//!
//! Why a copy can be trusted (option "stamp", as opposed to logging view rows with the
//! source's writes): a copy is written only at the end of an explicit checkpoint
//! ([`crate::Database::checkpoint`], as at a front-end's shutdown), when its source
//! table's memtables are empty (the table's rows are exactly the runs the durable manifest
//! now names) and the view has followed every write and garbage collection the table holds.
//! It is stamped with the manifest's record of the table (tablets, run files, flush marks,
//! schema). Run files are immutable and a number is never reused once a durable manifest
//! named it, so a table whose record after opening equals the stamp holds exactly the rows
//! the view was computed from. Anything else (writes replayed from the log, a compaction,
//! a crash before the manifest or the copy reached the disk, a changed query) leaves a
//! stamp that does not match, and the view is recomputed: always correct, never loaded stale.
//!
//! Corrupt bytes (a torn or damaged copy) never panic the decoder: it answers `DataLoss`,
//! and the caller recomputes the view (the copy is derived data; its table is the truth).
//! A newer format version than this code reads is likewise recomputed.
//!
//! Invariant: [`load`] installs a state only if every invariant `super::view` states holds
//! for it (member sets from `row_group`, totals re-added from the inputs, view rows exactly
//! the `written` or `index_rows` keys, cells only in the view's families).

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::view::{View, MAX_VIEW_KEY};
use crate::api::sql::value::Key;
use crate::api::sql::SqlValue;
use crate::codec::encoding::{
    put_bytes, put_fixed32, put_fixed64, put_str, put_u8, put_varint64, put_varint_i64, Decoder,
    CRC32C,
};
use crate::model::filter::RowFilter;
use crate::model::mutation::Mutation;
use crate::platform::random::SplitMix64;
use crate::platform::storage::{read_all, Storage};
use crate::table::read::RowStream;
use crate::{Code, Error, Result};

/// A stored view's file is this prefix and the view's id.
pub(crate) const FILE_PREFIX: &str = "VIEW-";
/// Where a copy is written before it is renamed into place (ids cannot contain `~`, so
/// no view's file name ends so).
const TMP_SUFFIX: &str = "~tmp";
const MAGIC: [u8; 4] = *b"SPMV";
/// The format this code writes and reads.
pub(crate) const FORMAT_VERSION: u32 = 1;
const HEADER_LEN: usize = 16;

/// The file name of view `id`'s copy.
pub(crate) fn file_name(id: &str) -> String {
    format!("{FILE_PREFIX}{id}")
}

fn corrupt(what: impl core::fmt::Display) -> Error {
    Error::new(Code::DataLoss, format!("stored materialized view: {what}"))
}

fn put_value(out: &mut Vec<u8>, v: &SqlValue) -> Option<()> {
    match v {
        SqlValue::Null => put_u8(out, 0),
        SqlValue::Bytes(b) => {
            put_u8(out, 1);
            put_bytes(out, b);
        }
        SqlValue::String(s) => {
            put_u8(out, 2);
            put_str(out, s);
        }
        SqlValue::Int64(i) => {
            put_u8(out, 3);
            put_varint_i64(out, *i);
        }
        SqlValue::Float32(f) => {
            put_u8(out, 4);
            put_fixed32(out, f.to_bits());
        }
        SqlValue::Float64(f) => {
            put_u8(out, 5);
            put_fixed64(out, f.to_bits());
        }
        SqlValue::Bool(b) => {
            put_u8(out, 6);
            put_u8(out, u8::from(*b));
        }
        SqlValue::Timestamp { seconds, nanos } => {
            put_u8(out, 7);
            put_varint_i64(out, *seconds);
            put_varint_i64(out, i64::from(*nanos));
        }
        // Not a value a view's group key or COUNT/SUM input is stored as: no copy.
        _ => return None,
    }
    Some(())
}

fn get_value(d: &mut Decoder<'_>) -> Result<SqlValue> {
    Ok(match d.u8("value tag")? {
        0 => SqlValue::Null,
        1 => SqlValue::Bytes(d.byte_vec("bytes value")?),
        2 => SqlValue::String(d.string("string value")?),
        3 => SqlValue::Int64(d.varint_i64("int64 value")?),
        4 => SqlValue::Float32(f32::from_bits(d.fixed32("float32 value")?)),
        5 => SqlValue::Float64(f64::from_bits(d.fixed64("float64 value")?)),
        6 => match d.u8("bool value")? {
            0 => SqlValue::Bool(false),
            1 => SqlValue::Bool(true),
            b => return Err(corrupt(format!("bool value {b}"))),
        },
        7 => {
            let seconds = d.varint_i64("timestamp seconds")?;
            let nanos = d.varint_i64("timestamp nanos")?;
            let nanos = i32::try_from(nanos)
                .ok()
                .filter(|n| (0..1_000_000_000).contains(n))
                .ok_or_else(|| corrupt("timestamp nanos out of range"))?;
            SqlValue::Timestamp { seconds, nanos }
        }
        t => return Err(corrupt(format!("unknown value tag {t}"))),
    })
}

fn put_values(out: &mut Vec<u8>, values: &[SqlValue]) -> Option<()> {
    put_varint64(out, values.len() as u64);
    values.iter().try_for_each(|v| put_value(out, v))
}

fn get_values(d: &mut Decoder<'_>) -> Result<Vec<SqlValue>> {
    let n = d.count(1, "value count")?;
    (0..n).map(|_| get_value(d)).collect()
}

/// The complete file for `view` (its query text `query`, its table's state `stamp`), or
/// `None` when a value cannot be stored (the view is then recomputed on open) or its rows
/// cannot be read.
pub(crate) fn encode(view: &View, query: &str, stamp: &[u8], now: i64) -> Option<Vec<u8>> {
    let mut p = Vec::new();
    put_str(&mut p, query);
    put_str(&mut p, &view.source);
    put_bytes(&mut p, stamp);
    match &view.index {
        None => {
            put_u8(&mut p, 0);
            put_u8(&mut p, u8::from(view.kinds.is_some()));
            put_varint64(&mut p, view.row_group.len() as u64);
            for (k, g) in &view.row_group {
                put_bytes(&mut p, k);
                put_values(&mut p, &g.0)?;
                if view.kinds.is_some() {
                    match view.inputs.get(k) {
                        Some(Some(inputs)) => {
                            put_u8(&mut p, 1);
                            put_values(&mut p, inputs)?;
                        }
                        Some(None) => put_u8(&mut p, 0),
                        // Every member has inputs while totals are kept.
                        None => return None,
                    }
                }
            }
            put_varint64(&mut p, view.written.len() as u64);
            for (g, key) in &view.written {
                put_values(&mut p, &g.0)?;
                put_bytes(&mut p, key);
            }
        }
        Some(_) => {
            put_u8(&mut p, 1);
            put_varint64(&mut p, view.index_rows.len() as u64);
            for (k, v) in &view.index_rows {
                put_bytes(&mut p, k);
                put_bytes(&mut p, v);
            }
        }
    }
    let mut rows = Vec::new();
    let mut stream = RowStream::new(
        &view.rows,
        crate::model::row_set::RowSet::default().normalized_ranges(),
        false,
        None,
        now,
        RowFilter::PassAll.compile().ok()?,
        SplitMix64::new(0),
    );
    while let Some(row) = stream.try_next().ok()? {
        rows.push(row);
    }
    put_varint64(&mut p, rows.len() as u64);
    for row in &rows {
        put_bytes(&mut p, &row.key);
        put_varint64(&mut p, row.cells.len() as u64);
        for c in &row.cells {
            put_str(&mut p, &c.family);
            put_bytes(&mut p, &c.value);
        }
    }
    let len = u32::try_from(p.len()).ok()?;
    let mut out = Vec::with_capacity(HEADER_LEN + p.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&checksum(&out[4..12], &p).to_le_bytes());
    out.extend_from_slice(&p);
    Some(out)
}

fn checksum(version_and_len: &[u8], payload: &[u8]) -> u32 {
    let mut digest = CRC32C.digest();
    digest.update(version_and_len);
    digest.update(payload);
    digest.finalize()
}

/// A view row as stored: its key and its (family, value) cells.
type StoredRow = (Vec<u8>, Vec<(String, Vec<u8>)>);

/// A view's state as decoded, before it is installed.
struct Decoded {
    grouped: Option<Grouped>,
    index_rows: BTreeMap<Vec<u8>, Vec<u8>>,
    rows: Vec<StoredRow>,
}

struct Grouped {
    totals: bool,
    row_group: BTreeMap<Vec<u8>, Key>,
    inputs: BTreeMap<Vec<u8>, Option<Vec<SqlValue>>>,
    written: BTreeMap<Key, Vec<u8>>,
}

/// Loads the copy `bytes` into `view` (fresh from `View::new`) if it was stored for
/// `query` over a table whose state is `stamp`. `Ok(false)`: the copy is of another query
/// or table state, or of a newer format: the caller recomputes.
///
/// # Errors
/// `DataLoss` naming what is wrong with bytes that are not a valid copy (the view is left
/// untouched; the caller recomputes).
pub(crate) fn load(
    bytes: &[u8],
    view: &mut View,
    query: &str,
    stamp: &[u8],
    now: i64,
) -> Result<bool> {
    let header = bytes
        .get(..HEADER_LEN)
        .ok_or_else(|| corrupt("shorter than its header"))?;
    if header[..4] != MAGIC {
        return Err(corrupt("bad magic"));
    }
    let field =
        |i: usize| u32::from_le_bytes([header[i], header[i + 1], header[i + 2], header[i + 3]]);
    let (version, len, crc) = (field(4), field(8), field(12));
    let payload = &bytes[HEADER_LEN..];
    if usize::try_from(len).ok() != Some(payload.len()) {
        return Err(corrupt("length does not match the file"));
    }
    if checksum(&header[4..12], payload) != crc {
        return Err(corrupt("checksum mismatch"));
    }
    if version != FORMAT_VERSION {
        // Only version 1 exists; a later one is recomputed, not guessed at.
        return Ok(false);
    }
    let mut d = Decoder::new(payload);
    if d.str("query")? != query || d.str("source table")? != view.source {
        return Ok(false);
    }
    if d.bytes("stamp")? != stamp {
        return Ok(false);
    }
    let decoded = decode_state(&mut d)?;
    d.finish("the stored view")?;
    check_and_install(decoded, view, now)?;
    Ok(true)
}

fn decode_state(d: &mut Decoder<'_>) -> Result<Decoded> {
    let mut out = Decoded {
        grouped: None,
        index_rows: BTreeMap::new(),
        rows: Vec::new(),
    };
    match d.u8("shape")? {
        0 => {
            let totals = match d.u8("totals flag")? {
                0 => false,
                1 => true,
                t => return Err(corrupt(format!("totals flag {t}"))),
            };
            let mut g = Grouped {
                totals,
                row_group: BTreeMap::new(),
                inputs: BTreeMap::new(),
                written: BTreeMap::new(),
            };
            let n = d.count(3, "member count")?;
            for _ in 0..n {
                let k = d.byte_vec("source key")?;
                let key = Key(get_values(d)?);
                if totals {
                    let inputs = match d.u8("inputs flag")? {
                        0 => None,
                        1 => Some(get_values(d)?),
                        t => return Err(corrupt(format!("inputs flag {t}"))),
                    };
                    g.inputs.insert(k.clone(), inputs);
                }
                if g.row_group.insert(k, key).is_some() {
                    return Err(corrupt("a source row listed twice"));
                }
            }
            let n = d.count(2, "group row count")?;
            for _ in 0..n {
                let key = Key(get_values(d)?);
                let row = d.byte_vec("view key")?;
                if g.written.insert(key, row).is_some() {
                    return Err(corrupt("a group listed twice"));
                }
            }
            out.grouped = Some(g);
        }
        1 => {
            let n = d.count(2, "index row count")?;
            for _ in 0..n {
                let k = d.byte_vec("source key")?;
                let v = d.byte_vec("view key")?;
                if out.index_rows.insert(k, v).is_some() {
                    return Err(corrupt("a source row listed twice"));
                }
            }
        }
        s => return Err(corrupt(format!("unknown shape {s}"))),
    }
    let n = d.count(2, "view row count")?;
    for _ in 0..n {
        let key = d.byte_vec("view row key")?;
        let m = d.count(2, "cell count")?;
        let mut cells = Vec::with_capacity(m);
        for _ in 0..m {
            cells.push((d.string("family")?, d.byte_vec("cell value")?));
        }
        out.rows.push((key, cells));
    }
    Ok(out)
}

/// Checks `decoded` against `view`'s definition and the view invariants, then installs it.
fn check_and_install(decoded: Decoded, view: &mut View, now: i64) -> Result<()> {
    let view_keys: BTreeSet<&Vec<u8>> = match (&decoded.grouped, &view.index) {
        (Some(g), None) => g.written.values().collect(),
        (None, Some(_)) => decoded.index_rows.values().collect(),
        _ => return Err(corrupt("the copy's shape is not the query's")),
    };
    let expected = match &decoded.grouped {
        Some(g) => g.written.len(),
        None => decoded.index_rows.len(),
    };
    if view_keys.len() != expected {
        return Err(corrupt("two entries share a view row"));
    }
    if view_keys
        .iter()
        .any(|k| k.is_empty() || k.len() > MAX_VIEW_KEY)
    {
        return Err(corrupt("a view row key that cannot be a row key"));
    }
    let row_keys: BTreeSet<&Vec<u8>> = decoded.rows.iter().map(|(k, _)| k).collect();
    // A row whose every output is NULL has no cell, so no row: the rows are a subset.
    if row_keys.len() != decoded.rows.len() || !row_keys.is_subset(&view_keys) {
        return Err(corrupt("the view rows are not rows its state names"));
    }
    for (_, cells) in &decoded.rows {
        let families: BTreeSet<&String> = cells.iter().map(|(f, _)| f).collect();
        if cells.is_empty()
            || families.len() != cells.len()
            || families
                .iter()
                .any(|f| view.rows.config.families.get(f.as_str()).is_none())
        {
            return Err(corrupt("a view row's cells are not one per view column"));
        }
    }
    let mut members: BTreeMap<Key, BTreeSet<Vec<u8>>> = BTreeMap::new();
    let mut totals: BTreeMap<Key, super::totals::Totals> = BTreeMap::new();
    let mut kinds = view.kinds.clone();
    if let Some(g) = &decoded.grouped {
        for (k, key) in &g.row_group {
            members.entry(key.clone()).or_default().insert(k.clone());
        }
        if g.written.keys().any(|key| !members.contains_key(key)) {
            return Err(corrupt("a group row of a group with no member"));
        }
        match (&kinds, g.totals) {
            (None, true) => return Err(corrupt("totals for a query that keeps none")),
            // A SUM of a non-INT64 value had turned the totals off.
            (Some(_), false) => kinds = None,
            _ => {}
        }
        if let Some(kinds) = &kinds {
            for (k, key) in &g.row_group {
                let t = totals.entry(key.clone()).or_default();
                match g.inputs.get(k) {
                    Some(Some(inputs)) => {
                        if inputs.len() != kinds.len() || !t.apply(kinds, inputs, false) {
                            return Err(corrupt("a member's inputs are not its aggregates'"));
                        }
                    }
                    Some(None) => t.mark_bad(false),
                    None => return Err(corrupt("a member without inputs")),
                }
            }
        }
    }
    // Valid: install.
    for (key, cells) in decoded.rows {
        let mutations: Vec<Mutation> = cells
            .into_iter()
            .map(|(family, value)| Mutation::SetCell {
                family,
                qualifier: Vec::new(),
                timestamp_micros: 0,
                value,
            })
            .collect();
        view.rows.apply(&key, &mutations, now, &mut view.sequence);
    }
    view.index_rows = decoded.index_rows;
    if let Some(g) = decoded.grouped {
        view.row_group = g.row_group;
        view.written = g.written;
        view.members = members;
        view.kinds = kinds;
        if view.kinds.is_some() {
            view.inputs = g.inputs;
            view.totals = totals;
        }
    }
    Ok(())
}

/// Writes `bytes` as view `id`'s copy: to a temporary file, synced if `sync`, then
/// renamed into place, so a crash leaves the old copy or the new one (and a torn one is
/// caught by its checksum).
///
/// # Errors
/// The storage's.
pub(crate) fn write_file(storage: &dyn Storage, id: &str, bytes: &[u8], sync: bool) -> Result<()> {
    let name = file_name(id);
    let tmp = format!("{name}{TMP_SUFFIX}");
    let mut f = storage.create(&tmp)?;
    f.append(bytes)?;
    if sync {
        f.sync()?;
    }
    drop(f);
    storage.rename(&tmp, &name)?;
    if sync {
        storage.sync_dir()?;
    }
    Ok(())
}

/// View `id`'s copy, if there is one.
///
/// # Errors
/// The storage's, but for a missing file.
pub(crate) fn read_file(storage: &dyn Storage, id: &str) -> Result<Option<Vec<u8>>> {
    match read_all(storage, &file_name(id)) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.code() == Code::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}
