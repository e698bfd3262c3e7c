//! The agent operations: make an agent, change its personality or its bot, ask it to act, tell it
//! what happened, call its services, drop it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::value::RawValue;
use serde_json::Value;
use yomi_plugin::call::ActText;
use yomi_plugin::AgentContext;
use yomi_protocol::envelope::without_position;
use yomi_protocol::ops::agents::{
    Act, Acted, Agent, BatchDecision, Call, Configure, Drop, Dropped, New, Observe, Position, Swap,
};
use yomi_protocol::ops::meta::Done;
use yomi_protocol::options::{apply_changes, check_params, resolve};
use yomi_protocol::{ActReply, ErrorCode, ErrorInfo, Options};

use crate::agents::live::LiveAgent;
use crate::agents::{open_bot, runs_apart, AgentHandle, Placement};
use crate::registry::BotRef;
use crate::runtime::executor::Scope;
use crate::session::{AgentSlot, Session};

/// Opens an agent of `bot` with a complete option set: in this process, or in its engine, which
/// holds a place among the server's `--max-workers` while the agent lives.
pub async fn open_agent(
    bot: &BotRef,
    options: &Options,
    seed: u64,
    session: &Session,
) -> Result<Arc<dyn AgentHandle>, ErrorInfo> {
    let context = AgentContext {
        seed,
        data_dir: session.shared.config.data_dir.clone(),
        client: session.client.clone(),
        policy_ms: Some(session.shared.config.costs.max_policy_ms),
    };
    let mut placement = Placement { deadline: Some(ENGINE_CALL_DEADLINE), ..Placement::default() };
    if runs_apart(bot, false) {
        placement.place = Some(session.shared.budgets.worker_now()?);
    }
    open_bot(bot, options.clone(), context, placement).await
}

/// How long one call of an agent's engine may take before the engine is killed (a match sets
/// its own deadline).
const ENGINE_CALL_DEADLINE: std::time::Duration = std::time::Duration::from_secs(60);

fn describe(id: &str, slot: &AgentSlot) -> Agent {
    Agent {
        agent: id.to_string(),
        bot: slot.bot.qualified(),
        plugin: slot.bot.origin().to_string(),
        version: slot.bot.version().to_string(),
        build: slot.bot.build().to_string(),
        generation: slot.bot.generation(),
        options: slot.options.clone(),
        seed: slot.seed,
    }
}

pub async fn new(session: &mut Session, p: New) -> Result<Agent, ErrorInfo> {
    session.check_agent_room()?;
    let bot = session.shared.registry.resolve_bot(&p.bot, p.game.as_deref(), p.generation)?;
    let options = resolve(&bot.info.options, &bot.info.presets, p.preset.as_deref(), &p.options)?;
    let (id, default_seed) = session.next_agent();
    let seed = p.seed.unwrap_or(default_seed);
    let agent = LiveAgent::new(open_agent(&bot, &options, seed, session).await?);
    let slot = AgentSlot { bot, options, seed, agent };
    let reply = describe(&id, &slot);
    session.agents.insert(id, slot);
    Ok(reply)
}

/// The runtime personality swap: checked against the schema, applied on the next decision.
pub async fn configure(session: &mut Session, p: Configure) -> Result<Agent, ErrorInfo> {
    let slot = session.agent(&p.agent)?;
    let info = &slot.bot.info;
    let options = match &p.preset {
        Some(preset) => resolve(&info.options, &info.presets, Some(preset), &p.options),
        None => apply_changes(&info.options, &slot.options, &p.options),
    }?;
    slot.agent.configure(options.clone()).await?;
    let slot = session.agent_mut(&p.agent)?;
    slot.options = options;
    Ok(describe(&p.agent, slot))
}

/// Puts another bot, or another build of the same plugin, behind the same agent id.
pub async fn swap(session: &mut Session, p: Swap) -> Result<Agent, ErrorInfo> {
    let slot = session.agent(&p.agent)?;
    let spec = p.bot.clone().unwrap_or_else(|| slot.bot.qualified());
    let bot = session.shared.registry.resolve_bot(&spec, None, p.generation)?;
    let options = match (&p.preset, &p.options) {
        (None, None) => {
            let carried: Options = slot
                .options
                .iter()
                .filter(|(name, value)| {
                    bot.info.options.iter().any(|s| &s.name == *name && s.check(value).is_ok())
                })
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            resolve(&bot.info.options, &bot.info.presets, None, &carried)
        }
        (preset, options) => resolve(
            &bot.info.options,
            &bot.info.presets,
            preset.as_deref(),
            &options.clone().unwrap_or_default(),
        ),
    }?;
    let seed = slot.seed;
    let agent = open_agent(&bot, &options, seed, session).await?;
    let slot = session.agent_mut(&p.agent)?;
    slot.agent.replace(agent);
    (slot.bot, slot.options) = (bot, options);
    Ok(describe(&p.agent, slot))
}

/// A decision for an external game client: observation and legal actions in, action out; or
/// one decision for each of many positions.
/// A single position's call goes to the agent at once, before anything is awaited, with the
/// request's `scope`; a batch's calls are handed over.
pub async fn act(session: &mut Session, p: Act<'_>, scope: Scope) -> Result<Acted, ErrorInfo> {
    if let Some(positions) = &p.positions {
        let single = p.observation.get() != "null" || p.legal.get() != "[]";
        if single {
            let message = "give either `positions` or one position's `observation` and `legal`";
            return Err(ErrorInfo::new(ErrorCode::InvalidParams, message));
        }
        return act_batch(session, &p.agent, positions, (p.explain, p.policy)).await;
    }
    let agent = session.agent(&p.agent)?.agent.clone();
    let request = ActText {
        observation: p.observation,
        legal: p.legal,
        explain: p.explain,
        policy: p.policy,
        clock: None,
    };
    with_policy(p.policy, agent.act_text(request, scope).await).map(Acted::One)
}

/// A decision asked with `policy`, checked to carry one that is a distribution holding the
/// action played: a plugin's kit checks its bots' already, but an engine that does not know the
/// field answers without one, which is `no_policy`, never a decision that looks complete.
fn with_policy(asked: bool, reply: Result<ActReply, ErrorInfo>) -> Result<ActReply, ErrorInfo> {
    let mut reply = reply?;
    match (asked, reply.policy.take()) {
        (false, _) => Ok(reply),
        (true, None) => Err(yomi_plugin::policy::not_given()),
        (true, Some(policy)) => yomi_plugin::policy::attach(policy, reply),
    }
}

/// A batched `agent.act`: the positions are answered in order, each on its own (one that cannot
/// be read or that the bot refuses gets an `{"error": ..}` in its place).
async fn act_batch(
    session: &Session,
    agent: &str,
    positions: &[&RawValue],
    (explain, policy): (bool, bool),
) -> Result<Acted, ErrorInfo> {
    let limit = session.shared.config.limits.max_batch;
    if positions.len() > limit {
        return Err(ErrorInfo::new(
            ErrorCode::LimitExceeded,
            format!(
                "{} positions in one `agent.act`, over the server's limit (--max-batch {limit})",
                positions.len()
            ),
        ));
    }
    let slot = session.agent(agent)?;
    let budgets = session.budgets();
    let budget = session.shared.config.limits.max_batch_time;
    let (started, mut slowest) = (Instant::now(), Duration::ZERO);
    let mut decisions = Vec::with_capacity(positions.len());
    for raw in positions {
        if started.elapsed() + slowest > budget {
            let error = ErrorInfo::new(
                ErrorCode::LimitExceeded,
                format!(
                    "not decided: the batch had spent {:.2} s, and its slowest position took \
                     {:.2} s, over the server's limit (--max-batch-time {:.2} s); send the rest \
                     in another request",
                    started.elapsed().as_secs_f64(),
                    slowest.as_secs_f64(),
                    budget.as_secs_f64()
                ),
            );
            decisions.push(BatchDecision::Failed { error });
            continue;
        }
        // Each position waits its turn among the clients' batches, so a long batch shares the
        // cores with others' instead of holding them.
        let _turn = budgets.batch_call().await;
        let call_started = Instant::now();
        let decision = match serde_json::from_str::<Position>(raw.get()) {
            Err(e) => Err(ErrorInfo::new(
                ErrorCode::InvalidParams,
                format!("bad position: {}", without_position(&e)),
            )),
            Ok(position) => {
                let request = ActText {
                    observation: position.observation,
                    legal: position.legal,
                    explain,
                    policy,
                    clock: None,
                };
                let decided = match position.seed {
                    None => slot.agent.act_text(request, Scope::HANDED_OVER).await,
                    // A fresh agent of a bot that runs apart is a process started for one
                    // position: a batch could start a thousand from one line.
                    Some(_) if runs_apart(&slot.bot, false) => Err(ErrorInfo::new(
                        ErrorCode::InvalidParams,
                        "a position's `seed` needs a bot of this process; an engine answers \
                         positions without one",
                    )),
                    Some(seed) => match open_agent(&slot.bot, &slot.options, seed, session).await {
                        Ok(fresh) => fresh.act_text(request, Scope::HANDED_OVER).await,
                        Err(e) => Err(e),
                    },
                };
                with_policy(policy, decided)
            }
        };
        slowest = slowest.max(call_started.elapsed());
        decisions.push(match decision {
            Ok(reply) => BatchDecision::Decided(reply),
            Err(error) => BatchDecision::Failed { error },
        });
    }
    Ok(Acted::Batch { decisions })
}

pub async fn observe(session: &mut Session, p: Observe) -> Result<Done, ErrorInfo> {
    let agent = session.agent(&p.agent)?.agent.clone();
    agent.observe(p.event).await?;
    Ok(Done {})
}

/// A service request (dice, roles, analysis ...).
pub async fn call(session: &mut Session, p: Call) -> Result<Value, ErrorInfo> {
    let slot = session.agent(&p.agent)?;
    let methods = &slot.bot.info.methods;
    let Some(method) = methods.iter().find(|m| m.name == p.method) else {
        let known: Vec<&str> = methods.iter().map(|m| m.name.as_str()).collect();
        return Err(ErrorInfo::new(
            ErrorCode::UnknownMethod,
            format!(
                "bot `{}` has no method `{}` (known: {})",
                slot.bot.qualified(),
                p.method,
                known.join(", ")
            ),
        ));
    };
    // The declared bounds are checked here, before the bot does any work.
    check_params(&method.params, &p.params)
        .map_err(|e| ErrorInfo::new(e.code, format!("`{}`: {}", p.method, e.message)))?;
    let stop = session.stop();
    slot.agent.clone().call_until(p.method, p.params, stop).await
}

pub fn drop(session: &mut Session, p: Drop) -> Result<Dropped, ErrorInfo> {
    session.agents.remove(&p.agent).map(|_| Dropped { dropped: p.agent.clone() }).ok_or_else(|| {
        ErrorInfo::new(ErrorCode::UnknownAgent, format!("no agent `{}` in this session", p.agent))
    })
}

pub fn list(session: &Session) -> Vec<Agent> {
    session.agents.iter().map(|(id, slot)| describe(id, slot)).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use yomi_protocol::envelope::Request;
    use yomi_protocol::PolicyEntry;

    use super::*;

    #[test]
    fn a_batch_keeps_each_positions_text_and_reads_each_on_its_own() {
        let line = r#"{"id":1,"op":"agent.act","agent":"a1","positions":[{"observation":{"x": 1},"legal":["a"],"seed":4},{"legal":"a"}]}"#;
        let p: Act<'_> = Request::parse(line).map_err(|(_, e)| e).unwrap().params().unwrap();
        let positions = p.positions.unwrap();
        assert_eq!(positions.len(), 2);
        let first: Position = serde_json::from_str(positions[0].get()).unwrap();
        assert_eq!(
            (first.observation.get(), first.legal.get(), first.seed),
            (r#"{"x": 1}"#, r#"["a"]"#, Some(4))
        );
        assert!(
            serde_json::from_str::<Position>(positions[1].get()).is_err(),
            "only this one fails"
        );
    }

    /// An engine speaks the call JSON itself: one that ignores `policy` or sends a policy that is
    /// not its behaviour is caught here, as the plugin kit catches a plugin's bot.
    #[test]
    fn a_policy_asked_for_is_present_and_holds_the_action() {
        let reply =
            |policy: Option<Vec<PolicyEntry>>| ActReply { policy, ..ActReply::new(json!("a")) };
        let half = |a: &str| PolicyEntry { action: json!(a), p: 0.5 };
        assert_eq!(with_policy(false, Ok(reply(None))).unwrap(), reply(None));
        assert_eq!(with_policy(true, Ok(reply(None))).unwrap_err().code, ErrorCode::NoPolicy);
        let given = Some(vec![half("a"), half("b")]);
        assert_eq!(with_policy(true, Ok(reply(given.clone()))).unwrap(), reply(given));
        let elsewhere = Some(vec![half("b"), half("c")]);
        assert_eq!(with_policy(true, Ok(reply(elsewhere))).unwrap_err().code, ErrorCode::BotError);
    }
}
