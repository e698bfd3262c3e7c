//! The `sugoroku` game (seed section 6.2): each seat plays `runs` runs on the board, in turn. A
//! run starts on square 0; the game rolls the seat's die, the seat picks where to end the move
//! (several destinations only when the move passes a fork), a trap ends the run as a hit, the
//! goal ends it as a success. Each seat has its own die: plain, natural, or controlled (natural
//! with trap control, [`crate::control`]). Everything is public, so every seat sees everything.
//! A seat's score is its share of runs that reached the goal.

use serde::Serialize;
use serde_json::Value;
use yomi_plugin::api::opt;
use yomi_plugin::rng::derive_seed;
use yomi_plugin::typed::{to_json, Observation as _};
use yomi_plugin::{Decision, ErrorCode, ErrorInfo, Game, GameOutcome, OptionSpec, Options};

use crate::board::Board;
use crate::control::TrapControl;
use crate::payload::{Destination, Event, Observation};
use crate::ranges::Ranges;
use crate::search::Params;
use crate::service::Player;
use crate::stream::Dice;

/// The game's options.
pub fn options() -> Vec<OptionSpec> {
    vec![
        OptionSpec::int("players", 1, Some(1), Some(4), "players, each with their own die (the host sets it from the seats)"),
        OptionSpec::int("runs", 15, Some(1), Some(1000), "runs per seat (the paper: 15 per set)"),
        OptionSpec::choice("dice", "controlled", &["plain", "natural", "controlled"], "plain PRNG, natural stream, or natural with trap control"),
        OptionSpec::int("trap_window", 10, Some(2), Some(1000), "trap passes the hit band is kept over"),
        OptionSpec::json("board", Value::Null, "a board {\"squares\": [{\"next\": [..], \"trap\": bool}, ...]}; null for the standard board"),
    ]
}

/// How the game's dice behave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiceKind {
    Plain,
    Natural,
    Controlled,
}

impl DiceKind {
    pub fn parse(name: &str) -> Result<DiceKind, ErrorInfo> {
        match name {
            "plain" => Ok(DiceKind::Plain),
            "natural" => Ok(DiceKind::Natural),
            "controlled" => Ok(DiceKind::Controlled),
            _ => Err(ErrorInfo::new(
                ErrorCode::InvalidOption,
                format!("dice must be plain, natural or controlled, got `{name}`"),
            )),
        }
    }
}

/// One seat's state.
struct Seat {
    player: Player,
    position: usize,
    runs: usize,
    hits: usize,
    goals: usize,
    /// The roll waiting for this seat's choice of destination.
    roll: u8,
}

/// A sugoroku game in progress.
pub struct Sugoroku {
    board: Board,
    kind: DiceKind,
    runs: usize,
    seats: Vec<Seat>,
    turn: usize,
}

impl Sugoroku {
    pub fn new(options: &Options, seed: u64) -> Result<Sugoroku, ErrorInfo> {
        let board = match options.get("board") {
            None | Some(Value::Null) => Board::standard(),
            Some(v) => Board::parse(v).map_err(|e| ErrorInfo::new(ErrorCode::InvalidOption, e))?,
        };
        let kind = DiceKind::parse(opt::str(options, "dice")?)?;
        let window = opt::i64(options, "trap_window")?.max(2) as usize;
        let seats = (0..opt::i64(options, "players")?.clamp(1, 4) as u64)
            .map(|s| {
                let seed = derive_seed(seed, s);
                let dice = match kind {
                    DiceKind::Plain => Dice::plain(6, seed),
                    _ => Dice::natural(6, 50, Ranges::table2(), Params::default(), seed),
                };
                Seat {
                    player: Player { dice, control: TrapControl::new(window) },
                    position: 0,
                    runs: 0,
                    hits: 0,
                    goals: 0,
                    roll: 0,
                }
            })
            .collect();
        let mut game = Sugoroku {
            board,
            kind,
            runs: opt::i64(options, "runs")?.max(1) as usize,
            seats,
            turn: 0,
        };
        game.roll_for(0);
        Ok(game)
    }

    /// Rolls the die of `seat` for its current position.
    fn roll_for(&mut self, seat: usize) {
        let s = &mut self.seats[seat];
        s.roll = match self.kind {
            DiceKind::Controlled => s.player.roll_on(&self.board, s.position).0,
            _ => s.player.dice.roll(),
        };
    }

    fn over(&self) -> bool {
        self.seats.iter().all(|s| s.runs >= self.runs)
    }

    fn destinations(&self, seat: usize) -> Vec<usize> {
        let s = &self.seats[seat];
        self.board.destinations(s.position, s.roll as usize)
    }

    fn observation(&self, seat: usize) -> Observation {
        let s = &self.seats[seat];
        let destinations = self
            .destinations(seat)
            .into_iter()
            .map(|d| Destination {
                square: d as u64,
                trap: self.board.is_trap(d),
                goal: self.board.is_goal(d),
                to_goal: self.board.to_goal(d) as u64,
                traps_ahead: self.board.traps_ahead(d, 6) as u64,
            })
            .collect();
        Observation {
            seat,
            position: s.position,
            roll: s.roll,
            run: s.runs + 1,
            runs: self.runs,
            hits: s.hits,
            goals: s.goals,
            destinations,
        }
    }

    /// Hits per seat so far.
    pub fn hits(&self) -> Vec<usize> {
        self.seats.iter().map(|s| s.hits).collect()
    }
}

impl Game for Sugoroku {
    fn decisions(&self) -> Vec<Decision> {
        if self.over() {
            return vec![];
        }
        let observation = self.observation(self.turn);
        let legal = observation.legal().iter().map(to_json).collect();
        vec![Decision { seat: self.turn, observation: to_json(&observation), legal }]
    }

    fn apply(&mut self, actions: &[(usize, Value)]) -> Result<Value, ErrorInfo> {
        if self.over() {
            return Err(ErrorInfo::new(ErrorCode::IllegalAction, "the game is over"));
        }
        let seat = self.turn;
        let illegal =
            |msg: String| ErrorInfo::new(ErrorCode::IllegalAction, format!("seat {seat}: {msg}"));
        let [(who, action)] = actions else {
            return Err(illegal(format!("exactly one action (seat {seat}'s) is expected")));
        };
        if *who != seat {
            return Err(ErrorInfo::new(
                ErrorCode::IllegalAction,
                format!("seat {who}: it is seat {seat}'s turn"),
            ));
        }
        let to =
            action.as_u64().map(|d| d as usize).filter(|d| self.destinations(seat).contains(d));
        let to = to.ok_or_else(|| {
            illegal(format!(
                "{action} is not a destination of this move ({:?})",
                self.destinations(seat)
            ))
        })?;
        let s = &mut self.seats[seat];
        let from = s.position;
        let (trap, goal) = (self.board.is_trap(to), self.board.is_goal(to));
        s.position = to;
        if trap || goal {
            s.hits += trap as usize;
            s.goals += goal as usize;
            s.runs += 1;
            s.position = 0;
        }
        let event = to_json(&Event { seat, roll: s.roll, from, to, trap, goal, runs: s.runs });
        if !self.over() {
            let n = self.seats.len();
            self.turn = (1..=n)
                .map(|k| (seat + k) % n)
                .find(|&t| self.seats[t].runs < self.runs)
                .expect("not over");
            self.roll_for(self.turn);
        }
        Ok(event)
    }

    fn outcome(&self) -> Option<GameOutcome> {
        if !self.over() {
            return None;
        }
        let scores = self.seats.iter().map(|s| s.goals as f64 / self.runs as f64).collect();
        Some(GameOutcome {
            scores,
            summary: to_json(&Summary {
                hits: self.hits(),
                goals: self.seats.iter().map(|s| s.goals).collect(),
            }),
        })
    }
}

/// What a finished game reports beside its scores: each seat's traps hit and runs that reached
/// the goal.
#[derive(Serialize)]
struct Summary {
    hits: Vec<usize>,
    goals: Vec<usize>,
}
