//! The Key Visualizer tab: a metric picker (writes, reads, bytes) and every lane's heatmap
//! at full size.

use yew::prelude::*;

use super::heatmap::HeatmapView;
use crate::lab::heatmap::Metric;
use crate::lab::{LabAction, LabView};
use crate::state::Action;

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
    html! {
        <div class="heatmaps-view" data-testid="heatmaps-view">
            <div class="tabs">
                { for Metric::ALL.iter().map(|&m| {
                    let on_action = props.on_action.clone();
                    let onclick = Callback::from(move |_| on_action.emit(Action::Lab(LabAction::SetMetric(m))));
                    html! {
                        <button type="button" class={classes!("tab", (props.lab.metric == m).then_some("active"))}
                            data-testid={format!("metric-{}", m.name())} {onclick}>{ m.name() }</button>
                    }
                }) }
            </div>
            <p class="muted">{ "Time runs left to right (one column per second), keys top to bottom, labelled by their #, / and : levels. Outlined rows take more than twice an even share." }</p>
            { for props.lab.lanes.iter().map(|lane| html! {
                <div class="card">
                    <h2>{ &lane.table }<span class="muted">{ format!(" · {} · {} {}", lane.design, lane.heatmap.total, props.lab.metric.name()) }</span></h2>
                    <HeatmapView lane={lane.clone()} cell={14} />
                </div>
            }) }
        </div>
    }
}
