//! People's games kept as records while they play (`yomi serve --record-people NAME`): when a
//! `match.run` with a client seat ends, the decisions its client seats answered (what each saw,
//! could do, did, and how long it took) are added to the data directory's record set
//! `NAME-GAME` (a set holds one game's records), so a designer builds a data set by playing in
//! the playground. Off unless the operator names a set; `hello` says when it is on, and the
//! playground says so on screen.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use yomi_protocol::{ErrorCode, ErrorInfo};

use super::{from_transcript, store};
use crate::tournament::quota::bytes_under;

/// Adds the client seats' decisions of a finished match's `transcript` to the end of record set
/// `NAME-GAME`, unless the data directory would pass `max_data_bytes` (0: no quota); the cost is
/// the match's own, however large the set has grown. Returns the set and how many decisions
/// were added.
pub fn keep(
    data_dir: &Path,
    name: &str,
    max_data_bytes: u64,
    transcript: &str,
) -> Result<(String, usize), ErrorInfo> {
    // Matches ending together take turns, so the quota sees each one's bytes.
    static WRITING: Mutex<()> = Mutex::new(());
    let records = from_transcript::records(transcript)?;
    let set = format!("{name}-{}", records[0].game);
    let added = records.len();
    let _turn = WRITING.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let used = bytes_under(data_dir);
    if max_data_bytes > 0 && used + transcript.len() as u64 > max_data_bytes {
        return Err(ErrorInfo::new(
            ErrorCode::LimitExceeded,
            format!(
                "the data directory holds {used} bytes and its quota is {max_data_bytes} \
                 (--max-data-bytes): a match's records were not kept"
            ),
        ));
    }
    store::append(data_dir, &set, &batch(), records)?;
    Ok((set, added))
}

/// A label no other match's plays carry: its plays are named by the match seed, which a client
/// may choose, so two matches could otherwise join one play.
fn batch() -> String {
    static MATCHES: AtomicU64 = AtomicU64::new(0);
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    format!("people-{started}-{}", MATCHES.fetch_add(1, Ordering::Relaxed))
}
