//! Maintenance of a database's tablets (flushes, compactions, merges, splits, log
//! rotation), run by `SharedDatabase`'s background thread in three steps: jobs taken under
//! a lock, built with no lock held, installed under the write lock.
//!
//! Invariants: a built output is installed only if the tablet still holds exactly the runs
//! its job read (newer flushes on top excepted); otherwise it is discarded and its files
//! deleted. Files being built are pinned against the manifest's garbage collection until
//! installed or dropped.

#![cfg(feature = "std")]

use alloc::vec::Vec;

use super::Database;
use crate::lsm::source::Source;
use crate::table::compaction::CompactionJob;
use crate::table::table::FlushJob;
use crate::table::table::Table;
use crate::{Error, Result};
use alloc::sync::Arc;

/// Flushes built outside the database lock by `SharedDatabase`'s maintenance thread:
/// taken under the read lock ([`Database::flushes`]), written with no lock held
/// ([`Flushes::build`]), installed under the write lock
/// ([`Database::run_maintenance_with`]). The pin keeps the files they write out of the
/// manifest's garbage collection until they are installed or dropped.
pub(crate) struct Flushes {
    _pin: Option<crate::lsm::persist::FilePin>,
    jobs: Vec<(FlushJob, Option<BuiltRun>)>,
}

/// A flush's run once built (or the error that stopped it).
type BuiltRun = Result<Arc<dyn Source>>;

impl Flushes {
    /// Writes every job's run. Needs no lock.
    pub(crate) fn build(&mut self) {
        for (job, run) in &mut self.jobs {
            *run = Some(job.build());
        }
    }
}

/// Compactions and merges built outside the database lock by `SharedDatabase`'s
/// maintenance thread: taken under the write lock ([`Database::take_compactions`]),
/// written with no lock held ([`Compactions::build`]), installed under the write lock
/// ([`Database::install_compactions`]). The pin keeps their output files out of the
/// manifest's garbage collection until they are installed (and named by the manifest) or
/// deleted.
pub(crate) struct Compactions {
    _pin: Option<crate::lsm::persist::FilePin>,
    jobs: Vec<(CompactionJob, Option<BuiltRuns>)>,
    /// An error taking the jobs (a split's flush), reported when they are installed.
    error: Option<Error>,
}

/// A compaction's output runs once built (or the error that stopped it).
type BuiltRuns = Result<crate::table::compaction::CompactionOutput>;

impl Compactions {
    /// Writes every job's output runs. Needs no lock.
    pub(crate) fn build(&mut self) {
        for (job, out) in &mut self.jobs {
            *out = Some(job.build());
        }
    }

    /// Whether there is nothing to build and no error to report.
    pub(crate) fn is_empty(&self) -> bool {
        self.jobs.is_empty() && self.error.is_none()
    }
}

impl Database {
    /// Leaves flushes, compactions, splits and log rotation to [`Self::run_maintenance`]
    /// (see `SharedDatabase`), except past the back-pressure bounds.
    pub(crate) fn set_background_maintenance(&mut self, on: bool) {
        self.background_maintenance = on;
        for t in self.tables.values_mut() {
            t.defer_maintenance = on;
        }
    }

    /// Whether a write left maintenance for [`Self::run_maintenance`].
    pub(crate) fn maintenance_wanted(&self) -> bool {
        self.tables
            .values()
            .any(|t| t.maintenance_wanted || t.has_compactions_due())
            || self
                .persist
                .as_ref()
                .is_some_and(|p| p.log.len() > p.options.log_rotate_bytes)
    }

    /// The flushes writes have left, to build outside the lock (see
    /// [`Flushes::build`]), then install with [`Self::run_maintenance_with`].
    pub(crate) fn flushes(&self) -> Flushes {
        let now = self.now_micros();
        Flushes {
            _pin: self.persist.as_ref().map(|p| p.store.pin_new_files()),
            jobs: self
                .tables
                .values()
                .flat_map(|t| t.flush_jobs(now))
                .map(|j| (j, None))
                .collect(),
        }
    }

    /// Installs the runs [`Flushes::build`] wrote whose tablets still hold what they
    /// flushed (with the compactions, splits and merges they lead to), then runs the rest
    /// of the maintenance left ([`Self::run_maintenance`]).
    ///
    /// # Errors
    /// The first error: of a build (its tablet keeps its memtable and stays due), or of
    /// the pass.
    pub(crate) fn run_maintenance_with(&mut self, built: Flushes) -> Result<()> {
        let now = self.now_micros();
        let mut first_error = None;
        for (job, run) in &built.jobs {
            let installed = match run {
                Some(Ok(run)) => match self.tables.get_mut(&job.table) {
                    Some(t) => t.install_flush(job, run.clone(), now),
                    None => Ok(false),
                },
                Some(Err(e)) => Err(e.clone()),
                None => Ok(false),
            };
            if let Err(e) = installed {
                first_error.get_or_insert(e);
            }
        }
        // The manifest written below names the installed runs; the pin is released after.
        let result = self.run_maintenance();
        drop(built);
        match first_error {
            Some(e) => Err(e),
            None => result,
        }
    }

    /// Whether a flush left a compaction or merge for [`Self::take_compactions`].
    pub(crate) fn compactions_due(&self) -> bool {
        self.tables.values().any(Table::has_compactions_due)
    }

    /// The compactions and merges flushes left due, to build outside the lock (see
    /// [`Compactions::build`]), then install with [`Self::install_compactions`]. Splits
    /// between runs, which rewrite nothing, happen here (a storage error from such a
    /// split's flush is kept and reported by `install_compactions`; its tablet stays due).
    pub(crate) fn take_compactions(&mut self) -> Compactions {
        let now = self.now_micros();
        let pin = self.persist.as_ref().map(|p| p.store.pin_new_files());
        let mut jobs = Vec::new();
        let mut error = None;
        for t in self.tables.values_mut() {
            if t.has_compactions_due() {
                if let Err(e) = t.take_compaction_jobs(now, &mut jobs) {
                    error.get_or_insert(e);
                }
            }
        }
        Compactions {
            _pin: pin,
            jobs: jobs.into_iter().map(|j| (j, None)).collect(),
            error,
        }
    }

    /// Installs the runs [`Compactions::build`] wrote whose tablets still hold the runs
    /// they rewrote (see `Table::install_compaction`), deleting the files of the rest,
    /// then records the changes in the manifest (or checkpoints a full log) exactly as an
    /// inline pass does. A failed or stale job leaves its tablet due for the next pass.
    ///
    /// # Errors
    /// The first error: of a build (its tablet is unchanged), of a split or merge that
    /// followed an install, or of writing the manifest.
    pub(crate) fn install_compactions(&mut self, built: Compactions) -> Result<()> {
        let now = self.now_micros();
        let mut first_error = built.error.clone();
        for (job, out) in &built.jobs {
            let Some(table) = self.tables.get_mut(&job.table) else {
                if let Some(Ok(outputs)) = out {
                    job.discard(&outputs.runs);
                }
                continue;
            };
            match out {
                Some(Ok(outputs)) => match table.install_compaction(job, outputs.clone(), now) {
                    Ok(true) => {}
                    Ok(false) => job.discard(&outputs.runs),
                    Err(e) => {
                        first_error.get_or_insert(e);
                    }
                },
                Some(Err(e)) => {
                    table.retry_compaction(job);
                    first_error.get_or_insert(e.clone());
                }
                None => table.retry_compaction(job),
            }
        }
        // The manifest written here names the installed runs; the pin is released after.
        let recorded = self.record_maintenance();
        drop(built);
        match first_error {
            Some(e) => Err(e),
            None => recorded,
        }
    }

    /// Runs the maintenance writes left: flushes, the compactions, splits and merges they
    /// lead to, load splits; then rotates a full log or records the changes in the
    /// manifest.
    ///
    /// # Errors
    /// The storage's first error. Nothing is half-applied: a tablet whose flush failed
    /// keeps its memtable (its writes are in the log) and stays due for the next pass.
    pub(crate) fn run_maintenance(&mut self) -> Result<()> {
        let now = self.now_micros();
        let mut first_error = None;
        for t in self.tables.values_mut() {
            if t.maintenance_wanted {
                if let Err(e) = t.maintain_all(now) {
                    first_error.get_or_insert(e);
                }
            }
        }
        let recorded = self.record_maintenance();
        match first_error {
            Some(e) => Err(e),
            None => recorded,
        }
    }

    /// The end of a maintenance pass: rotates a full log (a checkpoint) or records the
    /// structural changes in the manifest.
    pub(super) fn record_maintenance(&mut self) -> Result<()> {
        // Maintenance may have collected garbage: the views of those tables follow.
        self.views_after_collection();
        let rotate = self
            .persist
            .as_ref()
            .is_some_and(|p| p.log.len() > p.options.log_rotate_bytes);
        if rotate {
            self.rotate_checkpoint()
        } else if self.tables.values().any(|t| t.dirty) {
            self.write_manifest()
        } else {
            Ok(())
        }
    }
}
