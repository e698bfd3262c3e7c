//! Sugoroku's openings: boards. The suite shipped with yomi holds the boards of the paper's
//! experiment (figure 1): our standard board with its three-way fork, and straight tracks with a
//! trap 9 squares ahead (hit about 28 % of passes), 6 squares ahead (about 36 %), and both.

use serde::Serialize;
use serde_json::Value;
use yomi_plugin::typed::to_json;

use crate::board::Board;

/// One opening: a board, as the game's `board` option takes it.
#[derive(Serialize)]
struct Opening {
    board: Value,
}

/// Squares of the straight tracks after the start.
pub const TRACK: usize = 30;

/// The shipped suite, one board per line.
pub fn suite() -> String {
    let mut text = String::from(
        "# The boards of the paper's sugoroku experiment (figure 1): the standard board (a \
         three-way fork,\n# traps 6 and 9 squares after the merge), then straight tracks with a \
         trap 9 squares ahead,\n# 6 squares ahead, and both.\n",
    );
    let boards = [Board::standard()].into_iter().chain([&[9][..], &[6], &[6, 9]].map(|traps| {
        Board::line(TRACK, traps).expect("a straight track with traps inside it is valid")
    }));
    for board in boards {
        text += &format!("{}\n", to_json(&Opening { board: board.to_json() }));
    }
    text
}
