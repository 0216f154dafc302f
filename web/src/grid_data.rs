//! The grid's data: the selected table's rows as read, kept up to date one row at a time.
//!
//! A full build reads the table once (on selecting a table, after a GC rule change or a bulk
//! load); a write or delete then re-reads only its row and splices it in
//! ([`GridData::upsert_row`]), so a write costs a binary search and one row read whatever the
//! table's size. Invariants: `rows` are sorted by key with no duplicates and no empty rows;
//! column ids index `columns`, are append-only (a column never changes id), and each row's
//! cells are sorted by column id; `families` lists every column id once, in display order
//! (families in creation order, qualifiers ascending).

use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

use sparsetable::Row;

extern crate alloc;

// A bulk load sends every row of the grid from the worker to the page, so a row's serde form
// uses one-letter names: they halve the size of a 100,000-row update.

/// The newest cell of one column of one row.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CellSummary {
    /// The newest value.
    #[serde(rename = "v", with = "crate::wire::bytes")]
    pub value: Vec<u8>,
    /// Its timestamp.
    #[serde(rename = "t")]
    pub timestamp_micros: i64,
    /// How many versions reads return for the column.
    #[serde(rename = "n")]
    pub versions: usize,
    /// How many of those versions the family's GC rule makes collectable ("eligible for
    /// GC"): always 0 in Immediate mode, where reads hide them; in Background mode they stay
    /// readable until a collection removes them, and the grid badges them.
    #[serde(rename = "e", default)]
    pub eligible: usize,
}

/// The columns of one family that hold (or held) cells, in display order.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FamilyColumns {
    /// The family.
    pub family: String,
    /// Column ids (indexes into [`GridData::columns`]), qualifiers ascending.
    pub columns: Vec<usize>,
}

/// One row of the grid.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GridRow {
    /// The row key.
    #[serde(rename = "k", with = "crate::wire::bytes")]
    pub key: Vec<u8>,
    /// `(column id, newest cell)`, sorted by column id.
    #[serde(rename = "c")]
    pub cells: Vec<(usize, CellSummary)>,
}

impl GridRow {
    /// The row's cell in a column, if it has one.
    pub fn cell(&self, column: usize) -> Option<&CellSummary> {
        self.cells
            .binary_search_by_key(&column, |(c, _)| *c)
            .ok()
            .map(|i| &self.cells[i].1)
    }
}

/// Rows re-read together: `(key, what a read of it returned)`, keys ascending, each once.
pub type RowBatch = Vec<(Vec<u8>, Option<Row>)>;

/// How a grid changed, for a copy of it kept elsewhere (the page's copy of the worker's
/// grid): replaying the change on the copy gives the same data.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub enum GridChange {
    /// Unchanged.
    #[default]
    None,
    /// Replaced whole by this: a snapshot shared with the grid it was taken from, not a copy
    /// of its rows (on the wire it is the grid itself).
    Replaced(Rc<GridData>),
    /// These batches of rows were re-read, oldest first ([`GridData::upsert_rows`]).
    Rows(Vec<RowBatch>),
    /// Replaced whole by the grid that travels beside the message, in binary
    /// (`crate::remote::encode_reply`).
    Attached,
}

impl GridChange {
    /// Whether the grid is unchanged.
    pub fn is_none(&self) -> bool {
        matches!(self, GridChange::None)
    }
}

/// The selected table laid out as a grid.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct GridData {
    /// Every column seen, by id: `(family, qualifier)`.
    pub columns: Vec<(String, Vec<u8>)>,
    /// The table's families in creation order (also those without cells) with their columns.
    pub families: Vec<FamilyColumns>,
    /// The rows, in key order.
    pub rows: Vec<GridRow>,
    /// What decides [`CellSummary::eligible`]: each family's GC rule (aligned with
    /// `families`) and the time they are judged at (the last full read's; a write moves the
    /// clock by a millisecond only, and moving the clock re-reads the grid whole).
    pub gc: GridGc,
}

/// The GC rules a grid judges eligibility by, and when.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct GridGc {
    /// Each family's rule, aligned with [`GridData::families`] (missing: keep everything).
    #[serde(with = "crate::wire::gc_rules")]
    pub rules: Vec<sparsetable::GcRule>,
    /// The clock's time.
    pub now_micros: i64,
}

impl GridData {
    /// An empty grid with the table's families.
    pub fn new(families: &[String]) -> Self {
        GridData {
            columns: Vec::new(),
            families: families
                .iter()
                .map(|f| FamilyColumns {
                    family: f.clone(),
                    columns: Vec::new(),
                })
                .collect(),
            rows: Vec::new(),
            gc: GridGc::default(),
        }
    }

    /// A grid of `rows` (in key order, as a read returns them).
    pub fn build(families: &[String], rows: impl IntoIterator<Item = Row>) -> Self {
        Self::build_with_gc(families, GridGc::default(), rows)
    }

    /// [`GridData::build`], counting the versions `gc` makes eligible for collection.
    pub fn build_with_gc(
        families: &[String],
        gc: GridGc,
        rows: impl IntoIterator<Item = Row>,
    ) -> Self {
        let mut grid = GridData::new(families);
        grid.gc = gc;
        for row in rows {
            let cells = grid.summarise(&row);
            if !cells.is_empty() {
                grid.rows.push(GridRow {
                    key: row.key,
                    cells,
                });
            }
        }
        grid
    }

    /// Every `(family, qualifier)` column, in display order.
    pub fn display_columns(&self) -> Vec<(&str, &[u8])> {
        self.families
            .iter()
            .flat_map(|f| f.columns.iter())
            .map(|&id| (self.columns[id].0.as_str(), self.columns[id].1.as_slice()))
            .collect()
    }

    /// Where a row key is (`Ok`) or would go (`Err`).
    pub fn position(&self, key: &[u8]) -> Result<usize, usize> {
        self.rows.binary_search_by(|r| r.key.as_slice().cmp(key))
    }

    /// Replaces one row with what a read of it returned (`None`: the row is gone).
    pub fn upsert_row(&mut self, key: &[u8], row: Option<Row>) {
        let cells = row.map(|r| self.summarise(&r)).unwrap_or_default();
        match (self.position(key), cells.is_empty()) {
            (Ok(i), true) => {
                self.rows.remove(i);
            }
            (Ok(i), false) => self.rows[i].cells = cells,
            (Err(_), true) => {}
            (Err(i), false) => self.rows.insert(
                i,
                GridRow {
                    key: key.to_vec(),
                    cells,
                },
            ),
        }
    }

    /// Replaces many rows at once: `updates` are `(key, what a read of it returned)` in
    /// ascending key order, each key once. One merge pass over the grid, so a batch of k rows
    /// costs O(n + k) moves rather than k inserts of O(n) each (a load generator tick writes
    /// hundreds of rows at random places in a table of 100,000).
    pub fn upsert_rows(&mut self, mut updates: RowBatch) {
        if updates.len() == 1 {
            // One row (a write): a binary search and one insert or removal.
            if let Some((key, row)) = updates.pop() {
                self.upsert_row(&key, row);
            }
            return;
        }
        let mut changed: Vec<GridRow> = Vec::with_capacity(updates.len());
        let mut gone: Vec<Vec<u8>> = Vec::new();
        for (key, row) in updates {
            let cells = row.map(|r| self.summarise(&r)).unwrap_or_default();
            if cells.is_empty() {
                gone.push(key);
            } else {
                changed.push(GridRow { key, cells });
            }
        }
        if changed.is_empty() && gone.is_empty() {
            return;
        }
        let old = core::mem::take(&mut self.rows);
        let mut merged = Vec::with_capacity(old.len() + changed.len());
        let mut changed = changed.into_iter().peekable();
        let mut gone = gone.iter().peekable();
        for row in old {
            while let Some(c) = changed.next_if(|c| c.key < row.key) {
                merged.push(c);
            }
            while gone
                .next_if(|g| g.as_slice() < row.key.as_slice())
                .is_some()
            {}
            if let Some(c) = changed.next_if(|c| c.key == row.key) {
                merged.push(c);
            } else if gone.next_if(|g| **g == row.key).is_none() {
                merged.push(row);
            }
        }
        merged.extend(changed);
        self.rows = merged;
    }

    /// The id of a column, added (in display order) if new.
    fn column_id(&mut self, family: &str, qualifier: &[u8]) -> usize {
        let at = match self.families.iter().position(|f| f.family == family) {
            Some(at) => at,
            None => {
                self.families.push(FamilyColumns {
                    family: family.into(),
                    columns: Vec::new(),
                });
                self.families.len() - 1
            }
        };
        let columns = &self.columns;
        let found = self.families[at]
            .columns
            .binary_search_by(|&id| columns[id].1.as_slice().cmp(qualifier));
        match found {
            Ok(i) => self.families[at].columns[i],
            Err(i) => {
                let id = self.columns.len();
                self.columns.push((family.into(), qualifier.to_vec()));
                self.families[at].columns.insert(i, id);
                id
            }
        }
    }

    /// A row's newest cell per column, sorted by column id.
    fn summarise(&mut self, row: &Row) -> Vec<(usize, CellSummary)> {
        let mut out: Vec<(usize, CellSummary)> = Vec::new();
        let mut last: Option<(&str, &[u8])> = None;
        for cell in &row.cells {
            let column = (cell.family.as_str(), cell.qualifier.as_slice());
            if last == Some(column) {
                // Cells come newest first within a column: later ones are older versions.
                if let Some((_, s)) = out.last_mut() {
                    if self.collectable(&cell.family, s.versions, cell.timestamp_micros) {
                        s.eligible += 1;
                    }
                    s.versions += 1;
                }
                continue;
            }
            last = Some(column);
            let id = self.column_id(column.0, column.1);
            out.push((
                id,
                CellSummary {
                    value: cell.value.clone(),
                    timestamp_micros: cell.timestamp_micros,
                    versions: 1,
                    eligible: usize::from(self.collectable(&cell.family, 0, cell.timestamp_micros)),
                },
            ));
        }
        out.sort_by_key(|(id, _)| *id);
        out
    }

    /// Whether the family's rule makes the `version`-th newest cell of a column (as reads
    /// return them, the index the engine's rules use) collectable now.
    fn collectable(&self, family: &str, version: usize, timestamp_micros: i64) -> bool {
        self.families
            .iter()
            .position(|f| f.family == family)
            .and_then(|i| self.gc.rules.get(i))
            .is_some_and(|r| r.is_collectable(version, timestamp_micros, self.gc.now_micros))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparsetable::Cell;

    fn row(key: &str, cells: &[(&str, &str, i64, &str)]) -> Row {
        Row {
            key: key.as_bytes().to_vec(),
            cells: cells
                .iter()
                .map(|(f, q, ts, v)| Cell {
                    family: (*f).into(),
                    qualifier: q.as_bytes().to_vec(),
                    timestamp_micros: *ts,
                    value: v.as_bytes().to_vec(),
                    labels: Vec::new(),
                })
                .collect(),
        }
    }

    #[test]
    fn upserts_keep_rows_sorted_and_columns_in_display_order() {
        let families = ["cf".to_string(), "meta".to_string()];
        let mut g = GridData::build(&families, [row("b", &[("cf", "z", 2, "1")])]);
        g.upsert_row(
            b"a",
            Some(row("a", &[("meta", "x", 1, "2"), ("cf", "a", 1, "3")])),
        );
        g.upsert_row(
            b"c",
            Some(row("c", &[("cf", "z", 5, "new"), ("cf", "z", 4, "old")])),
        );
        let keys: Vec<_> = g.rows.iter().map(|r| r.key.as_slice()).collect();
        assert_eq!(keys, [&b"a"[..], b"b", b"c"]);
        assert_eq!(
            g.display_columns(),
            [("cf", &b"a"[..]), ("cf", b"z"), ("meta", b"x")]
        );
        let z = g.families[0].columns[1];
        assert_eq!(g.rows[2].cell(z).unwrap().versions, 2);
        assert_eq!(g.rows[2].cell(z).unwrap().value, b"new");
        g.upsert_row(b"b", None);
        g.upsert_row(b"zz", None);
        let keys: Vec<_> = g.rows.iter().map(|r| r.key.as_slice()).collect();
        assert_eq!(keys, [&b"a"[..], b"c"]);
    }

    #[test]
    fn a_batch_upsert_equals_the_same_upserts_one_at_a_time() {
        let families = ["cf".to_string()];
        let base: Vec<Row> = (0..40)
            .step_by(2)
            .map(|i| row(&format!("k{i:02}"), &[("cf", "q", 1, "old")]))
            .collect();
        // Keys before, between, on and after the existing ones; updates, inserts, deletions
        // of present rows and of absent ones.
        let mut updates: Vec<(Vec<u8>, Option<Row>)> = Vec::new();
        for i in 0..45 {
            let key = format!("k{i:02}");
            let update = match i % 3 {
                0 => Some(row(&key, &[("cf", "q", 2, "new"), ("cf", "r", 2, "x")])),
                1 => None,
                _ => continue,
            };
            updates.push((key.into_bytes(), update));
        }
        updates.insert(
            0,
            (b"a".to_vec(), Some(row("a", &[("cf", "q", 3, "first")]))),
        );
        let mut one_by_one = GridData::build(&families, base.clone());
        for (key, update) in updates.clone() {
            one_by_one.upsert_row(&key, update);
        }
        let mut batched = GridData::build(&families, base);
        batched.upsert_rows(updates);
        assert_eq!(batched, one_by_one);
        let keys: Vec<_> = batched.rows.iter().map(|r| r.key.clone()).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(keys, sorted, "sorted, no duplicates");
        batched.upsert_rows(Vec::new());
        assert_eq!(batched, one_by_one);
    }
}
