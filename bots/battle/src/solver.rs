//! The exact solution of the whole game by backward induction (seed 5.2): every position's value
//! (party 1's probability of winning plus half its probability of a draw under equilibrium play),
//! layer by layer from the turn limit down to turn 1, each layer split across the cores.
//!
//! The table is one `f32` per (HPs, actives) per turn layer, with a mixed radix of each Pokémon's
//! own maximum HP + 1, so the seed's parties take 19 × 291,600 × 4 B ≈ 22 MB. A faint replacement
//! is folded into the value look-up (spec R1): the replacing side takes the best candidate for
//! itself, so positions with a fainted active are never decision states.

use std::time::Instant;

use yomi_plugin::{ErrorCode, ErrorInfo};

use crate::engine::{Action, Engine, State, Status};
use crate::lp::{self, Matrix};
use crate::rules::{MAX_HP, MAX_TURN_LIMIT};

/// Most values a table may hold: the largest table checked rules allow.
pub const MAX_VALUES: usize = (MAX_TURN_LIMIT as usize - 1) * 9 * (MAX_HP as usize + 1).pow(6);

/// The solved game.
pub struct Table {
    pub engine: Engine,
    radix: [usize; 6],
    /// `stride[k]`: how far one HP point of Pokémon k moves the index (actives are the last digits).
    stride: [usize; 6],
    layer_len: usize,
    /// `layers[t - 1]` holds turn t's values, t in 1..turn_limit. Non-decision entries are NaN.
    layers: Vec<Vec<f32>>,
    /// Decision states solved (each one LP).
    pub solved: u64,
    pub seconds: f64,
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
        Table {
            engine,
            radix,
            stride,
            layer_len: step,
            layers: vec![Vec::new(); count],
            solved: 0,
            seconds: 0.0,
        }
    }

    /// Solves every position with `threads` worker threads per layer.
    pub fn solve(engine: Engine, threads: usize) -> Table {
        let start = Instant::now();
        let mut table = Table::layout(engine);
        let (count, layer_len) = (table.layers.len(), table.layer_len);
        for t in (1..=count).rev() {
            let mut out = vec![f32::NAN; layer_len];
            let next = table.layers.get(t).map(Vec::as_slice).unwrap_or(&[]);
            let chunk = layer_len.div_ceil(threads.max(1));
            let solved: u64 = std::thread::scope(|scope| {
                let workers: Vec<_> = out
                    .chunks_mut(chunk)
                    .enumerate()
                    .map(|(k, slice)| {
                        let table = &table;
                        scope.spawn(move || table.fill(t as u8, next, k * chunk, slice))
                    })
                    .collect();
                workers.into_iter().map(|w| w.join().expect("solver worker")).sum()
            });
            table.solved += solved;
            table.layers[t - 1] = out;
        }
        table.seconds = start.elapsed().as_secs_f64();
        table
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

    /// The number of layers and each layer's length the engine's rules give a table.
    pub fn shape(engine: Engine) -> (usize, usize) {
        let table = Table::layout(engine);
        (table.layers.len(), table.layer_len)
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

    /// Computes the entries `offset..offset + out.len()` of turn `t`'s layer from the next layer.
    fn fill(&self, t: u8, next: &[f32], offset: usize, out: &mut [f32]) -> u64 {
        let mut solved = 0;
        let mut s = self.decode(offset, t);
        for (k, slot) in out.iter_mut().enumerate() {
            if k > 0 {
                self.advance(&mut s);
            }
            if s.active_hp(0) == 0 || s.active_hp(1) == 0 {
                continue;
            }
            *slot = lp::solve(&self.next_matrix(&s, next)).value as f32;
            solved += 1;
        }
        solved
    }

    /// The solver's fast path for [`Table::matrix`] when the next layer is `next`: only the two
    /// Pokémon active after the switches can lose HP, so each entry is an index offset from the
    /// state's own index rather than a full resolve, status and re-index. Tested against the
    /// general path.
    fn next_matrix(&self, s: &State, next: &[f32]) -> Matrix {
        let base = self.index(s) - (s.active[0] as usize * 3 + s.active[1] as usize);
        let alive = [s.alive(0) as u8, s.alive(1) as u8];
        let total = [s.total_hp(0), s.total_hp(1)];
        let rows = self.engine.legal(s, 0);
        let cols = self.engine.legal(s, 1);
        let mut m = Matrix::new(rows.len(), cols.len());
        for (i, a) in rows.as_slice().iter().enumerate() {
            for (j, b) in cols.as_slice().iter().enumerate() {
                m.w[i][j] = self.entry(s, base, alive, total, [*a, *b], next);
            }
        }
        m
    }

    #[inline]
    fn entry(
        &self,
        s: &State,
        base: usize,
        alive: [u8; 2],
        total: [u32; 2],
        acts: [Action; 2],
        next: &[f32],
    ) -> f64 {
        let mut slot = s.active;
        for side in 0..2 {
            if let Action::Switch(k) = acts[side] {
                slot[side] = k;
            }
        }
        let start = [s.hp_of(0, slot[0] as usize), s.hp_of(1, slot[1] as usize)];
        let mut hp = start;
        let first = self.engine.first_mover(slot[0], slot[1]);
        for side in [first, 1 - first] {
            if let Action::Move(m) = acts[side] {
                if hp[side] > 0 {
                    let d = self.engine.damage_between(side, slot[side], m, slot[1 - side]);
                    hp[1 - side] = hp[1 - side].saturating_sub(d);
                }
            }
        }
        let lost = [(start[0] - hp[0]) as usize, (start[1] - hp[1]) as usize];
        let base = base
            - lost[0] * self.stride[slot[0] as usize]
            - lost[1] * self.stride[3 + slot[1] as usize];
        let alive = [alive[0] - u8::from(hp[0] == 0), alive[1] - u8::from(hp[1] == 0)];
        if alive[1] == 0 {
            return 1.0;
        }
        if alive[0] == 0 {
            return 0.0;
        }
        if s.turn + 1 >= self.engine.turn_limit() {
            let key = |side: usize| (alive[side], total[side] - lost[side] as u32);
            return match key(0).cmp(&key(1)) {
                std::cmp::Ordering::Greater => 1.0,
                std::cmp::Ordering::Less => 0.0,
                std::cmp::Ordering::Equal => 0.5,
            };
        }
        let at = |a: u8, b: u8| next[base + a as usize * 3 + b as usize] as f64;
        if hp[0] == 0 {
            (0..3u8)
                .filter(|&k| k != slot[0] && s.hp_of(0, k as usize) > 0)
                .map(|k| at(k, slot[1]))
                .fold(f64::NEG_INFINITY, f64::max)
        } else if hp[1] == 0 {
            (0..3u8)
                .filter(|&k| k != slot[1] && s.hp_of(1, k as usize) > 0)
                .map(|k| at(slot[0], k))
                .fold(f64::INFINITY, f64::min)
        } else {
            at(slot[0], slot[1])
        }
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

    /// Steps `s` to the state of the next index (an odometer over actives, then HPs), which is
    /// cheaper than decoding every index with divisions.
    #[inline]
    fn advance(&self, s: &mut State) {
        s.active[1] += 1;
        if s.active[1] < 3 {
            return;
        }
        s.active[1] = 0;
        s.active[0] += 1;
        if s.active[0] < 3 {
            return;
        }
        s.active[0] = 0;
        for k in (0..6).rev() {
            s.hp[k] += 1;
            if (s.hp[k] as usize) < self.radix[k] {
                return;
            }
            s.hp[k] = 0;
        }
    }

    fn decode(&self, mut idx: usize, turn: u8) -> State {
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

    /// Every stored entry, for the table's size.
    pub fn bytes(&self) -> usize {
        self.layers.len() * self.layer_len * std::mem::size_of::<f32>()
    }

    /// Entries in all layers, decision states or not (the seed's count includes unreachable ones).
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
        let mut checked = 0;
        for t in 1..5u8 {
            let next = &table.layers[t as usize];
            for idx in (0..table.layer_len).step_by(7) {
                let s = table.decode(idx, t);
                if table.engine.status(&s) == Status::Play {
                    assert_eq!(table.next_matrix(&s, next), table.matrix(&s), "{s:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 100_000);
    }

    #[test]
    fn index_and_decode_are_inverse() {
        let t = Table::layout(Engine::new(Rules::preset("thesis").unwrap()));
        let mut s = t.decode(0, 3);
        for idx in 0..t.layer_len {
            assert_eq!(t.decode(idx, 3), s);
            assert_eq!(t.index(&s), idx);
            t.advance(&mut s);
        }
    }
}
