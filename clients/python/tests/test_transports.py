"""Every transport of both Python clients: pipelined requests, two client seats of one match
(both `your_turn` events often arrive in one read), the token's `hello`, and a quiet spawn."""
import asyncio
import json
import os
import socket
import subprocess
import sys
import textwrap
import threading

import pytest
from conftest import within

from yomi_client import Client, Refused
from yomi_client.aio import AsyncClient

TWO_SEATS = {"game": "battle", "seed": 11, "games": 2,
             "seats": [{"client": "left"}, {"client": "right"}]}


def open_sync(kind, server, binary, **extra):
    if kind == "tcp":
        return Client.tcp(*server, timeout=60, **extra)
    return Client.spawn(binary, **extra)


async def open_async(kind, server, binary, **extra):
    if kind == "tcp":
        return await AsyncClient.tcp(*server, **extra)
    return await AsyncClient.spawn(binary, **extra)


def pipelined(yomi):
    """Requests sent ahead of the replies they wait for; every reply must still be there."""
    first, second = yomi.send("ping"), yomi.send("ping")
    assert yomi.wait(first) == {"pong": True}
    third = yomi.send("ping")
    assert yomi.wait(second) == {"pong": True}
    assert yomi.wait(third) == {"pong": True}
    ids = [yomi.send("ping") for _ in range(200)]
    agent = yomi.new_agent("example/rps", seed=1)["agent"]  # a request between sends and waits
    assert [yomi.wait(i) for i in ids] == [{"pong": True}] * 200
    return agent


def both_seats(turns):
    def on_turn(turn):
        turns.append(turn["seat"])
        return turn["legal"][0]
    return on_turn


@pytest.mark.parametrize("kind", ["tcp", "stdio"])
def test_pipelined_requests_keep_every_reply(kind, server, binary):
    def run():
        with open_sync(kind, server, binary) as yomi:
            return pipelined(yomi)

    assert within(60, run).startswith("a")


@pytest.mark.parametrize("kind", ["tcp", "stdio"])
def test_one_client_plays_two_seats_of_a_simultaneous_game(kind, server, binary):
    def run():
        turns = []
        with open_sync(kind, server, binary) as yomi:
            return yomi.play_match(TWO_SEATS, both_seats(turns)), turns

    result, turns = within(120, run)
    assert result["games"] == 2 and sum(result["scores"]) == 2
    assert result["forfeits"] == [0, 0]
    assert turns.count(0) >= 3 and turns.count(1) >= 3


@pytest.mark.parametrize("kind", ["tcp", "stdio"])
def test_asyncio_client_pipelines_and_plays_two_seats(kind, server, binary):
    async def run():
        async with await open_async(kind, server, binary) as yomi:
            pings = await asyncio.gather(*(yomi.ping() for _ in range(200)))
            assert pings == [{"pong": True}] * 200
            turns = []
            return await yomi.play_match(TWO_SEATS, both_seats(turns)), turns

    result, turns = asyncio.run(asyncio.wait_for(run(), 120))
    assert result["games"] == 2 and result["forfeits"] == [0, 0]
    assert turns.count(0) >= 3 and turns.count(1) >= 3


class FakeServer:
    """A TCP listener that records the first line a client sends and answers it as `hello` would
    (or with `error`, as a server refusing the token would)."""

    def __init__(self, error=None):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = self.listener.getsockname()
        self.first_line = None
        self.error = error
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        conn, _ = self.listener.accept()
        with conn, conn.makefile("rb") as lines:
            for line in lines:
                request = json.loads(line)
                if self.first_line is None:
                    self.first_line = request
                reply = {"id": request["id"], "ok": True, "result": {}}
                if self.error:
                    reply = {"id": request["id"], "ok": False, "error": {"code": self.error, "message": "no"}}
                conn.sendall((json.dumps(reply) + "\n").encode())


def first_line_over_tcp(token=None, sync=True):
    fake = FakeServer()
    if sync:
        within(10, lambda: Client.tcp(*fake.address, timeout=10, token=token).close())
    else:
        async def run():
            await (await AsyncClient.tcp(*fake.address, token=token)).close()
        asyncio.run(asyncio.wait_for(run(), 10))
    return fake.first_line


@pytest.mark.parametrize("sync", [True, False])
def test_a_token_is_said_in_hello_before_anything_else(sync, monkeypatch):
    monkeypatch.delenv("YOMI_TOKEN", raising=False)
    hello = first_line_over_tcp("s3cret", sync)
    assert hello["op"] == "hello" and hello["token"] == "s3cret" and hello["protocol"] == 1
    monkeypatch.setenv("YOMI_TOKEN", "from-env")
    assert first_line_over_tcp(None, sync)["token"] == "from-env"
    assert first_line_over_tcp("given", sync)["token"] == "given"  # the argument wins


def test_without_a_token_nothing_is_sent_first(monkeypatch):
    monkeypatch.delenv("YOMI_TOKEN", raising=False)
    assert first_line_over_tcp(None) is None


def test_spawn_says_hello_with_the_token(tmp_path, monkeypatch):
    """A stand-in `yomi` that writes down the first line it reads, then answers like the server."""
    monkeypatch.delenv("YOMI_TOKEN", raising=False)
    record = tmp_path / "first.json"
    stand_in = tmp_path / "yomi"
    stand_in.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import json, sys
        first = None
        for line in sys.stdin:
            request = json.loads(line)
            if first is None:
                first = request
                open({str(record)!r}, "w").write(line)
            print(json.dumps({{"id": request["id"], "ok": True, "result": {{"pong": True}}}}), flush=True)
        """))
    stand_in.chmod(0o755)
    with Client.spawn(str(stand_in), token="tok") as yomi:
        assert yomi.ping() == {"pong": True}
    hello = json.loads(record.read_text())
    assert hello["op"] == "hello" and hello["token"] == "tok"


def test_spawn_keeps_the_servers_info_lines_off_the_users_stderr(binary, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("YOMI_LOG", "RUST_LOG")}
    script = ("import sys\nfrom yomi_client import Client\n"
              "with Client.spawn(sys.argv[1]) as yomi:\n    print(yomi.ping())\n")
    done = subprocess.run([sys.executable, "-c", script, binary], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "{'pong': True}"
    assert "INFO" not in done.stderr and "loaded" not in done.stderr, done.stderr
    env["YOMI_LOG"] = "info"  # a level the user chose is kept
    chosen = subprocess.run([sys.executable, "-c", script, binary], env=env, capture_output=True,
                            text=True, timeout=60)
    assert "loaded" in chosen.stderr


def test_a_refused_token_raises_refused_at_connect(monkeypatch):
    monkeypatch.delenv("YOMI_TOKEN", raising=False)
    fake = FakeServer(error="unauthorized")
    with pytest.raises(Refused) as e:
        within(10, Client.tcp, *fake.address, 10, "wrong")
    assert e.value.code == "unauthorized"
