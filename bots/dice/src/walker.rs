//! The `walker` bot: a simulated sugoroku player for the trap experiments. It never steps onto a
//! trap it can avoid; `route = "safe"` then prefers the destination with the fewest traps within
//! a die's reach ahead, `"short"` the one nearest the goal.

use yomi_plugin::api::opt;
use yomi_plugin::typed::{Choice, TypedAgent};
use yomi_plugin::{ErrorCode, ErrorInfo, OptionSpec, Options};

use crate::payload::{Observation, Square};

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

impl TypedAgent for Walker {
    type Observation = Observation;

    /// Chooses among the observation's destinations (the legal list names the same squares).
    fn act(
        &mut self,
        obs: &Observation,
        _: Vec<Square>,
        _: bool,
    ) -> Result<Choice<Square>, ErrorInfo> {
        let best = obs
            .destinations
            .iter()
            .min_by_key(|d| {
                let (ahead, to_goal) = (d.traps_ahead, d.to_goal);
                (d.trap, !d.goal, if self.safe { (ahead, to_goal) } else { (to_goal, ahead) })
            })
            .map(|d| d.square)
            .ok_or_else(|| ErrorInfo::new(ErrorCode::Internal, "checked destinations are empty"))?;
        Ok(Choice::new(best))
    }

    fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo> {
        self.safe = opt::str(options, "route")? == "safe";
        Ok(())
    }
}
