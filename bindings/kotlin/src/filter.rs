//! The RowFilter record that crosses the FFI, and its conversion to the core's filter.
//!
//! One variant per core filter, field for field; the core validates (regexes, limits,
//! nesting, sink placement) when a read compiles it, so this module only converts.

use crate::types::ByteBound;

/// A row filter, as Bigtable's `RowFilter` (semantics in the core's `filter` module).
#[derive(Debug, Clone, PartialEq, uniffi::Enum)]
pub enum RowFilter {
    /// Every cell.
    PassAll,
    /// No cell.
    BlockAll,
    /// Sends the cells reaching it straight to the output.
    Sink,
    /// Each member's output feeds the next (at least two members).
    Chain {
        /// The members, in order.
        filters: Vec<RowFilter>,
    },
    /// Every member sees the row; outputs merged, duplicates kept (at least two members).
    Interleave {
        /// The members.
        filters: Vec<RowFilter>,
    },
    /// `true_filter` if `predicate` yields a cell, else `false_filter`; a missing branch
    /// yields nothing.
    Condition {
        /// Decides the branch.
        predicate: Box<RowFilter>,
        /// Applied when the predicate matched.
        true_filter: Option<Box<RowFilter>>,
        /// Applied otherwise.
        false_filter: Option<Box<RowFilter>>,
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

impl From<RowFilter> for sparsetable::RowFilter {
    fn from(f: RowFilter) -> Self {
        use sparsetable::RowFilter as Core;
        let boxed = |f: Box<RowFilter>| Box::new(Core::from(*f));
        let all = |fs: Vec<RowFilter>| fs.into_iter().map(Core::from).collect();
        match f {
            RowFilter::PassAll => Core::PassAll,
            RowFilter::BlockAll => Core::BlockAll,
            RowFilter::Sink => Core::Sink,
            RowFilter::Chain { filters } => Core::Chain(all(filters)),
            RowFilter::Interleave { filters } => Core::Interleave(all(filters)),
            RowFilter::Condition {
                predicate,
                true_filter,
                false_filter,
            } => Core::Condition {
                predicate: boxed(predicate),
                true_filter: true_filter.map(boxed),
                false_filter: false_filter.map(boxed),
            },
            RowFilter::RowKeyRegex { regex } => Core::RowKeyRegex(regex),
            RowFilter::RowSample { probability } => Core::RowSample(probability),
            RowFilter::FamilyNameRegex { regex } => Core::FamilyNameRegex(regex),
            RowFilter::ColumnQualifierRegex { regex } => Core::ColumnQualifierRegex(regex),
            RowFilter::ColumnRange { family, start, end } => Core::ColumnRange {
                family,
                start: start.into(),
                end: end.into(),
            },
            RowFilter::TimestampRange {
                start_micros,
                end_micros,
            } => Core::TimestampRange {
                start_micros,
                end_micros,
            },
            RowFilter::ValueRegex { regex } => Core::ValueRegex(regex),
            RowFilter::ValueRange { start, end } => Core::ValueRange {
                start: start.into(),
                end: end.into(),
            },
            RowFilter::CellsPerRowOffset { n } => Core::CellsPerRowOffset(n),
            RowFilter::CellsPerRowLimit { n } => Core::CellsPerRowLimit(n),
            RowFilter::CellsPerColumnLimit { n } => Core::CellsPerColumnLimit(n),
            RowFilter::StripValue => Core::StripValue,
            RowFilter::ApplyLabel { label } => Core::ApplyLabel(label),
            RowFilter::ValueBitmask { mask } => Core::ValueBitmask(mask),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_condition_converts_member_for_member() {
        let f = RowFilter::Condition {
            predicate: Box::new(RowFilter::Chain {
                filters: vec![RowFilter::PassAll, RowFilter::StripValue],
            }),
            true_filter: Some(Box::new(RowFilter::ApplyLabel { label: "x".into() })),
            false_filter: None,
        };
        assert_eq!(
            sparsetable::RowFilter::from(f),
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
}
