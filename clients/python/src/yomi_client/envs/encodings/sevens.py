"""Sevens (`sevens`, 3..6 players).

Actions: 0..51 play that card (index = suit × 13 + rank; suits S, H, D, C; ranks A, 2..10, J, Q,
K), 52 pass.
Features (per-player arrays are seat-relative: index 0 is the agent, then the seats after it):
- `hand`, `table` (52,): own hand, every card on the table
- `ends` (4, 2): per suit the low and high rank (1..13) of the unbroken row through its 7
- `hand_sizes`, `passes_left`, `went_out` (0/1), `ranks` (0 while still in) (players,)
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np
from gymnasium import spaces

from .base import Encoding, layout, box, need, rotate
from .cards import Deck

DECK = Deck(["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"], "SHDC")
PASS = 52


class Sevens(Encoding):
    game = "sevens"
    seat_option = "players"
    n_actions = 53

    def features_space(self) -> spaces.Dict:
        players = self.game_options.get("players", 3)
        return layout({
            "hand": box(0, 1, (52,)), "table": box(0, 1, (52,)), "ends": box(0, 13, (4, 2)),
            "hand_sizes": box(0, 52, (players,)), "passes_left": box(0, 20, (players,)),
            "went_out": box(0, 1, (players,)), "ranks": box(0, players, (players,)),
        })

    def features(self, observation: Any) -> Dict[str, np.ndarray]:
        def seats(key: str) -> np.ndarray:
            return np.array(rotate(list(need(observation, key, self.game)), seat), np.float32)

        seat = need(observation, "seat", self.game)
        ends = need(observation, "ends", self.game)
        return {
            "hand": DECK.vector(need(observation, "hand", self.game)),
            "table": DECK.vector(need(observation, "table", self.game)),
            "ends": np.array([ends[s] for s in DECK.suits], np.float32),
            "hand_sizes": seats("hand_sizes"), "passes_left": seats("passes_left"),
            "went_out": seats("went_out"),
            "ranks": np.array([r or 0 for r in rotate(list(need(observation, "ranks", self.game)), seat)],
                              np.float32),
        }

    def actions(self, observation: Any, legal: list) -> List[Optional[Any]]:
        slots: List[Optional[Any]] = [None] * self.n_actions
        for action in legal:
            slots[PASS if action == "pass" else DECK.index(action)] = action
        return slots
