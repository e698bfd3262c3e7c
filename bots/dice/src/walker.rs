//! The `walker` bot: a simulated sugoroku player for the trap experiments. It never steps onto a
//! trap it can avoid; `route = "safe"` then prefers the destination with the fewest traps within
//! a die's reach ahead, `"short"` the one nearest the goal.

use serde_json::Value;
use yomi_plugin::api::opt;
use yomi_plugin::misfit;
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

/// One destination of the observation.
struct Destination {
    square: Value,
    trap: bool,
    goal: bool,
    to_goal: u64,
    traps_ahead: u64,
}

/// Reads the observation's `destinations`, by the plugin kit's one rule for a request that does
/// not fit.
fn destinations(observation: &Value) -> Result<Vec<Destination>, ErrorInfo> {
    let list = observation.get("destinations").and_then(Value::as_array);
    let list = list.ok_or_else(|| misfit::error("observation.destinations", "must be a list"))?;
    list.iter()
        .enumerate()
        .map(|(i, d)| {
            let at = |k: &str| format!("observation.destinations[{i}].{k}");
            let num = |k: &str| {
                d.get(k)
                    .and_then(Value::as_u64)
                    .ok_or_else(|| misfit::error(at(k), "must be a non-negative integer"))
            };
            let flag = |k: &str| {
                d.get(k)
                    .and_then(Value::as_bool)
                    .ok_or_else(|| misfit::error(at(k), "must be true or false"))
            };
            Ok(Destination {
                square: num("square")?.into(),
                trap: flag("trap")?,
                goal: flag("goal")?,
                to_goal: num("to_goal")?,
                traps_ahead: num("traps_ahead")?,
            })
        })
        .collect()
}

impl Agent for Walker {
    fn act(&mut self, request: &ActRequest) -> Result<ActReply, ErrorInfo> {
        let dests = destinations(&request.observation)?;
        let allowed: Vec<Value> = dests.iter().map(|d| d.square.clone()).collect();
        misfit::check_legal("legal", &request.legal, &allowed)?;
        let best = dests
            .iter()
            .min_by_key(|d| {
                let (ahead, to_goal) = (d.traps_ahead, d.to_goal);
                (d.trap, !d.goal, if self.safe { (ahead, to_goal) } else { (to_goal, ahead) })
            })
            .map(|d| d.square.clone())
            .ok_or_else(|| ErrorInfo::new(ErrorCode::Internal, "checked destinations are empty"))?;
        Ok(ActReply::new(best))
    }

    fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo> {
        self.safe = opt::str(options, "route")? == "safe";
        Ok(())
    }
}
