//! Typed bot and game options: the schema a plugin declares, named presets, and validation.
//!
//! A bot's personality is a set of options. The plugin declares each option's type, default,
//! range and a one-line description; clients send plain JSON values; [`resolve`] checks them
//! against the schema and fills in defaults, so a bot only ever sees a complete, valid set.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A complete or partial set of option values, by option name.
pub type Options = BTreeMap<String, Value>;

/// The type of an option and its constraints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum OptionKind {
    /// `true` or `false`.
    Bool,
    /// A whole number, within the bounds where they are given.
    Int {
        /// Smallest value allowed, inclusive.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min: Option<i64>,
        /// Largest value allowed, inclusive.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max: Option<i64>,
    },
    /// A number, within the bounds where they are given; integers are accepted.
    Float {
        /// Smallest value allowed, inclusive.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min: Option<f64>,
        /// Largest value allowed, inclusive.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max: Option<f64>,
    },
    /// One of a fixed list of strings.
    Choice {
        /// The strings allowed, in the order a client's menu shows them.
        choices: Vec<String>,
    },
    /// Any string.
    String,
    /// Free-form JSON (a party definition, a board, a list of ranges ...) checked by the bot itself.
    Json,
}

/// One option of a bot or game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OptionSpec {
    /// The option's name, the key clients set it by.
    pub name: String,
    /// Its type and constraints, as `type` and its bounds beside `name` on the wire.
    #[serde(flatten)]
    pub kind: OptionKind,
    /// The value used when the client sets none; it passes the option's own check.
    pub default: Value,
    /// One line for people: what the option changes.
    pub description: String,
}

impl OptionSpec {
    /// A `true`/`false` option.
    pub fn bool(name: &str, default: bool, description: &str) -> Self {
        Self::new(name, OptionKind::Bool, Value::Bool(default), description)
    }

    /// An integer option; `min` and `max` bound it where given (inclusive).
    pub fn int(
        name: &str,
        default: i64,
        min: Option<i64>,
        max: Option<i64>,
        description: &str,
    ) -> Self {
        Self::new(name, OptionKind::Int { min, max }, Value::from(default), description)
    }

    /// A number option; `min` and `max` bound it where given (inclusive).
    pub fn float(
        name: &str,
        default: f64,
        min: Option<f64>,
        max: Option<f64>,
        description: &str,
    ) -> Self {
        Self::new(name, OptionKind::Float { min, max }, Value::from(default), description)
    }

    /// An option that takes one of `choices`.
    pub fn choice(name: &str, default: &str, choices: &[&str], description: &str) -> Self {
        let choices = choices.iter().map(|c| c.to_string()).collect();
        Self::new(name, OptionKind::Choice { choices }, Value::from(default), description)
    }

    /// A free string option.
    pub fn string(name: &str, default: &str, description: &str) -> Self {
        Self::new(name, OptionKind::String, Value::from(default), description)
    }

    /// A free JSON option that the bot checks itself.
    pub fn json(name: &str, default: Value, description: &str) -> Self {
        Self::new(name, OptionKind::Json, default, description)
    }

    fn new(name: &str, kind: OptionKind, default: Value, description: &str) -> Self {
        OptionSpec { name: name.into(), kind, default, description: description.into() }
    }

    /// Checks one value against this option's type and range, normalising integers given as
    /// integral floats (`3.0` for an int option) and ints given for float options.
    pub fn check(&self, value: &Value) -> Result<Value, OptionError> {
        let bad = |expected: &str| OptionError::WrongType {
            option: self.name.clone(),
            expected: expected.to_string(),
            got: value.clone(),
        };
        match &self.kind {
            OptionKind::Bool => value.as_bool().map(Value::Bool).ok_or_else(|| bad("a bool")),
            OptionKind::Int { min, max } => {
                let n = match value {
                    Value::Number(n) if n.is_i64() => n.as_i64().unwrap(),
                    Value::Number(n)
                        if n.as_f64().is_some_and(|f| f.fract() == 0.0 && f.abs() < 9e15) =>
                    {
                        n.as_f64().unwrap() as i64
                    }
                    _ => return Err(bad("an integer")),
                };
                if min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m) {
                    return Err(self.out_of_range(value));
                }
                Ok(Value::from(n))
            }
            OptionKind::Float { min, max } => {
                let x = value.as_f64().ok_or_else(|| bad("a number"))?;
                if !x.is_finite() || min.is_some_and(|m| x < m) || max.is_some_and(|m| x > m) {
                    return Err(self.out_of_range(value));
                }
                Ok(Value::from(x))
            }
            OptionKind::Choice { choices } => match value.as_str() {
                Some(s) if choices.iter().any(|c| c == s) => Ok(value.clone()),
                Some(_) => Err(OptionError::NotAChoice {
                    option: self.name.clone(),
                    got: value.clone(),
                    choices: choices.clone(),
                }),
                None => Err(bad("a string")),
            },
            OptionKind::String => {
                value.as_str().map(|_| value.clone()).ok_or_else(|| bad("a string"))
            }
            OptionKind::Json => Ok(value.clone()),
        }
    }

    fn out_of_range(&self, value: &Value) -> OptionError {
        let range = match &self.kind {
            OptionKind::Int { min, max } => {
                range_text(min.map(|m| m.to_string()), max.map(|m| m.to_string()))
            }
            OptionKind::Float { min, max } => {
                range_text(min.map(|m| m.to_string()), max.map(|m| m.to_string()))
            }
            _ => String::new(),
        };
        OptionError::OutOfRange { option: self.name.clone(), got: value.clone(), range }
    }
}

fn range_text(min: Option<String>, max: Option<String>) -> String {
    format!("[{}, {}]", min.unwrap_or_else(|| "-inf".into()), max.unwrap_or_else(|| "inf".into()))
}

/// A named set of option values: a ready-made personality.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Preset {
    /// The preset's name, as clients give it (`bot:preset=name`).
    pub name: String,
    /// One line for people: the personality it gives.
    pub description: String,
    /// The option values it sets; options it does not name keep their defaults.
    pub options: Options,
    /// Its strength measured by `yomi ladder`: Elo against the game's reference pool, the random
    /// bot at 0 (None for a preset never measured, and for game presets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elo: Option<f64>,
    /// The 95 % interval of [`elo`](Preset::elo).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elo_ci95: Option<[f64; 2]>,
}

impl Preset {
    /// A preset from a JSON object of option values (anything else sets none).
    pub fn new(name: &str, description: &str, options: Value) -> Preset {
        let options = match options {
            Value::Object(map) => map.into_iter().collect(),
            _ => Options::new(),
        };
        Preset {
            name: name.into(),
            description: description.into(),
            options,
            elo: None,
            elo_ci95: None,
        }
    }

    /// A preset that keeps every option's default (a name for the bot as it ships).
    pub fn defaults(name: &str, description: &str) -> Preset {
        Preset::new(name, description, Value::Null)
    }

    /// A preset that sets one option.
    pub fn one(name: &str, description: &str, option: &str, value: impl Into<Value>) -> Preset {
        let mut preset = Preset::defaults(name, description);
        preset.options.insert(option.into(), value.into());
        preset
    }
}

/// Why a set of options was rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OptionError {
    /// The client named an option the schema does not have (a typo, or another bot's option).
    #[error("unknown option `{option}` (known: {known})")]
    Unknown {
        /// The name as the client gave it.
        option: String,
        /// The schema's option names, so the message can suggest the right one.
        known: String,
    },
    /// The value is not of the option's type.
    #[error("option `{option}` must be {expected}, got {got}")]
    WrongType {
        /// The option's name.
        option: String,
        /// The type it takes, in words.
        expected: String,
        /// The value the client sent.
        got: Value,
    },
    /// The value is of the right type but outside the option's bounds.
    #[error("option `{option}` = {got} is out of range {range}")]
    OutOfRange {
        /// The option's name.
        option: String,
        /// The value the client sent.
        got: Value,
        /// The bounds, as `[min, max]`.
        range: String,
    },
    /// The value is not among a choice option's strings.
    #[error("option `{option}` = {got} is not one of {choices:?}")]
    NotAChoice {
        /// The option's name.
        option: String,
        /// The value the client sent.
        got: Value,
        /// The strings allowed.
        choices: Vec<String>,
    },
    /// The client named a preset the bot or game does not have.
    #[error("unknown preset `{preset}` (known: {known})")]
    UnknownPreset {
        /// The name as the client gave it.
        preset: String,
        /// The presets there are.
        known: String,
    },
}

/// An option problem on the wire: an unknown preset has its own code, every other problem is an
/// invalid option.
impl From<OptionError> for crate::ErrorInfo {
    fn from(e: OptionError) -> crate::ErrorInfo {
        let code = match e {
            OptionError::UnknownPreset { .. } => crate::ErrorCode::UnknownPreset,
            _ => crate::ErrorCode::InvalidOption,
        };
        crate::ErrorInfo::new(code, e.to_string())
    }
}

/// Checks `changes` against `schema` and applies them on top of `base` (a complete set), returning
/// the new complete set. Nothing is applied unless every change is valid.
pub fn apply_changes(
    schema: &[OptionSpec],
    base: &Options,
    changes: &Options,
) -> Result<Options, OptionError> {
    let mut out = base.clone();
    for (name, value) in changes {
        let spec = schema.iter().find(|s| &s.name == name).ok_or_else(|| OptionError::Unknown {
            option: name.clone(),
            known: schema.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", "),
        })?;
        out.insert(name.clone(), spec.check(value)?);
    }
    Ok(out)
}

/// Checks a service call's parameters against the method's declared ones (see
/// [`crate::manifest::MethodInfo::params`]) before the bot sees them: every declared parameter
/// that is present and not null must fit its type and bounds. Undeclared parameters pass through
/// to the bot, which checks their structure itself.
pub fn check_params(schema: &[OptionSpec], params: &Value) -> Result<(), crate::ErrorInfo> {
    let Value::Object(given) = params else { return Ok(()) };
    for spec in schema {
        let Some(value) = given.get(&spec.name).filter(|v| !v.is_null()) else { continue };
        let message = match spec.check(value) {
            Ok(_) => continue,
            Err(OptionError::WrongType { option, expected, got }) => {
                format!("parameter `{option}` must be {expected}, got {got}")
            }
            Err(OptionError::OutOfRange { option, got, range }) => {
                format!("parameter `{option}` = {got} is out of range {range}")
            }
            Err(OptionError::NotAChoice { option, got, choices }) => {
                format!("parameter `{option}` = {got} is not one of {choices:?}")
            }
            Err(other) => other.to_string(),
        };
        return Err(crate::ErrorInfo::new(crate::ErrorCode::InvalidParams, message));
    }
    Ok(())
}

/// The defaults of every option in the schema.
pub fn defaults(schema: &[OptionSpec]) -> Options {
    schema.iter().map(|s| (s.name.clone(), s.default.clone())).collect()
}

/// The complete option set for a new agent or game: defaults, then the preset (if named), then
/// the explicit overrides.
pub fn resolve(
    schema: &[OptionSpec],
    presets: &[Preset],
    preset: Option<&str>,
    overrides: &Options,
) -> Result<Options, OptionError> {
    let mut options = defaults(schema);
    if let Some(name) = preset {
        let preset =
            presets.iter().find(|p| p.name == name).ok_or_else(|| OptionError::UnknownPreset {
                preset: name.to_string(),
                known: presets.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", "),
            })?;
        options = apply_changes(schema, &options, &preset.options)?;
    }
    apply_changes(schema, &options, overrides)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Vec<OptionSpec> {
        vec![
            OptionSpec::float("delta", 0.1, Some(0.0), Some(1.0), "noise"),
            OptionSpec::int("n", 10, Some(1), None, "samples"),
            OptionSpec::choice("noise", "uniform", &["uniform", "normal"], "model"),
            OptionSpec::bool("bluff", true, "bluffs"),
            OptionSpec::string("label", "x", "a label"),
        ]
    }

    #[test]
    fn schema_round_trips() {
        for spec in schema() {
            let text = serde_json::to_string(&spec).unwrap();
            assert_eq!(serde_json::from_str::<OptionSpec>(&text).unwrap(), spec);
        }
        let text = serde_json::to_value(&schema()[0]).unwrap();
        assert_eq!(
            text,
            json!({"name":"delta","type":"float","min":0.0,"max":1.0,"default":0.1,"description":"noise"})
        );
    }

    #[test]
    fn resolve_layers_defaults_preset_overrides() {
        let presets = vec![Preset::new("human", "", json!({"delta": 0.2, "noise": "normal"}))];
        let opts =
            resolve(&schema(), &presets, Some("human"), &Options::from([("n".into(), json!(3))]))
                .unwrap();
        assert_eq!(opts["delta"], json!(0.2));
        assert_eq!(opts["noise"], json!("normal"));
        assert_eq!(opts["n"], json!(3));
        assert_eq!(opts["bluff"], json!(true));
    }

    #[test]
    fn bad_values_are_rejected() {
        let s = schema();
        let base = defaults(&s);
        let cases = [
            (json!({"delta": "big"}), "must be a number"),
            (json!({"delta": 1.5}), "out of range"),
            (json!({"n": 0}), "out of range"),
            (json!({"n": 2.5}), "must be an integer"),
            (json!({"noise": "cauchy"}), "not one of"),
            (json!({"bluff": 1}), "must be a bool"),
            (json!({"label": 3}), "must be a string"),
            (json!({"colour": 3}), "unknown option"),
        ];
        for (changes, want) in cases {
            let changes: Options = serde_json::from_value(changes).unwrap();
            let err = apply_changes(&s, &base, &changes).unwrap_err().to_string();
            assert!(err.contains(want), "{err} should contain {want}");
        }
        assert!(resolve(&s, &[], Some("nope"), &Options::new()).is_err());
    }

    #[test]
    fn declared_parameters_are_checked_and_others_pass() {
        let s = schema();
        assert!(check_params(&s, &json!({"n": 5, "other": [1, 2], "delta": null})).is_ok());
        assert!(check_params(&s, &Value::Null).is_ok(), "no parameters: the bot's defaults");
        let cases = [
            (json!({"n": 0}), "parameter `n` = 0 is out of range [1, inf]"),
            (json!({"delta": 2}), "parameter `delta` = 2 is out of range [0, 1]"),
            (json!({"n": "many"}), "parameter `n` must be an integer, got \"many\""),
            (json!({"noise": "cauchy"}), "parameter `noise` = \"cauchy\" is not one of"),
        ];
        for (params, want) in cases {
            let e = check_params(&s, &params).unwrap_err();
            assert_eq!(e.code, crate::ErrorCode::InvalidParams);
            assert!(e.message.starts_with(want), "{} should start with {want}", e.message);
        }
    }

    #[test]
    fn integral_floats_count_as_ints() {
        let s = schema();
        let changes: Options = serde_json::from_value(json!({"n": 4.0, "delta": 0})).unwrap();
        let opts = apply_changes(&s, &defaults(&s), &changes).unwrap();
        assert_eq!(opts["n"], json!(4));
        assert_eq!(opts["delta"], json!(0.0));
    }

    proptest::proptest! {
        #[test]
        fn in_range_floats_always_pass(x in 0.0f64..=1.0) {
            let s = schema();
            let changes = Options::from([("delta".to_string(), json!(x))]);
            proptest::prop_assert!(apply_changes(&s, &defaults(&s), &changes).is_ok());
        }
    }
}
