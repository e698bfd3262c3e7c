//! One solved table per set of rules for the whole process: every agent and command of the
//! plugin shares it, and it is solved at most once (the first caller waits for it). With a data
//! directory the table is also kept on disk ([`crate::store`]), so a later process reads it
//! instead of solving again.
//!
//! Requests reach tables through an agent's [`Tables`]: it refuses a table too large to solve and
//! counts the rule sets the agent had solved, and those its client and the whole process solved
//! in the last hour, since every new party set costs CPU and a file on disk. The CLI and the
//! reproduction call [`table`] directly.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use yomi_plugin::{AgentContext, ErrorCode, ErrorInfo};

use crate::engine::Engine;
use crate::rules::Rules;
use crate::solver::Table;
use crate::store;

type Slot = Arc<OnceLock<Arc<Table>>>;

const HOUR: Duration = Duration::from_secs(3600);

/// The tables in memory, each with the tick of its last use.
struct Slots {
    map: HashMap<String, (Slot, u64)>,
    tick: u64,
}

fn slots() -> &'static Mutex<Slots> {
    static SLOTS: OnceLock<Mutex<Slots>> = OnceLock::new();
    SLOTS.get_or_init(|| Mutex::new(Slots { map: HashMap::new(), tick: 0 }))
}

/// Threads the solver uses: every core the machine offers.
pub fn threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// Rule sets kept in memory at once (22 to 66 MB each, and up to about 54 MB more of remembered
/// policy estimates, [`crate::memo`]): custom parties must not grow memory without bound. Past
/// it the least recently used table is dropped; agents keep the tables they hold.
const KEEP: usize = 8;

/// New rule sets one agent may have solved: each costs about 0.25 s of CPU (0.5 s for the
/// largest rules) and a table of up to 66 MB on disk. Rule sets already solved, in memory or on disk, are
/// free.
pub const SOLVES_PER_AGENT: u32 = 4;

/// New rule sets the whole process solves for agents in any hour: a client can open agent after
/// agent, so this bounds what all of them together cost (at most about 30 s of CPU an hour).
pub const SOLVES_PER_HOUR: usize = 60;

/// New rule sets one client (every agent of one address, `AgentContext::client`) has solved in
/// any hour: a fifth of the process's, so one client cannot take every other client's share.
pub const SOLVES_PER_CLIENT_PER_HOUR: usize = SOLVES_PER_HOUR / 5;

/// New rule sets solved for agents: when, and for which client.
type Solves = VecDeque<(Instant, Option<String>)>;

/// The process's new rule sets of the last hour.
fn recent_solves() -> &'static Mutex<Solves> {
    static RECENT: OnceLock<Mutex<Solves>> = OnceLock::new();
    RECENT.get_or_init(|| Mutex::new(VecDeque::new()))
}

/// The slot for `rules`, and whether its table is already there.
fn slot(rules: &Rules) -> (Slot, bool) {
    let mut slots = slots().lock().unwrap_or_else(|e| e.into_inner());
    slots.tick += 1;
    let (tick, key) = (slots.tick, rules.key());
    if !slots.map.contains_key(&key) && slots.map.len() >= KEEP {
        let oldest = slots.map.iter().min_by_key(|(_, (_, used))| *used).map(|(k, _)| k.clone());
        if let Some(k) = oldest {
            slots.map.remove(&k);
        }
    }
    let entry = slots.map.entry(key).or_default();
    entry.1 = tick;
    (entry.0.clone(), entry.0.get().is_some())
}

/// The solved table for `rules`: from memory, else from `data_dir`'s stored copy, else solved
/// (and stored there). Callers for other rules are not blocked while one table is being solved.
pub fn table(rules: &Rules, data_dir: Option<&Path>) -> Arc<Table> {
    let (slot, _) = slot(rules);
    slot.get_or_init(|| load_or_solve(rules, data_dir)).clone()
}

fn load_or_solve(rules: &Rules, data_dir: Option<&Path>) -> Arc<Table> {
    if let Some(table) = data_dir.and_then(|dir| store::load(dir, rules)) {
        return Arc::new(table);
    }
    let table = Arc::new(Table::solve(Engine::new(rules.clone()), threads()));
    if let Some(dir) = data_dir {
        store_later(dir, rules, &table);
    }
    table
}

/// The store's writes of new tables, running or not yet joined.
fn pending_stores() -> &'static Mutex<Vec<JoinHandle<()>>> {
    static PENDING: OnceLock<Mutex<Vec<JoinHandle<()>>>> = OnceLock::new();
    PENDING.get_or_init(|| Mutex::new(Vec::new()))
}

/// Stores a new table on a thread of its own, so the decision that needed it has its answer
/// first: writing 32 to 66 MB inside that decision cost it 5 to 10 ms on two cores. A read-only
/// or full disk, or no thread to spare, only means the next process solves again.
fn store_later(dir: &Path, rules: &Rules, table: &Arc<Table>) {
    let (dir, rules, table) = (dir.to_path_buf(), rules.clone(), table.clone());
    let spawned = std::thread::Builder::new()
        .name("battle-store".into())
        .spawn(move || drop(store::save(&dir, &rules, &table)));
    if let Ok(handle) = spawned {
        let mut pending = pending_stores().lock().unwrap_or_else(|e| e.into_inner());
        pending.retain(|h| !h.is_finished());
        pending.push(handle);
    }
}

/// Waits until every table solved so far is stored: before a command's process exits, and
/// between measurements, so one table's write is not timed against the next solve.
pub fn wait_for_stores() {
    let pending = std::mem::take(&mut *pending_stores().lock().unwrap_or_else(|e| e.into_inner()));
    for handle in pending {
        // A write that panicked stored nothing; the next process solves again.
        let _ = handle.join();
    }
}

/// One agent's way to the tables: where they are stored, and how many new rule sets it may
/// still have solved. Clones share that count, so no path through the agent (a policy asked
/// beside a decision) gets a budget of its own.
#[derive(Debug, Clone)]
pub struct Tables {
    data_dir: Option<PathBuf>,
    client: Option<String>,
    solves_left: Arc<AtomicU32>,
}

impl Tables {
    /// The way to the tables of an agent born with `ctx`.
    pub fn new(ctx: &AgentContext) -> Tables {
        Tables {
            data_dir: ctx.data_dir.clone(),
            client: ctx.client.clone(),
            solves_left: Arc::new(AtomicU32::new(SOLVES_PER_AGENT)),
        }
    }

    pub fn data_dir(&self) -> Option<&Path> {
        self.data_dir.as_deref()
    }

    /// The table for `rules`, refused (`limit_exceeded`) when it is larger than any the checked
    /// rules allow, or when it must be solved and this agent has used up its new rule sets.
    pub fn table(&self, rules: &Rules) -> Result<Arc<Table>, ErrorInfo> {
        Table::check_size(&Engine::new(rules.clone()))?;
        let (slot, ready) = slot(rules);
        let stored = || self.data_dir.as_deref().is_some_and(|d| store::path(d, rules).is_file());
        if !ready && !stored() {
            self.take_solve()?;
        }
        Ok(slot.get_or_init(|| load_or_solve(rules, self.data_dir.as_deref())).clone())
    }

    /// Counts one new rule set against this agent, its client and the process, or refuses it.
    fn take_solve(&self) -> Result<(), ErrorInfo> {
        let refuse = |message: String| Err(ErrorInfo::new(ErrorCode::LimitExceeded, message));
        // Under the process's lock, so two calls of one agent cannot both take its last solve.
        let mut recent = recent_solves().lock().unwrap_or_else(|e| e.into_inner());
        if self.solves_left.load(Ordering::Relaxed) == 0 {
            return refuse(format!(
                "this agent has already had {SOLVES_PER_AGENT} new rule sets solved (each costs \
                 up to half a second of CPU and a table on disk); use rules already solved"
            ));
        }
        let now = Instant::now();
        while recent.front().is_some_and(|(t, _)| now.duration_since(*t) > HOUR) {
            recent.pop_front();
        }
        let mine = recent.iter().filter(|(_, client)| *client == self.client).count();
        if self.client.is_some() && mine >= SOLVES_PER_CLIENT_PER_HOUR {
            return refuse(format!(
                "your agents have had {SOLVES_PER_CLIENT_PER_HOUR} new rule sets solved in the last \
                 hour; use rules already solved, or try again later"
            ));
        }
        if recent.len() >= SOLVES_PER_HOUR {
            return refuse(format!(
                "the server has solved {SOLVES_PER_HOUR} new rule sets for clients in the last \
                 hour; use rules already solved, or try again later"
            ));
        }
        recent.push_back((now, self.client.clone()));
        self.solves_left.fetch_sub(1, Ordering::Relaxed);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table solved for a decision is stored after it, and once the write is waited for the
    /// store holds that table, bit for bit, and nothing else.
    #[test]
    fn a_solved_table_is_stored_after_the_decision() {
        let mut rng = yomi_plugin::rng::seeded(4242);
        let rules =
            Rules::new(crate::first_move::random_parties(&mut rng, false), true, 4).unwrap();
        let dir = std::env::temp_dir().join(format!("yomi-battle-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let table = table(&rules, Some(&dir));
        wait_for_stores();
        let stored = store::load(&dir, &rules).expect("the table is stored");
        let bits =
            |t: &Table| -> Vec<u32> { t.layers().iter().flatten().map(|x| x.to_bits()).collect() };
        assert_eq!(bits(&stored), bits(&table));
        let files = std::fs::read_dir(store::path(&dir, &rules).parent().unwrap()).unwrap();
        assert_eq!(files.count(), 1, "no temporary file is left");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
