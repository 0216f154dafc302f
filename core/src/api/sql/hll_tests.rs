//! Tests of the HyperLogLog++ sketch: exact small counts, the documented error on 100,000
//! distinct values, merges that do not depend on order, and decoding that never panics.

use super::*;
use alloc::vec;
use proptest::prelude::*;

fn sketch_of(kind_p: u8, values: impl IntoIterator<Item = i64>) -> Sketch {
    let mut s = Sketch::new(Kind::Int64, kind_p);
    for v in values {
        let (_, h) = hash_input(&SqlValue::Int64(v)).unwrap();
        s.add_hash(h);
    }
    s
}

#[test]
fn small_counts_are_exact_at_every_precision() {
    for p in [10u8, 12, 15, 20, 24] {
        for n in [0i64, 1, 2, 5, 17, 100, 250] {
            let s = sketch_of(p, (0..n).chain(0..n));
            assert!(s.is_sparse(), "p={p} n={n} stays sparse");
            assert_eq!(s.estimate(), n, "p={p} n={n}");
        }
    }
    // Sparse up to the limit at the default precision, and still exact there.
    for n in [1000i64, 5000, 8192] {
        let s = sketch_of(15, 0..n);
        assert!(s.is_sparse());
        assert_eq!(s.estimate(), n, "n={n}");
    }
}

#[test]
fn turns_dense_past_its_limit() {
    let s = sketch_of(10, 0..257);
    assert!(!s.is_sparse());
    let est = s.estimate();
    assert!((240..=275).contains(&est), "{est}");
}

#[test]
fn hundred_thousand_distinct_within_documented_error() {
    // Relative standard error 1.04/sqrt(2^p); deterministic inputs, bound at 3 sigma.
    for p in [10u8, 12, 15] {
        let n = 100_000i64;
        let s = sketch_of(
            p,
            (0..n).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15_u64 as i64)),
        );
        assert!(!s.is_sparse());
        let err = (s.estimate() - n).abs() as f64 / n as f64;
        let sigma = 1.04 / libm::sqrt((1u64 << p) as f64);
        std::eprintln!(
            "p={p}: estimate {} of {n}, error {err:.5}, sigma {sigma:.5}",
            s.estimate()
        );
        assert!(
            err <= 3.0 * sigma,
            "p={p}: estimate {} off by {err}",
            s.estimate()
        );
    }
}

#[test]
fn merge_is_the_union() {
    let a = sketch_of(15, 0..60_000);
    let b = sketch_of(15, 40_000..100_000);
    let whole = sketch_of(15, 0..100_000);
    let mut m = a.clone();
    m.merge(&b).unwrap();
    assert_eq!(
        m, whole,
        "registers take the max: the union's sketch exactly"
    );
    // Sparse with sparse stays exact.
    let mut m = sketch_of(15, 0..300);
    m.merge(&sketch_of(15, 200..500)).unwrap();
    assert!(m.is_sparse());
    assert_eq!(m.estimate(), 500);
}

#[test]
fn merge_lowers_to_the_lowest_precision() {
    let mut hi = sketch_of(18, 0..50_000);
    let lo = sketch_of(12, 25_000..75_000);
    hi.merge(&lo).unwrap();
    assert_eq!(hi.precision(), 12);
    assert_eq!(
        hi,
        sketch_of(12, 0..75_000),
        "same as building at 12 from the start"
    );
    // Sparse sketches lowered keep their entries (sparse precision is fixed).
    let mut a = sketch_of(20, 0..100);
    a.merge(&sketch_of(10, 50..150)).unwrap();
    assert_eq!(a.precision(), 10);
    assert_eq!(a.estimate(), 150);
}

#[test]
fn merge_refuses_other_input_types() {
    let mut a = sketch_of(15, 0..3);
    let mut b = Sketch::new(Kind::String, 15);
    b.add_hash(hash_input(&SqlValue::String("x".into())).unwrap().1);
    let e = a.merge(&b).unwrap_err();
    assert_eq!(e.code(), crate::Code::InvalidArgument);
}

#[test]
fn bytes_round_trip_and_foreign_bytes_are_refused() {
    for s in [
        sketch_of(15, 0..100),
        sketch_of(11, 0..10_000),
        sketch_of(24, 0..0),
    ] {
        assert_eq!(Sketch::from_bytes(&s.to_bytes()).unwrap(), s);
    }
    let good = sketch_of(10, 0..5).to_bytes();
    let mut cases: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"STHL".to_vec(),
        // A BigQuery-like protobuf start.
        vec![0x08, 0x70, 0x10, 0x03, 0x18, 0x02],
    ];
    let mut bad_version = good.clone();
    bad_version[4] = 2;
    let mut bad_precision = good.clone();
    bad_precision[6] = 9;
    let mut unsorted = good.clone();
    for i in 0..4 {
        unsorted.swap(12 + i, 16 + i);
    }
    let mut truncated = good.clone();
    truncated.pop();
    cases.extend([bad_version, bad_precision, unsorted, truncated]);
    for c in cases {
        let e = Sketch::from_bytes(&c).unwrap_err();
        assert_eq!(e.code(), crate::Code::InvalidArgument, "{c:?}");
    }
}

#[test]
fn any_value_hash_treats_equal_floats_alike() {
    assert_eq!(
        hash_any(&SqlValue::Float64(0.0)),
        hash_any(&SqlValue::Float64(-0.0))
    );
    assert_eq!(
        hash_any(&SqlValue::Float64(f64::NAN)),
        hash_any(&SqlValue::Float64(-f64::NAN))
    );
    assert_ne!(
        hash_any(&SqlValue::String("1".into())),
        hash_any(&SqlValue::Bytes(b"1".to_vec()))
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Merging in any grouping and order gives the same bytes.
    #[test]
    fn merge_is_associative_and_commutative(
        parts in proptest::collection::vec((10u8..=16, 0i64..3000, 0i64..3000), 3),
    ) {
        let s: Vec<Sketch> = parts
            .iter()
            .map(|&(p, a, len)| sketch_of(p, a..a + len))
            .collect();
        let mut left = s[0].clone();
        left.merge(&s[1]).unwrap();
        left.merge(&s[2]).unwrap();
        let mut bc = s[1].clone();
        bc.merge(&s[2]).unwrap();
        let mut right = s[0].clone();
        right.merge(&bc).unwrap();
        let mut reversed = s[2].clone();
        reversed.merge(&s[0]).unwrap();
        reversed.merge(&s[1]).unwrap();
        prop_assert_eq!(left.to_bytes(), right.to_bytes());
        prop_assert_eq!(left.to_bytes(), reversed.to_bytes());
    }

    /// Random bytes, and random damage to a real sketch, never panic: they decode to a sketch
    /// (which then merges and estimates) or are INVALID_ARGUMENT.
    #[test]
    fn random_bytes_never_panic(
        raw in proptest::collection::vec(any::<u8>(), 0..64),
        flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..6),
        cut in any::<usize>(),
    ) {
        let mut damaged = sketch_of(10, 0..40).to_bytes();
        for (at, x) in flips {
            let i = at % damaged.len();
            damaged[i] ^= x;
        }
        damaged.truncate(cut % (damaged.len() + 1));
        let mut dense = sketch_of(10, 0..3000).to_bytes();
        let i = cut % dense.len();
        dense[i] = dense[i].wrapping_add(60);
        for b in [raw, damaged, dense] {
            match Sketch::from_bytes(&b) {
                Ok(s) => {
                    let _ = s.estimate();
                    let mut m = sketch_of(12, 0..10);
                    let _ = m.merge(&s);
                    let _ = m.estimate();
                }
                Err(e) => prop_assert_eq!(e.code(), crate::Code::InvalidArgument),
            }
        }
    }
}
