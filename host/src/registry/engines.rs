//! Engines: bots in any language, served by a program the operator names, speaking the engine
//! protocol (PROTOCOL.md, "Engines") on its stdin/stdout.
//!
//! Only the operator names commands: `--engine NAME=COMMAND` on the command line and the engines
//! file (`engines.toml` in the data directory). Nothing a client sends can add an engine or
//! change its command; clients name an engine only as `engine/NAME`, one the operator set up.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use sha2::{Digest, Sha256};
use yomi_protocol::BotInfo;

/// What `engine/NAME` qualifies engines by, in the catalog and in seats.
pub const ENGINE_PREFIX: &str = "engine";

/// The engines file's name inside the data directory.
pub const ENGINES_FILE: &str = "engines.toml";

/// How much of a child's stderr reaches the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StderrLimits {
    /// Longest line logged; the rest of a longer line is dropped (and counted).
    pub line_bytes: usize,
    /// Lines logged in one second; more are dropped until the next second.
    pub lines_per_second: u32,
    /// Bytes logged in one second; more are dropped until the next second.
    pub bytes_per_second: usize,
}

impl Default for StderrLimits {
    fn default() -> Self {
        StderrLimits { line_bytes: 4096, lines_per_second: 100, bytes_per_second: 64 * 1024 }
    }
}

/// How to start one engine, as the operator wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineSpec {
    /// The engine's name in this server: clients seat it as `engine/NAME`.
    pub name: String,
    /// The program to run.
    pub command: PathBuf,
    pub args: Vec<String>,
    /// Where the program runs; `None`: this process's working directory.
    pub working_dir: Option<PathBuf>,
    /// Variables added to the program's environment.
    pub env: BTreeMap<String, String>,
    /// What the engine may write and how long it may take to start.
    pub limits: EngineLimits,
}

/// What an engine may write and how long it may take to start: the engines file sets each per
/// engine, `--engine` takes the defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineLimits {
    /// Longest line read from the engine's stdout (the default is a client's request line's):
    /// a longer one stops the engine before more of it is read.
    pub max_line_bytes: usize,
    /// How much of its stderr reaches the log.
    pub stderr: StderrLimits,
    /// How long it may take to start and answer `hello` and `open`.
    pub handshake: Duration,
}

impl Default for EngineLimits {
    fn default() -> Self {
        EngineLimits {
            max_line_bytes: 1 << 20,
            stderr: StderrLimits::default(),
            handshake: Duration::from_secs(20),
        }
    }
}

impl EngineSpec {
    /// Reads `NAME=COMMAND`, the command split into words as a POSIX shell splits them (quotes
    /// keep spaces; nothing is expanded and no shell runs).
    pub fn parse_flag(flag: &str) -> Result<EngineSpec, String> {
        let (name, command) = flag
            .split_once('=')
            .ok_or_else(|| format!("--engine `{flag}`: expected NAME=COMMAND"))?;
        check_name(name).map_err(|e| format!("--engine `{flag}`: {e}"))?;
        let words = shlex::split(command)
            .ok_or_else(|| format!("--engine `{flag}`: unbalanced quotes in the command"))?;
        let (program, args) = words
            .split_first()
            .ok_or_else(|| format!("--engine `{flag}`: the command is empty"))?;
        Ok(EngineSpec {
            name: name.to_string(),
            command: PathBuf::from(program),
            args: args.to_vec(),
            working_dir: None,
            env: BTreeMap::new(),
            limits: EngineLimits::default(),
        })
    }

    /// The engines of an engines file. Relative paths in it (a `working_dir`, a `command` with a
    /// `/`) are taken from the file's own directory, so a data directory copied to another
    /// machine (a tournament shard's) brings working engines along.
    pub fn read_file(path: &Path) -> Result<Vec<EngineSpec>, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file: EnginesFile =
            toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let base = path.parent().unwrap_or(Path::new("."));
        let mut specs: Vec<EngineSpec> = Vec::new();
        for entry in file.engine {
            check_name(&entry.name).map_err(|e| format!("{}: {e}", path.display()))?;
            let limits = entry.limits(path)?;
            if specs.iter().any(|s| s.name == entry.name) {
                return Err(format!("{}: engine `{}` is named twice", path.display(), entry.name));
            }
            if entry.command.as_os_str().is_empty() {
                return Err(format!(
                    "{}: engine `{}` has an empty command",
                    path.display(),
                    entry.name
                ));
            }
            let command =
                match entry.command.components().count() > 1 && entry.command.is_relative() {
                    true => base.join(&entry.command),
                    false => entry.command,
                };
            let working_dir = Some(match entry.working_dir {
                Some(dir) if dir.is_relative() => base.join(dir),
                Some(dir) => dir,
                None => base.to_path_buf(),
            });
            specs.push(EngineSpec {
                name: entry.name,
                command,
                args: entry.args,
                working_dir,
                env: entry.env,
                limits,
            });
        }
        Ok(specs)
    }

    /// A short fingerprint of how the engine is started, recorded as a seat's `build`: a changed
    /// command or environment is a different build.
    pub fn build(&self) -> String {
        let mut hasher = Sha256::new();
        hasher.update(self.command.to_string_lossy().as_bytes());
        for word in self.args.iter().chain(self.env.iter().flat_map(|(k, v)| [k, v])) {
            hasher.update([0]);
            hasher.update(word.as_bytes());
        }
        hasher.finalize().iter().take(6).map(|b| format!("{b:02x}")).collect()
    }
}

/// `engines.toml`: `[[engine]]` tables.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EnginesFile {
    #[serde(default)]
    engine: Vec<EngineEntryText>,
}

/// One `[[engine]]` table of the engines file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EngineEntryText {
    name: String,
    command: PathBuf,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    working_dir: Option<PathBuf>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// See [`EngineLimits`]; each missing one has its default.
    max_line_bytes: Option<usize>,
    stderr_line_bytes: Option<usize>,
    stderr_lines_per_second: Option<u32>,
    stderr_bytes_per_second: Option<usize>,
    handshake_timeout_ms: Option<u64>,
}

impl EngineEntryText {
    /// The limits the table sets, the defaults for the rest; a zero is refused (it would stop
    /// every engine, or log nothing without saying so).
    fn limits(&self, file: &Path) -> Result<EngineLimits, String> {
        let d = EngineLimits::default();
        let keys = [
            ("max_line_bytes", self.max_line_bytes.map(|v| v as u64)),
            ("stderr_line_bytes", self.stderr_line_bytes.map(|v| v as u64)),
            ("stderr_lines_per_second", self.stderr_lines_per_second.map(u64::from)),
            ("stderr_bytes_per_second", self.stderr_bytes_per_second.map(|v| v as u64)),
            ("handshake_timeout_ms", self.handshake_timeout_ms),
        ];
        if let Some((key, _)) = keys.iter().find(|(_, v)| *v == Some(0)) {
            return Err(format!(
                "{}: engine `{}`: `{key}` must be above 0",
                file.display(),
                self.name
            ));
        }
        Ok(EngineLimits {
            max_line_bytes: self.max_line_bytes.unwrap_or(d.max_line_bytes),
            stderr: StderrLimits {
                line_bytes: self.stderr_line_bytes.unwrap_or(d.stderr.line_bytes),
                lines_per_second: self.stderr_lines_per_second.unwrap_or(d.stderr.lines_per_second),
                bytes_per_second: self.stderr_bytes_per_second.unwrap_or(d.stderr.bytes_per_second),
            },
            handshake: self.handshake_timeout_ms.map_or(d.handshake, Duration::from_millis),
        })
    }
}

/// An engine name is one word a seat can carry: letters, digits, `-`, `_` and `.`.
fn check_name(name: &str) -> Result<(), String> {
    let fits = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    if name.is_empty() || !name.chars().all(fits) {
        return Err(format!(
            "engine name `{name}`: use letters, digits, `-`, `_` and `.` (clients seat it as engine/NAME)"
        ));
    }
    Ok(())
}

/// An engine that answered its handshake: how to start it and what it declared.
#[derive(Debug, Clone)]
pub struct EngineEntry {
    pub spec: EngineSpec,
    /// What the engine declared, under the operator's name for it.
    pub info: BotInfo,
    /// The name the engine gave itself in its handshake.
    pub engine_name: String,
    /// The engine's own version, as its handshake gave it.
    pub version: String,
    /// See [`EngineSpec::build`].
    pub build: String,
}

impl EngineEntry {
    /// `engine/NAME`.
    pub fn qualified(&self) -> String {
        format!("{ENGINE_PREFIX}/{}", self.spec.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_names_an_engine_and_its_words() {
        let spec = EngineSpec::parse_flag("rps-py=python3 'my dir/rps.py' --fast").unwrap();
        assert_eq!(spec.name, "rps-py");
        assert_eq!(spec.command, PathBuf::from("python3"));
        assert_eq!(spec.args, ["my dir/rps.py", "--fast"]);
        for (bad, why) in [
            ("python3 rps.py", "expected NAME=COMMAND"),
            ("=python3", "engine name ``"),
            ("a/b=python3", "engine name `a/b`"),
            ("x=", "the command is empty"),
            ("x=python3 'open", "unbalanced quotes"),
        ] {
            let e = EngineSpec::parse_flag(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn the_engines_file_resolves_paths_from_its_directory() {
        let dir = std::env::temp_dir().join(format!("yomi-engines-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(ENGINES_FILE);
        std::fs::write(
            &file,
            "[[engine]]\nname = \"a\"\ncommand = \"python3\"\nargs = [\"a.py\"]\nenv = { LEVEL = \"3\" }\n\
             [[engine]]\nname = \"b\"\ncommand = \"bin/b\"\nworking_dir = \"engines\"\n",
        )
        .unwrap();
        let specs = EngineSpec::read_file(&file).unwrap();
        assert_eq!(
            specs[0].command,
            PathBuf::from("python3"),
            "a bare command is looked up on PATH"
        );
        assert_eq!(specs[0].working_dir.as_deref(), Some(dir.as_path()));
        assert_eq!(specs[0].env["LEVEL"], "3");
        assert_eq!(specs[1].command, dir.join("bin/b"));
        assert_eq!(specs[1].working_dir, Some(dir.join("engines")));
        assert_ne!(specs[0].build(), specs[1].build());
        std::fs::write(&file, "[[engine]]\nname = \"a\"\ncommand = \"x\"\nshell = true\n").unwrap();
        let e = EngineSpec::read_file(&file).unwrap_err();
        assert!(e.contains("unknown field `shell`"), "{e}");
        std::fs::write(&file, "[[engine]]\nname = \"a\"\ncommand = \"x\"\n[[engine]]\nname = \"a\"\ncommand = \"y\"\n").unwrap();
        assert!(EngineSpec::read_file(&file).unwrap_err().contains("named twice"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_engines_file_sets_an_engines_limits_and_refuses_a_zero() {
        let dir = std::env::temp_dir().join(format!("yomi-engine-limits-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(ENGINES_FILE);
        std::fs::write(
            &file,
            "[[engine]]\nname = \"a\"\ncommand = \"x\"\nmax_line_bytes = 4096\n\
             stderr_lines_per_second = 5\nhandshake_timeout_ms = 1500\n",
        )
        .unwrap();
        let limits = EngineSpec::read_file(&file).unwrap()[0].limits;
        let d = EngineLimits::default();
        assert_eq!(
            limits,
            EngineLimits {
                max_line_bytes: 4096,
                stderr: StderrLimits { lines_per_second: 5, ..d.stderr },
                handshake: Duration::from_millis(1500),
            }
        );
        assert_eq!(EngineSpec::parse_flag("a=x").unwrap().limits, d, "--engine takes the defaults");
        std::fs::write(&file, "[[engine]]\nname = \"a\"\ncommand = \"x\"\nmax_line_bytes = 0\n")
            .unwrap();
        let e = EngineSpec::read_file(&file).unwrap_err();
        assert!(e.contains("`max_line_bytes` must be above 0"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
