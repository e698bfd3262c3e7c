// The JS engine kit's side of the engine protocol (PROTOCOL.md, "Engines"), one line at a time.
// The real binary driving a kit's engine is tested in tests/tests/engines.rs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BotError, Engine, seededRandom } from "../src/engine.js";

function counter() {
  const bot = new Engine("counter", "plays the legal action at its count", { games: ["rps"] });
  bot.option("step", "int", 1, "how far it counts each time", { min: 1, max: 3 });
  bot.preset("double", "counts by two", { step: 2 });
  bot.act((observation, legal, me) => {
    if (typeof observation !== "object" || observation === null) {
      throw new BotError("the observation must be an object", "invalid_params");
    }
    me.state.count = (me.state.count ?? 0) + me.options.step;
    me.explanation = { count: me.state.count };
    return legal[me.state.count % legal.length];
  });
  return bot;
}

const ask = (bot, request) => bot.answer(JSON.stringify(request));

test("the handshake declares the bot and refuses another version", () => {
  const bot = counter();
  const hello = ask(bot, { hello: { protocol: "yomi-engine", version: 1 } });
  assert.equal(hello.result.engine.name, "counter");
  assert.deepEqual(hello.result.engine.options[0], { name: "step", type: "int", default: 1, description: "how far it counts each time", min: 1, max: 3 });
  assert.equal(ask(bot, { hello: { protocol: "yomi-engine", version: 2 } }).error.code, "invalid_request");
});

test("calls reach the bot's functions with its options, and errors are clear", () => {
  const bot = counter();
  assert.deepEqual(ask(bot, { open: { kind: "agent", bot: "c", options: { step: 1 }, context: { seed: 9 } } }), { ok: true, result: null });
  const act = { call: { call: "act", observation: {}, legal: ["a", "b", "c"], explain: true } };
  assert.deepEqual(ask(bot, act).result, { action: "b", explain: { count: 1 } });
  ask(bot, { call: { call: "configure", options: { step: 2 } } });
  act.call.explain = false;
  assert.deepEqual(ask(bot, act).result, { action: "a" });
  assert.deepEqual(ask(bot, { call: { call: "act", observation: 7, legal: ["a"] } }).error, { code: "invalid_params", message: "the observation must be an object" });
  assert.equal(bot.answer("not json").error.code, "invalid_request");
});

test("the seeded random numbers replay", () => {
  const draws = (seed) => Array.from({ length: 5 }, seededRandom(seed));
  assert.deepEqual(draws(12345678901234), draws(12345678901234));
  assert.notDeepEqual(draws(1), draws(2));
  assert.ok(draws(3).every((x) => x >= 0 && x < 1));
});
