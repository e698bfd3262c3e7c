//! A synchronous referee for in-process agents: the shortest path from a game and its players to an
//! outcome. Bot crates use it in tests, reproductions and benchmarks; the host has its own
//! asynchronous referee with deadlines and failure policies.

use serde::Serialize;
use serde_json::Value;
use yomi_protocol::{ActRequest, ErrorInfo, GameOutcome};

use crate::api::{Agent, Game};
use crate::call::GameOver;

/// One resolved step of a game: the joint action and the public event it produced.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    /// Each deciding seat with its action.
    pub actions: Vec<(usize, Value)>,
    /// What the game made public of the step.
    pub event: Value,
}

/// A finished game with every step, for snapshots.
#[derive(Debug, Clone, Serialize)]
pub struct PlayedGame {
    /// Every step, in order.
    pub steps: Vec<Step>,
    /// How the game ended.
    pub outcome: GameOutcome,
}

/// Plays `game` to the end with `agents[seat]` choosing for each seat, then tells every agent the
/// outcome. Any bot or rules error ends
/// the game with that error: in-process callers want to see bugs, not paper over them.
pub fn play(game: &mut dyn Game, agents: &mut [&mut dyn Agent]) -> Result<PlayedGame, ErrorInfo> {
    let mut steps = Vec::new();
    loop {
        let decisions = game.decisions();
        if decisions.is_empty() {
            break;
        }
        let mut actions = Vec::with_capacity(decisions.len());
        for d in decisions {
            let agent = agents.get_mut(d.seat).ok_or_else(|| {
                ErrorInfo::new(
                    yomi_protocol::ErrorCode::InvalidParams,
                    format!("no agent for seat {}", d.seat),
                )
            })?;
            let reply = agent.act(&ActRequest::new(d.observation, d.legal))?;
            actions.push((d.seat, reply.action));
        }
        let event = game.apply(&actions)?;
        for agent in agents.iter_mut() {
            agent.observe(&event)?;
        }
        steps.push(Step { actions, event });
    }
    let outcome = game.outcome().ok_or_else(|| {
        ErrorInfo::new(
            yomi_protocol::ErrorCode::Internal,
            "game has no decisions left but no outcome",
        )
    })?;
    for (seat, agent) in agents.iter_mut().enumerate() {
        agent.game_over(&GameOver { seat, outcome: outcome.clone() })?;
    }
    Ok(PlayedGame { steps, outcome })
}
