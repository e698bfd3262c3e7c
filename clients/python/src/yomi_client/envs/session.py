"""One game played through client seats, one decision at a time.

`Client.play_match` calls back for every `your_turn`; an environment instead wants to be handed
decisions, return, and be called again with actions. `MatchSession` turns the match inside out: it
runs in a helper thread that only reads (`Client.follow_match`) and queues each `your_turn`, and the
environment's thread answers with `match.move` when it has the action. Nothing waits on an answer
while reading, so every decision of a simultaneous step (battle, rps) reaches the environment before
any of them is answered.
"""
from __future__ import annotations

import queue
import threading
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Union

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
    match: str = ""
    #: The seat's own game clock (`increment_ms`, `moves_to_go`, `remaining_ms`) when the match
    #: has a time control (`"tc"` in its policy); None otherwise.
    clock: Optional[dict] = None


@dataclass
class End:
    """The game is over: `scores` per seat, `record` the game's record (summary, failures)."""

    scores: list
    record: dict


class MatchSession:
    """Runs one `match.run` of one game; `next()` returns the next `Turn` or the `End`."""

    def __init__(self, client: Client, params: dict, timeout: float):
        self._client = client
        self._timeout = timeout
        self._out: "queue.Queue[tuple]" = queue.Queue()
        self._record: dict = {}
        self._moves: List[int] = []
        self._unanswered: Dict[int, Turn] = {}
        self._over = False
        self._thread = threading.Thread(target=self._run, args=({**params, "games": 1},),
                                        name="yomi-match", daemon=True)
        self._thread.start()

    def _run(self, params: dict) -> None:
        try:
            result = self._client.follow_match(params, self._on_event)
            for move in self._moves:  # all sent: the match could not end without them
                self._client.wait(move)  # raises if a move was refused
            self._out.put(("end", End(scores=list(result["scores"]), record=self._record)))
        except BaseException as e:  # handed to the caller of next()
            self._out.put(("error", e))

    def _on_event(self, message: dict) -> None:
        if message.get("event") == "your_turn":
            self._out.put(("turn", Turn(seat=message["seat"], observation=message["observation"],
                                        legal=message["legal"], match=message["match"],
                                        clock=message.get("clock"))))
        elif message.get("event") == "match.progress":
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
            self._unanswered[value.seat] = value
            return value
        self._over = True
        self._thread.join()
        if kind == "error":
            raise value
        return value

    def act(self, seat: int, action: Any) -> None:
        """Answers the seat's pending decision."""
        turn = self._unanswered.pop(seat, None)
        if turn is None:
            raise RuntimeError(f"no decision is pending for seat {seat}")
        self._moves.append(self._client.send("match.move", match=turn.match, seat=seat, action=action))

    def forfeit(self, seat: int) -> None:
        """Answers the seat's pending decision with an action no game accepts: it forfeits the game."""
        self.act(seat, _FORFEIT)

    def abandon(self) -> None:
        """Ends the game early (every pending decision forfeits) and waits for the match to stop."""
        while not self._over:
            for seat in list(self._unanswered):
                self.forfeit(seat)
            try:
                self.next()
            except Exception:  # the abandoned game's own outcome no longer matters
                self._over = True
        self._thread.join(self._timeout)
