//! The RowFilter that crosses the FFI, a flat node list, and its conversion to the core's
//! filter.
//!
//! One node variant per core filter, field for field, with members named by index instead of
//! nested (see [`crate::tree`] for why, and for the checks that make the list a tree within
//! the core's depth and size limits before the core's recursive type is built). The core then
//! validates the rest (regexes, limits, sink placement) when a read compiles it.

use sparsetable::Error;

use crate::bounds::ByteBound;
use crate::tree::{check, take};

/// A row filter, as Bigtable's `RowFilter`: its nodes in post-order, the root last.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct RowFilter {
    /// The nodes; a node's members come before it, each node but the last is a member of
    /// exactly one node.
    pub nodes: Vec<FilterNode>,
}

/// One node of a [`RowFilter`]: a filter whose members, if any, are earlier nodes named by
/// their index in the list. Semantics in the core's `filter` module.
#[derive(Debug, Clone, PartialEq, uniffi::Enum)]
pub enum FilterNode {
    /// Every cell.
    PassAll,
    /// No cell.
    BlockAll,
    /// Sends the cells reaching it straight to the output.
    Sink,
    /// Each member's output feeds the next (at least two members).
    Chain {
        /// The members' node indices, in order.
        filters: Vec<u32>,
    },
    /// Every member sees the row; outputs merged, duplicates kept (at least two members).
    Interleave {
        /// The members' node indices.
        filters: Vec<u32>,
    },
    /// `true_filter` if `predicate` yields a cell, else `false_filter`; a missing branch
    /// yields nothing.
    Condition {
        /// The node index of the filter that decides the branch.
        predicate: u32,
        /// The node index of the filter applied when the predicate matched.
        true_filter: Option<u32>,
        /// The node index of the filter applied otherwise.
        false_filter: Option<u32>,
    },
    /// The whole row if its key fully matches the RE2 regex.
    RowKeyRegex {
        /// The regex, as bytes.
        regex: Vec<u8>,
    },
    /// The whole row with probability `probability` (0 < p < 1).
    RowSample {
        /// The probability.
        probability: f64,
    },
    /// Cells whose family fully matches the regex.
    FamilyNameRegex {
        /// The regex.
        regex: String,
    },
    /// Cells whose qualifier fully matches the regex.
    ColumnQualifierRegex {
        /// The regex, as bytes.
        regex: Vec<u8>,
    },
    /// Cells of `family` whose qualifier lies in the range.
    ColumnRange {
        /// The family.
        family: String,
        /// Start of the qualifier range.
        start: ByteBound,
        /// End of the qualifier range.
        end: ByteBound,
    },
    /// Cells with `start_micros <= timestamp < end_micros`; `end_micros = 0` is unbounded.
    TimestampRange {
        /// Inclusive start.
        start_micros: i64,
        /// Exclusive end, 0 for unbounded.
        end_micros: i64,
    },
    /// Cells whose value fully matches the regex.
    ValueRegex {
        /// The regex, as bytes.
        regex: Vec<u8>,
    },
    /// Cells whose value lies in the byte-wise range.
    ValueRange {
        /// Start of the range.
        start: ByteBound,
        /// End of the range.
        end: ByteBound,
    },
    /// Skips the first `n` cells of the row.
    CellsPerRowOffset {
        /// How many to skip.
        n: i32,
    },
    /// Keeps the first `n` cells of the row.
    CellsPerRowLimit {
        /// How many to keep.
        n: i32,
    },
    /// Keeps the newest `n` cells of each column.
    CellsPerColumnLimit {
        /// How many to keep.
        n: i32,
    },
    /// Replaces every value with the empty value.
    StripValue,
    /// Attaches `label` to every cell.
    ApplyLabel {
        /// The label.
        label: String,
    },
    /// Cells whose value has every bit of `mask` set (same length).
    ValueBitmask {
        /// The mask.
        mask: Vec<u8>,
    },
}

impl FilterNode {
    fn children(&self) -> Vec<u32> {
        match self {
            FilterNode::Chain { filters } | FilterNode::Interleave { filters } => filters.clone(),
            FilterNode::Condition {
                predicate,
                true_filter,
                false_filter,
            } => core::iter::once(*predicate)
                .chain(*true_filter)
                .chain(*false_filter)
                .collect(),
            _ => Vec::new(),
        }
    }
}

impl TryFrom<RowFilter> for sparsetable::RowFilter {
    type Error = Error;

    fn try_from(f: RowFilter) -> Result<Self, Error> {
        use sparsetable::RowFilter as Core;
        let nodes = f.nodes;
        check(
            nodes.len(),
            |i| nodes[i].children(),
            &sparsetable::limits::FILTER_TREE,
        )?;
        let mut built: Vec<Option<Core>> = Vec::with_capacity(nodes.len());
        for node in nodes {
            let core = match node {
                FilterNode::PassAll => Core::PassAll,
                FilterNode::BlockAll => Core::BlockAll,
                FilterNode::Sink => Core::Sink,
                FilterNode::Chain { filters } => Core::Chain(
                    filters
                        .into_iter()
                        .map(|i| take(&mut built, i))
                        .collect::<Result<_, _>>()?,
                ),
                FilterNode::Interleave { filters } => Core::Interleave(
                    filters
                        .into_iter()
                        .map(|i| take(&mut built, i))
                        .collect::<Result<_, _>>()?,
                ),
                FilterNode::Condition {
                    predicate,
                    true_filter,
                    false_filter,
                } => Core::Condition {
                    predicate: Box::new(take(&mut built, predicate)?),
                    true_filter: match true_filter {
                        Some(i) => Some(Box::new(take(&mut built, i)?)),
                        None => None,
                    },
                    false_filter: match false_filter {
                        Some(i) => Some(Box::new(take(&mut built, i)?)),
                        None => None,
                    },
                },
                FilterNode::RowKeyRegex { regex } => Core::RowKeyRegex(regex),
                FilterNode::RowSample { probability } => Core::RowSample(probability),
                FilterNode::FamilyNameRegex { regex } => Core::FamilyNameRegex(regex),
                FilterNode::ColumnQualifierRegex { regex } => Core::ColumnQualifierRegex(regex),
                FilterNode::ColumnRange { family, start, end } => Core::ColumnRange {
                    family,
                    start: start.into(),
                    end: end.into(),
                },
                FilterNode::TimestampRange {
                    start_micros,
                    end_micros,
                } => Core::TimestampRange {
                    start_micros,
                    end_micros,
                },
                FilterNode::ValueRegex { regex } => Core::ValueRegex(regex),
                FilterNode::ValueRange { start, end } => Core::ValueRange {
                    start: start.into(),
                    end: end.into(),
                },
                FilterNode::CellsPerRowOffset { n } => Core::CellsPerRowOffset(n),
                FilterNode::CellsPerRowLimit { n } => Core::CellsPerRowLimit(n),
                FilterNode::CellsPerColumnLimit { n } => Core::CellsPerColumnLimit(n),
                FilterNode::StripValue => Core::StripValue,
                FilterNode::ApplyLabel { label } => Core::ApplyLabel(label),
                FilterNode::ValueBitmask { mask } => Core::ValueBitmask(mask),
            };
            built.push(Some(core));
        }
        let root = built.len() as u32 - 1;
        take(&mut built, root)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_condition_converts_member_for_member() {
        let f = RowFilter {
            nodes: vec![
                FilterNode::PassAll,
                FilterNode::StripValue,
                FilterNode::Chain {
                    filters: vec![0, 1],
                },
                FilterNode::ApplyLabel { label: "x".into() },
                FilterNode::Condition {
                    predicate: 2,
                    true_filter: Some(3),
                    false_filter: None,
                },
            ],
        };
        assert_eq!(
            sparsetable::RowFilter::try_from(f).unwrap(),
            sparsetable::RowFilter::Condition {
                predicate: Box::new(sparsetable::RowFilter::Chain(vec![
                    sparsetable::RowFilter::PassAll,
                    sparsetable::RowFilter::StripValue
                ])),
                true_filter: Some(Box::new(sparsetable::RowFilter::ApplyLabel("x".into()))),
                false_filter: None,
            }
        );
    }

    #[test]
    fn a_hundred_thousand_deep_chain_is_invalid_argument() {
        let mut nodes = vec![FilterNode::PassAll];
        for i in 0..100_000u32 {
            nodes.push(FilterNode::Chain { filters: vec![i] });
        }
        let e = sparsetable::RowFilter::try_from(RowFilter { nodes }).unwrap_err();
        assert_eq!(e.code(), sparsetable::Code::InvalidArgument);
        let mut nodes = vec![FilterNode::PassAll];
        for i in 0..(sparsetable::limits::FILTER_TREE.max_depth as u32) {
            nodes.push(FilterNode::Chain { filters: vec![i] });
        }
        let e = sparsetable::RowFilter::try_from(RowFilter { nodes }).unwrap_err();
        assert!(e.message().contains("nesting deeper"), "{e}");
    }
}
