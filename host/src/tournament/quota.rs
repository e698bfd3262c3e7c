//! What a tournament may write: the data directory's quota (`--max-data-bytes`), shared with
//! everything else kept there, and a player's tournament's own records
//! (`--max-tournament-bytes`). Both are checked before each batch of games is committed, so a
//! tournament that would pass either stops cleanly, keeping every game already recorded, and is
//! listed as interrupted: once space is freed (or the limit raised) it resumes where it stopped.
//!
//! A player's tournament is also measured before it starts: each game counted at the most it
//! may write (its row, and with transcripts the longest transcript a game may keep,
//! `--max-game-transcript-bytes`), so a request that could never fit is refused at once.

use std::path::{Path, PathBuf};

use yomi_protocol::{ErrorCode, ErrorInfo};

use super::store::GameRow;
use crate::matches::log;

/// The byte limits one running tournament writes under.
#[derive(Debug, Clone, Default)]
pub struct WriteBudget {
    /// The data directory and its quota in bytes (0: none).
    data: Option<(PathBuf, u64)>,
    /// Most bytes of game records this run may write (0: no limit).
    max_run_bytes: u64,
    /// Bytes of game records this run has written so far.
    written: u64,
    /// Longest transcript one game keeps (0: no limit); a longer one is left out of its row.
    max_game_transcript: u64,
}

impl WriteBudget {
    /// No limit: the command line's tournaments, whose operator watches their own disk.
    pub fn unlimited() -> WriteBudget {
        WriteBudget::default()
    }

    /// A server's tournament: the data directory `dir` up to `max_data_bytes`, and at most
    /// `max_run_bytes` of this tournament's records (0: either without a limit).
    pub fn new(dir: Option<&Path>, max_data_bytes: u64, max_run_bytes: u64) -> WriteBudget {
        let data = dir.filter(|_| max_data_bytes > 0).map(|d| (d.to_path_buf(), max_data_bytes));
        WriteBudget { data, max_run_bytes, written: 0, max_game_transcript: 0 }
    }

    /// Keeps at most `bytes` of each game's transcript (0: no limit): a game whose transcript is
    /// longer keeps its result and, instead of the transcript, a line saying why it has none.
    pub fn with_game_transcript_limit(self, bytes: u64) -> WriteBudget {
        WriteBudget { max_game_transcript: bytes, ..self }
    }

    /// Refuses, before any game is played, a tournament of `games` games whose records could
    /// pass this run's limit: each game counted at its row and, when `transcripts` are kept,
    /// the longest transcript a game may keep. (Only a bound: the records' real size is checked
    /// again as games are committed, see [`WriteBudget::admit`].)
    pub fn check_plan(&self, games: u64, transcripts: bool) -> Result<(), ErrorInfo> {
        if self.max_run_bytes == 0 {
            return Ok(());
        }
        let per_game = match (transcripts, self.max_game_transcript) {
            (false, _) => ROW_PLAN_BYTES,
            (true, 0) => return Ok(()), // no bound to plan with: the commits check
            (true, longest) => ROW_PLAN_BYTES + longest,
        };
        let planned = games.saturating_mul(per_game);
        if planned <= self.max_run_bytes {
            return Ok(());
        }
        let fit = self.max_run_bytes / per_game;
        let what = if transcripts {
            format!("{ROW_PLAN_BYTES} bytes of its row and up to {} of its transcript (--max-game-transcript-bytes)", self.max_game_transcript)
        } else {
            format!("{ROW_PLAN_BYTES} bytes of its row")
        };
        Err(ErrorInfo::new(
            ErrorCode::LimitExceeded,
            format!(
                "{games} games may write {planned} bytes of records ({what} each), more than \
                 {} (--max-tournament-bytes): schedule at most {fit} games{}",
                self.max_run_bytes,
                if transcripts { ", or leave out the transcripts" } else { "" }
            ),
        ))
    }

    /// How many of `rows`, from the first, fit in the budget (counted as written), and when not
    /// all do, the error that stops the tournament after those: which limit the next would pass,
    /// and how to go on.
    pub fn admit(
        &mut self,
        id: &str,
        committed: u64,
        rows: &mut [GameRow],
    ) -> (usize, Option<ErrorInfo>) {
        self.leave_out_long_transcripts(rows);
        let used = self.data.as_ref().map(|(dir, _)| bytes_under(dir));
        let mut bytes = 0;
        for (fit, row) in rows.iter().enumerate() {
            let next = bytes + row_bytes(row);
            let why = if self.max_run_bytes > 0 && self.written + next > self.max_run_bytes {
                format!(
                    "its records would pass {} bytes (--max-tournament-bytes)",
                    self.max_run_bytes
                )
            } else {
                match (&self.data, used) {
                    (Some((_, quota)), Some(used)) if used + next > *quota => format!(
                        "the data directory holds {used} bytes and its quota is {quota} \
                         (--max-data-bytes); free space there or raise the quota"
                    ),
                    _ => {
                        bytes = next;
                        continue;
                    }
                }
            };
            self.written += bytes;
            let recorded = committed + fit as u64;
            let error = ErrorInfo::new(
                ErrorCode::LimitExceeded,
                format!(
                    "tournament `{id}` stopped after {recorded} recorded games: {why}; every \
                     recorded game is kept, resume it with {{\"op\":\"tournament.run\",\"resume\":\"{id}\"}}"
                ),
            );
            return (fit, Some(error));
        }
        self.written += bytes;
        (rows.len(), None)
    }
}

impl WriteBudget {
    /// Replaces each transcript longer than the limit by one line that says what it was.
    fn leave_out_long_transcripts(&self, rows: &mut [GameRow]) {
        let limit = self.max_game_transcript;
        for row in rows.iter_mut().filter(|r| limit > 0 && r.transcript.len() as u64 > limit) {
            let bytes = row.transcript.len();
            let why = "the game's transcript was longer than --max-game-transcript-bytes";
            row.transcript = format!("{}\n", log::omitted(Some(bytes), limit, why));
        }
    }
}

/// What a game's row takes in the records besides its transcript, as a tournament's plan counts
/// it: bot names, scores and failures, and SQLite's own bytes.
const ROW_PLAN_BYTES: u64 = 512;

/// About the bytes a game's row takes in the records: its values (SQLite adds a little).
fn row_bytes(row: &GameRow) -> u64 {
    let values = [&row.seats, &row.failures, &row.forfeit].map(|v| v.to_string().len());
    (values.iter().sum::<usize>() + row.scores.len() * 8 + row.transcript.len() + 64) as u64
}

/// The bytes of the files under `dir` (what the operator's disk holds for it).
pub fn bytes_under(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .map(|entry| match entry.file_type() {
            Ok(kind) if kind.is_dir() => bytes_under(&entry.path()),
            Ok(kind) if kind.is_file() => entry.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn row(transcript_bytes: usize) -> GameRow {
        GameRow {
            index: 0,
            pair: None,
            opening: None,
            seats: json!(["a", "b"]),
            scores: vec![1.0, 0.0],
            failures: json!({}),
            forfeit: json!(null),
            transcript: "x".repeat(transcript_bytes),
        }
    }

    #[test]
    fn a_run_stops_before_its_own_limit_and_says_how_to_go_on() {
        let mut budget = WriteBudget::new(None, 0, 10_000);
        assert_eq!(budget.admit("t1", 0, &mut [row(4_000), row(4_000)]).0, 2);
        let (fit, error) = budget.admit("t1", 2, &mut [row(1_000), row(4_000), row(10)]);
        assert_eq!(fit, 1, "the rows that fit are written");
        let error = error.unwrap();
        assert_eq!(error.code, ErrorCode::LimitExceeded);
        assert!(error.message.contains("--max-tournament-bytes"), "{}", error.message);
        assert!(error.message.contains("after 3 recorded games"), "{}", error.message);
        assert!(error.message.contains("\"resume\":\"t1\""), "{}", error.message);
    }

    #[test]
    fn the_data_directory_quota_counts_every_file_under_it() {
        let dir = std::env::temp_dir().join(format!("yomi-quota-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("deeper")).unwrap();
        std::fs::write(dir.join("deeper/table"), vec![0u8; 7_000]).unwrap();
        let mut budget = WriteBudget::new(Some(&dir), 8_000, 0);
        let (fit, error) = budget.admit("t1", 0, &mut [row(100), row(1_000)]);
        assert_eq!(fit, 1, "7,000 + about 200 bytes fit in 8,000, 1,100 more do not");
        assert!(error.unwrap().message.contains("--max-data-bytes"));
        std::fs::remove_file(dir.join("deeper/table")).unwrap();
        assert_eq!(budget.admit("t1", 1, &mut [row(1_000)]), (1, None), "room once space is freed");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_plan_that_could_pass_the_limit_is_refused_before_it_starts() {
        let budget = WriteBudget::new(None, 0, 100 << 20).with_game_transcript_limit(1 << 20);
        assert!(budget.check_plan(99, true).is_ok(), "99 × (1 MiB + 512 B) fit in 100 MiB");
        let error = budget.check_plan(400, true).unwrap_err();
        assert_eq!(error.code, ErrorCode::LimitExceeded);
        assert!(error.message.contains("at most 99 games"), "{}", error.message);
        assert!(error.message.contains("leave out the transcripts"), "{}", error.message);
        assert!(budget.check_plan(200_000, false).is_ok(), "results alone: 512 B a game");
        assert!(budget.check_plan(300_000, false).is_err());
        let operator = WriteBudget::new(None, 0, 0).with_game_transcript_limit(1 << 20);
        assert!(operator.check_plan(u64::MAX, true).is_ok(), "no limit, no plan to refuse");
    }

    #[test]
    fn a_transcript_past_its_limit_is_left_out_and_its_result_kept() {
        let mut budget = WriteBudget::new(None, 0, 0).with_game_transcript_limit(1_000);
        let mut rows = [row(999), row(5_000)];
        assert_eq!(budget.admit("t1", 0, &mut rows), (2, None));
        assert_eq!(rows[0].transcript.len(), 999, "a transcript within the limit is kept whole");
        let note: serde_json::Value = serde_json::from_str(rows[1].transcript.trim()).unwrap();
        assert_eq!(note["type"], "omitted");
        assert_eq!(note["bytes"], 5_000);
        assert_eq!(rows[1].scores, vec![1.0, 0.0], "the game's result is kept");
    }
}
