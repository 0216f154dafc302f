//! The playground's state and its reducer: everything the UI shows, derived from the engine.
//!
//! Pure Rust with no browser dependency, so the reducer is unit-tested natively
//! (`cargo test -p sparsetable-web`). The UI sends an [`Action`] to the engine's Web Worker,
//! where [`Playground::apply`] runs it against the engine and refreshes only what it changed;
//! the page then receives just those changes (`crate::remote`).
//!
//! Invariants:
//! - the engine runs on a [`ManualClock`]: a write uses the clock's time (SetCell with
//!   timestamp -1, "server time") and then moves the clock forward one millisecond, so
//!   successive writes get distinct timestamps and show up as versions; the time control
//!   moves it further;
//! - an engine error never panics or changes the views: it is stored in
//!   [`Playground::error`] and shown inline until the next action;
//! - redraws are incremental: a write or delete re-reads its one row and splices it into the
//!   grid ([`GridData::upsert_row`]); the whole table is read only when a table is selected,
//!   a GC rule changes, or rows are loaded or imported in bulk;
//! - the playground's own reads (grid, drawer, export) are untracked
//!   (`RowStream::set_access_stats(false)`, `Database::read_row_versions`), so only what a
//!   person asks for (writes, queries) shows in the access statistics.

use alloc::collections::BTreeSet;
use alloc::rc::Rc;
use alloc::sync::Arc;
use core::cell::{Ref, RefCell};

use sparsetable::{
    ColumnFamily, Database, FamilyModification, GcRule, ManualClock, Mutation, ReadRowsRequest,
    Row, RowMutations, RowSet, TableConfig, TimestampRange,
};

use crate::codegen::{self, Snippet};
use crate::grid_data::GridData;
use crate::lab::LabEffect;
use crate::query::{self, Explain, QuerySpec};
use crate::session;

extern crate alloc;

pub use crate::display::{as_int64, display_bytes, ShownError, WRITE_TICK_MICROS};
pub use crate::grid_data::{CellSummary, FamilyColumns, GridChange, GridRow, RowBatch};

/// The page's views, one tab each. The Data view is the grid and the write form; other views
/// mount beside it (the lab's views add their variants here and their components under
/// `components/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
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
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
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
    /// Deletes a row of the selected table (DeleteFromRow).
    DeleteRow(Vec<u8>),
    /// Deletes one version of a cell (DeleteFromColumn over its timestamp's millisecond).
    DeleteCellVersion {
        /// The row key.
        row_key: Vec<u8>,
        /// The family.
        family: String,
        /// The qualifier.
        qualifier: Vec<u8>,
        /// The version's timestamp.
        timestamp_micros: i64,
    },
    /// Deletes every version of one column of a row (DeleteFromColumn, all time).
    DeleteColumn {
        /// The row key.
        row_key: Vec<u8>,
        /// The family.
        family: String,
        /// The qualifier.
        qualifier: Vec<u8>,
    },
    /// Deletes one family's cells from a row (DeleteFromFamily).
    DeleteFamilyFromRow {
        /// The row key.
        row_key: Vec<u8>,
        /// The family.
        family: String,
    },
    /// Opens a cell's versions drawer.
    OpenCell {
        /// The row key.
        row_key: Vec<u8>,
        /// The family.
        family: String,
        /// The qualifier.
        qualifier: Vec<u8>,
    },
    /// Closes the versions drawer.
    CloseDrawer,
    /// Replaces a family's GC rule in the selected table.
    SetGcRule {
        /// The family.
        family: String,
        /// The new rule.
        rule: GcRule,
    },
    /// Runs a read of the selected table from the query panel (counted in access stats).
    RunQuery(QuerySpec),
    /// Writes `rows` generated rows into the selected table (sample data; 100,000 for the
    /// scale test).
    LoadSample(u32),
    /// Imports a JSON export into this page (tables must not exist yet).
    ImportJson(String),
    /// Imports a CSV export.
    ImportCsv(String),
    /// Moves the clock (negative moves it back).
    AdvanceClock(i64),
    /// Hides the error.
    DismissError,
    /// The lab (console, tablet map, heatmap, scenarios, key builder): see [`crate::lab`].
    Lab(crate::lab::LabAction),
}

/// A table in the list.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TableSummary {
    /// The table id.
    pub name: String,
    /// Its families in creation order (the order reads return a row's families in).
    pub families: Vec<String>,
    /// Each family's GC rule, aligned with `families`.
    pub gc_rules: Vec<GcRule>,
}

/// One stored version of a cell, as the versions drawer shows it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct VersionView {
    /// Its timestamp.
    pub timestamp_micros: i64,
    /// Its value.
    pub value: Vec<u8>,
    /// Why reads do not return it ("beyond max versions 2"); `None` when they do.
    pub hidden_by: Option<String>,
}

/// The versions drawer: every stored version of one cell.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Drawer {
    /// The row key.
    pub row_key: Vec<u8>,
    /// The family.
    pub family: String,
    /// The qualifier.
    pub qualifier: Vec<u8>,
    /// The family's GC rule, described.
    pub rule: String,
    /// Newest first, hidden ones included.
    pub versions: Vec<VersionView>,
}

/// The last query's answer.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct QueryResult {
    /// The table read.
    pub table: String,
    /// The request run.
    pub request: ReadRowsRequest,
    /// The rows returned, in read order.
    pub rows: Vec<Row>,
    /// What the read cost.
    pub explain: Explain,
    /// The same read as code.
    pub code: Vec<Snippet>,
}

/// The grid's data, shared between the reducer's successive states (a write changes one row
/// in place, whatever the table's size), with a version that changes whenever it does, so
/// components compare a number rather than 100,000 rows.
#[derive(Clone)]
pub struct GridHandle {
    /// The inner `Rc` lets a whole replacement leave as a snapshot that shares the rows
    /// ([`GridHandle::take_change`]) instead of a copy of them; a change copies them only if
    /// such a snapshot is still held then (`Rc::make_mut`), which the worker never does: it
    /// encodes each update and drops it before the next action.
    data: Rc<RefCell<Rc<GridData>>>,
    /// Bumped on every change.
    pub version: u64,
    /// The changes not yet taken by [`GridHandle::take_change`], when recording.
    pending: Rc<RefCell<Option<PendingChange>>>,
}

/// Changes recorded for a copy of the grid kept elsewhere.
#[derive(Debug, Clone)]
enum PendingChange {
    /// Replaced whole (later row changes are part of what a copy will take).
    Whole,
    /// Row batches, oldest first, as given to [`GridData::upsert_rows`].
    Rows(Vec<RowBatch>),
}

impl GridHandle {
    /// An empty grid; `record` keeps its changes for [`GridHandle::take_change`].
    pub fn new(record: bool) -> Self {
        GridHandle {
            data: Rc::default(),
            version: 0,
            pending: Rc::new(RefCell::new(
                record.then_some(PendingChange::Rows(Vec::new())),
            )),
        }
    }

    /// The data.
    pub fn borrow(&self) -> Ref<'_, GridData> {
        Ref::map(self.data.borrow(), |data| &**data)
    }

    /// The data as it is now, shared rather than copied: later changes to the grid leave it
    /// as it was.
    pub fn snapshot(&self) -> Rc<GridData> {
        Rc::clone(&self.data.borrow())
    }

    /// Replaces the data whole.
    pub fn replace(&mut self, data: impl Into<Rc<GridData>>) {
        *self.data.borrow_mut() = data.into();
        self.version += 1;
        if let Some(p) = self.pending.borrow_mut().as_mut() {
            *p = PendingChange::Whole;
        }
    }

    /// Re-reads rows: `(key, what a read of it returned)` in ascending key order, each key
    /// once ([`GridData::upsert_rows`]).
    pub fn upsert_rows(&mut self, updates: RowBatch) {
        if let Some(PendingChange::Rows(batches)) = self.pending.borrow_mut().as_mut() {
            batches.push(updates.clone());
        }
        Rc::make_mut(&mut self.data.borrow_mut()).upsert_rows(updates);
        self.version += 1;
    }

    /// What changed since the last call (recording grids only; otherwise always
    /// [`GridChange::None`]), and starts recording afresh.
    pub fn take_change(&self) -> GridChange {
        let mut pending = self.pending.borrow_mut();
        let Some(p) = pending.as_mut() else {
            return GridChange::None;
        };
        match core::mem::replace(p, PendingChange::Rows(Vec::new())) {
            PendingChange::Whole => GridChange::Replaced(self.snapshot()),
            PendingChange::Rows(batches) if batches.is_empty() => GridChange::None,
            PendingChange::Rows(batches) => GridChange::Rows(batches),
        }
    }

    /// Applies a change another grid recorded, so this one becomes its copy.
    pub fn apply_change(&mut self, change: GridChange) {
        match change {
            // `Attached` is resolved to `Replaced` when the message is decoded.
            GridChange::None | GridChange::Attached => {}
            GridChange::Replaced(data) => self.replace(data),
            GridChange::Rows(batches) => {
                for batch in batches {
                    self.upsert_rows(batch);
                }
            }
        }
    }
}

impl PartialEq for GridHandle {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.data, &other.data) && self.version == other.version
    }
}

impl core::fmt::Debug for GridHandle {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GridHandle")
            .field("version", &self.version)
            .finish_non_exhaustive()
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
    pub grid: GridHandle,
    /// The versions drawer, when open.
    pub drawer: Option<Drawer>,
    /// The last query of the selected table.
    pub query: Option<QueryResult>,
    /// Row keys the last query returned (highlighted in the grid).
    pub hits: Rc<BTreeSet<Vec<u8>>>,
    /// The last write or delete as code.
    pub last_write: Option<Vec<Snippet>>,
    /// Bumped whenever data or schema change (what the page persists on).
    pub revision: u64,
    /// How many times the grid was read whole (a write must not do it).
    pub full_reads: u64,
    /// How many rows were re-read in batches (the load generator's writes to the table shown).
    pub batch_row_reads: u64,
    /// A short note on the last action ("Loaded 100000 rows").
    pub notice: Option<String>,
    /// The last action's error, if it failed.
    pub error: Option<ShownError>,
    /// The lab's state and views.
    pub lab: crate::lab::Lab,
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
            && self.drawer == other.drawer
            && self.query == other.query
            && self.last_write == other.last_write
            && self.revision == other.revision
            && self.notice == other.notice
            && self.error == other.error
            && self.lab == other.lab
    }
}

/// The table named `name` among `tables`.
pub fn find_table<'a>(tables: &'a [TableSummary], name: Option<&str>) -> Option<&'a TableSummary> {
    name.and_then(|n| tables.iter().find(|t| t.name == n))
}

/// A GC rule in words, as the drawer and the rule editor show it.
pub fn describe_gc(rule: &GcRule) -> String {
    match rule {
        GcRule::Never => "keep everything".into(),
        GcRule::MaxNumVersions(n) => format!("beyond max versions {n}"),
        GcRule::MaxAge { micros } => format!("older than {}", duration(*micros)),
        GcRule::Intersection(rules) if rules.is_empty() => "keep everything".into(),
        GcRule::Intersection(rules) => rules
            .iter()
            .map(describe_gc)
            .collect::<Vec<_>>()
            .join(" and "),
        GcRule::Union(rules) if rules.is_empty() => "keep everything".into(),
        GcRule::Union(rules) => rules
            .iter()
            .map(describe_gc)
            .collect::<Vec<_>>()
            .join(" or "),
    }
}

/// A duration in the largest whole unit: "7 days", "90 s", "1500 ms".
pub fn duration(micros: i64) -> String {
    const UNITS: [(i64, &str, &str); 5] = [
        (86_400_000_000, "day", "days"),
        (3_600_000_000, "hour", "hours"),
        (60_000_000, "minute", "minutes"),
        (1_000_000, "s", "s"),
        (1000, "ms", "ms"),
    ];
    for (size, one, many) in UNITS {
        if micros >= size && micros % size == 0 {
            let n = micros / size;
            return format!("{n} {}", if n == 1 { one } else { many });
        }
    }
    format!("{micros} µs")
}

fn shown(e: sparsetable::Error) -> ShownError {
    ShownError {
        code: e.code().as_str().to_string(),
        message: e.message().to_string(),
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
            grid: GridHandle::new(false),
            drawer: None,
            query: None,
            hits: Rc::default(),
            last_write: None,
            revision: 0,
            full_reads: 0,
            batch_row_reads: 0,
            notice: None,
            error: None,
            lab: crate::lab::Lab::default(),
        };
        p.refresh_tables();
        p
    }

    /// The engine, for reads a view makes itself (the lab's views). Reads for display must
    /// be untracked: `RowStream::set_access_stats(false)`.
    pub fn database(&self) -> Ref<'_, Database> {
        self.db.borrow()
    }

    /// The selected table's families, in creation order.
    pub fn selected_families(&self) -> &[String] {
        self.selected_table().map_or(&[], |t| t.families.as_slice())
    }

    /// The selected table's summary.
    pub fn selected_table(&self) -> Option<&TableSummary> {
        find_table(&self.tables, self.selected.as_deref())
    }

    /// The whole session as a JSON export (untracked reads).
    ///
    /// # Errors
    /// The JSON layer's.
    pub fn export_json(&self) -> Result<String, ShownError> {
        session::to_json(&session::capture(&self.db.borrow())?)
    }

    /// Reads `table` with a request in the proto3 JSON model (untracked) and returns the row
    /// keys: the engine's own answer, for comparing with what the page shows.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for bad JSON; the engine's errors.
    pub fn read_keys_json(&self, table: &str, request: &str) -> Result<Vec<String>, ShownError> {
        let request: ReadRowsRequest = sparsetable::json::from_str(request).map_err(shown)?;
        let (rows, _) = query::run(&self.db.borrow(), table, &request, false).map_err(shown)?;
        Ok(rows.iter().map(|r| display_bytes(&r.key)).collect())
    }

    /// The whole session as CSV.
    ///
    /// # Errors
    /// The engine's.
    pub fn export_csv(&self) -> Result<String, ShownError> {
        Ok(session::to_csv(&session::capture(&self.db.borrow())?))
    }

    /// Runs one action: on success the views show the new data, on failure they stay as they
    /// were and [`Playground::error`] says why.
    pub fn apply(&mut self, action: Action) {
        self.error = None;
        self.notice = None;
        let lab_effect = match &action {
            Action::Lab(a) => Some(self.lab.effect(a)),
            _ => None,
        };
        let result = match action {
            Action::ShowView(view) => {
                self.view = view;
                Ok(())
            }
            Action::CreateTable {
                table_id,
                families,
                max_versions,
            } => self.create_table(table_id.trim(), &families, max_versions.trim()),
            Action::SelectTable(name) => {
                self.selected = Some(name);
                self.refresh_tables();
                Ok(())
            }
            Action::WriteCell {
                row_key,
                family,
                qualifier,
                value,
            } => self.write_cell(row_key, family, qualifier, value),
            Action::DeleteRow(key) => self.mutate(key, alloc::vec![Mutation::DeleteFromRow]),
            Action::DeleteCellVersion {
                row_key,
                family,
                qualifier,
                timestamp_micros,
            } => self.mutate(
                row_key,
                alloc::vec![Mutation::DeleteFromColumn {
                    family,
                    qualifier,
                    // A version is the cell at its timestamp; the range holds just it (a
                    // table keeps whole milliseconds, so the next possible one is +1000).
                    time_range: TimestampRange {
                        start_micros: timestamp_micros,
                        end_micros: Some(timestamp_micros + 1000),
                    },
                }],
            ),
            Action::DeleteColumn {
                row_key,
                family,
                qualifier,
            } => self.mutate(
                row_key,
                alloc::vec![Mutation::DeleteFromColumn {
                    family,
                    qualifier,
                    time_range: TimestampRange::default(),
                }],
            ),
            Action::DeleteFamilyFromRow { row_key, family } => {
                self.mutate(row_key, alloc::vec![Mutation::DeleteFromFamily { family }])
            }
            Action::OpenCell {
                row_key,
                family,
                qualifier,
            } => {
                self.drawer = Some(Drawer {
                    row_key,
                    family,
                    qualifier,
                    rule: String::new(),
                    versions: Vec::new(),
                });
                self.refresh_drawer();
                Ok(())
            }
            Action::CloseDrawer => {
                self.drawer = None;
                Ok(())
            }
            Action::SetGcRule { family, rule } => self.set_gc_rule(family, rule),
            Action::RunQuery(spec) => self.run_query(&spec),
            Action::LoadSample(rows) => self.load_sample(rows),
            Action::ImportJson(text) => session::from_json(&text).and_then(|s| self.import(&s)),
            Action::ImportCsv(text) => {
                session::from_csv(&text, self.now_micros).and_then(|s| self.import(&s))
            }
            Action::AdvanceClock(micros) => {
                self.clock.advance_micros(micros);
                // Age rules hide more as time passes: the grid and the drawer show it.
                self.rebuild_grid();
                self.refresh_drawer();
                Ok(())
            }
            Action::DismissError => Ok(()),
            Action::Lab(a) => self.lab.apply(&mut self.db.borrow_mut(), &self.clock, a),
        };
        if let Err(e) = result {
            self.error = Some(e);
        }
        if let Some(effect) = lab_effect {
            // The lab writes through its own views (console, load generator, scenarios). The
            // grid is re-read (once, untracked) only when the action may have changed what it
            // shows: any table for the console and scenarios, the lanes' tables for the load
            // generator; view settings, thresholds and compactions re-read nothing. The
            // session is saved as after any other change.
            match effect {
                LabEffect::Anything => self.refresh_tables(),
                LabEffect::Rows(tables) => {
                    if let Some(table) = self.selected.clone().filter(|s| tables.contains(s)) {
                        if let Some(keys) = self.lab.written_rows(&table) {
                            self.refresh_rows(&table, keys);
                        }
                    }
                }
                LabEffect::Nothing => {}
            }
            self.revision += 1;
        }
        self.now_micros = self.db.borrow().now_micros();
        let selected = self.selected.clone();
        let grid = self.grid.data.borrow().clone();
        self.lab
            .observe(&mut self.db.borrow_mut(), selected.as_deref(), &grid.rows);
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
            // Split at the lab's small thresholds, as its tablet maps show.
            tablet_options: crate::lab::LAB_TABLET_OPTIONS,
            ..TableConfig::default()
        };
        let families: Vec<(String, GcRule)> = config
            .families
            .iter()
            .map(|(name, f)| (name.clone(), f.gc_rule.clone()))
            .collect();
        self.db
            .borrow_mut()
            .create_table(table_id, config)
            .map_err(shown)?;
        // Admin operations are shown as code too.
        self.last_write = Some(codegen::admin_snippets(&codegen::AdminOp::CreateTable {
            table: table_id,
            families: &families,
        }));
        self.selected = Some(table_id.to_string());
        self.revision += 1;
        self.refresh_tables();
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
        self.mutate(row_key.into_bytes(), alloc::vec![mutation])?;
        self.clock.advance_micros(WRITE_TICK_MICROS);
        Ok(())
    }

    /// Applies mutations to one row of the selected table, then redraws that row (and the
    /// drawer, if it shows it) and records the write as code.
    fn mutate(&mut self, key: Vec<u8>, mutations: Vec<Mutation>) -> Result<(), ShownError> {
        let table = self.selected.clone().ok_or_else(|| ShownError {
            code: "FAILED_PRECONDITION".into(),
            message: "create a table first".into(),
        })?;
        let now = self.db.borrow().now_micros();
        self.db
            .borrow_mut()
            .mutate_row(&table, &key, &mutations)
            .map_err(shown)?;
        // The code shows the time the engine gave a server-time cell.
        let as_run: Vec<Mutation> = mutations
            .into_iter()
            .map(|m| match m {
                Mutation::SetCell {
                    family,
                    qualifier,
                    timestamp_micros: -1,
                    value,
                } => Mutation::SetCell {
                    family,
                    qualifier,
                    timestamp_micros: now,
                    value,
                },
                other => other,
            })
            .collect();
        self.last_write = Some(codegen::write_snippets(&table, &key, &as_run));
        self.revision += 1;
        self.refresh_row(&table, &key);
        if self.drawer.as_ref().is_some_and(|d| d.row_key == key) {
            self.refresh_drawer();
        }
        Ok(())
    }

    fn set_gc_rule(&mut self, family: String, rule: GcRule) -> Result<(), ShownError> {
        let table = self.selected.clone().ok_or_else(|| ShownError {
            code: "FAILED_PRECONDITION".into(),
            message: "create a table first".into(),
        })?;
        self.db
            .borrow_mut()
            .modify_column_families(
                &table,
                &[FamilyModification::Update {
                    name: family.clone(),
                    family: ColumnFamily {
                        gc_rule: rule.clone(),
                        ..ColumnFamily::default()
                    },
                }],
            )
            .map_err(shown)?;
        self.last_write = Some(codegen::admin_snippets(&codegen::AdminOp::SetGcRule {
            table: &table,
            family: &family,
            rule: &rule,
        }));
        self.revision += 1;
        // A rule changes what every row shows: one full read.
        self.refresh_tables();
        self.refresh_drawer();
        Ok(())
    }

    fn run_query(&mut self, spec: &QuerySpec) -> Result<(), ShownError> {
        let table = self.selected.clone().ok_or_else(|| ShownError {
            code: "FAILED_PRECONDITION".into(),
            message: "create a table first".into(),
        })?;
        let request = spec.to_request();
        // A person's query is traffic: it counts in the access statistics.
        let (rows, explain) =
            query::run(&self.db.borrow(), &table, &request, true).map_err(shown)?;
        self.hits = Rc::new(rows.iter().map(|r| r.key.clone()).collect());
        self.query = Some(QueryResult {
            code: codegen::read_snippets(&table, &request),
            table,
            request,
            rows,
            explain,
        });
        Ok(())
    }

    fn load_sample(&mut self, rows: u32) -> Result<(), ShownError> {
        let table = self.selected.clone().ok_or_else(|| ShownError {
            code: "FAILED_PRECONDITION".into(),
            message: "create a table first".into(),
        })?;
        let family = self
            .selected_families()
            .first()
            .cloned()
            .ok_or_else(|| ShownError {
                code: "FAILED_PRECONDITION".into(),
                message: "the table has no column family".into(),
            })?;
        let now = self.db.borrow().now_micros();
        let mut batch = Vec::new();
        for i in 0..rows {
            batch.push(RowMutations {
                row_key: format!("user#{i:06}").into_bytes(),
                mutations: alloc::vec![
                    Mutation::set_cell(
                        family.clone(),
                        b"name".to_vec(),
                        now,
                        format!("User {i}").into_bytes()
                    ),
                    // An 8-byte big-endian counter, as Bigtable's increments store them.
                    Mutation::set_cell(
                        family.clone(),
                        b"visits".to_vec(),
                        now,
                        i64::from(i % 1000).to_be_bytes().to_vec()
                    ),
                ],
            });
            if batch.len() == 10_000 || i + 1 == rows {
                let statuses = self
                    .db
                    .borrow_mut()
                    .mutate_rows(&table, &batch)
                    .map_err(shown)?;
                statuses.into_iter().try_for_each(|s| s.map_err(shown))?;
                batch.clear();
            }
        }
        self.clock.advance_micros(WRITE_TICK_MICROS);
        self.revision += 1;
        self.rebuild_grid();
        self.notice = Some(format!("Loaded {rows} rows into {table}"));
        Ok(())
    }

    fn import(&mut self, s: &session::Session) -> Result<(), ShownError> {
        let result = session::restore(&mut self.db.borrow_mut(), s);
        // Time never goes back: cells keep their timestamps and new writes come after them.
        let behind = s.now_micros - self.db.borrow().now_micros();
        if behind > 0 {
            self.clock.advance_micros(behind);
        }
        if let Some(first) = s.tables.first() {
            self.selected = Some(first.table_id.clone());
        }
        self.revision += 1;
        self.refresh_tables();
        result?;
        let rows: usize = s.tables.iter().map(|t| t.rows.len()).sum();
        self.notice = Some(format!("Imported {} tables, {rows} rows", s.tables.len()));
        Ok(())
    }

    /// Re-reads the table list; if the selection changed, the grid too.
    fn refresh_tables(&mut self) {
        let before = self.selected.clone();
        let db = self.db.borrow();
        self.tables = db
            .list_tables()
            .into_iter()
            .map(|t| TableSummary {
                families: t.config.families.keys().cloned().collect(),
                gc_rules: t
                    .config
                    .families
                    .values()
                    .map(|f| f.gc_rule.clone())
                    .collect(),
                name: t.name,
            })
            .collect();
        drop(db);
        if let Some(s) = &self.selected {
            if !self.tables.iter().any(|t| &t.name == s) {
                self.selected = None;
            }
        }
        if self.selected.is_none() {
            self.selected = self.tables.first().map(|t| t.name.clone());
        }
        if before != self.selected {
            self.drawer = None;
            self.query = None;
            self.hits = Rc::default();
        }
        self.rebuild_grid();
    }

    /// Reads the selected table whole (untracked) into the grid.
    fn rebuild_grid(&mut self) {
        self.full_reads += 1;
        let families = self.selected_families().to_vec();
        let data = match &self.selected {
            Some(table) => {
                let db = self.db.borrow();
                match query::run(&db, table, &ReadRowsRequest::default(), false) {
                    Ok((rows, _)) => GridData::build(&families, rows),
                    Err(_) => GridData::new(&families),
                }
            }
            None => GridData::default(),
        };
        self.grid.replace(data);
    }

    /// Re-reads one row (untracked) into the grid.
    fn refresh_row(&mut self, table: &str, key: &[u8]) {
        let request = ReadRowsRequest {
            row_set: RowSet::single(key.to_vec()),
            ..ReadRowsRequest::default()
        };
        let row = query::run(&self.db.borrow(), table, &request, false)
            .ok()
            .and_then(|(rows, _)| rows.into_iter().next());
        self.grid.upsert_rows(alloc::vec![(key.to_vec(), row)]);
    }

    /// Re-reads a batch of rows (untracked, one read of just those keys) into the grid; a
    /// batch as large as the table itself is read as the whole table.
    fn refresh_rows(&mut self, table: &str, keys: BTreeSet<Vec<u8>>) {
        if keys.len() > self.grid.data.borrow().rows.len() {
            self.rebuild_grid();
            return;
        }
        self.batch_row_reads += keys.len() as u64;
        let request = ReadRowsRequest {
            row_set: RowSet {
                row_keys: keys.iter().cloned().collect(),
                row_ranges: Vec::new(),
            },
            ..ReadRowsRequest::default()
        };
        let Ok((rows, _)) = query::run(&self.db.borrow(), table, &request, false) else {
            self.rebuild_grid();
            return;
        };
        // The read returns the rows that exist, in key order: pair each key with its row.
        let mut rows = rows.into_iter().peekable();
        let updates = keys
            .into_iter()
            .map(|key| {
                let row = rows.next_if(|r| r.key == key);
                (key, row)
            })
            .collect();
        self.grid.upsert_rows(updates);
    }

    /// Re-reads the drawer's cell: every stored version, with what its GC rule hides.
    fn refresh_drawer(&mut self) {
        let Some(drawer) = &mut self.drawer else {
            return;
        };
        let Some(table) = &self.selected else {
            self.drawer = None;
            return;
        };
        let db = self.db.borrow();
        let stored = db
            .read_row_versions(table, &drawer.row_key)
            .unwrap_or_default();
        drawer.versions = stored
            .into_iter()
            .filter(|s| s.cell.family == drawer.family && s.cell.qualifier == drawer.qualifier)
            .map(|s| VersionView {
                timestamp_micros: s.cell.timestamp_micros,
                value: s.cell.value,
                hidden_by: s.collected_by.as_ref().map(describe_gc),
            })
            .collect();
        drawer.rule = db
            .get_table(table)
            .ok()
            .and_then(|t| {
                t.config
                    .families
                    .get(&drawer.family)
                    .map(|f| f.gc_rule.clone())
            })
            .map_or_else(String::new, |r| describe_gc(&r));
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

    fn columns(p: &Playground) -> Vec<(String, Vec<u8>)> {
        p.grid
            .borrow()
            .display_columns()
            .into_iter()
            .map(|(f, q)| (f.to_string(), q.to_vec()))
            .collect()
    }

    fn col(f: &str, q: &str) -> (String, Vec<u8>) {
        (f.to_string(), q.as_bytes().to_vec())
    }

    fn keys(p: &Playground) -> Vec<Vec<u8>> {
        p.grid.borrow().rows.iter().map(|r| r.key.clone()).collect()
    }

    /// Row `i`'s cells in display order.
    fn cells(p: &Playground, i: usize) -> Vec<Option<CellSummary>> {
        let g = p.grid.borrow();
        g.families
            .iter()
            .flat_map(|f| f.columns.iter())
            .map(|&c| g.rows[i].cell(c).cloned())
            .collect()
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
                families: vec!["cf".into(), "meta".into()],
                gc_rules: vec![GcRule::Never, GcRule::Never],
            }]
        );
        let families: Vec<_> = p
            .grid
            .borrow()
            .families
            .iter()
            .map(|f| f.family.clone())
            .collect();
        assert_eq!(families, ["cf", "meta"]);
        assert!(keys(&p).is_empty());
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
            columns(&p),
            [col("stats", "visits"), col("profile", "name")]
        );
    }

    #[test]
    fn a_write_shows_its_cell_at_the_clock_time_and_ticks_the_clock() {
        let mut p = Playground::new(START);
        create(&mut p, "t", "cf,meta", "");
        write(&mut p, "user#1", "cf", "name", "Ada");
        assert_eq!(p.error, None);
        assert_eq!(p.now_micros, START + WRITE_TICK_MICROS);
        assert_eq!(columns(&p), [col("cf", "name")]);
        assert_eq!(keys(&p), [b"user#1".to_vec()]);
        assert_eq!(cells(&p, 0), [summary("Ada", START, 1)]);
    }

    #[test]
    fn rewriting_a_column_shows_the_newest_value_and_counts_versions() {
        let mut p = Playground::new(START);
        create(&mut p, "t", "cf", "");
        write(&mut p, "r", "cf", "q", "one");
        write(&mut p, "r", "cf", "q", "two");
        write(&mut p, "r", "cf", "other", "x");
        write(&mut p, "a", "cf", "q", "first row");
        assert_eq!(columns(&p), [col("cf", "other"), col("cf", "q")]);
        assert_eq!(keys(&p), [b"a".to_vec(), b"r".to_vec()]);
        assert_eq!(cells(&p, 0), [None, summary("first row", START + 3000, 1)]);
        assert_eq!(
            cells(&p, 1),
            [
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
        assert_eq!(cells(&p, 0), [summary("two", START + 1000, 1)]);
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
        assert!(keys(&p).is_empty());
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
        assert_eq!(keys(&p), [b"b".to_vec()]);
    }

    #[test]
    fn selecting_a_table_shows_its_rows() {
        let mut p = Playground::new(START);
        create(&mut p, "one", "cf", "");
        write(&mut p, "r1", "cf", "q", "in one");
        create(&mut p, "two", "f", "");
        assert!(keys(&p).is_empty());
        p.apply(Action::SelectTable("one".into()));
        assert_eq!(cells(&p, 0), [summary("in one", START, 1)]);
    }

    #[test]
    fn the_clock_control_moves_the_time_writes_use() {
        let mut p = Playground::new(START);
        create(&mut p, "t", "cf", "");
        p.apply(Action::AdvanceClock(60_000_000));
        write(&mut p, "r", "cf", "q", "v");
        assert_eq!(cells(&p, 0), [summary("v", START + 60_000_000, 1)]);
    }

    #[test]
    fn the_drawer_shows_versions_a_max_versions_rule_hides_and_why() {
        let mut p = Playground::new(START);
        create(&mut p, "t", "cf", "2");
        for v in ["one", "two", "three"] {
            write(&mut p, "r", "cf", "q", v);
        }
        p.apply(Action::OpenCell {
            row_key: b"r".to_vec(),
            family: "cf".into(),
            qualifier: b"q".to_vec(),
        });
        let d = p.drawer.clone().unwrap();
        assert_eq!(d.rule, "beyond max versions 2");
        let shown: Vec<_> = d
            .versions
            .iter()
            .map(|v| {
                (
                    v.value.as_slice(),
                    v.timestamp_micros,
                    v.hidden_by.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                (&b"three"[..], START + 2000, None),
                (b"two", START + 1000, None),
                (b"one", START, Some("beyond max versions 2")),
            ]
        );
        // The grid counts what reads return.
        assert_eq!(cells(&p, 0), [summary("three", START + 2000, 2)]);
    }

    #[test]
    fn a_looser_gc_rule_shows_at_once_and_an_age_rule_hides_old_versions() {
        let mut p = Playground::new(START);
        create(&mut p, "t", "cf", "");
        write(&mut p, "r", "cf", "q", "old");
        p.apply(Action::AdvanceClock(8 * 86_400_000_000));
        write(&mut p, "r", "cf", "q", "new");
        let week = GcRule::MaxAge {
            micros: 7 * 86_400_000_000,
        };
        p.apply(Action::OpenCell {
            row_key: b"r".to_vec(),
            family: "cf".into(),
            qualifier: b"q".to_vec(),
        });
        assert_eq!(p.drawer.as_ref().unwrap().versions.len(), 2);
        assert_eq!(cells(&p, 0)[0].as_ref().unwrap().versions, 2);
        p.apply(Action::SetGcRule {
            family: "cf".into(),
            rule: GcRule::Union(vec![GcRule::MaxNumVersions(5), week.clone()]),
        });
        assert_eq!(p.error, None);
        assert_eq!(
            p.tables[0].gc_rules,
            [GcRule::Union(vec![GcRule::MaxNumVersions(5), week])]
        );
        assert_eq!(cells(&p, 0)[0].as_ref().unwrap().versions, 1);
        let d = p.drawer.as_ref().unwrap();
        assert_eq!(d.rule, "beyond max versions 5 or older than 7 days");
        // The new rule hides the old version (storage still holds it until a compaction).
        let hidden: Vec<_> = d.versions.iter().map(|v| v.hidden_by.as_deref()).collect();
        assert_eq!(hidden, [None, Some("older than 7 days")]);
        p.apply(Action::SetGcRule {
            family: "cf".into(),
            rule: GcRule::MaxNumVersions(0),
        });
        assert_eq!(
            p.error.as_ref().map(|e| e.code.as_str()),
            Some("INVALID_ARGUMENT")
        );
    }

    #[test]
    fn deletes_of_a_version_a_column_a_family_and_a_row() {
        let mut p = Playground::new(START);
        create(&mut p, "t", "cf, meta", "");
        write(&mut p, "r", "cf", "q", "v1");
        write(&mut p, "r", "cf", "q", "v2");
        write(&mut p, "r", "cf", "other", "x");
        write(&mut p, "r", "meta", "m", "y");
        p.apply(Action::DeleteCellVersion {
            row_key: b"r".to_vec(),
            family: "cf".into(),
            qualifier: b"q".to_vec(),
            timestamp_micros: START + 1000,
        });
        assert_eq!(p.error, None);
        assert_eq!(cells(&p, 0)[1], summary("v1", START, 1));
        p.apply(Action::DeleteColumn {
            row_key: b"r".to_vec(),
            family: "cf".into(),
            qualifier: b"q".to_vec(),
        });
        assert_eq!(cells(&p, 0)[1], None);
        p.apply(Action::DeleteFamilyFromRow {
            row_key: b"r".to_vec(),
            family: "meta".into(),
        });
        assert_eq!(cells(&p, 0), [summary("x", START + 2000, 1), None, None]);
        let code = p.last_write.as_ref().unwrap();
        assert!(code[0].code.contains("DeleteAllFromFamily(\"meta\")"));
        p.apply(Action::DeleteRow(b"r".to_vec()));
        assert!(keys(&p).is_empty());
    }

    /// What the grid shows: each row's key and its cells as (family, qualifier, newest cell),
    /// independent of the order in which columns got their ids.
    #[allow(clippy::type_complexity)]
    fn shown_grid(p: &Playground) -> Vec<(Vec<u8>, Vec<(String, Vec<u8>, CellSummary)>)> {
        let grid = p.grid.borrow();
        grid.rows
            .iter()
            .map(|r| {
                let mut cells: Vec<_> = r
                    .cells
                    .iter()
                    .map(|(c, s)| {
                        (
                            grid.columns[*c].0.clone(),
                            grid.columns[*c].1.clone(),
                            s.clone(),
                        )
                    })
                    .collect();
                cells.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
                (r.key.clone(), cells)
            })
            .collect()
    }

    #[test]
    fn lab_actions_reread_the_grid_only_when_they_may_change_it() {
        use crate::lab::LabAction;
        let mut p = Playground::new(START);
        create(&mut p, "mine", "cf", "");
        p.apply(Action::LoadSample(100));
        p.apply(Action::Lab(LabAction::RunScenario("hotspots".into())));
        // The scenario created tables: the list changed, the grid was re-read. Select ours.
        p.apply(Action::SelectTable("mine".into()));
        let full = p.full_reads;
        for action in [
            LabAction::SetMetric(crate::lab::heatmap::Metric::Bytes),
            LabAction::Compact,
            LabAction::ClearConsole,
            // The load generator writes the lanes' tables, not the one selected.
            LabAction::Load(1),
        ] {
            p.apply(Action::Lab(action));
        }
        assert_eq!(
            p.full_reads, full,
            "no re-read for actions that leave the grid as it is"
        );
        assert_eq!(keys(&p).len(), 100);
        // Selecting a lane's table, the load generator's writes are re-read: just the rows
        // written, in one batch, and the grid ends as a whole re-read would build it.
        for lane in ["hot_sequential", "hot_salted", "hot_promoted"] {
            p.apply(Action::SelectTable(lane.into()));
            let full = p.full_reads;
            let rows_before = keys(&p).len();
            let batch = p.batch_row_reads;
            p.apply(Action::Lab(LabAction::Load(2)));
            assert_eq!(p.full_reads, full, "{lane}: no whole-table read");
            let written = p.batch_row_reads - batch;
            assert!(
                written > 0 && written <= 2 * 200,
                "{lane}: {written} rows re-read"
            );
            assert!(
                keys(&p).len() > rows_before,
                "{lane}: new rows are in the grid"
            );
            let incremental = shown_grid(&p);
            p.apply(Action::SelectTable("mine".into()));
            p.apply(Action::SelectTable(lane.into()));
            assert_eq!(
                incremental,
                shown_grid(&p),
                "{lane}: as a full read shows it"
            );
        }
        // The console may change anything: re-read.
        let full = p.full_reads;
        p.apply(Action::Lab(LabAction::Console("ls".into())));
        assert_eq!(p.full_reads, full + 1);
    }

    #[test]
    fn writes_redraw_one_row_and_never_count_in_access_stats() {
        let mut p = Playground::new(START);
        create(&mut p, "t", "cf", "");
        p.apply(Action::LoadSample(500));
        assert_eq!(keys(&p).len(), 500);
        let full = p.full_reads;
        let reads = |p: &Playground| -> u64 {
            p.database()
                .access_stats("t")
                .unwrap()
                .iter()
                .map(|s| s.counters.reads)
                .sum()
        };
        for i in 0..20 {
            write(&mut p, &format!("user#{i:06}"), "cf", "name", "changed");
        }
        p.apply(Action::OpenCell {
            row_key: b"user#000001".to_vec(),
            family: "cf".into(),
            qualifier: b"name".to_vec(),
        });
        assert_eq!(
            p.full_reads, full,
            "a write re-reads its row, not the table"
        );
        assert_eq!(reads(&p), 0, "the playground's own reads are not traffic");
        assert_eq!(cells(&p, 1)[0].as_ref().unwrap().value, b"changed");
        assert_eq!(cells(&p, 1)[0].as_ref().unwrap().versions, 2);
        // A person's query is traffic.
        p.apply(Action::RunQuery(QuerySpec::default()));
        assert!(reads(&p) >= 500);
    }

    #[test]
    fn a_query_returns_what_the_engine_returns_with_its_explain_and_code() {
        let mut p = Playground::new(START);
        create(&mut p, "t", "cf", "");
        p.apply(Action::LoadSample(300));
        let spec = QuerySpec {
            prefix: "user#0001".into(),
            reversed: true,
            limit: 5,
            filter: sparsetable::RowFilter::Chain(vec![
                sparsetable::RowFilter::RowKeyRegex(b".*[02468]$".to_vec()),
                sparsetable::RowFilter::ColumnQualifierRegex(b"name".to_vec()),
            ]),
            ..QuerySpec::default()
        };
        p.apply(Action::RunQuery(spec.clone()));
        assert_eq!(p.error, None);
        let q = p.query.clone().unwrap();
        let engine: Vec<Row> = p
            .database()
            .read_rows("t", &spec.to_request())
            .unwrap()
            .collect();
        assert_eq!(q.rows, engine);
        let got: Vec<_> = q.rows.iter().map(|r| display_bytes(&r.key)).collect();
        assert_eq!(
            got,
            [
                "user#000198",
                "user#000196",
                "user#000194",
                "user#000192",
                "user#000190"
            ]
        );
        assert_eq!(q.explain.rows_returned, 5);
        assert_eq!(q.explain.cells_returned, 5);
        assert!(q.explain.rows_scanned >= 9, "{:?}", q.explain);
        assert_eq!(q.explain.tablets_touched, 1);
        assert_eq!(p.hits.len(), 5);
        assert!(q.code.iter().any(|s| s.code.contains("ReverseScan()")));
        // A bad filter is the engine's error, and the last answer stays.
        p.apply(Action::RunQuery(QuerySpec {
            filter: sparsetable::RowFilter::RowKeyRegex(b"(".to_vec()),
            ..QuerySpec::default()
        }));
        assert_eq!(
            p.error.as_ref().map(|e| e.code.as_str()),
            Some("INVALID_ARGUMENT")
        );
        assert_eq!(p.query.as_ref().unwrap().rows.len(), 5);
    }

    #[test]
    fn an_export_imports_into_a_fresh_playground_with_the_same_grid() {
        let mut p = Playground::new(START);
        create(&mut p, "t", "cf, meta", "3");
        write(&mut p, "a", "cf", "q", "1");
        write(&mut p, "a", "cf", "q", "2");
        write(&mut p, "b", "meta", "m", "x");
        let json = p.export_json().unwrap();
        let mut fresh = Playground::new(START);
        fresh.apply(Action::ImportJson(json.clone()));
        assert_eq!(fresh.error, None);
        assert_eq!(fresh.tables, p.tables);
        assert_eq!(columns(&fresh), columns(&p));
        assert_eq!(cells(&fresh, 0), cells(&p, 0));
        assert_eq!(cells(&fresh, 1), cells(&p, 1));
        assert!(
            fresh.now_micros >= p.now_micros,
            "the clock moves to the session's time"
        );
        fresh.apply(Action::ImportJson(json));
        assert_eq!(
            fresh.error.as_ref().map(|e| e.code.as_str()),
            Some("ALREADY_EXISTS")
        );
        let mut from_csv = Playground::new(START);
        from_csv.apply(Action::ImportCsv(p.export_csv().unwrap()));
        assert_eq!(from_csv.error, None);
        assert_eq!(cells(&from_csv, 0), cells(&p, 0));
    }

    #[test]
    fn gc_rules_and_values_in_words() {
        assert_eq!(
            describe_gc(&GcRule::MaxAge {
                micros: 604_800_000_000
            }),
            "older than 7 days"
        );
        assert_eq!(
            describe_gc(&GcRule::MaxAge { micros: 90_000_000 }),
            "older than 90 s"
        );
        assert_eq!(
            describe_gc(&GcRule::Intersection(vec![
                GcRule::MaxNumVersions(2),
                GcRule::MaxAge {
                    micros: 3_600_000_000
                }
            ])),
            "beyond max versions 2 and older than 1 hour"
        );
        assert_eq!(as_int64(&42i64.to_be_bytes()), Some(42));
        assert_eq!(as_int64(b"short"), None);
    }

    #[test]
    fn bytes_display_as_text_or_escapes() {
        assert_eq!(display_bytes(b"user#1"), "user#1");
        assert_eq!(display_bytes("ключ".as_bytes()), "ключ");
        assert_eq!(display_bytes(&[b'a', 0, 0xff]), "a\\x00\\xff");
    }
}
