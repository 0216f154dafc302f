//! Byte-string comparisons for the read and write paths' hot loops.
//!
//! Slice comparison compiles to a call of `memcmp`. Natively that is the C library's
//! vectorised routine, and these functions are exactly the slice operators. On wasm32 the
//! routine comes from compiler-builtins and compares one byte per iteration; internal keys
//! share long prefixes (the escaped row key, then family and qualifier), so key searches
//! spent a large share of their time there (a Node CPU profile of the WASM benchmark put
//! `memcmp` at 15-20% of read and write time). There these functions compare eight bytes at
//! a time and look at single bytes only where two words differ.
//!
//! Invariant: every function here returns exactly what the slice operator it replaces
//! returns, for all inputs (tested against them on every target).

use core::cmp::Ordering;

/// `a.cmp(b)`.
#[inline]
pub(crate) fn compare(a: &[u8], b: &[u8]) -> Ordering {
    #[cfg(target_arch = "wasm32")]
    {
        compare_words(a, b)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        a.cmp(b)
    }
}

/// `a < b`.
#[inline]
pub(crate) fn less(a: &[u8], b: &[u8]) -> bool {
    compare(a, b) == Ordering::Less
}

/// `a.starts_with(prefix)`.
#[inline]
pub(crate) fn starts_with(a: &[u8], prefix: &[u8]) -> bool {
    a.len() >= prefix.len() && equal(&a[..prefix.len()], prefix)
}

/// `a == b`.
#[inline]
pub(crate) fn equal(a: &[u8], b: &[u8]) -> bool {
    #[cfg(target_arch = "wasm32")]
    {
        a.len() == b.len() && first_difference(a, b).is_none()
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        a == b
    }
}

fn word(bytes: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(bytes);
    u64::from_le_bytes(w)
}

/// The index of the first byte where `a` and `b` differ, within their common length.
#[cfg_attr(not(any(target_arch = "wasm32", test)), allow(dead_code))]
fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= n {
        let x = word(&a[i..i + 8]) ^ word(&b[i..i + 8]);
        if x != 0 {
            // Little-endian words: the lowest set bit lies in the first differing byte.
            return Some(i + x.trailing_zeros() as usize / 8);
        }
        i += 8;
    }
    if i < n && n >= 8 {
        // The tail as one word: the eight bytes ending at `n`. Those before `i` are known
        // equal (their XOR is zero), so the lowest set bit still lies in the first
        // difference; this replaces up to seven byte compares, the common case for keys.
        let x = word(&a[n - 8..n]) ^ word(&b[n - 8..n]);
        return (x != 0).then(|| n - 8 + x.trailing_zeros() as usize / 8);
    }
    (i..n).find(|&j| a[j] != b[j])
}

/// `a.cmp(b)`, eight bytes at a time.
#[cfg_attr(not(any(target_arch = "wasm32", test)), allow(dead_code))]
fn compare_words(a: &[u8], b: &[u8]) -> Ordering {
    match first_difference(a, b) {
        Some(i) => a[i].cmp(&b[i]),
        None => a.len().cmp(&b.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;
    use proptest::prelude::*;

    fn bytes() -> impl Strategy<Value = Vec<u8>> {
        // Few distinct byte values and shared prefixes, so equal runs and near misses at
        // every offset (inside a word and across word boundaries) are common.
        proptest::collection::vec(
            prop_oneof![Just(0u8), Just(1), Just(0xff), any::<u8>()],
            0..40,
        )
    }

    proptest! {
        #[test]
        fn word_comparisons_agree_with_the_slice_operators(
            common in bytes(),
            a_tail in bytes(),
            b_tail in bytes(),
        ) {
            let a: Vec<u8> = common.iter().chain(&a_tail).copied().collect();
            let b: Vec<u8> = common.iter().chain(&b_tail).copied().collect();
            for (x, y) in [(&a, &b), (&b, &a), (&a, &a), (&a, &common), (&common, &b)] {
                prop_assert_eq!(compare_words(x, y), x.cmp(y));
                prop_assert_eq!(compare(x, y), x.cmp(y));
                prop_assert_eq!(less(x, y), x < y);
                prop_assert_eq!(equal(x, y), x == y);
                prop_assert_eq!(
                    x.len() == y.len() && first_difference(x, y).is_none(),
                    x == y
                );
                prop_assert_eq!(starts_with(x, y), x.starts_with(y));
            }
        }
    }
}
