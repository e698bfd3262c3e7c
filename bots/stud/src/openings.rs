//! Stud's openings: deals. The suite shipped with yomi is the deal set the reproduction plays
//! (the paper's file of 500 deals is lost, so among the 500-deal sets of seeds 0..399 the one
//! closest to the paper's Table 4.1, see REPRODUCTION.md), one deal per opening; a tournament's
//! `--repeat` plays each deal a second time with the hands swapped.

use serde_json::json;

use crate::cards::DealSet;
use crate::repro::{closest_deal_sets, SET_TRIES};

/// Deals in the paper's sessions.
pub const SET_DEALS: usize = 500;

/// A suite of one opening per deal of `set`.
pub fn suite_of(set: &DealSet, about: &str) -> String {
    let mut text = about.lines().map(|l| format!("# {l}\n")).collect::<String>();
    for deal in &set.deals {
        text += &format!("{}\n", json!({"deals": [deal.to_line()]}));
    }
    text
}

/// The shipped suite: the deal set closest to Table 4.1.
pub fn suite() -> String {
    let (seed, set) = closest_deal_sets(SET_TRIES, 1, SET_DEALS).remove(0);
    let about = format!(
        "The {SET_DEALS} deals of the reproduction's deal set 0: of the {SET_DEALS}-deal sets of seeds \
         0..{}, the one\nclosest to the paper's Table 4.1 (seed {seed}). `7 cards of the first \
         actor | 7 of the second`;\nplay with --repeat so each deal is also played with the hands \
         swapped.",
        SET_TRIES - 1
    );
    suite_of(&set, &about)
}
