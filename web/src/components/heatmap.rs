//! The Key Visualizer: one lane's heatmap as SVG, time left to right (a UTC time axis below)
//! and key ranges top to bottom, labelled by the hierarchy levels of their keys; hot rows are
//! outlined, a hover shows the range, its counters in that second and the tablet holding it,
//! a click drills into the range, and a colour legend maps colours to the metric's values.
//! The keyboard does what the mouse does: the map is in the tab order, arrow keys (Home, End)
//! move a cursor over the cells and show the same text as a hover (read out politely), and
//! Enter or Space drills into the cursor's range.

use core::fmt::Write as _;

use yew::prelude::*;

use crate::lab::heatmap::outline_labels;
use crate::lab::keyvis::{time_label, KeyZoom};
use crate::lab::LaneView;
use crate::state::display_bytes;

/// Props of [`HeatmapView`].
#[derive(Properties, PartialEq)]
pub struct HeatmapProps {
    /// The lane to draw.
    pub lane: LaneView,
    /// Cell size in pixels.
    #[prop_or(12)]
    pub cell: u32,
    /// The metric's label, for the legend (none: no legend or time axis, as in the small
    /// maps beside the tablet maps).
    #[prop_or_default]
    pub metric: Option<AttrValue>,
    /// Called with the key range of a clicked row (drill-down).
    #[prop_or_default]
    pub on_zoom: Option<Callback<KeyZoom>>,
}

/// The height of the time axis under the cells.
const AXIS_H: u32 = 18;

/// Colour levels a cell's share of the maximum is rounded to (level 0: no traffic).
const LEVELS: u32 = 40;

/// The level, 0 to [`LEVELS`], of `v` of `max`: the square root of the share, so that cold
/// ranges beside one hot range still show.
fn level(v: u64, max: u64) -> u32 {
    if v == 0 || max == 0 {
        return 0;
    }
    let f = (v as f64 / max as f64).sqrt();
    ((f * f64::from(LEVELS)).ceil() as u32).clamp(1, LEVELS)
}

/// A level's colour, from cold (pale) to hot (dark red).
fn colour(level: u32) -> String {
    if level == 0 {
        return "#f1f3f6".into();
    }
    let f = f64::from(level) / f64::from(LEVELS);
    let light = 92.0 - f * 60.0;
    let hue = 50.0 - f * 50.0;
    format!("hsl({hue:.0},90%,{light:.0}%)")
}

/// The hover text of one cell: its key range, its counters in that second and its tablet.
fn cell_text(lane: &LaneView, ri: usize, ti: usize) -> Option<String> {
    let row = lane.heatmap.rows.get(ri)?;
    let c = row.counters.get(ti)?;
    // The tablet holding the range's first key (tablets cover keys in order).
    let tablet = lane
        .tablets
        .iter()
        .rev()
        .find(|t| t.start.as_slice() <= row.start.as_slice())
        .map_or(0, |t| t.id);
    Some(format!(
        "keys {} … {}\nsecond {}: {} writes, {} reads, {} B written, {} B read\ntablet {}",
        display_bytes(&row.start),
        display_bytes(&row.last),
        ti + 1,
        c.writes,
        c.reads,
        c.bytes_written,
        c.bytes_read,
        tablet
    ))
}

/// One lane's heatmap.
///
/// The cells are drawn as one SVG `<path>` per colour level, each a list of squares, and one
/// `mousemove` listener on the SVG finds the cell under the pointer from its position; the
/// hover panel formats that cell's text then. (A `<rect>` with a `<title>` and a listener per
/// cell made thousands of nodes and closures to rebuild on every tick of the load generator:
/// most of a tick's time in the browser went there.)
#[function_component(HeatmapView)]
pub fn heatmap_view(props: &HeatmapProps) -> Html {
    let hover = use_state(|| None::<(usize, usize)>);
    let lane = &props.lane;
    let h = &lane.heatmap;
    let cell = props.cell;
    let label_w = 150u32;
    let width = label_w + cell * h.times.len().max(1) as u32;
    let axis = props.metric.is_some();
    let cells_h = cell * h.rows.len().max(1) as u32;
    let height = cells_h + if axis { AXIS_H } else { 0 };
    // A label every `every` columns, at least 64 px apart.
    let every = 64u32.div_ceil(cell).max(1) as usize;
    // A key label every `row_every` rows, at least 10 px apart (the labels are 9 px high):
    // with small cells every row's label would print over its neighbours'. The outline
    // (a label shows only what differs from the one above) is over the labelled rows.
    let row_every = 10u32.div_ceil(cell).max(1) as usize;
    let labels = outline_labels(h.rows.iter().step_by(row_every));
    let hot_rows = h.rows.iter().filter(|r| r.hot).count();
    let mut paths = vec![String::new(); LEVELS as usize + 1];
    for (ri, row) in h.rows.iter().enumerate() {
        for (ti, &v) in row.cells.iter().enumerate() {
            let (x, y, side) = (label_w + ti as u32 * cell, ri as u32 * cell, cell - 1);
            let d = &mut paths[level(v, h.max) as usize];
            let _ = write!(d, "M{x} {y}h{side}v{side}h-{side}z");
        }
    }
    // Yew delegates events to its root, so the event's current target is not the SVG: the
    // cell is found from the SVG's own box.
    let svg_ref = use_node_ref();
    let onmousemove = {
        let (hover, rows, times) = (hover.clone(), h.rows.len(), h.times.len());
        let svg_ref = svg_ref.clone();
        Callback::from(move |e: MouseEvent| {
            let Some(svg) = svg_ref.cast::<web_sys::Element>() else {
                return;
            };
            let bounds = svg.get_bounding_client_rect();
            let x = f64::from(e.client_x()) - bounds.left() - f64::from(label_w);
            let y = f64::from(e.client_y()) - bounds.top();
            let (t, r) = (x / f64::from(cell), y / f64::from(cell));
            if x >= 0.0 && y >= 0.0 && (t as usize) < times && (r as usize) < rows {
                hover.set(Some((r as usize, t as usize)));
            }
        })
    };
    // Drills into the range of the row under the cursor (a click's or the keyboard's).
    let zoom = {
        let (hover, on_zoom, rows, table) = (
            hover.clone(),
            props.on_zoom.clone(),
            h.rows.clone(),
            lane.table.clone(),
        );
        move || {
            if let (Some((r, _)), Some(on_zoom)) = (*hover, on_zoom.as_ref()) {
                if let Some(row) = rows.get(r) {
                    on_zoom.emit(KeyZoom {
                        table: table.clone(),
                        start: row.start.clone(),
                        last: row.last.clone(),
                    });
                }
            }
        }
    };
    let onclick = {
        let zoom = zoom.clone();
        Callback::from(move |_: MouseEvent| zoom())
    };
    let onkeydown = {
        let (hover, rows, times) = (hover.clone(), h.rows.len(), h.times.len());
        Callback::from(move |e: KeyboardEvent| {
            if rows == 0 || times == 0 {
                return;
            }
            let key = e.key();
            if key == "Enter" || key == " " {
                e.prevent_default();
                zoom();
                return;
            }
            // Any other key (Tab above all) keeps its usual meaning.
            if !matches!(
                key.as_str(),
                "ArrowUp" | "ArrowDown" | "ArrowLeft" | "ArrowRight" | "Home" | "End"
            ) {
                return;
            }
            e.prevent_default();
            // The first key shows the newest second of the first row; later ones move.
            let Some((r, t)) = *hover else {
                hover.set(Some((0, times - 1)));
                return;
            };
            let (r, t) = (r.min(rows - 1), t.min(times - 1));
            hover.set(Some(match key.as_str() {
                "ArrowUp" => (r.saturating_sub(1), t),
                "ArrowDown" => ((r + 1).min(rows - 1), t),
                "ArrowLeft" => (r, t.saturating_sub(1)),
                "ArrowRight" => (r, (t + 1).min(times - 1)),
                "Home" => (r, 0),
                _ => (r, times - 1),
            }));
        })
    };
    let keys_hint = if props.on_zoom.is_some() {
        "arrow keys move over the cells, Enter drills into a row's keys"
    } else {
        "arrow keys move over the cells"
    };
    let legend = props.metric.as_ref().map(|m| {
        let stops: Vec<String> = (0..=4).map(|i| colour(i * LEVELS / 4)).collect();
        html! {
            <div class="heat-legend" data-testid="heat-legend">
                <span>{ "0" }</span>
                <span class="heat-scale" aria-hidden="true"
                    style={format!("background: linear-gradient(to right, {})", stops.join(", "))}></span>
                <span>{ format!("{} {} in one second, the largest cell (colour: square root of its share)", h.max, m) }</span>
            </div>
        }
    });
    let hover_text = (*hover)
        .and_then(|(r, t)| cell_text(lane, r, t))
        .unwrap_or_else(|| "Hover a cell: key range, operations, tablet.".into());
    html! {
        <div class="heatmap" data-testid="heatmap" data-table={lane.table.clone()}
            data-hot-rows={hot_rows.to_string()} data-rows={h.rows.len().to_string()}
            data-times={h.times.len().to_string()} data-total={h.total.to_string()}
            data-widest={h.widest_time.to_string()}>
            if h.rows.is_empty() {
                <p class="hint">{ "No traffic yet: run some load." }</p>
            } else {
                <svg width={width.to_string()} height={height.to_string()} role="img" tabindex="0"
                    aria-label={format!("heatmap of {}: {keys_hint}", lane.table)} {onmousemove} {onclick} {onkeydown} ref={svg_ref}>
                    { for labels.iter().zip(h.rows.iter().enumerate().step_by(row_every)).map(|(label, (ri, row))| html! {
                        <text x="0" y={(ri as u32 * cell + cell - 3).to_string()} class={classes!("heat-label", row.hot.then_some("hot"))}>{ label.clone() }</text>
                    }) }
                    { for paths.into_iter().enumerate().filter(|(_, d)| !d.is_empty()).map(|(l, d)| html! {
                        <path key={l} class="heat-cells" data-level={l.to_string()} fill={colour(l as u32)} {d} />
                    }) }
                    { for h.rows.iter().enumerate().flat_map(|(ri, row)| {
                        row.hot_cells.iter().enumerate().filter(|(_, h)| **h).map(move |(ti, _)| html! {
                            <rect class="hot-outline" x={(label_w + ti as u32 * cell).to_string()} y={(ri as u32 * cell).to_string()}
                                width={(cell - 1).to_string()} height={(cell - 1).to_string()} />
                        })
                    }) }
                    if let Some((r, t)) = (*hover).filter(|&(r, t)| r < h.rows.len() && t < h.times.len()) {
                        <rect class="heat-cursor" data-testid="heat-cursor" x={(label_w + t as u32 * cell).to_string()}
                            y={(r as u32 * cell).to_string()} width={(cell - 1).to_string()} height={(cell - 1).to_string()} />
                    }
                    if axis {
                        <g class="heat-axis" data-testid="heat-time-axis">
                            { for h.times.iter().enumerate().filter(|(t, _)| t % every == 0).map(|(t, &micros)| html! {
                                <text x={(label_w + t as u32 * cell).to_string()} y={(cells_h + AXIS_H - 4).to_string()}
                                    class="heat-time">{ time_label(micros) }</text>
                            }) }
                        </g>
                    }
                </svg>
                { for legend }
                <pre class="heat-hover" data-testid="heat-hover" aria-live="polite">{ hover_text }</pre>
            }
        </div>
    }
}
