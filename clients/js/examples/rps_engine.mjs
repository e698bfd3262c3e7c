// A rock-paper-scissors engine in JavaScript: throws what beats your last hand, now and then at
// random. Served by yomi: `yomi serve --engine rps-js="node clients/js/examples/rps_engine.mjs"`,
// seated as `engine/rps-js` (PROTOCOL.md, "Engines").
import { Engine } from "../src/engine.js";

const BEATS = { rock: "paper", paper: "scissors", scissors: "rock" };
const bot = new Engine("last-hand", "Beats your last hand, sometimes at random", { games: ["rps"] });
bot.option("randomness", "float", 0.2, "chance of a random hand", { min: 0, max: 1 });
bot.preset("predictable", "always counters", { randomness: 0 });

bot.act((observation, legal, me) => {
  const last = observation.opponent_last;
  if (!last || me.random() < me.options.randomness) return legal[Math.floor(me.random() * legal.length)];
  return BEATS[last];
});

bot.run();
