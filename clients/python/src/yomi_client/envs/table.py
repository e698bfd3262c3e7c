"""The part every environment shares: a game of one episode at a time on a yomi server, its seats,
its encoding, the pending decisions, and every agent seat's latest observation."""
from __future__ import annotations

import copy
import json
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ..client import Client
from .connection import connect
from .encodings import encoding_for
from .seats import match_seats
from .session import POLICY, End, MatchSession, Turn

# A game that ends before any agent seat is asked anything (possible in some deals) is no
# episode; the next seed is tried, this many times at most.
ATTEMPTS = 20
ILLEGAL = ("forfeit", "raise")


class Table:
    def __init__(self, game: str, seats: Sequence[Any], *, game_options: Optional[dict] = None,
                 illegal: str = "forfeit", flat: bool = False, client: Optional[Client] = None,
                 address: Optional[Tuple[str, int]] = None, binary: Optional[str] = None,
                 timeout: float = 60.0):
        if illegal not in ILLEGAL:
            raise ValueError(f"illegal must be one of {ILLEGAL}, not {illegal!r}")
        self.game = game
        self.seats, self.agent_seats = match_seats(seats)
        self.encoding = encoding_for(game, game_options, len(self.seats))
        self.game_options = self.encoding.game_options
        self.illegal = illegal
        self.flat = flat
        self.timeout = timeout
        self.observation_space = self.encoding.observation_space(flat)
        self._client, self._release = connect(client, address, binary)
        self._session: Optional[MatchSession] = None
        # The decisions asked and not yet answered, by seat: one at a time in the Gymnasium and AEC
        # environments, every agent seat's at once in the parallel one.
        self.pending: Dict[int, Turn] = {}
        self.end: Optional[End] = None
        self.match_seed: Optional[int] = None
        self._seen: Dict[int, Dict[str, Any]] = {}

    def start(self, draw_seed: Callable[[], int]) -> Turn:
        """Abandons any game in play and starts one (the next seed while a game asks nothing)."""
        for _ in range(ATTEMPTS):
            self.abandon()
            self._seen = {seat: self.encoding.blank(self.flat) for seat in self.agent_seats}
            self.match_seed = draw_seed()
            self._session = MatchSession(self._client, {
                "game": self.game, "game_options": self.game_options, "seed": self.match_seed,
                "seats": self.seats, "policy": POLICY}, self.timeout)
            step = self._advance()
            if isinstance(step, Turn):
                return step
        raise RuntimeError(f"{ATTEMPTS} games in a row ended before an agent seat had a decision")

    def play(self, action: Any) -> Union[Turn, End]:
        """Plays the one pending decision's action slot; a slot the mask rules out forfeits the
        game (or raises, with `illegal="raise"`). Returns the next decision or the end."""
        if len(self.pending) != 1:
            raise RuntimeError("no decision is pending: reset the environment first")
        (seat,) = self.pending
        self._answer({seat: action})
        return self._advance()

    def play_all(self, actions: Dict[int, Any], everyone: Callable[[Any], bool]) -> Optional[End]:
        """Plays every pending decision's action slot (`actions` by seat, all checked before any is
        sent; other seats' are ignored), then waits for the next step's decisions (`gather`)."""
        if not self.pending:
            raise RuntimeError("no decision is pending: reset the environment first")
        self._answer({seat: actions[seat] for seat in self.pending})
        return self.gather(everyone)

    def gather(self, everyone: Callable[[Any], bool]) -> Optional[End]:
        """Waits for all of a step's decisions of a simultaneous game: `None`, or the end. The
        server asks a step's seats together, so the first decision's observation says whether
        every agent seat decides in it (`everyone(observation)`) or that seat alone."""
        if not self.pending:
            step = self._advance()
            if isinstance(step, End):
                return step
        first = next(iter(self.pending.values()))
        asked = len(self.agent_seats) if everyone(first.observation) else 1
        while len(self.pending) < asked:
            step = self._advance()
            if isinstance(step, End):
                return step
        return None

    def _answer(self, actions: Dict[int, Any]) -> None:
        moves = {}
        for seat, action in actions.items():
            turn = self.pending[seat]
            index = self._slot(action)
            moves[seat] = self.encoding.actions(turn.observation, turn.legal)[index]
            if moves[seat] is None and self.illegal == "raise":
                raise ValueError(f"action {index} is not legal now for seat {seat}: the legal slots are "
                                 f"{np.flatnonzero(self.observe(seat)['action_mask']).tolist()}")
        for seat, move in moves.items():
            del self.pending[seat]
            if move is None:
                self._live().forfeit(seat)
            else:
                self._live().act(seat, move)

    def observe(self, seat: int) -> Dict[str, Any]:
        """The seat's latest observation; its mask is all zeros unless the decision is its own."""
        seen = copy.deepcopy(self._seen[seat])
        if seat not in self.pending:
            seen["action_mask"][:] = 0
        return seen

    def info(self, seat: int) -> Dict[str, Any]:
        """The raw JSON of the seat's pending decision, or of the game's end, and the match seed
        (a `match.run` with it and the same seats and moves replays the episode)."""
        if self.end is not None:
            return {"scores": list(self.end.scores), "record": copy.deepcopy(self.end.record),
                    "match_seed": self.match_seed}
        turn = self.pending.get(seat)
        if turn is not None:
            return {"observation": copy.deepcopy(turn.observation),
                    "legal": copy.deepcopy(turn.legal),
                    "action_mask": self.observe(seat)["action_mask"], "match_seed": self.match_seed}
        return {"match_seed": self.match_seed}

    def abandon(self) -> None:
        if self._session is not None:
            self._session.abandon()
        self._session, self.end = None, None
        self.pending = {}

    def close(self) -> None:
        self.abandon()
        self._release()

    def _advance(self) -> Union[Turn, End]:
        step = self._live().next()
        if isinstance(step, End):
            self.end = step
            return step
        if step.seat not in self.agent_seats:
            raise RuntimeError(f"the server asked seat {step.seat}, which no agent plays")
        if step.seat in self.pending:
            raise RuntimeError(f"the server asked seat {step.seat} again before its decision was answered")
        self._seen[step.seat] = self.encoding.encode(step.observation, step.legal, self.flat)
        self.pending[step.seat] = step
        return step

    def _live(self) -> MatchSession:
        """The session of the game in play, which `start` made."""
        if self._session is None:
            raise RuntimeError("no game in play: reset the environment first")
        return self._session

    def _slot(self, action: Any) -> int:
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"an action is an int in 0..{self.encoding.n_actions - 1}, not {action!r}")
        if not 0 <= int(action) < self.encoding.n_actions:
            raise ValueError(f"action {action} is outside 0..{self.encoding.n_actions - 1}")
        return int(action)


def checked_render_mode(mode: Optional[str]) -> Optional[str]:
    """Both environments render as text only: the JSON of the decision or of the end."""
    if mode not in (None, "ansi"):
        raise ValueError(f"render_mode must be None or \"ansi\", not {mode!r}")
    return mode


def as_text(info: Dict[str, Any]) -> str:
    return json.dumps(info, default=lambda array: array.tolist())


def agent_name(seat: int) -> str:
    return f"seat_{seat}"


def names(seats: List[int]) -> List[str]:
    return [agent_name(s) for s in seats]
