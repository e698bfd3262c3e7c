//! Groups that persist: members, dealt games and their status, in an embedded SQLite database
//! (`roles.sqlite3` in the data directory), so a group's history survives restarts.
//!
//! A dealt game is `pending` until the game master says it was played (`committed`, it enters the
//! history) or not (`discarded`). Every write is one transaction, and every check happens before
//! the first write, so a rejected request leaves the database as it was.

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde::Serialize;
use yomi_plugin::{capability, ErrorCode, ErrorInfo};

use crate::model::{check_players, invalid, PastGame};

/// The database file's name inside the data directory.
pub const DB_FILE: &str = "roles.sqlite3";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS groups (name TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS members (
    grp TEXT NOT NULL REFERENCES groups(name),
    player TEXT NOT NULL,
    PRIMARY KEY (grp, player)
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    grp TEXT NOT NULL REFERENCES groups(name),
    status TEXT NOT NULL CHECK (status IN ('pending', 'committed', 'discarded')),
    beta REAL NOT NULL,
    seed INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS group_keys (
    grp TEXT PRIMARY KEY REFERENCES groups(name),
    key_sha256 TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS game_roles (
    game INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    player TEXT NOT NULL,
    role TEXT NOT NULL,
    PRIMARY KEY (game, player)
);
";

/// A dealt game as stored.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StoredGame {
    pub game: i64,
    pub status: String,
    pub beta: f64,
    pub seed: u64,
    /// Player → role.
    pub assignment: PastGame,
}

fn db_error(e: rusqlite::Error) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::BotError, format!("roles database: {e}"))
}

/// The open database.
pub struct Store {
    conn: Connection,
    path: Option<PathBuf>,
}

impl Store {
    /// Opens (creating if needed) the database in `data_dir`; with no data directory the store
    /// lives in memory and forgets everything when dropped.
    pub fn open(data_dir: Option<&Path>) -> Result<Store, ErrorInfo> {
        let (conn, path) = match data_dir {
            Some(dir) => {
                std::fs::create_dir_all(dir).map_err(|e| {
                    ErrorInfo::new(
                        ErrorCode::BotError,
                        format!("cannot create data directory {}: {e}", dir.display()),
                    )
                })?;
                let path = dir.join(DB_FILE);
                (Connection::open(&path).map_err(db_error)?, Some(path))
            }
            None => (Connection::open_in_memory().map_err(db_error)?, None),
        };
        conn.busy_timeout(std::time::Duration::from_secs(5)).map_err(db_error)?;
        conn.execute_batch(SCHEMA).map_err(db_error)?;
        Ok(Store { conn, path })
    }

    /// Where the database lives, if on disk.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    fn write<T>(
        &mut self,
        f: impl FnOnce(&Transaction) -> Result<T, ErrorInfo>,
    ) -> Result<T, ErrorInfo> {
        let tx = self.conn.transaction().map_err(db_error)?;
        let out = f(&tx)?;
        tx.commit().map_err(db_error)?;
        Ok(out)
    }

    /// All group names.
    pub fn groups(&self) -> Result<Vec<String>, ErrorInfo> {
        let mut stmt =
            self.conn.prepare("SELECT name FROM groups ORDER BY name").map_err(db_error)?;
        let rows = stmt.query_map([], |r| r.get(0)).map_err(db_error)?;
        rows.collect::<Result<_, _>>().map_err(db_error)
    }

    /// Whether `key` is the key `group` was created with. Only digests are stored and compared,
    /// so neither the database nor the comparison's timing gives a key away. Groups made before
    /// keys existed have none and are reached from the CLI only.
    pub fn key_matches(&self, group: &str, key: &str) -> Result<bool, ErrorInfo> {
        let stored: Option<String> = self
            .conn
            .query_row("SELECT key_sha256 FROM group_keys WHERE grp = ?1", [group], |r| r.get(0))
            .optional()
            .map_err(db_error)?;
        Ok(stored.is_some_and(|d| d == capability::digest(key)))
    }

    fn require_group(conn: &Connection, group: &str) -> Result<(), ErrorInfo> {
        let found: Option<String> = conn
            .query_row("SELECT name FROM groups WHERE name = ?1", [group], |r| r.get(0))
            .optional()
            .map_err(db_error)?;
        match found {
            Some(_) => Ok(()),
            None => Err(invalid(format!("unknown group `{group}`"))),
        }
    }

    /// Creates a group with its first players, reachable over the network with `key`.
    pub fn create(&mut self, group: &str, players: &[String], key: &str) -> Result<(), ErrorInfo> {
        if group.trim().is_empty() {
            return Err(invalid("the group name is empty"));
        }
        check_players(players)?;
        self.write(|tx| {
            if Self::require_group(tx, group).is_ok() {
                return Err(invalid(format!("group `{group}` already exists")));
            }
            tx.execute("INSERT INTO groups (name) VALUES (?1)", [group]).map_err(db_error)?;
            tx.execute(
                "INSERT INTO group_keys (grp, key_sha256) VALUES (?1, ?2)",
                [group, &capability::digest(key)],
            )
            .map_err(db_error)?;
            for p in players {
                tx.execute("INSERT INTO members (grp, player) VALUES (?1, ?2)", [group, p])
                    .map_err(db_error)?;
            }
            Ok(())
        })
    }

    /// The players present, in the order they joined.
    pub fn members(&self, group: &str) -> Result<Vec<String>, ErrorInfo> {
        Self::require_group(&self.conn, group)?;
        Self::members_of(&self.conn, group)
    }

    fn members_of(conn: &Connection, group: &str) -> Result<Vec<String>, ErrorInfo> {
        let mut stmt = conn
            .prepare("SELECT player FROM members WHERE grp = ?1 ORDER BY rowid")
            .map_err(db_error)?;
        let rows = stmt.query_map([group], |r| r.get(0)).map_err(db_error)?;
        rows.collect::<Result<_, _>>().map_err(db_error)
    }

    /// Adds players; each must be new to the group's present members.
    pub fn join(&mut self, group: &str, players: &[String]) -> Result<Vec<String>, ErrorInfo> {
        check_players(players)?;
        self.write(|tx| {
            Self::require_group(tx, group)?;
            let present = Self::members_of(tx, group)?;
            if let Some(p) = players.iter().find(|p| present.contains(p)) {
                return Err(invalid(format!("player `{p}` is already in group `{group}`")));
            }
            for p in players {
                tx.execute("INSERT INTO members (grp, player) VALUES (?1, ?2)", [group, p])
                    .map_err(db_error)?;
            }
            Self::members_of(tx, group)
        })
    }

    /// Removes players from the present members; their history stays for when they come back.
    pub fn leave(&mut self, group: &str, players: &[String]) -> Result<Vec<String>, ErrorInfo> {
        check_players(players)?;
        self.write(|tx| {
            Self::require_group(tx, group)?;
            let present = Self::members_of(tx, group)?;
            if let Some(p) = players.iter().find(|p| !present.contains(p)) {
                return Err(invalid(format!("player `{p}` is not in group `{group}`")));
            }
            for p in players {
                tx.execute("DELETE FROM members WHERE grp = ?1 AND player = ?2", [group, p])
                    .map_err(db_error)?;
            }
            Self::members_of(tx, group)
        })
    }

    fn games_where(&self, group: &str, status: &str) -> Result<Vec<StoredGame>, ErrorInfo> {
        Self::require_group(&self.conn, group)?;
        let mut stmt = self
            .conn
            .prepare("SELECT id, status, beta, seed FROM games WHERE grp = ?1 AND status = ?2 ORDER BY id")
            .map_err(db_error)?;
        let heads = stmt
            .query_map(params![group, status], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, f64>(2)?,
                    r.get::<_, i64>(3)?,
                ))
            })
            .map_err(db_error)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(db_error)?;
        let mut roles = self
            .conn
            .prepare("SELECT player, role FROM game_roles WHERE game = ?1 ORDER BY seat")
            .map_err(db_error)?;
        heads
            .into_iter()
            .map(|(game, status, beta, seed)| {
                let assignment = roles
                    .query_map([game], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
                    .map_err(db_error)?
                    .collect::<Result<PastGame, _>>()
                    .map_err(db_error)?;
                Ok(StoredGame { game, status, beta, seed: seed as u64, assignment })
            })
            .collect()
    }

    /// The committed games, oldest first: the group's history.
    pub fn history(&self, group: &str) -> Result<Vec<StoredGame>, ErrorInfo> {
        self.games_where(group, "committed")
    }

    /// The dealt game awaiting commit or discard, if any.
    pub fn pending(&self, group: &str) -> Result<Option<StoredGame>, ErrorInfo> {
        Ok(self.games_where(group, "pending")?.pop())
    }

    /// Records a freshly dealt game as pending. A group has at most one pending game: the game
    /// master settles it (commit or discard) before dealing again.
    pub fn add_pending(
        &mut self,
        group: &str,
        seats: &[(String, String)],
        beta: f64,
        seed: u64,
    ) -> Result<i64, ErrorInfo> {
        if let Some(p) = self.pending(group)? {
            return Err(invalid(format!(
                "group `{group}` already has a pending game {}; commit or discard it first",
                p.game
            )));
        }
        self.write(|tx| {
            tx.execute(
                "INSERT INTO games (grp, status, beta, seed) VALUES (?1, 'pending', ?2, ?3)",
                params![group, beta, seed as i64],
            )
            .map_err(db_error)?;
            let id = tx.last_insert_rowid();
            for (seat, (player, role)) in seats.iter().enumerate() {
                tx.execute(
                    "INSERT INTO game_roles (game, seat, player, role) VALUES (?1, ?2, ?3, ?4)",
                    params![id, seat as i64, player, role],
                )
                .map_err(db_error)?;
            }
            Ok(id)
        })
    }

    /// Settles a pending game as `committed` or `discarded`.
    pub fn settle(
        &mut self,
        group: &str,
        game: i64,
        status: &str,
    ) -> Result<StoredGame, ErrorInfo> {
        self.write(|tx| {
            Self::require_group(tx, group)?;
            let current: Option<String> = tx
                .query_row(
                    "SELECT status FROM games WHERE id = ?1 AND grp = ?2",
                    params![game, group],
                    |r| r.get(0),
                )
                .optional()
                .map_err(db_error)?;
            match current.as_deref() {
                None => Err(invalid(format!("group `{group}` has no game {game}"))),
                Some("pending") => {
                    tx.execute("UPDATE games SET status = ?1 WHERE id = ?2", params![status, game])
                        .map_err(db_error)?;
                    Ok(())
                }
                Some(other) => {
                    Err(invalid(format!("game {game} of group `{group}` is already {other}")))
                }
            }
        })?;
        self.games_where(group, status)?.into_iter().find(|g| g.game == game).ok_or_else(|| {
            ErrorInfo::new(ErrorCode::BotError, format!("game {game} vanished after being settled"))
        })
    }

    /// One game of a group, whatever its status.
    pub fn game(&self, group: &str, game: i64) -> Result<StoredGame, ErrorInfo> {
        for status in ["pending", "committed", "discarded"] {
            if let Some(g) = self.games_where(group, status)?.into_iter().find(|g| g.game == game) {
                return Ok(g);
            }
        }
        Err(invalid(format!("group `{group}` has no game {game}")))
    }
}
