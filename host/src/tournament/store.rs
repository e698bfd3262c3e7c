//! The records store: tournaments and their finished games in an embedded SQLite database in the
//! data directory. A game counts once its row is committed; the primary key (tournament, game
//! index) makes a game impossible to record twice, so a run killed at any moment resumes with
//! nothing lost and nothing doubled.

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OptionalExtension};
use serde_json::Value;
use yomi_protocol::{ErrorCode, ErrorInfo};

/// A tournament's stored row.
#[derive(Debug, Clone)]
pub struct StoredTournament {
    pub id: String,
    pub spec: Value,
    pub status: String,
    pub games: u64,
    pub total: u64,
}

/// One finished game as the store records it.
#[derive(Debug, Clone, PartialEq)]
pub struct GameRow {
    pub index: u64,
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
    let advice = match e.sqlite_error_code() {
        Some(Sqlite::NotADatabase | Sqlite::DatabaseCorrupt) => {
            "; the records file is damaged or not a yomi records database: \
             move it away to start a new one (it was left untouched)"
        }
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
                 total_games INTEGER NOT NULL, created TEXT NOT NULL, result TEXT);
             CREATE TABLE IF NOT EXISTS games (
                 tournament TEXT NOT NULL REFERENCES tournaments(id), idx INTEGER NOT NULL,
                 seats TEXT NOT NULL, scores TEXT NOT NULL, failures TEXT NOT NULL, forfeit TEXT NOT NULL,
                 transcript TEXT NOT NULL, PRIMARY KEY (tournament, idx));",
        )
        .map_err(|e| db_error(&path, e))?;
        Ok(Store { conn, path })
    }

    pub fn create(&self, id: &str, spec: &Value, total: u64) -> Result<(), ErrorInfo> {
        insert_tournament(&self.conn, id, spec, total).map_err(|e| self.error(e))
    }

    pub fn get(&self, id: &str) -> Result<Option<StoredTournament>, ErrorInfo> {
        self.conn
            .query_row(
                "SELECT t.id, t.spec, t.status, t.total_games, (SELECT COUNT(*) FROM games g WHERE g.tournament = t.id)
                 FROM tournaments t WHERE t.id = ?1",
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
                "SELECT t.id, t.spec, t.status, t.total_games, (SELECT COUNT(*) FROM games g WHERE g.tournament = t.id)
                 FROM tournaments t ORDER BY t.created",
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
            insert_tournament(&tx, id, spec, total)?;
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
            .prepare("SELECT idx, seats, scores, failures, forfeit, transcript FROM games WHERE tournament = ?1 ORDER BY idx")
            .map_err(|e| self.error(e))?;
        let json = |text: String| serde_json::from_str(&text).unwrap_or_default();
        let rows = stmt
            .query_map(params![id], |r| {
                Ok(GameRow {
                    index: r.get::<_, i64>(0)? as u64,
                    seats: json(r.get(1)?),
                    scores: serde_json::from_str(&r.get::<_, String>(2)?).unwrap_or_default(),
                    failures: json(r.get(3)?),
                    forfeit: json(r.get(4)?),
                    transcript: r.get(5)?,
                })
            })
            .map_err(|e| self.error(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.error(e))
    }

    /// The finished games of a tournament, in index order.
    pub fn games(&self, id: &str) -> Result<Vec<StoredGame>, ErrorInfo> {
        let mut stmt = self
            .conn
            .prepare("SELECT idx, scores, failures, forfeit FROM games WHERE tournament = ?1 ORDER BY idx")
            .map_err(|e| self.error(e))?;
        let rows = stmt
            .query_map(params![id], |r| {
                let scores: String = r.get(1)?;
                let failures: String = r.get(2)?;
                let forfeit: String = r.get(3)?;
                Ok(StoredGame {
                    index: r.get::<_, i64>(0)? as u64,
                    scores: serde_json::from_str(&scores).unwrap_or_default(),
                    failures: serde_json::from_str(&failures).unwrap_or_default(),
                    forfeit: serde_json::from_str(&forfeit).unwrap_or_default(),
                })
            })
            .map_err(|e| self.error(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.error(e))
    }

    /// A stored game's transcript.
    pub fn transcript(&self, id: &str, index: u64) -> Result<Option<String>, ErrorInfo> {
        self.conn
            .query_row(
                "SELECT transcript FROM games WHERE tournament = ?1 AND idx = ?2",
                params![id, index as i64],
                |r| r.get(0),
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
) -> rusqlite::Result<()> {
    let created = format!("{:?}", std::time::SystemTime::now());
    conn.execute(
        "INSERT INTO tournaments (id, spec, status, total_games, created) VALUES (?1, ?2, 'running', ?3, ?4)",
        params![id, spec.to_string(), total as i64, created],
    )?;
    Ok(())
}

fn insert_game(conn: &Connection, id: &str, game: &GameRow) -> rusqlite::Result<()> {
    // Cached: a batch inserts many games with the same statement.
    let mut insert = conn
        .prepare_cached("INSERT INTO games (tournament, idx, seats, scores, failures, forfeit, transcript) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
?;
    insert.execute(params![
        id,
        game.index as i64,
        game.seats.to_string(),
        serde_json::to_string(&game.scores).unwrap(),
        game.failures.to_string(),
        game.forfeit.to_string(),
        game.transcript
    ])?;
    Ok(())
}

fn set_finished(conn: &Connection, id: &str, result: &Value) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE tournaments SET status = 'finished', result = ?2 WHERE id = ?1",
        params![id, result.to_string()],
    )?;
    Ok(())
}

fn row_to_tournament(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredTournament> {
    let spec: String = r.get(1)?;
    Ok(StoredTournament {
        id: r.get(0)?,
        spec: serde_json::from_str(&spec).unwrap_or(Value::Null),
        status: r.get(2)?,
        total: r.get::<_, i64>(3)? as u64,
        games: r.get::<_, i64>(4)? as u64,
    })
}
