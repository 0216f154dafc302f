//! The form that creates a table: an id, comma-separated families, an optional version limit.

use yew::prelude::*;

use super::text_input::TextInput;
use crate::state::Action;

/// Props of [`TableForm`].
#[derive(Properties, PartialEq)]
pub struct TableFormProps {
    /// Receives the `CreateTable` action.
    pub on_action: Callback<Action>,
}

/// The "create table" form.
#[function_component(TableForm)]
pub fn table_form(props: &TableFormProps) -> Html {
    let table_id = use_state(|| "users".to_string());
    let families = use_state(|| "profile, stats".to_string());
    let max_versions = use_state(String::new);

    let onsubmit = {
        let (table_id, families, max_versions) =
            (table_id.clone(), families.clone(), max_versions.clone());
        let on_action = props.on_action.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            on_action.emit(Action::CreateTable {
                table_id: (*table_id).clone(),
                families: (*families).clone(),
                max_versions: (*max_versions).clone(),
            });
        })
    };
    let set = |handle: &UseStateHandle<String>| {
        let handle = handle.clone();
        Callback::from(move |v: String| handle.set(v))
    };

    html! {
        <form class="card" data-testid="create-table-form" {onsubmit}>
            <h2>{ "New table" }</h2>
            <TextInput label="Table id" id="table-id" value={(*table_id).clone()} on_change={set(&table_id)} />
            <TextInput label="Column families" id="families" value={(*families).clone()}
                placeholder="cf, meta" on_change={set(&families)} />
            <TextInput label="Keep versions (empty: all)" id="max-versions" value={(*max_versions).clone()}
                placeholder="all" on_change={set(&max_versions)} />
            <button type="submit" data-testid="create-table">{ "Create table" }</button>
        </form>
    }
}
