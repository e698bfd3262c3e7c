//! `yomi fit` (README, "Fitting a bot to records"): the bot options under which a record set is
//! most likely. Discrete options (booleans, choices, small integer ranges) are enumerated; for
//! each combination the continuous ones are found by `argmin` (Brent's method for one option,
//! Nelder–Mead for several), each value clamped to its declared bounds. One option on records of
//! at least [`PART_EVERY`] × [`PART_MIN_PLAYS`] plays is first fitted, interval and all, on every
//! [`PART_EVERY`]-th play, and the top then refined on all of them from there ([`refine`]). The objective is the records' total log-likelihood, scored exactly as
//! `yomi humanlike` scores it ([`score_bot`], the same floor).
//!
//! Each fitted continuous option gets a 95 % likelihood-ratio interval: the values where the
//! total log-likelihood falls 1.92 (χ²₁ at 0.95, halved) below the fit, the other options held at
//! their fitted values (the profile interval when one option is fitted).

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::sync::Arc;

use argmin::core::{CostFunction, Error, Executor, State, TerminationReason};
use argmin::solver::brent::{BrentOpt, BrentRoot};
use argmin::solver::neldermead::NelderMead;
use serde::Serialize;
use serde_json::{json, Value};
use yomi_protocol::{ErrorCode, ErrorInfo, OptionKind, OptionSpec, Options};

use super::replay::{score_bot, Prepared, Running, Scored};
use crate::matches::seat::SeatPlan;

/// Half the 0.95 quantile of χ² with one degree of freedom.
const DROP_95: f64 = 1.920_729;
/// Most combinations of discrete options enumerated.
pub const MAX_COMBINATIONS: usize = 64;
/// How close in log-likelihood the search for the top gets: Nelder–Mead stops once the standard
/// deviation of its vertices' log-likelihoods is below it, Brent's method once its bracket holds
/// the top to the distance where a parabola of the measured curvature falls this much. A point
/// 0.01 below the top lies within 7 % of the 95 % interval's half-width of it (the
/// log-likelihood falls 1.92 at the edge, a parabola's fall grows with the square of the
/// distance), and 0.01 is under a `delta-nash` replay's own noise (about ±0.025 at 200 games).
const TOP_SPREAD: f64 = 0.01;
/// Brent's steps before its tolerance is first set from the curvature of the points they
/// replayed (its first steps are golden sections of the whole range, the same whatever the
/// tolerance).
const BRENT_PROBE_STEPS: u64 = 3;
/// Most doublings of the step that looks for an interval's edge.
const MAX_DOUBLINGS: u64 = 64;
/// Most values of an integer option enumerated.
const MAX_INT_VALUES: i64 = 16;

/// What the fit changes: the options it searches, split by kind.
#[derive(Debug, Clone)]
pub struct Space {
    /// Continuous options with their bounds.
    pub continuous: Vec<(String, f64, f64)>,
    /// Discrete options with every value they take.
    pub discrete: Vec<(String, Vec<Value>)>,
}

impl Space {
    /// The space of the options named in `names` (all the bot's float, bool and choice options
    /// when empty); an option that cannot be searched is refused by name.
    pub fn new(specs: &[OptionSpec], names: &[String]) -> Result<Space, ErrorInfo> {
        let bad = |m: String| ErrorInfo::new(ErrorCode::InvalidParams, m);
        let mut space = Space { continuous: vec![], discrete: vec![] };
        for name in names {
            if !specs.iter().any(|s| &s.name == name) {
                return Err(bad(format!("the bot has no option `{name}`")));
            }
        }
        for spec in specs {
            let named = names.contains(&spec.name);
            if !(names.is_empty() || named) {
                continue;
            }
            match &spec.kind {
                OptionKind::Float { min: Some(lo), max: Some(hi) } => {
                    space.continuous.push((spec.name.clone(), *lo, *hi))
                }
                OptionKind::Bool => {
                    space.discrete.push((spec.name.clone(), vec![json!(false), json!(true)]))
                }
                OptionKind::Choice { choices } => space
                    .discrete
                    .push((spec.name.clone(), choices.iter().map(|c| json!(c)).collect())),
                OptionKind::Int { min: Some(lo), max: Some(hi) }
                    if named && hi - lo < MAX_INT_VALUES =>
                {
                    space
                        .discrete
                        .push((spec.name.clone(), (*lo..=*hi).map(|v| json!(v)).collect()))
                }
                _ if named => {
                    return Err(bad(format!(
                        "option `{}` cannot be fitted: only bounded numbers, booleans, choices \
                         and integers with at most {MAX_INT_VALUES} values",
                        spec.name
                    )))
                }
                _ => {}
            }
        }
        if space.continuous.is_empty() && space.discrete.is_empty() {
            return Err(bad("the bot has no option to fit".into()));
        }
        if space.combinations() > MAX_COMBINATIONS {
            return Err(bad(format!(
                "{} combinations of discrete options (at most {MAX_COMBINATIONS}): name fewer with --fit",
                space.combinations()
            )));
        }
        Ok(space)
    }

    fn combinations(&self) -> usize {
        self.discrete.iter().map(|(_, v)| v.len()).product()
    }

    /// Most replays [`fit`] asks for with `iterations`: per combination of discrete options, the
    /// optimiser's first points and at most as many new points per iteration as Nelder–Mead's
    /// shrink (one per continuous option, and one) or Brent's step; per continuous option, the
    /// two neighbours of its curvature and, for each side of its interval, two probes, the
    /// doubling of a step (at most [`MAX_DOUBLINGS`]) and Brent's root finding. The fit stops
    /// with `limit_exceeded` rather than pass it.
    pub fn max_replays(&self, iterations: u64) -> u64 {
        let c = self.continuous.len() as u64;
        let combinations = self.each_discrete().len() as u64;
        let per_combination = (iterations + 1).saturating_mul(c + 2);
        let per_interval = 2 + 2 * (MAX_DOUBLINGS + iterations + 4);
        combinations.saturating_mul(per_combination).saturating_add(c * per_interval)
    }

    /// Most replays of the records' part ([`part`]) [`fit`] asks for with `iterations`: with one
    /// continuous option, a whole fit of it (interval and all) per combination of discrete
    /// options; none otherwise.
    pub fn max_part_replays(&self, iterations: u64) -> u64 {
        if self.continuous.len() != 1 {
            return 0;
        }
        let one = Space { continuous: self.continuous.clone(), discrete: vec![] };
        (self.each_discrete().len() as u64).saturating_mul(one.max_replays(iterations))
    }

    /// Every combination of discrete values, as option sets.
    fn each_discrete(&self) -> Vec<Options> {
        let mut all = vec![Options::new()];
        for (name, values) in &self.discrete {
            all = all
                .into_iter()
                .flat_map(|o| {
                    values.iter().map(move |v| {
                        let mut o = o.clone();
                        o.insert(name.clone(), v.clone());
                        o
                    })
                })
                .collect();
        }
        all
    }
}

/// The records' total log-likelihood under one set of options.
pub trait Objective {
    fn log_likelihood(&self, options: &Options) -> Result<f64, ErrorInfo>;

    /// The same objective on a part of the records, and how many times as many decisions the
    /// whole records hold; None when they are too few to split ([`part`]).
    fn part(&self) -> Option<(Box<dyn Objective + '_>, f64)> {
        None
    }
}

/// A fit with one continuous option first finds its top and interval on every
/// [`PART_EVERY`]-th play, at about that fraction of a replay's cost, then refines them on all
/// plays from there ([`refine`]); the whole range is searched only on the part.
pub const PART_EVERY: usize = 8;
/// Fewest plays in the part: below, its top is too loose a guess to start from.
pub const PART_MIN_PLAYS: usize = 100;

/// The part of `plays` a fit first searches, when they are many enough.
pub fn part(plays: &Prepared) -> Option<Arc<Prepared>> {
    (plays.plays() >= PART_EVERY * PART_MIN_PLAYS).then(|| plays.every(PART_EVERY))
}

/// The objective of a bot on some plays: each set of options resolved by `make` and replayed.
pub struct Replay<'a> {
    pub runtime: &'a tokio::runtime::Handle,
    pub make: &'a dyn Fn(&Options) -> Result<SeatPlan, ErrorInfo>,
    pub plays: Arc<Prepared>,
    /// [`part`] of `plays`.
    pub part: Option<Arc<Prepared>>,
    pub running: &'a Running,
    pub floor: f64,
    pub seed: u64,
}

impl Objective for Replay<'_> {
    fn log_likelihood(&self, options: &Options) -> Result<f64, ErrorInfo> {
        let plan = (self.make)(options)?;
        let scored =
            self.runtime.block_on(score_bot(&plan, &self.plays, self.seed, self.running))?;
        Ok(total_log_likelihood(&scored, self.floor))
    }

    fn part(&self) -> Option<(Box<dyn Objective + '_>, f64)> {
        let plays = self.part.clone()?;
        let ratio = self.plays.decisions() as f64 / plays.decisions().max(1) as f64;
        let part = Replay { plays, part: None, ..*self };
        Some((Box::new(part), ratio))
    }
}

/// The records' total log-likelihood: ln max(p, floor) summed over every decision, in order.
pub fn total_log_likelihood(scored: &[Vec<Scored>], floor: f64) -> f64 {
    scored.iter().flatten().map(|s| s.p.max(floor).ln()).sum()
}

/// One fitted option.
#[derive(Debug, Clone, Serialize)]
pub struct Fitted {
    pub name: String,
    pub value: Value,
    /// The 95 % likelihood-ratio interval (continuous options only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci95: Option<[f64; 2]>,
}

/// The fit's result.
#[derive(Debug, Clone, Serialize)]
pub struct Fit {
    pub options: Options,
    pub fitted: Vec<Fitted>,
    /// The records' total log-likelihood at the fit.
    pub log_likelihood: f64,
    /// How many times the records were replayed.
    pub evaluations: usize,
    /// How many of them each phase cost.
    pub by_phase: BTreeMap<Phase, usize>,
}

/// The objective as the search sees it: each distinct set of options replayed once (a search
/// that comes back to a point, or an interval's edge search that starts from the fit, pays
/// nothing for it), counted, and the first failure kept to be returned as it was.
struct Memo<'a> {
    objective: &'a dyn Objective,
    seen: RefCell<Vec<(Options, f64)>>,
    calls: RefCell<usize>,
    /// [`Space::max_replays`]: the bound the fit was admitted under.
    max_calls: u64,
    failure: RefCell<Option<ErrorInfo>>,
    /// What the replays are for at the moment, logged with each (`RUST_LOG=debug`).
    phase: Cell<Phase>,
    /// Replays per phase.
    by_phase: RefCell<BTreeMap<Phase, usize>>,
}

/// The stages of a fit, each named in the log line of every replay it costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Replays of the part of the records where the top is first looked for ([`part`]), each
    /// at about a [`PART_EVERY`]-th of a whole replay's cost.
    Part,
    /// Brent's method, Nelder–Mead or [`refine`] looking for the top.
    Optimum,
    /// The two neighbours of the top that give its curvature.
    Curvature,
    /// Steps from the top until the log-likelihood falls below an interval's edge.
    Bracket,
    /// Brent's root finding inside that bracket.
    Root,
}

impl Memo<'_> {
    fn log_likelihood(&self, options: &Options) -> Result<f64, ErrorInfo> {
        if let Some((_, ll)) = self.seen.borrow().iter().find(|(o, _)| o == options) {
            return Ok(*ll);
        }
        if *self.calls.borrow() as u64 >= self.max_calls {
            return Err(ErrorInfo::new(
                ErrorCode::LimitExceeded,
                format!("the fit needed more than its {} replays", self.max_calls),
            ));
        }
        *self.calls.borrow_mut() += 1;
        *self.by_phase.borrow_mut().entry(self.phase.get()).or_default() += 1;
        let clock = std::time::Instant::now();
        let ll = self.objective.log_likelihood(options)?;
        tracing::debug!(
            phase = ?self.phase.get(),
            replay = *self.calls.borrow(),
            ?options,
            log_likelihood = ll,
            seconds = clock.elapsed().as_secs_f64(),
            "fit replay"
        );
        self.seen.borrow_mut().push((options.clone(), ll));
        Ok(ll)
    }

    /// The replays so far along option `name`, every other option as in `base`: each value of
    /// `name` with its log-likelihood.
    fn line(&self, base: &Options, name: &str) -> Vec<(f64, f64)> {
        let on_line = |o: &Options| {
            o.len() == base.len() && o.iter().all(|(k, v)| k == name || base.get(k) == Some(v))
        };
        let seen = self.seen.borrow();
        let points = seen.iter().filter(|(o, _)| on_line(o));
        points.filter_map(|(o, ll)| Some((o.get(name)?.as_f64()?, *ll))).collect()
    }

    /// For argmin: an error is kept here and handed to it as a message.
    fn cost<T>(&self, options: &Options, cost: impl Fn(f64) -> T) -> Result<T, Error> {
        self.log_likelihood(options).map(cost).map_err(|e| {
            let message = e.message.clone();
            *self.failure.borrow_mut() = Some(e);
            Error::msg(message)
        })
    }

    /// The failure behind an argmin error, or the error itself.
    fn failed(&self, e: Error) -> ErrorInfo {
        self.failure.borrow_mut().take().unwrap_or_else(|| internal(e.to_string()))
    }
}

/// The continuous options of one discrete combination, as points for argmin.
#[derive(Clone, Copy)]
struct Continuous<'a> {
    memo: &'a Memo<'a>,
    space: &'a Space,
    base: &'a Options,
}

impl Continuous<'_> {
    fn options(&self, x: &[f64]) -> Options {
        let mut o = self.base.clone();
        for ((name, lo, hi), v) in self.space.continuous.iter().zip(x) {
            o.insert(name.clone(), json!(v.clamp(*lo, *hi)));
        }
        o
    }
}

/// Nelder–Mead's cost: the negative log-likelihood at a point of every continuous option.
impl CostFunction for Continuous<'_> {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, x: &Vec<f64>) -> Result<f64, Error> {
        self.memo.cost(&self.options(x), |ll| -ll)
    }
}

/// A function of one option's value for Brent's methods: `sign` × (log-likelihood − `shift`).
struct Line<'a> {
    at: Continuous<'a>,
    shift: f64,
    sign: f64,
}

impl CostFunction for Line<'_> {
    type Param = f64;
    type Output = f64;

    fn cost(&self, x: &f64) -> Result<f64, Error> {
        self.at.memo.cost(&self.at.options(&[*x]), |ll| self.sign * (ll - self.shift))
    }
}

/// Fits `space` from the options `start` (the bot's defaults), at most `iterations` steps of
/// the search per discrete combination: Brent's method (golden sections and parabolas) when one
/// option is continuous, which needs far fewer replays than a simplex; Nelder–Mead otherwise.
pub fn fit(
    objective: &dyn Objective,
    space: &Space,
    start: &Options,
    iterations: u64,
) -> Result<Fit, ErrorInfo> {
    let memo = Memo {
        objective,
        seen: RefCell::default(),
        calls: RefCell::new(0),
        max_calls: space.max_replays(iterations),
        failure: RefCell::new(None),
        phase: Cell::new(Phase::Optimum),
        by_phase: RefCell::default(),
    };
    let mut best: Option<(f64, Options)> = None;
    for combination in space.each_discrete() {
        let mut base = start.clone();
        base.extend(combination);
        let at = Continuous { memo: &memo, space, base: &base };
        let (ll, options) = match space.continuous.as_slice() {
            [] => (memo.log_likelihood(&base)?, base.clone()),
            [(name, lo, hi)] => {
                let x = match objective.part() {
                    Some((part, ratio)) => {
                        let one = Space { continuous: space.continuous.clone(), discrete: vec![] };
                        let located = fit(part.as_ref(), &one, &base, iterations)?;
                        *memo.by_phase.borrow_mut().entry(Phase::Part).or_default() +=
                            located.evaluations;
                        let x = located.options[name].as_f64().unwrap_or(*lo);
                        let [below, above] = located.fitted[0].ci95.unwrap_or([*lo, *hi]);
                        // An interval's width shrinks with the square root of the decisions.
                        let reach = (above - below) / 2.0 / ratio.sqrt();
                        refine(at, name, x, reach, (*lo, *hi), iterations)?
                    }
                    None => brent_top(at, name, (*lo, *hi), iterations)?,
                };
                let options = at.options(&[x]);
                (memo.log_likelihood(&options)?, options)
            }
            _ => {
                let x0: Vec<f64> = space
                    .continuous
                    .iter()
                    .map(|(n, lo, hi)| {
                        start.get(n).and_then(Value::as_f64).unwrap_or(*lo).clamp(*lo, *hi)
                    })
                    .collect();
                let solver = NelderMead::new(simplex(&x0, space))
                    .with_sd_tolerance(TOP_SPREAD)
                    .map_err(|e| internal(e.to_string()))?;
                let run = Executor::new(at, solver)
                    .configure(|s| s.max_iters(iterations))
                    .run()
                    .map_err(|e| memo.failed(e))?;
                let x = run.state().get_best_param().cloned().unwrap_or(x0);
                let options = at.options(&x);
                (memo.log_likelihood(&options)?, options)
            }
        };
        if best.as_ref().is_none_or(|(b, _)| ll > *b) {
            best = Some((ll, options));
        }
    }
    let (log_likelihood, options) = best.ok_or_else(|| internal("nothing to fit".into()))?;
    let mut fitted = Vec::new();
    for (name, lo, hi) in &space.continuous {
        // The profile along this option alone, the others at their fit.
        let one = Space { continuous: vec![(name.clone(), *lo, *hi)], discrete: vec![] };
        let line = || Continuous { memo: &memo, space: &one, base: &options };
        let x = options[name].as_f64().unwrap_or(*lo);
        let target = log_likelihood - DROP_95;
        let curvature = curvature(&line(), name, (x, log_likelihood), (*lo, *hi))?;
        let side = |bound: f64| {
            let at = line();
            edge(at, name, (x, log_likelihood), bound, target, curvature, iterations)
        };
        let ci95 = [side(*lo)?, side(*hi)?];
        fitted.push(Fitted { name: name.clone(), value: options[name].clone(), ci95: Some(ci95) });
    }
    for (name, _) in &space.discrete {
        fitted.push(Fitted { name: name.clone(), value: options[name].clone(), ci95: None });
    }
    let by_phase = memo.by_phase.into_inner();
    tracing::debug!(?by_phase, "fit replays by phase");
    Ok(Fit { options, fitted, log_likelihood, evaluations: memo.calls.into_inner(), by_phase })
}

/// The top along `at`'s one option `name` over its whole range `(lo, hi)`, by Brent's method.
fn brent_top(
    at: Continuous,
    name: &str,
    (lo, hi): (f64, f64),
    iterations: u64,
) -> Result<f64, ErrorInfo> {
    let memo = at.memo;
    let brent = |tolerance: f64, steps: u64| {
        let line = Line { at, shift: 0.0, sign: -1.0 };
        let solver = BrentOpt::new(lo, hi).set_tolerance(1e-4, tolerance);
        Executor::new(line, solver)
            .configure(|s| s.max_iters(steps))
            .run()
            .map_err(|e| memo.failed(e))
    };
    // Step by step (each run replays the last one's points for free) until the best point has
    // a neighbour on each side, then once more with the tolerance their curvature gives.
    let finest = (hi - lo) * 1e-4;
    let mut tolerance = None;
    for steps in BRENT_PROBE_STEPS..iterations {
        let probe = brent(finest, steps)?;
        tolerance = top_tolerance(&memo.line(at.base, name));
        let converged =
            probe.state().get_termination_reason() != Some(&TerminationReason::MaxItersReached);
        if tolerance.is_some() || converged {
            break;
        }
    }
    let run = brent(tolerance.unwrap_or(0.0).max(finest), iterations)?;
    Ok(run.state().get_best_param().copied().unwrap_or(lo))
}

/// The top along `at`'s one option `name` within `(lo, hi)`, from `x`, where a part of the
/// records put it, and `reach`, how far from it the whole records' interval edges are
/// expected (half the part's interval, narrowed by the square root of how many times as many
/// decisions the whole holds). The log-likelihood near its top is close to a parabola, and the part's
/// interval gives its curvature (it falls [`DROP_95`] at `reach`): so after the replays
/// at `x` and at each expected edge, the next replay is where that parabola, fitted to the
/// points near the best by least squares, has its top, until the top is within the distance
/// where it falls [`TOP_SPREAD`] of a point replayed; the best of them is the top, with a
/// point replayed at the expected edge on any side where none lies within two reaches. Points
/// an interval's width apart bend the log-likelihood far more than a replay's noise, so the
/// first guesses are good, and the edges' points are at hand for [`edge`].
fn refine(
    at: Continuous,
    name: &str,
    x: f64,
    reach: f64,
    (lo, hi): (f64, f64),
    iterations: u64,
) -> Result<f64, ErrorInfo> {
    let memo = at.memo;
    let value = |v: f64| memo.log_likelihood(&at.options(&[v]));
    let reach = reach.max((hi - lo) * 1e-3);
    for v in [x, x - reach, x + reach] {
        value(v.clamp(lo, hi))?;
    }
    let curvature = 2.0 * DROP_95 / reach.powi(2);
    let close = (2.0 * TOP_SPREAD / curvature).sqrt();
    let best =
        |points: &[(f64, f64)]| points.iter().max_by(|p, q| p.1.total_cmp(&q.1)).map_or(x, |p| p.0);
    for _ in 0..iterations {
        let points = memo.line(at.base, name);
        let top = parabola_top(&points, curvature, 4.0 * DROP_95);
        if !top.is_finite() {
            break;
        }
        let b = best(&points);
        let next = top.clamp(b - 2.0 * reach, b + 2.0 * reach).clamp(lo, hi);
        if points.iter().any(|p| (p.0 - next).abs() <= close) {
            break;
        }
        value(next)?;
    }
    // The search may have come to the top from one side: a point at the expected edge on the
    // other gives the curvature and that edge's search a start.
    let points = memo.line(at.base, name);
    let top = best(&points);
    for side in [-1.0, 1.0] {
        let beside = |p: &&(f64, f64)| (p.0 - top) * side > 0.0 && (p.0 - top).abs() <= 2.0 * reach;
        let v = (top + side * reach).clamp(lo, hi);
        if v != top && !points.iter().any(|p| beside(&p)) {
            value(v)?;
        }
    }
    Ok(best(&memo.line(at.base, name)))
}

/// Where the parabola of `curvature` (minus its second derivative) fitted to `points` by least
/// squares has its top: fitted to those within `depth` of the best in log-likelihood, or to the
/// best and its nearest neighbour when that leaves one.
fn parabola_top(points: &[(f64, f64)], curvature: f64, depth: f64) -> f64 {
    let top = points.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
    let mut near: Vec<(f64, f64)> = points.iter().copied().filter(|p| p.1 >= top - depth).collect();
    if near.len() < 2 {
        let b = near[0];
        let beside = points.iter().filter(|p| p.0 != b.0);
        near.extend(beside.min_by(|p, q| (p.0 - b.0).abs().total_cmp(&(q.0 - b.0).abs())));
    }
    // With the curvature known, f + c/2 (x − m)² is a line in x whose slope is c (t − m).
    let m = near.iter().map(|p| p.0).sum::<f64>() / near.len() as f64;
    let y: Vec<f64> = near.iter().map(|p| p.1 + curvature / 2.0 * (p.0 - m).powi(2)).collect();
    let y_mean = y.iter().sum::<f64>() / y.len() as f64;
    let (mut covariance, mut variance) = (0.0, 0.0);
    for (p, y) in near.iter().zip(&y) {
        covariance += (p.0 - m) * (y - y_mean);
        variance += (p.0 - m).powi(2);
    }
    m + covariance / variance / curvature
}

/// The starting simplex: the start and one step along each option, a tenth of its range (away
/// from the nearer bound).
fn simplex(x0: &[f64], space: &Space) -> Vec<Vec<f64>> {
    let mut points = vec![x0.to_vec()];
    for (i, (_, lo, hi)) in space.continuous.iter().enumerate() {
        let step = (hi - lo) / 10.0;
        let mut p = x0.to_vec();
        p[i] = if x0[i] + step <= *hi { x0[i] + step } else { x0[i] - step };
        points.push(p);
    }
    points
}

/// The curvature of the log-likelihood along `at`'s option `name` at the fit `x` (minus its
/// second derivative), from a replayed point on each side: the farthest from the fit whose
/// log-likelihood lies less than twice an interval's fall below it, else the nearest less than
/// eight times (Brent's method ends with points beside its top, [`refine`] with points near the
/// edges; two new neighbours a thousandth of the range away would differ by less than a noisy
/// replay's noise). With no point on one side (at a bound), the two farthest within twice the
/// fall, else two new neighbours on the other side.
fn curvature(
    at: &Continuous,
    name: &str,
    (x, ll): (f64, f64),
    (lo, hi): (f64, f64),
) -> Result<f64, ErrorInfo> {
    let h = (hi - lo) / 1000.0;
    let line: Vec<(f64, f64)> = at.memo.line(at.base, name);
    let away = |p: &&(f64, f64)| (p.0 - x).abs();
    let fallen = |p: &&(f64, f64), by: f64| p.1 > ll - by;
    // Per side the farthest point within twice an interval's fall (the farther apart, the less
    // a replay's noise bends the parabola), else the nearest within eight times it.
    let side = |below: bool| {
        let on_side = line.iter().filter(move |p| p.0 != x && (p.0 < x) == below);
        let within = on_side.clone().filter(|p| fallen(p, 2.0 * DROP_95));
        let farthest = within.max_by(|a, b| away(a).total_cmp(&away(b)));
        let wider = on_side.filter(|p| fallen(p, 8.0 * DROP_95));
        farthest.or_else(|| wider.min_by(|a, b| away(a).total_cmp(&away(b)))).copied()
    };
    let mut near = match (side(true), side(false)) {
        (Some(b), Some(a)) => vec![b, a],
        _ => {
            let mut within: Vec<(f64, f64)> =
                line.iter().filter(|p| p.0 != x && fallen(p, 2.0 * DROP_95)).copied().collect();
            within.sort_by(|a, b| away(&b).total_cmp(&away(&a)));
            within
        }
    };
    if near.len() < 2 {
        at.memo.phase.set(Phase::Curvature);
        let steps = match (x - h < lo, x + h > hi) {
            (true, _) => [h, 2.0 * h],
            (_, true) => [-2.0 * h, -h],
            _ => [-h, h],
        };
        near = steps
            .iter()
            .map(|s| Ok((x + s, at.memo.log_likelihood(&at.options(&[x + s]))?)))
            .collect::<Result<_, ErrorInfo>>()?;
    }
    Ok(second_difference(near[0], (x, ll), near[1]))
}

/// Minus the second derivative of the parabola through three points (in any order of their
/// values of the option): the curvature of a log-likelihood at its top.
fn second_difference(a: (f64, f64), x: (f64, f64), b: (f64, f64)) -> f64 {
    let slope = |(u, fu): (f64, f64), (v, fv): (f64, f64)| (fv - fu) / (v - u);
    -2.0 * (slope(x, b) - slope(a, x)) / (b.0 - a.0)
}

/// Brent's absolute tolerance for the top along one option, from the `points` replayed so far
/// (value, log-likelihood): half the distance at which the parabola through the best point and
/// its nearest neighbour on each side falls [`TOP_SPREAD`] (Brent stops with the top within
/// about twice its tolerance). None while no point has a neighbour on both sides or the three
/// do not bend down.
fn top_tolerance(points: &[(f64, f64)]) -> Option<f64> {
    let &(x, ll) = points.iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
    let nearest = |side: f64| {
        let beside = points.iter().filter(|p| (p.0 - x) * side > 0.0);
        beside.min_by(|a, b| (a.0 - x).abs().total_cmp(&(b.0 - x).abs())).copied()
    };
    let curvature = second_difference(nearest(-1.0)?, (x, ll), nearest(1.0)?);
    let tolerance = (2.0 * TOP_SPREAD / curvature).sqrt() / 2.0;
    (tolerance.is_finite() && tolerance > 0.0).then_some(tolerance)
}

/// Most probes for one side of an interval before its edge is closed in on by doubling and
/// Brent's root finding.
const MAX_PROBES: usize = 3;

/// What is known along one side of an interval, as distances from the fit: the farthest point
/// inside the edge and the nearest outside it, each with its depth (the square root of how far
/// the log-likelihood there lies below the fit's, which grows in proportion to the distance
/// where the log-likelihood is a parabola), and every point replayed on that side.
struct Bracket {
    /// The fit's log-likelihood.
    top: f64,
    /// The edge's depth: the square root of 1.92.
    edge: f64,
    inside: (f64, f64),
    outside: Option<(f64, f64)>,
    known: Vec<(f64, f64)>,
}

impl Bracket {
    fn add(&mut self, t: f64, ll: f64) {
        let depth = (self.top - ll).max(0.0).sqrt();
        self.known.push((t, depth));
        if t > self.inside.0 && self.outside.is_none_or(|o| t < o.0) {
            if depth <= self.edge {
                self.inside = (t, depth);
            } else {
                self.outside = Some((t, depth));
            }
        }
    }

    /// The replayed point whose depth is nearest the edge's, when within a fortieth of it
    /// (about 2.5 % of the interval's half-width away for a parabola, above a replay's noise):
    /// the line through it and the replayed point nearest it (the top, while there is none)
    /// crosses the edge's depth close to where the log-likelihood does.
    fn at_edge(&self) -> Option<(f64, f64)> {
        let off = |p: &(f64, f64)| (p.1 - self.edge).abs();
        let near = self.known.iter().copied().min_by(|a, b| off(a).total_cmp(&off(b)))?;
        (off(&near) <= self.edge / 40.0).then_some(near)
    }

    /// Whether the edge is known to lie within `width`.
    fn within(&self, width: f64) -> bool {
        self.outside.is_some_and(|o| o.0 - self.inside.0 <= width)
    }

    /// Where the line through two points reaches the edge's depth.
    fn cross(&self, (t1, g1): (f64, f64), (t2, g2): (f64, f64)) -> f64 {
        t1 + (self.edge - g1) * (t2 - t1) / (g2 - g1)
    }

    /// The next distance to probe: where the depth reaches the edge's along the line through
    /// the bracket's ends, or (before there is an outside end) through the two points nearest
    /// the edge's depth; moved `push` away from the nearer end (outward with no outside end) so
    /// that the probe usually lands across the edge from it. `None` when `first` and no replayed
    /// point lies within a quarter of the edge's depth of it (the parabola's guess is better).
    fn next(&self, push: f64, first: bool) -> Option<f64> {
        let off = |p: &(f64, f64)| (p.1 - self.edge).abs();
        let mut near = self.known.clone();
        near.sort_by(|a, b| off(a).total_cmp(&off(b)));
        let (a, b) = match (self.outside, near.as_slice()) {
            (Some(o), _) => (self.inside, o),
            (None, [a, b, ..]) => (*a, *b),
            (None, [a]) => ((0.0, 0.0), *a),
            (None, []) => return None,
        };
        let far = near.first().is_none_or(|p| off(p) > self.edge / 4.0);
        if (first && far) || a.1 == b.1 {
            return None;
        }
        let t = self.cross(a, b);
        let away = match self.outside {
            Some(o) if o.0 - t < t - self.inside.0 => -push,
            _ => push,
        };
        Some(t + away).filter(|t| t.is_finite() && *t > 0.0)
    }
}

/// Where, between the fit `x` and the bound `bound`, the log-likelihood along `at` falls to
/// `target`; the bound itself when it never does. Near its top the log-likelihood is close to a
/// parabola, whose depth (the square root of its fall) is a straight line in the distance from
/// the top: so the first probe is where the parabola of `curvature` falls to the target (`d`
/// away), unless a replay so far already lies near the edge, and each next one is where the
/// depth through the points nearest the edge reaches it, moved a hundredth of the reach on so
/// that it usually lands across the edge ([`Bracket::next`]); the reach is `d`, or the farthest
/// point found inside the edge when that is farther (the replays' noise can make the curvature
/// far too large). After [`MAX_PROBES`] a step doubles outward from the farthest point inside
/// until one is past. Inside a bracket at most a tenth of the reach wide the edge is
/// interpolated on the depth (exact for a parabola); a wider one is closed by Brent's root
/// finding to a twentieth of the reach (near an edge a noisy replay moves it about that much).
fn edge(
    at: Continuous,
    name: &str,
    (x, ll): (f64, f64),
    bound: f64,
    target: f64,
    curvature: f64,
    iterations: u64,
) -> Result<f64, ErrorInfo> {
    let memo = at.memo;
    let room = (bound - x).abs();
    if room == 0.0 {
        return Ok(bound);
    }
    let point = |t: f64| if t >= room { bound } else { x + t * (bound - x).signum() };
    let value = |t: f64| memo.log_likelihood(&at.options(&[point(t)]));
    let d = (2.0 * (ll - target) / curvature).sqrt();
    let d = if d.is_finite() && d > 0.0 { d } else { room / 10.0 };
    let edge = (ll - target).sqrt();
    let mut known = Bracket { top: ll, edge, inside: (0.0, 0.0), outside: None, known: vec![] };
    for (v, f) in memo.line(at.base, name) {
        if v != x && (v - x).signum() == (bound - x).signum() {
            known.add((v - x).abs(), f);
        }
    }
    let reach = |known: &Bracket| d.max(known.inside.0);
    memo.phase.set(Phase::Bracket);
    let mut step = d;
    // Probes in a row that landed on the same side of the edge, each pushing the next one
    // three times as far past its guess (a lopsided log-likelihood keeps the guesses short).
    let (mut side, mut streak) = (None, 0);
    for probe in 0..MAX_PROBES + MAX_DOUBLINGS as usize {
        if known.within(reach(&known) / 10.0)
            || known.at_edge().is_some()
            || (probe >= MAX_PROBES && known.outside.is_some())
        {
            break;
        }
        let push = reach(&known) / 100.0 * 3f64.powi(streak);
        let t = match known.next(push, probe == 0) {
            _ if probe >= MAX_PROBES => {
                step *= 2.0;
                known.inside.0 + step
            }
            Some(t) => t,
            None if probe == 0 => d,
            None => known.inside.0 + d,
        };
        let f = value(t)?;
        if t >= room && f >= target {
            return Ok(bound);
        }
        streak = if side == Some(f >= target) { streak + 1 } else { 0 };
        side = Some(f >= target);
        known.add(t.min(room), f);
    }
    if let Some(p) = known.at_edge() {
        let others = known.known.iter().filter(|q| q.0 != p.0);
        let nearest = others.min_by(|a, b| (a.0 - p.0).abs().total_cmp(&(b.0 - p.0).abs()));
        return Ok(point(known.cross(nearest.copied().unwrap_or((0.0, 0.0)), p)));
    }
    let ((a, ga), Some((o, go))) = (known.inside, known.outside) else {
        return Ok(bound);
    };
    let reach = reach(&known);
    if o - a <= reach / 10.0 {
        return Ok(point(known.cross((a, ga), (o, go))));
    }
    memo.phase.set(Phase::Root);
    let line = Line { at, shift: target, sign: 1.0 };
    let solver = BrentRoot::new(point(a), point(o), reach / 20.0);
    let run = Executor::new(line, solver)
        .configure(|s| s.max_iters(iterations))
        .run()
        .map_err(|e| memo.failed(e))?;
    Ok(run.state().get_best_param().copied().unwrap_or(point(o)))
}

fn internal(message: String) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::Internal, format!("fit: {message}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A made-up likelihood: a parabola at 3 in `t`, one unit wide, plus 5 when `b` is true.
    struct Parabola;
    impl Objective for Parabola {
        fn log_likelihood(&self, o: &Options) -> Result<f64, ErrorInfo> {
            let t = o["t"].as_f64().unwrap();
            let b = o["b"].as_bool().unwrap();
            Ok(-(t - 3.0).powi(2) / 2.0 + if b { 5.0 } else { 0.0 })
        }
    }

    #[test]
    fn nelder_mead_and_enumeration_find_the_top_and_its_interval() {
        let specs = vec![
            OptionSpec::float("t", 0.0, Some(0.0), Some(20.0), "t"),
            OptionSpec::bool("b", false, "b"),
            OptionSpec::int("n", 1, Some(0), Some(100), "n"),
        ];
        let space = Space::new(&specs, &[]).unwrap();
        assert_eq!(space.continuous.len() + space.discrete.len(), 2, "n is not fitted unnamed");
        let start = Options::from([("t".into(), json!(0.0)), ("b".into(), json!(false))]);
        let fit = fit(&Parabola, &space, &start, 200).unwrap();
        assert_eq!(fit.options["b"], json!(true));
        let t = fit.options["t"].as_f64().unwrap();
        assert!((t - 3.0).abs() < 0.05, "t = {t}");
        // ln L falls 1.92 at |t − 3| = sqrt(2 · 1.92) ≈ 1.96.
        let [lo, hi] = fit.fitted[0].ci95.unwrap();
        assert!((lo - 1.04).abs() < 0.06 && (hi - 4.96).abs() < 0.06, "[{lo}, {hi}]");
        assert!(Space::new(&specs, &["n".into()]).is_err(), "101 values are too many");
        assert!(Space::new(&specs, &["x".into()]).is_err());
    }

    /// A lopsided top at 3 along `t` alone, −4 (e^(u/2) − 1 − u/2) with u = t − 3 (falling
    /// faster above), each replay counted.
    #[derive(Default)]
    struct Skewed(RefCell<usize>);
    impl Objective for Skewed {
        fn log_likelihood(&self, o: &Options) -> Result<f64, ErrorInfo> {
            *self.0.borrow_mut() += 1;
            let u = o["t"].as_f64().unwrap() - 3.0;
            Ok(-4.0 * ((u / 2.0).exp() - 1.0 - u / 2.0))
        }
    }

    #[test]
    fn brent_finds_a_lopsided_top_and_both_edges_from_few_replays() {
        let specs = vec![OptionSpec::float("t", 0.0, Some(0.0), Some(20.0), "t")];
        let space = Space::new(&specs, &[]).unwrap();
        let start = Options::from([("t".into(), json!(0.0))]);
        let skewed = Skewed::default();
        let fit = fit(&skewed, &space, &start, 100).unwrap();
        // The top is 0: Brent stops where the likelihood is within TOP_SPREAD of it.
        let t = fit.options["t"].as_f64().unwrap();
        assert!(fit.log_likelihood > -TOP_SPREAD && (t - 3.0).abs() < 0.2, "t = {t}");
        // It falls 1.920729 at u = −2.339464 and u = 1.685782 (bisection).
        let [lo, hi] = fit.fitted[0].ci95.unwrap();
        assert!((lo - 0.660536).abs() < 0.01 && (hi - 4.685782).abs() < 0.01, "[{lo}, {hi}]");
        assert_eq!(fit.evaluations, skewed.0.into_inner(), "each point replayed once");
        // The curvature from the search's points, then at most three probes a side.
        let beyond: usize =
            fit.by_phase.iter().filter(|(p, _)| **p != Phase::Optimum).map(|(_, n)| n).sum();
        assert!(beyond <= 4, "{:?}", fit.by_phase);
        // Where the range ends inside the interval, the interval ends there.
        let specs = vec![OptionSpec::float("t", 2.5, Some(2.5), Some(20.0), "t")];
        let fit = super::fit(&Skewed::default(), &Space::new(&specs, &[]).unwrap(), &start, 100);
        let [lo, hi] = fit.unwrap().fitted[0].ci95.unwrap();
        assert!(lo == 2.5 && (hi - 4.685782).abs() < 0.01, "[{lo}, {hi}]");
    }

    /// Records eight times the size of a part of them: the part's log-likelihood is a parabola
    /// one unit wide at 3.4 (a part's top lies off the whole's), the whole's eight times as
    /// sharp at 3, each with [`Jittery`]'s noise; whole replays counted.
    #[derive(Default)]
    struct Eightfold {
        whole: RefCell<usize>,
    }
    struct Part;
    /// A replay's estimation noise at `t`: up to ±0.03, changing with every value.
    fn jitter(t: f64) -> f64 {
        ((t * 1e6).sin() * 43_758.545_3).fract() * 0.03
    }
    impl Objective for Part {
        fn log_likelihood(&self, o: &Options) -> Result<f64, ErrorInfo> {
            let t = o["t"].as_f64().unwrap();
            Ok(-(t - 3.4).powi(2) / 2.0 + jitter(t))
        }
    }
    impl Objective for Eightfold {
        fn log_likelihood(&self, o: &Options) -> Result<f64, ErrorInfo> {
            *self.whole.borrow_mut() += 1;
            let t = o["t"].as_f64().unwrap();
            Ok(-4.0 * (t - 3.0).powi(2) + jitter(t))
        }
        fn part(&self) -> Option<(Box<dyn Objective + '_>, f64)> {
            Some((Box::new(Part), 8.0))
        }
    }

    /// The whole range is searched on the part; the whole records are replayed only near
    /// their top and edges, and give their own top and interval.
    #[test]
    fn a_part_of_the_records_locates_the_top_the_whole_refines() {
        let specs = vec![OptionSpec::float("t", 0.0, Some(0.0), Some(20.0), "t")];
        let start = Options::from([("t".into(), json!(0.0))]);
        let whole = Eightfold::default();
        let space = Space::new(&specs, &[]).unwrap();
        let fit = fit(&whole, &space, &start, 100).unwrap();
        let t = fit.options["t"].as_f64().unwrap();
        assert!((t - 3.0).abs() < 0.1, "t = {t}");
        // −4 u² falls 1.920729 at |u| = 0.692946.
        let [lo, hi] = fit.fitted[0].ci95.unwrap();
        assert!((lo - 2.307).abs() < 0.03 && (hi - 3.693).abs() < 0.03, "[{lo}, {hi}]");
        assert_eq!(fit.evaluations, whole.whole.into_inner(), "each point replayed once");
        assert!(
            fit.by_phase[&Phase::Part] >= 10,
            "the range searched on the part: {:?}",
            fit.by_phase
        );
        assert!(fit.evaluations <= 10, "{:?}", fit.by_phase);
        // Within the bounds a fit is admitted under.
        assert!(fit.by_phase[&Phase::Part] as u64 <= space.max_part_replays(100));
        assert!(fit.evaluations as u64 <= space.max_replays(100));
    }

    /// The parabola of [`Parabola`] along `t` with a replay's estimation noise: a jitter of up
    /// to ±0.03 that changes with every value of `t` (as a δ-Nash replay's, whose estimates
    /// stop after a number of draws that changes with the option), each replay counted.
    #[derive(Default)]
    struct Jittery(RefCell<usize>);
    impl Objective for Jittery {
        fn log_likelihood(&self, o: &Options) -> Result<f64, ErrorInfo> {
            *self.0.borrow_mut() += 1;
            let t = o["t"].as_f64().unwrap();
            Ok(-(t - 3.0).powi(2) / 2.0 + jitter(t))
        }
    }

    /// Near the top the jitter outweighs the fall, so the curvature from the search's last
    /// points is far off; the edges are still found, and the search for them does not chase
    /// the jitter once a bracket is a tenth as wide as the distance it has measured.
    #[test]
    fn a_jittery_likelihood_gets_its_edges_from_few_replays() {
        let specs = vec![OptionSpec::float("t", 0.0, Some(0.0), Some(20.0), "t")];
        let start = Options::from([("t".into(), json!(0.0))]);
        let jittery = Jittery::default();
        let fit = fit(&jittery, &Space::new(&specs, &[]).unwrap(), &start, 100).unwrap();
        let [lo, hi] = fit.fitted[0].ci95.unwrap();
        assert!((lo - 1.04).abs() < 0.1 && (hi - 4.96).abs() < 0.1, "[{lo}, {hi}]");
        let beyond: usize =
            fit.by_phase.iter().filter(|(p, _)| **p != Phase::Optimum).map(|(_, n)| n).sum();
        assert!(beyond <= 8, "{:?}", fit.by_phase);
    }
}
