//! The tournament's spec and its deterministic schedule of games.
//!
//! A *pairing* is a set of bots that meet (two for a two-seat game, n for an n-seat game). Each
//! pairing plays `games_per_pair` games: deal after deal, every deal played once in every seat
//! order (duplicate games: the same cards or start with the seats rotated, to take luck out).
//! The schedule is a pure function of the spec, so a resumed tournament knows exactly which games
//! are missing.

use serde::{Deserialize, Serialize};
use yomi_plugin::rng::derive_seed;
use yomi_protocol::{ErrorCode, ErrorInfo, Options};

use super::rating::SprtSpec;
use super::shard::Shard;
use crate::matches::policy::Policy;
use crate::matches::seat::BotSeat;

/// Most games run at once.
pub const MAX_CONCURRENCY: usize = 64;

/// Who meets whom.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// Every set of bots of the seat count meets.
    RoundRobin,
    /// The first bot meets every set of the others.
    Gauntlet,
}

/// A tournament as requested (stored as JSON with the tournament).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TournamentSpec {
    pub game: String,
    #[serde(default)]
    pub game_options: Options,
    pub bots: Vec<BotSeat>,
    #[serde(default = "round_robin")]
    pub format: Format,
    /// Seats per game; the game's smallest seat count by default.
    #[serde(default)]
    pub seats: Option<usize>,
    pub games_per_pair: u32,
    #[serde(default)]
    pub seed: u64,
    #[serde(default = "one")]
    pub concurrency: usize,
    #[serde(default)]
    pub policy: Policy,
    /// Stop early when the SPRT decides (two bots only).
    #[serde(default)]
    pub sprt: Option<SprtSpec>,
    /// Keep every game's transcript in the records (on by default).
    #[serde(default = "yes")]
    pub keep_transcripts: bool,
    /// Play only this shard's block of the schedule (see [`super::shard`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
}

fn round_robin() -> Format {
    Format::RoundRobin
}
fn one() -> usize {
    1
}
fn yes() -> bool {
    true
}

/// One scheduled game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    /// Position in the schedule: the game's key in the records.
    pub index: u64,
    pub pairing: usize,
    /// Bot index (into the spec's bots) per seat.
    pub seats: Vec<usize>,
    /// Which deal of the pairing this is; every seat order of a deal shares its seed.
    pub deal: u32,
    pub seed: u64,
}

impl TournamentSpec {
    /// Checks what can be checked without the plugins.
    pub fn check(&self) -> Result<(), ErrorInfo> {
        let bad = |m: String| Err(ErrorInfo::new(ErrorCode::InvalidParams, m));
        if self.games_per_pair == 0 {
            return bad("games per pairing must be at least 1".into());
        }
        if self.concurrency == 0 || self.concurrency > MAX_CONCURRENCY {
            return bad(format!(
                "concurrency must be 1 to {MAX_CONCURRENCY}, not {}",
                self.concurrency
            ));
        }
        if self.bots.len() < 2 {
            return bad("a tournament needs at least two bots".into());
        }
        if let Some(sprt) = &self.sprt {
            if self.bots.len() != 2 {
                return bad("the SPRT compares exactly two bots".into());
            }
            sprt.check().map_err(|m| ErrorInfo::new(ErrorCode::InvalidParams, m))?;
            if self.shard.is_some() {
                // Each shard would stop on its own evidence: the shards would no longer compose.
                return bad(
                    "the SPRT stops a tournament as a whole; it cannot run in shards".into()
                );
            }
        }
        if let Some(shard) = &self.shard {
            shard.check()?;
        }
        Ok(())
    }

    /// Every pairing: sets of `seats` bot indices.
    pub fn pairings(&self, seats: usize) -> Vec<Vec<usize>> {
        let all = combinations(self.bots.len(), seats);
        match self.format {
            Format::RoundRobin => all,
            Format::Gauntlet => all.into_iter().filter(|c| c.contains(&0)).collect(),
        }
    }

    /// The whole schedule, in the order games are started.
    pub fn schedule(&self, seats: usize) -> Vec<Slot> {
        let mut slots = Vec::new();
        let pairings = self.pairings(seats);
        let per_pair = self.games_per_pair as usize;
        // Interleave pairings so a partial run (or an SPRT stop) has a spread of every pairing.
        for game in 0..per_pair {
            for (p, bots) in pairings.iter().enumerate() {
                let orders = permutations(bots);
                let deal = (game / orders.len()) as u32;
                let order = &orders[game % orders.len()];
                let seed = derive_seed(derive_seed(self.seed, p as u64), deal as u64);
                slots.push(Slot {
                    index: slots.len() as u64,
                    pairing: p,
                    seats: order.clone(),
                    deal,
                    seed,
                });
            }
        }
        slots
    }
}

/// All k-subsets of 0..n in lexicographic order.
fn combinations(n: usize, k: usize) -> Vec<Vec<usize>> {
    fn go(start: usize, n: usize, k: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for i in start..n {
            cur.push(i);
            go(i + 1, n, k, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    if k <= n {
        go(0, n, k, &mut Vec::new(), &mut out);
    }
    out
}

/// Every ordering of `items`, starting with the given order.
fn permutations(items: &[usize]) -> Vec<Vec<usize>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut tail in permutations(&rest) {
            tail.insert(0, first);
            out.push(tail);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(bots: usize, games: u32, format: Format) -> TournamentSpec {
        TournamentSpec {
            game: "rps".into(),
            game_options: Options::new(),
            bots: (0..bots).map(|i| BotSeat::parse(&format!("b{i}")).unwrap()).collect(),
            format,
            seats: None,
            games_per_pair: games,
            seed: 7,
            concurrency: 1,
            policy: Policy::default(),
            sprt: None,
            keep_transcripts: true,
            shard: None,
        }
    }

    #[test]
    fn round_robin_rotates_seats_on_shared_deals() {
        let s = spec(3, 4, Format::RoundRobin).schedule(2);
        assert_eq!(s.len(), 3 * 4);
        let pair0: Vec<&Slot> = s.iter().filter(|x| x.pairing == 0).collect();
        assert_eq!(pair0[0].seats, vec![0, 1]);
        assert_eq!(pair0[1].seats, vec![1, 0]);
        assert_eq!(pair0[0].seed, pair0[1].seed, "both seat orders of a deal share it");
        assert_ne!(pair0[0].seed, pair0[2].seed);
        assert!(s.iter().enumerate().all(|(i, x)| x.index == i as u64));
    }

    #[test]
    fn gauntlet_always_includes_the_first_bot() {
        let s = spec(4, 2, Format::Gauntlet);
        assert_eq!(s.pairings(2), vec![vec![0, 1], vec![0, 2], vec![0, 3]]);
        assert_eq!(s.pairings(3).len(), 3);
        assert_eq!(spec(4, 1, Format::RoundRobin).pairings(3).len(), 4);
    }

    #[test]
    fn three_seat_games_cycle_all_six_orders() {
        let s = spec(3, 6, Format::RoundRobin).schedule(3);
        let mut orders: Vec<Vec<usize>> = s.iter().map(|x| x.seats.clone()).collect();
        orders.sort();
        orders.dedup();
        assert_eq!(orders.len(), 6);
        assert!(s.iter().all(|x| x.deal == 0));
    }

    #[test]
    fn bad_specs_are_refused() {
        assert!(spec(2, 0, Format::RoundRobin).check().is_err());
        let mut s = spec(2, 1, Format::RoundRobin);
        s.concurrency = MAX_CONCURRENCY + 1;
        assert!(s.check().is_err());
        assert!(spec(1, 1, Format::RoundRobin).check().is_err());
    }
}
