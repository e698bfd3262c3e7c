//! Small statistics the tests and the reproduction need: total-variation distance of per-player
//! marginals, Pearson's chi-square and its critical value.

/// Per-player role visit counts of a sequence of assignments: their empirical marginals.
pub struct Tally {
    k: usize,
    counts: Vec<u64>,
    pub total: u64,
}

impl Tally {
    pub fn new(n: usize, k: usize) -> Tally {
        Tally { k, counts: vec![0; n * k], total: 0 }
    }

    pub fn add(&mut self, a: &[usize]) {
        for (i, &r) in a.iter().enumerate() {
            self.counts[i * self.k + r] += 1;
        }
        self.total += 1;
    }

    /// Frequencies `m[i][k]` of player `i` having role `k`.
    pub fn marginals(&self) -> Vec<Vec<f64>> {
        self.counts
            .chunks(self.k)
            .map(|row| row.iter().map(|&c| c as f64 / self.total.max(1) as f64).collect())
            .collect()
    }
}

/// Distance between two sets of per-player marginals: the largest, over players, of the
/// total-variation distance between that player's two role distributions.
pub fn marginal_tv(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| 0.5 * x.iter().zip(y).map(|(p, q)| (p - q).abs()).sum::<f64>())
        .fold(0.0, f64::max)
}

/// Pearson's statistic of observed counts against expected probabilities.
pub fn chi_square(observed: &[u64], expected: &[f64]) -> f64 {
    let n: u64 = observed.iter().sum();
    observed
        .iter()
        .zip(expected)
        .map(|(&o, &p)| {
            let e = p * n as f64;
            (o as f64 - e).powi(2) / e
        })
        .sum()
}

/// Upper `alpha` critical value of chi-square with `df` degrees of freedom, for the normal
/// quantile `z` of `1 - alpha`, by the Wilson–Hilferty cube approximation (good to a fraction of a
/// percent for df >= 3, conservative enough for tests at 0.1 %).
pub fn chi_square_critical(df: usize, z: f64) -> f64 {
    let d = df as f64;
    let t = 2.0 / (9.0 * d);
    d * (1.0 - t + z * t.sqrt()).powi(3)
}

/// Normal quantile for a one-sided 0.1 % test.
pub const Z_999: f64 = 3.090_232_306;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn critical_values_match_tables() {
        // Tabulated chi-square 0.999 quantiles: df 10 → 29.588, df 50 → 86.661.
        assert!((chi_square_critical(10, Z_999) - 29.588).abs() < 0.3);
        assert!((chi_square_critical(50, Z_999) - 86.661).abs() < 0.3);
    }

    #[test]
    fn tv_of_identical_marginals_is_zero() {
        let m = vec![vec![0.25, 0.75], vec![0.75, 0.25]];
        assert_eq!(marginal_tv(&m, &m), 0.0);
        assert!((marginal_tv(&m, &[vec![0.5, 0.5], vec![0.75, 0.25]]) - 0.25).abs() < 1e-15);
    }
}
