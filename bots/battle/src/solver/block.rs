//! One HP vector's nine positions (every pair of actives) solved together. Every entry of their
//! payoff matrices depends only on the two Pokémon active after the switches and on which of them
//! moves, so the block first computes those outcomes once (at most 3 × 3 × 4 × 4 = 144 instead of
//! 9 × 25 entries), then gathers each position's matrix from them and solves its LP.

use super::Table;
use crate::engine::{Engine, State};
use crate::lp::{self, Matrix};
use crate::rules::MAX_HP;

/// `NO_MOVE` in a side's move slot: that side switched (or was already in) and does not attack.
const NO_MOVE: usize = 3;

/// The outcomes of one HP vector: `w[slot0][slot1][m0][m1]` is the folded value after the turn in
/// which party 1's `slot0` and party 2's `slot1` are active after the switches and side k used
/// move `mk` (or [`NO_MOVE`]). Only entries whose both Pokémon have HP are computed.
pub struct Outcomes {
    /// The HP vector's state with actives (0, 0) and its turn.
    state: State,
    w: [[[[f32; 4]; 4]; 3]; 3],
    /// Every outcome is the same (a side has surely won, or every line draws): every position
    /// of the block has that value without an LP.
    uniform: bool,
}

impl Outcomes {
    /// The outcomes of `h`'s HP vector (its actives are ignored), looking values up in `next`:
    /// turn `h.turn + 1`'s layer, or the judge's values when that turn is the limit
    /// (`Table::judged`). Every entry of `next` is already folded (a pending replacement holds
    /// the replacing side's best candidate, see [`fold_into`]), so each outcome is one look-up
    /// at an index offset by the HP the two actives lost.
    pub fn new(table: &Table, h: &State, next: &[f32]) -> Outcomes {
        let mut state = *h;
        state.active = [0, 0];
        let base = table.index(&state);
        let mut w = [[[[f32::NAN; 4]; 4]; 3]; 3];
        let (mut some, mut uniform) = (f32::NAN, true);
        for slot0 in (0..3u8).filter(|&k| state.hp_of(0, k as usize) > 0) {
            for slot1 in (0..3u8).filter(|&k| state.hp_of(1, k as usize) > 0) {
                let at = base + slot0 as usize * 3 + slot1 as usize;
                let (hp0, hp1) = (state.hp_of(0, slot0 as usize), state.hp_of(1, slot1 as usize));
                let back = table.outcome_offsets(slot0, slot1, hp0, hp1);
                let outcomes = w[slot0 as usize][slot1 as usize].as_flattened_mut();
                for (entry, &back) in outcomes.iter_mut().zip(back) {
                    let value = next[at - back as usize];
                    *entry = value;
                    // Outcomes are never NaN: the first compare sets `some`.
                    uniform &= value == some || some.is_nan();
                    some = value;
                }
            }
        }
        Outcomes { state, w, uniform }
    }

    /// Where each legal action of `side` (in [`crate::engine::Engine::legal`]'s order: the three
    /// moves, then a switch to each benched Pokémon with HP) leaves it: the active slot after the
    /// switch and its move. Read off the HP vector without building the actions.
    #[inline]
    fn choices(&self, side: usize, active: u8) -> ([(usize, usize); 5], usize) {
        let mut out = [(active as usize, NO_MOVE); 5];
        for (m, c) in out[..NO_MOVE].iter_mut().enumerate() {
            c.1 = m;
        }
        let mut n = NO_MOVE;
        for k in (0..3u8).filter(|&k| k != active && self.state.hp_of(side, k as usize) > 0) {
            out[n] = (k as usize, NO_MOVE);
            n += 1;
        }
        (out, n)
    }

    /// The payoff matrix of this HP vector's decision state with `active` (both with HP > 0).
    pub fn matrix(&self, active: [u8; 2]) -> Matrix {
        let (rows, r) = self.choices(0, active[0]);
        let (cols, c) = self.choices(1, active[1]);
        let mut m = Matrix::new(r, c);
        for (i, &(slot0, m0)) in rows[..r].iter().enumerate() {
            for (j, &(slot1, m1)) in cols[..c].iter().enumerate() {
                m.w[i][j] = self.w[slot0][slot1][m0][m1] as f64;
            }
        }
        m
    }

    /// The maximin and minimax (the best row's worst entry, the best column's worst) of the
    /// matrix [`Outcomes::matrix`] gives, read off the `f32` outcomes: most positions have a
    /// saddle point and need no `f64` matrix at all (`f32` comparisons give what the widened
    /// `f64`s would).
    fn bounds(&self, active: [u8; 2]) -> (f32, f32) {
        let (rows, r) = self.choices(0, active[0]);
        let (cols, c) = self.choices(1, active[1]);
        let (mut maximin, mut high) = (f32::NEG_INFINITY, [f32::NEG_INFINITY; lp::MAX]);
        for &(slot0, m0) in &rows[..r] {
            let mut low = f32::INFINITY;
            for (j, &(slot1, m1)) in cols[..c].iter().enumerate() {
                let x = self.w[slot0][slot1][m0][m1];
                low = if x < low { x } else { low };
                high[j] = if x > high[j] { x } else { high[j] };
            }
            maximin = if low > maximin { low } else { maximin };
        }
        let minimax = high[..c].iter().fold(f32::INFINITY, |a, &x| if x < a { x } else { a });
        (maximin, minimax)
    }

    /// Solves every decision state of the HP vector into `out` (its nine entries, actives in
    /// index order), then folds the other entries ([`fold_into`]). Returns the number of
    /// decision states.
    pub fn solve_into(&self, out: &mut [f32]) -> u64 {
        let mut solved = 0;
        for a0 in (0..3u8).filter(|&k| self.state.hp_of(0, k as usize) > 0) {
            for a1 in (0..3u8).filter(|&k| self.state.hp_of(1, k as usize) > 0) {
                out[a0 as usize * 3 + a1 as usize] = if self.uniform {
                    self.w[a0 as usize][a1 as usize][0][0]
                } else {
                    match self.bounds([a0, a1]) {
                        (maximin, minimax) if maximin == minimax => maximin,
                        _ => lp::value_without_saddle(&self.matrix([a0, a1])) as f32,
                    }
                };
                solved += 1;
            }
        }
        fold_into(&self.state, out);
        solved
    }
}

/// How far back in the next layer each outcome of a turn lies, for every pair of actives and
/// their HPs: `offsets[((slot0 * 3 + slot1) * r + hp0) * r + hp1][m0 * 4 + m1]`, with r one more
/// than [`MAX_HP`], when party 1's `slot0` at `hp0` faces party 2's `slot1` at `hp1` and side k
/// uses move `mk` (or [`NO_MOVE`]). Made once per table: working the hits out in every block
/// cost a single-threaded slow set 9 % of its time.
pub(crate) fn outcome_offsets(engine: &Engine, stride: &[usize; 6]) -> Vec<[u32; 16]> {
    let r = MAX_HP as usize + 1;
    let mut offsets = vec![[0u32; 16]; 9 * r * r];
    for (pair, row) in offsets.chunks_exact_mut(r * r).enumerate() {
        let (slot0, slot1) = ((pair / 3) as u8, (pair % 3) as u8);
        let (step0, step1) = (stride[slot0 as usize], stride[3 + slot1 as usize]);
        let first = engine.first_mover(slot0, slot1);
        // Damage each side's move deals (none without a move).
        let dealt = |side: usize, mine: u8, theirs: u8| {
            let mut d = [0u8; 4];
            for (m, x) in d[..NO_MOVE].iter_mut().enumerate() {
                *x = engine.damage_between(side, mine, m as u8, theirs);
            }
            d
        };
        let (dealt0, dealt1) = (dealt(0, slot0, slot1), dealt(1, slot1, slot0));
        for (hps, back) in row.iter_mut().enumerate() {
            let (start0, start1) = ((hps / r) as u8, (hps % r) as u8);
            for (k, x) in back.iter_mut().enumerate() {
                let (d0, d1) = (dealt0[k / 4], dealt1[k % 4]);
                // The faster side hits first; the slower one only if still standing.
                let (hp0, hp1) = if first == 0 {
                    let hp1 = start1.saturating_sub(d0);
                    (if hp1 > 0 { start0.saturating_sub(d1) } else { start0 }, hp1)
                } else {
                    let hp0 = start0.saturating_sub(d1);
                    (hp0, if hp0 > 0 { start1.saturating_sub(d0) } else { start1 })
                };
                *x = ((start0 - hp0) as usize * step0 + (start1 - hp1) as usize * step1) as u32;
            }
        }
    }
    offsets
}

/// Fills the entries of `h`'s HP vector (its nine entries in `out`) that are not decision
/// states with the value a turn ending there leads to, so the previous turn reads every outcome
/// with one look-up: a wiped-out side's loss (1 or 0), and for a fainted active the replacing
/// side's best candidate (spec R1: party 1 takes the largest decision value of the block, party
/// 2 the smallest). Both actives fainted cannot follow a turn (the slower one cannot hit back)
/// and stays NaN. Decision entries are read, never written.
pub fn fold_into(h: &State, out: &mut [f32]) {
    let alive = |side: usize, k: usize| h.hp_of(side, k) > 0;
    let over = if h.alive(1) == 0 {
        Some(1.0)
    } else if h.alive(0) == 0 {
        Some(0.0)
    } else {
        None
    };
    for a0 in 0..3 {
        for a1 in 0..3 {
            let value = match (over, alive(0, a0), alive(1, a1)) {
                (Some(v), ..) => v,
                (None, true, true) => continue,
                (None, false, true) => (0..3)
                    .filter(|&k| k != a0 && alive(0, k))
                    .map(|k| out[k * 3 + a1])
                    .fold(f32::NEG_INFINITY, f32::max),
                (None, true, false) => (0..3)
                    .filter(|&k| k != a1 && alive(1, k))
                    .map(|k| out[a0 * 3 + k])
                    .fold(f32::INFINITY, f32::min),
                (None, false, false) => f32::NAN,
            };
            out[a0 * 3 + a1] = value;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Engine, Status};
    use crate::rules::Rules;

    /// The saddle test on bounds read off the outcomes gives [`lp::value`] of the general
    /// matrix bit for bit, mixed positions and pure ones alike.
    #[test]
    fn solving_a_block_gives_the_lp_value_of_each_position() {
        for parties in ["thesis", "delta-experiment"] {
            let rules = Rules::new(crate::rules::preset_parties(parties).unwrap(), false, 6);
            let table = Table::solve(Engine::new(rules.unwrap()), 2);
            let (mut mixed, mut pure) = (0, 0);
            for t in 1..5u8 {
                let next = &table.layers()[t as usize];
                for b in (0..table.blocks()).step_by(5) {
                    let h = table.decode(b * 9, t);
                    let mut out = [0.0f32; 9];
                    Outcomes::new(&table, &h, next).solve_into(&mut out);
                    for (k, &x) in out.iter().enumerate() {
                        let s = table.decode(b * 9 + k, t);
                        if table.engine.status(&s) != Status::Play {
                            continue;
                        }
                        let m = table.matrix(&s);
                        assert_eq!(x.to_bits(), (lp::value(&m) as f32).to_bits(), "{s:?}");
                        if lp::solve(&m).row.iter().filter(|&&p| p > 0.0).count() > 1 {
                            mixed += 1;
                        } else {
                            pure += 1;
                        }
                    }
                }
            }
            assert!(mixed > 100 && pure > 1000, "{parties}: {mixed} mixed, {pure} pure");
        }
    }
}
