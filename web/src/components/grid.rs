//! The selected table as a grid: one row per row key, columns grouped under their family,
//! each cell showing the newest value, its timestamp and how many versions the column holds.

use yew::prelude::*;

use super::clock::iso;
use crate::state::{display_bytes, Action, CellSummary, Grid};

/// Props of [`GridView`].
#[derive(Properties, PartialEq)]
pub struct GridProps {
    /// The rows to show.
    pub grid: Grid,
    /// Receives `DeleteRow`.
    pub on_action: Callback<Action>,
}

/// The rows of the selected table.
#[function_component(GridView)]
pub fn grid_view(props: &GridProps) -> Html {
    let grid = &props.grid;
    html! {
        <div class="grid-wrap">
            <table class="grid" data-testid="grid">
                <thead>
                    <tr>
                        <th rowspan="2" class="corner">{ "Row key" }</th>
                        { for grid.families.iter().map(|f| html! {
                            <th class="family" colspan={f.qualifiers.len().max(1).to_string()}>{ &f.family }</th>
                        }) }
                        <th rowspan="2" class="corner"></th>
                    </tr>
                    <tr>
                        { for grid.families.iter().map(|f| if f.qualifiers.is_empty() {
                            html! { <th class="qualifier empty">{ "no columns" }</th> }
                        } else {
                            html! { <>{ for f.qualifiers.iter().map(|q| html! {
                                <th class="qualifier" data-testid="column" title={format!("{}:{}", f.family, display_bytes(q))}>
                                    { display_bytes(q) }
                                </th>
                            }) }</> }
                        }) }
                    </tr>
                </thead>
                <tbody>
                    { for grid.rows.iter().map(|row| {
                        let key = row.key.clone();
                        let on_action = props.on_action.clone();
                        let ondelete = Callback::from(move |_| on_action.emit(Action::DeleteRow(key.clone())));
                        html! {
                            <tr data-testid="row">
                                <th class="row-key" data-testid="row-key-cell">{ display_bytes(&row.key) }</th>
                                { row_cells(grid, &row.cells) }
                                <td class="actions">
                                    <button type="button" class="ghost" title="Delete row (DeleteFromRow)" onclick={ondelete}>{ "Delete" }</button>
                                </td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
            if grid.rows.is_empty() {
                <p class="hint" data-testid="no-rows">{ "No rows yet. Write a cell to see it here." }</p>
            }
        </div>
    }
}

/// One row's cells in header order: each family's columns, or one blank where a family has
/// none (matching the "no columns" header).
fn row_cells(grid: &Grid, cells: &[Option<CellSummary>]) -> Html {
    let mut cells = cells.iter();
    let mut out = Vec::new();
    for family in &grid.families {
        if family.qualifiers.is_empty() {
            out.push(html! { <td class="cell empty"></td> });
        }
        for qualifier in &family.qualifiers {
            let column = format!("{}:{}", family.family, display_bytes(qualifier));
            out.push(match cells.next().and_then(Option::as_ref) {
                Some(c) => html! {
                    <td class="cell" data-testid="cell" data-column={column}>
                        <div class="value" data-testid="cell-value">{ display_bytes(&c.value) }</div>
                        <div class="meta">
                            <span data-testid="cell-timestamp" title={iso(c.timestamp_micros)}>{ c.timestamp_micros }</span>
                            <span class="versions" data-testid="cell-versions">
                                { if c.versions == 1 { "1 version".to_string() } else { format!("{} versions", c.versions) } }
                            </span>
                        </div>
                    </td>
                },
                None => html! { <td class="cell empty"></td> },
            });
        }
    }
    out.into_iter().collect()
}
