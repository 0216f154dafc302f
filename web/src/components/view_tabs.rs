//! The view switcher: one tab per view of the page (Data, Query, Session, and the lab's).

use wasm_bindgen::JsCast;
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

/// A tab list over [`View::ALL`], with the ARIA tabs pattern's keyboard: the selected tab is
/// in the tab order and the others are not; Left and Right arrows (Home and End) move to and
/// select the previous or next tab.
#[function_component(ViewTabs)]
pub fn view_tabs(props: &ViewTabsProps) -> Html {
    let at = View::ALL.iter().position(|&v| v == props.view).unwrap_or(0);
    let onkeydown = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: KeyboardEvent| {
            let n = View::ALL.len();
            let next = match e.key().as_str() {
                "ArrowRight" => (at + 1) % n,
                "ArrowLeft" => (at + n - 1) % n,
                "Home" => 0,
                "End" => n - 1,
                _ => return,
            };
            e.prevent_default();
            on_action.emit(Action::ShowView(View::ALL[next]));
            // Focus follows the selection: the tab list's `next`-th button (found from the key's
            // target, a tab: Yew delegates events, so the current target is not the list).
            let tab = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|tab| tab.parent_element())
                .and_then(|list| list.children().item(next as u32))
                .and_then(|b| b.dyn_into::<web_sys::HtmlElement>().ok());
            if let Some(tab) = tab {
                let _ = tab.focus();
            }
        })
    };
    html! {
        <div class="views" role="tablist" aria-label="Views" data-testid="views" {onkeydown}>
            { for View::ALL.iter().map(|&v| {
                let active = v == props.view;
                let onclick = {
                    let on_action = props.on_action.clone();
                    Callback::from(move |_| on_action.emit(Action::ShowView(v)))
                };
                html! {
                    <button type="button" role="tab" aria-selected={active.to_string()}
                        tabindex={if active { "0" } else { "-1" }}
                        class={classes!("view-tab", active.then_some("active"))}
                        data-testid={format!("view-{}", v.label().to_lowercase())} {onclick}>
                        { v.label() }
                    </button>
                }
            }) }
        </div>
    }
}
