//! The form that writes one cell of the selected table at the playground's clock time. The
//! value is typed: text, hex, int64 (8 bytes big-endian, a Bigtable counter) or JSON; the
//! reducer reads it ([`ValueType::parse`]) and a bad input is the error banner's, writing
//! nothing. The value is held as an `AttrValue` (shared, not copied) so a megabytes-long
//! value does not cost a copy on every render of the page.

use web_sys::HtmlSelectElement;
use yew::prelude::*;

use super::text_input::TextInput;
use crate::state::Action;
use crate::value_input::ValueType;

/// Props of [`WriteForm`].
#[derive(Properties, PartialEq)]
pub struct WriteFormProps {
    /// The selected table, if any.
    pub table: Option<String>,
    /// Its families, for the family picker.
    pub families: Vec<String>,
    /// Receives the `WriteCell` action.
    pub on_action: Callback<Action>,
}

/// The "write a cell" form.
#[function_component(WriteForm)]
pub fn write_form(props: &WriteFormProps) -> Html {
    let row_key = use_state(|| "user#1".to_string());
    let family = use_state(String::new);
    let qualifier = use_state(|| "name".to_string());
    let value = use_state(AttrValue::default);
    let value_type = use_state(ValueType::default);

    // The picked family, or the table's first when none (or a stale one) is picked.
    let chosen = if props.families.contains(&*family) {
        (*family).clone()
    } else {
        props.families.first().cloned().unwrap_or_default()
    };

    let onsubmit = {
        let (row_key, qualifier) = (row_key.clone(), qualifier.clone());
        let (value, value_type) = (value.clone(), value_type.clone());
        let chosen = chosen.clone();
        let on_action = props.on_action.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            on_action.emit(Action::WriteCell {
                row_key: (*row_key).clone(),
                family: chosen.clone(),
                qualifier: (*qualifier).clone(),
                value: value.to_string(),
                value_type: *value_type,
            });
            // A long value leaves the field once sent: the browser lays a megabytes-long line
            // out again on every change of the page (most of a second each for 10 MB).
            if value.len() > crate::display::PREVIEW_BYTES {
                value.set(AttrValue::default());
            }
        })
    };
    let on_family = {
        let family = family.clone();
        Callback::from(move |e: Event| {
            family.set(e.target_unchecked_into::<HtmlSelectElement>().value())
        })
    };
    let on_type = {
        let value_type = value_type.clone();
        Callback::from(move |e: Event| {
            let label = e.target_unchecked_into::<HtmlSelectElement>().value();
            value_type.set(ValueType::from_label(&label).unwrap_or_default());
        })
    };
    let on_value = {
        let value = value.clone();
        Callback::from(move |v: String| value.set(v.into()))
    };
    let set = |handle: &UseStateHandle<String>| {
        let handle = handle.clone();
        Callback::from(move |v: String| handle.set(v))
    };

    html! {
        <form class="card" data-testid="write-form" {onsubmit}>
            <h2>
                { "Write a cell" }
                if let Some(t) = &props.table {
                    <span class="muted">{ format!(" to {t}") }</span>
                }
            </h2>
            <TextInput label="Row key" id="row-key" value={(*row_key).clone()} on_change={set(&row_key)} />
            <label class="field">
                <span>{ "Family" }</span>
                <select name="family" data-testid="family" onchange={on_family} disabled={props.families.is_empty()}>
                    { for props.families.iter().map(|f| html! {
                        <option value={f.clone()} selected={*f == chosen}>{ f }</option>
                    }) }
                </select>
            </label>
            <TextInput label="Qualifier" id="qualifier" value={(*qualifier).clone()} on_change={set(&qualifier)} />
            <label class="field">
                <span>{ "Value type" }</span>
                <select name="value-type" data-testid="value-type" onchange={on_type}>
                    { for ValueType::ALL.iter().map(|t| html! {
                        <option value={t.label()} selected={*t == *value_type}>{ t.label() }</option>
                    }) }
                </select>
            </label>
            <TextInput label="Value" id="value" value={(*value).clone()} placeholder={value_type.example()} on_change={on_value} />
            <button type="submit" data-testid="write" disabled={props.table.is_none()}>{ "Write at clock time" }</button>
        </form>
    }
}
