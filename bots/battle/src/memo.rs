//! Policy estimates kept with the table they were computed on. δ-Nash's policy at a position is
//! a function of the rules, the position and the personality alone ([`crate::expectation`]), and
//! a record set repeats positions: two thousand recorded games of two δ-Nash players hold about
//! 49,000 decisions at 30,000 positions, the openings most of all. Scoring or fitting records
//! asks each position once per personality, and every agent on the same rules shares the answer.
//!
//! The memo is bounded: it keeps two generations of at most [`GENERATION`] estimates. When the
//! newer fills it becomes the older and the older is dropped, so the positions asked lately stay
//! and memory stays at most two generations, dropped with its table: a full memo raised a
//! `humanlike` run's peak memory by 54 MB, beside the table's own 22–66 MB (and the process
//! keeps at most [`crate::cache`]'s eight tables).

use std::collections::HashMap;
use std::hash::Hash;
use std::mem;
use std::sync::Mutex;

use crate::engine::State;
use crate::expectation::Estimate;
use crate::personality::PersonalityKey;

/// Estimates one generation holds: a fit of 2,000 games asks about 30,000 positions per
/// personality, so one fit's replay fits in one generation.
pub const GENERATION: usize = 1 << 16;

/// What a δ-Nash policy estimate on one table depends on besides the table: the personality,
/// the allowance of draws, the position and whose view it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EstimateKey {
    pub personality: PersonalityKey,
    pub max_draws: usize,
    pub state: State,
    pub side: u8,
    pub replacing: bool,
}

/// A bounded map from a computation's inputs to its result, for results that are a pure
/// function of the key.
pub struct Memo<K> {
    generation: usize,
    /// The newer generation and the older.
    maps: Mutex<(HashMap<K, Estimate>, HashMap<K, Estimate>)>,
}

impl<K: Hash + Eq + Clone> Default for Memo<K> {
    fn default() -> Self {
        Memo::with_generation(GENERATION)
    }
}

impl<K: Hash + Eq + Clone> Memo<K> {
    /// A memo of at most `generation` entries per generation.
    pub fn with_generation(generation: usize) -> Self {
        Memo { generation: generation.max(1), maps: Mutex::new((HashMap::new(), HashMap::new())) }
    }

    /// The estimate for `key`, computed by `compute` (outside the lock, so other threads go on)
    /// when neither generation holds it.
    pub fn get_or_compute(&self, key: K, compute: impl FnOnce() -> Estimate) -> Estimate {
        if let Some(found) = self.get(&key) {
            return found;
        }
        let value = compute();
        self.insert(key, value.clone());
        value
    }

    /// The entry for `key`, moved into the newer generation when the older held it.
    fn get(&self, key: &K) -> Option<Estimate> {
        let mut maps = self.lock();
        if let Some(found) = maps.0.get(key) {
            return Some(found.clone());
        }
        let found = maps.1.remove(key)?;
        drop(maps);
        self.insert(key.clone(), found.clone());
        Some(found)
    }

    fn insert(&self, key: K, value: Estimate) {
        let mut maps = self.lock();
        if maps.0.len() >= self.generation {
            maps.1 = mem::take(&mut maps.0);
        }
        maps.0.insert(key, value);
    }

    /// The maps, whatever a thread that panicked while holding them left: each entry is
    /// inserted whole, so a poisoned lock still guards consistent maps.
    fn lock(&self) -> std::sync::MutexGuard<'_, (HashMap<K, Estimate>, HashMap<K, Estimate>)> {
        self.maps.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// Entries held in both generations.
    fn len<K: Hash + Eq + Clone>(memo: &Memo<K>) -> usize {
        let maps = memo.lock();
        maps.0.len() + maps.1.len()
    }

    fn estimate(p: f64) -> Estimate {
        Estimate { probs: vec![p, 1.0 - p], se: 0.0, draws: 2 }
    }

    /// A key asked twice is computed once, and each key gets its own result.
    #[test]
    fn a_key_is_computed_once() {
        let memo = Memo::with_generation(10);
        let calls = Cell::new(0);
        let compute = |p: f64| {
            calls.set(calls.get() + 1);
            estimate(p)
        };
        assert_eq!(memo.get_or_compute(1, || compute(0.25)), estimate(0.25));
        assert_eq!(memo.get_or_compute(2, || compute(0.5)), estimate(0.5));
        assert_eq!(memo.get_or_compute(1, || compute(0.9)), estimate(0.25));
        assert_eq!((calls.get(), len(&memo)), (2, 2));
    }

    /// However many keys are asked, at most two generations are held; the keys asked lately
    /// are still there, and one kept alive by asking survives the turnover of generations.
    #[test]
    fn the_memo_holds_at_most_two_generations() {
        let memo = Memo::with_generation(100);
        for key in 0..1000 {
            memo.get_or_compute(key, || estimate(0.5));
            memo.get_or_compute(-1, || estimate(0.1));
            assert!(len(&memo) <= 200, "{} entries after {key}", len(&memo));
        }
        let recomputed = Cell::new(false);
        memo.get_or_compute(999, || {
            recomputed.set(true);
            estimate(0.5)
        });
        assert!(!recomputed.get(), "the latest key is kept");
        assert_eq!(memo.get_or_compute(-1, || estimate(0.7)), estimate(0.1), "kept by asking");
        memo.get_or_compute(0, || {
            recomputed.set(true);
            estimate(0.5)
        });
        assert!(recomputed.get(), "the first key was dropped");
    }
}
