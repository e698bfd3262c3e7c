//! The table-backed bots as yomi agents: `nash`, `delta-nash`, `mc` and `exploiter`. Each decision
//! reads the observation, finds the shared solved table for its rules, builds a mixed strategy
//! over the legal actions, samples from it with the agent's seeded RNG and can explain itself.

use std::sync::Arc;

use serde_json::Value;
use yomi_plugin::api::opt;
use yomi_plugin::rng::{seeded, Rng as SeededRng};
use yomi_plugin::think::{self, entropy_bits, Effort, Pace};
use yomi_plugin::typed::{self, to_json, Choice, TypedAgent};
use yomi_plugin::{AgentContext, ErrorInfo, OptionSpec, Options, Preset};

use crate::cache::Tables;
use crate::codec::{self, Seen};
use crate::engine::{Action, Actions, State};
use crate::expectation::{self, Estimate};
use crate::explain::{BiasShown, Explanation};
use crate::exploit::{best_response, grid, Opponent};
use crate::lp::{self, MAX};
use crate::mc::{self, Mc};
use crate::memo::EstimateKey;
use crate::payload::{self, Event, Observation, Step};
use crate::personality::{self, own_view, sample_index, Bias, Draws, Noise, Personality, NOISES};
use crate::rules::Rules;
use crate::service;
use crate::solver::Table;

/// Which bot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Nash,
    DeltaNash,
    Mc,
    Exploiter,
}

impl Kind {
    pub fn parse(bot: &str) -> Option<Kind> {
        Some(match bot {
            "nash" => Kind::Nash,
            "delta-nash" => Kind::DeltaNash,
            "mc" => Kind::Mc,
            "exploiter" => Kind::Exploiter,
            _ => return None,
        })
    }

    pub fn options(self) -> Vec<OptionSpec> {
        let mut options = self.own_options();
        options.push(think::option());
        options
    }

    fn own_options(self) -> Vec<OptionSpec> {
        match self {
            Kind::Nash => vec![],
            Kind::DeltaNash => personality::options(),
            Kind::Mc => mc::options(),
            Kind::Exploiter => {
                let mut o = personality::options();
                o.extend([
                    OptionSpec::float("threshold", 0.5, Some(0.0), Some(1.0), "posterior the best opponent model needs before the exploiter best-responds to it"),
                    OptionSpec::choice("model_noise", "normal-variable", &NOISES, "noise model assumed for the candidate opponents"),
                    OptionSpec::int("model_samples", 10, Some(1), Some(1000), "noisy equilibria per candidate model per observation"),
                    OptionSpec::bool("exploit", true, "false: learn the model but keep playing δ-Nash (for comparisons)"),
                ]);
                o
            }
        }
    }

    pub fn presets(self) -> Vec<Preset> {
        let uniform = Noise::UniformVariable;
        let biased = |name, description, bias| {
            leaning(name, description, Noise::NormalVariable, 0.05, Some((bias, 0.03)))
        };
        match self {
            Kind::Nash => vec![],
            Kind::DeltaNash => vec![
                leaning(
                    "human-like",
                    "the paper's recommended standard: uniform ±δ(1+4p(1−p)), δ 0.15",
                    uniform,
                    0.15,
                    None,
                ),
                leaning(
                    "strong",
                    "uniform ±δ(1+4p(1−p)) at δ 0.05, close to Nash",
                    uniform,
                    0.05,
                    None,
                ),
                leaning("weak", "uniform ±δ(1+4p(1−p)) at δ 0.2", uniform, 0.2, None),
                biased(
                    "attacker",
                    "likes attacking (the paper's table 6.1 settings)",
                    Bias::Attack,
                ),
                biased(
                    "switcher",
                    "likes switching (the paper's table 6.1 settings)",
                    Bias::Switch,
                ),
                biased(
                    "straightforward",
                    "likes effective attacks (the paper's table 6.1 settings)",
                    Bias::EffectiveAttack,
                ),
                biased(
                    "contrarian",
                    "likes ineffective attacks (the paper's table 6.1 settings)",
                    Bias::IneffectiveAttack,
                ),
            ],
            Kind::Mc => vec![
                Preset::one("greedy", "plays the best playout score", "policy", "greedy"),
                Preset::one(
                    "soft-max",
                    "samples by a soft-max of playout scores, τ 2",
                    "policy",
                    "soft-max",
                ),
            ],
            Kind::Exploiter => vec![
                Preset::one(
                    "nash-base",
                    "plays exact Nash until confident, then exploits",
                    "delta",
                    0.0,
                ),
                Preset::one("cautious", "exploits only at posterior 0.9", "threshold", 0.9),
            ],
        }
    }
}

/// A personality preset: its noise model and size, and its bias with its strength α when it has
/// one.
fn leaning(
    name: &str,
    description: &str,
    noise: Noise,
    delta: f64,
    bias: Option<(Bias, f64)>,
) -> Preset {
    let mut preset = Preset::one(name, description, "noise", noise.name());
    preset.options.insert("delta".into(), delta.into());
    if let Some((bias, alpha)) = bias {
        preset.options.insert("bias".into(), bias.name().into());
        preset.options.insert("alpha".into(), alpha.into());
    }
    preset
}

/// The exploiter's settings besides its own personality.
#[derive(Debug, Clone, Copy, PartialEq)]
struct ExploitSettings {
    threshold: f64,
    model_noise: Noise,
    model_samples: usize,
    exploit: bool,
}

/// One table-backed agent.
pub struct Player {
    kind: Kind,
    personality: Personality,
    mc: Option<Mc>,
    exploit: Option<ExploitSettings>,
    opponent: Option<Opponent>,
    rng: SeededRng,
    table: Option<(Rules, Arc<Table>)>,
    /// The side this agent played in its last decision (to tell the opponent's actions apart).
    side: Option<usize>,
    /// The solved tables, with this agent's allowance of new rule sets.
    tables: Tables,
    /// Its suggested think times.
    pace: Pace,
    /// The most work, in playouts, a policy's draws may cost beyond one decision's.
    policy_work: usize,
}

/// Battle's think-time model (README, "Think time"): a turn takes about a second, up to two
/// more when the bot's own strategy is spread over several actions and the battle is down to
/// its last Pokémon.
const THINK: think::Model = think::Model {
    base: 900.0,
    per_choice: 250.0,
    per_doubt: 700.0,
    per_stage: 600.0,
    sigma: 0.35,
};

/// The most independent draws of a randomised strategy whose mean is the bot's policy: its
/// estimate's error well under what a sampling test of a thousand decisions can see.
pub const POLICY_RUNS: usize = 5000;

/// Playouts per millisecond on the reference machine (BENCHMARKS.md, "Battle policies"): the
/// unit of a policy's work, in which a noisy equilibrium counts as 25 playouts, about its time.
const PLAYOUTS_PER_MS: u64 = 250;

/// A policy's allowance of `ms` in playouts, saturating rather than wrapping for huge values.
fn policy_work(ms: u64) -> usize {
    usize::try_from(ms.saturating_mul(PLAYOUTS_PER_MS)).unwrap_or(usize::MAX)
}

/// How far the battle has gone: 0 with every Pokémon standing, 1 when each side has one left.
fn stage(s: &State) -> f64 {
    let fainted = 6 - (s.alive(0) + s.alive(1));
    (fainted as f64 / 4.0).min(1.0)
}

/// Each replacement candidate's true value in `side`'s view.
fn replacement_values(table: &Table, s: &State, side: usize, candidates: &[Action]) -> Vec<f64> {
    candidates
        .iter()
        .map(|a| {
            let Action::Switch(k) = *a else { unreachable!("replacements are switches") };
            let v = table.value(&table.engine.replace(s, side, k));
            if side == 0 {
                v
            } else {
                1.0 - v
            }
        })
        .collect()
}

impl Player {
    pub fn new(kind: Kind, options: &Options, ctx: &AgentContext) -> Result<Player, ErrorInfo> {
        let mut p = Player {
            kind,
            personality: Personality::NASH,
            mc: None,
            exploit: None,
            opponent: None,
            rng: seeded(ctx.seed),
            table: None,
            side: None,
            tables: Tables::new(ctx),
            pace: Pace::new(ctx.seed),
            policy_work: policy_work(
                ctx.policy_ms.unwrap_or(yomi_plugin::policy::DEFAULT_ALLOWANCE_MS),
            ),
        };
        p.configure(options)?;
        Ok(p)
    }

    /// What the exploiter has learned (None for other bots).
    pub fn opponent(&self) -> Option<&Opponent> {
        self.opponent.as_ref()
    }

    /// Reads an observation once for everything a call does with it: what the seat sees, the
    /// table of its rules (this agent's own when the rules are its last ones) and its actions.
    fn position(&self, obs: &Observation) -> Result<Position, ErrorInfo> {
        let seen = codec::seen(obs)?;
        let table = match &self.table {
            Some((rules, table)) if *rules == obs.rules => table.clone(),
            _ => self.tables.table(&obs.rules)?,
        };
        let actions = codec::actions(&table.engine, &seen.state, seen.side, seen.replacing);
        let allowed = codec::named(&table.engine, seen.side, &seen.state, &actions);
        Ok(Position { seen, table, actions, allowed })
    }

    /// Whether the exploiter plays its best response now: confident enough in its opponent model.
    fn exploiting(&self) -> bool {
        match (self.exploit, &self.opponent) {
            (Some(settings), Some(opponent)) => {
                settings.exploit && opponent.observed > 0 && opponent.best().1 >= settings.threshold
            }
            _ => false,
        }
    }

    /// Whether the bot's strategy in a position draws on its RNG (noise, playouts, a predicted
    /// opponent); without, one strategy is the policy.
    fn draws(&self) -> bool {
        self.mc.is_some() || self.personality.delta > 0.0 || self.exploiting()
    }

    /// How many draws of its strategy make the bot's policy: as many as its allowance of work
    /// pays for, one more than the decision's own draw, at most [`POLICY_RUNS`], at least one.
    fn policy_runs(&self) -> usize {
        if !self.draws() {
            return 1;
        }
        let work = match (self.mc, self.exploit) {
            (Some(mc), _) => (25 * mc.playouts).max(3 * mc.replacement_playouts),
            (None, Some(settings)) => 25 * (self.personality.n + settings.model_samples),
            (None, None) => 25 * self.personality.n,
        };
        (1 + self.policy_work / work.max(1)).min(POLICY_RUNS)
    }

    /// The strategy over the decision's actions (a turn's, or a replacement's candidates) and
    /// its explanation, drawing any randomness from `rng`.
    fn strategy(
        &self,
        table: &Table,
        seen: &Seen,
        actions: &[Action],
        rng: &mut SeededRng,
    ) -> (Vec<f64>, Explanation) {
        if seen.replacing {
            self.replacement(table, &seen.state, seen.side, actions, rng)
        } else {
            self.turn(table, &seen.state, seen.side, actions, rng)
        }
    }

    /// The strategy over `actions` and its explanation, for a turn.
    fn turn(
        &self,
        table: &Table,
        s: &State,
        side: usize,
        actions: &[Action],
        rng: &mut SeededRng,
    ) -> (Vec<f64>, Explanation) {
        if let Some(mc) = self.mc {
            return mc.turn(&table.engine, s, side, rng);
        }
        let w = own_view(&table.matrix(s), side);
        let truth = lp::solve(&w);
        let mut explain = Explanation {
            true_matrix: Some((0..w.rows).map(|i| w.w[i][..w.cols].to_vec()).collect()),
            true_equilibrium: Some(truth.row[..w.rows].to_vec()),
            value: Some(truth.value),
            ..Explanation::default()
        };
        if let Some(opponent) = &self.opponent {
            explain.opponent_model = Some(opponent.model());
            explain.exploiting = Some(self.exploiting());
            if self.exploiting() {
                let q = opponent.predict(table, s, 1 - side, rng);
                let k = best_response(&w, &q);
                explain.predicted_opponent = Some(q);
                let probs = (0..w.rows).map(|i| if i == k { 1.0 } else { 0.0 }).collect();
                return (probs, explain);
            }
        }
        let mix = self.personality.mix(&table.engine, s, side, &w, actions, rng);
        explain.bias = Some(BiasShown {
            kind: self.personality.bias,
            alpha: self.personality.alpha,
            rows: mix.biased,
        });
        explain.noisy_equilibria = Some(mix.samples);
        explain.personality = Some(self.personality);
        (mix.probs, explain)
    }

    /// The strategy over the replacement candidates, and its explanation.
    fn replacement(
        &self,
        table: &Table,
        s: &State,
        side: usize,
        candidates: &[Action],
        rng: &mut SeededRng,
    ) -> (Vec<f64>, Explanation) {
        if let Some(mc) = self.mc {
            return mc.replacement(&table.engine, s, side, rng);
        }
        let values = replacement_values(table, s, side, candidates);
        let mix = self.personality.replacement_mix(&values, rng);
        let explain = Explanation {
            true_values: Some(values),
            personality: Some(self.personality),
            ..Explanation::default()
        };
        (mix.probs, explain)
    }

    /// The personality's strategy averaged over its noise ([`expectation`]): at most
    /// `max_draws` noisy equilibria (or replacement choices), from the position's own seed.
    /// The table's memo answers a position asked before with the same personality and
    /// allowance ([`crate::memo`]).
    fn noise_expectation(
        &self,
        table: &Table,
        seen: &Seen,
        actions: &[Action],
        max_draws: usize,
    ) -> Estimate {
        let key = self.estimate_key(seen, max_draws);
        table
            .estimates
            .get_or_compute(key, || self.fresh_expectation(table, seen, actions, max_draws))
    }

    /// What the estimate at `seen` depends on besides the table.
    fn estimate_key(&self, seen: &Seen, max_draws: usize) -> EstimateKey {
        EstimateKey {
            personality: self.personality.key(),
            max_draws,
            state: seen.state,
            side: seen.side as u8,
            replacing: seen.replacing,
        }
    }

    /// [`noise_expectation`](Player::noise_expectation), drawn afresh.
    fn fresh_expectation(
        &self,
        table: &Table,
        seen: &Seen,
        actions: &[Action],
        max_draws: usize,
    ) -> Estimate {
        let (s, side, p) = (&seen.state, seen.side, &self.personality);
        let seed = expectation::seed(table.index(s), side, seen.replacing);
        if seen.replacing {
            let values = replacement_values(table, s, side, actions);
            let one = |k: usize| {
                let mut x = [0.0; MAX];
                x[k] = 1.0;
                x
            };
            let classes = expectation::classes(&values);
            return expectation::estimate(&classes, max_draws, seed, |rng| {
                let e = p.replacement_noise(&values, Draws::Fast, rng);
                (
                    one(p.noisy_replacement(&values, &e, 1.0)),
                    one(p.noisy_replacement(&values, &e, -1.0)),
                )
            });
        }
        let w = own_view(&table.matrix(s), side);
        let biased = p.biased_rows(&table.engine, s, side, actions);
        let keys: Vec<_> = (0..w.rows).map(|i| (&w.w[i][..w.cols], biased[i])).collect();
        expectation::estimate(&expectation::classes(&keys), max_draws, seed, |rng| {
            let e = p.noise(&w, Draws::Fast, rng);
            (p.noisy_equilibrium(&w, &biased, &e, 1.0), p.noisy_equilibrium(&w, &biased, &e, -1.0))
        })
    }

    /// Samples the strategy over the position's own actions in matrix order (the caller's
    /// `legal` holds the same set), so a seed plays the same whatever order the caller listed.
    /// Also returns that strategy.
    fn decide(
        &mut self,
        rules: &Rules,
        position: &Position,
        explain: bool,
    ) -> (Choice<payload::Action>, Vec<f64>) {
        let Position { seen, table, actions, allowed } = position;
        if !self.table.as_ref().is_some_and(|(r, _)| r == rules) {
            self.table = Some((rules.clone(), table.clone()));
        }
        self.side = Some(seen.side);
        let mut rng = self.rng.clone();
        let (probs, mut explanation) = self.strategy(table, seen, actions.as_slice(), &mut rng);
        let k = sample_index(&probs, &mut rng);
        self.rng = rng;
        let action = allowed[k].clone();
        let effort =
            Effort { choices: probs.len(), doubt: entropy_bits(&probs), stage: stage(&seen.state) };
        let think_ms = self.pace.think_ms(&THINK, effort);
        let choice = if explain {
            explanation.strategy = Some(probs.clone());
            explanation.actions = Some(allowed.clone());
            Choice::explained(action, to_json(&explanation))
        } else {
            Choice::new(action)
        }
        .think(think_ms);
        (choice, probs)
    }

    /// The strategy [`decide`](Player::decide) samples from over a fresh seed (see
    /// [`TypedAgent::policy`]), with how many noisy draws it rests on where it is the noise's
    /// expectation.
    fn estimated_policy(&self, position: &Position) -> EstimatedPolicy {
        let Position { seen, table, actions, .. } = position;
        let runs = self.policy_runs();
        if self.mc.is_none() && !self.exploiting() && self.draws() {
            let max_draws = runs * self.personality.samples();
            let e = self.noise_expectation(table, seen, actions.as_slice(), max_draws);
            return EstimatedPolicy {
                probs: e.probs,
                noise_draws: (e.draws > 0).then_some(e.draws),
            };
        }
        let mut rng = self.rng.clone();
        let mut mean = vec![0.0; actions.as_slice().len()];
        for _ in 0..runs {
            let (probs, _) = self.strategy(table, seen, actions.as_slice(), &mut rng);
            mean.iter_mut().zip(&probs).for_each(|(m, p)| *m += p / runs as f64);
        }
        EstimatedPolicy { probs: mean, noise_draws: None }
    }

    /// Learns from the opponent's action in a resolved turn (exploiter only).
    fn learn(&mut self, event: &Value) -> Result<(), ErrorInfo> {
        let (Some(settings), Some(side), Some((_, table))) =
            (self.exploit, self.side, self.table.clone())
        else {
            return Ok(());
        };
        let event = typed::read::<Event>(event, "event")?;
        if event.kind != Step::Turn {
            return Ok(());
        }
        let Some(seat) = event.sides.iter().position(|&s| s == 1 - side) else {
            return Ok(());
        };
        let (_, before, action) = codec::decision(&table.engine, &event, seat)?;
        let opponent = self.opponent.get_or_insert_with(|| {
            Opponent::new(grid(settings.model_noise, settings.model_samples))
        });
        opponent.observe(&table, &before, 1 - side, action, settings.threshold, &mut self.rng);
        Ok(())
    }
}

/// One observation as the bot reads it: the seat's view, its rules' table, and its actions in
/// matrix order with their names.
struct Position {
    seen: Seen,
    table: Arc<Table>,
    actions: Actions,
    allowed: Vec<payload::Action>,
}

/// A policy before it is written: each allowed action's probability, and the noisy draws it
/// rests on where it is δ-Nash's expectation over the noise (None where it is exact or drawn
/// from the decision's own RNG state, which holds the decision's draw already).
struct EstimatedPolicy {
    probs: Vec<f64>,
    noise_draws: Option<usize>,
}

impl TypedAgent for Player {
    type Observation = Observation;

    fn act(
        &mut self,
        obs: &Observation,
        _legal: Vec<payload::Action>,
        explain: bool,
    ) -> Result<Choice<payload::Action>, ErrorInfo> {
        let position = self.position(obs)?;
        Ok(self.decide(&obs.rules, &position, explain).0)
    }

    /// The strategy [`act`](TypedAgent::act) samples from; where that strategy itself draws on
    /// the bot's RNG, the probability of each action over a fresh seed. For δ-Nash (and the
    /// exploiter while it plays δ-Nash) that is one noisy equilibrium's expectation over the
    /// noise, estimated from antithetic pairs until its standard error is small
    /// ([`expectation`]); for Monte Carlo's playouts and the exploiter's predicted opponent,
    /// the mean of up to [`POLICY_RUNS`] independent draws of the whole strategy.
    fn policy(
        &self,
        obs: &Observation,
        _legal: &[payload::Action],
    ) -> Result<Vec<(payload::Action, f64)>, ErrorInfo> {
        let position = self.position(obs)?;
        let e = self.estimated_policy(&position);
        Ok(position.allowed.into_iter().zip(e.probs).collect())
    }

    /// The policy and the decision of one call. Where the policy is the noise's expectation,
    /// estimated from the position's own draws, the decision's n noisy equilibria are draws of
    /// that noise too and are counted in (each weighs as one draw): the policy then holds the
    /// action the decision drew however rare it is, where the position's draws alone can give
    /// a rare action 0. Where the strategy draws nothing, the decision's strategy is the policy.
    fn act_with_policy(
        &mut self,
        obs: &Observation,
        _legal: Vec<payload::Action>,
        explain: bool,
    ) -> Result<(Choice<payload::Action>, Vec<(payload::Action, f64)>), ErrorInfo> {
        let position = self.position(obs)?;
        // Estimated before the decision: Monte Carlo's draws start from the RNG state the
        // decision then advances.
        let estimate = self.draws().then(|| self.estimated_policy(&position));
        let (choice, strategy) = self.decide(&obs.rules, &position, explain);
        let probs = match estimate {
            Some(EstimatedPolicy { mut probs, noise_draws: Some(draws) }) => {
                let (d, n) = (draws as f64, self.personality.samples() as f64);
                probs.iter_mut().zip(&strategy).for_each(|(p, s)| *p = (d * *p + n * s) / (d + n));
                probs
            }
            Some(EstimatedPolicy { probs, noise_draws: None }) => probs,
            None => strategy,
        };
        Ok((choice, position.allowed.into_iter().zip(probs).collect()))
    }

    fn observe(&mut self, event: &Value) -> Result<(), ErrorInfo> {
        self.learn(event)
    }

    fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo> {
        let mut pace = self.pace.clone();
        pace.configure(options)?;
        match self.kind {
            Kind::Nash => self.personality = Personality::NASH,
            Kind::DeltaNash => self.personality = Personality::from_options(options)?,
            Kind::Mc => self.mc = Some(Mc::from_options(options)?),
            Kind::Exploiter => {
                let personality = Personality::from_options(options)?;
                let settings = ExploitSettings {
                    threshold: opt::f64(options, "threshold")?,
                    model_noise: Noise::parse(opt::str(options, "model_noise")?)?,
                    model_samples: opt::i64(options, "model_samples")?.max(1) as usize,
                    exploit: opt::bool(options, "exploit")?,
                };
                // A new model family forgets what the old one learned; a new threshold does not.
                if self.exploit.is_some_and(|old| {
                    (old.model_noise, old.model_samples)
                        != (settings.model_noise, settings.model_samples)
                }) {
                    self.opponent = None;
                }
                self.personality = personality;
                self.exploit = Some(settings);
            }
        }
        self.pace = pace;
        Ok(())
    }

    fn call(&mut self, method: &str, params: &Value) -> Result<Value, ErrorInfo> {
        match (method, &self.opponent) {
            ("opponent_model", Some(o)) => Ok(to_json(&o.model())),
            ("opponent_model", None) => Ok(Value::Null),
            _ => service::call(method, params, &mut self.tables),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use yomi_plugin::protocol::options::resolve;

    fn player(kind: Kind, overrides: Value, policy_ms: Option<u64>) -> Player {
        let overrides: Options = serde_json::from_value(overrides).unwrap();
        let options = resolve(&kind.options(), &[], None, &overrides).unwrap();
        Player::new(kind, &options, &AgentContext { seed: 1, policy_ms, ..AgentContext::default() })
            .unwrap()
    }

    /// A policy's draws are what the server's allowance pays for, counted before any is drawn:
    /// one draw (the decision's own cost) with none, more as it grows, never past the cap.
    #[test]
    fn a_policys_draws_follow_the_allowance() {
        let delta = |ms| player(Kind::DeltaNash, json!({"n": 10}), ms).policy_runs();
        assert_eq!(delta(Some(0)), 1, "no allowance: the decision's own draw");
        assert_eq!(delta(Some(1)), 2, "1 ms pays for 250 playouts, one equilibrium-mix of n = 10");
        assert_eq!(delta(Some(100)), 101);
        assert_eq!(delta(None), 2_001, "the bot's default of 2 s");
        assert_eq!(delta(Some(u64::MAX)), POLICY_RUNS, "capped, no overflow");
        let mc = |ms| player(Kind::Mc, json!({"playouts": 10_000}), ms).policy_runs();
        assert_eq!(mc(None), 3, "a costly decision gets few draws: 250,000 playouts each");
        assert_eq!(mc(Some(0)), 1);
        assert_eq!(player(Kind::Nash, json!({}), Some(u64::MAX)).policy_runs(), 1, "no randomness");
    }

    /// A position's estimate is remembered with its table: asked again, by any agent of the
    /// same personality, it is the remembered estimate, which is what drawing afresh gives;
    /// another personality gets its own.
    #[test]
    fn a_positions_estimate_is_remembered_with_its_table() {
        let rules = serde_json::to_value(Rules::preset("thesis").unwrap()).unwrap();
        let state = json!({"active": ["A", "D"], "hp": [[5, 5, 5], [5, 4, 4]], "turn": 1});
        let obs = json!({"you": 0, "phase": "choose", "rules": rules, "state": state});
        let obs: Observation = serde_json::from_value(obs).unwrap();
        let bot = player(Kind::DeltaNash, json!({"delta": 0.3}), Some(10));
        let position = bot.position(&obs).unwrap();
        let max_draws = bot.policy_runs() * bot.personality.samples();
        let (table, seen) = (&position.table, &position.seen);
        let fresh = bot.fresh_expectation(table, seen, position.actions.as_slice(), max_draws);
        assert_eq!(bot.estimated_policy(&position).probs, fresh.probs);
        let key = bot.estimate_key(seen, max_draws);
        let remembered = table.estimates.get_or_compute(key, || panic!("not remembered"));
        assert_eq!(remembered, fresh);
        let other = player(Kind::DeltaNash, json!({"delta": 0.2}), Some(10));
        assert_ne!(other.estimated_policy(&position).probs, fresh.probs, "its own estimate");
    }
}
