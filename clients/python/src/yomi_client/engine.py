"""Write a yomi engine in Python: a bot that any yomi server runs as a child process and seats
in matches, tournaments and the playground beside its own bots (PROTOCOL.md, "Engines").

    from yomi_client.engine import Engine

    bot = Engine("cycler", "Throws rock, paper, scissors in turn", games=["rps"])
    bot.option("start", "int", 0, "the hand it starts from", min=0, max=2)
    bot.preset("paper-first", "starts with paper", start=1)

    @bot.act
    def act(observation, legal, me):
        return legal[(me.options["start"] + observation["round"]) % len(legal)]

    if __name__ == "__main__":
        bot.run()

The operator runs it with `yomi serve --engine cycler="python3 cycler.py"` (or an engines.toml in
the data directory); clients seat it as `engine/cycler`. The kit speaks the protocol on stdin and
stdout, so print nothing there: write logs to stderr, which yomi copies into its own log.
Standard library only.
"""
from __future__ import annotations

import json
import os
import random
import sys
import traceback
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, TextIO

if TYPE_CHECKING:
    from .client import Client

PROTOCOL = "yomi-engine"
VERSION = 1

Act = Callable[[Any, List[Any], "Me"], Any]
Observe = Callable[[Any, "Me"], None]
GameOver = Callable[[dict, "Me"], None]
Configure = Callable[[Dict[str, Any], "Me"], None]
Service = Callable[[Any, "Me"], Any]


class Me:
    """One agent of the engine, as the bot's functions see it: its options (complete and checked
    by the host), its seed and a `random.Random` seeded with it (use it, and only it, for every
    random choice, so a seeded match replays), a `state` dict of its own, and the data directory.

    In `act`, `explain` says whether the caller asks for reasoning; set `explanation` to give it."""

    def __init__(self, options: Dict[str, Any], seed: int, data_dir: Optional[str]):
        self.options = options
        self.seed = seed
        self.rng = random.Random(seed)
        self.state: Dict[str, Any] = {}
        self.data_dir = data_dir
        self.explain = False
        self.explanation: Any = None


class BotError(Exception):
    """Raise it from a bot's function to refuse a call with a clear error: `code` is one of
    PROTOCOL.md's error codes (`invalid_params` for an observation the bot cannot read)."""

    def __init__(self, message: str, code: str = "bot_error"):
        super().__init__(message)
        self.code = code


class Engine:
    """An engine's declaration (its games, options, presets, service methods) and its functions.
    `run()` serves it until stdin closes."""

    def __init__(self, name: str, description: str, games: List[str], version: str = "0.1.0"):
        self.name = name
        self.description = description
        self.games = list(games)
        self.version = version
        self.options: List[dict] = []
        self.presets: List[dict] = []
        self.methods: List[dict] = []
        self._act: Optional[Act] = None
        self._observe: Optional[Observe] = None
        self._game_over: Optional[GameOver] = None
        self._configure: Optional[Configure] = None
        self._services: Dict[str, Service] = {}
        self._me: Optional[Me] = None

    # The declaration.

    def option(self, name: str, type: str, default: Any, description: str, **bounds: Any) -> None:
        """An option: `type` is bool, int, float, choice (with `choices=[...]`), string or json;
        int and float take `min=` and `max=`."""
        self.options.append({"name": name, "type": type, "default": default,
                             "description": description, **bounds})

    def preset(self, name: str, description: str, **options: Any) -> None:
        """A ready-made personality: these option values over the defaults."""
        self.presets.append({"name": name, "description": description, "options": options})

    def method(self, name: str, description: str, params: Optional[List[dict]] = None) -> Callable[[Service], Service]:
        """Decorates `fn(params, me) -> result`, a service method clients reach with `agent.call`.
        `params` are option-like specs the host checks before calling."""
        def register(fn: Service) -> Service:
            self.methods.append({"name": name, "description": description, "params": params or []})
            self._services[name] = fn
            return fn
        return register

    def declaration(self) -> dict:
        """What the engine says of itself in the handshake."""
        return {"name": self.name, "version": self.version, "description": self.description,
                "games": self.games, "options": self.options, "presets": self.presets,
                "methods": self.methods}

    # The bot's functions.

    def act(self, fn: Act) -> Act:
        """Decorates `fn(observation, legal, me) -> action`, one of `legal`."""
        self._act = fn
        return fn

    def observe(self, fn: Observe) -> Observe:
        """Decorates `fn(event, me)`: an event of the game (what every seat saw happen)."""
        self._observe = fn
        return fn

    def game_over(self, fn: GameOver) -> GameOver:
        """Decorates `fn(over, me)`: `over` is {"seat": ..., "outcome": {...}}."""
        self._game_over = fn
        return fn

    def configure(self, fn: Configure) -> Configure:
        """Decorates `fn(options, me)`, called when the agent is made and whenever its options
        change (between games), after `me.options` is set."""
        self._configure = fn
        return fn

    # Serving.

    def run(self, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> None:
        """Answers the host's requests, one JSON line each, until stdin closes."""
        for line in stdin:
            if not line.strip():
                continue
            stdout.write(json.dumps(self.answer(line), separators=(",", ":")) + "\n")
            stdout.flush()

    def answer(self, line: str) -> dict:
        """The reply to one request line."""
        try:
            request = json.loads(line)
            if not isinstance(request, dict) or len(request) != 1:
                raise BotError("a request is an object with one key", "invalid_request")
            (kind, body), = request.items()
            handler = {"hello": self._hello, "open": self._open, "call": self._call}.get(kind)
            if handler is None:
                raise BotError(f"unknown request `{kind}`", "invalid_request")
            return {"ok": True, "result": handler(body)}
        except BotError as e:
            return _error(e.code, str(e))
        except json.JSONDecodeError as e:
            return _error("invalid_request", f"not JSON: {e}")
        except Exception as e:  # the bot's own failure: report it, keep serving
            traceback.print_exc(file=sys.stderr)
            return _error("bot_error", f"{type(e).__name__}: {e}")

    def _hello(self, body: dict) -> dict:
        if body.get("protocol") != PROTOCOL or body.get("version") != VERSION:
            raise BotError(f"this engine speaks {PROTOCOL} version {VERSION}", "invalid_request")
        return {"protocol": PROTOCOL, "version": VERSION, "engine": self.declaration()}

    def _open(self, body: dict) -> None:
        context = body.get("context") or {}
        self._me = Me(dict(body.get("options") or {}), int(context.get("seed", 0)),
                      context.get("data_dir"))
        if self._configure:
            self._configure(self._me.options, self._me)
        return None

    def _call(self, body: dict) -> Any:
        me = self._me
        if me is None:
            raise BotError("a call before open", "invalid_request")
        call = body.get("call")
        if call == "act":
            if self._act is None:
                raise BotError("this engine plays no game")
            me.explain, me.explanation = bool(body.get("explain")), None
            action = self._act(body.get("observation"), body.get("legal") or [], me)
            reply = {"action": action}
            if me.explain and me.explanation is not None:
                reply["explain"] = me.explanation
            return reply
        if call == "observe":
            if self._observe:
                self._observe(body.get("event"), me)
            return None
        if call == "game_over":
            if self._game_over:
                self._game_over({"seat": body.get("seat"), "outcome": body.get("outcome")}, me)
            return None
        if call == "configure":
            me.options = dict(body.get("options") or {})
            if self._configure:
                self._configure(me.options, me)
            return None
        if call == "service":
            fn = self._services.get(str(body.get("method")))
            if fn is None:
                raise BotError(f"no method `{body.get('method')}`", "unknown_method")
            return fn(body.get("params"), me)
        raise BotError(f"unknown call `{call}`", "invalid_request")


def _error(code: str, message: str) -> dict:
    return {"ok": False, "error": {"code": code, "message": message}}


def yomi_server(data_dir: Optional[str] = None) -> "Client":
    """A `yomi serve --stdio` of the engine's own, for an engine that asks yomi's bots and
    services for help (the battle plugin's `analyze`, say): the yomi that started the engine
    (`$YOMI_BIN`), without the engines of the engines file. Close it when done."""
    from .client import Client

    binary = os.environ.get("YOMI_BIN", "yomi")
    args = ["--no-engines-file"] + (["--data-dir", data_dir] if data_dir else [])
    return Client.spawn(binary, args)
