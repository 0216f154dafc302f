//! One instance's data plane (std): the database of each of its clusters, how a data request
//! reaches one of them, the faults injected into its requests, and its replication. The
//! server, the Python and Kotlin bindings hold one [`InstanceData`] per instance and do no
//! routing of their own: they call [`InstanceData::route`] with the request's app profile, run
//! the request on the returned database, and call [`Routed::after_write`] after a write.
//!
//! - One cluster: the instance's one database; requests are still checked against the app
//!   profiles ([`Replication::route`]'s rules: a transaction through a profile that does not
//!   allow one is refused), but nothing is captured or queued, so a single-cluster instance
//!   costs what a bare database costs.
//! - Two or more clusters: a [`ReplicatedInstance`] over one database per cluster (the first
//!   is the one the instance was made with; the others come from the replica opener), rebuilt
//!   when the cluster list changes, keeping the copies of clusters that stay.
//! - Faults ([`FaultInjector`]): checked once per routed request, for its RPC and the cluster
//!   it reached. An injected latency is returned in [`Routed::latency_micros`], never slept
//!   here: a front-end waits it out the way its runtime waits (an async timer, a blocking
//!   pool, a released interpreter lock). A mid-stream fault is returned in
//!   [`Routed::stream_fault`] for the front-end to end its stream with, after the rows it names.
//! - Change streams: the retention set per table is applied to every cluster's copy, and to
//!   copies made later (a cluster added).
//!
//! Invariants: the cluster ids are non-empty, unique, and the first is the primary copy of
//! the schema (table admin runs there); `route` never returns a cluster a profile may not use;
//! the lag, outages and the queue survive a rebuild for the clusters that stay.

use std::boxed::Box;
use std::collections::BTreeMap;
use std::format;
use std::string::{String, ToString};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::vec;
use std::vec::Vec;

use crate::api::faults::{FaultInjector, FaultRule};
use crate::api::replicated::ReplicatedInstance;
use crate::api::replication::{AppProfile, Replication, RequestKind};
use crate::api::shared::{poisoned, SharedDatabase};
use crate::error::quoted;
use crate::platform::clock::Clock;
use crate::platform::storage::Storage;
use crate::{Database, Error, Result};

/// Opens the database of a cluster other than the first (in memory, or in its own folder).
pub type ReplicaOpener = Box<dyn Fn(&str) -> Result<Database> + Send + Sync>;

/// Opens the storage the replication queue is kept in, the first time the instance has two
/// clusters (so a single-cluster instance never makes it).
pub type QueueOpener = Box<dyn Fn() -> Result<Arc<dyn Storage>> + Send + Sync>;

/// Where a data request runs (see [`InstanceData::route`]).
#[derive(Debug, Clone)]
pub struct Routed {
    /// The routed cluster's database.
    pub db: SharedDatabase,
    /// The routed cluster's position in the instance (0 on a single-cluster instance).
    pub cluster: usize,
    /// The routed cluster's id.
    pub cluster_id: String,
    /// Injected latency the front-end waits out before answering (0: none).
    pub latency_micros: u64,
    /// A mid-stream fault: a streaming read delivers this many rows, then ends with the
    /// error (a front-end answering all at once fails with it).
    pub stream_fault: Option<(u64, Error)>,
    replicated: Option<Arc<ReplicatedInstance>>,
}

impl Routed {
    /// Hands what the request wrote to replication and delivers what is due (a no-op on a
    /// single-cluster instance). Call it before acknowledging the write: on a replicated
    /// instance with queue storage the write is then on storage, to reach the other clusters.
    ///
    /// # Errors
    /// Storage errors delivering due writes or keeping the queue; a poisoned lock.
    pub fn after_write(&self) -> Result<()> {
        match &self.replicated {
            Some(r) => r.after_write(self.cluster),
            None => Ok(()),
        }
    }
}

/// What changes under the plane lock.
struct Plane {
    cluster_ids: Vec<String>,
    profiles: Vec<AppProfile>,
    /// Routing rules for a single-cluster instance (no queue is used).
    single: Replication,
    replicated: Option<Arc<ReplicatedInstance>>,
    /// The delay the next replicated build starts with.
    delay_micros: i64,
    /// Change stream retention per table, applied to every copy.
    change_streams: BTreeMap<String, i64>,
}

/// One instance's clusters, routing, faults and replication (see the module docs).
pub struct InstanceData {
    primary: SharedDatabase,
    opener: ReplicaOpener,
    queue_opener: Option<QueueOpener>,
    /// The queue's storage once opened (kept: the folder is locked while open).
    queue_storage: Mutex<Option<Arc<dyn Storage>>>,
    plane: Mutex<Plane>,
    faults: Mutex<FaultInjector>,
    /// Lets requests skip the fault lock while no rule is in force.
    any_faults: AtomicBool,
}

impl core::fmt::Debug for InstanceData {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("InstanceData").finish_non_exhaustive()
    }
}

impl InstanceData {
    /// An instance of one cluster, `cluster_id`, over `primary`; further clusters' databases
    /// are made in memory on `clock` (give `primary`'s), in `primary`'s GC mode, until
    /// [`InstanceData::with_replica_opener`] says otherwise.
    ///
    /// # Errors
    /// `InvalidArgument` for an empty cluster id; a poisoned lock.
    pub fn new(primary: SharedDatabase, cluster_id: &str, clock: Arc<dyn Clock>) -> Result<Self> {
        if cluster_id.is_empty() {
            return Err(Error::invalid_argument("a cluster id is required"));
        }
        let ids = vec![cluster_id.to_string()];
        // Every cluster's copy reads alike: collectable cells are hidden in all or none.
        let gc_mode = primary.read(|d| Ok(d.gc_mode()))?;
        Ok(InstanceData {
            primary,
            opener: Box::new(move |_| {
                let mut db = Database::with_clock(clock.clone());
                db.set_gc_mode(gc_mode);
                Ok(db)
            }),
            queue_opener: None,
            queue_storage: Mutex::new(None),
            plane: Mutex::new(Plane {
                single: Replication::new(ids.clone())?,
                cluster_ids: ids,
                profiles: Vec::new(),
                replicated: None,
                delay_micros: 0,
                change_streams: BTreeMap::new(),
            }),
            faults: Mutex::new(FaultInjector::default()),
            any_faults: AtomicBool::new(false),
        })
    }

    /// Opens the databases of clusters after the first with `opener` (say, each in its own
    /// folder).
    #[must_use]
    pub fn with_replica_opener(mut self, opener: ReplicaOpener) -> Self {
        self.opener = opener;
        self
    }

    /// Keeps the replication queue on the storage `opener` opens (file
    /// [`crate::api::replicated::QUEUE_FILE`]) so a restart loses no acknowledged write that
    /// has yet to reach the other clusters.
    #[must_use]
    pub fn with_queue_storage(mut self, opener: QueueOpener) -> Self {
        self.queue_opener = Some(opener);
        self
    }

    /// The queue's storage, opened on first need; `None` without a queue opener.
    fn queue_storage(&self) -> Result<Option<Arc<dyn Storage>>> {
        let Some(opener) = &self.queue_opener else {
            return Ok(None);
        };
        let mut kept = self.queue_storage.lock().map_err(|_| poisoned())?;
        if kept.is_none() {
            *kept = Some(opener()?);
        }
        Ok(kept.clone())
    }

    fn plane(&self) -> Result<MutexGuard<'_, Plane>> {
        self.plane.lock().map_err(|_| poisoned())
    }

    /// The first cluster's database: the primary copy of the schema, where table admin runs.
    pub fn primary(&self) -> &SharedDatabase {
        &self.primary
    }

    /// The instance's cluster ids, the first cluster's first.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn cluster_ids(&self) -> Result<Vec<String>> {
        Ok(self.plane()?.cluster_ids.clone())
    }

    /// Sets the instance's clusters and its app profiles. A change of clusters rebuilds the
    /// replication, keeping the copies, availability and delay of the clusters that stay; a
    /// new cluster gets a copy of every table. The instance's first database (the primary
    /// copy of the schema) keeps its cluster while that cluster exists, whatever the order
    /// of `cluster_ids`; when that cluster is deleted, what is on its way between the clusters
    /// that are up is delivered first, and the first database becomes the copy of the first
    /// remaining cluster (its own former copy is dropped: the two held the same data).
    ///
    /// # Errors
    /// `InvalidArgument` for no clusters or a repeated id; storage errors opening a copy or
    /// its queue; a poisoned lock.
    pub fn configure(&self, cluster_ids: Vec<String>, profiles: Vec<AppProfile>) -> Result<()> {
        let mut plane = self.plane()?;
        // Validates the list (non-empty, unique) before anything changes.
        let _ = Replication::new(cluster_ids.clone())?;
        let primary = plane.cluster_ids[0].clone();
        let ordered: Vec<String> = if cluster_ids.contains(&primary) {
            core::iter::once(primary.clone())
                .chain(cluster_ids.iter().filter(|id| **id != primary).cloned())
                .collect()
        } else {
            if let Some(rep) = &plane.replicated {
                // The primary's cluster is going: bring the copies together first.
                let delay = rep.delay_micros()?;
                rep.set_delay_micros(0)?;
                rep.set_delay_micros(delay)?;
            }
            cluster_ids
        };
        if ordered != plane.cluster_ids {
            let single = Replication::new(ordered.clone())?;
            let replicated = if ordered.len() < 2 {
                None
            } else {
                Some(Arc::new(self.build(&plane, &ordered)?))
            };
            plane.single = single;
            plane.replicated = replicated;
            plane.cluster_ids = ordered;
        }
        if plane.replicated.is_none() {
            // Nothing replicates the first database's writes: it keeps none of them (nor
            // outbound ones recovered from its log from when it had other clusters).
            self.primary.write(|d| {
                d.set_capture_committed(false);
                Ok(())
            })?;
        }
        plane.single.set_profiles(profiles.clone());
        if let Some(rep) = &plane.replicated {
            rep.set_profiles(profiles.clone())?;
        }
        plane.profiles = profiles;
        Ok(())
    }

    /// A replicated instance over `ids`, reusing the current one's copies.
    fn build(&self, plane: &Plane, ids: &[String]) -> Result<ReplicatedInstance> {
        let previous = plane.replicated.as_ref();
        let mut clusters = vec![(ids[0].clone(), self.primary.clone())];
        let mut outages = Vec::new();
        for id in &ids[1..] {
            let kept = previous.and_then(|p| {
                let old = p.cluster_ids().ok()?;
                let at = old.iter().position(|o| o == id)?;
                if !p.is_available(at).unwrap_or(true) {
                    outages.push(id.clone());
                }
                p.replica(at).cloned()
            });
            let db = match kept {
                Some(db) => db,
                None => SharedDatabase::new((self.opener)(id)?),
            };
            clusters.push((id.clone(), db));
        }
        let mut rep = ReplicatedInstance::new(clusters)?;
        let storage = self.queue_storage()?;
        if let Some(storage) = &storage {
            // The queue file maps its clusters to the new list by id.
            rep = rep.with_queue_storage(storage.clone())?;
        }
        let carried = match (&storage, previous) {
            (None, Some(p)) => Some(p.encode_queue()?),
            _ => None,
        };
        if storage.is_none() {
            // No queue on storage: nothing will record the outbound writes a durable copy
            // recovered from its log (the other copies, in memory, start from whole tables).
            for i in 0..ids.len() {
                if let Some(db) = rep.replica(i) {
                    db.write(|d| {
                        d.confirm_outbound(u64::MAX);
                        Ok(())
                    })?;
                }
            }
        }
        let delay = previous.map_or(Ok(plane.delay_micros), |p| p.delay_micros())?;
        let rep = rep.with_state(|state| {
            state.set_profiles(plane.profiles.clone());
            state.set_delay_micros(delay)?;
            for id in &outages {
                state.set_available(id, false)?;
            }
            // Writes still on their way keep going to the clusters that stay.
            carried.map_or(Ok(()), |bytes| state.restore_queue(&bytes))
        })?;
        // After the schemas were brought in line: every copy of a table logs the changes
        // committed at its cluster.
        for i in 0..ids.len() {
            if let Some(db) = rep.replica(i) {
                for (table, retention) in &plane.change_streams {
                    // A table that is not there yet gets its log when the setting is next made.
                    let _ = db.write(|d| d.set_change_stream(table, Some(*retention)));
                }
            }
        }
        Ok(rep)
    }

    /// The replicated instance, when the instance has two or more clusters.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn replicated(&self) -> Result<Option<Arc<ReplicatedInstance>>> {
        Ok(self.plane()?.replicated.clone())
    }

    /// Every cluster's id and database, the first cluster's first, after delivering what
    /// replication has due (so their schemas agree).
    ///
    /// # Errors
    /// Storage errors delivering; a poisoned lock.
    pub fn clusters(&self) -> Result<Vec<(String, SharedDatabase)>> {
        let plane = self.plane()?;
        Ok(match &plane.replicated {
            Some(rep) => {
                rep.pump()?;
                plane
                    .cluster_ids
                    .iter()
                    .enumerate()
                    .filter_map(|(i, id)| Some((id.clone(), rep.replica(i)?.clone())))
                    .collect()
            }
            None => vec![(plane.cluster_ids[0].clone(), self.primary.clone())],
        })
    }

    /// A garbage collection pass now on every cluster's database, the first's first: over
    /// `table_id`, or every table with `None` (see `Database::collect_garbage`). Each cluster
    /// collects its own copy, as each Bigtable cluster compacts its own.
    ///
    /// # Errors
    /// `NotFound` for a table the instance lacks; storage errors; a poisoned lock.
    pub fn collect_garbage(&self, table_id: Option<&str>) -> Result<()> {
        for (_, db) in self.clusters()? {
            db.write(|d| match table_id {
                Some(t) => d.collect_garbage(t),
                None => d.collect_all_garbage(),
            })?;
        }
        Ok(())
    }

    /// The database a data request of `rpc` through `app_profile_id` runs on (see the module
    /// docs): delivers what replication has due, applies the routing rules, then the
    /// injected faults for `rpc` at the chosen cluster.
    ///
    /// # Errors
    /// The routing errors (`NotFound` for an unknown profile on a replicated instance,
    /// `FailedPrecondition` for a transaction a profile does not allow or a write through
    /// Data Boost, `Unavailable` when no cluster the profile may use is up); an injected
    /// error; storage errors delivering; a poisoned lock.
    pub fn route(
        &self,
        app_profile_id: &str,
        rpc: &str,
        kind: RequestKind,
        row_key: &[u8],
    ) -> Result<Routed> {
        let (cluster, db, cluster_id, replicated) = {
            let plane = self.plane()?;
            match &plane.replicated {
                Some(rep) => {
                    let (i, db) = rep.route(app_profile_id, kind, row_key)?;
                    (i, db, plane.cluster_ids[i].clone(), Some(rep.clone()))
                }
                None => {
                    plane.single.route(app_profile_id, kind, row_key)?;
                    (0, self.primary.clone(), plane.cluster_ids[0].clone(), None)
                }
            }
        };
        let mut latency_micros = 0;
        let mut stream_fault = None;
        if self.any_faults.load(Ordering::Acquire) {
            let outcome = self
                .faults
                .lock()
                .map_err(|_| poisoned())?
                .check(rpc, &cluster_id);
            match (outcome.error, outcome.after_rows) {
                (Some(e), Some(n)) => stream_fault = Some((n, e)),
                (Some(e), None) => return Err(e),
                (None, _) => {}
            }
            latency_micros = outcome.latency_micros;
        }
        Ok(Routed {
            db,
            cluster,
            cluster_id,
            latency_micros,
            stream_fault,
            replicated,
        })
    }

    /// Adds an injected fault (see [`FaultInjector`]); a rule naming a cluster must name one
    /// of the instance's.
    ///
    /// # Errors
    /// `InvalidArgument` for a bad rule; `NotFound` for an unknown cluster; a poisoned lock.
    pub fn add_fault(&self, rule: FaultRule) -> Result<()> {
        self.add_rule(rule, None)
    }

    /// Adds a mid-stream fault: a routed ReadRows gets [`Routed::stream_fault`] (see
    /// [`FaultInjector::add_mid_stream`]).
    ///
    /// # Errors
    /// As [`InstanceData::add_fault`] and [`FaultInjector::add_mid_stream`].
    pub fn add_mid_stream_fault(&self, rule: FaultRule, after_rows: u64) -> Result<()> {
        self.add_rule(rule, Some(after_rows))
    }

    fn add_rule(&self, rule: FaultRule, after_rows: Option<u64>) -> Result<()> {
        if let Some(c) = &rule.cluster_id {
            if !self.plane()?.cluster_ids.iter().any(|id| id == c) {
                let c = quoted(c);
                return Err(Error::not_found(format!(
                    "cluster {c} not found in this instance"
                )));
            }
        }
        let mut faults = self.faults.lock().map_err(|_| poisoned())?;
        match after_rows {
            Some(n) => faults.add_mid_stream(rule, n)?,
            None => faults.add(rule)?,
        }
        self.any_faults.store(true, Ordering::Release);
        Ok(())
    }

    /// Removes every injected fault and reseeds their random draws with `seed`.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn clear_faults(&self, seed: u64) -> Result<()> {
        let mut faults = self.faults.lock().map_err(|_| poisoned())?;
        faults.clear(seed);
        self.any_faults.store(false, Ordering::Release);
        Ok(())
    }

    /// How many fault rules are in force.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn fault_count(&self) -> Result<usize> {
        Ok(self.faults.lock().map_err(|_| poisoned())?.len())
    }

    /// Sets the replication delay in microseconds of the engine's clock (kept for a later
    /// replicated build when the instance has one cluster).
    ///
    /// # Errors
    /// `InvalidArgument` for a negative delay; a poisoned lock.
    pub fn set_delay_micros(&self, micros: i64) -> Result<()> {
        if micros < 0 {
            return Err(Error::invalid_argument(format!(
                "a replication delay cannot be negative (got {micros} microseconds)"
            )));
        }
        let mut plane = self.plane()?;
        plane.delay_micros = micros;
        if let Some(rep) = &plane.replicated {
            rep.set_delay_micros(micros)?;
        }
        Ok(())
    }

    /// The replication delay in microseconds.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn delay_micros(&self) -> Result<i64> {
        let plane = self.plane()?;
        match &plane.replicated {
            Some(rep) => rep.delay_micros(),
            None => Ok(plane.delay_micros),
        }
    }

    /// Takes cluster `cluster_id` down or brings it back (a returning cluster catches up).
    ///
    /// # Errors
    /// `NotFound` for an unknown cluster; `FailedPrecondition` on a single-cluster instance
    /// (its one cluster is what serves; an outage needs two or more); a poisoned lock.
    pub fn set_available(&self, cluster_id: &str, available: bool) -> Result<()> {
        let plane = self.plane()?;
        if !plane.cluster_ids.iter().any(|id| id == cluster_id) {
            return Err(Error::not_found(format!(
                "cluster {} not found in this instance",
                quoted(cluster_id)
            )));
        }
        match &plane.replicated {
            Some(rep) => rep.set_available(cluster_id, available),
            None => Err(Error::failed_precondition(
                "the instance has one cluster: outages need two or more clusters",
            )),
        }
    }

    /// Per cluster, its id and whether it is available, the first cluster's first.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn availability(&self) -> Result<Vec<(String, bool)>> {
        let plane = self.plane()?;
        plane
            .cluster_ids
            .iter()
            .enumerate()
            .map(|(i, id)| {
                let up = match &plane.replicated {
                    Some(rep) => rep.is_available(i)?,
                    None => true,
                };
                Ok((id.clone(), up))
            })
            .collect()
    }

    /// How many committed writes are still on their way to some cluster.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn in_flight(&self) -> Result<usize> {
        match &self.plane()?.replicated {
            Some(rep) => rep.in_flight(),
            None => Ok(0),
        }
    }

    /// Delivers what replication has due (every routed request does this first).
    ///
    /// # Errors
    /// Storage errors delivering; a poisoned lock.
    pub fn pump(&self) -> Result<()> {
        match &self.plane()?.replicated {
            Some(rep) => rep.pump(),
            None => Ok(()),
        }
    }

    /// DropRowRange: at every cluster's copy (with the queued writes it covers forgotten, see
    /// [`ReplicatedInstance::drop_row_range`]), or the one database.
    ///
    /// # Errors
    /// `NotFound` for an unknown table; `InvalidArgument` for an empty prefix; storage
    /// errors; a poisoned lock.
    pub fn drop_row_range(
        &self,
        table_id: &str,
        range: &crate::api::database::DropRowRange,
    ) -> Result<()> {
        match self.replicated()? {
            Some(rep) => rep.drop_row_range(table_id, range),
            None => self.primary.write(|d| d.drop_row_range(table_id, range)),
        }
    }

    /// A consistency token for `table_id` (GenerateConsistencyToken).
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn consistency_token(&self, table_id: &str) -> Result<String> {
        let plane = self.plane()?;
        match &plane.replicated {
            Some(rep) => rep.consistency_token(table_id),
            None => Ok(plane.single.consistency_token(table_id)),
        }
    }

    /// CheckConsistency: whether every write acknowledged before `token` was generated has
    /// reached every cluster (always, with one cluster); see [`Replication::check_consistency`].
    ///
    /// # Errors
    /// `InvalidArgument` for a malformed token or one generated for another table; a
    /// poisoned lock.
    pub fn check_consistency(
        &self,
        table_id: &str,
        token: &str,
        data_boost_local: bool,
    ) -> Result<bool> {
        let plane = self.plane()?;
        match &plane.replicated {
            Some(rep) => rep.check_consistency(table_id, token, data_boost_local),
            None => plane
                .single
                .check_consistency(table_id, token, data_boost_local),
        }
    }

    /// Enables, changes or (`None`) disables `table_id`'s change stream on every cluster's
    /// copy, and on copies made later.
    ///
    /// # Errors
    /// `NotFound` for an unknown table; `InvalidArgument` for a retention outside 1 to 7
    /// days; a poisoned lock.
    pub fn set_change_stream(&self, table_id: &str, retention_micros: Option<i64>) -> Result<()> {
        if let Some(r) = retention_micros {
            crate::api::change_stream::validate_retention(r)?;
        }
        let clusters = self.clusters()?;
        // The first copy answers for the table (NotFound); the setting is then recorded, so a
        // copy made later logs the table too.
        for (i, (_, db)) in clusters.iter().enumerate() {
            db.write(|d| d.set_change_stream(table_id, retention_micros))?;
            if i == 0 {
                let mut plane = self.plane()?;
                match retention_micros {
                    Some(r) => plane.change_streams.insert(table_id.to_string(), r),
                    None => plane.change_streams.remove(table_id),
                };
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::replication::{Isolation, Routing};
    use crate::model::mutation::Mutation;
    use crate::model::request::ReadRowsRequest;
    use crate::model::schema::TableConfig;
    use crate::{Code, ManualClock};

    fn instance(clock: &Arc<ManualClock>) -> InstanceData {
        let db = SharedDatabase::new(Database::with_clock(clock.clone()));
        db.write(|d| {
            d.create_table("t", TableConfig::with_families(["cf"]))
                .map(drop)
        })
        .unwrap();
        InstanceData::new(db, "c1", clock.clone()).unwrap()
    }

    fn single(id: &str, cluster: &str, transactions: bool) -> AppProfile {
        AppProfile {
            id: id.into(),
            routing: Routing::SingleCluster {
                cluster_id: cluster.into(),
                allow_transactional_writes: transactions,
            },
            isolation: Isolation::Standard,
        }
    }

    fn set(routed: &Routed, row: &[u8], value: &[u8]) {
        let m = [Mutation::SetCell {
            family: "cf".into(),
            qualifier: b"q".to_vec(),
            timestamp_micros: 1000,
            value: value.to_vec(),
        }];
        routed.db.write(|d| d.mutate_row("t", row, &m)).unwrap();
        routed.after_write().unwrap();
    }

    fn rows(routed: &Routed) -> usize {
        routed
            .db
            .read_rows("t", &ReadRowsRequest::default())
            .unwrap()
            .len()
    }

    #[test]
    fn one_cluster_checks_profiles_and_serves_its_database() {
        let clock = Arc::new(ManualClock::new(1_000_000));
        let i = instance(&clock);
        i.configure(vec!["c1".into()], vec![single("ro", "c1", false)])
            .unwrap();
        let e = i
            .route("ro", "ReadModifyWriteRow", RequestKind::Transaction, b"r")
            .unwrap_err();
        assert_eq!(e.code(), Code::FailedPrecondition);
        let r = i.route("", "MutateRow", RequestKind::Write, b"r").unwrap();
        assert_eq!((r.cluster, r.cluster_id.as_str()), (0, "c1"));
        set(&r, b"r", b"v");
        assert_eq!(rows(&r), 1);
        let token = i.consistency_token("t").unwrap();
        assert!(i.check_consistency("t", &token, false).unwrap());
        assert_eq!(
            i.set_available("c1", false).unwrap_err().code(),
            Code::FailedPrecondition
        );
    }

    #[test]
    fn added_clusters_replicate_after_the_delay_and_keep_their_state_through_a_rebuild() {
        let clock = Arc::new(ManualClock::new(1_000_000));
        let i = instance(&clock);
        i.set_delay_micros(2_000_000).unwrap();
        let profiles = vec![single("to1", "c1", true), single("to2", "c2", true)];
        i.configure(vec!["c1".into(), "c2".into()], profiles.clone())
            .unwrap();
        let at1 = i
            .route("to1", "MutateRow", RequestKind::Write, b"r")
            .unwrap();
        set(&at1, b"r", b"v");
        let at2 = i.route("to2", "ReadRows", RequestKind::Read, b"").unwrap();
        assert_eq!(at2.cluster_id, "c2");
        assert_eq!(rows(&at2), 0, "not there before the delay");
        let token = i.consistency_token("t").unwrap();
        assert!(!i.check_consistency("t", &token, false).unwrap());
        i.set_available("c2", false).unwrap();
        // A third cluster joins while c2 is down: c2 stays down through the rebuild, and the
        // delay is kept.
        i.configure(vec!["c1".into(), "c2".into(), "c3".into()], profiles)
            .unwrap();
        assert_eq!(i.delay_micros().unwrap(), 2_000_000);
        assert_eq!(
            i.availability().unwrap(),
            vec![
                ("c1".into(), true),
                ("c2".into(), false),
                ("c3".into(), true)
            ]
        );
        assert_eq!(
            i.route("to2", "ReadRows", RequestKind::Read, b"")
                .unwrap_err()
                .code(),
            Code::Unavailable
        );
        i.set_available("c2", true).unwrap();
        clock.advance_micros(2_000_001);
        let at2 = i.route("to2", "ReadRows", RequestKind::Read, b"").unwrap();
        assert_eq!(rows(&at2), 1);
        assert_eq!(i.clusters().unwrap().len(), 3);
        for bad in [vec![], vec!["c2".to_string(), "c2".to_string()]] {
            assert_eq!(
                i.configure(bad, Vec::new()).unwrap_err().code(),
                Code::InvalidArgument
            );
        }
    }

    #[test]
    fn a_cluster_added_while_writes_are_on_their_way_gets_each_of_them_once() {
        use crate::model::schema::{ColumnFamily, ValueType};
        let clock = Arc::new(ManualClock::new(1_000_000));
        let i = instance(&clock);
        let mut config = TableConfig::default();
        config.families.insert(
            "sum".into(),
            ColumnFamily {
                value_type: ValueType::Int64Sum,
                ..ColumnFamily::default()
            },
        );
        i.primary()
            .write(|d| d.create_table("n", config).map(drop))
            .unwrap();
        i.set_delay_micros(2_000_000).unwrap();
        let mut profiles = vec![single("to1", "c1", true), single("to2", "c2", true)];
        i.configure(vec!["c1".into(), "c2".into()], profiles.clone())
            .unwrap();
        // A write at c2, on its way to c1; an increment at c1, on its way to c2.
        let at2 = i
            .route("to2", "MutateRow", RequestKind::Write, b"r")
            .unwrap();
        set(&at2, b"r", b"from-c2");
        let at1 = i
            .route("to1", "MutateRow", RequestKind::Write, b"k")
            .unwrap();
        let add = [Mutation::AddToCell {
            family: "sum".into(),
            qualifier: b"q".to_vec(),
            timestamp_micros: 1000,
            input: 5,
        }];
        at1.db.write(|d| d.mutate_row("n", b"k", &add)).unwrap();
        at1.after_write().unwrap();
        // c3 joins: its copy is c1's, which has the increment but not c2's write yet.
        profiles.push(single("to3", "c3", true));
        i.configure(vec!["c1".into(), "c2".into(), "c3".into()], profiles)
            .unwrap();
        clock.advance_micros(2_000_001);
        let at3 = i.route("to3", "ReadRows", RequestKind::Read, b"").unwrap();
        assert_eq!(rows(&at3), 1, "c2's write reached c3");
        let sum = at3
            .db
            .read_row("n", b"k")
            .unwrap()
            .map(|row| row.cells[0].value.clone());
        assert_eq!(
            sum,
            Some(5i64.to_be_bytes().to_vec()),
            "the increment counted once"
        );
        let token = i.consistency_token("t").unwrap();
        assert!(i.check_consistency("t", &token, false).unwrap());
    }

    #[test]
    fn drop_row_range_reaches_every_cluster_and_queued_writes_do_not_bring_rows_back() {
        use crate::api::database::DropRowRange;
        let clock = Arc::new(ManualClock::new(1_000_000));
        let i = instance(&clock);
        i.set_delay_micros(1_000_000).unwrap();
        let profiles = vec![single("to1", "c1", true), single("to2", "c2", true)];
        i.configure(vec!["c1".into(), "c2".into()], profiles)
            .unwrap();
        i.primary()
            .write(|d| {
                d.set_change_stream("t", Some(crate::api::change_stream::MIN_RETENTION_MICROS))
            })
            .unwrap();
        let at1 = i
            .route("to1", "MutateRow", RequestKind::Write, b"a")
            .unwrap();
        set(&at1, b"a", b"1");
        let at2 = i
            .route("to2", "MutateRow", RequestKind::Write, b"b")
            .unwrap();
        set(&at2, b"b", b"2");
        set(&at2, b"keep", b"3");
        // Both writes are still on their way when the table is emptied of rows under "a" and
        // "b"... then of every row.
        i.drop_row_range("t", &DropRowRange::Prefix(b"b".to_vec()))
            .unwrap();
        assert_eq!(i.in_flight().unwrap(), 2, "the write of b is forgotten");
        i.drop_row_range("t", &DropRowRange::All).unwrap();
        assert_eq!(i.in_flight().unwrap(), 0);
        clock.advance_micros(2_000_000);
        for (_, db) in i.clusters().unwrap() {
            assert_eq!(
                db.read_rows("t", &ReadRowsRequest::default())
                    .unwrap()
                    .len(),
                0
            );
        }
        // The first cluster's change stream has the drop's deletions.
        let deleted: Vec<Vec<u8>> = i
            .primary()
            .read(|d| {
                Ok(d.change_log("t")
                    .unwrap()
                    .since(0, None, &crate::model::row_set::RowRange::all())
                    .into_iter()
                    .filter(|r| {
                        r.mutations
                            == [Mutation::DeleteFromFamily {
                                family: "cf".into(),
                            }]
                    })
                    .map(|r| r.row_key.clone())
                    .collect())
            })
            .unwrap();
        assert_eq!(deleted, vec![b"a".to_vec()]);
        assert_eq!(
            i.drop_row_range("nope", &DropRowRange::All)
                .unwrap_err()
                .code(),
            Code::NotFound
        );
    }

    #[test]
    fn the_first_database_keeps_its_cluster_and_follows_the_next_when_it_is_deleted() {
        let clock = Arc::new(ManualClock::new(1_000_000));
        let i = instance(&clock);
        i.set_delay_micros(1_000_000).unwrap();
        let profiles = vec![
            single("to1", "c1", true),
            single("to0", "a0", true),
            single("to2", "c2", true),
        ];
        // A cluster whose id sorts first joins: c1 keeps the first database.
        i.configure(vec!["a0".into(), "c1".into()], profiles.clone())
            .unwrap();
        assert_eq!(i.cluster_ids().unwrap(), ["c1", "a0"]);
        let at1 = i
            .route("to1", "MutateRow", RequestKind::Write, b"r")
            .unwrap();
        assert_eq!(at1.cluster, 0);
        set(&at1, b"r", b"v");
        i.configure(
            vec!["a0".into(), "c1".into(), "c2".into()],
            profiles.clone(),
        )
        .unwrap();
        // A write at c2 still on its way when c1 (the first database's cluster) is deleted.
        let at2 = i
            .route("to2", "MutateRow", RequestKind::Write, b"s")
            .unwrap();
        set(&at2, b"s", b"w");
        i.configure(vec!["a0".into(), "c2".into()], profiles)
            .unwrap();
        assert_eq!(i.cluster_ids().unwrap(), ["a0", "c2"]);
        assert_eq!(i.delay_micros().unwrap(), 1_000_000);
        for profile in ["to0", "to2"] {
            let r = i
                .route(profile, "ReadRows", RequestKind::Read, b"")
                .unwrap();
            assert_eq!(rows(&r), 2, "{profile} sees both rows: nothing was lost");
        }
        assert_eq!(
            i.route("to1", "ReadRows", RequestKind::Read, b"")
                .unwrap_err()
                .code(),
            Code::NotFound
        );
    }

    #[test]
    fn faults_hit_the_named_rpc_at_the_routed_cluster_and_latency_is_returned() {
        let clock = Arc::new(ManualClock::new(1_000_000));
        let i = instance(&clock);
        i.configure(vec!["c1".into(), "c2".into()], Vec::new())
            .unwrap();
        i.add_fault(FaultRule {
            rpc: Some("ReadRows".into()),
            cluster_id: Some("c1".into()),
            code: Some(Code::Unavailable),
            remaining: Some(1),
            probability: 1.0,
            latency_micros: 0,
        })
        .unwrap();
        i.add_fault(FaultRule {
            rpc: Some("MutateRow".into()),
            cluster_id: None,
            code: None,
            remaining: None,
            probability: 1.0,
            latency_micros: 250,
        })
        .unwrap();
        assert_eq!(i.fault_count().unwrap(), 2);
        let e = i.route("", "ReadRows", RequestKind::Read, b"").unwrap_err();
        assert_eq!(e.code(), Code::Unavailable);
        assert!(
            i.route("", "ReadRows", RequestKind::Read, b"").is_ok(),
            "count of one"
        );
        let w = i.route("", "MutateRow", RequestKind::Write, b"r").unwrap();
        assert_eq!(w.latency_micros, 250);
        assert_eq!(
            i.add_fault(FaultRule {
                rpc: None,
                cluster_id: Some("nope".into()),
                code: Some(Code::Internal),
                remaining: None,
                probability: 1.0,
                latency_micros: 0,
            })
            .unwrap_err()
            .code(),
            Code::NotFound
        );
        i.clear_faults(7).unwrap();
        assert_eq!(i.fault_count().unwrap(), 0);
        let w = i.route("", "MutateRow", RequestKind::Write, b"r").unwrap();
        assert_eq!(w.latency_micros, 0);
    }
}
