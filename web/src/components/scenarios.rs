//! The scenarios panel: one button per lesson, the running lesson's steps and commands (a
//! click runs one in the console), the load generator's controls (rate, read share, entities,
//! run for N seconds or continuously), and the lanes side by side: each with its tablet map,
//! heatmap and hotspot score. The comments lesson adds its pager.

use std::cell::Cell;
use std::rc::Rc;

use web_sys::HtmlInputElement;
use yew::prelude::*;

use super::heatmap::HeatmapView;
use super::tablet_map::TabletMap;
use crate::lab::load::LoadSettings;
use crate::lab::scenarios::{by_slug, SCENARIOS};
use crate::lab::{LabAction, LabView};
use crate::state::Action;

/// Simulated seconds the "+5 s of load" button adds.
const BURST_TICKS: u32 = 5;

/// Props of [`ScenariosView`].
#[derive(Properties, PartialEq)]
pub struct ScenariosProps {
    /// The lab's views.
    pub lab: LabView,
    /// Receives lab actions.
    pub on_action: Callback<Action>,
}

fn lab_cb(on_action: &Callback<Action>, action: LabAction) -> Callback<MouseEvent> {
    let on_action = on_action.clone();
    Callback::from(move |_| on_action.emit(Action::Lab(action.clone())))
}

/// A number input that reports its value as `u32`.
fn number(label: &str, id: &str, value: u32, on: Callback<u32>) -> Html {
    let oninput = Callback::from(move |e: InputEvent| {
        if let Ok(v) = e
            .target_unchecked_into::<HtmlInputElement>()
            .value()
            .parse::<u32>()
        {
            on.emit(v);
        }
    });
    html! {
        <label class="field small"><span>{ label.to_string() }</span>
            <input type="number" min="0" data-testid={id.to_string()} value={value.to_string()} {oninput} /></label>
    }
}

/// The scenarios panel.
#[function_component(ScenariosView)]
pub fn scenarios_view(props: &ScenariosProps) -> Html {
    let lab = &props.lab;
    let on_action = &props.on_action;
    let running = use_mut_ref(|| Rc::new(Cell::new(false)));
    let is_running = use_state(|| false);
    let current = lab.scenario.as_deref().and_then(by_slug);

    let set_load = |f: fn(&mut LoadSettings, u32)| {
        let (load, on_action) = (lab.load, on_action.clone());
        Callback::from(move |v: u32| {
            let mut next = load;
            f(&mut next, v);
            on_action.emit(Action::Lab(LabAction::SetLoad(next)));
        })
    };
    let toggle = {
        let (running, is_running, on_action) =
            (running.clone(), is_running.clone(), on_action.clone());
        Callback::from(move |_| {
            let flag = running.borrow().clone();
            if flag.get() {
                flag.set(false);
                is_running.set(false);
                return;
            }
            flag.set(true);
            is_running.set(true);
            let on_action = on_action.clone();
            yew::platform::spawn_local(async move {
                // One tick (a simulated second) every 400 ms while running.
                while flag.get() {
                    on_action.emit(Action::Lab(LabAction::Load(1)));
                    yew::platform::time::sleep(std::time::Duration::from_millis(400)).await;
                }
            });
        })
    };

    // Five simulated seconds as five actions: the engine's worker answers each with its own
    // update, so the tablet maps and heatmaps move second by second instead of jumping once.
    let burst = {
        let on_action = on_action.clone();
        Callback::from(move |_: MouseEvent| {
            let on_action = on_action.clone();
            yew::platform::spawn_local(async move {
                for _ in 0..BURST_TICKS {
                    on_action.emit(Action::Lab(LabAction::Load(1)));
                    yew::platform::time::sleep(std::time::Duration::ZERO).await;
                }
            });
        })
    };

    // Row sizes matter to the tall-vs-wide lesson; elsewhere rows stay small.
    let show_sizes = lab.scenario.as_deref() == Some("tall-wide");
    html! {
        <div class="scenarios" data-testid="scenarios">
            <div class="scenario-buttons">
                { for SCENARIOS.iter().map(|s| html! {
                    <button type="button" class={classes!("ghost", (lab.scenario.as_deref() == Some(s.slug)).then_some("active"))}
                        data-testid={format!("scenario-{}", s.slug)}
                        onclick={lab_cb(on_action, LabAction::RunScenario(s.slug.into()))}>{ s.title }</button>
                }) }
            </div>
            if let Some(s) = current {
                <div class="lesson card" data-testid="lesson">
                    <h2>{ s.title }</h2>
                    <ol>{ for s.steps.iter().map(|p| html! { <li>{ *p }</li> }) }</ol>
                    <div class="try">
                        <span class="muted">{ "Try in the console: " }</span>
                        { for s.commands.iter().map(|c| html! {
                            <button type="button" class="ghost mono" onclick={lab_cb(on_action, LabAction::Console((*c).into()))}>{ *c }</button>
                        }) }
                    </div>
                </div>
            } else {
                <p class="hint">{ "Pick a lesson: each creates its tables, loads them and explains what to look at." }</p>
            }
            <div class="load card" data-testid="load">
                <h2>{ "Load generator " }<span class="muted">{ format!("{} s simulated", lab.ticks) }</span></h2>
                <div class="load-row">
                    { number("writes / s", "load-rate", lab.load.rate, set_load(|l, v| l.rate = v)) }
                    { number("reads per 100 writes", "load-reads", lab.load.read_percent, set_load(|l, v| l.read_percent = v)) }
                    { number("entities", "load-entities", lab.load.entities, set_load(|l, v| l.entities = v)) }
                    <button type="button" data-testid="load-5" onclick={burst}>{ "+5 s of load" }</button>
                    <button type="button" class="ghost" data-testid="load-run" onclick={toggle}>
                        { if *is_running { "Stop" } else { "Run continuously" } }
                    </button>
                </div>
            </div>
            <div class="lanes">
                { for lab.lanes.iter().map(|lane| html! {
                    <div class="lane card" data-testid="lane" data-table={lane.table.clone()}
                        data-hotspot={lane.hotspot_permille.map(|p| p.to_string()).unwrap_or_default()}>
                        <h2>{ &lane.table }<span class="muted">{ format!(" · {}", lane.design) }</span></h2>
                        { match lane.hotspot_permille {
                            Some(p) => html! {
                                <div class={classes!("score", (p >= 700).then_some("bad"))} data-testid="hotspot-score"
                                    title="The hottest tablet's share of the latest writes">
                                    { format!("hotspot score {:.0} %", p as f64 / 10.0) }
                                </div>
                            },
                            None => html! {
                                <div class="score muted" data-testid="hotspot-score" data-single="true"
                                    title="One tablet takes every write by definition; a hotspot is one tablet of several doing the work">
                                    { "one tablet: no hotspot score yet" }
                                </div>
                            },
                        } }
                        if show_sizes {
                            <RowSizesView lane={lane.clone()} ticks={lab.ticks} />
                        }
                        <TabletMap lane={lane.clone()} />
                        <HeatmapView lane={lane.clone()} cell={8} />
                    </div>
                }) }
            </div>
            if let Some(p) = &lab.pager {
                <Pager pager={p.clone()} on_action={on_action.clone()} />
            }
        </div>
    }
}

/// Props of [`Pager`].
#[derive(Properties, PartialEq)]
pub struct PagerProps {
    /// The page shown.
    pub pager: crate::lab::PagerView,
    /// Receives lab actions.
    pub on_action: Callback<Action>,
}

/// The comments lesson's pager: 20 rows a page, a resume key, an optional key regex.
#[function_component(Pager)]
pub fn pager(props: &PagerProps) -> Html {
    let p = &props.pager;
    let regex = use_state(|| p.regex.clone());
    let oninput = {
        let regex = regex.clone();
        Callback::from(move |e: InputEvent| {
            regex.set(e.target_unchecked_into::<HtmlInputElement>().value())
        })
    };
    let go = |next: bool| {
        let (regex, on_action) = (regex.clone(), props.on_action.clone());
        Callback::from(move |_| {
            on_action.emit(Action::Lab(LabAction::Page {
                next,
                regex: (*regex).clone(),
            }))
        })
    };
    html! {
        <div class="pager card" data-testid="pager" data-page={p.page.to_string()}>
            <h2>{ format!("PRODUCT#42 comments, page {}", p.page) }</h2>
            <div class="load-row">
                <label class="field"><span>{ "Row-key regex (e.g. .*/en/5/.*)" }</span>
                    <input type="text" data-testid="pager-regex" value={(*regex).clone()} {oninput} /></label>
                <button type="button" data-testid="pager-first" onclick={go(false)}>{ "First page" }</button>
                <button type="button" data-testid="pager-next" disabled={p.resume.is_none()} onclick={go(true)}>{ "Next page" }</button>
            </div>
            <code class="mono small">{ &p.command }</code>
            <ol class="pager-rows">
                { for p.rows.iter().map(|(k, text)| html! { <li><code>{ k }</code>{ " " }<span>{ text }</span></li> }) }
            </ol>
            <p class="muted">{ match &p.resume {
                Some(k) => format!("resume key: {}", crate::state::display_bytes(k)),
                None => "last page".into(),
            } }</p>
        </div>
    }
}

/// Props of [`RowSizesView`].
#[derive(Properties, PartialEq)]
pub struct RowSizesProps {
    /// The lane.
    pub lane: crate::lab::LaneView,
    /// Simulated seconds of load so far (for the growth rate).
    pub ticks: u64,
}

fn size_text(bytes: u64) -> String {
    match bytes {
        b if b >= 1_000_000 => format!("{:.1} MB", b as f64 / 1e6),
        b if b >= 1_000 => format!("{:.1} kB", b as f64 / 1e3),
        b => format!("{b} B"),
    }
}

/// A lane's row sizes against Bigtable's 100 MB advice and 256 MB limit, and how long the
/// largest row takes to reach the advice at the load so far.
#[function_component(RowSizesView)]
pub fn row_sizes_view(props: &RowSizesProps) -> Html {
    use crate::lab::{ROW_ADVICE_BYTES, ROW_LIMIT_BYTES};
    let lane = &props.lane;
    let s = lane.row_sizes;
    let rows = lane.rows.max(1) as u64;
    let share = |limit: u64| s.largest_bytes as f64 * 100.0 / limit as f64;
    let growth = s.largest_bytes.checked_div(props.ticks).unwrap_or(0);
    // A row that keeps growing: days until it passes the advice at this rate.
    let days = (growth > 0).then(|| {
        ROW_ADVICE_BYTES.saturating_sub(s.largest_bytes) as f64 / growth as f64 / 86_400.0
    });
    html! {
        <div class="row-sizes" data-testid="row-sizes" data-largest-bytes={s.largest_bytes.to_string()}
            data-largest-cells={s.largest_cells.to_string()}>
            <div>{ format!("largest row {} · {} cells; mean {} · {} cells per row",
                size_text(s.largest_bytes), s.largest_cells, size_text(s.total_bytes / rows), s.total_cells / rows) }</div>
            <div class="muted">{ format!("{:.4} % of the 100 MB Bigtable advises per row, {:.4} % of its 256 MB limit",
                share(ROW_ADVICE_BYTES), share(ROW_LIMIT_BYTES)) }</div>
            if let Some(d) = days.filter(|_| lane.table == "wide") {
                <div class="muted">{ format!("at this load the largest row grows {} a second: past 100 MB in {:.0} days", size_text(growth), d) }</div>
            }
        </div>
    }
}
