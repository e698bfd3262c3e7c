//! The game's mechanics on a compact state: legal actions, turn resolution (switches, then the
//! faster move, then the slower), fainting, the turn-limit judge. [`Engine`] precomputes every
//! damage and speed comparison from [`Rules`] so the solver's inner loop does table look-ups only.

use crate::rules::Rules;

/// A position: the six HPs (flat slots 0..3 party 1, 3..6 party 2), each side's active slot
/// (0..3 within its party) and the turn (1-based; players act in turns 1..turn_limit-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct State {
    pub hp: [u8; 6],
    pub active: [u8; 2],
    pub turn: u8,
}

impl State {
    /// HP of `side`'s Pokémon in party slot `slot`.
    #[inline]
    pub fn hp_of(&self, side: usize, slot: usize) -> u8 {
        self.hp[side * 3 + slot]
    }

    /// HP of `side`'s active Pokémon.
    #[inline]
    pub fn active_hp(&self, side: usize) -> u8 {
        self.hp_of(side, self.active[side] as usize)
    }

    #[inline]
    pub fn alive(&self, side: usize) -> usize {
        (0..3).filter(|&k| self.hp_of(side, k) > 0).count()
    }

    #[inline]
    pub fn total_hp(&self, side: usize) -> u32 {
        (0..3).map(|k| self.hp_of(side, k) as u32).sum()
    }
}

/// One side's action: a move of its active Pokémon (index 0..3 into its move list) or a switch to
/// a party slot. A faint replacement is also a `Switch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    Move(u8),
    Switch(u8),
}

/// Up to five actions without allocation: moves first, then switches in party order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Actions {
    items: [Action; 5],
    len: usize,
}

impl Actions {
    fn new() -> Actions {
        Actions { items: [Action::Move(0); 5], len: 0 }
    }

    #[inline]
    fn push(&mut self, a: Action) {
        self.items[self.len] = a;
        self.len += 1;
    }

    #[inline]
    pub fn as_slice(&self) -> &[Action] {
        &self.items[..self.len]
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Where a state stands.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Status {
    /// Game over; party 1's score (1 win, 0.5 draw, 0 loss).
    Over(f64),
    /// `side`'s active fainted and it must choose a replacement before play goes on.
    Replace(usize),
    /// Both sides choose an action.
    Play,
}

/// The rules compiled to look-up tables.
#[derive(Debug, Clone)]
pub struct Engine {
    pub rules: Rules,
    /// `damage[attacker flat slot][move][defender slot in the other party]`.
    damage: [[[u8; 3]; 3]; 6],
    /// `first[a1][a2]`: the side whose active moves first when party 1's slot a1 faces party 2's
    /// slot a2. Equal speeds (possible only in custom parties) let party 1 go first.
    first: [[usize; 3]; 3],
}

impl Engine {
    pub fn new(rules: Rules) -> Engine {
        let mut damage = [[[0u8; 3]; 3]; 6];
        for (a, row) in damage.iter_mut().enumerate() {
            let attacker = rules.pokemon(a);
            for (m, per_def) in row.iter_mut().enumerate() {
                for (d, dmg) in per_def.iter_mut().enumerate() {
                    let defender = rules.pokemon((1 - a / 3) * 3 + d);
                    *dmg = rules.damage(attacker, attacker.moves[m], defender);
                }
            }
        }
        let mut first = [[0usize; 3]; 3];
        for (a1, row) in first.iter_mut().enumerate() {
            for (a2, f) in row.iter_mut().enumerate() {
                *f = usize::from(rules.parties[1][a2].speed > rules.parties[0][a1].speed);
            }
        }
        Engine { rules, damage, first }
    }

    pub fn turn_limit(&self) -> u8 {
        self.rules.turn_limit
    }

    /// The state at turn 1 with full HP and the given active slots.
    pub fn initial(&self, active: [u8; 2]) -> State {
        let mut hp = [0u8; 6];
        for (i, h) in hp.iter_mut().enumerate() {
            *h = self.rules.pokemon(i).hp;
        }
        State { hp, active, turn: 1 }
    }

    /// Damage of `side`'s active's move `m` on the other side's active, in state `s`.
    #[inline]
    pub fn damage(&self, s: &State, side: usize, m: u8) -> u8 {
        self.damage_between(side, s.active[side], m, s.active[1 - side])
    }

    /// Damage of `side`'s Pokémon in slot `attacker` with move `m` on the opponent's slot
    /// `defender`.
    #[inline]
    pub fn damage_between(&self, side: usize, attacker: u8, m: u8, defender: u8) -> u8 {
        self.damage[side * 3 + attacker as usize][m as usize][defender as usize]
    }

    /// The most damage any move of these rules deals.
    pub fn max_damage(&self) -> u8 {
        self.damage.iter().flatten().flatten().copied().max().unwrap_or(0)
    }

    /// The side that moves first when party 1's slot `a1` faces party 2's slot `a2`.
    #[inline]
    pub fn first_mover(&self, a1: u8, a2: u8) -> usize {
        self.first[a1 as usize][a2 as usize]
    }

    /// The multiplier class of `side`'s move `m` against the opponent's active, for the biases:
    /// the chart's multiplier before the same-type bonus.
    pub fn multiplier(&self, s: &State, side: usize, m: u8) -> f64 {
        let attacker = self.rules.parties[side][s.active[side] as usize].moves[m as usize];
        attacker.multiplier(self.rules.parties[1 - side][s.active[1 - side] as usize].ty)
    }

    /// The actions open to `side` in a `Play` state: its three moves, then a switch to every
    /// benched Pokémon with HP > 0 in party order.
    #[inline]
    pub fn legal(&self, s: &State, side: usize) -> Actions {
        let mut out = Actions::new();
        for m in 0..3 {
            out.push(Action::Move(m));
        }
        self.push_bench(s, side, &mut out);
        out
    }

    /// The Pokémon `side` may send in after its active fainted.
    #[inline]
    pub fn replacements(&self, s: &State, side: usize) -> Actions {
        let mut out = Actions::new();
        self.push_bench(s, side, &mut out);
        out
    }

    #[inline]
    fn push_bench(&self, s: &State, side: usize, out: &mut Actions) {
        for k in 0..3u8 {
            if k != s.active[side] && s.hp_of(side, k as usize) > 0 {
                out.push(Action::Switch(k));
            }
        }
    }

    /// Resolves one turn: switches first, then the moves in speed order of the Pokémon active
    /// after the switches; a Pokémon that fainted before its move loses it. The turn advances.
    /// Actions must be legal (see [`Engine::check`]).
    #[inline]
    pub fn resolve(&self, s: &State, actions: [Action; 2]) -> State {
        let mut n = *s;
        for (side, a) in actions.iter().enumerate() {
            if let Action::Switch(k) = a {
                n.active[side] = *k;
            }
        }
        let first = self.first_mover(n.active[0], n.active[1]);
        for side in [first, 1 - first] {
            if let Action::Move(m) = actions[side] {
                if n.active_hp(side) == 0 {
                    continue;
                }
                let target = (1 - side) * 3 + n.active[1 - side] as usize;
                n.hp[target] = n.hp[target].saturating_sub(self.damage(&n, side, m));
            }
        }
        n.turn += 1;
        n
    }

    /// Sends in `slot` as `side`'s replacement (no turn passes).
    #[inline]
    pub fn replace(&self, s: &State, side: usize, slot: u8) -> State {
        let mut n = *s;
        n.active[side] = slot;
        n
    }

    /// Where `s` stands. A wipe-out is checked first, then the turn limit's judge (more Pokémon
    /// standing, then more total HP, else a draw), then a pending replacement.
    #[inline]
    pub fn status(&self, s: &State) -> Status {
        let alive = [s.alive(0), s.alive(1)];
        if alive[1] == 0 {
            return Status::Over(1.0);
        }
        if alive[0] == 0 {
            return Status::Over(0.0);
        }
        if s.turn >= self.rules.turn_limit {
            let key = |side: usize| (alive[side], s.total_hp(side));
            return Status::Over(match key(0).cmp(&key(1)) {
                std::cmp::Ordering::Greater => 1.0,
                std::cmp::Ordering::Less => 0.0,
                std::cmp::Ordering::Equal => 0.5,
            });
        }
        for side in 0..2 {
            if s.active_hp(side) == 0 {
                return Status::Replace(side);
            }
        }
        Status::Play
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> Engine {
        Engine::new(Rules::preset("thesis").unwrap())
    }

    #[test]
    fn switches_go_first_and_the_newcomer_takes_the_hit() {
        let e = engine();
        let s = e.initial([0, 0]); // A vs D
                                   // A switches to B; D (speed 6) uses fire (move 1) on the incoming B (water): 1 damage.
        let n = e.resolve(&s, [Action::Switch(1), Action::Move(1)]);
        assert_eq!(n.active, [1, 0]);
        assert_eq!(n.hp, [5, 4, 5, 5, 4, 4]);
        assert_eq!(n.turn, 2);
    }

    #[test]
    fn a_fainted_pokemon_loses_its_move() {
        let e = engine();
        let mut s = e.initial([0, 2]); // A (speed 5) vs F (speed 8)
        s.hp[0] = 1;
        // F's electric hits A for 1 first; A faints and its grass (4 on F) never happens.
        let n = e.resolve(&s, [Action::Move(0), Action::Move(0)]);
        assert_eq!(n.hp[0], 0);
        assert_eq!(n.hp[5], 4);
        assert_eq!(e.status(&n), Status::Replace(0));
        assert_eq!(e.replacements(&n, 0).as_slice(), &[Action::Switch(1), Action::Switch(2)]);
    }

    #[test]
    fn the_turn_limit_judges_count_then_total_hp() {
        let e = engine();
        let mut s = e.initial([0, 0]);
        s.turn = 20;
        // 3 v 3 standing, 15 v 13 HP: party 1 wins.
        assert_eq!(e.status(&s), Status::Over(1.0));
        s.hp = [5, 0, 5, 1, 1, 1];
        assert_eq!(e.status(&s), Status::Over(0.0));
        s.hp = [3, 0, 0, 0, 3, 0];
        assert_eq!(e.status(&s), Status::Over(0.5));
        s.turn = 19;
        assert_eq!(e.status(&s), Status::Replace(1));
    }
}
