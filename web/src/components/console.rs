//! The console: a cbt command line in the page. Enter runs the line, arrow keys walk the
//! history, Tab completes commands, tables and options; the scrollback shows exactly what
//! `cbt` prints (stdout, then its log messages). A small form registers CSV text as a file
//! for `import`. In the replication lesson the same console runs on the lesson's instance
//! ([`ConsoleProps::lesson`]): cbt commands routed by `app-profile=`, and the instance's
//! control words.

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::lab::replication::ReplAction;
use crate::lab::{ConsoleEntry, LabAction};
use crate::state::Action;
use sparsetable_console::{complete, complete::complete_line, History};

/// Props of [`ConsoleView`].
#[derive(Properties, PartialEq)]
pub struct ConsoleProps {
    /// The scrollback.
    pub entries: Vec<ConsoleEntry>,
    /// Table names, for completion.
    pub tables: Vec<String>,
    /// Files `import` can read.
    pub files: Vec<String>,
    /// Receives lab actions.
    pub on_action: Callback<Action>,
    /// Runs on the replication lesson's instance instead of the playground's database.
    #[prop_or_default]
    pub lesson: bool,
}

/// The action that runs `line` on the console's target.
fn run_action(lesson: bool, line: String) -> Action {
    Action::Lab(if lesson {
        LabAction::Replication(ReplAction::Console(line))
    } else {
        LabAction::Console(line)
    })
}

/// The console.
#[function_component(ConsoleView)]
pub fn console_view(props: &ConsoleProps) -> Html {
    let input = use_state(String::new);
    let history = use_mut_ref(History::default);
    let hint = use_state(String::new);
    let file_name = use_state(|| "data.csv".to_string());
    let file_text = use_state(|| ",m\n,a,b\nrow1,1,2\n".to_string());

    let onkeydown = {
        let (input, history, hint, tables) = (
            input.clone(),
            history.clone(),
            hint.clone(),
            props.tables.clone(),
        );
        let on_action = props.on_action.clone();
        let lesson = props.lesson;
        Callback::from(move |e: KeyboardEvent| match e.key().as_str() {
            "Enter" => {
                e.prevent_default();
                let line = (*input).clone();
                history.borrow_mut().push(&line);
                input.set(String::new());
                hint.set(String::new());
                on_action.emit(run_action(lesson, line));
            }
            "ArrowUp" => {
                e.prevent_default();
                if let Some(line) = history.borrow_mut().up() {
                    input.set(line);
                }
            }
            "ArrowDown" => {
                e.prevent_default();
                input.set(history.borrow_mut().down());
            }
            // Tab completes, but only while it has something to do: when the line would not
            // change and the candidates are already shown (or there are none), and always
            // with Shift, it moves focus on as everywhere else, so the keyboard is never
            // trapped in the console (WCAG 2.1.2).
            "Tab" if !e.shift_key() => {
                let candidates = complete(&input, &tables);
                let shown = if candidates.len() > 1 {
                    candidates.join("  ")
                } else {
                    String::new()
                };
                let line = complete_line(&input, &tables);
                if line == *input && shown == *hint {
                    return;
                }
                e.prevent_default();
                hint.set(shown);
                input.set(line);
            }
            _ => {}
        })
    };
    let oninput = {
        let input = input.clone();
        Callback::from(move |e: InputEvent| {
            input.set(e.target_unchecked_into::<HtmlInputElement>().value())
        })
    };
    let clear = {
        let on_action = props.on_action.clone();
        let lesson = props.lesson;
        Callback::from(move |_| {
            on_action.emit(Action::Lab(if lesson {
                LabAction::Replication(ReplAction::ClearConsole)
            } else {
                LabAction::ClearConsole
            }))
        })
    };
    let add_file = {
        let (name, text, on_action) = (
            file_name.clone(),
            file_text.clone(),
            props.on_action.clone(),
        );
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            on_action.emit(Action::Lab(LabAction::AddFile {
                name: (*name).clone(),
                text: (*text).clone(),
            }));
        })
    };
    let on_name = {
        let h = file_name.clone();
        Callback::from(move |e: InputEvent| {
            h.set(e.target_unchecked_into::<HtmlInputElement>().value())
        })
    };
    let on_text = {
        let h = file_text.clone();
        Callback::from(move |e: InputEvent| {
            h.set(
                // A textarea's `value` is the same property an input's is (web-sys reads it by name).
                e.target_unchecked_into::<HtmlInputElement>().value(),
            )
        })
    };

    html! {
        <div class="console card" data-testid={if props.lesson { "repl-console" } else { "console" }}>
            if props.lesson {
                <h2>{ "Console on the lesson's instance " }<span class="muted">{ "cbt commands with app-profile=; status, down, up, lag, fault, clear-faults" }</span></h2>
            } else {
                <h2>{ "Console " }<span class="muted">{ "cbt commands (-instance lesson runs them on the replication lesson's instance); Tab completes, ↑/↓ history" }</span></h2>
            }
            // A log (read politely as it grows), in the tab order so the keyboard can scroll it.
            <div class="console-output" data-testid="console-output" role="log" aria-label="Console output" tabindex="0">
                { for props.entries.iter().map(|e| html! {
                    <div class={classes!("console-entry", e.failed.then_some("failed"))} data-testid="console-entry">
                        <div class="console-command">{ format!("$ cbt {}", e.command) }</div>
                        if !e.stdout.is_empty() { <pre class="stdout" data-testid="console-stdout">{ &e.stdout }</pre> }
                        if !e.stderr.is_empty() { <pre class="stderr" data-testid="console-stderr">{ &e.stderr }</pre> }
                    </div>
                }) }
            </div>
            <div class="console-line">
                <span class="prompt">{ "cbt ›" }</span>
                <input type="text" data-testid="console-input" aria-label="cbt command" value={(*input).clone()}
                    placeholder="ls" autocomplete="off" spellcheck="false" {onkeydown} {oninput} />
                <button type="button" class="ghost" onclick={clear}>{ "Clear" }</button>
            </div>
            if !hint.is_empty() { <div class="muted console-hint" data-testid="console-hint">{ (*hint).clone() }</div> }
            if !props.lesson {
            <details class="console-files">
                <summary>{ format!("Files for import: {}", props.files.join(", ")) }</summary>
                <form onsubmit={add_file}>
                    <label class="field"><span>{ "File name" }</span>
                        <input type="text" value={(*file_name).clone()} oninput={on_name} /></label>
                    <label class="field"><span>{ "CSV (first row: families, second: qualifiers, first column: row keys)" }</span>
                        <textarea rows="4" value={(*file_text).clone()} oninput={on_text} /></label>
                    <button type="submit">{ "Add file" }</button>
                </form>
            </details>
            }
        </div>
    }
}
