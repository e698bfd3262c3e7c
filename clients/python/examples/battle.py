"""A battle against delta-nash through a client seat: `python battle.py [HOST PORT]`
against `yomi serve --tcp 127.0.0.1:7878`."""
import sys

from yomi_client import Client

host, port = (sys.argv[1], int(sys.argv[2])) if len(sys.argv) > 2 else ("127.0.0.1", 7878)


def my_turn(turn):
    seen = turn["observation"]
    state, you = seen["state"], seen["you"]
    move = next((a for a in turn["legal"] if "move" in a), turn["legal"][0])
    print(f"turn {state['turn']}: your HP {state['hp'][you]}, the bot's {state['hp'][1 - you]} -> {move}")
    return move


with Client.tcp(host, port) as yomi:
    result = yomi.play_match(
        {"game": "battle", "seed": 7, "games": 1,
         "seats": [{"client": "me"}, {"bot": "battle/delta-nash", "preset": "human-like"}]},
        my_turn)
    print("scores (me, delta-nash):", result["scores"])
