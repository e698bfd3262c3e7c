//! One way to parse a plugin's CLI subcommands (`yomi <plugin> ...`) with clap, so that every
//! plugin answers `--help` the same way: help on the plugin or any subcommand is an answer
//! printed to stdout, a bad argument is an `invalid_params` error carrying clap's message.

use clap::error::ErrorKind;
use clap::Parser;
use yomi_protocol::{ErrorCode, ErrorInfo};

/// Parses `args` (the words after `yomi <plugin>`) into `C` and hands it to `run`.
///
/// `--help`/`-h` anywhere, and `--version`, return their text as the command's output.
pub fn run<C: Parser>(
    plugin: &str,
    args: &[String],
    run: impl FnOnce(C) -> Result<String, ErrorInfo>,
) -> Result<String, ErrorInfo> {
    let argv = std::iter::once(format!("yomi {plugin}")).chain(args.iter().cloned());
    match C::try_parse_from(argv) {
        Ok(cli) => run(cli),
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            Ok(e.render().to_string())
        }
        Err(e) => Err(ErrorInfo::new(ErrorCode::InvalidParams, e.render().to_string())),
    }
}

/// The `invalid_params` error of a command-line argument clap could not check itself.
pub fn invalid(message: impl Into<String>) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::InvalidParams, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Parser, Debug)]
    struct Cli {
        #[command(subcommand)]
        command: Command,
    }

    #[derive(clap::Subcommand, Debug)]
    enum Command {
        /// Says hello.
        Hello {
            #[arg(long, default_value_t = 1)]
            times: u32,
        },
    }

    fn hello(args: &[&str]) -> Result<String, ErrorInfo> {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        run("demo", &args, |cli: Cli| {
            let Command::Hello { times } = cli.command;
            Ok("hello\n".repeat(times as usize))
        })
    }

    #[test]
    fn help_is_an_answer_and_bad_arguments_are_invalid_params() {
        assert_eq!(hello(&["hello", "--times", "2"]).unwrap(), "hello\nhello\n");
        let help = hello(&["--help"]).unwrap();
        assert!(help.contains("Usage: yomi demo") && help.contains("Says hello"), "{help}");
        let sub = hello(&["hello", "--help"]).unwrap();
        assert!(sub.contains("Usage: yomi demo hello") && sub.contains("--times"), "{sub}");
        let bad = hello(&["hello", "--times", "x"]).unwrap_err();
        assert_eq!(bad.code, ErrorCode::InvalidParams);
        assert!(bad.message.contains("--times"), "{}", bad.message);
        assert_eq!(hello(&["nope"]).unwrap_err().code, ErrorCode::InvalidParams);
    }
}
