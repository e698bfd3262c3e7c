//! An endless stream of rolls. Natural streams are generated in blocks of half the window
//! length `n`: each new block is optimised together with the last `n - block` faces already
//! shown, which stay locked, so every window the features are judged on straddles the previous
//! block edge and a clump cannot hide there. Every face's long-run share stays 1/sides: the
//! features and the search treat all faces alike (on odd dice the parity feature, which does not,
//! is switched off; see [`crate::ranges`]). A roll may be restricted to some faces (trap
//! control); the stream then picks the allowed face that keeps Err lowest and repairs the rest
//! of the block around it.

use std::collections::VecDeque;

use rand::Rng;
use yomi_plugin::rng::{seeded, Rng as SeededRng};

use crate::ranges::Ranges;
use crate::search::{minimise, uniform, Method, Params};
use crate::tracker::Tracker;

/// A source of die faces. One per player, never held in bulk, so variant sizes do not matter.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)]
pub enum Dice {
    /// An ordinary seeded PRNG: independent uniform faces.
    Plain {
        sides: u8,
        rng: SeededRng,
    },
    Natural(NaturalStream),
}

impl Dice {
    pub fn plain(sides: u8, seed: u64) -> Dice {
        Dice::Plain { sides, rng: seeded(seed) }
    }

    /// A natural stream (see [`NaturalStream::new`]).
    pub fn natural(sides: u8, n: usize, ranges: Ranges, params: Params, seed: u64) -> Dice {
        Dice::Natural(NaturalStream::new(sides, n, ranges, params, seed))
    }

    pub fn sides(&self) -> u8 {
        match self {
            Dice::Plain { sides, .. } => *sides,
            Dice::Natural(s) => s.sides,
        }
    }

    pub fn roll(&mut self) -> u8 {
        match self {
            Dice::Plain { sides, rng } => rng.gen_range(1..=*sides),
            Dice::Natural(s) => s.next_in(None),
        }
    }

    /// The next face among those with `allowed[face - 1]` (at least one must be allowed). Plain
    /// dice draw uniformly among the allowed faces.
    pub fn next_in(&mut self, allowed: &[bool]) -> u8 {
        match self {
            Dice::Plain { sides, rng } => {
                let faces: Vec<u8> = (1..=*sides).filter(|&f| allowed[f as usize - 1]).collect();
                faces[rng.gen_range(0..faces.len())]
            }
            Dice::Natural(s) => s.next_in(Some(allowed)),
        }
    }
}

/// Most annealing proposals per stream block.
const STREAM_ANNEAL_STEPS: usize = 2000;

/// A natural stream's state.
#[derive(Debug, Clone)]
pub struct NaturalStream {
    sides: u8,
    /// Length of the window features are judged on.
    n: usize,
    ranges: Ranges,
    params: Params,
    rng: SeededRng,
    /// Faces already shown, the last `n` at most (older ones are dropped in batches).
    shown: Vec<u8>,
    /// Faces generated but not yet shown.
    pending: VecDeque<u8>,
}

impl NaturalStream {
    /// A stream judged on windows of `n` faces (n >= 2) under `ranges` (for length n).
    pub fn new(sides: u8, n: usize, ranges: Ranges, params: Params, seed: u64) -> NaturalStream {
        // With half of every window locked Err = 0 is sometimes out of reach; a short annealing
        // gets what can be had without making every such block cost 20 000 proposals.
        let params =
            Params { anneal_steps: params.anneal_steps.min(STREAM_ANNEAL_STEPS), ..params };
        NaturalStream {
            sides,
            n,
            ranges,
            params,
            rng: seeded(seed),
            shown: Vec::new(),
            pending: VecDeque::new(),
        }
    }

    /// How many new faces each block adds once the stream is running.
    fn block(&self) -> usize {
        (self.n / 2).max(1)
    }

    /// The last `len` shown faces followed by the pending ones, tracked.
    fn window(&self, shown: usize) -> (Tracker, usize) {
        let keep = shown.min(self.shown.len());
        let mut seq = self.shown[self.shown.len() - keep..].to_vec();
        seq.extend(self.pending.iter().copied());
        (Tracker::new(seq, self.sides), keep)
    }

    fn refill(&mut self) {
        let keep = self.shown.len().min(self.n - self.block());
        let fresh = uniform(self.n - keep, self.sides, &mut self.rng);
        self.pending.extend(fresh);
        let (mut t, keep) = self.window(keep);
        let ranges = self.judged(&t, keep);
        minimise(&mut t, keep, &ranges, &self.params, &mut self.rng);
        self.pending = t.seq()[keep..].iter().copied().collect();
    }

    /// The ranges a window is optimised under when its first `locked` faces are already shown:
    /// a chi-square span lying wholly inside them cannot change any more, so it gets weight 0
    /// instead of blocking Err = 0 for the faces that can.
    fn judged(&self, t: &Tracker, locked: usize) -> Ranges {
        let mut ranges = self.ranges.clone();
        for (i, (start, len)) in t.layout().chi_spans().into_iter().enumerate() {
            if start + len <= locked {
                ranges.gamma[i] = 0.0;
            }
        }
        ranges
    }

    /// The next face, restricted to `allowed` faces when given.
    pub fn next_in(&mut self, allowed: Option<&[bool]>) -> u8 {
        if self.pending.is_empty() {
            self.refill();
        }
        let ok = |f: u8| allowed.is_none_or(|a| a[f as usize - 1]);
        if !ok(self.pending[0]) {
            self.force_first(&ok);
        }
        let face = self.pending.pop_front().expect("refilled above");
        self.shown.push(face);
        if self.shown.len() >= 2 * self.n {
            self.shown.drain(..self.shown.len() - self.n);
        }
        face
    }

    /// Replaces the first pending face by the allowed one with the lowest Err over the window,
    /// then re-optimises the pending faces after it.
    fn force_first(&mut self, ok: &dyn Fn(u8) -> bool) {
        let (mut t, keep) = self.window(self.n.saturating_sub(self.pending.len()));
        let ranges = self.judged(&t, keep);
        let mut best: Option<(f64, u8)> = None;
        let mut ties = 0u32;
        for face in (1..=self.sides).filter(|&f| ok(f)) {
            let e = ranges.err(&t.features_of(&t.propose(keep, face)));
            // Ties go to a uniformly random one of the tied faces (reservoir sampling), so no
            // face is favoured by its number.
            match best {
                Some((b, _)) if e > b => {}
                Some((b, _)) if e == b => {
                    ties += 1;
                    if self.rng.gen_range(0..ties) == 0 {
                        best = Some((e, face));
                    }
                }
                _ => {
                    best = Some((e, face));
                    ties = 1;
                }
            }
        }
        let Some((_, face)) = best else { return };
        t.set(keep, face);
        // A repair, not a new block: the local search only.
        let repair = Params { method: Method::Local, ..self.params };
        minimise(&mut t, keep + 1, &ranges, &repair, &mut self.rng);
        self.pending = t.seq()[keep..].iter().copied().collect();
    }

    /// The faces shown so far that are still remembered (the last `n` at least).
    pub fn recent(&self) -> &[u8] {
        &self.shown
    }
}
