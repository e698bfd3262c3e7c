"""The protocol's operations as methods, shared by the blocking and the asyncio client.

Each method only builds a request and hands it to `self.request`, which the blocking client
answers with the result and the asyncio client with an awaitable of it.
"""
from __future__ import annotations

from typing import Any, List, Optional

from .transport import CLIENT_NAME


def _given(**params: Any) -> dict:
    """Drops parameters left at None, so the server applies its defaults."""
    return {k: v for k, v in params.items() if v is not None}


class Operations:
    def request(self, op: str, **params: Any) -> Any:  # pragma: no cover - provided by clients
        raise NotImplementedError

    def hello(self, client: str = CLIENT_NAME, *, token: Optional[str] = None, protocol: int = 1) -> Any:
        """Introduces the client; a `token` grants its role to this connection."""
        return self.request("hello", **_given(protocol=protocol, client=client, token=token))

    def ping(self) -> Any:
        return self.request("ping")

    def catalog(self) -> Any:
        return self.request("catalog")

    def new_agent(self, bot: str, *, game: Optional[str] = None, preset: Optional[str] = None,
                  options: Optional[dict] = None, seed: Optional[int] = None,
                  generation: Optional[int] = None) -> Any:
        """Makes an agent; the result describes it (`result["agent"]` is its id)."""
        return self.request("agent.new", **_given(bot=bot, game=game, preset=preset,
                                                  options=options, seed=seed, generation=generation))

    def act(self, agent: str, observation: Any, legal: list, *, explain: bool = False,
            policy: bool = False) -> Any:
        """A decision: `{"action": ..., "explain": ..., "think_ms": ...}`. `think_ms` is the bot's
        suggested think time for a human pace (absent when its `think_scale` is 0): wait it or not,
        as the game likes; the server never does. A bot with a `strength` option plays at a target
        Elo when created with `options={"limit_strength": True, "strength": 300}`. With
        `policy=True` the result's `policy` lists `{"action", "p"}`: every action the bot could
        have played with its probability (a bot that does not say raises `RequestError` with the
        code `no_policy`)."""
        return self.request("agent.act", agent=agent, observation=observation, legal=legal,
                            explain=explain, **_given(policy=policy or None))

    def act_batch(self, agent: str, positions: list, *, explain: bool = False,
                  policy: bool = False) -> Any:
        """Many decisions in one request: `positions` are `{"observation", "legal", "seed"?}`;
        the result's `decisions` answers each in order, `{"error": {code, message}}` in place of
        a position the bot refuses. `explain` and `policy` apply to every position."""
        return self.request("agent.act", agent=agent, positions=positions, explain=explain,
                            **_given(policy=policy or None))

    def cancel(self, request: Any = None, *, all: bool = False) -> Any:
        """Stops the request with id `request` (or every request of the session with
        `all=True`); the result's `stopped` lists what it stopped. The stopped request's own
        reply is an error with the code `cancelled`."""
        if all:
            return self.request("cancel", all=True)
        return self.request("cancel", request=request)

    def configure(self, agent: str, *, options: Optional[dict] = None, preset: Optional[str] = None) -> Any:
        """Changes a live agent's personality; it keeps what it has learned."""
        return self.request("agent.configure", **_given(agent=agent, options=options, preset=preset))

    def swap(self, agent: str, *, bot: Optional[str] = None, generation: Optional[int] = None,
             preset: Optional[str] = None, options: Optional[dict] = None) -> Any:
        return self.request("agent.swap", **_given(agent=agent, bot=bot, generation=generation,
                                                   preset=preset, options=options))

    def observe(self, agent: str, event: Any) -> Any:
        return self.request("agent.observe", agent=agent, event=event)

    def call(self, agent: str, method: str, params: Any = None) -> Any:
        return self.request("agent.call", agent=agent, method=method, params=params)

    def drop(self, agent: str) -> Any:
        return self.request("agent.drop", agent=agent)

    def agents(self) -> Any:
        return self.request("agent.list")

    def move(self, match: str, seat: int, action: Any) -> Any:
        return self.request("match.move", match=match, seat=seat, action=action)

    def run_match(self, spec: dict, *, seed: Optional[int] = None, transcript: bool = False) -> Any:
        """Plays a match of bots (`spec`: `game`, `seats`, `games`, `policy`, `game_options`) and
        returns its summary. Seats played by this client need `play_match` instead."""
        return self.request("match.run", **{**spec, **_given(seed=seed, transcript=transcript)})

    def replay(self, transcript: str) -> Any:
        """Plays a recorded transcript (JSON-lines text) again: `{"identical": ..., ...}`."""
        return self.request("match.replay", transcript=transcript)

    def run_tournament(self, spec: Optional[dict] = None, *, tournament: Optional[str] = None,
                       resume: Optional[str] = None) -> Any:
        """Plays a tournament (`spec`: `game`, `bots`, `games_per_pair`, `format` ...), or resumes
        the interrupted tournament `resume`; returns the summary with its standings."""
        return self.request("tournament.run", **{**(spec or {}),
                                                 **_given(tournament=tournament, resume=resume)})

    def tournaments(self) -> Any:
        """The tournaments in the server's records (operators only)."""
        return self.request("tournament.list")

    def show_tournament(self, tournament: str) -> Any:
        """A stored tournament: status, spec, standings, crosstable and rating history."""
        return self.request("tournament.show", tournament=tournament)

    def tournament_games(self, tournament: str, offset: int = 0, limit: int = 50) -> Any:
        """A page of a tournament's recorded games (`limit` at most 200): `{total, games}`."""
        return self.request("tournament.games", tournament=tournament, offset=offset, limit=limit)

    def tournament_game(self, tournament: str, game: int) -> Any:
        """One recorded game with its transcript (JSON lines), for a replay."""
        return self.request("tournament.game", tournament=tournament, game=game)

    def openings(self) -> Any:
        """The opening suites a tournament may name: `[{"name", "shipped", "about"}]`."""
        return self.request("openings.list")

    def humanlike(self, bot: str, records: str, *, floor: Optional[float] = None,
                  resamples: Optional[int] = None, seed: Optional[int] = None) -> Any:
        """Operators only: how likely `bot` finds record set `records`, as `yomi humanlike
        --json` reports it (its `replay.progress` events arrive meanwhile)."""
        return self.request("humanlike.run", bot=bot, records=records,
                            **_given(floor=floor, resamples=resamples, seed=seed))

    def fit(self, bot: str, records: str, *, fit: Optional[List[str]] = None,
            preset: Optional[str] = None, floor: Optional[float] = None,
            iterations: Optional[int] = None, seed: Optional[int] = None) -> Any:
        """Operators only: `bot`'s options fitted to record set `records`, written as preset
        `preset` (default the set's name), as `yomi fit --json` reports it."""
        return self.request("fit.run", bot=bot, records=records,
                            **_given(fit=fit, preset=preset, floor=floor, iterations=iterations,
                                     seed=seed))

    def plugins(self) -> Any:
        """The loaded plugin builds, every generation."""
        return self.request("plugin.list")

    def load_plugin(self, path: str) -> Any:
        """Loads a plugin library from the server's plugin directories (operators only)."""
        return self.request("plugin.load", path=path)


#: The method of `Operations` that sends each operation of the protocol (protocol/schema.json);
#: a test fails when the schema has an operation this table lacks.
OPERATION_METHODS = {
    "hello": "hello",
    "ping": "ping",
    "catalog": "catalog",
    "agent.new": "new_agent",
    "agent.configure": "configure",
    "agent.swap": "swap",
    "agent.act": ("act", "act_batch"),  # one position, or many
    "agent.observe": "observe",
    "agent.call": "call",
    "agent.drop": "drop",
    "agent.list": "agents",
    "plugin.list": "plugins",
    "plugin.load": "load_plugin",
    "match.run": "run_match",
    "match.move": "move",
    "match.replay": "replay",
    "tournament.run": "run_tournament",
    "tournament.list": "tournaments",
    "tournament.show": "show_tournament",
    "tournament.games": "tournament_games",
    "tournament.game": "tournament_game",
    "openings.list": "openings",
    "humanlike.run": "humanlike",
    "fit.run": "fit",
    "cancel": "cancel",
}


#: Every event of the protocol (protocol/schema.json) with its payload's fields, the line's fields
#: beside `event`; a test fails when the schema has an event or a field this table lacks.
#: `MatchFollower` follows the events that carry `match`.
EVENTS = {
    "match.started": ("header", "match"),
    "your_turn": ("clock", "legal", "match", "observation", "seat"),
    "match.event": ("explained", "game_event", "match", "seat"),
    "match.progress": ("game", "games", "match", "record", "scores"),
    "tournament.started": ("id", "scheduled"),
    "tournament.progress": ("games", "id", "total"),
    "replay.progress": ("decisions", "op", "request", "total"),
}


def is_event(message: dict) -> bool:
    """Whether a line from the server is an event: it names its kind and is no reply. Replies
    have `ok`; `id` cannot tell them apart, as a tournament's events carry the tournament's."""
    return isinstance(message.get("event"), str) and "ok" not in message


class MatchFollower:
    """Recognises the events of the one match a client-seat helper is playing: the first
    `match.started` or `your_turn` after its `match.run` names it (the server may send the
    first `your_turn` before `match.started`). Kinds of event not in `EVENTS` are skipped, as
    the protocol asks of clients."""

    def __init__(self) -> None:
        self.match: Optional[str] = None

    def mine(self, message: dict) -> bool:
        name = message.get("event")
        if not isinstance(name, str) or "match" not in EVENTS.get(name, ()):
            return False
        if name in ("match.started", "your_turn") and self.match is None:
            self.match = message.get("match")
        return self.match is not None and message.get("match") == self.match
