//! `humanlike` and `fit` as jobs the command line and the protocol's `humanlike.run` and `fit.run`
//! share: each is prepared first (records read, bot resolved, options checked), so its cost in
//! replayed decisions is known before any replay, then run into the JSON report both print.

use std::path::Path;
use std::sync::Arc;

use serde_json::{json, Value};
use yomi_protocol::ops::humans::{Fit, Humanlike, MAX_RESAMPLES};
use yomi_protocol::{ErrorCode, ErrorInfo, Options};

use super::fit as fitting;
use super::likeness::{breakdown, score_uniform, summarise, Settings};
use super::record::Record;
use super::replay::{score_bot, Prepared, Running, Scored};
use super::store;
use super::think_time;
use crate::matches::seat::{BotSeat, SeatPlan, SeatSpec};
use crate::registry::fitted as presets;
use crate::registry::Registry;

fn invalid(message: &str) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::InvalidParams, message)
}

/// The bot of `seat` resolved for `game`, with the plans of its shipped presets.
struct Bot {
    plan: SeatPlan,
    presets: Vec<(String, SeatPlan)>,
}

impl Bot {
    fn resolve(registry: &Registry, game: &str, text: &str) -> Result<Bot, ErrorInfo> {
        let seat = BotSeat::parse(text)?;
        let resolve = |seat: BotSeat| SeatPlan::resolve(registry, game, &SeatSpec::Bot(seat));
        let plan = resolve(seat.clone())?;
        let SeatPlan::Bot { bot, .. } = &plan else {
            return Err(invalid(&format!("not a bot: {text}")));
        };
        let presets = bot
            .info
            .presets
            .iter()
            .map(|preset| {
                let seat = BotSeat {
                    preset: Some(preset.name.clone()),
                    options: Default::default(),
                    ..seat.clone()
                };
                Ok((preset.name.clone(), resolve(seat)?))
            })
            .collect::<Result<_, ErrorInfo>>()?;
        Ok(Bot { plan, presets })
    }

    fn parts(&self) -> (&crate::registry::BotRef, &Options) {
        match &self.plan {
            SeatPlan::Bot { bot, options, .. } => (bot, options),
            _ => unreachable!("resolved as a bot"),
        }
    }
}

/// A `humanlike` ready to run: the bot, then each of its presets, over every recorded decision.
pub struct HumanlikeJob {
    p: Humanlike,
    records: Vec<Record>,
    bot: Bot,
}

impl HumanlikeJob {
    /// Reads record set `p.records` of `data_dir` and resolves the bot for its game.
    pub fn prepare(registry: &Registry, data_dir: &Path, p: Humanlike) -> Result<Self, ErrorInfo> {
        if !(p.floor > 0.0 && p.floor < 1.0 && (1..=MAX_RESAMPLES).contains(&p.resamples)) {
            return Err(invalid(&format!(
                "`floor` is a probability above 0 and below 1, `resamples` 1 to {MAX_RESAMPLES}"
            )));
        }
        let records = store::load(data_dir, &p.records)?;
        let bot = Bot::resolve(registry, &records[0].game, &p.bot)?;
        Ok(HumanlikeJob { p, records, bot })
    }

    /// Decisions it replays: the records once for the bot and once per preset.
    pub fn cost(&self) -> u64 {
        (self.records.len() * (1 + self.bot.presets.len())) as u64
    }

    /// The report `yomi humanlike --json` prints.
    pub async fn run(self, running: &Running) -> Result<Value, ErrorInfo> {
        let (p, plays) = (&self.p, store::plays(&self.records));
        let prepared = Prepared::new(&plays);
        let settings = Settings { floor: p.floor, resamples: p.resamples, seed: p.seed };
        let ll = |scored: &[Vec<Scored>]| summarise(scored, &|_, _| true, &settings).log_likelihood;
        let score = |plan| score_bot(plan, &prepared, p.seed, running);
        let mut models = vec![("bot".to_string(), score(&self.bot.plan).await?)];
        let timed: Vec<Vec<_>> =
            models[0].1.iter().map(|play| play.iter().filter_map(|s| s.think).collect()).collect();
        let think = think_time::summarise(&timed, settings.resamples, settings.seed);
        models.push(("uniform".to_string(), score_uniform(&plays)));
        let mut presets = serde_json::Map::new();
        let mut best: Option<(String, Vec<Vec<Scored>>)> = None;
        for (name, plan) in &self.bot.presets {
            let scored = score(plan).await?;
            presets.insert(name.clone(), json!(ll(&scored)));
            if best.as_ref().is_none_or(|(_, b)| ll(&scored) > ll(b)) {
                best = Some((name.clone(), scored));
            }
        }
        let best_name = best.as_ref().map(|(name, _)| name.clone());
        models.extend(best.map(|(_, scored)| ("best_preset".to_string(), scored)));
        let report = breakdown(&plays, &models, &settings);
        let (bot, options) = self.bot.parts();
        Ok(json!({
            "bot": bot.qualified(), "options": options, "records": p.records, "game": self.records[0].game,
            "plays": store::games(&plays), "seat_plays": plays.len(), "decisions": self.records.len(), "settings": settings,
            "best_preset": best_name, "presets_log_likelihood": presets,
            "all": report.all, "by_stage": report.by_stage, "by_kind": report.by_kind,
            "think": think,
        }))
    }
}

/// A `fit` ready to run: options fitted on four plays in five, judged on the fifth.
pub struct FitJob {
    p: Fit,
    name: String,
    records: Vec<Record>,
    train: Arc<Prepared>,
    /// The part of `train` the fit first searches ([`fitting::part`]).
    train_part: Option<Arc<Prepared>>,
    held: Arc<Prepared>,
    /// Games on each side of the hold-out: (fitted on, held out).
    games: (usize, usize),
    /// The uniform baseline's log-likelihood of the held-out plays.
    uniform_held: f64,
    bot: Bot,
    space: fitting::Space,
    registry: Arc<Registry>,
}

impl FitJob {
    /// Reads record set `p.records` of `data_dir`, resolves the bot and the options to fit.
    pub fn prepare(registry: Arc<Registry>, data_dir: &Path, p: Fit) -> Result<Self, ErrorInfo> {
        if !(p.floor > 0.0 && p.floor < 1.0) || p.iterations == 0 {
            return Err(invalid(
                "`floor` is a probability above 0 and below 1, `iterations` at least 1",
            ));
        }
        let name = p.preset.clone().unwrap_or_else(|| p.records.clone());
        store::check_file_name(&name, "a preset's name")?;
        let records = store::load(data_dir, &p.records)?;
        let plays = store::plays(&records);
        let (train, held) = store::hold_out_fifth(&plays);
        if held.is_empty() {
            return Err(invalid(&format!(
                "`{}` has {} plays: at least 5 are needed (one in five is held out)",
                p.records,
                store::games(&plays)
            )));
        }
        let bot = Bot::resolve(&registry, &records[0].game, &p.bot)?;
        let space = fitting::Space::new(&bot.parts().0.info.options, &p.fit)?;
        let games = (store::games(&train), store::games(&held));
        let uniform_held = fitting::total_log_likelihood(&score_uniform(&held), p.floor);
        let (train, held) = (Prepared::new(&train), Prepared::new(&held));
        let train_part = fitting::part(&train);
        Ok(FitJob {
            p,
            name,
            records,
            train,
            train_part,
            held,
            games,
            uniform_held,
            bot,
            space,
            registry,
        })
    }

    /// Most decisions it replays: the fit's bound on its replays of the fitting plays and of
    /// their part, then the held-out plays once for the fit and once per preset.
    pub fn cost(&self) -> u64 {
        let fit = self.space.max_replays(self.p.iterations);
        let held = 1 + self.bot.presets.len() as u64;
        let part = self.train_part.as_ref().map_or(0, |p| p.decisions() as u64);
        (self.train.decisions() as u64)
            .saturating_mul(fit)
            .saturating_add(part.saturating_mul(self.space.max_part_replays(self.p.iterations)))
            .saturating_add(self.held.decisions() as u64 * held)
    }

    /// Decisions in the plays the fit replays (four in five of the records' plays).
    pub fn fitting_decisions(&self) -> u64 {
        self.train.decisions() as u64
    }

    /// Fits, writes the preset into `data_dir` and gives the report `yomi fit --json` prints.
    /// Blocks: the optimiser asks for each replay on `runtime` in turn.
    pub fn run(
        self,
        data_dir: &Path,
        runtime: &tokio::runtime::Handle,
        running: &Running,
    ) -> Result<Value, ErrorInfo> {
        let p = &self.p;
        let game = &self.records[0].game;
        let (bot, start) = self.bot.parts();
        let seat = BotSeat::parse(&p.bot)?;
        let make = |options: &Options| {
            let seat = BotSeat { options: options.clone(), preset: None, ..seat.clone() };
            SeatPlan::resolve(&self.registry, game, &SeatSpec::Bot(seat))
        };
        let objective = |plays: &Arc<Prepared>, part: &Option<Arc<Prepared>>| fitting::Replay {
            runtime,
            make: &make,
            plays: plays.clone(),
            part: part.clone(),
            running,
            floor: p.floor,
            seed: p.seed,
        };
        let clock = std::time::Instant::now();
        let train = objective(&self.train, &self.train_part);
        let result = fitting::fit(&train, &self.space, start, p.iterations)?;
        let seconds = clock.elapsed().as_secs_f64();
        let per_decision = |ll: f64| ll / self.held.decisions().max(1) as f64;
        let held_ll = |o: &Options| {
            Ok::<_, ErrorInfo>(per_decision(fitting::Objective::log_likelihood(
                &objective(&self.held, &None),
                o,
            )?))
        };
        let uniform = per_decision(self.uniform_held);
        let mut presets = serde_json::Map::new();
        for (preset, plan) in &self.bot.presets {
            let SeatPlan::Bot { options, .. } = plan else { continue };
            presets.insert(preset.clone(), json!(held_ll(options)?));
        }
        let fitted_ll = held_ll(&result.options)?;
        let description = format!(
            "records `{}` ({} decisions), {:.3} log-likelihood per held-out decision",
            p.records,
            self.records.len(),
            fitted_ll
        );
        let path =
            presets::write(data_dir, &bot.qualified(), &self.name, &description, &result.options)?;
        Ok(json!({
            "bot": bot.qualified(), "records": p.records, "game": game, "preset": self.name,
            "file": path.display().to_string(), "plays": {"fit": self.games.0, "held_out": self.games.1},
            "fitted": result.fitted, "options": result.options,
            "interval": "likelihood ratio (χ²₁, 95 %), other options at their fit",
            "fit_log_likelihood": result.log_likelihood, "evaluations": result.evaluations,
            "evaluations_by_phase": result.by_phase,
            "seconds": seconds,
            "held_out_log_likelihood": {"fitted": fitted_ll, "uniform": uniform, "presets": presets},
        }))
    }
}
