"""The seats of an environment's game: which ones the trained agents play, which ones yomi's bots.

A seat is written `"agent"` (played through a client seat by the code using the environment), a
bot id `"plugin/bot"`, or a `match.run` seat object `{"bot": ..., "preset": ..., "options": ...}`
(PROTOCOL.md, "match.run"), so a bot's personality is chosen as anywhere else in yomi.
"""
from __future__ import annotations

from typing import Any, List, Sequence, Tuple

AGENT = "agent"


def match_seats(seats: Sequence[Any]) -> Tuple[List[dict], List[int]]:
    """The `match.run` seats and the indices of the seats the agents play; a clear error for
    anything else."""
    if isinstance(seats, (str, bytes)) or not isinstance(seats, Sequence) or not seats:
        raise ValueError(f"seats must be a non-empty list of seats, not {seats!r}")
    out: List[dict] = []
    agents: List[int] = []
    for i, seat in enumerate(seats):
        if seat == AGENT or seat == {"client": AGENT}:
            agents.append(i)
            out.append({"client": f"seat_{i}"})
        elif isinstance(seat, str) and "/" in seat:
            out.append({"bot": seat})
        elif isinstance(seat, dict) and isinstance(seat.get("bot"), str) and "client" not in seat:
            out.append(dict(seat))
        else:
            raise ValueError(f"seat {i}: {seat!r} is neither \"agent\", a bot id \"plugin/bot\" "
                             f"nor a seat object {{\"bot\": ..., \"preset\": ..., \"options\": ...}}")
    if not agents:
        raise ValueError("no seat is \"agent\": an environment needs at least one seat to play")
    return out, agents
