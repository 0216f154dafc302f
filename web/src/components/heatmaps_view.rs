//! The Key Visualizer tab, growing toward Google's (cloud.google.com/bigtable/docs:
//! "Key Visualizer overview", "…metrics", "…diagnostic messages"): a picker of metric
//! families (ops, rows written and read, write and read bytes, CPU), every lane's heatmap at
//! full size with its time axis, colour legend and diagnostic messages, drill-down into a key
//! range (click a row, or pick it from the list) and back, and the hot tablets of the last
//! minute as ListHotTablets returns them.

use web_sys::HtmlSelectElement;
use yew::prelude::*;

use super::heatmap::HeatmapView;
use crate::lab::heatmap::Metric;
use crate::lab::keyvis::{KeyZoom, Severity};
use crate::lab::{LabAction, LabView};
use crate::state::{display_bytes, Action};

/// Props of [`HeatmapsView`].
#[derive(Properties, PartialEq)]
pub struct HeatmapsViewProps {
    /// The lab's views.
    pub lab: LabView,
    /// Receives lab actions.
    pub on_action: Callback<Action>,
}

/// The Key Visualizer tab.
#[function_component(HeatmapsView)]
pub fn heatmaps_view(props: &HeatmapsViewProps) -> Html {
    let lab = &props.lab;
    let zoom_to = {
        let on_action = props.on_action.clone();
        Callback::from(move |z: KeyZoom| on_action.emit(Action::Lab(LabAction::Zoom(Some(z)))))
    };
    let unzoom = {
        let on_action = props.on_action.clone();
        Callback::from(move |_| on_action.emit(Action::Lab(LabAction::Zoom(None))))
    };
    html! {
        <div class="heatmaps-view" data-testid="heatmaps-view">
            <div class="tabs" role="group" aria-label="Metric">
                { for Metric::ALL.iter().map(|&m| {
                    let on_action = props.on_action.clone();
                    let onclick = Callback::from(move |_| on_action.emit(Action::Lab(LabAction::SetMetric(m))));
                    html! {
                        <button type="button" class={classes!("tab", (lab.metric == m).then_some("active"))}
                            aria-pressed={(lab.metric == m).to_string()}
                            data-testid={format!("metric-{}", m.name())} {onclick}>{ m.label() }</button>
                    }
                }) }
            </div>
            <p class="muted">{ "Time runs left to right (one column per second, UTC), keys top to bottom, labelled by their #, / and : levels. Outlined cells took more than half of their second's traffic. Click a row to drill into its keys." }</p>
            if let Some(z) = &lab.zoom {
                <p class="zoom" data-testid="heat-zoom">
                    { format!("{}: showing keys {} … {} ", z.table, display_bytes(&z.start), display_bytes(&z.last)) }
                    <button type="button" class="ghost" data-testid="heat-unzoom" onclick={unzoom}>{ "Back to every key" }</button>
                </p>
            }
            { for lab.lanes.iter().map(|lane| {
                let pick = {
                    let (zoom_to, rows, table) = (zoom_to.clone(), lane.heatmap.rows.clone(), lane.table.clone());
                    Callback::from(move |e: Event| {
                        let i = e.target_unchecked_into::<HtmlSelectElement>().value();
                        if let Some(r) = i.parse::<usize>().ok().and_then(|i| rows.get(i)) {
                            zoom_to.emit(KeyZoom { table: table.clone(), start: r.start.clone(), last: r.last.clone() });
                        }
                    })
                };
                html! {
                    <div class="card">
                        <h2>{ &lane.table }<span class="muted">{ format!(" · {} · {} {}", lane.design, lane.heatmap.total, lab.metric.label()) }</span></h2>
                        if !lane.diagnostics.is_empty() {
                            <ul class="diagnostics" data-testid="heat-diagnostics">
                                { for lane.diagnostics.iter().map(|d| {
                                    let (class, icon) = match d.severity {
                                        Severity::Info => ("info", "ℹ"),
                                        Severity::Warning => ("warning", "⚠"),
                                        Severity::Danger => ("danger", "⛔"),
                                    };
                                    html! {
                                        <li class={class} data-testid="heat-diagnostic" data-severity={class}>
                                            <span aria-hidden="true">{ icon }</span>{ " " }<strong>{ &d.title }</strong>{ ": " }{ &d.detail }
                                        </li>
                                    }
                                }) }
                            </ul>
                        }
                        <HeatmapView lane={lane.clone()} cell={14} metric={Some(AttrValue::from(lab.metric.label()))} on_zoom={zoom_to.clone()} />
                        if lane.heatmap.rows.len() > 1 {
                            <label class="field small"><span>{ "Drill into keys" }</span>
                                <select data-testid="heat-drill" onchange={pick}>
                                    <option value="" selected=true>{ "choose a range…" }</option>
                                    { for lane.heatmap.rows.iter().enumerate().map(|(i, r)| html! {
                                        <option value={i.to_string()}>{ format!("{} … {}", display_bytes(&r.start), display_bytes(&r.last)) }</option>
                                    }) }
                                </select></label>
                        }
                    </div>
                }
            }) }
            <div class="card" data-testid="hot-tablets">
                <h2>{ "Hot tablets" }<span class="muted">{ " · the last minute, as ListHotTablets answers" }</span></h2>
                if lab.hot_tablets.is_empty() {
                    <p class="muted">{ "No tablet did 5 % or more of the work in the last minute." }</p>
                } else {
                    <table class="hot-tablets">
                        <thead><tr><th scope="col">{ "table" }</th><th scope="col">{ "start key" }</th><th scope="col">{ "end key" }</th><th scope="col">{ "CPU share" }</th></tr></thead>
                        <tbody>
                            { for lab.hot_tablets.iter().map(|t| html! {
                                <tr data-testid="hot-tablet">
                                    <td>{ &t.table }</td>
                                    <td><code>{ if t.start.is_empty() { "(start)".to_string() } else { t.start.clone() } }</code></td>
                                    <td><code>{ if t.end.is_empty() { "(end)".to_string() } else { t.end.clone() } }</code></td>
                                    <td>{ format!("{}.{} %", t.share_permille / 10, t.share_permille % 10) }</td>
                                </tr>
                            }) }
                        </tbody>
                    </table>
                }
            </div>
        </div>
    }
}
