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
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{ChildStderr, Command};
use yomi_plugin::call::Open;
use yomi_protocol::{BotInfo, ErrorCode, ErrorInfo};

use super::child::{open_in, Launcher, Process};
use crate::registry::engines::{EngineEntry, EngineSpec};

/// The protocol's name, said in both directions of the handshake.
pub const PROTOCOL: &str = "yomi-engine";

/// The protocol version this host speaks.
pub const VERSION: u32 = 1;

/// How long an engine may take to start and answer `hello` and `open` (an interpreter loading
/// its libraries), whatever the decision deadline.
const HANDSHAKE_DEADLINE: Duration = Duration::from_secs(20);

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
    if let Some(stderr) = process.take_stderr() {
        tokio::spawn(log_stderr(spec.name.clone(), stderr));
    }
    let hello = Greeting::Hello { protocol: PROTOCOL, version: VERSION };
    let answer = process.exchange::<Hello>(&hello, Some(HANDSHAKE_DEADLINE), "engine").await;
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

/// Copies an engine's stderr into this server's log, each line under the engine's name.
async fn log_stderr(engine: String, stderr: ChildStderr) {
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        tracing::info!(engine = %engine, "{line}");
    }
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

/// Asks every engine what it is, all at once, from outside any runtime (at a command's start).
pub fn handshake_all(specs: &[EngineSpec]) -> Vec<Result<EngineEntry, ErrorInfo>> {
    if specs.is_empty() {
        return Vec::new();
    }
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            let e = ErrorInfo::new(ErrorCode::Internal, e.to_string());
            return specs.iter().map(|_| Err(e.clone())).collect();
        }
    };
    let all = futures_util::future::join_all(specs.iter().map(handshake));
    let results = runtime.block_on(all);
    runtime.shutdown_timeout(Duration::from_millis(100));
    results
}

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
        open_in(process, open, Some(HANDSHAKE_DEADLINE), self.what()).await
    }

    fn what(&self) -> &'static str {
        "engine"
    }
}
