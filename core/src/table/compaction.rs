//! Compactions built outside the database lock (`SharedDatabase`'s maintenance thread).
//!
//! A [`CompactionJob`] is taken under the write lock: it holds the tablet's runs as they
//! were (`Arc`s of immutable sources), the schema, family drops and clock it compacts
//! under, and which runs it merges. [`CompactionJob::build`] writes the output runs with no
//! lock held. The table installs them (`Table::install_compaction`) only if the tablet
//! (same id and range) still ends with exactly the runs the job saw, newest-first, by `Arc`
//! identity: runs flushed on top meanwhile are allowed (they are newer than every input, so
//! what a full compaction drops stays dropped), anything else (a compaction, split, merge
//! or drop meanwhile) makes the output stale, and its files are deleted.
//!
//! Invariant: an output run is named by no manifest until it is installed, so a crash or a
//! stale install leaves only an unreferenced file, which the next manifest's garbage
//! collection removes (the job's `FilePin` keeps it from doing so while the job runs).

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::ops::Range;

use crate::lsm::persist::{run_file_name, RunStore};
use crate::lsm::source::Source;
use crate::model::schema::TableConfig;
use crate::table::tablet::Tablet;
use crate::Result;

/// What a compaction job rewrites.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CompactionKind {
    /// Every run into runs of about `piece_bytes` each, dropping deleted and collectable
    /// cells and tombstones ([`Tablet::compact`]).
    Full {
        /// Where the output is cut (`u64::MAX`: one run).
        piece_bytes: u64,
    },
    /// Consecutive runs into one, keeping every entry ([`Tablet::merge_runs`]).
    Merge,
}

/// What a built job hands to `Table::install_compaction`.
#[derive(Clone)]
pub(crate) struct CompactionOutput {
    /// The runs that replace the job's range.
    pub(crate) runs: Vec<Arc<dyn Source>>,
    /// The cells garbage collection removed (row key, DeleteFromColumn), when the job
    /// logs them for a change stream.
    pub(crate) collected: Vec<(Vec<u8>, crate::model::mutation::Mutation)>,
}

/// A compaction of one tablet's runs, built with no lock held.
pub(crate) struct CompactionJob {
    pub(crate) table: String,
    /// A copy of the tablet with no memtable: its id, range, flushed mark, and the runs it
    /// had when the job was taken (newest first).
    pub(crate) tablet: Tablet,
    /// Which of those runs are rewritten (all of them for a full compaction).
    pub(crate) range: Range<usize>,
    pub(crate) kind: CompactionKind,
    pub(crate) config: TableConfig,
    pub(crate) epochs: Arc<BTreeMap<String, u64>>,
    pub(crate) now_micros: i64,
    pub(crate) store: Option<Arc<RunStore>>,
    /// Whether the table has a change stream, so collected cells are reported.
    pub(crate) log_collected: bool,
}

impl CompactionJob {
    /// The runs the job saw, newest first.
    pub(crate) fn seen(&self) -> &[Arc<dyn Source>] {
        &self.tablet.runs
    }

    /// Writes the output runs that replace `range` (files when the table is on storage).
    /// Needs no lock: the input runs are immutable and the store allocates file numbers
    /// itself.
    ///
    /// # Errors
    /// The storage's errors (nothing is installed; outputs finished before the error are
    /// unreferenced files for garbage collection).
    pub(crate) fn build(&self) -> Result<CompactionOutput> {
        let mut scratch = self.tablet.clone();
        let store = self.store.as_deref();
        match self.kind {
            CompactionKind::Full { piece_bytes } => {
                let mut collected = Vec::new();
                scratch.compact(
                    &self.config,
                    &self.epochs,
                    self.now_micros,
                    store,
                    piece_bytes,
                    self.log_collected.then_some(&mut collected),
                )?;
                Ok(CompactionOutput {
                    runs: scratch.runs.to_vec(),
                    collected,
                })
            }
            CompactionKind::Merge => {
                scratch.merge_runs(self.range.clone(), store)?;
                // The merged run (or none, if no entry of the tablet was in them) took the
                // range's place.
                let produced = scratch.runs.len() + self.range.len() - self.seen().len();
                Ok(CompactionOutput {
                    runs: scratch
                        .runs
                        .remove(self.range.start..self.range.start + produced),
                    collected: Vec::new(),
                })
            }
        }
    }

    /// Deletes the files of outputs that were not installed. Nothing names them: they were
    /// built by this job and never entered a tablet.
    pub(crate) fn discard(&self, outputs: &[Arc<dyn Source>]) {
        let Some(store) = &self.store else {
            return;
        };
        for run in outputs {
            if let Some(meta) = run.run_meta() {
                let _ = store.storage.remove(&run_file_name(meta.file_number));
            }
        }
    }
}
