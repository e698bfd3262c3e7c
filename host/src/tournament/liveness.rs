//! Whether a tournament the records call "running" is really being played: the process playing
//! it holds an OS lock on a file of its own in the data directory. The OS drops the lock when
//! that process ends, even by `kill -9`, so a listing can tell "running" from "interrupted",
//! and a second process cannot play the same tournament at once.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

use yomi_protocol::ops::tournaments::Listed;
use yomi_protocol::{ErrorCode, ErrorInfo};

/// Held while a tournament is played; dropping it removes the lock file and releases the lock.
#[derive(Debug)]
pub struct Playing {
    file: File,
    path: PathBuf,
}

impl Drop for Playing {
    /// Removed while still locked, so no other process can hold a lock on this file by then:
    /// one that opened it before finds it gone once it gets the lock (see [`hold`]).
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

/// The lock file of tournament `id`: its id hex-encoded, so any id makes a valid file name.
fn lock_path(data_dir: &Path, id: &str) -> PathBuf {
    let hex: String = id.bytes().map(|b| format!("{b:02x}")).collect();
    data_dir.join("tournament-locks").join(format!("{hex}.lock"))
}

/// Marks tournament `id` as being played by this process until the guard is dropped; refused
/// (`conflict`) while another process plays it.
pub fn hold(data_dir: &Path, id: &str) -> Result<Playing, ErrorInfo> {
    let io = |e: std::io::Error| {
        ErrorInfo::new(ErrorCode::Internal, format!("cannot lock tournament `{id}`: {e}"))
    };
    let path = lock_path(data_dir, id);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    loop {
        let file =
            OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(io)?;
        match file.try_lock() {
            // The lock holds only if the file is still the one at the path: a player that was
            // finishing may have removed it between our open and our lock.
            Ok(()) if same_file(&file, &path) => return Ok(Playing { file, path }),
            Ok(()) => continue,
            Err(TryLockError::WouldBlock) => {
                return Err(ErrorInfo::new(
                    ErrorCode::Conflict,
                    format!("tournament `{id}` is being played by another process"),
                ))
            }
            Err(TryLockError::Error(e)) => return Err(io(e)),
        }
    }
}

/// Whether `file` is the file now at `path`.
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(open), Ok(named)) => (open.dev(), open.ino()) == (named.dev(), named.ino()),
        _ => false,
    }
}

/// True when some process holds tournament `id`'s lock (no lock file: none does).
pub fn is_played(data_dir: &Path, id: &str) -> bool {
    let Ok(file) = OpenOptions::new().write(true).open(lock_path(data_dir, id)) else {
        return false;
    };
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
        // Nothing is left behind: neither the finished one's lock nor files made by looking.
        let left = std::fs::read_dir(dir.path().join("tournament-locks")).unwrap().count();
        assert_eq!(left, 0, "lock files left behind");
        hold(dir.path(), "t/1 ä").expect("held again after its player finished");
    }
}
