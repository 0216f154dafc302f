//! The engine off the page's thread: the messages between the page and the Web Worker that
//! owns the [`Playground`], and the two ends of them, both pure Rust and tested natively.
//!
//! The worker runs an [`Engine`]: it applies each [`Request`] to the playground and answers
//! with [`Reply`] messages. The page keeps a [`Shown`]: a copy of everything the views render,
//! kept current by the [`Update`]s the engine sends. Messages travel as JSON strings
//! ([`encode`], [`decode`]); the page never touches the database, so a slow action (a load
//! burst, a 100,000-row load, a session save) never blocks input.
//!
//! Invariants:
//! - after the page applies every update the engine sent, [`Shown`] equals what the engine's
//!   playground shows, field for field and row for row (the tests replay actions both ways);
//! - an update carries only what changed since the previous one ([`Diff::Same`] otherwise),
//!   and the grid travels as the rows re-read ([`GridChange::Rows`]) unless it was rebuilt
//!   whole, so a write in a 100,000-row table sends one row, not the table;
//! - a message that does not decode is an `INVALID_ARGUMENT` error, never a panic.

use alloc::collections::BTreeSet;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::codegen::Snippet;
use crate::lab::tablets::EventLine;
use crate::lab::LabView;
use crate::query::QuerySpec;
use crate::session::{from_share_token, share_token};
use crate::state::{
    Action, Drawer, GcPreview, GridChange, GridHandle, Playground, QueryResult, ShownError,
    TableSummary, View,
};

extern crate alloc;

/// What the page asks of the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Request {
    /// The first request: start the engine with its clock at `now_micros`, opening a session
    /// (a share token) if there is one: a `#s=` link's before the one kept in the browser.
    Start {
        /// The clock's start, in microseconds since the epoch.
        now_micros: i64,
        /// The session of the link the page was opened with.
        session: Option<String>,
        /// The session kept in the browser (IndexedDB; the worker fills it in).
        stored: Option<String>,
    },
    /// Runs one action.
    Act(Action),
    /// Saves the session now if it changed since the last save (the page is being hidden or
    /// left: a write must not wait out the save's debounce). The worker handles it; the
    /// engine answers nothing.
    SaveNow,
    /// Answers `id` with the session as JSON (the core's proto3 JSON model) or CSV.
    Export {
        /// Names the answer.
        id: u32,
        /// CSV rather than JSON.
        csv: bool,
    },
    /// Answers `id` with the session as a share token (deflated at the highest level).
    Share {
        /// Names the answer.
        id: u32,
    },
    /// Answers `id` with the keys of the rows a read returns (untracked): the engine's own
    /// answer, which tests compare with what the page shows.
    ReadKeys {
        /// Names the answer.
        id: u32,
        /// The table.
        table: String,
        /// A `ReadRowsRequest` in the proto3 JSON model.
        request: String,
    },
}

/// What the worker tells the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Reply {
    /// The worker's code is loaded and waits for [`Request::Start`].
    Loaded,
    /// The views changed.
    Update(alloc::boxed::Box<Update>),
    /// The answer to request `id`.
    Answer {
        /// The request's id.
        id: u32,
        /// The text (export, share token) or row keys, or why there is none.
        result: Result<Answer, ShownError>,
    },
    /// The session was kept in the browser after changes settled: its size in bytes, or why
    /// it was not.
    Saved(Result<usize, ShownError>),
}

/// An answer's body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Answer {
    /// An export or a share token.
    Text(String),
    /// Row keys, displayed as the grid displays them.
    Keys(Vec<String>),
}

/// One field of an [`Update`]: unchanged, or its new value.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub enum Diff<T> {
    /// As in the previous update.
    #[default]
    Same,
    /// Now this.
    Now(T),
}

impl<T> Diff<T> {
    /// Whether the field is unchanged.
    pub fn is_same(&self) -> bool {
        matches!(self, Diff::Same)
    }
}

/// Declares [`Shown`] and [`Update`] with one field each per view field, and how the engine
/// reads each from its playground: the one list of the view fields. `copied` fields are the
/// playground's fields of the same name; `derived` ones are read by an expression; `kept`
/// names the playground's fields the page gets no copy of (with why, at the call). The macro
/// also destructures [`Playground`] naming the `copied` and `kept` fields and nothing else,
/// so a field added to the playground and left out of this list fails the build.
macro_rules! shown_fields {
    (
        copied { $($(#[$cdoc:meta])* $cfield:ident : $cty:ty;)* }
        derived { $($(#[$ddoc:meta])* $dfield:ident : $dty:ty = |$p:ident| $get:expr;)* }
        kept { $($kept:ident),* $(,)? }
    ) => {
        /// What the page renders: a copy of the worker's playground views.
        #[derive(Debug, Clone, PartialEq)]
        pub struct Shown {
            $($(#[$cdoc])* pub $cfield: $cty,)*
            $($(#[$ddoc])* pub $dfield: $dty,)*
            /// The selected table's rows.
            pub grid: GridHandle,
            /// Whether the engine has started (the page shows a loading note until then).
            pub ready: bool,
            /// Actions sent whose update has not arrived yet (the page shows it is working).
            pub in_flight: u32,
        }

        /// The fields that changed since the previous update, and how the grid did.
        #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
        pub struct Update {
            $($(#[$cdoc])*
            #[serde(default, skip_serializing_if = "Diff::is_same")]
            pub $cfield: Diff<$cty>,)*
            $($(#[$ddoc])*
            #[serde(default, skip_serializing_if = "Diff::is_same")]
            pub $dfield: Diff<$dty>,)*
            /// The grid's change.
            #[serde(default, skip_serializing_if = "GridChange::is_none")]
            pub grid: GridChange,
        }

        /// Every field of the playground is shown (`copied`) or kept back (`kept`): this
        /// pattern names them all, without `..`, so the build fails on a field in neither.
        #[allow(dead_code)]
        fn every_playground_field_is_listed(p: &Playground) {
            let Playground { $($cfield: _,)* $($kept: _,)* } = p;
        }

        impl Shown {
            /// A copy of what `p` shows (an empty grid; not ready).
            pub fn of(p: &Playground) -> Self {
                Shown {
                    $($cfield: p.$cfield.clone(),)*
                    $($dfield: {
                        let $p = p;
                        let now: &$dty = $get;
                        now.clone()
                    },)*
                    grid: GridHandle::new(false),
                    ready: false,
                    in_flight: 0,
                }
            }

            /// Takes an update's changes.
            pub fn apply(&mut self, update: Update) {
                $(if let Diff::Now(v) = update.$cfield {
                    self.$cfield = v;
                })*
                $(if let Diff::Now(v) = update.$dfield {
                    self.$dfield = v;
                })*
                self.grid.apply_change(update.grid);
                self.ready = true;
                self.in_flight = self.in_flight.saturating_sub(1);
            }

            /// What `p` shows that `self` (the last one sent) does not; `self` then matches.
            fn diff(&mut self, p: &mut Playground) -> Update {
                let mut update = Update::default();
                $(if p.$cfield != self.$cfield {
                    self.$cfield = p.$cfield.clone();
                    update.$cfield = Diff::Now(p.$cfield.clone());
                })*
                $({
                    let $p = &*p;
                    let now: &$dty = $get;
                    if *now != self.$dfield {
                        self.$dfield = now.clone();
                        update.$dfield = Diff::Now(now.clone());
                    }
                })*
                update.grid = p.grid.take_change();
                update
            }
        }

        /// The names of the view fields, in the list's order (what an update may carry besides
        /// the grid).
        pub const SHOWN_FIELDS: &[&str] = &[$(stringify!($cfield),)* $(stringify!($dfield),)*];
    };
}

shown_fields! {
    copied {
        /// The time the engine sees.
        now_micros: i64;
        /// Every table.
        tables: Vec<TableSummary>;
        /// The table shown.
        selected: Option<String>;
        /// The view shown.
        view: View;
        /// The versions drawer, when open.
        drawer: Option<Drawer>;
        /// The last query of the selected table.
        query: Option<QueryResult>;
        /// Row keys the last query returned (highlighted in the grid).
        hits: Rc<BTreeSet<Vec<u8>>>;
        /// The last write or delete as code.
        last_write: Option<Vec<Snippet>>;
        /// Bumped whenever data or schema change.
        revision: u64;
        /// How many times the grid was read whole.
        full_reads: u64;
        /// How many rows were re-read in batches.
        batch_row_reads: u64;
        /// A short note on the last action.
        notice: Option<String>;
        /// The last action's error.
        error: Option<ShownError>;
        /// Background GC mode (else Immediate).
        gc_background: bool;
        /// What the GC rule being edited would do.
        gc_preview: Option<GcPreview>;
        /// A read for the Query view's form.
        query_preset: Option<QuerySpec>;
    }
    derived {
        /// What the lab components render.
        lab: LabView = |p| &p.lab.view;
        /// The lab's tablet event log.
        lab_events: Vec<EventLine> = |p| &p.lab.events;
    }
    // The database and its clock stay in the worker; the grid travels as its own change
    // (`GridChange`); the lab's state is shown through `lab` and `lab_events` above.
    kept { db, clock, grid, lab }
}

impl Update {
    /// An update that changes nothing but the error shown: how the page and the worker report
    /// a message that did not decode or encode, which no action's update can carry.
    pub fn error(e: ShownError) -> Self {
        Update {
            error: Diff::Now(Some(e)),
            ..Update::default()
        }
    }
}

impl Default for Shown {
    /// What the page shows before the engine has started: a fresh playground's views, not
    /// ready.
    fn default() -> Self {
        Shown::of(&Playground::new(0))
    }
}

impl Shown {
    /// The selected table's summary.
    pub fn selected_table(&self) -> Option<&TableSummary> {
        crate::state::find_table(&self.tables, self.selected.as_deref())
    }

    /// The selected table's families, in creation order.
    pub fn selected_families(&self) -> &[String] {
        self.selected_table().map_or(&[], |t| t.families.as_slice())
    }
}

/// What changes the page's copy of the views.
#[derive(Debug, Clone, PartialEq)]
pub enum PageEvent {
    /// An action went to the engine; its update is due (every action gets exactly one).
    Sent,
    /// Updates arrived, oldest first (each the answer to [`Request::Start`] or to an
    /// action). The page takes all that arrived within one frame together, so a burst of
    /// actions costs one redraw per frame, not one per action.
    Updated(Vec<Update>),
}

impl Shown {
    /// Takes one page event.
    pub fn on(&mut self, event: PageEvent) {
        match event {
            PageEvent::Sent => self.in_flight += 1,
            PageEvent::Updated(updates) => {
                for update in updates {
                    self.apply(update);
                }
            }
        }
    }
}

#[cfg(target_arch = "wasm32")]
impl yew::Reducible for Shown {
    type Action = PageEvent;

    fn reduce(self: Rc<Self>, event: PageEvent) -> Rc<Self> {
        let mut next = (*self).clone();
        next.on(event);
        Rc::new(next)
    }
}

/// The worker's side: the playground and what the page was last told of it.
pub struct Engine {
    p: Playground,
    sent: Shown,
    /// The revision last saved to browser storage.
    saved_revision: u64,
}

impl Engine {
    /// A playground whose clock starts at `now_micros`, not yet opened (see
    /// [`Request::Start`]).
    pub fn new(now_micros: i64) -> Self {
        let mut p = Playground::new(now_micros);
        p.grid = GridHandle::new(true);
        Engine {
            p,
            sent: Shown::default(),
            saved_revision: 0,
        }
    }

    /// The playground (for tests).
    pub fn playground(&self) -> &Playground {
        &self.p
    }

    /// Handles one request; the replies go to the page in order.
    pub fn handle(&mut self, request: Request) -> Vec<Reply> {
        match request {
            Request::Start {
                now_micros,
                session,
                stored,
            } => {
                *self = Engine::new(now_micros);
                if let Some(token) = session.or(stored) {
                    match from_share_token(&token) {
                        Ok(json) => {
                            self.p.apply(Action::ImportJson(json));
                            // Opening what was saved is not a change to save again.
                            self.saved_revision = self.p.revision;
                        }
                        Err(e) => self.p.error = Some(e),
                    }
                }
                // The first update carries every field, even those equal to the defaults.
                let mut update = self.sent.diff(&mut self.p);
                update.now_micros = Diff::Now(self.p.now_micros);
                update.view = Diff::Now(self.p.view);
                update.grid = GridChange::Replaced(self.p.grid.snapshot());
                alloc::vec![Reply::Update(alloc::boxed::Box::new(update))]
            }
            Request::Act(action) => {
                self.p.apply(action);
                alloc::vec![Reply::Update(alloc::boxed::Box::new(
                    self.sent.diff(&mut self.p)
                ))]
            }
            Request::Export { id, csv } => {
                let result = if csv {
                    self.p.export_csv()
                } else {
                    self.p.export_json()
                };
                alloc::vec![Reply::Answer {
                    id,
                    result: result.map(Answer::Text),
                }]
            }
            Request::Share { id } => alloc::vec![Reply::Answer {
                id,
                result: self
                    .p
                    .export_json()
                    .map(|json| Answer::Text(share_token(&json, 9))),
            }],
            Request::ReadKeys { id, table, request } => alloc::vec![Reply::Answer {
                id,
                result: self.p.read_keys_json(&table, &request).map(Answer::Keys),
            }],
            // The worker saves; the engine has nothing to answer.
            Request::SaveNow => alloc::vec::Vec::new(),
        }
    }

    /// Whether data or schema changed since the last save.
    pub fn unsaved(&self) -> bool {
        self.p.revision != self.saved_revision
    }

    /// The session as a share token to keep in the browser (deflated at level 1: saving runs
    /// after every burst of changes, so it favours speed over size).
    ///
    /// # Errors
    /// The export's.
    pub fn save(&mut self) -> Result<String, ShownError> {
        self.saved_revision = self.p.revision;
        self.p.export_json().map(|json| share_token(&json, 1))
    }
}

/// A reply as it travels to the page: JSON text, and beside it, when the update replaces the
/// grid whole, that grid in postcard (100,000 rows: 5.3 MB that decode in 41 ms natively,
/// against 13.9 MB of JSON in 186 ms; and the bytes move to the page without a copy).
///
/// # Errors
/// `INTERNAL` if a value has no such form (never, for the engine's values).
pub fn encode_reply(mut reply: Reply) -> Result<(String, Option<Vec<u8>>), ShownError> {
    let mut attached = None;
    if let Reply::Update(update) = &mut reply {
        if let GridChange::Replaced(grid) = &update.grid {
            attached = Some(postcard::to_allocvec(grid).map_err(|e| ShownError {
                code: "INTERNAL".into(),
                message: alloc::format!("could not encode the grid: {e}"),
            })?);
            update.grid = GridChange::Attached;
        }
    }
    Ok((encode(&reply)?, attached))
}

/// A reply from its JSON text and the grid beside it, if any ([`encode_reply`]).
///
/// # Errors
/// `INVALID_ARGUMENT` for text that is not a reply, a grid that does not decode, or an update
/// that names an attached grid that is missing.
pub fn decode_reply(text: &str, attached: Option<&[u8]>) -> Result<Reply, ShownError> {
    let mut reply: Reply = decode(text)?;
    if let Reply::Update(update) = &mut reply {
        if update.grid == GridChange::Attached {
            let bytes = attached.ok_or_else(|| ShownError {
                code: "INVALID_ARGUMENT".into(),
                message: "an update's grid is missing".into(),
            })?;
            let grid = postcard::from_bytes(bytes).map_err(|e| ShownError {
                code: "INVALID_ARGUMENT".into(),
                message: alloc::format!("not a playground grid: {e}"),
            })?;
            update.grid = GridChange::Replaced(grid);
        }
    }
    Ok(reply)
}

/// A message as the JSON text that travels between the page and the worker.
///
/// # Errors
/// `INTERNAL` if a value has no JSON form (never, for the engine's values).
pub fn encode<T: Serialize>(message: &T) -> Result<String, ShownError> {
    serde_json::to_string(message).map_err(|e| ShownError {
        code: "INTERNAL".into(),
        message: alloc::format!("could not encode a message: {e}"),
    })
}

/// A message from its JSON text.
///
/// # Errors
/// `INVALID_ARGUMENT` for text that is not such a message.
pub fn decode<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, ShownError> {
    serde_json::from_str(text).map_err(|e| ShownError {
        code: "INVALID_ARGUMENT".into(),
        message: alloc::format!("not a playground message: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::LabAction;
    use crate::query::QuerySpec;
    use sparsetable::GcRule;

    const START: i64 = 1_700_000_000_000_000;

    /// A worker and a page joined by JSON text, as in the browser.
    struct Pair {
        engine: Engine,
        page: Shown,
        /// The bytes of every update sent, in order.
        sizes: Vec<usize>,
    }

    impl Pair {
        fn start(session: Option<String>) -> Self {
            Pair::start_with(session, None)
        }

        fn start_with(session: Option<String>, stored: Option<String>) -> Self {
            let mut pair = Pair {
                engine: Engine::new(0),
                page: Shown::default(),
                sizes: Vec::new(),
            };
            pair.send(Request::Start {
                now_micros: START,
                session,
                stored,
            });
            pair
        }

        /// Sends a request the way the page does; returns the answers that are not updates.
        fn send(&mut self, request: Request) -> Vec<Reply> {
            let text = encode(&request).unwrap();
            let replies = self.engine.handle(decode(&text).unwrap());
            let mut others = Vec::new();
            for reply in replies {
                let (text, grid) = encode_reply(reply).unwrap();
                match decode_reply(&text, grid.as_deref()).unwrap() {
                    Reply::Update(update) => {
                        self.sizes.push(text.len() + grid.map_or(0, |g| g.len()));
                        self.page.apply(*update);
                    }
                    other => others.push(other),
                }
            }
            others
        }

        /// A started pair whose table `t` (family `cf`) holds the sample's first `rows` rows.
        fn with_sample(rows: u32) -> Self {
            let mut pair = Pair::start(None);
            pair.act(Action::CreateTable {
                table_id: "t".into(),
                families: "cf".into(),
                max_versions: String::new(),
            });
            pair.act(Action::LoadSample(rows));
            pair
        }

        fn act(&mut self, action: Action) {
            assert!(self.send(Request::Act(action)).is_empty());
        }

        /// The page shows what the engine's playground shows.
        fn assert_in_step(&self) {
            let p = self.engine.playground();
            let s = &self.page;
            // Every view field as the playground has it; the grid's rows compared apart.
            let expected = Shown {
                grid: s.grid.clone(),
                ready: true,
                in_flight: s.in_flight,
                ..Shown::of(p)
            };
            assert_eq!(*s, expected);
            assert_eq!(*s.grid.borrow(), *p.grid.borrow());
            assert_eq!(s.selected_families(), p.selected_families());
            assert!(s.ready);
        }
    }

    fn write(row: &str, value: &str) -> Action {
        Action::WriteCell {
            row_key: row.into(),
            family: "cf".into(),
            qualifier: "q".into(),
            value: value.into(),
            value_type: Default::default(),
        }
    }

    #[test]
    fn the_view_fields_a_hand_written_equality_once_missed_reach_the_page() {
        // `hits`, `full_reads` and `batch_row_reads` were left out of the playground's old
        // hand-written equality; with one list (`shown_fields!`) each travels like any other.
        let mut p = Playground::new(START);
        let mut sent = Shown::of(&p);
        let mut page = Shown::of(&p);
        p.hits = Rc::new(BTreeSet::from([b"k".to_vec()]));
        p.full_reads += 1;
        p.batch_row_reads += 2;
        let update = sent.diff(&mut p);
        assert!(!update.hits.is_same() && !update.full_reads.is_same());
        assert!(!update.batch_row_reads.is_same());
        page.apply(update);
        assert_eq!(
            (&page.hits, page.full_reads, page.batch_row_reads),
            (&p.hits, p.full_reads, p.batch_row_reads)
        );
        assert_eq!(page.hits.len(), 1);
        assert!(
            sent.diff(&mut p) == Update::default(),
            "nothing left to send"
        );
    }

    #[test]
    fn the_view_field_list_names_each_field_once() {
        let mut names = SHOWN_FIELDS.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), SHOWN_FIELDS.len());
        assert!(SHOWN_FIELDS.contains(&"batch_row_reads") && SHOWN_FIELDS.contains(&"lab_events"));
    }

    #[test]
    fn the_page_stays_in_step_with_the_engine_through_every_kind_of_action() {
        let mut pair = Pair::start(None);
        pair.assert_in_step();
        let actions = [
            Action::CreateTable {
                table_id: "people".into(),
                families: "cf,other".into(),
                max_versions: "2".into(),
            },
            write("a", "1"),
            write("a", "2"),
            write("a", "3"),
            write("b", "x"),
            Action::OpenCell {
                row_key: b"a".to_vec(),
                family: "cf".into(),
                qualifier: b"q".to_vec(),
            },
            Action::SetGcRule {
                family: "cf".into(),
                rule: GcRule::MaxNumVersions(1),
            },
            Action::CloseDrawer,
            Action::LoadSample(1_000),
            Action::RunQuery(QuerySpec {
                prefix: "user#0001".into(),
                limit: 5,
                ..QuerySpec::default()
            }),
            Action::DeleteRow(b"b".to_vec()),
            Action::DeleteColumn {
                row_key: b"a".to_vec(),
                family: "cf".into(),
                qualifier: b"q".to_vec(),
            },
            Action::AdvanceClock(3_600_000_000),
            Action::ShowView(View::Query),
            // A failure: the error travels too.
            Action::SelectTable("missing".into()),
            Action::DismissError,
            Action::Lab(LabAction::RunScenario("hotspots".into())),
            Action::Lab(LabAction::Load(2)),
            Action::Lab(LabAction::Compact),
            Action::Lab(LabAction::Console("ls".into())),
            Action::Lab(LabAction::Console("read people count=3".into())),
            Action::SelectTable("people".into()),
            Action::Lab(LabAction::RunScenario("comments".into())),
            Action::Lab(LabAction::Page {
                next: false,
                regex: String::new(),
            }),
        ];
        for action in actions {
            let shown = alloc::format!("{action:?}");
            pair.act(action);
            // A failing assertion names the action it followed.
            let step = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pair.assert_in_step();
            }));
            assert!(step.is_ok(), "out of step after {shown}");
        }
        assert!(!pair.page.lab.lanes.is_empty(), "the scenarios ran");
        assert!(pair.page.tables.len() > 1);
    }

    #[test]
    fn a_write_to_a_large_table_sends_its_row_not_the_table() {
        let mut pair = Pair::with_sample(5_000);
        let bulk = *pair.sizes.last().unwrap();
        pair.act(write("user#002500", "changed"));
        let one = *pair.sizes.last().unwrap();
        pair.assert_in_step();
        assert!(
            bulk > 200_000,
            "the bulk load sends the grid whole ({bulk} bytes)"
        );
        // The row, its code and the table's tablet map (the lab's small thresholds split
        // 5,000 rows into about 20 tablets; the map is resent as their sizes change).
        let tablets = pair.page.lab.lanes[0].tablets.len();
        assert!(tablets > 1, "the lab's thresholds split the table");
        assert!(
            one < 4_000 + 100 * tablets,
            "a write sends its row and the map of {tablets} tablets ({one} bytes)"
        );
        // Switching tabs sends the view alone.
        pair.act(Action::ShowView(View::Session));
        assert!(*pair.sizes.last().unwrap() < 100, "{:?}", pair.sizes);
        pair.assert_in_step();
    }

    #[test]
    fn the_page_changes_its_grid_in_place_while_older_states_hold_it() {
        let mut pair = Pair::with_sample(1_000);
        // The Yew reducer clones the page's state for each update while the previous state
        // (and the grid component's props) still hold it, as this copy does.
        let before = pair.page.clone();
        pair.act(write("user#000500", "changed"));
        pair.assert_in_step();
        // The one row changed where the rows are: no copy of the whole grid was made for it,
        // and the version tells the older holder's props that something changed.
        assert!(Rc::ptr_eq(
            &before.grid.snapshot(),
            &pair.page.grid.snapshot()
        ));
        assert_ne!(before.grid, pair.page.grid);
    }

    #[test]
    fn answers_carry_exports_share_tokens_and_read_keys() {
        let mut pair = Pair::start(None);
        pair.act(Action::CreateTable {
            table_id: "t".into(),
            families: "cf".into(),
            max_versions: String::new(),
        });
        pair.act(write("k1", "v"));
        pair.act(write("k2", "v"));
        let answer = |replies: Vec<Reply>| match replies.as_slice() {
            [Reply::Answer { id: 7, result }] => result.clone(),
            other => panic!("{other:?}"),
        };
        let Ok(Answer::Text(json)) = answer(pair.send(Request::Export { id: 7, csv: false }))
        else {
            panic!("no JSON export")
        };
        assert_eq!(Ok(json.clone()), pair.engine.playground().export_json());
        let Ok(Answer::Text(csv)) = answer(pair.send(Request::Export { id: 7, csv: true })) else {
            panic!("no CSV export")
        };
        assert!(csv.contains("k2"));
        assert_eq!(
            answer(pair.send(Request::ReadKeys {
                id: 7,
                table: "t".into(),
                request: r#"{"rowsLimit": "1"}"#.into(),
            })),
            Ok(Answer::Keys(alloc::vec!["k1".into()]))
        );
        let Err(e) = answer(pair.send(Request::ReadKeys {
            id: 7,
            table: "nope".into(),
            request: "{}".into(),
        })) else {
            panic!("a missing table reads")
        };
        assert_eq!(e.code, "NOT_FOUND");

        // A share token opens the same session in a fresh engine; opening it is not a change
        // to save again.
        let Ok(Answer::Text(token)) = answer(pair.send(Request::Share { id: 7 })) else {
            panic!("no share token")
        };
        let other = Pair::start(Some(token));
        other.assert_in_step();
        assert_eq!(other.page.tables, pair.page.tables);
        assert_eq!(other.engine.playground().export_json(), Ok(json));
        assert!(!other.engine.unsaved());
    }

    #[test]
    fn saves_follow_changes_and_a_bad_session_is_an_error_shown_not_a_crash() {
        let mut pair = Pair::start(None);
        assert!(!pair.engine.unsaved());
        pair.act(Action::CreateTable {
            table_id: "t".into(),
            families: "cf".into(),
            max_versions: String::new(),
        });
        assert!(pair.engine.unsaved());
        let Ok(token) = pair.engine.save() else {
            panic!("no save")
        };
        assert!(!pair.engine.unsaved());
        assert!(Pair::start(Some(token.clone()))
            .page
            .tables
            .iter()
            .any(|t| t.name == "t"));

        // A link's session comes before the stored one; the stored one opens without a link.
        let link = Pair::start_with(Some(token.clone()), Some("not a session!".into()));
        assert!(link.page.error.is_none());
        assert!(link.page.tables.iter().any(|t| t.name == "t"));
        let kept = Pair::start_with(None, Some(token));
        assert!(kept.page.tables.iter().any(|t| t.name == "t"));

        let broken = Pair::start(Some("not a session!".into()));
        broken.assert_in_step();
        assert_eq!(
            broken.page.error.as_ref().map(|e| e.code.as_str()),
            Some("INVALID_ARGUMENT")
        );
        assert!(broken.page.tables.is_empty());
    }

    #[test]
    fn the_page_counts_actions_in_flight_until_their_updates_arrive() {
        let mut engine = Engine::new(0);
        let mut page = Shown::default();
        let start = engine.handle(Request::Start {
            now_micros: START,
            session: None,
            stored: None,
        });
        let mut updates = Vec::new();
        for n in 0..3 {
            page.on(PageEvent::Sent);
            let mut replies = engine.handle(Request::Act(write(&alloc::format!("r{n}"), "v")));
            updates.append(&mut replies);
        }
        assert_eq!(page.in_flight, 3);
        for reply in start.into_iter().chain(updates) {
            let Reply::Update(update) = reply else {
                panic!("not an update")
            };
            page.on(PageEvent::Updated(alloc::vec![*update]));
        }
        // The start's update is not an action's: the count never goes below zero.
        assert_eq!(page.in_flight, 0);
        assert!(page.ready);
    }

    #[test]
    fn malformed_messages_are_invalid_argument() {
        for text in ["", "{", "\"Nope\"", r#"{"Act": {"WriteCell": 3}}"#, "[1,2]"] {
            let e = decode::<Request>(text).unwrap_err();
            assert_eq!(e.code, "INVALID_ARGUMENT", "{text}");
            let e = decode_reply(text, None).unwrap_err();
            assert_eq!(e.code, "INVALID_ARGUMENT", "{text}");
        }
        // An update whose grid travels beside it: missing, cut short, or not a grid.
        let mut engine = Engine::new(0);
        let start = engine.handle(Request::Start {
            now_micros: START,
            session: None,
            stored: None,
        });
        let (text, grid) = encode_reply(start[0].clone()).unwrap();
        let grid = grid.expect("the first update carries the grid");
        assert!(decode_reply(&text, Some(&grid)).is_ok());
        for bad in [
            None,
            Some(&[][..]),
            Some(&grid[..grid.len() / 2]),
            Some(&[0xff; 9][..]),
        ] {
            let e = decode_reply(&text, bad).unwrap_err();
            assert_eq!(e.code, "INVALID_ARGUMENT", "{bad:?}");
        }
    }
}
