//! `yomi tournament merge`: the records of every shard of a tournament, each played into its own
//! data directory, become one finished tournament with standings, Elo and intervals over all its
//! games. Only a complete, consistent set merges: shards of different tournaments, a shard given
//! twice, unfinished or missing shards and overlapping games are refused with nothing written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use yomi_protocol::ops::tournaments::{Shard, Summary};
use yomi_protocol::{ErrorCode, ErrorInfo};

use super::finished::Finished;
use super::runner::{self, Tournament};
use super::schedule::{Schedule, TournamentSpec};
use super::shard::Block;
use super::store::{GameRow, Store};
use crate::matches::policy::FailureCounts;
use crate::registry::Registry;

/// One shard's records, read from its data directory.
pub struct ShardRecords {
    pub dir: PathBuf,
    /// The shard's own id, `BASE-shard-I-of-N`.
    pub id: String,
    pub spec: TournamentSpec,
    pub shard: Shard,
    pub finished: bool,
    pub rows: Vec<GameRow>,
}

impl ShardRecords {
    fn base_id(&self) -> &str {
        self.shard.base_id(&self.id).unwrap_or(&self.id)
    }

    fn describe(&self) -> String {
        format!("`{}` in {}", self.id, self.dir.display())
    }
}

/// Reads every tournament shard in each data directory (a directory without any is an error).
pub fn read_shards(dirs: &[PathBuf]) -> Result<Vec<ShardRecords>, ErrorInfo> {
    let mut out = Vec::new();
    for dir in dirs {
        let before = out.len();
        read_dir(dir, &mut out)?;
        if out.len() == before {
            return Err(ErrorInfo::new(
                ErrorCode::InvalidParams,
                format!("{} holds no tournament shard (played with --shard)", dir.display()),
            ));
        }
    }
    Ok(out)
}

fn read_dir(dir: &Path, out: &mut Vec<ShardRecords>) -> Result<(), ErrorInfo> {
    if !Store::path_in(dir).is_file() {
        return Err(ErrorInfo::new(
            ErrorCode::NotFound,
            format!("{} holds no yomi records", dir.display()),
        ));
    }
    let store = Store::open(dir)?;
    for stored in store.list()? {
        let spec: TournamentSpec = serde_json::from_value(stored.spec).map_err(|e| {
            ErrorInfo::new(
                ErrorCode::Internal,
                format!("stored spec of `{}` in {} is unreadable: {e}", stored.id, dir.display()),
            )
        })?;
        let Some(shard) = spec.shard else { continue };
        out.push(ShardRecords {
            dir: dir.to_path_buf(),
            rows: store.rows(&stored.id)?,
            id: stored.id,
            spec,
            shard,
            finished: stored.status == "finished",
        });
    }
    Ok(())
}

/// Checks that the shards are exactly the shards of one tournament, each once, each finished,
/// none missing, and that each holds only games of its own block of the schedule. Returns the
/// whole tournament's id.
pub fn check(shards: &[ShardRecords], schedule: &Schedule) -> Result<String, ErrorInfo> {
    let conflict = |m: String| Err(ErrorInfo::new(ErrorCode::Conflict, m));
    let Some(first) = shards.first() else {
        return Err(ErrorInfo::new(ErrorCode::InvalidParams, "no shards to merge"));
    };
    let mut seen: BTreeMap<u32, &ShardRecords> = BTreeMap::new();
    for s in shards {
        if s.base_id() != first.base_id()
            || s.spec.identity() != first.spec.identity()
            || s.shard.count != first.shard.count
        {
            return conflict(format!(
                "{} and {} are shards of different tournaments",
                first.describe(),
                s.describe()
            ));
        }
        if let Some(other) = seen.insert(s.shard.index, s) {
            return conflict(format!(
                "shard {} of `{}` is given twice: {} and {}",
                s.shard.index,
                s.base_id(),
                other.dir.display(),
                s.dir.display()
            ));
        }
        if !s.finished {
            return conflict(format!(
                "{} is not finished ({} of {} games): run its command again to resume it",
                s.describe(),
                s.rows.len(),
                schedule.block(&s.shard).count()
            ));
        }
        let range = schedule.block(&s.shard);
        if let Some(stray) = s.rows.iter().find(|r| !range.contains(&r.index)) {
            return conflict(format!(
                "{} holds game {}, which is outside its block {}..{} (overlapping games)",
                s.describe(),
                stray.index,
                range.start,
                range.end
            ));
        }
    }
    let missing: Vec<String> =
        (0..first.shard.count).filter(|i| !seen.contains_key(i)).map(|i| i.to_string()).collect();
    if !missing.is_empty() {
        return Err(ErrorInfo::new(
            ErrorCode::InvalidParams,
            format!(
                "`{}` has {} shards and these are missing: {}",
                first.base_id(),
                first.shard.count,
                missing.join(", ")
            ),
        ));
    }
    Ok(first.base_id().to_string())
}

/// Merges the shards into `out` as one finished tournament and returns its summary.
pub fn merge(
    registry: &Registry,
    shards: Vec<ShardRecords>,
    out: &Store,
) -> Result<Summary, ErrorInfo> {
    let Some(first) = shards.first() else {
        return Err(ErrorInfo::new(ErrorCode::InvalidParams, "no shards to merge"));
    };
    let spec = TournamentSpec { shard: None, ..first.spec.clone() };
    // The shards were checked against the limits when they started.
    let whole = Tournament::prepare(registry, first.base_id().to_string(), spec, u64::MAX)?;
    let id = check(&shards, &whole.schedule)?;
    if out.get(&id)?.is_some() {
        return Err(ErrorInfo::new(
            ErrorCode::Conflict,
            format!("the output records already hold tournament `{id}`: it was merged before"),
        ));
    }
    let mut rows: Vec<GameRow> = shards.into_iter().flat_map(|s| s.rows).collect();
    rows.sort_by_key(|r| r.index);
    let finished =
        rows.iter().map(|r| finished_game(&whole, r)).collect::<Result<Vec<_>, ErrorInfo>>()?;
    let summary = runner::summary(&whole, &finished, "finished");
    let spec_json = serde_json::to_value(&whole.spec).expect("specs serialize");
    let result = serde_json::to_value(&summary).expect("summaries serialize");
    out.import(&id, &spec_json, whole.schedule.total(), &rows, &result)?;
    Ok(summary)
}

fn finished_game(t: &Tournament, row: &GameRow) -> Result<Finished, ErrorInfo> {
    if row.index >= t.schedule.total() {
        return Err(ErrorInfo::new(
            ErrorCode::Conflict,
            format!("game {} is not in the schedule of `{}`", row.index, t.id),
        ));
    }
    let slot = t.schedule.slot(row.index);
    let failures: Vec<FailureCounts> =
        serde_json::from_value(row.failures.clone()).unwrap_or_default();
    Ok(Finished { slot, scores: row.scores.clone(), failures })
}
