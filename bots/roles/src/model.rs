//! The model of paper 002: role types with counts, per-player per-role history counts, the energy of
//! an assignment and the Boltzmann weight `exp(-beta * E)`.
//!
//! Everything downstream (the samplers, the analysis, the service) works on a [`Problem`], which
//! is built only through [`Problem::new`] so that every invariant the samplers rely on (counts sum
//! to the number of players, unique names, finite beta) is checked once, with a clear error.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;
use yomi_plugin::{ErrorCode, ErrorInfo};

/// Largest accepted inverse temperature. Far past the point where sampling is deterministic; it
/// keeps `beta * count` finite so log-weights never become infinite or NaN.
pub const MAX_BETA: f64 = 1e6;

/// A bad-input error: every rejection of client input uses this code.
pub fn invalid(message: impl Into<String>) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::InvalidParams, message)
}

/// Role types and how many players get each, in the order given (the order only affects output).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roles {
    pub names: Vec<String>,
    pub counts: Vec<usize>,
}

impl Roles {
    /// Builds a role set from `(name, count)` pairs, rejecting empty or duplicate names and
    /// negative counts. Roles with count 0 are dropped: nobody can get them.
    pub fn new(pairs: Vec<(String, i64)>) -> Result<Roles, ErrorInfo> {
        let mut names = Vec::new();
        let mut counts = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (name, count) in pairs {
            let name = name.trim().to_string();
            if name.is_empty() {
                return Err(invalid("a role name is empty"));
            }
            if !seen.insert(name.clone()) {
                return Err(invalid(format!("role `{name}` is given twice")));
            }
            if count < 0 {
                return Err(invalid(format!("role `{name}` has a negative count ({count})")));
            }
            if count > 0 {
                names.push(name);
                counts.push(count as usize);
            }
        }
        if names.is_empty() {
            return Err(invalid("no roles given (every count is 0)"));
        }
        Ok(Roles { names, counts })
    }

    /// Parses `werewolf=1,villager=3`.
    pub fn parse(text: &str) -> Result<Roles, ErrorInfo> {
        let mut pairs = Vec::new();
        for part in text.split(',').filter(|p| !p.trim().is_empty()) {
            let (name, count) = part
                .split_once('=')
                .ok_or_else(|| invalid(format!("role `{part}` needs a count, as in werewolf=1")))?;
            let count: i64 = count.trim().parse().map_err(|_| {
                invalid(format!("the count of role `{}` is not an integer: `{count}`", name.trim()))
            })?;
            pairs.push((name.to_string(), count));
        }
        Roles::new(pairs)
    }

    /// Reads roles from service parameters: either the string form or an object `{role: count}`.
    pub fn from_json(value: &Value) -> Result<Roles, ErrorInfo> {
        match value {
            Value::String(s) => Roles::parse(s),
            Value::Object(map) => {
                let mut pairs = Vec::new();
                for (name, count) in map {
                    let count = count
                        .as_i64()
                        .ok_or_else(|| invalid(format!("the count of role `{name}` is not an integer")))?;
                    pairs.push((name.clone(), count));
                }
                Roles::new(pairs)
            }
            _ => Err(invalid("`roles` must be a string like \"werewolf=1,villager=3\" or an object {role: count}")),
        }
    }

    pub fn total(&self) -> usize {
        self.counts.iter().sum()
    }

    pub fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }
}

/// Checks a list of player names: non-empty names, no duplicates.
pub fn check_players(players: &[String]) -> Result<(), ErrorInfo> {
    let mut seen = std::collections::HashSet::new();
    for p in players {
        if p.trim().is_empty() {
            return Err(invalid("a player name is empty"));
        }
        if !seen.insert(p.as_str()) {
            return Err(invalid(format!("player `{p}` is listed twice")));
        }
    }
    Ok(())
}

/// Checks an inverse temperature.
pub fn check_beta(beta: f64) -> Result<f64, ErrorInfo> {
    if !beta.is_finite() {
        return Err(invalid(format!("beta must be a finite number, got {beta}")));
    }
    if beta < 0.0 {
        return Err(invalid(format!("beta must not be negative, got {beta}")));
    }
    if beta > MAX_BETA {
        return Err(invalid(format!("beta must be at most {MAX_BETA}, got {beta}")));
    }
    Ok(beta)
}

/// A past game: player → role.
pub type PastGame = BTreeMap<String, String>;

/// One dealing problem: who plays, which roles, what each player has had, and beta.
#[derive(Debug, Clone)]
pub struct Problem {
    pub players: Vec<String>,
    pub roles: Roles,
    /// `history[i][k]`: past games in which player `i` had role `k`.
    pub history: Vec<Vec<u32>>,
    pub beta: f64,
}

/// An assignment: `assignment[i]` is the role index of player `i`.
pub type Assignment = Vec<usize>;

impl Problem {
    /// Checks the inputs and counts the history. Past games may mention players who are absent
    /// now and roles not dealt now; those entries cannot affect this game's energy and are skipped.
    pub fn new(
        players: Vec<String>,
        roles: Roles,
        past: &[PastGame],
        beta: f64,
    ) -> Result<Problem, ErrorInfo> {
        check_players(&players)?;
        let beta = check_beta(beta)?;
        if players.is_empty() {
            return Err(invalid("no players"));
        }
        if roles.total() != players.len() {
            return Err(invalid(format!(
                "the role counts sum to {} but there are {} players",
                roles.total(),
                players.len()
            )));
        }
        let index: HashMap<&str, usize> =
            players.iter().enumerate().map(|(i, p)| (p.as_str(), i)).collect();
        let mut history = vec![vec![0u32; roles.names.len()]; players.len()];
        for game in past {
            for (player, role) in game {
                if let (Some(&i), Some(k)) = (index.get(player.as_str()), roles.index(role)) {
                    history[i][k] += 1;
                }
            }
        }
        Ok(Problem { players, roles, history, beta })
    }

    pub fn n(&self) -> usize {
        self.players.len()
    }

    pub fn k(&self) -> usize {
        self.roles.names.len()
    }

    /// The paper's penalty: over players, how often each had the role this assignment gives them.
    pub fn energy(&self, assignment: &[usize]) -> u64 {
        assignment.iter().enumerate().map(|(i, &k)| u64::from(self.history[i][k])).sum()
    }

    /// `log q` of player `i` getting role `k`: `-beta * history[i][k]`. The energy is a sum over
    /// players, so the weight of an assignment is the product of these per-player factors.
    pub fn log_weight(&self, i: usize, k: usize) -> f64 {
        -self.beta * f64::from(self.history[i][k])
    }

    /// The assignment as a map player → role name.
    pub fn named(&self, assignment: &[usize]) -> BTreeMap<String, String> {
        assignment
            .iter()
            .enumerate()
            .map(|(i, &k)| (self.players[i].clone(), self.roles.names[k].clone()))
            .collect()
    }

    /// The same players and roles with one more game in the history.
    pub fn with_game(&self, assignment: &[usize]) -> Problem {
        let mut next = self.clone();
        for (i, &k) in assignment.iter().enumerate() {
            next.history[i][k] += 1;
        }
        next
    }
}

/// `log(exp(a) + exp(b))` without overflow; `-inf` is the identity.
pub fn log_add(a: f64, b: f64) -> f64 {
    if a == f64::NEG_INFINITY {
        return b;
    }
    if b == f64::NEG_INFINITY {
        return a;
    }
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    hi + (lo - hi).exp().ln_1p()
}

/// Number of distinct assignments: the multinomial `n! / prod(c_k!)`, saturating at `u128::MAX`.
pub fn assignment_count(counts: &[usize]) -> u128 {
    let mut total: u128 = 1;
    let mut placed: u128 = 0;
    for &c in counts {
        // Multiply by C(placed + c, c) one factor at a time; each partial product is an integer.
        for j in 1..=c as u128 {
            placed += 1;
            total = match total.checked_mul(placed) {
                Some(t) => t / j,
                None => return u128::MAX,
            };
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::seed_four;

    #[test]
    fn seed_energies() {
        let p = seed_four(1.0);
        let e: Vec<u64> = (0..4)
            .map(|w| p.energy(&(0..4).map(|i| usize::from(i != w)).collect::<Vec<_>>()))
            .collect();
        assert_eq!(e, vec![10, 8, 6, 6]);
    }

    #[test]
    fn counts_multinomials() {
        assert_eq!(assignment_count(&[3, 1, 1, 1, 5]), 55_440);
        assert_eq!(assignment_count(&[1, 3]), 4);
        assert_eq!(assignment_count(&[200, 200]), u128::MAX);
    }

    #[test]
    fn rejects_bad_input() {
        assert!(Roles::parse("werewolf=-1,villager=3").unwrap_err().message.contains("negative"));
        assert!(Roles::parse("werewolf=1,werewolf=3").unwrap_err().message.contains("twice"));
        assert!(Roles::parse("werewolf").is_err());
        let players = vec!["a".to_string(), "a".to_string()];
        assert!(Problem::new(players, Roles::parse("w=1,v=1").unwrap(), &[], 1.0)
            .unwrap_err()
            .message
            .contains("twice"));
        let players = vec!["a".to_string(), "b".to_string()];
        assert!(Problem::new(players.clone(), Roles::parse("w=1,v=2").unwrap(), &[], 1.0)
            .unwrap_err()
            .message
            .contains("sum"));
        for beta in [-0.5, f64::NAN, f64::INFINITY] {
            assert!(
                Problem::new(players.clone(), Roles::parse("w=1,v=1").unwrap(), &[], beta).is_err()
            );
        }
    }
}
