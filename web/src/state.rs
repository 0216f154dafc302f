//! The playground's state and its reducer: everything the UI shows, derived from the engine.
//!
//! Pure Rust with no browser dependency, so the reducer is unit-tested natively
//! (`cargo test -p sparsetable-web`). The UI dispatches an [`Action`]; [`Playground::apply`]
//! runs it against the engine and refreshes the derived views (table list, grid, clock).
//!
//! Invariants:
//! - the engine runs on a [`ManualClock`]: a write uses the clock's time (SetCell with
//!   timestamp -1, "server time") and then moves the clock forward one millisecond, so
//!   successive writes get distinct timestamps and show up as versions; the time control
//!   moves it further;
//! - an engine error never panics or changes the views: it is stored in
//!   [`Playground::error`] and shown inline until the next action.

use alloc::rc::Rc;
use alloc::sync::Arc;
use core::cell::RefCell;

use sparsetable::{
    ColumnFamily, Database, GcRule, ManualClock, Mutation, ReadRowsRequest, TableConfig,
};

extern crate alloc;

/// How far one write moves the clock: one millisecond, the finest step a MILLIS table keeps.
pub const WRITE_TICK_MICROS: i64 = 1000;

/// The page's views, one tab each. The Data view is the grid and the write form; other views
/// mount beside it (the lab's views add their variants here and their components under
/// `components/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum View {
    /// Tables, the grid, the versions drawer and the write form.
    #[default]
    Data,
    /// The query panel: row set, filter builder, explain, code.
    Query,
    /// Keep and share: export, import, share link.
    Session,
}

impl View {
    /// Every view in tab order.
    pub const ALL: [View; 3] = [View::Data, View::Query, View::Session];

    /// The tab's label (also its `data-testid` suffix, lower-cased).
    pub fn label(self) -> &'static str {
        match self {
            View::Data => "Data",
            View::Query => "Query",
            View::Session => "Session",
        }
    }
}

/// Something a person did in the playground.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Shows another view of the page.
    ShowView(View),
    /// Creates a table with comma-separated families, each keeping `max_versions` versions
    /// (empty: all), and selects it.
    CreateTable {
        /// The table id.
        table_id: String,
        /// Family names, separated by commas.
        families: String,
        /// Versions each family keeps; empty keeps all.
        max_versions: String,
    },
    /// Shows another table.
    SelectTable(String),
    /// Writes one cell of the selected table at the clock's time.
    WriteCell {
        /// The row key (UTF-8).
        row_key: String,
        /// The column family.
        family: String,
        /// The column qualifier (UTF-8).
        qualifier: String,
        /// The value (UTF-8).
        value: String,
    },
    /// Deletes a row of the selected table.
    DeleteRow(Vec<u8>),
    /// Moves the clock (negative moves it back).
    AdvanceClock(i64),
    /// Hides the error.
    DismissError,
}

/// An engine (or form) error as the UI shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShownError {
    /// The gRPC code name, e.g. `NOT_FOUND`.
    pub code: String,
    /// The message.
    pub message: String,
}

/// A table in the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSummary {
    /// The table id.
    pub name: String,
    /// Its families in creation order (the order reads return a row's families in).
    pub families: Vec<String>,
}

/// The newest cell of one column of one row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellSummary {
    /// The newest value.
    pub value: Vec<u8>,
    /// Its timestamp.
    pub timestamp_micros: i64,
    /// How many versions the column holds (after GC).
    pub versions: usize,
}

/// The columns of one family that hold cells, qualifiers ascending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FamilyColumns {
    /// The family.
    pub family: String,
    /// Its qualifiers with cells, ascending.
    pub qualifiers: Vec<Vec<u8>>,
}

/// One row of the grid: a summary per column, aligned with [`Grid::columns`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GridRow {
    /// The row key.
    pub key: Vec<u8>,
    /// One entry per column; `None` where the row has no cell.
    pub cells: Vec<Option<CellSummary>>,
}

/// The selected table as a grid: rows in key order, columns grouped by family.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Grid {
    /// Every family of the table (also those without cells), in creation order.
    pub families: Vec<FamilyColumns>,
    /// The rows, in key order.
    pub rows: Vec<GridRow>,
}

impl Grid {
    /// Every `(family, qualifier)` column, in display order.
    pub fn columns(&self) -> Vec<(&str, &[u8])> {
        self.families
            .iter()
            .flat_map(|f| {
                f.qualifiers
                    .iter()
                    .map(move |q| (f.family.as_str(), q.as_slice()))
            })
            .collect()
    }
}

/// The playground: an engine on a manual clock plus the views the UI renders.
#[derive(Clone)]
pub struct Playground {
    // Shared, not cloned: a Yew reducer returns a new state value per action, and every one
    // of them stands for the same database.
    db: Rc<RefCell<Database>>,
    clock: Arc<ManualClock>,
    /// The time the engine sees.
    pub now_micros: i64,
    /// Every table.
    pub tables: Vec<TableSummary>,
    /// The table shown.
    pub selected: Option<String>,
    /// The view shown.
    pub view: View,
    /// The selected table's rows.
    pub grid: Grid,
    /// The last action's error, if it failed.
    pub error: Option<ShownError>,
}

impl core::fmt::Debug for Playground {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Playground")
            .field("now_micros", &self.now_micros)
            .field("selected", &self.selected)
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl PartialEq for Playground {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.db, &other.db)
            && self.now_micros == other.now_micros
            && self.tables == other.tables
            && self.selected == other.selected
            && self.view == other.view
            && self.grid == other.grid
            && self.error == other.error
    }
}

impl Playground {
    /// An empty playground whose clock starts at `start_micros`.
    pub fn new(start_micros: i64) -> Self {
        let clock = Arc::new(ManualClock::new(start_micros));
        let db = Database::with_clock(clock.clone());
        let mut p = Playground {
            db: Rc::new(RefCell::new(db)),
            clock,
            now_micros: start_micros,
            tables: Vec::new(),
            selected: None,
            view: View::Data,
            grid: Grid::default(),
            error: None,
        };
        p.refresh();
        p
    }

    /// The selected table's families, in creation order.
    pub fn selected_families(&self) -> &[String] {
        self.selected
            .as_ref()
            .and_then(|s| self.tables.iter().find(|t| &t.name == s))
            .map_or(&[], |t| t.families.as_slice())
    }

    /// Runs one action: on success the views show the new data, on failure they stay as they
    /// were and [`Playground::error`] says why.
    pub fn apply(&mut self, action: Action) {
        self.error = None;
        let result = match action {
            Action::CreateTable {
                table_id,
                families,
                max_versions,
            } => self.create_table(table_id.trim(), &families, max_versions.trim()),
            Action::ShowView(view) => {
                self.view = view;
                Ok(())
            }
            Action::SelectTable(name) => {
                self.selected = Some(name);
                Ok(())
            }
            Action::WriteCell {
                row_key,
                family,
                qualifier,
                value,
            } => self.write_cell(row_key, family, qualifier, value),
            Action::DeleteRow(key) => self
                .with_selected(|db, table| db.mutate_row(table, &key, &[Mutation::DeleteFromRow])),
            Action::AdvanceClock(micros) => {
                self.clock.advance_micros(micros);
                Ok(())
            }
            Action::DismissError => Ok(()),
        };
        if let Err(e) = result {
            self.error = Some(e);
        }
        self.refresh();
    }

    fn create_table(
        &mut self,
        table_id: &str,
        families: &str,
        max_versions: &str,
    ) -> Result<(), ShownError> {
        let gc_rule = if max_versions.is_empty() {
            GcRule::Never
        } else {
            // The form's own parsing; the engine still judges the number (0 is its error).
            let n = max_versions.parse::<u32>().map_err(|_| ShownError {
                code: "INVALID_ARGUMENT".into(),
                message: format!("keep versions: {max_versions:?} is not a whole number"),
            })?;
            GcRule::MaxNumVersions(n)
        };
        let family = ColumnFamily {
            gc_rule,
            ..ColumnFamily::default()
        };
        let config = TableConfig {
            families: families
                .split(',')
                .map(str::trim)
                .filter(|f| !f.is_empty())
                .map(|f| (f.to_string(), family.clone()))
                .collect(),
            ..TableConfig::default()
        };
        self.db
            .borrow_mut()
            .create_table(table_id, config)
            .map_err(shown)?;
        self.selected = Some(table_id.to_string());
        Ok(())
    }

    fn write_cell(
        &mut self,
        row_key: String,
        family: String,
        qualifier: String,
        value: String,
    ) -> Result<(), ShownError> {
        // -1 is Bigtable's "server time": the engine stamps the cell with its clock.
        let mutation = Mutation::set_cell(family, qualifier.into_bytes(), -1, value.into_bytes());
        self.with_selected(|db, table| db.mutate_row(table, row_key.as_bytes(), &[mutation]))?;
        self.clock.advance_micros(WRITE_TICK_MICROS);
        Ok(())
    }

    fn with_selected(
        &mut self,
        f: impl FnOnce(&mut Database, &str) -> sparsetable::Result<()>,
    ) -> Result<(), ShownError> {
        let table = self.selected.clone().ok_or_else(|| ShownError {
            code: "FAILED_PRECONDITION".into(),
            message: "create a table first".into(),
        })?;
        f(&mut self.db.borrow_mut(), &table).map_err(shown)
    }

    /// Recomputes the views from the engine.
    fn refresh(&mut self) {
        let db = self.db.borrow();
        self.now_micros = db.now_micros();
        self.tables = db
            .list_tables()
            .into_iter()
            .map(|t| TableSummary {
                families: t.config.families.keys().cloned().collect(),
                name: t.name,
            })
            .collect();
        if let Some(s) = &self.selected {
            if !self.tables.iter().any(|t| &t.name == s) {
                self.selected = None;
            }
        }
        if self.selected.is_none() {
            self.selected = self.tables.first().map(|t| t.name.clone());
        }
        self.grid = match &self.selected {
            Some(table) => build_grid(&db, table, self.selected_families()).unwrap_or_default(),
            None => Grid::default(),
        };
    }
}

fn shown(e: sparsetable::Error) -> ShownError {
    ShownError {
        code: e.code().as_str().to_string(),
        message: e.message().to_string(),
    }
}

/// Reads every row of `table` and lays it out by family and qualifier.
fn build_grid(db: &Database, table: &str, families: &[String]) -> sparsetable::Result<Grid> {
    let rows: Vec<_> = db.read_rows(table, &ReadRowsRequest::default())?.collect();
    // Family columns in the table's creation order, as rows list them; qualifiers sorted.
    let mut columns: Vec<(&str, alloc::collections::BTreeSet<&[u8]>)> = families
        .iter()
        .map(|f| (f.as_str(), Default::default()))
        .collect();
    for row in &rows {
        for cell in &row.cells {
            let at = match columns.iter().position(|(f, _)| *f == cell.family) {
                Some(at) => at,
                None => {
                    columns.push((cell.family.as_str(), Default::default()));
                    columns.len() - 1
                }
            };
            columns[at].1.insert(cell.qualifier.as_slice());
        }
    }
    let families: Vec<FamilyColumns> = columns
        .into_iter()
        .map(|(family, qualifiers)| FamilyColumns {
            family: family.to_string(),
            qualifiers: qualifiers.into_iter().map(<[u8]>::to_vec).collect(),
        })
        .collect();
    let grid = Grid {
        families,
        rows: Vec::new(),
    };
    let order = grid.columns();
    let grid_rows =
        rows.iter()
            .map(|row| {
                let cells = order
                    .iter()
                    .map(|(family, qualifier)| {
                        // Cells come newest first within a column, so the first is the newest.
                        let mut versions = row.cells.iter().filter(|c| {
                            c.family == *family && c.qualifier.as_slice() == *qualifier
                        });
                        versions.next().map(|newest| CellSummary {
                            value: newest.value.clone(),
                            timestamp_micros: newest.timestamp_micros,
                            versions: 1 + versions.count(),
                        })
                    })
                    .collect();
                GridRow {
                    key: row.key.clone(),
                    cells,
                }
            })
            .collect();
    Ok(Grid {
        rows: grid_rows,
        ..grid
    })
}

/// Bytes as text: UTF-8 when it is printable, with `\xNN` escapes for anything else.
pub fn display_bytes(bytes: &[u8]) -> String {
    match core::str::from_utf8(bytes) {
        Ok(s) if !s.chars().any(char::is_control) => s.to_string(),
        _ => bytes
            .iter()
            .map(|&b| {
                if b.is_ascii_graphic() || b == b' ' {
                    char::from(b).to_string()
                } else {
                    format!("\\x{b:02x}")
                }
            })
            .collect(),
    }
}

#[cfg(target_arch = "wasm32")]
impl yew::Reducible for Playground {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        next.apply(action);
        Rc::new(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: i64 = 1_700_000_000_000_000;

    fn create(p: &mut Playground, table: &str, families: &str, max_versions: &str) {
        p.apply(Action::CreateTable {
            table_id: table.into(),
            families: families.into(),
            max_versions: max_versions.into(),
        });
    }

    fn write(p: &mut Playground, row: &str, family: &str, qualifier: &str, value: &str) {
        p.apply(Action::WriteCell {
            row_key: row.into(),
            family: family.into(),
            qualifier: qualifier.into(),
            value: value.into(),
        });
    }

    fn summary(value: &str, timestamp_micros: i64, versions: usize) -> Option<CellSummary> {
        Some(CellSummary {
            value: value.as_bytes().to_vec(),
            timestamp_micros,
            versions,
        })
    }

    #[test]
    fn creating_a_table_selects_it_and_lists_its_families() {
        let mut p = Playground::new(START);
        create(&mut p, "users", " cf , meta,", "");
        assert_eq!(p.error, None);
        assert_eq!(p.selected.as_deref(), Some("users"));
        assert_eq!(
            p.tables,
            vec![TableSummary {
                name: "users".into(),
                families: vec!["cf".into(), "meta".into()]
            }]
        );
        let families: Vec<_> = p.grid.families.iter().map(|f| f.family.as_str()).collect();
        assert_eq!(families, ["cf", "meta"]);
        assert!(p.grid.rows.is_empty());
    }

    #[test]
    fn family_columns_follow_creation_order_not_names() {
        let mut p = Playground::new(START);
        create(&mut p, "t", "stats, profile", "");
        write(&mut p, "r", "profile", "name", "Ada");
        write(&mut p, "r", "stats", "visits", "1");
        assert_eq!(p.error, None);
        assert_eq!(p.tables[0].families, ["stats", "profile"]);
        assert_eq!(
            p.grid.columns(),
            vec![("stats", &b"visits"[..]), ("profile", &b"name"[..])]
        );
    }

    #[test]
    fn a_write_shows_its_cell_at_the_clock_time_and_ticks_the_clock() {
        let mut p = Playground::new(START);
        create(&mut p, "t", "cf,meta", "");
        write(&mut p, "user#1", "cf", "name", "Ada");
        assert_eq!(p.error, None);
        assert_eq!(p.now_micros, START + WRITE_TICK_MICROS);
        assert_eq!(p.grid.columns(), vec![("cf", &b"name"[..])]);
        assert_eq!(
            p.grid.rows,
            vec![GridRow {
                key: b"user#1".to_vec(),
                cells: vec![summary("Ada", START, 1)]
            }]
        );
    }

    #[test]
    fn rewriting_a_column_shows_the_newest_value_and_counts_versions() {
        let mut p = Playground::new(START);
        create(&mut p, "t", "cf", "");
        write(&mut p, "r", "cf", "q", "one");
        write(&mut p, "r", "cf", "q", "two");
        write(&mut p, "r", "cf", "other", "x");
        write(&mut p, "a", "cf", "q", "first row");
        assert_eq!(
            p.grid.columns(),
            vec![("cf", &b"other"[..]), ("cf", &b"q"[..])]
        );
        let keys: Vec<_> = p.grid.rows.iter().map(|r| r.key.as_slice()).collect();
        assert_eq!(keys, [&b"a"[..], &b"r"[..]]);
        assert_eq!(
            p.grid.rows[0].cells,
            vec![None, summary("first row", START + 3000, 1)]
        );
        assert_eq!(
            p.grid.rows[1].cells,
            vec![
                summary("x", START + 2000, 1),
                summary("two", START + 1000, 2)
            ]
        );
    }

    #[test]
    fn the_gc_rule_of_the_form_limits_versions() {
        let mut p = Playground::new(START);
        create(&mut p, "t", "cf", "1");
        write(&mut p, "r", "cf", "q", "one");
        write(&mut p, "r", "cf", "q", "two");
        assert_eq!(p.grid.rows[0].cells, vec![summary("two", START + 1000, 1)]);
    }

    #[test]
    fn engine_errors_are_shown_and_change_nothing() {
        let mut p = Playground::new(START);
        write(&mut p, "r", "cf", "q", "v");
        assert_eq!(
            p.error.as_ref().map(|e| e.code.as_str()),
            Some("FAILED_PRECONDITION")
        );
        create(&mut p, "t", "cf", "");
        write(&mut p, "r", "nope", "q", "v");
        assert_eq!(p.error.as_ref().map(|e| e.code.as_str()), Some("NOT_FOUND"));
        assert!(p.error.as_ref().unwrap().message.contains("nope"));
        assert_eq!(
            p.now_micros, START,
            "a failed write does not tick the clock"
        );
        write(&mut p, "", "cf", "q", "v");
        assert_eq!(
            p.error.as_ref().map(|e| e.code.as_str()),
            Some("INVALID_ARGUMENT")
        );
        create(&mut p, "t", "cf", "");
        assert_eq!(
            p.error.as_ref().map(|e| e.code.as_str()),
            Some("ALREADY_EXISTS")
        );
        create(&mut p, "u", "cf", "0");
        assert_eq!(
            p.error.as_ref().map(|e| e.code.as_str()),
            Some("INVALID_ARGUMENT")
        );
        create(&mut p, "u", "cf", "many");
        assert_eq!(
            p.error.as_ref().map(|e| e.code.as_str()),
            Some("INVALID_ARGUMENT")
        );
        assert_eq!(p.tables.len(), 1);
        assert!(p.grid.rows.is_empty());
        p.apply(Action::DismissError);
        assert_eq!(p.error, None);
    }

    #[test]
    fn deleting_a_row_removes_it_from_the_grid() {
        let mut p = Playground::new(START);
        create(&mut p, "t", "cf", "");
        write(&mut p, "a", "cf", "q", "1");
        write(&mut p, "b", "cf", "q", "2");
        p.apply(Action::DeleteRow(b"a".to_vec()));
        let keys: Vec<_> = p.grid.rows.iter().map(|r| r.key.as_slice()).collect();
        assert_eq!(keys, [&b"b"[..]]);
    }

    #[test]
    fn selecting_a_table_shows_its_rows() {
        let mut p = Playground::new(START);
        create(&mut p, "one", "cf", "");
        write(&mut p, "r1", "cf", "q", "in one");
        create(&mut p, "two", "f", "");
        assert!(p.grid.rows.is_empty());
        p.apply(Action::SelectTable("one".into()));
        assert_eq!(p.grid.rows[0].cells, vec![summary("in one", START, 1)]);
    }

    #[test]
    fn the_clock_control_moves_the_time_writes_use() {
        let mut p = Playground::new(START);
        create(&mut p, "t", "cf", "");
        p.apply(Action::AdvanceClock(60_000_000));
        write(&mut p, "r", "cf", "q", "v");
        assert_eq!(
            p.grid.rows[0].cells,
            vec![summary("v", START + 60_000_000, 1)]
        );
    }

    #[test]
    fn bytes_display_as_text_or_escapes() {
        assert_eq!(display_bytes(b"user#1"), "user#1");
        assert_eq!(display_bytes("ключ".as_bytes()), "ключ");
        assert_eq!(display_bytes(&[b'a', 0, 0xff]), "a\\x00\\xff");
    }
}
