//! The exact solution of the whole game by backward induction (paper §5.2): every position's value
//! (party 1's probability of winning plus half its probability of a draw under equilibrium play),
//! layer by layer from the turn limit down to turn 1, each layer split across the cores. Most of
//! an early turn's values equal the next turn's, so a layer solves again only the HP vectors
//! whose successors changed ([`changes`]) and copies the rest.
//!
//! The table is one `f32` per (HPs, actives) per turn layer, with a mixed radix of each Pokémon's
//! own maximum HP + 1, so the paper's parties take 19 × 291,600 × 4 B ≈ 22 MB. A faint replacement
//! is folded into the table (spec R1): the entry of a position with a fainted active holds the
//! replacing side's best candidate, so it is never a decision state and the previous turn reads
//! every outcome with one look-up.
//!
//! [`block`] solves one HP vector's nine positions together; [`changes`] names the HP vectors a
//! layer must solve again. Both read the [`Table`] they work for from here (`super::Table`).

use std::time::Instant;

use yomi_plugin::{ErrorCode, ErrorInfo};

mod block;
mod changes;

use crate::engine::{Action, Engine, State, Status};
use crate::lp::Matrix;
use crate::memo::{EstimateKey, Memo};
use crate::rules::{MAX_HP, MAX_TURN_LIMIT};
use block::Outcomes;

/// Runs of blocks per worker in a layer: enough that a worker which drew cheap blocks takes more.
const CHUNKS_PER_THREAD: usize = 16;

/// Most values a table may hold: the largest table checked rules allow.
pub const MAX_VALUES: usize = (MAX_TURN_LIMIT as usize - 1) * 9 * (MAX_HP as usize + 1).pow(6);

/// The solved game.
pub struct Table {
    pub engine: Engine,
    radix: [usize; 6],
    /// `stride[k]`: how far one HP point of Pokémon k moves the index (actives are the last digits).
    stride: [usize; 6],
    layer_len: usize,
    /// Each block's HP vector, counted once: decoding a block index takes six integer
    /// divisions, about 2.5 % of a solve when done for every block solved.
    block_hp: Vec<[u8; 6]>,
    /// Where each outcome of a turn lies in the next layer ([`block::outcome_offsets`]).
    outcome_offsets: Vec<[u32; 16]>,
    /// `layers[t - 1]` holds turn t's values, t in 1..turn_limit. An entry that is not a
    /// decision state holds what a turn ending there leads to ([`block::fold_into`]);
    /// both actives fainted (never reached) is NaN.
    layers: Vec<Vec<f32>>,
    /// Decision states solved (an LP each, unless every entry of its block is equal); the
    /// rest were copied from the next turn.
    pub solved: u64,
    pub seconds: f64,
    /// δ-Nash policy estimates at this table's positions, shared by every agent on its rules
    /// ([`crate::memo`]).
    pub estimates: Memo<EstimateKey>,
}

impl Table {
    /// The table's shape for `engine`'s rules, with no layer computed yet.
    fn layout(engine: Engine) -> Table {
        let mut radix = [0usize; 6];
        for (i, r) in radix.iter_mut().enumerate() {
            *r = engine.rules.pokemon(i).hp as usize + 1;
        }
        let mut stride = [0usize; 6];
        let mut step = 9;
        for k in (0..6).rev() {
            stride[k] = step;
            step *= radix[k];
        }
        let count = engine.turn_limit() as usize - 1;
        let mut hp = [0u8; 6];
        let block_hp = (0..step / 9)
            .map(|_| {
                let this = hp;
                // The next block's HPs: the last Pokémon is the lowest digit.
                for k in (0..6).rev() {
                    hp[k] += 1;
                    if (hp[k] as usize) < radix[k] {
                        break;
                    }
                    hp[k] = 0;
                }
                this
            })
            .collect();
        Table {
            outcome_offsets: block::outcome_offsets(&engine, &stride),
            engine,
            radix,
            stride,
            layer_len: step,
            block_hp,
            layers: vec![Vec::new(); count],
            solved: 0,
            seconds: 0.0,
            estimates: Memo::default(),
        }
    }

    /// Solves every position with `threads` worker threads per layer. The last two layers are
    /// solved whole; every earlier one starts as a copy of the next and solves again only the
    /// HP vectors [`changes::dirty_blocks`] names (bit for bit what a whole solve gives), from
    /// the blocks the layer after it changed.
    pub fn solve(engine: Engine, threads: usize) -> Table {
        let start = Instant::now();
        let mut table = Table::layout(engine);
        let (count, layer_len) = (table.layers.len(), table.layer_len);
        let judged = table.judged();
        // Blocks of the layer solved last that differ from the one after it (none yet).
        let mut changed: Option<Vec<u32>> = None;
        for t in (1..=count).rev() {
            let next = table.layers.get(t).map_or(judged.as_slice(), Vec::as_slice);
            let (todo, copy): (Vec<u32>, _) = match changed.take().filter(|_| t + 1 < count) {
                Some(changed) => (changes::dirty_blocks(&table, &changed), true),
                None => ((0..(layer_len / 9) as u32).collect(), false),
            };
            // Zeroed pages are mapped as the workers first write them, so the copy of the
            // next layer and the page faults are shared between the cores.
            let mut out = vec![0.0; layer_len];
            let (solved, differ) =
                table.solve_blocks(t as u8, &todo, next, copy, &mut out, threads);
            table.solved += solved;
            table.layers[t - 1] = out;
            changed = Some(differ);
        }
        table.seconds = start.elapsed().as_secs_f64();
        table
    }

    /// Solves the HP vectors `todo` (ascending block indices) of turn `t` into `out` on
    /// `threads` workers, and returns the decision states solved and the blocks (ascending)
    /// whose values now differ from `next`'s, bit for bit: the next layer down solves again
    /// only their predecessors. Every entry of a block in `todo` is written; with `copy` the
    /// rest of `out` takes `next`'s values, each worker copying the runs it takes. Blocks differ
    /// in cost (one with fainted Pokémon has fewer positions and those sit at low indices), so
    /// the work is cut into [`CHUNKS_PER_THREAD`] runs per worker handed out in turn, rather
    /// than one even share each.
    fn solve_blocks(
        &self,
        t: u8,
        todo: &[u32],
        next: &[f32],
        copy: bool,
        out: &mut [f32],
        threads: usize,
    ) -> (u64, Vec<u32>) {
        let threads = threads.max(1);
        let per = todo.len().div_ceil(threads * CHUNKS_PER_THREAD).max(1);
        let parts: Vec<&[u32]> = todo.chunks(per).collect();
        if parts.is_empty() && copy {
            out.copy_from_slice(next);
        }
        let mut jobs = Vec::with_capacity(parts.len());
        let (mut rest, mut offset) = (out, 0);
        for (p, part) in parts.iter().enumerate() {
            let end = parts.get(p + 1).map_or(self.layer_len, |n| n[0] as usize * 9);
            let (mine, tail) = std::mem::take(&mut rest).split_at_mut(end - offset);
            jobs.push((p, *part, offset, mine));
            (rest, offset) = (tail, end);
        }
        let queue = std::sync::Mutex::new(jobs.into_iter());
        let (solved, mut done) = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads.min(parts.len()))
                .map(|_| {
                    scope.spawn(|| {
                        let (mut solved, mut done) = (0, Vec::new());
                        loop {
                            // Taken in its own statement: the lock is released before the work.
                            let job = queue.lock().expect("queue").next();
                            let Some((p, part, start, mine)) = job else { break };
                            if copy {
                                mine.copy_from_slice(&next[start..start + mine.len()]);
                            }
                            let mut differ = Vec::new();
                            for &b in part {
                                let at = b as usize * 9;
                                let h = State {
                                    hp: self.block_hp[b as usize],
                                    active: [0, 0],
                                    turn: t,
                                };
                                let block = &mut mine[at - start..at - start + 9];
                                solved += Outcomes::new(self, &h, next).solve_into(block);
                                if !changes::same_bits(block, &next[at..at + 9]) {
                                    differ.push(b);
                                }
                            }
                            done.push((p, differ));
                        }
                        (solved, done)
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().expect("solver worker")).fold(
                (0, Vec::new()),
                |(solved, mut done), (s, d)| {
                    done.extend(d);
                    (solved + s, done)
                },
            )
        });
        // Runs were taken in turn by whichever worker was free: back in block order.
        done.sort_unstable_by_key(|d: &(usize, Vec<u32>)| d.0);
        (solved, done.into_iter().flat_map(|d| d.1).collect())
    }

    /// Refuses (`limit_exceeded`) a table larger than checked rules can give (every HP at
    /// [`MAX_HP`], turn limit 40: 16.4 million values, 66 MB), before anything is allocated.
    pub fn check_size(engine: &Engine) -> Result<(), ErrorInfo> {
        let layers = engine.turn_limit().saturating_sub(1) as usize;
        let layer =
            (0..6).try_fold(9usize, |n, k| n.checked_mul(engine.rules.pokemon(k).hp as usize + 1));
        match layer.and_then(|l| l.checked_mul(layers)) {
            Some(values) if values <= MAX_VALUES => Ok(()),
            _ => Err(ErrorInfo::new(
                ErrorCode::LimitExceeded,
                format!(
                    "a table for these rules would hold more than {MAX_VALUES} values; HP at most \
                     {MAX_HP} and turn limit at most {MAX_TURN_LIMIT} keep it within"
                ),
            )),
        }
    }

    /// The number of layers and each layer's length the engine's rules give a table, worked out
    /// without laying the table out (a store load checks it before reading).
    pub fn shape(engine: Engine) -> (usize, usize) {
        let hps = (0..6).map(|k| engine.rules.pokemon(k).hp as usize + 1);
        (engine.turn_limit() as usize - 1, 9 * hps.product::<usize>())
    }

    /// A table from stored layers (see [`crate::store`]); None when their shape does not fit
    /// `engine`'s rules.
    pub fn from_layers(engine: Engine, layers: Vec<Vec<f32>>, solved: u64) -> Option<Table> {
        let mut table = Table::layout(engine);
        if layers.len() != table.layers.len() || layers.iter().any(|l| l.len() != table.layer_len) {
            return None;
        }
        table.layers = layers;
        table.solved = solved;
        Some(table)
    }

    /// Every turn's values, turn 1 first (for storage).
    pub fn layers(&self) -> &[Vec<f32>] {
        &self.layers
    }

    /// The values a turn ending at the limit leads to, laid out as a layer (one value per HP
    /// vector, the same for its nine entries): a wipe-out first, then the judge (more Pokémon
    /// standing, then more total HP, else a draw). The last turn's matrices read it as the
    /// other turns read the next layer.
    pub(crate) fn judged(&self) -> Vec<f32> {
        let mut out = vec![0.0; self.layer_len];
        for (b, block) in out.chunks_exact_mut(9).enumerate() {
            let s = State { hp: self.block_hp[b], active: [0, 0], turn: self.engine.turn_limit() };
            let Status::Over(v) = self.engine.status(&s) else {
                unreachable!("every state at the turn limit is over")
            };
            block.fill(v as f32);
        }
        out
    }

    /// Position of a state within its layer.
    #[inline]
    pub fn index(&self, s: &State) -> usize {
        let mut idx = s.active[0] as usize * 3 + s.active[1] as usize;
        for k in 0..6 {
            idx += s.hp[k] as usize * self.stride[k];
        }
        idx
    }

    /// The state at index `idx` of turn `turn`'s layer (tests; the solver reads each block's
    /// HPs from its list instead).
    #[cfg(test)]
    pub(crate) fn decode(&self, mut idx: usize, turn: u8) -> State {
        let active = [(idx / 3 % 3) as u8, (idx % 3) as u8];
        idx /= 9;
        let mut hp = [0u8; 6];
        for k in (0..6).rev() {
            hp[k] = (idx % self.radix[k]) as u8;
            idx /= self.radix[k];
        }
        State { hp, active, turn }
    }

    /// A state's value given a look-up for decision states: game over → score; a pending
    /// replacement → the replacing side's best candidate (max for party 1, min for party 2).
    fn folded(&self, s: &State, lookup: impl Fn(&State) -> f64) -> f64 {
        match self.engine.status(s) {
            Status::Over(v) => v,
            Status::Play => lookup(s),
            Status::Replace(side) => {
                let candidates = self.engine.replacements(s, side);
                let values = candidates.as_slice().iter().map(|a| {
                    let Action::Switch(k) = *a else { unreachable!("replacements are switches") };
                    lookup(&self.engine.replace(s, side, k))
                });
                if side == 0 {
                    values.fold(f64::NEG_INFINITY, f64::max)
                } else {
                    values.fold(f64::INFINITY, f64::min)
                }
            }
        }
    }

    /// The payoff matrix of a decision state, each entry the folded value of the next state.
    fn matrix_with(&self, s: &State, value: impl Fn(&State) -> f64) -> Matrix {
        let rows = self.engine.legal(s, 0);
        let cols = self.engine.legal(s, 1);
        let mut m = Matrix::new(rows.len(), cols.len());
        for (i, a) in rows.as_slice().iter().enumerate() {
            for (j, b) in cols.as_slice().iter().enumerate() {
                m.w[i][j] = value(&self.engine.resolve(s, [*a, *b]));
            }
        }
        m
    }

    /// The value of any state: party 1's win probability (+ half a draw) under equilibrium play.
    pub fn value(&self, s: &State) -> f64 {
        self.folded(s, |x| self.layers[x.turn as usize - 1][self.index(x)] as f64)
    }

    /// The true win-rate matrix of a decision state (rows: party 1's legal actions).
    pub fn matrix(&self, s: &State) -> Matrix {
        self.matrix_with(s, |n| self.value(n))
    }

    /// Each Pokémon's HP radix (its maximum HP + 1).
    pub(crate) fn radix(&self) -> [usize; 6] {
        self.radix
    }

    /// The HP vector of block `b` (entries `9 b..9 b + 9` of a layer).
    #[inline]
    pub(crate) fn block_hp(&self, b: usize) -> [u8; 6] {
        self.block_hp[b]
    }

    /// How far back in the next layer each of the 16 move pairs' outcomes lies when party 1's
    /// `slot0` at `hp0` HP faces party 2's `slot1` at `hp1` ([`block::outcome_offsets`]).
    #[inline]
    pub(crate) fn outcome_offsets(&self, slot0: u8, slot1: u8, hp0: u8, hp1: u8) -> &[u32; 16] {
        let r = MAX_HP as usize + 1;
        &self.outcome_offsets
            [((slot0 as usize * 3 + slot1 as usize) * r + hp0 as usize) * r + hp1 as usize]
    }

    /// HP vectors (9-entry blocks) per layer.
    pub(crate) fn blocks(&self) -> usize {
        self.layer_len / 9
    }

    /// How far one HP point of each Pokémon moves the 9-entry block index.
    pub(crate) fn block_strides(&self) -> [usize; 6] {
        self.stride.map(|s| s / 9)
    }

    /// Every stored entry, for the table's size.
    pub fn bytes(&self) -> usize {
        self.layers.len() * self.layer_len * std::mem::size_of::<f32>()
    }

    /// Entries in all layers, decision states or not (the paper's count includes unreachable ones).
    pub fn states(&self) -> usize {
        self.layers.len() * self.layer_len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    #[test]
    fn tables_beyond_what_checked_rules_allow_are_refused_before_allocating() {
        let mut parties = crate::rules::preset_parties("thesis").unwrap();
        parties.iter_mut().flatten().for_each(|p| p.hp = MAX_HP);
        let largest = Rules::new(parties.clone(), false, MAX_TURN_LIMIT).unwrap();
        assert!(Table::check_size(&Engine::new(largest)).is_ok());
        assert_eq!(Table::shape(Engine::new(Rules::preset("thesis").unwrap())), (19, 291_600));
        // Unchecked rules (as a client could once send them): refused, with no overflow.
        for (hp, limit) in [(255, 20), (6, 40), (5, 41), (255, 255)] {
            parties.iter_mut().flatten().for_each(|p| p.hp = hp);
            let rules =
                Rules { parties: parties.clone(), same_type_neutral: false, turn_limit: limit };
            let e = Table::check_size(&Engine::new(rules)).unwrap_err();
            assert_eq!(e.code, ErrorCode::LimitExceeded, "{hp} {limit}");
        }
    }

    #[test]
    fn the_fast_matrix_equals_the_general_one() {
        let rules = Rules::new(crate::rules::preset_parties("thesis").unwrap(), false, 6).unwrap();
        let table = Table::solve(Engine::new(rules), 2);
        let (mut checked, judged) = (0, table.judged());
        // Turn 5 is the last: its matrices read the judge's values.
        for t in 1..6u8 {
            let next = table.layers.get(t as usize).unwrap_or(&judged);
            for idx in (0..table.layer_len).step_by(7) {
                let s = table.decode(idx, t);
                if table.engine.status(&s) == Status::Play {
                    let block = Outcomes::new(&table, &s, next);
                    assert_eq!(block.matrix(s.active), table.matrix(&s), "{s:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 100_000);
    }

    /// Every entry of `table` that is not a decision state holds what the engine's own fold
    /// gives ([`Table::value`]), or NaN for both actives fainted; returns how many were checked.
    fn check_folded(table: &Table) -> usize {
        let mut folded = 0;
        for (t, layer) in table.layers.iter().enumerate() {
            for (idx, &x) in layer.iter().enumerate() {
                let s = table.decode(idx, t as u8 + 1);
                match table.engine.status(&s) {
                    Status::Play => continue,
                    _ if s.active_hp(0) == 0
                        && s.active_hp(1) == 0
                        && s.alive(0) > 0
                        && s.alive(1) > 0 =>
                    {
                        assert!(x.is_nan(), "{s:?}: {x}")
                    }
                    _ => assert_eq!(x, table.value(&s) as f32, "{s:?}"),
                }
                folded += 1;
            }
        }
        folded
    }

    #[test]
    fn entries_that_are_not_decision_states_hold_what_the_engine_folds_to() {
        let parties = crate::rules::preset_parties("thesis").unwrap();
        let table = Table::solve(Engine::new(Rules::new(parties, false, 5).unwrap()), 2);
        assert!(check_folded(&table) > 10_000);
    }

    /// Every layer solved whole, every block of it from the next layer (the plain backward
    /// induction the incremental solve must equal).
    fn whole(engine: Engine) -> Table {
        let mut table = Table::layout(engine);
        let all: Vec<u32> = (0..(table.layer_len / 9) as u32).collect();
        for t in (1..=table.layers.len()).rev() {
            let next = table.layers.get(t).cloned().unwrap_or_else(|| table.judged());
            let mut out = vec![0.0; table.layer_len];
            table.solved += table.solve_blocks(t as u8, &all, &next, false, &mut out, 2).0;
            table.layers[t - 1] = out;
        }
        table
    }

    fn bits(t: &Table) -> Vec<u32> {
        t.layers.iter().flatten().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn copying_unchanged_blocks_gives_the_whole_solve_bit_for_bit() {
        // The share of LPs left grows as fewer layers follow the judged ones.
        for (parties, limit, share) in [("thesis", 20, 0.5), ("delta-experiment", 12, 0.8)] {
            let rules = Rules::new(crate::rules::preset_parties(parties).unwrap(), false, limit);
            let engine = Engine::new(rules.unwrap());
            let (fast, plain) = (Table::solve(engine.clone(), 2), whole(engine));
            let ratio = fast.solved as f64 / plain.solved as f64;
            assert!(ratio < share, "{parties}: {} of {} LPs", fast.solved, plain.solved);
            assert!(bits(&fast) == bits(&plain), "{parties}: the tables differ");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]
        /// Random custom parties (the way a game brings its own monsters): the layered,
        /// incremental table equals the whole solve bit for bit and the plain memoised recursion
        /// (f64, so within f32 rounding) on random positions of every turn, replacements too;
        /// its entries that are not decision states hold the engine's own fold.
        #[test]
        fn random_parties_agree_with_the_whole_solve_and_the_recursion(
            seed in 0u64..1_000_000, limit in 3u8..8, max_hp in proptest::bool::ANY,
        ) {
            use rand::Rng;
            let mut rng = yomi_plugin::rng::seeded(seed);
            let parties = crate::first_move::random_parties(&mut rng, max_hp);
            let engine = Engine::new(Rules::new(parties, rng.gen(), limit).unwrap());
            let fast = Table::solve(engine.clone(), 2);
            proptest::prop_assert!(bits(&fast) == bits(&whole(engine.clone())));
            check_folded(&fast);
            let mut memo = crate::reference::Memo::new(&engine);
            for _ in 0..300 {
                let mut hp = [0u8; 6];
                for (k, h) in hp.iter_mut().enumerate() {
                    *h = rng.gen_range(0..=engine.rules.pokemon(k).hp);
                }
                let s = State { hp, active: [rng.gen_range(0..3), rng.gen_range(0..3)], turn: rng.gen_range(1..limit) };
                // Play never leaves both actives fainted (the slower one cannot hit back).
                if s.active_hp(0) == 0 && s.active_hp(1) == 0 {
                    continue;
                }
                let (a, b) = (fast.value(&s), memo.value(&s));
                proptest::prop_assert!((a - b).abs() < 1e-5, "{s:?}: table {a}, recursion {b}");
            }
        }
    }

    #[test]
    fn a_layer_with_nothing_to_solve_again_is_the_next_one() {
        let rules = Rules::new(crate::rules::preset_parties("thesis").unwrap(), false, 5).unwrap();
        let table = Table::solve(Engine::new(rules), 2);
        let next = &table.layers[1];
        let mut out = vec![0.0; table.layer_len];
        let (solved, differ) = table.solve_blocks(1, &[], next, true, &mut out, 2);
        assert_eq!((solved, differ.len()), (0, 0));
        assert!(out.iter().zip(next).all(|(a, b)| a.to_bits() == b.to_bits()));
    }

    #[test]
    fn the_changed_blocks_a_layer_reports_are_those_that_differ_from_the_next() {
        let rules = Rules::new(crate::rules::preset_parties("thesis").unwrap(), false, 8).unwrap();
        let table = Table::solve(Engine::new(rules), 2);
        let all: Vec<u32> = (0..table.blocks() as u32).collect();
        for t in 1..table.layers.len() {
            let next = &table.layers[t];
            let mut out = vec![0.0; table.layer_len];
            let (_, differ) = table.solve_blocks(t as u8, &all, next, false, &mut out, 2);
            let expected: Vec<u32> = (0..table.blocks() as u32)
                .filter(|&b| {
                    !changes::same_bits(&out[b as usize * 9..][..9], &next[b as usize * 9..][..9])
                })
                .collect();
            assert_eq!(differ, expected, "turn {t}");
            assert!(!differ.is_empty() && differ.len() < all.len(), "turn {t}: {}", differ.len());
        }
    }

    #[test]
    fn index_and_decode_are_inverse() {
        let t = Table::layout(Engine::new(Rules::preset("thesis").unwrap()));
        let mut seen = std::collections::HashSet::new();
        for idx in 0..t.layer_len {
            let s = t.decode(idx, 3);
            assert_eq!(t.index(&s), idx);
            assert_eq!(t.block_hp[idx / 9], s.hp);
            assert!(seen.insert(s), "{s:?} decoded twice");
        }
    }
}
