//! Keep and share: download the session as JSON (the core's proto3 JSON model) or CSV,
//! import either (paste or file), and a share link that carries the whole session, deflated,
//! in the URL's fragment (never sent to a server). The session also persists in the browser
//! by itself (see `app`).

use wasm_bindgen::JsCast;
use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

use super::confirm_button::ConfirmButton;

use crate::client::Client;
use crate::remote::Request;
use crate::state::Action;

/// Props of [`SessionPanel`].
#[derive(Properties, PartialEq)]
pub struct SessionPanelProps {
    /// The engine (to export from).
    pub client: Client,
    /// Receives the imports.
    pub on_action: Callback<Action>,
    /// Whether the last save to browser storage worked, and what it said.
    pub saved: AttrValue,
}

/// Offers `text` as a file download.
fn download(name: &str, mime: &str, text: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let parts = js_sys::Array::of1(&text.into());
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    if let Ok(a) = document.create_element("a") {
        let a: web_sys::HtmlAnchorElement = a.unchecked_into();
        a.set_href(&url);
        a.set_download(name);
        a.click();
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}

/// The panel.
#[function_component(SessionPanel)]
pub fn session_panel(props: &SessionPanelProps) -> Html {
    let text = use_state(String::new);
    let link = use_state(String::new);
    let export = |csv: bool| {
        let (client, text) = (props.client.clone(), text.clone());
        Callback::from(move |_| {
            let text = text.clone();
            client.ask_text(
                move |id| Request::Export { id, csv },
                move |out| match out {
                    Ok(body) => {
                        let (name, mime) = if csv {
                            ("sparsetable.csv", "text/csv")
                        } else {
                            ("sparsetable.json", "application/json")
                        };
                        download(name, mime, &body);
                        text.set(body);
                    }
                    Err(e) => text.set(format!("export failed: {} {}", e.code, e.message)),
                },
            );
        })
    };
    let import = |csv: bool| {
        let (on_action, text) = (props.on_action.clone(), text.clone());
        Callback::from(move |_| {
            let body = (*text).clone();
            on_action.emit(if csv {
                Action::ImportCsv(body)
            } else {
                Action::ImportJson(body)
            });
        })
    };
    let on_text = {
        let text = text.clone();
        Callback::from(move |e: InputEvent| {
            text.set(e.target_unchecked_into::<HtmlTextAreaElement>().value())
        })
    };
    let on_file = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let Some(file) = input.files().and_then(|f| f.get(0)) else {
                return;
            };
            let csv = file.name().to_lowercase().ends_with(".csv");
            let on_action = on_action.clone();
            wasm_bindgen_futures::spawn_local(async move {
                if let Ok(v) = wasm_bindgen_futures::JsFuture::from(file.text()).await {
                    let body = v.as_string().unwrap_or_default();
                    on_action.emit(if csv {
                        Action::ImportCsv(body)
                    } else {
                        Action::ImportJson(body)
                    });
                }
            });
        })
    };
    let share = {
        let (client, link) = (props.client.clone(), link.clone());
        Callback::from(move |_| {
            let link = link.clone();
            client.ask_text(
                |id| Request::Share { id },
                move |token| {
                    let Some(window) = web_sys::window() else {
                        return;
                    };
                    let token = match token {
                        Ok(token) => token,
                        Err(e) => {
                            link.set(format!("no link: {} {}", e.code, e.message));
                            return;
                        }
                    };
                    let location = window.location();
                    let base = format!(
                        "{}{}",
                        location.origin().unwrap_or_default(),
                        location.pathname().unwrap_or_default()
                    );
                    let url = format!("{base}#s={token}");
                    let _ = window.navigator().clipboard().write_text(&url);
                    link.set(url);
                },
            );
        })
    };
    html! {
        <div class="session-view">
            <section class="card" data-testid="share">
                <h2>{ "Share" }</h2>
                <p class="muted">{ "A link that opens these tables and rows in any browser: the data travels deflated in the link's #fragment, never through a server." }</p>
                <button type="button" onclick={share} data-testid="share-button">{ "Copy share link" }</button>
                if !link.is_empty() {
                    <label class="field"><span>{ format!("Link ({} characters)", link.len()) }</span>
                        <input type="text" readonly=true value={(*link).clone()} data-testid="share-url" /></label>
                }
                <p class="muted" data-testid="saved-status">{ props.saved.clone() }</p>
            </section>
            <section class="card">
                <h2>{ "Export and import" }</h2>
                <div class="buttons">
                    <button type="button" onclick={export(false)} data-testid="export-json">{ "Export JSON" }</button>
                    <button type="button" onclick={export(true)} data-testid="export-csv">{ "Export CSV" }</button>
                </div>
                <label class="field"><span>{ "Paste an export to import it (tables must not exist yet)" }</span>
                    <textarea rows="8" value={(*text).clone()} oninput={on_text} data-testid="session-text" spellcheck="false" />
                </label>
                <div class="buttons">
                    <button type="button" class="ghost" onclick={import(false)} data-testid="import-json">{ "Import JSON" }</button>
                    <button type="button" class="ghost" onclick={import(true)} data-testid="import-csv">{ "Import CSV" }</button>
                    <label class="ghost file">{ "Import a file…" }
                        <input type="file" accept=".json,.csv,application/json,text/csv" onchange={on_file} data-testid="import-file" /></label>
                </div>
            </section>
            <section class="card">
                <h2>{ "Start again" }</h2>
                <p class="muted">{ "Deletes every table in this browser's session (export first to keep a copy)." }</p>
                <ConfirmButton label="Reset session" testid="reset-session"
                    question="Delete every table and start an empty session?"
                    on_confirm={props.on_action.reform(|()| Action::ResetSession)} />
            </section>
        </div>
    }
}
