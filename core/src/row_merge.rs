//! Resolving one row from its LSM entries: which cells the deletes leave visible.
//!
//! Input: every entry of one row from every source (memtable and runs), in internal-key
//! order (see `internal_key`): row deletes first, then per family its deletes, then per
//! column its deletes and its cells newest timestamp first, newest sequence first. Output: the
//! row's live cells in Bigtable order, before GC (GC is a view applied on top).
//!
//! Rules (a write's sequence number orders it against every other write):
//! - a cell is hidden by a DeleteFromRow with a higher sequence, by a DeleteFromFamily of its
//!   family with a higher sequence, by a DeleteFromColumn of its column with a higher
//!   sequence whose `[start, end)` holds its timestamp, and by a family drop (`epochs`:
//!   cells of a family written before the family was last dropped are gone);
//! - for one (column, timestamp) only the newest sequence counts: a SetCell at an existing
//!   timestamp replaces the cell.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use crate::internal_key::{EntryKind, InternalKey};
use crate::row::Cell;
use crate::Result;

/// One entry as a source yields it: encoded key and value.
pub type Entry = (Vec<u8>, Vec<u8>);

/// The visible cells of one row, each with the sequence number of the write that made it.
/// `entries` must be sorted by encoded key (duplicates of one key, as when two runs share an
/// entry after a split, are harmless).
///
/// # Errors
/// `DataLoss` if an entry's key does not decode.
pub fn resolve_row(entries: &[Entry], epochs: &BTreeMap<String, u64>) -> Result<Vec<(Cell, u64)>> {
    let mut cells = Vec::new();
    let mut row_deleted = 0u64;
    let mut family: Option<String> = None;
    let mut family_deleted = 0u64;
    let mut column: Option<Vec<u8>> = None;
    let mut column_deletes: Vec<(u64, u64, u64)> = Vec::new();
    let mut last_ts: Option<i64> = None;
    for (key, value) in entries {
        let k = InternalKey::decode(key)?;
        match k.kind {
            EntryKind::DeleteRow => row_deleted = row_deleted.max(k.sequence),
            EntryKind::DeleteFamily { family: f } => {
                if family.as_deref() != Some(&f) {
                    family_deleted = epochs.get(&f).copied().unwrap_or(0);
                    family = Some(f);
                    column = None;
                }
                family_deleted = family_deleted.max(k.sequence);
            }
            EntryKind::DeleteColumn {
                family: f,
                qualifier,
                start_micros,
                end_micros,
            } => {
                enter(
                    &mut family,
                    &mut family_deleted,
                    &mut column,
                    &mut column_deletes,
                    &mut last_ts,
                    f,
                    qualifier,
                    epochs,
                );
                column_deletes.push((k.sequence, start_micros, end_micros));
            }
            EntryKind::Cell {
                family: f,
                qualifier,
                timestamp_micros,
            } => {
                enter(
                    &mut family,
                    &mut family_deleted,
                    &mut column,
                    &mut column_deletes,
                    &mut last_ts,
                    f,
                    qualifier,
                    epochs,
                );
                if last_ts == Some(timestamp_micros) {
                    continue; // an older write of the same cell
                }
                last_ts = Some(timestamp_micros);
                let seq = k.sequence;
                let ts = timestamp_micros as u64;
                let deleted = seq <= row_deleted
                    || seq <= family_deleted
                    || column_deletes
                        .iter()
                        .any(|(dseq, start, end)| *dseq > seq && ts >= *start && ts < *end);
                if !deleted {
                    let cell = Cell {
                        family: family.clone().unwrap_or_default(),
                        qualifier: column.clone().unwrap_or_default(),
                        timestamp_micros,
                        value: value.clone(),
                        labels: Vec::new(),
                    };
                    cells.push((cell, seq));
                }
            }
        }
    }
    Ok(cells)
}

/// Moves the resolver's cursor to (family, qualifier), resetting per-family and per-column
/// state when either changes.
#[allow(clippy::too_many_arguments)]
fn enter(
    family: &mut Option<String>,
    family_deleted: &mut u64,
    column: &mut Option<Vec<u8>>,
    column_deletes: &mut Vec<(u64, u64, u64)>,
    last_ts: &mut Option<i64>,
    f: String,
    qualifier: Vec<u8>,
    epochs: &BTreeMap<String, u64>,
) {
    if family.as_deref() != Some(&f) {
        *family_deleted = epochs.get(&f).copied().unwrap_or(0);
        *family = Some(f);
        *column = None;
    }
    if column.as_deref() != Some(&qualifier) {
        *column = Some(qualifier);
        column_deletes.clear();
        *last_ts = None;
    }
}
