//! A button for an action that destroys data (delete a table, reset the session): the first
//! press asks, in the page, what will be lost; only "Yes" under that question runs it, and
//! "Cancel" puts the button back. In the page rather than `window.confirm`, so it is styled,
//! reachable by keyboard and screen reader like the rest, and never blocks the page's thread.

use yew::prelude::*;

/// Props of [`ConfirmButton`].
#[derive(Properties, PartialEq)]
pub struct ConfirmButtonProps {
    /// The button's text ("Delete table").
    pub label: AttrValue,
    /// The question asked before it runs ("Delete table people and all its rows?").
    pub question: AttrValue,
    /// The `data-testid` of the button; the question's buttons get `-yes` and `-cancel`.
    pub testid: AttrValue,
    /// Runs the action, after "Yes".
    pub on_confirm: Callback<()>,
}

/// The two-step button.
#[function_component(ConfirmButton)]
pub fn confirm_button(props: &ConfirmButtonProps) -> Html {
    let asking = use_state(|| false);
    let set = |to: bool| {
        let asking = asking.clone();
        Callback::from(move |_: MouseEvent| asking.set(to))
    };
    if !*asking {
        return html! {
            <button type="button" class="ghost danger" data-testid={props.testid.clone()}
                onclick={set(true)}>{ props.label.clone() }</button>
        };
    }
    let yes = {
        let (asking, on_confirm) = (asking.clone(), props.on_confirm.clone());
        Callback::from(move |_: MouseEvent| {
            asking.set(false);
            on_confirm.emit(());
        })
    };
    html! {
        <span class="confirm" role="group" aria-label={props.question.clone()}>
            <span class="confirm-question">{ props.question.clone() }</span>
            <button type="button" class="danger" data-testid={format!("{}-yes", props.testid)}
                onclick={yes}>{ "Yes" }</button>
            <button type="button" class="ghost" data-testid={format!("{}-cancel", props.testid)}
                onclick={set(false)}>{ "Cancel" }</button>
        </span>
    }
}
