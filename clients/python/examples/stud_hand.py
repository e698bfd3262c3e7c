"""One hand of seven-card stud against the fuzzy bluffing player, from a client seat:
`python stud_hand.py [HOST PORT]` against `yomi serve --tcp 127.0.0.1:7878`.
Our own player is plain: it calls when it can, opens at the minimum, reveals its first card."""
import sys

from yomi_client import Client

host, port = (sys.argv[1], int(sys.argv[2])) if len(sys.argv) > 2 else ("127.0.0.1", 7878)


def choose(legal):
    for wanted in ("call", "open"):
        for action in legal:
            if action.get("act") == wanted:
                chosen = {k: v for k, v in action.items() if k not in ("min", "max")}
                if "min" in action:
                    chosen["amount"] = action["min"]
                return chosen
    return legal[0]  # a reveal, or a drop when nothing else is offered


def my_turn(turn):
    seen = turn["observation"]
    action = choose(turn["legal"])
    print(f"interval {seen['turn']}: mine {seen['hole']} {seen['up']}, theirs {seen['opp_up']}, "
          f"pot {seen['pot']} -> {action}")
    return action


with Client.tcp(host, port) as yomi:
    result = yomi.play_match(
        {"game": "stud", "seed": 3, "games": 1, "seats": [{"client": "me"}, {"bot": "stud/fuzzy"}]},
        my_turn)
    print("scores (me, fuzzy):", result["scores"])
