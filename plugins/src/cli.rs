//! One way to parse a plugin's CLI subcommands (`yomi <plugin> ...`) with clap, so that every
//! plugin answers `--help` the same way: help on the plugin or any subcommand is an answer
//! printed to stdout, a bad argument is an `invalid_params` error carrying clap's message.
//!
//! The clap definition is the only description of the commands: [`commands`] reads the
//! manifest's list from it (each subcommand's synopsis and its doc comment's first line), so
//! the catalog cannot disagree with what `--help` says. A subcommand named `repro` is the one
//! `yomi repro <plugin>` runs; its synopsis is written that way.

use clap::error::ErrorKind;
use clap::{ArgAction, CommandFactory, Parser};
use yomi_protocol::manifest::CommandInfo;
use yomi_protocol::{ErrorCode, ErrorInfo};

/// The subcommand `yomi repro <plugin>` runs (the host's short form of `yomi <plugin> repro`).
pub const REPRO: &str = "repro";

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

/// The manifest's commands of plugin `plugin`, from its clap definition `C`: each visible
/// subcommand's name, and as its description "`synopsis`: about", e.g. "`yomi dice score
/// [--json] [--sides <SIDES>] <FACES>...`: Features and Err of a sequence".
pub fn commands<C: CommandFactory>(plugin: &str) -> Vec<CommandInfo> {
    let mut cli = C::command();
    cli.build();
    cli.get_subcommands()
        .filter(|sub| !sub.is_hide_set() && sub.get_name() != "help")
        .map(|sub| {
            let name = sub.get_name();
            let words = if name == REPRO {
                format!("yomi repro {plugin}")
            } else {
                format!("yomi {plugin} {name}")
            };
            let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
            CommandInfo::new(name, &format!("`{}`: {about}", synopsis(&words, sub)))
        })
        .collect()
}

/// `words` followed by every argument of `command` the way usage lines write them: `--flag`,
/// `--name <VALUE>`, `<POSITIONAL>`, optional ones in brackets, repeatable ones with `...`.
fn synopsis(words: &str, command: &clap::Command) -> String {
    let mut out = words.to_string();
    for arg in command.get_arguments() {
        if arg.is_hide_set()
            || matches!(
                arg.get_action(),
                ArgAction::Help | ArgAction::HelpShort | ArgAction::HelpLong | ArgAction::Version
            )
        {
            continue;
        }
        let value = || match arg.get_value_names() {
            Some([name, ..]) => name.to_string(),
            _ => arg.get_id().as_str().to_uppercase(),
        };
        let repeats = matches!(arg.get_action(), ArgAction::Append)
            || arg.get_num_args().is_some_and(|n| n.max_values() > 1);
        let mut word = match arg.get_long() {
            Some(long) if arg.get_action().takes_values() => format!("--{long} <{}>", value()),
            Some(long) => format!("--{long}"),
            None => format!("<{}>", value()),
        };
        if repeats {
            word.push_str("...");
        }
        if !arg.is_required_set() {
            word = format!("[{word}]");
        }
        out.push(' ');
        out.push_str(&word);
    }
    out
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
    fn the_commands_come_from_the_clap_definition() {
        #[derive(Parser)]
        struct Two {
            #[command(subcommand)]
            command: Both,
        }
        #[derive(clap::Subcommand)]
        enum Both {
            /// Says hello.
            Hello {
                #[arg(long, default_value_t = 1)]
                times: u32,
                #[arg(long = "name", value_name = "WHO")]
                names: Vec<String>,
                #[arg(long)]
                loud: bool,
                #[arg(required = true)]
                words: Vec<String>,
            },
            /// Regenerates the rows.
            Repro {
                #[arg(long)]
                json: bool,
                #[arg(long)]
                rows: Option<String>,
            },
            #[command(hide = true)]
            Secret,
        }
        let listed = commands::<Two>("demo");
        assert_eq!(
            listed,
            [
                CommandInfo::new(
                    "hello",
                    "`yomi demo hello [--times <TIMES>] [--name <WHO>...] [--loud] <WORDS>...`: Says hello"
                ),
                CommandInfo::new("repro", "`yomi repro demo [--json] [--rows <ROWS>]`: Regenerates the rows"),
            ]
        );
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
