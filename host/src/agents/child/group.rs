//! A child's process group: an engine is a program the operator named, and it may start programs
//! of its own (a shell script running Python, a Python kit running `yomi serve`). Each child
//! leads a process group of its own, and the whole group is killed with it, so nothing it
//! started outlives it: not at `agent.drop`, a restart, a deadline kill, nor this process's exit
//! (every group still alive is killed then, however the process ends but by a signal's default
//! action or SIGKILL).

use std::collections::HashSet;
use std::sync::{LazyLock, Mutex, Once};

use tokio::process::Command;

/// Makes the child of `command` the leader of a new process group (its id is the child's pid).
pub fn lead(command: &mut Command) {
    #[cfg(unix)]
    command.process_group(0);
    #[cfg(not(unix))]
    let _ = command;
}

/// The groups alive, for the exit of this process.
static LIVE: LazyLock<Mutex<HashSet<u32>>> = LazyLock::new(Mutex::default);

/// Registers [`kill_all`] to run at this process's exit, once.
static AT_EXIT: Once = Once::new();

/// A child's process group, killed when dropped.
#[derive(Debug)]
pub struct Group {
    id: u32,
}

impl Group {
    /// The group led by the child `pid` (see [`lead`]).
    pub fn new(pid: u32) -> Group {
        #[cfg(unix)]
        AT_EXIT.call_once(|| {
            // SAFETY: registers a plain function without arguments, as atexit(3) takes.
            unsafe {
                libc::atexit(kill_all_at_exit);
            }
        });
        LIVE.lock().unwrap_or_else(|e| e.into_inner()).insert(pid);
        Group { id: pid }
    }

    /// Kills every process still in the group (none left is not an error).
    pub fn kill(&self) {
        signal_group(self.id);
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
        LIVE.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.id);
    }
}

/// Kills every child's group still alive: at this process's exit.
pub fn kill_all() {
    let live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    live.iter().copied().for_each(signal_group);
}

#[cfg(unix)]
extern "C" fn kill_all_at_exit() {
    kill_all();
}

/// SIGKILL to the group `id`.
fn signal_group(id: u32) {
    #[cfg(unix)]
    if let Ok(id) = libc::pid_t::try_from(id) {
        // SAFETY: killpg only sends a signal; the group is one this process made for its child
        // (a group id is not reused while any process of the group lives).
        unsafe {
            libc::killpg(id, libc::SIGKILL);
        }
    }
    #[cfg(not(unix))]
    let _ = id;
}
