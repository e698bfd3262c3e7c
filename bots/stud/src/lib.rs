//! Seven-card stud as paper 004 (Takahashi 2004) plays it, and its fuzzy bluffing player.
//!
//! - [`cards`], [`hand`]: cards, deals, deal files; the evaluator, tie rules and scores;
//! - [`engine`]: one game's betting rules; [`game`]: the referee (a session with chips);
//! - [`payload`]: the observation, action and event every bot reads; [`view`]: how bots read
//!   observations; [`baseline`]: the `random` and `calling-station` bots;
//! - [`fuzzy`], [`estimate`], [`learning`], [`player`]: the paper's fuzzy bluffing player and its
//!   model opponents; [`classify`]: the automatic style classifier;
//! - [`cli`]: `yomi stud eval | compare | deals | repro`.

pub mod allowance;
pub mod baseline;
pub mod bluff;
pub mod cards;
pub mod classify;
pub mod cli;
pub mod engine;
pub mod estimate;
pub mod fuzzy;
pub mod game;
pub mod hand;
pub mod learning;
pub mod openings;
pub mod payload;
pub mod plan;
pub mod player;
pub mod repro;
pub mod view;

use serde_json::json;
use yomi_plugin::declare::{BotEntry, Declaration, GameEntry};
use yomi_plugin::protocol::manifest::MethodInfo;
use yomi_plugin::{OptionSpec, Preset};

use crate::hand::TieRule;

/// The plugin value the host talks to.
#[derive(Default)]
pub struct StudPlugin;

yomi_plugin::declare_plugin!(StudPlugin, declaration);

/// The `stud` game's options.
pub fn game_options() -> Vec<OptionSpec> {
    vec![
        OptionSpec::int("games", 1, Some(1), Some(1_000_000), "games in the session"),
        OptionSpec::int("first_seat", 0, Some(0), Some(1), "the seat that acts first in every interval of every game"),
        OptionSpec::int("start_chips", game::START_CHIPS, Some(1), None, "chips each seat starts with"),
        OptionSpec::choice("mode", "simulation", &["simulation", "play"], "simulation: holdings may go negative; play: the session ends after a game that leaves a seat below zero"),
        OptionSpec::json("deals", json!(""), "the deals to play in order, cycling: a list of at most 10000 deals `7 cards of the first actor | 7 of the second`, or one string of deal-file lines; empty (the default \"\" or []): seeded deals"),
        OptionSpec::choice("tie_rule", "hand-cards-only", &TieRule::NAMES, "how equal categories are compared"),
        OptionSpec::bool("wheel", true, "A-2-3-4-5 is a five-high straight"),
        OptionSpec::bool("disclose", false, "show both hands after a game ended by a drop (the paper's simulated system learned from the true deal)"),
    ]
}

/// The fuzzy player's options; `model` gives a model opponent's defaults (spec §5.2): no bluff,
/// its drop and bet style, random reveal.
pub fn player_options(model: Option<(&str, &str)>) -> Vec<OptionSpec> {
    let (drop, bet) = model.unwrap_or(("base", "aggressive"));
    vec![
        OptionSpec::bool("bluff", model.is_none(), "bluff in both directions (off: the paper's reference-[8] system)"),
        OptionSpec::choice("drop_style", drop, &["base", "tight", "loose"], "base: fuzzy drop in turns 1-4, potential check from 5; tight: always drop when inferior from turn 5; loose: fuzzy drop in turns 1-4, from 5 as loose_late says"),
        OptionSpec::choice("bet_style", bet, &["aggressive", "passive"], "passive caps the upper bet limit at passive_cap of the pot limit"),
        OptionSpec::float("passive_cap", 0.7, Some(0.0), Some(1.0), "the passive upper-limit factor"),
        OptionSpec::choice("reveal", if model.is_some() { "random" } else { "bluff" }, &["bluff", "random", "strong-first", "weak-first"], "which hole card to turn up: bluff = Fig. 3.8; the others are the model strategies (by potential)"),
        OptionSpec::float("potential_margin", 1.3, Some(0.0), Some(9.0), "how much stronger the shown hand must look than it is to bluff (text 1.3, Fig. 3.8 prints 1.5)"),
        OptionSpec::float("slowplay_weakest", 0.8, Some(0.0), Some(1.0), "slow play: probability of showing the weakest-looking card (else the second weakest)"),
        OptionSpec::float("noise_variance", 0.1, Some(0.0), Some(10.0), "variance of the normal noise of the bet parameter a (3.7)"),
        OptionSpec::choice("score_mode", "rank-refined", &["rank-refined", "category-only"], "hand score: category + rank fractions (fits the records) or the integer category"),
        OptionSpec::bool("wheel", true, "A-2-3-4-5 is a straight in the player's evaluation"),
        OptionSpec::bool("learning", true, "modify the tendency values after each game whose hands are shown"),
        OptionSpec::float("tendency_init", 50.0, Some(0.0), Some(100.0), "initial tendency value of the 18 rules"),
        OptionSpec::int("history", 5, Some(1), Some(1000), "past modification amounts averaged by the change rule"),
        OptionSpec::float("drop_scale", 1.0, Some(0.0), Some(1.0), "multiplies the fuzzy drop intention (sensitivity to the reconstructed Fig. 3.7 sets; 1 = as reconstructed)"),
        OptionSpec::choice("loose_late", "table", &["table", "middle", "continue"], "a loose player inferior from turn 5: table = the §3.3.1 drop table, End column included (§4.2.1: the fuzzy result and a random number only); middle = the same table with the turn held at 4; continue = no drop on judgement (§3.3.2 has no fuzzy inference of its own)"),
        OptionSpec::choice("drop_check", "interval", &["interval", "action"], "the drop judgement runs once per betting interval (「以上の一連の意思決定をベッティングインターバルごとに行う」; facing a raise later in it, it calls), or at every action, facing a raise included"),
        OptionSpec::choice("drop_sets", "shape", &["shape", "words", "even"], "Fig. 3.7 drop-intention sets: shape = equal-width sets placed so the computed intention follows §3.3.1's sentences (near 0 early, small and rising with the bet in the middle, strong at the end); words = ZO near 0, PS1/PS2 small but PS2 wide (the previous default); even = five evenly spaced triangles"),
        OptionSpec::choice("bluff_score", "category", &bluff::BluffScore::NAMES, "the scores the bluff condition compares (potential at least potential_margin above the actual hand): refined = both rank-refined; category = both the 0-9 category score; hand-category = the actual hand as its category, the potential refined"),
        OptionSpec::choice("bluff_late", "check", &["check", "carry"], "bluff mode at turns 6-7: check = the condition afresh at each reveal and interval; carry = kept once entered at turn 5"),
        OptionSpec::choice("passive_limit", "rescale", &["rescale", "cap"], "passive bets: rescale = (3.6) with upper replaced by passive_cap x upper; cap = (3.6) as it is, capped at passive_cap x upper"),
        OptionSpec::bool("adapt", false, "adapt the bluff margin to the classified opponent style (x0.75 against tight, x1.5 against loose)"),
        yomi_plugin::think::option(),
    ]
}

/// The model opponents: name, description, drop style, bet style.
pub const MODELS: [(&str, &str, &str, &str); 4] = [
    ("ta", "tight-aggressive model system", "tight", "aggressive"),
    ("tp", "tight-passive model system", "tight", "passive"),
    ("la", "loose-aggressive model system", "loose", "aggressive"),
    ("lp", "loose-passive model system", "loose", "passive"),
];

/// The fuzzy player, or one of the model opponents when `model` gives its drop and bet styles.
fn player_bot(name: &str, description: &str, model: Option<(&str, &str)>) -> BotEntry {
    let reveal_presets = ["random", "strong-first", "weak-first"]
        .iter()
        .map(|r| Preset::new(r, &format!("reveals {r}"), json!({"reveal": r})))
        .collect();
    let presets = if model.is_some() {
        reveal_presets
    } else {
        vec![
            Preset::new(
                "no-bluff",
                "the paper's reference-[8] system: no bluffing",
                json!({"bluff": false}),
            ),
            Preset::new(
                "adaptive",
                "adapts its bluffing to the detected style",
                json!({"adapt": true}),
            ),
        ]
    };
    BotEntry::new(name, description, |options, ctx| {
        Ok(yomi_plugin::typed::Typed(player::FuzzyPlayer::new(options, ctx.seed)?.with_policy_ms(ctx.policy_ms)))
    })
        .games(&["stud"])
        .options(player_options(model))
        .presets(presets)
        .methods(vec![
            MethodInfo::new("tendencies", "{} -> the 18 tendency values with firing counts, and every change so far"),
            MethodInfo::new("style", "{} -> the opponent's detected style (or null before 20 games), the statistics behind it, and the paper's reading of the end-game and Much tendency curves"),
        ])
}

/// A baseline bot.
fn baseline_bot(name: &str, description: &str, kind: baseline::Kind) -> BotEntry {
    BotEntry::new(name, description, move |_, ctx| {
        Ok(yomi_plugin::typed::Typed(
            baseline::Baseline::new(kind, ctx.seed).with_policy_ms(ctx.policy_ms),
        ))
    })
    .games(&["stud"])
}

/// Everything the plugin offers.
fn declaration() -> Declaration {
    Declaration::new("stud", env!("CARGO_PKG_VERSION"), "Seven-card stud, heads-up, pot limit, as Takahashi (University of Tsukuba, 2004) plays it; a fuzzy bluffing player and its model opponents")
        .view(include_str!("../web/view.js"))
        .game(
            yomi_plugin::typed::declared::<payload::Observation>(GameEntry::new("stud", "Heads-up seven-card stud: ante 5, pot-limit, one raise per interval, two simultaneous reveals, fixed first actor", 2..=2, game::Session::from_options)
                .simultaneous()
                .options(game_options())
                .presets(vec![
                    Preset::new("seed-simulation", "the paper's chapter-4 sessions: 500 games, no game over", json!({"games": 500})),
                    Preset::new("seed-human", "the paper's chapter-5 sessions: 100 games, bankruptcy ends the session", json!({"games": 100, "mode": "play"})),
                ])),
        )
        .bot(baseline_bot("random", "uniform over the legal kinds of action; amounts skewed toward the minimum", baseline::Kind::Random))
        .bot(baseline_bot("calling-station", "never drops; opens and calls the minimum", baseline::Kind::CallingStation))
        .bot(player_bot("fuzzy", "the paper's fuzzy bluffing player: superiority estimation, learning tendencies, bluffs both ways", None))
        .bots(MODELS.iter().map(|(n, d, drop, bet)| player_bot(n, d, Some((drop, bet)))))
        // Every preset's Elo and the strength curves, measured by `yomi ladder` (README, "Strength").
        .ladder(include_str!("../ladder.json"))
        .cli(cli::run)
}
