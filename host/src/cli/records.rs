//! `yomi tournament --list`, `--show ID` and the resume hint: what a tournament's manager reads
//! about the tournaments in the records.

use std::path::Path;

use yomi_protocol::ops::tournaments::Summary;

use crate::cli::common::Common;
use crate::tournament::runner::{self as tournaments, Tournament};
use crate::tournament::schedule::TournamentSpec;
use crate::tournament::store::Store;
use crate::tournament::{finished, liveness};

/// `--list`: every tournament with its status, games played of scheduled, and game. A
/// tournament recorded as running that no process plays says "interrupted".
pub fn list(common: &Common, store: &Store, json: bool) -> anyhow::Result<String> {
    let mut list = tournaments::list(store).map_err(|e| anyhow::anyhow!(e.message))?;
    liveness::mark_interrupted(&mut list, &common.data_dir());
    if json {
        return Ok(format!("{}\n", serde_json::to_value(&list)?));
    }
    let width = list.iter().map(|t| t.id.len()).max().unwrap_or(0);
    let mut out = String::new();
    for t in list {
        let game = t.game.unwrap_or_default();
        let (id, status, games, total) = (t.id, t.status, t.games, t.total);
        out.push_str(&format!("{id:<width$}  {status:<11} {games:>6}/{total:<6} {game}\n"));
    }
    Ok(out)
}

/// `--show ID`: the standings of a tournament in the records, from its stored games (all of
/// them once it finished; those played so far while it runs or after it was interrupted).
pub fn show(common: &Common, store: &Store, id: &str) -> anyhow::Result<Summary> {
    let err = |e: yomi_protocol::ErrorInfo| anyhow::anyhow!(e.message);
    let Some(stored) = store.get(id).map_err(err)? else {
        anyhow::bail!("{}", not_in_records(common, id));
    };
    let spec: TournamentSpec = serde_json::from_value(stored.spec)
        .map_err(|e| anyhow::anyhow!("the stored spec of `{id}` is unreadable: {e}"))?;
    // Recorded games are shown whatever their number.
    let t =
        Tournament::prepare(&*common.registry()?, id.to_string(), spec, u64::MAX).map_err(err)?;
    let finished = finished::finished_of(&t.schedule, &store.games(id).map_err(err)?);
    let status = match stored.status.as_str() {
        "running" if !liveness::is_played(&common.data_dir(), id) => "interrupted",
        other => other,
    };
    Ok(tournaments::summary(&t, &finished, status))
}

/// The command that resumes tournament `id`, with the `--plugins` and `--data-dir` this one was
/// given, so it finds the same records and bots when pasted.
pub fn resume_command(common: &Common, id: &str) -> String {
    command(common, &format!("tournament --resume {}", quote(id)))
}

/// The command that shows tournament `id`'s standings again.
pub fn show_command(common: &Common, id: &str) -> String {
    command(common, &format!("tournament --show {}", quote(id)))
}

fn command(common: &Common, rest: &str) -> String {
    let mut out = String::from("yomi");
    for dir in &common.plugins {
        out.push_str(&format!(" --plugins {}", quote_path(dir)));
    }
    if let Some(dir) = &common.data_dir {
        out.push_str(&format!(" --data-dir {}", quote_path(dir)));
    }
    format!("{out} {rest}")
}

/// What to say when an id is not in the records: where they were looked for.
pub fn not_in_records(common: &Common, id: &str) -> String {
    let hint = if common.data_dir.is_none() { " (give --data-dir if it ran with one)" } else { "" };
    format!(
        "no tournament `{id}` in the records at {}{hint}",
        Store::path_in(&common.data_dir()).display()
    )
}

fn quote_path(path: &Path) -> String {
    quote(&path.to_string_lossy())
}

/// A word as a POSIX shell reads it back: as is when it is plain, else in single quotes.
fn quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn words_are_quoted_only_when_a_shell_would_split_or_expand_them() {
        assert_eq!(quote("/tmp/records-1"), "/tmp/records-1");
        assert_eq!(quote("my records"), "'my records'");
        assert_eq!(quote("it's $HOME"), r"'it'\''s $HOME'");
        assert_eq!(quote(""), "''");
    }
}
