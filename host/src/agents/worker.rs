//! Process isolation: an agent served by a `yomi worker` child process.
//!
//! The worker loads one plugin library and serves one agent over JSON lines on its stdin/stdout,
//! with the same [`Open`] and [`Call`] messages that cross the C ABI. The host's side is a
//! [`ChildAgent`](super::child::ChildAgent), as for engines.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use tokio::process::Command;
use yomi_plugin::call::{CallReply, Open};
use yomi_plugin_engine::{LoadedPlugin, PluginHandle};
use yomi_protocol::{ErrorCode, ErrorInfo};

use super::child::{open_in, Launcher, Process, Request};

/// The child side: `yomi worker --library PATH`. Serves until stdin closes or the host dies.
pub fn serve_worker(library: &Path) -> anyhow::Result<()> {
    exit_with_parent();
    let plugin = LoadedPlugin::load(library)?;
    let mut handle: Option<PluginHandle> = None;
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line?;
        let reply: Result<Value, ErrorInfo> = match serde_json::from_str::<Request>(&line) {
            Err(e) => {
                Err(ErrorInfo::new(ErrorCode::InvalidRequest, format!("worker: bad request: {e}")))
            }
            Ok(Request::Open(open)) => plugin.open(&open).map(|h| {
                handle = Some(h);
                Value::Null
            }),
            Ok(Request::Call(call)) => match handle.as_mut() {
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

/// Starts `yomi worker --library PATH` (this same binary) for an agent of one of its bots.
pub struct WorkerLaunch {
    pub library: PathBuf,
}

#[async_trait]
impl Launcher for WorkerLaunch {
    async fn start(&self, open: &Open, deadline: Option<Duration>) -> Result<Process, ErrorInfo> {
        let exe = std::env::current_exe()
            .map_err(|e| ErrorInfo::new(ErrorCode::Internal, e.to_string()))?;
        let mut command = Command::new(exe);
        command.arg("worker").arg("--library").arg(&self.library);
        let process = Process::spawn(command, Stdio::inherit(), "a worker")?;
        open_in(process, open, deadline, self.what()).await
    }

    fn what(&self) -> &'static str {
        "worker"
    }
}
