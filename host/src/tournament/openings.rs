//! Opening suites: the start positions a tournament's games are dealt from (battle parties and
//! first actives, stud deals, Sevens hands, sugoroku boards), as cutechess-cli and fastchess take
//! an opening book. Deal `d` of every pairing starts from opening `d mod len`; with `repeat` both
//! games of a pair share it with the seats swapped, so the luck of the deal cancels out.
//!
//! A suite is a text file, one opening per line: a JSON object of game options, which the game
//! already knows how to start from (`{"deals": ["…|…"]}` for stud, `{"board": {…}}` for
//! sugoroku). `#` starts a comment line; blank lines are skipped. The host checks every line
//! before any game starts and names the line and what is wrong with it.
//!
//! A request names a suite, never a path: it is looked up in the operator's data directory
//! (`openings/NAME.txt`) and then among the suites shipped with yomi. The suite's openings are
//! copied into the tournament's spec when it starts, so a resumed, sharded or merged tournament
//! reads the very openings it was started with, whatever happens to the file afterwards.
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use yomi_protocol::ops::tournaments::SuiteListed;
use yomi_protocol::{ErrorCode, ErrorInfo, Options};

use crate::matches::game::HostedGame;
use crate::runtime::executor::Scope;

/// Most openings in one suite.
pub const MAX_OPENINGS: usize = 100_000;

/// Largest suite file read, in bytes.
pub const MAX_SUITE_BYTES: u64 = 16 << 20;

/// The suites shipped with yomi, by name: made from the papers (see `openings/README.md`).
const SHIPPED: &[(&str, &str)] = &[
    ("battle-thesis", include_str!("../../../openings/battle-thesis.txt")),
    ("battle-delta", include_str!("../../../openings/battle-delta.txt")),
    ("stud-table-4-1", include_str!("../../../openings/stud-table-4-1.txt")),
    ("sevens-paper", include_str!("../../../openings/sevens-paper.txt")),
    ("sugoroku-paper", include_str!("../../../openings/sugoroku-paper.txt")),
];

/// Whether `name` may name a suite: letters, digits, `-`, `_` and `.` (not first), at most 64.
fn is_suite_name(name: &str) -> bool {
    let fine = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    !name.is_empty() && name.len() <= 64 && !name.starts_with('.') && name.chars().all(fine)
}

/// Most suites `openings.list` names from a data directory.
pub const MAX_LISTED_SUITES: usize = 1_000;

/// Bytes of a suite's file read for its description.
const ABOUT_BYTES: u64 = 4 << 10;

/// The suites a tournament may name, as `openings.list` gives them: the data directory's
/// (`openings/NAME.txt`, at most [`MAX_LISTED_SUITES`], in name order), then the shipped ones
/// it does not shadow. Each is described by its leading comment; no suite is parsed, so the
/// list costs a directory read and 4 KiB a suite whatever the suites hold.
pub fn list(data_dir: Option<&Path>) -> Vec<SuiteListed> {
    let mut own: Vec<(String, std::path::PathBuf)> = data_dir
        .and_then(|dir| std::fs::read_dir(dir.join("openings")).ok())
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let name = path.file_name()?.to_str()?.strip_suffix(".txt")?.to_string();
            (is_suite_name(&name) && path.is_file()).then_some((name, path))
        })
        .collect();
    own.sort();
    own.truncate(MAX_LISTED_SUITES);
    let head = |path: &Path| {
        use std::io::Read;
        let mut text = String::new();
        let file = std::fs::File::open(path);
        file.map(|f| f.take(ABOUT_BYTES).read_to_string(&mut text)).ok();
        about(&text)
    };
    let shadowed = |name: &str| own.iter().any(|(n, _)| n == name);
    let shipped = SHIPPED.iter().filter(|(name, _)| !shadowed(name)).map(|(name, text)| {
        SuiteListed { name: name.to_string(), shipped: true, about: about(text) }
    });
    own.iter()
        .map(|(name, path)| SuiteListed { name: name.clone(), shipped: false, about: head(path) })
        .chain(shipped)
        .collect()
}

/// A suite's description: its leading `#` comment lines, joined.
fn about(text: &str) -> String {
    let lines = text.lines().map(str::trim).take_while(|l| l.starts_with('#'));
    lines.map(|l| l.trim_start_matches('#').trim()).collect::<Vec<_>>().join(" ")
}

/// A tournament's openings: a suite's name as requested, or the suite itself once the host has
/// read it (what the records keep).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Openings {
    /// A suite's name, to be read from the operator's data directory or yomi's own suites.
    Named(String),
    /// The suite as read.
    Read(Suite),
}

/// A suite as read: its name and its openings in file order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Suite {
    pub name: String,
    /// Each opening's game options.
    pub openings: Vec<Options>,
    /// The line of the file each opening was read from, to name it in an error.
    #[serde(default)]
    pub lines: Vec<usize>,
}

fn invalid(message: String) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::InvalidParams, message)
}

impl Suite {
    /// Parses a suite's text, refusing it at the first bad line, named by its number.
    pub fn parse(name: &str, text: &str) -> Result<Suite, ErrorInfo> {
        let (mut openings, mut lines) = (Vec::new(), Vec::new());
        for (number, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |what: String| invalid(format!("openings `{name}` line {number}: {what}"));
            if openings.len() == MAX_OPENINGS {
                return Err(bad(format!("more than {MAX_OPENINGS} openings")));
            }
            match serde_json::from_str::<Value>(line) {
                Ok(Value::Object(map)) if map.is_empty() => {
                    return Err(bad("an opening sets at least one game option".into()))
                }
                Ok(Value::Object(map)) => {
                    openings.push(map.into_iter().collect());
                    lines.push(number);
                }
                Ok(other) => {
                    return Err(bad(format!(
                        "an opening is a JSON object of game options, not {other}"
                    )))
                }
                Err(e) => return Err(bad(format!("not JSON: {e}"))),
            }
        }
        if openings.is_empty() {
            return Err(invalid(format!("openings `{name}` hold no opening")));
        }
        Ok(Suite { name: name.to_string(), openings, lines })
    }

    /// The suite named `name`: `openings/NAME.txt` in the data directory if there is one, else
    /// the shipped suite of that name. Names are letters, digits, `-`, `_` and `.` (not first),
    /// so a name never reaches outside the directory.
    pub fn named(name: &str, data_dir: Option<&Path>) -> Result<Suite, ErrorInfo> {
        if !is_suite_name(name) {
            return Err(invalid(format!(
                "`{}` is not an openings name: 1 to 64 letters, digits, `-`, `_` or `.`, naming \
                 a suite of the server's openings directory",
                name.chars().take(64).collect::<String>()
            )));
        }
        if let Some(dir) = data_dir {
            let path = dir.join("openings").join(format!("{name}.txt"));
            if path.is_file() {
                return Suite::read(name, &path);
            }
        }
        match SHIPPED.iter().find(|(shipped, _)| *shipped == name) {
            Some((_, text)) => Suite::parse(name, text),
            None => {
                let names: Vec<&str> = SHIPPED.iter().map(|(n, _)| *n).collect();
                Err(ErrorInfo::new(
                    ErrorCode::NotFound,
                    format!(
                        "no openings `{name}`: neither openings/{name}.txt in the data directory \
                         nor a shipped suite ({})",
                        names.join(", ")
                    ),
                ))
            }
        }
    }

    /// Reads a suite file (the command line's `--openings FILE`; the server reads only named
    /// suites in its data directory).
    pub fn read(name: &str, path: &Path) -> Result<Suite, ErrorInfo> {
        let fail = |e: String| invalid(format!("openings {}: {e}", path.display()));
        let size = std::fs::metadata(path).map_err(|e| fail(e.to_string()))?.len();
        if size > MAX_SUITE_BYTES {
            return Err(fail(format!("{size} bytes; a suite is at most {MAX_SUITE_BYTES}")));
        }
        let text = std::fs::read_to_string(path).map_err(|e| fail(e.to_string()))?;
        Suite::parse(name, &text)
    }

    /// Where opening `i` is: its line in the suite's file.
    pub fn place(&self, i: usize) -> String {
        match self.lines.get(i) {
            Some(line) => format!("openings `{}` line {line}", self.name),
            None => format!("openings `{}` opening {}", self.name, i + 1),
        }
    }

    /// The options of each opening over the tournament's own: an opening may not set an option
    /// the tournament sets too, since one of the two would silently lose.
    pub fn merged(&self, given: &Options) -> Result<Vec<Options>, ErrorInfo> {
        self.openings
            .iter()
            .enumerate()
            .map(|(i, opening)| {
                if let Some(key) = opening.keys().find(|k| given.contains_key(*k)) {
                    return Err(invalid(format!(
                        "{}: game option `{key}` is set by the tournament too; leave it to the \
                         openings",
                        self.place(i)
                    )));
                }
                let mut merged = given.clone();
                merged.extend(opening.iter().map(|(k, v)| (k.clone(), v.clone())));
                Ok(merged)
            })
            .collect()
    }
}

impl Openings {
    /// The suite, read: from `data_dir` (or shipped) when named. With `files`, a name holding a
    /// path separator is read as a file: the command line's own files, never a request's.
    pub fn read(&self, data_dir: Option<&Path>, files: bool) -> Result<Openings, ErrorInfo> {
        match self {
            Openings::Read(_) => Ok(self.clone()),
            Openings::Named(name) if files && (name.contains('/') || name.contains('\\')) => {
                let path = Path::new(name);
                let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or(name);
                Suite::read(stem, path).map(Openings::Read)
            }
            Openings::Named(name) => Suite::named(name, data_dir).map(Openings::Read),
        }
    }

    /// The suite, once read.
    pub fn suite(&self) -> Result<&Suite, ErrorInfo> {
        match self {
            Openings::Read(suite) => Ok(suite),
            Openings::Named(name) => Err(ErrorInfo::new(
                ErrorCode::Internal,
                format!("openings `{name}` were not read before the tournament was prepared"),
            )),
        }
    }
}

/// Starts the game once from each opening's options, so a position the game refuses (a deal
/// with a card twice, a board with a loop) stops the tournament before its first game, naming
/// the opening's place in the suite.
pub async fn check_games(
    game: &crate::registry::GameRef,
    suite: &Suite,
    options: &[Options],
) -> Result<(), ErrorInfo> {
    for (i, options) in options.iter().enumerate() {
        HostedGame::open(game, options.clone(), 0, Scope::HANDED_OVER)
            .await
            .map_err(|e| invalid(format!("{}: {}", suite.place(i), e.message)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn lines_are_json_objects_and_a_bad_one_is_named() {
        let suite = Suite::parse("s", "# two boards\n\n{\"a\": 1}\n  {\"b\": [2]}  \n").unwrap();
        assert_eq!(suite.openings.len(), 2);
        assert_eq!(suite.openings[1]["b"], json!([2]));
        for (text, line, what) in [
            ("{\"a\": 1}\n{\"a\": 1,}\n", 2, "not JSON"),
            ("# c\n[1, 2]\n", 2, "an opening is a JSON object of game options, not [1,2]"),
            ("{}\n", 1, "an opening sets at least one game option"),
        ] {
            let e = Suite::parse("s", text).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidParams);
            assert!(e.message.contains(&format!("line {line}: {what}")), "{}", e.message);
        }
        assert!(Suite::parse("s", "# only a comment\n")
            .unwrap_err()
            .message
            .contains("no opening"));
    }

    #[test]
    fn names_stay_inside_the_openings_directory() {
        for name in ["../records", "a/b", ".hidden", "", "x y", &"n".repeat(65)] {
            let e = Suite::named(name, None).unwrap_err();
            assert!(e.message.contains("is not an openings name"), "{name}: {}", e.message);
        }
        let e = Suite::named("nowhere", None).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound);
        assert!(e.message.contains("stud-table-4-1"), "the shipped names are listed");
        // A request's name with a path is refused even where the command line reads files.
        assert!(Openings::Named("/etc/passwd".into()).read(None, false).is_err());
    }

    #[test]
    fn the_data_directory_comes_before_the_shipped_suites() {
        let dir = std::env::temp_dir().join(format!("yomi-openings-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("openings")).unwrap();
        std::fs::write(dir.join("openings/battle-thesis.txt"), "{\"x\": 1}\n").unwrap();
        let own = Suite::named("battle-thesis", Some(&dir)).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(own.openings.len(), 1);
        let shipped = Suite::named("battle-thesis", None).unwrap();
        assert_eq!(shipped.openings.len(), 9);
    }

    #[test]
    fn the_list_names_what_a_tournament_may_give_and_reads_little() {
        let dir = std::env::temp_dir().join(format!("yomi-openings-list-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("openings/nested.txt")).unwrap();
        let own = dir.join("openings");
        std::fs::write(own.join("battle-thesis.txt"), "# Ours.\n# Two lines.\n{\"x\": 1}\n")
            .unwrap();
        std::fs::write(own.join("bare.txt"), "{\"x\": 1}\n").unwrap();
        std::fs::write(own.join("not a name.txt"), "# skipped\n").unwrap();
        std::fs::write(own.join("notes.md"), "# skipped\n").unwrap();
        // A description is read from the file's first 4 KiB, however long the suite.
        let long = format!("# {}\n", "a".repeat(10_000));
        std::fs::write(own.join("long.txt"), long).unwrap();
        for i in 0..MAX_LISTED_SUITES {
            std::fs::write(own.join(format!("z{i:04}.txt")), "").unwrap();
        }
        let listed = list(Some(&dir));
        std::fs::remove_dir_all(&dir).unwrap();
        let names: Vec<&str> = listed.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(&names[..3], ["bare", "battle-thesis", "long"]);
        assert_eq!(listed[1].about, "Ours. Two lines.");
        assert!(!listed[1].shipped);
        assert_eq!(listed[0].about, "");
        assert!(listed[2].about.len() < 4 << 10);
        let own_count = listed.iter().filter(|s| !s.shipped).count();
        assert_eq!(own_count, MAX_LISTED_SUITES, "at most this many of the directory's");
        // The shipped suites the directory does not shadow follow, each described.
        let shipped: Vec<&str> =
            listed.iter().filter(|s| s.shipped).map(|s| s.name.as_str()).collect();
        assert_eq!(shipped, ["battle-delta", "stud-table-4-1", "sevens-paper", "sugoroku-paper"]);
        assert!(listed.iter().filter(|s| s.shipped).all(|s| s.about.contains("paper")));
        let alone = list(None);
        assert_eq!(alone.len(), SHIPPED.len());
    }

    #[test]
    fn every_shipped_suite_parses() {
        for (name, text) in SHIPPED {
            let suite = Suite::parse(name, text).unwrap();
            assert!(!suite.openings.is_empty(), "{name}");
        }
    }

    #[test]
    fn an_opening_may_not_override_the_tournament() {
        let suite = Suite::parse("s", "{\"deal\": \"fixed\"}\n").unwrap();
        let given: Options = [("deal".to_string(), json!("random"))].into_iter().collect();
        let e = suite.merged(&given).unwrap_err();
        assert!(e.message.contains("line 1: game option `deal`"), "{}", e.message);
        let given: Options = [("turn_limit".to_string(), json!(9))].into_iter().collect();
        let merged = suite.merged(&given).unwrap();
        assert_eq!(merged[0]["deal"], json!("fixed"));
        assert_eq!(merged[0]["turn_limit"], json!(9));
    }
}
