//! Cancelling a call that is already running inside a plugin.
//!
//! Plugin code cannot be preempted, so a long loop (sampling, Monte Carlo analysis) stops early
//! only if it asks. The host owns one [`CancelFlag`] per open agent and lends its address to every
//! call (the table's `invoke_cancellable`); while the call runs, [`cancelled`] reads it. A bot
//! polls [`cancelled`] in its long loops and, once it is true, returns [`error`] (or whatever it
//! has) at once: the host has already answered the client and drops the call's result.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use yomi_protocol::{ErrorCode, ErrorInfo};

/// A flag the host raises to ask the call running on one handle to stop. Cloning shares it.
#[derive(Debug, Clone, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    /// Asks the running call to stop.
    pub fn raise(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Clears the flag before the next call.
    pub fn lower(&self) {
        self.0.store(false, Ordering::Relaxed);
    }

    /// Whether the flag is raised.
    pub fn is_raised(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// The flag's address, lent to a plugin for the length of one call.
    pub fn as_ptr(&self) -> *const AtomicBool {
        Arc::as_ptr(&self.0)
    }
}

thread_local! {
    /// The flag of the call running on this thread, if the host lent one.
    static CURRENT: Cell<*const AtomicBool> = const { Cell::new(std::ptr::null()) };
}

/// Whether the host has cancelled the call now running on this thread. Cheap (one thread-local
/// read and one relaxed load): poll it every few thousand iterations of a long loop. Always false
/// outside a call from a host (a bot's own tests, the CLI).
pub fn cancelled() -> bool {
    let flag = CURRENT.get();
    // SAFETY: a non-null pointer was lent by `during` for the call now running on this thread,
    // and the host keeps the flag alive until that call returns.
    !flag.is_null() && unsafe { (*flag).load(Ordering::Relaxed) }
}

/// The error a loop returns once [`cancelled`] is true. The host never shows it to the client,
/// which already got its `cancelled` reply.
pub fn error() -> ErrorInfo {
    ErrorInfo::new(ErrorCode::Cancelled, "the call was cancelled")
}

/// `Err(error())` once the call is cancelled: `cancel::check()?` in a loop.
pub fn check() -> Result<(), ErrorInfo> {
    match cancelled() {
        true => Err(error()),
        false => Ok(()),
    }
}

/// Runs `f` with `flag` as this thread's [`cancelled`] flag (none when null), then restores the
/// previous one.
///
/// # Safety
/// `flag` must be null or point to an `AtomicBool` that stays alive until `f` returns.
pub(crate) unsafe fn during<T>(flag: *const AtomicBool, f: impl FnOnce() -> T) -> T {
    struct Restore(*const AtomicBool);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.set(self.0);
        }
    }
    let _restore = Restore(CURRENT.replace(flag));
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_raised_flag_is_seen_only_inside_the_call_it_was_lent_to() {
        let flag = CancelFlag::default();
        assert!(!cancelled(), "no call, no flag");
        // SAFETY: `flag` outlives both calls.
        unsafe {
            during(flag.as_ptr(), || {
                assert!(!cancelled());
                flag.raise();
                assert!(cancelled());
                assert_eq!(check().unwrap_err().code, ErrorCode::Cancelled);
            });
            assert!(!cancelled(), "restored after the call");
            flag.lower();
            during(flag.as_ptr(), || assert!(!cancelled(), "lowered for the next call"));
            during(std::ptr::null(), || assert!(!cancelled(), "a call lent no flag"));
        }
    }
}
