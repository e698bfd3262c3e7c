//! A straightforward single-threaded solver: depth-first recursion from a position with a
//! `HashMap` memo, written as plainly as the paper's description. It shares nothing with
//! [`crate::solver::Table`] but the rules and the LP, so the tests use it to check the table's
//! indexing and layering, and the benchmark uses it as the baseline for the parallel solve.

use std::collections::HashMap;

use crate::engine::{Action, Engine, State, Status};
use crate::lp::{self, Matrix};

/// Values of every position reachable from the ones asked for so far.
pub struct Memo<'a> {
    engine: &'a Engine,
    values: HashMap<State, f64>,
}

impl<'a> Memo<'a> {
    pub fn new(engine: &'a Engine) -> Memo<'a> {
        Memo { engine, values: HashMap::new() }
    }

    /// Positions solved so far.
    pub fn positions(&self) -> usize {
        self.values.len()
    }

    /// Party 1's equilibrium value of `s`.
    pub fn value(&mut self, s: &State) -> f64 {
        match self.engine.status(s) {
            Status::Over(v) => v,
            Status::Replace(side) => {
                let mut best: Option<f64> = None;
                for a in self.engine.replacements(s, side).as_slice() {
                    let Action::Switch(k) = *a else { continue };
                    let v = self.value(&self.engine.replace(s, side, k));
                    best = Some(match best {
                        None => v,
                        Some(b) if side == 0 => b.max(v),
                        Some(b) => b.min(v),
                    });
                }
                best.expect("a side that must replace has a live bench")
            }
            Status::Play => {
                if let Some(v) = self.values.get(s) {
                    return *v;
                }
                let rows = self.engine.legal(s, 0);
                let cols = self.engine.legal(s, 1);
                let mut m = Matrix::new(rows.len(), cols.len());
                for (i, a) in rows.as_slice().iter().enumerate() {
                    for (j, b) in cols.as_slice().iter().enumerate() {
                        m.w[i][j] = self.value(&self.engine.resolve(s, [*a, *b]));
                    }
                }
                let v = lp::solve(&m).value;
                self.values.insert(*s, v);
                v
            }
        }
    }
}
