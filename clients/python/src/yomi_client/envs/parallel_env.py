"""A PettingZoo parallel environment for the simultaneous games: every `"agent"` seat decides at
once each step, yomi's bots play the rest."""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Sequence, Tuple

from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv  # type: ignore[import-untyped]

from ..client import Client
from .table import Table, as_text, checked_render_mode, names

# The games whose steps ask their seats at once, each with whether every seat decides in the step
# whose first decision has this observation: in battle, a side sending in a replacement after a
# faint decides alone. In the other games one seat decides at a time, as `YomiAECEnv` plays.
SIMULTANEOUS: Dict[str, Callable[[Any], bool]] = {
    "battle": lambda observation: observation.get("phase") != "replace",
    "rps": lambda observation: True,
}


class YomiParallelEnv(ParallelEnv):
    """One game of `game` (battle or rps) per episode between the agents `seat_I` (each seat I
    listed as `"agent"`) and yomi's bots in the other seats. `step` takes the actions of the
    agents that decide in this step, all at once, so no agent's choice can be seen by another
    before the step resolves; an agent that does not decide (battle: the other side sends in a
    replacement after a faint) has an all-zero `action_mask` and its action, if given, is ignored. Each agent's observation is its own seat's (what the server
    tells that seat, encoded as in `YomiEnv`), never another's. Rewards come at the end (each
    seat's score); then every agent terminates and `agents` is empty. Illegal actions and the
    server are as in `YomiEnv`."""

    metadata = {"render_modes": ["ansi"], "name": "yomi_parallel_v0"}

    def __init__(self, game: str, seats: Sequence[Any], *, game_options: Optional[dict] = None,
                 illegal: str = "forfeit", flat: bool = False, render_mode: Optional[str] = None,
                 client: Optional[Client] = None, address: Optional[Tuple[str, int]] = None,
                 binary: Optional[str] = None, timeout: float = 60.0):
        if game not in SIMULTANEOUS:
            raise ValueError(f"{game!r} is not a simultaneous game ({', '.join(SIMULTANEOUS)}): "
                             f"use YomiAECEnv, where one agent acts at a time")
        render_mode = checked_render_mode(render_mode)
        self._table = Table(game, seats, game_options=game_options, illegal=illegal, flat=flat,
                            client=client, address=address, binary=binary, timeout=timeout)
        self.render_mode = render_mode
        self.possible_agents = names(self._table.agent_seats)
        self.agents: list = []
        self._seat_of = dict(zip(self.possible_agents, self._table.agent_seats))
        self.observation_spaces = {a: self._table.encoding.observation_space(flat) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self._table.encoding.n_actions) for a in self.possible_agents}
        self._everyone = SIMULTANEOUS[game]
        self._np_random, _ = seeding.np_random(None)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: Optional[int] = None,
              options: Optional[dict] = None) -> Tuple[Dict[str, Any], Dict[str, Any]]:
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
        self._table.start(lambda: int(self._np_random.integers(0, 2 ** 53)))
        end = self._table.gather(self._everyone)
        if end is not None:
            raise RuntimeError("the game ended before every agent seat had its first decision")
        self.agents = list(self.possible_agents)
        return self._observations(self.agents), self._infos(self.agents)

    def step(self, actions: Dict[str, Any]) -> Tuple[Dict[str, Any], Dict[str, float], Dict[str, bool],
                                                       Dict[str, bool], Dict[str, Any]]:
        if not self.agents:
            raise RuntimeError("the game is over: reset the environment")
        deciding = [a for a in self.agents if self._seat_of[a] in self._table.pending]
        missing = [a for a in deciding if a not in actions]
        if missing:
            raise ValueError(f"no action for {missing}, who decide this step")
        agents = self.agents
        end = self._table.play_all({self._seat_of[a]: actions[a] for a in deciding}, self._everyone)
        rewards = {a: 0.0 if end is None else float(end.scores[self._seat_of[a]]) for a in agents}
        if end is not None:
            self.agents = []
        return (self._observations(agents), rewards, {a: end is not None for a in agents},
                {a: False for a in agents}, self._infos(agents))

    def _observations(self, agents: Sequence[str]) -> Dict[str, Any]:
        """Each agent's own seat's latest observation."""
        return {a: self._table.observe(self._seat_of[a]) for a in agents}

    def _infos(self, agents: Sequence[str]) -> Dict[str, Any]:
        return {a: self._table.info(self._seat_of[a]) for a in agents}

    def render(self) -> Optional[str]:
        if self.render_mode == "ansi":
            return as_text({a: self._table.info(self._seat_of[a]) for a in self.possible_agents})
        return None

    def close(self) -> None:
        self._table.close()
