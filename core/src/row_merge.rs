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

use alloc::borrow::Cow;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use crate::internal_key::{row_prefix_len, KeyRef, KindRef};
use crate::row::Cell;
use crate::{Code, Error, Result};

/// One entry as a source yields it: encoded key and value.
pub type Entry = (Vec<u8>, Vec<u8>);

/// A visible cell as the resolver reports it, borrowing from the entries.
#[derive(Debug, Clone, Copy)]
pub(crate) struct VisibleCell<'a> {
    /// The family's name.
    pub(crate) family: &'a str,
    /// The qualifier.
    pub(crate) qualifier: &'a [u8],
    /// The timestamp.
    pub(crate) timestamp_micros: i64,
    /// The value.
    pub(crate) value: &'a [u8],
    /// The sequence number of the write that made the cell.
    pub(crate) sequence: u64,
    /// How many visible cells of the same column came before this one (newest first): the
    /// version GC rules count.
    pub(crate) version: usize,
    /// Whether this cell starts a family (the first visible cell of its family).
    pub(crate) new_family: bool,
}

/// The visible cells of one row, each with the sequence number of the write that made it.
/// `entries` must be sorted by encoded key (duplicates of one key, as when two runs share an
/// entry after a split, are harmless).
///
/// # Errors
/// `DataLoss` if an entry's key does not decode.
pub fn resolve_row(entries: &[Entry], epochs: &BTreeMap<String, u64>) -> Result<Vec<(Cell, u64)>> {
    let mut cells = Vec::new();
    resolve_entries(
        entries.iter().map(|(k, v)| (k.as_slice(), v.as_slice())),
        epochs,
        |c| {
            cells.push((
                Cell {
                    family: c.family.into(),
                    qualifier: c.qualifier.to_vec(),
                    timestamp_micros: c.timestamp_micros,
                    value: c.value.to_vec(),
                    labels: Vec::new(),
                },
                c.sequence,
            ))
        },
    )?;
    Ok(cells)
}

/// The resolver itself: walks one row's entries (sorted by encoded key) once, decoding each
/// key as a borrowed view, and calls `emit` for every visible cell in Bigtable order.
///
/// # Errors
/// `DataLoss` if an entry's key does not decode; cells already emitted stay emitted, so
/// callers that must not show a half row drop what they gathered.
pub(crate) fn resolve_entries<'e, I, F>(
    entries: I,
    epochs: &BTreeMap<String, u64>,
    mut emit: F,
) -> Result<()>
where
    I: IntoIterator<Item = (&'e [u8], &'e [u8])>,
    F: FnMut(VisibleCell<'_>),
{
    let mut row_deleted = 0u64;
    // The family and column the cursor is in, borrowed from the keys (owned only for names
    // holding an escaped zero byte).
    let mut family: Option<Cow<'e, [u8]>> = None;
    let mut family_deleted = 0u64;
    let mut family_emitted = false;
    let mut column: Option<Cow<'e, [u8]>> = None;
    let mut column_deletes: Vec<(u64, u64, u64)> = Vec::new();
    let mut last_ts: Option<i64> = None;
    let mut version = 0usize;
    let mut row_part: &[u8] = &[];
    for (key, value) in entries {
        // Every entry of a row shares its row part: measure it once. (An escaped row part
        // is never a prefix of another row's, so `starts_with` proves the same row.)
        if row_part.is_empty() || !key.starts_with(row_part) {
            let n = row_prefix_len(key)
                .ok_or_else(|| Error::new(Code::DataLoss, "internal key: bad row key escaping"))?;
            row_part = &key[..n];
        }
        let n = row_part.len();
        let k = KeyRef::parse(key, n)?;
        let timestamp_micros = match k.kind {
            KindRef::DeleteRow => {
                row_deleted = row_deleted.max(k.sequence);
                continue;
            }
            KindRef::DeleteFamily { family: f } => {
                if family.as_deref() != Some(&*f) {
                    family_deleted = family_epoch(epochs, &f);
                    family = Some(f);
                    family_emitted = false;
                    column = None;
                }
                family_deleted = family_deleted.max(k.sequence);
                continue;
            }
            KindRef::DeleteColumn {
                family: f,
                qualifier,
                start_micros,
                end_micros,
            } => {
                enter(
                    &mut family,
                    &mut family_deleted,
                    &mut family_emitted,
                    &mut column,
                    &mut column_deletes,
                    &mut last_ts,
                    &mut version,
                    f,
                    qualifier,
                    epochs,
                );
                column_deletes.push((k.sequence, start_micros, end_micros));
                continue;
            }
            KindRef::Cell {
                family: f,
                qualifier,
                timestamp_micros,
            } => {
                enter(
                    &mut family,
                    &mut family_deleted,
                    &mut family_emitted,
                    &mut column,
                    &mut column_deletes,
                    &mut last_ts,
                    &mut version,
                    f,
                    qualifier,
                    epochs,
                );
                timestamp_micros
            }
        };
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
            // The family name was checked as UTF-8 when its key was parsed.
            let fam = family.as_deref().unwrap_or_default();
            emit(VisibleCell {
                family: core::str::from_utf8(fam).unwrap_or_default(),
                qualifier: column.as_deref().unwrap_or_default(),
                timestamp_micros,
                value,
                sequence: seq,
                version,
                new_family: !family_emitted,
            });
            family_emitted = true;
            version += 1;
        }
    }
    Ok(())
}

/// Writes at or below this sequence were dropped with the family.
fn family_epoch(epochs: &BTreeMap<String, u64>, family: &[u8]) -> u64 {
    if epochs.is_empty() {
        return 0;
    }
    core::str::from_utf8(family)
        .ok()
        .and_then(|f| epochs.get(f))
        .copied()
        .unwrap_or(0)
}

/// Moves the resolver's cursor to (family, qualifier), resetting per-family and per-column
/// state when either changes.
#[allow(clippy::too_many_arguments)]
fn enter<'e>(
    family: &mut Option<Cow<'e, [u8]>>,
    family_deleted: &mut u64,
    family_emitted: &mut bool,
    column: &mut Option<Cow<'e, [u8]>>,
    column_deletes: &mut Vec<(u64, u64, u64)>,
    last_ts: &mut Option<i64>,
    version: &mut usize,
    f: Cow<'e, [u8]>,
    qualifier: Cow<'e, [u8]>,
    epochs: &BTreeMap<String, u64>,
) {
    if family.as_deref() != Some(&*f) {
        *family_deleted = family_epoch(epochs, &f);
        *family = Some(f);
        *family_emitted = false;
        *column = None;
    }
    if column.as_deref() != Some(&*qualifier) {
        *column = Some(qualifier);
        column_deletes.clear();
        *last_ts = None;
        *version = 0;
    }
}
