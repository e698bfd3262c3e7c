"""A Gymnasium environment: one agent seat against yomi's bots."""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple

import gymnasium
import numpy as np
from gymnasium import spaces

from ..client import Client
from .session import End
from .table import Table, as_text, checked_render_mode


class YomiEnv(gymnasium.Env):
    """One game of `game` per episode; `seats` lists exactly one `"agent"` and yomi bots for the
    others (`"plugin/bot"` or `{"bot": ..., "preset": ..., "options": ...}`).

    Observations are the game's encoding (`yomi_client.envs.encodings`; `flat=True`: its
    features as one float32 vector) with `action_mask`;
    `info` carries the raw JSON (`observation`, `legal`), `action_mask` and `match_seed`, and
    at the end `scores` and the game's `record`. The reward comes at the end: the seat's score (1 win,
    0.5 draw, 0 loss for two seats). An action the mask rules out forfeits the game (score 0),
    as yomi's failure policy does, or raises with `illegal="raise"`. `reset(seed=s)` draws the
    match seeds from `s`: the same seed and actions give the same episode.

    The server is a `yomi serve --stdio` of the environment's own (`binary`, default `$YOMI_BIN`,
    else the checkout's `target/release/yomi`, else `yomi` on PATH), or `address=(host, port)`,
    or a `client` the caller keeps."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, game: str, seats: Sequence[Any], *, game_options: Optional[dict] = None,
                 illegal: str = "forfeit", flat: bool = False, render_mode: Optional[str] = None,
                 client: Optional[Client] = None, address: Optional[Tuple[str, int]] = None,
                 binary: Optional[str] = None, timeout: float = 60.0):
        render_mode = checked_render_mode(render_mode)
        table = Table(game, seats, game_options=game_options, illegal=illegal, flat=flat, client=client,
                      address=address, binary=binary, timeout=timeout)
        if len(table.agent_seats) != 1:
            table.close()
            raise ValueError(f"a Gymnasium environment plays exactly one \"agent\" seat, not "
                             f"{len(table.agent_seats)}; use YomiAECEnv for several")
        self._table = table
        self.seat = table.agent_seats[0]
        self.render_mode = render_mode
        self.observation_space = table.observation_space
        self.action_space = spaces.Discrete(table.encoding.n_actions)

    def reset(self, *, seed: Optional[int] = None,
              options: Optional[dict] = None) -> Tuple[Dict[str, Any], Dict[str, Any]]:
        super().reset(seed=seed)
        self._table.start(lambda: int(self.np_random.integers(0, 2 ** 53)))
        return self._table.observe(self.seat), self._table.info(self.seat)

    def step(self, action: Any) -> Tuple[Dict[str, Any], float, bool, bool, Dict[str, Any]]:
        outcome = self._table.play(action)
        reward = float(outcome.scores[self.seat]) if isinstance(outcome, End) else 0.0
        return (self._table.observe(self.seat), reward, isinstance(outcome, End), False,
                self._table.info(self.seat))

    def action_masks(self) -> np.ndarray:
        """The current action mask (the method sb3-contrib's MaskablePPO calls)."""
        return self._table.observe(self.seat)["action_mask"].astype(bool)

    def render(self) -> Optional[str]:
        if self.render_mode == "ansi":
            return as_text(self._table.info(self.seat))
        return None

    def close(self) -> None:
        self._table.close()
