//! The referee: a session of games between two seats with chips, seen through observations that
//! never show a seat the opponent's face-down cards.

use serde_json::Value;
use yomi_plugin::api::opt;
use yomi_plugin::rng::derive_seed;
use yomi_plugin::typed::{self, to_json};
use yomi_plugin::{Decision, ErrorCode, ErrorInfo, Game, GameOutcome, Options};

use crate::cards::{Card, Deal, DealSet};
use crate::engine::{Ending, Phase, StudGame};
use crate::hand::{EvalRules, TieRule};
use crate::payload::{self, bets, End, Event, Observation, Past, Summary, Who};

/// Chips each seat starts with (spec §2.6).
pub const START_CHIPS: i64 = 100_000;

/// Where the cards come from.
#[derive(Debug, Clone)]
pub enum Deals {
    /// Game g gets `Deal::seeded(derive_seed(seed, g))`.
    Seeded(u64),
    /// Game g gets deal `g mod len` of a fixed set.
    Fixed(DealSet),
}

impl Deals {
    fn deal(&self, game: usize) -> Deal {
        match self {
            Deals::Seeded(seed) => Deal::seeded(derive_seed(*seed, game as u64)),
            Deals::Fixed(set) => set.deals[game % set.deals.len()].clone(),
        }
    }
}

/// A session's settings (the game's options).
#[derive(Debug, Clone)]
pub struct SessionConfig {
    pub games: usize,
    /// The seat that acts first in every interval of every game.
    pub first_seat: usize,
    pub start_chips: i64,
    /// Play mode: the session ends after a game that leaves a seat below zero.
    pub bankruptcy: bool,
    pub tie_rule: TieRule,
    pub eval: EvalRules,
    /// Show both hands after a game ended by a drop (the seed's simulated system knew the deal).
    pub disclose: bool,
}

impl SessionConfig {
    pub fn from_options(options: &Options) -> Result<SessionConfig, ErrorInfo> {
        Ok(SessionConfig {
            games: opt::i64(options, "games")? as usize,
            first_seat: opt::i64(options, "first_seat")? as usize,
            start_chips: opt::i64(options, "start_chips")?,
            bankruptcy: opt::str(options, "mode")? == "play",
            tie_rule: TieRule::parse(opt::str(options, "tie_rule")?)?,
            eval: EvalRules { wheel: opt::bool(options, "wheel")? },
            disclose: opt::bool(options, "disclose")?,
        })
    }
}

/// A session of stud games.
pub struct Session {
    config: SessionConfig,
    deals: Deals,
    /// 0-based number of the current game.
    game_no: usize,
    game: StudGame,
    chips: [i64; 2],
    over: bool,
}

fn seat_err(seat: usize, e: ErrorInfo) -> ErrorInfo {
    ErrorInfo::new(e.code, format!("seat {seat}: {}", e.message))
}

impl Session {
    pub fn new(config: SessionConfig, deals: Deals) -> Result<Session, ErrorInfo> {
        if config.first_seat > 1 || config.games == 0 {
            return Err(ErrorInfo::new(
                ErrorCode::InvalidOption,
                "first_seat must be 0 or 1 and games at least 1",
            ));
        }
        let game = StudGame::new(deals.deal(0), config.tie_rule, config.eval);
        Ok(Session { chips: [config.start_chips; 2], config, deals, game_no: 0, game, over: false })
    }

    /// Builds a session from the game's options: the deals given inline (`deals`) or seeded
    /// deals.
    pub fn from_options(options: &Options, seed: u64) -> Result<Session, ErrorInfo> {
        let config = SessionConfig::from_options(options)?;
        let deals = match DealSet::from_option(options.get("deals").unwrap_or(&Value::Null))? {
            Some(set) => Deals::Fixed(set),
            None => Deals::Seeded(seed),
        };
        Session::new(config, deals)
    }

    fn position(&self, seat: usize) -> usize {
        if seat == self.config.first_seat {
            0
        } else {
            1
        }
    }

    fn seat(&self, pos: usize) -> usize {
        if pos == 0 {
            self.config.first_seat
        } else {
            1 - self.config.first_seat
        }
    }

    pub fn chips(&self) -> [i64; 2] {
        self.chips
    }

    /// What `seat` sees now: its own cards, the opponent's face-up cards only, the money, this
    /// game's betting history, and its legal actions.
    pub fn observation(&self, seat: usize, legal: Vec<payload::Action>) -> Observation {
        let (me, opp) = (self.position(seat), 1 - self.position(seat));
        let g = &self.game;
        let history = g
            .log
            .iter()
            .map(|l| Past {
                turn: l.turn,
                who: if l.position == me { Who::Me } else { Who::Opp },
                act: l.action.into(),
                paid: l.paid,
                pot_before: l.pot_before,
            })
            .collect();
        Observation {
            seat,
            position: me,
            game: self.game_no as u64 + 1,
            games: self.config.games as u64,
            turn: g.turn,
            phase: if g.phase == Phase::Reveal {
                payload::Phase::Reveal
            } else {
                payload::Phase::Bet
            },
            pot: g.pot,
            paid: [g.contrib[me], g.contrib[opp]],
            chips: [self.chips[seat], self.chips[1 - seat]],
            hole: g.hole(me),
            up: g.up(me),
            opp_up: g.up(opp),
            opp_hole_count: g.hole(opp).len(),
            history,
            legal,
        }
    }

    /// Everyone's face-up cards by seat.
    fn public_up(&self) -> Vec<Vec<Card>> {
        (0..2).map(|s| self.game.up(self.position(s))).collect()
    }

    /// A decision of `seat` among `legal`, as the host hands it out.
    fn decision(&self, seat: usize, legal: Vec<payload::Action>) -> Decision {
        let legal_json = legal.iter().map(to_json).collect();
        Decision { seat, observation: to_json(&self.observation(seat, legal)), legal: legal_json }
    }

    /// Settles a finished game, reports it, and deals the next one unless the session is over.
    fn finish_game(&mut self, end: Ending) -> End {
        let net_pos = self.game.net().unwrap_or([0, 0]);
        let net = [net_pos[self.position(0)], net_pos[self.position(1)]];
        for (chips, n) in self.chips.iter_mut().zip(net) {
            *chips += n;
        }
        let show = matches!(end, Ending::Showdown { .. }) || self.config.disclose;
        let hands = show.then(|| {
            (0..2).map(|s| self.game.deal.cards[self.position(s)].to_vec()).collect::<Vec<_>>()
        });
        let (ending, winner) = match end {
            Ending::Drop { by } => (payload::Ending::Drop, Some(1 - self.seat(by))),
            Ending::Showdown { winner } => {
                (payload::Ending::Showdown, winner.map(|p| self.seat(p)))
            }
        };
        let report = End {
            ending,
            winner,
            net,
            chips: self.chips,
            pot: self.game.pot,
            turn: self.game.turn,
            hands,
        };
        let bankrupt = self.config.bankruptcy && self.chips.iter().any(|c| *c < 0);
        if bankrupt || self.game_no + 1 >= self.config.games {
            self.over = true;
        } else {
            self.game_no += 1;
            self.game = StudGame::new(
                self.deals.deal(self.game_no),
                self.config.tie_rule,
                self.config.eval,
            );
        }
        report
    }

    /// A seat's answer read as the game's action once: a misfit is refused naming its field.
    fn answer(seat: usize, v: &Value) -> Result<payload::Action, ErrorInfo> {
        typed::read(v, "action")
            .map_err(|e| seat_err(seat, ErrorInfo::new(ErrorCode::IllegalAction, e.message)))
    }

    fn reveal_choice(&self, seat: usize, v: &Value) -> Result<Card, ErrorInfo> {
        let card = Self::answer(seat, v)?.to_reveal().map_err(|e| seat_err(seat, e))?;
        if !self.game.hole(self.position(seat)).contains(&card) {
            return Err(seat_err(
                seat,
                ErrorInfo::new(
                    ErrorCode::IllegalAction,
                    format!("{card} is not one of your face-down cards"),
                ),
            ));
        }
        Ok(card)
    }
}

impl Game for Session {
    fn decisions(&self) -> Vec<Decision> {
        if self.over {
            return vec![];
        }
        if self.game.phase == Phase::Reveal {
            return (0..2)
                .map(|seat| {
                    let hole = self.game.hole(self.position(seat));
                    let legal =
                        hole.into_iter().map(|reveal| payload::Action::Reveal { reveal }).collect();
                    self.decision(seat, legal)
                })
                .collect();
        }
        let Some(pos) = self.game.to_act() else { return vec![] };
        let seat = self.seat(pos);
        let Phase::Bet(stage) = self.game.phase else { return vec![] };
        vec![self.decision(seat, bets(stage, self.game.pot))]
    }

    fn apply(&mut self, actions: &[(usize, Value)]) -> Result<Value, ErrorInfo> {
        if self.over {
            return Err(ErrorInfo::new(ErrorCode::IllegalAction, "the session is over"));
        }
        let (game, turn) = (self.game_no as u64 + 1, self.game.turn);
        let mut event = if self.game.phase == Phase::Reveal {
            let mut chosen = [None, None];
            for (seat, v) in actions {
                if *seat > 1 {
                    return Err(ErrorInfo::new(
                        ErrorCode::IllegalAction,
                        format!("seat {seat}: there are only seats 0 and 1"),
                    ));
                }
                chosen[self.position(*seat)] = Some(self.reveal_choice(*seat, v)?);
            }
            let [Some(a), Some(b)] = chosen else {
                return Err(ErrorInfo::new(
                    ErrorCode::IllegalAction,
                    "both seats must reveal a card at once",
                ));
            };
            self.game.reveal([a, b])?;
            let by_seat = (0..2).map(|s| [a, b][self.position(s)]).collect();
            Event { revealed: Some(by_seat), ..Event::new(game, turn, payload::Phase::Reveal) }
        } else {
            let pos = self
                .game
                .to_act()
                .ok_or_else(|| ErrorInfo::new(ErrorCode::Internal, "no one to act"))?;
            let seat = self.seat(pos);
            let [(s, v)] = actions else {
                return Err(ErrorInfo::new(
                    ErrorCode::IllegalAction,
                    format!("seat {seat} alone must bet now"),
                ));
            };
            if *s != seat {
                return Err(ErrorInfo::new(
                    ErrorCode::IllegalAction,
                    format!("seat {s}: it is seat {seat}'s turn to bet"),
                ));
            }
            let Phase::Bet(stage) = self.game.phase else { unreachable!("checked above") };
            let action = Self::answer(seat, v)?.to_bet(stage).map_err(|e| seat_err(seat, e))?;
            self.game.bet(pos, action).map_err(|e| seat_err(seat, e))?;
            let l = self
                .game
                .log
                .last()
                .copied()
                .ok_or_else(|| ErrorInfo::new(ErrorCode::Internal, "no log"))?;
            Event {
                seat: Some(seat),
                act: Some(l.action.into()),
                paid: Some(l.paid),
                pot: Some(self.game.pot),
                ..Event::new(game, turn, payload::Phase::Bet)
            }
        };
        let end = match self.game.phase {
            Phase::Over(end) => Some(end),
            _ => None,
        };
        event.up = self.public_up();
        if let Some(end) = end {
            event.end = Some(self.finish_game(end));
        }
        Ok(to_json(&event))
    }

    fn outcome(&self) -> Option<GameOutcome> {
        if !self.over {
            return None;
        }
        let [a, b] = self.chips;
        let scores = if a > b {
            vec![1.0, 0.0]
        } else if a < b {
            vec![0.0, 1.0]
        } else {
            vec![0.5, 0.5]
        };
        let start = self.config.start_chips;
        Some(GameOutcome {
            scores,
            summary: to_json(&Summary {
                chips: self.chips,
                net: [a - start, b - start],
                games: self.game_no + 1,
            }),
        })
    }
}
