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
    /// The bucket recorded last, not yet added to the maps. A scan records every row it
    /// hands out (so a stream dropped part-way has counted exactly what it visited), nearly
    /// always into the same bucket: adding to this entry costs no map lookups. Every reader
    /// of the maps folds it in first.
    hot: Option<Hot>,
}

/// The pending counters of one (time bucket, key bucket, tablet).
#[derive(Debug)]
struct Hot {
    time: i64,
    prefix: Vec<u8>,
    tablet: u64,
    counters: AccessCounters,
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
        if let Some(h) = &mut self.hot {
            if h.time == t && h.tablet == tablet && h.prefix == prefix {
                h.counters.add(c);
                return;
            }
        }
        let mut prefix_buf = self.fold_hot().unwrap_or_default();
        prefix_buf.clear();
        prefix_buf.extend_from_slice(prefix);
        self.hot = Some(Hot {
            time: t,
            prefix: prefix_buf,
            tablet,
            counters: *c,
        });
    }

    /// Adds the pending entry to the maps (pruning old time buckets) and returns its prefix
    /// buffer for reuse.
    fn fold_hot(&mut self) -> Option<Vec<u8>> {
        let h = self.hot.take()?;
        let keys = self.by_key.entry(h.time).or_default();
        match keys.get_mut(h.prefix.as_slice()) {
            Some(k) => k.add(&h.counters),
            None => {
                keys.insert(h.prefix.clone(), h.counters);
            }
        }
        self.by_tablet
            .entry((h.time, h.tablet))
            .or_default()
            .add(&h.counters);
        if self.by_key.len() > self.options.max_buckets.max(1) {
            self.prune();
        }
        Some(h.prefix)
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
    pub(crate) fn by_key(&mut self) -> Vec<AccessStat> {
        self.fold_hot();
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

    /// Each tablet's counters summed over the time buckets that start in
    /// `[start_micros, end_micros)`.
    pub(crate) fn by_tablet_between(
        &mut self,
        start_micros: i64,
        end_micros: i64,
    ) -> BTreeMap<u64, AccessCounters> {
        self.fold_hot();
        let mut out: BTreeMap<u64, AccessCounters> = BTreeMap::new();
        for ((t, tablet), c) in &self.by_tablet {
            if (start_micros..end_micros).contains(t) {
                out.entry(*tablet).or_default().add(c);
            }
        }
        out
    }

    /// A tablet's counters in the time bucket holding `now_micros`.
    pub(crate) fn tablet_now(&mut self, tablet: u64, now_micros: i64) -> AccessCounters {
        self.fold_hot();
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Counters reach the same totals whether or not they pass through the pending
        /// entry: every reader sees exactly the naive per-bucket sums, pruning included.
        #[test]
        fn recorded_counters_add_up_exactly(
            records in proptest::collection::vec((0i64..6, 0u8..3, 0u64..3, 1u64..5), 1..80),
            max_buckets in 1usize..4,
        ) {
            let mut stats = TableStats::new(StatsOptions {
                bucket_micros: 10,
                key_prefix_bytes: 2,
                max_buckets,
            });
            let mut by_key: BTreeMap<(i64, Vec<u8>), u64> = BTreeMap::new();
            let mut by_tablet: BTreeMap<(i64, u64), u64> = BTreeMap::new();
            let mut clock = 0i64;
            for (step, key, tablet, reads) in records {
                // Time only moves forward, as the clock does.
                clock += step;
                let row = [b'k', key, b'x'];
                let c = AccessCounters { reads, ..AccessCounters::default() };
                stats.record(clock, &row, tablet, &c);
                let t = clock - clock % 10;
                *by_key.entry((t, row[..2].to_vec())).or_default() += reads;
                *by_tablet.entry((t, tablet)).or_default() += reads;
                // Only the newest `max_buckets` time buckets are kept.
                let times: alloc::collections::BTreeSet<i64> =
                    by_key.keys().map(|(t, _)| *t).collect();
                let keep: Vec<i64> = times.iter().rev().take(max_buckets).copied().collect();
                by_key.retain(|(t, _), _| keep.contains(t));
                by_tablet.retain(|(t, _), _| keep.contains(t));
                for tablet in 0..3 {
                    prop_assert_eq!(
                        stats.tablet_now(tablet, clock).reads,
                        by_tablet.get(&(t, tablet)).copied().unwrap_or(0)
                    );
                }
                let got: BTreeMap<(i64, Vec<u8>), u64> = stats
                    .by_key()
                    .into_iter()
                    .map(|s| ((s.time_bucket_micros, s.key_bucket), s.counters.reads))
                    .collect();
                prop_assert_eq!(&got, &by_key);
            }
        }
    }
}
