//! The query panel: row keys, ranges, a prefix, reversed, a limit and a filter built with the
//! filter builder; "Run" reads the selected table with exactly that request. The answer
//! shows as rows (also highlighted in the grid), an explain table and the same read as code.

use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

use super::code_tabs::CodeTabs;
use super::explain::ExplainView;
use super::filter_builder::filter_editor;
use crate::query::{QuerySpec, RangeSpec};
use crate::state::{display_bytes, Action, QueryResult};

/// Props of [`QueryPanel`].
#[derive(Properties, PartialEq)]
pub struct QueryPanelProps {
    /// The selected table.
    pub table: Option<String>,
    /// The last answer.
    pub result: Option<QueryResult>,
    /// A read the form should take on (the filter mirroring the GC rules).
    #[prop_or_default]
    pub preset: Option<QuerySpec>,
    /// Receives `RunQuery`.
    pub on_action: Callback<Action>,
}

/// The panel.
#[function_component(QueryPanel)]
pub fn query_panel(props: &QueryPanelProps) -> Html {
    // The draft lives here: typing re-renders the form only, and nothing is read until Run.
    let spec = use_state(|| props.preset.clone().unwrap_or_default());
    {
        // A read asked for elsewhere (the mirroring filter) replaces the draft.
        let spec = spec.clone();
        use_effect_with(props.preset.clone(), move |preset| {
            if let Some(p) = preset {
                spec.set(p.clone());
            }
        });
    }
    let update = |f: fn(&mut QuerySpec, String)| {
        let spec = spec.clone();
        Callback::from(move |v: String| {
            let mut s = (*spec).clone();
            f(&mut s, v);
            spec.set(s);
        })
    };
    let input = |cb: Callback<String>| {
        Callback::from(move |e: InputEvent| {
            cb.emit(e.target_unchecked_into::<HtmlInputElement>().value())
        })
    };
    let on_keys = {
        let cb = update(|s, v| s.row_keys = v.lines().map(str::to_string).collect());
        Callback::from(move |e: InputEvent| {
            cb.emit(e.target_unchecked_into::<HtmlTextAreaElement>().value())
        })
    };
    let on_reversed = {
        let spec = spec.clone();
        Callback::from(move |e: Event| {
            let mut s = (*spec).clone();
            s.reversed = e.target_unchecked_into::<HtmlInputElement>().checked();
            spec.set(s);
        })
    };
    let on_filter = {
        let spec = spec.clone();
        Callback::from(move |f| {
            let mut s = (*spec).clone();
            s.filter = f;
            spec.set(s);
        })
    };
    let add_range = {
        let spec = spec.clone();
        Callback::from(move |_| {
            let mut s = (*spec).clone();
            s.ranges.push(RangeSpec {
                start_closed: true,
                ..RangeSpec::default()
            });
            spec.set(s);
        })
    };
    let onsubmit = {
        let (spec, on_action) = (spec.clone(), props.on_action.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            on_action.emit(Action::RunQuery((*spec).clone()));
        })
    };
    let range_editor = |i: usize, r: &RangeSpec| {
        let set = |f: fn(&mut RangeSpec, String)| {
            let spec = spec.clone();
            Callback::from(move |v: String| {
                let mut s = (*spec).clone();
                f(&mut s.ranges[i], v);
                spec.set(s);
            })
        };
        let check = |f: fn(&mut RangeSpec, bool)| {
            let spec = spec.clone();
            Callback::from(move |e: Event| {
                let mut s = (*spec).clone();
                f(
                    &mut s.ranges[i],
                    e.target_unchecked_into::<HtmlInputElement>().checked(),
                );
                spec.set(s);
            })
        };
        let remove = {
            let spec = spec.clone();
            Callback::from(move |_| {
                let mut s = (*spec).clone();
                s.ranges.remove(i);
                spec.set(s);
            })
        };
        html! {
            <div class="range" data-testid="q-range">
                <label class="inline">{ "start" }<input type="text" value={r.start.clone()} oninput={input(set(|r, v| r.start = v))} data-testid={format!("q-range-{i}-start")} /></label>
                <label class="inline"><input type="checkbox" checked={r.start_closed} onchange={check(|r, v| r.start_closed = v)} />{ "inclusive" }</label>
                <label class="inline">{ "end" }<input type="text" value={r.end.clone()} oninput={input(set(|r, v| r.end = v))} data-testid={format!("q-range-{i}-end")} /></label>
                <label class="inline"><input type="checkbox" checked={r.end_closed} onchange={check(|r, v| r.end_closed = v)} />{ "inclusive" }</label>
                <button type="button" class="ghost" onclick={remove} aria-label="Remove this range">{ "Remove" }</button>
            </div>
        }
    };

    html! {
        <div class="query-view">
            <form class="card query-form" data-testid="query-form" {onsubmit}>
                <h2>{ "Read rows" }
                    if let Some(t) = &props.table { <span class="muted">{ format!(" from {t}") }</span> }
                </h2>
                <div class="query-grid">
                    <label class="field">
                        <span>{ "Row keys (one per line)" }</span>
                        <textarea rows="3" value={spec.row_keys.join("\n")} oninput={on_keys} data-testid="q-keys" />
                    </label>
                    <div class="field">
                        <span>{ "Row ranges" }</span>
                        { for spec.ranges.iter().enumerate().map(|(i, r)| range_editor(i, r)) }
                        <button type="button" class="ghost" onclick={add_range} data-testid="q-add-range">{ "Add range" }</button>
                    </div>
                    <label class="field">
                        <span>{ "Prefix" }</span>
                        <input type="text" value={spec.prefix.clone()} oninput={input(update(|s, v| s.prefix = v))} data-testid="q-prefix" />
                    </label>
                    <label class="field">
                        <span>{ "Limit (0: none)" }</span>
                        <input type="number" min="0" value={spec.limit.to_string()} data-testid="q-limit"
                            oninput={input(update(|s, v| s.limit = v.trim().parse().unwrap_or(-1)))} />
                    </label>
                    <label class="inline">
                        <input type="checkbox" checked={spec.reversed} onchange={on_reversed} data-testid="q-reversed" />
                        { "Reversed" }
                    </label>
                </div>
                <fieldset class="filter-builder" data-testid="filter-builder">
                    <legend>{ "Filter" }</legend>
                    { filter_editor(&spec.filter, on_filter, "f") }
                </fieldset>
                <button type="submit" data-testid="q-run" disabled={props.table.is_none()}>{ "Run" }</button>
            </form>
            if let Some(q) = &props.result {
                <section class="card results" data-testid="q-results"
                    data-request={sparsetable::json::to_string(&q.request).unwrap_or_default()}>
                    <h2>{ format!("{} rows returned", q.rows.len()) }
                        <span class="muted">{ " · highlighted in the grid below" }</span></h2>
                    // Scrolls when long: focusable so the keyboard can scroll it.
                    <ol class="result-rows" tabindex="0" aria-label="Rows returned">
                        { for q.rows.iter().map(|row| html! {
                            <li data-testid="q-row" data-key={display_bytes(&row.key)}>
                                <code class="row-key">{ display_bytes(&row.key) }</code>
                                { for row.cells.iter().map(|c| html! {
                                    <span class="result-cell">
                                        { format!("{}:{} = {} @{}", c.family, display_bytes(&c.qualifier), display_bytes(&c.value), c.timestamp_micros) }
                                        { for c.labels.iter().map(|l| html! { <span class="label-tag">{ l }</span> }) }
                                    </span>
                                }) }
                            </li>
                        }) }
                    </ol>
                </section>
                <ExplainView explain={q.explain} />
                <CodeTabs snippets={q.code.clone()} title="The same read as code" />
            }
        </div>
    }
}
