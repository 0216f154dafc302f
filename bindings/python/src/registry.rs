//! Where a client's databases live: one engine database per (project, instance), shared by
//! every client of the process that names them, in memory or in a directory.
//!
//! Invariants:
//! - In memory on the system clock, a (project, instance) has one database for the life of
//!   the process (as an emulator keeps its tables), so a table one client creates is there
//!   for every later client, even after the first is gone.
//! - In memory on a `ManualClock`, the databases belong to that clock: clients on the same
//!   clock object share them, clients on different clocks never meet, and they are freed with
//!   the clock and the last client using it (so each test's clock is its own world).
//! - In a directory `ROOT`, instance `I` of project `P` lives in `ROOT/P/I/` (the layout of
//!   `sparsetable-server --data-dir`, so either can open what the other wrote). It is opened
//!   (with the core's recovery) once per process: later clients share the open database,
//!   held by weak reference, so the directory is closed and its lock released when the last
//!   client, table or admin using it is gone. Another process gets the core's
//!   `FailedPrecondition` from the directory lock.
//! - `project=None` is the project named [`DEFAULT_PROJECT`] everywhere.
//! - Instances created through the classic Instance Admin (`instance_admin`) keep their
//!   record (the core's `InstanceRecord`) beside the databases, in [`Records`]: per manual
//!   clock's world, per directory, or for the process (system clock, in memory). In memory a
//!   record lives as long as its world. In a directory it is also the instance folder's
//!   `INSTANCE` file (docs/format/instance.md, the server's file): read into [`Records`]
//!   whenever the folder's database is opened (the file is the truth then: nobody else can
//!   have the folder open), written through on every accepted admin change, and listed from
//!   the files. A data plane made while a record exists is configured from it, and the
//!   materialized views the file records are made again in the database when it is opened
//!   (views live in memory, as on the server).
//! - A database opens in the GC mode (`sparsetable::GcMode`) of the client that opens it
//!   first; a client asking for a database already open in the other mode gets
//!   `FailedPrecondition` (one database cannot both hide and show collectable cells).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use sparsetable::api::instances::{store as instance_store, StoredInstance};
use sparsetable::error::quoted;
use sparsetable::{
    Clock, Code, Database, Durability, Error, GcMode, OpenOptions, Result, SharedDatabase,
};

/// The project a client with `project=None` uses.
pub const DEFAULT_PROJECT: &str = "default";

/// The environment variable naming the directory a client opens when `path` is not given.
pub const PATH_ENV: &str = "SPARSETABLE_PATH";

/// The environment variable naming the durability when `durability` is not given.
pub const DURABILITY_ENV: &str = "SPARSETABLE_DURABILITY";

/// The instance records of one world by (project, instance): the instances created through
/// the Instance Admin (one not here exists only implicitly, as requests name it), each with
/// the extension its `INSTANCE` file carries for another front-end (the server's own
/// records), kept as found when the file is rewritten (empty in memory).
pub type Records = Mutex<BTreeMap<(String, String), StoredInstance>>;

/// In-memory databases by (project, instance), held for as long as the owner lives.
#[derive(Default)]
pub struct Worlds {
    databases: Mutex<BTreeMap<(String, String), Arc<SharedDatabase>>>,
    records: Arc<Records>,
}

impl Worlds {
    fn database(
        &self,
        project: &str,
        instance: &str,
        clock: &Arc<dyn Clock>,
        gc_mode: GcMode,
    ) -> Result<Arc<SharedDatabase>> {
        let mut dbs = self
            .databases
            .lock()
            .map_err(|_| sparsetable::api::shared::poisoned())?;
        let db = dbs
            .entry((project.to_string(), instance.to_string()))
            .or_insert_with(|| {
                let mut db = Database::with_clock(clock.clone());
                db.set_gc_mode(gc_mode);
                Arc::new(SharedDatabase::new(db))
            })
            .clone();
        check_gc_mode(&db, &format!("instance {}", quoted(instance)), gc_mode)?;
        Ok(db)
    }
}

/// `FailedPrecondition` unless `db` runs in `wanted`.
fn check_gc_mode(db: &SharedDatabase, what: &str, wanted: GcMode) -> Result<()> {
    let open = db.read(|d| Ok(d.gc_mode()))?;
    if open != wanted {
        return Err(Error::failed_precondition(format!(
            "{what} is open in this process in gc_mode {}, not {}",
            quoted(open.as_str()),
            quoted(wanted.as_str())
        )));
    }
    Ok(())
}

/// The system clock's in-memory databases: they live as long as the process.
fn system_worlds() -> Arc<Worlds> {
    static SYSTEM: OnceLock<Arc<Worlds>> = OnceLock::new();
    SYSTEM.get_or_init(Arc::default).clone()
}

/// A directory database open in this process, with what it was opened with.
struct OpenDir {
    db: Weak<SharedDatabase>,
    durability: Durability,
    /// The clock's identity (its `Arc`'s address; 0 for the system clock).
    clock_id: usize,
}

/// Every directory database open in this process, by instance directory.
fn open_dirs() -> &'static Mutex<BTreeMap<PathBuf, OpenDir>> {
    static DIRS: OnceLock<Mutex<BTreeMap<PathBuf, OpenDir>>> = OnceLock::new();
    DIRS.get_or_init(Default::default)
}

/// Where one client's databases are.
pub enum Store {
    /// In memory, in `worlds` (the process's, or a manual clock's).
    Memory {
        clock: Arc<dyn Clock>,
        worlds: Arc<Worlds>,
    },
    /// In directory `root`.
    Dir {
        root: PathBuf,
        durability: Durability,
        clock: Arc<dyn Clock>,
        clock_id: usize,
    },
}

impl Store {
    /// In memory: on the system clock (`manual = None`) the process's databases, else those
    /// of the manual clock, `worlds`.
    pub fn memory(clock: Arc<dyn Clock>, manual: Option<Arc<Worlds>>) -> Self {
        Store::Memory {
            clock,
            worlds: manual.unwrap_or_else(system_worlds),
        }
    }

    /// The database of `project`'s `instance`, opened or created on first use.
    ///
    /// # Errors
    /// `InvalidArgument` for an id that cannot be a directory name; `FailedPrecondition` if
    /// the directory is open in this process with another durability or clock, or held by
    /// another process; the core's open and recovery errors (`DataLoss`, `Unavailable`).
    pub fn database(
        &self,
        project: &str,
        instance: &str,
        gc_mode: GcMode,
    ) -> Result<Arc<SharedDatabase>> {
        match self {
            Store::Memory { clock, worlds } => worlds.database(project, instance, clock, gc_mode),
            Store::Dir {
                root,
                durability,
                clock,
                clock_id,
            } => {
                let dir = instance_folder(root, project, instance)?;
                let records = self.records()?;
                open_dir(&dir, *durability, clock, *clock_id, gc_mode, |db| {
                    // The folder was closed until now, so its file is the truth (the
                    // server may have changed it); a damaged file fails the open.
                    let stored = instance_store::read_file(&dir)?;
                    let mut records = records
                        .lock()
                        .map_err(|_| sparsetable::api::shared::poisoned())?;
                    let key = (project.to_string(), instance.to_string());
                    match stored {
                        Some(stored) => {
                            // Views live in memory: each recorded one is recomputed.
                            crate::materialized_views::recreate(db, &stored.record);
                            records.insert(key, stored)
                        }
                        None => records.remove(&key),
                    };
                    Ok(())
                })
            }
        }
    }

    /// The folder of `project`'s `instance`, for a path-backed store (where its `INSTANCE`
    /// file is kept).
    ///
    /// # Errors
    /// `InvalidArgument` for an id that cannot be a directory name.
    pub fn instance_dir(&self, project: &str, instance: &str) -> Result<Option<PathBuf>> {
        match self {
            Store::Memory { .. } => Ok(None),
            Store::Dir { root, .. } => instance_folder(root, project, instance).map(Some),
        }
    }

    /// The records of `project`'s instances created through the Instance Admin, by id: in
    /// memory those of the world, in a directory those of the `INSTANCE` files (written
    /// through, so they agree with the records of instances open here).
    ///
    /// # Errors
    /// A poisoned lock; in a directory, `DataLoss` for a damaged file and `Unavailable`
    /// when the folder cannot be read.
    pub fn listed_instances(&self, project: &str) -> Result<Vec<sparsetable::InstanceRecord>> {
        match self {
            Store::Memory { worlds, .. } => Ok(worlds
                .records
                .lock()
                .map_err(|_| sparsetable::api::shared::poisoned())?
                .iter()
                .filter(|((p, _), _)| p == project)
                .map(|(_, s)| s.record.clone())
                .collect()),
            Store::Dir { root, .. } => {
                let folder = root.join(sparsetable::api::instances::ids::check_project_id(
                    "path", project,
                )?);
                Ok(instance_store::read_project(&folder)?
                    .into_iter()
                    .map(|(_, s)| s.record)
                    .collect())
            }
        }
    }

    /// The instance records of this store's world (see the module docs).
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn records(&self) -> Result<Arc<Records>> {
        match self {
            Store::Memory { worlds, .. } => Ok(worlds.records.clone()),
            Store::Dir { root, .. } => {
                static BY_ROOT: OnceLock<Mutex<BTreeMap<PathBuf, Arc<Records>>>> = OnceLock::new();
                let mut roots = BY_ROOT
                    .get_or_init(Default::default)
                    .lock()
                    .map_err(|_| sparsetable::api::shared::poisoned())?;
                Ok(roots.entry(root.clone()).or_default().clone())
            }
        }
    }

    /// The directory, for a path-backed store.
    pub fn root(&self) -> Option<&Path> {
        match self {
            Store::Memory { .. } => None,
            Store::Dir { root, .. } => Some(root),
        }
    }

    /// The durability's name, for a path-backed store.
    pub fn durability(&self) -> Option<&'static str> {
        match self {
            Store::Memory { .. } => None,
            Store::Dir { durability, .. } => Some(durability_name(*durability)),
        }
    }
}

/// `ROOT/{project}/{instance}`, with the core's id rules (the server's `--data-dir` applies
/// the same), so an id can never leave the directory.
fn instance_folder(root: &Path, project: &str, instance: &str) -> Result<PathBuf> {
    Ok(root
        .join(sparsetable::api::instances::ids::check_project_id(
            "path", project,
        )?)
        .join(sparsetable::api::instances::ids::check_id(
            "path", "instance", instance,
        )?))
}

/// The database of `dir`: the one open in this process, else opened now, after which
/// `on_open` runs on it before any other thread can get it (it loads the instance's record
/// and makes the record's materialized views again).
fn open_dir(
    dir: &Path,
    durability: Durability,
    clock: &Arc<dyn Clock>,
    clock_id: usize,
    gc_mode: GcMode,
    on_open: impl FnOnce(&SharedDatabase) -> Result<()>,
) -> Result<Arc<SharedDatabase>> {
    // Held while opening, so two threads naming a new instance open it once.
    let mut dirs = open_dirs()
        .lock()
        .map_err(|_| sparsetable::api::shared::poisoned())?;
    if let Some(open) = dirs.get(dir) {
        if let Some(db) = open.db.upgrade() {
            if open.durability != durability {
                return Err(Error::failed_precondition(format!(
                    "{} is open in this process with durability {}, not {}",
                    dir.display(),
                    durability_name(open.durability),
                    durability_name(durability)
                )));
            }
            if open.clock_id != clock_id {
                return Err(Error::failed_precondition(format!(
                    "{} is open in this process on another clock",
                    dir.display()
                )));
            }
            check_gc_mode(&db, &dir.display().to_string(), gc_mode)?;
            return Ok(db);
        }
    }
    let storage = Arc::new(sparsetable::platform::storage::FileStorage::new(dir)?);
    let options = OpenOptions {
        durability,
        gc_mode,
        ..OpenOptions::default()
    };
    let db = Arc::new(SharedDatabase::new(Database::open(
        storage,
        options,
        clock.clone(),
    )?));
    on_open(&db)?;
    // Entries of closed databases go when their directory is next opened or another opens.
    dirs.retain(|_, open| open.db.strong_count() > 0);
    dirs.insert(
        dir.to_path_buf(),
        OpenDir {
            db: Arc::downgrade(&db),
            durability,
            clock_id,
        },
    );
    Ok(db)
}

/// The data plane of the instance whose first database is `db` (the core's `InstanceData`:
/// its clusters, app-profile routing, faults and replication), shared by every client of the
/// process that uses that database, as the database is; made on first use with one cluster,
/// `{instance}-c1`, as the server names an instance's default cluster. Held weakly here, so
/// it goes with the last client using it (and the database's directory lock with it). A
/// plane made here is first handed to `init` (the Instance Admin's record configures it).
///
/// # Errors
/// A poisoned lock; `init`'s error (the plane is then not kept).
pub fn plane(
    db: &Arc<SharedDatabase>,
    instance: &str,
    clock: Arc<dyn Clock>,
    init: impl FnOnce(&sparsetable::InstanceData) -> Result<()>,
) -> Result<Arc<sparsetable::InstanceData>> {
    static PLANES: OnceLock<Mutex<BTreeMap<usize, Weak<sparsetable::InstanceData>>>> =
        OnceLock::new();
    let mut planes = PLANES
        .get_or_init(Default::default)
        .lock()
        .map_err(|_| sparsetable::api::shared::poisoned())?;
    let key = Arc::as_ptr(db) as usize;
    if let Some(plane) = planes.get(&key).and_then(Weak::upgrade) {
        return Ok(plane);
    }
    planes.retain(|_, p| p.strong_count() > 0);
    let plane = Arc::new(sparsetable::InstanceData::new(
        (**db).clone(),
        &format!("{instance}-c1"),
        clock,
    )?);
    init(&plane)?;
    planes.insert(key, Arc::downgrade(&plane));
    Ok(plane)
}

/// The directory a client opens: `path`, else `$SPARSETABLE_PATH` if set and not empty,
/// else none (memory). Made absolute and created, so two spellings of one directory are one
/// key of the registry.
///
/// # Errors
/// `Unavailable` if the directory cannot be created or resolved.
pub fn resolve_root(path: Option<PathBuf>) -> Result<Option<PathBuf>> {
    let path = path.or_else(|| {
        std::env::var_os(PATH_ENV)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    });
    let Some(path) = path else { return Ok(None) };
    let io = |e: std::io::Error| {
        Error::new(
            Code::Unavailable,
            format!("cannot use directory {}: {e}", path.display()),
        )
    };
    std::fs::create_dir_all(&path).map_err(io)?;
    Ok(Some(std::fs::canonicalize(&path).map_err(io)?))
}

/// The durability named `name` (else `$SPARSETABLE_DURABILITY`, else `sync`): `sync` (a
/// write returns once its commit log record is fsynced, concurrent writers sharing one
/// fsync), `interval` (the log is fsynced every 100 ms, as `sparsetable-server
/// --durability interval`) or `none` (the engine never fsyncs; the OS writes back).
///
/// # Errors
/// `InvalidArgument` for any other name.
pub fn parse_durability(name: Option<&str>) -> Result<Durability> {
    let env = std::env::var(DURABILITY_ENV).ok().filter(|v| !v.is_empty());
    match name.or(env.as_deref()).unwrap_or("sync") {
        "sync" => Ok(Durability::Sync),
        "interval" => Ok(Durability::Interval { micros: 100_000 }),
        "none" => Ok(Durability::None),
        other => Err(Error::invalid_argument(format!(
            "durability must be \"sync\", \"interval\" or \"none\", not {}",
            quoted(other)
        ))),
    }
}

/// The GC mode named `name` (`"immediate"`, the default, or `"background"`).
///
/// # Errors
/// `InvalidArgument` for another name.
pub fn parse_gc_mode(name: Option<&str>) -> Result<GcMode> {
    name.map_or(Ok(GcMode::default()), str::parse)
}

fn durability_name(d: Durability) -> &'static str {
    match d {
        Durability::Sync => "sync",
        Durability::Interval { .. } => "interval",
        Durability::None => "none",
    }
}
