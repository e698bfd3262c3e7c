//! `tournament.run` and `tournament.list`: tournaments and their standings.

use schemars::JsonSchema;
use serde::de::{self, DeserializeOwned};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::failures::FailureCounts;

/// `tournament.run`'s parameters: a spec to play, or a tournament to resume. `Spec` is the
/// tournament (game, bots, format, games per pair ...), which the host's scheduler defines; it
/// sits beside these fields on the wire.
#[derive(Debug, Clone, JsonSchema)]
#[schemars(rename = "TournamentRun")]
pub struct Run<Spec> {
    /// Resume this interrupted tournament instead of starting one.
    #[serde(default)]
    pub resume: Option<String>,
    /// The new tournament's id (running an id again resumes it); a fresh one by default. Not
    /// `id`, which names the request.
    #[serde(default)]
    pub tournament: Option<String>,
    /// The tournament to play, unless `resume` is given.
    #[serde(flatten)]
    pub spec: Option<Spec>,
}

/// Read by hand rather than derived: a derived flattened `Option` reads a spec with a bad field
/// (a malformed `tc`) as no spec at all, and the error that names the field is lost. Here a
/// request without `resume` that gives any spec field gets the spec's own error.
impl<'de, Spec: DeserializeOwned> Deserialize<'de> for Run<Spec> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut fields = Map::<String, Value>::deserialize(deserializer)?;
        let mut take = |name: &str| {
            fields
                .remove(name)
                .filter(|v| !v.is_null())
                .map(serde_json::from_value::<String>)
                .transpose()
                .map_err(|e| de::Error::custom(format!("`{name}`: {e}")))
        };
        let (resume, tournament) = (take("resume")?, take("tournament")?);
        let spec = match serde_json::from_value::<Spec>(Value::Object(fields.clone())) {
            Ok(spec) => Some(spec),
            Err(_) if resume.is_some() || fields.is_empty() => None,
            Err(e) => return Err(de::Error::custom(e)),
        };
        Ok(Run { resume, tournament, spec })
    }
}

/// `tournament.run`'s reply, and what `yomi tournament --json` prints: the tournament and its
/// standings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "TournamentSummary")]
pub struct Summary {
    /// The tournament's id in the records.
    pub id: String,
    /// `running` or `finished`.
    pub status: String,
    /// The game played.
    pub game: String,
    /// Games finished.
    pub games: u64,
    /// Games this process plays (a shard's block, or the whole schedule).
    pub scheduled: u64,
    /// The shard of the tournament this process played, if it played one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// The standings of the games finished.
    #[serde(flatten)]
    pub standings: Standings,
}

/// Shard `index` (from 0) of `count`: one contiguous block of a tournament's schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "TournamentShard")]
pub struct Shard {
    /// The shard's place, from 0.
    pub index: u32,
    /// How many shards the tournament is split into.
    pub count: u32,
}

/// Standings from finished games.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Standings {
    /// One row per bot, highest Elo first.
    pub standings: Vec<Standing>,
    /// The bot whose Elo is 0 (the first bot of the spec): every bot's Elo is relative to it.
    #[serde(default)]
    pub elo_reference: String,
    /// One row per pairing, in schedule order.
    pub pairings: Vec<Pairing>,
    /// Each bot's results against each other bot, rows and columns in the order of
    /// `standings`.
    #[serde(default)]
    pub crosstable: Vec<CrossRow>,
    /// Where the sequential probability ratio test stands, when the spec asked for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<Sprt>,
}

/// One bot's row of the standings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Standing {
    /// The bot's label (`plugin/bot`, with its options when two entries share a bot).
    pub bot: String,
    /// Games it played.
    pub games: u64,
    /// Its summed score.
    pub score: f64,
    /// Its score per game (0 before its first game).
    pub score_rate: f64,
    /// Its pairwise record against the rest of the field.
    pub pairwise: Pairwise,
    /// Its Elo, to one decimal, fitted jointly to every pairwise result of the tournament
    /// (Bradley–Terry by maximum likelihood, as Ordo and BayesElo rate engines) with
    /// `elo_reference` at 0 and one virtual draw between each bot and it (BayesElo's prior, so
    /// a bot that never lost or never won stays finite); null before it has a result.
    pub elo: Option<f64>,
    /// The 95 % interval of the Elo, from the fit's curvature; an unbounded end is null.
    pub elo_ci95: [Option<f64>; 2],
    /// Its failures, by kind.
    pub failures: FailureCounts,
}

/// A bot's comparisons with the others of each game it played: a higher score wins, an equal
/// one draws.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Pairwise {
    /// Comparisons won.
    pub wins: u64,
    /// Comparisons drawn.
    pub draws: u64,
    /// Comparisons lost.
    pub losses: u64,
}

/// One bot's row of the crosstable: its points against each bot (a pairwise comparison won 1,
/// drawn ½, as in `pairwise`) over how many comparisons.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CrossRow {
    /// The bot's label.
    pub bot: String,
    /// Its points against each bot; null against itself and bots it has not met.
    pub points: Vec<Option<f64>>,
    /// Comparisons with each bot.
    pub games: Vec<u64>,
}

/// One pairing's row: the bots that meet, their summed scores and, for two bots, the statistics
/// chess engine testers read (fishtest, fastchess) for the first bot against the second.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Pairing {
    /// The bots' labels.
    pub bots: Vec<String>,
    /// Games the pairing played.
    pub games: u64,
    /// Each bot's summed score, in the order of `bots`.
    pub scores: Vec<f64>,
    /// What the statistics below count: `pentanomial` (game pairs of a tournament played with
    /// `repeat`), `trinomial` (single games), or `scores` for a pairing of more than two bots,
    /// which has its summed scores only.
    pub model: String,
    /// Game pairs by the first bot's points in the pair: 0, ½, 1, 1½, 2 (a game won 1, drawn
    /// ½); a pair counts once both its games are finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pentanomial: Option<[u64; 5]>,
    /// Games by the first bot's result: lost, drawn, won.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trinomial: Option<[u64; 3]>,
    /// The first bot's logistic Elo against the second, to one decimal; null before a result.
    #[serde(default)]
    pub elo: Option<f64>,
    /// Its 95 % interval; an unbounded end (a score of 0 or 1) is null.
    #[serde(default)]
    pub elo_ci95: [Option<f64>; 2],
    /// Normalized Elo: the score's distance from ½ in standard deviations per game, scaled as
    /// fishtest does (800 / ln 10); null before a result.
    #[serde(default)]
    pub nelo: Option<f64>,
    /// Its 95 % interval; an unbounded end is null.
    #[serde(default)]
    pub nelo_ci95: [Option<f64>; 2],
    /// Likelihood of superiority: the probability that the first bot is the stronger.
    #[serde(default)]
    pub los: Option<f64>,
}

/// Where an SPRT stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "SprtState")]
pub struct Sprt {
    /// The log-likelihood ratio of the results so far.
    pub llr: f64,
    /// The bound below which H0 is accepted.
    pub lower: f64,
    /// The bound above which H1 is accepted.
    pub upper: f64,
    /// `H0` or `H1` once a bound is crossed, else `continue`.
    pub decision: String,
}

/// One tournament of `tournament.list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "ListedTournament")]
pub struct Listed {
    /// The tournament's id.
    pub id: String,
    /// `running` (some process plays it), `interrupted` (none does) or `finished`.
    pub status: String,
    /// Games finished.
    pub games: u64,
    /// Games scheduled.
    pub total: u64,
    /// The game played.
    pub game: Option<String>,
}

/// One suite of `openings.list`: a name `tournament.run`'s `openings` may give.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SuiteListed {
    /// The suite's name.
    pub name: String,
    /// Shipped with yomi (`openings/` of the source), not the data directory's own.
    pub shipped: bool,
    /// What the suite holds, from its file's leading comment (empty when it has none).
    pub about: String,
}

/// `tournament.show`'s parameters: the tournament to show.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(rename = "TournamentShow")]
#[serde(deny_unknown_fields)]
pub struct Show {
    /// The tournament's id.
    pub tournament: String,
}

/// `tournament.show`'s reply: a stored tournament as the playground's tournament page shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "TournamentShown")]
pub struct Shown {
    /// Its id, status (`running`, `interrupted` or `finished`), games finished and scheduled.
    #[serde(flatten)]
    pub listed: Listed,
    /// The stored spec (bots, format, openings, seed ...).
    pub spec: serde_json::Value,
    /// The standings of the games finished.
    #[serde(flatten)]
    pub standings: Standings,
    /// The bots' labels in the spec's order: the order of each `history` point's lists.
    pub labels: Vec<String>,
    /// Each bot's Elo with its interval after every few games, oldest first (at most
    /// [`MAX_HISTORY_POINTS`] points), for the rating chart.
    pub history: Vec<RatingPoint>,
}

/// The most points a rating history holds: each is a fit of the standings so far.
pub const MAX_HISTORY_POINTS: usize = 20;

/// The ratings after the first `games` finished games.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RatingPoint {
    /// Games finished at this point.
    pub games: u64,
    /// Each bot's Elo (null before its first result), in the order of `labels`.
    pub elo: Vec<Option<f64>>,
    /// Each bot's 95 % interval; an unbounded end is null.
    pub elo_ci95: Vec<[Option<f64>; 2]>,
}

/// `tournament.games`'s parameters: a page of a tournament's recorded games.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(rename = "TournamentGames")]
#[serde(deny_unknown_fields)]
pub struct Games {
    /// The tournament's id.
    pub tournament: String,
    /// Games to skip, in index order.
    #[serde(default)]
    pub offset: u64,
    /// Games to return, at most [`MAX_GAMES_PAGE`].
    pub limit: u64,
}

/// The most games a `tournament.games` page holds.
pub const MAX_GAMES_PAGE: u64 = 200;

/// `tournament.games`'s reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "TournamentGamesPage")]
pub struct GamesPage {
    /// Games recorded in all.
    pub total: u64,
    /// The page, in index order.
    pub games: Vec<GameEntry>,
}

/// One recorded game of a page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "TournamentGameEntry")]
pub struct GameEntry {
    /// The game's index in the schedule: `tournament.game` opens it.
    pub index: u64,
    /// The bot label in each seat.
    pub seats: serde_json::Value,
    /// Each seat's score.
    pub scores: Vec<f64>,
    /// The opening it started from, in a tournament with openings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening: Option<u64>,
    /// Whether its transcript was kept (`keep_transcripts`), so it can be replayed.
    pub transcript: bool,
}

/// `tournament.game`'s parameters: one recorded game.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(rename = "TournamentGame")]
#[serde(deny_unknown_fields)]
pub struct Game {
    /// The tournament's id.
    pub tournament: String,
    /// The game's index.
    pub game: u64,
}

/// `tournament.game`'s reply: the game and its transcript (JSON lines, as `yomi replay` reads).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "TournamentGameRecord")]
pub struct GameRecord {
    #[serde(flatten)]
    /// The game, as a page lists it.
    pub entry: GameEntry,
    /// The game's transcript, one JSON event a line.
    pub transcript: String,
}
