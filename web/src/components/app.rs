//! The root component: owns the [`Playground`] through a reducer and lays out the page.

use yew::prelude::*;

use super::clock::Clock;
use super::error_banner::ErrorBanner;
use super::grid::GridView;
use super::table_form::TableForm;
use super::table_tabs::TableTabs;
use super::write_form::WriteForm;
use crate::state::{Action, Playground};

/// The playground page.
#[function_component(App)]
pub fn app() -> Html {
    // The clock starts at the page's load time, on a whole millisecond (MILLIS tables).
    let state = use_reducer(|| Playground::new((js_sys::Date::now() as i64) * 1000));
    let dispatch = {
        let state = state.clone();
        Callback::from(move |action: Action| state.dispatch(action))
    };
    let selected = state.selected.clone();
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
            <main>
                <section class="panel forms">
                    <TableForm on_action={dispatch.clone()} />
                    <WriteForm
                        table={selected.clone()}
                        families={state.selected_families().to_vec()}
                        on_action={dispatch.clone()}
                    />
                </section>
                <section class="panel data">
                    <TableTabs tables={state.tables.clone()} selected={selected.clone()} on_action={dispatch.clone()} />
                    if selected.is_some() {
                        <GridView grid={state.grid.clone()} on_action={dispatch} />
                    } else {
                        <p class="hint">{ "Create a table to begin: give it an id and one or more column families." }</p>
                    }
                </section>
            </main>
            { lab }
        </div>
    }
}
