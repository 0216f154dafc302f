//! The tablets tab: the thresholds the lanes' tables split, flush and merge at (shown and
//! adjustable at run time), every lane's tablet map, and the event log of flushes,
//! compactions, splits and merges, newest first.

use web_sys::HtmlInputElement;
use yew::prelude::*;

use super::tablet_map::TabletMap;
use crate::lab::{LabAction, LabView};
use crate::state::Action;
use sparsetable::TabletOptions;

/// Props of [`TabletsView`].
#[derive(Properties, PartialEq)]
pub struct TabletsViewProps {
    /// The lab's views.
    pub lab: LabView,
    /// The tablet event log.
    pub events: Vec<crate::lab::tablets::EventLine>,
    /// Receives lab actions.
    pub on_action: Callback<Action>,
}

/// The tablets tab.
#[function_component(TabletsView)]
pub fn tablets_view(props: &TabletsViewProps) -> Html {
    let draft = use_state(|| props.lab.thresholds);
    let field = |label: &str, id: &str, value: u64, set: fn(&mut TabletOptions, u64)| {
        let draft = draft.clone();
        let oninput = Callback::from(move |e: InputEvent| {
            if let Ok(v) = e
                .target_unchecked_into::<HtmlInputElement>()
                .value()
                .parse::<u64>()
            {
                let mut next = *draft;
                set(&mut next, v);
                draft.set(next);
            }
        });
        html! {
            <label class="field small"><span>{ label.to_string() }</span>
                <input type="number" min="0" data-testid={id.to_string()} value={value.to_string()} {oninput} /></label>
        }
    };
    let apply = {
        let (draft, on_action) = (draft.clone(), props.on_action.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            on_action.emit(Action::Lab(LabAction::SetThresholds(*draft)));
        })
    };
    let compact = {
        let on_action = props.on_action.clone();
        Callback::from(move |_: MouseEvent| on_action.emit(Action::Lab(LabAction::Compact)))
    };
    let t = *draft;
    html! {
        <div class="tablets-view" data-testid="tablets-view">
            <form class="card thresholds" onsubmit={apply} data-testid="thresholds">
                <h2>{ "Thresholds " }<span class="muted">{ format!("in effect: memtable {} B, split {} B, merge {} B, load split {} ops/s",
                    props.lab.thresholds.memtable_bytes, props.lab.thresholds.split_bytes,
                    props.lab.thresholds.merge_bytes, props.lab.thresholds.split_load_ops) }</span></h2>
                <div class="load-row">
                    { field("memtable bytes (flush)", "th-memtable", t.memtable_bytes, |o, v| o.memtable_bytes = v) }
                    { field("split bytes", "th-split", t.split_bytes, |o, v| o.split_bytes = v) }
                    { field("merge bytes (cold neighbours)", "th-merge", t.merge_bytes, |o, v| o.merge_bytes = v) }
                    { field("load split (ops per second)", "th-load", t.split_load_ops, |o, v| o.split_load_ops = v) }
                    { field("max overlapping runs", "th-runs", t.max_runs as u64, |o, v| o.max_runs = v as usize) }
                    <button type="submit" data-testid="th-apply">{ "Apply to the lanes' tables" }</button>
                    <button type="button" data-testid="compact" onclick={compact}
                        title="Rewrite every tablet now; small cold neighbours under the merge threshold merge">
                        { "Compact now" }</button>
                </div>
            </form>
            { for props.lab.lanes.iter().map(|lane| html! {
                <div class="card">
                    <h2>{ &lane.table }<span class="muted">{ format!(" · {}", lane.design) }</span></h2>
                    <TabletMap lane={lane.clone()} />
                </div>
            }) }
            <div class="card events" data-testid="event-log">
                <h2>{ "Event log" }</h2>
                // Scrolls when long: focusable so the keyboard can scroll it.
                <ol reversed=true tabindex="0" aria-label="Events, newest first">
                    { for props.events.iter().rev().take(80).map(|e| html! {
                        <li class={classes!("event", e.kind.clone())} data-kind={e.kind.clone()}>
                            <span class="kind">{ &e.kind }</span>{ " " }<code>{ &e.table }</code>{ " " }{ &e.text }
                        </li>
                    }) }
                </ol>
            </div>
        </div>
    }
}
