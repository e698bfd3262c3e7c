//! `student`: a rule-based player made of the habits the paper found in 225 students' players
//! (the paper's table 1 and the list below it). Every habit is an option, so many students can be made.
//!
//! Habits that *hold* a card (stop it) make the student pass instead, while it has more than
//! `keep_passes` passes left (table 1: attention to the pass count); otherwise it plays the best
//! held card. Habits that *push* a card add priority; the highest priority is played, ties going to
//! the first legal card.
//! - `ak`: A/K "play when possible" (+2) or "hold while another card can be played";
//! - `stop_2q`: hold 2/Q;
//! - `stop_lonely_68`: hold a 6/8 with no own card further out;
//! - `play_backed_68`: play a 6/8 with own cards further out (+3);
//! - `stop_lonely_59_early`: hold a 5/9 next to a 6/8 played in the opening (board D above 80)
//!   when no own card is further out;
//! - `follow_release`: when a row end that stood still for two of my turns moves (someone played
//!   the held-back card), play the card that follows it (+4; table 1: opponents' actions);
//! - `outside`: +1 per own card further out (table 1's most used feature);
//! - `flow`: +1 on a row end that moved since my last turn (table 1: the flow of the board);
//! - `hand_state`: with 3 cards or fewer left, stop holding anything (table 1: own hand's state).

use serde::Serialize;
use yomi_plugin::api::opt;
use yomi_plugin::think::{self, Pace};
use yomi_plugin::typed::{self, Choice, TypedAgent};
use yomi_plugin::{ErrorInfo, OptionSpec, Options, Preset};

use super::dvalue::Phases;
use super::{effort, Move, Scored, THINK};
use crate::card::{Card, CardSet};
use crate::payload::Observation;
use crate::view::View;

pub fn options() -> Vec<OptionSpec> {
    vec![
        OptionSpec::choice(
            "ak",
            "hold",
            &["play", "hold"],
            "A/K: play when possible, or hold while another card can be played",
        ),
        OptionSpec::bool("stop_2q", true, "hold 2 and Q (stopping the row)"),
        OptionSpec::bool("stop_lonely_68", true, "hold a 6/8 with no own card further out"),
        OptionSpec::bool("play_backed_68", true, "play a 6/8 with own cards further out first"),
        OptionSpec::bool(
            "stop_lonely_59_early",
            true,
            "hold a 5/9 that follows an opening 6/8 when no own card is further out",
        ),
        OptionSpec::bool(
            "follow_release",
            true,
            "when a held-back card is finally played, play the cards that follow it",
        ),
        OptionSpec::bool("outside", true, "prefer cards with own cards further out"),
        OptionSpec::bool("flow", true, "prefer rows that moved since my last turn"),
        OptionSpec::bool("hand_state", true, "with 3 cards or fewer left, hold nothing"),
        OptionSpec::int(
            "keep_passes",
            0,
            Some(0),
            Some(20),
            "hold (pass) only while more passes than this are left",
        ),
        think::option(),
    ]
}

pub fn presets() -> Vec<Preset> {
    vec![
        Preset::defaults("typical", "every habit of the list, passes spent on stopping"),
        {
            let stops = ["stop_2q", "stop_lonely_68", "stop_lonely_59_early"];
            let mut eager =
                without("eager", "plays whatever it can: A/K when possible, no stopping", &stops);
            eager.options.insert("ak".into(), "play".into());
            eager
        },
        Preset::one(
            "cautious",
            "stops like the typical student but keeps one pass in reserve",
            "keep_passes",
            1,
        ),
        without(
            "plain",
            "only table 1's first feature (own cards further out), no stopping or following",
            &[
                "stop_2q",
                "stop_lonely_68",
                "play_backed_68",
                "stop_lonely_59_early",
                "follow_release",
                "flow",
                "hand_state",
            ],
        ),
    ]
}

/// A preset that turns the named habits off.
fn without(name: &str, description: &str, habits: &[&str]) -> Preset {
    let mut preset = Preset::defaults(name, description);
    preset.options.extend(habits.iter().map(|h| (h.to_string(), false.into())));
    preset
}

/// Why a student chose: each legal card's priority and whether a habit held it, and whether it
/// could pass to hold.
#[derive(Serialize)]
struct Explanation<'a> {
    cards: Vec<Judged<'a>>,
    may_hold: bool,
}

/// One card as the student judged it.
#[derive(Serialize)]
struct Judged<'a> {
    #[serde(rename = "move")]
    scored: &'a Scored,
    held: bool,
}

#[derive(Debug, Clone, Copy, Default)]
struct Habits {
    ak_play: bool,
    stop_2q: bool,
    stop_lonely_68: bool,
    play_backed_68: bool,
    stop_lonely_59_early: bool,
    follow_release: bool,
    outside: bool,
    flow: bool,
    hand_state: bool,
    keep_passes: u32,
}

/// One row end (suit, low side?) as an index 0..8.
fn side(card: Card) -> usize {
    card.suit as usize * 2 + usize::from(card.rank > 7)
}

/// What the student remembers of the game between its turns.
#[derive(Debug, Clone, Default)]
struct Memory {
    /// The table and own hand size at my last turn: a shrinking table or a growing hand means a
    /// new game.
    last_table: CardSet,
    last_hand: usize,
    /// Row ends at my last turn.
    last_ends: [u8; 8],
    /// My turns each row end has stood still.
    still: [u32; 8],
    /// Row ends moved since my last turn, and those that had stood still before moving.
    moved: [bool; 8],
    released: [bool; 8],
    /// 6s and 8s seen on the table during the opening.
    early_68: CardSet,
}

impl Memory {
    fn update(&mut self, view: &View, board_d: u32) {
        let new_game =
            view.table.cards().len() < self.last_table.len() || view.hand.len() > self.last_hand;
        self.last_hand = view.hand.len();
        if new_game || self.last_table.is_empty() {
            *self = Memory {
                last_table: view.table.cards(),
                last_hand: view.hand.len(),
                ..Memory::default()
            };
            self.last_ends = ends(view);
        }
        let now = ends(view);
        for (i, end) in now.iter().enumerate() {
            self.moved[i] = *end != self.last_ends[i];
            self.released[i] = self.moved[i] && self.still[i] >= 2;
            self.still[i] = if self.moved[i] { 0 } else { self.still[i] + 1 };
        }
        self.last_ends = now;
        self.last_table = view.table.cards();
        if board_d > 80 {
            let sixes_eights: CardSet =
                (0..4).flat_map(|s| [Card::new(s, 6), Card::new(s, 8)]).collect();
            self.early_68 = self.early_68.union(CardSet(view.table.cards().0 & sixes_eights.0));
        }
    }
}

fn ends(view: &View) -> [u8; 8] {
    let mut out = [0; 8];
    for s in 0..4u8 {
        let (lo, hi) = view.table.ends(s);
        out[s as usize * 2] = lo;
        out[s as usize * 2 + 1] = hi;
    }
    out
}

pub struct StudentBot {
    habits: Habits,
    memory: Memory,
    pace: Pace,
}

impl StudentBot {
    /// A student; `seed` draws only its think times (its play is deterministic).
    pub fn new(options: &Options, seed: u64) -> Result<StudentBot, ErrorInfo> {
        let mut bot = StudentBot {
            habits: Habits::default(),
            memory: Memory::default(),
            pace: Pace::new(seed),
        };
        bot.configure(options)?;
        Ok(bot)
    }

    /// Each legal card's priority, and whether a habit holds it, with memory `m`.
    fn judge(&self, view: &View, m: &Memory) -> Vec<(Scored, bool)> {
        let h = self.habits;
        let non_ak = view.cards.iter().any(|c| c.distance() < 6);
        let few = h.hand_state && view.hand.len() <= 3;
        view.cards
            .iter()
            .map(|&card| {
                let mut s = Scored::new(Move::Play(card));
                let mut held = false;
                let beyond = view.own_beyond(card);
                let d = card.distance();
                if d == 6 {
                    if h.ak_play {
                        s.add(2.0, "A/K: play when possible");
                    } else if non_ak {
                        s.add(-10.0, "A/K: hold while another card can be played");
                    }
                }
                if h.stop_2q && d == 5 {
                    held = true;
                    s.rules.push("stop 2/Q");
                }
                if d == 1 && beyond == 0 && h.stop_lonely_68 {
                    held = true;
                    s.rules.push("stop a 6/8 with nothing further out");
                }
                if d == 1 && beyond > 0 && h.play_backed_68 {
                    s.add(3.0, "play a 6/8 with own cards further out");
                }
                if d == 2 && beyond == 0 && h.stop_lonely_59_early {
                    let inner = Card::new(card.suit, if card.rank < 7 { 6 } else { 8 });
                    if m.early_68.contains(inner) {
                        held = true;
                        s.rules.push("stop a 5/9 after an opening 6/8");
                    }
                }
                if h.follow_release && m.released[side(card)] {
                    s.add(4.0, "follow a released row");
                }
                if h.outside && beyond > 0 {
                    s.add(beyond as f64, "own cards further out");
                }
                if h.flow && m.moved[side(card)] {
                    s.add(1.0, "follow the flow");
                }
                if few && held {
                    held = false;
                    s.rules.push("few cards left: hold nothing");
                }
                (s, held)
            })
            .collect()
    }
}

fn first_best(list: &[&Scored]) -> Option<Move> {
    let best = list.iter().map(|s| s.score).fold(f64::NEG_INFINITY, f64::max);
    list.iter().find(|s| s.score == best).map(|s| s.mv)
}

/// A student's decision: its move, every card's priority and hold, and whether it may hold.
struct Decided {
    mv: Move,
    judged: Vec<(Scored, bool)>,
    may_hold: bool,
}

impl StudentBot {
    /// The move with memory `m` (already updated with `view`): the first best free card, else a
    /// pass where holding is allowed, else the first best held card.
    fn decide(&self, view: &View, m: &Memory) -> Decided {
        let judged = self.judge(view, m);
        let free: Vec<&Scored> = judged.iter().filter(|(_, held)| !held).map(|(s, _)| s).collect();
        let all: Vec<&Scored> = judged.iter().map(|(s, _)| s).collect();
        let may_hold = view.can_pass_safely() && view.my_passes() > self.habits.keep_passes;
        let mv = match first_best(&free) {
            Some(mv) => mv,
            None if may_hold || all.is_empty() => Move::Pass,
            None => first_best(&all).unwrap_or(Move::Pass),
        };
        Decided { mv, judged, may_hold }
    }
}

impl TypedAgent for StudentBot {
    type Observation = Observation;

    fn act(
        &mut self,
        observation: &Observation,
        legal: Vec<Move>,
        explain: bool,
    ) -> Result<Choice<Move>, ErrorInfo> {
        let view = View::new(observation, &legal);
        self.memory.update(&view, view.judge().board_d);
        let Decided { mv, judged, may_hold } = self.decide(&view, &self.memory);
        let scored: Vec<Scored> = judged.iter().map(|(s, _)| s.clone()).collect();
        let phase = Phases::default().of(view.judge().board_d);
        let think_ms = self.pace.think_ms(&THINK, effort(&scored, 0.0, phase));
        Ok(if explain {
            let cards =
                judged.iter().map(|(scored, held)| Judged { scored, held: *held }).collect();
            Choice::explained(mv, typed::to_json(&Explanation { cards, may_hold }))
        } else {
            Choice::new(mv)
        }
        .think(think_ms))
    }

    /// Its play is deterministic: the one move, from what it would remember after this view.
    fn policy(
        &self,
        observation: &Observation,
        legal: &[Move],
    ) -> Result<Vec<(Move, f64)>, ErrorInfo> {
        let view = View::new(observation, legal);
        let mut memory = self.memory.clone();
        memory.update(&view, view.judge().board_d);
        Ok(vec![(self.decide(&view, &memory).mv, 1.0)])
    }

    fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo> {
        self.habits = Habits {
            ak_play: opt::str(options, "ak")? == "play",
            stop_2q: opt::bool(options, "stop_2q")?,
            stop_lonely_68: opt::bool(options, "stop_lonely_68")?,
            play_backed_68: opt::bool(options, "play_backed_68")?,
            stop_lonely_59_early: opt::bool(options, "stop_lonely_59_early")?,
            follow_release: opt::bool(options, "follow_release")?,
            outside: opt::bool(options, "outside")?,
            flow: opt::bool(options, "flow")?,
            hand_state: opt::bool(options, "hand_state")?,
            keep_passes: opt::i64(options, "keep_passes")? as u32,
        };
        self.pace.configure(options)
    }
}
