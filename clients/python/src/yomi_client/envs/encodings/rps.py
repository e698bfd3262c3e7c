"""Rock-paper-scissors (`rps`, the example plugin).

Actions: 0 rock, 1 paper, 2 scissors.
Features (seat-relative: index 0 is the agent's own seat):
- `round` (1,): the throw to make, 1..rounds
- `score` (2,): points so far, own then the opponent's
- `opponent_last` (3,): one-hot of the opponent's last hand, zeros before the first
- `history` (8, 2, 3): the last 8 throws, most recent first, own and the opponent's hand one-hot
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np
from gymnasium import spaces

from .base import Encoding, layout, box, need, one_hot, rotate, scalar

HANDS = ["rock", "paper", "scissors"]
HISTORY = 8


class Rps(Encoding):
    game = "rps"
    n_actions = 3

    def features_space(self) -> spaces.Dict:
        rounds = self.game_options.get("rounds", 3)
        return layout({
            "round": box(0, rounds),
            "score": box(0, rounds, (2,)),
            "opponent_last": box(0, 1, (3,)),
            "history": box(0, 1, (HISTORY, 2, 3)),
        })

    def features(self, observation: Any) -> Dict[str, np.ndarray]:
        seat = need(observation, "seat", self.game)
        history = np.zeros((HISTORY, 2, 3), np.float32)
        for i, hands in enumerate(reversed(need(observation, "history", self.game)[-HISTORY:])):
            for j, hand in enumerate(rotate(list(hands), seat)):
                history[i, j] = one_hot(HANDS.index(hand), 3)
        last = observation.get("opponent_last")
        return {
            "round": scalar(need(observation, "round", self.game)),
            "score": np.array(rotate(list(need(observation, "score", self.game)), seat), np.float32),
            "opponent_last": one_hot(None if last is None else HANDS.index(last), 3),
            "history": history,
        }

    def actions(self, observation: Any, legal: list) -> List[Optional[Any]]:
        return [hand if hand in legal else None for hand in HANDS]
