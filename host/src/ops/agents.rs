//! The agent operations: make an agent, change its personality or its bot, ask it to act, tell it
//! what happened, call its services, drop it.

use std::borrow::Cow;
use std::sync::Arc;

use serde::de::{self, IgnoredAny};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{json, Value};
use yomi_plugin::call::ActText;
use yomi_plugin::AgentContext;
use yomi_protocol::envelope::without_position;
use yomi_protocol::options::{apply_changes, check_params, resolve};
use yomi_protocol::{ErrorCode, ErrorInfo, Options};

use crate::agents::{AgentHandle, InProcessAgent};
use crate::runtime::registry::BotRef;
use crate::session::{AgentSlot, Session};

/// Opens an in-process agent of `bot` with a complete option set.
pub async fn open_agent(
    bot: &BotRef,
    options: &Options,
    seed: u64,
    session: &Session,
) -> Result<Arc<dyn AgentHandle>, ErrorInfo> {
    let context = AgentContext { seed, data_dir: session.shared.config.data_dir.clone() };
    Ok(Arc::new(InProcessAgent::open(bot, options.clone(), context).await?))
}

fn describe(id: &str, slot: &AgentSlot) -> Value {
    json!({
        "agent": id,
        "bot": slot.bot.qualified(),
        "plugin": slot.bot.plugin.name(),
        "version": slot.bot.plugin.loaded.manifest.version,
        "build": slot.bot.plugin.build,
        "generation": slot.bot.plugin.generation,
        "options": slot.options,
        "seed": slot.seed,
    })
}

#[derive(Debug, Deserialize)]
pub struct New {
    /// `plugin/bot`, or a bare bot name that is unique (among the bots of `game`, if given).
    pub bot: String,
    #[serde(default)]
    pub game: Option<String>,
    #[serde(default)]
    pub preset: Option<String>,
    #[serde(default)]
    pub options: Options,
    /// Seed of the agent's randomness; the host derives one from its base seed if absent.
    #[serde(default)]
    pub seed: Option<u64>,
    /// A plugin generation to pin (see `plugin.list`); the newest by default.
    #[serde(default)]
    pub generation: Option<u32>,
}

pub async fn new(session: &mut Session, p: New) -> Result<Value, ErrorInfo> {
    session.check_agent_room()?;
    let bot = session.shared.registry.resolve_bot(&p.bot, p.game.as_deref(), p.generation)?;
    let options = resolve(&bot.info.options, &bot.info.presets, p.preset.as_deref(), &p.options)?;
    let (id, default_seed) = session.next_agent();
    let seed = p.seed.unwrap_or(default_seed);
    let agent = open_agent(&bot, &options, seed, session).await?;
    let slot = AgentSlot { bot, options, seed, agent };
    let reply = describe(&id, &slot);
    session.agents.insert(id, slot);
    Ok(reply)
}

#[derive(Debug, Deserialize)]
pub struct Configure {
    pub agent: String,
    /// Start again from this preset (on the defaults) before applying `options`.
    #[serde(default)]
    pub preset: Option<String>,
    /// Options to change; the others keep their current values.
    #[serde(default)]
    pub options: Options,
}

/// The runtime personality swap: checked against the schema, applied on the next decision.
pub async fn configure(session: &mut Session, p: Configure) -> Result<Value, ErrorInfo> {
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

#[derive(Debug, Deserialize)]
pub struct Swap {
    pub agent: String,
    /// Another bot; the same bot (at the newest generation of its plugin) when absent.
    #[serde(default)]
    pub bot: Option<String>,
    #[serde(default)]
    pub generation: Option<u32>,
    #[serde(default)]
    pub preset: Option<String>,
    /// Options for the new bot. When neither these nor a preset is given, the current options
    /// that the new bot also has carry over.
    #[serde(default)]
    pub options: Option<Options>,
}

/// Puts another bot, or another build of the same plugin, behind the same agent id.
pub async fn swap(session: &mut Session, p: Swap) -> Result<Value, ErrorInfo> {
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
    *slot = AgentSlot { bot, options, seed, agent };
    Ok(describe(&p.agent, slot))
}

/// `agent.act`'s parameters. The observation and legal actions are kept as the client's JSON
/// text: an agent in this process hands them to its plugin as they are, with no `Value`s built
/// only to be written out again.
#[derive(Debug, Deserialize)]
pub struct Act<'a> {
    #[serde(borrow)]
    pub agent: Cow<'a, str>,
    #[serde(borrow, default = "json_null")]
    pub observation: &'a RawValue,
    #[serde(borrow, default = "empty_json_array", deserialize_with = "json_array")]
    pub legal: &'a RawValue,
    #[serde(default)]
    pub explain: bool,
    /// Many positions at once instead of `observation` and `legal`: one decision each, in order.
    #[serde(borrow, default)]
    pub positions: Option<Vec<&'a RawValue>>,
}

/// One position of a batched `agent.act`.
#[derive(Debug, Deserialize)]
struct Position<'a> {
    #[serde(borrow, default = "json_null")]
    observation: &'a RawValue,
    #[serde(borrow, default = "empty_json_array", deserialize_with = "json_array")]
    legal: &'a RawValue,
    /// Answer as a fresh agent of the same bot and options with this seed would: reproducible,
    /// and blind to what the agent has learned.
    #[serde(default)]
    seed: Option<u64>,
}

fn json_null() -> &'static RawValue {
    RawValue::NULL
}

fn empty_json_array() -> &'static RawValue {
    serde_json::from_str("[]").expect("`[]` is JSON")
}

/// A JSON array, kept as its text; anything else is refused with the error reading it into a
/// list would give.
fn json_array<'de, D: Deserializer<'de>>(from: D) -> Result<&'de RawValue, D::Error> {
    let text = <&RawValue>::deserialize(from)?;
    match text.get().starts_with('[') {
        true => Ok(text),
        false => match serde_json::from_str::<Vec<IgnoredAny>>(text.get()) {
            Err(e) => Err(de::Error::custom(without_position(&e))),
            Ok(_) => Ok(text),
        },
    }
}

/// A decision for an external game client: observation and legal actions in, action out; or
/// one decision for each of many positions.
pub async fn act(session: &mut Session, p: Act<'_>) -> Result<Value, ErrorInfo> {
    if let Some(positions) = &p.positions {
        let single = !std::ptr::eq(p.observation, json_null()) || p.legal.get() != "[]";
        if single {
            let message = "give either `positions` or one position's `observation` and `legal`";
            return Err(ErrorInfo::new(ErrorCode::InvalidParams, message));
        }
        return act_batch(session, &p.agent, positions, p.explain).await;
    }
    let agent = session.agent(&p.agent)?.agent.clone();
    let request = ActText { observation: p.observation, legal: p.legal, explain: p.explain };
    Ok(agent.act_text(request).await?.into())
}

/// A batched `agent.act`: the positions are answered in order, each on its own (one that cannot
/// be read or that the bot refuses gets an `{"error": ..}` in its place).
async fn act_batch(
    session: &Session,
    agent: &str,
    positions: &[&RawValue],
    explain: bool,
) -> Result<Value, ErrorInfo> {
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
    let mut decisions = Vec::with_capacity(positions.len());
    for raw in positions {
        let decision = match serde_json::from_str::<Position>(raw.get()) {
            Err(e) => Err(ErrorInfo::new(
                ErrorCode::InvalidParams,
                format!("bad position: {}", without_position(&e)),
            )),
            Ok(position) => {
                let request =
                    ActText { observation: position.observation, legal: position.legal, explain };
                match position.seed {
                    None => slot.agent.act_text(request).await,
                    Some(seed) => match open_agent(&slot.bot, &slot.options, seed, session).await {
                        Ok(fresh) => fresh.act_text(request).await,
                        Err(e) => Err(e),
                    },
                }
            }
        };
        decisions.push(match decision {
            Ok(reply) => reply.into(),
            Err(error) => json!({ "error": error }),
        });
    }
    Ok(json!({ "decisions": decisions }))
}

#[derive(Debug, Deserialize)]
pub struct Observe {
    pub agent: String,
    pub event: Value,
}

pub async fn observe(session: &mut Session, p: Observe) -> Result<Value, ErrorInfo> {
    let agent = session.agent(&p.agent)?.agent.clone();
    agent.observe(p.event).await?;
    Ok(json!({}))
}

#[derive(Debug, Deserialize)]
pub struct Call {
    pub agent: String,
    pub method: String,
    #[serde(default)]
    pub params: Value,
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

#[derive(Debug, Deserialize)]
pub struct Drop {
    pub agent: String,
}

pub fn drop(session: &mut Session, p: Drop) -> Result<Value, ErrorInfo> {
    session.agents.remove(&p.agent).map(|_| json!({"dropped": p.agent})).ok_or_else(|| {
        ErrorInfo::new(ErrorCode::UnknownAgent, format!("no agent `{}` in this session", p.agent))
    })
}

pub fn list(session: &Session) -> Value {
    Value::Array(session.agents.iter().map(|(id, slot)| describe(id, slot)).collect())
}

#[cfg(test)]
mod tests {
    use yomi_protocol::envelope::Request;

    use super::*;

    fn act(line: &str) -> Result<Act<'_>, ErrorInfo> {
        Request::parse(line).map_err(|(_, e)| e)?.params()
    }

    #[test]
    fn act_parameters_keep_the_clients_text() {
        let line = r#"{"id":1,"op":"agent.act","agent":"a\u0031","observation":{"x": [1, 2]},"legal":[ "rock" ]}"#;
        let p = act(line).unwrap();
        assert_eq!(p.agent, "a1");
        assert_eq!(p.observation.get(), r#"{"x": [1, 2]}"#);
        assert_eq!(p.legal.get(), r#"[ "rock" ]"#);
        let p = act(r#"{"id":1,"op":"agent.act","agent":"a1"}"#).unwrap();
        assert_eq!((p.observation.get(), p.legal.get()), ("null", "[]"), "the defaults");
    }

    #[test]
    fn a_batch_keeps_each_positions_text_and_reads_each_on_its_own() {
        let line = r#"{"id":1,"op":"agent.act","agent":"a1","positions":[{"observation":{"x": 1},"legal":["a"],"seed":4},{"legal":"a"}]}"#;
        let positions = act(line).unwrap().positions.unwrap();
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

    #[test]
    fn legal_actions_that_are_not_a_list_are_refused_as_before() {
        for (legal, got) in [(r#""rock""#, r#"string "rock""#), ("null", "null"), ("{}", "map")] {
            let line = format!(r#"{{"id":1,"op":"agent.act","agent":"a1","legal":{legal}}}"#);
            let error = act(&line).map(|_| ()).unwrap_err();
            assert_eq!(error.code, ErrorCode::InvalidParams);
            assert_eq!(
                error.message,
                format!("bad parameters for `agent.act`: invalid type: {got}, expected a sequence")
            );
        }
    }
}
