//! The same operation as code: one tab per language, with a copy button.

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
    html! {
        <section class="code card" data-testid="code" aria-label={props.title.clone()}>
            <h2>{ props.title.clone() }</h2>
            <div class="code-tabs">
            // The tablist holds only tabs (axe-core: aria-required-children); Copy sits beside it.
            <div class="code-tablist" role="tablist" aria-label="Languages">
                { for props.snippets.iter().enumerate().map(|(i, s)| {
                    let onclick = {
                        let (active, copied) = (active.clone(), copied.clone());
                        Callback::from(move |_| { active.set(i); copied.set(false); })
                    };
                    html! {
                        <button type="button" role="tab" aria-selected={(i == at).to_string()}
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
