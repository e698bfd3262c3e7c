//! Minimising Err(S): the paper's local search (section 6: change one random position to a random
//! face, keep the change if Err drops, stop at Err = 0 or after 1000 steps) and simulated
//! annealing for ranges where the local search gets stuck (tighter or user-given ranges, as the
//! seed anticipates). Positions before `free_from` are locked: the stream uses them for history
//! that has already been shown to the player.

use rand::Rng;

use crate::ranges::Ranges;
use crate::tracker::Tracker;

/// Which minimiser to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// The paper's local search only.
    Local,
    /// Simulated annealing only.
    Anneal,
    /// Local search, then annealing from where it stopped if Err is still above the target.
    Auto,
}

impl Method {
    pub const NAMES: [&'static str; 3] = ["auto", "local", "anneal"];

    pub fn parse(name: &str) -> Result<Method, String> {
        match name {
            "auto" => Ok(Method::Auto),
            "local" => Ok(Method::Local),
            "anneal" => Ok(Method::Anneal),
            _ => Err(format!("unknown search method `{name}` (auto, local, anneal)")),
        }
    }
}

/// How hard to search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    pub method: Method,
    /// Local search proposals (the paper: 1000).
    pub local_steps: usize,
    /// Annealing proposals.
    pub anneal_steps: usize,
    /// 1 searches down to Err = 0; s < 1 stops once Err <= (1 - s) x the starting Err, leaving
    /// some of plain randomness's roughness.
    pub strength: f64,
}

impl Default for Params {
    fn default() -> Params {
        Params { method: Method::Auto, local_steps: 1000, anneal_steps: 20_000, strength: 1.0 }
    }
}

/// What a search did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Report {
    pub initial_err: f64,
    pub err: f64,
    pub steps: usize,
}

/// Minimises Err of `t` by changing positions `free_from..` only.
pub fn minimise(
    t: &mut Tracker,
    free_from: usize,
    ranges: &Ranges,
    params: &Params,
    rng: &mut impl Rng,
) -> Report {
    let initial_err = t.err(ranges);
    let target = ((1.0 - params.strength.clamp(0.0, 1.0)) * initial_err).max(0.0) + 1e-9;
    let mut report = Report { initial_err, err: initial_err, steps: 0 };
    if free_from >= t.seq().len() {
        return report;
    }
    if matches!(params.method, Method::Local | Method::Auto) {
        local(t, free_from, ranges, params.local_steps, target, rng, &mut report);
    }
    if params.method == Method::Anneal || (params.method == Method::Auto && report.err > target) {
        anneal(t, free_from, ranges, params.anneal_steps, target, rng, &mut report);
    }
    report
}

/// A random position among the free ones and a face different from the one there.
#[inline]
fn random_change(t: &Tracker, free_from: usize, rng: &mut impl Rng) -> (usize, u8) {
    let pos = rng.gen_range(free_from..t.seq().len());
    let sides = t.layout().sides;
    let mut face = rng.gen_range(1..sides);
    if face >= t.seq()[pos] {
        face += 1;
    }
    (pos, face)
}

fn local(
    t: &mut Tracker,
    free_from: usize,
    r: &Ranges,
    steps: usize,
    target: f64,
    rng: &mut impl Rng,
    rep: &mut Report,
) {
    for step in 0..steps {
        if rep.err <= target || stop_asked(step) {
            return;
        }
        rep.steps += 1;
        let (pos, face) = random_change(t, free_from, rng);
        let p = t.propose(pos, face);
        if t.err_change(&p, r) < -1e-12 {
            t.commit(&p);
            // Exact after every accepted change, so rounding never builds up.
            rep.err = t.err(r);
        }
    }
}

/// Geometric cooling from 4 to 0.05 (in units of Err; a weight-1 feature one step off costs 1),
/// keeping the best sequence seen.
fn anneal(
    t: &mut Tracker,
    free_from: usize,
    r: &Ranges,
    steps: usize,
    target: f64,
    rng: &mut impl Rng,
    rep: &mut Report,
) {
    let (t0, t1) = (4.0_f64, 0.05_f64);
    let cooling = (t1 / t0).powf(1.0 / steps.max(1) as f64);
    let mut temp = t0;
    let mut best = t.clone();
    for step in 0..steps {
        if rep.err <= target || stop_asked(step) {
            break;
        }
        rep.steps += 1;
        let (pos, face) = random_change(t, free_from, rng);
        let p = t.propose(pos, face);
        let delta = t.err_change(&p, r);
        if delta <= 0.0 || rng.gen::<f64>() < (-delta / temp).exp() {
            t.commit(&p);
            let e = t.err(r);
            if e < rep.err {
                rep.err = e;
                best = t.clone();
            }
        }
        temp *= cooling;
    }
    *t = best;
}

/// Steps between two looks at whether the host cancelled the call (a power of two).
const CANCEL_EVERY: usize = 1 << 12;

/// Whether the host has cancelled the call, looked at every [`CANCEL_EVERY`] steps: a cancelled
/// search ends early (its answer is dropped).
fn stop_asked(step: usize) -> bool {
    step & (CANCEL_EVERY - 1) == 0 && yomi_plugin::cancel::cancelled()
}

/// `n` faces of a plain (uniform, independent) die.
pub fn uniform(n: usize, sides: u8, rng: &mut impl Rng) -> Vec<u8> {
    (0..n).map(|_| rng.gen_range(1..=sides)).collect()
}

/// One natural sequence of `n` faces: uniform start, then [`minimise`] over every position.
pub fn generate(
    n: usize,
    sides: u8,
    ranges: &Ranges,
    params: &Params,
    rng: &mut impl Rng,
) -> (Vec<u8>, Report) {
    let mut t = Tracker::new(uniform(n, sides, rng), sides);
    let report = minimise(&mut t, 0, ranges, params, rng);
    (t.into_seq(), report)
}
