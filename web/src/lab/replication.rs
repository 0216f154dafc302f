//! The replication lesson: an instance of two or three clusters, each with its own copy of
//! the table `users`, driven by the core's no_std [`ReplicaSet`] over plain databases that
//! share the playground's manual clock. Writes go through app profiles; replication lag,
//! consistency tokens, conflicts, outages and the change stream are the core's rules
//! (`docs/replication.md`), shown here, not re-implemented.
//!
//! The instance is the console crate's [`InstanceConsole`] (the instance mode of
//! `sparsetable-console --clusters`): its record holds the app profiles, made by cbt's
//! `createappprofile`, and the lesson's console runs its lines on it, so a line typed there
//! (`set users user#1 cf:name=Ada app-profile=to-c1`, `lookup users user#1 app-profile=to-c2`,
//! `down c2`, `fault code=UNAVAILABLE rpc=MutateRow`, `fault latency=2s cluster=c2`) acts on
//! the very clusters drawn. An injected latency moves the playground's clock.
//!
//! Invariants:
//! - every view is rebuilt by [`ReplLab::view`] after [`ReplLab::pump`], so a clock move made
//!   anywhere in the playground delivers what became due before anything is shown;
//! - the lesson's reads of each cluster's copy are untracked (`set_access_stats(false)`);
//! - the change-stream tail holds each change once: per cluster, the last sequence shown.

use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec::Vec;

use sparsetable::{
    Clock, Database, ManualClock, Mutation, ReadModifyWriteOp, ReadModifyWriteRule,
    ReadRowsRequest, RequestKind, RowSet, TableConfig,
};
use sparsetable_console::{Admission, InstanceConsole};

use super::replication_code::{self as code, ReplOp};
use super::ConsoleEntry;
use crate::codegen::Snippet;
use crate::state::{display_bytes, ShownError};

/// The lesson's clusters, in the instance's order (the first holds the schema).
pub const CLUSTERS: [&str; 3] = ["c1", "c2", "c3"];
// The lesson's table and its family, named where its code is written.
pub use super::replication_code::{FAMILY, TABLE};
/// The lag the lesson starts with: two seconds of the engine's clock.
pub const START_LAG_MICROS: i64 = 2_000_000;
/// Change-stream lines kept in the tail.
const TAIL: usize = 40;

/// The lesson instance's project and id (what cbt's app-profile commands name).
pub const PROJECT: &str = "playground";
/// See [`PROJECT`].
pub const INSTANCE: &str = "lesson";

/// The cbt lines that make the lesson's app profiles (see [`PROFILES`]).
const PROFILE_LINES: [&str; 3] = [
    "createappprofile lesson to-c1 single-cluster route-to=c1 transactional-writes",
    "createappprofile lesson to-c2 single-cluster route-to=c2",
    "createappprofile lesson multi multi-cluster route-any",
];

/// The lesson's app profiles: id, what it does.
pub const PROFILES: [(&str, &str); 3] = [
    (
        "to-c1",
        "single-cluster to c1, transactional writes allowed",
    ),
    ("to-c2", "single-cluster to c2, no transactional writes"),
    (
        "multi",
        "multi-cluster: nearest available of c1, c2, c3 (fails over)",
    ),
];

/// Something done in the replication lesson.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ReplAction {
    /// Starts (or restarts) the lesson with 2 or 3 clusters.
    Start {
        /// How many clusters.
        clusters: usize,
    },
    /// Writes one cell at server time through a profile.
    Write {
        /// The app profile.
        profile: String,
        /// The row key.
        row: String,
        /// The qualifier.
        qualifier: String,
        /// The value.
        value: String,
    },
    /// Increments a counter cell (ReadModifyWriteRow: a transactional write).
    Increment {
        /// The app profile.
        profile: String,
        /// The row key.
        row: String,
        /// The qualifier.
        qualifier: String,
    },
    /// Reads one row through a profile.
    Read {
        /// The app profile.
        profile: String,
        /// The row key.
        row: String,
    },
    /// Writes one cell with one timestamp at the same moment through `to-c1` and `to-c2`
    /// (each with its own value): a conflict.
    Conflict {
        /// The row key.
        row: String,
        /// The qualifier.
        qualifier: String,
    },
    /// Sets the replication lag (microseconds of the engine's clock).
    SetLag(i64),
    /// Takes a cluster down or brings it back.
    SetAvailable {
        /// The cluster id.
        cluster: String,
        /// Up or down.
        available: bool,
    },
    /// Generates a consistency token (GenerateConsistencyToken); the view checks it.
    GenerateToken,
    /// Runs a console line on the lesson's instance: a cbt command routed by its
    /// `app-profile=`, cbt's app-profile commands, or a control word (`status`, `down`, `up`,
    /// `lag`, `fault`, `clear-faults`), as `sparsetable-console --clusters` takes them.
    Console(String),
    /// Clears the lesson console's scrollback.
    ClearConsole,
}

/// How a cell of one cluster's copy stands against the other copies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum CellState {
    /// Every available cluster holds it.
    Everywhere,
    /// This cluster holds it, some other does not yet.
    NotYetEverywhere,
    /// Another cluster holds it and this one does not yet: a read here is stale.
    Missing,
}

/// A cell as a cluster's column shows it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CellView {
    /// The row key.
    pub row: String,
    /// `family:qualifier`.
    pub column: String,
    /// The cell's timestamp.
    pub timestamp_micros: i64,
    /// The value.
    pub value: String,
    /// How it stands against the other copies.
    pub state: CellState,
    /// The clusters that lack it (for [`CellState::NotYetEverywhere`]).
    pub missing_at: Vec<String>,
}

/// One cluster and its copy of the table.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ClusterView {
    /// Its id.
    pub id: String,
    /// Whether it serves.
    pub available: bool,
    /// Its cells and the cells it lacks, in key order.
    pub cells: Vec<CellView>,
}

/// What the last action did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Outcome {
    /// The action in words.
    pub action: String,
    /// The cluster that served it, if one did.
    pub cluster: Option<String>,
    /// The gRPC code (`OK` on success).
    pub code: String,
    /// What happened.
    pub message: String,
    /// The injected latency the request waited out first, in words, if any.
    pub waited: Option<String>,
}

/// The last consistency token and whether it is consistent now.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TokenView {
    /// The token.
    pub token: String,
    /// CheckConsistency's answer now.
    pub consistent: bool,
    /// When it was generated.
    pub generated_micros: i64,
}

/// The last conflict and how it resolved.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ConflictView {
    /// The cell: `row cf:qualifier @timestamp`.
    pub cell: String,
    /// The writes: cluster and value.
    pub writes: Vec<(String, String)>,
    /// The value every cluster ends with.
    pub winner: String,
    /// Why, per docs/replication.md.
    pub why: String,
    /// Per cluster, the value it holds now (empty: none yet).
    pub now: Vec<(String, String)>,
}

/// One line of the change-stream tail.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ChangeLine {
    /// The cluster that committed it (the record's source cluster).
    pub cluster: String,
    /// The commit time.
    pub commit_micros: i64,
    /// The row.
    pub row: String,
    /// Its mutations in words.
    pub text: String,
}

/// What the replication lesson shows.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReplView {
    /// The clusters side by side.
    pub clusters: Vec<ClusterView>,
    /// The replication lag.
    pub lag_micros: i64,
    /// Writes on their way to some cluster.
    pub in_flight: usize,
    /// The last action's outcome.
    pub outcome: Option<Outcome>,
    /// The last consistency token.
    pub token: Option<TokenView>,
    /// The last conflict.
    pub conflict: Option<ConflictView>,
    /// The change stream, oldest first.
    pub tail: Vec<ChangeLine>,
    /// The last action as code.
    pub code: Vec<Snippet>,
    /// The lesson console's scrollback, oldest first (the newest 200).
    pub console: Vec<ConsoleEntry>,
}

/// A cell of one copy: row key, `family:qualifier`, timestamp, value (displayed).
type CopyCell = (Vec<u8>, String, i64, String);

/// The last conflict: row, qualifier, timestamp, and the writes (cluster, value).
type Conflict = (String, Vec<u8>, i64, Vec<(String, String)>);

/// The lesson's state (see the module docs).
#[derive(Debug)]
pub struct ReplLab {
    /// The instance: its replica set, its record (clusters, app profiles) and the console
    /// that runs cbt lines and the control words on it.
    instance: InstanceConsole,
    /// The lesson console's scrollback, oldest first.
    console: Vec<ConsoleEntry>,
    outcome: Option<Outcome>,
    token: Option<(String, i64)>,
    conflict: Option<Conflict>,
    /// Per cluster, the last change sequence put in the tail.
    seen: Vec<u64>,
    tail: Vec<ChangeLine>,
    code: Vec<Snippet>,
}

fn shown(e: sparsetable::Error) -> ShownError {
    ShownError {
        code: e.code().as_str().into(),
        message: e.message().into(),
    }
}

impl ReplLab {
    /// A new instance of `clusters` clusters (2 or 3) on `clock`, lag two seconds, the table
    /// created at c1 and copied to the others, its change stream on.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for another cluster count; the engine's errors.
    pub fn new(clusters: usize, clock: &Arc<ManualClock>) -> Result<Self, ShownError> {
        if !(2..=3).contains(&clusters) {
            return Err(ShownError {
                code: "INVALID_ARGUMENT".into(),
                message: format!("the lesson runs 2 or 3 clusters, not {clusters}"),
            });
        }
        let dbs = CLUSTERS[..clusters]
            .iter()
            .map(|id| (id.to_string(), Database::with_clock(clock.clone())))
            .collect();
        let mut instance =
            InstanceConsole::with_cluster_ids_as_given(PROJECT, INSTANCE, dbs).map_err(shown)?;
        // The profiles are the instance record's, made as a learner would make them.
        for line in PROFILE_LINES {
            let out = instance.run_line(line);
            if out.failed {
                return Err(ShownError {
                    code: "INTERNAL".into(),
                    message: format!("{line}: {}", out.stderr),
                });
            }
        }
        let moved = clock.clone();
        instance.set_latency_wait(Box::new(move |micros| {
            moved.advance_micros(i64::try_from(micros).unwrap_or(i64::MAX));
        }));
        let set = instance.replicas_mut();
        if let Some(c1) = set.replica_mut(0) {
            c1.create_table(TABLE, TableConfig::with_families([FAMILY]))
                .map_err(shown)?;
        }
        set.replication_mut()
            .set_delay_micros(START_LAG_MICROS)
            .map_err(shown)?;
        set.pump().map_err(shown)?;
        for i in 0..clusters {
            if let Some(db) = set.replica_mut(i) {
                // A day: the shortest retention Bigtable accepts.
                db.set_change_stream(
                    TABLE,
                    Some(sparsetable::api::change_stream::MIN_RETENTION_MICROS),
                )
                .map_err(shown)?;
            }
        }
        Ok(ReplLab {
            instance,
            console: Vec::new(),
            outcome: None,
            token: None,
            conflict: None,
            seen: alloc::vec![0; clusters],
            tail: Vec::new(),
            code: Vec::new(),
        })
    }

    /// Delivers what is due at the clock's time and adds new changes to the tail.
    pub fn pump(&mut self) {
        if let Err(e) = self.instance.replicas_mut().pump() {
            self.outcome = Some(Outcome {
                action: "replication".into(),
                cluster: None,
                code: e.code().as_str().into(),
                message: e.message().into(),
                waited: None,
            });
        }
        if let Ok(changes) = self.instance.replicas_mut().changes(TABLE, &self.seen) {
            for c in changes {
                self.seen[c.cluster] = self.seen[c.cluster].max(c.record.sequence);
                self.tail.push(ChangeLine {
                    cluster: CLUSTERS[c.cluster].into(),
                    commit_micros: c.record.commit_micros,
                    row: display_bytes(&c.record.row_key),
                    text: c
                        .record
                        .mutations
                        .iter()
                        .map(describe)
                        .collect::<Vec<_>>()
                        .join("; "),
                });
            }
            let excess = self.tail.len().saturating_sub(TAIL);
            self.tail.drain(..excess);
        }
    }

    /// Runs one command (the global flags taken off) from the playground's main console on
    /// this instance, as the lesson's console runs a line (its scrollback is the caller's).
    pub fn run_words(&mut self, words: &[Vec<u8>]) -> sparsetable_console::Output {
        let out = self.instance.run(words);
        self.pump();
        out
    }

    /// How many clusters the instance has.
    pub fn cluster_count(&self) -> usize {
        self.instance.replicas().len()
    }

    /// The cluster id at position `i`.
    fn id(i: usize) -> String {
        CLUSTERS.get(i).copied().unwrap_or("?").into()
    }

    /// Runs `op` at the cluster a request of `rpc` through `profile` reaches, on the
    /// instance's own path (delivery, routing, injected faults and latency:
    /// [`InstanceConsole::admit`], as the console's commands), and says what happened; `ok`
    /// words a success from the serving cluster's id and `op`'s answer.
    fn served<T>(
        &mut self,
        action: String,
        (rpc, profile, kind, row): (&str, &str, RequestKind, &str),
        op: impl FnOnce(&mut Database) -> Result<T, sparsetable::Error>,
        ok: impl FnOnce(&str, T) -> String,
    ) -> Outcome {
        let admission = self.instance.admit(rpc, profile, kind, row.as_bytes());
        self.finish(action, admission, op, ok)
    }

    /// The outcome of an admitted (or refused) request: `op` at its cluster if admitted.
    fn finish<T>(
        &mut self,
        action: String,
        admission: Admission,
        op: impl FnOnce(&mut Database) -> Result<T, sparsetable::Error>,
        ok: impl FnOnce(&str, T) -> String,
    ) -> Outcome {
        let waited = admission
            .waited
            .as_ref()
            .map(|w| w.note().trim_end().to_string());
        let (cluster, result) = match admission.cluster {
            Err(e) => (None, Err(e)),
            Ok(i) => (
                Some(Self::id(i)),
                match self.instance.replicas_mut().replica_mut(i) {
                    Some(db) => op(db),
                    None => Err(sparsetable::Error::new(
                        sparsetable::Code::Internal,
                        "no such cluster",
                    )),
                },
            ),
        };
        // A write starts on its way at once.
        let _ = self.instance.replicas_mut().pump();
        let (code, message) = match result {
            Ok(t) => ("OK".into(), ok(cluster.as_deref().unwrap_or("?"), t)),
            Err(e) => (e.code().as_str().into(), e.message().into()),
        };
        Outcome {
            action,
            cluster,
            code,
            message,
            waited,
        }
    }

    /// Runs one action; the outcome (refusals included) is part of the view, so only
    /// malformed requests are errors.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for an empty row key; the engine's errors for a bad lag or cluster.
    pub fn apply(&mut self, clock: &ManualClock, action: ReplAction) -> Result<(), ShownError> {
        let empty = |s: &str, what: &str| {
            if s.is_empty() {
                Err(ShownError {
                    code: "INVALID_ARGUMENT".into(),
                    message: format!("{what} must not be empty"),
                })
            } else {
                Ok(())
            }
        };
        match action {
            ReplAction::Start { .. } => {}
            ReplAction::Write {
                profile,
                row,
                qualifier,
                value,
            } => {
                empty(&row, "the row key")?;
                empty(&qualifier, "the qualifier")?;
                self.code = code::snippets(&ReplOp::Write {
                    profile: &profile,
                    row: &row,
                    qualifier: &qualifier,
                    value: &value,
                    timestamp_micros: None,
                });
                let action = format!("write {row} {FAMILY}:{qualifier}={value} via {profile}");
                let m = Mutation::set_cell(FAMILY, qualifier.into_bytes(), -1, value.into_bytes());
                self.outcome = Some(self.write(&profile, &row, &[m], action));
                clock.advance_micros(crate::state::WRITE_TICK_MICROS);
            }
            ReplAction::Increment {
                profile,
                row,
                qualifier,
            } => {
                empty(&row, "the row key")?;
                empty(&qualifier, "the qualifier")?;
                self.code = code::snippets(&ReplOp::Increment {
                    profile: &profile,
                    row: &row,
                    qualifier: &qualifier,
                });
                let action = format!("increment {row} {FAMILY}:{qualifier} via {profile}");
                let rule = ReadModifyWriteRule {
                    family: FAMILY.into(),
                    qualifier: qualifier.into_bytes(),
                    op: ReadModifyWriteOp::IncrementAmount(1),
                };
                let key = row.as_bytes().to_vec();
                self.outcome = Some(self.served(
                    action,
                    (
                        "ReadModifyWriteRow",
                        &profile,
                        RequestKind::Transaction,
                        &row,
                    ),
                    |db| db.read_modify_write_row(TABLE, &key, &[rule]),
                    |c, _| format!("applied at {c}"),
                ));
                clock.advance_micros(crate::state::WRITE_TICK_MICROS);
            }
            ReplAction::Read { profile, row } => {
                empty(&row, "the row key")?;
                self.code = code::snippets(&ReplOp::Read {
                    profile: &profile,
                    row: &row,
                });
                let action = format!("read {row} via {profile}");
                let key = row.as_bytes().to_vec();
                self.outcome = Some(self.served(
                    action,
                    ("ReadRows", &profile, RequestKind::Read, &row),
                    |db| Ok(copy_cells(db, Some(&key))),
                    |c, cells| {
                        let text = if cells.is_empty() {
                            "no such row (yet) at this cluster".to_string()
                        } else {
                            cells
                                .iter()
                                .map(|(_, col, _, v)| format!("{col}={v}"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        };
                        format!("{c} answered: {text}")
                    },
                ));
            }
            ReplAction::Conflict { row, qualifier } => {
                empty(&row, "the row key")?;
                empty(&qualifier, "the qualifier")?;
                // One timestamp, one commit time: neither write saw the other.
                let ts = clock.now_micros() / 1000 * 1000;
                self.code = code::snippets(&ReplOp::Conflict {
                    row: &row,
                    qualifier: &qualifier,
                    timestamp_micros: ts,
                });
                let mut writes = Vec::new();
                let mut outcomes = Vec::new();
                let mut waits = Vec::new();
                for (profile, value) in [("to-c1", "from-c1"), ("to-c2", "from-c2")] {
                    let m = Mutation::set_cell(
                        FAMILY,
                        qualifier.clone().into_bytes(),
                        ts,
                        value.as_bytes().to_vec(),
                    );
                    let o = self.write(profile, &row, &[m], String::new());
                    if o.code == "OK" {
                        writes.push((o.cluster.clone().unwrap_or_default(), value.to_string()));
                    }
                    outcomes.push(format!("{profile}: {} {}", o.code, o.message));
                    waits.extend(o.waited);
                }
                self.outcome = Some(Outcome {
                    action: format!("conflicting writes of {row} {FAMILY}:{qualifier} @{ts}"),
                    cluster: None,
                    code: if writes.len() == 2 {
                        "OK"
                    } else {
                        "UNAVAILABLE"
                    }
                    .into(),
                    message: outcomes.join("; "),
                    waited: (!waits.is_empty()).then(|| waits.join(" ")),
                });
                self.conflict = Some((row, qualifier.into_bytes(), ts, writes));
                clock.advance_micros(crate::state::WRITE_TICK_MICROS);
            }
            ReplAction::SetLag(micros) => {
                self.instance
                    .replicas_mut()
                    .replication_mut()
                    .set_delay_micros(micros)
                    .map_err(shown)?;
                self.code = code::snippets(&ReplOp::SetLag(micros));
                self.outcome = Some(Outcome {
                    action: format!("replication lag {}", crate::state::duration(micros)),
                    cluster: None,
                    code: "OK".into(),
                    message: "writes reach the other clusters this long after their commit".into(),
                    waited: None,
                });
            }
            ReplAction::SetAvailable { cluster, available } => {
                self.instance
                    .replicas_mut()
                    .replication_mut()
                    .set_available(&cluster, available)
                    .map_err(shown)?;
                self.code = code::snippets(&ReplOp::SetAvailable {
                    cluster: &cluster,
                    available,
                });
                self.outcome = Some(Outcome {
                    action: format!("{cluster} {}", if available { "up" } else { "down" }),
                    cluster: None,
                    code: "OK".into(),
                    message: if available {
                        format!(
                            "{cluster} is back: the writes it missed arrive now, in commit order"
                        )
                    } else {
                        format!("{cluster} is down: it neither serves nor receives; single-cluster profiles to it answer UNAVAILABLE, multi-cluster ones fail over")
                    },
                    waited: None,
                });
            }
            ReplAction::GenerateToken => {
                self.code = code::snippets(&ReplOp::Token);
                // A table admin RPC: no profile routes it; the faults are checked at the
                // first cluster, as the instance serves table admin there.
                let admission = self.instance.admit_table_admin("GenerateConsistencyToken");
                let outcome = self.finish(
                    "consistency token for users".into(),
                    admission,
                    |_| Ok(()),
                    |_, ()| "generated: it turns true once every earlier write has reached every cluster".into(),
                );
                if outcome.code == "OK" {
                    let r = self.instance.replicas().replication();
                    self.token = Some((r.consistency_token(TABLE), clock.now_micros()));
                }
                self.outcome = Some(Outcome {
                    cluster: None,
                    ..outcome
                });
            }
            ReplAction::Console(line) => {
                // The instance console pumps before and after the command and waits out an
                // injected latency by moving the clock.
                let out = self.instance.run_line(&line);
                self.console.push(ConsoleEntry {
                    command: line,
                    stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
                    stderr: out.stderr,
                    failed: out.failed,
                });
                let excess = self.console.len().saturating_sub(200);
                self.console.drain(..excess);
                // Time passes between two commands, as on the playground's console.
                clock.advance_micros(crate::state::WRITE_TICK_MICROS);
            }
            ReplAction::ClearConsole => self.console.clear(),
        }
        self.pump();
        Ok(())
    }

    /// Routes a write through `profile` and applies it at the cluster chosen.
    fn write(&mut self, profile: &str, row: &str, ms: &[Mutation], action: String) -> Outcome {
        self.served(
            action,
            ("MutateRow", profile, RequestKind::Write, row),
            |db| db.mutate_row(TABLE, row.as_bytes(), ms),
            |c, ()| format!("acknowledged by {c}"),
        )
    }

    /// Cluster `i`'s cells (of one row, or all); see [`copy_cells`].
    fn cells(&self, i: usize, row: Option<&[u8]>) -> Vec<CopyCell> {
        self.instance
            .replicas()
            .replica(i)
            .map(|db| copy_cells(db, row))
            .unwrap_or_default()
    }

    /// What the lesson shows now.
    pub fn view(&self) -> ReplView {
        let n = self.instance.replicas().len();
        let copies: Vec<Vec<CopyCell>> = (0..n).map(|i| self.cells(i, None)).collect();
        let mut union: Vec<CopyCell> = copies.iter().flatten().cloned().collect();
        union.sort();
        union.dedup();
        let available: Vec<bool> = (0..n)
            .map(|i| self.instance.replicas().replication().is_available(i))
            .collect();
        let clusters = (0..n)
            .map(|i| ClusterView {
                id: Self::id(i),
                available: available[i],
                cells: union
                    .iter()
                    .map(|cell| {
                        let lacking: Vec<String> = (0..n)
                            .filter(|&j| !copies[j].contains(cell))
                            .map(Self::id)
                            .collect();
                        let here = copies[i].contains(cell);
                        CellView {
                            row: display_bytes(&cell.0),
                            column: cell.1.clone(),
                            timestamp_micros: cell.2,
                            value: cell.3.clone(),
                            state: if !here {
                                CellState::Missing
                            } else if lacking.is_empty() {
                                CellState::Everywhere
                            } else {
                                CellState::NotYetEverywhere
                            },
                            missing_at: lacking,
                        }
                    })
                    .collect(),
            })
            .collect();
        let r = self.instance.replicas().replication();
        ReplView {
            clusters,
            lag_micros: r.delay_micros(),
            in_flight: r.in_flight(),
            outcome: self.outcome.clone(),
            token: self.token.as_ref().map(|(t, at)| TokenView {
                token: t.clone(),
                consistent: r.check_consistency(TABLE, t, false).unwrap_or(false),
                generated_micros: *at,
            }),
            conflict: self
                .conflict
                .as_ref()
                .map(|(row, q, ts, writes)| self.conflict_view(row, q, *ts, writes, &copies)),
            tail: self.tail.clone(),
            code: self.code.clone(),
            console: self.console.clone(),
        }
    }

    fn conflict_view(
        &self,
        row: &str,
        qualifier: &[u8],
        ts: i64,
        writes: &[(String, String)],
        copies: &[Vec<CopyCell>],
    ) -> ConflictView {
        let column = format!("{FAMILY}:{}", display_bytes(qualifier));
        let now: Vec<(String, String)> = copies
            .iter()
            .enumerate()
            .map(|(i, cells)| {
                let v = cells
                    .iter()
                    .find(|c| c.0 == row.as_bytes() && c.1 == column && c.2 == ts)
                    .map(|c| c.3.clone())
                    .unwrap_or_default();
                (Self::id(i), v)
            })
            .collect();
        // The rule (docs/replication.md): the later commit wins; at one commit time the
        // cluster listed later in the instance wins. Both writes here share a commit time.
        let winner = writes
            .iter()
            .max_by_key(|(c, _)| CLUSTERS.iter().position(|x| x == c))
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        ConflictView {
            cell: format!("{row} {column} @{ts}"),
            writes: writes.to_vec(),
            winner,
            why: "Both writes set the same cell (row, column, timestamp) and were committed at the same moment on the engine's clock, each at its own cluster before either saw the other. Replication resolves it the same way everywhere: the write committed later wins, and at the same commit time the cluster listed later in the instance wins (c2 over c1). Every cluster converges on that one value once the lag has passed.".into(),
            now,
        }
    }
}

/// One copy's cells (of one row, or all): key, column, timestamp, value; untracked.
fn copy_cells(db: &Database, row: Option<&[u8]>) -> Vec<CopyCell> {
    let request = ReadRowsRequest {
        row_set: RowSet {
            row_keys: row.map(|r| alloc::vec![r.to_vec()]).unwrap_or_default(),
            row_ranges: Vec::new(),
        },
        ..ReadRowsRequest::default()
    };
    let Ok(mut stream) = db.read_rows(TABLE, &request) else {
        return Vec::new();
    };
    stream.set_access_stats(false);
    let mut out = Vec::new();
    for r in stream.by_ref() {
        for c in r.cells {
            out.push((
                r.key.clone(),
                format!("{}:{}", c.family, display_bytes(&c.qualifier)),
                c.timestamp_micros,
                display_bytes(&c.value),
            ));
        }
    }
    out
}

/// A mutation in words, for the tail.
fn describe(m: &Mutation) -> String {
    match m {
        Mutation::SetCell {
            family,
            qualifier,
            timestamp_micros,
            value,
        } => format!(
            "set {family}:{}={} @{timestamp_micros}",
            display_bytes(qualifier),
            display_bytes(value)
        ),
        Mutation::DeleteFromColumn {
            family, qualifier, ..
        } => format!("delete {family}:{}", display_bytes(qualifier)),
        Mutation::DeleteFromFamily { family } => format!("delete family {family}"),
        Mutation::DeleteFromRow => "delete row".into(),
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lab(n: usize) -> (ReplLab, Arc<ManualClock>) {
        let clock = Arc::new(ManualClock::new(1_700_000_000_000_000));
        (ReplLab::new(n, &clock).unwrap(), clock)
    }

    fn write(l: &mut ReplLab, clock: &ManualClock, profile: &str, value: &str) {
        l.apply(
            clock,
            ReplAction::Write {
                profile: profile.into(),
                row: "user#1".into(),
                qualifier: "name".into(),
                value: value.into(),
            },
        )
        .unwrap();
    }

    #[test]
    fn a_write_through_c1_is_stale_at_c2_until_the_lag_passes_and_the_token_follows() {
        let (mut l, clock) = lab(2);
        write(&mut l, &clock, "to-c1", "Ada");
        assert!(l.view().code.iter().any(|s| s.code.contains("to-c1")));
        l.apply(&clock, ReplAction::GenerateToken).unwrap();
        assert!(l
            .view()
            .code
            .iter()
            .any(|s| s.code.contains("waitforreplication")));
        let v = l.view();
        assert_eq!(v.clusters[0].cells[0].state, CellState::NotYetEverywhere);
        assert_eq!(v.clusters[0].cells[0].missing_at, ["c2"]);
        assert_eq!(v.clusters[1].cells[0].state, CellState::Missing);
        assert!(!v.token.as_ref().unwrap().consistent);
        assert_eq!(v.tail.len(), 1, "{:?}", v.tail);
        assert_eq!(v.tail[0].cluster, "c1");
        clock.advance_micros(START_LAG_MICROS);
        l.pump();
        let v = l.view();
        assert!(v
            .clusters
            .iter()
            .all(|c| c.cells[0].state == CellState::Everywhere));
        assert!(v.token.unwrap().consistent);
        assert_eq!(v.tail.len(), 1, "replicated writes are not logged again");
    }

    #[test]
    fn a_down_cluster_refuses_single_cluster_writes_and_multi_cluster_fails_over() {
        let (mut l, clock) = lab(3);
        l.apply(
            &clock,
            ReplAction::SetAvailable {
                cluster: "c2".into(),
                available: false,
            },
        )
        .unwrap();
        write(&mut l, &clock, "to-c2", "x");
        assert_eq!(l.view().outcome.unwrap().code, "UNAVAILABLE");
        l.apply(
            &clock,
            ReplAction::SetAvailable {
                cluster: "c1".into(),
                available: false,
            },
        )
        .unwrap();
        write(&mut l, &clock, "multi", "y");
        let o = l.view().outcome.unwrap();
        assert_eq!((o.code.as_str(), o.cluster.as_deref()), ("OK", Some("c3")));
        clock.advance_micros(10 * START_LAG_MICROS);
        for c in ["c1", "c2"] {
            l.apply(
                &clock,
                ReplAction::SetAvailable {
                    cluster: c.into(),
                    available: true,
                },
            )
            .unwrap();
        }
        let v = l.view();
        assert!(v.clusters.iter().all(|c| c.cells.len() == 1
            && c.cells[0].state == CellState::Everywhere
            && c.cells[0].value == "y"));
    }

    #[test]
    fn a_transaction_through_a_multi_cluster_profile_is_refused() {
        let (mut l, clock) = lab(2);
        let inc = |profile: &str| ReplAction::Increment {
            profile: profile.into(),
            row: "r".into(),
            qualifier: "n".into(),
        };
        l.apply(&clock, inc("multi")).unwrap();
        assert_eq!(l.view().outcome.unwrap().code, "FAILED_PRECONDITION");
        l.apply(&clock, inc("to-c1")).unwrap();
        assert_eq!(l.view().outcome.unwrap().code, "OK");
    }

    #[test]
    fn conflicting_writes_converge_on_the_later_listed_cluster() {
        let (mut l, clock) = lab(3);
        l.apply(
            &clock,
            ReplAction::Conflict {
                row: "r".into(),
                qualifier: "q".into(),
            },
        )
        .unwrap();
        let c = l.view().conflict.unwrap();
        assert_eq!(c.winner, "from-c2");
        assert_eq!(c.now[0].1, "from-c1", "before the lag each keeps its own");
        clock.advance_micros(START_LAG_MICROS);
        l.pump();
        let c = l.view().conflict.unwrap();
        assert!(c.now.iter().all(|(_, v)| v == "from-c2"), "{:?}", c.now);
    }
}
