//! The games the paper works through, and the 15-player game the benchmarks use: shared by the
//! reproduction, the tests and the benches so they all measure the same thing.

use rand::seq::SliceRandom;
use yomi_plugin::rng;

use crate::model::{Assignment, PastGame, Problem, Roles};

/// The paper's role codes for its 11-player example: 0 villager, 1 werewolf, 2 seer, 3 knight,
/// 4 medium.
const CODES: [&str; 5] = ["villager", "werewolf", "seer", "knight", "medium"];

/// Players named p1 ... pn, as the paper numbers them.
pub fn players(n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("p{i}")).collect()
}

/// A game written as the paper writes it: one digit (a role code) per player.
fn decode(digits: &str, players: &[String]) -> PastGame {
    digits
        .chars()
        .zip(players)
        .map(|(c, p)| (p.clone(), CODES[c.to_digit(10).unwrap_or(0) as usize].to_string()))
        .collect()
}

/// The paper's first example: 4 players, one werewolf, history 1000 / 0100 / 1000.
pub fn seed_four(beta: f64) -> Problem {
    let players = players(4);
    let past: Vec<PastGame> =
        ["1000", "0100", "1000"].iter().map(|g| decode(g, &players)).collect();
    Problem::new(players, Roles::parse("werewolf=1,villager=3").expect("valid roles"), &past, beta)
        .expect("valid problem")
}

/// The assignment of the paper's first example where player `w` is the werewolf.
pub fn seed_four_candidate(w: usize) -> Assignment {
    (0..4).map(|i| usize::from(i != w)).collect()
}

/// The paper's 11-player example: 3 werewolves, seer, knight, medium, 5 villagers; history
/// 11123400000 / 11234000001.
pub fn seed_eleven(beta: f64) -> Problem {
    let players = players(11);
    let past: Vec<PastGame> =
        ["11123400000", "11234000001"].iter().map(|g| decode(g, &players)).collect();
    Problem::new(players, eleven_roles(), &past, beta).expect("valid problem")
}

fn eleven_roles() -> Roles {
    Roles::parse("werewolf=3,seer=1,knight=1,medium=1,villager=5").expect("valid roles")
}

/// The paper's candidate 12340000011 for the 11-player example, as role indices of [`seed_eleven`].
pub fn seed_eleven_candidate() -> Assignment {
    let roles = eleven_roles();
    "12340000011"
        .chars()
        .map(|c| roles.index(CODES[c.to_digit(10).unwrap_or(0) as usize]).expect("known role"))
        .collect()
}

/// The benchmark game: 15 players, 5 role types (3 werewolves, seer, knight, medium, 9 villagers)
/// and 10 past games dealt uniformly at random from a fixed seed.
pub fn fifteen(beta: f64) -> Problem {
    let players = players(15);
    let roles =
        Roles::parse("werewolf=3,seer=1,knight=1,medium=1,villager=9").expect("valid roles");
    let mut deck: Vec<String> = roles
        .names
        .iter()
        .zip(&roles.counts)
        .flat_map(|(name, &c)| vec![name.clone(); c])
        .collect();
    let mut rng = rng::seeded(15);
    let past: Vec<PastGame> = (0..10)
        .map(|_| {
            deck.shuffle(&mut rng);
            players.iter().cloned().zip(deck.iter().cloned()).collect()
        })
        .collect();
    Problem::new(players, roles, &past, beta).expect("valid problem")
}
