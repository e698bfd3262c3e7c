"""Seven-card stud (`stud`) after Takahashi's thesis.

Actions: 0 drop, 1 call, 2 open or raise by the least allowed, 3 by half the pot (kept within
the allowed range), 4 by the most allowed (the pot), 5..7 reveal the face-down card in that
position of `hole`. A session of several deals (`games` > 1) is one episode.
Features (index 0 of a pair is the agent's own):
- `hole`, `up`, `opp_up` (52,): own face-down, own face-up and the opponent's face-up cards
  (index = suit × 13 + rank; suits s, h, d, c; ranks 2..9, T, J, Q, K, A)
- `opp_hole_count` (1,), `turn` (1,): the betting interval 1..7, `position` (1,): 0 acts first
- `phase` (2,): one-hot of `bet` and `reveal`
- `pot` (1,), `paid` (2,): chips in the pot this deal, `chips` (2,): holdings
- `amounts` (4,): the chips actions 1..4 would put in now (0 where not legal)
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np
from gymnasium import spaces

from .base import Encoding, layout, box, need, one_hot, scalar
from .cards import Deck

DECK = Deck("23456789TJQKA", "shdc")
# The pot can at most grow fivefold in an interval (open ≤ pot, raise ≤ pot, call the
# difference), from the antes of 10, over 7 intervals.
MAX_POT = 10 * 5 ** 7
REVEALS = 3


class Stud(Encoding):
    game = "stud"
    n_actions = 5 + REVEALS

    def features_space(self) -> spaces.Dict:
        start = self.game_options.get("start_chips", 100000)
        swing = self.game_options.get("games", 1) * MAX_POT
        return layout({
            "hole": box(0, 1, (52,)), "up": box(0, 1, (52,)), "opp_up": box(0, 1, (52,)),
            "opp_hole_count": box(0, 3), "turn": box(0, 7), "position": box(0, 1),
            "phase": box(0, 1, (2,)),
            "pot": box(0, MAX_POT), "paid": box(0, MAX_POT, (2,)),
            "chips": box(start - swing, start + swing, (2,)),
            "amounts": box(0, MAX_POT, (4,)),
        })

    def features(self, observation: Any) -> Dict[str, np.ndarray]:
        def field(key: str) -> Any:
            return need(observation, key, self.game)

        amounts = [0 if a is None else a.get("amount", 0)
                   for a in self.actions(observation, field("legal"))[1:5]]
        return {
            "hole": DECK.vector(field("hole")), "up": DECK.vector(field("up")),
            "opp_up": DECK.vector(field("opp_up")),
            "opp_hole_count": scalar(field("opp_hole_count")), "turn": scalar(field("turn")),
            "position": scalar(field("position")),
            "phase": one_hot(["bet", "reveal"].index(field("phase")), 2),
            "pot": scalar(field("pot")), "paid": np.array(field("paid"), np.float32),
            "chips": np.array(field("chips"), np.float32),
            "amounts": np.array(amounts, np.float32),
        }

    def actions(self, observation: Any, legal: list) -> List[Optional[Any]]:
        slots: List[Optional[Any]] = [None] * self.n_actions
        for action in legal:
            act = action.get("act") if isinstance(action, dict) else None
            if act == "drop":
                slots[0] = {"act": "drop"}
            elif act == "call":
                slots[1] = {"act": "call", "amount": action.get("amount", 0)}
            elif act in ("open", "raise"):
                low, high = action["min"], action["max"]
                half = min(max(need(observation, "pot", self.game) // 2, low), high)
                for slot, amount in ((2, low), (3, half), (4, high)):
                    slots[slot] = {"act": act, "amount": amount}
            elif isinstance(action, dict) and "reveal" in action:
                hole = need(observation, "hole", self.game)
                slots[5 + hole.index(action["reveal"])] = {"reveal": action["reveal"]}
        return slots
