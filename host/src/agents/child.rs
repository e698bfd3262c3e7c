//! An agent in a child process speaking JSON lines: a `yomi worker` (an isolated plugin bot) or
//! an engine (a bot in any language, see [`super::engine`]). One request line, one reply line.
//!
//! The host side, [`ChildAgent`], enforces the decision deadline by killing the child, notices a
//! crash (even a segfault or abort) as the end of its stdout, takes a reply it cannot read as the
//! child's failure, and starts a fresh child on the next call with the agent's current options —
//! so a bot that hangs, crashes or babbles costs its seat that decision, never the host or the
//! tournament. What the agent had learned dies with the process.

use std::process::Stdio;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::{Mutex, OwnedSemaphorePermit};
use yomi_plugin::call::{Call, CallReply, Configure, Observe, Open, Service};
use yomi_plugin::GameOver;
use yomi_protocol::{ActReply, ActRequest, ErrorCode, ErrorInfo, Options};

use crate::agents::AgentHandle;
use crate::runtime::metrics::{self, PluginCalls};

/// One line from the host to a child: open the agent, or a call on it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Request {
    Open(Open),
    Call(Call),
}

/// How a kind of child is started and brought to an open agent: a `yomi worker`
/// ([`super::worker::WorkerLaunch`]) or an engine ([`super::engine::EngineLaunch`]).
#[async_trait]
pub trait Launcher: Send + Sync {
    /// Starts a child and opens the agent in it (a worker within the decision deadline, an
    /// engine within its handshake's).
    async fn start(&self, open: &Open, deadline: Option<Duration>) -> Result<Process, ErrorInfo>;
    /// `worker` or `engine`, as errors name the process.
    fn what(&self) -> &'static str;
}

/// Opens the agent in a started child; a child that cannot open it is killed.
pub async fn open_in(
    mut process: Process,
    open: &Open,
    deadline: Option<Duration>,
    what: &str,
) -> Result<Process, ErrorInfo> {
    match process.exchange::<Value>(&Request::Open(open.clone()), deadline, what).await {
        Ok(_) => Ok(process),
        Err(e) => {
            process.kill().await;
            Err(e.into())
        }
    }
}

/// A running child process.
pub struct Process {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    started: Instant,
}

/// Why an exchange with a child failed.
pub enum Failed {
    /// The child answered with an error: the call failed, the child serves on.
    Answered(ErrorInfo),
    /// The child missed the deadline, died, or wrote what is not a reply: it is killed.
    Broken(ErrorInfo),
}

impl From<Failed> for ErrorInfo {
    fn from(f: Failed) -> ErrorInfo {
        match f {
            Failed::Answered(e) | Failed::Broken(e) => e,
        }
    }
}

impl Process {
    /// Starts `command` with piped stdin/stdout; its stderr goes where `stderr` says.
    pub fn spawn(mut command: Command, stderr: Stdio, what: &str) -> Result<Process, ErrorInfo> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| ErrorInfo::new(ErrorCode::Crashed, format!("cannot start {what}: {e}")))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
        Ok(Process { child, stdin, stdout, started: Instant::now() })
    }

    /// The child's stderr, when it was piped.
    pub fn take_stderr(&mut self) -> Option<tokio::process::ChildStderr> {
        self.child.stderr.take()
    }

    /// Sends one line and waits for one line back within the deadline.
    pub async fn exchange<T: DeserializeOwned>(
        &mut self,
        request: &impl Serialize,
        deadline: Option<Duration>,
        what: &str,
    ) -> Result<T, Failed> {
        let mut line = serde_json::to_vec(request)
            .map_err(|e| Failed::Answered(ErrorInfo::new(ErrorCode::Internal, e.to_string())))?;
        line.push(b'\n');
        let roundtrip = async {
            self.stdin.write_all(&line).await?;
            self.stdin.flush().await?;
            self.stdout.next_line().await
        };
        let answer = match deadline {
            Some(d) => tokio::time::timeout(d, roundtrip).await.map_err(|_| {
                Failed::Broken(ErrorInfo::new(
                    ErrorCode::Timeout,
                    format!("the bot did not answer within {} ms", d.as_millis()),
                ))
            })?,
            None => roundtrip.await,
        };
        let crashed = |why: String| {
            Failed::Broken(ErrorInfo::new(
                ErrorCode::Crashed,
                format!("the bot's {what} process died ({why}); it restarts on next use"),
            ))
        };
        match answer {
            Ok(Some(text)) => read_reply(&text, what),
            Ok(None) => {
                let status = self
                    .child
                    .wait()
                    .await
                    .map(|s| s.to_string())
                    .unwrap_or_else(|e| e.to_string());
                Err(crashed(status))
            }
            Err(e) => Err(crashed(e.to_string())),
        }
    }

    /// Ends the child and waits until it is gone.
    pub async fn kill(mut self) {
        let _ = self.child.kill().await;
    }
}

/// Longest part of an unreadable reply quoted back in the error.
const QUOTED: usize = 200;

/// Reads a reply line. A line that is not a reply, or whose result is not what the call
/// answers, is the child's failure; so is an error whose code this host does not know, which is
/// kept as a `bot_error` with the child's own code and message.
fn read_reply<T: DeserializeOwned>(text: &str, what: &str) -> Result<T, Failed> {
    let unreadable = |e: String| {
        let mut quoted: String = text.chars().take(QUOTED).collect();
        if quoted.len() < text.len() {
            quoted.push('…');
        }
        Failed::Broken(ErrorInfo::new(
            ErrorCode::BotError,
            format!("unreadable reply from the bot's {what} ({e}): {quoted}"),
        ))
    };
    let reply: CallReply<Value> = match serde_json::from_str(text) {
        Ok(reply) => reply,
        Err(e) => return Err(foreign_error(text).unwrap_or_else(|| unreadable(e.to_string()))),
    };
    let result: Result<Value, ErrorInfo> = reply.into();
    match result {
        Ok(value) => serde_json::from_value(value).map_err(|e| unreadable(e.to_string())),
        Err(e) => Err(Failed::Answered(e)),
    }
}

/// `{"ok": false, "error": {"code": C, "message": M}}` with a code this host does not know.
fn foreign_error(text: &str) -> Option<Failed> {
    let v: Value = serde_json::from_str(text).ok()?;
    let (code, message) = (v["error"]["code"].as_str()?, v["error"]["message"].as_str()?);
    (v["ok"] == false).then(|| {
        Failed::Answered(ErrorInfo::new(ErrorCode::BotError, format!("{code}: {message}")))
    })
}

/// A child that dies within this long of starting counts as crash-looping.
const QUICK_DEATH: Duration = Duration::from_secs(1);

/// The pause before restarting a child after `quick_deaths` quick deaths in a row: none for the
/// first restart of a child that ran a while, then 10 ms doubling up to 1 s.
fn restart_pause(quick_deaths: u32) -> Duration {
    match quick_deaths {
        0 => Duration::ZERO,
        n => Duration::from_millis(10 << (n - 1).min(7)).min(Duration::from_secs(1)),
    }
}

/// An agent in its own child process.
pub struct ChildAgent {
    launcher: Box<dyn Launcher>,
    /// `plugin/bot` (`engine/NAME`), the label of its restarts.
    bot: String,
    calls: PluginCalls,
    /// How to open the agent again after a restart; `configure` keeps its options current.
    open: Mutex<Open>,
    /// How long one call may take before the child is killed.
    deadline: Option<Duration>,
    process: Mutex<Option<Process>>,
    /// Children in a row that died soon after starting. Their restarts are spaced out, as service
    /// managers space out a crash loop: a bot that dies at every call must not spend the machine
    /// on starting processes while other clients wait.
    quick_deaths: AtomicU32,
    /// The agent's place among the server's `--max-workers`, when it holds its own (an agent
    /// made by `agent.new`; a match holds its seats' places itself).
    _place: Option<OwnedSemaphorePermit>,
}

impl ChildAgent {
    /// Starts a child for `open` and opens the agent in it.
    pub async fn start(
        launcher: Box<dyn Launcher>,
        bot: String,
        open: Open,
        deadline: Option<Duration>,
        place: Option<OwnedSemaphorePermit>,
    ) -> Result<ChildAgent, ErrorInfo> {
        let agent = ChildAgent {
            launcher,
            calls: metrics::plugin_calls(&bot),
            bot,
            open: Mutex::new(open),
            deadline,
            process: Mutex::new(None),
            quick_deaths: AtomicU32::new(0),
            _place: place,
        };
        let mut process = agent.process.lock().await;
        *process = Some(agent.spawn().await?);
        drop(process);
        Ok(agent)
    }

    async fn spawn(&self) -> Result<Process, ErrorInfo> {
        let open = self.open.lock().await.clone();
        self.launcher.start(&open, self.deadline).await
    }

    /// One request/reply with the child, restarting it first if it died earlier.
    async fn invoke<T: DeserializeOwned>(&self, call: Call) -> Result<T, ErrorInfo> {
        let mut slot = self.process.lock().await;
        if slot.is_none() {
            metrics::worker_restart(&self.bot);
            tokio::time::sleep(restart_pause(self.quick_deaths.load(Ordering::Relaxed))).await;
            match self.spawn().await {
                Ok(process) => *slot = Some(process),
                // A child that cannot even start (an engine dying before its handshake) is a
                // crash loop too.
                Err(e) => {
                    self.quick_deaths.fetch_add(1, Ordering::Relaxed);
                    return Err(e);
                }
            }
        }
        // Out of the slot for the exchange: if the caller gives up mid-call (a referee's deadline
        // around this one), the child is dropped, and so killed, with its answer still owed;
        // left in the slot it would hand that stale answer to the next call.
        let mut process = slot.take().expect("just started");
        let started = Instant::now();
        let result =
            process.exchange(&Request::Call(call), self.deadline, self.launcher.what()).await;
        self.calls.record(started.elapsed());
        match result {
            Ok(value) => {
                *slot = Some(process);
                Ok(value)
            }
            Err(Failed::Answered(e)) => {
                *slot = Some(process);
                Err(e)
            }
            Err(Failed::Broken(e)) => {
                let quick = process.started.elapsed() < QUICK_DEATH;
                let deaths = if quick { self.quick_deaths.load(Ordering::Relaxed) + 1 } else { 0 };
                self.quick_deaths.store(deaths, Ordering::Relaxed);
                process.kill().await;
                Err(e)
            }
        }
    }
}

#[async_trait]
impl AgentHandle for ChildAgent {
    async fn act(&self, request: ActRequest) -> Result<ActReply, ErrorInfo> {
        self.invoke(Call::Act(request)).await
    }

    async fn observe(&self, event: Value) -> Result<(), ErrorInfo> {
        self.invoke(Call::Observe(Observe { event })).await.map(|_: Value| ())
    }

    async fn game_over(&self, over: GameOver) -> Result<(), ErrorInfo> {
        // A child that died during the game would be started afresh, knowing nothing of the game
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

    async fn close(&self) {
        if let Some(process) = self.process.lock().await.take() {
            process.kill().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn a_crash_loop_is_restarted_ever_more_slowly_up_to_a_second() {
        let pauses: Vec<u64> = (0..10).map(|n| restart_pause(n).as_millis() as u64).collect();
        assert_eq!(pauses, [0, 10, 20, 40, 80, 160, 320, 640, 1000, 1000]);
        assert_eq!(restart_pause(u32::MAX), Duration::from_secs(1));
    }

    /// A shell child whose first process answers its first call late, and every later process
    /// at once: `late`, then `fresh`.
    struct LateOnce(PathBuf);

    #[async_trait]
    impl Launcher for LateOnce {
        async fn start(
            &self,
            open: &Open,
            deadline: Option<Duration>,
        ) -> Result<Process, ErrorInfo> {
            let script = r#"read l; echo '{"ok":true}'
                if [ -e "$0" ]; then first=fresh; delay=0; else touch "$0"; first=late; delay=0.5; fi
                read l; sleep $delay; echo "{\"ok\":true,\"result\":{\"action\":\"$first\"}}"
                while read l; do echo '{"ok":true,"result":{"action":"fresh"}}'; done"#;
            let mut command = tokio::process::Command::new("sh");
            command.arg("-c").arg(script).arg(&self.0);
            let process = Process::spawn(command, Stdio::null(), "a test child")?;
            open_in(process, open, deadline, "test child").await
        }

        fn what(&self) -> &'static str {
            "test child"
        }
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_call_given_up_on_leaves_no_stale_answer_for_the_next() {
        let marker = std::env::temp_dir().join(format!("yomi-late-once-{}", std::process::id()));
        let _ = std::fs::remove_file(&marker);
        let open = Open::Agent {
            bot: "t".into(),
            options: Options::new(),
            context: yomi_plugin::AgentContext::default(),
            cancel: Default::default(),
        };
        let launcher = Box::new(LateOnce(marker.clone()));
        let agent = ChildAgent::start(launcher, "t".into(), open, None, None).await.unwrap();
        let request = ActRequest { observation: Value::Null, legal: vec![], explain: false };
        let given_up =
            tokio::time::timeout(Duration::from_millis(50), agent.act(request.clone())).await;
        assert!(given_up.is_err(), "the caller gave up on the late answer");
        let next = agent.act(request).await.unwrap();
        assert_eq!(next.action, "fresh", "a new child answers, not the old one's late answer");
        let _ = std::fs::remove_file(&marker);
    }

    #[test]
    fn what_is_not_a_reply_breaks_the_child_and_an_error_only_fails_the_call() {
        let broken = |text: &str| match read_reply::<ActReply>(text, "engine") {
            Err(Failed::Broken(e)) => e,
            _ => panic!("{text} should break the child"),
        };
        let e = broken("thinking...");
        assert_eq!(e.code, ErrorCode::BotError);
        assert!(e.message.contains("unreadable reply from the bot's engine"), "{}", e.message);
        assert!(e.message.ends_with("thinking..."), "the line is quoted: {}", e.message);
        assert!(broken(&"x".repeat(1000)).message.ends_with("…"), "a long line is cut");
        broken(r#"{"ok": true, "result": {"no_action": 1}}"#);
        let answered = |text: &str| match read_reply::<ActReply>(text, "engine") {
            Err(Failed::Answered(e)) => e,
            _ => panic!("{text} should fail the call only"),
        };
        let e = answered(r#"{"ok": false, "error": {"code": "invalid_params", "message": "no"}}"#);
        assert_eq!((e.code, e.message.as_str()), (ErrorCode::InvalidParams, "no"));
        let e = answered(r#"{"ok": false, "error": {"code": "oops", "message": "bad hand"}}"#);
        assert_eq!((e.code, e.message.as_str()), (ErrorCode::BotError, "oops: bad hand"));
        let ok = read_reply::<ActReply>(r#"{"ok": true, "result": {"action": "rock"}}"#, "engine");
        assert_eq!(ok.ok().map(|r| r.action), Some(Value::from("rock")));
    }
}
