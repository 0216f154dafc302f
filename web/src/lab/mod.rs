//! The lab: the playground's console, tablet map, Key Visualizer heatmap, scenarios, load
//! generator and key builder. Pure Rust like the reducer: [`Lab::apply`] runs a
//! [`LabAction`] against the playground's database and [`Lab::observe`] refreshes the
//! lab's views after any action.
//!
//! Invariants:
//! - the views read only `Database::tablets`, `access_stats`, `get_table` and
//!   `take_tablet_events`, none of which counts as a read in the access statistics; row
//!   counts come from the keys the lab wrote (load generator, scenario data, console `set`
//!   and `deleterow`), or for the playground's selected table from the grid the page already
//!   holds, never from reading rows; row sizes likewise count what the lab wrote;
//! - a table shown in the lab splits at the lab's small thresholds: lesson tables are made
//!   with them, and a user's table still on the engine's defaults gets them when first shown;
//! - the heavy state (keys written, recent writes, the console's files, the generator) stays
//!   in the engine's Web Worker with the database; the page is sent only the views;
//! - a scenario recreates its tables, so running it again starts it over.

mod console;
pub mod heatmap;
pub mod keys;
pub mod keyvis;
pub mod load;
pub mod replication;
pub mod replication_code;
mod sample_data;
pub mod scenarios;
pub mod tablets;

use alloc::collections::{BTreeMap, BTreeSet, VecDeque};
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::ops::Bound;

use crate::grid_data::GridRow;
use sparsetable::{
    ColumnFamily, Database, GcRule, ManualClock, Mutation, ReadRowsRequest, RowFilter, RowRange,
    RowSet, StatsOptions, TableConfig, TabletOptions,
};
use sparsetable_console::Console;

use crate::display::{display_bytes, ShownError};
use heatmap::{Heatmap, Metric};
use keys::{KeyDesign, Segment, REVERSE_BASE_MICROS};
use load::{Generator, Lane, LoadSettings, Shape, FAMILY};
use sample_data::{bus_updates, comment_rows, COMMENTS_PER_TICK};
use scenarios::ScenarioId;
use tablets::{EventLine, TabletView};

/// The tablet thresholds lab tables start with: small, so a few thousand rows split.
pub const LAB_TABLET_OPTIONS: TabletOptions = TabletOptions {
    memtable_bytes: 8 * 1024,
    max_runs: 4,
    split_bytes: 48 * 1024,
    merge_bytes: 8 * 1024,
    split_load_ops: 600,
};

/// How lab tables bucket their access statistics: one-second time buckets (the load
/// generator's tick), 12-byte key buckets (enough to tell timestamps and salts apart).
pub const LAB_STATS: StatsOptions = StatsOptions {
    bucket_micros: 1_000_000,
    key_prefix_bytes: 12,
    max_buckets: 90,
};

/// Recent writes the hotspot score looks at, per lane: about one tick at the default rate,
/// and less than a tablet holds, so a moving hotspot is not smeared over the tablets it
/// already left.
pub const RECENT_WRITES: usize = 200;

/// Ticks a scenario runs when it starts (one simulated second each).
pub const SCENARIO_TICKS: u32 = 15;

/// Something done in the lab.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LabAction {
    /// Runs a console line.
    Console(String),
    /// Clears the console's scrollback.
    ClearConsole,
    /// Registers a file the console's `import` can read.
    AddFile {
        /// The name `import` uses.
        name: String,
        /// The CSV text.
        text: String,
    },
    /// Starts a scenario (by slug), recreating its tables and loading them.
    RunScenario(String),
    /// Runs the load generator for this many ticks.
    Load(u32),
    /// Changes the load generator's settings.
    SetLoad(LoadSettings),
    /// Sets the tablet thresholds of every lane's table.
    SetThresholds(#[serde(with = "crate::wire::tablet_options")] TabletOptions),
    /// Compacts every lane's table now: each tablet is rewritten, and a tablet under the
    /// merge threshold whose neighbour is also small and cold merges with it (the event log
    /// shows the merges; load-driven writes never compact the tablets they left behind).
    Compact,
    /// Shows another metric in the heatmaps.
    SetMetric(Metric),
    /// Drills the heatmaps into a key range (`None`: every key again).
    Zoom(Option<keyvis::KeyZoom>),
    /// Sets design A (slot 0) or B (slot 1) of the key builder.
    SetDesign {
        /// 0 for A, 1 for B.
        slot: usize,
        /// The design.
        design: KeyDesign,
    },
    /// The replication lesson (see [`replication`]).
    Replication(replication::ReplAction),
    /// The comments pager: first page (`next: false`) or the next one, with a key regex.
    Page {
        /// Continue from the resume key.
        next: bool,
        /// A row-key regex; empty for none.
        regex: String,
    },
}

/// What a lab action may change besides the lab's own view, so the playground re-reads no
/// more than that.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LabEffect {
    /// Nothing outside the lab (a view setting, thresholds, a compaction: reads see the same
    /// rows).
    Nothing,
    /// Rows of these tables (the load generator's lanes): after the action,
    /// [`Lab::written_rows`] names them.
    Rows(Vec<String>),
    /// Anything: tables created or dropped, any row (the console, a scenario).
    Anything,
}

/// One console exchange.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ConsoleEntry {
    /// The line typed.
    pub command: String,
    /// What cbt prints on stdout.
    pub stdout: String,
    /// What it logs on stderr.
    pub stderr: String,
    /// Whether it failed.
    pub failed: bool,
}

/// One lane as the views show it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LaneView {
    /// The table.
    pub table: String,
    /// The key design's name.
    pub design: String,
    /// Its tablets in key order.
    pub tablets: Vec<TabletView>,
    /// The hottest tablet's share of recent writes, per mille; `None` with fewer than two
    /// tablets (one tablet takes every write by definition: no hotspot to score).
    pub hotspot_permille: Option<u32>,
    /// The heatmap of the chosen metric (of the drilled-into key range, if any).
    pub heatmap: Heatmap,
    /// Key Visualizer's diagnostic messages for the table.
    pub diagnostics: Vec<keyvis::Diagnostic>,
    /// Splits seen so far.
    pub splits: usize,
    /// Merges of cold neighbours seen so far.
    pub merges: usize,
    /// Rows the lab wrote.
    pub rows: usize,
    /// Sizes of the rows the lab wrote (the tall-vs-wide lesson compares them with
    /// Bigtable's row-size advice and limit).
    pub row_sizes: RowSizes,
}

/// What the lab wrote per row: bytes (qualifier, value and the 8-byte timestamp of each
/// cell) and cells, for the largest row and on average. Counted as written, from the lab's
/// own writes (nothing here reads rows); lesson tables keep every version, so written is
/// held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct RowSizes {
    /// Bytes of the largest row.
    pub largest_bytes: u64,
    /// Cells of the largest row.
    pub largest_cells: u64,
    /// Bytes over all rows.
    pub total_bytes: u64,
    /// Cells over all rows.
    pub total_cells: u64,
}

/// Bigtable's advice: keep a row under 100 MB.
pub const ROW_ADVICE_BYTES: u64 = 100 * 1000 * 1000;
/// Bigtable's hard limit on a row: 256 MB.
pub const ROW_LIMIT_BYTES: u64 = 256 * 1000 * 1000;

/// The bytes a cell adds to its row, as [`RowSizes`] counts them.
fn cell_bytes(m: &Mutation) -> u64 {
    match m {
        Mutation::SetCell {
            qualifier, value, ..
        } => (qualifier.len() + value.len() + 8) as u64,
        _ => 0,
    }
}

/// The comments pager.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct PagerView {
    /// Page number, from 1.
    pub page: usize,
    /// The rows: key and comment text.
    pub rows: Vec<(String, String)>,
    /// Where the next page starts.
    pub resume: Option<Vec<u8>>,
    /// The regex used.
    pub regex: String,
    /// The same read as a cbt command.
    pub command: String,
}

/// What the lab shows.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct LabView {
    /// The console's scrollback, oldest first.
    pub console: Vec<ConsoleEntry>,
    /// The lanes (a scenario's tables, or the selected table).
    pub lanes: Vec<LaneView>,
    /// The thresholds of the first lane's table.
    #[serde(with = "crate::wire::tablet_options")]
    pub thresholds: TabletOptions,
    /// The running scenario's slug.
    pub scenario: Option<String>,
    /// Load generator settings.
    pub load: LoadSettings,
    /// Ticks run so far.
    pub ticks: u64,
    /// The heatmap metric.
    pub metric: Metric,
    /// Key builder designs A and B.
    pub designs: [KeyDesign; 2],
    /// The comments pager.
    pub pager: Option<PagerView>,
    /// Console files by name.
    pub files: Vec<String>,
    /// The replication lesson, once started.
    pub replication: Option<replication::ReplView>,
    /// The key range the heatmaps are drilled into.
    pub zoom: Option<keyvis::KeyZoom>,
    /// The hot tablets of the last minute (ListHotTablets).
    pub hot_tablets: Vec<keyvis::HotTabletView>,
}

#[derive(Debug, Default)]
struct Inner {
    console: Console,
    lanes: Vec<Lane>,
    /// Lanes the generator writes (the bus and comments scenarios write their own data).
    generated: bool,
    generator: Generator,
    keys: BTreeMap<String, BTreeSet<Vec<u8>>>,
    recent: BTreeMap<String, VecDeque<Vec<u8>>>,
    splits: BTreeMap<String, usize>,
    merges: BTreeMap<String, usize>,
    /// The rows the last `Load` action wrote, per table: the grid re-reads just these.
    last_written: BTreeMap<String, BTreeSet<Vec<u8>>>,
    /// Bytes and cells written per row, per table.
    row_bytes: BTreeMap<String, BTreeMap<Vec<u8>, (u64, u64)>>,
    /// Per table: the totals and the largest row of `row_bytes`, kept as writes come.
    row_sizes: BTreeMap<String, RowSizes>,
    /// The next comment id the comments lesson's load writes.
    next_comment: u32,
    /// The replication lesson's instance, once started.
    repl: Option<replication::ReplLab>,
}

impl Inner {
    /// Counts a write of `cells` cells of `bytes` bytes into `key` of `table`.
    fn count_write(&mut self, table: &str, key: &[u8], bytes: u64, cells: u64) {
        let rows = self.row_bytes.entry(table.into()).or_default();
        let row = rows.entry(key.to_vec()).or_default();
        row.0 += bytes;
        row.1 += cells;
        let row = *row;
        let sizes = self.row_sizes.entry(table.into()).or_default();
        sizes.total_bytes += bytes;
        sizes.total_cells += cells;
        if row.0 > sizes.largest_bytes {
            sizes.largest_bytes = row.0;
            sizes.largest_cells = row.1;
        }
    }
}

/// The lab's state: its heavy state plus the views. It lives in the engine's Web Worker
/// beside the database and is neither cloned nor compared: the page holds only `view` and
/// `events` (`remote::Shown`).
#[derive(Debug)]
pub struct Lab {
    inner: Inner,
    /// What the lab components render.
    pub view: LabView,
    /// Tablet events, oldest first (the newest 200): apart from the view, so the page is
    /// sent them only when they change, not with every lane update.
    pub events: Vec<EventLine>,
}

impl Default for Lab {
    fn default() -> Self {
        let mut view = LabView {
            thresholds: LAB_TABLET_OPTIONS,
            designs: [KeyDesign::sequential(), KeyDesign::field_promoted()],
            ..LabView::default()
        };
        view.files.push("sample.csv".into());
        let mut inner = Inner::default();
        inner.console.files.insert(
            "sample.csv".into(),
            b",name,city\nuser#0001,Ada,London\nuser#0002,Grace,Arlington\nuser#0003,Edsger,Nuenen\n".to_vec(),
        );
        Lab {
            inner,
            view,
            events: Vec::new(),
        }
    }
}

fn err(code: &str, message: impl Into<String>) -> ShownError {
    ShownError {
        code: code.into(),
        message: message.into(),
    }
}

fn shown(e: sparsetable::Error) -> ShownError {
    err(e.code().as_str(), e.message())
}

/// Creates (or recreates) a lab table with one family, the small thresholds and
/// one-second statistics.
fn fresh_table(
    db: &mut Database,
    name: &str,
    families: &[(&str, GcRule)],
) -> Result<(), ShownError> {
    if db.get_table(name).is_ok() {
        db.delete_table(name).map_err(shown)?;
    }
    let mut config = TableConfig {
        tablet_options: LAB_TABLET_OPTIONS,
        ..TableConfig::default()
    };
    for (f, gc_rule) in families {
        config.families.insert(
            (*f).into(),
            ColumnFamily {
                gc_rule: gc_rule.clone(),
                ..ColumnFamily::default()
            },
        );
    }
    db.create_table(name, config).map_err(shown)?;
    db.set_stats_options(name, LAB_STATS).map_err(shown)
}

/// Rows in `rows` (sorted by key) from `start` (inclusive) to `end` (exclusive; empty: the
/// end).
fn rows_between(rows: &[GridRow], start: &[u8], end: &[u8]) -> usize {
    let from = rows.partition_point(|r| r.key.as_slice() < start);
    let to = if end.is_empty() {
        rows.len()
    } else {
        rows.partition_point(|r| r.key.as_slice() < end)
    };
    to.saturating_sub(from)
}

impl Lab {
    /// The lanes' table names.
    fn lane_tables(&self) -> Vec<String> {
        self.inner.lanes.iter().map(|l| l.table.clone()).collect()
    }

    /// The lanes' tables, or FAILED_PRECONDITION (`what` says why they are needed) when no
    /// scenario has made any.
    fn lane_tables_or(&self, what: &str) -> Result<Vec<String>, ShownError> {
        let tables = self.lane_tables();
        if tables.is_empty() {
            return Err(err(
                "FAILED_PRECONDITION",
                format!("run a scenario first: {what}"),
            ));
        }
        Ok(tables)
    }

    /// What `action` may change outside the lab, judged before it runs.
    pub fn effect(&self, action: &LabAction) -> LabEffect {
        match action {
            LabAction::Console(_) | LabAction::RunScenario(_) => LabEffect::Anything,
            LabAction::Load(_) => LabEffect::Rows(self.lane_tables()),
            LabAction::ClearConsole
            | LabAction::AddFile { .. }
            | LabAction::SetLoad(_)
            | LabAction::SetThresholds(_)
            | LabAction::Compact
            | LabAction::SetMetric(_)
            | LabAction::Zoom(_)
            | LabAction::SetDesign { .. }
            | LabAction::Page { .. }
            // The lesson's instance is its own: the playground's tables are untouched.
            | LabAction::Replication(_) => LabEffect::Nothing,
        }
    }

    /// The rows of `table` the last [`LabAction::Load`] wrote (sorted, each once); `None` if it
    /// wrote none there. What a [`LabEffect::Rows`] asks the grid to re-read.
    pub fn written_rows(&self, table: &str) -> Option<BTreeSet<Vec<u8>>> {
        self.inner.last_written.get(table).cloned()
    }

    /// Runs one lab action.
    ///
    /// # Errors
    /// The engine's error, or a message for a bad request (unknown scenario).
    pub fn apply(
        &mut self,
        db: &mut Database,
        clock: &Arc<ManualClock>,
        action: LabAction,
    ) -> Result<(), ShownError> {
        match action {
            LabAction::Replication(a) => {
                let inner = &mut self.inner;
                if let replication::ReplAction::Start { clusters } = a {
                    inner.repl = Some(replication::ReplLab::new(clusters, clock)?);
                }
                let repl = inner.repl.as_mut().ok_or_else(|| {
                    err("FAILED_PRECONDITION", "start the replication lesson first")
                })?;
                repl.apply(clock, a)?;
                self.view.replication = Some(repl.view());
            }
            LabAction::Console(line) => {
                self.console(db, &line);
                // Time passes between two commands, as between two cbt runs against a
                // server; the console itself never reuses a millisecond for a write.
                clock.advance_micros(crate::display::WRITE_TICK_MICROS);
            }
            LabAction::ClearConsole => self.view.console.clear(),
            LabAction::AddFile { name, text } => {
                let name = name.trim().to_string();
                if name.is_empty() {
                    return Err(err("INVALID_ARGUMENT", "name the file"));
                }
                self.inner
                    .console
                    .files
                    .insert(name.clone(), text.into_bytes());
                if !self.view.files.contains(&name) {
                    self.view.files.push(name);
                }
            }
            LabAction::RunScenario(slug) => {
                let s = scenarios::by_slug(&slug)
                    .ok_or_else(|| err("NOT_FOUND", format!("no scenario {slug:?}")))?;
                self.run_scenario(db, clock, s.id)?;
                self.view.scenario = Some(s.slug.into());
            }
            LabAction::Load(ticks) => self.load(db, clock, ticks),
            LabAction::SetLoad(settings) => {
                if settings.rate == 0
                    || settings.rate > 1000
                    || settings.read_percent > 100
                    || settings.entities == 0
                {
                    return Err(err(
                        "INVALID_ARGUMENT",
                        "load: rate 1 to 1000, reads 0 to 100 %, at least one entity",
                    ));
                }
                self.view.load = settings;
            }
            LabAction::SetThresholds(options) => {
                for t in self.lane_tables_or("thresholds apply to its tables")? {
                    db.set_tablet_options(&t, options).map_err(shown)?;
                }
            }
            LabAction::Compact => {
                for t in self.lane_tables_or("compaction runs on its tables")? {
                    db.compact_table(&t).map_err(shown)?;
                }
            }
            LabAction::SetMetric(m) => self.view.metric = m,
            LabAction::Zoom(z) => self.view.zoom = z,
            LabAction::SetDesign { slot, design } => {
                if slot > 1 || design.segments.is_empty() {
                    return Err(err(
                        "INVALID_ARGUMENT",
                        "a design needs at least one segment",
                    ));
                }
                self.view.designs[slot] = design;
            }
            LabAction::Page { next, regex } => self.page(db, next, regex)?,
        }
        Ok(())
    }

    fn load(&mut self, db: &mut Database, clock: &ManualClock, ticks: u32) {
        let inner = &mut self.inner;
        inner.last_written.clear();
        if inner.lanes.is_empty() {
            return;
        }
        if !inner.generated {
            self.scripted_load(db, clock, ticks);
            return;
        }
        let lanes = inner.lanes.clone();
        for _ in 0..ticks {
            let result = inner.generator.tick(db, clock, &lanes, &self.view.load);
            for (lane, written) in lanes.iter().zip(result.written) {
                inner
                    .last_written
                    .entry(lane.table.clone())
                    .or_default()
                    .extend(written.iter().cloned());
                let recent = inner.recent.entry(lane.table.clone()).or_default();
                recent.extend(written.iter().cloned());
                let excess = recent.len().saturating_sub(RECENT_WRITES);
                recent.drain(..excess);
                let bytes = match lane.shape {
                    Shape::Tall => 1,
                    Shape::Wide => 10,
                } + self.view.load.value_bytes as u64
                    + 8;
                for key in &written {
                    inner.count_write(&lane.table, key, bytes, 1);
                }
                inner
                    .keys
                    .entry(lane.table.clone())
                    .or_default()
                    .extend(written);
            }
            self.view.ticks += 1;
        }
    }

    /// Load for the lessons with their own data (bus, comments), one simulated second per
    /// tick: every bus reports its position again (a new version of its cells), or a few
    /// new comments arrive.
    fn scripted_load(&mut self, db: &mut Database, clock: &ManualClock, ticks: u32) {
        for _ in 0..ticks {
            let start = db.now_micros();
            let start = start - start.rem_euclid(1000);
            let tick = self.view.ticks as i64;
            let result = match self.view.scenario.as_deref() {
                Some("bus") => {
                    let rows = bus_updates(3 + tick, start);
                    self.write_rows(db, "vehicles", &rows)
                }
                Some("comments") => {
                    let (mut main, mut index) = (Vec::new(), Vec::new());
                    for i in 0..COMMENTS_PER_TICK {
                        let id = {
                            let inner = &mut self.inner;
                            inner.next_comment += 1;
                            inner.next_comment - 1
                        };
                        let (m, x) = comment_rows(id, start + i64::from(i) * 1000);
                        main.push(m);
                        index.push(x);
                    }
                    self.write_rows(db, "comments", &main)
                        .and_then(|()| self.write_rows(db, "comment_index", &index))
                }
                _ => Ok(()),
            };
            if result.is_err() {
                // The lesson's tables are gone (deleted from the console, say).
                return;
            }
            clock.set_micros(start + 1_000_000);
            self.view.ticks += 1;
        }
    }

    fn set_lanes(&mut self, lanes: Vec<Lane>, generated: bool) {
        let inner = &mut self.inner;
        for lane in &lanes {
            inner.keys.remove(&lane.table);
            inner.row_bytes.remove(&lane.table);
            inner.row_sizes.remove(&lane.table);
            inner.recent.remove(&lane.table);
            inner.splits.remove(&lane.table);
            inner.merges.remove(&lane.table);
        }
        inner.lanes = lanes;
        inner.generated = generated;
        inner.generator = Generator::default();
        self.view.pager = None;
        self.view.ticks = 0;
    }

    fn write_rows(
        &mut self,
        db: &mut Database,
        table: &str,
        rows: &[(Vec<u8>, Vec<Mutation>)],
    ) -> Result<(), ShownError> {
        for (key, mutations) in rows {
            db.mutate_row(table, key, mutations).map_err(shown)?;
        }
        let inner = &mut self.inner;
        for (key, mutations) in rows {
            let bytes = mutations.iter().map(cell_bytes).sum();
            inner.count_write(table, key, bytes, mutations.len() as u64);
        }
        inner
            .last_written
            .entry(table.into())
            .or_default()
            .extend(rows.iter().map(|(k, _)| k.clone()));
        let keys = inner.keys.entry(table.into()).or_default();
        keys.extend(rows.iter().map(|(k, _)| k.clone()));
        let recent = inner.recent.entry(table.into()).or_default();
        recent.extend(rows.iter().map(|(k, _)| k.clone()));
        let excess = recent.len().saturating_sub(RECENT_WRITES);
        recent.drain(..excess);
        Ok(())
    }

    fn run_scenario(
        &mut self,
        db: &mut Database,
        clock: &ManualClock,
        id: ScenarioId,
    ) -> Result<(), ShownError> {
        let m = [(FAMILY, GcRule::Never)];
        let lane = |table: &str, design: KeyDesign, shape| Lane {
            table: table.into(),
            design,
            shape,
        };
        match id {
            ScenarioId::Hotspots => {
                let lanes = alloc::vec![
                    lane("hot_sequential", KeyDesign::sequential(), Shape::Tall),
                    lane("hot_salted", KeyDesign::salted(8), Shape::Tall),
                    lane("hot_promoted", KeyDesign::field_promoted(), Shape::Tall),
                ];
                for l in &lanes {
                    fresh_table(db, &l.table, &m)?;
                }
                self.set_lanes(lanes, true);
                self.load(db, clock, SCENARIO_TICKS);
            }
            ScenarioId::TimeSeries => {
                fresh_table(
                    db,
                    "sensor_ts",
                    &[(
                        FAMILY,
                        GcRule::MaxAge {
                            micros: 3_600_000_000,
                        },
                    )],
                )?;
                self.set_lanes(
                    alloc::vec![lane(
                        "sensor_ts",
                        KeyDesign::reverse_timestamp(),
                        Shape::Tall
                    )],
                    true,
                );
                self.load(db, clock, 10);
            }
            ScenarioId::TallWide => {
                let lanes = alloc::vec![
                    lane("tall", KeyDesign::reverse_timestamp(), Shape::Tall),
                    lane("wide", KeyDesign::entity_only(), Shape::Wide),
                ];
                for l in &lanes {
                    fresh_table(db, &l.table, &m)?;
                }
                self.set_lanes(lanes, true);
                self.load(db, clock, 10);
            }
            ScenarioId::AB => {
                let [a, b] = self.view.designs.clone();
                let lanes = alloc::vec![lane("ab_a", a, Shape::Tall), lane("ab_b", b, Shape::Tall)];
                for l in &lanes {
                    fresh_table(db, &l.table, &m)?;
                }
                self.set_lanes(lanes, true);
                self.load(db, clock, SCENARIO_TICKS);
            }
            ScenarioId::Bus => {
                fresh_table(db, "vehicles", &[("loc", GcRule::MaxNumVersions(3))])?;
                let design = KeyDesign {
                    name: "company#route#vehicle".into(),
                    segments: alloc::vec![
                        Segment::Literal("company".into()),
                        Segment::Literal("route".into()),
                        Segment::Literal("vehicle".into())
                    ],
                    separator: "#".into(),
                };
                self.set_lanes(alloc::vec![lane("vehicles", design, Shape::Tall)], false);
                let now = db.now_micros() / 1000 * 1000;
                // Three position updates, 30 s apart: the family keeps all three.
                for update in 0..3i64 {
                    self.write_rows(
                        db,
                        "vehicles",
                        &bus_updates(update, now + update * 30_000_000),
                    )?;
                }
                // The clock moves past the last update, so later updates (load) are newer.
                clock.set_micros(now + 61_000_000);
            }
            ScenarioId::Comments => {
                fresh_table(db, "comments", &[("c", GcRule::MaxNumVersions(1))])?;
                fresh_table(db, "comment_index", &[("ref", GcRule::MaxNumVersions(1))])?;
                let design = KeyDesign {
                    name: "PRODUCT#id/reverse_ts/lang/rating/COMMENT#id".into(),
                    segments: alloc::vec![
                        Segment::Literal("PRODUCT#42".into()),
                        Segment::ReverseTimestamp
                    ],
                    separator: "/".into(),
                };
                self.set_lanes(alloc::vec![lane("comments", design, Shape::Tall)], false);
                let now = db.now_micros() / 1000 * 1000;
                let (mut main, mut index) = (Vec::new(), Vec::new());
                for id in 0..130u32 {
                    let (m, x) = comment_rows(id, now - i64::from(130 - id) * 3_600_000_000);
                    main.push(m);
                    index.push(x);
                }
                self.inner.next_comment = 130;
                self.write_rows(db, "comments", &main)?;
                self.write_rows(db, "comment_index", &index)?;
                self.page(db, false, String::new())?;
            }
        }
        Ok(())
    }

    /// Reads one page of PRODUCT#42's comments: 21 rows from the resume key (or the
    /// product's first row), shows 20 and keeps the 21st as the next resume key.
    fn page(&mut self, db: &mut Database, next: bool, regex: String) -> Result<(), ShownError> {
        const PREFIX: &str = "PRODUCT#42/";
        const END: &str = "PRODUCT#42/~";
        let (start, page) = match (&self.view.pager, next) {
            (Some(p), true) if p.regex == regex => match &p.resume {
                Some(k) => (k.clone(), p.page + 1),
                None => return Err(err("OUT_OF_RANGE", "that was the last page")),
            },
            _ => (PREFIX.as_bytes().to_vec(), 1),
        };
        let request = ReadRowsRequest {
            row_set: RowSet {
                row_keys: Vec::new(),
                row_ranges: alloc::vec![RowRange {
                    start: Bound::Included(start.clone()),
                    end: Bound::Excluded(END.as_bytes().to_vec())
                }],
            },
            filter: if regex.is_empty() {
                RowFilter::PassAll
            } else {
                RowFilter::RowKeyRegex(regex.clone().into_bytes())
            },
            rows_limit: 21,
            reversed: false,
        };
        let mut rows: Vec<sparsetable::Row> =
            db.read_rows("comments", &request).map_err(shown)?.collect();
        let resume = if rows.len() == 21 {
            rows.pop().map(|r| r.key)
        } else {
            None
        };
        let shown_rows = rows
            .iter()
            .map(|r| {
                let text = r
                    .cells
                    .iter()
                    .find(|c| c.qualifier == b"text")
                    .map(|c| display_bytes(&c.value))
                    .unwrap_or_default();
                (display_bytes(&r.key), text)
            })
            .collect();
        let mut command = format!("read comments start={} end={END}", display_bytes(&start));
        if !regex.is_empty() {
            command += &format!(" regex={regex}");
        }
        command += " count=21";
        self.view.pager = Some(PagerView {
            page,
            rows: shown_rows,
            resume,
            regex,
            command,
        });
        Ok(())
    }

    /// Refreshes the views from the engine after any action: drains tablet events into the
    /// log and recomputes each lane's tablets and heatmap. `selected` is the playground's
    /// table, shown as the one lane when no scenario runs, with `selected_rows` its rows in
    /// key order (the grid's), which the lane counts its rows from. A table still on the
    /// engine's default thresholds is given the lab's small ones the first time it is shown
    /// (and compacted, so it splits now), so its map shows tablets as a lesson's does.
    pub fn observe(
        &mut self,
        db: &mut Database,
        selected: Option<&str>,
        selected_rows: &[GridRow],
    ) {
        let inner = &mut self.inner;
        // The lesson's instance runs on the same clock: a clock move delivers what is due.
        if let Some(repl) = inner.repl.as_mut() {
            repl.pump();
            self.view.replication = Some(repl.view());
        }
        for e in db.take_tablet_events() {
            match e.kind {
                sparsetable::TabletEventKind::Split => {
                    *inner.splits.entry(e.table.clone()).or_default() += 1
                }
                sparsetable::TabletEventKind::Merge => {
                    *inner.merges.entry(e.table.clone()).or_default() += 1
                }
                _ => {}
            }
            self.events.push(tablets::event_line(&e));
        }
        let excess = self.events.len().saturating_sub(200);
        self.events.drain(..excess);
        // Lanes whose tables were deleted (by the console, say) drop out.
        inner.lanes.retain(|l| db.get_table(&l.table).is_ok());
        let mut lanes: Vec<(String, String)> = inner
            .lanes
            .iter()
            .map(|l| (l.table.clone(), l.design.name.clone()))
            .collect();
        let mut user_table = None;
        if lanes.is_empty() {
            self.view.scenario = None;
            if let Some(t) = selected {
                lanes.push((t.to_string(), "—".into()));
                // The grid holds every row of the selected table, whoever wrote it.
                user_table = Some(t.to_string());
                let defaults = db
                    .get_table(t)
                    .is_ok_and(|i| i.config.tablet_options == TabletOptions::default());
                if defaults {
                    let _ = db.set_tablet_options(t, LAB_TABLET_OPTIONS);
                    let _ = db.compact_table(t);
                    // One line for the splits this made (the log, resent with the lab's
                    // view, stays short).
                    let splits = db
                        .take_tablet_events()
                        .iter()
                        .filter(|e| e.kind == sparsetable::TabletEventKind::Split)
                        .count();
                    *inner.splits.entry(t.to_string()).or_default() += splits;
                    if splits > 0 {
                        let tablets = db.tablets(t).map(|v| v.len()).unwrap_or(1);
                        self.events.push(EventLine {
                            table: t.to_string(),
                            kind: "split".into(),
                            text: format!(
                                "the lab's thresholds apply to {t}: {splits} splits, now {tablets} tablets"
                            ),
                        });
                    }
                }
            }
        }
        let empty = BTreeSet::new();
        self.view.lanes = lanes
            .into_iter()
            .filter_map(|(table, design)| {
                let infos = db.tablets(&table).ok()?;
                let keys = inner.keys.get(&table).unwrap_or(&empty);
                let recent: Vec<Vec<u8>> = inner
                    .recent
                    .get(&table)
                    .map(|r| r.iter().cloned().collect())
                    .unwrap_or_default();
                let mut views = tablets::tablet_views(&infos, keys, &recent);
                let mut rows = keys.len();
                if user_table.as_deref() == Some(table.as_str()) {
                    for v in &mut views {
                        v.rows = rows_between(selected_rows, &v.start, &v.end);
                    }
                    rows = selected_rows.len();
                }
                let stats = keyvis::zoomed(
                    &table,
                    db.access_stats(&table).unwrap_or_default(),
                    self.view.zoom.as_ref(),
                );
                let sizes = inner.row_sizes.get(&table).copied().unwrap_or_default();
                Some(LaneView {
                    hotspot_permille: (views.len() > 1).then(|| tablets::hotspot_permille(&views)),
                    heatmap: heatmap::build(&stats, self.view.metric, 24),
                    diagnostics: keyvis::diagnostics(&stats, &sizes, rows, 24),
                    splits: inner.splits.get(&table).copied().unwrap_or(0),
                    merges: inner.merges.get(&table).copied().unwrap_or(0),
                    row_sizes: inner.row_sizes.get(&table).copied().unwrap_or_default(),
                    rows,
                    tablets: views,
                    design,
                    table,
                })
            })
            .collect();
        self.view.hot_tablets = keyvis::hot_tablets(db);
        if let Some(first) = self.view.lanes.first() {
            if let Ok(info) = db.get_table(&first.table) {
                self.view.thresholds = info.config.tablet_options;
            }
        }
    }
}

#[cfg(test)]
mod main_console_tests;
#[cfg(test)]
mod replication_console_tests;
#[cfg(test)]
mod tests;
