//! A labelled text field whose value lives in the parent's state.

use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Props of [`TextInput`].
#[derive(Properties, PartialEq)]
pub struct TextInputProps {
    /// The label shown above the field.
    pub label: AttrValue,
    /// The `data-testid` (and `name`) of the input.
    pub id: AttrValue,
    /// The current value.
    pub value: AttrValue,
    /// Placeholder text.
    #[prop_or_default]
    pub placeholder: AttrValue,
    /// Called with the new value on every keystroke.
    pub on_change: Callback<String>,
}

/// A labelled `<input type="text">`.
#[function_component(TextInput)]
pub fn text_input(props: &TextInputProps) -> Html {
    let on_change = props.on_change.clone();
    let oninput = Callback::from(move |e: InputEvent| {
        on_change.emit(e.target_unchecked_into::<HtmlInputElement>().value());
    });
    html! {
        <label class="field">
            <span>{ props.label.clone() }</span>
            <input
                type="text"
                name={props.id.clone()}
                data-testid={props.id.clone()}
                value={props.value.clone()}
                placeholder={props.placeholder.clone()}
                autocomplete="off"
                spellcheck="false"
                {oninput}
            />
        </label>
    }
}
