//! The one rule for a request a bot cannot use (PROTOCOL.md, "Errors"): an observation that does
//! not fit its game, an unknown word in an enum-like field, or a `legal` list that does not fit the
//! observation is `invalid_params`, and the message starts with the request's field
//! (`observation.phase`, `legal[2]`). Every bot of every plugin refuses through these functions, so
//! a client tells its own mistake from a bot's failure (`bot_error`) by the code alone.

use std::fmt::Display;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use yomi_protocol::{ErrorCode, ErrorInfo};

/// The error for the request's `field` (`observation.state.hp`, `legal[1]`): `message` goes on
/// after the field's name and a colon: "`observation.phase`: must be one of ...".
pub fn error(field: impl Display, message: impl Display) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::InvalidParams, format!("`{field}`: {message}"))
}

/// Marks a message written by [`rule`], so the typed adapter (`crate::typed`) knows it names
/// what went wrong in the rule's own words and puts the field's path before it.
pub(crate) const RULE: char = '\u{1f}';

/// The same rule inside a payload type's `Deserialize`: `message` ("must be one of ...") becomes
/// "`observation.<path to the field>`: message" when the typed adapter reads the request.
pub fn rule<E: serde::de::Error>(message: impl Display) -> E {
    E::custom(format_args!("{RULE}{message}"))
}

/// An enum-like word of a payload type, read by the rule of [`one_of`]: `words` pairs each word
/// with its value.
pub fn word<'de, D, T>(deserializer: D, words: &[(&str, T)]) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Copy,
{
    let value = Value::deserialize(deserializer)?;
    let known: Vec<&str> = words.iter().map(|(w, _)| *w).collect();
    let word = one_of(Some(&value), "", &known).map_err(|e| rule(unfielded(&e.message)))?;
    Ok(words.iter().find(|(w, _)| *w == word).expect("one_of found it").1)
}

/// A true-or-false field of a payload type, refused in the rule's words.
pub fn boolean<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    match Value::deserialize(deserializer)? {
        Value::Bool(b) => Ok(b),
        other => Err(rule(format_args!("must be true or false, not {other}"))),
    }
}

/// A count or index field of a payload type (a JSON integer of 0 or more), refused in the rule's
/// words.
pub fn natural<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    let value = Value::deserialize(deserializer)?;
    value.as_u64().ok_or_else(|| rule(format_args!("must be a non-negative integer, not {value}")))
}

/// `message` of [`error`] without its "`field`: " head.
fn unfielded(message: &str) -> &str {
    message.split_once(": ").map_or(message, |(_, rest)| rest)
}

/// Reads an enum-like string field: one of `known`, or the error naming the field, the word given
/// and the words allowed (so a typo such as `"chose"` is refused, never read as a default).
pub fn one_of<'a>(
    value: Option<&Value>,
    field: &str,
    known: &[&'a str],
) -> Result<&'a str, ErrorInfo> {
    let words = known.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
    match value {
        None => Err(error(field, format!("missing (one of {words})"))),
        Some(v) => v
            .as_str()
            .and_then(|s| known.iter().find(|k| **k == s).copied())
            .ok_or_else(|| error(field, format!("must be one of {words}, not {v}"))),
    }
}

/// Checks the request's list `field` (`legal`) of `offered` actions against the ones its
/// observation `allowed`s (in any order): every offered action must be allowed, and a list that
/// is given must list them all (a bot chooses among what the observation allows). An empty
/// `offered` is a list not given: the caller then plays from `allowed`. An observation that
/// allows nothing is refused, since a bot asked to act must have something to do.
pub fn check_legal<T: PartialEq + Serialize>(
    field: &str,
    offered: &[T],
    allowed: &[T],
) -> Result<(), ErrorInfo> {
    let show = |a: &T| serde_json::to_string(a).unwrap_or_else(|e| e.to_string());
    let listed = || allowed.iter().map(show).collect::<Vec<_>>().join(", ");
    if allowed.is_empty() {
        return Err(error("observation", "no action is legal in it"));
    }
    if let Some((i, a)) = offered.iter().enumerate().find(|(_, a)| !allowed.contains(a)) {
        return Err(error(
            format!("{field}[{i}]"),
            format!("{} is not legal in this observation (it allows {})", show(a), listed()),
        ));
    }
    match allowed.iter().find(|a| !offered.is_empty() && !offered.contains(a)) {
        Some(a) => Err(error(
            field,
            format!("lacks {}, which this observation allows (it allows {})", show(a), listed()),
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn enum_words_are_read_exactly() {
        let phase = json!({"phase": "chose"});
        assert_eq!(one_of(Some(&json!("bet")), "observation.phase", &["bet", "reveal"]), Ok("bet"));
        let typo = one_of(phase.get("phase"), "observation.phase", &["choose", "replace"]);
        let typo = typo.unwrap_err();
        assert_eq!(typo.code, ErrorCode::InvalidParams);
        assert_eq!(
            typo.message,
            "`observation.phase`: must be one of `choose`, `replace`, not \"chose\""
        );
        let missing = one_of(None, "observation.phase", &["bet"]).unwrap_err();
        assert_eq!(missing.message, "`observation.phase`: missing (one of `bet`)");
        assert!(one_of(Some(&json!(1)), "observation.phase", &["bet"]).is_err());
    }

    #[test]
    fn a_legal_list_must_be_the_observations() {
        let allowed = [json!("a"), json!("b")];
        assert_eq!(check_legal("legal", &[json!("b"), json!("a")], &allowed), Ok(()));
        assert_eq!(check_legal("legal", &[], &allowed), Ok(()), "a list not given");
        let stray = check_legal("legal", &[json!("a"), json!("c")], &allowed).unwrap_err();
        assert_eq!(stray.code, ErrorCode::InvalidParams);
        assert!(stray.message.starts_with("`legal[1]`: \"c\" is not legal"), "{}", stray.message);
        let short = check_legal("observation.legal", &[json!("a")], &allowed).unwrap_err();
        assert!(short.message.starts_with("`observation.legal`: lacks \"b\""), "{}", short.message);
        let none = check_legal::<Value>("legal", &[], &[]).unwrap_err();
        assert_eq!(none.message, "`observation`: no action is legal in it");
    }
}
