//! Replaying a transcript: the match its header describes, played again and compared line by
//! line with the recorded one.

use std::sync::Arc;

use serde_json::{json, Value};
use yomi_protocol::ops::matches::Replayed;
use yomi_protocol::{ErrorCode, ErrorInfo, Options};

use super::runner::{self, MatchPlan, MatchSpec, PlayedMatch};
use super::seat::{AgentSeat, BotSeat, ClientSeats, SeatEnv, SeatSpec};
use crate::registry::Registry;

/// The match spec a header describes (bots with their complete recorded options).
pub fn spec_from_header(header: &Value) -> Result<MatchSpec, ErrorInfo> {
    let field = |name: &str| {
        header.get(name).cloned().ok_or_else(|| {
            ErrorInfo::new(ErrorCode::InvalidParams, format!("line 1: header has no `{name}`"))
        })
    };
    let bad = |name: &str, e: serde_json::Error| {
        ErrorInfo::new(ErrorCode::InvalidParams, format!("line 1: header `{name}`: {e}"))
    };
    let seats = field("seats")?
        .as_array()
        .ok_or_else(|| {
            ErrorInfo::new(ErrorCode::InvalidParams, "line 1: header `seats` is not a list")
        })?
        .iter()
        .map(|s| {
            let name = |key: &str| s.get(key).and_then(Value::as_str);
            if let Some(agent) = name("agent") {
                return Ok(SeatSpec::Agent(AgentSeat { agent: agent.to_string(), explain: None }));
            }
            match (name("bot"), name("client")) {
                (Some(bot), _) => Ok(SeatSpec::Bot(BotSeat {
                    bot: bot.to_string(),
                    preset: None,
                    options: serde_json::from_value::<Options>(
                        s.get("options").cloned().unwrap_or(json!({})),
                    )
                    .map_err(|e| bad("seats", e))?,
                    isolate: s.get("isolate").and_then(Value::as_bool).unwrap_or(false),
                })),
                (None, Some(client)) => Ok(SeatSpec::Client { client: client.to_string() }),
                _ => Err(ErrorInfo::new(
                    ErrorCode::InvalidParams,
                    "line 1: a seat is neither a bot, an agent nor a client",
                )),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(MatchSpec {
        game: field("game")?.as_str().unwrap_or_default().to_string(),
        game_options: serde_json::from_value(field("game_options")?)
            .map_err(|e| bad("game_options", e))?,
        seats,
        seed: field("seed")?.as_u64().ok_or_else(|| {
            ErrorInfo::new(ErrorCode::InvalidParams, "line 1: `seed` is not a number")
        })?,
        games: field("games")?.as_u64().unwrap_or(1) as u32,
        policy: serde_json::from_value(field("policy")?).map_err(|e| bad("policy", e))?,
    })
}

/// Plays the recorded match again and compares it line by line (timings aside), reporting as
/// `match.replay` answers. Client and agent
/// seats replay their recorded moves.
pub async fn replay(
    registry: &Registry,
    recorded: &[Value],
    data_dir: Option<std::path::PathBuf>,
) -> Result<Replayed, ErrorInfo> {
    let header = &recorded[0];
    let spec = spec_from_header(header)?;
    let plan = MatchPlan::new(registry, spec)?;
    let env = SeatEnv {
        data_dir,
        clients: ClientSeats::Replayed(Arc::new(recorded.to_vec())),
        ..SeatEnv::default()
    };
    let PlayedMatch { result, log } = runner::play(&plan, &env, |_| {}).await?;
    let log = log.into_values();
    let build_changes = build_changes(header, &log[0]);
    let divergence = recorded
        .iter()
        .zip(log.iter())
        .enumerate()
        .find(|(_, (a, b))| strip(a) != strip(b))
        .map(|(i, (a, b))| json!({"line": i + 1, "recorded": a, "replayed": b}));
    let divergence = divergence.or_else(|| {
        (recorded.len() != log.len()).then(|| json!({"line": recorded.len().min(log.len()) + 1, "recorded_lines": recorded.len(), "replayed_lines": log.len()}))
    });
    Ok(Replayed {
        identical: divergence.is_none(),
        lines: log.len(),
        scores: result.scores,
        divergence,
        build_changes,
    })
}

/// A line without what legitimately changes between runs: timings, the host version, and build
/// hashes (a changed build is reported separately; only a changed *behaviour* is a divergence).
fn strip(line: &Value) -> Value {
    let mut line = line.clone();
    if let Some(map) = line.as_object_mut() {
        for key in ["ms", "yomi", "build"] {
            map.remove(key);
        }
        if let Some(Value::Array(seats)) = map.get_mut("seats") {
            seats.iter_mut().filter_map(Value::as_object_mut).for_each(|s| {
                s.remove("build");
            });
        }
    }
    line
}

fn build_changes(recorded: &Value, replayed: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if recorded["build"] != replayed["build"] {
        out.push(format!(
            "game plugin {}: {} -> {}",
            replayed["plugin"], recorded["build"], replayed["build"]
        ));
    }
    if let (Some(a), Some(b)) = (recorded["seats"].as_array(), replayed["seats"].as_array()) {
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            if x["build"] != y["build"] {
                out.push(format!("seat {i} ({}): {} -> {}", y["bot"], x["build"], y["build"]));
            }
        }
    }
    out
}
