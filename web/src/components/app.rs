//! The root component: owns the [`Playground`] through a reducer and lays out the page.

use yew::prelude::*;

use super::clock::Clock;
use super::error_banner::ErrorBanner;
use super::grid::GridView;
use super::table_form::TableForm;
use super::table_tabs::TableTabs;
use super::view_tabs::ViewTabs;
use super::write_form::WriteForm;
use crate::state::{Action, Playground, View};

/// The playground page.
#[function_component(App)]
pub fn app() -> Html {
    // The clock starts at the page's load time, on a whole millisecond (MILLIS tables).
    let state = use_reducer(|| Playground::new((js_sys::Date::now() as i64) * 1000));
    let dispatch = {
        let state = state.clone();
        Callback::from(move |action: Action| state.dispatch(action))
    };

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
            <ViewTabs view={state.view} on_action={dispatch.clone()} />
            { match state.view {
                View::Data => data_view(&state, &dispatch),
                View::Query | View::Session => html! {
                    <p class="hint">{ "This view is being built." }</p>
                },
            } }
        </div>
    }
}

/// The Data view: the forms beside the selected table's grid.
fn data_view(state: &Playground, dispatch: &Callback<Action>) -> Html {
    let selected = state.selected.clone();
    html! {
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
                    <GridView grid={state.grid.clone()} on_action={dispatch.clone()} />
                } else {
                    <p class="hint">{ "Create a table to begin: give it an id and one or more column families." }</p>
                }
            </section>
        </main>
    }
}
