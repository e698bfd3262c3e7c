//! The sampling check a bot's tests run on its policies (feature `policy-test`): many decisions
//! drawn from one position against the policy the bot gave there, so a policy is shown to be
//! the bot's real behaviour and not a second model of it.

use serde_json::Value;
use yomi_protocol::{ActReply, PolicyEntry};

/// The sampling check of a policy (feature `policy-test`): `draws` actions a bot played from one
/// position and state against the policy it gave there, by Pearson's chi-square test. Returns
/// the p-value; an action the policy does not hold is an error, as is a policy too spread for
/// `draws` (an expected count under 5 in a cell: the test would be unreliable).
pub fn chi_square(policy: &[PolicyEntry], draws: &[Value]) -> Result<f64, String> {
    use statrs::distribution::{ChiSquared, ContinuousCDF};
    let mut counts = vec![0usize; policy.len()];
    for action in draws {
        match policy.iter().position(|e| e.action == *action) {
            Some(i) => counts[i] += 1,
            None => return Err(format!("played {action}, which the policy does not hold")),
        }
    }
    if policy.len() < 2 {
        return Ok(1.0);
    }
    let n = draws.len() as f64;
    if let Some(e) = policy.iter().find(|e| e.p * n < 5.0) {
        return Err(format!("{} expects {:.1} of {n} draws; draw more", e.action, e.p * n));
    }
    let statistic: f64 =
        policy.iter().zip(&counts).map(|(e, &c)| (c as f64 - e.p * n).powi(2) / (e.p * n)).sum();
    let df = (policy.len() - 1) as f64;
    let distribution = ChiSquared::new(df).map_err(|e| e.to_string())?;
    Ok(1.0 - distribution.cdf(statistic))
}

/// The sampling check of one position (feature `policy-test`): the policy `fresh(0)` gives for
/// `request` through the kit's own dispatch (the policy and the action asked together,
/// [`Agent::act_with_policy_text`](crate::Agent::act_with_policy_text), checked by
/// [`attach`](crate::policy::attach)), and the p-value of `draws`
/// decisions from fresh agents `fresh(1)`, `fresh(2)` ... against it ([`chi_square`]). `fresh`
/// brings each agent to the same state (a learning bot replays what it saw before), so the draws
/// differ by their seed alone.
pub fn sampling_check(
    fresh: impl Fn(u64) -> Box<dyn crate::Agent>,
    request: &yomi_protocol::ActRequest,
    draws: u64,
) -> Result<(Vec<PolicyEntry>, f64), String> {
    use crate::call::{Answer, Call};
    use crate::dispatch::Handle;
    let asked = yomi_protocol::ActRequest { policy: true, ..request.clone() };
    let policy = match Handle::Agent(fresh(0)).dispatch(Call::Act(asked)) {
        Ok(Answer::Decision(ActReply { policy: Some(policy), .. })) => policy,
        other => return Err(format!("no policy: {other:?}")),
    };
    let plain = yomi_protocol::ActRequest { policy: false, ..request.clone() };
    let played = (1..=draws)
        .map(|seed| fresh(seed).act(&plain).map(|r| r.action).map_err(|e| e.to_string()))
        .collect::<Result<Vec<Value>, String>>()?;
    let p = chi_square(&policy, &played)?;
    Ok((policy, p))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::policy::weighted;

    #[test]
    fn the_chi_square_check_passes_a_fair_sample_and_fails_a_biased_one() {
        let policy = weighted([(json!("a"), 1.0), (json!("b"), 3.0)]);
        let sample = |a: usize, b: usize| -> Vec<Value> {
            std::iter::repeat_n(json!("a"), a).chain(std::iter::repeat_n(json!("b"), b)).collect()
        };
        assert!(chi_square(&policy, &sample(250, 750)).unwrap() > 0.9);
        assert!(chi_square(&policy, &sample(500, 500)).unwrap() < 1e-6);
        assert!(chi_square(&policy, &[json!("c")]).unwrap_err().contains("does not hold"));
        assert!(chi_square(&policy, &sample(1, 2)).unwrap_err().contains("draw more"));
    }
}
