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

pub use crate::display::{as_int64, display_bytes, grid_value, ShownError, WRITE_TICK_MICROS};
pub use crate::grid_data::{CellSummary, FamilyColumns, GridChange, GridRow, RowBatch};

mod actions;
mod gc;
mod views;
pub use actions::{Action, View};
pub use gc::{mirror_filter, GcPreview};
pub use views::{
    describe_gc, duration, find_table, Drawer, GridHandle, QueryResult, TableSummary, VersionView,
};

/// The playground: an engine on a manual clock plus the views the UI renders.
///
/// It lives in the engine's Web Worker and is neither cloned nor compared: the page holds a
/// copy of its views (`remote::Shown`), whose fields, and how each is read from here, are
/// listed once in `remote.rs` (`shown_fields!`), which also names every field of this struct
/// so a new one cannot be left out of the page's copy unnoticed.
pub struct Playground {
    pub(crate) db: Database,
    pub(crate) clock: Arc<ManualClock>,
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
    /// Whether the engine runs in Background GC mode (the playground's default, Cloud
    /// Bigtable's behaviour; see `state::gc`).
    pub gc_background: bool,
    /// What the GC rule being edited would do, before it is applied.
    pub gc_preview: Option<GcPreview>,
    /// A read the Query view's form should show (set by "read with the mirroring filter").
    pub query_preset: Option<crate::query::QuerySpec>,
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
        let mut db = Database::with_clock(clock.clone());
        // A playground that teaches Bigtable collects garbage as Bigtable does (`state::gc`).
        db.set_gc_mode(sparsetable::GcMode::Background);
        let mut p = Playground {
            db,
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
            gc_background: true,
            gc_preview: None,
            query_preset: None,
        };
        p.refresh_tables();
        p
    }

    /// The engine, for reads a view makes itself (the lab's views). Reads for display must
    /// be untracked: `RowStream::set_access_stats(false)`.
    pub fn database(&self) -> &Database {
        &self.db
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
        session::to_json(&session::capture(&self.db)?)
    }

    /// Reads `table` with a request in the proto3 JSON model (untracked) and returns the row
    /// keys: the engine's own answer, for comparing with what the page shows.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for bad JSON; the engine's errors.
    pub fn read_keys_json(&self, table: &str, request: &str) -> Result<Vec<String>, ShownError> {
        let request: ReadRowsRequest = sparsetable::json::from_str(request).map_err(shown)?;
        let (rows, _) = query::run(&self.db, table, &request, false).map_err(shown)?;
        Ok(rows.iter().map(|r| display_bytes(&r.key)).collect())
    }

    /// The whole session as CSV.
    ///
    /// # Errors
    /// The engine's.
    pub fn export_csv(&self) -> Result<String, ShownError> {
        Ok(session::to_csv(&session::capture(&self.db)?))
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
                value_type,
            } => value_type
                .parse(&value)
                .and_then(|value| self.write_cell(row_key, family, qualifier, value)),
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
                    whole: Vec::new(),
                });
                self.refresh_drawer();
                Ok(())
            }
            Action::CloseDrawer => {
                self.drawer = None;
                Ok(())
            }
            Action::ShowWholeVersion(ts) => {
                if let Some(d) = &mut self.drawer {
                    d.whole.push(ts);
                }
                self.refresh_drawer();
                Ok(())
            }
            Action::SetGcRule { family, rule } => self.set_gc_rule(family, rule),
            Action::PreviewGcRule { family, rule } => self.preview_gc_rule(family, rule),
            Action::SetGcMode { background } => self.set_gc_mode(background),
            Action::CollectGarbage => self.collect_now(),
            Action::ReadWithGcFilter => self.read_with_gc_filter(),
            Action::RunQuery(spec) => {
                // The form holds its own draft now; the next preset must reach it anew.
                self.query_preset = None;
                self.run_query(&spec)
            }
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
            Action::DeleteTable(name) => self.delete_tables(&[name]),
            Action::ResetSession => {
                let names: Vec<String> = self.tables.iter().map(|t| t.name.clone()).collect();
                self.delete_tables(&names)
            }
            Action::Lab(a) => self.lab.apply(&mut self.db, &self.clock, a),
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
        self.now_micros = self.db.now_micros();
        // An import may bring its session's mode.
        self.gc_background = self.db.gc_mode() == sparsetable::GcMode::Background;
        let selected = self.selected.clone();
        let grid = self.grid.data.borrow().clone();
        self.lab
            .observe(&mut self.db, selected.as_deref(), &grid.rows);
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
        self.db.create_table(table_id, config).map_err(shown)?;
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
        value: Vec<u8>,
    ) -> Result<(), ShownError> {
        // -1 is Bigtable's "server time": the engine stamps the cell with its clock.
        let mutation = Mutation::set_cell(family, qualifier.into_bytes(), -1, value);
        self.mutate(row_key.into_bytes(), alloc::vec![mutation])?;
        self.clock.advance_micros(WRITE_TICK_MICROS);
        Ok(())
    }

    /// Deletes the tables (when the selected one goes, `refresh_tables` selects another and
    /// drops its drawer, query and hits) and
    /// shows the delete as code when it is one table.
    fn delete_tables(&mut self, names: &[String]) -> Result<(), ShownError> {
        for name in names {
            self.db.delete_table(name).map_err(shown)?;
            self.revision += 1;
        }
        self.last_write = match names {
            [table] => Some(codegen::admin_snippets(&codegen::AdminOp::DeleteTable {
                table,
            })),
            _ => None,
        };
        self.refresh_tables();
        Ok(())
    }

    /// Applies mutations to one row of the selected table, then redraws that row (and the
    /// drawer, if it shows it) and records the write as code.
    fn mutate(&mut self, key: Vec<u8>, mutations: Vec<Mutation>) -> Result<(), ShownError> {
        let table = self.selected.clone().ok_or_else(|| ShownError {
            code: "FAILED_PRECONDITION".into(),
            message: "create a table first".into(),
        })?;
        let now = self.db.now_micros();
        self.db
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
        self.gc_preview = None;
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
        let (rows, explain) = query::run(&self.db, &table, &request, true).map_err(shown)?;
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
        let now = self.db.now_micros();
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
                let statuses = self.db.mutate_rows(&table, &batch).map_err(shown)?;
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
        let result = session::restore(&mut self.db, s);
        // Time never goes back: cells keep their timestamps and new writes come after them.
        let behind = s.now_micros - self.db.now_micros();
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
        self.notice = Some(format!(
            "Imported {}, {}",
            crate::display::count_of(s.tables.len(), "table", "tables"),
            crate::display::count_of(rows, "row", "rows")
        ));
        Ok(())
    }

    /// Re-reads the table list; if the selection changed, the grid too.
    fn refresh_tables(&mut self) {
        let before = self.selected.clone();
        let db = &self.db;
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
                let db = &self.db;
                match query::run(db, table, &ReadRowsRequest::default(), false) {
                    Ok((rows, _)) => GridData::build_with_gc(&families, self.grid_gc(), rows),
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
        let row = query::run(&self.db, table, &request, false)
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
        let Ok((rows, _)) = query::run(&self.db, table, &request, false) else {
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
        let db = &self.db;
        let hides = db.gc_mode().hides_collectable();
        let stored = db
            .read_row_versions(table, &drawer.row_key)
            .unwrap_or_default();
        drawer.versions = stored
            .into_iter()
            .filter(|s| s.cell.family == drawer.family && s.cell.qualifier == drawer.qualifier)
            .map(|s| {
                let mut value = s.cell.value;
                let len = value.len();
                if !drawer.whole.contains(&s.cell.timestamp_micros) {
                    value.truncate(crate::display::preview_len(
                        &value,
                        crate::display::PREVIEW_BYTES,
                    ));
                }
                VersionView {
                    timestamp_micros: s.cell.timestamp_micros,
                    value,
                    len,
                    // Immediate mode hides what the rule collects; Background mode still
                    // returns it until a collection (eligible for GC).
                    hidden_by: s.collected_by.as_ref().filter(|_| hides).map(describe_gc),
                    eligible_by: s.collected_by.as_ref().filter(|_| !hides).map(describe_gc),
                }
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
mod tests;

#[cfg(test)]
mod gc_tests;
