//! Sharded tournaments: shard `I` of `N` plays one contiguous block of the schedule, so `N`
//! processes on `N` machines (a Kubernetes Indexed Job, a Slurm job array) play one tournament
//! between them. Every game's seed depends only on the tournament seed and the game's place in
//! the schedule, so the shards' records merge into exactly the records one process would write.

use std::ops::Range;

use yomi_protocol::ops::tournaments::Shard;
use yomi_protocol::{ErrorCode, ErrorInfo};

/// Most shards one tournament can be split into.
pub const MAX_SHARDS: u32 = 100_000;

/// Parses shard `I/N`, or `I` with the count given apart (`--shard $SLURM_ARRAY_TASK_ID
/// --shards 4`); shards are counted from 0, as `$JOB_COMPLETION_INDEX` is.
pub fn parse(text: &str, count: Option<u32>) -> Result<Shard, ErrorInfo> {
    let bad = |m: String| ErrorInfo::new(ErrorCode::InvalidParams, m);
    let number = |s: &str, what: &str| {
        s.trim()
            .parse::<u32>()
            .map_err(|_| bad(format!("{what} `{s}` in --shard `{text}` is not a whole number")))
    };
    let shard = match (text.split_once('/'), count) {
        (Some((i, n)), None) => Shard { index: number(i, "shard")?, count: number(n, "count")? },
        (Some(_), Some(_)) => {
            return Err(bad(format!("--shard `{text}` already names the count; drop --shards")))
        }
        (None, Some(n)) => Shard { index: number(text, "shard")?, count: n },
        (None, None) => {
            return Err(bad(format!("--shard `{text}` needs a count: I/N or --shards N")))
        }
    };
    shard.check()?;
    Ok(shard)
}

/// What the host makes of a shard (the protocol's [`Shard`], which a spec and a summary carry
/// as it is): its block of the schedule and its id in the records.
pub trait Block {
    /// Checks `index < count <= MAX_SHARDS`.
    fn check(&self) -> Result<(), ErrorInfo>;
    /// The schedule positions this shard plays: the `index`-th of `count` contiguous blocks
    /// whose sizes differ by at most one game.
    fn range(&self, total: u64) -> Range<u64>;
    /// The shard's own tournament id in its records: `BASE-shard-I-of-N`.
    fn tournament_id(&self, base: &str) -> String;
    /// The id of the whole tournament, from a shard's id (`None` if `id` is not this shard's).
    fn base_id<'a>(&self, id: &'a str) -> Option<&'a str>;
}

impl Block for Shard {
    fn check(&self) -> Result<(), ErrorInfo> {
        if self.count == 0 || self.count > MAX_SHARDS || self.index >= self.count {
            return Err(ErrorInfo::new(
                ErrorCode::InvalidParams,
                format!(
                    "shard {} of {} does not exist: shards are numbered 0 to N-1, with 1 <= N <= {MAX_SHARDS}",
                    self.index, self.count
                ),
            ));
        }
        Ok(())
    }

    fn range(&self, total: u64) -> Range<u64> {
        let bound = |i: u32| total * i as u64 / self.count as u64;
        bound(self.index)..bound(self.index + 1)
    }

    fn tournament_id(&self, base: &str) -> String {
        format!("{base}-shard-{}-of-{}", self.index, self.count)
    }

    fn base_id<'a>(&self, id: &'a str) -> Option<&'a str> {
        id.strip_suffix(&format!("-shard-{}-of-{}", self.index, self.count))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_parse_and_bad_ones_are_refused() {
        assert_eq!(parse("2/4", None).unwrap(), Shard { index: 2, count: 4 });
        assert_eq!(parse("3", Some(4)).unwrap(), Shard { index: 3, count: 4 });
        for (text, count) in
            [("4/4", None), ("1", None), ("1/2", Some(2)), ("x/2", None), ("0/0", None)]
        {
            assert!(parse(text, count).is_err(), "{text} {count:?}");
        }
    }

    #[test]
    fn shards_cover_the_schedule_once_in_order() {
        for total in [0u64, 1, 5, 12, 1001] {
            for count in [1u32, 2, 3, 4, 7, 16] {
                let ranges: Vec<Range<u64>> =
                    (0..count).map(|index| Shard { index, count }.range(total)).collect();
                assert_eq!(ranges[0].start, 0);
                assert_eq!(ranges.last().unwrap().end, total);
                for pair in ranges.windows(2) {
                    assert_eq!(pair[0].end, pair[1].start, "contiguous, no overlap");
                }
                let sizes: Vec<u64> = ranges.iter().map(|r| r.end - r.start).collect();
                let (min, max) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
                assert!(max - min <= 1, "{total} games in {count} shards: {sizes:?}");
            }
        }
    }

    #[test]
    fn shard_ids_round_trip() {
        let shard = Shard { index: 1, count: 4 };
        let id = shard.tournament_id("t-abc");
        assert_eq!(id, "t-abc-shard-1-of-4");
        assert_eq!(shard.base_id(&id), Some("t-abc"));
        assert_eq!(Shard { index: 2, count: 4 }.base_id(&id), None);
    }
}
