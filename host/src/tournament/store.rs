//! The records store: tournaments and their finished games in an embedded SQLite database in the
//! data directory. A game counts once its row is committed; the primary key (tournament, game
//! index) makes a game impossible to record twice, so a run killed at any moment resumes with
//! nothing lost and nothing doubled.

use std::path::{Path, PathBuf};

use rusqlite::types::ValueRef;
use rusqlite::{params, Connection, OptionalExtension};
use serde_json::Value;
use yomi_protocol::{ErrorCode, ErrorInfo};

use crate::runtime::auth::Role;

/// A tournament's stored row.
#[derive(Debug, Clone)]
pub struct StoredTournament {
    pub id: String,
    pub spec: Value,
    pub status: String,
    pub games: u64,
    pub total: u64,
    /// Who started it: a player's tournament is the players', any other the operator's.
    pub owner: Role,
}

/// One finished game as the store records it.
#[derive(Debug, Clone, PartialEq)]
pub struct GameRow {
    pub index: u64,
    /// The game pair it belongs to, in a tournament that plays pairs.
    pub pair: Option<u64>,
    /// The opening it started from (its place in the suite), in a tournament with openings.
    pub opening: Option<u64>,
    /// The bot label in each seat.
    pub seats: Value,
    pub scores: Vec<f64>,
    pub failures: Value,
    pub forfeit: Value,
    /// Empty unless the tournament keeps transcripts.
    pub transcript: String,
}

/// One finished game as stored.
#[derive(Debug, Clone)]
pub struct StoredGame {
    pub index: u64,
    pub scores: Vec<f64>,
    pub failures: Value,
    pub forfeit: Value,
}

/// An open records database.
pub struct Store {
    conn: Connection,
    /// The database file, named in every error.
    path: PathBuf,
}

/// A failure of the records database at `path`, naming the file and saying what to do. A damaged
/// file is left as it is: its records are never silently replaced.
fn db_error(path: &Path, e: rusqlite::Error) -> ErrorInfo {
    use rusqlite::ErrorCode as Sqlite;
    let unreadable_record = matches!(e, rusqlite::Error::FromSqlConversionFailure(..));
    let advice = match e.sqlite_error_code() {
        Some(Sqlite::NotADatabase | Sqlite::DatabaseCorrupt) => DAMAGED,
        _ if unreadable_record => DAMAGED,
        Some(Sqlite::ReadOnly | Sqlite::CannotOpen | Sqlite::PermissionDenied) => {
            "; yomi needs to create and write this file: check the data directory's permissions"
        }
        Some(Sqlite::DiskFull) => "; the disk is full",
        Some(Sqlite::SystemIoFailure) => {
            "; reading or writing the file failed: the disk may be full, failing, or over a \
             file-size limit of this process"
        }
        _ => "",
    };
    ErrorInfo::new(ErrorCode::Internal, format!("records database {}: {e}{advice}", path.display()))
}

/// What to do about a damaged records file.
const DAMAGED: &str = "; the records file is damaged or not a yomi records database: \
                       move it away to start a new one (it was left untouched)";

/// A JSON column of a record; a value that does not read is a damaged record, never a default.
fn json_column<T: serde::de::DeserializeOwned>(
    row: &rusqlite::Row<'_>,
    column: usize,
) -> rusqlite::Result<T> {
    let text: String = row.get(column)?;
    serde_json::from_str(&text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(column, rusqlite::types::Type::Text, Box::new(e))
    })
}

impl Store {
    /// A database error, naming the file.
    fn error(&self, e: rusqlite::Error) -> ErrorInfo {
        db_error(&self.path, e)
    }

    /// The database file inside a data directory.
    pub fn path_in(data_dir: &Path) -> PathBuf {
        data_dir.join("records.sqlite3")
    }

    /// Opens (creating if needed) the records database in `data_dir`.
    pub fn open(data_dir: &Path) -> Result<Store, ErrorInfo> {
        std::fs::create_dir_all(data_dir).map_err(|e| {
            ErrorInfo::new(ErrorCode::Internal, format!("{}: {e}", data_dir.display()))
        })?;
        let path = Self::path_in(data_dir);
        let conn = Connection::open(&path).map_err(|e| db_error(&path, e))?;
        // WAL with NORMAL sync survives a killed process (not a power cut) and lets readers in.
        conn.execute_batch(
            "PRAGMA journal_mode = WAL;
             PRAGMA synchronous = NORMAL;
             PRAGMA busy_timeout = 5000;
             CREATE TABLE IF NOT EXISTS tournaments (
                 id TEXT PRIMARY KEY, spec TEXT NOT NULL, status TEXT NOT NULL,
                 total_games INTEGER NOT NULL, created TEXT NOT NULL, result TEXT, checksum INTEGER,
                 owner TEXT);
             CREATE TABLE IF NOT EXISTS games (
                 tournament TEXT NOT NULL REFERENCES tournaments(id), idx INTEGER NOT NULL,
                 seats TEXT NOT NULL, scores TEXT NOT NULL, failures TEXT NOT NULL, forfeit TEXT NOT NULL,
                 transcript TEXT NOT NULL, checksum INTEGER, transcript_checksum INTEGER,
                 pair INTEGER, opening INTEGER,
                 PRIMARY KEY (tournament, idx));",
        )
        .map_err(|e| db_error(&path, e))?;
        let store = Store { conn, path };
        store.add_missing_columns()?;
        store.seal_rows_of_older_files()?;
        store.check_integrity()?;
        store.check_records()?;
        Ok(store)
    }

    /// Records files of an older yomi get the columns it did not write: checksums (their rows
    /// get theirs in `seal_rows_of_older_files`), owners (none: the operator's), game pairs
    /// (none: unpaired) and openings (none).
    fn add_missing_columns(&self) -> Result<(), ErrorInfo> {
        for (table, columns) in [
            ("tournaments", &[("checksum", "INTEGER"), ("owner", "TEXT")][..]),
            (
                "games",
                &[
                    ("checksum", "INTEGER"),
                    ("transcript_checksum", "INTEGER"),
                    ("pair", "INTEGER"),
                    ("opening", "INTEGER"),
                ],
            ),
        ] {
            let sql = format!("SELECT name FROM pragma_table_info('{table}')");
            let mut stmt = self.conn.prepare(&sql).map_err(|e| self.error(e))?;
            let present = stmt
                .query_map([], |r| r.get::<_, String>(0))
                .and_then(|rows| rows.collect::<rusqlite::Result<Vec<String>>>())
                .map_err(|e| self.error(e))?;
            for (column, kind) in columns.iter().filter(|(c, _)| !present.iter().any(|p| p == c)) {
                let sql = format!("ALTER TABLE {table} ADD COLUMN {column} {kind}");
                self.conn.execute_batch(&sql).map_err(|e| self.error(e))?;
            }
        }
        Ok(())
    }

    /// From `user_version` 1 on, every row carries its checksum and one without is damaged
    /// (counted here, transcripts' too, though their values are checked when read). A file of an
    /// older yomi is brought there once: rows of a file written before checksums
    /// existed (none has one) get theirs now; a file in which some rows have checksums and
    /// others not had them taken away, and is refused as damaged.
    fn seal_rows_of_older_files(&self) -> Result<(), ErrorInfo> {
        let count = |sql: &str| -> Result<i64, ErrorInfo> {
            self.conn.query_row(sql, [], |r| r.get(0)).map_err(|e| self.error(e))
        };
        let unchecked = count(
            "SELECT (SELECT COUNT(*) FROM tournaments WHERE checksum IS NULL)
                  + (SELECT COUNT(*) FROM games WHERE checksum IS NULL OR transcript_checksum IS NULL)",
        )?;
        let checked = count(
            "SELECT (SELECT COUNT(*) FROM tournaments WHERE checksum IS NOT NULL)
                  + (SELECT COUNT(*) FROM games WHERE checksum IS NOT NULL)",
        )?;
        let sealed = count("PRAGMA user_version")? >= SEALED_VERSION;
        if sealed && unchecked == 0 {
            return Ok(());
        }
        if unchecked > 0 && (checked > 0 || sealed) {
            return Err(ErrorInfo::new(
                ErrorCode::Internal,
                format!(
                    "records database {}: {unchecked} records have no checksum in a file whose \
                     other records have theirs{DAMAGED}",
                    self.path.display()
                ),
            ));
        }
        let seal = || {
            let tx = self.conn.unchecked_transaction()?;
            for (select, update) in [
                (
                    "SELECT rowid, id, spec, status, total_games, result FROM tournaments WHERE checksum IS NULL",
                    "UPDATE tournaments SET checksum = ?2 WHERE rowid = ?1",
                ),
                (
                    "SELECT rowid, tournament, idx, seats, scores, failures, forfeit FROM games WHERE checksum IS NULL",
                    "UPDATE games SET checksum = ?2 WHERE rowid = ?1",
                ),
                (
                    "SELECT rowid, transcript FROM games WHERE transcript_checksum IS NULL",
                    "UPDATE games SET transcript_checksum = ?2 WHERE rowid = ?1",
                ),
            ] {
                let sums = {
                    let mut stmt = tx.prepare(select)?;
                    let rows = stmt.query_map([], |r| {
                        let columns: Vec<usize> = (1..r.as_ref().column_count()).collect();
                        let values = row_values(r, &columns)?;
                        let values: Vec<&str> = values.iter().map(String::as_str).collect();
                        Ok((r.get::<_, i64>(0)?, checksum(&values)))
                    })?;
                    rows.collect::<rusqlite::Result<Vec<(i64, i64)>>>()?
                };
                for (rowid, sum) in sums {
                    tx.execute(update, params![rowid, sum])?;
                }
            }
            tx.execute_batch(&format!("PRAGMA user_version = {SEALED_VERSION}"))?;
            tx.commit()
        };
        seal().map_err(|e| self.error(e))
    }

    /// Reads every tournament and every game's record (not the transcripts, which are checked
    /// when read) against its checksum: SQLite checks the file's structure, not the bytes of
    /// the values, and a damaged value must never be read as a result or written beside.
    fn check_records(&self) -> Result<(), ErrorInfo> {
        self.list()?;
        let mut stmt = self
            .conn
            .prepare(
                "SELECT tournament, idx, seats, scores, failures, forfeit, checksum, pair, opening FROM games",
            )
            .map_err(|e| self.error(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.error(e))?;
        while let Some(row) = rows.next().map_err(|e| self.error(e))? {
            check_game_sum(row, &[0, 1, 2, 3, 4, 5], [7, 8], 6).map_err(|e| self.error(e))?;
        }
        Ok(())
    }

    /// SQLite's own check of every page, index and record: a damaged file is refused before
    /// anything is read from it or written into it.
    fn check_integrity(&self) -> Result<(), ErrorInfo> {
        let mut stmt = self.conn.prepare("PRAGMA integrity_check").map_err(|e| self.error(e))?;
        let problems = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<String>>>())
            .map_err(|e| self.error(e))?;
        if problems == ["ok"] {
            return Ok(());
        }
        Err(ErrorInfo::new(
            ErrorCode::Internal,
            format!(
                "records database {}: SQLite's integrity check failed ({}){DAMAGED}",
                self.path.display(),
                problems.iter().take(3).cloned().collect::<Vec<_>>().join("; ")
            ),
        ))
    }

    pub fn create(&self, id: &str, spec: &Value, total: u64, owner: Role) -> Result<(), ErrorInfo> {
        insert_tournament(&self.conn, id, spec, total, owner).map_err(|e| self.error(e))
    }

    pub fn get(&self, id: &str) -> Result<Option<StoredTournament>, ErrorInfo> {
        self.conn
            .query_row(
                "SELECT t.id, t.spec, t.status, t.total_games, (SELECT COUNT(*) FROM games g WHERE g.tournament = t.id),
                 t.result, t.checksum, t.owner FROM tournaments t WHERE t.id = ?1",
                params![id],
                row_to_tournament,
            )
            .optional()
            .map_err(|e| self.error(e))
    }

    pub fn list(&self) -> Result<Vec<StoredTournament>, ErrorInfo> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT t.id, t.spec, t.status, t.total_games, (SELECT COUNT(*) FROM games g WHERE g.tournament = t.id),
                 t.result, t.checksum, t.owner FROM tournaments t ORDER BY t.created",
            )
            .map_err(|e| self.error(e))?;
        let rows = stmt.query_map([], row_to_tournament).map_err(|e| self.error(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.error(e))
    }

    /// Commits finished games in one transaction: all or none. Recording a game twice is refused
    /// by the primary key.
    pub fn record_games(&self, id: &str, games: &[GameRow]) -> Result<(), ErrorInfo> {
        // `unchecked`: the store is used from one thread at a time (it sits behind a mutex).
        let commit = || {
            let tx = self.conn.unchecked_transaction()?;
            for game in games {
                insert_game(&tx, id, game)?;
            }
            tx.commit()
        };
        commit().map_err(|e| self.error(e))
    }

    /// Writes a whole finished tournament in one transaction: all of it or nothing (a merge of
    /// shards interrupted half-way leaves no half tournament behind).
    pub fn import(
        &self,
        id: &str,
        spec: &Value,
        total: u64,
        games: &[GameRow],
        result: &Value,
    ) -> Result<(), ErrorInfo> {
        let commit = || {
            let tx = self.conn.unchecked_transaction()?;
            insert_tournament(&tx, id, spec, total, Role::Operator)?;
            for game in games {
                insert_game(&tx, id, game)?;
            }
            set_finished(&tx, id, result)?;
            tx.commit()
        };
        commit().map_err(|e| self.error(e))
    }

    /// Every column of a tournament's finished games, in index order (what a merge copies).
    pub fn rows(&self, id: &str) -> Result<Vec<GameRow>, ErrorInfo> {
        let mut stmt = self
            .conn
            .prepare("SELECT idx, seats, scores, failures, forfeit, transcript, tournament, checksum, transcript_checksum, pair, opening FROM games WHERE tournament = ?1 ORDER BY idx")
            .map_err(|e| self.error(e))?;
        let rows = stmt
            .query_map(params![id], |r| {
                check_game_sum(r, &[6, 0, 1, 2, 3, 4], [9, 10], 7)?;
                check_sum(r, &[5], 8)?;
                Ok(GameRow {
                    index: r.get::<_, i64>(0)? as u64,
                    pair: r.get::<_, Option<i64>>(9)?.map(|p| p as u64),
                    opening: r.get::<_, Option<i64>>(10)?.map(|o| o as u64),
                    seats: json_column(r, 1)?,
                    scores: json_column(r, 2)?,
                    failures: json_column(r, 3)?,
                    forfeit: json_column(r, 4)?,
                    transcript: r.get(5)?,
                })
            })
            .map_err(|e| self.error(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.error(e))
    }

    /// The finished games of a tournament, in index order (their checksums were checked when
    /// the store was opened).
    pub fn games(&self, id: &str) -> Result<Vec<StoredGame>, ErrorInfo> {
        let mut stmt = self
            .conn
            .prepare("SELECT idx, scores, failures, forfeit FROM games WHERE tournament = ?1 ORDER BY idx")
            .map_err(|e| self.error(e))?;
        let rows = stmt
            .query_map(params![id], |r| {
                Ok(StoredGame {
                    index: r.get::<_, i64>(0)? as u64,
                    scores: json_column(r, 1)?,
                    failures: json_column(r, 2)?,
                    forfeit: json_column(r, 3)?,
                })
            })
            .map_err(|e| self.error(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.error(e))
    }

    /// A page of a tournament's games in index order, without their transcripts (whether one
    /// was kept is the last field), and how many games it has in all.
    pub fn page(
        &self,
        id: &str,
        offset: u64,
        limit: u64,
    ) -> Result<(u64, Vec<(GameRow, bool)>), ErrorInfo> {
        let total: i64 = self
            .conn
            .query_row("SELECT COUNT(*) FROM games WHERE tournament = ?1", params![id], |r| {
                r.get(0)
            })
            .map_err(|e| self.error(e))?;
        let mut stmt = self
            .conn
            .prepare("SELECT idx, seats, scores, failures, forfeit, length(transcript) > 0, pair, opening FROM games WHERE tournament = ?1 ORDER BY idx LIMIT ?2 OFFSET ?3")
            .map_err(|e| self.error(e))?;
        let rows = stmt
            .query_map(params![id, limit as i64, offset as i64], |r| {
                let row = GameRow {
                    index: r.get::<_, i64>(0)? as u64,
                    pair: r.get::<_, Option<i64>>(6)?.map(|p| p as u64),
                    opening: r.get::<_, Option<i64>>(7)?.map(|o| o as u64),
                    seats: json_column(r, 1)?,
                    scores: json_column(r, 2)?,
                    failures: json_column(r, 3)?,
                    forfeit: json_column(r, 4)?,
                    transcript: String::new(),
                };
                Ok((row, r.get(5)?))
            })
            .map_err(|e| self.error(e))?;
        let page = rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.error(e))?;
        Ok((total as u64, page))
    }

    /// A stored game's transcript.
    pub fn transcript(&self, id: &str, index: u64) -> Result<Option<String>, ErrorInfo> {
        self.conn
            .query_row(
                "SELECT transcript, transcript_checksum FROM games WHERE tournament = ?1 AND idx = ?2",
                params![id, index as i64],
                |r| {
                    check_sum(r, &[0], 1)?;
                    r.get(0)
                },
            )
            .optional()
            .map_err(|e| self.error(e))
    }

    pub fn finish(&self, id: &str, result: &Value) -> Result<(), ErrorInfo> {
        set_finished(&self.conn, id, result).map_err(|e| self.error(e))
    }
}

fn insert_tournament(
    conn: &Connection,
    id: &str,
    spec: &Value,
    total: u64,
    owner: Role,
) -> rusqlite::Result<()> {
    let spec = spec.to_string();
    let sum = checksum(&[id, &spec, "running", &total.to_string(), ""]);
    let created = format!("{:?}", std::time::SystemTime::now());
    conn.execute(
        "INSERT INTO tournaments (id, spec, status, total_games, created, checksum, owner) VALUES (?1, ?2, 'running', ?3, ?4, ?5, ?6)",
        params![id, spec, total as i64, created, sum, owner.name()],
    )?;
    Ok(())
}

fn insert_game(conn: &Connection, id: &str, game: &GameRow) -> rusqlite::Result<()> {
    // Cached: a batch inserts many games with the same statement.
    let mut insert = conn
        .prepare_cached("INSERT INTO games (tournament, idx, seats, scores, failures, forfeit, transcript, checksum, transcript_checksum, pair, opening) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)")
?;
    let index = game.index.to_string();
    let seats = game.seats.to_string();
    let scores = serde_json::to_string(&game.scores).unwrap();
    let (failures, forfeit) = (game.failures.to_string(), game.forfeit.to_string());
    let extra = placed_values(game.pair, game.opening);
    let mut values = vec![id, &index, &seats, &scores, &failures, &forfeit];
    values.extend(extra.iter().map(String::as_str));
    let sum = checksum(&values);
    insert.execute(params![
        id,
        game.index as i64,
        seats,
        scores,
        failures,
        forfeit,
        game.transcript,
        sum,
        checksum(&[&game.transcript]),
        game.pair.map(|p| p as i64),
        game.opening.map(|o| o as i64)
    ])?;
    Ok(())
}

fn set_finished(conn: &Connection, id: &str, result: &Value) -> rusqlite::Result<()> {
    let (spec, total): (String, i64) = conn.query_row(
        "SELECT spec, total_games FROM tournaments WHERE id = ?1",
        params![id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let result = result.to_string();
    let sum = checksum(&[id, &spec, "finished", &total.to_string(), &result]);
    conn.execute(
        "UPDATE tournaments SET status = 'finished', result = ?2, checksum = ?3 WHERE id = ?1",
        params![id, result, sum],
    )?;
    Ok(())
}

/// A row's checksum: CRC-32 over its values, each ended by a NUL (which JSON text never holds
/// unescaped), so moving bytes from one value to the next changes it too.
fn checksum(values: &[&str]) -> i64 {
    let mut crc = crc32fast::Hasher::new();
    for value in values {
        crc.update(value.as_bytes());
        crc.update(&[0]);
    }
    i64::from(crc.finalize())
}

/// The `user_version` of a records file whose every row carries its checksum.
const SEALED_VERSION: i64 = 1;

/// The row's values in `columns` as the checksum reads them: text as it is, an integer in
/// decimal, NULL as nothing.
fn row_values(row: &rusqlite::Row<'_>, columns: &[usize]) -> rusqlite::Result<Vec<String>> {
    columns
        .iter()
        .map(|&c| match row.get_ref(c)? {
            ValueRef::Integer(n) => Ok(n.to_string()),
            ValueRef::Null => Ok(String::new()),
            other => Ok(String::from_utf8_lossy(other.as_bytes()?).into_owned()),
        })
        .collect()
}

/// Checks the row's values in `columns` against its checksum in column `sum`. A mismatch, or
/// no checksum at all (every row has one, see `seal_rows_of_older_files`), is a damaged record.
fn check_sum(row: &rusqlite::Row<'_>, columns: &[usize], sum: usize) -> rusqlite::Result<()> {
    check_values(row, row_values(row, columns)?, sum)
}

/// What a game's checksum covers after its record: its pair and its opening when it has them
/// (games of unpaired tournaments or without openings, and of files older than either, have
/// none and their checksums never covered them). The opening is tagged, so a pair number cannot
/// pass for an opening.
fn placed_values(pair: Option<u64>, opening: Option<u64>) -> Vec<String> {
    pair.map(|p| p.to_string()).into_iter().chain(opening.map(|o| format!("opening {o}"))).collect()
}

/// Checks a game's values in `columns`, then its pair and opening in columns `placed` (see
/// [`placed_values`]).
fn check_game_sum(
    row: &rusqlite::Row<'_>,
    columns: &[usize],
    placed: [usize; 2],
    sum: usize,
) -> rusqlite::Result<()> {
    let mut values = row_values(row, columns)?;
    let read = |c: usize| row.get::<_, Option<i64>>(c).map(|v| v.map(|v| v as u64));
    values.extend(placed_values(read(placed[0])?, read(placed[1])?));
    check_values(row, values, sum)
}

/// Checks `values` against the row's checksum in column `sum`.
fn check_values(row: &rusqlite::Row<'_>, values: Vec<String>, sum: usize) -> rusqlite::Result<()> {
    let damaged = |why: &str| {
        rusqlite::Error::FromSqlConversionFailure(sum, rusqlite::types::Type::Integer, why.into())
    };
    let stored =
        row.get::<_, Option<i64>>(sum)?.ok_or_else(|| damaged("a record has no checksum"))?;
    let values: Vec<&str> = values.iter().map(String::as_str).collect();
    if checksum(&values) == stored {
        return Ok(());
    }
    Err(damaged("a record's values do not match its checksum"))
}

fn row_to_tournament(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredTournament> {
    check_sum(r, &[0, 1, 2, 3, 5], 6)?;
    Ok(StoredTournament {
        id: r.get(0)?,
        spec: json_column(r, 1)?,
        status: r.get(2)?,
        total: r.get::<_, i64>(3)? as u64,
        games: r.get::<_, i64>(4)? as u64,
        owner: match r.get::<_, Option<String>>(7)?.as_deref() {
            Some("player") => Role::Player,
            _ => Role::Operator,
        },
    })
}
