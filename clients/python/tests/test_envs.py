"""The RL environments against the real binary: the Gymnasium and PettingZoo API checks for every
game, seeds, masks, illegal actions and bad input. Needs the `rl` extra (scripts/test-rl.sh)."""
import json
import warnings

import pytest

gymnasium = pytest.importorskip("gymnasium")  # the rl extra; test-web.sh runs without it
pytest.importorskip("pettingzoo")

import numpy as np  # noqa: E402

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

from yomi_client import NotFound  # noqa: E402
from yomi_client.envs import ENCODINGS, YomiAECEnv, YomiEnv  # noqa: E402

# One small configuration per game: (game, game options, the bots beside one agent seat).
GAMES = {
    "rps": ({"rounds": 3}, ["example/rps"]),
    "battle": ({}, [{"bot": "battle/delta-nash", "preset": "human-like"}]),
    "stud": ({}, ["stud/fuzzy"]),
    "sevens": ({}, ["sevens/dvalue", {"bot": "sevens/student", "preset": "eager"}]),
    "sugoroku": ({"runs": 2}, []),
}
# Advice the checkers give every environment of this layout (a Dict with an action mask, text
# rendering); anything else they say fails the test.
GYM_ADVICE = ("No render fps was declared",)
AEC_ADVICE = ("Observation is not a NumPy array",
              "Observation space for each agent probably should be gymnasium.spaces.box")


def test_every_served_game_has_an_encoding(binary):
    from yomi_client import Client

    with Client.spawn(binary) as yomi:
        served = {g["name"] for g in yomi.catalog()["games"]}
    assert served == set(GAMES) == set(ENCODINGS)


def checked(advice, run):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        run()
    unexpected = [str(w.message) for w in seen if not any(a in str(w.message) for a in advice)]
    assert unexpected == []


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("flat", [False, True])
def test_gymnasium_check_env(binary, game, flat):
    options, bots = GAMES[game]
    env = gymnasium.make("yomi/Yomi-v0", game=game, seats=["agent", *bots], game_options=options,
                         binary=binary, flat=flat, render_mode="ansi")
    try:
        checked(GYM_ADVICE, lambda: check_env(env.unwrapped))
    finally:
        env.close()


def aec_seats(game):
    """Two agent seats (three seats for sevens, one of them a bot)."""
    return ["agent", "agent", "sevens/student"] if game == "sevens" else ["agent", "agent"]


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("flat", [False, True])
def test_pettingzoo_api_test(binary, game, flat):
    env = YomiAECEnv(game, aec_seats(game), game_options=GAMES[game][0], binary=binary,
                     flat=flat, render_mode="ansi")
    try:
        checked(AEC_ADVICE, lambda: api_test(env, num_cycles=200))
    finally:
        env.close()


@pytest.mark.parametrize("game", sorted(GAMES))
def test_pettingzoo_seed_test(binary, game):
    seed_test(lambda: YomiAECEnv(game, aec_seats(game), game_options=GAMES[game][0], binary=binary),
              num_cycles=200)


def episode(env, seed, rng_seed=0):
    """The raw observations and reward of one episode of seeded random legal actions."""
    rng = np.random.default_rng(rng_seed)
    obs, info = env.reset(seed=seed)
    seen = [info["observation"]]
    while True:
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if terminated or truncated:
            return seen, reward, info
        seen.append(info["observation"])


def test_the_same_seed_gives_the_same_episode_and_another_seed_another(binary):
    env = YomiEnv("stud", ["agent", "stud/fuzzy"], binary=binary)
    other = YomiEnv("stud", ["agent", "stud/fuzzy"], binary=binary)
    try:
        first = episode(env, seed=11)
        assert episode(other, seed=11) == first
        assert episode(env, seed=11) == first
        assert episode(env, seed=12)[0][0]["hole"] != first[0][0]["hole"]
    finally:
        env.close()
        other.close()


def test_the_match_seed_in_info_replays_the_episode_outside_the_environment(binary):
    from yomi_client import Client

    env = YomiEnv("stud", ["agent", "stud/fuzzy"], binary=binary)
    rng = np.random.default_rng(2)
    try:
        obs, info = env.reset(seed=21)
        seen, sent = [], []
        while "legal" in info:
            seen.append(info["observation"])
            slot = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            sent.append(env.unwrapped._table.encoding.actions(info["observation"], info["legal"])[slot])
            obs, reward, _, _, info = env.step(slot)
    finally:
        env.close()
    replayed, moves = [], iter(sent)
    with Client.spawn(binary) as yomi:
        result = yomi.play_match({"game": "stud", "seed": info["match_seed"], "games": 1,
                                  "seats": [{"client": "me"}, {"bot": "stud/fuzzy"}]},
                                 lambda turn: replayed.append(turn["observation"]) or next(moves))
    assert replayed == seen and result["scores"][0] == reward


@pytest.mark.parametrize("game", sorted(GAMES))
def test_masks_are_the_legal_actions(binary, game):
    """Each open slot sends one of the decision's legal actions; where a game's legal actions
    are discrete (all but stud's bet amounts) every one of them has its slot."""
    options, bots = GAMES[game]
    env = YomiEnv(game, ["agent", *bots], game_options=options, binary=binary)
    rng = np.random.default_rng(5)
    try:
        obs, info = env.reset(seed=5)
        decisions = 0
        while "legal" in info:
            slots = env.unwrapped._table.encoding.actions(info["observation"], info["legal"])
            opened = [slots[i] for i in np.flatnonzero(obs["action_mask"])]
            assert all(s is not None for s in opened) and len(opened) == sum(s is not None for s in slots)
            if game == "stud":
                assert all(fits_stud(a, info["legal"]) for a in opened)
            else:
                assert sorted(map(str, opened)) == sorted(map(str, info["legal"]))
            decisions += 1
            obs, _, _, _, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert decisions >= 1 and "scores" in info
    finally:
        env.close()


def fits_stud(action, legal):
    for offer in legal:
        if "reveal" in action or offer.get("act") in ("drop", "call"):
            if action == offer:
                return True
        elif offer.get("act") == action.get("act") and offer["min"] <= action["amount"] <= offer["max"]:
            return True
    return False


def test_a_bots_personality_reaches_its_seat(binary):
    """`reader` always beats the hand the agent threw last."""
    env = YomiEnv("rps", ["agent", {"bot": "example/rps", "preset": "reader"}],
                  game_options={"rounds": 5}, binary=binary)
    try:
        env.reset(seed=3)
        for _ in range(4):
            obs, _, _, _, info = env.step(0)  # rock
        assert [theirs for _, theirs in info["observation"]["history"][1:]] == ["paper"] * 3
        assert list(obs["observation"]["opponent_last"]) == [0, 1, 0]
    finally:
        env.close()


def test_the_seat_count_fills_the_option_that_counts_seats(binary):
    env = YomiAECEnv("sevens", ["agent", "agent", "agent", "sevens/greedy"], binary=binary)
    try:
        env.reset(seed=2)
        assert env.observe("seat_0")["observation"]["hand_sizes"].shape == (4,)
        assert env.infos[env.agent_selection]["observation"]["players"] == 4
    finally:
        env.close()


def test_an_illegal_action_forfeits_or_raises(binary):
    env = YomiEnv("sevens", ["agent", "sevens/random", "sevens/random"], binary=binary)
    strict = YomiEnv("sevens", ["agent", "sevens/random", "sevens/random"], illegal="raise", binary=binary)
    try:
        obs, _ = env.reset(seed=1)
        illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
        obs, reward, terminated, _, info = env.step(illegal)
        assert terminated and reward == 0.0
        assert info["record"]["failures"][0]["illegal"] == 1 and not obs["action_mask"].any()

        obs, _ = strict.reset(seed=1)
        with pytest.raises(ValueError, match="not legal now"):
            strict.step(illegal)
        _, _, terminated, _, info = strict.step(int(np.flatnonzero(obs["action_mask"])[0]))
        assert not terminated and "legal" in info  # the refused action cost nothing
    finally:
        env.close()
        strict.close()


def test_reset_in_the_middle_of_a_game_starts_afresh(binary):
    env = YomiEnv("battle", ["agent", "battle/random"], binary=binary)
    fresh = YomiEnv("battle", ["agent", "battle/random"], binary=binary)
    try:
        for _ in range(3):  # each abandoned game is forfeited and the server is ready for the next
            obs, _ = env.reset(seed=4)
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        assert episode(env, seed=4) == episode(fresh, seed=4)
    finally:
        env.close()
        fresh.close()


def test_bad_input_gets_clear_errors(binary):
    with pytest.raises(ValueError, match="no environment encoding for game 'chess'"):
        YomiEnv("chess", ["agent", "x/y"], binary=binary)
    with pytest.raises(ValueError, match="no seat is \"agent\""):
        YomiAECEnv("rps", ["example/rps", "example/rps"], binary=binary)
    with pytest.raises(ValueError, match="seat 1: 'rps'"):
        YomiEnv("rps", ["agent", "rps"], binary=binary)
    with pytest.raises(ValueError, match="exactly one \"agent\" seat"):
        YomiEnv("rps", ["agent", "agent"], binary=binary)
    with pytest.raises(ValueError, match="render_mode must be None or \"ansi\""):
        YomiAECEnv("rps", ["agent", "example/rps"], render_mode="human", binary=binary)
    with pytest.raises(ValueError, match="illegal must be one of"):
        YomiEnv("rps", ["agent", "example/rps"], illegal="ignore", binary=binary)
    env = YomiEnv("rps", ["agent", "example/nobody"], binary=binary)
    try:
        with pytest.raises(NotFound, match="unknown_bot"):
            env.reset(seed=1)
    finally:
        env.close()
    env = YomiEnv("rps", ["agent", "example/rps"], render_mode="ansi", binary=binary)
    try:
        with pytest.raises(RuntimeError, match="reset the environment first"):
            env.step(0)
        env.reset(seed=1)
        assert json.loads(env.render())["legal"] == ["rock", "paper", "scissors"]
        for bad, message in [(3, "outside 0..2"), (-1, "outside 0..2"), ("rock", "not 'rock'"), (True, "not True")]:
            with pytest.raises(ValueError, match=message):
                env.step(bad)
        env.step(np.int64(1))  # any integer type a policy returns
    finally:
        env.close()
