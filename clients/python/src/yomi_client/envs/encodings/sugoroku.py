"""Sugoroku (`sugoroku`, the dice plugin's board game; 1..4 seats, each alone on the board).

Actions: the square to move to (0..squares-1; the standard board has 42), one of the roll's
destinations.
Features:
- `position` (1,), `roll` (1,), `run` (1,) of `runs` (1,), `hits` (1,), `goals` (1,)
- `destinations` (squares, 4): per square it can move to now: trap, goal (0/1), squares left to the
  goal and traps ahead from there; zeros for the other squares
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np
from gymnasium import spaces

from .base import Encoding, layout, box, need, scalar

STANDARD_SQUARES = 42


class Sugoroku(Encoding):
    game = "sugoroku"
    seat_option = "players"

    def __init__(self, game_options: Dict[str, Any]):
        super().__init__(game_options)
        board = game_options.get("board")
        if board is None:
            self.n_actions = STANDARD_SQUARES
        elif isinstance(board, dict) and isinstance(board.get("squares"), list) and board["squares"]:
            self.n_actions = len(board["squares"])
        else:
            raise ValueError(f"sugoroku: `board` must be {{\"squares\": [...]}} or null, not {board!r}"[:300])

    def features_space(self) -> spaces.Dict:
        squares, runs = self.n_actions, self.game_options.get("runs", 15)
        return layout({
            "position": box(0, squares - 1), "roll": box(0, 6), "run": box(0, runs + 1),
            "runs": box(0, runs), "hits": box(0, runs), "goals": box(0, runs),
            "destinations": box(0, squares, (squares, 4)),
        })

    def features(self, observation: Any) -> Dict[str, np.ndarray]:
        destinations = np.zeros((self.n_actions, 4), np.float32)
        for d in need(observation, "destinations", self.game):
            destinations[self._square(d["square"])] = [d["trap"], d["goal"], d["to_goal"], d["traps_ahead"]]
        return {key: scalar(need(observation, key, self.game))
                for key in ("position", "roll", "run", "runs", "hits", "goals")} | {"destinations": destinations}

    def actions(self, observation: Any, legal: list) -> List[Optional[Any]]:
        slots: List[Optional[Any]] = [None] * self.n_actions
        for square in legal:
            slots[self._square(square)] = square
        return slots

    def _square(self, square: Any) -> int:
        if not isinstance(square, int) or not 0 <= square < self.n_actions:
            raise ValueError(f"sugoroku: square {square!r} is not on a board of {self.n_actions} squares")
        return square
