//! The two baselines: `random` (a uniformly random legal card, passing only with probability
//! `pass_rate` while a pass is safe or when nothing can be played) and `greedy` (the first legal
//! card in suit-then-rank order, never passing while a card is playable).

use rand::{Rng, SeedableRng};
use yomi_plugin::api::opt;
use yomi_plugin::rng::Rng as SeededRng;
use yomi_plugin::{ActReply, ActRequest, Agent, ErrorInfo, OptionSpec, Options};

use super::Move;
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

impl Agent for RandomBot {
    fn act(&mut self, request: &ActRequest) -> Result<ActReply, ErrorInfo> {
        let view = View::parse(request)?;
        let pass = view.cards.is_empty()
            || (view.can_pass_safely() && self.rng.gen::<f64>() < self.pass_rate);
        let mv = if pass {
            Move::Pass
        } else {
            Move::Play(view.cards[self.rng.gen_range(0..view.cards.len())])
        };
        Ok(ActReply::new(mv.to_json()))
    }

    fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo> {
        self.pass_rate = opt::f64(options, "pass_rate")?;
        Ok(())
    }
}

pub struct GreedyBot;

impl Agent for GreedyBot {
    fn act(&mut self, request: &ActRequest) -> Result<ActReply, ErrorInfo> {
        let view = View::parse(request)?;
        let mv = view.cards.first().map_or(Move::Pass, |&c| Move::Play(c));
        Ok(ActReply::new(mv.to_json()))
    }

    fn configure(&mut self, _options: &Options) -> Result<(), ErrorInfo> {
        Ok(())
    }
}
