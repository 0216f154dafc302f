//! The Key Visualizer around the heatmap: the diagnostic messages Google's Key Visualizer
//! shows above a heatmap, computed from the engine's access statistics; readable time labels
//! for the time axis; drill-down into a key range; and the hot tablets
//! `Database::hot_tablets` returns (the server's ListHotTablets).
//!
//! The messages and their rules, from Google's "Key Visualizer diagnostic messages"
//! (cloud.google.com/bigtable/docs/keyvis-diagnostics) and "Key Visualizer metrics"
//! (…/keyvis-metrics), in our words:
//! - **High read pressure / High write pressure**: some key ranges took a heavy share of
//!   reads (writes). Google's pressure index mixes CPU and latency, which the engine does not
//!   measure; here a range is under pressure when, in some second, it took more than half of
//!   that second's reads (writes) and at least [`PRESSURE_MIN_OPS`] of them (the heatmap's
//!   hot cells). The message is a warning, or "danger" when the range is a single key bucket
//!   (individual rows rather than a range, as Google marks it).
//! - **Large rows**: a row holds more than 256 MB, or the rows of a range average more than
//!   200 MB (Google's thresholds); checked against the sizes the lab wrote.
//! - **No data scanned**: no statistics at all for the table.
//! - **Key space not to scale**: fewer key buckets than heatmap rows, so the rows cannot each
//!   hold an even share of the key space (Google shows it for tables with few rows).
//!
//! Invariants: pure functions of their inputs; a zoomed heatmap counts exactly the stats
//! whose key buckets lie in the range.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use sparsetable::{AccessStat, Database};

use super::heatmap::{build, Metric};
use super::RowSizes;
use crate::state::display_bytes;

/// The least reads (writes) in one second for a range's share to count as pressure.
pub const PRESSURE_MIN_OPS: u64 = 50;
/// Google's large-row threshold for one row.
pub const LARGE_ROW_BYTES: u64 = 256 * 1000 * 1000;
/// Google's large-row threshold for a range's average row.
pub const LARGE_AVERAGE_BYTES: u64 = 200 * 1000 * 1000;
/// The least share of the work a tablet shown as hot did (ListHotTablets' filter).
pub const HOT_MIN_SHARE_PERCENT: f32 = 5.0;
/// How many hot tablets the panel shows.
pub const HOT_SHOWN: usize = 8;
/// The window the hot-tablets panel asks about: the last minute of the clock.
pub const HOT_WINDOW_MICROS: i64 = 60_000_000;

/// How serious a diagnostic is (Google's icons).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Severity {
    /// Information about the data shown.
    Info,
    /// A range may perform poorly.
    Warning,
    /// Individual rows perform poorly.
    Danger,
}

/// One diagnostic message above a heatmap.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Diagnostic {
    /// Google's title ("High read pressure").
    pub title: String,
    /// Its severity.
    pub severity: Severity,
    /// What was found.
    pub detail: String,
}

/// A key range of one table to drill into: first and last key bucket, inclusive.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct KeyZoom {
    /// The table whose heatmap is drilled into (the others stay whole).
    pub table: String,
    /// The first key bucket.
    pub start: Vec<u8>,
    /// The last key bucket.
    pub last: Vec<u8>,
}

/// A hot tablet as the panel shows it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HotTabletView {
    /// Its table.
    pub table: String,
    /// Its first key (displayed; empty: the table's start).
    pub start: String,
    /// The key after its last (displayed; empty: the table's end).
    pub end: String,
    /// Its share of the work in the window, in tenths of a percent.
    pub share_permille: u32,
}

/// `micros` since the epoch as a UTC time of day, `HH:MM:SS`: the time axis's labels.
pub fn time_label(micros: i64) -> String {
    let secs = micros.div_euclid(1_000_000).rem_euclid(86_400);
    format!("{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
}

/// The stats of `table` whose key buckets lie in `zoom` (all of them without one, or with
/// one for another table).
pub fn zoomed(table: &str, stats: Vec<AccessStat>, zoom: Option<&KeyZoom>) -> Vec<AccessStat> {
    match zoom.filter(|z| z.table == table) {
        None => stats,
        Some(z) => stats
            .into_iter()
            .filter(|s| s.key_bucket >= z.start && s.key_bucket <= z.last)
            .collect(),
    }
}

/// The diagnostics for a table's `stats` drawn in `rows` heatmap rows, with the sizes of the
/// `table_rows` rows the lab wrote (see the module docs for the rules).
pub fn diagnostics(
    stats: &[AccessStat],
    sizes: &RowSizes,
    table_rows: usize,
    rows: usize,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if stats.is_empty() {
        out.push(Diagnostic {
            title: "No data scanned".into(),
            severity: Severity::Info,
            detail: "No reads or writes were recorded for this table yet.".into(),
        });
        return out;
    }
    for (metric, title, what) in [
        (Metric::Reads, "High read pressure", "reads"),
        (Metric::Writes, "High write pressure", "writes"),
    ] {
        let h = build(stats, metric, rows);
        let mut worst: Option<(usize, usize, u64, u64)> = None;
        for (ri, r) in h.rows.iter().enumerate() {
            for (ti, &hot) in r.hot_cells.iter().enumerate() {
                let v = r.cells[ti];
                let col: u64 = h.rows.iter().map(|x| x.cells[ti]).sum();
                if hot && v >= PRESSURE_MIN_OPS && worst.is_none_or(|w| v > w.2) {
                    worst = Some((ri, ti, v, col));
                }
            }
        }
        if let Some((ri, ti, v, col)) = worst {
            let r = &h.rows[ri];
            let single = r.start == r.last;
            out.push(Diagnostic {
                title: title.into(),
                severity: if single {
                    Severity::Danger
                } else {
                    Severity::Warning
                },
                detail: format!(
                    "keys {} … {} took {} of {} {what} ({}%) in the second from {}{}",
                    display_bytes(&r.start),
                    display_bytes(&r.last),
                    v,
                    col,
                    v * 100 / col.max(1),
                    time_label(h.times[ti]),
                    if single {
                        ": individual rows, not a range"
                    } else {
                        ""
                    }
                ),
            });
        }
    }
    let average = sizes.total_bytes / (table_rows as u64).max(1);
    if sizes.largest_bytes > LARGE_ROW_BYTES || average > LARGE_AVERAGE_BYTES {
        out.push(Diagnostic {
            title: "Large rows".into(),
            severity: Severity::Danger,
            detail: format!(
                "the largest row holds {} bytes (Bigtable's limit: 256 MB; Key Visualizer warns past 256 MB per row or 200 MB on average)",
                sizes.largest_bytes
            ),
        });
    }
    let mut buckets: Vec<&[u8]> = stats.iter().map(|s| s.key_bucket.as_slice()).collect();
    buckets.sort_unstable();
    buckets.dedup();
    if buckets.len() < rows {
        out.push(Diagnostic {
            title: "Key space not to scale".into(),
            severity: Severity::Info,
            detail: format!(
                "{} key buckets cannot fill {rows} rows evenly: each row is one bucket",
                buckets.len()
            ),
        });
    }
    out
}

/// The busiest tablets that did at least [`HOT_MIN_SHARE_PERCENT`] of the work in the last
/// minute of the clock, at most [`HOT_SHOWN`]: `Database::hot_tablets`, as ListHotTablets
/// answers (busiest first; the panel keeps the head so that each update stays small).
pub fn hot_tablets(db: &Database) -> Vec<HotTabletView> {
    let now = db.now_micros();
    db.hot_tablets(now - HOT_WINDOW_MICROS, now + 1, HOT_MIN_SHARE_PERCENT)
        .unwrap_or_default()
        .into_iter()
        .take(HOT_SHOWN)
        .map(|h| HotTabletView {
            table: h.table_id,
            start: display_bytes(&h.start_key),
            end: display_bytes(&h.end_key),
            share_permille: (h.cpu_share_percent * 10.0).round() as u32,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparsetable::AccessCounters;

    fn stat(t: i64, key: &str, writes: u64, reads: u64) -> AccessStat {
        AccessStat {
            time_bucket_micros: t,
            key_bucket: key.as_bytes().to_vec(),
            counters: AccessCounters {
                writes,
                reads,
                ..AccessCounters::default()
            },
        }
    }

    #[test]
    fn time_labels_are_utc_times_of_day() {
        assert_eq!(time_label(0), "00:00:00");
        assert_eq!(time_label(1_700_000_000_000_000), "22:13:20");
        assert_eq!(time_label(86_399_999_999), "23:59:59");
    }

    #[test]
    fn one_hot_key_is_danger_a_hot_range_a_warning_and_even_load_nothing() {
        let mut stats: Vec<AccessStat> = (0..30)
            .map(|k| stat(1_000_000, &format!("k{k:02}"), 10, 0))
            .collect();
        let sizes = RowSizes::default();
        let d = diagnostics(&stats, &sizes, 30, 30);
        assert!(d.is_empty(), "{d:?}");
        stats.push(stat(2_000_000, "k07", 500, 0));
        let d = diagnostics(&stats, &sizes, 30, 30);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].title, "High write pressure");
        assert_eq!(d[0].severity, Severity::Danger);
        assert!(d[0].detail.contains("k07"), "{}", d[0].detail);
        // Drawn in 10 rows, the key is one of a range of three buckets: a warning.
        let d = diagnostics(&stats, &sizes, 30, 10);
        assert_eq!(d[0].severity, Severity::Warning);
        // Reads alike, and below the minimum nothing is reported.
        let reads = [stat(0, "a", 0, 60), stat(0, "b", 0, 1), stat(0, "c", 0, 1)];
        assert_eq!(
            diagnostics(&reads, &sizes, 3, 3)[0].title,
            "High read pressure"
        );
        let few = [stat(0, "a", 0, 10), stat(0, "b", 0, 1), stat(0, "c", 0, 1)];
        assert!(diagnostics(&few, &sizes, 3, 3).is_empty());
    }

    #[test]
    fn empty_small_and_large_tables_get_their_messages() {
        let sizes = RowSizes::default();
        assert_eq!(diagnostics(&[], &sizes, 0, 24)[0].title, "No data scanned");
        let small = [stat(0, "a", 1, 0), stat(0, "b", 1, 0)];
        assert_eq!(
            diagnostics(&small, &sizes, 2, 24)[0].title,
            "Key space not to scale"
        );
        let large = RowSizes {
            largest_bytes: LARGE_ROW_BYTES + 1,
            largest_cells: 1,
            total_bytes: LARGE_ROW_BYTES + 1,
            total_cells: 1,
        };
        assert!(diagnostics(&small, &large, 1, 2)
            .iter()
            .any(|d| d.title == "Large rows" && d.severity == Severity::Danger));
    }

    #[test]
    fn a_zoom_keeps_exactly_its_key_buckets() {
        let stats = alloc::vec![stat(0, "a", 1, 0), stat(0, "b", 2, 0), stat(0, "c", 4, 0)];
        let z = KeyZoom {
            table: "t".into(),
            start: b"b".to_vec(),
            last: b"c".to_vec(),
        };
        let kept = zoomed("t", stats.clone(), Some(&z));
        assert_eq!(zoomed("other", stats.clone(), Some(&z)).len(), 3);
        assert_eq!(kept.len(), 2);
        assert_eq!(build(&kept, Metric::Writes, 8).total, 6);
        assert_eq!(zoomed("t", stats, None).len(), 3);
    }
}
