//! The view switcher: one tab per view of the page (Data, Query, Session, and the lab's).

use yew::prelude::*;

use crate::state::{Action, View};

/// Props of [`ViewTabs`].
#[derive(Properties, PartialEq)]
pub struct ViewTabsProps {
    /// The view shown.
    pub view: View,
    /// Receives `ShowView`.
    pub on_action: Callback<Action>,
}

/// A tab list over [`View::ALL`]; arrow keys are not needed: every tab is a button in the
/// tab order.
#[function_component(ViewTabs)]
pub fn view_tabs(props: &ViewTabsProps) -> Html {
    html! {
        <div class="views" role="tablist" aria-label="Views" data-testid="views">
            { for View::ALL.iter().map(|&v| {
                let active = v == props.view;
                let onclick = {
                    let on_action = props.on_action.clone();
                    Callback::from(move |_| on_action.emit(Action::ShowView(v)))
                };
                html! {
                    <button type="button" role="tab" aria-selected={active.to_string()}
                        class={classes!("view-tab", active.then_some("active"))}
                        data-testid={format!("view-{}", v.label().to_lowercase())} {onclick}>
                        { v.label() }
                    </button>
                }
            }) }
        </div>
    }
}
