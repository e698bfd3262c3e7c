//! The `random` bot: uniform over the legal actions (seed 5.1's baseline), replacements included.

use rand::Rng;
use serde_json::{json, Value};
use yomi_plugin::rng::{seeded, Rng as SeededRng};
use yomi_plugin::{ActReply, ActRequest, Agent, AgentContext, ErrorCode, ErrorInfo, Options};

use crate::cache::Tables;
use crate::service;

pub struct RandomBot {
    rng: SeededRng,
    /// The tables `analyze` reads, with this agent's allowance of new rule sets.
    tables: Tables,
}

impl RandomBot {
    pub fn new(ctx: &AgentContext) -> RandomBot {
        RandomBot { rng: seeded(ctx.seed), tables: Tables::new(ctx.data_dir.clone()) }
    }
}

impl Agent for RandomBot {
    fn act(&mut self, request: &ActRequest) -> Result<ActReply, ErrorInfo> {
        if request.legal.is_empty() {
            return Err(ErrorInfo::new(ErrorCode::BotError, "no legal actions to choose from"));
        }
        let k = self.rng.gen_range(0..request.legal.len());
        let action = request.legal[k].clone();
        let p = 1.0 / request.legal.len() as f64;
        Ok(if request.explain {
            ActReply::explained(
                action,
                json!({"strategy": vec![p; request.legal.len()], "actions": request.legal}),
            )
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
