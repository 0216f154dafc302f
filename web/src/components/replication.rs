//! The replication lesson: the clusters side by side, each with its copy of the table (cells
//! not yet everywhere marked, cells another cluster has and this one lacks shown as stale),
//! writes, increments and reads through a chosen app profile, a conflict, the lag and the
//! clock, clusters down and up, a consistency token, the change-stream tail and every action
//! as code. The rules are the core's; this only draws `lab::replication::ReplView`.

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use super::clock::iso;
use super::code_tabs::CodeTabs;
use super::console::ConsoleView;
use crate::lab::replication::{CellState, ReplAction, ReplView, PROFILES, TABLE};
use crate::lab::LabAction;
use crate::state::{duration, Action};

/// Props of [`ReplicationView`].
#[derive(Properties, PartialEq)]
pub struct ReplicationProps {
    /// The lesson's view, once started.
    pub view: Option<ReplView>,
    /// Receives actions.
    pub on_action: Callback<Action>,
}

/// The lesson's steps.
const STEPS: &[&str] = &[
    "Every cluster of an instance keeps its own copy of every table and serves reads and writes. A write is acknowledged by the cluster its app profile routes it to, and reaches the others after the replication lag (here on the playground's clock, so you decide when).",
    "Write through to-c1, then read through to-c2 before the lag passes: c2 answers from its own copy, without the write. That is a stale read; the cell is marked 'not here yet' in c2's column.",
    "Generate a consistency token: it stays false while any write made before it is still on its way, and turns true once the clock passes the lag. Google's clients wait on it (waitForReplication, awaitReplication).",
    "Increment a counter: a single-row transaction. Only a single-cluster profile that allows transactional writes may do it (to-c1); to-c2 and multi are refused with FAILED_PRECONDITION.",
    "Make a conflict: the same cell at the same timestamp written at c1 and c2 at once. Each cluster first keeps its own value; after the lag every cluster holds the same one, chosen by the same rule everywhere.",
    "Take c2 down. A write through to-c2 answers UNAVAILABLE (single-cluster routing fails over only by hand); through multi it goes to the next available cluster. Bring c2 back and it catches up on what it missed.",
    "Use the console at the bottom: it runs cbt on this same instance (so does the Console tab with -instance lesson in front of a command). Write through one profile and read through another (app-profile=to-c1, then app-profile=to-c2), inject an error (fault code=UNAUTHENTICATED) or a latency (fault latency=2s cluster=c2: the read answers two seconds of the clock later, by when the write has arrived). The buttons above take the same path as the console's commands, so a fault acts on them too.",
];

fn emit(on_action: &Callback<Action>, a: ReplAction) {
    on_action.emit(Action::Lab(LabAction::Replication(a)));
}

fn input_value(e: &InputEvent) -> String {
    e.target_unchecked_into::<HtmlInputElement>().value()
}

/// A labelled text field bound to a state handle.
fn field(label: &'static str, id: &'static str, value: &UseStateHandle<String>) -> Html {
    let v = value.clone();
    let oninput = Callback::from(move |e: InputEvent| v.set(input_value(&e)));
    html! {
        <label class="field small"><span>{ label }</span>
            <input type="text" data-testid={id} name={id} value={(**value).clone()} autocomplete="off" spellcheck="false" {oninput} /></label>
    }
}

/// The lesson.
#[function_component(ReplicationView)]
pub fn replication_view(props: &ReplicationProps) -> Html {
    let profile = use_state(|| "to-c1".to_string());
    let row = use_state(|| "user#1".to_string());
    let qualifier = use_state(|| "name".to_string());
    let value = use_state(|| "Ada".to_string());
    let lag_ms = use_state(|| "2000".to_string());
    let on_action = &props.on_action;
    let start = |n: usize| {
        let on_action = on_action.clone();
        Callback::from(move |_| emit(&on_action, ReplAction::Start { clusters: n }))
    };
    let Some(view) = &props.view else {
        return html! {
            <section class="card repl" data-testid="repl" aria-label="Replication lesson">
                <h2>{ "Replication: clusters, lag, conflicts and failover" }</h2>
                <p class="muted">{ "An instance whose clusters each hold a copy of the table users, on the playground's clock." }</p>
                <div class="buttons">
                    <button type="button" data-testid="repl-start-2" onclick={start(2)}>{ "Start with 2 clusters" }</button>
                    <button type="button" class="ghost" data-testid="repl-start-3" onclick={start(3)}>{ "Start with 3 clusters" }</button>
                </div>
            </section>
        };
    };
    let act = |make: fn(String, String, String, String) -> ReplAction| {
        let (on_action, p, r, q, v) = (
            on_action.clone(),
            profile.clone(),
            row.clone(),
            qualifier.clone(),
            value.clone(),
        );
        Callback::from(move |_| {
            emit(
                &on_action,
                make((*p).clone(), (*r).clone(), (*q).clone(), (*v).clone()),
            )
        })
    };
    let write = act(|profile, row, qualifier, value| ReplAction::Write {
        profile,
        row,
        qualifier,
        value,
    });
    let increment = act(|profile, row, _, _| ReplAction::Increment {
        profile,
        row,
        qualifier: "visits".into(),
    });
    let read = act(|profile, row, _, _| ReplAction::Read { profile, row });
    let conflict = act(|_, row, _, _| ReplAction::Conflict {
        row,
        qualifier: "city".into(),
    });
    let on_profile = {
        let p = profile.clone();
        Callback::from(move |e: Event| {
            p.set(e.target_unchecked_into::<HtmlSelectElement>().value())
        })
    };
    let set_lag = {
        let (on_action, lag_ms) = (on_action.clone(), lag_ms.clone());
        Callback::from(move |_| {
            if let Ok(ms) = lag_ms.trim().parse::<i64>() {
                emit(&on_action, ReplAction::SetLag(ms.saturating_mul(1000)));
            }
        })
    };
    let on_lag = {
        let lag_ms = lag_ms.clone();
        Callback::from(move |e: InputEvent| lag_ms.set(input_value(&e)))
    };
    let token = {
        let on_action = on_action.clone();
        Callback::from(move |_| emit(&on_action, ReplAction::GenerateToken))
    };
    let tick = |label: &'static str, id: &'static str, micros: i64| {
        let on_action = on_action.clone();
        html! {
            <button type="button" class="ghost" data-testid={id}
                onclick={Callback::from(move |_| on_action.emit(Action::AdvanceClock(micros)))}>{ label }</button>
        }
    };
    html! {
        <section class="card repl" data-testid="repl" aria-label="Replication lesson">
            <h2>{ "Replication: clusters, lag, conflicts and failover" }</h2>
            <ol class="steps">{ for STEPS.iter().map(|s| html! { <li>{ *s }</li> }) }</ol>
            <div class="repl-controls">
                <label class="field small"><span>{ "App profile" }</span>
                    <select data-testid="repl-profile" name="repl-profile" onchange={on_profile}>
                        { for PROFILES.iter().map(|(id, what)| html! {
                            <option value={*id} selected={*profile == *id}>{ format!("{id} ({what})") }</option>
                        }) }
                    </select></label>
                { field("Row key", "repl-row", &row) }
                { field("Qualifier", "repl-qualifier", &qualifier) }
                { field("Value", "repl-value", &value) }
                <div class="buttons">
                    <button type="button" data-testid="repl-write" onclick={write}>{ "Write" }</button>
                    <button type="button" class="ghost" data-testid="repl-read" onclick={read}>{ "Read row" }</button>
                    <button type="button" class="ghost" data-testid="repl-increment" onclick={increment}>{ "Increment cf:visits" }</button>
                    <button type="button" class="ghost" data-testid="repl-conflict" onclick={conflict}>{ "Conflict on cf:city (c1 and c2)" }</button>
                </div>
            </div>
            <div class="repl-controls">
                <label class="field small"><span>{ "Lag (ms)" }</span>
                    <input type="number" min="0" data-testid="repl-lag-ms" name="repl-lag-ms" value={(*lag_ms).clone()} oninput={on_lag} /></label>
                <button type="button" class="ghost" data-testid="repl-lag" onclick={set_lag}>{ "Set lag" }</button>
                <span class="muted" data-testid="repl-lag-now">{ format!("lag {} · {} write(s) on their way", if view.lag_micros == 0 { "0 s".to_string() } else { duration(view.lag_micros) }, view.in_flight) }</span>
                { tick("Clock +1 s", "repl-clock-1s", 1_000_000) }
                { tick("Clock +2 s", "repl-clock-2s", 2_000_000) }
                <button type="button" class="ghost" data-testid="repl-token" onclick={token}>{ "Consistency token" }</button>
                if let Some(t) = &view.token {
                    <span class={classes!("badge", if t.consistent { "ok" } else { "warn" })} data-testid="repl-token-state"
                        title={format!("token {} generated at {}", t.token, iso(t.generated_micros))}>
                        { format!("consistent: {}", t.consistent) }
                    </span>
                }
            </div>
            if let Some(o) = &view.outcome {
                <p class={classes!("repl-outcome", if o.code == "OK" { "ok" } else { "failed" })} role="status"
                    data-testid="repl-outcome" data-code={o.code.clone()}>
                    <strong>{ &o.action }</strong>{ " → " }<code>{ &o.code }</code>{ " " }{ &o.message }
                    if let Some(w) = &o.waited {
                        { " " }<span class="badge warn" data-testid="repl-outcome-waited">{ w }</span>
                    }
                </p>
            }
            <div class="repl-clusters">
                { for view.clusters.iter().map(|c| {
                    let toggle = {
                        let (on_action, id, up) = (on_action.clone(), c.id.clone(), c.available);
                        Callback::from(move |_| emit(&on_action, ReplAction::SetAvailable { cluster: id.clone(), available: !up }))
                    };
                    html! {
                        <section class={classes!("repl-cluster", (!c.available).then_some("down"))}
                            data-testid={format!("repl-cluster-{}", c.id)} aria-label={format!("Cluster {}", c.id)}>
                            <h3>{ &c.id }{ " " }
                                <span class={classes!("badge", if c.available { "ok" } else { "failed" })}>{ if c.available { "up" } else { "down" } }</span>
                                <button type="button" class="ghost" data-testid={format!("repl-toggle-{}", c.id)} onclick={toggle}>
                                    { if c.available { "Take down" } else { "Bring back" } }</button>
                            </h3>
                            if c.cells.is_empty() {
                                <p class="muted">{ "No rows yet." }</p>
                            } else {
                                <table class="repl-cells">
                                    <thead><tr><th scope="col">{ "row" }</th><th scope="col">{ "column" }</th><th scope="col">{ "time" }</th><th scope="col">{ "value" }</th><th scope="col">{ "state" }</th></tr></thead>
                                    <tbody>
                                    { for c.cells.iter().map(|cell| {
                                        let (class, note) = match cell.state {
                                            CellState::Everywhere => ("everywhere", "in every copy".to_string()),
                                            CellState::NotYetEverywhere => ("pending", format!("not yet at {}", cell.missing_at.join(", "))),
                                            CellState::Missing => ("stale", "stale: not here yet".to_string()),
                                        };
                                        html! {
                                            <tr class={class} data-testid="repl-cell" data-state={class}
                                                title={format!("timestamp {} ({})", cell.timestamp_micros, iso(cell.timestamp_micros))}>
                                                <td><code>{ &cell.row }</code></td>
                                                <td><code>{ &cell.column }</code></td>
                                                // The cell's timestamp, to the millisecond: two versions differ here.
                                                <td><code>{ iso(cell.timestamp_micros).get(11..23).unwrap_or_default().to_string() }</code></td>
                                                <td>if cell.state == CellState::Missing { <s>{ &cell.value }</s> } else { { &cell.value } }</td>
                                                <td class="note">{ note }</td>
                                            </tr>
                                        }
                                    }) }
                                    </tbody>
                                </table>
                            }
                        </section>
                    }
                }) }
            </div>
            if let Some(c) = &view.conflict {
                <div class="card repl-conflict" data-testid="repl-conflict-view">
                    <h3>{ format!("Conflict on {}", c.cell) }</h3>
                    <p>{ "Written: " }{ for c.writes.iter().map(|(cl, v)| html! { <span class="chip">{ format!("{v} at {cl}") }</span> }) }</p>
                    <p>{ "Each cluster now holds: " }{ for c.now.iter().map(|(cl, v)| html! {
                        <span class="chip" data-testid="repl-conflict-now">{ format!("{cl}: {}", if v.is_empty() { "—" } else { v }) }</span>
                    }) }</p>
                    <p data-testid="repl-conflict-winner"><strong>{ format!("Winner: {}", c.winner) }</strong>{ if c.now.iter().all(|(_, v)| *v == c.winner) { " (every cluster converged)" } else { " (once the lag has passed)" } }</p>
                    <p class="muted">{ &c.why }</p>
                </div>
            }
            <div class="card repl-tail" data-testid="repl-tail">
                <h3>{ "Change stream of users (every cluster's changes, in commit order)" }</h3>
                if view.tail.is_empty() {
                    <p class="muted">{ "No changes yet." }</p>
                } else {
                    <ol tabindex="0" aria-label="Change records">
                        { for view.tail.iter().rev().map(|l| html! {
                            <li data-testid="repl-change"><code>{ iso(l.commit_micros) }</code>{ format!(" {} · {} · {}", l.cluster, l.row, l.text) }</li>
                        }) }
                    </ol>
                }
            </div>
            if !view.code.is_empty() {
                <CodeTabs snippets={view.code.clone()} title="The last lesson action as code" />
            }
            <p class="muted">{ "The console below runs on this instance: route a cbt command with app-profile= (set users user#1 cf:name=Ada app-profile=to-c1, then lookup users user#1 app-profile=to-c2 for a stale read), and use status, down c2, up c2, lag 5s, fault code=UNAVAILABLE rpc=MutateRow count=1, fault latency=2s cluster=c2 (waited on the playground's clock) and clear-faults." }</p>
            <ConsoleView entries={view.console.clone()} tables={vec![TABLE.to_string()]} files={Vec::<String>::new()}
                on_action={on_action.clone()} lesson={true} />
        </section>
    }
}
