"""Engines that each break one rule of `yomi check`: `python3 broken.py FLAW`. The same
rock-paper-scissors player as the `nonconform` plugin fixture's bots, written with the Python
engine kit, with one flaw:

    version      answers the handshake with a protocol version yomi does not speak
    misdeclared  declares a bias default outside its range
    illegal      throws lizard
    unseeded     ignores its seed
    fragile      dies on an observation that is not an object
    touchy       dies on a table option that is not an object
    stubborn     ignores configure
    slow         takes 20 ms a decision
"""
import os
import random
import sys
import time

from yomi_client.engine import Engine, BotError

flaw = sys.argv[1]
bot = Engine(f"broken-{flaw}", f"test fixture: an engine that breaks one rule ({flaw})", games=["rps"])
bot.option("favourite", "choice", "rock", "its hand", choices=["rock", "paper", "scissors"])
bias = {"misdeclared": 2.0, "unseeded": 0.0}.get(flaw, 0.5)
bot.option("bias", "float", bias, "how often it throws its favourite", min=0.0, max=1.0)
if flaw == "touchy":
    bot.option("table", "json", {}, "an object")


def take(options, me):
    """Reads the options as the bot plays them; the stubborn bot keeps those it was made with."""
    if flaw == "touchy" and not isinstance(options["table"], dict):
        os._exit(70)
    if flaw != "stubborn" or "favourite" not in me.state:
        me.state["favourite"], me.state["bias"] = options["favourite"], options["bias"]


@bot.act
def act(observation, legal, me):
    if not isinstance(observation, dict):
        if flaw == "fragile":
            os._exit(70)
        raise BotError("the observation must be an object", "invalid_params")
    if flaw == "illegal":
        return "lizard"
    if flaw == "slow":
        time.sleep(0.02)
    draw = random.random if flaw == "unseeded" else me.rng.random
    if draw() < me.state["bias"] and me.state["favourite"] in legal:
        return me.state["favourite"]
    return legal[min(int(draw() * len(legal)), len(legal) - 1)]


@bot.configure
def configure(options, me):
    take(options, me)


if flaw == "version":
    bot._hello = lambda body: {"protocol": "yomi-engine", "version": 2, "engine": bot.declaration()}

if __name__ == "__main__":
    bot.run()
