//! One HP vector's nine positions (every pair of actives) solved together. Every entry of their
//! payoff matrices depends only on the two Pokémon active after the switches and on which of them
//! moves, so the block first computes those outcomes once (at most 3 × 3 × 4 × 4 = 144 instead of
//! 9 × 25 entries), then gathers each position's matrix from them and solves its LP.

use crate::engine::{Action, State};
use crate::lp::{self, Matrix};
use crate::rules::MAX_HP;
use crate::solver::Table;

/// `NO_MOVE` in a side's move slot: that side switched (or was already in) and does not attack.
const NO_MOVE: usize = 3;

/// The outcomes of one HP vector: `w[slot0][slot1][m0][m1]` is the folded value after the turn in
/// which party 1's `slot0` and party 2's `slot1` are active after the switches and side k used
/// move `mk` (or [`NO_MOVE`]). Only entries whose both Pokémon have HP are computed.
pub struct Outcomes {
    /// The HP vector's state with actives (0, 0) and its turn.
    state: State,
    w: [[[[f64; 4]; 4]; 3]; 3],
    /// The least and greatest outcome: when they are equal (a side has surely won, or every
    /// line draws), every position of the block has that value without an LP.
    range: (f64, f64),
}

impl Outcomes {
    /// The outcomes of `h`'s HP vector (its actives are ignored), looking values up in `next`
    /// (turn `h.turn + 1`'s layer; unused when that turn is the judge's).
    pub fn new(table: &Table, h: &State, next: &[f32]) -> Outcomes {
        let mut state = *h;
        state.active = [0, 0];
        let base = table.index(&state);
        let alive = [state.alive(0) as u8, state.alive(1) as u8];
        let total = [state.total_hp(0), state.total_hp(1)];
        let mut w = [[[[f64::NAN; 4]; 4]; 3]; 3];
        let mut range = (f64::INFINITY, f64::NEG_INFINITY);
        for slot0 in (0..3u8).filter(|&k| state.hp_of(0, k as usize) > 0) {
            for slot1 in (0..3u8).filter(|&k| state.hp_of(1, k as usize) > 0) {
                let s = State { active: [slot0, slot1], ..state };
                let (start0, start1) = (s.active_hp(0), s.active_hp(1));
                let first = table.engine.first_mover(slot0, slot1);
                // Damage each side's move deals (none without a move).
                let dealt = |side: usize, mine: u8, theirs: u8| {
                    let mut d = [0u8; 4];
                    for (m, x) in d[..NO_MOVE].iter_mut().enumerate() {
                        *x = table.engine.damage_between(side, mine, m as u8, theirs);
                    }
                    d
                };
                let (dealt0, dealt1) = (dealt(0, slot0, slot1), dealt(1, slot1, slot0));
                // Different move pairs often leave the same HPs: settle each result once (NaN:
                // not yet; a settled value is never NaN).
                let mut settled = [[f64::NAN; MAX_HP as usize + 1]; MAX_HP as usize + 1];
                for (m0, row) in w[slot0 as usize][slot1 as usize].iter_mut().enumerate() {
                    let d0 = dealt0[m0];
                    for (m1, entry) in row.iter_mut().enumerate() {
                        let d1 = dealt1[m1];
                        // The faster side hits first; the slower one only if still standing.
                        let (hp0, hp1) = if first == 0 {
                            let hp1 = start1.saturating_sub(d0);
                            (if hp1 > 0 { start0.saturating_sub(d1) } else { start0 }, hp1)
                        } else {
                            let hp0 = start0.saturating_sub(d1);
                            (hp0, if hp0 > 0 { start1.saturating_sub(d0) } else { start1 })
                        };
                        let value = &mut settled[hp0 as usize][hp1 as usize];
                        if value.is_nan() {
                            *value = table.settle(&s, base, alive, total, [hp0, hp1], next);
                        }
                        *entry = *value;
                        range = (range.0.min(*value), range.1.max(*value));
                    }
                }
            }
        }
        Outcomes { state, w, range }
    }

    /// Where an action leaves its side: the active slot after the switch, and its move.
    #[inline]
    fn split(active: u8, a: Action) -> (usize, usize) {
        match a {
            Action::Move(m) => (active as usize, m as usize),
            Action::Switch(k) => (k as usize, NO_MOVE),
        }
    }

    /// The payoff matrix of this HP vector's decision state with `active` (both with HP > 0).
    pub fn matrix(&self, table: &Table, active: [u8; 2]) -> Matrix {
        let s = State { active, ..self.state };
        let rows = table.engine.legal(&s, 0);
        let cols = table.engine.legal(&s, 1);
        let mut m = Matrix::new(rows.len(), cols.len());
        for (i, a) in rows.as_slice().iter().enumerate() {
            let (slot0, m0) = Outcomes::split(active[0], *a);
            for (j, b) in cols.as_slice().iter().enumerate() {
                let (slot1, m1) = Outcomes::split(active[1], *b);
                m.w[i][j] = self.w[slot0][slot1][m0][m1];
            }
        }
        m
    }

    /// Solves every decision state of the HP vector into `out` (its nine entries, actives in
    /// index order); entries of positions with a fainted active are left as they are. Returns
    /// the number of decision states.
    pub fn solve_into(&self, table: &Table, out: &mut [f32]) -> u64 {
        let mut solved = 0;
        let (lo, hi) = self.range;
        for a0 in (0..3u8).filter(|&k| self.state.hp_of(0, k as usize) > 0) {
            for a1 in (0..3u8).filter(|&k| self.state.hp_of(1, k as usize) > 0) {
                out[a0 as usize * 3 + a1 as usize] = if lo == hi {
                    lo as f32
                } else {
                    lp::value(&self.matrix(table, [a0, a1])) as f32
                };
                solved += 1;
            }
        }
        solved
    }
}
