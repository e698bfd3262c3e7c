//! Which HP vectors of a turn's layer must be solved again. A position's matrix reads the next
//! turn's layer at the same successor indices whatever its turn (only the last turn, judged at
//! the limit, differs), so turn t's value equals turn t + 1's, bit for bit, unless a successor's
//! value changed between turns t + 1 and t + 2. Far from the limit few values change (turn 1
//! differs from turn 2 in about 3,000 of 291,600 entries for the seed's parties), so most of
//! each layer is a copy of the next one.

use crate::solver::Table;

/// The HP vectors (indices of 9-entry blocks, ascending) of a layer whose next layer is `next`
/// and whose layer after that is `after`: every predecessor of an HP vector whose values differ
/// between the two. A predecessor has, on each side, the same HPs or one Pokémon with more HP by
/// at most the largest damage a move deals (it was hit this turn); a faint replacement only
/// changes actives, which the 9-entry block covers.
pub fn dirty_blocks(table: &Table, next: &[f32], after: &[f32]) -> Vec<u32> {
    let stride = table.block_strides();
    let radix = table.radix();
    let most = table.engine.max_damage() as usize;
    let mut dirty = vec![false; next.len() / 9];
    let blocks = next.chunks_exact(9).zip(after.chunks_exact(9));
    for (b, _) in blocks.enumerate().filter(|(_, (x, y))| !same_bits(x, y)) {
        let hp = table.decode(b * 9, 1).hp;
        // Each side's ways to have been one hit higher: block offsets (0 = not hit).
        let raised = |side: usize| {
            let mut offsets = vec![0usize];
            for k in side * 3..side * 3 + 3 {
                let room = (radix[k] - 1 - hp[k] as usize).min(most);
                offsets.extend((1..=room).map(|loss| loss * stride[k]));
            }
            offsets
        };
        let (ours, theirs) = (raised(0), raised(1));
        for o0 in &ours {
            for o1 in &theirs {
                dirty[b + o0 + o1] = true;
            }
        }
    }
    (0..dirty.len() as u32).filter(|&b| dirty[b as usize]).collect()
}

fn same_bits(x: &[f32], y: &[f32]) -> bool {
    x.iter().zip(y).all(|(a, b)| a.to_bits() == b.to_bits())
}
