//! Named sets of human records in the data directory: `humans/NAME.jsonl`, one [`Record`] a
//! line, plays in the order they were imported. An import checks every line before it writes,
//! and writes the set anew beside the old file before replacing it, so a bad line or a failed
//! write leaves what was imported before as it was.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use yomi_protocol::{ErrorCode, ErrorInfo};

use super::from_transcript;
use super::record::{parse_line, Record};

/// The folder of the record sets in a data directory.
pub fn dir_in(data_dir: &Path) -> PathBuf {
    data_dir.join("humans")
}

/// Checks a set's name: it becomes a file name, so letters, digits, `-` and `_` only.
pub fn check_name(name: &str) -> Result<(), ErrorInfo> {
    check_file_name(name, "a record set's name")
}

/// Checks `name`, which becomes a file name (`what` says whose, for the error).
pub fn check_file_name(name: &str, what: &str) -> Result<(), ErrorInfo> {
    let fine = !name.is_empty()
        && name.len() <= 64
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    match fine {
        true => Ok(()),
        false => Err(ErrorInfo::new(
            ErrorCode::InvalidParams,
            format!("`{name}`: {what} is 1 to 64 letters, digits, `-` or `_`"),
        )),
    }
}

fn path_of(data_dir: &Path, name: &str) -> Result<PathBuf, ErrorInfo> {
    check_name(name)?;
    Ok(dir_in(data_dir).join(format!("{name}.jsonl")))
}

fn io(what: &Path, e: std::io::Error) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::Internal, format!("{}: {e}", what.display()))
}

/// The records of set `name`, in order; `not_found` when there is no such set.
pub fn load(data_dir: &Path, name: &str) -> Result<Vec<Record>, ErrorInfo> {
    let path = path_of(data_dir, name)?;
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ErrorInfo::new(
                ErrorCode::NotFound,
                format!(
                    "no record set `{name}` in {} (see `yomi records import`)",
                    dir_in(data_dir).display()
                ),
            ))
        }
        Err(e) => return Err(io(&path, e)),
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, line)| {
            serde_json::from_str(line).map_err(|e| {
                ErrorInfo::new(
                    ErrorCode::Internal,
                    format!("{} line {}: {e}", path.display(), i + 1),
                )
            })
        })
        .collect()
}

/// What an import added.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Imported {
    /// The set's name.
    pub records: String,
    /// Its game.
    pub game: String,
    /// Decisions and plays added.
    pub decisions: usize,
    pub plays: usize,
    /// Decisions in the set now.
    pub total: usize,
}

/// Reads `text` (a transcript, or JSON lines of records) into records, every line checked;
/// `known_game` says whether a game is served here.
pub fn read(text: &str, known_game: impl Fn(&str) -> bool) -> Result<Vec<Record>, ErrorInfo> {
    let records = if from_transcript::is_transcript(text) {
        from_transcript::records(text)?
    } else {
        let lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
        lines.map(|(i, l)| parse_line(i + 1, l)).collect::<Result<Vec<_>, _>>()?
    };
    let Some(first) = records.first() else {
        return Err(ErrorInfo::new(ErrorCode::InvalidParams, "no records: the file is empty"));
    };
    if !known_game(&first.game) {
        let message = format!("`game`: no game `{}` is served here (see `yomi bots`)", first.game);
        return Err(ErrorInfo::new(ErrorCode::UnknownGame, message));
    }
    Ok(records)
}

/// Adds `new` (read by [`read`]) to set `name`, made if it is new. Every record of a set is of one
/// game. The plays of this import are numbered after the set's earlier imports', so a label
/// used again (`1`, `line3`) does not join an earlier play.
pub fn import(data_dir: &Path, name: &str, new: Vec<Record>) -> Result<Imported, ErrorInfo> {
    let path = path_of(data_dir, name)?;
    let mut records = match load(data_dir, name) {
        Ok(records) => records,
        Err(e) if e.code == ErrorCode::NotFound => Vec::new(),
        Err(e) => return Err(e),
    };
    let game = records.first().unwrap_or(&new[0]).game.clone();
    if let Some((i, other)) = new.iter().enumerate().find(|(_, r)| r.game != game) {
        return Err(ErrorInfo::new(
            ErrorCode::InvalidParams,
            format!("record {}: `game`: `{}`, but set `{name}` is of `{game}`", i + 1, other.game),
        ));
    }
    let batch = 1 + records
        .iter()
        .filter_map(|r| r.play.split_once(':')?.0.parse::<u64>().ok())
        .max()
        .unwrap_or(0);
    let decisions = new.len();
    let mut plays: Vec<String> = Vec::new();
    for mut record in new {
        record.play = format!("{batch}:{}", record.play);
        if !plays.contains(&record.play) {
            plays.push(record.play.clone());
        }
        records.push(record);
    }
    let text = lines(&records);
    let dir = dir_in(data_dir);
    std::fs::create_dir_all(&dir).map_err(|e| io(&dir, e))?;
    let partial = path.with_extension("jsonl.partial");
    std::fs::write(&partial, text).map_err(|e| io(&partial, e))?;
    std::fs::rename(&partial, &path).map_err(|e| io(&path, e))?;
    Ok(Imported { records: name.into(), game, decisions, plays: plays.len(), total: records.len() })
}

/// Adds `new` (checked already, all of the set's game) to the end of set `name`, made if it is
/// new, each play labelled `BATCH:play`: one write at the end of the file, so adding costs what is
/// added, however large the set has grown (an [`import`] rewrites it whole).
pub fn append(data_dir: &Path, name: &str, batch: &str, new: Vec<Record>) -> Result<(), ErrorInfo> {
    use std::io::Write;
    let path = path_of(data_dir, name)?;
    let labelled: Vec<Record> = new
        .into_iter()
        .map(|record| Record { play: format!("{batch}:{}", record.play), ..record })
        .collect();
    let text = lines(&labelled);
    let dir = dir_in(data_dir);
    std::fs::create_dir_all(&dir).map_err(|e| io(&dir, e))?;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| io(&path, e))?;
    file.write_all(&text).map_err(|e| io(&path, e))
}

/// Records as the set's JSON lines.
fn lines(records: &[Record]) -> Vec<u8> {
    let mut text = Vec::new();
    for record in records {
        serde_json::to_writer(&mut text, record).expect("records serialize");
        text.push(b'\n');
    }
    text
}

/// Each seat's decisions in each play, in order: what one agent in that seat was asked, so each
/// is replayed through an agent of its own (a play's seats see different cards and learn from
/// different games). A play's seats are adjacent, in the order they first decided.
pub fn plays(records: &[Record]) -> Vec<Vec<&Record>> {
    // Each play's rank in first-decision order, and each seat's group: one pass with lookups,
    // then the groups ordered by play (stably, so a play's seats stay in first-decided order).
    let mut rank: HashMap<&str, usize> = HashMap::new();
    let mut group: HashMap<(&str, usize), usize> = HashMap::new();
    let mut out: Vec<(usize, Vec<&Record>)> = Vec::new();
    for record in records {
        let next = rank.len();
        let play = *rank.entry(&record.play).or_insert(next);
        let at = *group.entry((&record.play, record.seat)).or_insert_with(|| {
            out.push((play, Vec::new()));
            out.len() - 1
        });
        out[at].1.push(record);
    }
    out.sort_by_key(|(play, _)| *play);
    out.into_iter().map(|(_, decisions)| decisions).collect()
}

/// How many plays (games) the seats' plays of [`plays`] come from.
pub fn games(seat_plays: &[Vec<&Record>]) -> usize {
    seat_plays.windows(2).filter(|w| w[0][0].play != w[1][0].play).count() + seat_plays.len().min(1)
}

/// [`plays`] parted four plays in five to fit, the fifth held out, all seats of a play on one side.
pub fn hold_out_fifth<'a>(
    seat_plays: &[Vec<&'a Record>],
) -> (Vec<Vec<&'a Record>>, Vec<Vec<&'a Record>>) {
    let (mut fit, mut held, mut game) = (Vec::new(), Vec::new(), 0);
    for (i, play) in seat_plays.iter().enumerate() {
        if i > 0 && seat_plays[i - 1][0].play != play[0].play {
            game += 1;
        }
        match game % 5 {
            4 => held.push(play.clone()),
            _ => fit.push(play.clone()),
        }
    }
    (fit, held)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINES: &str = r#"{"game":"rps","play":"a","observation":{},"legal":["rock","paper"],"action":"rock"}
{"game":"rps","play":"a","observation":{"opponent_last":"rock"},"legal":["rock","paper"],"action":"paper","think_ms":900}

{"game":"rps","observation":{},"legal":["rock","paper"],"action":"paper"}
"#;

    fn rps(game: &str) -> bool {
        game == "rps"
    }

    #[test]
    fn imports_add_plays_in_order_and_a_bad_line_loses_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let first = import(dir.path(), "club", read(LINES, rps).unwrap()).unwrap();
        assert_eq!((first.decisions, first.plays, first.total), (3, 2, 3));
        let again = import(dir.path(), "club", read(LINES, rps).unwrap()).unwrap();
        assert_eq!((again.plays, again.total), (2, 6));
        let stored = load(dir.path(), "club").unwrap();
        let labels: Vec<&str> = plays(&stored).iter().map(|p| p[0].play.as_str()).collect();
        assert_eq!(
            labels,
            ["1:a", "1:line4", "2:a", "2:line4"],
            "a label used again is a new play"
        );
        let before = std::fs::read(dir_in(dir.path()).join("club.jsonl")).unwrap();
        let bad =
            LINES.replace(r#""action":"paper","think_ms""#, r#""action":"lizard","think_ms""#);
        let e = read(&bad, rps).unwrap_err();
        assert_eq!(e.message, "line 2: `action`: \"lizard\" is not one of `legal`");
        let other = LINES.replace("rps", "sevens");
        let refused = import(dir.path(), "club", read(&other, |_| true).unwrap()).unwrap_err();
        assert!(refused.message.contains("set `club` is of `rps`"), "{}", refused.message);
        assert_eq!(std::fs::read(dir_in(dir.path()).join("club.jsonl")).unwrap(), before);
        assert_eq!(read(&other, rps).unwrap_err().code, ErrorCode::UnknownGame);
        assert_eq!(read("\n\n", rps).unwrap_err().message, "no records: the file is empty");
    }

    #[test]
    fn each_seat_of_a_play_is_replayed_on_its_own_and_held_out_with_its_play() {
        let record = |play: &str, seat: usize| {
            let line = serde_json::json!({"game": "rps", "play": play, "seat": seat,
                "observation": {}, "legal": ["rock"], "action": "rock"});
            parse_line(1, &line.to_string()).unwrap()
        };
        let mut records = Vec::new();
        for play in ["a", "b", "c", "d", "e"] {
            records.extend([record(play, 1), record(play, 0), record(play, 1)]);
        }
        records.push(record("a", 0));
        let seat_plays = plays(&records);
        let shape: Vec<(&str, usize, usize)> =
            seat_plays.iter().map(|p| (p[0].play.as_str(), p[0].seat, p.len())).collect();
        assert_eq!(&shape[..3], [("a", 1, 2), ("a", 0, 2), ("b", 1, 2)]);
        assert_eq!((seat_plays.len(), games(&seat_plays)), (10, 5));
        let (fit, held) = hold_out_fifth(&seat_plays);
        assert_eq!((games(&fit), games(&held), held.len()), (4, 1, 2));
        assert!(held.iter().all(|p| p[0].play == "e"));
    }

    #[test]
    fn names_are_file_names_and_missing_sets_are_not_found() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["../etc", "a/b", "", ".hidden", &"x".repeat(65)] {
            assert_eq!(
                load(dir.path(), name).unwrap_err().code,
                ErrorCode::InvalidParams,
                "{name}"
            );
        }
        assert_eq!(load(dir.path(), "none").unwrap_err().code, ErrorCode::NotFound);
    }
}
