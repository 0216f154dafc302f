//! What a person can do in the playground: the page's views ([`View`]) and every action the
//! UI sends to the engine's worker ([`Action`]), which [`super::Playground::apply`] runs.

use super::*;

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
        /// The value as typed.
        value: String,
        /// How `value` is read (text, hex, int64, JSON).
        #[serde(default)]
        value_type: crate::value_input::ValueType,
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
    /// Shows the version at this timestamp whole in the versions drawer (values are cut at
    /// `display::PREVIEW_BYTES` until asked).
    ShowWholeVersion(i64),
    /// Replaces a family's GC rule in the selected table.
    SetGcRule {
        /// The family.
        family: String,
        /// The new rule.
        rule: GcRule,
    },
    /// Works out what replacing a family's GC rule would do (shown before it is applied).
    PreviewGcRule {
        /// The family.
        family: String,
        /// The rule being edited.
        rule: GcRule,
    },
    /// Switches the GC mode: Background (collectable cells stay readable until a
    /// collection, as in Bigtable) or Immediate (reads hide them at once).
    SetGcMode {
        /// Background rather than Immediate.
        background: bool,
    },
    /// "Collect now": a garbage collection pass over the selected table.
    CollectGarbage,
    /// Reads the selected table in the Query view with the filter mirroring its GC rules.
    ReadWithGcFilter,
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
    /// Deletes a table and its data (the page asked for confirmation first).
    DeleteTable(String),
    /// Deletes every table: the session starts again empty, the clock where it was (the page
    /// asked for confirmation first).
    ResetSession,
    /// The lab (console, tablet map, heatmap, scenarios, key builder): see [`crate::lab`].
    Lab(crate::lab::LabAction),
}
