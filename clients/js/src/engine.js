// Write a yomi engine in JavaScript (Node): a bot that a yomi server runs as a child process and
// seats in matches, tournaments and the playground beside its own bots (PROTOCOL.md, "Engines").
//
//   import { Engine } from "yomi-client/engine";
//
//   const bot = new Engine("cycler", "Throws rock, paper, scissors in turn", { games: ["rps"] });
//   bot.option("start", "int", 0, "the hand it starts from", { min: 0, max: 2 });
//   bot.preset("paper-first", "starts with paper", { start: 1 });
//   bot.act((observation, legal, me) => legal[(me.options.start + observation.round) % legal.length]);
//   bot.run();
//
// The operator runs it with `yomi serve --engine cycler="node cycler.mjs"`; clients seat it as
// `engine/cycler`. The kit speaks the protocol on stdin and stdout, so print nothing there
// (console.log): log with console.error, which yomi copies into its own log. No dependencies.

import { createInterface } from "node:readline";

export const PROTOCOL = "yomi-engine";
export const VERSION = 1;

/**
 * A seeded random number generator (mulberry32 over the seed's low 32 bits, mixed with its high
 * ones): `me.random()` is in [0, 1). Use it for every random choice so a seeded match replays.
 */
export function seededRandom(seed) {
  const big = BigInt.asUintN(64, BigInt(seed));
  let state = Number(big & 0xffffffffn) ^ Number(big >> 32n);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Throw it from a bot's function to refuse a call with a clear error (`invalid_params` ...). */
export class BotError extends Error {
  constructor(message, code = "bot_error") {
    super(message);
    this.code = code;
  }
}

/**
 * An engine's declaration (games, options, presets, service methods) and its functions. Each
 * function gets `me`: `{options, seed, random, state, dataDir, explain, explanation}`.
 */
export class Engine {
  constructor(name, description, { games, version = "0.1.0" }) {
    this.declared = { name, version, description, games, options: [], presets: [], methods: [] };
    this.handlers = { act: null, observe: null, gameOver: null, configure: null };
    this.services = new Map();
    this.me = null;
  }

  /** An option: `type` is bool, int, float, choice (`{choices}`), string or json; `{min, max}` bound numbers. */
  option(name, type, defaultValue, description, bounds = {}) {
    this.declared.options.push({ name, type, default: defaultValue, description, ...bounds });
  }

  /** A ready-made personality: these option values over the defaults. */
  preset(name, description, options) {
    this.declared.presets.push({ name, description, options });
  }

  /** A service method clients reach with `agent.call`: `fn(params, me)` returns its result. */
  method(name, description, fn, params = []) {
    this.declared.methods.push({ name, description, params });
    this.services.set(name, fn);
  }

  /** `fn(observation, legal, me)` returns one of `legal`. */
  act(fn) { this.handlers.act = fn; }
  /** `fn(event, me)`: an event of the game. */
  observe(fn) { this.handlers.observe = fn; }
  /** `fn({seat, outcome}, me)`: a game ended. */
  gameOver(fn) { this.handlers.gameOver = fn; }
  /** `fn(options, me)`: when the agent is made and whenever its options change. */
  configure(fn) { this.handlers.configure = fn; }

  /** Answers the host's requests, one JSON line each, until stdin closes. */
  run(input = process.stdin, output = process.stdout) {
    const lines = createInterface({ input, crlfDelay: Infinity });
    lines.on("line", (line) => {
      if (line.trim()) output.write(JSON.stringify(this.answer(line)) + "\n");
    });
  }

  /** The reply to one request line. */
  answer(line) {
    try {
      const request = JSON.parse(line);
      const kinds = request && typeof request === "object" ? Object.keys(request) : [];
      if (kinds.length !== 1) throw new BotError("a request is an object with one key", "invalid_request");
      const body = request[kinds[0]] ?? {};
      const handler = { hello: this.hello, open: this.open, call: this.call }[kinds[0]];
      if (!handler) throw new BotError(`unknown request \`${kinds[0]}\``, "invalid_request");
      return { ok: true, result: handler.call(this, body) ?? null };
    } catch (e) {
      if (e instanceof BotError) return failure(e.code, e.message);
      if (e instanceof SyntaxError) return failure("invalid_request", `not JSON: ${e.message}`);
      console.error(e);
      return failure("bot_error", `${e.name}: ${e.message}`);
    }
  }

  hello(body) {
    if (body.protocol !== PROTOCOL || body.version !== VERSION) {
      throw new BotError(`this engine speaks ${PROTOCOL} version ${VERSION}`, "invalid_request");
    }
    return { protocol: PROTOCOL, version: VERSION, engine: this.declared };
  }

  open(body) {
    const context = body.context ?? {};
    const seed = context.seed ?? 0;
    this.me = { options: { ...body.options }, seed, random: seededRandom(seed), state: {},
      dataDir: context.data_dir ?? null, explain: false, explanation: undefined };
    this.handlers.configure?.(this.me.options, this.me);
  }

  call(body) {
    const me = this.me;
    if (!me) throw new BotError("a call before open", "invalid_request");
    switch (body.call) {
      case "act": {
        if (!this.handlers.act) throw new BotError("this engine plays no game");
        me.explain = Boolean(body.explain);
        me.explanation = undefined;
        const reply = { action: this.handlers.act(body.observation, body.legal ?? [], me) };
        if (me.explain && me.explanation !== undefined) reply.explain = me.explanation;
        return reply;
      }
      case "observe":
        return void this.handlers.observe?.(body.event, me);
      case "game_over":
        return void this.handlers.gameOver?.({ seat: body.seat, outcome: body.outcome }, me);
      case "configure":
        me.options = { ...body.options };
        return void this.handlers.configure?.(me.options, me);
      case "service": {
        const fn = this.services.get(body.method);
        if (!fn) throw new BotError(`no method \`${body.method}\``, "unknown_method");
        return fn(body.params, me);
      }
      default:
        throw new BotError(`unknown call \`${body.call}\``, "invalid_request");
    }
  }
}

function failure(code, message) {
  return { ok: false, error: { code, message } };
}
