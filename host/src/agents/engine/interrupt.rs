//! Ctrl-C and SIGTERM while this process waits for its engines' handshakes, before anything
//! else handles them: the process ends with the signal's usual status (128 + its number) after
//! killing the engines it started ([`group::kill_all`](crate::agents::child::group::kill_all)),
//! instead of meeting the default action, which would leave them running.
//!
//! The handlers are the process's only ones for that time and the previous dispositions come
//! back when the wait ends, so that a server installs its own afterwards and a one-shot command
//! is ended by a later signal as before.

use std::sync::atomic::{AtomicI32, Ordering};

/// The signal caught, 0 for none.
static CAUGHT: AtomicI32 = AtomicI32::new(0);

/// While it lives, SIGINT and SIGTERM are noted instead of ending the process.
pub struct Catch {
    #[cfg(unix)]
    previous: Vec<(libc::c_int, libc::sigaction)>,
}

#[cfg(unix)]
extern "C" fn note(signal: libc::c_int) {
    // An atomic store is async-signal-safe.
    CAUGHT.store(signal, Ordering::SeqCst);
}

impl Catch {
    /// Starts catching.
    #[cfg(unix)]
    pub fn install() -> Catch {
        let mut previous = Vec::new();
        for signal in [libc::SIGINT, libc::SIGTERM] {
            // SAFETY: the handler only stores to an atomic; the structs are zeroed, then filled
            // as sigaction(2) expects.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = note as extern "C" fn(libc::c_int) as libc::sighandler_t;
                action.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut action.sa_mask);
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(signal, &action, &mut old) == 0 {
                    previous.push((signal, old));
                }
            }
        }
        Catch { previous }
    }

    #[cfg(not(unix))]
    pub fn install() -> Catch {
        Catch {}
    }

    /// The signal caught so far, if any.
    pub fn caught(&self) -> Option<i32> {
        match CAUGHT.load(Ordering::SeqCst) {
            0 => None,
            signal => Some(signal),
        }
    }
}

impl Drop for Catch {
    fn drop(&mut self) {
        #[cfg(unix)]
        for (signal, old) in &self.previous {
            // SAFETY: puts back the disposition sigaction(2) returned for this signal.
            unsafe {
                libc::sigaction(*signal, old, std::ptr::null_mut());
            }
        }
    }
}
