//! Property test of [`super::eval_copy`], the copy an Interleave member other than the last
//! works on: it copies only the cells the member's leading selections keep, and must return
//! exactly what evaluating the member on a copy of the whole row returns (the simple version
//! it replaced), with the same cells sunk and the same random numbers drawn.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::ops::Bound;

use proptest::prelude::*;

use super::{eval, eval_copy, RowFilter};
use crate::model::row::Cell;
use crate::platform::random::SplitMix64;

fn cell() -> impl Strategy<Value = Cell> {
    (
        0usize..2,
        0u8..3,
        0i64..4,
        proptest::collection::vec(0u8..4, 0..3),
    )
        .prop_map(|(f, q, t, value)| Cell {
            family: String::from(["a", "b"][f]),
            qualifier: alloc::format!("q{q}").into_bytes(),
            timestamp_micros: t * 1000,
            value,
            labels: Vec::new(),
        })
}

fn leaf() -> impl Strategy<Value = RowFilter> {
    prop_oneof![
        Just(RowFilter::PassAll),
        Just(RowFilter::BlockAll),
        Just(RowFilter::Sink),
        Just(RowFilter::StripValue),
        Just(RowFilter::ApplyLabel(String::from("l"))),
        Just(RowFilter::RowSample(0.5)),
        Just(RowFilter::RowKeyRegex(b"r.*".to_vec())),
        Just(RowFilter::RowKeyRegex(b"x".to_vec())),
        Just(RowFilter::FamilyNameRegex(String::from("a"))),
        Just(RowFilter::ColumnQualifierRegex(b"q[01]".to_vec())),
        Just(RowFilter::ValueRegex(b"\\x01.*".to_vec())),
        (0usize..2, 0u8..3).prop_map(|(f, q)| RowFilter::ColumnRange {
            family: String::from(["a", "b"][f]),
            start: Bound::Included(alloc::format!("q{q}").into_bytes()),
            end: Bound::Unbounded,
        }),
        (0i64..3, 1i64..4).prop_map(|(s, e)| RowFilter::TimestampRange {
            start_micros: s * 1000,
            end_micros: (s + e) * 1000,
        }),
        (0u8..4).prop_map(|v| RowFilter::ValueRange {
            start: Bound::Included(alloc::vec![v]),
            end: Bound::Excluded(alloc::vec![v + 1]),
        }),
        (0i32..4).prop_map(RowFilter::CellsPerRowOffset),
        (1i32..4).prop_map(RowFilter::CellsPerRowLimit),
        (1i32..3).prop_map(RowFilter::CellsPerColumnLimit),
    ]
}

fn filter() -> impl Strategy<Value = RowFilter> {
    leaf().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 2..5).prop_map(RowFilter::Chain),
            proptest::collection::vec(inner, 2..4).prop_map(RowFilter::Interleave),
        ]
    })
}

proptest! {
    #[test]
    fn a_member_on_its_selected_copy_answers_as_on_a_whole_copy(
        f in filter(),
        cells in proptest::collection::vec(cell(), 0..10),
        key in prop_oneof![Just(b"r1".to_vec()), Just(b"x".to_vec())],
        seed in any::<u64>(),
    ) {
        let Ok(compiled) = f.compile() else {
            return Ok(());
        };
        let (mut r1, mut r2) = (SplitMix64::new(seed), SplitMix64::new(seed));
        let (mut sunk1, mut sunk2) = (Vec::new(), Vec::new());
        let copied = eval_copy(&compiled.root, &key, &cells, &mut r1, &mut sunk1);
        let whole = eval(&compiled.root, &key, cells.clone(), &mut r2, &mut sunk2);
        prop_assert_eq!(copied, whole);
        prop_assert_eq!(sunk1, sunk2);
        prop_assert_eq!(r1.next_u64(), r2.next_u64());
    }
}
