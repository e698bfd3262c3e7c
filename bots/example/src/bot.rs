//! The `rps` bot: a favourite hand it leans on (`bias`), and a reading level — how it uses your
//! last hand. Reading level 1 is exactly what a person does after losing to rock twice.

use rand::{Rng, SeedableRng};
use serde::Serialize;
use yomi_plugin::api::opt;
use yomi_plugin::rng::Rng as SeededRng;
use yomi_plugin::think::{self, entropy_bits, Effort, Pace};
use yomi_plugin::typed::{Choice, TypedAgent};
use yomi_plugin::{ErrorInfo, Options};

use crate::payload::{Hand, Observation};

/// A rock-paper-scissors player.
pub struct RpsBot {
    favourite: Hand,
    bias: f64,
    reading: i64,
    rng: SeededRng,
    /// Its suggested think times (`think_scale`; see `yomi_plugin::think`).
    pace: Pace,
}

/// The think-time model of a throw: about half a second, longer the more the bot's own strategy
/// is spread over the three hands (a reader who knows your last hand throws at once).
const THINK: think::Model =
    think::Model { base: 500.0, per_choice: 150.0, per_doubt: 300.0, per_stage: 0.0, sigma: 0.3 };

impl RpsBot {
    pub fn new(options: &Options, seed: u64) -> Result<RpsBot, ErrorInfo> {
        let mut bot = RpsBot {
            favourite: Hand::Rock,
            bias: 0.0,
            reading: 0,
            rng: SeededRng::seed_from_u64(seed),
            pace: Pace::new(seed),
        };
        bot.configure(options)?;
        Ok(bot)
    }
}

impl RpsBot {
    /// The chance of each hand (in `Hand::ALL` order) this bot throws after `last`.
    fn strategy(&self, last: Option<Hand>) -> [f64; 3] {
        let mut probs = [0.0; 3];
        let at = |h: Hand| Hand::ALL.iter().position(|x| *x == h).expect("a hand");
        probs[at(self.favourite)] += self.bias;
        match (self.reading, last) {
            (1, Some(h)) => probs[at(h.beaten_by())] += 1.0 - self.bias,
            (2, Some(h)) => probs[at(h.beaten_by().beaten_by())] += 1.0 - self.bias,
            _ => probs.iter_mut().for_each(|p| *p += (1.0 - self.bias) / 3.0),
        }
        probs
    }
}

impl TypedAgent for RpsBot {
    /// A `legal` list must name all three throws (`Observation::legal`).
    type Observation = Observation;

    fn act(
        &mut self,
        observation: &Observation,
        _legal: Vec<Hand>,
        explain: bool,
    ) -> Result<Choice<Hand>, ErrorInfo> {
        let last = observation.opponent_last;
        let (hand, why) = if self.rng.gen::<f64>() < self.bias {
            (self.favourite, "favourite")
        } else {
            match (self.reading, last) {
                (1, Some(h)) => (h.beaten_by(), "beats your last hand"),
                (2, Some(h)) => {
                    (h.beaten_by().beaten_by(), "beats the hand that beats your last hand")
                }
                _ => (Hand::ALL[self.rng.gen_range(0..3)], "uniform"),
            }
        };
        let effort = Effort { choices: 3, doubt: entropy_bits(&self.strategy(last)), stage: 0.0 };
        let think_ms = self.pace.think_ms(&THINK, effort);
        Ok(if explain {
            let why = Why { reason: why, opponent_last: last };
            Choice::explained(hand, yomi_plugin::typed::to_json(&why))
        } else {
            Choice::new(hand)
        }
        .think(think_ms))
    }

    /// The hands in the proportions [`RpsBot::strategy`] gives: `act` throws the favourite with
    /// probability `bias`, else follows its reading (a uniform draw without one).
    fn policy(
        &self,
        observation: &Observation,
        _legal: &[Hand],
    ) -> Result<Vec<(Hand, f64)>, ErrorInfo> {
        Ok(Hand::ALL.into_iter().zip(self.strategy(observation.opponent_last)).collect())
    }

    fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo> {
        self.favourite = Hand::parse(opt::str(options, "favourite")?)?;
        self.bias = opt::f64(options, "bias")?;
        self.reading = opt::i64(options, "reading")?;
        self.pace.configure(options)
    }
}

/// Why the bot threw its hand, when asked (`explain`).
#[derive(Serialize)]
struct Why {
    reason: &'static str,
    opponent_last: Option<Hand>,
}
