"""The PettingZoo parallel environment for the simultaneous games against the real binary: the API
and seed checks, each agent seeing only its own seat, steps where one side alone decides, and bad
input. Needs the `rl` extra (scripts/test-rl.sh)."""
import warnings

import pytest

pytest.importorskip("gymnasium")  # the rl extra; test-web.sh runs without it
pytest.importorskip("pettingzoo")

import numpy as np  # noqa: E402

from pettingzoo.test import parallel_api_test, parallel_seed_test  # noqa: E402

from yomi_client.envs import YomiParallelEnv  # noqa: E402

# (game options, seats): two agents, and one agent against a bot.
CASES = {
    "rps": ({"rounds": 3}, ["agent", "agent"]),
    "rps-bot": ({"rounds": 3}, ["example/rps", "agent"]),
    "battle": ({}, ["agent", "agent"]),
    "battle-bot": ({}, ["agent", {"bot": "battle/delta-nash", "preset": "human-like"}]),
}


def make(binary, case, **kwargs):
    options, seats = CASES[case]
    return YomiParallelEnv(case.split("-")[0], seats, game_options=options, binary=binary, **kwargs)


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("flat", [False, True])
def test_parallel_api_test(binary, case, flat):
    env = make(binary, case, flat=flat, render_mode="ansi")
    try:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            parallel_api_test(env, num_cycles=200)
        assert [str(w.message) for w in seen] == []
    finally:
        env.close()


@pytest.mark.parametrize("case", sorted(CASES))
def test_parallel_seed_test(binary, case):
    parallel_seed_test(lambda: make(binary, case), num_cycles=200)


def play(env, seed, on_step):
    """One episode of seeded random legal actions, calling `on_step(infos, observations)` on each
    step's decisions; returns the final rewards."""
    rng = np.random.default_rng(seed)
    obs, infos = env.reset(seed=seed)
    while True:
        on_step(obs, infos)
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"])))
                   for a, o in obs.items() if o["action_mask"].any()}
        obs, rewards, terminated, truncated, infos = env.step(actions)
        if all(terminated.values()):
            return rewards


@pytest.mark.parametrize("case", ["rps", "battle"])
def test_every_agent_sees_its_own_seat_only(binary, case):
    """Every decision an agent is handed, raw and encoded, is its own seat's: the observation
    names the seat (rps: `seat`; battle: `you`, the party the record's `sides` gives the seat),
    and the agent's encoding is that of its own observation."""
    env = make(binary, case, flat=True)
    named = {}  # agent -> the seat or side its observations name, this episode

    def check(obs, infos):
        for agent, info in infos.items():
            if "observation" in info:
                key = "you" if case == "battle" else "seat"
                named.setdefault(agent, set()).add(info["observation"][key])
                mine = env._table.encoding.encode(info["observation"], info["legal"], True)
                np.testing.assert_array_equal(obs[agent]["observation"], mine["observation"])
                np.testing.assert_array_equal(obs[agent]["action_mask"], mine["action_mask"])

    try:
        for seed in range(3):
            named.clear()
            play(env, seed, check)
            end = env._table.end
            own = end.record["summary"]["sides"] if case == "battle" else [0, 1]
            assert named == {f"seat_{seat}": {own[seat]} for seat in (0, 1)}
    finally:
        env.close()


def test_a_battle_step_where_one_side_sends_in_a_replacement_asks_that_agent_alone(binary):
    env = make(binary, "battle")
    steps = {"both": 0, "one": 0}

    def count(obs, infos):
        deciding = [a for a, o in obs.items() if o["action_mask"].any()]
        assert deciding, "a step with nobody to decide"
        if len(deciding) == 2:
            steps["both"] += 1
            assert all(infos[a]["observation"]["phase"] == "choose" for a in deciding)
        else:
            steps["one"] += 1
            assert infos[deciding[0]]["observation"]["phase"] == "replace"

    try:
        rewards = [play(env, seed, count) for seed in range(4)]
    finally:
        env.close()
    assert steps["both"] > 0 and steps["one"] > 0
    assert all(sum(r.values()) == pytest.approx(1.0) for r in rewards)


def test_bad_input_gets_clear_errors(binary):
    with pytest.raises(ValueError, match="not a simultaneous game"):
        YomiParallelEnv("stud", ["agent", "stud/fuzzy"], binary=binary)
    env = make(binary, "rps", illegal="raise")
    try:
        with pytest.raises(RuntimeError, match="reset"):
            env.step({"seat_0": 0, "seat_1": 0})
        obs, _ = env.reset(seed=1)
        with pytest.raises(ValueError, match=r"no action for \['seat_1'\]"):
            env.step({"seat_0": 0})
        with pytest.raises(ValueError, match="outside"):
            env.step({"seat_0": 0, "seat_1": 99})
        # Nothing was sent: a whole step still plays.
        legal = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items()}
        obs, rewards, terminated, _, infos = env.step(legal)
        assert not any(terminated.values())
        assert all(info["observation"]["round"] == 2 for info in infos.values())
    finally:
        env.close()


def test_reset_in_the_middle_of_a_game_starts_afresh_and_replays_the_seed(binary):
    env = make(binary, "battle")
    try:
        first, _ = env.reset(seed=5)
        actions = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in first.items()}
        env.step(actions)  # a game in play, both decisions of its next step pending
        again, infos = env.reset(seed=5)
        assert env.agents == ["seat_0", "seat_1"]
        assert all(infos[a]["observation"]["state"]["turn"] == 1 for a in env.agents)
        for agent in env.agents:
            np.testing.assert_array_equal(again[agent]["action_mask"], first[agent]["action_mask"])
    finally:
        env.close()
