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
//! Each database is a [`SharedDatabase`]: reads of any rows run side by side under its read
//! lock, a write holds the write lock only to validate, log and apply, and in `sync`
//! durability concurrent writers share one fsync outside the lock (group commit).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use std::path::PathBuf;

use sparsetable::{Clock, Code, Database, Error, OpenOptions, Result, SharedDatabase, SystemClock};

use crate::clusters::{self, ClusterSpec, CLUSTERS_FILE};
use crate::instance_meta::{InstanceMeta, INSTANCE_FILE};
use crate::names::{check_id, InstanceName};
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
        }
    }

    /// Keeps every instance's database under `dir` (created if needed), opened with `options`.
    pub fn with_data_dir(mut self, dir: PathBuf, options: OpenOptions) -> Self {
        self.data_dir = Some((dir, options));
        self
    }

    /// Flushes every open database to its run files and starts fresh logs (on shutdown).
    ///
    /// # Errors
    /// The first storage error; every database is still attempted.
    pub fn checkpoint_all(&self) -> Result<()> {
        let databases: Vec<_> = self
            .databases
            .lock()
            .map_err(|_| poisoned())?
            .values()
            .cloned()
            .collect();
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
        match std::fs::read(folder.join(INSTANCE_FILE)) {
            Ok(bytes) => return InstanceMeta::decode_file(&bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(unreadable(INSTANCE_FILE, e)),
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
        let io = |e: std::io::Error| {
            Error::new(
                Code::Unavailable,
                format!("writing {}: {e}", folder.join(INSTANCE_FILE).display()),
            )
        };
        std::fs::create_dir_all(&folder).map_err(io)?;
        let tmp = folder.join(format!("{INSTANCE_FILE}.tmp"));
        {
            use std::io::Write;
            let mut file = std::fs::File::create(&tmp).map_err(io)?;
            file.write_all(&meta.encode_file()).map_err(io)?;
            file.sync_all().map_err(io)?;
        }
        std::fs::rename(&tmp, folder.join(INSTANCE_FILE)).map_err(io)?;
        // The rename is durable once the folder is synced.
        std::fs::File::open(&folder)
            .and_then(|f| f.sync_all())
            .map_err(io)
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
            None => Database::with_clock(self.clock.clone()),
            Some((dir, options)) => {
                let path = dir
                    .join(path_component(&instance.project)?)
                    .join(path_component(&instance.instance)?);
                let storage = Arc::new(sparsetable::platform::storage::FileStorage::new(&path)?);
                Database::open(storage, options.clone(), self.clock.clone())?
            }
        };
        let db = SharedDatabase::new(db);
        databases.insert(instance.clone(), db.clone());
        Ok(db)
    }
}

/// A project or instance id as a directory name: [`check_id`]'s syntax (letters, digits,
/// `-`, `_` and `.`, not starting with `.`), so a name can never leave the data directory.
fn path_component(id: &str) -> Result<&str> {
    check_id("data directory", "project or instance", id)
}

fn poisoned() -> Error {
    Error::new(
        Code::Internal,
        "a database lock was poisoned by an earlier panic",
    )
}
