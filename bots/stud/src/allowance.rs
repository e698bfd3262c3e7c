//! How many bet amounts a stud policy may list. A policy lists every amount a bet can take, one
//! entry each, and the bet range is the client's to state: a range longer than the host's policy
//! allowance (`AgentContext::policy_ms`) pays for is refused before anything is listed.
use yomi_plugin::{ErrorCode, ErrorInfo};

/// Bet amounts a policy may list per millisecond of the host's policy allowance: at the default
/// allowance, every amount of a pot of the default stacks (2 × 100,000 chips).
const AMOUNTS_PER_MS: u64 = 100;

/// Amounts a policy may always list, whatever the allowance: an ordinary pot's.
const MIN_AMOUNTS: u64 = 1_000;

/// The most bet amounts one policy may list.
#[derive(Debug, Clone, Copy)]
pub struct PolicyAllowance(u64);

impl PolicyAllowance {
    /// The allowance of `policy_ms` milliseconds (the host's default when none).
    pub fn new(policy_ms: Option<u64>) -> PolicyAllowance {
        let ms = policy_ms.unwrap_or(yomi_plugin::policy::DEFAULT_ALLOWANCE_MS);
        PolicyAllowance(ms.saturating_mul(AMOUNTS_PER_MS).max(MIN_AMOUNTS))
    }

    /// Refuses a policy that would list `amounts` bet amounts, more than the allowance.
    pub fn check(self, amounts: u64) -> Result<(), ErrorInfo> {
        if amounts <= self.0 {
            return Ok(());
        }
        Err(ErrorInfo::new(
            ErrorCode::LimitExceeded,
            format!(
                "this bet's policy would list {amounts} amounts: more than the server's policy \
                 allowance pays for ({}; see --max-policy-ms)",
                self.0
            ),
        ))
    }
}

impl Default for PolicyAllowance {
    fn default() -> PolicyAllowance {
        PolicyAllowance::new(None)
    }
}
