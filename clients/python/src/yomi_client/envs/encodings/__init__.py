"""One encoding per game yomi serves: its action slots and its observation as arrays.

Each module's docstring documents its encoding; `encoding_for` picks one by game name.
"""
from __future__ import annotations

from typing import Any, Dict, Optional

from .base import Encoding
from .battle import Battle
from .rps import Rps
from .sevens import Sevens
from .stud import Stud
from .sugoroku import Sugoroku

ENCODINGS = {cls.game: cls for cls in (Battle, Rps, Sevens, Stud, Sugoroku)}


def encoding_for(game: str, game_options: Optional[Dict[str, Any]] = None,
                 seats: Optional[int] = None) -> Encoding:
    """The encoding of `game` under these game options; a clear error for a game without one.
    Games whose options count the seats (sevens' and sugoroku's `players`) get `seats` there
    when the options leave it out; `.game_options` are the options the match is to use."""
    if game not in ENCODINGS:
        raise ValueError(f"no environment encoding for game {game!r}: the encoded games are "
                         f"{', '.join(sorted(ENCODINGS))}")
    cls = ENCODINGS[game]
    options = dict(game_options or {})
    if cls.seat_option is not None and seats is not None:
        options.setdefault(cls.seat_option, seats)
    return cls(options)


__all__ = ["Encoding", "ENCODINGS", "encoding_for"]
