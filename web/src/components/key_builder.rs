//! The key builder: designs A and B assembled from segments (entity, zero-padded sequence,
//! timestamp, reversed timestamp, salt bucket, reversed domain, literal text), a live preview
//! of sample keys in the order Bigtable stores them (with the order they were written in),
//! the warnings `key_warnings` raises, a box to check any key, and "run A/B" to put both
//! designs under the same load side by side.

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::lab::keys::{key_warnings, sample_records, sorted_preview, KeyDesign, Segment};
use crate::lab::{LabAction, LabView};
use crate::state::{display_bytes, Action};

/// Props of [`KeyBuilder`].
#[derive(Properties, PartialEq)]
pub struct KeyBuilderProps {
    /// The lab's views (designs A and B).
    pub lab: LabView,
    /// Receives lab actions.
    pub on_action: Callback<Action>,
}

/// A segment from the picker's kind and parameter.
fn segment(kind: &str, param: &str) -> Option<Segment> {
    let n = param.trim().parse::<u32>().ok();
    Some(match kind {
        "entity" => Segment::Entity,
        "seq" => Segment::Seq {
            width: n.unwrap_or(8) as usize,
        },
        "timestamp" => Segment::Timestamp,
        "reverse-ts" => Segment::ReverseTimestamp,
        "salt" => Segment::Salt {
            buckets: n.unwrap_or(8).max(1),
        },
        "domain" => Segment::ReverseDomain(if param.is_empty() {
            "maps.google.com".into()
        } else {
            param.into()
        }),
        "literal" if !param.is_empty() => Segment::Literal(param.into()),
        _ => return None,
    })
}

/// The key builder.
#[function_component(KeyBuilder)]
pub fn key_builder(props: &KeyBuilderProps) -> Html {
    let slot = use_state(|| 0usize);
    let kind = use_state(|| "entity".to_string());
    let param = use_state(String::new);
    let probe = use_state(|| "1700000000123#sensor-07".to_string());
    let design = props.lab.designs[*slot].clone();
    let emit = {
        let (on_action, slot) = (props.on_action.clone(), *slot);
        move |design: KeyDesign| on_action.emit(Action::Lab(LabAction::SetDesign { slot, design }))
    };
    let records = sample_records(12, 4, 1_700_000_000_000_000);
    let preview = sorted_preview(&design, &records);
    let warnings = key_warnings(&design.key(&records[0]));

    let add = {
        let (design, kind, param, emit) =
            (design.clone(), kind.clone(), param.clone(), emit.clone());
        Callback::from(move |_| {
            if let Some(s) = segment(&kind, &param) {
                let mut next = design.clone();
                next.segments.push(s);
                next.name = next
                    .segments
                    .iter()
                    .map(Segment::label)
                    .collect::<Vec<_>>()
                    .join(" + ");
                emit(next);
            }
        })
    };
    let on_kind = {
        let kind = kind.clone();
        Callback::from(move |e: Event| {
            kind.set(e.target_unchecked_into::<HtmlInputElement>().value())
        })
    };
    let on_param = {
        let param = param.clone();
        Callback::from(move |e: InputEvent| {
            param.set(e.target_unchecked_into::<HtmlInputElement>().value())
        })
    };
    let on_sep = {
        let (design, emit) = (design.clone(), emit.clone());
        Callback::from(move |e: InputEvent| {
            let mut next = design.clone();
            next.separator = e.target_unchecked_into::<HtmlInputElement>().value();
            emit(next);
        })
    };
    let on_probe = {
        let probe = probe.clone();
        Callback::from(move |e: InputEvent| {
            probe.set(e.target_unchecked_into::<HtmlInputElement>().value())
        })
    };
    let run_ab = {
        let on_action = props.on_action.clone();
        Callback::from(move |_| on_action.emit(Action::Lab(LabAction::RunScenario("ab".into()))))
    };
    let probe_warnings = key_warnings(probe.as_bytes());

    html! {
        <div class="key-builder" data-testid="key-builder">
            <div class="tabs">
                { for [0usize, 1].iter().map(|&i| {
                    let s = slot.clone();
                    html! {
                        <button type="button" class={classes!("tab", (*slot == i).then_some("active"))}
                            data-testid={format!("design-{}", if i == 0 { "a" } else { "b" })}
                            onclick={Callback::from(move |_| s.set(i))}>
                            { format!("Design {}: {}", if i == 0 { "A" } else { "B" }, props.lab.designs[i].name) }
                        </button>
                    }
                }) }
            </div>
            <div class="card">
                <h2>{ "Segments" }</h2>
                <div class="chips">
                    { for design.segments.iter().enumerate().map(|(i, s)| {
                        let (design, emit) = (design.clone(), emit.clone());
                        let remove = Callback::from(move |_| {
                            let mut next = design.clone();
                            next.segments.remove(i);
                            if !next.segments.is_empty() {
                                next.name = next.segments.iter().map(Segment::label).collect::<Vec<_>>().join(" + ");
                                emit(next);
                            }
                        });
                        html! { <span class="chip" data-testid="segment">{ s.label() }
                            <button type="button" class="ghost" aria-label="remove segment" onclick={remove}>{ "×" }</button></span> }
                    }) }
                </div>
                <div class="load-row">
                    <label class="field small"><span>{ "Add" }</span>
                        <select data-testid="segment-kind" onchange={on_kind}>
                            <option value="entity" selected={*kind == "entity"}>{ "entity (promote a field)" }</option>
                            <option value="seq">{ "sequence, zero-padded to N" }</option>
                            <option value="timestamp">{ "timestamp" }</option>
                            <option value="reverse-ts">{ "reverse timestamp" }</option>
                            <option value="salt">{ "salt into N buckets" }</option>
                            <option value="domain">{ "reversed domain" }</option>
                            <option value="literal">{ "literal text" }</option>
                        </select></label>
                    <label class="field small"><span>{ "N / text" }</span>
                        <input type="text" data-testid="segment-param" value={(*param).clone()} oninput={on_param} /></label>
                    <button type="button" data-testid="segment-add" onclick={add}>{ "Add segment" }</button>
                    <label class="field small"><span>{ "Separator" }</span>
                        <input type="text" value={design.separator.clone()} oninput={on_sep} /></label>
                    { for KeyDesign::presets().into_iter().map(|p| {
                        let emit = emit.clone();
                        let name = p.name.clone();
                        html! { <button type="button" class="ghost" onclick={Callback::from(move |_| emit(p.clone()))}>{ name }</button> }
                    }) }
                </div>
                <ul class="warnings" data-testid="design-warnings">
                    { for warnings.iter().map(|w| html! { <li data-warning={w.id()}>{ format!("⚠ This design's keys {}", w.message()) }</li> }) }
                </ul>
            </div>
            <div class="card">
                <h2>{ "Sort-order preview " }<span class="muted">{ "sample records as Bigtable stores them; # is the order they were written in" }</span></h2>
                <ol class="preview" data-testid="key-preview">
                    { for preview.iter().map(|(k, i)| html! { <li><code>{ display_bytes(k) }</code>{ format!("  #{}", i + 1) }</li> }) }
                </ol>
                <button type="button" data-testid="run-ab" onclick={run_ab}>{ "Run A/B: both designs under the same load" }</button>
            </div>
            <div class="card">
                <h2>{ "Check a row key" }</h2>
                <input type="text" data-testid="key-probe" aria-label="row key to check" value={(*probe).clone()} oninput={on_probe} />
                <ul class="warnings" data-testid="probe-warnings">
                    { for probe_warnings.iter().map(|w| html! { <li data-warning={w.id()}>{ format!("⚠ This key {}", w.message()) }</li> }) }
                    if probe_warnings.is_empty() { <li class="ok">{ "No warnings." }</li> }
                </ul>
            </div>
        </div>
    }
}
