//! The places where the paper's section-3 words allow more than one reading, each a `dvalue`
//! option. Defaults follow the words most closely; `yomi repro sevens` reports every reading.
//!
//! Three rules hold a card back ("止める", to stop the row behind it): rule 3 (A/K), rule 5 (the
//! single playable card) and rule 7 (pass in the endgame). Holding costs a pass; it pays only when
//! the card held keeps an opponent's card from being played. Nothing lies beyond an A or a K, and a
//! card with only the holder's own cards beyond it stops nobody but the holder.

use yomi_plugin::api::opt;
use yomi_plugin::{ErrorInfo, OptionSpec, Options};

/// Rule 5: "出せるカードが1枚のとき … 中盤以降なら止める" (hold the single playable card from the
/// middle game on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SingleHold {
    /// Hold it only when it stops something: an unplayed card beyond it that is not ours
    /// ("止める" = stop the row; the default).
    Blocks,
    /// Hold whatever the card is, A/K and cards with only our own cards beyond included.
    Always,
}

/// Rule 3: "相手よりパスが残っていたらA/Kは止める" (with more passes left than the opponents,
/// hold A/K).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AkHold {
    /// Hold A/K even when that means passing (the words; the pass condition says a pass may be
    /// spent on it).
    Pass,
    /// Hold A/K only behind another playable card, never by passing: an A/K stops nobody, so a
    /// pass spent on it buys nothing.
    Other,
}

/// Rule 7: "終盤、相手よりパスが残っていればパスをする" (in the endgame, with more passes left than
/// the opponents, pass).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndgamePass {
    /// Pass whatever is playable (the words).
    Always,
    /// Pass only when every playable card stops an opponent's card: with a card playable that
    /// stops nobody, rule 7 does not apply and the other rules choose.
    Blocks,
}

/// Seed 2.2's move judgement: "自分の手札D値合計が大きく下がり、盤面D値の減少が少ない手は自分に
/// 有利な手" (a move that lowers your hand D total a lot and the board's little is good for you;
/// one that leaves your hand's and lowers the board's a lot is bad).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveJudgement {
    /// Hand drop minus board drop: minus the steps the move gives the others' cards.
    Difference,
    /// Hand drop minus the board drop's share per player still in (the paper's "one third" scale).
    Margin,
    /// Not used (section 3's rules alone).
    Off,
}

/// What the paper §2.2 judgement compares: "手札を出す際に" (when playing a card from the hand).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JudgementScope {
    /// The playable cards against each other only; the pass is left to rules 3, 5 and 7.
    Cards,
    /// Every move, the pass included (the default). The sentence judges a play absolutely, "自分に
    /// 有利な手" / "自分に不利な手" (favourable / unfavourable to oneself), on a scale whose zero is
    /// the move that changes neither total — the pass; a card "不利" by it is worse than not
    /// playing it, and table 1 shows the students' rules decide 出さない (not playing) as often as
    /// 出す. Rules 3, 5 and 7 name passes they require, not the only ones allowed.
    Moves,
}

/// One choice of every reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Readings {
    pub single_hold: SingleHold,
    pub ak_hold: AkHold,
    pub endgame_pass: EndgamePass,
    pub judgement: MoveJudgement,
    pub judgement_scope: JudgementScope,
}

impl Default for Readings {
    fn default() -> Readings {
        Readings {
            single_hold: SingleHold::Blocks,
            ak_hold: AkHold::Pass,
            endgame_pass: EndgamePass::Always,
            judgement: MoveJudgement::Difference,
            judgement_scope: JudgementScope::Moves,
        }
    }
}

pub fn options() -> Vec<OptionSpec> {
    vec![
        OptionSpec::choice(
            "single_hold",
            "blocks",
            &["blocks", "always"],
            "rule 5 from the middle game: hold the single playable card only when it stops an opponent's card (blocks) or whatever it is (always)",
        ),
        OptionSpec::choice(
            "ak_hold",
            "pass",
            &["pass", "other"],
            "rule 3: hold A/K even by passing (pass) or only behind another playable card (other)",
        ),
        OptionSpec::choice(
            "endgame_pass",
            "always",
            &["always", "blocks"],
            "rule 7: pass in the endgame whatever is playable (always) or only when every playable card stops something (blocks)",
        ),
        OptionSpec::choice(
            "judgement",
            "difference",
            &["difference", "margin", "off"],
            "paper §2.2 move judgement among playable cards: hand drop − board drop (difference), hand drop − board drop / players in (margin), or off",
        ),
        OptionSpec::choice(
            "judgement_scope",
            "moves",
            &["cards", "moves"],
            "paper §2.2 judgement compares the playable cards with each other (cards) or every move, a pass counting as lowering nothing (moves)",
        ),
    ]
}

impl Readings {
    pub fn from_options(options: &Options) -> Result<Readings, ErrorInfo> {
        Ok(Readings {
            single_hold: match opt::str(options, "single_hold")? {
                "always" => SingleHold::Always,
                _ => SingleHold::Blocks,
            },
            ak_hold: match opt::str(options, "ak_hold")? {
                "other" => AkHold::Other,
                _ => AkHold::Pass,
            },
            endgame_pass: match opt::str(options, "endgame_pass")? {
                "blocks" => EndgamePass::Blocks,
                _ => EndgamePass::Always,
            },
            judgement: match opt::str(options, "judgement")? {
                "margin" => MoveJudgement::Margin,
                "off" => MoveJudgement::Off,
                _ => MoveJudgement::Difference,
            },
            judgement_scope: match opt::str(options, "judgement_scope")? {
                "cards" => JudgementScope::Cards,
                _ => JudgementScope::Moves,
            },
        })
    }
}
