//! The selected table as a virtualised grid: one row per row key, columns grouped under
//! their family, each cell showing the newest value, its timestamp and how many versions the
//! column holds (decoded as the versions drawer would: text, or int64 for 8-byte counters;
//! a column's header toggles it to raw bytes). Only the rows in view (plus a margin) are in the DOM, so 100,000 rows
//! scroll as smoothly as ten: rows have a fixed height, and spacer rows above and below stand
//! for the rest. A cell opens its versions drawer; rows the last query returned are marked.

use std::collections::BTreeSet;
use std::rc::Rc;

use web_sys::HtmlElement;
use yew::prelude::*;

use super::clock::iso;
use crate::display::grid_preview;
use crate::state::{display_bytes, Action, GridHandle};

/// Height of one grid row in pixels (CSS `.grid tbody tr` matches it).
pub const ROW_HEIGHT: i32 = 52;
/// Rows rendered beyond each edge of the view, so a fast scroll shows no gap.
const OVERSCAN: i32 = 8;
/// The scroll box's height when it has not been measured yet.
const DEFAULT_VIEW: i32 = 520;

/// Props of [`GridView`].
#[derive(Properties, PartialEq)]
pub struct GridProps {
    /// The rows to show.
    pub grid: GridHandle,
    /// Row keys to highlight (the last query's rows).
    pub hits: Rc<BTreeSet<Vec<u8>>>,
    /// Receives `DeleteRow` and `OpenCell`.
    pub on_action: Callback<Action>,
}

/// The rows of the selected table.
#[function_component(GridView)]
pub fn grid_view(props: &GridProps) -> Html {
    // (scrollTop, clientHeight) of the scroll box.
    let scroll = use_state(|| (0, DEFAULT_VIEW));
    let onscroll = {
        let scroll = scroll.clone();
        Callback::from(move |e: Event| {
            let el: HtmlElement = e.target_unchecked_into();
            scroll.set((el.scroll_top(), el.client_height().max(ROW_HEIGHT)));
        })
    };
    // Columns shown as raw bytes instead of decoded (a click on the column's header toggles).
    let raw = use_state(BTreeSet::<usize>::new);
    let grid = props.grid.borrow();
    let total = grid.rows.len() as i32;
    let (top, view) = *scroll;
    let first = (top / ROW_HEIGHT - OVERSCAN).clamp(0, total);
    let last = ((top + view) / ROW_HEIGHT + 1 + OVERSCAN).clamp(first, total);
    let spacer = |rows: i32| {
        (rows > 0).then(|| html! {
            <tr class="spacer" aria-hidden="true" style={format!("height: {}px", rows * ROW_HEIGHT)}></tr>
        })
    };

    html! {
        <div class="grid-wrap" {onscroll} data-testid="grid-scroll" tabindex="0"
            aria-label={format!("Rows of the table: {total}")}>
            <table class="grid" data-testid="grid" aria-rowcount={(total + 2).to_string()}>
                <thead>
                    <tr>
                        <th rowspan="2" class="corner" scope="col">{ "Row key" }</th>
                        { for grid.families.iter().map(|f| html! {
                            <th class="family" scope="colgroup" colspan={f.columns.len().max(1).to_string()}>{ &f.family }</th>
                        }) }
                        <th rowspan="2" class="corner actions" scope="col"><span class="sr-only">{ "Actions" }</span></th>
                    </tr>
                    <tr>
                        { for grid.families.iter().map(|f| if f.columns.is_empty() {
                            html! { <th class="qualifier empty" scope="col">{ "no columns" }</th> }
                        } else {
                            html! { <>{ for f.columns.iter().map(|&c| {
                                let q = display_bytes(&grid.columns[c].1);
                                let is_raw = raw.contains(&c);
                                let toggle = {
                                    let raw = raw.clone();
                                    Callback::from(move |_| {
                                        let mut next = (*raw).clone();
                                        if !next.remove(&c) {
                                            next.insert(c);
                                        }
                                        raw.set(next);
                                    })
                                };
                                html! {
                                    <th class="qualifier" scope="col" data-testid="column" title={format!("{}:{q}", f.family)}>
                                        { q.clone() }
                                        <button type="button" class="ghost decode-toggle" data-testid="decode-toggle"
                                            aria-pressed={(!is_raw).to_string()} onclick={toggle}
                                            title={if is_raw { "Show decoded values (text, or int64 for 8-byte counters)" } else { "Show raw bytes" }}>
                                            { if is_raw { "raw" } else { "decoded" } }
                                        </button>
                                    </th>
                                }
                            }) }</> }
                        }) }
                    </tr>
                </thead>
                <tbody>
                    { spacer(first) }
                    { for grid.rows[first as usize..last as usize].iter().enumerate().map(|(i, row)| {
                        let key = row.key.clone();
                        let on_action = props.on_action.clone();
                        let ondelete = Callback::from(move |_| on_action.emit(Action::DeleteRow(key.clone())));
                        let hit = props.hits.contains(&row.key);
                        let key_text = display_bytes(&row.key);
                        html! {
                            <tr data-testid="row" class={classes!(hit.then_some("hit"))}
                                data-hit={hit.to_string()} aria-rowindex={(first as usize + i + 3).to_string()}>
                                <th class="row-key" scope="row" data-testid="row-key-cell">{ key_text.clone() }</th>
                                { for grid.families.iter().map(|f| {
                                    if f.columns.is_empty() {
                                        return html! { <td class="cell empty"></td> };
                                    }
                                    html! { <>{ for f.columns.iter().map(|&c| {
                                        let (family, qualifier) = &grid.columns[c];
                                        let column = format!("{family}:{}", display_bytes(qualifier));
                                        match row.cell(c) {
                                            Some(cell) => {
                                                let open = {
                                                    let on_action = props.on_action.clone();
                                                    let (row_key, family, qualifier) = (row.key.clone(), family.clone(), qualifier.clone());
                                                    Callback::from(move |_| on_action.emit(Action::OpenCell {
                                                        row_key: row_key.clone(), family: family.clone(), qualifier: qualifier.clone(),
                                                    }))
                                                };
                                                html! {
                                                    <td class="cell" data-testid="cell" data-column={column.clone()}>
                                                        <button type="button" class="cell-open" onclick={open}
                                                            title={format!("Versions of {column} in row {key_text}")}>
                                                            <span class="sr-only">{ format!("Versions of {column} in row {key_text}: ") }</span>
                                                            <span class="value" data-testid="cell-value">{
                                                                grid_preview(&cell.value, raw.contains(&c))
                                                            }</span>
                                                            <span class="meta">
                                                                <span data-testid="cell-timestamp" title={iso(cell.timestamp_micros)}>{ cell.timestamp_micros }</span>
                                                                <span class="versions" data-testid="cell-versions">
                                                                    { if cell.versions == 1 { "1 version".to_string() } else { format!("{} versions", cell.versions) } }
                                                                </span>
                                                                // Background GC mode: versions the rule makes collectable that
                                                                // reads still return until a collection.
                                                                if cell.eligible > 0 {
                                                                    <span class="gc-badge" data-testid="cell-eligible"
                                                                        title="Eligible for garbage collection: reads return it until a collection removes it">
                                                                        { format!("{} eligible for GC", cell.eligible) }
                                                                    </span>
                                                                }
                                                            </span>
                                                        </button>
                                                    </td>
                                                }
                                            }
                                            None => html! { <td class="cell empty"></td> },
                                        }
                                    }) }</> }
                                }) }
                                <td class="actions">
                                    <button type="button" class="ghost" title="Delete row (DeleteFromRow)"
                                        aria-label={format!("Delete row {key_text}")} onclick={ondelete}>{ "Delete" }</button>
                                </td>
                            </tr>
                        }
                    }) }
                    { spacer(total - last) }
                </tbody>
            </table>
            if total == 0 {
                <p class="hint" data-testid="no-rows">{ "No rows yet. Write a cell to see it here." }</p>
            }
            <span class="sr-only" data-testid="row-count">{ total }</span>
        </div>
    }
}
