//! Which HP vectors of a turn's layer must be solved again. A position's matrix reads the next
//! turn's layer at the same successor indices whatever its turn (only the last turn, judged at
//! the limit, differs), so turn t's value equals turn t + 1's, bit for bit, unless a successor's
//! value changed between turns t + 1 and t + 2. Far from the limit few values change (turn 1
//! differs from turn 2 in about 3,000 of 291,600 entries for the paper's parties), so most of
//! each layer is a copy of the next one.

use super::Table;
use crate::rules::MAX_HP;

/// The HP vectors (indices of 9-entry blocks, ascending) of a layer whose next layer differs
/// from the one after that in the blocks `changed` (ascending): every predecessor of a changed
/// HP vector. A predecessor has, on each side, the same HPs or one Pokémon with more HP by
/// a hit it can take ([`Losses`]); a faint replacement only changes actives, which the 9-entry
/// block covers. The two sides' hits are independent offsets, so the predecessors are found one
/// side at a time (a dilation by party 2's hits, then by party 1's) rather than by every pair.
pub fn dirty_blocks(table: &Table, changed: &[u32]) -> Vec<u32> {
    let losses = Losses::new(table);
    let mut marked = vec![false; table.blocks()];
    changed.iter().for_each(|&b| marked[b as usize] = true);
    let hit_two = losses.dilate(table, 1, &marked);
    let dirty = losses.dilate(table, 0, &hit_two);
    (0..dirty.len() as u32).filter(|&b| dirty[b as usize]).collect()
}

/// The HP each Pokémon can lose in one turn: one of the damages the other party's moves deal
/// it, or, when that leaves it at 0 HP, anything up to the largest of them.
struct Losses {
    /// `dealt[k]`: bit d set when some opposing move deals Pokémon k (flat slot) damage d.
    dealt: [u64; 6],
    /// The largest damage Pokémon k can take.
    most: [u8; 6],
}

impl Losses {
    fn new(table: &Table) -> Losses {
        let (mut dealt, mut most) = ([0u64; 6], [0u8; 6]);
        for k in 0..6 {
            let (side, slot) = (k / 3, (k % 3) as u8);
            for attacker in 0..3u8 {
                for m in 0..3u8 {
                    let d = table.engine.damage_between(1 - side, attacker, m, slot);
                    dealt[k] |= 1 << d.min(63);
                    most[k] = most[k].max(d);
                }
            }
        }
        Losses { dealt, most }
    }

    /// Whether Pokémon k, now at `hp`, can have lost `loss` HP this turn.
    fn possible(&self, k: usize, hp: u8, loss: usize) -> bool {
        if hp == 0 {
            loss <= self.most[k] as usize
        } else {
            loss < 64 && self.dealt[k] >> loss & 1 == 1
        }
    }

    /// `marked` and every block one hit on `side` before a marked one (block indices). Each
    /// block's HP vector is read from the table's list, and each Pokémon's possible losses by
    /// its HP are a bit mask made once: decoding every marked block (six divisions) and testing
    /// each loss cost more than the marking, on one thread per layer.
    fn dilate(&self, table: &Table, side: usize, marked: &[bool]) -> Vec<bool> {
        let stride = table.block_strides();
        let radix = table.radix();
        // losses[k][hp]: bit l set when Pokémon k, now at `hp`, can have lost l HP this turn.
        let mut losses = [[0u64; MAX_HP as usize + 1]; 6];
        for k in side * 3..side * 3 + 3 {
            for (hp, bits) in losses[k].iter_mut().enumerate().take(radix[k]) {
                for loss in (1..radix[k] - hp).filter(|&l| self.possible(k, hp as u8, l)) {
                    *bits |= 1 << loss;
                }
            }
        }
        let mut out = marked.to_vec();
        for (b, _) in marked.iter().enumerate().filter(|(_, &m)| m) {
            let hp = table.block_hp(b);
            for k in side * 3..side * 3 + 3 {
                let mut bits = losses[k][hp[k] as usize];
                while bits != 0 {
                    out[b + bits.trailing_zeros() as usize * stride[k]] = true;
                    bits &= bits - 1;
                }
            }
        }
        out
    }
}

/// Whether two runs of values are equal bit for bit.
pub(crate) fn same_bits(x: &[f32], y: &[f32]) -> bool {
    x.iter().zip(y).all(|(a, b)| a.to_bits() == b.to_bits())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Engine, State, Status};
    use crate::rules::Rules;

    /// Every decision state one turn before a changed HP vector (found by playing every action
    /// pair) lies in a dirty block, for the paper's parties and random custom ones.
    #[test]
    fn every_predecessor_of_a_changed_block_is_dirty() {
        let mut rng = yomi_plugin::rng::seeded(30);
        let custom = crate::first_move::random_parties(&mut rng, false);
        let thesis = crate::rules::preset_parties("thesis").unwrap();
        for parties in [thesis, custom] {
            let table = Table::solve(Engine::new(Rules::new(parties, false, 6).unwrap()), 2);
            let layers = table.layers();
            for t in 1..layers.len() - 1 {
                let (next, after) = (&layers[t], &layers[t + 1]);
                let changed = |b: usize| !same_bits(&next[b * 9..b * 9 + 9], &after[b * 9..][..9]);
                let mut dirty = vec![false; next.len() / 9];
                let differ: Vec<u32> =
                    (0..dirty.len() as u32).filter(|&b| changed(b as usize)).collect();
                dirty_blocks(&table, &differ).into_iter().for_each(|b| dirty[b as usize] = true);
                let mut checked = 0;
                for idx in 0..next.len() {
                    let s: State = table.decode(idx, t as u8);
                    if table.engine.status(&s) != Status::Play {
                        continue;
                    }
                    let (rows, cols) = (table.engine.legal(&s, 0), table.engine.legal(&s, 1));
                    for a in rows.as_slice() {
                        for b in cols.as_slice() {
                            let n = table.engine.resolve(&s, [*a, *b]);
                            if changed(table.index(&n) / 9) {
                                assert!(dirty[idx / 9], "turn {t}: {s:?} then {n:?}");
                                checked += 1;
                            }
                        }
                    }
                }
                assert!(checked > 0, "turn {t}: no change to follow");
            }
        }
    }
}
