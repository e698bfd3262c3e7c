//! Approach 3 (the paper's section 4): keeping trap hits believable. An "exposure" is a roll where some
//! faces force the player onto a trap and others do not; its natural hit chance is p = (forcing
//! faces) / sides. Over a sliding window of the last `window` exposures the realised hits should
//! stay inside the band `[ceil(E - sd), floor(E + sd)]` of their expected number E = sum p
//! (sd = sqrt(sum p(1-p))) — the paper's example, p = 0.3 over 10 passes, gives exactly 2..4 —
//! and a hit should never follow a hit. Before the window has filled, E and sd are projected
//! to a full window at the mean p seen so far, so the band means the same from the first pass.

use std::collections::VecDeque;

use serde::Serialize;

/// What the next exposure must do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The dice fall naturally.
    Free,
    /// Only trap-forcing faces: the window would fall below its band otherwise.
    Hit,
    /// No trap-forcing face: a hit now would follow a hit or overshoot the band.
    Avoid,
}

/// The trap window as a reply shows it: passes over trap-forcing faces kept, hits among them, and
/// the hits a natural die would expect.
#[derive(Debug, Clone, Serialize)]
pub struct Window {
    pub exposures: usize,
    pub hits: usize,
    pub expected: f64,
}

/// One player's recent exposures.
#[derive(Debug, Clone)]
pub struct TrapControl {
    window: usize,
    recent: VecDeque<(f64, bool)>,
}

impl TrapControl {
    pub fn new(window: usize) -> TrapControl {
        TrapControl { window: window.max(2), recent: VecDeque::new() }
    }

    /// The believable band of hits for a full window whose exposures average `p`.
    pub fn band(window: usize, p: f64) -> (u32, u32) {
        let e = window as f64 * p;
        let sd = (window as f64 * p * (1.0 - p)).sqrt();
        ((e - sd).ceil().max(0.0) as u32, (e + sd).floor().max((e - sd).ceil()).max(0.0) as u32)
    }

    /// The verdict for an exposure with hit chance `p` (0 < p < 1).
    pub fn verdict(&self, p: f64) -> Verdict {
        if self.recent.back().is_some_and(|&(_, hit)| hit) {
            return Verdict::Avoid;
        }
        // The window ending with this exposure: the last window - 1 exposures and this one.
        let past: Vec<(f64, bool)> =
            self.recent.iter().rev().take(self.window - 1).copied().collect();
        let seen = past.len() + 1;
        let mean_p = (past.iter().map(|&(q, _)| q).sum::<f64>() + p) / seen as f64;
        let (lo, hi) = TrapControl::band(self.window, mean_p);
        let hits = past.iter().filter(|&&(_, h)| h).count() as u32;
        if hits + 1 > hi {
            Verdict::Avoid
        } else if seen >= self.window && hits < lo {
            Verdict::Hit
        } else {
            Verdict::Free
        }
    }

    /// Records how an exposure went.
    pub fn record(&mut self, p: f64, hit: bool) {
        self.recent.push_back((p, hit));
        while self.recent.len() > self.window {
            self.recent.pop_front();
        }
    }

    /// Hits and expected hits over the current window, for replies and tests.
    pub fn summary(&self) -> Window {
        let hits = self.recent.iter().filter(|&&(_, h)| h).count();
        let expected: f64 = self.recent.iter().map(|&(p, _)| p).sum();
        Window { exposures: self.recent.len(), hits, expected }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_example_band() {
        assert_eq!(TrapControl::band(10, 0.3), (2, 4));
    }

    #[test]
    fn never_back_to_back_and_never_above_band() {
        let mut c = TrapControl::new(10);
        c.record(0.3, true);
        assert_eq!(c.verdict(0.3), Verdict::Avoid);
        for hit in [false, true, false, true, false, true, false] {
            c.record(0.3, hit);
        }
        // Four hits in the last nine: a fifth would leave the 2..4 band.
        assert_eq!(c.verdict(0.3), Verdict::Avoid);
        let mut quiet = TrapControl::new(10);
        for _ in 0..9 {
            quiet.record(0.3, false);
        }
        assert_eq!(quiet.verdict(0.3), Verdict::Hit);
    }
}
