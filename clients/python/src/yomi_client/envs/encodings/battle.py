"""The Pokémon-style battle (`battle`): three a side, nothing hidden.

Actions: 0..2 use the active Pokémon's move in that slot (its `moves` order), 3..5 switch to (or,
after a faint, send in) the Pokémon in that party slot.
Features (side-relative: index 0 is the agent's own party):
- `phase` (2,): one-hot of `choose` (a turn) and `replace` (sending in after a faint)
- `turn` (1,): the turn number, 1..turn_limit
- `party` (2, 3, 20): per side and party slot: HP, starting HP, speed, active (0/1), the
  Pokémon's type one-hot (fire, grass, electric, water), then each of its 3 moves' type one-hot
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np
from gymnasium import spaces

from .base import Encoding, layout, box, need, one_hot, scalar

TYPES = ["fire", "grass", "electric", "water"]
PARTY = 3
PER_MON = 4 + len(TYPES) * (1 + 3)


class Battle(Encoding):
    game = "battle"
    n_actions = 6

    def features_space(self) -> spaces.Dict:
        return layout({
            "phase": box(0, 1, (2,)),
            "turn": box(0, self.game_options.get("turn_limit", 20) + 1),
            "party": box(0, 10, (2, PARTY, PER_MON)),
        })

    def _parties(self, observation: Any) -> Tuple[int, list]:
        you = need(observation, "you", self.game)
        parties = need(observation, "rules", self.game).get("parties")
        if not isinstance(parties, list) or len(parties) != 2 or any(len(p) != PARTY for p in parties):
            raise ValueError(f"battle observation: `rules.parties` must list both parties of {PARTY} "
                             f"in full, not {parties!r}"[:300])
        return you, parties

    def features(self, observation: Any) -> Dict[str, np.ndarray]:
        you, parties = self._parties(observation)
        state = need(observation, "state", self.game)
        party = np.zeros((2, PARTY, PER_MON), np.float32)
        for row, side in enumerate((you, 1 - you)):
            for slot, mon in enumerate(parties[side]):
                moves = np.concatenate([one_hot(TYPES.index(m), len(TYPES)) for m in mon["moves"]])
                party[row, slot] = np.concatenate([
                    [state["hp"][side][slot], mon["hp"], mon["speed"], mon["name"] == state["active"][side]],
                    one_hot(TYPES.index(mon["type"]), len(TYPES)), moves])
        phase = need(observation, "phase", self.game)
        return {"phase": one_hot(["choose", "replace"].index(phase), 2),
                "turn": scalar(state["turn"]), "party": party}

    def actions(self, observation: Any, legal: list) -> List[Optional[Any]]:
        you, parties = self._parties(observation)
        active = need(observation, "state", self.game)["active"][you]
        own = parties[you]
        moves = next((m["moves"] for m in own if m["name"] == active), [None] * 3)
        slots = [{"move": m} for m in moves] + [{"switch": m["name"]} for m in own]
        return [a if a in legal else None for a in slots]
