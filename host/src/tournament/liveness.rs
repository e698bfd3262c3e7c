//! Whether a tournament the records call "running" is really being played: the process playing
//! it holds an OS lock on a file of its own in the data directory. The OS drops the lock when
//! that process ends, even by `kill -9`, so a listing can tell "running" from "interrupted",
//! and a second process cannot play the same tournament at once.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

use yomi_protocol::ops::tournaments::Listed;
use yomi_protocol::{ErrorCode, ErrorInfo};

/// Held while a tournament is played; dropping it releases the lock.
#[derive(Debug)]
pub struct Playing {
    _file: File,
}

/// The lock file of tournament `id`: its id hex-encoded, so any id makes a valid file name.
fn lock_path(data_dir: &Path, id: &str) -> PathBuf {
    let hex: String = id.bytes().map(|b| format!("{b:02x}")).collect();
    data_dir.join("tournament-locks").join(format!("{hex}.lock"))
}

fn open(data_dir: &Path, id: &str) -> std::io::Result<File> {
    let path = lock_path(data_dir, id);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    OpenOptions::new().create(true).truncate(false).write(true).open(path)
}

/// Marks tournament `id` as being played by this process until the guard is dropped; refused
/// (`conflict`) while another process plays it.
pub fn hold(data_dir: &Path, id: &str) -> Result<Playing, ErrorInfo> {
    let io = |e: std::io::Error| {
        ErrorInfo::new(ErrorCode::Internal, format!("cannot lock tournament `{id}`: {e}"))
    };
    let file = open(data_dir, id).map_err(io)?;
    match file.try_lock() {
        Ok(()) => Ok(Playing { _file: file }),
        Err(TryLockError::WouldBlock) => Err(ErrorInfo::new(
            ErrorCode::Conflict,
            format!("tournament `{id}` is being played by another process"),
        )),
        Err(TryLockError::Error(e)) => Err(io(e)),
    }
}

/// True when some process holds tournament `id`'s lock.
pub fn is_played(data_dir: &Path, id: &str) -> bool {
    let Ok(file) = open(data_dir, id) else { return false };
    match file.try_lock() {
        Ok(()) => false, // released when `file` drops
        Err(TryLockError::WouldBlock) => true,
        Err(TryLockError::Error(_)) => false,
    }
}

/// In a listing of `{id, status, ...}` objects, says "interrupted" for a tournament recorded as
/// running that no process is playing (its process was killed, or the machine stopped).
pub fn mark_interrupted(list: &mut [Listed], data_dir: &Path) {
    for t in list {
        if t.status == "running" && !is_played(data_dir, &t.id) {
            t.status = "interrupted".into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch directory removed at the end of the test.
    struct Dir(PathBuf);
    impl Dir {
        fn path(&self) -> &Path {
            &self.0
        }
    }
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn a_held_tournament_is_played_until_its_guard_drops() {
        let dir = std::env::temp_dir().join(format!("yomi-liveness-{}", std::process::id()));
        let dir = &Dir(dir);
        assert!(!is_played(dir.path(), "t/1 ä"));
        let guard = hold(dir.path(), "t/1 ä").unwrap();
        assert!(is_played(dir.path(), "t/1 ä"));
        assert!(!is_played(dir.path(), "t2"));
        let again = hold(dir.path(), "t/1 ä").unwrap_err();
        assert_eq!(again.code, ErrorCode::Conflict);
        let listed = |id: &str, status: &str| {
            let (id, status) = (id.into(), status.into());
            Listed { id, status, games: 0, total: 1, game: None }
        };
        let mut list =
            [listed("t/1 ä", "running"), listed("t2", "running"), listed("t3", "finished")];
        mark_interrupted(&mut list, dir.path());
        let statuses: Vec<&str> = list.iter().map(|t| t.status.as_str()).collect();
        assert_eq!(statuses, ["running", "interrupted", "finished"]);
        drop(guard);
        assert!(!is_played(dir.path(), "t/1 ä"));
    }
}
