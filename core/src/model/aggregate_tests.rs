//! Tests of aggregate cells: HyperLogLog++ inputs and states (raw and int64 inputs, checked
//! states, precision), int64 aggregates unchanged, and a property: however the inputs are
//! grouped into partial sketches and in whatever order those merge, the cell is the same.

use super::*;
use alloc::vec;
use proptest::prelude::*;

const HLL: ValueType = ValueType::HllUniqueCount;

fn estimate(cell: &[u8]) -> i64 {
    Sketch::from_bytes(cell).unwrap().estimate()
}

fn add_all(values: &[Vec<u8>]) -> Vec<u8> {
    let mut cell: Option<Vec<u8>> = None;
    for v in values {
        let state = raw_input_state(v);
        cell = Some(merged_value(HLL, cell.as_deref(), Input::State(&state)));
    }
    cell.unwrap_or_else(|| Sketch::new(Kind::Bytes, HLL_PRECISION).to_bytes())
}

#[test]
fn hll_cell_counts_distinct_inputs() {
    let values: Vec<Vec<u8>> = (0..1000u32)
        .map(|i| (i % 300).to_be_bytes().to_vec())
        .collect();
    let cell = add_all(&values);
    // Sparse at 300 distinct values: exact.
    assert_eq!(estimate(&cell), 300);
    let s = Sketch::from_bytes(&cell).unwrap();
    assert_eq!((s.kind(), s.precision()), (Kind::Bytes, HLL_PRECISION));
}

#[test]
fn int64_input_is_its_big_endian_bytes() {
    let by_int = merged_value(HLL, None, Input::Int64(7));
    let by_raw = merged_value(
        HLL,
        None,
        Input::State(&raw_input_state(&7i64.to_be_bytes())),
    );
    assert_eq!(by_int, by_raw);
    let two = merged_value(HLL, Some(&by_int), Input::Int64(8));
    assert_eq!(estimate(&two), 2);
    // Adding the same value again changes nothing.
    assert_eq!(merged_value(HLL, Some(&two), Input::Int64(7)), two);
}

#[test]
fn merging_a_lower_precision_state_lowers_the_cell() {
    let mut low = Sketch::new(Kind::Bytes, 10);
    for i in 0..5000u32 {
        low.add_hash(hash_bytes(&i.to_le_bytes()));
    }
    check_state(HLL, &low.to_bytes(), 0).unwrap();
    let cell = merged_value(HLL, None, Input::Int64(1));
    let cell = merged_value(HLL, Some(&cell), Input::State(&low.to_bytes()));
    let s = Sketch::from_bytes(&cell).unwrap();
    assert_eq!(s.precision(), 10);
    let e = s.estimate();
    assert!((4500..5500).contains(&e), "{e}");
}

#[test]
fn states_are_checked() {
    // An HLL family takes only sketches of BYTES inputs.
    assert!(check_state(HLL, &raw_input_state(b"x"), 3).is_ok());
    let mut ints = Sketch::new(Kind::Int64, 15);
    ints.add_hash(1);
    for bad in [
        Vec::new(),
        7i64.to_be_bytes().to_vec(),
        b"not a sketch at all".to_vec(),
        ints.to_bytes(),
    ] {
        let e = check_state(HLL, &bad, 3).unwrap_err();
        assert_eq!(e.code(), crate::Code::InvalidArgument, "{bad:?}");
        assert!(e.message().starts_with("mutations[3]: "), "{}", e.message());
    }
    // Int64 families keep their 8-byte states.
    assert!(check_state(ValueType::Int64Sum, &[0; 8], 0).is_ok());
    assert!(check_state(ValueType::Int64Max, &raw_input_state(b"x"), 0).is_err());
}

#[test]
fn int64_aggregates_merge_as_before() {
    let cell = merged_value(ValueType::Int64Sum, None, Input::Int64(5));
    let cell = merged_value(
        ValueType::Int64Sum,
        Some(&cell),
        Input::State(&7i64.to_be_bytes()),
    );
    assert_eq!(cell, 12i64.to_be_bytes());
    let min = merged_value(ValueType::Int64Min, Some(&cell), Input::Int64(-3));
    assert_eq!(min, (-3i64).to_be_bytes());
}

#[test]
fn an_unreadable_stored_cell_counts_as_absent() {
    let cell = merged_value(HLL, Some(b"garbage"), Input::Int64(1));
    assert_eq!(cell, merged_value(HLL, None, Input::Int64(1)));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Partial sketches of any grouping of the inputs, merged in any order (each group as a
    /// MergeToCell state, or its inputs added one by one), give the cell that adding every
    /// input gives: same bytes, so the same estimate.
    #[test]
    fn any_grouping_gives_the_same_cell(
        values in prop::collection::vec(0u32..5000, 0..1500),
        groups in prop::collection::vec(0usize..6, 1500),
        order in Just(()).prop_perturb(|_, mut rng| {
            let mut o: Vec<usize> = (0..6).collect();
            for i in (1..o.len()).rev() {
                o.swap(i, (rng.next_u32() as usize) % (i + 1));
            }
            o
        }),
        as_adds in prop::collection::vec(any::<bool>(), 6),
    ) {
        let mut parts: Vec<Vec<i64>> = vec![Vec::new(); 6];
        for (i, v) in values.iter().enumerate() {
            parts[groups[i]].push(i64::from(*v));
        }
        let mut cell: Option<Vec<u8>> = None;
        for &g in &order {
            if as_adds[g] {
                for &v in &parts[g] {
                    cell = Some(merged_value(HLL, cell.as_deref(), Input::Int64(v)));
                }
            } else {
                let mut partial: Option<Vec<u8>> = None;
                for &v in &parts[g] {
                    partial = Some(merged_value(HLL, partial.as_deref(), Input::Int64(v)));
                }
                if let Some(p) = partial {
                    cell = Some(merged_value(HLL, cell.as_deref(), Input::State(&p)));
                }
            }
        }
        let mut whole: Option<Vec<u8>> = None;
        for &v in &values {
            whole = Some(merged_value(HLL, whole.as_deref(), Input::Int64(i64::from(v))));
        }
        prop_assert_eq!(&cell, &whole);
        if let (Some(c), Some(w)) = (cell, whole) {
            prop_assert_eq!(estimate(&c), estimate(&w));
        }
    }
}

/// The example of docs/format/hll_sketch.md: the cell after AddToCell of the int64 7.
#[test]
fn the_documented_example_bytes() {
    let cell = merged_value(HLL, None, Input::Int64(7));
    let mut want = b"STHL".to_vec();
    want.extend_from_slice(&[1, 3, 15, 0, 1, 0, 0, 0, 0x03, 0x94, 0x75, 0x13]);
    assert_eq!(cell, want);
    // The entry: index 5101136 (the hash's top 25 bits), rank 3.
    assert_eq!((0x1375_9403u32 >> 6, 0x1375_9403u32 & 63), (5_101_136, 3));
}
