//! The statistical aggregates: CORR, COVAR_POP, COVAR_SAMP, STDDEV_POP, STDDEV_SAMP (and its
//! alias STDDEV), VAR_POP, VAR_SAMP (and its alias VARIANCE). From the "Statistical aggregate
//! functions" page of GoogleSQL for Bigtable's reference, in our words:
//! - every input is a number, taken as FLOAT64, and every result is a FLOAT64;
//! - a NULL input is skipped (for the two-argument ones, a pair with a NULL in either place);
//! - the population forms give NULL without input and 0 for one input; the sample forms and
//!   CORR give NULL for fewer than two inputs;
//! - a NaN input makes the result NaN; CORR of a column without spread is NaN (0 / 0).
//!
//! The moments are kept with Welford's update (one pass, stable for large offsets), and the
//! co-moment for the covariance and correlation likewise.

/// Running moments of one aggregate's inputs: count, means and second (co-)moments.
#[derive(Clone, Debug, Default)]
pub struct Moments {
    n: u64,
    mean_x: f64,
    mean_y: f64,
    /// Σ (x - mean_x)²
    m2_x: f64,
    /// Σ (y - mean_y)²
    m2_y: f64,
    /// Σ (x - mean_x)(y - mean_y)
    c_xy: f64,
}

/// Whether `name` is one of this module's aggregates.
pub fn is_statistical(name: &str) -> bool {
    matches!(
        name,
        "CORR"
            | "COVAR_POP"
            | "COVAR_SAMP"
            | "STDDEV"
            | "STDDEV_POP"
            | "STDDEV_SAMP"
            | "VARIANCE"
            | "VAR_POP"
            | "VAR_SAMP"
    )
}

/// Whether aggregate `name` takes two arguments (X and Y).
pub fn takes_pairs(name: &str) -> bool {
    matches!(name, "CORR" | "COVAR_POP" | "COVAR_SAMP")
}

impl Moments {
    /// Adds one input (`y` is `x` again for the one-argument aggregates).
    pub fn add(&mut self, x: f64, y: f64) {
        self.n += 1;
        let n = self.n as f64;
        let dx = x - self.mean_x;
        self.mean_x += dx / n;
        let dy = y - self.mean_y;
        self.mean_y += dy / n;
        // The second factors use the updated means (Welford).
        self.m2_x += dx * (x - self.mean_x);
        self.m2_y += dy * (y - self.mean_y);
        self.c_xy += dx * (y - self.mean_y);
    }

    /// The aggregate's result: `None` is NULL.
    pub fn finish(&self, name: &str) -> Option<f64> {
        let n = self.n as f64;
        let population = |m: f64| (self.n >= 1).then(|| m / n);
        let sample = |m: f64| (self.n >= 2).then(|| m / (n - 1.0));
        match name {
            "VAR_POP" => population(self.m2_x),
            "VAR_SAMP" | "VARIANCE" => sample(self.m2_x),
            "STDDEV_POP" => population(self.m2_x).map(libm::sqrt),
            "STDDEV_SAMP" | "STDDEV" => sample(self.m2_x).map(libm::sqrt),
            "COVAR_POP" => population(self.c_xy),
            "COVAR_SAMP" => sample(self.c_xy),
            "CORR" => (self.n >= 2).then(|| self.c_xy / libm::sqrt(self.m2_x * self.m2_y)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn of(xs: &[(f64, f64)]) -> Moments {
        let mut m = Moments::default();
        for (x, y) in xs {
            m.add(*x, *y);
        }
        m
    }

    #[test]
    fn small_inputs_follow_the_reference() {
        let none = Moments::default();
        assert_eq!(none.finish("VAR_POP"), None);
        assert_eq!(none.finish("VAR_SAMP"), None);
        let one = of(&[(5.0, 5.0)]);
        assert_eq!(one.finish("VAR_POP"), Some(0.0));
        assert_eq!(one.finish("STDDEV_POP"), Some(0.0));
        assert_eq!(one.finish("STDDEV_SAMP"), None);
        assert_eq!(one.finish("CORR"), None);
        assert!(of(&[(1.0, 2.0), (1.0, 3.0)])
            .finish("CORR")
            .unwrap()
            .is_nan());
        assert!(of(&[(f64::NAN, 1.0), (1.0, 2.0)])
            .finish("VAR_POP")
            .unwrap()
            .is_nan());
    }

    proptest! {
        /// The one-pass moments equal the two-pass textbook formulas.
        #[test]
        fn moments_match_the_two_pass_formulas(
            xs in proptest::collection::vec((-1e6f64..1e6, -1e6f64..1e6), 2..40)
        ) {
            let n = xs.len() as f64;
            let mx = xs.iter().map(|p| p.0).sum::<f64>() / n;
            let my = xs.iter().map(|p| p.1).sum::<f64>() / n;
            let sxx: f64 = xs.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
            let syy: f64 = xs.iter().map(|p| (p.1 - my) * (p.1 - my)).sum();
            let sxy: f64 = xs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
            let m = of(&xs);
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-6 * (1.0 + b.abs());
            prop_assert!(close(m.finish("VAR_POP").unwrap(), sxx / n));
            prop_assert!(close(m.finish("VAR_SAMP").unwrap(), sxx / (n - 1.0)));
            prop_assert!(close(m.finish("COVAR_SAMP").unwrap(), sxy / (n - 1.0)));
            let corr = sxy / libm::sqrt(sxx * syy);
            if corr.is_finite() {
                prop_assert!((m.finish("CORR").unwrap() - corr).abs() <= 1e-6);
            }
        }
    }
}
