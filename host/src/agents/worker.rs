//! Process isolation: an agent served by a `yomi worker` child process.
//!
//! The worker loads one plugin library and serves one agent over JSON lines on its stdin/stdout,
//! with the same [`Open`] and [`Call`] messages that cross the C ABI. The host side,
//! [`WorkerAgent`], enforces the decision deadline by killing the child, notices a crash (even a
//! segfault or abort) as the end of its stdout, and starts a fresh worker on the next call with
//! the agent's current options — so a bot that hangs or crashes costs its seat that decision,
//! never the host or the tournament. What the agent had learned dies with the process.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::Mutex;
use yomi_plugin::call::{Call, CallReply, Configure, Observe, Open, Service};
use yomi_plugin::loader::{LoadedPlugin, PluginHandle};
use yomi_plugin::GameOver;
use yomi_protocol::{ActReply, ActRequest, ErrorCode, ErrorInfo, Options};

use crate::agents::AgentHandle;
use crate::runtime::metrics::{self, PluginCalls};

/// One line from the host to a worker.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkerRequest {
    Open(Open),
    Call(Call),
}

/// The child side: `yomi worker --library PATH`. Serves until stdin closes or the host dies.
pub fn serve_worker(library: &Path) -> anyhow::Result<()> {
    exit_with_parent();
    let plugin = LoadedPlugin::load(library)?;
    let mut handle: Option<PluginHandle> = None;
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line?;
        let reply: Result<Value, ErrorInfo> = match serde_json::from_str::<WorkerRequest>(&line) {
            Err(e) => {
                Err(ErrorInfo::new(ErrorCode::InvalidRequest, format!("worker: bad request: {e}")))
            }
            Ok(WorkerRequest::Open(open)) => plugin.open(&open).map(|h| {
                handle = Some(h);
                Value::Null
            }),
            Ok(WorkerRequest::Call(call)) => match handle.as_mut() {
                Some(h) => h.invoke::<Value>(&call),
                None => Err(ErrorInfo::new(ErrorCode::InvalidRequest, "worker: call before open")),
            },
        };
        serde_json::to_writer(&mut stdout, &CallReply::from(reply))?;
        stdout.write_all(b"\n")?;
        stdout.flush()?;
    }
    Ok(())
}

/// A worker stuck in a bot that hangs never reads the end of its stdin, so it watches its parent
/// instead: once the host is gone (the worker is re-parented), the worker exits.
fn exit_with_parent() {
    #[cfg(unix)]
    {
        let parent = std::os::unix::process::parent_id();
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(250));
            if std::os::unix::process::parent_id() != parent {
                std::process::exit(0);
            }
        });
    }
}

/// A running worker process.
struct Process {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    started: Instant,
}

/// A worker that dies within this long of starting counts as crash-looping.
const QUICK_DEATH: Duration = Duration::from_secs(1);

/// The pause before restarting a worker after `quick_deaths` quick deaths in a row: none for the
/// first restart of a worker that ran a while, then 10 ms doubling up to 1 s.
fn restart_pause(quick_deaths: u32) -> Duration {
    match quick_deaths {
        0 => Duration::ZERO,
        n => Duration::from_millis(10 << (n - 1).min(7)).min(Duration::from_secs(1)),
    }
}

/// An agent in its own child process.
pub struct WorkerAgent {
    library: PathBuf,
    /// `plugin/bot`, the label of its restarts.
    bot: String,
    calls: PluginCalls,
    /// How to open the agent again after a restart; `configure` keeps its options current.
    open: Mutex<Open>,
    /// How long one call may take before the worker is killed.
    deadline: Option<Duration>,
    process: Mutex<Option<Process>>,
    /// Workers in a row that died soon after starting. Their restarts are spaced out, as service
    /// managers space out a crash loop: a bot that dies at every call must not spend the machine
    /// on starting processes while other clients wait.
    quick_deaths: AtomicU32,
}

impl WorkerAgent {
    /// Starts a worker for `open` from `library` and opens the agent in it.
    pub async fn start(
        library: PathBuf,
        bot: String,
        open: Open,
        deadline: Option<Duration>,
    ) -> Result<WorkerAgent, ErrorInfo> {
        let agent = WorkerAgent {
            library,
            calls: metrics::plugin_calls(&bot),
            bot,
            open: Mutex::new(open),
            deadline,
            process: Mutex::new(None),
            quick_deaths: AtomicU32::new(0),
        };
        let mut process = agent.process.lock().await;
        *process = Some(agent.spawn().await?);
        drop(process);
        Ok(agent)
    }

    async fn spawn(&self) -> Result<Process, ErrorInfo> {
        let exe = std::env::current_exe()
            .map_err(|e| ErrorInfo::new(ErrorCode::Internal, e.to_string()))?;
        let mut child = Command::new(exe)
            .arg("worker")
            .arg("--library")
            .arg(&self.library)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                ErrorInfo::new(ErrorCode::Internal, format!("cannot start a worker: {e}"))
            })?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
        let mut process = Process { child, stdin, stdout, started: Instant::now() };
        let open = WorkerRequest::Open(self.open.lock().await.clone());
        exchange::<Value>(&mut process, &open, self.deadline).await?;
        Ok(process)
    }

    /// One request/reply with the worker, restarting it first if it died earlier.
    async fn invoke<T: DeserializeOwned>(&self, call: Call) -> Result<T, ErrorInfo> {
        let mut slot = self.process.lock().await;
        if slot.is_none() {
            metrics::worker_restart(&self.bot);
            tokio::time::sleep(restart_pause(self.quick_deaths.load(Ordering::Relaxed))).await;
            *slot = Some(self.spawn().await?);
        }
        let process = slot.as_mut().expect("just started");
        let started = std::time::Instant::now();
        let result = exchange(process, &WorkerRequest::Call(call), self.deadline).await;
        self.calls.record(started.elapsed());
        if let Err(e) = &result {
            if matches!(e.code, ErrorCode::Timeout | ErrorCode::Crashed) {
                if let Some(mut dead) = slot.take() {
                    let _ = dead.child.kill().await;
                    let quick = dead.started.elapsed() < QUICK_DEATH;
                    let deaths =
                        if quick { self.quick_deaths.load(Ordering::Relaxed) + 1 } else { 0 };
                    self.quick_deaths.store(deaths, Ordering::Relaxed);
                }
            }
        }
        result
    }
}

/// Sends one line and waits for one line back within the deadline.
async fn exchange<T: DeserializeOwned>(
    process: &mut Process,
    request: &WorkerRequest,
    deadline: Option<Duration>,
) -> Result<T, ErrorInfo> {
    let mut line = serde_json::to_vec(request)
        .map_err(|e| ErrorInfo::new(ErrorCode::Internal, e.to_string()))?;
    line.push(b'\n');
    let roundtrip = async {
        process.stdin.write_all(&line).await?;
        process.stdin.flush().await?;
        process.stdout.next_line().await
    };
    let answer = match deadline {
        Some(d) => tokio::time::timeout(d, roundtrip).await.map_err(|_| {
            ErrorInfo::new(
                ErrorCode::Timeout,
                format!("the bot did not answer within {} ms", d.as_millis()),
            )
        })?,
        None => roundtrip.await,
    };
    let crashed = |why: String| {
        ErrorInfo::new(
            ErrorCode::Crashed,
            format!("the bot's worker process died ({why}); it restarts on next use"),
        )
    };
    match answer {
        Ok(Some(text)) => serde_json::from_str::<CallReply<T>>(&text)
            .map_err(|e| {
                ErrorInfo::new(ErrorCode::BotError, format!("unreadable worker reply: {e}"))
            })?
            .into(),
        Ok(None) => {
            let status =
                process.child.wait().await.map(|s| s.to_string()).unwrap_or_else(|e| e.to_string());
            Err(crashed(status))
        }
        Err(e) => Err(crashed(e.to_string())),
    }
}

#[async_trait]
impl AgentHandle for WorkerAgent {
    async fn act(&self, request: ActRequest) -> Result<ActReply, ErrorInfo> {
        self.invoke(Call::Act(request)).await
    }

    async fn observe(&self, event: Value) -> Result<(), ErrorInfo> {
        self.invoke(Call::Observe(Observe { event })).await.map(|_: Value| ())
    }

    async fn game_over(&self, over: GameOver) -> Result<(), ErrorInfo> {
        // A worker that died during the game would be started afresh, knowing nothing of the game
        // it is told about: nothing to tell.
        if self.process.lock().await.is_none() {
            return Ok(());
        }
        self.invoke(Call::GameOver(over)).await.map(|_: Value| ())
    }

    async fn configure(&self, options: Options) -> Result<(), ErrorInfo> {
        if let Open::Agent { options: current, .. } = &mut *self.open.lock().await {
            *current = options.clone();
        }
        self.invoke(Call::Configure(Configure { options })).await.map(|_: Value| ())
    }

    async fn call(&self, method: String, params: Value) -> Result<Value, ErrorInfo> {
        self.invoke(Call::Service(Service { method, params })).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crash_loop_is_restarted_ever_more_slowly_up_to_a_second() {
        let pauses: Vec<u64> = (0..10).map(|n| restart_pause(n).as_millis() as u64).collect();
        assert_eq!(pauses, [0, 10, 20, 40, 80, 160, 320, 640, 1000, 1000]);
        assert_eq!(restart_pause(u32::MAX), Duration::from_secs(1));
    }
}
