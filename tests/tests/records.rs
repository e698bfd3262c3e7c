//! The records database (`records.sqlite3` in the data directory) under damage and sudden death:
//! a corrupt or truncated file gives a clear error naming it and is left untouched; a read-only
//! data directory and a full disk give a clear error naming the file and lose no recorded game;
//! a tournament killed with SIGKILL again and again, or stopped by a full disk, resumes to
//! exactly its scheduled games.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use yomi_e2e::{json_out, run_ok, temp_dir, yomi_in as yomi};

/// `yomi tournament --list --json` in `data`.
fn list(data: &Path) -> Value {
    json_out(&run_ok(yomi(data).args(["tournament", "--list", "--json"])))
}

/// Checks that listing the tournaments fails with an error that names the records file, and
/// that the file was not changed by trying.
fn refused_naming_the_file(data: &Path) -> String {
    let file = data.join("records.sqlite3");
    let before = std::fs::read(&file).unwrap();
    let out = yomi(data).args(["tournament", "--list", "--json"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success(), "a damaged records file was accepted:\n{stderr}");
    assert!(stderr.contains(&file.display().to_string()), "the error names the file:\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(std::fs::read(&file).unwrap(), before, "the damaged file was changed");
    stderr
}

/// A small finished tournament, so the records file has content.
fn play_small_tournament(data: &Path) {
    let args = "tournament --game rps --bot example/rps --bot example/rps:reading=1 --games-per-pair 20 --json";
    run_ok(yomi(data).args(args.split(' ')));
}

#[test]
fn a_records_file_that_is_not_a_database_is_refused_by_name() {
    let tmp = temp_dir();
    std::fs::write(
        tmp.path().join("records.sqlite3"),
        "these are not the records you are looking for\n".repeat(200),
    )
    .unwrap();
    let stderr = refused_naming_the_file(tmp.path());
    assert!(stderr.contains("move it away"), "the error says what to do:\n{stderr}");
}

#[test]
fn a_truncated_records_file_is_refused_by_name() {
    let tmp = temp_dir();
    play_small_tournament(tmp.path());
    let file = tmp.path().join("records.sqlite3");
    let bytes = std::fs::read(&file).unwrap();
    assert!(bytes.len() > 8192, "the tournament should fill a few pages: {} bytes", bytes.len());
    // Keep the header page and part of the tables: what a full disk or a bad copy leaves.
    std::fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
    refused_naming_the_file(tmp.path());
}

/// Rewrites every occurrence of `from` in the records file with `to` (of the same length): a
/// damaged value that still parses, inside the data pages, with the file's structure intact.
fn rewrite_value(data: &Path, from: &str, to: &str) {
    assert_eq!(from.len(), to.len());
    let file = data.join("records.sqlite3");
    let bytes = std::fs::read(&file).unwrap();
    let text = bytes.windows(from.len()).filter(|w| *w == from.as_bytes()).count();
    assert!(text > 0, "`{from}` is not in the records file");
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = &bytes[..];
    while let Some(at) = rest.windows(from.len()).position(|w| w == from.as_bytes()) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(to.as_bytes());
        rest = &rest[at + from.len()..];
    }
    out.extend_from_slice(rest);
    std::fs::write(&file, out).unwrap();
}

#[test]
fn a_damaged_tournament_value_is_refused_by_name() {
    let tmp = temp_dir();
    play_small_tournament(tmp.path());
    // 20 games per pairing read back as 90: valid JSON, a valid page, a wrong record.
    rewrite_value(tmp.path(), "\"games_per_pair\":20", "\"games_per_pair\":90");
    let stderr = refused_naming_the_file(tmp.path());
    assert!(stderr.contains("checksum"), "the error says what is wrong:\n{stderr}");
}

#[test]
fn a_damaged_game_record_is_refused_and_nothing_is_written_beside_it() {
    let tmp = temp_dir();
    play_small_tournament(tmp.path());
    rewrite_value(tmp.path(), "\"timeout\":0}", "\"timeout\":7}");
    refused_naming_the_file(tmp.path());
    // A new tournament is not written into the damaged file either.
    let file = tmp.path().join("records.sqlite3");
    let before = std::fs::read(&file).unwrap();
    let args =
        "tournament --game rps --bot example/rps --bot example/rps:reading=2 --games-per-pair 2";
    let out = yomi(tmp.path()).args(args.split(' ')).output().unwrap();
    assert!(!out.status.success(), "a tournament was written into a damaged records file");
    assert!(String::from_utf8_lossy(&out.stderr).contains(&file.display().to_string()));
    assert_eq!(std::fs::read(&file).unwrap(), before, "the damaged file was changed");
}

/// Runs `sql` on the records file in `data`, as another program (or a person) might.
fn execute(data: &Path, sql: &str) {
    let conn = rusqlite::Connection::open(data.join("records.sqlite3")).unwrap();
    conn.execute_batch(sql).unwrap();
}

#[test]
fn a_record_whose_checksum_was_removed_is_refused() {
    for sql in [
        "UPDATE games SET checksum = NULL WHERE idx = 3",
        "UPDATE games SET transcript_checksum = NULL WHERE idx = 0",
        "UPDATE tournaments SET checksum = NULL",
    ] {
        let tmp = temp_dir();
        play_small_tournament(tmp.path());
        execute(tmp.path(), sql);
        let stderr = refused_naming_the_file(tmp.path());
        assert!(stderr.contains("checksum"), "{sql}: the error says what is wrong:\n{stderr}");
    }
}

#[test]
fn a_records_file_from_before_checksums_gets_them_and_is_checked_from_then_on() {
    let tmp = temp_dir();
    play_small_tournament(tmp.path());
    // What a yomi older than checksums wrote: the same rows, no checksums, user_version 0.
    execute(
        tmp.path(),
        "UPDATE tournaments SET checksum = NULL;
         UPDATE games SET checksum = NULL, transcript_checksum = NULL;
         PRAGMA user_version = 0;",
    );
    let listed = list(tmp.path());
    assert_eq!(listed[0]["status"], "finished", "{listed}");
    // Sealed on that first open: a checksum removed now is damage.
    execute(tmp.path(), "UPDATE games SET checksum = NULL WHERE idx = 1");
    refused_naming_the_file(tmp.path());
}

/// Starts (or resumes) the slow concurrency-4 tournament in the background.
fn start_tournament(data: &Path, resume: Option<&str>) -> Child {
    let mut cmd = yomi(data);
    match resume {
        Some(id) => cmd.args(["tournament", "--resume", id]),
        // The slow bot makes every game take at least 90 ms, whatever the machine's speed.
        None => cmd.args(
            "tournament --game rps --games-per-pair 400 --concurrency 4 --seed 9 --bot example/rps --bot misbehave:on_act=slow"
                .split(' '),
        ),
    };
    cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap()
}

/// Issue 16: kill -9 at five pseudo-random points (seeded: the same points every run) of a
/// concurrency-4 tournament, resuming after each, then let it finish: every scheduled game is
/// recorded once, none lost, none doubled.
#[test]
fn five_kills_of_a_concurrent_tournament_lose_and_double_nothing() {
    let tmp = temp_dir();
    let data = tmp.path();
    // The first run is killed once it has recorded a game, so there is a tournament to resume.
    let mut child = start_tournament(data, None);
    let start = Instant::now();
    let id = loop {
        std::thread::sleep(Duration::from_millis(50));
        let l = list(data);
        if l[0]["games"].as_u64().unwrap_or(0) >= 1 {
            break l[0]["id"].as_str().unwrap().to_string();
        }
        assert!(start.elapsed() < Duration::from_secs(300), "the tournament made no progress");
    };
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    for kill in 1..=5 {
        if kill > 1 {
            // A point anywhere from start-up to mid-run: 0 to 1.5 s after starting.
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            std::thread::sleep(Duration::from_millis((state >> 33) % 1500));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        let now = list(data);
        assert_eq!(now[0]["status"], json!("interrupted"), "finished before kill {kill}: {now}");
        child = start_tournament(data, Some(&id));
    }
    assert!(child.wait().unwrap().success());
    assert_exactly_scheduled(data, &id, 400);
}

/// The tournament `id` finished with exactly `total` games: every game index is in the records
/// once (the first and last transcripts are there, one past the end is not).
fn assert_exactly_scheduled(data: &Path, id: &str, total: u64) {
    let done = list(data);
    assert_eq!(
        done,
        json!([{"id": id, "status": "finished", "games": total, "total": total, "game": "rps"}])
    );
    for index in [0, total - 1] {
        run_ok(yomi(data).args(["tournament", "--transcript", &format!("{id}:{index}")]));
    }
    let past =
        yomi(data).args(["tournament", "--transcript", &format!("{id}:{total}")]).output().unwrap();
    assert!(!past.status.success());
}

/// Runs `mount ARGS...`; true when it worked (it needs root, or CAP_SYS_ADMIN).
fn mount(args: &[&str]) -> bool {
    Command::new("mount").args(args).stderr(Stdio::null()).status().is_ok_and(|s| s.success())
}

fn unmount(dir: &Path) {
    let _ = Command::new("umount").arg(dir).status();
}

/// True when this process can create a file in `dir`.
fn can_write_in(dir: &Path) -> bool {
    let probe = dir.join(".probe");
    let written = std::fs::write(&probe, b"").is_ok();
    let _ = std::fs::remove_file(&probe);
    written
}

/// A data directory made read-only for as long as this lives: by permissions (mode 0555), or,
/// when they are not enforced (tests running as root), by a read-only bind mount over it.
struct ReadOnlyDir {
    dir: PathBuf,
    mounted: bool,
}

impl ReadOnlyDir {
    /// `None` when neither works (root without the right to mount).
    fn make(dir: &Path) -> Option<ReadOnlyDir> {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
        let mut guard = ReadOnlyDir { dir: dir.to_path_buf(), mounted: false };
        if !can_write_in(dir) {
            return Some(guard);
        }
        let path = dir.to_str().unwrap();
        guard.mounted = mount(&["--bind", path, path]);
        if guard.mounted && mount(&["-o", "remount,bind,ro", path]) && !can_write_in(dir) {
            return Some(guard);
        }
        None
    }
}

impl Drop for ReadOnlyDir {
    fn drop(&mut self) {
        use std::os::unix::fs::PermissionsExt;
        if self.mounted {
            unmount(&self.dir);
        }
        let _ = std::fs::set_permissions(&self.dir, std::fs::Permissions::from_mode(0o755));
    }
}

#[test]
fn a_read_only_data_directory_is_refused_by_name_and_loses_nothing() {
    let tmp = temp_dir();
    let data = tmp.path().join("data");
    play_small_tournament(&data);
    let before = list(&data);
    let file = data.join("records.sqlite3");
    let bytes = std::fs::read(&file).unwrap();
    {
        let Some(_read_only) = ReadOnlyDir::make(&data) else {
            eprintln!("skipped: the data directory cannot be made read-only here (root without the right to mount)");
            return;
        };
        let out = yomi(&data)
            .args("tournament --game rps --bot example/rps --bot example/rps:reading=2 --games-per-pair 4".split(' '))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "a tournament ran in a read-only directory:\n{stderr}");
        assert!(
            stderr.contains(&file.display().to_string()),
            "the error names the file:\n{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    assert_eq!(std::fs::read(&file).unwrap(), bytes, "the records file was changed");
    assert_eq!(list(&data), before, "the recorded tournament is still there, whole");
}

/// A directory on a disk that fills up after 1 MiB, in one of two ways: a tmpfs of that size
/// mounted on it (needs root; writes fail with ENOSPC), or a file-size limit (RLIMIT_FSIZE) on
/// the yomi process, with SIGXFSZ ignored so that writes past it fail (EFBIG) instead of killing
/// the process (works for anyone).
struct SmallDisk {
    dir: PathBuf,
    tmpfs: bool,
}

impl SmallDisk {
    /// Every kind this process can set up, each in its own directory under `root`.
    fn available(root: &Path) -> Vec<SmallDisk> {
        let make_dir = |name: &str| {
            let dir = root.join(name);
            std::fs::create_dir(&dir).unwrap();
            dir
        };
        let mut disks = vec![SmallDisk { dir: make_dir("limit"), tmpfs: false }];
        let dir = make_dir("tmpfs");
        if mount(&["-t", "tmpfs", "-o", "size=1m", "tmpfs", dir.to_str().unwrap()]) {
            disks.push(SmallDisk { dir, tmpfs: true });
        } else {
            eprintln!("no tmpfs (mounting needs root): the full disk is a file-size limit only");
        }
        disks
    }

    /// `yomi --data-dir DIR/data ARGS...` on the small disk.
    fn yomi(&self, args: &str) -> Command {
        let mut cmd = yomi(&self.data());
        cmd.args(args.split(' '));
        if self.tmpfs {
            return cmd;
        }
        // `ulimit -f` counts 512-byte blocks in sh (dash, and bash in sh mode).
        let mut limited = Command::new("sh");
        limited.args(["-c", "trap '' XFSZ; ulimit -f 2048; exec \"$0\" \"$@\""]);
        limited.arg(cmd.get_program()).args(cmd.get_args());
        limited.envs(cmd.get_envs().filter_map(|(k, v)| Some((k, v?))));
        limited
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// Gives the directory room again.
    fn make_room(&self) {
        if self.tmpfs {
            assert!(mount(&["-o", "remount,size=64m", self.dir.to_str().unwrap()]), "remount");
        }
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        if self.tmpfs {
            unmount(&self.dir);
        }
    }
}

/// Fills the disk under a running tournament: it stops with an error naming the records file;
/// given room again, it resumes to exactly its scheduled games.
#[test]
fn a_full_disk_stops_a_tournament_naming_the_file_and_resume_loses_nothing() {
    let tmp = temp_dir();
    for disk in SmallDisk::available(tmp.path()) {
        let out = disk
            .yomi("tournament --game rps --bot example/rps --bot example/rps:reading=1 --games-per-pair 400 --seed 4 --concurrency 4")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "the tournament fit on the small disk:\n{stderr}");
        let file = disk.data().join("records.sqlite3");
        assert!(
            stderr.contains(&file.display().to_string()),
            "the error names the file:\n{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
        // ENOSPC says so; EFBIG (the file-size limit) is SQLite's generic I/O error, whose advice
        // names a full disk among its causes.
        assert!(stderr.contains("full"), "the error says the disk may be full:\n{stderr}");
        disk.make_room();
        // The games committed before the disk filled are kept (1 MiB holds about half).
        let stopped = list(&disk.data());
        assert_eq!(stopped[0]["status"], json!("interrupted"), "{stopped}");
        assert!((1..400).contains(&stopped[0]["games"].as_u64().unwrap()), "{stopped}");
        let id = stopped[0]["id"].as_str().unwrap().to_string();
        run_ok(yomi(&disk.data()).args(["tournament", "--resume", &id]));
        assert_exactly_scheduled(&disk.data(), &id, 400);
    }
}
