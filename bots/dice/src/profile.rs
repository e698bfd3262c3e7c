//! Approach 4 (the paper's section 4): a player's own ranges. People differ widely (the paper's table 1: the
//! top and bottom halves of subjects are far apart), so a player may write a sequence by hand
//! "as if rolling a die"; their ranges are centred on that sequence's features (carried to the
//! stream's length by the ratio of expected values), with table 2's widths and weights. Profiles
//! live in an SQLite database, `profiles.sqlite` in the data directory, so they survive restarts.

use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension};

use crate::features::{compute, expected, COUNT};
use crate::ranges::{bounds, Ranges, TABLE2_ALPHA, TABLE2_BETA, TABLE2_GAMMA, TABLE2_LENGTH};

/// Shortest hand-written sequence a profile is derived from (a few windows of every pattern).
pub const MIN_PROFILE_LENGTH: usize = 20;

/// File name of the profile database inside the data directory.
pub const DB_FILE: &str = "profiles.sqlite";

/// The ranges for `n` faces of a `sides`-sided die learnt from a player's hand-written sequence.
/// Example: a player who wrote 100 faces with 6 doubles gets F7 near 3 at n = 50, range [1, 5].
pub fn derive(sequence: &[u8], sides: u8, n: usize) -> Result<Ranges, String> {
    if sequence.len() < MIN_PROFILE_LENGTH {
        return Err(format!(
            "a profile needs at least {MIN_PROFILE_LENGTH} faces, got {}",
            sequence.len()
        ));
    }
    crate::features::check_faces(sequence, sides)?;
    let own = compute(sequence, sides);
    let (at_m, at_n, table_scale) =
        (expected(sequence.len(), sides), expected(n, sides), expected(TABLE2_LENGTH, 6));
    let mut r = Ranges::table2().scaled(TABLE2_LENGTH, 6, n, sides);
    for i in 0..COUNT {
        let centre = if at_m[i] > 0.0 { own[i] * at_n[i] / at_m[i] } else { own[i] };
        let half = (TABLE2_BETA[i] - TABLE2_ALPHA[i]) / 2.0
            * if table_scale[i] > 0.0 { at_n[i] / table_scale[i] } else { 1.0 };
        let (lo, hi) = ((centre - half).max(0.0), centre + half);
        (r.alpha[i], r.beta[i]) = bounds(i, lo, hi);
        r.gamma[i] = if sides % 2 == 1 && i == 5 { 0.0 } else { TABLE2_GAMMA[i] };
    }
    Ok(r)
}

/// The profile database.
pub struct Store {
    conn: Connection,
}

impl Store {
    /// Opens (creating if needed) `dir/profiles.sqlite`.
    pub fn open(dir: &Path) -> Result<Store, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create data directory {}: {e}", dir.display()))?;
        let path = dir.join(DB_FILE);
        let conn =
            Connection::open(&path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        let prepare = |e: rusqlite::Error| format!("cannot prepare {}: {e}", path.display());
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS profiles (player TEXT PRIMARY KEY, sides INTEGER NOT NULL, sequence TEXT NOT NULL, key_sha256 TEXT)",
        )
        .map_err(prepare)?;
        // Profiles saved before keys existed: the column, NULL (the operator's, from the CLI).
        let has_key: bool = conn
            .query_row(
                "SELECT COUNT(*) FROM pragma_table_info('profiles') WHERE name = 'key_sha256'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n > 0)
            .map_err(prepare)?;
        if !has_key {
            conn.execute_batch("ALTER TABLE profiles ADD COLUMN key_sha256 TEXT")
                .map_err(prepare)?;
        }
        Ok(Store { conn })
    }

    /// Saves (or replaces) a player's hand-written sequence. A new profile keeps `key_digest`
    /// (the digest of the key its client got back; `None` from the operator's CLI); a replaced
    /// one keeps the digest it had.
    pub fn put(
        &self,
        player: &str,
        sides: u8,
        sequence: &[u8],
        key_digest: Option<&str>,
    ) -> Result<(), String> {
        let text = serde_json::to_string(sequence).map_err(|e| e.to_string())?;
        self.conn
            .execute(
                "INSERT INTO profiles (player, sides, sequence, key_sha256) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT(player) DO UPDATE SET sides = excluded.sides, sequence = excluded.sequence",
                params![player, sides, text, key_digest],
            )
            .map(|_| ())
            .map_err(|e| format!("cannot save profile `{player}`: {e}"))
    }

    /// A player's saved profile, if any.
    pub fn get(&self, player: &str) -> Result<Option<Saved>, String> {
        let row: Option<(u8, String, Option<String>)> = self
            .conn
            .query_row(
                "SELECT sides, sequence, key_sha256 FROM profiles WHERE player = ?1",
                params![player],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(|e| format!("cannot read profile `{player}`: {e}"))?;
        row.map(|(sides, text, key_digest)| {
            let sequence = serde_json::from_str(&text)
                .map_err(|e| format!("profile `{player}` is damaged: {e}"))?;
            Ok(Saved { sides, sequence, key_digest })
        })
        .transpose()
    }

    /// How many profiles are saved.
    pub fn count(&self) -> Result<u64, String> {
        self.conn
            .query_row("SELECT COUNT(*) FROM profiles", [], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
            .map_err(|e| format!("cannot count profiles: {e}"))
    }
}

/// A saved profile.
#[derive(Debug, Clone, PartialEq)]
pub struct Saved {
    pub sides: u8,
    pub sequence: Vec<u8>,
    /// The digest of the key that reaches it; `None` for the operator's profiles (the CLI's).
    pub key_digest: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_player_who_avoids_doubles_gets_low_double_ranges() {
        // Subject 2 of the paper's section 5.3: no double at all in 40 faces.
        let seq: Vec<u8> =
            "1523645326413253412156362436152342615243".bytes().map(|b| b - b'0').collect();
        let r = derive(&seq, 6, 50).unwrap();
        assert_eq!((r.alpha[6], r.beta[6]), (0.0, 2.0));
        assert!(derive(&seq[..10], 6, 50).is_err());
        assert!(derive(&[7; 30], 6, 50).is_err());
    }
}
