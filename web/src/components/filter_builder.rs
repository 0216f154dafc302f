//! The filter builder: an editor for the whole RowFilter language, built on the engine's own
//! [`RowFilter`] (chain, interleave, condition and every leaf), nested to any depth. What it
//! builds is what the query runs and what the code snippets show.

use std::ops::Bound;

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use sparsetable::RowFilter;

/// Every kind the builder offers: `(value, label)`.
const KINDS: [(&str, &str); 20] = [
    ("pass_all", "pass all"),
    ("block_all", "block all"),
    ("sink", "sink"),
    ("chain", "chain (each in turn)"),
    ("interleave", "interleave (union)"),
    ("condition", "condition (if … then … else)"),
    ("row_key_regex", "row key regex"),
    ("row_sample", "row sample"),
    ("family_regex", "family name regex"),
    ("qualifier_regex", "qualifier regex"),
    ("column_range", "column range"),
    ("timestamp_range", "timestamp range"),
    ("value_regex", "value regex"),
    ("value_range", "value range"),
    ("cells_per_row_offset", "cells per row offset"),
    ("cells_per_row_limit", "cells per row limit"),
    ("cells_per_column_limit", "cells per column limit"),
    ("strip_value", "strip value"),
    ("apply_label", "apply label"),
    ("value_bitmask", "value bitmask (hex)"),
];

fn kind(f: &RowFilter) -> &'static str {
    match f {
        RowFilter::PassAll => "pass_all",
        RowFilter::BlockAll => "block_all",
        RowFilter::Sink => "sink",
        RowFilter::Chain(_) => "chain",
        RowFilter::Interleave(_) => "interleave",
        RowFilter::Condition { .. } => "condition",
        RowFilter::RowKeyRegex(_) => "row_key_regex",
        RowFilter::RowSample(_) => "row_sample",
        RowFilter::FamilyNameRegex(_) => "family_regex",
        RowFilter::ColumnQualifierRegex(_) => "qualifier_regex",
        RowFilter::ColumnRange { .. } => "column_range",
        RowFilter::TimestampRange { .. } => "timestamp_range",
        RowFilter::ValueRegex(_) => "value_regex",
        RowFilter::ValueRange { .. } => "value_range",
        RowFilter::CellsPerRowOffset(_) => "cells_per_row_offset",
        RowFilter::CellsPerRowLimit(_) => "cells_per_row_limit",
        RowFilter::CellsPerColumnLimit(_) => "cells_per_column_limit",
        RowFilter::StripValue => "strip_value",
        RowFilter::ApplyLabel(_) => "apply_label",
        RowFilter::ValueBitmask(_) => "value_bitmask",
    }
}

/// A fresh filter of a kind, keeping the children of a container it replaces.
fn fresh(kind: &str, old: &RowFilter) -> RowFilter {
    let children = match old {
        RowFilter::Chain(fs) | RowFilter::Interleave(fs) => fs.clone(),
        RowFilter::PassAll => Vec::new(),
        other => vec![other.clone()],
    };
    match kind {
        "block_all" => RowFilter::BlockAll,
        "sink" => RowFilter::Sink,
        "chain" => RowFilter::Chain(children),
        "interleave" => RowFilter::Interleave(children),
        "condition" => RowFilter::Condition {
            predicate: Box::new(RowFilter::RowKeyRegex(b".*".to_vec())),
            true_filter: Some(Box::new(RowFilter::PassAll)),
            false_filter: None,
        },
        "row_key_regex" => RowFilter::RowKeyRegex(b".*".to_vec()),
        "row_sample" => RowFilter::RowSample(0.5),
        "family_regex" => RowFilter::FamilyNameRegex(".*".into()),
        "qualifier_regex" => RowFilter::ColumnQualifierRegex(b".*".to_vec()),
        "column_range" => RowFilter::ColumnRange {
            family: String::new(),
            start: Bound::Unbounded,
            end: Bound::Unbounded,
        },
        "timestamp_range" => RowFilter::TimestampRange {
            start_micros: 0,
            end_micros: 0,
        },
        "value_regex" => RowFilter::ValueRegex(b".*".to_vec()),
        "value_range" => RowFilter::ValueRange {
            start: Bound::Unbounded,
            end: Bound::Unbounded,
        },
        "cells_per_row_offset" => RowFilter::CellsPerRowOffset(0),
        "cells_per_row_limit" => RowFilter::CellsPerRowLimit(1),
        "cells_per_column_limit" => RowFilter::CellsPerColumnLimit(1),
        "strip_value" => RowFilter::StripValue,
        "apply_label" => RowFilter::ApplyLabel("label".into()),
        "value_bitmask" => RowFilter::ValueBitmask(vec![0xff]),
        _ => RowFilter::PassAll,
    }
}

fn text_field(label: &str, value: String, testid: String, on: Callback<String>) -> Html {
    let oninput = Callback::from(move |e: InputEvent| {
        on.emit(e.target_unchecked_into::<HtmlInputElement>().value())
    });
    html! {
        <label class="inline">{ label }
            <input type="text" {value} {oninput} data-testid={testid} aria-label={label.to_string()}
                autocomplete="off" spellcheck="false" />
        </label>
    }
}

fn hex_decode(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| c.is_ascii_hexdigit()).collect();
    (0..s.len() / 2)
        .filter_map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok())
        .collect()
}

/// A bound as `(mode, key)`; mode `closed`, `open` or `none`.
fn bound_editor(
    label: &str,
    b: &Bound<Vec<u8>>,
    path: String,
    on: Callback<Bound<Vec<u8>>>,
) -> Html {
    let (mode, key) = match b {
        Bound::Included(k) => ("closed", String::from_utf8_lossy(k).into_owned()),
        Bound::Excluded(k) => ("open", String::from_utf8_lossy(k).into_owned()),
        Bound::Unbounded => ("none", String::new()),
    };
    let make = |mode: &str, key: String| match mode {
        "closed" => Bound::Included(key.into_bytes()),
        "open" => Bound::Excluded(key.into_bytes()),
        _ => Bound::Unbounded,
    };
    let on_mode = {
        let (on, key) = (on.clone(), key.clone());
        Callback::from(move |e: Event| {
            on.emit(make(
                &e.target_unchecked_into::<HtmlSelectElement>().value(),
                key.clone(),
            ))
        })
    };
    let on_key = {
        let mode = mode.to_string();
        Callback::from(move |k: String| {
            on.emit(make(if mode == "none" { "closed" } else { &mode }, k))
        })
    };
    html! {
        <span class="bound">
            <select onchange={on_mode} aria-label={format!("{label} bound")} data-testid={format!("{path}-mode")}>
                { for [("none", "unbounded"), ("closed", "closed [ ]"), ("open", "open ( )")].iter()
                    .map(|(v, l)| html! { <option value={*v} selected={mode == *v}>{ format!("{label}: {l}") }</option> }) }
            </select>
            { text_field(label, key, path, on_key) }
        </span>
    }
}

fn number_field(label: &str, value: String, testid: String, on: Callback<String>) -> Html {
    let oninput = Callback::from(move |e: InputEvent| {
        on.emit(e.target_unchecked_into::<HtmlInputElement>().value())
    });
    html! {
        <label class="inline">{ label }
            <input type="number" class="num" {value} {oninput} data-testid={testid} aria-label={label.to_string()} />
        </label>
    }
}

/// An editor for one filter node; `path` makes its inputs' test ids unique.
pub fn filter_editor(f: &RowFilter, on_change: Callback<RowFilter>, path: &str) -> Html {
    let on_kind = {
        let (on_change, old) = (on_change.clone(), f.clone());
        Callback::from(move |e: Event| {
            on_change.emit(fresh(
                &e.target_unchecked_into::<HtmlSelectElement>().value(),
                &old,
            ))
        })
    };
    let bytes = |wrap: fn(Vec<u8>) -> RowFilter| {
        let on_change = on_change.clone();
        Callback::from(move |s: String| on_change.emit(wrap(s.into_bytes())))
    };
    let int = |wrap: fn(i32) -> RowFilter| {
        let on_change = on_change.clone();
        Callback::from(move |s: String| on_change.emit(wrap(s.trim().parse().unwrap_or(-1))))
    };
    let p = |s: &str| format!("{path}-{s}");
    let body = match f {
        RowFilter::PassAll | RowFilter::BlockAll | RowFilter::Sink | RowFilter::StripValue => {
            html! {}
        }
        RowFilter::RowKeyRegex(r) => text_field(
            "regex",
            String::from_utf8_lossy(r).into_owned(),
            p("regex"),
            bytes(RowFilter::RowKeyRegex),
        ),
        RowFilter::ColumnQualifierRegex(r) => text_field(
            "regex",
            String::from_utf8_lossy(r).into_owned(),
            p("regex"),
            bytes(RowFilter::ColumnQualifierRegex),
        ),
        RowFilter::ValueRegex(r) => text_field(
            "regex",
            String::from_utf8_lossy(r).into_owned(),
            p("regex"),
            bytes(RowFilter::ValueRegex),
        ),
        RowFilter::FamilyNameRegex(r) => {
            let on_change = on_change.clone();
            text_field(
                "regex",
                r.clone(),
                p("regex"),
                Callback::from(move |s| on_change.emit(RowFilter::FamilyNameRegex(s))),
            )
        }
        RowFilter::ApplyLabel(l) => {
            let on_change = on_change.clone();
            text_field(
                "label",
                l.clone(),
                p("label"),
                Callback::from(move |s| on_change.emit(RowFilter::ApplyLabel(s))),
            )
        }
        RowFilter::ValueBitmask(m) => {
            let on_change = on_change.clone();
            text_field(
                "mask (hex)",
                crate::codegen::hex(m),
                p("mask"),
                Callback::from(move |s: String| {
                    on_change.emit(RowFilter::ValueBitmask(hex_decode(&s)))
                }),
            )
        }
        RowFilter::RowSample(x) => {
            let on_change = on_change.clone();
            number_field(
                "probability",
                x.to_string(),
                p("probability"),
                Callback::from(move |s: String| {
                    on_change.emit(RowFilter::RowSample(s.trim().parse().unwrap_or(-1.0)))
                }),
            )
        }
        RowFilter::CellsPerRowOffset(n) => number_field(
            "cells",
            n.to_string(),
            p("n"),
            int(RowFilter::CellsPerRowOffset),
        ),
        RowFilter::CellsPerRowLimit(n) => number_field(
            "cells",
            n.to_string(),
            p("n"),
            int(RowFilter::CellsPerRowLimit),
        ),
        RowFilter::CellsPerColumnLimit(n) => number_field(
            "cells",
            n.to_string(),
            p("n"),
            int(RowFilter::CellsPerColumnLimit),
        ),
        RowFilter::TimestampRange {
            start_micros,
            end_micros,
        } => {
            let (s, e) = (*start_micros, *end_micros);
            let on_start = {
                let on_change = on_change.clone();
                Callback::from(move |v: String| {
                    on_change.emit(RowFilter::TimestampRange {
                        start_micros: v.trim().parse().unwrap_or(-1),
                        end_micros: e,
                    })
                })
            };
            let on_end = {
                let on_change = on_change.clone();
                Callback::from(move |v: String| {
                    on_change.emit(RowFilter::TimestampRange {
                        start_micros: s,
                        end_micros: v.trim().parse().unwrap_or(-1),
                    })
                })
            };
            html! { <>
                { number_field("start µs (inclusive)", s.to_string(), p("start"), on_start) }
                { number_field("end µs (exclusive, 0: none)", e.to_string(), p("end"), on_end) }
            </> }
        }
        RowFilter::ColumnRange { family, start, end } => {
            let fam = {
                let (on_change, start, end) = (on_change.clone(), start.clone(), end.clone());
                Callback::from(move |family: String| {
                    on_change.emit(RowFilter::ColumnRange {
                        family,
                        start: start.clone(),
                        end: end.clone(),
                    })
                })
            };
            let on_start = {
                let (on_change, family, end) = (on_change.clone(), family.clone(), end.clone());
                Callback::from(move |start| {
                    on_change.emit(RowFilter::ColumnRange {
                        family: family.clone(),
                        start,
                        end: end.clone(),
                    })
                })
            };
            let on_end = {
                let (on_change, family, start) = (on_change.clone(), family.clone(), start.clone());
                Callback::from(move |end| {
                    on_change.emit(RowFilter::ColumnRange {
                        family: family.clone(),
                        start: start.clone(),
                        end,
                    })
                })
            };
            html! { <>
                { text_field("family", family.clone(), p("family"), fam) }
                { bound_editor("start qualifier", start, p("start"), on_start) }
                { bound_editor("end qualifier", end, p("end"), on_end) }
            </> }
        }
        RowFilter::ValueRange { start, end } => {
            let on_start = {
                let (on_change, end) = (on_change.clone(), end.clone());
                Callback::from(move |start| {
                    on_change.emit(RowFilter::ValueRange {
                        start,
                        end: end.clone(),
                    })
                })
            };
            let on_end = {
                let (on_change, start) = (on_change.clone(), start.clone());
                Callback::from(move |end| {
                    on_change.emit(RowFilter::ValueRange {
                        start: start.clone(),
                        end,
                    })
                })
            };
            html! { <>
                { bound_editor("start value", start, p("start"), on_start) }
                { bound_editor("end value", end, p("end"), on_end) }
            </> }
        }
        RowFilter::Chain(fs) | RowFilter::Interleave(fs) => {
            let chain = matches!(f, RowFilter::Chain(_));
            let rebuild = move |fs: Vec<RowFilter>| {
                if chain {
                    RowFilter::Chain(fs)
                } else {
                    RowFilter::Interleave(fs)
                }
            };
            let add = {
                let (on_change, fs) = (on_change.clone(), fs.clone());
                Callback::from(move |_| {
                    let mut v = fs.clone();
                    v.push(RowFilter::PassAll);
                    on_change.emit(rebuild(v));
                })
            };
            html! {
                <div class="children">
                    { for fs.iter().enumerate().map(|(i, child)| {
                        let set = {
                            let (on_change, fs) = (on_change.clone(), fs.clone());
                            Callback::from(move |c: RowFilter| {
                                let mut v = fs.clone();
                                v[i] = c;
                                on_change.emit(rebuild(v));
                            })
                        };
                        let remove = {
                            let (on_change, fs) = (on_change.clone(), fs.clone());
                            Callback::from(move |_| {
                                let mut v = fs.clone();
                                v.remove(i);
                                on_change.emit(rebuild(v));
                            })
                        };
                        html! {
                            <div class="child">
                                { filter_editor(child, set, &format!("{path}-{i}")) }
                                <button type="button" class="ghost" onclick={remove} aria-label="Remove this filter">{ "Remove" }</button>
                            </div>
                        }
                    }) }
                    <button type="button" class="ghost" onclick={add} data-testid={p("add")}>{ "Add filter" }</button>
                </div>
            }
        }
        RowFilter::Condition {
            predicate,
            true_filter,
            false_filter,
        } => {
            let (pr, tf, ff) = (predicate.clone(), true_filter.clone(), false_filter.clone());
            let set_pred = {
                let (on_change, tf, ff) = (on_change.clone(), tf.clone(), ff.clone());
                Callback::from(move |x: RowFilter| {
                    on_change.emit(RowFilter::Condition {
                        predicate: Box::new(x),
                        true_filter: tf.clone(),
                        false_filter: ff.clone(),
                    })
                })
            };
            let set_true = {
                let (on_change, pr, ff) = (on_change.clone(), pr.clone(), ff.clone());
                Callback::from(move |x: Option<RowFilter>| {
                    on_change.emit(RowFilter::Condition {
                        predicate: pr.clone(),
                        true_filter: x.map(Box::new),
                        false_filter: ff.clone(),
                    })
                })
            };
            let set_false = {
                let (on_change, pr, tf) = (on_change.clone(), pr.clone(), tf.clone());
                Callback::from(move |x: Option<RowFilter>| {
                    on_change.emit(RowFilter::Condition {
                        predicate: pr.clone(),
                        true_filter: tf.clone(),
                        false_filter: x.map(Box::new),
                    })
                })
            };
            html! {
                <div class="children">
                    <div class="child"><span class="branch">{ "if a cell passes" }</span>{ filter_editor(predicate, set_pred, &p("if")) }</div>
                    <div class="child"><span class="branch">{ "then" }</span>{ branch_editor(true_filter.as_deref(), set_true, &p("then")) }</div>
                    <div class="child"><span class="branch">{ "else" }</span>{ branch_editor(false_filter.as_deref(), set_false, &p("else")) }</div>
                </div>
            }
        }
    };
    html! {
        <div class="filter-node">
            <select onchange={on_kind} data-testid={p("kind")} aria-label="filter kind">
                { for KINDS.iter().map(|(v, l)| html! { <option value={*v} selected={kind(f) == *v}>{ *l }</option> }) }
            </select>
            { body }
        </div>
    }
}

/// A condition branch: a filter, or none (no output on that branch).
fn branch_editor(
    f: Option<&RowFilter>,
    on_change: Callback<Option<RowFilter>>,
    path: &str,
) -> Html {
    match f {
        Some(f) => {
            let set = {
                let on_change = on_change.clone();
                Callback::from(move |x| on_change.emit(Some(x)))
            };
            let clear = Callback::from(move |_| on_change.emit(None));
            html! { <>
                { filter_editor(f, set, path) }
                <button type="button" class="ghost" onclick={clear} aria-label="None: no filter on this branch">{ "None" }</button>
            </> }
        }
        None => {
            let add = Callback::from(move |_| on_change.emit(Some(RowFilter::PassAll)));
            html! { <button type="button" class="ghost" onclick={add} data-testid={format!("{path}-set")}>{ "(none: nothing) — set a filter" }</button> }
        }
    }
}
