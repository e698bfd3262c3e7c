//! A sugoroku board: squares joined one way, forks where a square has several successors, trap
//! squares, and goals (squares with no successor). The paper's experiment (figure 1, section 6.2)
//! is a one-player race with a three-way fork and trap squares; [`Board::standard`] is ours.
//!
//! JSON form: `{"squares": [{"next": [1]}, {"next": [2, 7], "trap": false}, ..., {"next": []}]}`;
//! square 0 is the start. A move of d steps follows successors (the mover picks at forks) and
//! stops early on a goal (reaching or passing the goal wins); landing on a trap is a hit.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A board's JSON form, as read before it is checked.
#[derive(Serialize, Deserialize)]
struct Form {
    squares: Vec<Square>,
}

/// One square of the JSON form: its successors, and whether it is a trap (not, if left out).
#[derive(Serialize, Deserialize)]
struct Square {
    next: Vec<usize>,
    #[serde(default)]
    trap: Option<bool>,
}

/// Largest board accepted.
pub const MAX_SQUARES: usize = 10_000;

/// A checked board: one-way (no loops, so every square reaches a goal), start and goals are not
/// traps.
#[derive(Debug, Clone, PartialEq)]
pub struct Board {
    next: Vec<Vec<usize>>,
    trap: Vec<bool>,
    /// Fewest squares from each square to a goal.
    to_goal: Vec<usize>,
}

impl Board {
    /// Builds and checks a board.
    pub fn new(next: Vec<Vec<usize>>, trap: Vec<bool>) -> Result<Board, String> {
        let n = next.len();
        if !(2..=MAX_SQUARES).contains(&n) {
            return Err(format!("a board has 2..={MAX_SQUARES} squares, this one has {n}"));
        }
        for (s, succ) in next.iter().enumerate() {
            if let Some(&t) = succ.iter().find(|&&t| t >= n) {
                return Err(format!(
                    "square {s} leads to square {t}, which is off the board (0..{n})"
                ));
            }
        }
        // Squares without successors are goals, so on a one-way board every square reaches one;
        // only a loop can keep a piece from the goal.
        let order = topological(&next)
            .ok_or("no path to the goal: the board has a loop (boards are one-way)")?;
        let mut to_goal = vec![usize::MAX; n];
        for &s in order.iter().rev() {
            to_goal[s] = if next[s].is_empty() {
                0
            } else {
                next[s].iter().map(|&t| to_goal[t].saturating_add(1)).min().unwrap_or(usize::MAX)
            };
        }
        if trap[0] {
            return Err("the start square cannot be a trap".into());
        }
        if let Some(g) = (0..n).find(|&s| next[s].is_empty() && trap[s]) {
            return Err(format!("goal square {g} cannot be a trap"));
        }
        Ok(Board { next, trap, to_goal })
    }

    /// Parses the JSON form (see the module documentation); the error names the field that
    /// does not fit (`board.squares[2].next`) or what is wrong with the board.
    pub fn parse(value: &Value) -> Result<Board, String> {
        let form: Form = yomi_plugin::typed::read(value, "board").map_err(|e| e.message)?;
        let (next, trap) =
            form.squares.into_iter().map(|s| (s.next, s.trap.unwrap_or(false))).unzip();
        Board::new(next, trap).map_err(|e| format!("`board`: {e}"))
    }

    /// The JSON form.
    pub fn to_json(&self) -> Value {
        let squares = (self.next.iter().cloned())
            .zip(self.trap.iter().map(|&t| Some(t)))
            .map(|(next, trap)| Square { next, trap })
            .collect();
        yomi_plugin::typed::to_json(&Form { squares })
    }

    /// Our version of the paper's board: a start line, a three-way fork (a short route with two
    /// traps, a middle one with one, a long safe one), a shared stretch with traps 6 and 9
    /// squares after the merge (the paper's 6- and 9-ahead traps), then the goal.
    pub fn standard() -> Board {
        let mut next: Vec<Vec<usize>> = Vec::new();
        let mut trap = Vec::new();
        let mut line = |len: usize,
                        traps: &[usize],
                        then: Option<usize>,
                        next: &mut Vec<Vec<usize>>|
         -> usize {
            let first = next.len();
            for i in 0..len {
                next.push(vec![first + i + 1]);
                trap.push(traps.contains(&i));
            }
            if let Some(t) = then {
                next[first + len - 1] = vec![t];
            }
            first
        };
        // 0..=4 start line; fork at 4; routes 5..=9, 10..=17, 18..=27; merge 28..=40; goal 41.
        line(5, &[], None, &mut next);
        let up = line(5, &[2, 4], Some(28), &mut next);
        let mid = line(8, &[5], Some(28), &mut next);
        let down = line(10, &[], Some(28), &mut next);
        next[4] = vec![up, mid, down];
        line(13, &[5, 8], None, &mut next);
        next.push(vec![]);
        trap.push(false);
        Board::new(next, trap).expect("the standard board is valid")
    }

    /// A straight line of `len` squares after the start with traps at the given distances (the
    /// the paper's probability questions: "a trap 9 squares ahead").
    pub fn line(len: usize, traps: &[usize]) -> Result<Board, String> {
        let next = (0..=len).map(|s| if s < len { vec![s + 1] } else { vec![] }).collect();
        let trap = (0..=len).map(|s| traps.contains(&s)).collect();
        Board::new(next, trap)
    }

    pub fn len(&self) -> usize {
        self.next.len()
    }

    pub fn is_empty(&self) -> bool {
        self.next.is_empty()
    }

    pub fn is_goal(&self, s: usize) -> bool {
        self.next[s].is_empty()
    }

    pub fn is_trap(&self, s: usize) -> bool {
        self.trap[s]
    }

    pub fn to_goal(&self, s: usize) -> usize {
        self.to_goal[s]
    }

    /// Rejects a position that is not a square of this board.
    pub fn check_position(&self, pos: usize) -> Result<(), String> {
        if pos < self.len() {
            Ok(())
        } else {
            Err(format!("position {pos} is off the board (squares 0..{})", self.len()))
        }
    }

    /// Every square a move of `steps` from `from` can end on (the mover picks at forks).
    pub fn destinations(&self, from: usize, steps: usize) -> Vec<usize> {
        let mut frontier = BTreeSet::from([from]);
        for _ in 0..steps {
            frontier = frontier
                .iter()
                .flat_map(|&s| if self.is_goal(s) { vec![s] } else { self.next[s].clone() })
                .collect();
        }
        frontier.into_iter().collect()
    }

    /// Per face 1..=sides: does rolling it force a trap (every destination is a trap)?
    pub fn forced_hits(&self, from: usize, sides: u8) -> Vec<bool> {
        (1..=sides as usize)
            .map(|d| self.destinations(from, d).iter().all(|&s| self.trap[s]))
            .collect()
    }

    /// Trap squares within `reach` steps ahead of `from` along any route.
    pub fn traps_ahead(&self, from: usize, reach: usize) -> usize {
        let mut seen = BTreeSet::new();
        let mut frontier = BTreeSet::from([from]);
        for _ in 0..reach {
            frontier = frontier.iter().flat_map(|&s| self.next[s].iter().copied()).collect();
            seen.extend(frontier.iter().copied().filter(|&s| self.trap[s]));
        }
        seen.len()
    }
}

/// Squares in an order where each comes before its successors, or None when there is a loop.
fn topological(next: &[Vec<usize>]) -> Option<Vec<usize>> {
    let n = next.len();
    let mut indegree = vec![0usize; n];
    for succ in next {
        for &t in succ {
            indegree[t] += 1;
        }
    }
    let mut ready: Vec<usize> = (0..n).filter(|&s| indegree[s] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(s) = ready.pop() {
        order.push(s);
        for &t in &next[s] {
            indegree[t] -= 1;
            if indegree[t] == 0 {
                ready.push(t);
            }
        }
    }
    (order.len() == n).then_some(order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn standard_board_forks_and_traps() {
        let b = Board::standard();
        assert_eq!(b.destinations(3, 2), vec![5, 10, 18]);
        assert!(b.is_goal(b.len() - 1));
        // From square 5 (up route) a 2 lands on the trap at 7.
        assert!(b.forced_hits(5, 6)[1]);
        // Passing the goal stops on it.
        assert_eq!(b.destinations(b.len() - 2, 6), vec![b.len() - 1]);
    }

    #[test]
    fn bad_boards_are_rejected() {
        assert!(Board::parse(&json!({"squares": [{"next": [1]}, {"next": [0]}]}))
            .unwrap_err()
            .contains("loop"));
        assert!(Board::parse(
            &json!({"squares": [{"next": [1, 2]}, {"next": []}, {"next": [3]}, {"next": [3]}]})
        )
        .is_err());
        assert!(Board::parse(&json!({"squares": [{"next": [5]}, {"next": []}]}))
            .unwrap_err()
            .contains("off the board"));
        assert!(Board::parse(&json!({"squares": [{"next": [1]}, {"next": [], "trap": true}]}))
            .unwrap_err()
            .contains("goal"));
        assert!(Board::standard().check_position(99).unwrap_err().contains("off the board"));
        assert_eq!(Board::parse(&Board::standard().to_json()).unwrap(), Board::standard());
    }
}
