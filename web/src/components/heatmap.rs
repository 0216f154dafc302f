//! The Key Visualizer: one lane's heatmap as SVG, time left to right and key ranges top to
//! bottom, labelled by the hierarchy levels of their keys; hot rows are outlined and a hover
//! shows the range, its counters in that second and the tablet holding it.

use yew::prelude::*;

use crate::lab::heatmap::outline_labels;
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
}

/// A colour from cold (pale) to hot (dark red) for `v` of `max`.
fn colour(v: u64, max: u64) -> String {
    if v == 0 || max == 0 {
        return "#f1f3f6".into();
    }
    let f = (v as f64 / max as f64).sqrt();
    let light = 92.0 - f * 60.0;
    let hue = 50.0 - f * 50.0;
    format!("hsl({hue:.0},90%,{light:.0}%)")
}

/// One lane's heatmap.
#[function_component(HeatmapView)]
pub fn heatmap_view(props: &HeatmapProps) -> Html {
    let hover = use_state(|| None::<String>);
    let lane = &props.lane;
    let h = &lane.heatmap;
    let cell = props.cell;
    let label_w = 150u32;
    let width = label_w + cell * h.times.len().max(1) as u32;
    let height = cell * h.rows.len().max(1) as u32;
    let labels = outline_labels(&h.rows);
    let hot_rows = h.rows.iter().filter(|r| r.hot).count();
    html! {
        <div class="heatmap" data-testid="heatmap" data-table={lane.table.clone()}
            data-hot-rows={hot_rows.to_string()} data-rows={h.rows.len().to_string()}
            data-times={h.times.len().to_string()} data-total={h.total.to_string()}
            data-widest={h.widest_time.to_string()}>
            if h.rows.is_empty() {
                <p class="hint">{ "No traffic yet: run some load." }</p>
            } else {
                <svg width={width.to_string()} height={height.to_string()} role="img"
                    aria-label={format!("heatmap of {}", lane.table)}>
                    { for h.rows.iter().enumerate().map(|(ri, row)| {
                        let y = ri as u32 * cell;
                        // The tablet holding the range's first key (tablets cover keys in order).
                        let tablet = lane.tablets.iter().rev()
                            .find(|t| t.start.as_slice() <= row.start.as_slice())
                            .map_or(0, |t| t.id);
                        html! {
                            <g>
                                <text x="0" y={(y + cell - 3).to_string()} class={classes!("heat-label", row.hot.then_some("hot"))}>{ labels[ri].clone() }</text>
                                { for row.cells.iter().enumerate().map(|(ti, &v)| {
                                    let c = row.counters[ti];
                                    let text = format!(
                                        "keys {} … {}\nsecond {}: {} writes, {} reads, {} B written, {} B read\ntablet {}",
                                        display_bytes(&row.start), display_bytes(&row.last), ti + 1,
                                        c.writes, c.reads, c.bytes_written, c.bytes_read, tablet
                                    );
                                    let onmouseenter = {
                                        let (hover, text) = (hover.clone(), text.clone());
                                        Callback::from(move |_| hover.set(Some(text.clone())))
                                    };
                                    html! {
                                        <rect x={(label_w + ti as u32 * cell).to_string()} y={y.to_string()}
                                            width={(cell - 1).to_string()} height={(cell - 1).to_string()}
                                            fill={colour(v, h.max)} {onmouseenter}>
                                            <title>{ text }</title>
                                        </rect>
                                    }
                                }) }
                                { for row.hot_cells.iter().enumerate().filter(|(_, h)| **h).map(|(ti, _)| html! {
                                    <rect class="hot-outline" x={(label_w + ti as u32 * cell).to_string()} y={y.to_string()}
                                        width={(cell - 1).to_string()} height={(cell - 1).to_string()} />
                                }) }
                            </g>
                        }
                    }) }
                </svg>
                <pre class="heat-hover" data-testid="heat-hover">
                    { (*hover).clone().unwrap_or_else(|| "Hover a cell: key range, operations, tablet.".into()) }
                </pre>
            }
        </div>
    }
}
