"""The blocking client, over TCP or a spawned `yomi serve --stdio`."""
from __future__ import annotations

import json
import socket
import subprocess
from typing import Any, Callable, Dict, List, Optional

from .errors import closed, error_from_reply
from .operations import MatchFollower, Operations, is_event
from .transport import hello_params, quiet_env, serve_command, token_or_env

Listener = Callable[[dict], None]


class Client(Operations):
    """One protocol session. Requests block until their reply; events that arrive meanwhile go
    to the listeners registered with `on` and to `events` (most recent last).

    Lines are read from a binary stream and written with a separate call: a text wrapper that
    both reads and writes (`socket.makefile("rw")`) drops the lines it has read ahead when it
    writes, which loses replies and events that arrive together."""

    def __init__(self, readline: Callable[[], bytes], write: Callable[[bytes], None],
                 close: Callable[[], None]):
        self._readline = readline
        self._write = write
        self._close = close
        self._next_id = 1
        self._replies: Dict[Any, dict] = {}
        self._listeners: Dict[str, List[Listener]] = {}
        self.events: List[dict] = []

    @classmethod
    def tcp(cls, host: str = "127.0.0.1", port: int = 7878, timeout: Optional[float] = None,
            token: Optional[str] = None) -> "Client":
        """Connects to `yomi serve --tcp`. With a token (or `$YOMI_TOKEN`), says `hello` with it
        first. `timeout` bounds each wait for the server, in seconds (raises `TimeoutError`)."""
        sock = socket.create_connection((host, port), timeout=timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        reader = sock.makefile("rb")

        def close() -> None:
            reader.close()
            sock.close()

        return cls(reader.readline, sock.sendall, close)._introduce(token)

    @classmethod
    def spawn(cls, binary: Optional[str] = None, args: Optional[List[str]] = None,
              token: Optional[str] = None) -> "Client":
        """Starts `binary serve --stdio ARGS` and talks to it; closing ends the process. Without
        `binary`: `$YOMI_BIN`, else the checkout's `target/release/yomi` (the working directory's
        or a parent's), else `yomi` on PATH. Its log says only warnings and errors unless YOMI_LOG
        or RUST_LOG says otherwise."""
        child = subprocess.Popen(serve_command(binary, args), stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, env=quiet_env())
        stdin, stdout = child.stdin, child.stdout
        assert stdin is not None and stdout is not None  # both are pipes

        def write(data: bytes) -> None:
            stdin.write(data)
            stdin.flush()

        def close() -> None:
            stdin.close()
            child.wait(timeout=10)
            stdout.close()

        return cls(stdout.readline, write, close)._introduce(token)

    def _introduce(self, token: Optional[str]) -> "Client":
        token = token_or_env(token)
        if token is not None:
            try:
                self.request("hello", **hello_params(token))
            except BaseException:
                self.close()
                raise
        return self

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *_exc: Any) -> None:
        self.close()

    def close(self) -> None:
        self._close()

    def on(self, event: str, listener: Listener) -> Callable[[], None]:
        """Calls `listener(message)` for each event named `event` ("*": all). Returns an unsubscriber."""
        self._listeners.setdefault(event, []).append(listener)
        return lambda: self._listeners[event].remove(listener)

    def send(self, op: str, **params: Any) -> int:
        """Sends a request without waiting; returns its id (see `wait`)."""
        request_id = self._next_id
        self._next_id += 1
        self._write((json.dumps({**params, "id": request_id, "op": op}) + "\n").encode())
        return request_id

    def wait(self, request_id: int) -> Any:
        """Reads until the reply to `request_id`; returns its result or raises its error."""
        while request_id not in self._replies:
            self._read_one()
        reply = self._replies.pop(request_id)
        if not reply.get("ok"):
            raise error_from_reply(reply)
        return reply["result"]

    def request(self, op: str, **params: Any) -> Any:
        return self.wait(self.send(op, **params))

    def play_match(self, params: dict, on_turn: Callable[[dict], Any],
                   on_event: Optional[Listener] = None) -> dict:
        """Runs `match.run` with `params`; this client plays the seats given as `{"client": NAME}`.
        `on_turn(turn)` gets each `your_turn` event (`match`, `seat`, `observation`, `legal`, and
        the seat's `clock` when the match has a time control) and returns the action. Returns the match result. One match at a time per client."""
        moves: List[int] = []

        def listen(message: dict) -> None:
            if on_event:
                on_event(message)
            if message.get("event") == "your_turn":
                action = on_turn(message)
                moves.append(self.send("match.move", match=message["match"], seat=message["seat"], action=action))

        result = self.follow_match(params, listen)
        for move in moves:
            self.wait(move)  # raises if a move was refused
        return result

    def follow_match(self, params: dict, on_event: Listener) -> dict:
        """Runs `match.run` with `params`, calling `on_event` for each of that match's events
        (`your_turn` included), and returns its result. Unlike `play_match` it answers nothing:
        the caller sends `match.move` for each `your_turn` itself, from another thread if it
        likes (this one only reads), so several simultaneous decisions can be pending at once."""
        follower = MatchFollower()

        def listen(message: dict) -> None:
            if follower.mine(message):
                on_event(message)

        off = self.on("*", listen)
        try:
            return self.wait(self.send("match.run", **params))
        finally:
            off()

    def _read_one(self) -> None:
        line = self._readline()
        if not line:
            raise closed()
        message = json.loads(line)
        if is_event(message):
            self.events.append(message)
            del self.events[:-1000]
            for listener in list(self._listeners.get(message["event"], [])) + list(self._listeners.get("*", [])):
                listener(message)
        elif message.get("id") is None:
            raise error_from_reply(message)  # a line the server could not read
        else:
            self._replies[message["id"]] = message
