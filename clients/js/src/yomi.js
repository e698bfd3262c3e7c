// yomi client: the JSON-lines protocol of PROTOCOL.md from JavaScript.
//
// One ES module for browsers and Node: a WebSocket (`ws://host:port/ws`, served by
// `yomi serve --http`) in browsers and in Node with a global WebSocket, TCP (`tcp://host:port`,
// `yomi serve --tcp`) or a child process (`Client.spawn`, `yomi serve --stdio`) in Node.
// No dependencies.

/** A failed request: `code` is the protocol's stable error code (`unknown_agent`, ...). */
export class YomiError extends Error {
  constructor(code, message, id = null) {
    super(`${code}: ${message}`);
    this.name = this.constructor.name;
    this.code = code;
    this.id = id;
  }
}

/**
 * The request was unreadable or malformed, or a bot cannot use it: every bot refuses an
 * observation or `legal` list that does not fit its game with `invalid_params` (PROTOCOL.md,
 * "Bad observations"), so this one class catches every bad-observation error.
 */
export class RequestError extends YomiError {}
/** It names an agent, bot, game, preset, method, plugin or record that does not exist. */
export class NotFound extends YomiError {}
/** An option value, or an ambiguous bot name, that cannot be accepted. */
export class InvalidOption extends YomiError {}
/** The bot failed on a request it could read: it errored, panicked, crashed, timed out or played illegally. */
export class BotFailure extends YomiError {}
/** The server or a client seat went away. */
export class ConnectionClosed extends YomiError {}
/** Not allowed now: a forbidden path, a conflicting state, a plugin that does not load, a limit, a token. */
export class Refused extends YomiError {}
/** The request was stopped by a `cancel` (its own, or a hang-up's). */
export class Cancelled extends YomiError {}

/** Each code's family, as the Python client has them; a code from a newer server is a plain `YomiError`. */
const FAMILIES = new Map([
  [RequestError, ["malformed_json", "invalid_request", "line_too_long", "unknown_op", "invalid_params", "no_policy"]],
  [NotFound, ["unknown_agent", "unknown_bot", "unknown_game", "unknown_preset", "unknown_method", "unknown_plugin", "not_found"]],
  [InvalidOption, ["invalid_option", "ambiguous_bot"]],
  [BotFailure, ["bot_error", "plugin_panic", "timeout", "crashed", "illegal_action"]],
  [ConnectionClosed, ["disconnected"]],
  [Refused, ["forbidden", "conflict", "plugin_load", "limit_exceeded", "unauthorized"]],
  [Cancelled, ["cancelled"]],
  [YomiError, ["internal"]], // something failed inside the server: no family to act on
]);
/** Every error code this client knows (a test checks it against protocol/schema.json). */
export const BY_CODE = new Map([...FAMILIES].flatMap(([family, codes]) => codes.map((code) => [code, family])));

/** `agent.act`'s `explain` flag, and `policy` only when asked for. */
function flags(explain, policy) {
  return policy ? { explain, policy } : { explain };
}

/** The error of a failed reply's `{code, message}`, of its code's family. */
export function errorFor(code, message, id = null) {
  const Family = BY_CODE.get(code) ?? YomiError;
  return new Family(code, message, id);
}

/**
 * The method of `Client` that sends each operation of the protocol (protocol/schema.json); a test
 * fails when the schema has an operation this table lacks.
 */
export const OPERATION_METHODS = {
  hello: "hello",
  ping: "ping",
  catalog: "catalog",
  "agent.new": "newAgent",
  "agent.configure": "configure",
  "agent.swap": "swap",
  "agent.act": "act",
  "agent.observe": "observe",
  "agent.call": "call",
  "agent.drop": "drop",
  "agent.list": "agents",
  "plugin.list": "plugins",
  "plugin.load": "loadPlugin",
  "match.run": "runMatch",
  "match.move": "move",
  "match.replay": "replay",
  "tournament.run": "tournament",
  "tournament.list": "tournaments",
  "tournament.show": "showTournament",
  "tournament.games": "tournamentGames",
  "tournament.game": "tournamentGame",
  "openings.list": "openings",
  "humanlike.run": "humanlike",
  "fit.run": "fit",
  cancel: "cancel",
};

/**
 * Every event of the protocol (protocol/schema.json) with its payload's fields, the line's fields
 * beside `event`; a test fails when the schema has an event or a field this table lacks.
 * `playMatch` follows the events that carry `match`, `tournament` the `tournament.*` ones.
 */
export const EVENTS = {
  "match.started": ["header", "match"],
  your_turn: ["clock", "legal", "match", "observation", "seat"],
  "match.event": ["explained", "game_event", "match", "seat"],
  "match.progress": ["game", "games", "match", "record", "scores"],
  "tournament.started": ["id", "scheduled"],
  "tournament.progress": ["games", "id", "total"],
  "replay.progress": ["decisions", "op", "request", "total"],
};

/** One protocol session. Replies are matched to requests by id; events go to `on` listeners. */
export class Client {
  /** `transport` has `send(line)` and `close()`, and calls `onLine(text)` and `onClose()`. */
  constructor(transport) {
    this.transport = transport;
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = new Map();
    this.closed = false;
    transport.onLine = (text) => this.#receive(text);
    transport.onClose = () => this.#closedByPeer();
  }

  /**
   * Connects to `ws://…`/`wss://…` (WebSocket) or `tcp://host:port` (Node only).
   * A bare `host:port` means TCP in Node and WebSocket (`ws://host:port/ws`) in a browser.
   * `token` (in Node, else `$YOMI_TOKEN`) is said in a `hello` before anything else, and on a
   * WebSocket also appended to the URL as `?token=`, where the server checks it at the upgrade.
   */
  static async connect(target, { token } = {}) {
    let url = String(target);
    if (!url.includes("://")) url = isNode() ? `tcp://${url}` : `ws://${url}/ws`;
    token = tokenOrEnv(token);
    if (url.startsWith("ws://") || url.startsWith("wss://")) {
      if (token !== undefined) {
        const address = new URL(url);
        address.searchParams.set("token", token);
        url = address.href;
      }
      return Client.#introduced(await webSocketTransport(url), token);
    }
    if (url.startsWith("tcp://")) {
      const { hostname, port } = new URL(url.replace("tcp://", "http://"));
      return Client.#introduced(await tcpTransport(hostname.replace(/^\[|\]$/g, ""), Number(port)), token);
    }
    throw new Error(`unsupported address ${url}: use ws://, wss:// or tcp://`);
  }

  /**
   * Node only: starts `binary serve --stdio ...args` and talks to it over its stdin/stdout. Its
   * log (on this process's stderr) says only warnings and errors unless YOMI_LOG or RUST_LOG is set.
   */
  static async spawn(binary = "yomi", args = [], { token } = {}) {
    return Client.#introduced(await stdioTransport(binary, ["serve", "--stdio", ...args]), tokenOrEnv(token));
  }

  /** A client on `transport` that has said `hello` with `token` first, when there is one. */
  static async #introduced(transport, token) {
    const client = new Client(transport);
    if (token === undefined) return client;
    try {
      await client.request("hello", { protocol: 1, client: "yomi.js", token });
    } catch (e) {
      client.close();
      throw e;
    }
    return client;
  }

  /** Sends one request; resolves with its `result`, rejects with a `YomiError`. */
  request(op, params = {}) {
    if (this.closed) return Promise.reject(errorFor("disconnected", "the connection is closed"));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.transport.send(JSON.stringify({ ...params, id, op }));
    });
  }

  /** Sends one request; returns `{id, reply}`: `id` is what `cancel(id)` names, `reply` the promise `request` gives. */
  start(op, params = {}) {
    const id = this.nextId;
    return { id, reply: this.request(op, params) };
  }

  /** Stops the request with this id (or, with `{all: true}`, every request of the session); resolves with `{stopped}`. The stopped request rejects with the code `cancelled`. */
  cancel(request, { all = false } = {}) {
    return this.request("cancel", all ? { all: true } : { request });
  }

  /** Calls `listener(message, name)` for each event named `name` (`"*"`: every event). Returns an unsubscribe function. */
  on(name, listener) {
    if (!this.listeners.has(name)) this.listeners.set(name, new Set());
    this.listeners.get(name).add(listener);
    return () => this.listeners.get(name)?.delete(listener);
  }

  close() {
    this.transport.close();
  }

  /** `token` grants its role to this connection. */
  hello(client = "yomi.js", { token, protocol = 1 } = {}) {
    return this.request("hello", token === undefined ? { protocol, client } : { protocol, client, token });
  }
  ping() { return this.request("ping"); }
  catalog() { return this.request("catalog"); }
  /** `options`: `{game, preset, options, seed, generation}`. */
  newAgent(bot, options = {}) { return this.request("agent.new", { bot, ...options }); }
  /**
   * A decision: `{action, explain?, think_ms?}`. `think_ms` is the bot's suggested think time for
   * a human pace (absent when its `think_scale` is 0); the caller decides whether to wait it.
   * Target an Elo with `newAgent(bot, {options: {limit_strength: true, strength: 300}})`.
   * With `{policy: true}` the decision's `policy` lists `{action, p}`: every action the bot could
   * have played with its probability (a bot that does not say rejects with the code `no_policy`).
   */
  act(agent, observation, legal, { explain = false, policy = false } = {}) {
    return this.request("agent.act", { agent, observation, legal, ...flags(explain, policy) });
  }
  /** Many positions (`{observation, legal, seed?}`) in one request; resolves with `{decisions}`, in order, `{error}` in place of a position the bot refuses. `explain` and `policy` apply to every position. */
  actBatch(agent, positions, { explain = false, policy = false } = {}) {
    return this.request("agent.act", { agent, positions, ...flags(explain, policy) });
  }
  /** `change`: `{options, preset}`; the agent keeps what it has learned. */
  configure(agent, change) { return this.request("agent.configure", { agent, ...change }); }
  /** `change`: `{bot, generation, preset, options}`. */
  swap(agent, change = {}) { return this.request("agent.swap", { agent, ...change }); }
  observe(agent, event) { return this.request("agent.observe", { agent, event }); }
  call(agent, method, params = null) { return this.request("agent.call", { agent, method, params }); }
  drop(agent) { return this.request("agent.drop", { agent }); }
  agents() { return this.request("agent.list"); }
  move(match, seat, action) { return this.request("match.move", { match, seat, action }); }
  /** Plays a match of bots (`spec`: `{game, seats, games, policy, game_options}`); resolves with its summary. */
  runMatch(spec, { seed, transcript = false } = {}) {
    return this.request("match.run", { ...spec, ...(seed === undefined ? {} : { seed }), transcript });
  }
  /**
   * Plays a recorded transcript (JSON-lines text, as the file has it: lines parsed by JavaScript
   * lose the digits of 64-bit seeds) again; resolves with `{identical, lines, divergence, ...}`.
   */
  replay(transcript) { return this.request("match.replay", { transcript }); }
  /** The tournaments in the server's records (operators only). */
  tournaments() { return this.request("tournament.list"); }
  /** A stored tournament: status, spec, standings, crosstable and rating history (its owner's or the operator's). */
  showTournament(tournament) { return this.request("tournament.show", { tournament }); }
  /** A page of a tournament's recorded games (`limit` at most 200); resolves with `{total, games}`. */
  tournamentGames(tournament, offset = 0, limit = 50) { return this.request("tournament.games", { tournament, offset, limit }); }
  /** One recorded game with its transcript (JSON lines), for a replay. */
  tournamentGame(tournament, game) { return this.request("tournament.game", { tournament, game }); }
  /** The loaded plugin builds, every generation. */
  plugins() { return this.request("plugin.list"); }
  /** Loads a plugin library from the server's plugin directories (operators only). */
  loadPlugin(path) { return this.request("plugin.load", { path }); }
  /**
   * Runs a tournament (`spec`: `{game, bots, games_per_pair, format, ...}`, or `{resume: ID}`);
   * `onEvent` gets its `tournament.*` events while it runs.
   */
  tournament(spec, onEvent = () => {}) { return this.#following("tournament.", "tournament.run", spec, onEvent); }

  /**
   * Operators only: how likely bot `spec.bot` finds record set `spec.records` (`floor`,
   * `resamples`, `seed` optional), as `yomi humanlike --json` reports it; `onEvent` gets its
   * `replay.progress` events.
   */
  humanlike(spec, onEvent = () => {}) { return this.#following("replay.", "humanlike.run", spec, onEvent); }

  /**
   * Operators only: bot `spec.bot`'s options fitted to record set `spec.records` (`fit`,
   * `iterations`, `preset` optional), written as a preset, as `yomi fit --json` reports it;
   * `onEvent` gets its `replay.progress` events.
   */
  fit(spec, onEvent = () => {}) { return this.#following("replay.", "fit.run", spec, onEvent); }

  /** The opening suites a tournament may name: `[{name, shipped, about}]`. */
  openings() { return this.request("openings.list"); }

  /** Sends `op` with `params`, giving `onEvent` the events whose names start with `prefix` until it is answered. */
  async #following(prefix, op, params, onEvent) {
    const names = Object.keys(EVENTS).filter((name) => name.startsWith(prefix));
    const offs = names.map((name) => this.on(name, onEvent));
    try {
      return await this.request(op, params);
    } finally {
      offs.forEach((off) => off());
    }
  }

  /**
   * Runs a match in which this client plays the seats given as `{client: NAME}`: `onTurn(turn)`
   * gets each `your_turn` event (`{match, seat, observation, legal}`, and the seat's `clock` when
   * the match has a time control) and returns (or resolves to) the action, which is sent with
   * `match.move`. `onEvent(message, name)` sees every event of the match.
   * Resolves with the match result. Run one such match at a time per client.
   */
  async playMatch(params, onTurn, onEvent = () => {}) {
    let matchId = null;
    let failure = null;
    // The first `match.started` or `your_turn` names the match (the server may send the first
    // `your_turn` before `match.started`).
    const mine = (message, names = false) => {
      if (names && matchId === null) matchId = message.match;
      return matchId !== null && message.match === matchId;
    };
    const takeTurn = async (turn) => {
      try {
        const action = await onTurn(turn);
        await this.move(turn.match, turn.seat, action);
      } catch (e) {
        failure ??= e;
      }
    };
    const names = Object.keys(EVENTS).filter((name) => EVENTS[name].includes("match"));
    const offs = names.map((name) =>
      this.on(name, (message) => {
        if (!mine(message, name === "match.started" || name === "your_turn")) return;
        onEvent(message, name);
        if (name === "your_turn") takeTurn(message);
      }));
    try {
      const result = await this.request("match.run", params);
      if (failure) throw failure;
      return result;
    } finally {
      offs.forEach((off) => off());
    }
  }

  #receive(text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return; // the server only sends JSON; ignore anything else
    }
    // An event names its kind and is no reply: replies have `ok`, while `id` cannot tell them
    // apart (a tournament's events carry the tournament's).
    if (typeof message.event === "string" && message.ok === undefined) {
      const name = message.event;
      for (const key of [name, "*"]) {
        for (const listener of this.listeners.get(key) ?? []) listener(message, name);
      }
      return;
    }
    const waiting = this.pending.get(message.id);
    if (!waiting) {
      // A reply to a line the server could not read (id null): report it as an event.
      for (const listener of this.listeners.get("unmatched_reply") ?? []) listener(message);
      return;
    }
    this.pending.delete(message.id);
    if (message.ok) waiting.resolve(message.result);
    else waiting.reject(errorFor(message.error.code, message.error.message, message.id));
  }

  #closedByPeer() {
    this.closed = true;
    for (const { reject } of this.pending.values()) {
      reject(errorFor("disconnected", "the connection closed before the reply"));
    }
    this.pending.clear();
    for (const listener of this.listeners.get("close") ?? []) listener({ event: "close" });
  }
}

/** The token given, else (in Node) a non-empty `$YOMI_TOKEN`, else undefined. */
function tokenOrEnv(token) {
  if (token !== undefined && token !== null) return String(token);
  return (isNode() && process.env.YOMI_TOKEN) || undefined;
}

function isNode() {
  return typeof process !== "undefined" && !!process.versions?.node;
}

async function webSocketTransport(url) {
  if (typeof WebSocket === "undefined") {
    throw new Error("no WebSocket here (Node 20 needs --experimental-websocket; or use tcp://)");
  }
  const socket = new WebSocket(url);
  const transport = {
    onLine: () => {},
    onClose: () => {},
    send: (line) => socket.send(line),
    close: () => socket.close(),
  };
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error(`cannot connect to ${url}`));
  });
  socket.onmessage = (e) => transport.onLine(String(e.data));
  socket.onclose = () => transport.onClose();
  return transport;
}

/** Calls `onLine` for each complete line of a text stream. */
function lineSplitter(transport) {
  let buffer = "";
  return (chunk) => {
    buffer += chunk;
    let end;
    while ((end = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      if (line.trim()) transport.onLine(line);
    }
  };
}

async function tcpTransport(host, port) {
  const net = await import("node:net");
  const socket = net.connect({ host, port });
  socket.setNoDelay(true);
  socket.setEncoding("utf8");
  const transport = {
    onLine: () => {},
    onClose: () => {},
    send: (line) => socket.write(line + "\n"),
    close: () => socket.end(),
  };
  await new Promise((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  socket.on("data", lineSplitter(transport));
  socket.on("error", () => {});
  socket.on("close", () => transport.onClose());
  return transport;
}

async function stdioTransport(binary, args) {
  const { spawn } = await import("node:child_process");
  const env = { ...process.env };
  if (!env.YOMI_LOG && !env.RUST_LOG) env.YOMI_LOG = "warn"; // not its "loaded …" lines
  const child = spawn(binary, args, { stdio: ["pipe", "pipe", "inherit"], env });
  await new Promise((resolve, reject) => {
    child.once("spawn", resolve);
    child.once("error", reject);
  });
  child.stdout.setEncoding("utf8");
  const transport = {
    onLine: () => {},
    onClose: () => {},
    send: (line) => child.stdin.write(line + "\n"),
    close: () => child.stdin.end(),
  };
  child.stdout.on("data", lineSplitter(transport));
  child.stdin.on("error", () => {});
  child.on("close", () => transport.onClose());
  return transport;
}
