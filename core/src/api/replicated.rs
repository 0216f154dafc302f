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
//! Invariants: every cluster's database captures its committed writes (see
//! [`crate::Database::set_capture_committed`]) and each is handed to the state machine once;
//! deliveries are applied in the order the state machine returns them, under its lock.

use std::string::{String, ToString};
use std::sync::{Mutex, MutexGuard};
use std::vec::Vec;

use crate::api::database::{CommittedWrite, RowMutations};
use crate::api::replication::{AppProfile, Replication, RequestKind};
use crate::api::shared::{poisoned, SharedDatabase};
use crate::model::mutation::Mutation;
use crate::model::request::ReadRowsRequest;
use crate::model::schema::{FamilyModification, TableConfig};
use crate::platform::storage::{read_all, Storage};
use crate::{Error, Result};
use std::sync::Arc;

/// One instance's clusters and their replication (see the module docs).
pub struct ReplicatedInstance {
    replicas: Vec<SharedDatabase>,
    state: Mutex<Replication>,
    /// Per cluster, the first cluster's schema epoch it was last brought in line with.
    synced: Mutex<Vec<Option<u64>>>,
    /// Where the queue is kept (file [`QUEUE_FILE`]) so replication resumes after a restart;
    /// `None`: in memory only.
    queue_storage: Option<Arc<dyn Storage>>,
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
        let (ids, replicas): (Vec<String>, Vec<SharedDatabase>) = clusters.into_iter().unzip();
        let state = Replication::new(ids)?;
        for db in &replicas {
            db.write(|d| {
                d.set_capture_committed(true);
                Ok(())
            })?;
        }
        let synced = Mutex::new(std::vec![None; replicas.len()]);
        let instance = ReplicatedInstance {
            replicas,
            state: Mutex::new(state),
            synced,
            queue_storage: None,
        };
        instance.pump()?;
        Ok(instance)
    }

    /// Keeps the queue of writes on their way in `storage` (replaced whole, new-then-rename,
    /// after every change, before the write that changed it is acknowledged), first
    /// restoring the queue a previous run left there.
    ///
    /// # Errors
    /// `DataLoss` for a damaged queue file; storage errors.
    pub fn with_queue_storage(mut self, storage: Arc<dyn Storage>) -> Result<Self> {
        match read_all(storage.as_ref(), QUEUE_FILE) {
            Ok(bytes) => self.state()?.restore_queue(&bytes)?,
            Err(e) if e.code() == crate::Code::NotFound => {}
            Err(e) => return Err(e),
        }
        // No pump here: the caller sets the delay first, so restored writes wait for it.
        self.queue_storage = Some(storage);
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
        let mut state = self.state()?;
        // The first copy answers for the request (unknown table, empty prefix).
        self.replicas[0].write(|d| d.drop_row_range(table_id, range))?;
        let prefix: &[u8] = match range {
            DropRowRange::Prefix(p) => p,
            DropRowRange::All => b"",
        };
        state.discard_queued(table_id, prefix);
        for db in &self.replicas[1..] {
            db.write(|d| d.drop_row_range(table_id, range))?;
        }
        // A prefix drop's deletions are captured as writes at each copy and replicate like
        // any write: applied in commit order they change nothing the drop did not.
        self.save_queue(&state)
    }

    /// The queue of writes on their way, encoded as [`Replication::encode_queue`] does: for
    /// carrying it to a rebuilt instance (a cluster added or removed) when it is not kept on
    /// storage.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn encode_queue(&self) -> Result<Vec<u8>> {
        Ok(self.state()?.encode_queue())
    }

    /// Applies `f` to the replication state before the instance serves (delay, outages, a
    /// queue carried over from a previous build) without delivering anything: the setters
    /// deliver what is due at once, which is wrong before every setting is in place.
    ///
    /// # Errors
    /// What `f` returns; a poisoned lock.
    pub fn with_state(self, f: impl FnOnce(&mut Replication) -> Result<()>) -> Result<Self> {
        {
            let mut state = self.state()?;
            f(&mut state)?;
        }
        Ok(self)
    }

    fn save_queue(&self, state: &Replication) -> Result<()> {
        let Some(storage) = &self.queue_storage else {
            return Ok(());
        };
        let tmp = "REPLICATION.tmp";
        let mut file = storage.create(tmp)?;
        file.append(&state.encode_queue())?;
        file.sync()?;
        drop(file);
        storage.rename(tmp, QUEUE_FILE)
    }

    fn state(&self) -> Result<MutexGuard<'_, Replication>> {
        self.state.lock().map_err(|_| poisoned())
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
        Ok(self.state()?.cluster_ids())
    }

    /// Replaces the app profiles routing uses.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn set_profiles(&self, profiles: Vec<AppProfile>) -> Result<()> {
        self.state()?.set_profiles(profiles);
        Ok(())
    }

    /// Sets the replication delay (microseconds of the engine's clock).
    ///
    /// # Errors
    /// `InvalidArgument` for a negative delay; a poisoned lock.
    pub fn set_delay_micros(&self, micros: i64) -> Result<()> {
        self.state()?.set_delay_micros(micros)?;
        self.pump()
    }

    /// The replication delay in microseconds.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn delay_micros(&self) -> Result<i64> {
        Ok(self.state()?.delay_micros())
    }

    /// Takes a cluster down or brings it back; a returning cluster catches up at once.
    ///
    /// # Errors
    /// `NotFound` for an unknown cluster; a poisoned lock.
    pub fn set_available(&self, cluster_id: &str, available: bool) -> Result<()> {
        self.state()?.set_available(cluster_id, available)?;
        self.pump()
    }

    /// Whether cluster `i` is available.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn is_available(&self, i: usize) -> Result<bool> {
        Ok(self.state()?.is_available(i))
    }

    /// Writes still on their way to some cluster.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn in_flight(&self) -> Result<usize> {
        Ok(self.state()?.in_flight())
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
        let i = self.state()?.route(app_profile_id, kind, row_key)?;
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
        Ok(self.state()?.consistency_token(table_id))
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
        self.state()?
            .check_consistency(table_id, token, data_boost_local)
    }

    /// Brings every cluster's schema in line with the first one's and applies the writes
    /// that are due, in order.
    ///
    /// # Errors
    /// A poisoned lock; storage errors.
    pub fn pump(&self) -> Result<()> {
        let mut state = self.state()?;
        let mut changed = false;
        // Writes made on a cluster's database directly (not through `route`) replicate too.
        for (i, db) in self.replicas.iter().enumerate() {
            if !db.read(|d| Ok(d.has_committed()))? {
                continue;
            }
            let writes = db.write(|d| Ok(d.take_committed()))?;
            if !writes.is_empty() {
                state.record(i, writes);
                changed = true;
            }
        }
        let epoch = self.replicas[0].read(|d| Ok(d.schema_epoch()))?;
        let mut synced = self.synced.lock().map_err(|_| poisoned())?;
        for i in 1..self.replicas.len() {
            if state.is_available(i) && synced[i] != Some(epoch) {
                self.sync_schema(i)?;
                synced[i] = Some(epoch);
            }
        }
        drop(synced);
        let now = self.replicas[0].read(|d| Ok(d.now_micros()))?;
        let deliveries = state.pump(now);
        changed |= !deliveries.is_empty();
        for delivery in deliveries {
            self.replicas[delivery.cluster].write(|d| {
                for w in &delivery.writes {
                    // A row whose table or family is gone here is dropped, as Bigtable drops
                    // the data of a deleted family.
                    d.apply_committed(w)?;
                }
                Ok(())
            })?;
        }
        if changed {
            self.save_queue(&state)?;
        }
        Ok(())
    }

    /// Makes cluster `i`'s tables and families those of the first cluster; a table it lacks
    /// is created and filled with the first cluster's rows.
    fn sync_schema(&self, i: usize) -> Result<()> {
        let want = self.replicas[0].read(|d| Ok(d.list_tables()))?;
        let have = self.replicas[i].read(|d| Ok(d.list_tables()))?;
        let same = want.len() == have.len()
            && want
                .iter()
                .zip(&have)
                .all(|(a, b)| a.name == b.name && a.config.families == b.config.families);
        if same {
            return Ok(());
        }
        for gone in have
            .iter()
            .filter(|h| !want.iter().any(|w| w.name == h.name))
        {
            self.replicas[i].write(|d| {
                d.set_deletion_protection(&gone.name, false)?;
                d.delete_table(&gone.name)
            })?;
        }
        for table in &want {
            match have.iter().find(|h| h.name == table.name) {
                None => self.copy_table(i, &table.name, table.config.clone())?,
                Some(h) => {
                    let mut changes = Vec::new();
                    for (name, family) in &table.config.families {
                        match h.config.families.get(name) {
                            None => changes.push(FamilyModification::Create {
                                name: name.to_string(),
                                family: family.clone(),
                            }),
                            Some(f) if f != family => changes.push(FamilyModification::Update {
                                name: name.to_string(),
                                family: family.clone(),
                            }),
                            Some(_) => {}
                        }
                    }
                    for (name, _) in &h.config.families {
                        if !table.config.families.contains_key(name) {
                            changes.push(FamilyModification::Drop {
                                name: name.to_string(),
                            });
                        }
                    }
                    if !changes.is_empty() {
                        self.replicas[i]
                            .write(|d| d.modify_column_families(&table.name, &changes).map(drop))?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Creates `table` at cluster `i` and copies the first cluster's rows into it (every
    /// readable cell, with its timestamp).
    fn copy_table(&self, i: usize, table: &str, config: TableConfig) -> Result<()> {
        let rows = self.replicas[0].read_rows(table, &ReadRowsRequest::default())?;
        let copy = CommittedWrite {
            table_id: table.to_string(),
            rows: rows
                .into_iter()
                .map(|r| RowMutations {
                    mutations: r
                        .cells
                        .into_iter()
                        .map(|c| Mutation::SetCell {
                            family: c.family,
                            qualifier: c.qualifier,
                            timestamp_micros: c.timestamp_micros,
                            value: c.value,
                        })
                        .collect(),
                    row_key: r.key,
                })
                .filter(|r| !r.mutations.is_empty())
                .collect(),
            commit_micros: 0,
        };
        self.replicas[i].write(|d| {
            d.create_table(table, config)?;
            if !copy.rows.is_empty() {
                d.apply_committed(&copy)?;
            }
            Ok(())
        })
    }
}

/// Whether `e` says a cluster could not serve (for front-ends that retry elsewhere).
pub fn is_unavailable(e: &Error) -> bool {
    e.code() == crate::Code::Unavailable
}
