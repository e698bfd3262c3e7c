"""Each game's encoding on observations from its plugin's README (no server needed)."""
import pytest

pytest.importorskip("gymnasium")  # the rl extra; test-web.sh runs without it

import numpy as np  # noqa: E402

from yomi_client.envs import encoding_for  # noqa: E402

SEVENS = {"seat": 1, "players": 3, "move": 10,
          "hand": ["AS", "5S", "JS", "9H", "JH", "QH", "KH", "AD", "3D", "10D", "KD", "3C", "KC"],
          "table": ["7S", "6H", "7H", "5D", "6D", "7D", "4C", "5C", "6C", "7C", "8C", "9C", "10C", "JC"],
          "ends": {"S": [7, 7], "H": [6, 7], "D": [5, 7], "C": [4, 11]},
          "hand_sizes": [12, 13, 13], "passes_used": [0, 0, 0], "passes_left": [3, 2, 1],
          "pass_limit": 3, "out_of_passes": "out", "ranks": [None, None, None],
          "went_out": [False, False, False]}
STUD = {"seat": 0, "position": 0, "game": 1, "games": 500, "turn": 2, "phase": "bet", "pot": 36,
        "paid": [18, 18], "chips": [100000, 100000], "hole": ["As", "7d"], "up": ["Kc", "Kd"],
        "opp_up": ["9h", "2s"], "opp_hole_count": 2, "history": [],
        "legal": [{"act": "drop"}, {"act": "open", "min": 1, "max": 36}]}
PARTIES = [[{"hp": 5, "moves": ["grass", "fire", "electric"], "name": "A", "speed": 5, "type": "grass"},
            {"hp": 5, "moves": ["water", "fire", "electric"], "name": "B", "speed": 4, "type": "water"},
            {"hp": 5, "moves": ["electric", "grass", "water"], "name": "C", "speed": 10, "type": "electric"}],
           [{"hp": 5, "moves": ["grass", "fire", "electric"], "name": "D", "speed": 6, "type": "grass"},
            {"hp": 4, "moves": ["water", "fire", "electric"], "name": "E", "speed": 7, "type": "fire"},
            {"hp": 4, "moves": ["electric", "grass", "water"], "name": "F", "speed": 8, "type": "electric"}]]
BATTLE = {"you": 1, "phase": "choose", "state": {"turn": 3, "hp": [[5, 2, 5], [1, 4, 4]], "active": ["B", "F"]},
          "rules": {"parties": PARTIES, "same_type_neutral": False, "turn_limit": 20}}


def test_sevens_cards_and_seat_relative_counts():
    encoding = encoding_for("sevens", {"players": 3})
    encoded = encoding.encode(SEVENS, ["3C", "pass"])
    features = encoded["observation"]
    assert np.flatnonzero(encoded["action_mask"]).tolist() == [3 * 13 + 2, 52]  # 3C, pass
    assert features["hand"][0] == 1 and features["hand"][3 * 13 + 12] == 1 and features["hand"].sum() == 13
    assert features["table"].sum() == 14 and features["ends"][3].tolist() == [4, 11]
    assert features["hand_sizes"].tolist() == [13, 13, 12]  # own seat (1) first
    assert features["passes_left"].tolist() == [2, 1, 3]
    assert encoding.observation_space().contains(encoded)


def test_stud_bet_slots_and_amounts():
    encoding = encoding_for("stud")
    encoded = encoding.encode(STUD, STUD["legal"])
    features = encoded["observation"]
    assert encoded["action_mask"].tolist() == [1, 0, 1, 1, 1, 0, 0, 0]
    assert encoding.actions(STUD, STUD["legal"])[3] == {"act": "open", "amount": 18}  # half the pot
    assert features["amounts"].tolist() == [0, 1, 18, 36]
    assert np.flatnonzero(features["hole"]).tolist() == [12, 2 * 13 + 5]  # As, 7d
    assert encoding.observation_space().contains(encoded)
    reveal = {**STUD, "phase": "reveal"}
    assert encoding.encode(reveal, [{"reveal": "7d"}])["action_mask"].tolist() == [0] * 6 + [1, 0]


def test_battle_is_side_relative_and_slots_follow_the_party():
    encoding = encoding_for("battle")
    legal = [{"move": "electric"}, {"move": "grass"}, {"move": "water"}, {"switch": "D"}, {"switch": "E"}]
    encoded = encoding.encode(BATTLE, legal)
    party = encoded["observation"]["party"]
    assert party[0, 2, :4].tolist() == [4, 4, 8, 1]  # own F: HP, starting HP, speed, active
    assert party[1, 0, :4].tolist() == [5, 5, 5, 0]  # the opponent's A
    assert encoded["action_mask"].tolist() == [1, 1, 1, 1, 1, 0]
    assert encoding.actions(BATTLE, legal)[4] == {"switch": "E"}
    flat = encoding.encode(BATTLE, legal, flat=True)["observation"]
    assert flat.shape == encoding.observation_space(flat=True)["observation"].shape


def test_rps_history_is_seen_from_the_own_seat():
    observation = {"history": [["rock", "paper"]], "opponent_last": "rock", "round": 2, "rounds": 3,
                   "score": [0.0, 1.0], "seat": 1}
    features = encoding_for("rps").features(observation)
    assert features["history"][0].tolist() == [[0, 1, 0], [1, 0, 0]]
    assert features["score"].tolist() == [1.0, 0.0]


def test_bad_observations_and_options_are_clear_errors():
    with pytest.raises(ValueError, match="sevens observation without `ends`"):
        encoding_for("sevens").encode({"seat": 0}, ["pass"])
    with pytest.raises(ValueError, match="'1X' is not a card"):
        encoding_for("sevens").encode({**SEVENS, "hand": ["1X"]}, ["pass"])
    with pytest.raises(ValueError, match="none of the legal actions"):
        encoding_for("rps").encode({"history": [], "round": 1, "score": [0, 0], "seat": 0}, ["lizard"])
    with pytest.raises(ValueError, match="`board` must be"):
        encoding_for("sugoroku", {"board": "long"})
    with pytest.raises(ValueError, match="square 50 is not on a board of 42"):
        encoding_for("sugoroku").actions({}, [50])
    with pytest.raises(ValueError, match="both parties"):
        encoding_for("battle").encode({**BATTLE, "rules": {"parties": "thesis"}}, [{"move": "fire"}])
