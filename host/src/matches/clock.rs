//! Game clocks: a time control in the cutechess form `[moves/]base[+inc]` (seconds), and each
//! seat's remaining time as the referee charges it move by move.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use yomi_protocol::Clock;

/// The longest base or increment a time control may name: one day, in milliseconds.
const MAX_MS: u64 = 24 * 60 * 60 * 1000;
/// The most moves a period may have.
const MAX_MOVES: u32 = 10_000;

/// A time control: `base_ms` for the game (or for every `moves` moves), plus `increment_ms`
/// after each move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct TimeControl {
    pub moves: Option<u32>,
    pub base_ms: u64,
    pub increment_ms: u64,
}

impl FromStr for TimeControl {
    type Err = String;

    fn from_str(text: &str) -> Result<TimeControl, String> {
        let bad = |why: &str| {
            format!("bad time control {text:?}: {why} (expected [moves/]base[+inc] in seconds, like 40/60+0.6)")
        };
        let (moves, rest) = match text.split_once('/') {
            Some((moves, rest)) => {
                let moves: u32 =
                    moves.trim().parse().map_err(|_| bad("moves is not a whole number"))?;
                if moves == 0 || moves > MAX_MOVES {
                    return Err(bad(&format!("moves must be 1 to {MAX_MOVES}")));
                }
                (Some(moves), rest)
            }
            None => (None, text),
        };
        let (base, increment) = match rest.split_once('+') {
            Some((base, inc)) => (base, Some(inc)),
            None => (rest, None),
        };
        let base_ms =
            millis(base).ok_or_else(|| bad("base is not a number of seconds up to a day"))?;
        if base_ms == 0 {
            return Err(bad("base must be at least 1 ms"));
        }
        let increment_ms = match increment {
            Some(inc) => millis(inc)
                .ok_or_else(|| bad("increment is not a number of seconds up to a day"))?,
            None => 0,
        };
        Ok(TimeControl { moves, base_ms, increment_ms })
    }
}

/// Seconds (decimals allowed) as whole milliseconds, none when not a number in 0..=[`MAX_MS`].
fn millis(seconds: &str) -> Option<u64> {
    let seconds = seconds.trim();
    if seconds.is_empty() || !seconds.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let value: f64 = seconds.parse().ok()?;
    let ms = (value * 1000.0).round();
    (ms <= MAX_MS as f64).then_some(ms as u64)
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(moves) = self.moves {
            write!(f, "{moves}/")?;
        }
        write!(f, "{}", self.base_ms as f64 / 1000.0)?;
        if self.increment_ms > 0 {
            write!(f, "+{}", self.increment_ms as f64 / 1000.0)?;
        }
        Ok(())
    }
}

impl TryFrom<String> for TimeControl {
    type Error = String;
    fn try_from(text: String) -> Result<TimeControl, String> {
        text.parse()
    }
}

impl From<TimeControl> for String {
    fn from(tc: TimeControl) -> String {
        tc.to_string()
    }
}

/// One seat's clock in one game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeatClock {
    tc: TimeControl,
    remaining_ms: u64,
    moves: u32,
}

impl SeatClock {
    pub fn new(tc: TimeControl) -> SeatClock {
        SeatClock { tc, remaining_ms: tc.base_ms, moves: 0 }
    }

    pub fn remaining_ms(&self) -> u64 {
        self.remaining_ms
    }

    /// The clock as the seat is shown it when asked to decide.
    pub fn shown(&self) -> Clock {
        Clock {
            remaining_ms: self.remaining_ms,
            increment_ms: self.tc.increment_ms,
            moves_to_go: self.tc.moves.map(|period| period - self.moves % period),
        }
    }

    /// Charges one move of `ms`; false when it ran past the remaining time (the seat lost on
    /// time). Otherwise the increment is added, and the base again at the end of each period.
    pub fn charge(&mut self, ms: u64) -> bool {
        if ms > self.remaining_ms {
            self.remaining_ms = 0;
            return false;
        }
        self.remaining_ms = self.remaining_ms - ms + self.tc.increment_ms;
        self.moves += 1;
        if self.tc.moves.is_some_and(|period| self.moves.is_multiple_of(period)) {
            self.remaining_ms += self.tc.base_ms;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_cutechess_forms() {
        let tc: TimeControl = "40/60+0.6".parse().unwrap();
        assert_eq!(tc, TimeControl { moves: Some(40), base_ms: 60_000, increment_ms: 600 });
        assert_eq!("60+0.6".parse::<TimeControl>().unwrap().moves, None);
        assert_eq!("60".parse::<TimeControl>().unwrap().increment_ms, 0);
        assert_eq!("0.001".parse::<TimeControl>().unwrap().base_ms, 1);
        for text in ["40/60+0.6", "60+0.6", "60", "1.5"] {
            assert_eq!(text.parse::<TimeControl>().unwrap().to_string(), text);
        }
    }

    #[test]
    fn refuses_malformed_and_out_of_bounds_strings() {
        for text in [
            "", "0", "-5", "abc", "60+", "/60", "0/60", "40/", "1e9", "99999999", "60+-1", "60+1+2",
        ] {
            let err = text.parse::<TimeControl>().unwrap_err();
            assert!(err.contains(&format!("{text:?}")), "{err}");
        }
    }

    #[test]
    fn a_clock_without_periods_shows_no_moves_to_go() {
        let clock = SeatClock::new("60".parse().unwrap());
        assert_eq!(
            clock.shown(),
            Clock { remaining_ms: 60_000, increment_ms: 0, moves_to_go: None }
        );
    }

    #[test]
    fn charges_moves_and_adds_increments_and_periods() {
        let mut clock = SeatClock::new("2/1+0.1".parse().unwrap());
        let shown = |remaining_ms, moves_to_go| Clock {
            remaining_ms,
            increment_ms: 100,
            moves_to_go: Some(moves_to_go),
        };
        assert_eq!(clock.shown(), shown(1000, 2));
        assert!(clock.charge(300));
        assert_eq!(clock.remaining_ms(), 800);
        assert_eq!(clock.shown(), shown(800, 1));
        assert!(clock.charge(300));
        assert_eq!(clock.remaining_ms(), 600 + 1000);
        assert_eq!(clock.shown(), shown(1600, 2), "a new period");
        assert!(!clock.charge(1601));
        assert_eq!(clock.remaining_ms(), 0);
    }
}
