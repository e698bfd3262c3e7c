//! Exact values of the small games the dominance removal leaves most often (2 × n, m × 2 and
//! 3 × 3, about a third of the mixed positions of an all-HP-5 table), without the simplex.
//!
//! Both rest on Shapley–Snow: a game has optimal strategies whose supports have equal size k and
//! span a nonsingular k × k kernel. So when one side has two actions the other side needs at most
//! two, and the value is the best for that side of the 2 × 2 sub-games (the row player maximises
//! over pairs of rows, the column player minimises over pairs of columns). A 3 × 3 game either
//! has a completely mixed equilibrium, given by its adjugate, or k ≤ 2 and the column player
//! needs only two columns.

use super::Matrix;

/// The value of `m`, which has two rows, two columns, or three of each; None for a 3 × 3 game
/// too close to one whose completely mixed test is a division by zero (left to the simplex).
pub(super) fn value(m: &Matrix) -> Option<f64> {
    match (m.rows, m.cols) {
        (2, c) => Some(
            pairs(c)
                .map(|(j, k)| two_by_two([m.w[0][j], m.w[0][k], m.w[1][j], m.w[1][k]]))
                .fold(f64::INFINITY, f64::min),
        ),
        (r, 2) => Some(
            pairs(r)
                .map(|(i, k)| two_by_two([m.w[i][0], m.w[i][1], m.w[k][0], m.w[k][1]]))
                .fold(f64::NEG_INFINITY, f64::max),
        ),
        (3, 3) => match completely_mixed(m)? {
            Some(v) => Some(v),
            None => [(0, 1), (0, 2), (1, 2)]
                .into_iter()
                .map(|(j, k)| {
                    let mut sub = Matrix::new(3, 2);
                    for i in 0..3 {
                        sub.w[i][..2].copy_from_slice(&[m.w[i][j], m.w[i][k]]);
                    }
                    value(&sub)
                })
                .try_fold(f64::INFINITY, |low, v| Some(low.min(v?))),
        },
        (r, c) => unreachable!("no closed form for a {r} × {c} game"),
    }
}

/// Every pair of `n` actions.
fn pairs(n: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..n).flat_map(move |j| (j + 1..n).map(move |k| (j, k)))
}

/// The value of the game `[[a, b], [c, d]]`: its saddle point, else the mixed closed form.
fn two_by_two([a, b, c, d]: [f64; 4]) -> f64 {
    let maximin = a.min(b).max(c.min(d));
    let minimax = a.max(c).min(b.max(d));
    if maximin == minimax {
        maximin
    } else {
        (a * d - b * c) / (a + d - b - c)
    }
}

/// The value of a 3 × 3 game's completely mixed equilibrium, Some(None) when it has none, and
/// None when the test is ill-conditioned. With A's adjugate `adj`, q ∝ adj·1 and p ∝ 1ᵀ·adj
/// must both be nonnegative, and the value is det A / 1ᵀ·adj·1. A sum of cofactors under 1 % of
/// their magnitudes could carry more than about 1e-13 of rounding into the value.
fn completely_mixed(m: &Matrix) -> Option<Option<f64>> {
    let w = &m.w;
    // With cyclic indices each 2 × 2 minor comes out with its cofactor's sign.
    let cofactor = |r: usize, c: usize| {
        let (r0, r1) = ((r + 1) % 3, (r + 2) % 3);
        let (c0, c1) = ((c + 1) % 3, (c + 2) % 3);
        w[r0][c0] * w[r1][c1] - w[r0][c1] * w[r1][c0]
    };
    // adj[i][j] is the cofactor of w[j][i].
    let adj: [[f64; 3]; 3] = std::array::from_fn(|i| std::array::from_fn(|j| cofactor(j, i)));
    let q: [f64; 3] = std::array::from_fn(|i| adj[i].iter().sum());
    let p: [f64; 3] = std::array::from_fn(|j| adj.iter().map(|row| row[j]).sum());
    let total: f64 = q.iter().sum();
    let magnitude: f64 = adj.iter().flatten().map(|x| x.abs()).sum();
    if total.abs() < 1e-2 * magnitude || magnitude == 0.0 {
        return None;
    }
    let det: f64 = (0..3).map(|j| w[0][j] * adj[j][0]).sum();
    let signed = |x: &f64| if total > 0.0 { *x >= 0.0 } else { *x <= 0.0 };
    Some((q.iter().all(signed) && p.iter().all(signed)).then(|| det / total))
}
