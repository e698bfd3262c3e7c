//! The `roles` bot's options, and per-request overrides of them: a request may name any option
//! (`beta`, `sampler`, ...) among its parameters to use another value for that request only.

use serde_json::Value;
use yomi_plugin::protocol::options::OptionKind;
use yomi_plugin::{ErrorInfo, OptionSpec, Options};

use crate::mh::MhConfig;
use crate::model::{check_beta, invalid, MAX_BETA};
use crate::request::Params;
use crate::sampler::{Method, METHOD_NAMES};

/// Upper bounds shared by the option schema and the per-request checks.
const MAX_GAMES: i64 = 1000;
const MAX_RUNS: i64 = 10_000_000;
const MAX_STEPS: i64 = 1_000_000_000;

/// The option schema of the `roles` bot.
pub fn option_specs() -> Vec<OptionSpec> {
    vec![
        OptionSpec::float("beta", 1.0, Some(0.0), Some(MAX_BETA), "inverse temperature: 0 deals uniformly, larger leans harder towards roles a player has not had"),
        OptionSpec::choice("sampler", "exact", &METHOD_NAMES, "exact: dynamic programming (any size); mh: Metropolis-Hastings with swaps; enumerate: list every assignment (small games)"),
        OptionSpec::int("burn_in", 1000, Some(0), Some(MAX_STEPS), "MH steps discarded before the first sample"),
        OptionSpec::int("thin", 10, Some(1), Some(MAX_STEPS), "MH steps between kept samples"),
        OptionSpec::string("role", "werewolf", "the role `analyze` reports fairness and guessability for"),
        OptionSpec::int("games", 4, Some(1), Some(MAX_GAMES), "k: `analyze` gives P(someone never gets the role within k games)"),
        OptionSpec::int("runs", 1_000, Some(1), Some(MAX_RUNS), "simulated runs for `analyze` when the exact computation is too large"),
    ]
}

/// The options a request may override, with the bounds the host checks before a service call
/// (tighter than the options', which the operator's CLI may use in full). A request's total work
/// is bounded again by the service, since it is a product of these.
pub fn request_params(names: &[&str]) -> Vec<OptionSpec> {
    let bounds = [("burn_in", 1_000_000), ("thin", 10_000), ("games", 100), ("runs", 10_000)];
    option_specs()
        .into_iter()
        .filter(|o| names.contains(&o.name.as_str()))
        .map(|mut o| {
            if let (OptionKind::Int { max, .. }, Some((_, b))) =
                (&mut o.kind, bounds.iter().find(|(n, _)| *n == o.name))
            {
                *max = Some(*b);
            }
            o
        })
        .collect()
}

/// A complete, checked set of settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub beta: f64,
    pub sampler: String,
    pub burn_in: u64,
    pub thin: u64,
    pub role: String,
    pub games: u32,
    pub runs: u64,
}

fn int_in(value: i64, name: &str, min: i64, max: i64) -> Result<i64, ErrorInfo> {
    if value < min || value > max {
        return Err(invalid(format!("`{name}` must be between {min} and {max}, got {value}")));
    }
    Ok(value)
}

impl Settings {
    /// Reads an option set; options it lacks take their schema defaults.
    pub fn from_options(options: &Options) -> Result<Settings, ErrorInfo> {
        let mut all: serde_json::Map<String, Value> =
            option_specs().into_iter().map(|o| (o.name, o.default)).collect();
        all.extend(options.iter().map(|(k, v)| (k.clone(), v.clone())));
        // Every field is overwritten: `all` names every option.
        let blank = Settings {
            beta: 0.0,
            sampler: String::new(),
            burn_in: 0,
            thin: 1,
            role: String::new(),
            games: 1,
            runs: 1,
        };
        blank.with(&Params::read(&Value::Object(all))?)
    }

    /// These settings with any option named in `params` replaced, each value checked.
    pub fn with(&self, params: &Params) -> Result<Settings, ErrorInfo> {
        let mut s = self.clone();
        if let Some(beta) = params.beta {
            s.beta = check_beta(beta)?;
        }
        if let Some(name) = &params.sampler {
            Method::parse(name, MhConfig { burn_in: 0, thin: 1 })?;
            s.sampler = name.clone();
        }
        if let Some(v) = params.burn_in {
            s.burn_in = int_in(v, "burn_in", 0, MAX_STEPS)? as u64;
        }
        if let Some(v) = params.thin {
            s.thin = int_in(v, "thin", 1, MAX_STEPS)? as u64;
        }
        if let Some(role) = &params.role {
            s.role = role.clone();
        }
        if let Some(v) = params.games {
            s.games = int_in(v, "games", 1, MAX_GAMES)? as u32;
        }
        if let Some(v) = params.runs {
            s.runs = int_in(v, "runs", 1, MAX_RUNS)? as u64;
        }
        Ok(s)
    }

    /// The sampler these settings select.
    pub fn method(&self) -> Result<Method, ErrorInfo> {
        Method::parse(&self.sampler, MhConfig { burn_in: self.burn_in, thin: self.thin })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(params: Value) -> Params {
        Params::read(&params).unwrap()
    }

    fn defaults() -> Options {
        option_specs().into_iter().map(|o| (o.name, o.default)).collect()
    }

    #[test]
    fn defaults_read_back_and_overrides_are_checked() {
        let s = Settings::from_options(&defaults()).unwrap();
        assert_eq!((s.beta, s.sampler.as_str(), s.games), (1.0, "exact", 4));
        assert_eq!(
            s.with(&read(json!({"beta": 2.0, "sampler": "mh"}))).unwrap().method().unwrap(),
            Method::Mh(MhConfig { burn_in: 1000, thin: 10 })
        );
        assert!(s.with(&read(json!({"beta": -1.0}))).unwrap_err().message.contains("negative"));
        assert!(s.with(&read(json!({"thin": 0}))).is_err());
        assert!(s.with(&read(json!({"sampler": "gibbs"}))).is_err());
        let wrong = Params::read(&json!({"thin": "ten"})).unwrap_err();
        assert!(wrong.message.starts_with("`params.thin`: invalid type"), "{}", wrong.message);
    }
}
