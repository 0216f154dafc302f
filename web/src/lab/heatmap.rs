//! The Key Visualizer's data: access statistics (time bucket x key bucket) laid out as a
//! heatmap of at most `max_rows` key ranges by the time buckets seen, for one metric (reads,
//! writes or bytes); key labels split into hierarchy levels on `#`, `/` and `:`; hot rows
//! marked; and for a hover, the range, the counters and the tablet.
//!
//! Invariants: rows are contiguous, sorted, non-overlapping ranges of the key buckets that
//! have any access, each holding about the same number of key buckets (so a run of hot keys
//! keeps its own rows); the sum of all cells equals the metric's total over the input.

use alloc::string::String;
use alloc::vec::Vec;

use sparsetable::{AccessCounters, AccessStat, TabletInfo};

/// What a heatmap counts: the metric families of Google's Key Visualizer ("Key Visualizer
/// metrics", cloud.google.com/bigtable/docs/keyvis-metrics: Ops, rows read and written, read
/// and write bytes, CPU), from the engine's access statistics. CPU is the engine's stand-in
/// for CPU time, the work `Database::hot_tablets` (ListHotTablets) counts too: rows and cells
/// its reads visited plus the row mutations it applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Metric {
    /// Operations: rows read plus row mutations (Key Visualizer's Ops).
    Ops,
    /// Rows read.
    Reads,
    /// Row mutations (rows written).
    #[default]
    Writes,
    /// Bytes read.
    ReadBytes,
    /// Bytes written.
    WriteBytes,
    /// Bytes read plus bytes written.
    Bytes,
    /// Work: rows and cells visited by reads plus row mutations (the CPU stand-in).
    Cpu,
}

impl Metric {
    /// The counter this metric takes.
    pub fn of(self, c: &AccessCounters) -> u64 {
        match self {
            Metric::Ops => c.reads + c.writes,
            Metric::Reads => c.reads,
            Metric::Writes => c.writes,
            Metric::ReadBytes => c.bytes_read,
            Metric::WriteBytes => c.bytes_written,
            Metric::Bytes => c.bytes_read + c.bytes_written,
            Metric::Cpu => work(c),
        }
    }

    /// Every metric, for the picker.
    pub const ALL: [Metric; 7] = [
        Metric::Ops,
        Metric::Writes,
        Metric::Reads,
        Metric::WriteBytes,
        Metric::ReadBytes,
        Metric::Bytes,
        Metric::Cpu,
    ];

    /// Its id (test ids, the picker).
    pub fn name(self) -> &'static str {
        match self {
            Metric::Ops => "ops",
            Metric::Reads => "reads",
            Metric::Writes => "writes",
            Metric::ReadBytes => "read-bytes",
            Metric::WriteBytes => "write-bytes",
            Metric::Bytes => "bytes",
            Metric::Cpu => "cpu",
        }
    }

    /// Its label, with its unit.
    pub fn label(self) -> &'static str {
        match self {
            Metric::Ops => "ops",
            Metric::Reads => "rows read",
            Metric::Writes => "rows written",
            Metric::ReadBytes => "read bytes",
            Metric::WriteBytes => "write bytes",
            Metric::Bytes => "bytes",
            Metric::Cpu => "CPU (work units)",
        }
    }
}

/// The engine's CPU stand-in for some counters (as `Database::hot_tablets` counts it).
pub fn work(c: &AccessCounters) -> u64 {
    c.rows_scanned + c.cells_scanned + c.writes
}

/// One row of the heatmap: a key range and its value per time bucket.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HeatRow {
    /// First key bucket of the range.
    pub start: Vec<u8>,
    /// Last key bucket of the range (inclusive).
    pub last: Vec<u8>,
    /// The label's hierarchy levels (of `start`).
    pub levels: Vec<String>,
    /// The metric per time bucket, aligned with [`Heatmap::times`].
    pub cells: Vec<u64>,
    /// Every counter of the range per time bucket (for the hover).
    #[serde(with = "crate::wire::counters")]
    pub counters: Vec<AccessCounters>,
    /// Per time bucket: this range took most of that second's traffic (a hotspot).
    pub hot_cells: Vec<bool>,
    /// Some cell of the row is hot.
    pub hot: bool,
}

/// The heatmap.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Heatmap {
    /// Time bucket starts, ascending.
    pub times: Vec<i64>,
    /// Key ranges, ascending.
    pub rows: Vec<HeatRow>,
    /// The largest cell (for colouring); 0 for an empty map.
    pub max: u64,
    /// The metric's total.
    pub total: u64,
    /// The most key rows any one time bucket touched: a hot band touches few, a spread
    /// workload many.
    pub widest_time: usize,
}

/// A key split on `#`, `/` and `:` into hierarchy levels (`STC#22#173` -> `STC`, `22`,
/// `173`), as Key Visualizer labels its rows.
pub fn key_levels(key: &[u8]) -> Vec<String> {
    key.split(|&c| c == b'#' || c == b'/' || c == b':')
        .map(crate::state::display_bytes)
        .collect()
}

/// A cell is hot when its range took more than 1/`HOT_FACTOR` of its time bucket's traffic
/// (with at least 3 rows, so that an even split of a tiny map is not a hotspot).
pub const HOT_FACTOR: u64 = 2;

/// Lays `stats` out as a heatmap of `metric`, merging key buckets into at most `max_rows`.
pub fn build(stats: &[AccessStat], metric: Metric, max_rows: usize) -> Heatmap {
    let mut times: Vec<i64> = stats.iter().map(|s| s.time_bucket_micros).collect();
    times.sort_unstable();
    times.dedup();
    let mut keys: Vec<&[u8]> = stats.iter().map(|s| s.key_bucket.as_slice()).collect();
    keys.sort_unstable();
    keys.dedup();
    if keys.is_empty() {
        return Heatmap {
            times,
            ..Heatmap::default()
        };
    }
    let groups = max_rows.max(1).min(keys.len());
    // Key bucket i goes to row i * groups / len: equal numbers of buckets per row.
    let row_of = |key: &[u8]| -> usize {
        let i = keys.partition_point(|k| *k < key);
        i * groups / keys.len()
    };
    let mut rows: Vec<HeatRow> = (0..groups)
        .map(|_| HeatRow {
            start: Vec::new(),
            last: Vec::new(),
            levels: Vec::new(),
            cells: alloc::vec![0; times.len()],
            counters: alloc::vec![AccessCounters::default(); times.len()],
            hot_cells: alloc::vec![false; times.len()],
            hot: false,
        })
        .collect();
    for (i, k) in keys.iter().enumerate() {
        let r = &mut rows[i * groups / keys.len()];
        if r.start.is_empty() && r.last.is_empty() {
            r.start = k.to_vec();
        }
        r.last = k.to_vec();
    }
    for s in stats {
        let t = times.partition_point(|&x| x < s.time_bucket_micros);
        let row = &mut rows[row_of(&s.key_bucket)];
        row.cells[t] += metric.of(&s.counters);
        add(&mut row.counters[t], &s.counters);
    }
    let total: u64 = rows.iter().flat_map(|r| r.cells.iter()).sum();
    let max = rows
        .iter()
        .flat_map(|r| r.cells.iter())
        .copied()
        .max()
        .unwrap_or(0);
    let column_totals: Vec<u64> = (0..times.len())
        .map(|t| rows.iter().map(|r| r.cells[t]).sum())
        .collect();
    let widest_time = (0..times.len())
        .map(|t| rows.iter().filter(|r| r.cells[t] > 0).count())
        .max()
        .unwrap_or(0);
    let many = rows.len() >= 3;
    for r in &mut rows {
        r.levels = key_levels(&r.start);
        for (t, &col) in column_totals.iter().enumerate() {
            r.hot_cells[t] = many && col > 0 && r.cells[t] * HOT_FACTOR > col;
        }
        r.hot = r.hot_cells.iter().any(|&h| h);
    }
    Heatmap {
        times,
        rows,
        max,
        total,
        widest_time,
    }
}

fn add(a: &mut AccessCounters, b: &AccessCounters) {
    a.reads += b.reads;
    a.writes += b.writes;
    a.rows_scanned += b.rows_scanned;
    a.cells_scanned += b.cells_scanned;
    a.bytes_read += b.bytes_read;
    a.bytes_written += b.bytes_written;
}

/// The tablet holding `key` (tablets cover the key space in order).
pub fn tablet_of<'a>(tablets: &'a [TabletInfo], key: &[u8]) -> Option<&'a TabletInfo> {
    tablets.iter().rev().find(|t| t.start_key.as_slice() <= key)
}

/// The labels to print beside each row: a level is shown only where it differs from the row
/// above (the hierarchy reads like an outline, as Key Visualizer's does).
pub fn outline_labels<'a>(rows: impl IntoIterator<Item = &'a HeatRow>) -> Vec<String> {
    let mut out = Vec::new();
    let mut prev: &[String] = &[];
    for r in rows {
        let same = r
            .levels
            .iter()
            .zip(prev.iter())
            .take_while(|(a, b)| a == b)
            .count();
        let shown: Vec<&str> = r.levels.iter().map(String::as_str).collect();
        let label = if same == 0 || same >= shown.len() {
            shown.join(" › ")
        } else {
            format!("{}{}", "  ".repeat(same), shown[same..].join(" › "))
        };
        out.push(label);
        prev = &r.levels;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(t: i64, key: &str, writes: u64, reads: u64) -> AccessStat {
        AccessStat {
            time_bucket_micros: t,
            key_bucket: key.as_bytes().to_vec(),
            counters: AccessCounters {
                writes,
                reads,
                bytes_written: writes * 10,
                bytes_read: reads * 5,
                ..AccessCounters::default()
            },
        }
    }

    #[test]
    fn buckets_merge_into_rows_and_keep_totals() {
        let mut stats = Vec::new();
        for k in 0..100 {
            stats.push(stat(1_000_000, &format!("k{k:03}"), 1, 0));
        }
        stats.push(stat(2_000_000, "k099", 50, 3));
        let h = build(&stats, Metric::Writes, 10);
        assert_eq!(h.times, [1_000_000, 2_000_000]);
        assert_eq!(h.rows.len(), 10);
        assert_eq!(h.total, 150);
        assert_eq!(
            h.rows
                .iter()
                .map(|r| r.cells.iter().sum::<u64>())
                .sum::<u64>(),
            150
        );
        assert_eq!(h.rows[0].start, b"k000");
        assert_eq!(h.rows[0].last, b"k009");
        assert_eq!(h.rows[9].cells, [10, 50]);
        assert_eq!(h.max, 50);
        // In the second bucket one row took every write: hot there; the first bucket is even.
        assert!(h.rows[9].hot);
        assert_eq!(h.rows[9].hot_cells, [false, true]);
        assert!(h.rows[..9].iter().all(|r| !r.hot));
        assert_eq!(h.widest_time, 10);
        assert_eq!(build(&stats, Metric::Reads, 10).total, 3);
        assert_eq!(build(&stats, Metric::Bytes, 10).total, 1500 + 15);
    }

    #[test]
    fn fewer_keys_than_rows_give_one_row_each_and_empty_input_an_empty_map() {
        let stats = [stat(0, "b", 1, 0), stat(0, "a", 1, 0)];
        let h = build(&stats, Metric::Writes, 32);
        assert_eq!(h.rows.len(), 2);
        assert_eq!(h.rows[0].start, b"a");
        assert!(
            h.rows.iter().all(|r| !r.hot),
            "two rows are too few for a hotspot"
        );
        let band: Vec<AccessStat> = (0..6).map(|k| stat(k, &format!("k{k}"), 5, 0)).collect();
        let h = build(&band, Metric::Writes, 8);
        assert!(
            h.rows.iter().all(|r| r.hot),
            "a moving band is hot in each of its seconds"
        );
        assert_eq!(h.widest_time, 1);
        assert_eq!(build(&[], Metric::Writes, 8), Heatmap::default());
    }

    #[test]
    fn labels_split_into_levels_and_outline() {
        assert_eq!(key_levels(b"STC#22#173"), ["STC", "22", "173"]);
        assert_eq!(
            key_levels(b"PRODUCT#42/99/en"),
            ["PRODUCT", "42", "99", "en"]
        );
        assert_eq!(key_levels(b"asia:india"), ["asia", "india"]);
        let stats = [
            stat(0, "STC#22#1", 1, 0),
            stat(0, "STC#22#2", 1, 0),
            stat(0, "STC#23#1", 1, 0),
        ];
        let h = build(&stats, Metric::Writes, 8);
        assert_eq!(
            outline_labels(&h.rows),
            ["STC › 22 › 1", "    2", "  23 › 1"]
        );
    }

    #[test]
    fn a_key_maps_to_its_tablet() {
        let t = |id, start: &str| TabletInfo {
            id,
            start_key: start.as_bytes().to_vec(),
            end_key: Vec::new(),
            size_bytes: 0,
            runs: 0,
            memtable_bytes: 0,
        };
        let tablets = [t(1, ""), t(2, "m"), t(3, "t")];
        assert_eq!(tablet_of(&tablets, b"a").map(|t| t.id), Some(1));
        assert_eq!(tablet_of(&tablets, b"m").map(|t| t.id), Some(2));
        assert_eq!(tablet_of(&tablets, b"zz").map(|t| t.id), Some(3));
    }
}
