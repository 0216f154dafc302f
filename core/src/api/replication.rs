//! Replication between the clusters of one instance, simulated on the engine's clock:
//! app-profile routing, the queue of writes on their way to the other clusters, how a late
//! write converges, consistency tokens and cluster outages (injected faults are
//! [`super::faults`]).
//!
//! This is a pure state machine (no_std): it holds no database. The caller applies a write
//! at the cluster [`Replication::route`] picks, hands the writes that cluster committed to
//! [`Replication::record`], and applies what [`Replication::pump`] says is due at each other
//! cluster. [`super::replicated::ReplicatedInstance`] (std) does that over one
//! [`crate::SharedDatabase`] per cluster; a front-end without threads can do it over plain
//! [`crate::Database`]s.
//!
//! # The rules, and where they come from
//! From Bigtable's documentation (cloud.google.com/bigtable/docs: "Replication overview",
//! "About app profiles", "Routing options", "Failovers"), in our words:
//! - Every cluster of an instance serves reads and writes and holds its own copy of every
//!   table. A write is applied and acknowledged by the cluster its request was routed to and
//!   reaches the other clusters later: replication is eventually consistent, with a delay of
//!   seconds in normal operation. Here that delay is the instance's replication delay, on
//!   the engine's clock, so a manual clock makes every test exact.
//! - An app profile routes each request. Single-cluster routing sends every request to one
//!   cluster; when that cluster is unavailable the request fails (failover is manual).
//!   Multi-cluster routing sends it to the nearest available cluster of its list (every
//!   cluster when the list is empty) and fails over to the next one by itself.
//! - Single-row transactions (CheckAndMutateRow, ReadModifyWriteRow) are allowed only through
//!   a single-cluster profile that allows them; otherwise Bigtable answers
//!   `FAILED_PRECONDITION` "Single-row transactions are not allowed by this app profile" (the
//!   text Google's Python client reported in googleapis/google-cloud-python#10018).
//! - The default profile (the empty id): with one cluster, single-cluster routing to it with
//!   transactions allowed; with two or more, multi-cluster routing to any cluster without
//!   them. A profile the instance stores under the id `default` replaces that rule.
//! - Data Boost profiles serve reads only.
//! - A consistency token (GenerateConsistencyToken / CheckConsistency) is consistent once
//!   every write acknowledged before it was generated has reached every cluster (mode
//!   `standard_read_remote_writes`); mode `data_boost_read_local_writes` asks only that
//!   reads through Data Boost see writes made at the same cluster.
//!
//! Where the documentation is silent, our choices (a user would expect them):
//! - "Nearest" is the order in which a profile lists its clusters (the instance's clusters
//!   in id order when it lists none). With row affinity the first cluster tried is chosen
//!   by a stable hash of the row key, so one row's requests go to one cluster.
//! - Conflicts: two writes of the same cell (row, family, qualifier, timestamp) made at
//!   different clusters before either reached the other resolve to the one committed later
//!   on the engine's clock, ties broken by the cluster's position in the instance; deletes
//!   and sets alike. Every cluster ends with the same cells whatever order writes reached it
//!   in: a write that arrives after later writes to its row were applied is applied and then
//!   those later writes are applied again (sets and deletes are idempotent). Aggregate
//!   inputs (AddToCell, MergeToCell) are not applied again: they commute, so each is merged
//!   once at every cluster. A ReadModifyWriteRow replicates as the cells it wrote.
//! - A cluster taken down neither serves nor sends nor receives; writes for it wait and
//!   arrive, in commit order, once it is back. Writes it had acknowledged but not yet sent
//!   leave when it returns.
//! - A unknown app profile id is `NOT_FOUND` on a replicated instance; an instance with one
//!   cluster routes every id as the default profile, as Google's emulator ignores the id.
//!
//! Invariants: the queue holds each write once, in commit order; a write leaves the queue
//! once every cluster has applied it and every earlier write; `route` never returns an
//! unavailable cluster.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::api::database::{CommittedWrite, RowMutations};
use crate::codec::encoding::{
    put_bool, put_fixed32, put_len, put_str, put_varint64, put_varint_i64, Decode, Decoder, Encode,
    CRC32C,
};
use crate::durability::commit_log::{BatchEntry, Origin, WriteBatch};
use crate::error::quoted;
use crate::model::mutation::Mutation;
use crate::{Code, Error, Result};

/// The message Bigtable gives a transaction through a profile that does not allow one.
pub const TRANSACTIONS_NOT_ALLOWED: &str =
    "Single-row transactions are not allowed by this app profile";

/// How an app profile routes requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Routing {
    /// Every request to one cluster.
    SingleCluster {
        /// The cluster.
        cluster_id: String,
        /// Whether CheckAndMutateRow and ReadModifyWriteRow are allowed.
        allow_transactional_writes: bool,
    },
    /// Each request to the nearest available cluster of the list.
    MultiCluster {
        /// The clusters, nearest first; empty: every cluster of the instance.
        cluster_ids: Vec<String>,
        /// Requests for one row go to one cluster while it is available.
        row_affinity: bool,
    },
}

/// Which compute an app profile's requests use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Isolation {
    /// The clusters' nodes (reads and writes).
    #[default]
    Standard,
    /// Data Boost: reads only.
    DataBoostReadOnly,
}

/// An app profile as routing needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppProfile {
    /// Its id (`default` replaces the default rule).
    pub id: String,
    /// Its routing policy.
    pub routing: Routing,
    /// Its isolation.
    pub isolation: Isolation,
}

/// What a routed request does: routing refuses writes to Data Boost and transactions to
/// profiles that do not allow them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestKind {
    /// ReadRows, SampleRowKeys, ExecuteQuery.
    Read,
    /// MutateRow, MutateRows.
    Write,
    /// CheckAndMutateRow, ReadModifyWriteRow.
    Transaction,
}

/// The longest app profile id Cloud Bigtable accepts.
pub const MAX_APP_PROFILE_ID_CHARS: usize = 50;

/// Cloud Bigtable's rule for an app profile id: 1 to 50 letters, digits, `_`, `-` or `.`,
/// not starting with `-` or `.`.
///
/// # Errors
/// `InvalidArgument` quoting the id otherwise.
pub fn validate_app_profile_id(id: &str) -> Result<()> {
    let ok = (1..=MAX_APP_PROFILE_ID_CHARS).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        && !id.starts_with(['-', '.']);
    if ok {
        Ok(())
    } else {
        Err(Error::invalid_argument(format!(
            "app profile id {} must be 1 to {MAX_APP_PROFILE_ID_CHARS} letters, digits, '_', '-' or '.', not starting with '-' or '.'",
            quoted(id)
        )))
    }
}

#[derive(Debug, Clone)]
struct ClusterState {
    id: String,
    available: bool,
}

/// A committed write on its way to the other clusters.
#[derive(Debug, Clone)]
struct InFlight {
    /// Commit order: commit time, then the source cluster's position, then arrival.
    order: (i64, usize, u64),
    source: usize,
    write: CommittedWrite,
    /// Per cluster: whether it still has to apply the write.
    pending: Vec<bool>,
}

/// Writes due at one cluster, to apply in order (see the module docs on conflicts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// The cluster's position in the instance.
    pub cluster: usize,
    /// The replicated write, then the later writes of its rows applied again.
    pub writes: Vec<CommittedWrite>,
    /// The replicated write's source cluster (its id) and arrival number: a receiving
    /// database that records it atomically with the writes
    /// ([`crate::Database::apply_delivery`]) lets a restored queue skip this delivery
    /// ([`Replication::restore_queue_with`]).
    pub origin: Origin,
}

/// One instance's replication state (see the module docs).
#[derive(Debug, Clone)]
pub struct Replication {
    clusters: Vec<ClusterState>,
    profiles: Vec<AppProfile>,
    delay_micros: i64,
    queue: Vec<InFlight>,
    arrivals: u64,
    /// Per cluster, the latest commit time of a write it sent: a later write from it is
    /// ordered no earlier (a clock stepped back cannot put it before one already sent, so
    /// each source's writes reach each cluster in arrival order, which the replication
    /// marks rely on).
    last_commit: Vec<i64>,
    /// Per cluster, the highest sequence (at its database) of a write of its that the
    /// queue has recorded: kept in the queue file, so a restart knows which of the writes
    /// a cluster's database still holds as outbound the queue lacks.
    captured_through: Vec<u64>,
}

impl Replication {
    /// An instance with these clusters (in the instance's order, at least one), all
    /// available, no app profiles and no delay.
    ///
    /// # Errors
    /// `InvalidArgument` for no clusters or a repeated id.
    pub fn new(cluster_ids: Vec<String>) -> Result<Self> {
        if cluster_ids.is_empty() {
            return Err(Error::invalid_argument(
                "an instance needs at least one cluster",
            ));
        }
        let unique: BTreeSet<&String> = cluster_ids.iter().collect();
        if unique.len() != cluster_ids.len() {
            return Err(Error::invalid_argument("cluster ids must be unique"));
        }
        let n = cluster_ids.len();
        Ok(Replication {
            last_commit: alloc::vec![i64::MIN; n],
            captured_through: alloc::vec![0; n],
            clusters: cluster_ids
                .into_iter()
                .map(|id| ClusterState {
                    id,
                    available: true,
                })
                .collect(),
            profiles: Vec::new(),
            delay_micros: 0,
            queue: Vec::new(),
            arrivals: 0,
        })
    }

    /// The clusters' ids, in the instance's order.
    pub fn cluster_ids(&self) -> Vec<String> {
        self.clusters.iter().map(|c| c.id.clone()).collect()
    }

    /// The position of cluster `id`.
    ///
    /// # Errors
    /// `NotFound` for a cluster the instance does not have.
    pub fn cluster_index(&self, id: &str) -> Result<usize> {
        self.clusters
            .iter()
            .position(|c| c.id == id)
            .ok_or_else(|| Error::not_found(format!("cluster {} not found", quoted(id))))
    }

    /// Replaces the instance's app profiles.
    pub fn set_profiles(&mut self, profiles: Vec<AppProfile>) {
        self.profiles = profiles;
    }

    /// The replication delay, in microseconds of the engine's clock.
    pub fn delay_micros(&self) -> i64 {
        self.delay_micros
    }

    /// Sets the replication delay.
    ///
    /// # Errors
    /// `InvalidArgument` for a negative delay.
    pub fn set_delay_micros(&mut self, micros: i64) -> Result<()> {
        if micros < 0 {
            return Err(Error::invalid_argument(format!(
                "replication delay must not be negative, got {micros} microseconds"
            )));
        }
        self.delay_micros = micros;
        Ok(())
    }

    /// Takes cluster `id` down (`false`) or brings it back (`true`).
    ///
    /// # Errors
    /// `NotFound` for an unknown cluster.
    pub fn set_available(&mut self, id: &str, available: bool) -> Result<()> {
        let i = self.cluster_index(id)?;
        self.clusters[i].available = available;
        Ok(())
    }

    /// Whether cluster `i` is available.
    pub fn is_available(&self, i: usize) -> bool {
        self.clusters.get(i).is_some_and(|c| c.available)
    }

    /// The profile a request's `app_profile_id` names (see the module docs for the default
    /// and for unknown ids).
    fn profile(&self, app_profile_id: &str) -> Result<AppProfile> {
        let wanted = if app_profile_id.is_empty() {
            "default"
        } else {
            app_profile_id
        };
        if let Some(p) = self.profiles.iter().find(|p| p.id == wanted) {
            return Ok(p.clone());
        }
        if app_profile_id.is_empty() || self.clusters.len() == 1 {
            let routing = if self.clusters.len() == 1 {
                Routing::SingleCluster {
                    cluster_id: self.clusters[0].id.clone(),
                    allow_transactional_writes: true,
                }
            } else {
                Routing::MultiCluster {
                    cluster_ids: Vec::new(),
                    row_affinity: false,
                }
            };
            return Ok(AppProfile {
                id: "default".into(),
                routing,
                isolation: Isolation::Standard,
            });
        }
        validate_app_profile_id(app_profile_id)?;
        Err(Error::not_found(format!(
            "app profile {} not found",
            quoted(app_profile_id)
        )))
    }

    /// The cluster (its position) that serves a request through `app_profile_id`.
    ///
    /// # Errors
    /// `NotFound` for an unknown profile (on a replicated instance) or a profile naming a
    /// cluster the instance lacks; `FailedPrecondition` for a transaction through a profile
    /// that does not allow one, or a write through Data Boost; `Unavailable` when no
    /// cluster the profile may use is available.
    pub fn route(&self, app_profile_id: &str, kind: RequestKind, row_key: &[u8]) -> Result<usize> {
        let profile = self.profile(app_profile_id)?;
        if profile.isolation == Isolation::DataBoostReadOnly && kind != RequestKind::Read {
            return Err(Error::failed_precondition(format!(
                "app profile {} uses Data Boost, which serves reads only",
                quoted(&profile.id)
            )));
        }
        match &profile.routing {
            Routing::SingleCluster {
                cluster_id,
                allow_transactional_writes,
            } => {
                if kind == RequestKind::Transaction && !allow_transactional_writes {
                    return Err(Error::failed_precondition(TRANSACTIONS_NOT_ALLOWED));
                }
                let i = self.cluster_index(cluster_id)?;
                if !self.clusters[i].available {
                    return Err(Error::new(
                        Code::Unavailable,
                        format!(
                            "cluster {} is unavailable; app profile {} routes only to it (single-cluster routing fails over by hand)",
                            quoted(cluster_id),
                            quoted(&profile.id)
                        ),
                    ));
                }
                Ok(i)
            }
            Routing::MultiCluster {
                cluster_ids,
                row_affinity,
            } => {
                if kind == RequestKind::Transaction {
                    return Err(Error::failed_precondition(TRANSACTIONS_NOT_ALLOWED));
                }
                let candidates: Vec<usize> = if cluster_ids.is_empty() {
                    // Every cluster, in id order (the instance's own order keeps its first
                    // database's cluster first, which is not what "nearest" means).
                    let mut all: Vec<usize> = (0..self.clusters.len()).collect();
                    all.sort_by(|&a, &b| self.clusters[a].id.cmp(&self.clusters[b].id));
                    all
                } else {
                    cluster_ids
                        .iter()
                        .map(|id| self.cluster_index(id))
                        .collect::<Result<_>>()?
                };
                let start = if *row_affinity && !candidates.is_empty() {
                    (fnv1a(row_key) % candidates.len() as u64) as usize
                } else {
                    0
                };
                (0..candidates.len())
                    .map(|k| candidates[(start + k) % candidates.len()])
                    .find(|&i| self.clusters[i].available)
                    .ok_or_else(|| {
                        Error::new(
                            Code::Unavailable,
                            format!(
                                "no cluster app profile {} routes to is available",
                                quoted(&profile.id)
                            ),
                        )
                    })
            }
        }
    }

    /// Queues the writes cluster `source` committed, to reach every other cluster.
    pub fn record(&mut self, source: usize, writes: Vec<CommittedWrite>) {
        if self.clusters.len() < 2 {
            return;
        }
        for mut write in writes {
            self.arrivals += 1;
            let mut pending = alloc::vec![true; self.clusters.len()];
            pending[source] = false;
            // See `last_commit`: with a clock that only moves forward this changes nothing.
            write.commit_micros = write.commit_micros.max(self.last_commit[source]);
            self.last_commit[source] = write.commit_micros;
            self.captured_through[source] = self.captured_through[source].max(write.sequence);
            let order = (write.commit_micros, source, self.arrivals);
            let at = self.queue.partition_point(|w| w.order < order);
            self.queue.insert(
                at,
                InFlight {
                    order,
                    source,
                    write,
                    pending,
                },
            );
        }
    }

    /// The writes due at each cluster at `now` (committed at least the delay ago, sender
    /// and receiver both available), in commit order; they count as applied once returned,
    /// so the caller applies each [`Delivery`] in order.
    pub fn pump(&mut self, now: i64) -> Vec<Delivery> {
        let mut out = Vec::new();
        for i in 0..self.queue.len() {
            let w = &self.queue[i];
            if w.write.commit_micros.saturating_add(self.delay_micros) > now
                || !self.clusters[w.source].available
            {
                continue;
            }
            for target in 0..self.clusters.len() {
                if !self.queue[i].pending[target] || !self.clusters[target].available {
                    continue;
                }
                let mut writes = alloc::vec![self.queue[i].write.clone()];
                writes.extend(self.reapply_after(i, target));
                self.queue[i].pending[target] = false;
                let w = &self.queue[i];
                out.push(Delivery {
                    cluster: target,
                    writes,
                    origin: Origin {
                        source: self.clusters[w.source].id.clone(),
                        arrival: w.order.2,
                    },
                });
            }
        }
        // A delivered write stays while an earlier one is still on its way: when that one
        // arrives, the later write may have to be applied again after it.
        let done = self
            .queue
            .iter()
            .take_while(|w| !w.pending.iter().any(|&p| p))
            .count();
        self.queue.drain(..done);
        out
    }

    /// The later writes (in commit order) already applied at `target` that touch the rows
    /// of queued write `i`, cut to those rows and without aggregate inputs: applied again
    /// after write `i`, they leave `target` as if the writes had arrived in commit order.
    fn reapply_after(&self, i: usize, target: usize) -> Vec<CommittedWrite> {
        let write = &self.queue[i].write;
        let rows: BTreeSet<&[u8]> = write.rows.iter().map(|r| r.row_key.as_slice()).collect();
        let mut again = Vec::new();
        for later in &self.queue[i + 1..] {
            if later.pending[target] || later.write.table_id != write.table_id {
                continue;
            }
            let cut: Vec<RowMutations> = later
                .write
                .rows
                .iter()
                .filter(|r| rows.contains(r.row_key.as_slice()))
                .map(|r| RowMutations {
                    row_key: r.row_key.clone(),
                    mutations: r
                        .mutations
                        .iter()
                        .filter(|m| {
                            !matches!(m, Mutation::AddToCell { .. } | Mutation::MergeToCell { .. })
                        })
                        .cloned()
                        .collect(),
                })
                .filter(|r| !r.mutations.is_empty())
                .collect();
            if !cut.is_empty() {
                again.push(CommittedWrite {
                    table_id: later.write.table_id.clone(),
                    rows: cut,
                    commit_micros: later.write.commit_micros,
                    sequence: later.write.sequence,
                });
            }
        }
        again
    }

    /// Forgets the queued writes of `table_id`'s rows under `prefix` (every row for the
    /// empty prefix): DropRowRange runs at every cluster, so what it deletes must not arrive
    /// afterwards and bring deleted rows back at one cluster only.
    pub fn discard_queued(&mut self, table_id: &str, prefix: &[u8]) {
        for w in &mut self.queue {
            if w.write.table_id == table_id {
                w.write.rows.retain(|r| !r.row_key.starts_with(prefix));
            }
        }
        self.queue.retain(|w| !w.write.rows.is_empty());
    }

    /// The highest sequence (at cluster `i`'s database) of a write of cluster `i` this queue
    /// has recorded: once the queue is durable, the database may stop keeping those writes
    /// as outbound ([`crate::Database::confirm_outbound`]).
    pub fn captured_through(&self, i: usize) -> u64 {
        self.captured_through.get(i).copied().unwrap_or(0)
    }

    /// Writes still on their way somewhere.
    pub fn in_flight(&self) -> usize {
        self.queue
            .iter()
            .filter(|w| w.pending.iter().any(|&p| p))
            .count()
    }

    /// A consistency token for `table_id`: consistent once every write acknowledged before
    /// now has reached every cluster.
    pub fn consistency_token(&self, table_id: &str) -> String {
        format!("{}-{:016x}", self.arrivals, fnv1a(table_id.as_bytes()))
    }

    /// Whether `token` (from [`Replication::consistency_token`] for `table_id`) is
    /// consistent: with `data_boost_local` (mode `data_boost_read_local_writes`), reads
    /// through Data Boost see their own cluster's writes, which here they do at once.
    ///
    /// # Errors
    /// `InvalidArgument` for a malformed token or one generated for another table.
    pub fn check_consistency(
        &self,
        table_id: &str,
        token: &str,
        data_boost_local: bool,
    ) -> Result<bool> {
        let parsed = token
            .split_once('-')
            .and_then(|(n, h)| Some((n.parse::<u64>().ok()?, u64::from_str_radix(h, 16).ok()?)));
        let Some((arrivals, table_hash)) = parsed else {
            return Err(Error::invalid_argument(format!(
                "consistency_token {} is not a token this server generated",
                quoted(token)
            )));
        };
        if table_hash != fnv1a(table_id.as_bytes()) || arrivals > self.arrivals {
            return Err(Error::invalid_argument(format!(
                "consistency_token {} was not generated for table {}",
                quoted(token),
                quoted(table_id)
            )));
        }
        if data_boost_local {
            return Ok(true);
        }
        Ok(!self.queue.iter().any(|w| {
            w.order.2 <= arrivals && w.write.table_id == table_id && w.pending.iter().any(|&p| p)
        }))
    }
}

/// The first bytes of an encoded queue (docs/format/replication_queue.md), version 2: each
/// cluster id is followed by its `captured-through` sequence.
pub const QUEUE_MAGIC: &[u8] = b"sparsetable-replication 2\n";

/// The first bytes of a version 1 queue (no `captured-through`), still read.
pub const QUEUE_MAGIC_V1: &[u8] = b"sparsetable-replication 1\n";

impl Replication {
    /// The queue of writes on their way, and the arrival counter, in the format of
    /// docs/format/replication_queue.md: what a replicated instance keeps on storage so that
    /// replication resumes after a restart.
    pub fn encode_queue(&self) -> Vec<u8> {
        let mut out = QUEUE_MAGIC.to_vec();
        put_varint64(&mut out, self.arrivals);
        put_len(&mut out, self.clusters.len());
        for (c, through) in self.clusters.iter().zip(&self.captured_through) {
            put_str(&mut out, &c.id);
            put_varint64(&mut out, *through);
        }
        put_len(&mut out, self.queue.len());
        for w in &self.queue {
            put_varint_i64(&mut out, w.order.0);
            put_len(&mut out, w.source);
            for &p in &w.pending {
                put_bool(&mut out, p);
            }
            WriteBatch {
                commit_micros: None,
                collected: false,
                one_sequence: false,
                origin: None,
                outbound: None,
                sequence: w.order.2,
                entries: w
                    .write
                    .rows
                    .iter()
                    .map(|r| BatchEntry {
                        table: w.write.table_id.clone(),
                        row_key: r.row_key.clone(),
                        mutations: r.mutations.clone(),
                    })
                    .collect(),
            }
            .encode_to(&mut out);
        }
        let crc = CRC32C.checksum(&out);
        put_fixed32(&mut out, crc);
        out
    }

    /// Restores a queue [`Replication::encode_queue`] wrote, mapping its clusters to this
    /// instance's by id: a cluster the instance no longer has is forgotten, and one the
    /// file does not name (it joined since) still needs what the first cluster still needs:
    /// it is filled by copying the first cluster's tables, which hold the rest.
    ///
    /// # Errors
    /// `DataLoss` for bytes that are not such a queue (wrong magic, checksum, truncation,
    /// a source index out of range). Nothing changes on error.
    pub fn restore_queue(&mut self, bytes: &[u8]) -> Result<()> {
        self.restore_queue_with(bytes, &[], &[])
    }

    /// [`Replication::restore_queue`], skipping the deliveries the clusters' replication
    /// marks say were applied: `applied[i]` is cluster `i`'s ([`crate::Database::replica_marks`]:
    /// per source cluster id, the highest arrival number delivered there; a missing entry
    /// marks nothing). A write a cluster applied just before the process stopped, whose
    /// delivery the file does not record, is then not applied again (an AddToCell would
    /// count twice). Each source's writes reach a cluster in arrival order, so every write
    /// of that source up to the mark was delivered. The arrival counter continues above
    /// every mark too, so a lost queue file cannot make a new write look delivered.
    ///
    /// `outbound[i]` are the writes cluster `i`'s database still holds as outbound
    /// ([`crate::Database::outbound`]): those committed after the file's `captured-through`
    /// for that cluster were never recorded (the process stopped between the commit and the
    /// file), and are recorded now, after the file's writes, so every cluster receives them.
    /// Writes recorded since this state was built are treated the same way.
    ///
    /// # Errors
    /// As [`Replication::restore_queue`].
    pub fn restore_queue_with(
        &mut self,
        bytes: &[u8],
        applied: &[BTreeMap<String, u64>],
        outbound: &[Vec<CommittedWrite>],
    ) -> Result<()> {
        let bad = |what: &str| Error::new(Code::DataLoss, format!("replication queue: {what}"));
        let body_len = bytes
            .len()
            .checked_sub(4)
            .filter(|&n| n >= QUEUE_MAGIC.len())
            .ok_or_else(|| bad("too short"))?;
        let (body, crc) = bytes.split_at(body_len);
        let stored = u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]);
        if CRC32C.checksum(body) != stored {
            return Err(bad("checksum mismatch"));
        }
        let (rest, version) = if let Some(rest) = body.strip_prefix(QUEUE_MAGIC) {
            (rest, 2)
        } else if let Some(rest) = body.strip_prefix(QUEUE_MAGIC_V1) {
            (rest, 1)
        } else {
            return Err(bad("not a replication queue (magic)"));
        };
        let mut d = Decoder::new(rest);
        let arrivals = d.varint64("arrivals")?;
        let n = d.count(1, "cluster count")?;
        let mut ids = Vec::with_capacity(n);
        let mut file_through = Vec::with_capacity(n);
        for _ in 0..n {
            ids.push(d.string("cluster id")?);
            // Version 1 did not say (`None`): its writers kept no outbound writes, so there
            // are none to recover from such a cluster.
            file_through.push(if version >= 2 {
                Some(d.varint64("captured-through")?)
            } else {
                None
            });
        }
        // Position in this instance of each cluster the file names.
        let here: Vec<Option<usize>> = ids
            .iter()
            .map(|id| self.clusters.iter().position(|c| &c.id == id))
            .collect();
        // Clusters the file does not name joined since it was written: their copy of the data
        // is the first cluster's (see `ReplicaSet::pump`), so each still needs exactly the
        // writes the first cluster still needs (one already applied there is in the copy;
        // sending it again would count an AddToCell twice).
        let joined: Vec<usize> = (0..self.clusters.len())
            .filter(|i| !here.contains(&Some(*i)))
            .collect();
        let entries = d.count(2 + n, "queue length")?;
        let mut queue = Vec::with_capacity(entries);
        for _ in 0..entries {
            let commit = d.varint_i64("commit time")?;
            let source = d.varint64("source")? as usize;
            let mut pending = alloc::vec![false; self.clusters.len()];
            for slot in &here {
                let p = d.u8("pending flag")? != 0;
                if let Some(i) = slot {
                    pending[*i] = p;
                }
            }
            let batch = WriteBatch::decode_from(&mut d)?;
            let Some(&Some(source_here)) = here.get(source) else {
                if source >= n {
                    return Err(bad("source cluster out of range"));
                }
                // The source cluster is gone: its writes leave with it.
                continue;
            };
            let table_id = batch
                .entries
                .first()
                .map(|e| e.table.clone())
                .unwrap_or_default();
            let write = CommittedWrite {
                table_id,
                rows: batch
                    .entries
                    .into_iter()
                    .map(|e| RowMutations {
                        row_key: e.row_key,
                        mutations: e.mutations,
                    })
                    .collect(),
                commit_micros: commit,
                sequence: 0,
            };
            pending[source_here] = false;
            let source_id = &ids[source];
            for (i, p) in pending.iter_mut().enumerate() {
                let marked = applied
                    .get(i)
                    .and_then(|m| m.get(source_id))
                    .is_some_and(|&m| m >= batch.sequence);
                if marked {
                    *p = false;
                }
            }
            for &i in &joined {
                pending[i] = pending[0];
            }
            queue.push(InFlight {
                order: (commit, source_here, batch.sequence),
                source: source_here,
                write,
                pending,
            });
        }
        d.finish("replication queue")?;
        queue.sort_by_key(|w| w.order);
        let mut last_commit = alloc::vec![i64::MIN; self.clusters.len()];
        for w in &queue {
            last_commit[w.source] = last_commit[w.source].max(w.order.0);
        }
        let marked = applied
            .iter()
            .flat_map(|m| m.values())
            .copied()
            .max()
            .unwrap_or(0);
        // Per cluster here, what the file says the queue recorded of its writes (a cluster
        // the file does not name: nothing; a version 1 file: everything its database still
        // holds as outbound, which such a writer never left).
        let mut through = alloc::vec![0u64; self.clusters.len()];
        for (slot, t) in here.iter().zip(&file_through) {
            if let Some(i) = slot {
                through[*i] = t.unwrap_or_else(|| {
                    outbound
                        .get(*i)
                        .and_then(|ws| ws.iter().map(|w| w.sequence).max())
                        .unwrap_or(0)
                });
            }
        }
        // The writes recorded since this state was built and the databases' outbound ones,
        // once each, in each source's commit order: those the file lacks are recorded anew.
        let mut missing: Vec<(usize, CommittedWrite)> = core::mem::take(&mut self.queue)
            .into_iter()
            .map(|w| (w.source, w.write))
            .chain(
                outbound
                    .iter()
                    .enumerate()
                    .flat_map(|(i, ws)| ws.iter().map(move |w| (i, w.clone()))),
            )
            .filter(|(i, w)| *i < self.clusters.len() && w.sequence > through[*i])
            .collect();
        missing.sort_by_key(|(i, w)| (*i, w.sequence));
        missing.dedup_by_key(|(i, w)| (*i, w.sequence));
        self.queue = queue;
        self.arrivals = self.arrivals.max(arrivals).max(marked);
        for (kept, restored) in self.last_commit.iter_mut().zip(last_commit) {
            *kept = (*kept).max(restored);
        }
        for (kept, restored) in self.captured_through.iter_mut().zip(through) {
            *kept = (*kept).max(restored);
        }
        for (source, write) in missing {
            self.record(source, alloc::vec![write]);
            // A cluster the file does not name holds a copy of the first cluster's tables.
            if source == 0 {
                if let Some(last) = self.queue.iter_mut().find(|w| w.order.2 == self.arrivals) {
                    for &j in &joined {
                        last.pending[j] = false;
                    }
                }
            }
        }
        Ok(())
    }
}

/// FNV-1a, 64 bits: a stable hash for row affinity and token checks (never a security
/// boundary).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
