//! The versions drawer: every stored version of one cell, newest first, with its timestamp
//! (also as a date) and its value as text, hex, and int64 when it is 8 bytes. Versions the
//! family's GC rule hides from reads are greyed with the rule that hides them, as the engine
//! reports it (`Database::read_row_versions`). Deletes of a version, the column, the family
//! from the row, and the row start here. Keyboard: the drawer takes focus (its close button)
//! when it opens, Escape closes it, and focus goes back to what had it before (the cell).
//!
//! A value past [`crate::display::PREVIEW_BYTES`] shows its first bytes (text, and hex of the first
//! [`HEX_PREVIEW_BYTES`]) and its size: the worker sends it cut. "Show all" asks the worker
//! for that version whole (`Action::ShowWholeVersion`) and renders its text. Sending and
//! rendering every value whole (a 10 MB value is 10 MB of text and a 20 MB hex string) froze
//! the page for seconds on open and most of a second per later click.

use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::clock::iso;
use crate::codegen::hex;
use crate::display::size_of;
use crate::state::{as_int64, display_bytes, Action, Drawer};

/// How many bytes of a value the drawer writes in hex (two characters each).
pub const HEX_PREVIEW_BYTES: usize = 1024;

/// Props of [`VersionsDrawer`].
#[derive(Properties, PartialEq)]
pub struct DrawerProps {
    /// The open drawer.
    pub drawer: Drawer,
    /// Receives the deletes and `CloseDrawer`.
    pub on_action: Callback<Action>,
}

/// The drawer.
#[function_component(VersionsDrawer)]
pub fn versions_drawer(props: &DrawerProps) -> Html {
    let d = &props.drawer;
    let emit = |action: Action| {
        let on_action = props.on_action.clone();
        Callback::from(move |_| on_action.emit(action.clone()))
    };
    let column = format!("{}:{}", d.family, display_bytes(&d.qualifier));
    let close_ref = use_node_ref();
    {
        // On open (or when it shows another cell): remember what had focus and move it to the
        // close button; on close, give it back.
        let close_ref = close_ref.clone();
        let cell = (d.row_key.clone(), d.family.clone(), d.qualifier.clone());
        use_effect_with(cell, move |_| {
            let document = web_sys::window().and_then(|w| w.document());
            let before = document
                .as_ref()
                .and_then(|d| d.active_element())
                .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
            if let Some(close) = close_ref.cast::<web_sys::HtmlElement>() {
                let _ = close.focus();
            }
            move || {
                if let Some(el) = before {
                    let _ = el.focus();
                }
            }
        });
    }
    let onkeydown = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" {
                e.prevent_default();
                on_action.emit(Action::CloseDrawer);
            }
        })
    };
    html! {
        <aside class="drawer card" data-testid="drawer" aria-label={format!("Versions of {column}")} {onkeydown}>
            <div class="drawer-head">
                <h2>
                    { "Versions of " }<code>{ &column }</code>
                    { " in row " }<code>{ display_bytes(&d.row_key) }</code>
                </h2>
                <button type="button" class="ghost" data-testid="drawer-close" aria-label="Close versions"
                    ref={close_ref} onclick={emit(Action::CloseDrawer)}>{ "×" }</button>
            </div>
            <p class="muted" data-testid="drawer-rule">{ format!("GC rule of {}: {}", d.family, if d.rule.is_empty() { "none" } else { &d.rule }) }</p>
            if d.versions.is_empty() {
                <p class="hint">{ "No stored versions." }</p>
            }
            if d.versions.iter().any(|v| v.eligible_by.is_some()) {
                <p class="hint" data-testid="gc-filter-hint">
                    { "As in Bigtable, eligible versions stay readable until garbage collection runs (there, typically days later). Bigtable's documentation advises adding a read filter that mirrors the GC rule, so reads never return them. " }
                    <button type="button" class="ghost" data-testid="drawer-gc-filter" onclick={emit(Action::ReadWithGcFilter)}>
                        { "Read with the mirroring filter" }</button>
                </p>
            }
            <ol class="versions-list">
                { for d.versions.iter().map(|v| {
                    let del = emit(Action::DeleteCellVersion {
                        row_key: d.row_key.clone(), family: d.family.clone(),
                        qualifier: d.qualifier.clone(), timestamp_micros: v.timestamp_micros,
                    });
                    let ts = v.timestamp_micros;
                    // The worker sends a long value cut unless it was asked for whole.
                    let cut = v.value.len();
                    let hex_cut = cut.min(HEX_PREVIEW_BYTES);
                    let show_all = emit(Action::ShowWholeVersion(ts));
                    html! {
                        <li class={classes!("version", v.hidden_by.is_some().then_some("hidden"), v.eligible_by.is_some().then_some("eligible"))}
                            data-testid="version" data-hidden={v.hidden_by.is_some().to_string()}
                            data-eligible={v.eligible_by.is_some().to_string()}>
                            <div class="version-time">
                                <code data-testid="version-timestamp">{ v.timestamp_micros }</code>
                                <span class="muted">{ iso(v.timestamp_micros) }</span>
                            </div>
                            <dl class="version-value">
                                <dt>{ "text" }</dt>
                                // Scrolls when long: focusable so the keyboard can scroll it.
                                <dd tabindex="0">
                                    <span data-testid="version-text">{ display_bytes(&v.value) }</span>
                                    if cut < v.len {
                                        <span class="muted" data-testid="version-cut">{ format!("… ({} of {} shown)", size_of(cut), size_of(v.len)) }</span>
                                        <button type="button" class="ghost" data-testid="version-show-all" onclick={show_all}
                                            aria-label={format!("Show all {} of version {ts}", size_of(v.len))}>{ "Show all" }</button>
                                    }
                                </dd>
                                <dt>{ "hex" }</dt>
                                <dd tabindex="0"><code>{ hex(&v.value[..hex_cut]) }</code>
                                    if hex_cut < v.len { <span class="muted">{ format!(" … (first {} of {})", size_of(hex_cut), size_of(v.len)) }</span> }
                                </dd>
                                if let Some(n) = as_int64(&v.value) {
                                    <dt>{ "int64" }</dt><dd data-testid="version-int64">{ n }</dd>
                                }
                            </dl>
                            if let Some(why) = &v.hidden_by {
                                <p class="hidden-by" data-testid="version-hidden-by">{ format!("Hidden by GC: {why}") }</p>
                            }
                            if let Some(why) = &v.eligible_by {
                                <p class="eligible-by"><span class="gc-badge" data-testid="version-eligible">{ "Eligible for GC" }</span>
                                    { format!(" {why}: reads still return it until a collection removes it.") }</p>
                            }
                            <button type="button" class="ghost" onclick={del}
                                aria-label={format!("Delete version {}", v.timestamp_micros)}>{ "Delete version" }</button>
                        </li>
                    }
                }) }
            </ol>
            <div class="drawer-actions">
                <button type="button" class="ghost" data-testid="delete-column" onclick={emit(Action::DeleteColumn {
                    row_key: d.row_key.clone(), family: d.family.clone(), qualifier: d.qualifier.clone(),
                })}>{ "Delete column" }</button>
                <button type="button" class="ghost" data-testid="delete-family" onclick={emit(Action::DeleteFamilyFromRow {
                    row_key: d.row_key.clone(), family: d.family.clone(),
                })}>{ format!("Delete family {} from row", d.family) }</button>
                <button type="button" class="ghost" data-testid="delete-row" onclick={emit(Action::DeleteRow(d.row_key.clone()))}>{ "Delete row" }</button>
            </div>
        </aside>
    }
}
