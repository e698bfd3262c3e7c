"""The engine kit's side of the engine protocol (PROTOCOL.md, "Engines"), one line at a time.
The real binary driving the kit's engines is tested in tests/tests/engines.rs."""
import json

from yomi_client.engine import BotError, Engine


def counter():
    bot = Engine("counter", "plays the legal action at its count", games=["rps"])
    bot.option("step", "int", 1, "how far it counts each time", min=1, max=3)
    bot.preset("double", "counts by two", step=2)
    seen = []

    @bot.act
    def act(observation, legal, me):
        if not isinstance(observation, dict):
            raise BotError("the observation must be an object", "invalid_params")
        me.state["count"] = me.state.get("count", 0) + me.options["step"]
        me.explanation = {"count": me.state["count"]}
        return legal[me.state["count"] % len(legal)]

    @bot.observe
    def observe(event, me):
        seen.append(event)

    @bot.method("echo", "its parameters back")
    def echo(params, me):
        return {"params": params, "seed": me.seed}

    return bot, seen


def ask(bot, request):
    return bot.answer(json.dumps(request))


def test_the_handshake_declares_the_bot_and_refuses_another_version():
    bot, _ = counter()
    hello = ask(bot, {"hello": {"protocol": "yomi-engine", "version": 1}})
    assert hello["ok"] and hello["result"]["version"] == 1
    engine = hello["result"]["engine"]
    assert engine["name"] == "counter" and engine["games"] == ["rps"]
    assert engine["options"] == [{"name": "step", "type": "int", "default": 1,
                                  "description": "how far it counts each time", "min": 1, "max": 3}]
    assert engine["presets"][0]["options"] == {"step": 2}
    assert engine["methods"][0]["name"] == "echo"
    refused = ask(bot, {"hello": {"protocol": "yomi-engine", "version": 2}})
    assert refused["error"]["code"] == "invalid_request"


def test_calls_reach_the_bots_functions_with_its_options():
    bot, seen = counter()
    assert ask(bot, {"call": {"call": "act", "observation": {}, "legal": ["a"]}})["error"]["code"] == "invalid_request"
    assert ask(bot, {"open": {"kind": "agent", "bot": "c", "options": {"step": 1},
                              "context": {"seed": 9}}}) == {"ok": True, "result": None}
    act = {"call": {"call": "act", "observation": {}, "legal": ["a", "b", "c"], "explain": True}}
    assert ask(bot, act)["result"] == {"action": "b", "explain": {"count": 1}}
    ask(bot, {"call": {"call": "configure", "options": {"step": 2}}})
    act["call"]["explain"] = False
    assert ask(bot, act)["result"] == {"action": "a"}
    ask(bot, {"call": {"call": "observe", "event": {"round": 1}}})
    assert seen == [{"round": 1}]
    echo = ask(bot, {"call": {"call": "service", "method": "echo", "params": {"x": 1}}})
    assert echo["result"] == {"params": {"x": 1}, "seed": 9}
    bad = ask(bot, {"call": {"call": "act", "observation": 7, "legal": ["a"]}})
    assert bad["error"] == {"code": "invalid_params", "message": "the observation must be an object"}
    crash = ask(bot, {"call": {"call": "service", "method": "nope"}})
    assert crash["error"]["code"] == "unknown_method"
    assert bot.answer("not json")["error"]["code"] == "invalid_request"
