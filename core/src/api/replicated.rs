//! A replicated instance (std): one [`SharedDatabase`] per cluster, driven by the
//! [`Replication`] state machine (its module docs hold the rules and their sources).
//!
//! Front-ends route each data request with [`ReplicatedInstance::route`], run it on the
//! returned cluster's database, and call [`ReplicatedInstance::after_write`] after a write;
//! every call first delivers what is due ([`ReplicatedInstance::pump`]), so replication
//! progresses on the engine's clock with no thread of its own: a manual clock makes it
//! exact. The table-admin API runs on the first cluster (the primary copy of the schema);
//! each pump brings the other clusters' schemas in line with it, copying a new table's rows
//! (a restored backup, a table created while a cluster was down) as Bigtable copies data to
//! a cluster it adds.
//!
//! The driving itself (collecting committed writes, schema sync, table copies, applying
//! deliveries) is [`super::replica_set::ReplicaSet`], shared with no_std front-ends (the
//! playground); this type adds the lock that makes it usable from many threads and keeps
//! the queue on storage.
//!
//! Invariants: every cluster's database captures its committed writes (see
//! [`crate::Database::set_capture_committed`]) and each is handed to the state machine once;
//! deliveries are applied in the order the state machine returns them, under the set's lock.

use std::string::String;
use std::sync::{Mutex, MutexGuard};
use std::vec::Vec;

use crate::api::replica_set::ReplicaSet;
use crate::api::replication::{AppProfile, Replication, RequestKind};
use crate::api::shared::{poisoned, SharedDatabase};
use crate::platform::storage::{read_all, Storage};
use crate::{Error, Result};
use std::sync::Arc;

/// One instance's clusters and their replication (see the module docs).
pub struct ReplicatedInstance {
    /// The clusters' databases (handles to the same databases the set drives), for the
    /// accessors that hand out a reference.
    replicas: Vec<SharedDatabase>,
    set: Mutex<ReplicaSet<SharedDatabase>>,
    /// Where the queue is kept (file [`QUEUE_FILE`]) so replication resumes after a restart;
    /// `None`: in memory only.
    queue_storage: Option<Arc<dyn Storage>>,
    /// Whether each rewrite of the queue file is fsynced: not when the clusters' databases
    /// use durability `None` (nothing the engine writes is fsynced there, and a power loss
    /// may lose writes anyway; a killed process loses neither, the rename being atomic).
    /// Syncing it regardless made every replicated write in that mode wait for an fsync,
    /// about 500 times the cost of the write itself (docs/benchmarks.md, issue 28).
    queue_sync: bool,
}

impl core::fmt::Debug for ReplicatedInstance {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ReplicatedInstance")
            .field("clusters", &self.replicas.len())
            .field("queue_on_storage", &self.queue_storage.is_some())
            .finish_non_exhaustive()
    }
}

/// The file a replicated instance keeps its queue in (docs/format/replication_queue.md).
pub const QUEUE_FILE: &str = "REPLICATION";

impl ReplicatedInstance {
    /// An instance over `clusters` (id and database, the first holding the schema), all
    /// available, no delay.
    ///
    /// # Errors
    /// `InvalidArgument` for no clusters or a repeated id; a poisoned lock.
    pub fn new(clusters: Vec<(String, SharedDatabase)>) -> Result<Self> {
        let replicas = clusters.iter().map(|(_, db)| db.clone()).collect();
        let set = ReplicaSet::new(clusters)?;
        Ok(ReplicatedInstance {
            replicas,
            set: Mutex::new(set),
            queue_storage: None,
            queue_sync: true,
        })
    }

    /// Keeps the queue of writes on their way in `storage` (replaced whole, new-then-rename,
    /// after every change, before the write that changed it is acknowledged), first
    /// restoring the queue a previous run left there.
    ///
    /// # Errors
    /// `DataLoss` for a damaged queue file; storage errors.
    pub fn with_queue_storage(mut self, storage: Arc<dyn Storage>) -> Result<Self> {
        {
            let mut set = self.set()?;
            // Writes taken from now on stay outbound in their databases until the queue
            // file that records them is written.
            set.set_hold_outbound(true);
            let outbound = set.outbound()?;
            match read_all(storage.as_ref(), QUEUE_FILE) {
                Ok(bytes) => {
                    // Deliveries a cluster applied after the file was last written are
                    // skipped; writes committed before it that it lacks are recorded.
                    let applied = set.replica_marks()?;
                    set.replication_mut()
                        .restore_queue_with(&bytes, &applied, &outbound)?;
                }
                Err(e) if e.code() == crate::Code::NotFound => {
                    // No queue yet: whatever a database still holds as outbound was never
                    // recorded.
                    for (i, writes) in outbound.into_iter().enumerate() {
                        set.replication_mut().record(i, writes);
                    }
                }
                Err(e) => return Err(e),
            }
        }
        // No pump here: the caller sets the delay first, so restored writes wait for it.
        // The restored queue is made durable at once, so the databases can let go of what
        // it recovered.
        self.queue_storage = Some(storage);
        self.queue_sync = self.replicas[0].read(|d| Ok(d.durability()))?
            != Some(crate::api::database::Durability::None);
        let mut set = self.set()?;
        self.save_queue(set.replication())?;
        set.confirm_recorded()?;
        drop(set);
        Ok(self)
    }

    /// DropRowRange on every cluster: delivers what is due, forgets the queued writes the
    /// drop covers (see [`Replication::discard_queued`]), then drops the rows at each copy.
    ///
    /// # Errors
    /// `NotFound` for an unknown table; `InvalidArgument` for an empty prefix; storage
    /// errors; a poisoned lock.
    pub fn drop_row_range(
        &self,
        table_id: &str,
        range: &crate::api::database::DropRowRange,
    ) -> Result<()> {
        use crate::api::database::DropRowRange;
        self.pump()?;
        let mut set = self.set()?;
        // The first copy answers for the request (unknown table, empty prefix).
        self.replicas[0].write(|d| d.drop_row_range(table_id, range))?;
        let prefix: &[u8] = match range {
            DropRowRange::Prefix(p) => p,
            DropRowRange::All => b"",
        };
        set.replication_mut().discard_queued(table_id, prefix);
        for db in &self.replicas[1..] {
            db.write(|d| d.drop_row_range(table_id, range))?;
        }
        // A prefix drop's deletions are captured as writes at each copy and replicate like
        // any write: applied in commit order they change nothing the drop did not.
        self.save_queue(set.replication())?;
        set.confirm_recorded()
    }

    /// The queue of writes on their way, encoded as [`Replication::encode_queue`] does: for
    /// carrying it to a rebuilt instance (a cluster added or removed) when it is not kept on
    /// storage.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn encode_queue(&self) -> Result<Vec<u8>> {
        Ok(self.set()?.replication().encode_queue())
    }

    /// Applies `f` to the replication state before the instance serves (delay, outages, a
    /// queue carried over from a previous build) without delivering anything: the setters
    /// deliver what is due at once, which is wrong before every setting is in place.
    ///
    /// # Errors
    /// What `f` returns; a poisoned lock.
    pub fn with_state(self, f: impl FnOnce(&mut Replication) -> Result<()>) -> Result<Self> {
        f(self.set()?.replication_mut())?;
        Ok(self)
    }

    fn save_queue(&self, state: &Replication) -> Result<()> {
        let Some(storage) = &self.queue_storage else {
            return Ok(());
        };
        let tmp = "REPLICATION.tmp";
        let mut file = storage.create(tmp)?;
        file.append(&state.encode_queue())?;
        if self.queue_sync {
            file.sync()?;
        }
        drop(file);
        storage.rename(tmp, QUEUE_FILE)
    }

    fn set(&self) -> Result<MutexGuard<'_, ReplicaSet<SharedDatabase>>> {
        self.set.lock().map_err(|_| poisoned())
    }

    /// The database of the first cluster: the table-admin API's.
    pub fn primary(&self) -> &SharedDatabase {
        &self.replicas[0]
    }

    /// The database of cluster `i` (its position in the instance).
    pub fn replica(&self, i: usize) -> Option<&SharedDatabase> {
        self.replicas.get(i)
    }

    /// The clusters' ids, in the instance's order.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn cluster_ids(&self) -> Result<Vec<String>> {
        Ok(self.set()?.replication().cluster_ids())
    }

    /// Replaces the app profiles routing uses.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn set_profiles(&self, profiles: Vec<AppProfile>) -> Result<()> {
        self.set()?.replication_mut().set_profiles(profiles);
        Ok(())
    }

    /// Sets the replication delay (microseconds of the engine's clock).
    ///
    /// # Errors
    /// `InvalidArgument` for a negative delay; a poisoned lock.
    pub fn set_delay_micros(&self, micros: i64) -> Result<()> {
        self.set()?.replication_mut().set_delay_micros(micros)?;
        self.pump()
    }

    /// The replication delay in microseconds.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn delay_micros(&self) -> Result<i64> {
        Ok(self.set()?.replication().delay_micros())
    }

    /// Takes a cluster down or brings it back; a returning cluster catches up at once.
    ///
    /// # Errors
    /// `NotFound` for an unknown cluster; a poisoned lock.
    pub fn set_available(&self, cluster_id: &str, available: bool) -> Result<()> {
        self.set()?
            .replication_mut()
            .set_available(cluster_id, available)?;
        self.pump()
    }

    /// Whether cluster `i` is available.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn is_available(&self, i: usize) -> Result<bool> {
        Ok(self.set()?.replication().is_available(i))
    }

    /// Writes still on their way to some cluster.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn in_flight(&self) -> Result<usize> {
        Ok(self.set()?.replication().in_flight())
    }

    /// Delivers what is due, then picks the cluster for a request through `app_profile_id`
    /// (see [`Replication::route`]): its position and its database.
    ///
    /// # Errors
    /// As [`Replication::route`]; storage errors applying due writes.
    pub fn route(
        &self,
        app_profile_id: &str,
        kind: RequestKind,
        row_key: &[u8],
    ) -> Result<(usize, SharedDatabase)> {
        self.pump()?;
        let i = self
            .set()?
            .replication()
            .route(app_profile_id, kind, row_key)?;
        Ok((i, self.replicas[i].clone()))
    }

    /// Hands the writes cluster `i` committed to replication and delivers what is due.
    ///
    /// # Errors
    /// A poisoned lock; storage errors applying due writes.
    pub fn after_write(&self, i: usize) -> Result<()> {
        // The pump collects every cluster's committed writes, this one's included, and keeps
        // the queue on storage before the caller acknowledges the write.
        let _ = i;
        self.pump()
    }

    /// A consistency token for `table_id` (GenerateConsistencyToken).
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn consistency_token(&self, table_id: &str) -> Result<String> {
        self.pump()?;
        Ok(self.set()?.replication().consistency_token(table_id))
    }

    /// CheckConsistency; see [`Replication::check_consistency`].
    ///
    /// # Errors
    /// As [`Replication::check_consistency`].
    pub fn check_consistency(
        &self,
        table_id: &str,
        token: &str,
        data_boost_local: bool,
    ) -> Result<bool> {
        self.pump()?;
        self.set()?
            .replication()
            .check_consistency(table_id, token, data_boost_local)
    }

    /// Brings every cluster's schema in line with the first one's and applies the writes
    /// that are due, in order (see [`ReplicaSet::pump`]); keeps the queue on storage when it
    /// changed.
    ///
    /// # Errors
    /// A poisoned lock; storage errors.
    pub fn pump(&self) -> Result<()> {
        let mut set = self.set()?;
        if set.pump()? {
            self.save_queue(set.replication())?;
            if self.queue_storage.is_some() {
                set.confirm_recorded()?;
            }
        }
        Ok(())
    }
}

/// Whether `e` says a cluster could not serve (for front-ends that retry elsewhere).
pub fn is_unavailable(e: &Error) -> bool {
    e.code() == crate::Code::Unavailable
}
