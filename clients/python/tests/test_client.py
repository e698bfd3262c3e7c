"""The Python clients against the real binary."""
import asyncio
import json
import re
import subprocess
import sys

import pytest

from yomi_client import BotFailure, Cancelled, Client, InvalidOption, NotFound, RequestError, YomiError
from yomi_client.aio import AsyncClient

from conftest import ROOT

RPS = ["rock", "paper", "scissors"]


def test_handshake_catalog_and_an_explained_decision(server):
    with Client.tcp(*server) as yomi:
        hello = yomi.hello()
        assert hello["protocol"] == 1 and hello["compatible"]
        assert yomi.ping() == {"pong": True}
        assert any(b["id"] == "battle/delta-nash" for b in yomi.catalog()["bots"])
        agent = yomi.new_agent("example/rps", preset="reader", seed=42)["agent"]
        reply = yomi.act(agent, {"opponent_last": "rock"}, RPS, explain=True)
        assert reply["action"] == "paper"
        assert reply["explain"]["reason"] == "beats your last hand"
        # The bot's suggested think time for a human pace; the same seed, the same suggestion.
        assert reply["think_ms"] == 657
        assert "think_ms" not in yomi.act(
            yomi.new_agent("example/rps", seed=42, options={"think_scale": 0})["agent"],
            {"opponent_last": "rock"}, RPS)
        # Asked for it, the bot's policy: every hand with its probability, the action among them.
        lover = yomi.new_agent("example/rps", preset="rock-lover", seed=42)["agent"]
        drawn = yomi.act(lover, {"opponent_last": "rock"}, RPS, policy=True)
        policy = {e["action"]: e["p"] for e in drawn["policy"]}
        assert drawn["action"] in policy and abs(policy["rock"] - (0.8 + 0.2 / 3)) < 1e-12
        batch = yomi.act_batch(lover, [{"observation": {}}], policy=True)
        assert batch["decisions"][0]["policy"] == drawn["policy"]
        strong = yomi.new_agent("battle/delta-nash",
                                options={"limit_strength": True, "strength": 300})
        assert (strong["options"]["limit_strength"], strong["options"]["strength"]) == (True, 300)
        assert yomi.configure(agent, options={"reading": 2})["options"]["reading"] == 2
        assert yomi.act(agent, {"opponent_last": "rock"}, RPS)["action"] == "scissors"
        assert yomi.drop(agent) == {"dropped": agent}


def test_errors_are_typed_and_carry_codes(server):
    with Client.tcp(*server) as yomi:
        with pytest.raises(NotFound) as e:
            yomi.act("a9", {}, [])
        assert e.value.code == "unknown_agent"
        with pytest.raises(NotFound, match="unknown_bot"):
            yomi.new_agent("chess")
        with pytest.raises(InvalidOption) as e:
            yomi.new_agent("example/rps", options={"bias": 1.5})
        assert e.value.code == "invalid_option"
        with pytest.raises(RequestError) as e:
            yomi.request("agent.dance")
        assert e.value.code == "unknown_op"
        assert isinstance(e.value, YomiError)
        assert yomi.ping() == {"pong": True}  # the session goes on


def first_legal(turn):
    return turn["legal"][0]


def test_a_battle_against_delta_nash_from_a_client_seat(server):
    with Client.tcp(*server) as yomi:
        turns = []
        result = yomi.play_match(
            {"game": "battle", "seed": 5, "games": 1,
             "seats": [{"client": "me"}, {"bot": "battle/delta-nash", "preset": "human-like"}]},
            lambda turn: turns.append(turn) or first_legal(turn))
        assert result["games"] == 1 and sum(result["scores"]) == 1
        assert result["forfeits"] == [0, 0]
        assert len(turns) >= 3 and all(t["seat"] == 0 for t in turns)


def test_the_client_seat_can_ask_another_bot_while_playing(server):
    """on_turn may make requests of its own (here: a nash agent advises the client's seat)."""
    with Client.tcp(*server) as yomi:
        adviser = yomi.new_agent("battle/nash", seed=3)["agent"]
        result = yomi.play_match(
            {"game": "battle", "seed": 9, "games": 1,
             "seats": [{"client": "me"}, {"bot": "battle/delta-nash"}]},
            lambda turn: yomi.act(adviser, turn["observation"], turn["legal"])["action"])
        assert sum(result["scores"]) == 1 and result["forfeits"] == [0, 0]


def test_an_illegal_client_move_fails_the_match_as_its_policy_says(server):
    with Client.tcp(*server) as yomi:
        result = yomi.play_match(
            {"game": "battle", "seed": 1, "games": 1,
             "seats": [{"client": "me"}, {"bot": "battle/random"}]},
            lambda turn: {"switch": "nobody"})
        assert result["scores"] == [0.0, 1.0]
        assert result["failures"][0]["illegal"] == 1


def test_asyncio_client_plays_the_same_battle_as_the_blocking_one(server):
    params = {"game": "battle", "seed": 5, "games": 1,
              "seats": [{"client": "me"}, {"bot": "battle/delta-nash", "preset": "human-like"}]}
    with Client.tcp(*server) as yomi:
        blocking = []
        expected = yomi.play_match(params, lambda t: blocking.append(t["observation"]) or first_legal(t))

    async def run():
        async with await AsyncClient.tcp(*server) as yomi:
            seen = []

            async def on_turn(turn):
                seen.append(turn["observation"])
                await yomi.ping()  # a request from inside a turn must not stall the reader
                return first_legal(turn)

            pings = await asyncio.gather(*(yomi.ping() for _ in range(20)))
            assert pings == [{"pong": True}] * 20
            return await yomi.play_match(params, on_turn), seen

    result, observations = asyncio.run(run())
    assert result["scores"] == expected["scores"]
    assert observations == blocking


def test_stdio_clients_spawn_the_server(binary):
    with Client.spawn(binary) as yomi:
        assert yomi.ping() == {"pong": True}

    async def run():
        async with await AsyncClient.spawn(binary) as yomi:
            with pytest.raises(NotFound):
                await yomi.drop("a1")
            return await yomi.ping()

    assert asyncio.run(run()) == {"pong": True}


def test_every_bots_bad_observation_raises_request_error(server):
    with Client.tcp(*server) as yomi:
        for bot in ["battle/delta-nash", "stud/fuzzy", "sevens/dvalue", "dice/walker", "example/rps"]:
            agent = yomi.new_agent(bot)["agent"]
            with pytest.raises(RequestError) as e:
                yomi.act(agent, "not an observation", [])
            assert e.value.code == "invalid_params", bot
            assert e.value.message.startswith("`observation"), e.value.message


def test_a_request_the_bot_cannot_read_names_the_field_and_is_not_a_bot_failure(server):
    with Client.tcp(*server) as yomi:
        agent = yomi.new_agent("dice/dice")["agent"]
        with pytest.raises(RequestError) as e:
            yomi.call(agent, "roll", {"player": 7})
        assert e.value.code == "invalid_params" and "params.player" in str(e.value)
        assert not isinstance(e.value, BotFailure)


def test_matches_replays_tournaments_and_plugins(server):
    with Client.tcp(*server) as yomi:
        example = next(p for p in yomi.plugins() if p["name"] == "example")
        assert "rps" in example["bots"] and example["generation"] >= 1
        seats = [{"bot": "example/rps"}, {"bot": "example/rps", "preset": "reader"}]
        result = yomi.run_match({"game": "rps", "games": 3, "seats": seats}, seed=7, transcript=True)
        assert (result["games"], result["seed"], len(result["scores"])) == (3, 7, 2)
        replayed = yomi.replay("\n".join(json.dumps(line) for line in result["transcript"]))
        assert replayed["identical"], replayed
        events = []
        yomi.on("*", events.append)
        summary = yomi.run_tournament({"game": "rps", "bots": seats, "games_per_pair": 2, "seed": 3})
        assert summary["status"] == "finished" and summary["games"] == summary["scheduled"] > 0
        # Its events reach the listeners, though they carry the tournament's `id`.
        assert events[0] == {"event": "tournament.started", "id": summary["id"],
                             "scheduled": summary["scheduled"]}
        assert events[-1] == {"event": "tournament.progress", "id": summary["id"],
                              "games": summary["games"], "total": summary["scheduled"]}
        assert sorted(row["games"] for row in summary["standings"]) == [summary["games"]] * 2
        listed = {t["id"]: t for t in yomi.tournaments()}
        assert listed[summary["id"]]["status"] == "finished"
        with pytest.raises(NotFound) as e:
            yomi.load_plugin("libyomi_nothing_here.so")
        assert e.value.code == "not_found"


def test_a_request_is_cancelled_by_its_id_and_many_positions_go_in_one_request(server):
    with Client.tcp(*server) as yomi:
        # A match waiting for this client's move runs until it is cancelled.
        match = yomi.send("match.run", game="rps", seats=[{"bot": "example/rps"}, {"client": "me"}])
        assert yomi.cancel(match) == {"stopped": [{"request": match, "op": "match.run"}]}
        with pytest.raises(Cancelled) as e:
            yomi.wait(match)
        assert e.value.code == "cancelled"
        assert yomi.cancel(all=True) == {"stopped": []}
        agent = yomi.new_agent("example/rps", preset="reader")["agent"]
        decisions = yomi.act_batch(agent, [
            {"observation": {"opponent_last": "rock"}, "legal": RPS},
            {"observation": {"opponent_last": "rock"}, "legal": "rock"},
        ])["decisions"]
        assert decisions[0]["action"] == "paper" and decisions[0]["think_ms"] > 0
        assert decisions[1]["error"]["code"] == "invalid_params"


def test_the_asyncio_client_cancels_too(server):
    async def main():
        yomi = await AsyncClient.tcp(*server)
        async with yomi:
            match, result = yomi.start("match.run", game="rps", seats=[{"bot": "example/rps"}, {"client": "me"}])
            assert (await yomi.cancel(match))["stopped"] == [{"request": match, "op": "match.run"}]
            with pytest.raises(Cancelled):
                await result
    asyncio.run(main())


def test_the_readme_shows_async_start_as_it_is_used_and_that_runs(server):
    """`AsyncClient.start` returns `(id, future)` without being awaited; the README's example says
    so and runs against a server, printing what its comments say."""
    readme = (ROOT / "clients" / "python" / "README.md").read_text()
    (example,) = [b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if "yomi.start(" in b]
    assert re.search(r"^\s*rid, result = yomi\.start\(", example, re.M)
    assert "await yomi.start" not in example
    run = subprocess.run([sys.executable, "-c", example.replace("7878", str(server[1]))],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["[{'op': 'match.run', 'request': 1}]", "cancelled"]

    async def awaited():
        async with await AsyncClient.tcp(*server) as yomi:
            started = yomi.start("ping")
            assert await started[1] == {"pong": True}
            with pytest.raises(TypeError, match="await"):
                await yomi.start("ping")  # type: ignore[misc]
    asyncio.run(awaited())
