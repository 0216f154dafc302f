//! The list of tables as tabs; clicking one shows its rows.

use yew::prelude::*;

use crate::state::{Action, TableSummary};

/// Props of [`TableTabs`].
#[derive(Properties, PartialEq)]
pub struct TableTabsProps {
    /// Every table.
    pub tables: Vec<TableSummary>,
    /// The table shown.
    pub selected: Option<String>,
    /// Receives `SelectTable`.
    pub on_action: Callback<Action>,
}

/// Tabs, one per table.
#[function_component(TableTabs)]
pub fn table_tabs(props: &TableTabsProps) -> Html {
    html! {
        <nav class="tabs" data-testid="tables">
            { for props.tables.iter().map(|t| {
                let active = props.selected.as_deref() == Some(t.name.as_str());
                let onclick = {
                    let (name, on_action) = (t.name.clone(), props.on_action.clone());
                    Callback::from(move |_| on_action.emit(Action::SelectTable(name.clone())))
                };
                html! {
                    <button type="button" class={classes!("tab", active.then_some("active"))}
                        data-testid="table-tab" {onclick}>
                        { &t.name }
                        <span class="muted">{ format!(" · {}", t.families.join(", ")) }</span>
                    </button>
                }
            }) }
        </nav>
    }
}
