//! The rule variables of Sevens, each a game option (the paper assumes the common Japanese rules
//! without restating them; these are the points where house rules differ).

use yomi_plugin::api::opt;
use yomi_plugin::{ErrorCode, ErrorInfo, OptionSpec, Options};

/// What happens to a player who passes with no passes left; in JSON, its option word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutOfPasses {
    /// Passing is always allowed; a pass beyond the limit puts the player out: their hand goes onto
    /// the table and they rank last among those still playing (the spec's rule).
    Out,
    /// With no passes left a player must play a playable card; only a player who cannot play may
    /// pass, and that pass puts them out.
    MustPlay,
}

impl OutOfPasses {
    /// Each rule with its word (the game option's and the observation's).
    pub const WORDS: [(&'static str, OutOfPasses); 2] =
        [("out", OutOfPasses::Out), ("must_play", OutOfPasses::MustPlay)];
}

/// Read by the kit's rule for words, so a typo is refused naming the field.
impl<'de> serde::Deserialize<'de> for OutOfPasses {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<OutOfPasses, D::Error> {
        yomi_plugin::misfit::word(d, &OutOfPasses::WORDS)
    }
}

/// Who makes the first move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstPlayer {
    /// The 48 non-7 cards are dealt evenly from the seat after the dealer, who starts.
    AfterDealer,
    /// The whole deck is dealt from the seat after the dealer (hands may differ by one card), the
    /// 7s go to the table, and the player after the holder of the 7 of diamonds starts.
    SevenOfDiamonds,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    pub players: usize,
    pub pass_limit: u32,
    pub out_of_passes: OutOfPasses,
    pub first: FirstPlayer,
    /// The dealer seat, or None to take it from the game seed (seed mod players) so that a
    /// tournament's games rotate the start.
    pub dealer: Option<usize>,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            players: 3,
            pass_limit: 3,
            out_of_passes: OutOfPasses::Out,
            first: FirstPlayer::AfterDealer,
            dealer: None,
        }
    }
}

pub fn game_options() -> Vec<OptionSpec> {
    vec![
        OptionSpec::int("players", 3, Some(3), Some(6), "number of seats (the paper studies 3)"),
        OptionSpec::int("pass_limit", 3, Some(0), Some(20), "passes each player may make in a game"),
        OptionSpec::choice(
            "out_of_passes",
            "out",
            &["out", "must_play"],
            "out: a pass beyond the limit puts you out (hand to the table, last among those left); must_play: with no passes left you must play a playable card",
        ),
        OptionSpec::choice(
            "first",
            "after_dealer",
            &["after_dealer", "seven_of_diamonds"],
            "after_dealer: 48 cards dealt evenly, the seat after the dealer starts; seven_of_diamonds: 52 dealt, the seat after the 7D holder starts",
        ),
        OptionSpec::int("dealer", -1, Some(-1), Some(5), "dealer seat; -1 takes it from the game seed (seed mod players)"),
        OptionSpec::json("hands", serde_json::Value::Null, "an opening's deal: one string of cards per seat (`AS 2S ...`), the whole deck the rules deal, evenly; null: shuffled from the game seed"),
    ]
}

impl Rules {
    pub fn from_options(options: &Options) -> Result<Rules, ErrorInfo> {
        let players = opt::i64(options, "players")? as usize;
        let dealer = opt::i64(options, "dealer")?;
        if dealer >= players as i64 {
            return Err(ErrorInfo::new(
                ErrorCode::InvalidOption,
                format!("dealer seat {dealer} does not exist with {players} players"),
            ));
        }
        Ok(Rules {
            players,
            pass_limit: opt::i64(options, "pass_limit")? as u32,
            out_of_passes: match opt::str(options, "out_of_passes")? {
                "must_play" => OutOfPasses::MustPlay,
                _ => OutOfPasses::Out,
            },
            first: match opt::str(options, "first")? {
                "seven_of_diamonds" => FirstPlayer::SevenOfDiamonds,
                _ => FirstPlayer::AfterDealer,
            },
            dealer: (dealer >= 0).then_some(dealer as usize),
        })
    }
}
