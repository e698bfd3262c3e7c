//! The `walker` bot: a simulated sugoroku player for the trap experiments. It never steps onto a
//! trap it can avoid; `route = "safe"` then prefers the destination with the fewest traps within
//! a die's reach ahead, `"short"` the one nearest the goal.

use serde_json::Value;
use yomi_plugin::api::opt;
use yomi_plugin::{ActReply, ActRequest, Agent, ErrorCode, ErrorInfo, OptionSpec, Options};

pub fn options() -> Vec<OptionSpec> {
    vec![OptionSpec::choice(
        "route",
        "safe",
        &["safe", "short"],
        "at a fork: fewest traps ahead, or nearest the goal",
    )]
}

pub struct Walker {
    safe: bool,
}

impl Walker {
    pub fn new(options: &Options) -> Result<Walker, ErrorInfo> {
        let mut w = Walker { safe: true };
        w.configure(options)?;
        Ok(w)
    }
}

impl Agent for Walker {
    fn act(&mut self, request: &ActRequest) -> Result<ActReply, ErrorInfo> {
        let dests = request.observation.get("destinations").and_then(Value::as_array);
        let dests = dests.ok_or_else(|| {
            ErrorInfo::new(ErrorCode::BotError, "observation has no `destinations`")
        })?;
        let num = |d: &Value, k: &str| d.get(k).and_then(Value::as_u64).unwrap_or(u64::MAX);
        let flag = |d: &Value, k: &str| d.get(k).and_then(Value::as_bool).unwrap_or(false);
        let best = dests
            .iter()
            .min_by_key(|d| {
                let (ahead, to_goal) = (num(d, "traps_ahead"), num(d, "to_goal"));
                (
                    flag(d, "trap"),
                    !flag(d, "goal"),
                    if self.safe { (ahead, to_goal) } else { (to_goal, ahead) },
                )
            })
            .and_then(|d| d.get("square").cloned())
            .ok_or_else(|| ErrorInfo::new(ErrorCode::BotError, "no destination to choose from"))?;
        Ok(ActReply::new(best))
    }

    fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo> {
        self.safe = opt::str(options, "route")? == "safe";
        Ok(())
    }
}
