//! Gives the memory a busy spell used back to the system once the server is quiet again.
//!
//! glibc's allocator keeps what a burst of work freed (two hundred matches at once: about 100 MB
//! past the idle server's 55) in its heaps for the next burst, so a server's RSS stays at its
//! high-water mark for good. `malloc_trim` returns the free pages; the trimmer calls it every
//! [`EVERY`] on a blocking thread, which costs the busy server nothing it would notice (a walk
//! of the allocator's free lists) and lets an idle one shrink back to near where it started.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

/// How often the free memory is given back.
pub const EVERY: Duration = Duration::from_secs(30);

/// Trims the allocator's free memory every [`EVERY`] until `shutdown`.
pub fn spawn_trimmer(shutdown: CancellationToken) {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(EVERY);
        ticks.tick().await; // the first tick is at once: nothing to give back yet
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = ticks.tick() => {
                    let _ = tokio::task::spawn_blocking(give_back).await;
                }
            }
        }
    });
}

/// Returns the free memory of the server's allocator, and of the C allocator the plugins'
/// libraries may use, to the system.
fn give_back() {
    // SAFETY: mi_collect only frees the allocator's own unused pages; it has no preconditions.
    unsafe { libmimalloc_sys::mi_collect(true) };
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks and releases glibc's own free lists; no preconditions.
    unsafe {
        libc::malloc_trim(0);
    }
}
