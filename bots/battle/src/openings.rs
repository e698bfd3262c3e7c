//! The battle's openings: the paper's set-up is the only chance in the game (4.1.2-4(a),(b)),
//! which seat holds party 1 and each side's first active Pokémon, "9 initial positions ignoring
//! which player holds which party". An opening fixes both (`deal: fixed`, `actives`); a
//! tournament's `--repeat` then plays each with the parties swapped.

use serde::Serialize;
use serde_json::Value;
use yomi_plugin::typed::to_json;
use yomi_plugin::{ErrorCode, ErrorInfo, Options};

/// The `actives` option: party 1's and party 2's first active Pokémon, or None to leave them
/// to `start`.
pub fn actives(options: &Options) -> Result<Option<[u8; 2]>, ErrorInfo> {
    let value = options.get("actives").unwrap_or(&Value::Null);
    if value.is_null() {
        return Ok(None);
    }
    let pair = value.as_array().filter(|a| a.len() == 2).and_then(|a| {
        let index = |v: &Value| v.as_u64().filter(|&i| i < 3).map(|i| i as u8);
        Some([index(&a[0])?, index(&a[1])?])
    });
    pair.map(Some).ok_or_else(|| {
        ErrorInfo::new(
            ErrorCode::InvalidOption,
            format!(
                "option `actives` is [party 1's first active, party 2's], each 0, 1 or 2; got {value}"
            ),
        )
    })
}

/// One opening's game options: the parties, party 1 in seat 0, both first actives fixed.
#[derive(Serialize)]
struct Opening<'a> {
    parties: &'a str,
    deal: &'a str,
    actives: [u8; 2],
}

/// The suite of the nine initial positions of `parties` (a party preset), one line each.
pub fn suite(parties: &str) -> String {
    let mut text = format!(
        "# The nine initial positions of the paper's set-up (4.1.2-4(b)) with the `{parties}` \
         parties:\n# party 1 in seat 0, each side's first active Pokémon fixed. Play with \
         --repeat so each\n# position is also played with the parties swapped.\n"
    );
    for a in 0..3 {
        for b in 0..3 {
            let line = to_json(&Opening { parties, deal: "fixed", actives: [a, b] });
            text += &format!("{line}\n");
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn options(actives: Value) -> Options {
        [("actives".to_string(), actives)].into_iter().collect()
    }

    #[test]
    fn actives_are_two_indices_below_three() {
        assert_eq!(actives(&Options::new()).unwrap(), None);
        assert_eq!(actives(&options(json!([2, 0]))).unwrap(), Some([2, 0]));
        for bad in [json!([3, 0]), json!([1]), json!("0,1"), json!([-1, 0])] {
            let e = actives(&options(bad.clone())).unwrap_err();
            assert!(e.message.contains("option `actives`"), "{bad}: {}", e.message);
        }
    }

    #[test]
    fn the_suite_holds_the_nine_set_ups() {
        let text = suite("thesis");
        let set_ups: Vec<Value> = text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| serde_json::from_str::<Value>(l).unwrap()["actives"].clone())
            .collect();
        let mut distinct = set_ups.clone();
        distinct.dedup();
        assert_eq!((set_ups.len(), distinct.len()), (9, 9));
    }
}
