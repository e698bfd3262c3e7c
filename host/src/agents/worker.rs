//! Process isolation: an agent served by a `yomi worker` child process.
//!
//! The worker loads one plugin library and serves one agent over JSON lines on its stdin/stdout,
//! with the same [`Open`] and [`Call`] messages that cross the C ABI. The host's side is a
//! [`ChildAgent`](super::child::ChildAgent), as for engines.

use std::io::{BufRead, Write};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::process::Command;
use yomi_plugin::call::{Call, CallReply, Open};
use yomi_plugin::loader::{LoadedPlugin, PluginHandle};
use yomi_protocol::{ErrorCode, ErrorInfo};

use super::child::Process;

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

/// Starts `yomi worker --library PATH` (this same binary); the agent is opened by the caller.
pub fn spawn(library: &Path) -> Result<Process, ErrorInfo> {
    let exe =
        std::env::current_exe().map_err(|e| ErrorInfo::new(ErrorCode::Internal, e.to_string()))?;
    let mut command = Command::new(exe);
    command.arg("worker").arg("--library").arg(library);
    Process::spawn(command, Stdio::inherit(), "a worker")
}
