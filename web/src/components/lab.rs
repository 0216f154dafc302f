//! The lab panel: tabs for the scenarios (lanes side by side), the tablets (thresholds, maps,
//! event log), the Key Visualizer heatmaps, the console and the key builder.

use yew::prelude::*;

use super::console::ConsoleView;
use super::heatmaps_view::HeatmapsView;
use super::key_builder::KeyBuilder;
use super::scenarios::ScenariosView;
use super::tablets_view::TabletsView;
use crate::lab::LabView;
use crate::state::Action;

/// Props of [`LabPanel`].
#[derive(Properties, PartialEq)]
pub struct LabPanelProps {
    /// The lab's views.
    pub lab: LabView,
    /// The tablet event log.
    pub events: Vec<crate::lab::tablets::EventLine>,
    /// Every table's name (console completion).
    pub tables: Vec<String>,
    /// Receives actions.
    pub on_action: Callback<Action>,
}

const TABS: [(&str, &str); 6] = [
    ("scenarios", "Scenarios"),
    ("replication", "Replication"),
    ("tablets", "Tablets"),
    ("heatmap", "Key Visualizer"),
    ("console", "Console"),
    ("keys", "Key builder"),
];

/// The lab panel.
#[function_component(LabPanel)]
pub fn lab_panel(props: &LabPanelProps) -> Html {
    let tab = use_state(|| "scenarios");
    {
        // Starting the replication lesson (from the first screen, say) shows it.
        let tab = tab.clone();
        use_effect_with(props.lab.replication.is_some(), move |started| {
            if *started {
                tab.set("replication");
            }
        });
    }
    let body = match *tab {
        "replication" => {
            html! { <super::replication::ReplicationView view={props.lab.replication.clone()} on_action={props.on_action.clone()} /> }
        }
        "tablets" => {
            html! { <TabletsView lab={props.lab.clone()} events={props.events.clone()} on_action={props.on_action.clone()} /> }
        }
        "heatmap" => {
            html! { <HeatmapsView lab={props.lab.clone()} on_action={props.on_action.clone()} /> }
        }
        "console" => {
            html! { <ConsoleView entries={props.lab.console.clone()} tables={props.tables.clone()}
            files={props.lab.files.clone()} on_action={props.on_action.clone()} /> }
        }
        "keys" => {
            html! { <KeyBuilder lab={props.lab.clone()} on_action={props.on_action.clone()} /> }
        }
        _ => {
            html! { <ScenariosView lab={props.lab.clone()} on_action={props.on_action.clone()} /> }
        }
    };
    html! {
        // Named, so the lab is a region landmark of its own (axe-core: all content in landmarks).
        <section class="lab" data-testid="lab" aria-label="Lab">
            <nav class="tabs lab-tabs" aria-label="Lab views">
                { for TABS.iter().map(|&(id, label)| {
                    let t = tab.clone();
                    html! {
                        <button type="button" class={classes!("tab", (*tab == id).then_some("active"))}
                            data-testid={format!("lab-tab-{id}")} onclick={Callback::from(move |_| t.set(id))}>{ label }</button>
                    }
                }) }
            </nav>
            { body }
        </section>
    }
}
