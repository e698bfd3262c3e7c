//! `yomi fit` (README, "Fitting a bot to records"): the bot options under which a record set is
//! most likely. Discrete options (booleans, choices, small integer ranges) are enumerated; for
//! each combination the continuous ones are found by `argmin` (Brent's method for one option,
//! Nelder–Mead for several), each value clamped to its declared bounds. The objective is the records' total log-likelihood, scored exactly as
//! `yomi humanlike` scores it ([`score_bot`], the same floor).
//!
//! Each fitted continuous option gets a 95 % likelihood-ratio interval: the values where the
//! total log-likelihood falls 1.92 (χ²₁ at 0.95, halved) below the fit, the other options held at
//! their fitted values (the profile interval when one option is fitted).

use std::cell::RefCell;
use std::sync::Arc;

use argmin::core::{CostFunction, Error, Executor, State};
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

    /// Every combination of discrete values, as option sets.
    /// Most replays [`fit`] asks for with `iterations`: per combination of discrete options, the
    /// optimiser's first points and at most as many new points per iteration as Nelder–Mead's
    /// shrink (one per continuous option, and one) or Brent's step; per continuous option, the
    /// two neighbours of its curvature and, for each side of its interval, the doubling of a
    /// step (at most [`MAX_DOUBLINGS`]) and Brent's root finding. The fit stops with
    /// `limit_exceeded` rather than pass it.
    pub fn max_replays(&self, iterations: u64) -> u64 {
        let c = self.continuous.len() as u64;
        let combinations = self.each_discrete().len() as u64;
        let per_combination = (iterations + 1).saturating_mul(c + 2);
        let per_interval = 2 + 2 * (MAX_DOUBLINGS + iterations + 2);
        combinations.saturating_mul(per_combination).saturating_add(c * per_interval)
    }

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
}

/// The objective of a bot on some plays: each set of options resolved by `make` and replayed.
pub struct Replay<'a> {
    pub runtime: &'a tokio::runtime::Handle,
    pub make: &'a dyn Fn(&Options) -> Result<SeatPlan, ErrorInfo>,
    pub plays: &'a Arc<Prepared>,
    pub running: &'a Running,
    pub floor: f64,
    pub seed: u64,
}

impl Objective for Replay<'_> {
    fn log_likelihood(&self, options: &Options) -> Result<f64, ErrorInfo> {
        let plan = (self.make)(options)?;
        let scored =
            self.runtime.block_on(score_bot(&plan, self.plays, self.seed, self.running))?;
        Ok(total_log_likelihood(&scored, self.floor))
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
        let ll = self.objective.log_likelihood(options)?;
        self.seen.borrow_mut().push((options.clone(), ll));
        Ok(ll)
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
    };
    let mut best: Option<(f64, Options)> = None;
    for combination in space.each_discrete() {
        let mut base = start.clone();
        base.extend(combination);
        let at = Continuous { memo: &memo, space, base: &base };
        let (ll, options) = match space.continuous.as_slice() {
            [] => (memo.log_likelihood(&base)?, base.clone()),
            [(_, lo, hi)] => {
                let line = Line { at, shift: 0.0, sign: -1.0 };
                let solver = BrentOpt::new(*lo, *hi).set_tolerance(1e-4, (hi - lo) * 1e-4);
                let run = Executor::new(line, solver)
                    .configure(|s| s.max_iters(iterations))
                    .run()
                    .map_err(|e| memo.failed(e))?;
                let x = run.state().get_best_param().copied().unwrap_or(*lo);
                let options = Continuous { memo: &memo, space, base: &base }.options(&[x]);
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
                    .with_sd_tolerance(1e-3)
                    .map_err(|e| internal(e.to_string()))?;
                let run = Executor::new(at, solver)
                    .configure(|s| s.max_iters(iterations))
                    .run()
                    .map_err(|e| memo.failed(e))?;
                let x = run.state().get_best_param().cloned().unwrap_or(x0);
                let options = Continuous { memo: &memo, space, base: &base }.options(&x);
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
        // The curvature at the fit, from its two neighbours a thousandth of the range away.
        let h = (hi - lo) / 1000.0;
        let near = |v: f64| memo.log_likelihood(&line().options(&[v.clamp(*lo, *hi)]));
        let (below, above) = (near(x - h)?, near(x + h)?);
        let curvature = (2.0 * log_likelihood - below - above) / (h * h);
        let side =
            |bound: f64| edge(line(), (x, log_likelihood), bound, target, curvature, iterations);
        let ci95 = [side(*lo)?, side(*hi)?];
        fitted.push(Fitted { name: name.clone(), value: options[name].clone(), ci95: Some(ci95) });
    }
    for (name, _) in &space.discrete {
        fitted.push(Fitted { name: name.clone(), value: options[name].clone(), ci95: None });
    }
    Ok(Fit { options, fitted, log_likelihood, evaluations: memo.calls.into_inner() })
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

/// Where, between the fit `x` and the bound `bound`, the log-likelihood along `at` falls to
/// `target`; the bound itself when it never does. The log-likelihood is close to a parabola
/// near its top, so the first guess is where the parabola of `curvature` falls to `target`;
/// the guess is doubled away from `x` until it is past the edge, and Brent's root finding
/// closes in on the edge inside that bracket, to 1 % of its distance from `x`.
fn edge(
    at: Continuous,
    (x, ll): (f64, f64),
    bound: f64,
    target: f64,
    curvature: f64,
    iterations: u64,
) -> Result<f64, ErrorInfo> {
    let memo = at.memo;
    let value = |v: f64| memo.log_likelihood(&at.options(&[v]));
    let distance = (2.0 * (ll - target) / curvature).sqrt();
    let mut step = if distance.is_finite() { distance } else { (bound - x).abs() / 10.0 };
    let mut inside = x;
    for _ in 0..MAX_DOUBLINGS {
        if (bound - x).abs() <= step {
            if value(bound)? >= target {
                return Ok(bound);
            }
            break;
        }
        let guess = x + step * (bound - x).signum();
        if value(guess)? < target {
            break;
        }
        inside = guess;
        step *= 2.0;
    }
    let outside = if (bound - x).abs() <= step { bound } else { x + step * (bound - x).signum() };
    let line = Line { at, shift: target, sign: 1.0 };
    let solver = BrentRoot::new(inside, outside, step / 100.0);
    let run = Executor::new(line, solver)
        .configure(|s| s.max_iters(iterations))
        .run()
        .map_err(|e| memo.failed(e))?;
    Ok(run.state().get_best_param().copied().unwrap_or(outside))
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
}
