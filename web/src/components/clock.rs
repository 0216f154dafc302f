//! The playground's clock: the time the engine stamps writes with, and buttons to move it.

use yew::prelude::*;

use crate::state::Action;

/// Props of [`Clock`].
#[derive(Properties, PartialEq)]
pub struct ClockProps {
    /// The engine's time.
    pub now_micros: i64,
    /// Receives `AdvanceClock`.
    pub on_action: Callback<Action>,
}

/// A timestamp as UTC ISO-8601, via the browser's `Date`.
pub fn iso(micros: i64) -> String {
    let date = js_sys::Date::new(&((micros / 1000) as f64).into());
    date.to_iso_string().into()
}

/// The clock display and its controls.
#[function_component(Clock)]
pub fn clock(props: &ClockProps) -> Html {
    let step = |label: &'static str, micros: i64| {
        let on_action = props.on_action.clone();
        let onclick = Callback::from(move |_| on_action.emit(Action::AdvanceClock(micros)));
        html! { <button type="button" class="ghost" {onclick}>{ label }</button> }
    };
    html! {
        <div class="clock" title="Writes take this time (Bigtable's server time); each write moves it 1 ms.">
            <div>
                <span class="label">{ "Clock" }</span>
                <code data-testid="clock-micros">{ props.now_micros }</code>
                <span class="muted">{ iso(props.now_micros) }</span>
            </div>
            <div class="steps">
                { step("+1 s", 1_000_000) }
                { step("+1 min", 60_000_000) }
                { step("+1 h", 3_600_000_000) }
            </div>
        </div>
    }
}
