//! The inline error: the engine's gRPC code and message for the last failed action.

use yew::prelude::*;

use crate::state::{Action, ShownError};

/// Props of [`ErrorBanner`].
#[derive(Properties, PartialEq)]
pub struct ErrorBannerProps {
    /// The error to show, if any.
    pub error: Option<ShownError>,
    /// Receives `DismissError`.
    pub on_action: Callback<Action>,
}

/// Shows the error, or nothing.
#[function_component(ErrorBanner)]
pub fn error_banner(props: &ErrorBannerProps) -> Html {
    let Some(error) = &props.error else {
        return html! {};
    };
    let on_action = props.on_action.clone();
    let onclick = Callback::from(move |_| on_action.emit(Action::DismissError));
    html! {
        <div class="error" role="alert" data-testid="error">
            <code class="code" data-testid="error-code">{ &error.code }</code>
            <span data-testid="error-message">{ &error.message }</span>
            <button type="button" class="ghost" aria-label="Dismiss" {onclick}>{ "×" }</button>
        </div>
    }
}
