//! Incremental feature evaluation: a sequence with its fifteen features kept current, where a
//! one-position change costs O(1) instead of a rescan. Chi-square features keep the sum of
//! squared counts per span (changing one face moves two counts). Pattern features F6..F15 only
//! look at windows of at most 7 faces, and only through equalities between faces: the tracker
//! keeps, per position i, a byte whose bit d-1 says "face i equals face i+d" (d = 1..6). Every
//! pattern of a window starting at i is then a few bit tests on the bytes of i, i+1, i+2, kept
//! as a 10-bit mask per start; a change at p touches only the bytes and masks of p-6..p. This is a second, independent
//! implementation of [`crate::features::compute`], which the tests hold it to.

use crate::features::{chi_square, Layout, COUNT};
use crate::ranges::Ranges;

/// A sequence and its features.
#[derive(Debug, Clone)]
pub struct Tracker {
    layout: Layout,
    seq: Vec<u8>,
    /// Face counts per chi-square span: `counts[span * (sides + 1) + face]`.
    counts: Vec<i32>,
    sum_sq: [i64; 5],
    patterns: [i32; 10],
    /// Equality bytes, two zero bytes past the end so every start can read i+1 and i+2.
    eq: Vec<u8>,
    /// Pattern mask of the windows starting at each position (see [`start_mask`]).
    masks: Vec<u16>,
    /// The current features, assembled.
    current: [f64; COUNT],
}

/// What a proposed change would give, ready to be committed.
#[derive(Debug, Clone, Copy)]
pub struct Proposal {
    pub pos: usize,
    pub face: u8,
    sum_sq: [i64; 5],
    patterns: [i32; 10],
    /// New equality bytes and start masks for positions `pos - 6 ..= pos` (as many as exist).
    eq: [u8; 7],
    masks: [u16; 7],
}

/// Equality byte of position `i` when it holds `face`.
#[inline(always)]
fn eq_byte(seq: &[u8], i: usize, face: u8) -> u8 {
    let mut e = 0u8;
    for d in 1..=6 {
        if i + d < seq.len() && seq[i + d] == face {
            e |= 1 << (d - 1);
        }
    }
    e
}

/// Set bits of a 6-bit number (a table: the build targets CPUs without a popcount instruction).
const POPCOUNT6: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        t[i] = (i as u8).count_ones() as u8;
        i += 1;
    }
    t
};

/// Which pattern features (bit k = feature F(6+k)) the windows starting at `i` show (`e0`, `e1`,
/// `e2`: equality bytes of i, i+1, i+2; `parity`: faces i and i+1 differ in parity; `fits4`:
/// i+3 < n). Each start adds at most one to each feature. Bits are only ever set inside the
/// sequence, so "ends equal" implies the window fits.
#[inline(always)]
fn start_mask(e0: u8, e1: u8, e2: u8, parity: bool, fits4: bool) -> u16 {
    let bit = |e: u8, d: u8| (e >> (d - 1)) & 1 == 1;
    let count = |mask: u8| POPCOUNT6[(e0 & mask) as usize];
    let run2 = bit(e0, 1);
    let run3 = run2 && bit(e1, 1);
    // XXYY, XYXY, XYYX over faces a b c d.
    let two_pair = fits4
        && ((run2 && bit(e2, 1) && !bit(e0, 2))
            || (bit(e0, 2) && bit(e1, 2) && !run2)
            || (bit(e0, 3) && bit(e1, 1) && !run2));
    let mut m = parity as u16
        | (run2 as u16) << 1
        | (run3 as u16) << 2
        | ((run3 && bit(e2, 1)) as u16) << 3
        | (two_pair as u16) << 4;
    if bit(e0, 3) {
        m |= ((count(0b111) == 2) as u16) << 6;
    }
    if bit(e0, 4) {
        let full_house = match count(0b1111) {
            // XYYYX
            1 => bit(e1, 1) && bit(e1, 2),
            // XXYYX, XYXYX, XYYXX
            2 => (run2 && bit(e2, 1)) || (bit(e0, 2) && bit(e1, 2)) || (bit(e0, 3) && bit(e1, 1)),
            _ => false,
        };
        m |= (full_house as u16) << 5 | ((count(0b1111) == 2) as u16) << 7;
    }
    if bit(e0, 5) {
        m |= ((count(0b1_1111) == 3) as u16) << 8;
    }
    if bit(e0, 6) {
        m |= ((count(0b11_1111) == 3) as u16) << 9;
    }
    m
}

impl Tracker {
    /// Starts tracking `seq` (non-empty, faces already checked to lie in 1..=sides).
    pub fn new(seq: Vec<u8>, sides: u8) -> Tracker {
        let layout = Layout::new(seq.len(), sides);
        let stride = sides as usize + 1;
        let mut counts = vec![0i32; 5 * stride];
        let mut sum_sq = [0i64; 5];
        for (span, (start, len)) in layout.chi_spans().into_iter().enumerate() {
            for &f in &seq[start..start + len] {
                counts[span * stride + f as usize] += 1;
            }
            sum_sq[span] = counts[span * stride..(span + 1) * stride]
                .iter()
                .map(|&c| (c as i64) * (c as i64))
                .sum();
        }
        let n = seq.len();
        let mut eq: Vec<u8> = (0..n).map(|i| eq_byte(&seq, i, seq[i])).collect();
        eq.extend([0, 0]);
        let masks: Vec<u16> = (0..n)
            .map(|i| {
                start_mask(
                    eq[i],
                    eq[i + 1],
                    eq[i + 2],
                    i + 1 < n && (seq[i] ^ seq[i + 1]) & 1 == 1,
                    i + 3 < n,
                )
            })
            .collect();
        let mut patterns = [0i32; 10];
        for (k, p) in patterns.iter_mut().enumerate() {
            *p = masks.iter().map(|m| ((m >> k) & 1) as i32).sum();
        }
        let mut t =
            Tracker { layout, seq, counts, sum_sq, patterns, eq, masks, current: [0.0; COUNT] };
        t.current = t.assemble(&t.sum_sq, &t.patterns);
        t
    }

    pub fn seq(&self) -> &[u8] {
        &self.seq
    }

    pub fn into_seq(self) -> Vec<u8> {
        self.seq
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The current features.
    pub fn features(&self) -> [f64; COUNT] {
        self.current
    }

    fn assemble(&self, sum_sq: &[i64; 5], patterns: &[i32; 10]) -> [f64; COUNT] {
        let mut f = [0.0; COUNT];
        for (span, (_, len)) in self.layout.chi_spans().into_iter().enumerate() {
            f[span] = chi_square(sum_sq[span], len, self.layout.sides);
        }
        for i in 0..10 {
            f[5 + i] = patterns[i] as f64;
        }
        f
    }

    /// What setting `pos` to `face` would give, without changing anything.
    pub fn propose(&self, pos: usize, face: u8) -> Proposal {
        let old = self.seq[pos];
        let n = self.seq.len();
        let lo = pos.saturating_sub(6);
        // New equality bytes of lo..=pos: earlier positions flip one bit, pos is recomputed.
        let mut new_eq = [0u8; 7];
        for i in lo..pos {
            let bit = 1u8 << (pos - i - 1);
            new_eq[i - lo] = (self.eq[i] & !bit) | if self.seq[i] == face { bit } else { 0 };
        }
        new_eq[pos - lo] = eq_byte(&self.seq, pos, face);
        let eq_new = |i: usize| if i <= pos { new_eq[i - lo] } else { self.eq[i] };
        let face_at = |i: usize| if i == pos { face } else { self.seq[i] };
        let mut patterns = self.patterns;
        let mut masks = [0u16; 7];
        for i in lo..=pos {
            let parity = i + 1 < n && (face_at(i) ^ face_at(i + 1)) & 1 == 1;
            let new = start_mask(eq_new(i), eq_new(i + 1), eq_new(i + 2), parity, i + 3 < n);
            masks[i - lo] = new;
            let mut diff = new ^ self.masks[i];
            while diff != 0 {
                let k = diff.trailing_zeros() as usize;
                patterns[k] += if (new >> k) & 1 == 1 { 1 } else { -1 };
                diff &= diff - 1;
            }
        }
        let stride = self.layout.sides as usize + 1;
        let mut sum_sq = self.sum_sq;
        if old != face {
            for (span, (start, len)) in self.layout.chi_spans().into_iter().enumerate() {
                if pos >= start && pos < start + len {
                    let c_old = self.counts[span * stride + old as usize] as i64;
                    let c_new = self.counts[span * stride + face as usize] as i64;
                    // (c_old - 1)^2 - c_old^2 + (c_new + 1)^2 - c_new^2
                    sum_sq[span] += 2 * (c_new - c_old) + 2;
                }
            }
        }
        Proposal { pos, face, sum_sq, patterns, eq: new_eq, masks }
    }

    /// The features a proposal would give.
    pub fn features_of(&self, p: &Proposal) -> [f64; COUNT] {
        self.assemble(&p.sum_sq, &p.patterns)
    }

    /// How much a proposal would change Err under `ranges`, looking only at the features it
    /// changes (the chi-square spans holding the position, the pattern counts that moved).
    #[inline]
    pub fn err_change(&self, p: &Proposal, ranges: &Ranges) -> f64 {
        let mut delta = 0.0;
        let current = &self.current;
        for (span, (_, len)) in self.layout.chi_spans().into_iter().enumerate() {
            if p.sum_sq[span] != self.sum_sq[span] {
                let x = chi_square(p.sum_sq[span], len, self.layout.sides);
                delta += ranges.term(span, x) - ranges.term(span, current[span]);
            }
        }
        for k in 0..10 {
            if p.patterns[k] != self.patterns[k] {
                delta +=
                    ranges.term(5 + k, p.patterns[k] as f64) - ranges.term(5 + k, current[5 + k]);
            }
        }
        delta
    }

    /// Makes a proposal (from this tracker, with nothing committed since) the current state.
    pub fn commit(&mut self, p: &Proposal) {
        let old = self.seq[p.pos];
        let stride = self.layout.sides as usize + 1;
        for (span, (start, len)) in self.layout.chi_spans().into_iter().enumerate() {
            if p.pos >= start && p.pos < start + len {
                self.counts[span * stride + old as usize] -= 1;
                self.counts[span * stride + p.face as usize] += 1;
            }
        }
        self.seq[p.pos] = p.face;
        let lo = p.pos.saturating_sub(6);
        self.eq[lo..=p.pos].copy_from_slice(&p.eq[..=p.pos - lo]);
        self.masks[lo..=p.pos].copy_from_slice(&p.masks[..=p.pos - lo]);
        self.sum_sq = p.sum_sq;
        self.patterns = p.patterns;
        self.current = self.assemble(&self.sum_sq, &self.patterns);
    }

    /// Sets one position (propose and commit).
    pub fn set(&mut self, pos: usize, face: u8) {
        let p = self.propose(pos, face);
        self.commit(&p);
    }

    /// Err of the current sequence under `ranges`.
    pub fn err(&self, ranges: &Ranges) -> f64 {
        ranges.err(&self.features())
    }
}
