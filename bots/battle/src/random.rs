//! The `random` bot: uniform over the legal actions of a checked observation (paper §5.1's
//! baseline), replacements included.

use rand::Rng;
use serde_json::{json, Value};
use yomi_plugin::rng::{seeded, Rng as SeededRng};
use yomi_plugin::{ActReply, ActRequest, Agent, AgentContext, ErrorInfo, Options};

use crate::cache::Tables;
use crate::codec;
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

impl Agent for RandomBot {
    fn act(&mut self, request: &ActRequest) -> Result<ActReply, ErrorInfo> {
        let allowed = codec::read_request(request)?.allowed;
        // The caller's order when it lists them (the same set), so its seed picks the same way.
        let legal = if request.legal.is_empty() { &allowed } else { &request.legal };
        let k = self.rng.gen_range(0..legal.len());
        let action = legal[k].clone();
        let p = 1.0 / legal.len() as f64;
        Ok(if request.explain {
            ActReply::explained(action, json!({"strategy": vec![p; legal.len()], "actions": legal}))
        } else {
            ActReply::new(action)
        })
    }

    fn configure(&mut self, _options: &Options) -> Result<(), ErrorInfo> {
        Ok(())
    }

    fn call(&mut self, method: &str, params: &Value) -> Result<Value, ErrorInfo> {
        service::call(method, params, &mut self.tables)
    }
}
