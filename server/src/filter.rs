//! `google.bigtable.v2.RowFilter` messages (as [`crate::wire`] decodes them, with the value
//! bitmask filter) to the engine's [`RowFilter`].
//!
//! Only the shape changes: every rule (regex syntax, limits, labels, nesting depth, sinks in
//! predicates, chains with more than one label) is the engine's, checked when it compiles the
//! filter. Two things are decided here because only the message can express them: a boolean
//! filter (`pass_all_filter`, `block_all_filter`, `sink`, `strip_value_transformer`) set to
//! `false` is INVALID_ARGUMENT, as Cloud Bigtable answers; and a `RowFilter` message with no
//! kind set (or with a kind this server does not know, which prost decodes to the same) is
//! the engine's `RowFilter::missing_kind`, INVALID_ARGUMENT, as Cloud Bigtable answers, where
//! Google's emulator passes every cell. An absent filter field is different: no filter.

use std::ops::Bound;

use sparsetable::{Error, Result, RowFilter};

use crate::stubs::v2::{column_range, value_range};
use crate::wire::{self as v2, row_filter::Filter};

/// Converts a request's filter; `field` locates it in the request for error messages.
///
/// # Errors
/// `InvalidArgument` for a boolean filter given `false`, a condition without a predicate, or
/// a filter message (at any depth) with no kind set.
pub fn filter_from_proto(field: &str, filter: Option<&v2::RowFilter>) -> Result<RowFilter> {
    let Some(filter) = filter else {
        return Ok(RowFilter::PassAll);
    };
    let Some(filter) = filter.filter.as_ref() else {
        return Err(RowFilter::missing_kind(field));
    };
    let flag = |set: bool, name: &str, f: RowFilter| {
        if set {
            Ok(f)
        } else {
            Err(Error::invalid_argument(format!(
                "{field}.{name} must be true when set"
            )))
        }
    };
    let members = |kind: &str, filters: &[v2::RowFilter]| {
        filters
            .iter()
            .enumerate()
            .map(|(i, f)| filter_from_proto(&format!("{field}.{kind}.filters[{i}]"), Some(f)))
            .collect::<Result<Vec<_>>>()
    };
    Ok(match filter {
        Filter::Chain(c) => RowFilter::Chain(members("chain", &c.filters)?),
        Filter::Interleave(i) => RowFilter::Interleave(members("interleave", &i.filters)?),
        Filter::Condition(c) => {
            let predicate = c.predicate_filter.as_deref().ok_or_else(|| {
                Error::invalid_argument(format!("{field}.condition.predicate_filter is required"))
            })?;
            let branch = |name: &str, f: &Option<Box<v2::RowFilter>>| {
                f.as_deref()
                    .map(|f| filter_from_proto(&format!("{field}.condition.{name}"), Some(f)))
                    .transpose()
                    .map(|f| f.map(Box::new))
            };
            RowFilter::Condition {
                predicate: Box::new(filter_from_proto(
                    &format!("{field}.condition.predicate_filter"),
                    Some(predicate),
                )?),
                true_filter: branch("true_filter", &c.true_filter)?,
                false_filter: branch("false_filter", &c.false_filter)?,
            }
        }
        Filter::Sink(b) => flag(*b, "sink", RowFilter::Sink)?,
        Filter::PassAllFilter(b) => flag(*b, "pass_all_filter", RowFilter::PassAll)?,
        Filter::BlockAllFilter(b) => flag(*b, "block_all_filter", RowFilter::BlockAll)?,
        Filter::StripValueTransformer(b) => {
            flag(*b, "strip_value_transformer", RowFilter::StripValue)?
        }
        Filter::RowKeyRegexFilter(re) => RowFilter::RowKeyRegex(re.clone()),
        Filter::RowSampleFilter(p) => RowFilter::RowSample(*p),
        Filter::FamilyNameRegexFilter(re) => RowFilter::FamilyNameRegex(re.clone()),
        Filter::ColumnQualifierRegexFilter(re) => RowFilter::ColumnQualifierRegex(re.clone()),
        Filter::ColumnRangeFilter(r) => RowFilter::ColumnRange {
            family: r.family_name.clone(),
            start: match &r.start_qualifier {
                Some(column_range::StartQualifier::StartQualifierClosed(q)) => {
                    Bound::Included(q.clone())
                }
                Some(column_range::StartQualifier::StartQualifierOpen(q)) => {
                    Bound::Excluded(q.clone())
                }
                None => Bound::Unbounded,
            },
            end: match &r.end_qualifier {
                Some(column_range::EndQualifier::EndQualifierClosed(q)) => {
                    Bound::Included(q.clone())
                }
                Some(column_range::EndQualifier::EndQualifierOpen(q)) => Bound::Excluded(q.clone()),
                None => Bound::Unbounded,
            },
        },
        Filter::TimestampRangeFilter(r) => RowFilter::TimestampRange {
            start_micros: r.start_timestamp_micros,
            end_micros: r.end_timestamp_micros,
        },
        Filter::ValueRegexFilter(re) => RowFilter::ValueRegex(re.clone()),
        Filter::ValueRangeFilter(r) => RowFilter::ValueRange {
            start: match &r.start_value {
                Some(value_range::StartValue::StartValueClosed(v)) => Bound::Included(v.clone()),
                Some(value_range::StartValue::StartValueOpen(v)) => Bound::Excluded(v.clone()),
                None => Bound::Unbounded,
            },
            end: match &r.end_value {
                Some(value_range::EndValue::EndValueClosed(v)) => Bound::Included(v.clone()),
                Some(value_range::EndValue::EndValueOpen(v)) => Bound::Excluded(v.clone()),
                None => Bound::Unbounded,
            },
        },
        Filter::CellsPerRowOffsetFilter(n) => RowFilter::CellsPerRowOffset(*n),
        Filter::CellsPerRowLimitFilter(n) => RowFilter::CellsPerRowLimit(*n),
        Filter::CellsPerColumnLimitFilter(n) => RowFilter::CellsPerColumnLimit(*n),
        Filter::ApplyLabelTransformer(label) => RowFilter::ApplyLabel(label.clone()),
        Filter::ValueBitmaskFilter(b) => RowFilter::ValueBitmask(b.mask.clone()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparsetable::Code;

    fn f(filter: Filter) -> v2::RowFilter {
        v2::RowFilter {
            filter: Some(filter),
        }
    }

    #[test]
    fn an_absent_filter_passes_everything_and_an_empty_one_is_invalid() {
        assert_eq!(
            filter_from_proto("filter", None).unwrap(),
            RowFilter::PassAll
        );
        let err = filter_from_proto("filter", Some(&v2::RowFilter::default())).unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument);
        let nested = f(Filter::Chain(v2::row_filter::Chain {
            filters: vec![f(Filter::PassAllFilter(true)), v2::RowFilter::default()],
        }));
        let err = filter_from_proto("filter", Some(&nested)).unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument);
        assert!(
            err.message().starts_with("filter.chain.filters[1]"),
            "{}",
            err.message()
        );
    }

    #[test]
    fn a_false_boolean_filter_is_invalid_argument_naming_its_path() {
        let chain = f(Filter::Chain(v2::row_filter::Chain {
            filters: vec![
                f(Filter::PassAllFilter(true)),
                f(Filter::BlockAllFilter(false)),
            ],
        }));
        let err = filter_from_proto("filter", Some(&chain)).unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument);
        assert!(
            err.message()
                .starts_with("filter.chain.filters[1].block_all_filter"),
            "{}",
            err.message()
        );
        for flag in [
            Filter::Sink(false),
            Filter::PassAllFilter(false),
            Filter::StripValueTransformer(false),
        ] {
            let err = filter_from_proto("filter", Some(&f(flag))).unwrap_err();
            assert_eq!(err.code(), Code::InvalidArgument);
        }
    }

    #[test]
    fn nested_filters_keep_their_shape_and_bounds() {
        let condition = f(Filter::Condition(Box::new(v2::row_filter::Condition {
            predicate_filter: Some(Box::new(f(Filter::ValueRangeFilter(
                crate::stubs::v2::ValueRange {
                    start_value: Some(value_range::StartValue::StartValueOpen(b"a".to_vec())),
                    end_value: None,
                },
            )))),
            true_filter: Some(Box::new(f(Filter::ColumnRangeFilter(
                crate::stubs::v2::ColumnRange {
                    family_name: "cf".into(),
                    start_qualifier: None,
                    end_qualifier: Some(column_range::EndQualifier::EndQualifierClosed(
                        b"q".to_vec(),
                    )),
                },
            )))),
            false_filter: None,
        })));
        assert_eq!(
            filter_from_proto("filter", Some(&condition)).unwrap(),
            RowFilter::Condition {
                predicate: Box::new(RowFilter::ValueRange {
                    start: Bound::Excluded(b"a".to_vec()),
                    end: Bound::Unbounded,
                }),
                true_filter: Some(Box::new(RowFilter::ColumnRange {
                    family: "cf".into(),
                    start: Bound::Unbounded,
                    end: Bound::Included(b"q".to_vec()),
                })),
                false_filter: None,
            }
        );
        let missing = f(Filter::Condition(Box::default()));
        assert_eq!(
            filter_from_proto("filter", Some(&missing))
                .unwrap_err()
                .code(),
            Code::InvalidArgument
        );
    }

    #[test]
    fn the_value_bitmask_filter_is_decoded_from_the_wire() {
        use prost::Message;
        // Field 20 of RowFilter: the crate's own type drops it; ours keeps it.
        let bytes = f(Filter::ValueBitmaskFilter(v2::row_filter::ValueBitmask {
            mask: vec![1, 0, 0],
        }))
        .encode_to_vec();
        assert_eq!(bytes, [0xa2, 0x01, 0x05, 0x0a, 0x03, 1, 0, 0]);
        let decoded = v2::RowFilter::decode(bytes.as_slice()).unwrap();
        assert_eq!(
            filter_from_proto("filter", Some(&decoded)).unwrap(),
            RowFilter::ValueBitmask(vec![1, 0, 0])
        );
        let crate_view = crate::stubs::v2::RowFilter::decode(bytes.as_slice()).unwrap();
        assert!(crate_view.filter.is_none());
    }
}
