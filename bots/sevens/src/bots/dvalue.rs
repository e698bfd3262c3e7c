//! `dvalue`: the paper's section-3 player, every rule of it, as additive scores over the legal moves.
//!
//! Situation (paper §2.2), recomputed every turn from the observation:
//! - board D total `B` (120 at the start) and own hand D total `H`;
//! - **ahead** when `H <= B / p`, `p` the players still holding cards (the paper's "one third" for 3);
//! - **phase** from `B`: opening while `B > opening_above` (default 80: less than a third of the
//!   game's 120 distance covered), endgame once `B <= endgame_at_most` (default 40: two thirds
//!   covered), middle game between;
//! - passes: own passes left against the most any opponent still playing has left.
//!
//! Rules (the paper's section 3) and their default scores (each weight is an option `w_*`; 0 switches a
//! rule off; where the words allow several readings the option is named in brackets, see
//! [`super::readings`]); the move with the highest total is played:
//! 1. cards behind which you hold your own cards further out: +2 per such card;
//! 2. cards you hold in consecutive runs: +1 per own card continuing the run outward;
//! 3. more passes left than every opponent: hold A/K, −12, so with only A/K playable the player
//!    passes (`ak_hold`: `pass`; `other` holds it only behind another playable card);
//! 4. prefer anything but A/K: −4 on A/K when another card is playable;
//! 5. exactly one playable card, 2+ passes left and `H <= B / p`: opening, play it (+8, enough to
//!    outweigh rule 3's hold: the rule names the opening for playing); middle game or later, hold it
//!    (the pass gets +10) when holding stops an opponent's card (`single_hold`: `blocks`; `always`
//!    holds an A/K or a card with only own cards beyond too);
//! 6. ahead, play far from 7 (+0.25 per step); behind, near 7 (−0.25 per step);
//! 7. endgame with more passes left than every opponent: pass (+10) (`endgame_pass`: `always`;
//!    `blocks` passes only when every playable card stops an opponent's card).
//!
//! Seed 2.2's move judgement ranks the playable cards: a move that lowers the own hand D total a
//! lot and the board's little is good, one that lowers only the board's is bad. Default
//! (`judgement`: `difference`): 2 × (hand drop − board drop), i.e. −2 per step the card brings the
//! others' cards closer, the same 2 points per card as rule 1 (`margin`: hand drop − board drop /
//! players in; `off`), counted from the pass, which lowers neither total, so a card bad enough is
//! held (`judgement_scope`: `moves`; `cards` counts from the best playable card's value, so that
//! it only orders the cards and leaves the pass decisions to rules 3, 5 and 7).
//!
//! A pass starts at −6 (played only when a rule asks for it or nothing else is legal) and a pass
//! that would put the player out at −100. `temperature` > 0 samples a move with probability
//! ∝ exp(score / temperature): the paper's own criticism was that its player had no fluctuation
//! ("揺らぎ") and people read it; sampling keeps every habit's preference ordering but not its
//! certainty.

use std::collections::BTreeMap;

use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use yomi_plugin::api::opt;
use yomi_plugin::rng::Rng as SeededRng;
use yomi_plugin::think::{self, Pace};
use yomi_plugin::typed::{self, Choice, TypedAgent};
use yomi_plugin::{ActRequest, ErrorCode, ErrorInfo, OptionSpec, Options};

use super::readings::{
    self, AkHold, EndgamePass, JudgementScope, MoveJudgement, Readings, SingleHold,
};
use super::{choose, effort, policy, probabilities, Move, Scored, THINK};
use crate::dvalue::{self, Judgement};
use crate::payload::Observation;
use crate::view::View;

/// Game phase by the board D total.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Opening,
    Middle,
    Endgame,
}

/// Phase thresholds on the board D total (paper: "defined by the D totals"; these are our choice).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Phases {
    pub opening_above: u32,
    pub endgame_at_most: u32,
}

impl Default for Phases {
    fn default() -> Phases {
        Phases { opening_above: 80, endgame_at_most: 40 }
    }
}

impl Phases {
    pub fn of(self, board_d: u32) -> Phase {
        if board_d > self.opening_above {
            Phase::Opening
        } else if board_d > self.endgame_at_most {
            Phase::Middle
        } else {
            Phase::Endgame
        }
    }
}

pub fn options() -> Vec<OptionSpec> {
    vec![
        OptionSpec::float("temperature", 0.0, Some(0.0), Some(20.0), "0: always the best-scored move (the paper's player); above 0: softmax over the rule scores"),
        OptionSpec::int("opening_above", 80, Some(0), Some(120), "the opening lasts while the board D total is above this"),
        OptionSpec::int("endgame_at_most", 40, Some(0), Some(120), "the endgame starts once the board D total is at most this"),
        OptionSpec::float("w_outside", 2.0, Some(-20.0), Some(20.0), "rule 1: points per own card further out"),
        OptionSpec::float("w_run", 1.0, Some(-20.0), Some(20.0), "rule 2: points per own card continuing the run"),
        OptionSpec::float("w_hold_ak", 12.0, Some(0.0), Some(50.0), "rule 3: penalty on A/K with more passes than the opponents"),
        OptionSpec::float("w_prefer_non_ak", 4.0, Some(-50.0), Some(50.0), "rule 4: penalty on A/K when another card is playable"),
        OptionSpec::float("w_single", 8.0, Some(0.0), Some(50.0), "rule 5, opening: bonus for playing the single playable card"),
        OptionSpec::float("w_distance", 0.25, Some(-5.0), Some(5.0), "rule 6: points per step from 7 (ahead: far, behind: near)"),
        OptionSpec::float("w_hold_pass", 10.0, Some(0.0), Some(50.0), "rules 5 and 7: bonus for passing (holding)"),
        OptionSpec::float("w_judge", 2.0, Some(0.0), Some(20.0), "paper §2.2: points per step of the move judgement (see `judgement`)"),
    ]
    .into_iter()
    .chain(readings::options())
    .chain([think::option()])
    .collect()
}

/// The rules' weights (defaults as in the module documentation; 0 switches a rule off).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    pub outside: f64,
    pub run: f64,
    pub hold_ak: f64,
    pub prefer_non_ak: f64,
    pub single: f64,
    pub distance: f64,
    pub hold_pass: f64,
    pub judge: f64,
}

impl Default for Weights {
    fn default() -> Weights {
        Weights {
            outside: 2.0,
            run: 1.0,
            hold_ak: 12.0,
            prefer_non_ak: 4.0,
            single: 8.0,
            distance: 0.25,
            hold_pass: 10.0,
            judge: 2.0,
        }
    }
}

impl Weights {
    fn from_options(options: &Options) -> Result<Weights, ErrorInfo> {
        Ok(Weights {
            outside: opt::f64(options, "w_outside")?,
            run: opt::f64(options, "w_run")?,
            hold_ak: opt::f64(options, "w_hold_ak")?,
            prefer_non_ak: opt::f64(options, "w_prefer_non_ak")?,
            single: opt::f64(options, "w_single")?,
            distance: opt::f64(options, "w_distance")?,
            hold_pass: opt::f64(options, "w_hold_pass")?,
            judge: opt::f64(options, "w_judge")?,
        })
    }
}

/// Everything that shapes the player's choice besides the temperature.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Config {
    pub phases: Phases,
    pub weights: Weights,
    pub readings: Readings,
}

/// Seed 2.2's judgement of playing each legal card, in points before its weight. Scope `cards`
/// measures it from the best card's (so the best gets 0): it ranks the playable cards and never
/// makes a pass look better than the best card. Scope `moves` measures it from the pass's (0).
fn judgement_points(view: &View, reading: MoveJudgement, scope: JudgementScope) -> Vec<f64> {
    let players = view.players_in().max(1) as f64;
    let raw: Vec<f64> = view
        .cards
        .iter()
        .map(|&card| {
            let e = dvalue::move_effect(view.table, view.hand, card);
            let (hand, board) = (e.hand_drop as f64, e.board_drop as f64);
            match reading {
                MoveJudgement::Difference => hand - board,
                MoveJudgement::Margin => hand - board / players,
                MoveJudgement::Off => 0.0,
            }
        })
        .collect();
    let base = match scope {
        JudgementScope::Cards => raw.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        JudgementScope::Moves => 0.0,
    };
    raw.iter().map(|p| p - base).collect()
}

/// Scores every legal move of `view` by the seven rules and the move judgement.
pub fn score(view: &View, config: &Config) -> (Vec<Scored>, Judgement, Phase) {
    let (w, r) = (&config.weights, &config.readings);
    let j = view.judge();
    let phase = config.phases.of(j.board_d);
    let more_passes = view.my_passes() > view.opponents_passes();
    let non_ak = view.cards.iter().any(|c| c.distance() < 6);
    let single = view.cards.len() == 1 && view.my_passes() >= 2 && j.ahead;
    let judged = judgement_points(view, r.judgement, r.judgement_scope);
    let mut out: Vec<Scored> = view
        .cards
        .iter()
        .zip(judged)
        .map(|(&card, judged)| {
            let mut s = Scored::new(Move::Play(card));
            let beyond = view.own_beyond(card);
            if beyond > 0 {
                s.add(w.outside * beyond as f64, "1: own cards further out");
            }
            let run = view.own_run(card);
            if run > 0 {
                s.add(w.run * run as f64, "2: consecutive own cards");
            }
            if card.distance() == 6 {
                if more_passes && (r.ak_hold == AkHold::Pass || non_ak) {
                    s.add(-w.hold_ak, "3: more passes than opponents, hold A/K");
                }
                if non_ak {
                    s.add(-w.prefer_non_ak, "4: prefer a card other than A/K");
                }
            }
            if single && phase == Phase::Opening {
                s.add(w.single, "5: single playable card, opening: play it");
            }
            let step = w.distance * card.distance() as f64;
            if j.ahead {
                s.add(step, "6: ahead, far from 7");
            } else {
                s.add(-step, "6: behind, near 7");
            }
            if judged != 0.0 {
                s.add(w.judge * judged, "2.2: own hand D down against board D down");
            }
            s
        })
        .collect();
    if view.can_pass {
        let mut s = Scored::new(Move::Pass);
        if view.my_passes() == 0 && !view.cards.is_empty() {
            s.add(-100.0, "a pass now puts me out");
        } else {
            s.add(-6.0, "pass only when a rule asks");
            let holds_single = single
                && phase != Phase::Opening
                && (r.single_hold == SingleHold::Always || view.blocks(view.cards[0]));
            if holds_single {
                s.add(w.hold_pass, "5: single playable card, middle game on: hold it");
            }
            let all_block = view.cards.iter().all(|&c| view.blocks(c));
            if phase == Phase::Endgame
                && more_passes
                && (r.endgame_pass == EndgamePass::Always || all_block)
            {
                s.add(w.hold_pass, "7: endgame, more passes than opponents: pass");
            }
        }
        out.push(s);
    }
    (out, j, phase)
}

/// The `assess` service's answer and the `explain` object: the D values of the hand, the
/// judgement, and every legal move scored (in `explain`, with its probability and the
/// temperature it was drawn at).
#[derive(Debug, Serialize)]
pub struct Assessment {
    /// Each card of the hand's D value (null once on the table).
    pub card_d: BTreeMap<String, Option<u32>>,
    pub hand_d: u32,
    pub board_d: u32,
    pub share: f64,
    pub ahead: bool,
    pub phase: Phase,
    pub passes_left: u32,
    pub opponents_passes_left: u32,
    pub moves: Vec<Weighed>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
}

/// A scored move, with the probability the bot plays it when it explains a decision.
#[derive(Debug, Serialize)]
pub struct Weighed {
    #[serde(flatten)]
    pub scored: Scored,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probability: Option<f64>,
}

/// The assessment of `view` with its scored moves, judged as `j` in `phase`.
pub fn assessment(view: &View, j: &Judgement, phase: Phase, moves: Vec<Weighed>) -> Assessment {
    Assessment {
        card_d: view.hand.iter().map(|c| (c.to_string(), dvalue::card_d(view.table, c))).collect(),
        hand_d: j.hand_d,
        board_d: j.board_d,
        share: j.share,
        ahead: j.ahead,
        phase,
        passes_left: view.my_passes(),
        opponents_passes_left: view.opponents_passes(),
        moves,
        temperature: None,
    }
}

/// `assess`'s parameters: a decision as `agent.act` takes it.
#[derive(Deserialize)]
struct Assess {
    observation: Value,
    #[serde(default)]
    legal: Vec<Value>,
}

/// The D-value player.
pub struct DValueBot {
    temperature: f64,
    config: Config,
    rng: SeededRng,
    pace: Pace,
}

impl DValueBot {
    pub fn new(options: &Options, seed: u64) -> Result<DValueBot, ErrorInfo> {
        let mut bot = DValueBot {
            temperature: 0.0,
            config: Config::default(),
            rng: SeededRng::seed_from_u64(seed),
            pace: Pace::new(seed),
        };
        bot.configure(options)?;
        Ok(bot)
    }
}

impl TypedAgent for DValueBot {
    type Observation = Observation;

    fn act(
        &mut self,
        observation: &Observation,
        legal: Vec<Move>,
        explain: bool,
    ) -> Result<Choice<Move>, ErrorInfo> {
        let view = View::new(observation, &legal);
        let (scored, j, phase) = score(&view, &self.config);
        let i = choose(&scored, self.temperature, &mut self.rng);
        let action = scored[i].mv;
        let think_ms = self.pace.think_ms(&THINK, effort(&scored, self.temperature, phase));
        if !explain {
            return Ok(Choice::new(action).think(think_ms));
        }
        let probs = probabilities(&scored, self.temperature);
        let moves = scored
            .into_iter()
            .zip(probs)
            .map(|(scored, p)| Weighed { scored, probability: Some(p) })
            .collect();
        let mut explain = assessment(&view, &j, phase, moves);
        explain.temperature = Some(self.temperature);
        Ok(Choice::explained(action, typed::to_json(&explain)).think(think_ms))
    }

    /// The softmax of the rule scores at the bot's temperature (the first best move for sure at
    /// temperature 0), which [`choose`] draws from.
    fn policy(
        &self,
        observation: &Observation,
        legal: &[Move],
    ) -> Result<Vec<(Move, f64)>, ErrorInfo> {
        let view = View::new(observation, legal);
        Ok(policy(&score(&view, &self.config).0, self.temperature))
    }

    fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo> {
        let phases = Phases {
            opening_above: opt::i64(options, "opening_above")? as u32,
            endgame_at_most: opt::i64(options, "endgame_at_most")? as u32,
        };
        if phases.endgame_at_most > phases.opening_above {
            return Err(ErrorInfo::new(
                ErrorCode::InvalidOption,
                format!(
                    "endgame_at_most ({}) must not exceed opening_above ({})",
                    phases.endgame_at_most, phases.opening_above
                ),
            ));
        }
        self.pace.configure(options)?;
        self.temperature = opt::f64(options, "temperature")?;
        self.config = Config {
            phases,
            weights: Weights::from_options(options)?,
            readings: Readings::from_options(options)?,
        };
        Ok(())
    }

    fn call(&mut self, method: &str, params: &Value) -> Result<Value, ErrorInfo> {
        match method {
            "assess" => {
                let Assess { observation, legal } = typed::read(params, "params")?;
                let view = View::parse(&ActRequest::new(observation, legal))?;
                let (scored, j, phase) = score(&view, &self.config);
                let moves = scored
                    .into_iter()
                    .map(|scored| Weighed { scored, probability: None })
                    .collect();
                Ok(typed::to_json(&assessment(&view, &j, phase, moves)))
            }
            _ => Err(ErrorInfo::new(
                ErrorCode::UnknownMethod,
                format!("dvalue has no method `{method}` (known: assess)"),
            )),
        }
    }
}
