//! Engines: the host's side of the engine protocol (PROTOCOL.md, "Engines"), the JSON lines of
//! `yomi worker` with a handshake in front. The host says `hello` with the protocol version it
//! speaks; the engine answers with the version and its declaration (name, games, options,
//! presets, methods), as UCI's `id`/`option`/`uciok` do. Then `open`, then the calls an agent
//! in this process gets. An engine runs as a [`ChildAgent`](super::child::ChildAgent): deadlines,
//! kill-and-restart and crash-loop back-off as an isolated bot's; its stderr goes to this
//! server's log under the engine's name.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use tokio::process::Command;
use yomi_plugin::call::Open;
use yomi_protocol::{BotInfo, ErrorCode, ErrorInfo};

mod interrupt;

use futures_util::StreamExt;

use super::child::{open_in, Launcher, Process};
use crate::registry::engines::{EngineEntry, EngineSpec};
use crate::registry::Registry;

/// The protocol's name, said in both directions of the handshake.
pub const PROTOCOL: &str = "yomi-engine";

/// The protocol version this host speaks.
pub const VERSION: u32 = 1;

/// The host's first line: `{"hello": {"protocol": "yomi-engine", "version": 1}}`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "snake_case")]
enum Greeting {
    Hello { protocol: &'static str, version: u32 },
}

/// The engine's answer to `hello`.
#[derive(Debug, Deserialize)]
struct Hello {
    protocol: String,
    version: u32,
    engine: Declared,
}

/// What the engine says it is: a bot's declaration plus its own version.
#[derive(Debug, Deserialize)]
struct Declared {
    #[serde(flatten)]
    info: BotInfo,
    #[serde(default)]
    version: String,
}

/// The command that starts an engine. Besides the operator's variables it gets `YOMI_ENGINE`
/// (its name here) and `YOMI_BIN` (this program, for an engine that asks yomi's own bots and
/// services for help by running a `yomi serve` of its own).
fn command(spec: &EngineSpec) -> Command {
    let mut command = Command::new(&spec.command);
    command.args(&spec.args).envs(&spec.env).env("YOMI_ENGINE", &spec.name);
    if let Ok(exe) = std::env::current_exe() {
        command.env("YOMI_BIN", exe);
    }
    if let Some(dir) = &spec.working_dir {
        command.current_dir(dir);
    }
    command
}

/// Starts an engine and says `hello`: the engine's process and its declaration.
async fn greet(spec: &EngineSpec) -> Result<(Process, Declared), ErrorInfo> {
    let what = format!("engine `{}` ({})", spec.name, spec.command.display());
    let mut process = Process::spawn(command(spec), Stdio::piped(), &what)?;
    process.limit_lines(spec.limits.max_line_bytes);
    process.copy_stderr(&spec.name, spec.limits.stderr);
    let hello = Greeting::Hello { protocol: PROTOCOL, version: VERSION };
    let answer = process.exchange::<Hello>(&hello, Some(spec.limits.handshake), "engine").await;
    let checked = answer.map_err(ErrorInfo::from).and_then(check_hello);
    match checked {
        Ok(declared) => Ok((process, declared)),
        Err(e) => {
            process.kill().await;
            Err(ErrorInfo::new(e.code, format!("engine `{}` handshake: {}", spec.name, e.message)))
        }
    }
}

/// The engine must speak this protocol at this version and name itself.
fn check_hello(hello: Hello) -> Result<Declared, ErrorInfo> {
    let refuse = |why: String| Err(ErrorInfo::new(ErrorCode::BotError, why));
    if hello.protocol != PROTOCOL {
        return refuse(format!("it speaks `{}`, not `{PROTOCOL}`", hello.protocol));
    }
    if hello.version != VERSION {
        return refuse(format!(
            "it speaks protocol version {}; this yomi speaks version {VERSION}",
            hello.version
        ));
    }
    if hello.engine.info.name.trim().is_empty() {
        return refuse("it gave no name".into());
    }
    Ok(hello.engine)
}

/// Asks an engine what it is: starts it, says `hello`, and stops it again.
pub async fn handshake(spec: &EngineSpec) -> Result<EngineEntry, ErrorInfo> {
    let (process, declared) = greet(spec).await?;
    process.kill().await;
    let engine_name = declared.info.name.clone();
    let info = BotInfo { name: spec.name.clone(), ..declared.info };
    Ok(EngineEntry {
        spec: spec.clone(),
        info,
        engine_name,
        version: declared.version,
        build: spec.build(),
    })
}

/// Asks every engine what it is, all at once, and adds those that answer to `registry`; returns
/// those that did not, and why. With `patience` (a server), it returns after that long at the
/// latest, with every engine that has answered by then added: the engines still starting are
/// added when they answer, so one that never answers does not hold up serving. Without (a
/// one-shot command), it waits for every handshake.
///
/// Called from outside any runtime, at a command's start, before anything else handles signals:
/// Ctrl-C or SIGTERM meanwhile ends the process, the engines it started killed (see
/// [`interrupt`]).
pub fn add_all(
    registry: &Arc<Registry>,
    specs: Vec<EngineSpec>,
    patience: Option<Duration>,
) -> Vec<(EngineSpec, ErrorInfo)> {
    if specs.is_empty() {
        return Vec::new();
    }
    let catch = interrupt::Catch::install();
    let (answers, answered) = std::sync::mpsc::channel();
    let (adding_to, starting) = (registry.clone(), specs.clone());
    let handshakes =
        std::thread::Builder::new().name("engine handshakes".into()).spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
            runtime.block_on(async {
                let mut all: futures_util::stream::FuturesUnordered<_> = starting
                    .into_iter()
                    .enumerate()
                    .map(|(i, spec)| async move {
                        let result = handshake(&spec).await;
                        (i, spec, result)
                    })
                    .collect();
                let mut order = InOrder::new(all.len());
                let patience_over = patience.map(|p| tokio::time::Instant::now() + p);
                let pass_on = |ready: Vec<Handshake>| {
                    for (spec, result) in ready {
                        let result = result.and_then(|entry| adding_to.add_engine(entry));
                        // The receiver is gone once the server serves: then this says it in
                        // the log.
                        if let Err(std::sync::mpsc::SendError(Heard::Answer(spec, result))) =
                            answers.send(Heard::Answer(spec, result))
                        {
                            match result {
                                Ok(()) => tracing::info!(
                                    "engine `{}` answered its handshake; it is seated from now on",
                                    spec.name
                                ),
                                Err(e) => tracing::warn!("{}", e.message),
                            }
                        }
                    }
                };
                loop {
                    let next = match patience_over {
                        Some(at) if !order.all_at_once => {
                            match tokio::time::timeout_at(at, all.next()).await {
                                Ok(next) => next,
                                Err(_) => {
                                    pass_on(order.all_at_once());
                                    let _ = answers.send(Heard::PatienceOver);
                                    continue;
                                }
                            }
                        }
                        _ => all.next().await,
                    };
                    let Some((i, spec, result)) = next else { break };
                    pass_on(order.take(i, spec, result));
                }
            });
            runtime.shutdown_timeout(Duration::from_millis(100));
            std::io::Result::Ok(())
        });
    if let Err(e) = handshakes {
        let e = ErrorInfo::new(ErrorCode::Internal, format!("cannot start the handshakes: {e}"));
        return specs.into_iter().map(|spec| (spec, e.clone())).collect();
    }
    let mut problems = Vec::new();
    let mut heard = std::collections::HashSet::new();
    while heard.len() < specs.len() {
        if let Some(signal) = catch.caught() {
            tracing::warn!(
                "interrupted (signal {signal}) while engines answered their handshakes; stopping them"
            );
            crate::agents::child::group::kill_all();
            std::process::exit(128 + signal);
        }
        match answered.recv_timeout(SIGNAL_POLL) {
            Ok(Heard::PatienceOver) => {
                let late: Vec<&str> =
                    specs.iter().map(|s| s.name.as_str()).filter(|n| !heard.contains(*n)).collect();
                tracing::warn!(
                    "engines {} have not answered their handshakes yet; serving without them until they do",
                    late.join(", ")
                );
                break;
            }
            Ok(Heard::Answer(spec, result)) => {
                heard.insert(spec.name.clone());
                if let Err(e) = result {
                    tracing::warn!("{}", e.message);
                    problems.push((spec, e));
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    problems
}

/// An engine and what its handshake gave.
type Handshake = (EngineSpec, Result<EngineEntry, ErrorInfo>);

/// What the handshakes' thread tells the waiting command. The patience is timed on that thread
/// alone, and it says so only after passing on every engine that has answered, so a server
/// starts serving with all of them seated (one clock, no race between two).
enum Heard {
    /// An engine's handshake, already added to the registry if it succeeded.
    Answer(EngineSpec, Result<(), ErrorInfo>),
    /// The patience is over; the engines still starting are added when they answer.
    PatienceOver,
}

/// Handshakes' results in the order the engines were named, so that the catalog lists them so
/// whatever order they answer in; once the patience is over, each as it comes.
struct InOrder {
    results: Vec<Option<Handshake>>,
    /// The first result not passed on yet.
    next: usize,
    all_at_once: bool,
}

impl InOrder {
    fn new(n: usize) -> InOrder {
        InOrder { results: (0..n).map(|_| None).collect(), next: 0, all_at_once: false }
    }

    /// Takes the `i`th result; returns those that may be passed on now.
    fn take(
        &mut self,
        i: usize,
        spec: EngineSpec,
        result: Result<EngineEntry, ErrorInfo>,
    ) -> Vec<Handshake> {
        if self.all_at_once {
            return vec![(spec, result)];
        }
        self.results[i] = Some((spec, result));
        let mut ready = Vec::new();
        while let Some(Some(_)) = self.results.get(self.next) {
            ready.extend(self.results[self.next].take());
            self.next += 1;
        }
        ready
    }

    /// From now on each result as it comes; returns those held back.
    fn all_at_once(&mut self) -> Vec<Handshake> {
        self.all_at_once = true;
        self.results.iter_mut().filter_map(Option::take).collect()
    }
}

/// How often the wait for handshakes looks for a signal caught.
const SIGNAL_POLL: Duration = Duration::from_millis(20);

/// Starts an engine for an agent: the handshake, then `open`.
pub struct EngineLaunch(pub Arc<EngineEntry>);

#[async_trait]
impl Launcher for EngineLaunch {
    async fn start(&self, open: &Open, _decisions: Option<Duration>) -> Result<Process, ErrorInfo> {
        let entry = &self.0;
        let (process, declared) = greet(&entry.spec).await?;
        if declared.info.games != entry.info.games || declared.info.options != entry.info.options {
            process.kill().await;
            return Err(ErrorInfo::new(
                ErrorCode::BotError,
                format!(
                    "engine `{}` declares other games or options than when this server started; restart the server to take them",
                    entry.spec.name
                ),
            ));
        }
        // Opening is part of starting, not a decision: it gets the handshake's time.
        open_in(process, open, Some(entry.spec.limits.handshake), self.what()).await
    }

    fn what(&self) -> &'static str {
        "engine"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handshakes_are_passed_on_in_the_order_named_until_the_patience_is_over() {
        let spec = |name: &str| EngineSpec::parse_flag(&format!("{name}=x")).unwrap();
        let failed = || Err(ErrorInfo::new(ErrorCode::Crashed, "no"));
        let names = |ready: Vec<Handshake>| -> Vec<String> {
            ready.into_iter().map(|(spec, _)| spec.name).collect()
        };
        let mut order = InOrder::new(4);
        assert!(order.take(1, spec("b"), failed()).is_empty(), "`a` first");
        assert_eq!(names(order.take(0, spec("a"), failed())), ["a", "b"]);
        assert!(order.take(3, spec("d"), failed()).is_empty(), "`c` first");
        assert_eq!(names(order.all_at_once()), ["d"], "the patience is over: held back no more");
        assert_eq!(names(order.take(2, spec("c"), failed())), ["c"]);
    }
}
