//! Desired feature ranges `[alpha, beta]` with weights `gamma`, and the paper's error
//! `Err(S) = sum gamma_i * Err_i(f_i(S))` (section 6).
//!
//! The paper's table 2 is for n = 50 faces of a d6. For other lengths and dice each bound is scaled
//! by the ratio of the feature's exact expected value (see [`crate::features::expected`]) to its
//! expected value at n = 50 on a d6: a bound that sat 20 % below the theoretical value stays 20 %
//! below it. Count features (F6..F15) take whole-number bounds, alpha rounded down and beta up, so
//! a range never becomes unreachable between two integers. Chi-square ranges scale with
//! `sides - 1` and not with n (the statistic's mean does not depend on the length). On dice with
//! an odd number of sides F6 (parity changes) gets weight 0: odd and even faces are not equally
//! many there, and pushing for parity changes would favour the rarer parity and break fairness.

use serde_json::Value;

use crate::features::{expected, COUNT, NAMES};

/// A personality's ranges and weights.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranges {
    pub alpha: [f64; COUNT],
    pub beta: [f64; COUNT],
    pub gamma: [f64; COUNT],
}

/// Seed table 2 (n = 50, d6).
pub const TABLE2_ALPHA: [f64; COUNT] =
    [2., 2., 2., 2., 2., 27., 5., 0., 0., 1., 0., 0., 1., 0., 0.];
pub const TABLE2_BETA: [f64; COUNT] = [5., 5., 5., 5., 5., 30., 8., 1., 0., 3., 0., 1., 2., 0., 0.];
pub const TABLE2_GAMMA: [f64; COUNT] =
    [3., 3., 3., 3., 3., 1., 1., 3., 10., 4., 4., 4., 4., 4., 4.];

/// The length table 2 was written for.
pub const TABLE2_LENGTH: usize = 50;

/// Bounds for feature `i`: as given for chi-square features, widened to whole numbers for count
/// features (F6..F15). The tolerance keeps exact integers from drifting to the next one; `+ 0.0`
/// turns the -0 that `ceil(-1e-9)` gives into 0.
pub fn bounds(i: usize, lo: f64, hi: f64) -> (f64, f64) {
    if i >= 5 {
        ((lo + 1e-9).floor(), (hi - 1e-9).ceil() + 0.0)
    } else {
        (lo, hi)
    }
}

impl Ranges {
    /// Seed table 2 exactly (n = 50, six sides).
    pub fn table2() -> Ranges {
        Ranges { alpha: TABLE2_ALPHA, beta: TABLE2_BETA, gamma: TABLE2_GAMMA }
    }

    /// Ranges written for `base_n` faces of a `base_sides`-sided die carried over to `n` faces of
    /// a `sides`-sided die.
    pub fn scaled(&self, base_n: usize, base_sides: u8, n: usize, sides: u8) -> Ranges {
        let from = expected(base_n, base_sides);
        let to = expected(n, sides);
        let mut out = self.clone();
        for i in 0..COUNT {
            let ratio = if from[i] > 0.0 { to[i] / from[i] } else { 1.0 };
            (out.alpha[i], out.beta[i]) = bounds(i, self.alpha[i] * ratio, self.beta[i] * ratio);
        }
        if sides % 2 == 1 {
            out.gamma[5] = 0.0;
        }
        out
    }

    /// The default personality for `n` faces of a `sides`-sided die: table 2 scaled.
    pub fn default_for(n: usize, sides: u8) -> Ranges {
        Ranges::table2().scaled(TABLE2_LENGTH, 6, n, sides)
    }

    /// Rejects ranges no sequence can be judged by: alpha > beta, negative or non-finite numbers.
    #[allow(clippy::needless_range_loop)] // four parallel arrays
    pub fn validate(&self) -> Result<(), String> {
        for i in 0..COUNT {
            let (a, b, g) = (self.alpha[i], self.beta[i], self.gamma[i]);
            if !(a.is_finite() && b.is_finite() && g.is_finite()) {
                return Err(format!("{}: bounds and weight must be finite numbers", NAMES[i]));
            }
            if a > b {
                return Err(format!("{}: alpha {a} is greater than beta {b}", NAMES[i]));
            }
            if g < 0.0 {
                return Err(format!("{}: weight {g} is negative", NAMES[i]));
            }
            if a < 0.0 {
                return Err(format!(
                    "{}: alpha {a} is negative (features are never negative)",
                    NAMES[i]
                ));
            }
        }
        Ok(())
    }

    /// `Err(S)` of a feature vector. Example: F7 = 10 with [5, 8] and weight 1 adds 2.
    #[inline]
    #[allow(clippy::needless_range_loop)] // three parallel arrays and the features
    pub fn err(&self, f: &[f64; COUNT]) -> f64 {
        let mut total = 0.0;
        for i in 0..COUNT {
            total += self.term(i, f[i]);
        }
        total
    }

    /// Feature `i`'s share of Err at value `x`: `gamma_i * Err_i(x)`.
    #[inline]
    pub fn term(&self, i: usize, x: f64) -> f64 {
        let d = if x < self.alpha[i] {
            self.alpha[i] - x
        } else if x > self.beta[i] {
            x - self.beta[i]
        } else {
            0.0
        };
        // Chi-square values and scaled bounds are not exact binary fractions; a deviation of
        // rounding size is no deviation (so Err is exactly 0 inside every range).
        if d > 1e-9 {
            self.gamma[i] * d
        } else {
            0.0
        }
    }

    /// Parses `{"F1": [alpha, beta, gamma], ...}` over `base` (features not named keep theirs).
    pub fn parse_over(base: &Ranges, value: &Value) -> Result<Ranges, String> {
        let obj = value
            .as_object()
            .ok_or("ranges must be an object {\"F1\": [alpha, beta, gamma], ...}")?;
        let mut out = base.clone();
        for (name, v) in obj {
            let i = NAMES
                .iter()
                .position(|n| n == name)
                .ok_or_else(|| format!("unknown feature `{name}` (F1..F15)"))?;
            let nums: Vec<f64> = v
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_f64).collect())
                .unwrap_or_default();
            if nums.len() != 3 || v.as_array().map(Vec::len) != Some(3) {
                return Err(format!("{name}: expected [alpha, beta, gamma], got {v}"));
            }
            (out.alpha[i], out.beta[i], out.gamma[i]) = (nums[0], nums[1], nums[2]);
        }
        out.validate()?;
        Ok(out)
    }

    /// `{"F1": [alpha, beta, gamma], ...}`.
    pub fn to_json(&self) -> Value {
        let map: std::collections::BTreeMap<&str, [f64; 3]> =
            (0..COUNT).map(|i| (NAMES[i], [self.alpha[i], self.beta[i], self.gamma[i]])).collect();
        yomi_plugin::typed::to_json(&map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn table2_is_its_own_scaling_at_50() {
        assert_eq!(Ranges::default_for(50, 6), Ranges::table2());
    }

    #[test]
    fn longer_sequences_get_wider_count_ranges() {
        let r = Ranges::default_for(100, 6);
        assert_eq!((r.alpha[0], r.beta[0]), (2.0, 5.0));
        assert!(r.alpha[6] >= 10.0 && r.beta[6] >= 16.0, "{:?}", (r.alpha[6], r.beta[6]));
        assert_eq!(r.gamma[5], 1.0);
        assert_eq!(Ranges::default_for(50, 5).gamma[5], 0.0);
        // Carrying a d20 personality to another length scales by length only.
        let d20 = Ranges::default_for(50, 20);
        assert_eq!(d20.scaled(50, 20, 50, 20), d20);
        assert_eq!(d20.scaled(50, 20, 100, 20).alpha[0], d20.alpha[0]);
    }

    #[test]
    fn inconsistent_ranges_are_rejected() {
        let base = Ranges::table2();
        assert!(Ranges::parse_over(&base, &json!({"F7": [9, 3, 1]}))
            .unwrap_err()
            .contains("greater"));
        assert!(Ranges::parse_over(&base, &json!({"F7": [1, 3, -1]}))
            .unwrap_err()
            .contains("negative"));
        assert!(Ranges::parse_over(&base, &json!({"F77": [1, 3, 1]})).is_err());
        assert_eq!(Ranges::parse_over(&base, &json!({"F7": [4, 9, 2]})).unwrap().beta[6], 9.0);
    }
}
