//! The exact solution of the whole game by backward induction (seed 5.2): every position's value
//! (party 1's probability of winning plus half its probability of a draw under equilibrium play),
//! layer by layer from the turn limit down to turn 1, each layer split across the cores.
//!
//! The table is one `f32` per (HPs, actives) per turn layer, with a mixed radix of each Pokémon's
//! own maximum HP + 1, so the seed's parties take 19 × 291,600 × 4 B ≈ 22 MB. A faint replacement
//! is folded into the value look-up (spec R1): the replacing side takes the best candidate for
//! itself, so positions with a fainted active are never decision states.

use std::time::Instant;

use crate::engine::{Engine, State, Status};
use crate::lp::{self, Matrix};

/// The solved game.
pub struct Table {
    pub engine: Engine,
    radix: [usize; 6],
    layer_len: usize,
    /// `layers[t - 1]` holds turn t's values, t in 1..turn_limit. Non-decision entries are NaN.
    layers: Vec<Vec<f32>>,
    /// Decision states solved (each one LP).
    pub solved: u64,
    pub seconds: f64,
}

impl Table {
    /// Solves every position with `threads` worker threads per layer.
    pub fn solve(engine: Engine, threads: usize) -> Table {
        let start = Instant::now();
        let mut radix = [0usize; 6];
        for (i, r) in radix.iter_mut().enumerate() {
            *r = engine.rules.pokemon(i).hp as usize + 1;
        }
        let layer_len = radix.iter().product::<usize>() * 9;
        let count = engine.turn_limit() as usize - 1;
        let mut table = Table { engine, radix, layer_len, layers: vec![Vec::new(); count], solved: 0, seconds: 0.0 };
        for t in (1..=count).rev() {
            let mut out = vec![f32::NAN; layer_len];
            let next = table.layers.get(t).map(Vec::as_slice).unwrap_or(&[]);
            let chunk = layer_len.div_ceil(threads.max(1));
            let solved: u64 = std::thread::scope(|scope| {
                let workers: Vec<_> = out
                    .chunks_mut(chunk)
                    .enumerate()
                    .map(|(k, slice)| {
                        let table = &table;
                        scope.spawn(move || table.fill(t as u8, next, k * chunk, slice))
                    })
                    .collect();
                workers.into_iter().map(|w| w.join().expect("solver worker")).sum()
            });
            table.solved += solved;
            table.layers[t - 1] = out;
        }
        table.seconds = start.elapsed().as_secs_f64();
        table
    }

    /// Computes the entries `offset..offset + out.len()` of turn `t`'s layer from the next layer.
    fn fill(&self, t: u8, next: &[f32], offset: usize, out: &mut [f32]) -> u64 {
        let mut solved = 0;
        for (k, slot) in out.iter_mut().enumerate() {
            let s = self.decode(offset + k, t);
            if self.engine.status(&s) != Status::Play {
                continue;
            }
            let m = self.matrix_with(&s, |n| self.folded(n, |x| next[self.index(x)] as f64));
            *slot = lp::solve(&m).value as f32;
            solved += 1;
        }
        solved
    }

    /// Position of a state within its layer.
    pub fn index(&self, s: &State) -> usize {
        let mut idx = 0;
        for (h, r) in s.hp.iter().zip(self.radix) {
            idx = idx * r + *h as usize;
        }
        idx * 9 + s.active[0] as usize * 3 + s.active[1] as usize
    }

    fn decode(&self, mut idx: usize, turn: u8) -> State {
        let active = [(idx / 3 % 3) as u8, (idx % 3) as u8];
        idx /= 9;
        let mut hp = [0u8; 6];
        for k in (0..6).rev() {
            hp[k] = (idx % self.radix[k]) as u8;
            idx /= self.radix[k];
        }
        State { hp, active, turn }
    }

    /// A state's value given a look-up for decision states: game over → score; a pending
    /// replacement → the replacing side's best candidate (max for party 1, min for party 2).
    fn folded(&self, s: &State, lookup: impl Fn(&State) -> f64) -> f64 {
        match self.engine.status(s) {
            Status::Over(v) => v,
            Status::Play => lookup(s),
            Status::Replace(side) => {
                let candidates = self.engine.replacements(s, side);
                let values = candidates.as_slice().iter().map(|a| {
                    let crate::engine::Action::Switch(k) = *a else { unreachable!("replacements are switches") };
                    lookup(&self.engine.replace(s, side, k))
                });
                if side == 0 {
                    values.fold(f64::NEG_INFINITY, f64::max)
                } else {
                    values.fold(f64::INFINITY, f64::min)
                }
            }
        }
    }

    /// The payoff matrix of a decision state, each entry the folded value of the next state.
    fn matrix_with(&self, s: &State, value: impl Fn(&State) -> f64) -> Matrix {
        let rows = self.engine.legal(s, 0);
        let cols = self.engine.legal(s, 1);
        let mut m = Matrix::new(rows.len(), cols.len());
        for (i, a) in rows.as_slice().iter().enumerate() {
            for (j, b) in cols.as_slice().iter().enumerate() {
                m.w[i][j] = value(&self.engine.resolve(s, [*a, *b]));
            }
        }
        m
    }

    /// The value of any state: party 1's win probability (+ half a draw) under equilibrium play.
    pub fn value(&self, s: &State) -> f64 {
        self.folded(s, |x| self.layers[x.turn as usize - 1][self.index(x)] as f64)
    }

    /// The true win-rate matrix of a decision state (rows: party 1's legal actions).
    pub fn matrix(&self, s: &State) -> Matrix {
        self.matrix_with(s, |n| self.value(n))
    }

    /// Every stored entry, for the table's size.
    pub fn bytes(&self) -> usize {
        self.layers.len() * self.layer_len * std::mem::size_of::<f32>()
    }

    /// Entries in all layers, decision states or not (the seed's count includes unreachable ones).
    pub fn states(&self) -> usize {
        self.layers.len() * self.layer_len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    #[test]
    fn index_and_decode_are_inverse() {
        let t = Table { engine: Engine::new(Rules::preset("thesis").unwrap()), radix: [6, 6, 6, 6, 5, 5], layer_len: 291_600, layers: vec![], solved: 0, seconds: 0.0 };
        for idx in [0, 1, 8, 9, 12345, 291_599] {
            assert_eq!(t.index(&t.decode(idx, 3)), idx);
        }
    }
}
