//! Sparsetable and its peers behind one small trait, each storing the benchmark's cells the
//! same way: one cell per row (family `cf`, qualifier `q`, one timestamp), which the peers
//! keep under the key `row 0x00 family 0x00 qualifier inverted-timestamp` (see
//! [`crate::data::cell_key`]). A point read is a prefix seek on `row 0x00`, as a wide-column
//! read of a row must be; a scan visits every cell in key order.
//!
//! Durability modes map to each engine's nearest setting (the report prints this table):
//! - `none`: nothing is fsynced by the engine (Sparsetable `Durability::None`; fjall no
//!   persist; redb `Durability::None`; LMDB `NO_SYNC`; RocksDB WAL without sync).
//! - `interval`: as `none`, plus an fsync of the log every [`INTERVAL_MS`] by a background
//!   thread (Sparsetable `Durability::Interval`, which runs its own thread under
//!   `SharedDatabase`; fjall `persist(SyncData)`; redb an empty `Immediate` commit, which
//!   makes every earlier `None` commit durable; LMDB `force_sync`; RocksDB `flush_wal(true)`).
//! - `sync`: every acknowledged write is on disk (Sparsetable `Durability::Sync`, group commit
//!   across writer threads; fjall `persist(SyncData)` after each insert; redb `Immediate`;
//!   LMDB default sync commits; RocksDB `sync = true`, whose own group commit applies).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::thread::JoinHandle;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sparsetable::{
    Database, Durability, Mutation, OpenOptions, ReadRowsRequest, SharedDatabase, TableConfig,
};

use crate::data::{cell_key, row_of_cell_key, row_prefix, FAMILY, QUALIFIER, TIMESTAMP_MICROS};

/// Period of the `interval` durability mode's fsync, for every engine.
pub const INTERVAL_MS: u64 = 100;

/// The table (or keyspace) every engine stores the rows in.
const TABLE: &str = "bench";

/// Errors are reported as text: the harness only prints them.
pub type Result<T> = std::result::Result<T, String>;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// How writes reach the disk; see the module documentation for each engine's setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// No fsync by the engine.
    None,
    /// An fsync every [`INTERVAL_MS`].
    Interval,
    /// An fsync before each write is acknowledged.
    Sync,
}

impl Mode {
    /// Every mode, in report order.
    pub const ALL: [Mode; 3] = [Mode::None, Mode::Interval, Mode::Sync];

    /// The mode's command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Mode::None => "none",
            Mode::Interval => "interval",
            Mode::Sync => "sync",
        }
    }

    /// Parses a command-line name.
    pub fn parse(s: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.name() == s)
    }
}

/// One storage engine holding the benchmark table. Shared by writer threads.
pub trait Engine: Send + Sync {
    /// Stores row `row`'s cell, durably per the mode before returning.
    fn put(&self, row: &[u8], value: &[u8]) -> Result<()>;
    /// The value of row `row`'s newest cell, if the row exists.
    fn get(&self, row: &[u8]) -> Result<Option<Vec<u8>>>;
    /// Visits every row in key order with its cell's value; returns how many it visited.
    fn scan(&self, visit: &mut dyn FnMut(&[u8], &[u8])) -> Result<u64>;
    /// Flushes memory to storage and fsyncs it (the state to measure space on).
    fn flush(&self) -> Result<()>;
    /// Compacts storage as far as the engine can; `false` if it has no such operation.
    fn compact(&self) -> Result<bool>;
}

/// The engines, by command-line name. RocksDB only with the `rocksdb` feature.
pub fn engine_names() -> Vec<&'static str> {
    let mut v = vec!["sparsetable", "fjall", "redb", "lmdb"];
    if cfg!(feature = "rocksdb") {
        v.push("rocksdb");
    }
    v
}

/// Opens (creating if needed) engine `name` in directory `dir`.
pub fn open(name: &str, dir: &Path, mode: Mode) -> Result<Box<dyn Engine>> {
    std::fs::create_dir_all(dir).map_err(err)?;
    Ok(match name {
        "sparsetable" => Box::new(Sparsetable::open(dir, mode, 64 << 20)?),
        "fjall" => Box::new(Fjall::open(dir, mode)?),
        "redb" => Box::new(Redb::open(dir, mode)?),
        "lmdb" => Box::new(Lmdb::open(dir, mode)?),
        #[cfg(feature = "rocksdb")]
        "rocksdb" => Box::new(rocks::Rocks::open(dir, mode)?),
        other => return Err(format!("unknown engine {other}")),
    })
}

/// A background thread calling `tick` every [`INTERVAL_MS`] until dropped.
struct Ticker {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Ticker {
    fn start(tick: impl Fn() + Send + 'static) -> Ticker {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            while !flag.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(INTERVAL_MS));
                tick();
            }
        });
        Ticker {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Sparsetable: a `SharedDatabase` over `Database::open_dir`, or purely in memory.
pub struct Sparsetable {
    db: SharedDatabase,
}

impl Sparsetable {
    /// Opens the database in `dir` with the mode's durability and the given log rotation
    /// threshold (the recovery benchmark raises it so nothing checkpoints).
    pub fn open(dir: &Path, mode: Mode, log_rotate_bytes: u64) -> Result<Sparsetable> {
        let durability = match mode {
            Mode::None => Durability::None,
            Mode::Interval => Durability::Interval {
                micros: INTERVAL_MS as i64 * 1000,
            },
            Mode::Sync => Durability::Sync,
        };
        let options = OpenOptions {
            durability,
            log_rotate_bytes,
            // `SPARSETABLE_VERIFY_ON_OPEN=1` measures the full check at open (every data
            // block read and checksummed, which opening did before it became lazy).
            verify_on_open: std::env::var_os("SPARSETABLE_VERIFY_ON_OPEN")
                .is_some_and(|v| v == "1"),
            ..OpenOptions::default()
        };
        let mut db = Database::open_dir(dir, options).map_err(err)?;
        if db.get_table(TABLE).is_err() {
            db.create_table(TABLE, TableConfig::with_families([FAMILY]))
                .map_err(err)?;
        }
        Ok(Sparsetable {
            db: SharedDatabase::new(db),
        })
    }

    /// An in-memory database (no storage at all).
    pub fn memory() -> Result<Sparsetable> {
        let mut db = Database::new();
        db.create_table(TABLE, TableConfig::with_families([FAMILY]))
            .map_err(err)?;
        Ok(Sparsetable {
            db: SharedDatabase::new(db),
        })
    }
}

impl Engine for Sparsetable {
    fn put(&self, row: &[u8], value: &[u8]) -> Result<()> {
        let m = Mutation::set_cell(FAMILY, QUALIFIER, TIMESTAMP_MICROS, value);
        self.db.mutate_row(TABLE, row, &[m]).map_err(err)
    }

    fn get(&self, row: &[u8]) -> Result<Option<Vec<u8>>> {
        let Some(r) = self.db.read_row(TABLE, row).map_err(err)? else {
            return Ok(None);
        };
        let cell = r.cells.into_iter().next().ok_or("row without cells")?;
        if cell.family != FAMILY
            || cell.qualifier != QUALIFIER
            || cell.timestamp_micros != TIMESTAMP_MICROS
        {
            return Err("read back a cell of another column".into());
        }
        Ok(Some(cell.value))
    }

    fn scan(&self, visit: &mut dyn FnMut(&[u8], &[u8])) -> Result<u64> {
        self.db
            .read(|db| {
                let mut n = 0;
                let mut rows = db.read_rows(TABLE, &ReadRowsRequest::default())?;
                // `try_next`: a read that fails part-way is an error, not a short scan.
                while let Some(row) = rows.try_next()? {
                    for cell in &row.cells {
                        visit(&row.key, &cell.value);
                    }
                    n += 1;
                }
                Ok(n)
            })
            .map_err(err)
    }

    fn flush(&self) -> Result<()> {
        self.db.write(|db| db.checkpoint()).map_err(err)
    }

    fn compact(&self) -> Result<bool> {
        self.db
            .write(|db| {
                db.compact_table(TABLE)?;
                db.checkpoint()
            })
            .map_err(err)?;
        Ok(true)
    }
}

/// fjall 3: one keyspace.
pub struct Fjall {
    db: fjall::Database,
    ks: fjall::Keyspace,
    mode: Mode,
    _ticker: Option<Ticker>,
}

impl Fjall {
    fn open(dir: &Path, mode: Mode) -> Result<Fjall> {
        let db = fjall::Database::builder(dir)
            .manual_journal_persist(true)
            .open()
            .map_err(err)?;
        let ks = db
            .keyspace(TABLE, fjall::KeyspaceCreateOptions::default)
            .map_err(err)?;
        let ticker = (mode == Mode::Interval).then(|| {
            let db = db.clone();
            Ticker::start(move || {
                let _ = db.persist(fjall::PersistMode::SyncData);
            })
        });
        Ok(Fjall {
            db,
            ks,
            mode,
            _ticker: ticker,
        })
    }
}

impl Engine for Fjall {
    fn put(&self, row: &[u8], value: &[u8]) -> Result<()> {
        self.ks.insert(cell_key(row), value).map_err(err)?;
        if self.mode == Mode::Sync {
            self.db.persist(fjall::PersistMode::SyncData).map_err(err)?;
        }
        Ok(())
    }

    fn get(&self, row: &[u8]) -> Result<Option<Vec<u8>>> {
        match self.ks.prefix(row_prefix(row)).next() {
            None => Ok(None),
            Some(g) => {
                let (_, v) = g.into_inner().map_err(err)?;
                Ok(Some(v.to_vec()))
            }
        }
    }

    fn scan(&self, visit: &mut dyn FnMut(&[u8], &[u8])) -> Result<u64> {
        let mut n = 0;
        for g in self.ks.iter() {
            let (k, v) = g.into_inner().map_err(err)?;
            visit(row_of_cell_key(&k), &v);
            n += 1;
        }
        Ok(n)
    }

    fn flush(&self) -> Result<()> {
        self.ks.rotate_memtable_and_wait().map_err(err)?;
        self.db.persist(fjall::PersistMode::SyncAll).map_err(err)
    }

    fn compact(&self) -> Result<bool> {
        self.flush()?;
        self.ks.major_compact().map_err(err)?;
        Ok(true)
    }
}

const REDB_TABLE: redb::TableDefinition<&[u8], &[u8]> = redb::TableDefinition::new(TABLE);

/// redb 4: one table, one write transaction per put.
pub struct Redb {
    db: Arc<RwLock<redb::Database>>,
    mode: Mode,
    _ticker: Option<Ticker>,
}

impl Redb {
    fn open(dir: &Path, mode: Mode) -> Result<Redb> {
        let db = redb::Database::create(dir.join("bench.redb")).map_err(err)?;
        let tx = db.begin_write().map_err(err)?;
        tx.open_table(REDB_TABLE).map_err(err)?;
        tx.commit().map_err(err)?;
        let db = Arc::new(RwLock::new(db));
        let ticker = (mode == Mode::Interval).then(|| {
            let db = db.clone();
            Ticker::start(move || {
                // An Immediate commit makes every earlier non-durable commit durable.
                if let Ok(db) = db.read() {
                    if let Ok(tx) = db.begin_write() {
                        let _ = tx.commit();
                    }
                }
            })
        });
        Ok(Redb {
            db,
            mode,
            _ticker: ticker,
        })
    }
}

impl Engine for Redb {
    fn put(&self, row: &[u8], value: &[u8]) -> Result<()> {
        let db = self.db.read().map_err(err)?;
        let mut tx = db.begin_write().map_err(err)?;
        if self.mode != Mode::Sync {
            tx.set_durability(redb::Durability::None).map_err(err)?;
        }
        {
            let mut t = tx.open_table(REDB_TABLE).map_err(err)?;
            t.insert(cell_key(row).as_slice(), value).map_err(err)?;
        }
        tx.commit().map_err(err)
    }

    fn get(&self, row: &[u8]) -> Result<Option<Vec<u8>>> {
        use redb::ReadableDatabase;
        let db = self.db.read().map_err(err)?;
        let tx = db.begin_read().map_err(err)?;
        let t = tx.open_table(REDB_TABLE).map_err(err)?;
        let prefix = row_prefix(row);
        let mut it = t.range(prefix.as_slice()..).map_err(err)?;
        match it.next() {
            Some(entry) => {
                let (k, v) = entry.map_err(err)?;
                Ok(k.value().starts_with(&prefix).then(|| v.value().to_vec()))
            }
            None => Ok(None),
        }
    }

    fn scan(&self, visit: &mut dyn FnMut(&[u8], &[u8])) -> Result<u64> {
        use redb::{ReadableDatabase, ReadableTable};
        let db = self.db.read().map_err(err)?;
        let tx = db.begin_read().map_err(err)?;
        let t = tx.open_table(REDB_TABLE).map_err(err)?;
        let mut n = 0;
        for entry in t.iter().map_err(err)? {
            let (k, v) = entry.map_err(err)?;
            visit(row_of_cell_key(k.value()), v.value());
            n += 1;
        }
        Ok(n)
    }

    fn flush(&self) -> Result<()> {
        let db = self.db.read().map_err(err)?;
        let tx = db.begin_write().map_err(err)?;
        tx.commit().map_err(err)
    }

    fn compact(&self) -> Result<bool> {
        self.flush()?;
        let mut db = self.db.write().map_err(err)?;
        while db.compact().map_err(err)? {}
        Ok(true)
    }
}

/// LMDB through heed: one unnamed database, one write transaction per put.
///
/// heed ties a database handle to a borrow of its environment, so the environment lives on
/// the heap behind a raw pointer that `Drop` reclaims after everything that uses it is gone.
pub struct Lmdb {
    env: &'static heed::Env,
    db: heed::Database<'static, heed::types::Bytes, heed::types::Bytes>,
    ticker: Option<Ticker>,
}

impl Lmdb {
    fn open(dir: &Path, mode: Mode) -> Result<Lmdb> {
        let mut options = heed::EnvOpenOptions::new();
        // A sparse map: only the pages used take disk space.
        options.map_size(64 << 30).max_dbs(1);
        if mode != Mode::Sync {
            // SAFETY: NO_SYNC only weakens durability, which is what these modes measure.
            unsafe {
                options.flags(heed::EnvFlags::NO_SYNC);
            }
        }
        // SAFETY: the directory is used by this engine alone, opened once at a time.
        let env = unsafe { options.open(dir) }.map_err(err)?;
        let env: &'static heed::Env = Box::leak(Box::new(env));
        let tx = env.write_txn().map_err(err)?;
        let db = env
            .create_databases_and_commit(tx, |opener, tx| {
                opener
                    .create_database(tx, None)
                    .map(heed::CommitOrAbort::<_, ()>::Commit)
            })
            .map_err(err)?;
        let heed::CommitOrAbort::Commit(db) = db else {
            return Err("LMDB database creation aborted".into());
        };
        let ticker = (mode == Mode::Interval).then(|| {
            let env = env.clone();
            Ticker::start(move || {
                let _ = env.force_sync();
            })
        });
        Ok(Lmdb { env, db, ticker })
    }
}

impl Drop for Lmdb {
    fn drop(&mut self) {
        self.ticker = None;
        // SAFETY: `env` came from Box::leak in `open` and is reclaimed once, here; `db` is a
        // plain handle (no destructor) that is not used after this point.
        unsafe {
            drop(Box::from_raw(
                self.env as *const heed::Env as *mut heed::Env,
            ))
        };
    }
}

impl Engine for Lmdb {
    fn put(&self, row: &[u8], value: &[u8]) -> Result<()> {
        let mut tx = self.env.write_txn().map_err(err)?;
        self.db.put(&mut tx, &cell_key(row), value).map_err(err)?;
        tx.commit().map_err(err)
    }

    fn get(&self, row: &[u8]) -> Result<Option<Vec<u8>>> {
        let tx = self.env.read_txn().map_err(err)?;
        let mut it = self.db.prefix_iter(&tx, &row_prefix(row)).map_err(err)?;
        match it.next() {
            Some(entry) => Ok(Some(entry.map_err(err)?.1.to_vec())),
            None => Ok(None),
        }
    }

    fn scan(&self, visit: &mut dyn FnMut(&[u8], &[u8])) -> Result<u64> {
        let tx = self.env.read_txn().map_err(err)?;
        let mut n = 0;
        for entry in self.db.iter(&tx).map_err(err)? {
            let (k, v) = entry.map_err(err)?;
            visit(row_of_cell_key(k), v);
            n += 1;
        }
        Ok(n)
    }

    fn flush(&self) -> Result<()> {
        self.env.force_sync().map_err(err)
    }

    fn compact(&self) -> Result<bool> {
        // A B-tree updated in place: there is nothing to compact short of copying the file.
        self.flush()?;
        Ok(false)
    }
}

/// The rust `rocksdb` crate's options drop a write-buffer manager through
/// `rocksdb_write_buffer_manager_destroy`, a C function RocksDB added after 7.8 (Debian 12's
/// library). The benchmark never creates one (creating one would need
/// `rocksdb_write_buffer_manager_create`, which 7.8 lacks too, so the link would fail), so this
/// definition only satisfies the linker; reaching it would be a bug, and it aborts.
#[cfg(all(feature = "rocksdb", system_rocksdb))]
#[no_mangle]
pub extern "C" fn rocksdb_write_buffer_manager_destroy(_manager: *mut std::ffi::c_void) {
    eprintln!("rocksdb_write_buffer_manager_destroy called: not in RocksDB 7.8");
    std::process::abort();
}

#[cfg(feature = "rocksdb")]
mod rocks {
    //! RocksDB (the `rocksdb` feature): default options, compression off.
    use super::*;

    /// RocksDB with one default column family.
    pub struct Rocks {
        db: Arc<rocksdb::DB>,
        write: rocksdb::WriteOptions,
        _ticker: Option<Ticker>,
    }

    impl Rocks {
        pub(super) fn open(dir: &Path, mode: Mode) -> Result<Rocks> {
            let mut o = rocksdb::Options::default();
            o.create_if_missing(true);
            o.set_compression_type(rocksdb::DBCompressionType::None);
            o.increase_parallelism(2);
            let db = Arc::new(rocksdb::DB::open(&o, dir).map_err(err)?);
            let mut write = rocksdb::WriteOptions::default();
            write.set_sync(mode == Mode::Sync);
            let ticker = (mode == Mode::Interval).then(|| {
                let db = db.clone();
                Ticker::start(move || {
                    let _ = db.flush_wal(true);
                })
            });
            Ok(Rocks {
                db,
                write,
                _ticker: ticker,
            })
        }
    }

    impl Engine for Rocks {
        fn put(&self, row: &[u8], value: &[u8]) -> Result<()> {
            self.db
                .put_opt(cell_key(row), value, &self.write)
                .map_err(err)
        }

        fn get(&self, row: &[u8]) -> Result<Option<Vec<u8>>> {
            let prefix = row_prefix(row);
            let mut it = self.db.raw_iterator();
            it.seek(&prefix);
            match (it.key(), it.value()) {
                (Some(k), Some(v)) if k.starts_with(&prefix) => Ok(Some(v.to_vec())),
                _ => it.status().map(|_| None).map_err(err),
            }
        }

        fn scan(&self, visit: &mut dyn FnMut(&[u8], &[u8])) -> Result<u64> {
            let mut it = self.db.raw_iterator();
            it.seek_to_first();
            let mut n = 0;
            while let (Some(k), Some(v)) = (it.key(), it.value()) {
                visit(row_of_cell_key(k), v);
                n += 1;
                it.next();
            }
            it.status().map_err(err)?;
            Ok(n)
        }

        fn flush(&self) -> Result<()> {
            self.db.flush().map_err(err)?;
            self.db.flush_wal(true).map_err(err)
        }

        fn compact(&self) -> Result<bool> {
            self.flush()?;
            self.db.compact_range(None::<&[u8]>, None::<&[u8]>);
            Ok(true)
        }
    }
}

/// A fresh, empty directory under `root` for one engine's data.
pub fn fresh_dir(root: &Path, name: &str) -> Result<PathBuf> {
    let dir = root.join(name);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(err)?;
    }
    std::fs::create_dir_all(&dir).map_err(err)?;
    Ok(dir)
}
