//! The tablet map's data: a table's tablets in key order with their sizes, memtable, runs
//! and row counts, the hotspot score (the hottest tablet's share of recent writes), and the
//! event log's lines for flushes, compactions, splits and merges.
//!
//! Everything is computed from `Database::tablets` and `take_tablet_events` (neither counts
//! as a read) plus the keys the lab itself wrote; nothing here reads rows.

use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;

use sparsetable::{TabletEvent, TabletEventKind, TabletInfo};

use crate::state::display_bytes;

/// One tablet as the map draws it (short field names: a lane of a few hundred tablets is
/// sent to the page after every write to its table).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TabletView {
    /// The tablet's id.
    #[serde(rename = "i")]
    pub id: u64,
    /// Inclusive start key (empty: the beginning).
    #[serde(rename = "s", with = "crate::wire::bytes")]
    pub start: Vec<u8>,
    /// Exclusive end key (empty: the end).
    #[serde(rename = "e", with = "crate::wire::bytes")]
    pub end: Vec<u8>,
    /// Bytes held.
    #[serde(rename = "b")]
    pub size_bytes: u64,
    /// Of which in the memtable.
    #[serde(rename = "m")]
    pub memtable_bytes: u64,
    /// Immutable runs (the LSM's sorted files).
    #[serde(rename = "r")]
    pub runs: usize,
    /// Rows the lab wrote that fall in the tablet.
    #[serde(rename = "n")]
    pub rows: usize,
    /// Recent writes that fell in the tablet.
    #[serde(rename = "w")]
    pub recent_writes: u64,
}

/// Lays out `tablets` with row counts from `keys` (the rows written) and recent-write
/// counts from `recent` (the latest written keys).
pub fn tablet_views(
    tablets: &[TabletInfo],
    keys: &BTreeSet<Vec<u8>>,
    recent: &[Vec<u8>],
) -> Vec<TabletView> {
    let counts = recent_counts(tablets, recent);
    tablets
        .iter()
        .zip(counts)
        .map(|(t, recent_writes)| {
            let rows = if t.end_key.is_empty() {
                keys.range(t.start_key.clone()..).count()
            } else {
                keys.range(t.start_key.clone()..t.end_key.clone()).count()
            };
            TabletView {
                id: t.id,
                start: t.start_key.clone(),
                end: t.end_key.clone(),
                size_bytes: t.size_bytes,
                memtable_bytes: t.memtable_bytes,
                runs: t.runs,
                rows,
                recent_writes,
            }
        })
        .collect()
}

/// How many of `recent` fall in each tablet.
fn recent_counts(tablets: &[TabletInfo], recent: &[Vec<u8>]) -> Vec<u64> {
    let mut counts = alloc::vec![0u64; tablets.len()];
    for key in recent {
        let i = tablets
            .partition_point(|t| t.start_key.as_slice() <= key.as_slice())
            .saturating_sub(1);
        if let Some(c) = counts.get_mut(i) {
            *c += 1;
        }
    }
    counts
}

/// The hotspot score in per mille: the hottest tablet's share of the recent writes (1000:
/// one tablet takes every write; 1000 / n: n tablets share them evenly). 0 with no writes.
pub fn hotspot_permille(views: &[TabletView]) -> u32 {
    let total: u64 = views.iter().map(|v| v.recent_writes).sum();
    let hottest = views.iter().map(|v| v.recent_writes).max().unwrap_or(0);
    (hottest * 1000).checked_div(total).unwrap_or(0) as u32
}

/// One line of the event log.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EventLine {
    /// The table.
    pub table: String,
    /// `flush`, `compaction`, `split` or `merge`.
    pub kind: String,
    /// What changed, in words.
    pub text: String,
}

fn range_text(t: &TabletInfo) -> String {
    let start = if t.start_key.is_empty() {
        "−∞".into()
    } else {
        display_bytes(&t.start_key)
    };
    let end = if t.end_key.is_empty() {
        "+∞".into()
    } else {
        display_bytes(&t.end_key)
    };
    format!("[{start}, {end})")
}

/// Human-readable KiB.
pub fn kib(bytes: u64) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    }
}

/// Describes one tablet event.
pub fn event_line(e: &TabletEvent) -> EventLine {
    let (kind, text) = match e.kind {
        TabletEventKind::Flush => (
            "flush",
            match e.after.first() {
                Some(t) => format!(
                    "tablet {} {}: memtable written as a run ({} runs, {})",
                    t.id,
                    range_text(t),
                    t.runs,
                    kib(t.size_bytes)
                ),
                None => "memtable flushed".into(),
            },
        ),
        TabletEventKind::Compaction => (
            "compaction",
            match (e.before.first(), e.after.first()) {
                (Some(b), Some(a)) => format!(
                    "tablet {}: {} runs merged into {} ({} → {})",
                    a.id,
                    b.runs,
                    a.runs,
                    kib(b.size_bytes),
                    kib(a.size_bytes)
                ),
                _ => "runs merged".into(),
            },
        ),
        TabletEventKind::Split => (
            "split",
            format!(
                "{} ({}) split into {}",
                e.before.first().map(range_text).unwrap_or_default(),
                e.before
                    .first()
                    .map(|t| kib(t.size_bytes))
                    .unwrap_or_default(),
                e.after
                    .iter()
                    .map(|t| format!("{} {}", range_text(t), kib(t.size_bytes)))
                    .collect::<Vec<_>>()
                    .join(" + ")
            ),
        ),
        TabletEventKind::Merge => (
            "merge",
            format!(
                "cold neighbours {} merged into {}",
                e.before
                    .iter()
                    .map(range_text)
                    .collect::<Vec<_>>()
                    .join(" + "),
                e.after.first().map(range_text).unwrap_or_default()
            ),
        ),
    };
    EventLine {
        table: e.table.clone(),
        kind: kind.into(),
        text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(id: u64, start: &str, end: &str) -> TabletInfo {
        TabletInfo {
            id,
            start_key: start.as_bytes().to_vec(),
            end_key: end.as_bytes().to_vec(),
            size_bytes: 100,
            runs: 1,
            memtable_bytes: 10,
        }
    }

    #[test]
    fn rows_and_recent_writes_fall_in_their_tablets() {
        let tablets = [t(1, "", "g"), t(2, "g", "p"), t(3, "p", "")];
        let keys: BTreeSet<Vec<u8>> = ["a", "b", "g", "h", "z"]
            .iter()
            .map(|k| k.as_bytes().to_vec())
            .collect();
        let recent: Vec<Vec<u8>> = ["z", "y", "x", "a"]
            .iter()
            .map(|k| k.as_bytes().to_vec())
            .collect();
        let v = tablet_views(&tablets, &keys, &recent);
        assert_eq!(v.iter().map(|t| t.rows).collect::<Vec<_>>(), [2, 2, 1]);
        assert_eq!(
            v.iter().map(|t| t.recent_writes).collect::<Vec<_>>(),
            [1, 0, 3]
        );
        assert_eq!(hotspot_permille(&v), 750);
    }

    #[test]
    fn hotspot_score_is_the_hottest_share() {
        let tablets = [t(1, "", "m"), t(2, "m", "")];
        let even: Vec<Vec<u8>> = ["a", "n", "b", "o"]
            .iter()
            .map(|k| k.as_bytes().to_vec())
            .collect();
        let keys = BTreeSet::new();
        assert_eq!(hotspot_permille(&tablet_views(&tablets, &keys, &even)), 500);
        assert_eq!(hotspot_permille(&tablet_views(&tablets, &keys, &[])), 0);
        let one = alloc::vec![b"z".to_vec(); 5];
        assert_eq!(hotspot_permille(&tablet_views(&tablets, &keys, &one)), 1000);
    }

    #[test]
    fn events_read_as_sentences() {
        let e = TabletEvent {
            table: "t".into(),
            kind: TabletEventKind::Split,
            before: alloc::vec![t(1, "", "")],
            after: alloc::vec![t(1, "", "m"), t(2, "m", "")],
        };
        let line = event_line(&e);
        assert_eq!(line.kind, "split");
        assert_eq!(
            line.text,
            "[−∞, +∞) (100 B) split into [−∞, m) 100 B + [m, +∞) 100 B"
        );
    }
}
