//! The explain view of a read: rows scanned vs returned, cells and bytes, tablets touched,
//! so a prefix scan, a range and a row-key regex can be compared on the same data.

use yew::prelude::*;

use crate::query::Explain;

/// Props of [`ExplainView`].
#[derive(Properties, PartialEq)]
pub struct ExplainProps {
    /// The figures.
    pub explain: Explain,
}

/// The figures as a small table.
#[function_component(ExplainView)]
pub fn explain_view(props: &ExplainProps) -> Html {
    let e = props.explain;
    let row = |label: &str, scanned: u64, returned: u64, id: &str| {
        html! {
            <tr>
                <th scope="row">{ label.to_string() }</th>
                <td data-testid={format!("explain-{id}-scanned")}>{ scanned }</td>
                <td data-testid={format!("explain-{id}-returned")}>{ returned }</td>
            </tr>
        }
    };
    let ratio = if e.rows_returned == 0 {
        "nothing returned".to_string()
    } else {
        format!(
            "{:.1} rows examined per row returned",
            e.rows_scanned as f64 / e.rows_returned as f64
        )
    };
    html! {
        <section class="explain card" data-testid="explain" aria-label="Explain">
            <h2>{ "Explain" }</h2>
            <table class="explain-table">
                // The corner header is named for screen readers (axe-core: empty-table-header).
                <thead><tr><th scope="col"><span class="sr-only">{ "measure" }</span></th><th scope="col">{ "examined" }</th><th scope="col">{ "returned" }</th></tr></thead>
                <tbody>
                    { row("Rows", e.rows_scanned, e.rows_returned, "rows") }
                    { row("Cells", e.cells_scanned, e.cells_returned, "cells") }
                    { row("Bytes", e.bytes_scanned, e.bytes_returned, "bytes") }
                </tbody>
            </table>
            <p><span data-testid="explain-tablets">{ format!("{} of {} tablets touched", e.tablets_touched, e.tablets_total) }</span>
                { " · " }<span class="muted">{ ratio }</span></p>
        </section>
    }
}
