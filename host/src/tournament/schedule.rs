//! The tournament's spec and its deterministic schedule of games.
//!
//! A *pairing* is a set of bots that meet (two for a two-seat game, n for an n-seat game). Each
//! pairing plays `games_per_pair` games: deal after deal, every deal played once in every seat
//! order (duplicate games: the same cards or start with the seats rotated, to take luck out).
//! The schedule is a pure function of the spec, so a resumed tournament knows exactly which games
//! are missing.
//!
//! With `repeat` (cutechess-cli's and fastchess's `-repeat`), the two games of a deal are also
//! next to each other in the schedule and recorded as a *pair*: game `2k` and `2k + 1` are pair
//! `k`, one deal with the seats swapped, so shards never split one and the standings count the
//! pair's five outcomes (the pentanomial model of [`super::stats`]).
use std::ops::Range;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use yomi_plugin::rng::derive_seed;
use yomi_protocol::ops::tournaments::Shard;
use yomi_protocol::{ErrorCode, ErrorInfo, Options};

use super::openings::Openings;
use super::rating::SprtSpec;
use super::shard::Block;
use crate::matches::policy::Policy;
use crate::matches::seat::BotSeat;
use crate::runtime::costs::exceeded;

/// Most games run at once.
pub const MAX_CONCURRENCY: usize = 64;

/// Who meets whom.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// Every set of bots of the seat count meets.
    RoundRobin,
    /// The first bot meets every set of the others.
    Gauntlet,
}

/// A tournament as requested (stored as JSON with the tournament).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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
    /// Play each deal twice in a row with the seats swapped and record the two games as a pair
    /// (two-seat games, an even number of games per pairing).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub repeat: bool,
    /// Stop early when the SPRT decides (two bots only).
    #[serde(default)]
    pub sprt: Option<SprtSpec>,
    /// Keep every game's transcript in the records: off unless a request asks (a transcript can
    /// be megabytes a game); the command line keeps them unless `--no-transcripts`.
    #[serde(default)]
    pub keep_transcripts: bool,
    /// Ask every bot to explain each decision and keep the explanations in the transcripts, for
    /// the replay viewer (with `keep_transcripts`; explaining costs the bots time).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub explain: bool,
    /// The opening suite: deal `d` of every pairing starts from opening `d mod len`. A request
    /// names a suite of the server's `openings/` directory or one shipped with yomi; the
    /// records keep the suite itself, read when the tournament started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub openings: Option<Openings>,
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
    /// The game pair it belongs to (`index / 2`) when the tournament plays pairs.
    pub pair: Option<u64>,
    /// The opening it starts from (its place in the suite), when the tournament has openings.
    pub opening: Option<u64>,
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
        if self.repeat && !self.games_per_pair.is_multiple_of(2) {
            return bad(format!(
                "with repeat every deal is played twice, so games per pairing must be even, not {}",
                self.games_per_pair
            ));
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

    /// What makes two specs the same tournament: everything but the shard and the concurrency,
    /// neither of which changes a game.
    pub fn identity(&self) -> TournamentSpec {
        TournamentSpec { shard: None, concurrency: 1, ..self.clone() }
    }

    /// A tournament id every shard computes alike from the spec alone, for sharded runs given no
    /// `--id`: `t-` and the first 12 hex digits of the SHA-256 of the spec's identity.
    pub fn derived_id(&self) -> String {
        let json = serde_json::to_string(&self.identity()).expect("specs serialize");
        let digest = Sha256::digest(json.as_bytes());
        let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
        format!("t-{hex}")
    }

    /// The schedule, after checking it has at most `max_games` games: counted first, so a spec
    /// of billions of games is refused before anything is built; then computed game by game
    /// ([`Schedule::slot`]), so even an allowed ten-million-game schedule takes no memory.
    pub fn schedule(&self, seats: usize, max_games: u64) -> Result<Schedule, ErrorInfo> {
        let pairings = match self.format {
            Format::RoundRobin => binomial(self.bots.len() as u64, seats as u64),
            Format::Gauntlet => binomial(
                (self.bots.len() as u64).saturating_sub(1),
                (seats as u64).saturating_sub(1),
            ),
        };
        let total = pairings.and_then(|p| p.checked_mul(self.games_per_pair as u64));
        match total {
            Some(total) if total <= max_games && total <= MAX_SCHEDULED => {}
            _ => {
                let count = pairings.map_or("too many".to_string(), |p| p.to_string());
                let what = format!(
                    "a tournament of {count} pairings × {} games per pairing",
                    self.games_per_pair
                );
                return Err(exceeded(what, max_games.min(MAX_SCHEDULED), "--max-games"));
            }
        }
        let orders = factorial(seats as u64).filter(|_| seats <= MAX_SEATS).ok_or_else(|| {
            ErrorInfo::new(
                ErrorCode::InvalidParams,
                format!("at most {MAX_SEATS} seats, not {seats}"),
            )
        })?;
        if self.repeat && seats != 2 {
            return Err(ErrorInfo::new(
                ErrorCode::InvalidParams,
                format!(
                    "repeat pairs the two seat orders of a two-seat game; {seats}-seat games \
                     already play every deal in all {orders} seat orders"
                ),
            ));
        }
        Ok(Schedule {
            pairings: self.pairings(seats),
            orders,
            games_per_pair: self.games_per_pair as u64,
            seed: self.seed,
            paired: self.repeat,
            openings: match &self.openings {
                Some(openings) => openings.suite()?.openings.len() as u64,
                None => 0,
            },
        })
    }
}

/// Most games any schedule holds, whatever the limits: game indices stay far from overflow and
/// the pairings listed in the standings stay few enough to print.
pub const MAX_SCHEDULED: u64 = 1 << 40;

/// Most seats of a game a schedule rotates (20! seat orders still fit in 64 bits).
const MAX_SEATS: usize = 20;

/// A tournament's schedule: every game's pairing, seat order, deal and seed, computed from its
/// place in the schedule alone.
#[derive(Debug, Clone)]
pub struct Schedule {
    /// Every pairing, in the order [`TournamentSpec::pairings`] gives.
    pairings: Vec<Vec<usize>>,
    /// Seat orders of one pairing (seats!).
    orders: u64,
    games_per_pair: u64,
    seed: u64,
    /// Games `2k` and `2k + 1` are one deal's pair.
    paired: bool,
    /// Openings in the suite; 0 without one.
    openings: u64,
}

impl Schedule {
    /// Whether the games are played and recorded in pairs.
    pub fn paired(&self) -> bool {
        self.paired
    }

    /// The schedule positions shard `shard` plays: whole pairs when the games are paired.
    pub fn block(&self, shard: &Shard) -> Range<u64> {
        let unit = if self.paired { 2 } else { 1 };
        let block = shard.range(self.total() / unit);
        block.start * unit..block.end * unit
    }

    /// Games in the schedule.
    pub fn total(&self) -> u64 {
        self.pairings.len() as u64 * self.games_per_pair
    }

    /// Game `index` (below [`Schedule::len`]). Pairings are interleaved, so a partial run (or an
    /// SPRT stop) has a spread of every pairing; each pairing plays deal after deal, every deal
    /// once in every seat order, the seat orders in lexicographic order.
    ///
    /// Paired, the pairs are interleaved instead: pair `k` is deal `k / pairings` of pairing
    /// `k % pairings`, its first game in the pairing's seat order and its second swapped.
    ///
    /// With openings, deal `d` starts from opening `d mod len`, the same in every pairing (as an
    /// opening book is played in chess): every seat order of a deal, both games of a pair, share it.
    pub fn slot(&self, index: u64) -> Slot {
        let pairing_count = self.pairings.len() as u64;
        let (deal, pairing, order, pair) = if self.paired {
            let pair = index / 2;
            (pair / pairing_count, pair % pairing_count, index % 2, Some(pair))
        } else {
            let (game, pairing) = (index / pairing_count, index % pairing_count);
            (game / self.orders, pairing, game % self.orders, None)
        };
        let pairing = pairing as usize;
        let seats = nth_permutation(&self.pairings[pairing], order);
        let seed = derive_seed(derive_seed(self.seed, pairing as u64), deal);
        let opening = (self.openings > 0).then(|| deal % self.openings);
        Slot { index, pairing, seats, deal: deal as u32, seed, pair, opening }
    }
}

/// n choose k, `None` when it does not fit in 64 bits.
fn binomial(n: u64, k: u64) -> Option<u64> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k);
    // Each partial product is itself a binomial coefficient, so the division is exact.
    (0..k).try_fold(1u64, |acc, i| Some(acc.checked_mul(n - i)? / (i + 1)))
}

fn factorial(n: u64) -> Option<u64> {
    (1..=n).try_fold(1u64, |acc, i| acc.checked_mul(i))
}

/// The `rank`-th ordering of `items` (rank below items.len()!) in lexicographic order of the
/// positions: rank 0 is `items` as given.
fn nth_permutation(items: &[usize], mut rank: u64) -> Vec<usize> {
    let mut rest = items.to_vec();
    let mut out = Vec::with_capacity(items.len());
    for left in (1..=items.len() as u64).rev() {
        let block = factorial(left - 1).expect("seat counts are bounded");
        out.push(rest.remove((rank / block) as usize));
        rank %= block;
    }
    out
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
            repeat: false,
            sprt: None,
            keep_transcripts: true,
            explain: false,
            openings: None,
            shard: None,
        }
    }

    /// The whole schedule, listed.
    fn listed(spec: &TournamentSpec, seats: usize) -> Vec<Slot> {
        let schedule = spec.schedule(seats, u64::MAX).expect("within the limit");
        (0..schedule.total()).map(|index| schedule.slot(index)).collect()
    }

    /// Every ordering of `items` by recursion, the obvious way: what the unranking must match.
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

    #[test]
    fn unranked_orders_are_the_recursive_listing() {
        for items in [vec![4], vec![3, 9], vec![0, 1, 2], vec![5, 2, 7, 1, 8]] {
            let all = permutations(&items);
            let ranked: Vec<Vec<usize>> =
                (0..all.len() as u64).map(|r| nth_permutation(&items, r)).collect();
            assert_eq!(ranked, all);
        }
    }

    #[test]
    fn counts_match_the_listings() {
        for (n, k) in [(5, 2), (6, 3), (7, 7), (4, 5), (30, 6)] {
            let listed = if n <= 7 { combinations(n, k).len() as u64 } else { 593_775 };
            assert_eq!(binomial(n as u64, k as u64), Some(listed), "{n} choose {k}");
        }
        assert_eq!(binomial(200, 100), None, "too big for 64 bits");
        assert_eq!(factorial(20), Some(2_432_902_008_176_640_000));
        assert_eq!(factorial(21), None);
    }

    #[test]
    fn schedules_over_the_limit_are_refused_before_they_are_built() {
        let huge = spec(30, u32::MAX, Format::RoundRobin);
        let error = huge.schedule(6, 1_000_000).unwrap_err();
        assert_eq!(error.code, ErrorCode::LimitExceeded);
        assert!(error.message.contains("593775 pairings"), "{}", error.message);
        assert!(spec(3, 5, Format::Gauntlet).schedule(2, 10).is_ok(), "2 pairings × 5 games");
        assert!(spec(3, 6, Format::Gauntlet).schedule(2, 10).is_err());
        // A billion games fit the operator's reach and cost nothing until played.
        let big = spec(2, 1_000_000_000, Format::RoundRobin).schedule(2, u64::MAX).unwrap();
        assert_eq!(big.total(), 1_000_000_000);
        assert_eq!(big.slot(999_999_999).seats, vec![1, 0]);
    }

    #[test]
    fn round_robin_rotates_seats_on_shared_deals() {
        let s = listed(&spec(3, 4, Format::RoundRobin), 2);
        assert_eq!(s.len(), 3 * 4);
        let pair0: Vec<&Slot> = s.iter().filter(|x| x.pairing == 0).collect();
        assert_eq!(pair0[0].seats, vec![0, 1]);
        assert_eq!(pair0[1].seats, vec![1, 0]);
        assert_eq!(pair0[0].seed, pair0[1].seed, "both seat orders of a deal share it");
        assert_ne!(pair0[0].seed, pair0[2].seed);
        assert!(s.iter().enumerate().all(|(i, x)| x.index == i as u64));
    }

    #[test]
    fn repeated_deals_are_adjacent_pairs_with_the_seats_swapped() {
        let mut paired = spec(3, 4, Format::RoundRobin);
        paired.repeat = true;
        let s = listed(&paired, 2);
        assert_eq!(s.len(), 3 * 4);
        for two in s.chunks(2) {
            assert_eq!(two[0].pair, Some(two[0].index / 2));
            assert_eq!(two[0].pair, two[1].pair);
            assert_eq!((two[0].pairing, two[0].seed), (two[1].pairing, two[1].seed));
            assert_eq!(two[0].seats, two[1].seats.iter().rev().copied().collect::<Vec<_>>());
        }
        // The same deals and seat orders as the unpaired schedule, in another order.
        let key = |x: &Slot| (x.pairing, x.seats.clone(), x.seed);
        let mut a: Vec<_> = s.iter().map(key).collect();
        let mut b: Vec<_> = listed(&spec(3, 4, Format::RoundRobin), 2).iter().map(key).collect();
        a.sort();
        b.sort();
        assert_eq!(a, b);
        // Shards hold whole pairs, even where the game count would split one.
        let schedule = paired.schedule(2, u64::MAX).unwrap();
        for count in 1..=7 {
            for index in 0..count {
                let block = schedule.block(&Shard { index, count });
                assert!(block.start.is_multiple_of(2) && block.end.is_multiple_of(2), "{block:?}");
            }
        }
        paired.games_per_pair = 3;
        assert!(paired.check().is_err(), "an odd game count cannot be paired");
        paired.games_per_pair = 6;
        assert!(paired.schedule(3, u64::MAX).is_err(), "three seats have no swap");
    }

    #[test]
    fn every_seat_order_of_a_deal_starts_from_its_opening() {
        use super::super::openings::Suite;
        let suite = Suite::parse("s", "{\"a\": 0}\n{\"a\": 1}\n{\"a\": 2}\n").unwrap();
        let mut paired = spec(3, 8, Format::RoundRobin);
        paired.repeat = true;
        paired.openings = Some(Openings::Read(suite.clone()));
        for two in listed(&paired, 2).chunks(2) {
            assert_eq!(two[0].opening, two[1].opening, "a pair shares its opening");
            assert_eq!(two[0].opening, Some(u64::from(two[0].deal) % 3));
        }
        let mut three = spec(3, 12, Format::RoundRobin);
        three.openings = Some(Openings::Read(suite));
        let s = listed(&three, 3);
        assert!(s.iter().all(|x| x.opening == Some(u64::from(x.deal) % 3)));
        assert_eq!(s.iter().filter(|x| x.opening == Some(1)).count(), 6, "deal 1's six orders");
        three.openings = Some(Openings::Named("s".into()));
        assert!(three.schedule(3, u64::MAX).is_err(), "a suite is read before it is scheduled");
        assert!(listed(&spec(2, 2, Format::RoundRobin), 2).iter().all(|x| x.opening.is_none()));
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
        let s = listed(&spec(3, 6, Format::RoundRobin), 3);
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

    #[test]
    fn every_shard_derives_the_same_id_and_other_tournaments_another() {
        let spec = |extra: serde_json::Value| {
            let mut v = serde_json::json!({"game": "rps", "bots": [{"bot": "a"}, {"bot": "b"}], "games_per_pair": 4});
            v.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            serde_json::from_value::<TournamentSpec>(v).unwrap()
        };
        let whole = spec(serde_json::json!({})).derived_id();
        let shard = spec(serde_json::json!({"shard": {"index": 3, "count": 4}, "concurrency": 8}))
            .derived_id();
        assert_eq!(whole, shard);
        assert_ne!(whole, spec(serde_json::json!({"seed": 1})).derived_id());
    }
}
