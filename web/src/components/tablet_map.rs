//! The tablet map: one lane's key space as a bar divided into its tablets (width by bytes
//! held), each showing its memtable and runs; hovering a tablet names its range, size, rows,
//! memtable and runs. Widths animate (CSS transitions) as tablets grow, split and merge.
//! Hundreds of tablets (the lab's small thresholds split a 100,000-row table about 400 times)
//! still fit the bar: a tablet may be one pixel wide, and draws nothing outside itself.

use yew::prelude::*;

use crate::lab::tablets::kib;
use crate::lab::LaneView;
use crate::state::display_bytes;

/// Props of [`TabletMap`].
#[derive(Properties, PartialEq)]
pub struct TabletMapProps {
    /// The lane to draw.
    pub lane: LaneView,
}

fn bound(key: &[u8], empty: &str) -> String {
    if key.is_empty() {
        empty.to_string()
    } else {
        display_bytes(key)
    }
}

/// One lane's tablets as a bar.
#[function_component(TabletMap)]
pub fn tablet_map(props: &TabletMapProps) -> Html {
    let lane = &props.lane;
    let total: u64 = lane
        .tablets
        .iter()
        .map(|t| t.size_bytes)
        .sum::<u64>()
        .max(1);
    let hottest = lane
        .tablets
        .iter()
        .map(|t| t.recent_writes)
        .max()
        .unwrap_or(0);
    html! {
        <div class="tablet-map" data-testid="tablet-map" data-table={lane.table.clone()}
            data-tablets={lane.tablets.len().to_string()} data-splits={lane.splits.to_string()}>
            <div class="tablet-bar" role="list" aria-label={format!("tablets of {}", lane.table)}>
                { for lane.tablets.iter().map(|t| {
                    // At least a sliver, so an empty tablet is still visible.
                    let grow = (t.size_bytes * 1000 / total).max(12);
                    let mem = (t.memtable_bytes * 100).checked_div(t.size_bytes).unwrap_or(0);
                    let hot = hottest > 0 && t.recent_writes == hottest;
                    let title = format!(
                        "tablet {} [{}, {})\n{} · {} rows · memtable {} · {} runs · {} recent writes",
                        t.id, bound(&t.start, "−∞"), bound(&t.end, "+∞"), kib(t.size_bytes), t.rows,
                        kib(t.memtable_bytes), t.runs, t.recent_writes
                    );
                    html! {
                        <div class={classes!("tablet", hot.then_some("hot"))} role="listitem" data-testid="tablet"
                            style={format!("flex-grow:{grow}")} title={title}>
                            <div class="mem" style={format!("height:{mem}%")}></div>
                            <div class="runs">{ for (0..t.runs.min(8)).map(|_| html!{ <span class="run"></span> }) }</div>
                            // The count shows only where it fits whole: the label is one line
                            // high and wraps (see style.css), so a count too wide for its
                            // tablet moves to a hidden second line rather than being cut or
                            // drawn over the next tablet; " rows" goes first. The empty span
                            // holds the first line, so even the count itself can wrap away.
                            <span class="tablet-label"><span></span><span>{ t.rows }</span><span>{ " rows" }</span></span>
                        </div>
                    }
                }) }
            </div>
            <div class="tablet-keys">
                <span>{ "−∞" }</span>
                <span class="muted">{ format!("{} tablets · {} splits · {} merges · {} rows", lane.tablets.len(), lane.splits, lane.merges, lane.rows) }</span>
                <span>{ "+∞" }</span>
            </div>
        </div>
    }
}
