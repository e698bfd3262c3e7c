//! Option values the check tries, made from a bot's option schema: values the schema must refuse,
//! valid values at its edges, misshapen free-form values, and a valid value one step away.

use serde_json::{json, Value};
use yomi_protocol::{OptionKind, OptionSpec};

/// Values the schema must refuse for this option: of the wrong type, or outside its bounds.
pub(crate) fn refused(spec: &OptionSpec) -> Vec<Value> {
    match &spec.kind {
        OptionKind::Bool => vec![json!("yes")],
        OptionKind::Int { min, max } => {
            let mut values = vec![json!("three"), json!(1.5)];
            values.extend(min.and_then(|m| m.checked_sub(1)).map(Value::from));
            values.extend(max.and_then(|m| m.checked_add(1)).map(Value::from));
            values
        }
        OptionKind::Float { min, max } => {
            let mut values = vec![json!("x")];
            values.extend(min.map(|m| Value::from(m - 1.0)));
            values.extend(max.map(|m| Value::from(m + 1.0)));
            values
        }
        OptionKind::Choice { .. } => vec![json!(3), json!("no-such-choice")],
        OptionKind::String => vec![json!(3)],
        OptionKind::Json => vec![],
    }
}

/// Valid values at the edges of this option: each bound, each choice, both booleans.
pub(crate) fn edges(spec: &OptionSpec) -> Vec<Value> {
    match &spec.kind {
        OptionKind::Bool => vec![json!(false), json!(true)],
        OptionKind::Int { min, max } => min.iter().chain(max).map(|&v| Value::from(v)).collect(),
        OptionKind::Float { min, max } => min.iter().chain(max).map(|&v| Value::from(v)).collect(),
        OptionKind::Choice { choices } => choices.iter().map(|c| Value::from(c.as_str())).collect(),
        OptionKind::String | OptionKind::Json => vec![],
    }
}

/// Values of a free-form (json) option that the schema lets through but that are of another JSON
/// type than its default: what the bot must refuse clearly or take, never crash on.
pub(crate) fn misshapen(spec: &OptionSpec) -> Vec<Value> {
    if spec.kind != OptionKind::Json {
        return vec![];
    }
    let kind = |v: &Value| std::mem::discriminant(v);
    [json!(-1), json!("not this option"), json!({"no_such_field": true}), json!([[]])]
        .into_iter()
        .filter(|v| kind(v) != kind(&spec.default))
        .collect()
}

/// A valid value one step from `current`: the other boolean, the next integer, halfway to the
/// farther bound of a float bounded on both sides (else one further from its bound), the next
/// choice. `None` for strings and free-form values.
pub(crate) fn step(spec: &OptionSpec, current: &Value) -> Option<Value> {
    match &spec.kind {
        OptionKind::Bool => current.as_bool().map(|b| Value::from(!b)),
        OptionKind::Int { min, max } => {
            let n = current.as_i64()?;
            let up = n.checked_add(1).filter(|u| max.is_none_or(|m| *u <= m));
            let down = n.checked_sub(1).filter(|d| min.is_none_or(|m| *d >= m));
            up.or(down).map(Value::from)
        }
        OptionKind::Float { min, max } => {
            let x = current.as_f64()?;
            let to = match (min, max) {
                (Some(lo), Some(hi)) if hi - x >= x - lo => (x + hi) / 2.0,
                (Some(lo), Some(_)) => (x + lo) / 2.0,
                (None, Some(_)) => x - 1.0,
                (_, None) => x + 1.0,
            };
            (to != x).then(|| Value::from(to))
        }
        OptionKind::Choice { choices } => {
            let at = choices.iter().position(|c| Some(c.as_str()) == current.as_str())?;
            choices
                .get((at + 1) % choices.len())
                .filter(|c| *c != &choices[at])
                .map(|c| Value::from(c.as_str()))
        }
        OptionKind::String | OptionKind::Json => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refused_values_are_refused_and_edges_and_steps_are_taken_by_the_schema() {
        let schema = [
            OptionSpec::bool("b", true, ""),
            OptionSpec::int("i", 0, Some(0), Some(2), ""),
            OptionSpec::int("free", 5, None, None, ""),
            OptionSpec::float("f", 0.0, Some(0.0), Some(1.0), ""),
            OptionSpec::float("low", 0.15, Some(0.0), None, ""),
            OptionSpec::choice("c", "rock", &["rock", "paper"], ""),
            OptionSpec::string("s", "x", ""),
        ];
        for spec in &schema {
            for bad in refused(spec) {
                assert!(spec.check(&bad).is_err(), "{} took {bad}", spec.name);
            }
            for good in edges(spec).into_iter().chain(step(spec, &spec.default)) {
                assert!(spec.check(&good).is_ok(), "{} refused {good}", spec.name);
            }
        }
        assert_eq!(step(&schema[1], &json!(2)), Some(json!(1)), "at the top, one down");
        assert_eq!(step(&schema[3], &json!(0.0)), Some(json!(0.5)), "halfway to the far bound");
        assert_eq!(step(&schema[4], &json!(0.15)), Some(json!(1.15)));
        assert_eq!(step(&schema[5], &json!("paper")), Some(json!("rock")), "choices wrap");
        assert_eq!(step(&schema[6], &json!("x")), None);
    }

    #[test]
    fn misshapen_values_are_of_another_type_than_the_default() {
        let deals = OptionSpec::json("deals", json!(""), "");
        let shapes = misshapen(&deals);
        assert_eq!(shapes.len(), 3);
        assert!(shapes.iter().all(|v| !v.is_string()));
        assert!(misshapen(&OptionSpec::int("i", 0, None, None, "")).is_empty());
    }
}
