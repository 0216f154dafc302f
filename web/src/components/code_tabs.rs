//! The same operation as code: one tab per language, with a copy button. The tabs follow the
//! ARIA tabs pattern's keyboard, as the view tabs do: only the selected tab is in the tab
//! order, and Left and Right (Home and End) select and focus the previous or next language.

use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::codegen::Snippet;

/// Props of [`CodeTabs`].
#[derive(Properties, PartialEq)]
pub struct CodeTabsProps {
    /// The snippets, one per language.
    pub snippets: Vec<Snippet>,
    /// Heading and test id prefix.
    pub title: AttrValue,
}

/// Tabs of code.
#[function_component(CodeTabs)]
pub fn code_tabs(props: &CodeTabsProps) -> Html {
    let active = use_state(|| 0usize);
    let copied = use_state(|| false);
    let at = (*active).min(props.snippets.len().saturating_sub(1));
    let Some(current) = props.snippets.get(at) else {
        return html! {};
    };
    let copy = {
        let (code, copied) = (current.code.clone(), copied.clone());
        Callback::from(move |_| {
            if let Some(w) = web_sys::window() {
                let _ = w.navigator().clipboard().write_text(&code);
                copied.set(true);
            }
        })
    };
    let onkeydown = {
        let (active, copied, n) = (active.clone(), copied.clone(), props.snippets.len());
        Callback::from(move |e: KeyboardEvent| {
            let next = match e.key().as_str() {
                "ArrowRight" => (at + 1) % n,
                "ArrowLeft" => (at + n - 1) % n,
                "Home" => 0,
                "End" => n - 1,
                _ => return,
            };
            e.prevent_default();
            active.set(next);
            copied.set(false);
            // Focus follows the selection: the list's `next`-th tab, found from the key's
            // target (Yew delegates events, so the current target is not the list).
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
        <section class="code card" data-testid="code" aria-label={props.title.clone()}>
            <h2>{ props.title.clone() }</h2>
            <div class="code-tabs">
            // The tablist holds only tabs (axe-core: aria-required-children); Copy sits beside it.
            <div class="code-tablist" role="tablist" aria-label="Languages" {onkeydown}>
                { for props.snippets.iter().enumerate().map(|(i, s)| {
                    let onclick = {
                        let (active, copied) = (active.clone(), copied.clone());
                        Callback::from(move |_| { active.set(i); copied.set(false); })
                    };
                    html! {
                        <button type="button" role="tab" aria-selected={(i == at).to_string()}
                            tabindex={if i == at { "0" } else { "-1" }}
                            class={classes!("tab", (i == at).then_some("active"))}
                            data-testid="code-tab" {onclick}>{ s.lang.label() }</button>
                    }
                }) }
            </div>
                <button type="button" class="ghost copy" onclick={copy} data-testid="copy-code">
                    { if *copied { "Copied" } else { "Copy" } }
                </button>
            </div>
            <pre tabindex="0" data-testid="code-text"><code>{ &current.code }</code></pre>
        </section>
    }
}
