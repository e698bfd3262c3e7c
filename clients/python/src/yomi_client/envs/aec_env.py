"""A PettingZoo AEC environment: the `"agent"` seats are the agents, yomi's bots play the rest."""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple

from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from ..client import Client
from .session import End
from .table import Table, as_text, checked_render_mode, agent_name, names


class YomiAECEnv(AECEnv):
    """One game of `game` per episode between the agents `seat_I` (each seat I listed as
    `"agent"`) and yomi's bots in the other seats. Agents act when the server asks their seat, so
    a simultaneous turn is played one agent after the other; an agent's observation is its seat's
    latest one, with an all-zero `action_mask` while it is not its turn. Rewards come at the end
    (each seat's score) and every agent terminates then. Observations, infos, illegal actions and
    the server are as in `YomiEnv`."""

    metadata = {"render_modes": ["ansi"], "name": "yomi_v0", "is_parallelizable": False}

    def __init__(self, game: str, seats: Sequence[Any], *, game_options: Optional[dict] = None,
                 illegal: str = "forfeit", flat: bool = False, render_mode: Optional[str] = None,
                 client: Optional[Client] = None, address: Optional[Tuple[str, int]] = None,
                 binary: Optional[str] = None, timeout: float = 60.0):
        super().__init__()
        render_mode = checked_render_mode(render_mode)
        self._table = Table(game, seats, game_options=game_options, illegal=illegal, flat=flat,
                            client=client, address=address, binary=binary, timeout=timeout)
        self.render_mode = render_mode
        self.possible_agents = names(self._table.agent_seats)
        self._seat_of = dict(zip(self.possible_agents, self._table.agent_seats))
        self.observation_spaces = {a: self._table.encoding.observation_space(flat) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self._table.encoding.n_actions) for a in self.possible_agents}
        self._np_random, _ = seeding.np_random(None)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
        turn = self._table.start(lambda: int(self._np_random.integers(0, 2 ** 53)))
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: self._table.info(self._seat_of[a]) for a in self.agents}
        self.agent_selection = agent_name(turn.seat)

    def observe(self, agent: str) -> Dict[str, Any]:
        return self._table.observe(self._seat_of[agent])

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        outcome = self._table.play(action)
        if isinstance(outcome, End):
            for a in self.agents:
                self.rewards[a] = float(outcome.scores[self._seat_of[a]])
                self.terminations[a] = True
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = agent_name(outcome.seat)
        self.infos = {a: self._table.info(self._seat_of[a]) for a in self.agents}
        self._accumulate_rewards()

    def render(self) -> Optional[str]:
        if self.render_mode == "ansi":
            seat = self._seat_of[self.agent_selection]
            return as_text(self._table.info(seat))
        return None

    def close(self) -> None:
        self._table.close()
