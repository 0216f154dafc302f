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

use crate::lsm::internal_key::{row_prefix_len, KeyRef, KindRef};
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
#[cfg(test)]
pub fn resolve_row(
    entries: &[Entry],
    epochs: &BTreeMap<String, u64>,
) -> Result<Vec<(crate::model::row::Cell, u64)>> {
    let mut cells = Vec::new();
    resolve_entries(
        entries.iter().map(|(k, v)| (k.as_slice(), v.as_slice())),
        epochs,
        |c| {
            cells.push((
                crate::model::row::Cell {
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
    // holding an escaped zero byte). The family's UTF-8 is checked once, when it is entered.
    let mut family: Option<Cow<'e, str>> = None;
    let mut family_deleted = 0u64;
    let mut family_emitted = false;
    let mut column: Option<Cow<'e, [u8]>> = None;
    let mut column_deletes: Vec<(u64, u64, u64)> = Vec::new();
    let mut last_ts: Option<i64> = None;
    let mut version = 0usize;
    let mut row_part: &[u8] = &[];
    // The previous entry's key when it was a cell. A cell key ends in its 8-byte sequence,
    // and any 8 bytes decode, so a key equal to it but for those 8 bytes is an older write
    // of the same cell (or the same entry twice): hidden by it, and known to decode.
    let mut last_cell: &[u8] = &[];
    for (key, value) in entries {
        if let Some(cut) = last_cell.len().checked_sub(8) {
            if key.len() == last_cell.len() && key[..cut] == last_cell[..cut] {
                continue;
            }
        }
        last_cell = &[];
        // Every entry of a row shares its row part: measure it once. (An escaped row part
        // is never a prefix of another row's, so `starts_with` proves the same row.)
        if row_part.is_empty() || !key.starts_with(row_part) {
            let n = row_prefix_len(key)
                .ok_or_else(|| Error::new(Code::DataLoss, "internal key: bad row key escaping"))?;
            row_part = &key[..n];
        }
        let n = row_part.len();
        // The full parse names the first defect exactly as it always has.
        let k = KeyRef::parse_unchecked_family(key, n).or_else(|_| KeyRef::parse(key, n))?;
        let timestamp_micros = match k.kind {
            KindRef::DeleteRow => {
                row_deleted = row_deleted.max(k.sequence);
                continue;
            }
            KindRef::DeleteFamily { family: f } => {
                if !same_family(&family, &f) {
                    family_deleted = family_epoch(epochs, &f);
                    family = Some(family_name(f)?);
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
                )?;
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
                )?;
                last_cell = key;
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
            emit(VisibleCell {
                family: family.as_deref().unwrap_or_default(),
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

/// Whether the resolver is already in family `f`.
fn same_family(family: &Option<Cow<'_, str>>, f: &[u8]) -> bool {
    family.as_deref().map(str::as_bytes) == Some(f)
}

/// A family name as text, checked once per family the resolver enters.
fn family_name(f: Cow<'_, [u8]>) -> Result<Cow<'_, str>> {
    let bad = || Error::new(Code::DataLoss, "internal key: family name is not UTF-8");
    Ok(match f {
        Cow::Borrowed(b) => Cow::Borrowed(core::str::from_utf8(b).map_err(|_| bad())?),
        Cow::Owned(v) => Cow::Owned(String::from_utf8(v).map_err(|_| bad())?),
    })
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
///
/// # Errors
/// `DataLoss` if a family entered is not UTF-8.
#[allow(clippy::too_many_arguments)]
fn enter<'e>(
    family: &mut Option<Cow<'e, str>>,
    family_deleted: &mut u64,
    family_emitted: &mut bool,
    column: &mut Option<Cow<'e, [u8]>>,
    column_deletes: &mut Vec<(u64, u64, u64)>,
    last_ts: &mut Option<i64>,
    version: &mut usize,
    f: Cow<'e, [u8]>,
    qualifier: Cow<'e, [u8]>,
    epochs: &BTreeMap<String, u64>,
) -> Result<()> {
    if !same_family(family, &f) {
        *family_deleted = family_epoch(epochs, &f);
        *family = Some(family_name(f)?);
        *family_emitted = false;
        *column = None;
    }
    if column.as_deref() != Some(&*qualifier) {
        *column = Some(qualifier);
        column_deletes.clear();
        *last_ts = None;
        *version = 0;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsm::internal_key::{EntryKind, InternalKey};
    use alloc::string::ToString;

    fn cell(family: &str, qualifier: &[u8], ts: i64, sequence: u64, value: &[u8]) -> Entry {
        let key = InternalKey {
            row_key: b"r".to_vec(),
            sequence,
            kind: EntryKind::Cell {
                family: family.into(),
                qualifier: qualifier.to_vec(),
                timestamp_micros: ts,
            },
        };
        (key.encode(), value.to_vec())
    }

    #[test]
    fn older_writes_of_a_cell_are_hidden_and_deletes_between_them_still_count() {
        let mut entries = alloc::vec![
            cell("cf", b"a", 7, 3, b"new"),
            cell("cf", b"a", 7, 2, b"mid"),
            cell("cf", b"a", 7, 1, b"old"),
            cell("cf", b"a", 6, 1, b"six"),
            cell("cf", b"b", 7, 1, b"b7"),
            cell("meta", b"a", 7, 5, b"m"),
        ];
        // The same entry twice, as two runs sharing it after a split hold it.
        entries.push(entries[0].clone());
        let delete = InternalKey {
            row_key: b"r".to_vec(),
            sequence: 4,
            kind: EntryKind::DeleteColumn {
                family: "cf".into(),
                qualifier: b"b".to_vec(),
                start_micros: 0,
                end_micros: u64::MAX,
            },
        };
        entries.push((delete.encode(), Vec::new()));
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let cells = resolve_row(&entries, &BTreeMap::new()).unwrap();
        let seen: Vec<_> = cells
            .iter()
            .map(|(c, s)| {
                (
                    c.family.as_str(),
                    c.qualifier.as_slice(),
                    c.timestamp_micros,
                    c.value.as_slice(),
                    *s,
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                ("cf", &b"a"[..], 7, &b"new"[..], 3),
                ("cf", b"a", 6, b"six", 1),
                ("meta", b"a", 7, b"m", 5),
            ]
        );
    }

    #[test]
    fn a_family_name_that_is_not_utf8_is_reported_as_the_key_parser_reports_it() {
        let (mut key, value) = cell("cf", b"a", 7, 3, b"v");
        let at = key.windows(2).position(|w| w == b"cf").unwrap();
        key[at] = 0xff;
        key[at + 1] = 0xfe;
        let n = row_prefix_len(&key).unwrap();
        let expected = KeyRef::parse(&key, n).unwrap_err();
        // Behind a valid family too: the bad one is checked when entered.
        let good = cell("ab", b"a", 7, 1, b"x");
        for entries in [
            alloc::vec![(key.clone(), value.clone())],
            alloc::vec![good, (key, value)],
        ] {
            let err = resolve_row(&entries, &BTreeMap::new()).unwrap_err();
            assert_eq!(err.code(), Code::DataLoss);
            assert_eq!(err.to_string(), expected.to_string());
        }
    }
}
