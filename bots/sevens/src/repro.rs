//! The experiments behind `yomi repro sevens`: series of three-player games with the subject's seat
//! rotated each game (so every seat and every start position is played equally), the finishing
//! distribution, start-of-game D totals against results, and readability across temperatures.
//!
//! The paper's "負けた" (lost) is not defined: every series reports both meanings, last place and
//! not first, beside the paper's 7/25.

use serde_json::{json, Value};
use yomi_plugin::referee::play;
use yomi_plugin::repro::Row;
use yomi_plugin::rng::derive_seed;
use yomi_plugin::{ActReply, ActRequest, Agent, AgentContext, ErrorInfo, Options, Plugin};

use crate::game::Sevens;
use crate::predictor::Predictor;
use crate::rules::Rules;
use crate::view::View;
use crate::SevensPlugin;

/// The paper's result: 7 losses in 25 games.
pub const PAPER_LOSS_RATE: f64 = 7.0 / 25.0;

/// A bot with its options, as one seat of a series.
#[derive(Debug, Clone)]
pub struct BotSpec {
    pub label: String,
    pub bot: &'static str,
    pub preset: Option<&'static str>,
    pub overrides: Value,
}

impl BotSpec {
    pub fn new(
        label: &str,
        bot: &'static str,
        preset: Option<&'static str>,
        overrides: Value,
    ) -> BotSpec {
        BotSpec { label: label.into(), bot, preset, overrides }
    }

    pub fn agent(&self, plugin: &SevensPlugin, seed: u64) -> Result<Box<dyn Agent>, ErrorInfo> {
        let overrides: Options = serde_json::from_value(self.overrides.clone()).unwrap_or_default();
        let options = plugin.bot_options(self.bot, self.preset, &overrides)?;
        plugin.new_agent(self.bot, &options, &AgentContext { seed, ..AgentContext::default() })
    }
}

/// An agent whose every decision an online predictor tries to guess first.
struct Watched {
    inner: Box<dyn Agent>,
    predictor: Predictor,
}

impl Agent for Watched {
    fn act(&mut self, request: &ActRequest) -> Result<ActReply, ErrorInfo> {
        let reply = self.inner.act(request)?;
        let view = View::parse(request)?;
        self.predictor.observe(&view, &request.legal, &reply.action);
        Ok(reply)
    }

    fn observe(&mut self, event: &Value) -> Result<(), ErrorInfo> {
        self.inner.observe(event)
    }

    fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo> {
        self.inner.configure(options)
    }
}

/// What one series measured about its subject (and, for the D analysis, about every seat).
#[derive(Debug, Default, Clone)]
pub struct Series {
    pub games: u64,
    /// Subject's finishing places: 1st, 2nd, 3rd.
    pub places: [u64; 3],
    pub scores: Vec<f64>,
    /// Games in which the subject went out on passes.
    pub went_out: u64,
    pub start_d_won: Vec<f64>,
    pub start_d_lost: Vec<f64>,
    /// (start hand D, rank) of every seat of every game.
    pub seats: Vec<(u32, usize)>,
    pub predictions: u64,
    pub hits: u64,
}

/// Plays `games` three-player games of `subject` against `opponents`, the subject moving one seat
/// on each game. Agents live through the series (the predictor and the students' memories too).
pub fn series(
    plugin: &SevensPlugin,
    subject: &BotSpec,
    opponents: [&BotSpec; 2],
    games: u64,
    seed: u64,
) -> Result<Series, ErrorInfo> {
    let mut watched = Watched {
        inner: subject.agent(plugin, derive_seed(seed, 1_000_001))?,
        predictor: Predictor::default(),
    };
    let mut opp0 = opponents[0].agent(plugin, derive_seed(seed, 1_000_002))?;
    let mut opp1 = opponents[1].agent(plugin, derive_seed(seed, 1_000_003))?;
    let mut out = Series::default();
    for g in 0..games {
        let seat = (g % 3) as usize;
        let mut game = Sevens::new(Rules::default(), derive_seed(seed, g));
        let mut agents: Vec<&mut dyn Agent> = vec![&mut watched, opp0.as_mut(), opp1.as_mut()];
        agents.rotate_right(seat);
        let played = play(&mut game, &mut agents)?;
        let ranks: Vec<usize> =
            serde_json::from_value(played.outcome.summary["ranks"].clone()).unwrap_or_default();
        let start: Vec<u32> =
            serde_json::from_value(played.outcome.summary["start_hand_d"].clone())
                .unwrap_or_default();
        let rank = ranks.get(seat).copied().unwrap_or(3);
        out.games += 1;
        out.places[rank.clamp(1, 3) - 1] += 1;
        out.scores.push(played.outcome.scores[seat]);
        out.went_out +=
            u64::from(played.outcome.summary["went_out"][seat].as_bool().unwrap_or(false));
        match rank {
            1 => out.start_d_won.push(start[seat] as f64),
            3 => out.start_d_lost.push(start[seat] as f64),
            _ => {}
        }
        out.seats.extend(start.iter().copied().zip(ranks.iter().copied()));
    }
    out.predictions = watched.predictor.predictions;
    out.hits = watched.predictor.hits;
    Ok(out)
}

/// Temperatures of the strength/readability trade-off.
pub const TEMPERATURES: [f64; 5] = [0.0, 0.5, 1.0, 2.0, 4.0];

/// The readings of the paper's words the reproduction plays besides the default, each as the
/// `dvalue` options that select it (see `bots::readings`), and the reading label of its rows:
/// those options as `key=value` joined by ", " (options not named are at their defaults).
pub const READINGS: [(&str, &str); 7] = [
    ("single_hold=always", r#"{"single_hold": "always"}"#),
    ("ak_hold=other", r#"{"ak_hold": "other"}"#),
    ("endgame_pass=blocks", r#"{"endgame_pass": "blocks"}"#),
    ("judgement=margin", r#"{"judgement": "margin"}"#),
    ("judgement=off", r#"{"judgement": "off"}"#),
    ("judgement_scope=cards", r#"{"judgement_scope": "cards"}"#),
    // Section 3 as first built: no judgement, every lone card held, the old opening bonus.
    (
        "judgement=off, single_hold=always, w_single=3",
        r#"{"judgement": "off", "single_hold": "always", "w_single": 3.0}"#,
    ),
];

/// The reading label of the default player's rows: every reading option at its default.
pub const DEFAULT_READING: &str =
    "single_hold=blocks, ak_hold=pass, endgame_pass=always, judgement=difference, judgement_scope=moves";

/// Weights of the paper §2.2 judgement played besides the default (2, rule 1's points per card).
pub const JUDGE_WEIGHTS: [f64; 3] = [0.5, 1.0, 4.0];

/// The subject's place rows of one series: 1st, 2nd, and both meanings of the paper's "lost"
/// (last place; not first), each beside the paper's 7/25.
fn place_rows(table: &str, row: &str, r: &Series) -> Vec<Row> {
    vec![
        Row::at(table, row, "1st").share(r.places[0] as f64, r.games),
        Row::at(table, row, "2nd").share(r.places[1] as f64, r.games),
        Row::at(table, row, "lost = 3rd").share(r.places[2] as f64, r.games).paper(PAPER_LOSS_RATE),
        Row::at(table, row, "lost = not 1st")
            .share((r.places[1] + r.places[2]) as f64, r.games)
            .paper(PAPER_LOSS_RATE),
        Row::at(table, row, "mean score").mean(&r.scores),
    ]
}

/// Every row of the reproduction, `games` games per series.
pub fn rows(games: u64, seed: u64, progress: &mut dyn FnMut(&str)) -> Result<Vec<Row>, ErrorInfo> {
    let plugin = SevensPlugin;
    let s = |label: &str, bot, preset| BotSpec::new(label, bot, preset, json!({}));
    let random = s("random", "random", None);
    let greedy = s("greedy", "greedy", None);
    let typical = s("student (typical)", "student", Some("typical"));
    let eager = s("student (eager)", "student", Some("eager"));
    let cautious = s("student (cautious)", "student", Some("cautious"));
    let dvalue_with =
        |label: &str, overrides: Value| BotSpec::new(label, "dvalue", None, overrides);
    let dvalue_at = |t: f64| dvalue_with(&format!("dvalue T={t}"), json!({"temperature": t}));
    let mut rows = Vec::new();
    let mut all_seats = Vec::new();
    let mut won = Vec::new();
    let mut lost = Vec::new();
    let mut k = 0u64;
    let mut run = |subject: &BotSpec, opps: [&BotSpec; 2], progress: &mut dyn FnMut(&str)| {
        k += 1;
        progress(&format!(
            "series {k}: {} vs {} + {}",
            subject.label, opps[0].label, opps[1].label
        ));
        series(&plugin, subject, opps, games, derive_seed(seed, k))
    };

    // Seed section 3: the D-value player (default reading) against each kind of opponent.
    let matchups: [(&str, [&BotSpec; 2]); 4] = [
        ("random ×2", [&random, &random]),
        ("greedy ×2", [&greedy, &greedy]),
        ("student (typical) ×2", [&typical, &typical]),
        ("student (eager) + student (cautious)", [&eager, &cautious]),
    ];
    let mut dvalue_vs_typical = None;
    for (name, opps) in matchups {
        let r = run(&dvalue_at(0.0), opps, progress)?;
        let row = format!("dvalue vs {name}");
        rows.extend(place_rows("3", &row, &r).into_iter().map(|x| x.reading(DEFAULT_READING)));
        rows.push(
            Row::at("3", &row, "went out on passes")
                .share(r.went_out as f64, r.games)
                .reading(DEFAULT_READING),
        );
        won.extend(&r.start_d_won);
        lost.extend(&r.start_d_lost);
        all_seats.extend(r.seats.iter().copied());
        if opps[0].label == typical.label && opps[1].label == typical.label {
            dvalue_vs_typical = Some(r);
        }
    }
    // The other readings of the paper's words, against random players and typical students.
    let pairs: [(&str, [&BotSpec; 2]); 2] =
        [("random ×2", [&random, &random]), ("student (typical) ×2", [&typical, &typical])];
    for (reading, overrides) in READINGS {
        let overrides: Value = serde_json::from_str(overrides).unwrap_or_default();
        let subject = dvalue_with(&format!("dvalue, {reading}"), overrides);
        for (name, opps) in pairs {
            let r = run(&subject, opps, progress)?;
            let row = format!("dvalue vs {name}");
            rows.extend(place_rows("3", &row, &r).into_iter().map(|x| x.reading(reading)));
        }
    }
    // Weight of the paper §2.2 judgement (the default 2 is in the rows above).
    for w in JUDGE_WEIGHTS {
        let subject = dvalue_with(&format!("dvalue, w_judge={w}"), json!({"w_judge": w}));
        for (name, opps) in pairs {
            let r = run(&subject, opps, progress)?;
            let row = format!("dvalue w_judge={w} vs {name}");
            rows.extend(place_rows("2.2", &row, &r));
        }
    }

    // Seed 2.2: start-of-game D totals.
    let starts: Vec<f64> = all_seats.iter().map(|(d, _)| *d as f64).collect();
    rows.push(Row::at("2.2", "start hand D, every seat", "mean").mean(&starts).paper(40.0));
    rows.push(Row::at("2.2", "dvalue start hand D", "games won (1st)").mean(&won));
    rows.push(Row::at("2.2", "dvalue start hand D", "games lost (3rd)").mean(&lost));
    for (name, below) in [("start hand D < 40", true), ("start hand D > 40", false)] {
        let group: Vec<usize> = all_seats
            .iter()
            .filter(|(d, _)| if below { *d < 40 } else { *d > 40 })
            .map(|(_, r)| *r)
            .collect();
        let n = group.len() as u64;
        rows.push(
            Row::at("2.2", &format!("every seat, {name}"), "P(1st)")
                .share(group.iter().filter(|r| **r == 1).count() as f64, n),
        );
        rows.push(
            Row::at("2.2", &format!("every seat, {name}"), "P(3rd)")
                .share(group.iter().filter(|r| **r == 3).count() as f64, n),
        );
    }

    // Seed section 4: fluctuation against readability, all against two typical students.
    let mut subjects: Vec<(BotSpec, Option<Series>)> = Vec::new();
    for t in TEMPERATURES {
        let reuse = if t == 0.0 { dvalue_vs_typical.take() } else { None };
        subjects.push((dvalue_at(t), reuse));
    }
    for b in [&typical, &greedy, &random] {
        subjects.push((b.clone(), None));
    }
    for (subject, done) in subjects {
        let r = match done {
            Some(r) => r,
            None => run(&subject, [&typical, &typical], progress)?,
        };
        let row = format!("{} vs student (typical) ×2", subject.label);
        rows.push(Row::at("4", &row, "lost = 3rd").share(r.places[2] as f64, r.games));
        rows.push(Row::at("4", &row, "mean score").mean(&r.scores));
        rows.push(Row::at("4", &row, "predictor accuracy").share(r.hits as f64, r.predictions));
    }
    Ok(rows)
}
