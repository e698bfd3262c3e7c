"""The asyncio client, over TCP or a spawned `yomi serve --stdio`."""
from __future__ import annotations

import asyncio
import inspect
import json
from typing import Any, Awaitable, Callable, Dict, List, Optional, Tuple, Union

from .errors import closed, error_from_reply
from .operations import MatchFollower, Operations, is_event
from .transport import hello_params, quiet_env, serve_command, token_or_env

Listener = Callable[[dict], Any]


class AsyncClient(Operations):
    """One protocol session; many requests may be in flight (replies are matched by id)."""

    def __init__(self, reader: asyncio.StreamReader, writer: Any, on_close: Callable[[], Awaitable[None]]):
        self._reader = reader
        self._writer = writer
        self._on_close = on_close
        self._next_id = 1
        self._pending: Dict[int, asyncio.Future] = {}
        self._listeners: Dict[str, List[Listener]] = {}
        self._listening: set = set()
        self._task = asyncio.get_running_loop().create_task(self._read_all())

    @classmethod
    async def tcp(cls, host: str = "127.0.0.1", port: int = 7878,
                  token: Optional[str] = None) -> "AsyncClient":
        """Connects to `yomi serve --tcp`; with a token (or `$YOMI_TOKEN`), says `hello` with it first."""
        reader, writer = await asyncio.open_connection(host, port, limit=1 << 24)

        async def on_close() -> None:
            writer.close()
            await writer.wait_closed()

        return await cls(reader, writer, on_close)._introduce(token)

    @classmethod
    async def spawn(cls, binary: Optional[str] = None, args: Optional[List[str]] = None,
                    token: Optional[str] = None) -> "AsyncClient":
        """Starts `binary serve --stdio ARGS` (without `binary`, the server `Client.spawn` finds);
        its log says only warnings and errors unless YOMI_LOG or RUST_LOG says otherwise."""
        child = await asyncio.create_subprocess_exec(
            *serve_command(binary, args), stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, env=quiet_env(), limit=1 << 24)
        stdin, stdout = child.stdin, child.stdout
        assert stdin is not None and stdout is not None  # both are pipes

        async def on_close() -> None:
            stdin.close()
            await child.wait()

        return await cls(stdout, stdin, on_close)._introduce(token)

    async def _introduce(self, token: Optional[str]) -> "AsyncClient":
        token = token_or_env(token)
        if token is not None:
            try:
                await self.request("hello", **hello_params(token))
            except BaseException:
                await self.close()
                raise
        return self

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *_exc: Any) -> None:
        await self.close()

    async def close(self) -> None:
        await self._on_close()
        await self._task

    def on(self, event: str, listener: Listener) -> Callable[[], None]:
        """Calls `listener(message)` (a function or a coroutine function) for each event named
        `event` ("*": all). Returns an unsubscriber."""
        self._listeners.setdefault(event, []).append(listener)
        return lambda: self._listeners[event].remove(listener)

    def request(self, op: str, **params: Any) -> "asyncio.Future[Any]":
        return self.start(op, **params)[1]

    def start(self, op: str, **params: Any) -> "Tuple[int, asyncio.Future[Any]]":
        """Sends a request and returns at once, without awaiting anything: its id (what `cancel`
        names) and the future of its result. Not a coroutine, so it takes no `await`; the future
        does:

            rid, result = yomi.start("match.run", game="rps", seats=[...])
            await yomi.cancel(rid)   # or anything else meanwhile
            await result             # the result, or the error (here `Cancelled`)

        `await yomi.start(...)` is a TypeError ("object tuple can't be used in 'await'
        expression"). `request` is `start` when the id is not needed: `await yomi.request(...)`."""
        request_id = self._next_id
        self._next_id += 1
        future = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        self._writer.write((json.dumps({**params, "id": request_id, "op": op}) + "\n").encode())
        return request_id, future

    async def play_match(self, params: dict, on_turn: Callable[[dict], Union[Any, Awaitable[Any]]],
                         on_event: Optional[Listener] = None) -> dict:
        """As `Client.play_match`; `on_turn` may be a coroutine function."""
        follower = MatchFollower()
        moves: List[asyncio.Future] = []
        failures: List[Exception] = []

        async def listen(message: dict) -> None:
            if not follower.mine(message):
                return
            if on_event:
                on_event(message)
            if message.get("event") == "your_turn":
                try:
                    action = on_turn(message)
                    if inspect.isawaitable(action):
                        action = await action
                except Exception as e:  # reported when the match ends
                    failures.append(e)
                    return
                moves.append(self.move(message["match"], message["seat"], action))

        off = self.on("*", listen)
        try:
            result = await self.request("match.run", **params)
        finally:
            off()
        if failures:
            raise failures[0]
        await asyncio.gather(*moves)  # raises if a move was refused
        return result

    async def _read_all(self) -> None:
        while True:
            line = await self._reader.readline()
            if not line:
                break
            message = json.loads(line)
            if is_event(message):
                for listener in list(self._listeners.get(message["event"], [])) + list(self._listeners.get("*", [])):
                    outcome = listener(message)
                    if inspect.isawaitable(outcome):
                        # Run beside the reader: a listener may itself wait for replies.
                        task = asyncio.ensure_future(outcome)
                        self._listening.add(task)
                        task.add_done_callback(self._listening.discard)
                continue
            future = self._pending.pop(message.get("id"), None)
            if future is None or future.done():
                continue
            if message.get("ok"):
                future.set_result(message["result"])
            else:
                future.set_exception(error_from_reply(message))
        for future in self._pending.values():
            if not future.done():
                future.set_exception(closed())
        self._pending.clear()
