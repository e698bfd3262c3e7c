//! Incremental feature evaluation: a sequence with its fifteen features kept current, where a
//! one-position change costs O(1) instead of a rescan. Chi-square features keep the sum of
//! squared counts per span (changing one face moves two counts); pattern features F6..F15 only
//! look at windows of at most 7 faces, so only the windows that contain the changed position are
//! re-examined, before and after the change.

use crate::features::{chi_square, window_pattern, Layout, COUNT, MAX_PATTERN};
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
}

/// The features a proposed change would give, ready to be committed.
#[derive(Debug, Clone, Copy)]
pub struct Proposal {
    pub pos: usize,
    pub face: u8,
    pub features: [f64; COUNT],
    sum_sq: [i64; 5],
    patterns: [i32; 10],
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
            sum_sq[span] = counts[span * stride..(span + 1) * stride].iter().map(|&c| (c as i64) * (c as i64)).sum();
        }
        let mut patterns = [0i32; 10];
        for w in 2..=MAX_PATTERN {
            for win in seq.windows(w) {
                window_pattern(win, &mut patterns);
            }
        }
        Tracker { layout, seq, counts, sum_sq, patterns }
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
        self.assemble(&self.sum_sq, &self.patterns)
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

    /// Pattern counts of every window (length 2..=7) that contains `pos`.
    #[inline]
    fn around(&self, pos: usize) -> [i32; 10] {
        let mut out = [0i32; 10];
        let n = self.seq.len();
        for w in 2..=MAX_PATTERN.min(n) {
            let first = pos.saturating_sub(w - 1);
            let last = pos.min(n - w);
            for start in first..=last {
                window_pattern(&self.seq[start..start + w], &mut out);
            }
        }
        out
    }

    /// What setting `pos` to `face` would give, without changing anything.
    pub fn propose(&mut self, pos: usize, face: u8) -> Proposal {
        let old = self.seq[pos];
        let before = self.around(pos);
        self.seq[pos] = face;
        let after = self.around(pos);
        self.seq[pos] = old;
        let mut patterns = self.patterns;
        for i in 0..10 {
            patterns[i] += after[i] - before[i];
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
        Proposal { pos, face, features: self.assemble(&sum_sq, &patterns), sum_sq, patterns }
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
        self.sum_sq = p.sum_sq;
        self.patterns = p.patterns;
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
