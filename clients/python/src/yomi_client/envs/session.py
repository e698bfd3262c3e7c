"""One game played through a client seat, one decision at a time.

`Client.play_match` calls back for every `your_turn`; an environment instead wants to be handed a
decision, return, and be called again with the action. `MatchSession` turns the callback inside
out: the match runs in a helper thread whose `on_turn` hands the turn over and waits for the
action, so the environment sees a plain sequence of turns ending in the match's result. The
connection is only ever used by that one thread while the match runs.
"""
from __future__ import annotations

import queue
import threading
from dataclasses import dataclass
from typing import Any, Union

from ..client import Client

# Sent for a seat whose decision is abandoned (an illegal action, an aborted episode): no game
# reads it as an action, so the failure policy below forfeits the game at once.
_FORFEIT = {"forfeit": "the environment abandoned this decision"}
# Illegal actions forfeit (the seat scores 0) and nothing waits on a deadline.
POLICY = {"on_illegal": "forfeit", "on_error": "forfeit"}


@dataclass
class Turn:
    """A decision the server asks of a client seat."""

    seat: int
    observation: Any
    legal: list


@dataclass
class End:
    """The game is over: `scores` per seat, `record` the game's record (summary, failures)."""

    scores: list
    record: dict


class MatchSession:
    """Runs one `match.run` of one game; `next()` returns the next `Turn` or the `End`."""

    def __init__(self, client: Client, params: dict, timeout: float):
        self._timeout = timeout
        self._out: "queue.Queue[tuple]" = queue.Queue()
        self._actions: "queue.Queue[Any]" = queue.Queue()
        self._record: dict = {}
        self._waiting = False
        self._over = False
        self._thread = threading.Thread(target=self._run, args=(client, {**params, "games": 1}),
                                         name="yomi-match", daemon=True)
        self._thread.start()

    def _run(self, client: Client, params: dict) -> None:
        try:
            result = client.play_match(params, self._on_turn, self._on_event)
            self._out.put(("end", End(scores=list(result["scores"]), record=self._record)))
        except BaseException as e:  # handed to the caller of next()
            self._out.put(("error", e))

    def _on_turn(self, message: dict) -> Any:
        self._out.put(("turn", Turn(seat=message["seat"], observation=message["observation"],
                                    legal=message["legal"])))
        return self._actions.get()

    def _on_event(self, message: dict) -> None:
        if message.get("event") == "match.progress":
            self._record = message.get("record", {})

    def next(self) -> Union[Turn, End]:
        """Blocks until the server asks for a decision or the game ends; raises what the match
        raised (an unknown bot, a refused seat, a lost connection)."""
        if self._over:
            raise RuntimeError("the game is over; start a new episode")
        try:
            kind, value = self._out.get(timeout=self._timeout)
        except queue.Empty:
            raise TimeoutError(f"no decision or result from the server within {self._timeout} s") from None
        if kind == "turn":
            self._waiting = True
            return value
        self._over = True
        self._thread.join()
        if kind == "error":
            raise value
        return value

    def act(self, action: Any) -> None:
        """Answers the pending turn."""
        if not self._waiting:
            raise RuntimeError("no decision is pending")
        self._waiting = False
        self._actions.put(action)

    def forfeit(self) -> None:
        """Answers the pending turn with an action no game accepts: the seat forfeits the game."""
        self.act(_FORFEIT)

    def abandon(self) -> None:
        """Ends the game early (every pending decision forfeits) and waits for the match to stop."""
        while not self._over:
            if self._waiting:
                self.forfeit()
            try:
                self.next()
            except Exception:  # the abandoned game's own outcome no longer matters
                self._over = True
        self._thread.join(self._timeout)
