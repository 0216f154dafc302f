//! Access statistics: what reads and writes touched, where in the key space, and when.
//!
//! Counters are kept per time bucket (the clock's time divided into `bucket_micros` slices)
//! for each tablet and for each key bucket (row keys cut to their first `key_prefix_bytes`
//! bytes, so a heatmap has stable rows however tablets split). Load-based splitting reads the
//! tablet counters; the playground's heatmap draws the key-bucket counters. Only the newest
//! `max_buckets` time buckets are kept, so memory stays bounded.
//!
//! Reads count through a [`StatsBatch`]: consecutive rows of one key bucket and tablet add
//! up locally and reach the table's counters (one lock) when the bucket changes or the read
//! hands a row (or its end) to the caller, so rows a read skips cost no lock of their own.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

/// How statistics are bucketed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatsOptions {
    /// Width of a time bucket in microseconds.
    pub bucket_micros: i64,
    /// Row keys are bucketed by this many leading bytes.
    pub key_prefix_bytes: usize,
    /// Time buckets kept.
    pub max_buckets: usize,
}

impl Default for StatsOptions {
    fn default() -> Self {
        StatsOptions {
            bucket_micros: 60_000_000,
            key_prefix_bytes: 4,
            max_buckets: 60,
        }
    }
}

/// What happened in one bucket.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AccessCounters {
    /// Rows returned by reads.
    pub reads: u64,
    /// Row mutations applied (a MutateRows entry or a MutateRow call counts once).
    pub writes: u64,
    /// Stored rows visited by reads, returned or not.
    pub rows_scanned: u64,
    /// Cells visited by reads (before filters).
    pub cells_scanned: u64,
    /// Bytes of cells returned.
    pub bytes_read: u64,
    /// Bytes of keys and values written.
    pub bytes_written: u64,
}

impl AccessCounters {
    pub(crate) fn add(&mut self, other: &AccessCounters) {
        self.reads += other.reads;
        self.writes += other.writes;
        self.rows_scanned += other.rows_scanned;
        self.cells_scanned += other.cells_scanned;
        self.bytes_read += other.bytes_read;
        self.bytes_written += other.bytes_written;
    }
}

/// One cell of the statistics: a time bucket and a key bucket (or a tablet).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessStat {
    /// Start of the time bucket, in microseconds since the epoch.
    pub time_bucket_micros: i64,
    /// The key bucket: the first `key_prefix_bytes` bytes of the row keys counted.
    pub key_bucket: Vec<u8>,
    /// The counters.
    pub counters: AccessCounters,
}

/// Counters of one table.
#[derive(Debug, Default)]
pub(crate) struct TableStats {
    pub(crate) options: StatsOptions,
    /// Time bucket, then key bucket. Every `record` adds to both maps, so the two always
    /// hold the same time buckets.
    by_key: BTreeMap<i64, BTreeMap<Vec<u8>, AccessCounters>>,
    by_tablet: BTreeMap<(i64, u64), AccessCounters>,
}

impl TableStats {
    pub(crate) fn new(options: StatsOptions) -> Self {
        TableStats {
            options,
            ..TableStats::default()
        }
    }

    fn bucket(&self, now_micros: i64) -> i64 {
        let w = self.options.bucket_micros.max(1);
        now_micros - now_micros.rem_euclid(w)
    }

    /// Adds counters for one row access.
    pub(crate) fn record(
        &mut self,
        now_micros: i64,
        row_key: &[u8],
        tablet: u64,
        c: &AccessCounters,
    ) {
        let prefix = &row_key[..row_key.len().min(self.options.key_prefix_bytes)];
        self.record_bucket(now_micros, prefix, tablet, c);
    }

    /// Adds counters for accesses of one key bucket (`prefix`: row keys already cut to
    /// `key_prefix_bytes`) in one tablet. Allocates only for a bucket not seen before.
    pub(crate) fn record_bucket(
        &mut self,
        now_micros: i64,
        prefix: &[u8],
        tablet: u64,
        c: &AccessCounters,
    ) {
        let t = self.bucket(now_micros);
        let keys = self.by_key.entry(t).or_default();
        match keys.get_mut(prefix) {
            Some(k) => k.add(c),
            None => {
                keys.insert(prefix.to_vec(), *c);
            }
        }
        self.by_tablet.entry((t, tablet)).or_default().add(c);
        if self.by_key.len() > self.options.max_buckets.max(1) {
            self.prune();
        }
    }

    /// Drops the oldest time buckets past `max_buckets`.
    fn prune(&mut self) {
        let keep = self.options.max_buckets.max(1);
        while self.by_key.len() > keep {
            self.by_key.pop_first();
        }
        if let Some(&oldest_kept) = self.by_key.keys().next() {
            self.by_tablet.retain(|(t, _), _| *t >= oldest_kept);
        }
    }

    /// The key-bucket counters, by time then key.
    pub(crate) fn by_key(&self) -> Vec<AccessStat> {
        self.by_key
            .iter()
            .flat_map(|(t, keys)| {
                keys.iter().map(|(k, c)| AccessStat {
                    time_bucket_micros: *t,
                    key_bucket: k.clone(),
                    counters: *c,
                })
            })
            .collect()
    }

    /// A tablet's counters in the time bucket holding `now_micros`.
    pub(crate) fn tablet_now(&self, tablet: u64, now_micros: i64) -> AccessCounters {
        self.by_tablet
            .get(&(self.bucket(now_micros), tablet))
            .copied()
            .unwrap_or_default()
    }
}

/// Counters of a read that have not reached the table yet: one key bucket of one tablet.
#[derive(Debug, Default)]
pub(crate) struct StatsBatch {
    prefix_bytes: usize,
    tablet: u64,
    prefix: Vec<u8>,
    counters: Option<AccessCounters>,
}

impl StatsBatch {
    /// A batch cutting row keys to `prefix_bytes` bytes (the table's `key_prefix_bytes`).
    pub(crate) fn new(prefix_bytes: usize) -> Self {
        StatsBatch {
            prefix_bytes,
            ..StatsBatch::default()
        }
    }

    /// Adds one row's counters, first handing the pending ones to `stats` if the row is in
    /// another bucket or tablet.
    pub(crate) fn add(
        &mut self,
        stats: &spin::Mutex<TableStats>,
        now_micros: i64,
        row_key: &[u8],
        tablet: u64,
        c: &AccessCounters,
    ) {
        let prefix = &row_key[..row_key.len().min(self.prefix_bytes)];
        if let Some(pending) = &mut self.counters {
            if self.tablet == tablet && self.prefix == prefix {
                pending.add(c);
                return;
            }
        }
        self.flush(stats, now_micros);
        self.tablet = tablet;
        self.prefix.clear();
        self.prefix.extend_from_slice(prefix);
        self.counters = Some(*c);
    }

    /// Hands the pending counters to `stats`.
    pub(crate) fn flush(&mut self, stats: &spin::Mutex<TableStats>, now_micros: i64) {
        if let Some(c) = self.counters.take() {
            stats
                .lock()
                .record_bucket(now_micros, &self.prefix, self.tablet, &c);
        }
    }
}
