//! One solved table per set of rules for the whole process: every agent and command of the
//! plugin shares it, and it is solved at most once (the first caller waits for it). With a data
//! directory the table is also kept on disk ([`crate::store`]), so a later process reads it
//! instead of solving again.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use crate::engine::Engine;
use crate::rules::Rules;
use crate::solver::Table;
use crate::store;

type Slot = Arc<OnceLock<Arc<Table>>>;

fn slots() -> &'static Mutex<HashMap<String, Slot>> {
    static SLOTS: OnceLock<Mutex<HashMap<String, Slot>>> = OnceLock::new();
    SLOTS.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Threads the solver uses: every core the machine offers.
pub fn threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// Rule sets kept at once (22 MB each for the seed's parties): custom parties sent to `analyze`
/// must not grow memory without bound. Past it the cache starts afresh; agents keep the tables
/// they hold.
const KEEP: usize = 8;

/// The solved table for `rules`: from memory, else from `data_dir`'s stored copy, else solved
/// (and stored there). Callers for other rules are not blocked while one table is being solved.
pub fn table(rules: &Rules, data_dir: Option<&Path>) -> Arc<Table> {
    let slot = {
        let mut map = slots().lock().unwrap_or_else(|e| e.into_inner());
        let key = rules.key();
        if !map.contains_key(&key) && map.len() >= KEEP {
            map.clear();
        }
        map.entry(key).or_default().clone()
    };
    slot.get_or_init(|| Arc::new(load_or_solve(rules, data_dir))).clone()
}

fn load_or_solve(rules: &Rules, data_dir: Option<&Path>) -> Table {
    if let Some(table) = data_dir.and_then(|dir| store::load(dir, rules)) {
        return table;
    }
    let table = Table::solve(Engine::new(rules.clone()), threads());
    if let Some(dir) = data_dir {
        // A read-only or full disk only means the next process solves again.
        let _ = store::save(dir, rules, &table);
    }
    table
}
