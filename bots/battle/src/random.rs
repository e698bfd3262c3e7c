//! The `random` bot: uniform over the legal actions of a checked observation (paper §5.1's
//! baseline), replacements included.

use rand::Rng;
use serde_json::Value;
use yomi_plugin::rng::{seeded, Rng as SeededRng};
use yomi_plugin::typed::{to_json, Choice, TypedAgent};
use yomi_plugin::{AgentContext, ErrorInfo, Options};

use crate::cache::Tables;
use crate::explain::Explanation;
use crate::payload::{Action, Observation};
use crate::service;

pub struct RandomBot {
    rng: SeededRng,
    /// The tables `analyze` reads, with this agent's allowance of new rule sets.
    tables: Tables,
}

impl RandomBot {
    pub fn new(ctx: &AgentContext) -> RandomBot {
        RandomBot { rng: seeded(ctx.seed), tables: Tables::new(ctx) }
    }
}

impl TypedAgent for RandomBot {
    type Observation = Observation;

    /// Draws among `legal` in the caller's order when it lists them (the same set), so its seed
    /// picks the same way.
    fn act(
        &mut self,
        _obs: &Observation,
        legal: Vec<Action>,
        explain: bool,
    ) -> Result<Choice<Action>, ErrorInfo> {
        let k = self.rng.gen_range(0..legal.len());
        let action = legal[k].clone();
        let p = 1.0 / legal.len() as f64;
        Ok(if explain {
            let strategy = vec![p; legal.len()];
            Choice::explained(action, to_json(&Explanation::drawn(strategy, legal)))
        } else {
            Choice::new(action)
        })
    }

    /// Every legal action alike.
    fn policy(
        &self,
        _obs: &Observation,
        legal: &[Action],
    ) -> Result<Vec<(Action, f64)>, ErrorInfo> {
        Ok(legal.iter().map(|a| (a.clone(), 1.0 / legal.len() as f64)).collect())
    }

    fn configure(&mut self, _options: &Options) -> Result<(), ErrorInfo> {
        Ok(())
    }

    fn call(&mut self, method: &str, params: &Value) -> Result<Value, ErrorInfo> {
        service::call(method, params, &mut self.tables)
    }
}
