//! Randomness as the engine sees it: `row_sample` filters and SQL's RAND() draw from it.
//!
//! Reached through [`RandomSource`] so tests and vectors are reproducible from a seed.

/// A source of uniformly distributed numbers in `[0, 1)`.
pub trait RandomSource {
    /// The next number in `[0, 1)`.
    fn next_f64(&mut self) -> f64;
}

/// SplitMix64: tiny, fast, seedable, good enough for sampling rows (not for secrets).
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub const fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

impl RandomSource for SplitMix64 {
    fn next_f64(&mut self) -> f64 {
        // 53 random bits scaled into [0, 1).
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}
