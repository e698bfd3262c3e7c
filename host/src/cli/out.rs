//! Printing for one-shot commands that ends quietly when stdout is closed.
//!
//! `println!` panics when the reader of a pipe went away (`yomi bots | head -c 50`). Commands print
//! with `out!` and `outln!` instead, which return an
//! `std::io::Result` to pass on with `?`; [`main`](crate::cli::main) then recognises a closed
//! stdout with [`is_closed_stdout`] and exits quietly, as Unix tools do, after the usual clean-up
//! (destructors still run, unlike with `process::exit`).

use std::io::Write;

/// Writes formatted text to stdout; the error says whether the reader went away.
pub fn write(args: std::fmt::Arguments<'_>) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_fmt(args)?;
    stdout.flush()
}

/// Like `print!`, but returns the write error instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => { $crate::cli::out::write(format_args!($($arg)*)) };
}

/// Like `println!`, but returns the write error instead of panicking.
macro_rules! outln {
    () => { $crate::cli::out::write(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::cli::out::write(format_args!("{}\n", format_args!($($arg)*))) };
}

/// Whether a command failed only because its stdout was closed (a broken pipe).
pub fn is_closed_stdout(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_pipe_anywhere_in_the_chain_counts_as_closed_stdout() {
        let pipe = std::io::Error::new(std::io::ErrorKind::BrokenPipe, "closed");
        assert!(is_closed_stdout(&anyhow::Error::new(pipe).context("printing the catalog")));
        let other = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "no");
        assert!(!is_closed_stdout(&anyhow::Error::new(other)));
    }
}
