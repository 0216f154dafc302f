//! GC rule editing: each family of the selected table with its rule in words and an editor
//! for the whole GcRule language (max versions, max age, union, intersection, nested). The
//! edited rule is applied with ModifyColumnFamilies. Before it is applied, the engine works
//! out what it would do ([`Action::PreviewGcRule`], sent on every edit) and the editor shows
//! it: how many cells become eligible for GC (Background mode) or disappear from reads
//! (Immediate mode), and what a looser rule brings back (uncollected versions, Background) or
//! cannot (hidden ones are removed first, Immediate).

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::state::{describe_gc, Action, GcPreview};
use sparsetable::GcRule;

/// Units a max age is edited in, largest first.
const UNITS: [(&str, i64); 5] = [
    ("days", 86_400_000_000),
    ("hours", 3_600_000_000),
    ("minutes", 60_000_000),
    ("seconds", 1_000_000),
    ("ms", 1000),
];

/// Props of [`GcEditor`].
#[derive(Properties, PartialEq)]
pub struct GcEditorProps {
    /// The family.
    pub family: String,
    /// Its current rule.
    pub rule: GcRule,
    /// What the draft would do, if the engine worked it out (for this family and draft).
    pub preview: Option<GcPreview>,
    /// Whether eligible cells stay readable (Background GC mode).
    pub background: bool,
    /// Receives `SetGcRule` and `PreviewGcRule`.
    pub on_action: Callback<Action>,
}

/// One family's rule and its editor.
#[function_component(GcEditor)]
pub fn gc_editor(props: &GcEditorProps) -> Html {
    let draft = use_state(|| props.rule.clone());
    {
        // A new rule from the engine (applied, or another table) resets the draft.
        let draft = draft.clone();
        use_effect_with(props.rule.clone(), move |rule| draft.set(rule.clone()));
    }
    {
        // Every edit asks the engine what it would do (answered in `preview`).
        let (family, rule, on_action) = (
            props.family.clone(),
            props.rule.clone(),
            props.on_action.clone(),
        );
        use_effect_with((*draft).clone(), move |d| {
            if *d != rule {
                on_action.emit(Action::PreviewGcRule {
                    family,
                    rule: d.clone(),
                });
            }
        });
    }
    let on_change = {
        let draft = draft.clone();
        Callback::from(move |r: GcRule| draft.set(r))
    };
    let apply = {
        let (draft, family, on_action) =
            (draft.clone(), props.family.clone(), props.on_action.clone());
        Callback::from(move |_| {
            on_action.emit(Action::SetGcRule {
                family: family.clone(),
                rule: (*draft).clone(),
            })
        })
    };
    let id = format!("gc-{}", props.family);
    html! {
        <fieldset class="gc-family" data-testid={id.clone()}>
            <legend>{ format!("Family {}", props.family) }</legend>
            <p class="muted">{ if props.background { "Makes eligible for GC: " } else { "Hides: " } }<span data-testid="gc-current">{ describe_gc(&props.rule) }</span></p>
            { rule_editor(&draft, on_change, &id) }
            if *draft != props.rule {
                <p class="gc-preview" role="status" data-testid="gc-preview">{
                    match props.preview.as_ref().filter(|p| p.family == props.family && p.rule == *draft) {
                        Some(p) => format!("If applied: {}", p.describe()),
                        None => "Working out what this rule would do…".to_string(),
                    }
                }</p>
            }
            <button type="button" data-testid="gc-apply" onclick={apply} disabled={*draft == props.rule}>{ "Apply rule" }</button>
        </fieldset>
    }
}

fn kind(rule: &GcRule) -> &'static str {
    match rule {
        GcRule::Never => "never",
        GcRule::MaxNumVersions(_) => "versions",
        GcRule::MaxAge { .. } => "age",
        GcRule::Union(_) => "union",
        GcRule::Intersection(_) => "intersection",
    }
}

/// An editor for one rule node; `path` names its inputs (unique per node).
fn rule_editor(rule: &GcRule, on_change: Callback<GcRule>, path: &str) -> Html {
    let on_kind = {
        let (on_change, old) = (on_change.clone(), rule.clone());
        Callback::from(move |e: Event| {
            let children = match &old {
                GcRule::Union(rs) | GcRule::Intersection(rs) => rs.clone(),
                other => vec![other.clone()],
            };
            let next = match e
                .target_unchecked_into::<HtmlSelectElement>()
                .value()
                .as_str()
            {
                "versions" => GcRule::MaxNumVersions(1),
                "age" => GcRule::MaxAge {
                    micros: 7 * 86_400_000_000,
                },
                "union" => GcRule::Union(children),
                "intersection" => GcRule::Intersection(children),
                _ => GcRule::Never,
            };
            on_change.emit(next);
        })
    };
    let body = match rule {
        GcRule::Never => html! {},
        GcRule::MaxNumVersions(n) => {
            let on_change = on_change.clone();
            let oninput = Callback::from(move |e: InputEvent| {
                let v = e.target_unchecked_into::<HtmlInputElement>().value();
                // The engine judges the number (0 is its INVALID_ARGUMENT).
                on_change.emit(GcRule::MaxNumVersions(v.trim().parse().unwrap_or(0)));
            });
            html! {
                <label class="inline">{ "keep newest " }
                    <input type="number" min="0" class="num" value={n.to_string()} {oninput}
                        data-testid={format!("{path}-versions")} aria-label="max versions" />
                    { " versions" }
                </label>
            }
        }
        GcRule::MaxAge { micros } => {
            let (unit, size) = UNITS
                .iter()
                .copied()
                .find(|(_, size)| *micros >= *size && micros % size == 0)
                .unwrap_or(("ms", 1000));
            let amount = micros / size;
            let on_amount = {
                let on_change = on_change.clone();
                Callback::from(move |e: InputEvent| {
                    let v: i64 = e
                        .target_unchecked_into::<HtmlInputElement>()
                        .value()
                        .trim()
                        .parse()
                        .unwrap_or(0);
                    on_change.emit(GcRule::MaxAge {
                        micros: v.saturating_mul(size),
                    });
                })
            };
            let on_unit = {
                let on_change = on_change.clone();
                Callback::from(move |e: Event| {
                    let u = e.target_unchecked_into::<HtmlSelectElement>().value();
                    let s = UNITS
                        .iter()
                        .find(|(n, _)| *n == u)
                        .map_or(1000, |(_, s)| *s);
                    on_change.emit(GcRule::MaxAge {
                        micros: amount.saturating_mul(s),
                    });
                })
            };
            html! {
                <label class="inline">{ "older than " }
                    <input type="number" min="0" class="num" value={amount.to_string()} oninput={on_amount}
                        data-testid={format!("{path}-age")} aria-label="max age" />
                    <select onchange={on_unit} aria-label="max age unit">
                        { for UNITS.iter().map(|(n, _)| html! { <option value={*n} selected={*n == unit}>{ *n }</option> }) }
                    </select>
                </label>
            }
        }
        GcRule::Union(rules) | GcRule::Intersection(rules) => {
            let union = matches!(rule, GcRule::Union(_));
            let rebuild = move |rs: Vec<GcRule>| {
                if union {
                    GcRule::Union(rs)
                } else {
                    GcRule::Intersection(rs)
                }
            };
            let add = {
                let (on_change, rules) = (on_change.clone(), rules.clone());
                Callback::from(move |_| {
                    let mut rs = rules.clone();
                    rs.push(GcRule::MaxNumVersions(1));
                    on_change.emit(rebuild(rs));
                })
            };
            html! {
                <div class="gc-children">
                    <p class="muted">{ if union { "collects a cell if ANY rule below does" } else { "collects a cell only if EVERY rule below does" } }</p>
                    { for rules.iter().enumerate().map(|(i, r)| {
                        let set = {
                            let (on_change, rules) = (on_change.clone(), rules.clone());
                            Callback::from(move |child: GcRule| {
                                let mut rs = rules.clone();
                                rs[i] = child;
                                on_change.emit(rebuild(rs));
                            })
                        };
                        let remove = {
                            let (on_change, rules) = (on_change.clone(), rules.clone());
                            Callback::from(move |_| {
                                let mut rs = rules.clone();
                                rs.remove(i);
                                on_change.emit(rebuild(rs));
                            })
                        };
                        html! {
                            <div class="gc-child">
                                { rule_editor(r, set, &format!("{path}-{i}")) }
                                <button type="button" class="ghost" onclick={remove} aria-label="Remove this rule">{ "Remove" }</button>
                            </div>
                        }
                    }) }
                    <button type="button" class="ghost" onclick={add} data-testid={format!("{path}-add")}>{ "Add rule" }</button>
                </div>
            }
        }
    };
    html! {
        <div class="gc-rule">
            <select onchange={on_kind} data-testid={format!("{path}-kind")} aria-label="GC rule kind">
                { for [("never", "keep everything"), ("versions", "max versions"), ("age", "max age"), ("union", "union (any)"), ("intersection", "intersection (all)")]
                    .iter().map(|(v, label)| html! { <option value={*v} selected={kind(rule) == *v}>{ *label }</option> }) }
            </select>
            { body }
        </div>
    }
}
