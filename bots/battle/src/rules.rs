//! The rules as data: types and the type chart (the paper's table 4.2), Pokémon, parties (the paper's tables 4.3,
//! 4.4 and the δ-experiment variant) and the rule switches where the paper is silent. A [`Rules`]
//! value is everything that decides the game's values, so it is also the key of the solved table.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use yomi_plugin::{ErrorCode, ErrorInfo};

/// Largest HP a Pokémon may have (paper §4.1.2-2); the value table's radix depends on it.
pub const MAX_HP: u8 = 5;
/// Largest speed (paper §4.1.2-2).
pub const MAX_SPEED: u8 = 10;
/// Largest turn limit: the value table has one layer per turn below it.
pub const MAX_TURN_LIMIT: u8 = 40;
/// Default turn limit: a game still undecided when turn 20 is reached is judged (paper §4.1.2-4(d)).
pub const TURN_LIMIT: u8 = 20;

/// The four types, in the order of the paper's chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Type {
    Fire,
    Grass,
    Electric,
    Water,
}

/// Damage multiplier, `MULT[move type][defender type]`. The paper's printed corner label reads
/// "defence / attack", but rows must be the attacking move: only that reading gives water → fire
/// 1.5 and reproduces the zero/one structure of the paper's matrix (5.1) (spec U1).
const MULT: [[f64; 4]; 4] = [
    [0.5, 1.5, 1.0, 0.5], // fire →
    [0.5, 0.5, 1.5, 1.0], // grass →
    [1.0, 0.5, 0.5, 1.5], // electric →
    [1.5, 1.0, 0.5, 0.5], // water →
];

impl Type {
    pub fn name(self) -> &'static str {
        match self {
            Type::Fire => "fire",
            Type::Grass => "grass",
            Type::Electric => "electric",
            Type::Water => "water",
        }
    }

    /// The chart's multiplier of a move of this type against a defender of type `defender`.
    pub fn multiplier(self, defender: Type) -> f64 {
        MULT[self as usize][defender as usize]
    }
}

/// One Pokémon as the rules define it (its maximum HP; current HP lives in the state).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pokemon {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: Type,
    pub hp: u8,
    pub speed: u8,
    pub moves: [Type; 3],
}

/// Everything that decides the game's values: both parties and the rule switches.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub struct Rules {
    /// `parties[0]` is party 1 (the row player in every matrix), `parties[1]` party 2; read also
    /// as a party set's name (`"thesis"`), as the game option names it.
    #[serde(deserialize_with = "named_or_listed")]
    #[schemars(with = "PartiesSchema")]
    pub parties: [[Pokemon; 3]; 2],
    /// Spec U2 variant: a same-type move at multiplier 1.0 also gets ×1.5 (3 damage). The paper's
    /// text grants the same-type bonus only at 1.5, so this is off by default.
    pub same_type_neutral: bool,
    /// The turn at which an undecided game is judged; players act in turns 1..turn_limit-1.
    pub turn_limit: u8,
}

fn mon(name: &str, ty: Type, hp: u8, speed: u8, moves: [Type; 3]) -> Pokemon {
    Pokemon { name: name.into(), ty, hp, speed, moves }
}

/// The party presets by name: `thesis` (the paper's tables 4.3 and 4.4) and `delta-experiment` (the same
/// with E and F at HP 5, which the paper uses for matrix (5.1) and table 5.3 only).
pub const PARTY_PRESETS: [&str; 2] = ["thesis", "delta-experiment"];

/// How [`Rules::parties`] may be written: a party set's name or the six Pokémon.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)] // a schema only: what `named_or_listed` reads
enum PartiesSchema {
    Named(String),
    Listed([[Pokemon; 3]; 2]),
}

/// Reads parties given by a party set's name or listed (see [`PartiesSchema`]); an unknown name
/// is refused in the kit's words, naming the field's path.
fn named_or_listed<'de, D: Deserializer<'de>>(d: D) -> Result<[[Pokemon; 3]; 2], D::Error> {
    d.deserialize_any(PartiesVisitor)
}

/// Reads parties straight from the request's JSON, without an intermediate value.
struct PartiesVisitor;

impl<'de> serde::de::Visitor<'de> for PartiesVisitor {
    type Value = [[Pokemon; 3]; 2];

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a party set's name or two parties of three Pokémon")
    }

    fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Self::Value, E> {
        preset_parties(name).map_err(|e| yomi_plugin::misfit::rule(e.message))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Self::Value::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))
    }
}

/// The named parties.
pub fn preset_parties(name: &str) -> Result<[[Pokemon; 3]; 2], ErrorInfo> {
    use Type::*;
    let efhp = match name {
        "thesis" => 4,
        "delta-experiment" => 5,
        _ => {
            return Err(ErrorInfo::new(
                ErrorCode::InvalidParams,
                format!("unknown parties `{name}` (known: {})", PARTY_PRESETS.join(", ")),
            ))
        }
    };
    Ok([
        [
            mon("A", Grass, 5, 5, [Grass, Fire, Electric]),
            mon("B", Water, 5, 4, [Water, Fire, Electric]),
            mon("C", Electric, 5, 10, [Electric, Grass, Water]),
        ],
        [
            mon("D", Grass, 5, 6, [Grass, Fire, Electric]),
            mon("E", Fire, efhp, 7, [Water, Fire, Electric]),
            mon("F", Electric, efhp, 8, [Electric, Grass, Water]),
        ],
    ])
}

fn bad(message: String) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::InvalidParams, message)
}

/// Reads user-defined parties: a JSON array of two arrays of three Pokémon objects
/// `{"name","type","hp","speed","moves"}`.
pub fn parse_parties(value: &Value) -> Result<[[Pokemon; 3]; 2], ErrorInfo> {
    let parties = value.as_array().filter(|a| a.len() == 2).ok_or_else(|| {
        bad("custom parties must be a JSON array of two parties, each an array of three Pokémon".into())
    })?;
    let mut out: Vec<[Pokemon; 3]> = Vec::with_capacity(2);
    for (i, party) in parties.iter().enumerate() {
        let list =
            party.as_array().ok_or_else(|| bad(format!("party {} is not an array", i + 1)))?;
        if list.len() != 3 {
            return Err(bad(format!(
                "party {} has {} Pokémon; a party is exactly three",
                i + 1,
                list.len()
            )));
        }
        let mons: Vec<Pokemon> = list
            .iter()
            .map(|p| {
                serde_json::from_value(p.clone()).map_err(|e| bad(format!("party {}: {e}", i + 1)))
            })
            .collect::<Result<_, _>>()?;
        out.push(mons.try_into().expect("three checked above"));
    }
    Ok(out.try_into().expect("two checked above"))
}

impl Rules {
    /// Rules with the given parties, checked.
    pub fn new(
        parties: [[Pokemon; 3]; 2],
        same_type_neutral: bool,
        turn_limit: u8,
    ) -> Result<Rules, ErrorInfo> {
        let rules = Rules { parties, same_type_neutral, turn_limit };
        rules.validate()?;
        Ok(rules)
    }

    /// The paper's rules with a named party preset.
    pub fn preset(name: &str) -> Result<Rules, ErrorInfo> {
        Rules::new(preset_parties(name)?, false, TURN_LIMIT)
    }

    /// Checks every bound: the game options, `analyze` and the rules inside an observation all
    /// come through here, so a client can name no rules the options would refuse.
    pub fn validate(&self) -> Result<(), ErrorInfo> {
        if !(2..=MAX_TURN_LIMIT).contains(&self.turn_limit) {
            return Err(bad(format!(
                "turn limit {} is out of range [2, {MAX_TURN_LIMIT}]",
                self.turn_limit
            )));
        }
        let mut names: Vec<&str> = Vec::new();
        for p in self.parties.iter().flatten() {
            if p.name.is_empty() || names.contains(&p.name.as_str()) {
                return Err(bad(format!(
                    "Pokémon names must be non-empty and unique; `{}` is not",
                    p.name
                )));
            }
            names.push(&p.name);
            if !(1..=MAX_HP).contains(&p.hp) {
                return Err(bad(format!("{}: HP {} is out of range [1, {MAX_HP}]", p.name, p.hp)));
            }
            if !(1..=MAX_SPEED).contains(&p.speed) {
                return Err(bad(format!(
                    "{}: speed {} is out of range [1, {MAX_SPEED}]",
                    p.name, p.speed
                )));
            }
            let moves = &p.moves;
            if moves[0] == moves[1] || moves[0] == moves[2] || moves[1] == moves[2] {
                return Err(bad(format!(
                    "{}: its three moves must have different types (moves are named by type)",
                    p.name
                )));
            }
        }
        Ok(())
    }

    /// The Pokémon at a flat slot (0..3 party 1, 3..6 party 2).
    pub fn pokemon(&self, flat: usize) -> &Pokemon {
        &self.parties[flat / 3][flat % 3]
    }

    /// The flat slot of a Pokémon by name.
    pub fn find(&self, name: &str) -> Result<usize, ErrorInfo> {
        (0..6).find(|&i| self.pokemon(i).name == name).ok_or_else(|| {
            let known: Vec<&str> = (0..6).map(|i| self.pokemon(i).name.as_str()).collect();
            bad(format!("unknown Pokémon `{name}` (known: {})", known.join(", ")))
        })
    }

    /// Damage of `attacker`'s move of type `mv` on `defender`: 2 × multiplier, where 1.5 becomes
    /// 2.0 for a same-type move (paper §4.1.2-3(a)). Always 1, 2, 3 or 4.
    pub fn damage(&self, attacker: &Pokemon, mv: Type, defender: &Pokemon) -> u8 {
        let mut m = mv.multiplier(defender.ty);
        if mv == attacker.ty {
            if m == 1.5 {
                m = 2.0;
            } else if m == 1.0 && self.same_type_neutral {
                m = 1.5;
            }
        }
        (2.0 * m) as u8
    }

    /// A stable key for caches of solved tables.
    pub fn key(&self) -> String {
        serde_json::to_string(self).expect("rules serialize")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chart_rows_are_the_attacking_move() {
        assert_eq!(Type::Water.multiplier(Type::Fire), 1.5);
        assert_eq!(Type::Fire.multiplier(Type::Grass), 1.5);
        assert_eq!(Type::Fire.multiplier(Type::Water), 0.5);
    }

    #[test]
    fn damage_table_matches_the_spec() {
        let r = Rules::preset("thesis").unwrap();
        let p = |i| r.pokemon(i);
        // A's grass on F is super effective and same type: 4. B's water on E: 4. E's fire on A: 4.
        assert_eq!(r.damage(p(0), Type::Grass, p(5)), 4);
        assert_eq!(r.damage(p(1), Type::Water, p(4)), 4);
        assert_eq!(r.damage(p(4), Type::Fire, p(0)), 4);
        // A's fire on D: 3 (1.5, not same type). C's electric on D: 1. C's water on D: 2.
        assert_eq!(r.damage(p(0), Type::Fire, p(3)), 3);
        assert_eq!(r.damage(p(2), Type::Electric, p(3)), 1);
        assert_eq!(r.damage(p(2), Type::Water, p(3)), 2);
    }

    #[test]
    fn bad_parties_are_rejected_clearly() {
        let two = serde_json::json!([[{"name":"A","type":"grass","hp":5,"speed":5,"moves":["grass","fire","water"]}], []]);
        assert!(parse_parties(&two).unwrap_err().message.contains("exactly three"));
        let mon = |ty: &str| serde_json::json!({"name":"A","type":ty,"hp":5,"speed":5,"moves":["grass","fire","water"]});
        let bad_type = serde_json::json!([
            [mon("rock"), mon("fire"), mon("water")],
            [mon("fire"), mon("fire"), mon("fire")]
        ]);
        assert!(parse_parties(&bad_type).unwrap_err().message.contains("rock"));
        let mut parties = preset_parties("thesis").unwrap();
        parties[0][0].hp = 6;
        assert!(Rules::new(parties, false, 20).unwrap_err().message.contains("HP 6"));
        assert!(Rules::preset("nope").unwrap_err().message.contains("unknown parties"));
    }
}
