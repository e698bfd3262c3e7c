//! An agent in a child process speaking JSON lines: a `yomi worker` (an isolated plugin bot) or
//! an engine (a bot in any language, see [`super::engine`]). One request line, one reply line.
//!
//! The host side, [`ChildAgent`], enforces the decision deadline by killing the child, notices a
//! crash (even a segfault or abort) as the end of its stdout, takes a reply it cannot read as the
//! child's failure, and starts a fresh child on the next call with the agent's current options —
//! so a bot that hangs, crashes or babbles costs its seat that decision, never the host or the
//! tournament. What the agent had learned dies with the process.

pub mod backoff;
pub mod group;
pub mod stderr;

use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use futures_util::StreamExt;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::{Mutex, OwnedSemaphorePermit};
use tokio_util::codec::{FramedRead, LinesCodec, LinesCodecError};
use yomi_plugin::call::{Call, CallReply, Configure, Observe, Open, Service};
use yomi_plugin::GameOver;
use yomi_protocol::{ActReply, ActRequest, ErrorCode, ErrorInfo, Options};

use crate::agents::AgentHandle;
use crate::registry::engines::StderrLimits;
use crate::runtime::metrics::{self, PluginCalls};
use backoff::Backoff;
use group::Group;
use stderr::Tail;

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

/// A running child process, in a process group of its own: killing it kills whatever it started.
pub struct Process {
    child: Child,
    /// Killed when the process is (or is dropped).
    group: Option<Group>,
    stdin: ChildStdin,
    /// Reply lines, each at most [`Process::limit_lines`] long.
    stdout: FramedRead<ChildStdout, LinesCodec>,
    /// The longest reply line taken, for the error about a longer one.
    max_line: Option<usize>,
    /// The last lines of its stderr, when they are copied to the log.
    stderr: Option<Arc<Tail>>,
    started: Instant,
    /// Whether it answered after living long enough to end its bot's crash loop.
    proven: bool,
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
    /// Starts `command` with piped stdin/stdout, as the leader of a new process group; its
    /// stderr goes where `stderr` says.
    pub fn spawn(mut command: Command, stderr: Stdio, what: &str) -> Result<Process, ErrorInfo> {
        group::lead(&mut command);
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| ErrorInfo::new(ErrorCode::Crashed, format!("cannot start {what}: {e}")))?;
        let group = child.id().map(Group::new);
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = FramedRead::new(child.stdout.take().expect("piped stdout"), LinesCodec::new());
        Ok(Process {
            child,
            group,
            stdin,
            stdout,
            max_line: None,
            stderr: None,
            started: Instant::now(),
            proven: false,
        })
    }

    /// Takes reply lines of at most `bytes`: a longer one breaks the child, which is killed
    /// before more of it is read, so what a child writes never grows this process.
    pub fn limit_lines(&mut self, bytes: usize) {
        *self.stdout.decoder_mut() = LinesCodec::new_with_max_length(bytes);
        self.max_line = Some(bytes);
    }

    /// Copies the child's stderr (when it was piped) into the log under `name`, within `limits`,
    /// and keeps its last lines for the error saying it died.
    pub fn copy_stderr(&mut self, name: &str, limits: StderrLimits) {
        if let Some(stderr) = self.child.stderr.take() {
            self.stderr = Some(stderr::copy_to_log(name.to_string(), stderr, limits));
        }
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
            self.stdout.next().await.transpose()
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
                Err(self.with_stderr(crashed(status)).await)
            }
            // A write to a child that already exited fails before its end of output is read:
            // its exit status, when it comes soon, says more than the broken pipe.
            Err(LinesCodecError::Io(e)) => {
                let why = match tokio::time::timeout(STDERR_WAIT, self.child.wait()).await {
                    Ok(Ok(status)) => status.to_string(),
                    _ => e.to_string(),
                };
                Err(self.with_stderr(crashed(why)).await)
            }
            Err(LinesCodecError::MaxLineLengthExceeded) => {
                let limit = self.max_line.unwrap_or(usize::MAX);
                Err(Failed::Broken(ErrorInfo::new(
                    ErrorCode::BotError,
                    format!(
                        "the bot's {what} wrote a line longer than {limit} bytes; it was stopped and restarts on next use"
                    ),
                )))
            }
        }
    }

    /// `failed` with the last lines the child wrote on stderr, which say why it died.
    async fn with_stderr(&mut self, failed: Failed) -> Failed {
        let Some(tail) = &self.stderr else { return failed };
        if let Some(group) = &self.group {
            // Whatever it started goes too, so that stderr reaches its end.
            group.kill();
        }
        let lines = tail.last_lines(STDERR_WAIT).await;
        if lines.is_empty() {
            return failed;
        }
        let add = |mut e: ErrorInfo| {
            e.message.push_str("; its last lines on stderr:\n");
            e.message.push_str(&lines.join("\n"));
            e
        };
        match failed {
            Failed::Broken(e) => Failed::Broken(add(e)),
            Failed::Answered(e) => Failed::Answered(add(e)),
        }
    }

    /// Ends the child and everything it started, and waits until the child is gone.
    pub async fn kill(mut self) {
        if let Some(group) = self.group.take() {
            group.kill();
        }
        let _ = self.child.kill().await;
    }
}

/// How long a dead child's stderr is waited for, for its last lines.
const STDERR_WAIT: Duration = Duration::from_millis(500);

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
    /// The bot's crash loop, shared with its other agents: starts wait their turn in it.
    backoff: Arc<Backoff>,
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
            backoff: Backoff::of(&bot),
            bot,
            open: Mutex::new(open),
            deadline,
            process: Mutex::new(None),
            _place: place,
        };
        if let Err((failed, left)) = agent.backoff.admit() {
            return Err(ErrorInfo::new(
                ErrorCode::Crashed,
                format!(
                    "{} failed to start {failed} times in a row; the next start is allowed in {} ms",
                    agent.bot,
                    left.as_millis().max(1)
                ),
            ));
        }
        let mut process = agent.process.lock().await;
        *process = Some(agent.spawn().await?);
        drop(process);
        Ok(agent)
    }

    /// Starts a child in the bot's turn; one that cannot even start (an engine dying before its
    /// handshake) counts in the crash loop.
    async fn spawn(&self) -> Result<Process, ErrorInfo> {
        self.backoff.turn().await;
        let open = self.open.lock().await.clone();
        let started = Instant::now();
        let process = self.launcher.start(&open, self.deadline).await;
        self.backoff.started(process.is_ok(), started.elapsed());
        process
    }

    /// One request/reply with the child, restarting it first if it died earlier.
    async fn invoke<T: DeserializeOwned>(&self, call: Call) -> Result<T, ErrorInfo> {
        let mut slot = self.process.lock().await;
        if slot.is_none() {
            metrics::worker_restart(&self.bot);
            *slot = Some(self.spawn().await?);
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
                if !process.proven && process.started.elapsed() >= backoff::QUICK_DEATH {
                    process.proven = true;
                    self.backoff.lived();
                }
                *slot = Some(process);
                Ok(value)
            }
            Err(Failed::Answered(e)) => {
                *slot = Some(process);
                Err(e)
            }
            Err(Failed::Broken(e)) => {
                self.backoff.ended(process.started.elapsed());
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
        let request = ActRequest::new(Value::Null, vec![]);
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
