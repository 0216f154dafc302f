//! The Data API's messages (`google.bigtable.v2`): mutations, filters, row sets, rows, and the
//! request bodies that carry them.
//!
//! Each message has a private wire struct (`W...`) whose fields are all optional, so serde's
//! derive reads and writes it; the core type converts to and from it. Converting checks what
//! only the JSON can get wrong (oneofs, nesting) and nothing the engine checks itself.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::ops::Bound;

use serde::{Deserialize, Serialize};

use super::scalar::{self, B64, F64, I32, I64};
use super::{check_oneof, nonzero, some_bytes, some_str, some_vec};
use crate::limits::MAX_FILTER_DEPTH;
use crate::{
    Cell, Mutation, ReadModifyWriteOp, ReadModifyWriteRule, ReadRowsRequest, Row, RowFilter,
    RowMutations, RowRange, RowSet, TimestampRange,
};

message!(WMutation {
    set_cell | "set_cell": WSetCell,
    add_to_cell | "add_to_cell": WAggregateCell,
    merge_to_cell | "merge_to_cell": WAggregateCell,
    delete_from_column | "delete_from_column": WDeleteFromColumn,
    delete_from_family | "delete_from_family": WDeleteFromFamily,
    delete_from_row | "delete_from_row": WEmpty,
});
message!(WSetCell {
    family_name | "family_name": String,
    column_qualifier | "column_qualifier": B64,
    timestamp_micros | "timestamp_micros": I64,
    value: B64,
});
// AddToCell and MergeToCell share their shape: family_name, and three `Value`s.
message!(WAggregateCell {
    family_name | "family_name": String,
    column_qualifier | "column_qualifier": WValue,
    timestamp: WValue,
    input: WValue,
});
// The kinds of `google.bigtable.v2.Value` that AddToCell and MergeToCell use.
message!(WValue {
    raw_value | "raw_value": B64,
    raw_timestamp_micros | "raw_timestamp_micros": I64,
    bytes_value | "bytes_value": B64,
    string_value | "string_value": String,
    int_value | "int_value": I64,
});
message!(WTimestampRange {
    start_timestamp_micros | "start_timestamp_micros": I64,
    end_timestamp_micros | "end_timestamp_micros": I64,
});
message!(WDeleteFromColumn {
    family_name | "family_name": String,
    column_qualifier | "column_qualifier": B64,
    time_range | "time_range": WTimestampRange,
});
message!(WDeleteFromFamily {
    family_name | "family_name": String,
});
message!(WEmpty {});

fn value_bytes(v: Option<WValue>, what: &str) -> Result<Vec<u8>, String> {
    let Some(v) = v else { return Ok(Vec::new()) };
    let set = [
        ("rawValue", v.raw_value.is_some()),
        ("rawTimestampMicros", v.raw_timestamp_micros.is_some()),
        ("bytesValue", v.bytes_value.is_some()),
        ("stringValue", v.string_value.is_some()),
        ("intValue", v.int_value.is_some()),
    ];
    check_oneof(what, &set, false)?;
    match (v.raw_value.or(v.bytes_value), v.string_value, v.int_value) {
        (Some(b), _, _) => Ok(b.0),
        (_, Some(s), _) => Ok(s.into_bytes()),
        // An int64 state is stored as 8 big-endian bytes, so an intValue stands for those.
        (_, _, Some(n)) if what.ends_with("input") => Ok(n.0.to_be_bytes().to_vec()),
        (None, None, None) if v.raw_timestamp_micros.is_none() => Ok(Vec::new()),
        _ => Err(format!(
            "{what}: expected rawValue, bytesValue or stringValue"
        )),
    }
}

fn value_int(v: Option<WValue>, what: &str) -> Result<i64, String> {
    let Some(v) = v else { return Ok(0) };
    let set = [
        ("rawValue", v.raw_value.is_some()),
        ("rawTimestampMicros", v.raw_timestamp_micros.is_some()),
        ("bytesValue", v.bytes_value.is_some()),
        ("stringValue", v.string_value.is_some()),
        ("intValue", v.int_value.is_some()),
    ];
    check_oneof(what, &set, false)?;
    match (
        v.raw_timestamp_micros.or(v.int_value),
        set.iter().any(|s| s.1),
    ) {
        (Some(n), _) => Ok(n.0),
        (None, false) => Ok(0),
        (None, true) => Err(format!("{what}: expected rawTimestampMicros or intValue")),
    }
}

fn raw_value(b: &[u8]) -> Option<WValue> {
    Some(WValue {
        raw_value: Some(B64(b.to_vec())),
        ..WValue::default()
    })
}

fn int_value(n: i64, timestamp: bool) -> Option<WValue> {
    let n = Some(I64(n));
    Some(if timestamp {
        WValue {
            raw_timestamp_micros: n,
            ..WValue::default()
        }
    } else {
        WValue {
            int_value: n,
            ..WValue::default()
        }
    })
}

fn into_mutation(w: WMutation) -> Result<Mutation, String> {
    check_oneof(
        "mutation",
        &[
            ("setCell", w.set_cell.is_some()),
            ("addToCell", w.add_to_cell.is_some()),
            ("mergeToCell", w.merge_to_cell.is_some()),
            ("deleteFromColumn", w.delete_from_column.is_some()),
            ("deleteFromFamily", w.delete_from_family.is_some()),
            ("deleteFromRow", w.delete_from_row.is_some()),
        ],
        true,
    )?;
    let bytes = |b: Option<B64>| b.map(|b| b.0).unwrap_or_default();
    let int = |n: Option<I64>| n.map_or(0, |n| n.0);
    Ok(if let Some(c) = w.set_cell {
        Mutation::set_cell(
            c.family_name.unwrap_or_default(),
            bytes(c.column_qualifier),
            int(c.timestamp_micros),
            bytes(c.value),
        )
    } else if let Some(c) = w.add_to_cell {
        let family = c.family_name.unwrap_or_default();
        let qualifier = value_bytes(c.column_qualifier, "addToCell.columnQualifier")?;
        let timestamp_micros = value_int(c.timestamp, "addToCell.timestamp")?;
        match c.input {
            // A raw input is a HyperLogLog++ family's: the core's rule turns it into the
            // one-value sketch it stands for (model::aggregate).
            Some(v) if v.raw_value.is_some() || v.bytes_value.is_some() => Mutation::MergeToCell {
                family,
                qualifier,
                timestamp_micros,
                state: crate::model::aggregate::raw_input_state(&value_bytes(
                    Some(v),
                    "addToCell.input",
                )?),
            },
            input => Mutation::AddToCell {
                family,
                qualifier,
                timestamp_micros,
                input: value_int(input, "addToCell.input")?,
            },
        }
    } else if let Some(c) = w.merge_to_cell {
        Mutation::MergeToCell {
            family: c.family_name.unwrap_or_default(),
            qualifier: value_bytes(c.column_qualifier, "mergeToCell.columnQualifier")?,
            timestamp_micros: value_int(c.timestamp, "mergeToCell.timestamp")?,
            state: value_bytes(c.input, "mergeToCell.input")?,
        }
    } else if let Some(c) = w.delete_from_column {
        let range = c.time_range.unwrap_or_default();
        Mutation::DeleteFromColumn {
            family: c.family_name.unwrap_or_default(),
            qualifier: bytes(c.column_qualifier),
            // The core's wire rule: an end of 0 means "no end".
            time_range: TimestampRange::from_wire(
                int(range.start_timestamp_micros),
                int(range.end_timestamp_micros),
            ),
        }
    } else if let Some(c) = w.delete_from_family {
        Mutation::DeleteFromFamily {
            family: c.family_name.unwrap_or_default(),
        }
    } else {
        Mutation::DeleteFromRow
    })
}

fn from_mutation(m: &Mutation) -> WMutation {
    match m {
        Mutation::SetCell {
            family,
            qualifier,
            timestamp_micros,
            value,
        } => WMutation {
            set_cell: Some(WSetCell {
                family_name: some_str(family),
                column_qualifier: some_bytes(qualifier),
                timestamp_micros: nonzero(*timestamp_micros),
                value: some_bytes(value),
            }),
            ..WMutation::default()
        },
        Mutation::AddToCell {
            family,
            qualifier,
            timestamp_micros,
            input,
        } => WMutation {
            add_to_cell: Some(WAggregateCell {
                family_name: some_str(family),
                column_qualifier: raw_value(qualifier),
                timestamp: int_value(*timestamp_micros, true),
                input: int_value(*input, false),
            }),
            ..WMutation::default()
        },
        Mutation::MergeToCell {
            family,
            qualifier,
            timestamp_micros,
            state,
        } => WMutation {
            merge_to_cell: Some(WAggregateCell {
                family_name: some_str(family),
                column_qualifier: raw_value(qualifier),
                timestamp: int_value(*timestamp_micros, true),
                input: raw_value(state),
            }),
            ..WMutation::default()
        },
        Mutation::DeleteFromColumn {
            family,
            qualifier,
            time_range,
        } => WMutation {
            delete_from_column: Some(WDeleteFromColumn {
                family_name: some_str(family),
                column_qualifier: some_bytes(qualifier),
                time_range: (time_range.start_micros != 0 || time_range.end_micros.is_some()).then(
                    || WTimestampRange {
                        start_timestamp_micros: nonzero(time_range.start_micros),
                        end_timestamp_micros: time_range.end_micros.and_then(nonzero),
                    },
                ),
            }),
            ..WMutation::default()
        },
        Mutation::DeleteFromFamily { family } => WMutation {
            delete_from_family: Some(WDeleteFromFamily {
                family_name: some_str(family),
            }),
            ..WMutation::default()
        },
        Mutation::DeleteFromRow => WMutation {
            delete_from_row: Some(WEmpty {}),
            ..WMutation::default()
        },
    }
}

via!(Mutation, WMutation, from_mutation, into_mutation);

message!(WFilter {
    chain: WFilters,
    interleave: WFilters,
    condition: Box<WCondition>,
    sink: bool,
    pass_all_filter | "pass_all_filter": bool,
    block_all_filter | "block_all_filter": bool,
    row_key_regex_filter | "row_key_regex_filter": B64,
    row_sample_filter | "row_sample_filter": F64,
    family_name_regex_filter | "family_name_regex_filter": String,
    column_qualifier_regex_filter | "column_qualifier_regex_filter": B64,
    column_range_filter | "column_range_filter": WColumnRange,
    timestamp_range_filter | "timestamp_range_filter": WTimestampRange,
    value_regex_filter | "value_regex_filter": B64,
    value_range_filter | "value_range_filter": WValueRange,
    cells_per_row_offset_filter | "cells_per_row_offset_filter": I32,
    cells_per_row_limit_filter | "cells_per_row_limit_filter": I32,
    cells_per_column_limit_filter | "cells_per_column_limit_filter": I32,
    strip_value_transformer | "strip_value_transformer": bool,
    apply_label_transformer | "apply_label_transformer": String,
    value_bitmask_filter | "value_bitmask_filter": B64,
});
message!(WFilters {
    filters: Vec<WFilter>,
});
message!(WCondition {
    predicate_filter | "predicate_filter": Box<WFilter>,
    true_filter | "true_filter": Box<WFilter>,
    false_filter | "false_filter": Box<WFilter>,
});
message!(WColumnRange {
    family_name | "family_name": String,
    start_qualifier_closed | "start_qualifier_closed": B64,
    start_qualifier_open | "start_qualifier_open": B64,
    end_qualifier_closed | "end_qualifier_closed": B64,
    end_qualifier_open | "end_qualifier_open": B64,
});
message!(WValueRange {
    start_value_closed | "start_value_closed": B64,
    start_value_open | "start_value_open": B64,
    end_value_closed | "end_value_closed": B64,
    end_value_open | "end_value_open": B64,
});

/// A bound from a proto oneof `{closed, open}`: at most one set, none = unbounded.
fn bound(
    closed: Option<B64>,
    open: Option<B64>,
    what: &str,
    names: [&str; 2],
) -> Result<Bound<Vec<u8>>, String> {
    check_oneof(
        what,
        &[(names[0], closed.is_some()), (names[1], open.is_some())],
        false,
    )?;
    Ok(match (closed, open) {
        (Some(k), _) => Bound::Included(k.0),
        (None, Some(k)) => Bound::Excluded(k.0),
        (None, None) => Bound::Unbounded,
    })
}

/// The (closed, open) pair a bound is written as.
fn unbound(b: &Bound<Vec<u8>>) -> (Option<B64>, Option<B64>) {
    match b {
        Bound::Included(k) => (Some(B64(k.clone())), None),
        Bound::Excluded(k) => (None, Some(B64(k.clone()))),
        Bound::Unbounded => (None, None),
    }
}

fn into_filter(w: WFilter, depth: usize) -> Result<RowFilter, String> {
    // The engine's own limit and message (filter.rs), checked before going one level deeper.
    if depth > MAX_FILTER_DEPTH {
        return Err(format!(
            "filter: nesting deeper than {MAX_FILTER_DEPTH} levels"
        ));
    }
    check_oneof(
        "filter",
        &[
            ("chain", w.chain.is_some()),
            ("interleave", w.interleave.is_some()),
            ("condition", w.condition.is_some()),
            ("sink", w.sink.is_some()),
            ("passAllFilter", w.pass_all_filter.is_some()),
            ("blockAllFilter", w.block_all_filter.is_some()),
            ("rowKeyRegexFilter", w.row_key_regex_filter.is_some()),
            ("rowSampleFilter", w.row_sample_filter.is_some()),
            (
                "familyNameRegexFilter",
                w.family_name_regex_filter.is_some(),
            ),
            (
                "columnQualifierRegexFilter",
                w.column_qualifier_regex_filter.is_some(),
            ),
            ("columnRangeFilter", w.column_range_filter.is_some()),
            ("timestampRangeFilter", w.timestamp_range_filter.is_some()),
            ("valueRegexFilter", w.value_regex_filter.is_some()),
            ("valueRangeFilter", w.value_range_filter.is_some()),
            (
                "cellsPerRowOffsetFilter",
                w.cells_per_row_offset_filter.is_some(),
            ),
            (
                "cellsPerRowLimitFilter",
                w.cells_per_row_limit_filter.is_some(),
            ),
            (
                "cellsPerColumnLimitFilter",
                w.cells_per_column_limit_filter.is_some(),
            ),
            ("stripValueTransformer", w.strip_value_transformer.is_some()),
            ("applyLabelTransformer", w.apply_label_transformer.is_some()),
            ("valueBitmaskFilter", w.value_bitmask_filter.is_some()),
        ],
        true,
    )?;
    let list = |l: WFilters| {
        l.filters
            .unwrap_or_default()
            .into_iter()
            .map(|f| into_filter(f, depth + 1))
            .collect::<Result<Vec<_>, _>>()
    };
    // A boolean filter set to false has no meaning; Cloud Bigtable refuses it.
    let flag = |on: bool, name: &str, f: RowFilter| {
        if on {
            Ok(f)
        } else {
            Err(format!("{name}: must be true when set"))
        }
    };
    let branch = |b: Option<Box<WFilter>>| {
        b.map(|f| into_filter(*f, depth + 1).map(Box::new))
            .transpose()
    };
    Ok(if let Some(l) = w.chain {
        RowFilter::Chain(list(l)?)
    } else if let Some(l) = w.interleave {
        RowFilter::Interleave(list(l)?)
    } else if let Some(c) = w.condition {
        let predicate = c
            .predicate_filter
            .ok_or("condition: predicate_filter is required")?;
        RowFilter::Condition {
            predicate: Box::new(into_filter(*predicate, depth + 1)?),
            true_filter: branch(c.true_filter)?,
            false_filter: branch(c.false_filter)?,
        }
    } else if let Some(b) = w.sink {
        flag(b, "sink", RowFilter::Sink)?
    } else if let Some(b) = w.pass_all_filter {
        flag(b, "pass_all_filter", RowFilter::PassAll)?
    } else if let Some(b) = w.block_all_filter {
        flag(b, "block_all_filter", RowFilter::BlockAll)?
    } else if let Some(b) = w.strip_value_transformer {
        flag(b, "strip_value_transformer", RowFilter::StripValue)?
    } else if let Some(r) = w.row_key_regex_filter {
        RowFilter::RowKeyRegex(r.0)
    } else if let Some(p) = w.row_sample_filter {
        RowFilter::RowSample(p.0)
    } else if let Some(r) = w.family_name_regex_filter {
        RowFilter::FamilyNameRegex(r)
    } else if let Some(r) = w.column_qualifier_regex_filter {
        RowFilter::ColumnQualifierRegex(r.0)
    } else if let Some(c) = w.column_range_filter {
        let start = ["startQualifierClosed", "startQualifierOpen"];
        let end = ["endQualifierClosed", "endQualifierOpen"];
        RowFilter::ColumnRange {
            family: c.family_name.unwrap_or_default(),
            start: bound(
                c.start_qualifier_closed,
                c.start_qualifier_open,
                "columnRangeFilter",
                start,
            )?,
            end: bound(
                c.end_qualifier_closed,
                c.end_qualifier_open,
                "columnRangeFilter",
                end,
            )?,
        }
    } else if let Some(t) = w.timestamp_range_filter {
        RowFilter::TimestampRange {
            start_micros: t.start_timestamp_micros.map_or(0, |v| v.0),
            end_micros: t.end_timestamp_micros.map_or(0, |v| v.0),
        }
    } else if let Some(r) = w.value_regex_filter {
        RowFilter::ValueRegex(r.0)
    } else if let Some(v) = w.value_range_filter {
        RowFilter::ValueRange {
            start: bound(
                v.start_value_closed,
                v.start_value_open,
                "valueRangeFilter",
                ["startValueClosed", "startValueOpen"],
            )?,
            end: bound(
                v.end_value_closed,
                v.end_value_open,
                "valueRangeFilter",
                ["endValueClosed", "endValueOpen"],
            )?,
        }
    } else if let Some(n) = w.cells_per_row_offset_filter {
        RowFilter::CellsPerRowOffset(n.0)
    } else if let Some(n) = w.cells_per_row_limit_filter {
        RowFilter::CellsPerRowLimit(n.0)
    } else if let Some(n) = w.cells_per_column_limit_filter {
        RowFilter::CellsPerColumnLimit(n.0)
    } else if let Some(l) = w.apply_label_transformer {
        RowFilter::ApplyLabel(l)
    } else if let Some(m) = w.value_bitmask_filter {
        RowFilter::ValueBitmask(m.0)
    } else {
        // check_oneof(.., true) saw exactly one member set.
        return Err("filter: no filter kind set".into());
    })
}

fn from_filter(f: &RowFilter) -> WFilter {
    let list = |fs: &[RowFilter]| WFilters {
        filters: Some(fs.iter().map(from_filter).collect()),
    };
    let mut w = WFilter::default();
    match f {
        RowFilter::PassAll => w.pass_all_filter = Some(true),
        RowFilter::BlockAll => w.block_all_filter = Some(true),
        RowFilter::Sink => w.sink = Some(true),
        RowFilter::StripValue => w.strip_value_transformer = Some(true),
        RowFilter::Chain(fs) => w.chain = Some(list(fs)),
        RowFilter::Interleave(fs) => w.interleave = Some(list(fs)),
        RowFilter::Condition {
            predicate,
            true_filter,
            false_filter,
        } => {
            let branch =
                |b: &Option<Box<RowFilter>>| b.as_deref().map(|f| Box::new(from_filter(f)));
            w.condition = Some(Box::new(WCondition {
                predicate_filter: Some(Box::new(from_filter(predicate))),
                true_filter: branch(true_filter),
                false_filter: branch(false_filter),
            }));
        }
        RowFilter::RowKeyRegex(r) => w.row_key_regex_filter = Some(B64(r.clone())),
        RowFilter::RowSample(p) => w.row_sample_filter = Some(F64(*p)),
        RowFilter::FamilyNameRegex(r) => w.family_name_regex_filter = Some(r.clone()),
        RowFilter::ColumnQualifierRegex(r) => {
            w.column_qualifier_regex_filter = Some(B64(r.clone()))
        }
        RowFilter::ColumnRange { family, start, end } => {
            let (start_qualifier_closed, start_qualifier_open) = unbound(start);
            let (end_qualifier_closed, end_qualifier_open) = unbound(end);
            w.column_range_filter = Some(WColumnRange {
                family_name: some_str(family),
                start_qualifier_closed,
                start_qualifier_open,
                end_qualifier_closed,
                end_qualifier_open,
            });
        }
        RowFilter::TimestampRange {
            start_micros,
            end_micros,
        } => {
            w.timestamp_range_filter = Some(WTimestampRange {
                start_timestamp_micros: nonzero(*start_micros),
                end_timestamp_micros: nonzero(*end_micros),
            })
        }
        RowFilter::ValueRegex(r) => w.value_regex_filter = Some(B64(r.clone())),
        RowFilter::ValueRange { start, end } => {
            let (start_value_closed, start_value_open) = unbound(start);
            let (end_value_closed, end_value_open) = unbound(end);
            w.value_range_filter = Some(WValueRange {
                start_value_closed,
                start_value_open,
                end_value_closed,
                end_value_open,
            });
        }
        RowFilter::CellsPerRowOffset(n) => w.cells_per_row_offset_filter = Some(I32(*n)),
        RowFilter::CellsPerRowLimit(n) => w.cells_per_row_limit_filter = Some(I32(*n)),
        RowFilter::CellsPerColumnLimit(n) => w.cells_per_column_limit_filter = Some(I32(*n)),
        RowFilter::ApplyLabel(l) => w.apply_label_transformer = Some(l.clone()),
        RowFilter::ValueBitmask(m) => w.value_bitmask_filter = Some(B64(m.clone())),
    }
    w
}

via!(RowFilter, WFilter, from_filter, |w| into_filter(w, 1));

message!(WRowRange {
    start_key_closed | "start_key_closed": B64,
    start_key_open | "start_key_open": B64,
    end_key_open | "end_key_open": B64,
    end_key_closed | "end_key_closed": B64,
});
message!(WRowSet {
    row_keys | "row_keys": Vec<B64>,
    row_ranges | "row_ranges": Vec<RowRange>,
});

fn into_row_range(w: WRowRange) -> Result<RowRange, String> {
    // The core's wire rule: an empty key as any bound means unbounded.
    Ok(RowRange::from_wire_bounds(
        bound(
            w.start_key_closed,
            w.start_key_open,
            "rowRange",
            ["startKeyClosed", "startKeyOpen"],
        )?,
        bound(
            w.end_key_closed,
            w.end_key_open,
            "rowRange",
            ["endKeyClosed", "endKeyOpen"],
        )?,
    ))
}

fn from_row_range(r: &RowRange) -> WRowRange {
    let (start_key_closed, start_key_open) = unbound(&r.start);
    let (end_key_closed, end_key_open) = unbound(&r.end);
    WRowRange {
        start_key_closed,
        start_key_open,
        end_key_open,
        end_key_closed,
    }
}

via!(RowRange, WRowRange, from_row_range, into_row_range);

via!(
    RowSet,
    WRowSet,
    |s: &RowSet| WRowSet {
        row_keys: some_vec(s.row_keys.iter().map(|k| B64(k.clone())).collect()),
        row_ranges: some_vec(s.row_ranges.clone()),
    },
    |w: WRowSet| Ok::<_, String>(RowSet {
        row_keys: w
            .row_keys
            .unwrap_or_default()
            .into_iter()
            .map(|k| k.0)
            .collect(),
        row_ranges: w.row_ranges.unwrap_or_default(),
    })
);

message!(WReadRows {
    table_name | "table_name": String,
    rows: RowSet,
    filter: RowFilter,
    rows_limit | "rows_limit": I64,
    reversed: bool,
});

fn into_read_rows(w: WReadRows) -> (Option<String>, ReadRowsRequest) {
    let request = ReadRowsRequest {
        row_set: w.rows.unwrap_or_default(),
        filter: w.filter.unwrap_or_default(),
        rows_limit: w.rows_limit.map_or(0, |n| n.0),
        reversed: w.reversed.unwrap_or(false),
    };
    (w.table_name, request)
}

fn from_read_rows(table_name: Option<String>, r: &ReadRowsRequest) -> WReadRows {
    WReadRows {
        table_name,
        rows: (!r.row_set.is_all()).then(|| r.row_set.clone()),
        filter: (r.filter != RowFilter::PassAll).then(|| r.filter.clone()),
        rows_limit: nonzero(r.rows_limit),
        reversed: r.reversed.then_some(true),
    }
}

// The core request has no table: it is `Database::read_rows`'s argument. A `tableName` here
// is refused rather than dropped; [`ReadRows`] keeps it.
via!(
    ReadRowsRequest,
    WReadRows,
    |r| from_read_rows(None, r),
    |w: WReadRows| match w.table_name {
        Some(_) => Err(String::from(
            "tableName: not part of a ReadRowsRequest body; use json::ReadRows"
        )),
        None => Ok(into_read_rows(w).1),
    }
);

/// A whole `ReadRowsRequest` message: the core request plus the table it names.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReadRows {
    /// `tableName`, e.g. `projects/p/instances/i/tables/t`, if given.
    pub table_name: Option<String>,
    /// Rows, filter, limit and order.
    pub request: ReadRowsRequest,
}

via!(
    ReadRows,
    WReadRows,
    |r: &ReadRows| from_read_rows(r.table_name.clone(), &r.request),
    |w| {
        let (table_name, request) = into_read_rows(w);
        Ok::<_, String>(ReadRows {
            table_name,
            request,
        })
    }
);

message!(WEntry {
    row_key | "row_key": B64,
    mutations: Vec<Mutation>,
});

via!(
    RowMutations,
    WEntry,
    |e: &RowMutations| WEntry {
        row_key: some_bytes(&e.row_key),
        mutations: some_vec(e.mutations.clone()),
    },
    |w: WEntry| Ok::<_, String>(RowMutations {
        row_key: w.row_key.map(|k| k.0).unwrap_or_default(),
        mutations: w.mutations.unwrap_or_default(),
    })
);

message!(WRule {
    family_name | "family_name": String,
    column_qualifier | "column_qualifier": B64,
    append_value | "append_value": B64,
    increment_amount | "increment_amount": I64,
});

fn into_rule(w: WRule) -> Result<ReadModifyWriteRule, String> {
    check_oneof(
        "rule",
        &[
            ("appendValue", w.append_value.is_some()),
            ("incrementAmount", w.increment_amount.is_some()),
        ],
        true,
    )?;
    let family = w.family_name.unwrap_or_default();
    let qualifier = w.column_qualifier.map(|q| q.0).unwrap_or_default();
    Ok(match (w.append_value, w.increment_amount) {
        (Some(v), _) => ReadModifyWriteRule::append(family, qualifier, v.0),
        (None, n) => ReadModifyWriteRule::increment(family, qualifier, n.map_or(0, |n| n.0)),
    })
}

fn from_rule(r: &ReadModifyWriteRule) -> WRule {
    let (append_value, increment_amount) = match &r.op {
        // A set oneof member is written even when it holds its default value.
        ReadModifyWriteOp::AppendValue(v) => (Some(B64(v.clone())), None),
        ReadModifyWriteOp::IncrementAmount(n) => (None, Some(I64(*n))),
    };
    WRule {
        family_name: some_str(&r.family),
        column_qualifier: some_bytes(&r.qualifier),
        append_value,
        increment_amount,
    }
}

via!(ReadModifyWriteRule, WRule, from_rule, into_rule);

message!(WRow {
    key: B64,
    families: Vec<WFamily>,
});
message!(WFamily {
    name: String,
    columns: Vec<WColumn>,
});
message!(WColumn {
    qualifier: B64,
    cells: Vec<WCell>,
});
message!(WCell {
    timestamp_micros | "timestamp_micros": I64,
    value: B64,
    labels: Vec<String>,
});

fn into_row(w: WRow) -> Result<Row, String> {
    let mut cells = Vec::new();
    for family in w.families.unwrap_or_default() {
        let name = family.name.unwrap_or_default();
        for column in family.columns.unwrap_or_default() {
            let qualifier = column.qualifier.map(|q| q.0).unwrap_or_default();
            for c in column.cells.unwrap_or_default() {
                cells.push(Cell {
                    family: name.clone(),
                    qualifier: qualifier.clone(),
                    timestamp_micros: c.timestamp_micros.map_or(0, |t| t.0),
                    value: c.value.map(|v| v.0).unwrap_or_default(),
                    labels: c.labels.unwrap_or_default(),
                });
            }
        }
    }
    Ok(Row {
        key: w.key.map(|k| k.0).unwrap_or_default(),
        cells,
    })
}

/// Groups the row's cells into the proto's families and columns: consecutive cells of one
/// family (then one qualifier) share an entry, which keeps the engine's order exactly.
fn from_row(r: &Row) -> WRow {
    let mut families: Vec<WFamily> = Vec::new();
    for c in &r.cells {
        let cell = WCell {
            timestamp_micros: nonzero(c.timestamp_micros),
            value: some_bytes(&c.value),
            labels: some_vec(c.labels.clone()),
        };
        let family = match families.last_mut() {
            Some(f) if f.name.as_deref().unwrap_or("") == c.family => f,
            _ => {
                families.push(WFamily {
                    name: some_str(&c.family),
                    columns: Some(Vec::new()),
                });
                families.last_mut().expect("just pushed")
            }
        };
        let columns = family.columns.get_or_insert_with(Vec::new);
        match columns.last_mut() {
            Some(col) if col.qualifier.as_ref().map_or(&[][..], |q| &q.0) == c.qualifier => {
                col.cells.get_or_insert_with(Vec::new).push(cell)
            }
            _ => columns.push(WColumn {
                qualifier: some_bytes(&c.qualifier),
                cells: Some(alloc::vec![cell]),
            }),
        }
    }
    WRow {
        key: some_bytes(&r.key),
        families: some_vec(families),
    }
}

via!(Row, WRow, from_row, into_row);

/// A `MutateRowRequest` body.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct MutateRow {
    /// `tableName`, if given.
    #[serde(alias = "table_name", skip_serializing_if = "Option::is_none")]
    pub table_name: Option<String>,
    /// The row.
    #[serde(alias = "row_key", with = "scalar::bytes_field")]
    pub row_key: Vec<u8>,
    /// Applied atomically, in order.
    pub mutations: Vec<Mutation>,
}

/// A `MutateRowsRequest` body.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct MutateRows {
    /// `tableName`, if given.
    #[serde(alias = "table_name", skip_serializing_if = "Option::is_none")]
    pub table_name: Option<String>,
    /// Each entry is atomic on its own.
    pub entries: Vec<RowMutations>,
}

/// A `CheckAndMutateRowRequest` body.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct CheckAndMutateRow {
    /// `tableName`, if given.
    #[serde(alias = "table_name", skip_serializing_if = "Option::is_none")]
    pub table_name: Option<String>,
    /// The row.
    #[serde(alias = "row_key", with = "scalar::bytes_field")]
    pub row_key: Vec<u8>,
    /// The predicate; absent means "the row has any cell".
    #[serde(alias = "predicate_filter", skip_serializing_if = "Option::is_none")]
    pub predicate_filter: Option<RowFilter>,
    /// Applied when the predicate yields a cell.
    #[serde(alias = "true_mutations", skip_serializing_if = "Vec::is_empty")]
    pub true_mutations: Vec<Mutation>,
    /// Applied otherwise.
    #[serde(alias = "false_mutations", skip_serializing_if = "Vec::is_empty")]
    pub false_mutations: Vec<Mutation>,
}

/// A `ReadModifyWriteRowRequest` body.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct ReadModifyWriteRow {
    /// `tableName`, if given.
    #[serde(alias = "table_name", skip_serializing_if = "Option::is_none")]
    pub table_name: Option<String>,
    /// The row.
    #[serde(alias = "row_key", with = "scalar::bytes_field")]
    pub row_key: Vec<u8>,
    /// Applied in order to the latest cell of each column.
    pub rules: Vec<ReadModifyWriteRule>,
}
