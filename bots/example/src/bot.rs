//! The `rps` bot: a favourite hand it leans on (`bias`), and a reading level — how it uses your
//! last hand. Reading level 1 is exactly what a person does after losing to rock twice.

use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use yomi_plugin::api::opt;
use yomi_plugin::rng::Rng as SeededRng;
use yomi_plugin::{ActReply, ActRequest, Agent, ErrorInfo, Options};

use crate::game::Hand;

/// A rock-paper-scissors player.
pub struct RpsBot {
    favourite: Hand,
    bias: f64,
    reading: i64,
    rng: SeededRng,
}

impl RpsBot {
    pub fn new(options: &Options, seed: u64) -> Result<RpsBot, ErrorInfo> {
        let mut bot = RpsBot {
            favourite: Hand::Rock,
            bias: 0.0,
            reading: 0,
            rng: SeededRng::seed_from_u64(seed),
        };
        bot.configure(options)?;
        Ok(bot)
    }

    /// The opponent's last hand, if the observation says (`"opponent_last": "rock"`).
    fn opponent_last(observation: &Value) -> Option<Hand> {
        observation.get("opponent_last").and_then(Value::as_str).and_then(|h| Hand::parse(h).ok())
    }
}

impl Agent for RpsBot {
    fn act(&mut self, request: &ActRequest) -> Result<ActReply, ErrorInfo> {
        let last = Self::opponent_last(&request.observation);
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
        let action = json!(hand.name());
        if !request.legal.is_empty() && !request.legal.contains(&action) {
            return Err(ErrorInfo::new(
                yomi_plugin::ErrorCode::BotError,
                format!("`{}` is not among the legal actions", hand.name()),
            ));
        }
        Ok(if request.explain {
            ActReply::explained(
                action,
                json!({"reason": why, "opponent_last": last.map(Hand::name)}),
            )
        } else {
            ActReply::new(action)
        })
    }

    fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo> {
        self.favourite = Hand::parse(opt::str(options, "favourite")?)?;
        self.bias = opt::f64(options, "bias")?;
        self.reading = opt::i64(options, "reading")?;
        Ok(())
    }
}
