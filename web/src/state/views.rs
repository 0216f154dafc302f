//! What the playground shows, as plain values the UI renders: the table list, the versions
//! drawer, a query's result, the grid's handle, and the words for GC rules and durations.

use super::*;
use core::cell::{Ref, RefCell};

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
    /// Its value, cut at [`crate::display::PREVIEW_BYTES`] unless the drawer was asked for
    /// it whole ([`Drawer::whole`]): a 10 MB value crossed from the worker on every open.
    /// Base64 in JSON (a number list was three to four times the size).
    #[serde(with = "crate::wire::bytes")]
    pub value: Vec<u8>,
    /// The whole value's length in bytes.
    pub len: usize,
    /// Why reads do not return it ("beyond max versions 2"; Immediate mode); `None` when
    /// they do.
    pub hidden_by: Option<String>,
    /// Why its family's GC rule makes it eligible for collection while reads still return
    /// it (Background mode, until a collection removes it); `None` otherwise.
    #[serde(default)]
    pub eligible_by: Option<String>,
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
    /// The timestamps of the versions asked for whole ("Show all").
    pub whole: Vec<i64>,
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

/// The grid's data, with a version that changes whenever it does, so components compare a
/// number rather than 100,000 rows.
///
/// The data sits in a shared cell because of the page, not the worker: the page's copy of the
/// views lives in a Yew reducer, which clones its state for every update while the previous
/// state (and the grid component's props) still hold the old one. Owned or plainly shared
/// (`Rc<GridData>` changed with `Rc::make_mut`), the data would then be copied whole, every
/// row, for each write that changes one; through the cell a change applies in place and the
/// clones see it, the version telling them it happened. What only the worker's recording
/// grid has, its pending changes, is a plain owned value.
#[derive(Clone)]
pub struct GridHandle {
    /// The inner `Rc` lets a whole replacement leave as a snapshot that shares the rows
    /// ([`GridHandle::take_change`]) instead of a copy of them; a change copies them only if
    /// such a snapshot is still held then (`Rc::make_mut`), which the worker never does: it
    /// encodes each update and drops it before the next action.
    pub(super) data: Rc<RefCell<Rc<GridData>>>,
    /// Bumped on every change.
    pub version: u64,
    /// The changes not yet taken by [`GridHandle::take_change`], when recording (the worker's
    /// grid; the page's copies never record).
    pending: Option<PendingChange>,
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
            pending: record.then_some(PendingChange::Rows(Vec::new())),
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
        if let Some(p) = self.pending.as_mut() {
            *p = PendingChange::Whole;
        }
    }

    /// Re-reads rows: `(key, what a read of it returned)` in ascending key order, each key
    /// once ([`GridData::upsert_rows`]).
    pub fn upsert_rows(&mut self, updates: RowBatch) {
        if let Some(PendingChange::Rows(batches)) = self.pending.as_mut() {
            batches.push(updates.clone());
        }
        Rc::make_mut(&mut self.data.borrow_mut()).upsert_rows(updates);
        self.version += 1;
    }

    /// What changed since the last call (recording grids only; otherwise always
    /// [`GridChange::None`]), and starts recording afresh.
    pub fn take_change(&mut self) -> GridChange {
        let Some(p) = self.pending.as_mut() else {
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
