"""A rock-paper-scissors engine: throws what beats the hand you throw most, now and then at
random. Served by yomi: `yomi serve --engine rps-py="python3 clients/python/examples/rps_engine.py"`,
seated as `engine/rps-py` (PROTOCOL.md, "Engines")."""
from collections import Counter

from yomi_client.engine import Engine

BEATS = {"rock": "paper", "paper": "scissors", "scissors": "rock"}

bot = Engine("frequency", "Beats the hand you throw most, sometimes at random", games=["rps"])
bot.option("randomness", "float", 0.2, "chance of a random hand", min=0.0, max=1.0)
bot.preset("predictable", "always counters", randomness=0.0)
bot.preset("wild", "random half of the time", randomness=0.5)


@bot.act
def act(observation, legal, me):
    theirs = Counter(round[1 - observation["seat"]] for round in observation["history"])
    if not theirs or me.rng.random() < me.options["randomness"]:
        return me.rng.choice(legal)
    return BEATS[theirs.most_common(1)[0][0]]


if __name__ == "__main__":
    bot.run()
