"""A battle engine that plays the equilibrium: for every position it asks the battle plugin's own
`analyze` service (through a `yomi serve` of its own, see `yomi_server`) for the exact Nash
strategy and samples it; when a Pokémon faints it sends in the one whose position is worth most.
Served by yomi: `yomi serve --engine nash-py="python3 clients/python/examples/battle_engine.py"`,
seated as `engine/nash-py` (PROTOCOL.md, "Engines")."""
from yomi_client.engine import Engine, yomi_server

bot = Engine("nash-py", "Samples the exact equilibrium of each position, via battle's analyze",
             games=["battle"])
bot.option("greed", "float", 0.0, "chance of the best pure action instead of a sample", min=0.0, max=1.0)
bot.preset("greedy", "always the best pure action", greed=1.0)
analyst = {}  # one yomi server and one analyst agent per engine process, made at first use


def analyze(observation, active, me):
    """The equilibrium of the position with `active` ("A,D") in play, as `analyze` returns it."""
    if not analyst:
        analyst["yomi"] = yomi_server(me.data_dir)
        analyst["agent"] = analyst["yomi"].request("agent.new", bot="battle/nash", seed=me.seed)["agent"]
    rules, state = observation["rules"], observation["state"]
    params = {"parties": rules["parties"], "active": active, "hp": state["hp"][0] + state["hp"][1],
              "turn": state["turn"], "turn_limit": rules["turn_limit"],
              "same_type_neutral": rules["same_type_neutral"]}
    return analyst["yomi"].request("agent.call", agent=analyst["agent"], method="analyze", params=params)


@bot.act
def act(observation, legal, me):
    you, active = observation["you"], list(observation["state"]["active"])
    if observation["phase"] == "replace":  # the switch into the best position for us
        def worth(action):
            active[you] = action["switch"]
            value = analyze(observation, ",".join(active), me)["value"]
            return value if you == 0 else 1 - value
        return max(legal, key=worth)
    table = analyze(observation, ",".join(active), me)
    side = "row" if you == 0 else "col"
    weights = [p for a, p in zip(table[side + "_actions"], table[side + "_strategy"]) if a in legal]
    moves = [a for a in table[side + "_actions"] if a in legal]
    if me.rng.random() < me.options["greed"]:
        return moves[max(range(len(moves)), key=weights.__getitem__)]
    return me.rng.choices(moves, weights=weights)[0]


if __name__ == "__main__":
    bot.run()
