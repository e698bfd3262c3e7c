//! The two baselines: `random` (a uniformly random legal card, passing only with probability
//! `pass_rate` while a pass is safe or when nothing can be played) and `greedy` (the first legal
//! card in suit-then-rank order, never passing while a card is playable).

use rand::{Rng, SeedableRng};
use yomi_plugin::api::opt;
use yomi_plugin::rng::Rng as SeededRng;
use yomi_plugin::typed::{Choice, TypedAgent};
use yomi_plugin::{ErrorInfo, OptionSpec, Options};

use super::Move;
use crate::payload::Observation;
use crate::view::View;

pub fn random_options() -> Vec<OptionSpec> {
    vec![OptionSpec::float(
        "pass_rate",
        0.0,
        Some(0.0),
        Some(1.0),
        "probability of passing (while a pass is safe) although a card is playable",
    )]
}

pub struct RandomBot {
    pass_rate: f64,
    rng: SeededRng,
}

impl RandomBot {
    pub fn new(options: &Options, seed: u64) -> Result<RandomBot, ErrorInfo> {
        let mut bot = RandomBot { pass_rate: 0.0, rng: SeededRng::seed_from_u64(seed) };
        bot.configure(options)?;
        Ok(bot)
    }
}

impl TypedAgent for RandomBot {
    type Observation = Observation;

    fn act(
        &mut self,
        observation: &Observation,
        legal: Vec<Move>,
        _explain: bool,
    ) -> Result<Choice<Move>, ErrorInfo> {
        let view = View::new(observation, &legal);
        let pass = view.cards.is_empty()
            || (view.can_pass_safely() && self.rng.gen::<f64>() < self.pass_rate);
        let mv = if pass {
            Move::Pass
        } else {
            Move::Play(view.cards[self.rng.gen_range(0..view.cards.len())])
        };
        Ok(Choice::new(mv))
    }

    /// A pass at `pass_rate` while one is safe (for sure with nothing to play), the cards
    /// sharing the rest evenly.
    fn policy(
        &self,
        observation: &Observation,
        legal: &[Move],
    ) -> Result<Vec<(Move, f64)>, ErrorInfo> {
        let view = View::new(observation, legal);
        if view.cards.is_empty() {
            return Ok(vec![(Move::Pass, 1.0)]);
        }
        let pass = if view.can_pass_safely() { self.pass_rate } else { 0.0 };
        let each = (1.0 - pass) / view.cards.len() as f64;
        let cards = view.cards.iter().map(|&c| (Move::Play(c), each));
        Ok(cards.chain([(Move::Pass, pass)]).collect())
    }

    fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo> {
        self.pass_rate = opt::f64(options, "pass_rate")?;
        Ok(())
    }
}

pub struct GreedyBot;

/// The greedy move: the first legal card, a pass only with none.
fn greedy(view: &View) -> Move {
    view.cards.first().map_or(Move::Pass, |&c| Move::Play(c))
}

impl TypedAgent for GreedyBot {
    type Observation = Observation;

    fn act(
        &mut self,
        observation: &Observation,
        legal: Vec<Move>,
        _explain: bool,
    ) -> Result<Choice<Move>, ErrorInfo> {
        Ok(Choice::new(greedy(&View::new(observation, &legal))))
    }

    fn policy(
        &self,
        observation: &Observation,
        legal: &[Move],
    ) -> Result<Vec<(Move, f64)>, ErrorInfo> {
        Ok(vec![(greedy(&View::new(observation, legal)), 1.0)])
    }

    fn configure(&mut self, _options: &Options) -> Result<(), ErrorInfo> {
        Ok(())
    }
}
