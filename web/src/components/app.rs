//! The root component: starts the engine's worker ([`Client`]), keeps the page's copy of the
//! views ([`Shown`]) through a reducer fed by the worker's updates, and lays out the page.
//!
//! The engine never runs on this thread: an action goes to the worker and the views change
//! when its update comes back, so input is handled while the engine works. Until the worker's
//! first update the page shows the static loading note. The session is restored by the worker
//! at start (from a share link, `#s=...`, or IndexedDB) and saved by it to IndexedDB shortly
//! after each change; the page only shows how the last save went.

use wasm_bindgen::prelude::*;
use yew::prelude::*;

use super::clock::Clock;
use super::code_tabs::CodeTabs;
use super::confirm_button::ConfirmButton;
use super::drawer::VersionsDrawer;
use super::error_banner::ErrorBanner;
use super::gc_editor::GcEditor;
use super::grid::GridView;
use super::query_panel::QueryPanel;
use super::session_panel::SessionPanel;
use super::table_form::TableForm;
use super::table_tabs::TableTabs;
use super::view_tabs::ViewTabs;
use super::write_form::WriteForm;
use crate::client::Client;
use crate::lab::replication::ReplAction;
use crate::lab::LabAction;
use crate::remote::{Answer, PageEvent, Request, Shown};
use crate::state::{Action, View};

/// Installs `window.sparsetable`: `readJson(table, requestJson)` asks the engine for the keys
/// a read returns (untracked; a promise of the keys, or of the error as text), for tests that
/// compare what the page shows with what the engine returns for the same request; `readyMs`
/// is when the engine's first update arrived (time to interactive).
fn expose(client: &Client) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let client = client.clone();
    let read = Closure::<dyn Fn(String, String) -> js_sys::Promise>::new(
        move |table: String, request: String| {
            let client = client.clone();
            js_sys::Promise::new(&mut move |resolve, _reject| {
                let (table, request) = (table.clone(), request.clone());
                client.ask(
                    move |id| Request::ReadKeys { id, table, request },
                    move |result| {
                        let value = match result {
                            Ok(Answer::Keys(keys)) => JsValue::from(
                                keys.into_iter()
                                    .map(JsValue::from)
                                    .collect::<js_sys::Array>(),
                            ),
                            Ok(Answer::Text(text)) => JsValue::from(text),
                            Err(e) => JsValue::from(format!("{}: {}", e.code, e.message)),
                        };
                        let _ = resolve.call1(&JsValue::NULL, &value);
                    },
                );
            })
        },
    );
    let api = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&api, &"readJson".into(), read.as_ref());
    read.forget();
    let ready = window.performance().map_or(0.0, |p| p.now());
    let _ = js_sys::Reflect::set(&api, &"readyMs".into(), &ready.into());
    let _ = js_sys::Reflect::set(&window, &"sparsetable".into(), &api);
}

/// Removes the static "Loading the engine…" note of index.html.
fn remove_loading_note() {
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("loading"))
    {
        el.remove();
    }
}

/// The playground page.
#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(Shown::default);
    let saved = use_state(|| AttrValue::from(""));
    let failure = use_state(|| None::<String>);
    let client = {
        let (updates, saved, failed) = (state.dispatcher(), saved.setter(), failure.setter());
        use_memo((), move |_| {
            Client::spawn(
                Callback::from(move |batch| updates.dispatch(PageEvent::Updated(batch))),
                Callback::from(move |status: String| saved.set(status.into())),
                Callback::from(move |why: String| failed.set(Some(why))),
            )
            .map_err(|e| format!("this browser cannot run a module worker ({e:?})"))
        })
    };
    {
        // Whatever stopped the engine replaces the loading note.
        let failed = client.is_err() || failure.is_some();
        use_effect_with(failed, move |&failed| {
            if failed {
                remove_loading_note();
            }
        });
    }
    {
        let client = (*client).clone().ok();
        use_effect_with(state.ready, move |&ready| {
            if let (true, Some(client)) = (ready, client) {
                // Ready: the static loading note goes, and the engine is reachable for tests.
                remove_loading_note();
                expose(&client);
            }
        });
    }
    // Every hook is above this line: what follows may return early. The engine runs only if
    // its worker started and has not failed since.
    let client = match (&*client, &*failure) {
        (Ok(client), None) => client.clone(),
        (Err(why), _) | (Ok(_), Some(why)) => {
            return html! {
                <p class="error engine-failed" role="alert" data-testid="engine-failed">
                    { format!("The engine stopped: {why}. Reload the page to try again.") }
                </p>
            };
        }
    };
    let dispatch = {
        let (client, events) = (client.clone(), state.dispatcher());
        Callback::from(move |action: Action| {
            client.act(action);
            events.dispatch(PageEvent::Sent);
        })
    };
    if !state.ready {
        return html! {};
    }
    // --- lab (pglab): console, tablets, Key Visualizer, scenarios, key builder ---
    let lab = html! {
        <super::lab::LabPanel lab={state.lab.clone()} events={state.lab_events.clone()}
            tables={state.tables.iter().map(|t| t.name.clone()).collect::<Vec<_>>()}
            on_action={dispatch.clone()} />
    };
    // --- end lab ---

    html! {
        <div class="page" data-testid="app" data-busy={(state.in_flight > 0).to_string()}>
            <header class="top">
                <div class="brand">
                    <h1>{ "Sparsetable" }</h1>
                    <p class="tagline">{ "Bigtable's data model, running in your browser." }</p>
                </div>
                // The engine works in its own thread: the page says when it is catching up.
                <p class="busy" role="status" data-testid="busy">
                    if state.in_flight > 0 {
                        <span class="spinner" aria-hidden="true"></span>{ format!(" engine working ({} queued)", state.in_flight) }
                    }
                </p>
                <Clock now_micros={state.now_micros} on_action={dispatch.clone()} />
            </header>
            <ErrorBanner error={state.error.clone()} on_action={dispatch.clone()} />
            if let Some(notice) = &state.notice {
                <p class="notice" role="status" data-testid="notice">{ notice }</p>
            }
            <nav aria-label="Views"><ViewTabs view={state.view} on_action={dispatch.clone()} /></nav>
            <main id="view" class={format!("view-{}", state.view.label().to_lowercase())}>
                { match state.view {
                    View::Data => data_view(&state, &dispatch),
                    View::Query => html! {
                        <>
                            <QueryPanel table={state.selected.clone()} result={state.query.clone()} preset={state.query_preset.clone()} on_action={dispatch.clone()} />
                            { grid_section(&state, &dispatch) }
                        </>
                    },
                    View::Session => html! {
                        <SessionPanel client={client.clone()} saved={(*saved).clone()} on_action={dispatch.clone()} />
                    },
                } }
            </main>
            { lab }
        </div>
    }
}

/// The table tabs and the grid (or a hint when there is no table).
fn grid_section(state: &Shown, dispatch: &Callback<Action>) -> Html {
    html! {
        <section class="panel data" aria-label="Rows">
            <TableTabs tables={state.tables.clone()} selected={state.selected.clone()} on_action={dispatch.clone()} />
            if let Some(table) = state.selected.clone() {
                <div class="table-actions">
                    { gc_controls(state, dispatch, &table) }
                    <ConfirmButton key={table.clone()} label="Delete table" testid="delete-table"
                        question={format!("Delete table {table} and all its rows?")}
                        on_confirm={{ let table = table.clone(); dispatch.reform(move |()| Action::DeleteTable(table.clone())) }} />
                </div>
                <GridView grid={state.grid.clone()} hits={state.hits.clone()} on_action={dispatch.clone()} />
            } else {
                <p class="hint">{ "Create a table to begin: give it an id and one or more column families." }</p>
            }
        </section>
    }
}

/// The GC mode switch (saved with the session) and "Collect now" for the selected table.
fn gc_controls(state: &Shown, dispatch: &Callback<Action>, table: &str) -> Html {
    let on_mode = dispatch.reform(|e: Event| Action::SetGcMode {
        background: e
            .target_unchecked_into::<web_sys::HtmlSelectElement>()
            .value()
            == "background",
    });
    html! {
        <div class="gc-controls" data-testid="gc-controls">
            <label class="inline">{ "Garbage collection: " }
                <select data-testid="gc-mode" onchange={on_mode} aria-describedby="gc-mode-help">
                    <option value="background" selected={state.gc_background}>{ "Background (as Bigtable)" }</option>
                    <option value="immediate" selected={!state.gc_background}>{ "Immediate" }</option>
                </select>
            </label>
            <button type="button" class="ghost" data-testid="collect-now"
                onclick={dispatch.reform(|_| Action::CollectGarbage)}>{ format!("Collect now ({table})") }</button>
            <p class="muted" id="gc-mode-help" data-testid="gc-mode-help">{
                if state.gc_background {
                    "Background, the playground's default because it is what Bigtable does: cells a GC rule makes collectable stay readable (badged \"eligible for GC\") until a collection removes them, which in Bigtable runs in the background, typically days later. Collect now plays that collection."
                } else {
                    "Immediate: reads hide collectable cells at once (the engine's own default), so results never depend on when a collection ran. Bigtable does not do this: its reads return eligible cells until they are collected."
                }
            }</p>
        </div>
    }
}

/// The first screen's way in: a lesson with one click (the lab below shows it).
fn welcome(dispatch: &Callback<Action>) -> Html {
    let start = |action: LabAction| {
        let dispatch = dispatch.clone();
        Callback::from(move |_| {
            dispatch.emit(Action::Lab(action.clone()));
            // The lesson runs in the lab, below the fold on a small screen.
            if let Some(lab) = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.query_selector("[data-testid=lab]").ok().flatten())
            {
                lab.scroll_into_view();
            }
        })
    };
    html! {
        <div class="card welcome" data-testid="welcome">
            <h2>{ "New to Bigtable? Start with a lesson" }</h2>
            <p class="muted">{ "Each one builds its own tables and walks you through what to look at, with every action shown as code." }</p>
            <div class="buttons">
                <button type="button" data-testid="welcome-replication"
                    onclick={start(LabAction::Replication(ReplAction::Start { clusters: 3 }))}>
                    { "Replication: three clusters, lag, conflicts, failover" }</button>
                <button type="button" class="ghost" data-testid="welcome-hotspots"
                    onclick={start(LabAction::RunScenario("hotspots".into()))}>
                    { "Row keys and hotspots" }</button>
            </div>
            <p class="muted">{ "Or create a table of your own below." }</p>
        </div>
    }
}

/// The Data view: the forms and GC rules beside the selected table's grid and drawer.
fn data_view(state: &Shown, dispatch: &Callback<Action>) -> Html {
    let selected = state.selected.clone();
    let sample = |rows: u32, label: &'static str, id: &'static str| {
        let dispatch = dispatch.clone();
        html! {
            <button type="button" class="ghost" data-testid={id} disabled={selected.is_none()}
                onclick={Callback::from(move |_| dispatch.emit(Action::LoadSample(rows)))}>{ label }</button>
        }
    };
    html! {
        <div class="data-view">
            <section class="panel forms" aria-label="Tables and writes">
                if state.tables.is_empty() {
                    { welcome(dispatch) }
                }
                <TableForm on_action={dispatch.clone()} />
                // A write needs a table: the first screen leads into a lesson instead.
                if !state.tables.is_empty() {
                    <WriteForm
                        table={selected.clone()}
                        families={state.selected_families().to_vec()}
                        on_action={dispatch.clone()}
                    />
                }
                <div class="card">
                    <h2>{ "Sample data" }</h2>
                    <p class="muted">{ "Rows user#000000… with a name and an 8-byte visits counter, in the table's first family." }</p>
                    <div class="buttons">
                        { sample(1_000, "Load 1,000 rows", "load-1k") }
                        { sample(100_000, "Load 100,000 rows", "load-100k") }
                    </div>
                </div>
                if let Some(t) = state.selected_table() {
                    <div class="card" data-testid="gc-rules">
                        <h2>{ "GC rules" }</h2>
                        if state.gc_background {
                            <p class="muted" data-testid="gc-rules-hint">
                                { "A rule makes cells eligible for garbage collection; as in Bigtable they stay readable until a collection removes them. Bigtable's documentation advises a read filter that mirrors the rule. " }
                                <button type="button" class="ghost" data-testid="gc-filter" onclick={dispatch.reform(|_| Action::ReadWithGcFilter)}>
                                    { "Read with the mirroring filter" }</button>
                            </p>
                        }
                        { for t.families.iter().zip(&t.gc_rules).map(|(f, r)| html! {
                            <GcEditor family={f.clone()} rule={r.clone()} preview={state.gc_preview.clone()}
                                background={state.gc_background} on_action={dispatch.clone()} />
                        }) }
                    </div>
                }
            </section>
            <div class="panel">
                { grid_section(state, dispatch) }
                if let Some(d) = &state.drawer {
                    <VersionsDrawer key={format!("{:?}/{}/{:?}", d.row_key, d.family, d.qualifier)}
                        drawer={d.clone()} on_action={dispatch.clone()} />
                }
                if let Some(code) = &state.last_write {
                    <CodeTabs snippets={code.clone()} title="The last change as code" />
                }
            </div>
        </div>
    }
}
