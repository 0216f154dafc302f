//! The server's state: one engine database per Bigtable instance, shared between requests.
//!
//! As Google's emulator, every `projects/P/instances/I` exists implicitly: its database is
//! created, empty, the first time a request names it. Instances never share tables. All
//! databases read time from one clock, the system clock unless the caller supplies another
//! (a frozen `ManualClock` makes server timestamps and max_age GC deterministic in tests).
//!
//! With a data directory, each instance's database lives in `DIR/P/I/` (SSTables, commit
//! log, manifest) and is opened, with recovery, the first time a request names it; without
//! one, databases are in memory.
//!
//! Every database, each cluster's copy included, runs in the server's GC mode
//! (`--gc-mode`, [`sparsetable::GcMode`]; Immediate unless set): the mode is plumbing here,
//! its rules are the core's.
//!
//! Each database is a [`SharedDatabase`]: reads of any rows run side by side under its read
//! lock, a write holds the write lock only to validate, log and apply, and in `sync`
//! durability concurrent writers share one fsync outside the lock (group commit).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use std::path::PathBuf;

use sparsetable::{
    AppProfile, Clock, Code, Database, Error, FaultRule, GcMode, InstanceData, Isolation,
    OpenOptions, ReplicatedInstance, RequestKind, Result, Routed, Routing, SharedDatabase,
    SystemClock,
};

use crate::clusters::{self, ClusterSpec, CLUSTERS_FILE};
use crate::instance_meta::InstanceMeta;
use crate::names::{check_id, InstanceName, EMULATOR_PROJECT_PLACEHOLDERS};
use crate::operations::Operations;

/// Every instance's database, created on first use, and the server's long-running operations.
pub struct Instances {
    clock: Arc<dyn Clock>,
    /// Where databases persist; `None` keeps them in memory.
    data_dir: Option<(PathBuf, OpenOptions)>,
    databases: Mutex<BTreeMap<InstanceName, SharedDatabase>>,
    operations: Arc<Operations>,
    /// Each instance's admin metadata once read or written (see [`crate::instance_meta`]).
    meta: Mutex<BTreeMap<InstanceName, InstanceMeta>>,
    /// Each instance's data plane (the core's [`InstanceData`]: its clusters' databases,
    /// routing, injected faults, replication), made on first use.
    planes: Mutex<BTreeMap<InstanceName, Arc<InstanceData>>>,
    /// The replication delay every instance starts with (`--replication-lag`).
    replication_lag_micros: i64,
    /// The GC mode every database opens in (`--gc-mode`).
    gc_mode: GcMode,
}

/// An admin app profile as the core's routing takes it.
fn profile_from_proto(p: &crate::stubs::admin_v2::AppProfile) -> Option<AppProfile> {
    use crate::stubs::admin_v2::app_profile::{Isolation as Iso, RoutingPolicy};
    let routing = match p.routing_policy.as_ref()? {
        RoutingPolicy::MultiClusterRoutingUseAny(m) => Routing::MultiCluster {
            cluster_ids: m.cluster_ids.clone(),
            row_affinity: m.affinity.is_some(),
        },
        RoutingPolicy::SingleClusterRouting(s) => Routing::SingleCluster {
            cluster_id: s.cluster_id.clone(),
            allow_transactional_writes: s.allow_transactional_writes,
        },
    };
    let isolation = match &p.isolation {
        Some(Iso::DataBoostIsolationReadOnly(_)) => Isolation::DataBoostReadOnly,
        _ => Isolation::Standard,
    };
    Some(AppProfile {
        id: crate::instance_meta::last_id(&p.name).to_string(),
        routing,
        isolation,
    })
}

impl core::fmt::Debug for Instances {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Instances").finish_non_exhaustive()
    }
}

impl Default for Instances {
    fn default() -> Self {
        Self::new()
    }
}

impl Instances {
    /// No instances yet; databases will run on the system clock.
    pub fn new() -> Self {
        Self::with_clock(Arc::new(SystemClock))
    }

    /// No instances yet; every database will read time from `clock`.
    pub fn with_clock(clock: Arc<dyn Clock>) -> Self {
        Instances {
            clock,
            data_dir: None,
            databases: Mutex::new(BTreeMap::new()),
            operations: Arc::new(Operations::new()),
            meta: Mutex::new(BTreeMap::new()),
            planes: Mutex::new(BTreeMap::new()),
            replication_lag_micros: 0,
            gc_mode: GcMode::Immediate,
        }
    }

    /// Adds an injected fault to `instance` (see [`sparsetable::FaultInjector`]); a rule
    /// naming a cluster must name one of the instance's.
    ///
    /// # Errors
    /// `InvalidArgument` for a bad rule; `NotFound` for an unknown cluster; a poisoned lock.
    pub fn add_fault(&self, instance: &InstanceName, rule: FaultRule) -> Result<()> {
        self.plane(instance)?.add_fault(rule)
    }

    /// Removes `instance`'s injected faults and reseeds their generator.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn clear_faults(&self, instance: &InstanceName, seed: u64) -> Result<()> {
        self.plane(instance)?.clear_faults(seed)
    }

    /// How many fault rules `instance` has in force.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn fault_count(&self, instance: &InstanceName) -> Result<usize> {
        self.plane(instance)?.fault_count()
    }

    /// Opens every database (each cluster's copy too) in this GC mode.
    pub fn with_gc_mode(mut self, mode: GcMode) -> Self {
        self.gc_mode = mode;
        self
    }

    /// A garbage collection pass now on every cluster of `instance`: over `table_id`, or
    /// every table when `None` (see `Database::collect_garbage`). In Background GC mode,
    /// the "collect now" that makes reads stop returning collectable cells.
    ///
    /// # Errors
    /// `NotFound` for a table the instance lacks; the storage's errors.
    pub fn collect_garbage(&self, instance: &InstanceName, table_id: Option<&str>) -> Result<()> {
        self.plane(instance)?.collect_garbage(table_id)
    }

    /// Starts every replicated instance with this replication delay (microseconds of the
    /// server's clock).
    pub fn with_replication_lag(mut self, micros: i64) -> Self {
        self.replication_lag_micros = micros.max(0);
        self
    }

    /// `instance`'s data plane, made on first use (its first cluster's database is
    /// [`Instances::database`]'s; the others live in memory or, with a data directory, in
    /// `DIR/P/I/replicas/CLUSTER/`, with the replication queue in `DIR/P/I/replication/`),
    /// and brought in line with the instance's clusters and app profiles.
    ///
    /// # Errors
    /// As [`Instances::meta_of`] and [`Instances::database`]; storage errors opening a copy.
    pub fn plane(&self, instance: &InstanceName) -> Result<Arc<InstanceData>> {
        let meta = self.meta_of(instance)?;
        let ids: Vec<String> = meta
            .clusters
            .iter()
            .map(|c| crate::instance_meta::last_id(&c.name).to_string())
            .collect();
        let profiles: Vec<AppProfile> = meta
            .app_profiles
            .iter()
            .filter_map(profile_from_proto)
            .collect();
        let existing = self
            .planes
            .lock()
            .map_err(|_| poisoned())?
            .get(instance)
            .cloned();
        let plane = match existing {
            Some(p) => p,
            None => {
                let primary = self.database(instance)?;
                let first = ids.first().cloned().unwrap_or_default();
                let mut plane = InstanceData::new(primary, &first, self.clock.clone())?;
                if let Some((dir, options)) = &self.data_dir {
                    let folder = dir
                        .join(path_component(&instance.project)?)
                        .join(path_component(&instance.instance)?);
                    let mut options = options.clone();
                    options.gc_mode = self.gc_mode;
                    let (replicas, clock) = (folder.join("replicas"), self.clock.clone());
                    plane = plane.with_replica_opener(Box::new(move |cluster| {
                        let path = replicas.join(path_component(cluster)?);
                        let storage =
                            Arc::new(sparsetable::platform::storage::FileStorage::new(&path)?);
                        Database::open(storage, options.clone(), clock.clone())
                    }));
                    let queue = folder.join("replication");
                    plane = plane.with_queue_storage(Box::new(move || {
                        let storage: Arc<dyn sparsetable::platform::storage::Storage> =
                            Arc::new(sparsetable::platform::storage::FileStorage::new(&queue)?);
                        Ok(storage)
                    }));
                } else {
                    let (clock, gc_mode) = (self.clock.clone(), self.gc_mode);
                    plane = plane.with_replica_opener(Box::new(move |_| {
                        let mut db = Database::with_clock(clock.clone());
                        db.set_gc_mode(gc_mode);
                        Ok(db)
                    }));
                }
                plane.set_delay_micros(self.replication_lag_micros)?;
                for setting in &meta.change_streams {
                    // A setting whose table is gone is kept in the metadata only.
                    let _ =
                        plane.set_change_stream(&setting.table_id, Some(setting.retention_micros));
                }
                let plane = Arc::new(plane);
                self.planes
                    .lock()
                    .map_err(|_| poisoned())?
                    .entry(instance.clone())
                    .or_insert(plane)
                    .clone()
            }
        };
        plane.configure(ids, profiles)?;
        Ok(plane)
    }

    /// The replicated instance behind `instance` if it has two or more clusters.
    ///
    /// # Errors
    /// As [`Instances::plane`].
    pub fn replicated(&self, instance: &InstanceName) -> Result<Option<Arc<ReplicatedInstance>>> {
        self.plane(instance)?.replicated()
    }

    /// The database a data request of `rpc` through `app_profile_id` runs on: the core's
    /// routing and injected faults ([`InstanceData::route`]); an injected latency is waited
    /// out here (requests run on the blocking pool, so the wait holds no async worker).
    ///
    /// # Errors
    /// The routing errors (`NotFound`, `FailedPrecondition`, `Unavailable`); an injected
    /// fault for `rpc`; as [`Instances::plane`].
    pub fn route(
        &self,
        instance: &InstanceName,
        app_profile_id: &str,
        rpc: &str,
        kind: RequestKind,
        row_key: &[u8],
    ) -> Result<Routed> {
        let routed = self
            .plane(instance)?
            .route(app_profile_id, rpc, kind, row_key)?;
        if routed.latency_micros > 0 {
            std::thread::sleep(std::time::Duration::from_micros(routed.latency_micros));
        }
        Ok(routed)
    }

    /// Keeps every instance's database under `dir` (created if needed), opened with `options`.
    pub fn with_data_dir(mut self, dir: PathBuf, options: OpenOptions) -> Self {
        self.data_dir = Some((dir, options));
        self
    }

    /// Flushes every open database (every cluster's copy) to its run files and starts fresh
    /// logs (on shutdown).
    ///
    /// # Errors
    /// The first storage error; every database is still attempted.
    pub fn checkpoint_all(&self) -> Result<()> {
        let mut databases: Vec<_> = self
            .databases
            .lock()
            .map_err(|_| poisoned())?
            .values()
            .cloned()
            .collect();
        // The other clusters' copies of replicated instances too.
        let planes: Vec<_> = self
            .planes
            .lock()
            .map_err(|_| poisoned())?
            .values()
            .cloned()
            .collect();
        for plane in planes {
            if let Some(rep) = plane.replicated()? {
                let n = rep.cluster_ids()?.len();
                databases.extend((1..n).filter_map(|i| rep.replica(i).cloned()));
            }
        }
        let mut first = Ok(());
        for db in databases {
            if let Err(e) = db.write(|d| d.checkpoint()) {
                if first.is_ok() {
                    first = Err(e);
                }
            }
        }
        first
    }

    /// The instances of `project` (every project when `None`) that exist: those a request
    /// has named since the server started and, with a data directory, those with a folder
    /// there from an earlier run. Sorted by name.
    ///
    /// # Errors
    /// `Internal` if a panic poisoned the registry's lock.
    pub fn known_instances(&self, project: Option<&str>) -> Result<Vec<InstanceName>> {
        let mut names: std::collections::BTreeSet<InstanceName> = self
            .databases
            .lock()
            .map_err(|_| poisoned())?
            .keys()
            .filter(|name| project.is_none_or(|p| name.project == p))
            .cloned()
            .collect();
        if let Some((dir, _)) = &self.data_dir {
            // DIR/PROJECT/INSTANCE holding a manifest is an instance of an earlier run.
            for project_dir in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let Ok(p) = project_dir.file_name().into_string() else {
                    continue;
                };
                if project.is_some_and(|want| want != p) || path_component(&p).is_err() {
                    continue;
                }
                for instance_dir in std::fs::read_dir(project_dir.path())
                    .into_iter()
                    .flatten()
                    .flatten()
                {
                    let Ok(i) = instance_dir.file_name().into_string() else {
                        continue;
                    };
                    if path_component(&i).is_ok()
                        && instance_dir
                            .path()
                            .join(sparsetable::durability::manifest::MANIFEST_FILE)
                            .is_file()
                    {
                        names.insert(InstanceName {
                            project: p.clone(),
                            instance: i,
                        });
                    }
                }
            }
        }
        Ok(names.into_iter().collect())
    }

    /// Forgets an instance whose tables and backups are gone: it no longer exists, and with a
    /// data directory its folder is removed. A later request naming it starts it afresh.
    ///
    /// # Errors
    /// `Internal` if a panic poisoned the registry's lock; a storage error removing the folder.
    pub fn forget(&self, instance: &InstanceName) -> Result<()> {
        let mut databases = self.databases.lock().map_err(|_| poisoned())?;
        databases.remove(instance);
        self.meta.lock().map_err(|_| poisoned())?.remove(instance);
        self.planes.lock().map_err(|_| poisoned())?.remove(instance);
        if let Some((dir, _)) = &self.data_dir {
            let path = dir
                .join(path_component(&instance.project)?)
                .join(path_component(&instance.instance)?);
            match std::fs::remove_dir_all(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(Error::new(
                        Code::Internal,
                        format!("removing {}: {e}", path.display()),
                    ))
                }
            }
        }
        Ok(())
    }

    /// Whether `instance` exists (see [`Instances::known_instances`]).
    ///
    /// # Errors
    /// As [`Instances::known_instances`].
    pub fn is_known(&self, instance: &InstanceName) -> Result<bool> {
        Ok(self
            .known_instances(Some(&instance.project))?
            .contains(instance))
    }

    /// The clusters `instance` reports (see [`Instances::meta_of`]).
    ///
    /// # Errors
    /// As [`Instances::meta_of`].
    pub fn clusters_of(&self, instance: &InstanceName) -> Result<Vec<ClusterSpec>> {
        Ok(self.meta_of(instance)?.cluster_specs())
    }

    /// The admin metadata of `instance`: what CreateInstance and later admin calls recorded
    /// (read back from its folder after a restart: the `INSTANCE` file, or an older server's
    /// `CLUSTERS` file), or the defaults of an instance nobody created explicitly.
    ///
    /// # Errors
    /// `DataLoss` for a damaged file; `Unavailable` if it cannot be read; `Internal` if a
    /// panic poisoned a lock.
    pub fn meta_of(&self, instance: &InstanceName) -> Result<InstanceMeta> {
        let mut cache = self.meta.lock().map_err(|_| poisoned())?;
        self.load_meta(&mut cache, instance).cloned()
    }

    /// What `look` finds in the admin metadata of `instance`, without copying the record (the
    /// Data API looks up an authorized view on every request sent through one).
    ///
    /// # Errors
    /// As [`Instances::meta_of`].
    pub fn with_meta<T>(
        &self,
        instance: &InstanceName,
        look: impl FnOnce(&InstanceMeta) -> T,
    ) -> Result<T> {
        let mut cache = self.meta.lock().map_err(|_| poisoned())?;
        Ok(look(self.load_meta(&mut cache, instance)?))
    }

    /// Changes the admin metadata of `instance` with `change`, all or nothing: `change` works
    /// on a copy; with a data directory the result is written to the instance's folder
    /// (docs/format/instance.md: a temporary file, synced, renamed, the folder synced) before
    /// it replaces the record, so a failed write changes nothing.
    ///
    /// # Errors
    /// What `change` returns; `Unavailable` if the file cannot be written; as
    /// [`Instances::meta_of`].
    pub fn update_meta<T>(
        &self,
        instance: &InstanceName,
        change: impl FnOnce(&mut InstanceMeta) -> Result<T>,
    ) -> Result<T> {
        let mut cache = self.meta.lock().map_err(|_| poisoned())?;
        let mut meta = self.load_meta(&mut cache, instance)?.clone();
        let out = change(&mut meta)?;
        self.write_meta(instance, &meta)?;
        cache.insert(instance.clone(), meta);
        Ok(out)
    }

    /// Records the metadata of a new instance (CreateInstance), replacing any.
    ///
    /// # Errors
    /// As [`Instances::update_meta`].
    pub fn set_meta(&self, instance: &InstanceName, meta: InstanceMeta) -> Result<()> {
        let mut cache = self.meta.lock().map_err(|_| poisoned())?;
        self.write_meta(instance, &meta)?;
        cache.insert(instance.clone(), meta);
        Ok(())
    }

    fn load_meta<'a>(
        &self,
        cache: &'a mut BTreeMap<InstanceName, InstanceMeta>,
        instance: &InstanceName,
    ) -> Result<&'a InstanceMeta> {
        if !cache.contains_key(instance) {
            let meta = self.read_meta(instance)?;
            cache.insert(instance.clone(), meta);
        }
        cache
            .get(instance)
            .ok_or_else(|| Error::new(Code::Internal, "instance metadata vanished"))
    }

    fn read_meta(&self, instance: &InstanceName) -> Result<InstanceMeta> {
        let Some(folder) = self.folder(instance)? else {
            return Ok(InstanceMeta::default_for(instance));
        };
        let unreadable = |file: &str, e: std::io::Error| {
            Error::new(
                Code::Unavailable,
                format!("reading {}: {e}", folder.join(file).display()),
            )
        };
        if let Some(bytes) = sparsetable::api::instances::store::read_bytes(&folder)? {
            return crate::instance_record::decode_meta(&bytes);
        }
        match std::fs::read_to_string(folder.join(CLUSTERS_FILE)) {
            Ok(text) => Ok(InstanceMeta::from_clusters(
                instance,
                &clusters::decode(&text)?,
            )),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Ok(InstanceMeta::default_for(instance))
            }
            Err(e) => Err(unreadable(CLUSTERS_FILE, e)),
        }
    }

    fn write_meta(&self, instance: &InstanceName, meta: &InstanceMeta) -> Result<()> {
        let Some(folder) = self.folder(instance)? else {
            return Ok(());
        };
        // The core's atomic replacement (tmp, sync, rename, sync the folder), the one
        // every front-end with a directory uses.
        let bytes = crate::instance_record::encode_meta(meta)?;
        sparsetable::api::instances::store::replace_bytes(&folder, &bytes)
    }

    /// The folder of `instance` under the data directory (`None` in memory).
    fn folder(&self, instance: &InstanceName) -> Result<Option<PathBuf>> {
        let Some((dir, _)) = &self.data_dir else {
            return Ok(None);
        };
        Ok(Some(
            dir.join(path_component(&instance.project)?)
                .join(path_component(&instance.instance)?),
        ))
    }

    /// The long-running operations admin RPCs have returned.
    pub fn operations(&self) -> &Arc<Operations> {
        &self.operations
    }

    /// The database of `instance`, created empty if this is the first request naming it.
    ///
    /// # Errors
    /// `Internal` if a panic poisoned the registry's lock (a bug, never a user mistake).
    pub fn database(&self, instance: &InstanceName) -> Result<SharedDatabase> {
        let mut databases = self.databases.lock().map_err(|_| poisoned())?;
        if let Some(db) = databases.get(instance) {
            return Ok(db.clone());
        }
        let db = match &self.data_dir {
            None => {
                let mut db = Database::with_clock(self.clock.clone());
                db.set_gc_mode(self.gc_mode);
                db
            }
            Some((dir, options)) => {
                let path = dir
                    .join(path_component(&instance.project)?)
                    .join(path_component(&instance.instance)?);
                let storage = Arc::new(sparsetable::platform::storage::FileStorage::new(&path)?);
                let mut options = options.clone();
                options.gc_mode = self.gc_mode;
                Database::open(storage, options, self.clock.clone())?
            }
        };
        let db = SharedDatabase::new(db);
        databases.insert(instance.clone(), db.clone());
        drop(databases);
        // Change logs are in memory: a database opened afresh starts the enabled ones empty.
        for setting in self.meta_of(instance)?.change_streams {
            let _ = db
                .write(|d| d.set_change_stream(&setting.table_id, Some(setting.retention_micros)));
        }
        // Materialized views are in memory too: each recorded one is created again, loaded
        // from its stored copy when that matches its table, else recomputed from the table
        // (a view whose table is gone is left out; its record stays for Delete).
        for view in self.meta_of(instance)?.materialized_views {
            let id = crate::instance_meta::last_id(&view.name).to_string();
            let _ = db.write(|d| {
                d.create_materialized_view(&id, &view.query, view.deletion_protection)
                    .map(|_| ())
            });
        }
        Ok(db)
    }

    /// Enables, changes or (`None`) disables `table`'s change stream: recorded with the
    /// instance's metadata and applied to every cluster's copy.
    ///
    /// # Errors
    /// `NotFound` for an unknown table; `InvalidArgument` for a retention outside 1 to 7
    /// days; storage errors writing the metadata.
    pub fn set_change_stream(
        &self,
        instance: &InstanceName,
        table_id: &str,
        retention_micros: Option<i64>,
    ) -> Result<()> {
        self.plane(instance)?
            .set_change_stream(table_id, retention_micros)?;
        self.update_meta(instance, |meta| {
            meta.change_streams.retain(|c| c.table_id != table_id);
            if let Some(retention_micros) = retention_micros {
                meta.change_streams
                    .push(crate::instance_meta::ChangeStreamSetting {
                        table_id: table_id.to_string(),
                        retention_micros,
                    });
                meta.change_streams
                    .sort_by(|a, b| a.table_id.cmp(&b.table_id));
            }
            Ok(())
        })
    }

    /// Every cluster's database of `instance` with its cluster id, the first cluster's
    /// first; after delivering what replication has due, so schemas agree.
    ///
    /// # Errors
    /// As [`Instances::replicated`] and [`Instances::database`].
    pub fn all_databases(&self, instance: &InstanceName) -> Result<Vec<SharedDatabase>> {
        Ok(self
            .plane(instance)?
            .clusters()?
            .into_iter()
            .map(|(_, db)| db)
            .collect())
    }

    /// The retention of `table`'s change stream, if enabled.
    ///
    /// # Errors
    /// As [`Instances::meta_of`].
    pub fn change_stream_of(&self, instance: &InstanceName, table_id: &str) -> Result<Option<i64>> {
        Ok(self
            .meta_of(instance)?
            .change_streams
            .iter()
            .find(|c| c.table_id == table_id)
            .map(|c| c.retention_micros))
    }
}

/// A project or instance id as a directory name: [`check_id`]'s syntax (letters, digits,
/// `-`, `_` and `.`, not starting with `.`), so a name can never leave the data directory,
/// or a project placeholder of Google's clients ([`EMULATOR_PROJECT_PLACEHOLDERS`], a fixed
/// name without `/` or a leading `.`), whose instances persist like any project's.
fn path_component(id: &str) -> Result<&str> {
    if EMULATOR_PROJECT_PLACEHOLDERS.contains(&id) {
        return Ok(id);
    }
    check_id("data directory", "project or instance", id)
}

fn poisoned() -> Error {
    Error::new(
        Code::Internal,
        "a database lock was poisoned by an earlier panic",
    )
}
