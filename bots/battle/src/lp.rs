//! Zero-sum matrix games up to 5×5, solved exactly by linear programming.
//!
//! The solver runs millions of times in the backward induction and ten times per δ-Nash decision,
//! so it works on a stack tableau with no allocation: first a saddle-point test (most positions of
//! this game have a pure equilibrium), then a dense simplex with Bland's rule, which cannot cycle
//! and is deterministic (spec U17). The row player maximises.

mod small;

/// Largest number of actions per side.
pub const MAX: usize = 5;

/// A payoff matrix for the row player, `rows × cols` used out of 5 × 5.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Matrix {
    pub rows: usize,
    pub cols: usize,
    pub w: [[f64; MAX]; MAX],
}

/// A solution: the game's value and an optimal mixed strategy for each side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Equilibrium {
    pub value: f64,
    pub row: [f64; MAX],
    pub col: [f64; MAX],
}

impl Matrix {
    pub fn new(rows: usize, cols: usize) -> Matrix {
        assert!(
            (1..=MAX).contains(&rows) && (1..=MAX).contains(&cols),
            "matrix games are 1×1 to 5×5"
        );
        Matrix { rows, cols, w: [[0.0; MAX]; MAX] }
    }

    /// Builds a matrix from rows (for tests and callers with vectors).
    pub fn from_rows(rows: &[Vec<f64>]) -> Matrix {
        let mut m = Matrix::new(rows.len(), rows[0].len());
        for (i, r) in rows.iter().enumerate() {
            m.w[i][..r.len()].copy_from_slice(r);
        }
        m
    }

    /// The same game seen by the column player as rows, with payoffs `1 − w` (win rates).
    pub fn transposed_complement(&self) -> Matrix {
        let mut t = Matrix::new(self.cols, self.rows);
        for i in 0..self.rows {
            for j in 0..self.cols {
                t.w[j][i] = 1.0 - self.w[i][j];
            }
        }
        t
    }

    /// Row `i`'s expected payoff against the column mix `q`.
    pub fn row_payoff(&self, i: usize, q: &[f64]) -> f64 {
        (0..self.cols).map(|j| self.w[i][j] * q[j]).sum()
    }

    /// Column `j`'s expected payoff (to the row player) against the row mix `p`.
    pub fn col_payoff(&self, j: usize, p: &[f64]) -> f64 {
        (0..self.rows).map(|i| self.w[i][j] * p[i]).sum()
    }
}

/// Solves the zero-sum game.
pub fn solve(m: &Matrix) -> Equilibrium {
    saddle(m).unwrap_or_else(|| simplex(m))
}

/// The game's value alone, for the backward induction: a pure saddle point when there is one,
/// else the game left after removing weakly dominated rows and columns (which keeps the value),
/// in closed form when that is 2 × n, m × 2 or 3 × 3 ([`small`]) and by the simplex otherwise.
pub fn value(m: &Matrix) -> f64 {
    let (mut maximin, mut minimax) = (f64::NEG_INFINITY, f64::INFINITY);
    for i in 0..m.rows {
        let mut low = m.w[i][0];
        for &x in &m.w[i][1..m.cols] {
            low = if x < low { x } else { low };
        }
        maximin = if low > maximin { low } else { maximin };
    }
    for j in 0..m.cols {
        let mut high = m.w[0][j];
        for row in &m.w[1..m.rows] {
            high = if row[j] > high { row[j] } else { high };
        }
        minimax = if high < minimax { high } else { minimax };
    }
    if maximin == minimax {
        maximin
    } else {
        value_without_saddle(m)
    }
}

/// [`value`] of a game already known to have no pure saddle point (its maximin is below its
/// minimax), for callers that found the bounds while building the matrix.
pub fn value_without_saddle(m: &Matrix) -> f64 {
    let r = undominated(m);
    match (r.rows, r.cols) {
        (1, _) => r.w[0][..r.cols].iter().copied().fold(f64::INFINITY, f64::min),
        (_, 1) => (0..r.rows).map(|i| r.w[i][0]).fold(f64::NEG_INFINITY, f64::max),
        (2, _) | (_, 2) | (3, 3) => small::value(&r).unwrap_or_else(|| simplex(&r).value),
        _ => simplex(&r).value,
    }
}

/// `m` without weakly dominated rows (for the maximiser) and columns (for the minimiser): the
/// lowest dominated row is removed until none is left, then the lowest dominated column, and
/// rows again. Removing a row or column never makes a surviving line of the same side
/// dominated, so each scan goes on from where it removed one instead of starting over (the same
/// matrix as restarting, in fewer comparisons; the slow party sets spend a third of their time
/// here).
fn undominated(m: &Matrix) -> Matrix {
    // Entries outside the game are 0, so they compare equal and every test below can run over
    // all five lines without a branch per entry.
    // Copies and shifts run over fixed lengths too: a variable-length copy of a few `f64`s is a
    // call to `memmove`, which showed as 5 % of a slow set's profile.
    let mut r = Matrix::new(m.rows, m.cols);
    for (i, row) in r.w.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            *x = if i < m.rows && j < m.cols { m.w[i][j] } else { 0.0 };
        }
    }
    let row_dominates = |r: &Matrix, k: usize, i: usize| {
        (0..MAX).fold(true, |all, j| all & (r.w[k][j] >= r.w[i][j]))
    };
    let col_dominates = |r: &Matrix, k: usize, j: usize| {
        (0..MAX).fold(true, |all, i| all & (r.w[i][k] <= r.w[i][j]))
    };
    // Columns below this one are known undominated for the current rows.
    let mut from_col = 0;
    loop {
        let mut i = 0;
        while i < r.rows {
            if (0..r.rows).any(|k| k != i && row_dominates(&r, k, i)) {
                for k in i..MAX {
                    r.w[k] = if k + 1 < MAX { r.w[k + 1] } else { [0.0; MAX] };
                }
                r.rows -= 1;
                from_col = 0;
            } else {
                i += 1;
            }
        }
        let col =
            (from_col..r.cols).find(|&j| (0..r.cols).any(|k| k != j && col_dominates(&r, k, j)));
        let Some(j) = col else { return r };
        for row in &mut r.w {
            for k in j..MAX {
                row[k] = if k + 1 < MAX { row[k + 1] } else { 0.0 };
            }
        }
        r.cols -= 1;
        from_col = j;
    }
}

/// A pure equilibrium when the best row's worst case equals the best column's worst case.
fn saddle(m: &Matrix) -> Option<Equilibrium> {
    let (mut best_row, mut maximin) = (0, f64::NEG_INFINITY);
    for i in 0..m.rows {
        let low = m.w[i][..m.cols].iter().copied().fold(f64::INFINITY, f64::min);
        if low > maximin {
            (best_row, maximin) = (i, low);
        }
    }
    let (_, highs) = column_bounds(m);
    let (mut best_col, mut minimax) = (0, f64::INFINITY);
    for (j, &high) in highs[..m.cols].iter().enumerate() {
        if high < minimax {
            (best_col, minimax) = (j, high);
        }
    }
    (maximin == minimax).then(|| {
        let mut e = Equilibrium { value: maximin, row: [0.0; MAX], col: [0.0; MAX] };
        e.row[best_row] = 1.0;
        e.col[best_col] = 1.0;
        e
    })
}

/// Each column's lowest and highest entry over the game's rows (for all five columns: callers
/// read their own). Taken a row at a time, five columns side by side, so no chain of 25
/// dependent comparisons forms; min and max are exact, so the order does not change them.
fn column_bounds(m: &Matrix) -> ([f64; MAX], [f64; MAX]) {
    let (mut low, mut high) = (m.w[0], m.w[0]);
    for r in &m.w[1..m.rows] {
        for ((l, h), &x) in low.iter_mut().zip(&mut high).zip(r) {
            *l = l.min(x);
            *h = h.max(x);
        }
    }
    (low, high)
}

/// Column of the right-hand side in the tableau.
const RHS: usize = 2 * MAX;

/// Dense simplex on the column player's LP: shift payoffs to B ≥ 1, maximise Σy subject to
/// B y ≤ 1, y ≥ 0. Then value = 1/Σy − shift, q = y/Σy, and the row player's strategy is the dual
/// (the objective row's slack coefficients) over Σy.
fn simplex(m: &Matrix) -> Equilibrium {
    let (rows, cols) = (m.rows, m.cols);
    let (low, high) = column_bounds(m);
    let min = low[..cols].iter().copied().fold(f64::INFINITY, f64::min);
    let max = high[..cols].iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let shift = 1.0 - min;
    let eps = 1e-13 * (1.0 + max - min);
    // t[i][..cols] = B, t[i][MAX + i] = slack, t[i][RHS] = 1; t[rows] is the objective row.
    let mut t = [[0.0f64; RHS + 1]; MAX + 1];
    let mut basis = [0usize; MAX];
    for i in 0..rows {
        for (x, w) in t[i][..cols].iter_mut().zip(&m.w[i][..cols]) {
            *x = w + shift;
        }
        t[i][MAX + i] = 1.0;
        t[i][RHS] = 1.0;
        basis[i] = MAX + i;
    }
    t[rows][..cols].fill(-1.0);
    let columns = || (0..cols).chain(MAX..MAX + rows);
    // Bland's rule: the lowest-index improving column enters; the lowest-index basic variable
    // among the ratio-test ties leaves. Terminates on every input.
    while let Some(enter) = columns().find(|&j| t[rows][j] < -eps) {
        // Every row's ratio first, then the choice: the divisions do not wait on the branches.
        // A row that does not limit the step keeps an infinite ratio (the others are finite).
        let mut ratios = [f64::INFINITY; MAX];
        for (ratio, row) in ratios.iter_mut().zip(&t[..rows]) {
            if row[enter] > eps {
                *ratio = row[RHS] / row[enter];
            }
        }
        let mut leave: Option<usize> = None;
        let mut best = f64::INFINITY;
        for (i, &ratio) in ratios[..rows].iter().enumerate() {
            if ratio.is_finite() {
                let better = match leave {
                    None => true,
                    Some(l) => {
                        ratio < best - 1e-15 || (ratio <= best + 1e-15 && basis[i] < basis[l])
                    }
                };
                if better {
                    (leave, best) = (Some(i), ratio);
                }
            }
        }
        // B y ≤ 1 with B > 0 is bounded, so a leaving row always exists.
        let l = leave.expect("the matrix game LP is bounded");
        let pivot = t[l][enter];
        for x in t[l].iter_mut() {
            *x /= pivot;
        }
        let pivot_row = t[l];
        for (i, row) in t[..=rows].iter_mut().enumerate() {
            let f = row[enter];
            if i != l && f != 0.0 {
                for (x, p) in row.iter_mut().zip(pivot_row.iter()) {
                    *x -= f * p;
                }
            }
        }
        basis[l] = enter;
    }
    let total = t[rows][RHS];
    let mut e = Equilibrium { value: 1.0 / total - shift, row: [0.0; MAX], col: [0.0; MAX] };
    for i in 0..rows {
        if basis[i] < MAX {
            e.col[basis[i]] = t[i][RHS].max(0.0) / total;
        }
        e.row[i] = t[rows][MAX + i].max(0.0) / total;
    }
    normalise(&mut e.row[..rows]);
    normalise(&mut e.col[..cols]);
    e
}

/// Removes the last rounding so a strategy sums to exactly 1 (up to one ulp).
fn normalise(p: &mut [f64]) {
    let s: f64 = p.iter().sum();
    for x in p {
        *x /= s;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// No pure deviation gains more than `tol` for either side.
    fn assert_equilibrium(m: &Matrix, e: &Equilibrium, tol: f64) {
        let (p, q) = (&e.row[..m.rows], &e.col[..m.cols]);
        for x in p.iter().chain(q) {
            assert!(*x >= 0.0, "negative probability in {e:?}");
        }
        assert!(
            (p.iter().sum::<f64>() - 1.0).abs() < 1e-12
                && (q.iter().sum::<f64>() - 1.0).abs() < 1e-12
        );
        let v: f64 = (0..m.rows).map(|i| p[i] * m.row_payoff(i, q)).sum();
        assert!((v - e.value).abs() < tol, "value {} vs p·W·q {v}", e.value);
        for i in 0..m.rows {
            assert!(m.row_payoff(i, q) <= e.value + tol, "row {i} gains against q in {m:?} {e:?}");
        }
        for j in 0..m.cols {
            assert!(
                m.col_payoff(j, p) >= e.value - tol,
                "column {j} gains against p in {m:?} {e:?}"
            );
        }
    }

    /// Support enumeration by the Shapley–Snow theorem, an independent method: every matrix game
    /// has an optimal pair whose supports span a square nonsingular kernel M of the (shifted)
    /// matrix, with value 1/(1ᵀM⁻¹1). Tries every square kernel and keeps the pairs that are
    /// optimal in the whole game.
    fn support_enumeration_value(m: &Matrix) -> f64 {
        let min = (0..m.rows)
            .flat_map(|i| (0..m.cols).map(move |j| (i, j)))
            .map(|(i, j)| m.w[i][j])
            .fold(f64::INFINITY, f64::min);
        let shift = 1.0 - min;
        let subsets = |n: usize| {
            (1u32..(1 << n))
                .map(move |mask| (0..n).filter(|k| mask & (1 << k) != 0).collect::<Vec<_>>())
        };
        for rs in subsets(m.rows) {
            for cs in subsets(m.cols).filter(|c| c.len() == rs.len()) {
                let k = rs.len();
                let kernel: Vec<Vec<f64>> =
                    rs.iter().map(|&i| cs.iter().map(|&j| m.w[i][j] + shift).collect()).collect();
                let Some(x) = solve_linear(&kernel, false) else { continue };
                let Some(y) = solve_linear(&kernel, true) else { continue };
                let sx: f64 = x.iter().sum();
                if sx <= 0.0 || x.iter().chain(&y).any(|v| *v < -1e-12) {
                    continue;
                }
                let v = 1.0 / sx;
                let mut p = [0.0; MAX];
                let mut q = [0.0; MAX];
                for t in 0..k {
                    q[cs[t]] = x[t] * v;
                    p[rs[t]] = y[t] * v;
                }
                let value = v - shift;
                let ok = (0..m.rows).all(|i| m.row_payoff(i, &q) <= value + 1e-9)
                    && (0..m.cols).all(|j| m.col_payoff(j, &p) >= value - 1e-9);
                if ok {
                    return value;
                }
            }
        }
        panic!("Shapley–Snow guarantees a kernel");
    }

    /// Solves M x = 1 (or Mᵀ x = 1) by Gaussian elimination with partial pivoting.
    fn solve_linear(m: &[Vec<f64>], transpose: bool) -> Option<Vec<f64>> {
        let k = m.len();
        let mut a: Vec<Vec<f64>> = (0..k)
            .map(|i| {
                (0..k).map(|j| if transpose { m[j][i] } else { m[i][j] }).chain([1.0]).collect()
            })
            .collect();
        for c in 0..k {
            let p = (c..k).max_by(|&x, &y| a[x][c].abs().total_cmp(&a[y][c].abs()))?;
            if a[p][c].abs() < 1e-10 {
                return None;
            }
            a.swap(c, p);
            let pivot = a[c].clone();
            for (r, row) in a.iter_mut().enumerate() {
                if r != c {
                    let f = row[c] / pivot[c];
                    for (x, p) in row[c..].iter_mut().zip(&pivot[c..]) {
                        *x -= f * p;
                    }
                }
            }
        }
        Some((0..k).map(|i| a[i][k] / a[i][i]).collect())
    }

    /// Dominance removal restarting from the first row after every removal (the plain
    /// definition [`undominated`] must equal).
    fn undominated_from_the_start(m: &Matrix) -> Matrix {
        let mut r = *m;
        loop {
            let row = (0..r.rows).find(|&i| {
                (0..r.rows).any(|k| k != i && (0..r.cols).all(|j| r.w[k][j] >= r.w[i][j]))
            });
            if let Some(i) = row {
                r.w.copy_within(i + 1..r.rows, i);
                r.rows -= 1;
                continue;
            }
            let col = (0..r.cols).find(|&j| {
                (0..r.cols).any(|k| k != j && (0..r.rows).all(|i| r.w[i][k] <= r.w[i][j]))
            });
            let Some(j) = col else { return r };
            for row in &mut r.w[..r.rows] {
                row.copy_within(j + 1..r.cols, j);
            }
            r.cols -= 1;
        }
    }

    /// Matrices with entries from a few levels, so ties, equal rows and saddle points are common.
    fn degenerate() -> impl Strategy<Value = Matrix> {
        (1..=MAX, 1..=MAX).prop_flat_map(|(r, c)| {
            proptest::collection::vec(
                proptest::collection::vec(
                    prop_oneof![Just(0.0), Just(0.5), Just(1.0), Just(0.25)],
                    c,
                ),
                r,
            )
            .prop_map(|rows| Matrix::from_rows(&rows))
        })
    }

    fn random() -> impl Strategy<Value = Matrix> {
        (1..=MAX, 1..=MAX).prop_flat_map(|(r, c)| {
            proptest::collection::vec(proptest::collection::vec(-0.5f64..1.5, c), r)
                .prop_map(|rows| Matrix::from_rows(&rows))
        })
    }

    /// A random matrix with a duplicated row and column.
    fn duplicated() -> impl Strategy<Value = Matrix> {
        random().prop_map(|mut m| {
            if m.rows < MAX {
                m.w[m.rows] = m.w[0];
                m.rows += 1;
            }
            if m.cols < MAX {
                for i in 0..m.rows {
                    m.w[i][m.cols] = m.w[i][0];
                }
                m.cols += 1;
            }
            m
        })
    }

    /// The shapes [`small`] solves, entries from a few levels (ties, singular kernels) or any.
    fn small_games() -> impl Strategy<Value = Matrix> {
        let shape = prop_oneof![(Just(2), 2..=MAX), (2..=MAX, Just(2)), Just((3, 3))];
        (shape, proptest::bool::ANY).prop_flat_map(|((r, c), levels)| {
            let entry = if levels {
                prop_oneof![Just(0.0), Just(0.5), Just(1.0), Just(0.25)].boxed()
            } else {
                (0.0f64..1.0).boxed()
            };
            proptest::collection::vec(proptest::collection::vec(entry, c), r)
                .prop_map(|rows| Matrix::from_rows(&rows))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn small_games_in_closed_form_have_the_simplex_value(m in small_games()) {
            if let Some(v) = small::value(&m) {
                let full = simplex(&m).value;
                prop_assert!((v - full).abs() < 1e-12, "{v} vs simplex {full} for {m:?}");
                prop_assert!((v - support_enumeration_value(&m)).abs() < 1e-9);
            } else {
                prop_assert!(m.rows == 3 && m.cols == 3, "only a 3 × 3 game may be left over");
            }
        }

        #[test]
        fn random_matrices_solve_to_equilibrium(m in random()) {
            let e = solve(&m);
            assert_equilibrium(&m, &e, 1e-9);
            prop_assert!((e.value - support_enumeration_value(&m)).abs() < 1e-9);
        }

        #[test]
        fn degenerate_matrices_solve_to_equilibrium(m in degenerate()) {
            let e = solve(&m);
            assert_equilibrium(&m, &e, 1e-9);
            prop_assert!((e.value - support_enumeration_value(&m)).abs() < 1e-9);
        }

        #[test]
        fn duplicated_rows_and_columns_solve(m in duplicated()) {
            let e = solve(&m);
            assert_equilibrium(&m, &e, 1e-9);
            prop_assert!((e.value - support_enumeration_value(&m)).abs() < 1e-9);
        }

        #[test]
        fn the_value_alone_is_the_equilibrium_value(m in prop_oneof![random(), degenerate(), duplicated()]) {
            let (fast, full) = (value(&m), solve(&m).value);
            prop_assert!((fast - full).abs() < 1e-12, "{fast} vs {full} for {m:?}");
        }

        #[test]
        fn dominance_removal_equals_restarting_after_each_removal(
            m in prop_oneof![random(), degenerate(), duplicated()],
        ) {
            let (fast, plain) = (undominated(&m), undominated_from_the_start(&m));
            prop_assert_eq!((fast.rows, fast.cols), (plain.rows, plain.cols));
            for i in 0..fast.rows {
                prop_assert_eq!(&fast.w[i][..fast.cols], &plain.w[i][..plain.cols]);
            }
        }

        #[test]
        fn simplex_alone_handles_saddle_points(m in degenerate()) {
            assert_equilibrium(&m, &simplex(&m), 1e-9);
        }

        #[test]
        fn the_column_view_has_the_complementary_value(m in random()) {
            let t = m.transposed_complement();
            prop_assert!((solve(&t).value - (1.0 - solve(&m).value)).abs() < 1e-9);
        }
    }

    #[test]
    fn matching_pennies_mixes_evenly() {
        let m = Matrix::from_rows(&[vec![1.0, 0.0], vec![0.0, 1.0]]);
        let e = solve(&m);
        assert!((e.value - 0.5).abs() < 1e-12);
        assert!((e.row[0] - 0.5).abs() < 1e-12 && (e.col[1] - 0.5).abs() < 1e-12);
    }

    #[test]
    fn closed_forms_of_known_games() {
        let rps = [vec![0.5, 0.0, 1.0], vec![1.0, 0.5, 0.0], vec![0.0, 1.0, 0.5]];
        assert_eq!(small::value(&Matrix::from_rows(&rps)), Some(0.5));
        // Zero-centred, so the kernel is singular and the completely mixed value is det A = 0.
        let centred = [vec![0.0, -1.0, 1.0], vec![1.0, 0.0, -1.0], vec![-1.0, 1.0, 0.0]];
        assert_eq!(small::value(&Matrix::from_rows(&centred)), Some(0.0));
        // Column 3 is never worth playing, so columns 1 and 2 are matching pennies.
        let pennies = [vec![1.0, 0.0, 1.0], vec![0.0, 1.0, 1.0], vec![0.0, 0.0, 0.0]];
        assert_eq!(small::value(&Matrix::from_rows(&pennies)), Some(0.5));
        assert_eq!(small::value(&Matrix::from_rows(&pennies[..2])), Some(0.5));
        let saddle = [vec![0.3, 0.6], vec![0.2, 0.9], vec![0.1, 0.0]];
        assert_eq!(small::value(&Matrix::from_rows(&saddle)), Some(0.3));
    }

    #[test]
    fn rock_paper_scissors_is_uniform() {
        let m = Matrix::from_rows(&[vec![0.5, 0.0, 1.0], vec![1.0, 0.5, 0.0], vec![0.0, 1.0, 0.5]]);
        let e = solve(&m);
        for k in 0..3 {
            assert!((e.row[k] - 1.0 / 3.0).abs() < 1e-12 && (e.col[k] - 1.0 / 3.0).abs() < 1e-12);
        }
    }
}
