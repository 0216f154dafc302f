//! The root component: owns the [`Playground`] through a reducer, lays out the page and its
//! views, and keeps the session: restored at start from a share link (`#s=...`) or browser
//! storage, saved to browser storage shortly after each change.
//!
//! Saving reads every table (untracked) and deflates it, so it is debounced: a burst of writes
//! saves once, after the page has been idle for [`SAVE_DELAY_MS`].

use std::cell::RefCell;
use std::rc::Rc;

use gloo_timers::callback::Timeout;
use wasm_bindgen::prelude::*;
use yew::prelude::*;

use super::clock::Clock;
use super::code_tabs::CodeTabs;
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
use crate::session::{from_share_token, share_token};
use crate::state::{Action, Playground, View};

/// Where the session is kept between visits.
pub const STORAGE_KEY: &str = "sparsetable-playground-session";
/// Idle time before a change is saved.
pub const SAVE_DELAY_MS: u32 = 400;

fn storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

/// The session to start from: a share link's, else the stored one.
fn saved_session() -> Option<String> {
    let hash = web_sys::window()?.location().hash().ok()?;
    if let Some(token) = hash.strip_prefix("#s=") {
        return from_share_token(token).ok();
    }
    let token = storage()?.get_item(STORAGE_KEY).ok().flatten()?;
    from_share_token(&token).ok()
}

/// A fresh playground, with the saved session if there is one.
fn start() -> Playground {
    // The clock starts at the page's load time, on a whole millisecond (MILLIS tables).
    let mut p = Playground::new((js_sys::Date::now() as i64) * 1000);
    if let Some(json) = saved_session() {
        p.apply(Action::ImportJson(json));
    }
    p
}

/// Installs `window.sparsetable`: `readJson(table, requestJson)` reads through the engine
/// directly (untracked), for tests that compare what the page shows with what the engine
/// returns for the same request; `readyMs` is when the app first rendered.
fn expose(state: &Playground) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let p = state.clone();
    let read =
        Closure::<dyn Fn(String, String) -> JsValue>::new(move |table: String, request: String| {
            match p.read_keys_json(&table, &request) {
                Ok(keys) => JsValue::from(
                    keys.into_iter()
                        .map(JsValue::from)
                        .collect::<js_sys::Array>(),
                ),
                Err(e) => JsValue::from(format!("{}: {}", e.code, e.message)),
            }
        });
    let api = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&api, &"readJson".into(), read.as_ref());
    read.forget();
    let ready = window.performance().map_or(0.0, |p| p.now());
    let _ = js_sys::Reflect::set(&api, &"readyMs".into(), &ready.into());
    let _ = js_sys::Reflect::set(&window, &"sparsetable".into(), &api);
}

/// The playground page.
#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(start);
    let dispatch = {
        let state = state.clone();
        Callback::from(move |action: Action| state.dispatch(action))
    };
    let saved = use_state(|| AttrValue::from(""));
    {
        let state = state.clone();
        use_effect_with((), move |_| {
            // Ready: the static loading note goes, and the engine is reachable for tests.
            if let Some(el) = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.get_element_by_id("loading"))
            {
                el.remove();
            }
            expose(&state);
        });
    }
    let pending: Rc<RefCell<Option<Timeout>>> = use_mut_ref(|| None);
    {
        let (state, saved) = (state.clone(), saved.clone());
        use_effect_with(state.revision, move |&revision| {
            if revision > 0 {
                let state = state.clone();
                let timeout = Timeout::new(SAVE_DELAY_MS, move || {
                    let status = match state.export_json() {
                        Ok(json) => {
                            let token = share_token(&json, 1);
                            match storage().map(|s| s.set_item(STORAGE_KEY, &token)) {
                                Some(Ok(())) => {
                                    format!("Saved in this browser ({} KiB).", token.len() / 1024)
                                }
                                _ => "Not saved: the browser refused the storage (too large?)."
                                    .into(),
                            }
                        }
                        Err(e) => format!("Not saved: {}", e.message),
                    };
                    saved.set(status.into());
                });
                // Replacing the handle cancels the previous save (debounce).
                *pending.borrow_mut() = Some(timeout);
            }
        });
    }
    // --- lab (pglab): console, tablets, Key Visualizer, scenarios, key builder ---
    let lab = html! {
        <super::lab::LabPanel lab={state.lab.view.clone()}
            tables={state.tables.iter().map(|t| t.name.clone()).collect::<Vec<_>>()}
            on_action={dispatch.clone()} />
    };
    // --- end lab ---

    html! {
        <div class="page" data-testid="app">
            <header class="top">
                <div class="brand">
                    <h1>{ "Sparsetable" }</h1>
                    <p class="tagline">{ "Bigtable's data model, running in your browser." }</p>
                </div>
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
                            <QueryPanel table={state.selected.clone()} result={state.query.clone()} on_action={dispatch.clone()} />
                            { grid_section(&state, &dispatch) }
                        </>
                    },
                    View::Session => html! {
                        <SessionPanel state={Rc::new((*state).clone())} saved={(*saved).clone()} on_action={dispatch.clone()} />
                    },
                } }
            </main>
            { lab }
        </div>
    }
}

/// The table tabs and the grid (or a hint when there is no table).
fn grid_section(state: &Playground, dispatch: &Callback<Action>) -> Html {
    html! {
        <section class="panel data" aria-label="Rows">
            <TableTabs tables={state.tables.clone()} selected={state.selected.clone()} on_action={dispatch.clone()} />
            if state.selected.is_some() {
                <GridView grid={state.grid.clone()} hits={state.hits.clone()} on_action={dispatch.clone()} />
            } else {
                <p class="hint">{ "Create a table to begin: give it an id and one or more column families." }</p>
            }
        </section>
    }
}

/// The Data view: the forms and GC rules beside the selected table's grid and drawer.
fn data_view(state: &Playground, dispatch: &Callback<Action>) -> Html {
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
                <TableForm on_action={dispatch.clone()} />
                <WriteForm
                    table={selected.clone()}
                    families={state.selected_families().to_vec()}
                    on_action={dispatch.clone()}
                />
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
                        { for t.families.iter().zip(&t.gc_rules).map(|(f, r)| html! {
                            <GcEditor family={f.clone()} rule={r.clone()} on_action={dispatch.clone()} />
                        }) }
                    </div>
                }
            </section>
            <div class="panel">
                { grid_section(state, dispatch) }
                if let Some(d) = &state.drawer {
                    <VersionsDrawer drawer={d.clone()} on_action={dispatch.clone()} />
                }
                if let Some(code) = &state.last_write {
                    <CodeTabs snippets={code.clone()} title="The last write as code" />
                }
            </div>
        </div>
    }
}
