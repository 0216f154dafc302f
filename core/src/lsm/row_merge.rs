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
use smallvec::SmallVec;

use crate::lsm::internal_key::{row_prefix_len, KeyBuf, KeyRef, KindRef};
use crate::model::filter::ColumnSelection;
use crate::model::gc::GcRule;
use crate::model::schema::Families;
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

/// The resolver itself: walks one row's entries (sorted by encoded key) once and calls
/// `emit` for every visible cell in Bigtable order (GC not applied: see [`RowResolver`]).
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
    let mut r = RowResolver::new(epochs, None);
    for (key, value) in entries {
        r.feed(key, value, &mut emit)?;
    }
    Ok(())
}

/// What the resolver tells the merge feeding it after an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Feed {
    /// Go on with the next entry.
    Next,
    /// Every later entry of this entry's column is hidden (by GC, by older writes of a
    /// cell already seen, or by the read's column limit once this entry was emitted as the
    /// last cell it keeps), and so is this entry unless it was just emitted: the merge may
    /// seek to `internal_key::column_end` of its key.
    /// Feeding them anyway is harmless (they are ignored).
    SkipColumn,
    /// This entry and every later entry of the same cell (column and timestamp: older
    /// writes it replaced) are hidden: the merge may seek to `internal_key::cell_end` of
    /// its key. Feeding them anyway is harmless.
    SkipCell,
}

/// What entering a family looked up: its name (UTF-8 checked), drop epoch, and GC rule
/// if the rule can collect anything.
type Entered<'c> = (Cow<'c, str>, u64, Option<&'c GcRule>);

/// Resolves one row from its entries fed one at a time in encoded-key order, so the merge
/// feeding it can skip what it reports hidden instead of stepping through it.
///
/// With a column limit `n` ([`set_column_limit`](Self::set_column_limit): the read's filter
/// keeps only the newest `n` cells of each column, see `CompiledFilter::column_limit`), the
/// resolver stops a column once it has emitted `n` cells of it and reports
/// [`Feed::SkipColumn`] at the `n`-th: the rest of the column would be dropped by the
/// filter, so the merge seeks past it. Only emitted cells count: deleted and GC-collectable ones
/// never reach `emit`, so a column whose newest entries are hidden is read on until `n`
/// visible cells are found or the column ends, exactly as without the limit.
///
/// With a column selection `s` ([`set_columns`](Self::set_columns): the read's filter keeps
/// and looks at nothing outside the columns `s` accepts, see
/// `CompiledFilter::column_selection`), the cells of any other column are never emitted
/// (never built by the reader): once the resolver has found such a column's first visible
/// cell it reports [`Feed::SkipColumn`] at the column's next entry and counts the column
/// ([`unselected`](Self::unselected)): a reader that must know whether the row exists
/// (SQL's reads) needs no more of it, and the count is what the read examined of it. Deleted and GC-collectable cells of the column are
/// walked past as in any column, so that is exact.
///
/// With a GC view (the table's families and the time), cells a family's GC rule collects
/// are not emitted, and the resolver reports [`Feed::SkipColumn`] at the first cell entry
/// from which every later entry of the column is provably hidden. Why that point is safe
/// for every rule: a cell is collectable as a function of its version (its index among the
/// column's visible cells, newest first) and its timestamp, and that function is monotone
/// (`MaxNumVersions` in the version, `MaxAge` in the age, and `Intersection`/`Union` are
/// `and`/`or` of monotone predicates). Later entries of a column have timestamps at or
/// below the current one and, if visible, versions at or above the next version; so when
/// a visible cell at the next version with the current timestamp would be collectable,
/// every later one is too, and deleted ones are hidden anyway. Column deletes sort before
/// the column's cells, so nothing skipped can change another column. Filters apply after
/// GC, to the emitted cells only.
///
/// REQUIRES: [`reset`](Self::reset) between rows. The resolver owns the family and column
/// it is in (copied once per family or column), so fed entries need only live for the call.
/// Its buffers are inline for short names and keys: a point read makes a resolver per row,
/// and three allocations of its own were a fifth of a point read's allocations.
pub(crate) struct RowResolver<'c> {
    epochs: &'c BTreeMap<String, u64>,
    /// The families' GC rules and the time they are evaluated at; `None`: no GC.
    gc: Option<(&'c Families, i64)>,
    /// The length of the row part of the row's keys (0: not measured yet).
    row_part: usize,
    row_deleted: u64,
    /// What entering each family of the rows resolved so far looked up, by the family's
    /// place in its row: (name, UTF-8 checked; drop epoch; GC rule if it can collect
    /// anything). Rows of a table mostly hold the same families, so a row's n-th family is
    /// compared with the n-th entry here first, which spares the UTF-8 check and the two
    /// lookups (about 7% of a full scan's instructions went to them).
    recent: SmallVec<[Entered<'c>; 2]>,
    /// How many families the current row has entered.
    entered: usize,
    /// The family the resolver is in: an index into `recent` (valid when `in_family`).
    family: usize,
    in_family: bool,
    family_deleted: u64,
    family_emitted: bool,
    /// The family's GC rule, if it can collect anything.
    rule: Option<&'c GcRule>,
    column: KeyBuf,
    in_column: bool,
    column_deletes: Vec<(u64, u64, u64)>,
    /// Every later entry of the column is hidden.
    column_done: bool,
    last_ts: Option<i64>,
    version: usize,
    /// Emit at most this many cells per column (`usize::MAX`: no limit); kept across rows.
    column_limit: usize,
    /// The columns to emit cells of (`None`: all); kept across rows.
    columns: Option<ColumnSelection<'c>>,
    /// The current column is not selected: its first visible cell ends it, unemitted.
    column_unselected: bool,
    /// How many columns of the row that are not selected hold a visible cell.
    unselected: usize,
    /// The previous entry's key when it was a cell. A cell key ends in its 8-byte sequence,
    /// and any 8 bytes decode, so a key equal to it but for those 8 bytes is an older write
    /// of the same cell (or the same entry twice): hidden by it, and known to decode.
    last_cell: SmallVec<[u8; 64]>,
}

impl<'c> RowResolver<'c> {
    /// A resolver applying family drops (`epochs`) and, with `gc`, the families' GC rules
    /// at the given time.
    pub(crate) fn new(epochs: &'c BTreeMap<String, u64>, gc: Option<(&'c Families, i64)>) -> Self {
        RowResolver {
            epochs,
            gc,
            row_part: 0,
            row_deleted: 0,
            recent: SmallVec::new(),
            entered: 0,
            family: 0,
            in_family: false,
            family_deleted: 0,
            family_emitted: false,
            rule: None,
            column: KeyBuf::new(),
            in_column: false,
            column_deletes: Vec::new(),
            column_done: false,
            last_ts: None,
            version: 0,
            column_limit: usize::MAX,
            columns: None,
            column_unselected: false,
            unselected: 0,
            last_cell: SmallVec::new(),
        }
    }

    /// Emits at most `limit` cells of each column from now on (`None`: every visible cell).
    /// REQUIRES: the reader drops every cell of a column past its `limit`-th anyway (see
    /// `CompiledFilter::column_limit`), so not emitting them changes nothing it returns.
    /// A limit of 0 is treated as 1 (no filter keeps zero cells per column).
    pub(crate) fn set_column_limit(&mut self, limit: Option<usize>) {
        self.column_limit = limit.map_or(usize::MAX, |n| n.max(1));
    }

    /// Emits cells of the columns `columns` accepts only (`None`: of every column).
    /// REQUIRES: the reader's filter returns the same without the other columns' cells
    /// (see `CompiledFilter::column_selection`).
    pub(crate) fn set_columns(&mut self, columns: Option<ColumnSelection<'c>>) {
        self.columns = columns;
    }

    /// How many columns of the row (since the last [`reset`](Self::reset)) that the
    /// selection left out hold a visible cell (none of them emitted, one cell of each
    /// examined): with the cells emitted, whether the row holds any visible cell at all.
    pub(crate) fn unselected(&self) -> usize {
        self.unselected
    }

    /// Starts a new row.
    pub(crate) fn reset(&mut self) {
        self.row_part = 0;
        self.unselected = 0;
        self.row_deleted = 0;
        self.entered = 0;
        self.in_family = false;
        self.in_column = false;
        self.column_deletes.clear();
        self.column_done = false;
        self.last_ts = None;
        self.version = 0;
        self.last_cell.clear();
    }

    /// Takes the row's next entry (in encoded-key order; duplicates of one key, as when two
    /// runs share an entry after a split, are harmless) and calls `emit` if it is a visible
    /// cell.
    ///
    /// # Errors
    /// `DataLoss` if the key does not decode; the row must then be dropped whole.
    pub(crate) fn feed<F>(&mut self, key: &[u8], value: &[u8], emit: &mut F) -> Result<Feed>
    where
        F: FnMut(VisibleCell<'_>),
    {
        if let Some(cut) = self.last_cell.len().checked_sub(8) {
            if key.len() == self.last_cell.len() && key[..cut] == self.last_cell[..cut] {
                // Every later entry of the column has an older timestamp and, if visible,
                // at least the next version: when a cell there would be collectable, the
                // rest of the column is hidden; else only the rest of this cell's writes.
                let rest_hidden = self.column_done
                    || match (self.gc, self.rule, self.last_ts) {
                        (Some((_, now)), Some(r), Some(ts)) => {
                            r.is_collectable(self.version, ts, now)
                        }
                        _ => false,
                    };
                if rest_hidden {
                    self.column_done = true;
                    return Ok(Feed::SkipColumn);
                }
                return Ok(Feed::SkipCell);
            }
        }
        self.last_cell.clear();
        // Every entry of a row shares its row part (REQUIRES: one row between resets):
        // measure it once, without copying it.
        if self.row_part == 0 {
            self.row_part = row_prefix_len(key)
                .ok_or_else(|| Error::new(Code::DataLoss, "internal key: bad row key escaping"))?;
        }
        let n = self.row_part;
        // The full parse names the first defect exactly as it always has.
        let k = KeyRef::parse_unchecked_family(key, n).or_else(|_| KeyRef::parse(key, n))?;
        let timestamp_micros = match k.kind {
            KindRef::DeleteRow => {
                self.row_deleted = self.row_deleted.max(k.sequence);
                return Ok(Feed::Next);
            }
            KindRef::DeleteFamily { family: f } => {
                if !self.same_family(&f) {
                    self.enter_family(&f)?;
                }
                self.family_deleted = self.family_deleted.max(k.sequence);
                return Ok(Feed::Next);
            }
            KindRef::DeleteColumn {
                family: f,
                qualifier,
                start_micros,
                end_micros,
            } => {
                self.enter(&f, &qualifier)?;
                self.column_deletes
                    .push((k.sequence, start_micros, end_micros));
                return Ok(Feed::Next);
            }
            KindRef::Cell {
                family: f,
                qualifier,
                timestamp_micros,
            } => {
                self.enter(&f, &qualifier)?;
                if self.column_done {
                    return Ok(Feed::SkipColumn);
                }
                self.last_cell.extend_from_slice(key);
                timestamp_micros
            }
        };
        if self.last_ts == Some(timestamp_micros) {
            // An older write of the same cell.
            return Ok(Feed::Next);
        }
        if let Some((_, now)) = self.gc {
            if self
                .rule
                .is_some_and(|r| r.is_collectable(self.version, timestamp_micros, now))
            {
                // This cell, if visible, is collectable, and so is every later one (see
                // the type's docs).
                self.column_done = true;
                return Ok(Feed::SkipColumn);
            }
        }
        self.last_ts = Some(timestamp_micros);
        let seq = k.sequence;
        let ts = timestamp_micros as u64;
        let deleted = seq <= self.row_deleted
            || seq <= self.family_deleted
            || self
                .column_deletes
                .iter()
                .any(|(dseq, start, end)| *dseq > seq && ts >= *start && ts < *end);
        if !deleted && self.column_unselected {
            // The row exists; nothing else of the column matters to the reader. The skip is
            // reported at the column's next entry, if it has one (`column_done`): most
            // columns hold one version, and a seek target built and compared per cursor for
            // each of them cost about what building the cell would have.
            self.unselected += 1;
            self.column_done = true;
            return Ok(Feed::Next);
        }
        if !deleted {
            emit(VisibleCell {
                family: &self.recent[self.family].0,
                qualifier: &self.column,
                timestamp_micros,
                value,
                sequence: seq,
                version: self.version,
                new_family: !self.family_emitted,
            });
            self.family_emitted = true;
            self.version += 1;
            if self.version >= self.column_limit {
                // The read keeps no more of this column: every later entry of it, older
                // writes of this cell included, may be sought past. (Reported here rather
                // than at the column's next entry, which would cost every skip one more
                // entry parsed; a column with no further entry pays a seek target built
                // inline and one comparison per cursor.)
                self.column_done = true;
                return Ok(Feed::SkipColumn);
            }
        }
        Ok(Feed::Next)
    }

    /// Whether the resolver is already in family `f`.
    fn same_family(&self, f: &[u8]) -> bool {
        self.in_family && self.recent[self.family].0.as_bytes() == f
    }

    /// Enters family `f`: its name checked as text, its drop epoch and GC rule looked up.
    ///
    /// # Errors
    /// `DataLoss` if the name is not UTF-8.
    fn enter_family(&mut self, f: &[u8]) -> Result<()> {
        let at = self.entered;
        if self
            .recent
            .get(at)
            .is_none_or(|(name, _, _)| name.as_bytes() != f)
        {
            let name = core::str::from_utf8(f).map_err(|_| {
                Error::new(Code::DataLoss, "internal key: family name is not UTF-8")
            })?;
            let found = self
                .gc
                .and_then(|(families, _)| families.get_key_value(name));
            let rule = found.map(|(_, f)| &f.gc_rule).filter(|r| !r.is_never());
            // The schema's copy of the name lives as long as the resolver: no allocation.
            let name = match found {
                Some((stored, _)) => Cow::Borrowed(stored),
                None => Cow::Owned(name.into()),
            };
            let epoch = family_epoch(self.epochs, &name);
            // The entries past `at` belonged to earlier rows' later families.
            self.recent.truncate(at);
            self.recent.push((name, epoch, rule));
        }
        self.entered = at + 1;
        let (_, epoch, rule) = &self.recent[at];
        let (epoch, rule) = (*epoch, *rule);
        self.family = at;
        self.in_family = true;
        self.family_deleted = epoch;
        self.family_emitted = false;
        self.rule = rule;
        self.in_column = false;
        Ok(())
    }

    /// Moves the resolver to (family, qualifier), resetting per-family and per-column
    /// state when either changes.
    ///
    /// # Errors
    /// `DataLoss` if a family entered is not UTF-8.
    fn enter(&mut self, f: &[u8], qualifier: &[u8]) -> Result<()> {
        if !self.same_family(f) {
            self.enter_family(f)?;
        }
        if !self.in_column || self.column.as_slice() != qualifier {
            self.column.clear();
            self.column.extend_from_slice(qualifier);
            self.in_column = true;
            self.column_deletes.clear();
            self.column_done = false;
            self.last_ts = None;
            self.version = 0;
            self.column_unselected = self
                .columns
                .is_some_and(|s| !s.keeps(&self.recent[self.family].0, qualifier));
        }
        Ok(())
    }
}

/// Writes at or below this sequence were dropped with the family.
fn family_epoch(epochs: &BTreeMap<String, u64>, family: &str) -> u64 {
    if epochs.is_empty() {
        return 0;
    }
    epochs.get(family).copied().unwrap_or(0)
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
    fn a_column_left_out_emits_nothing_counts_once_if_visible_and_is_skipped_after() {
        let filter = crate::model::filter::RowFilter::ColumnQualifierRegex(b"b".to_vec())
            .compile()
            .unwrap();
        let delete = |q: &[u8], sequence| {
            let key = InternalKey {
                row_key: b"r".to_vec(),
                sequence,
                kind: EntryKind::DeleteColumn {
                    family: "cf".into(),
                    qualifier: q.to_vec(),
                    start_micros: 0,
                    end_micros: u64::MAX,
                },
            };
            (key.encode(), Vec::new())
        };
        let mut entries = alloc::vec![
            // Left out, visible: counted once, its older version sought past.
            cell("cf", b"a", 7, 1, b"a7"),
            cell("cf", b"a", 6, 1, b"a6"),
            // Selected.
            cell("cf", b"b", 7, 1, b"b7"),
            // Left out, every cell deleted: not counted.
            cell("cf", b"c", 7, 1, b"c7"),
            delete(b"c", 2),
            // Left out, newest deleted, older visible: counted.
            cell("cf", b"d", 9, 3, b"d9"),
            delete(b"d", 4),
            cell("cf", b"d", 8, 5, b"d8"),
        ];
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let epochs = BTreeMap::new();
        let mut r = RowResolver::new(&epochs, None);
        r.set_columns(filter.column_selection());
        let mut emitted = Vec::new();
        let mut feeds = Vec::new();
        for (k, v) in &entries {
            let feed = r
                .feed(k, v, &mut |c| emitted.push(c.value.to_vec()))
                .unwrap();
            feeds.push(feed);
        }
        assert_eq!(emitted, [b"b7".to_vec()]);
        assert_eq!(r.unselected(), 2);
        // The first entry of `a` is its visible cell; the skip comes at its second.
        assert_eq!(feeds[..2], [Feed::Next, Feed::SkipColumn]);
        r.reset();
        assert_eq!(r.unselected(), 0);
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
