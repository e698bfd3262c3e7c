// The client against the real binary, over TCP, WebSocket and stdio.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { Client, NotFound, RequestError, YomiError } from "../src/yomi.js";
import { binary, startServer } from "./server.js";

let server;
before(async () => { server = await startServer(); });
after(async () => { await server?.stop(); });

/** Plays a whole battle against delta-nash from the client seat, choosing the first legal action. */
async function playBattle(client) {
  const turns = [];
  const events = [];
  const result = await client.playMatch(
    { game: "battle", seed: 5, games: 1, seats: [{ client: "me" }, { bot: "battle/delta-nash", preset: "human-like" }] },
    (turn) => { turns.push(turn); return turn.legal[0]; },
    (_message, name) => events.push(name),
  );
  return { result, turns, events };
}

for (const transport of ["tcp", "ws"]) {
  const address = () => (transport === "tcp" ? `tcp://${server.tcp}` : `ws://${server.http}/ws?token=${server.token}`);

  test(`${transport}: handshake, catalog, an explained decision`, async () => {
    const client = await Client.connect(address());
    try {
      const hello = await client.hello("node test");
      assert.equal(hello.protocol, 1);
      assert.equal(hello.compatible, true);
      assert.deepEqual(await client.ping(), { pong: true });
      const catalog = await client.catalog();
      assert.ok(catalog.bots.some((b) => b.id === "battle/delta-nash"));
      const agent = await client.newAgent("example/rps", { preset: "reader", seed: 42 });
      assert.equal(agent.options.reading, 1);
      const reply = await client.act(agent.agent, { opponent_last: "rock" }, ["rock", "paper", "scissors"], { explain: true });
      assert.equal(reply.action, "paper");
      assert.equal(reply.explain.reason, "beats your last hand");
      // The bot's suggested think time for a human pace; the same seed, the same suggestion.
      assert.equal(reply.think_ms, 657);
      // Asked for it, the bot's policy: every hand with its probability, the action among them.
      const lover = await client.newAgent("example/rps", { preset: "rock-lover", seed: 42 });
      const drawn = await client.act(lover.agent, { opponent_last: "rock" }, ["rock", "paper", "scissors"], { policy: true });
      const rock = drawn.policy.find((e) => e.action === "rock");
      assert.ok(Math.abs(rock.p - (0.8 + 0.2 / 3)) < 1e-12, JSON.stringify(drawn));
      assert.ok(drawn.policy.some((e) => e.action === drawn.action));
      const batch = await client.actBatch(lover.agent, [{ observation: {} }], { policy: true });
      assert.deepEqual(batch.decisions[0].policy, drawn.policy);
      const limited = await client.newAgent("battle/delta-nash", { options: { limit_strength: true, strength: 300 } });
      assert.deepEqual([limited.options.limit_strength, limited.options.strength], [true, 300]);
      const changed = await client.configure(agent.agent, { options: { reading: 2 } });
      assert.equal(changed.options.reading, 2);
      const after = await client.act(agent.agent, { opponent_last: "rock" }, ["rock", "paper", "scissors"]);
      assert.equal(after.action, "scissors");
    } finally {
      client.close();
    }
  });

  test(`${transport}: errors carry the protocol's codes and the session goes on`, async () => {
    const client = await Client.connect(address());
    try {
      await assert.rejects(client.act("a9", {}, []), (e) => e instanceof NotFound && e instanceof YomiError && e.code === "unknown_agent");
      await assert.rejects(client.newAgent("chess"), (e) => e.code === "unknown_bot");
      await assert.rejects(client.newAgent("example/rps", { options: { bias: 1.5 } }), (e) => e.code === "invalid_option");
      await assert.rejects(client.request("agent.dance"), (e) => e.code === "unknown_op");
      // One class for every bot's bad observation (PROTOCOL.md, "Bad observations").
      for (const bot of ["battle/delta-nash", "stud/fuzzy", "sevens/dvalue", "dice/walker", "example/rps"]) {
        const { agent } = await client.newAgent(bot);
        await assert.rejects(client.act(agent, "not an observation", []),
          (e) => e instanceof RequestError && e.code === "invalid_params" && e.message.includes("`observation"));
      }
      assert.deepEqual(await client.ping(), { pong: true });
    } finally {
      client.close();
    }
  });

  test(`${transport}: a request is cancelled by its id; many positions go in one request`, async () => {
    const client = await Client.connect(address());
    try {
      // A match waiting for this client's move runs until it is cancelled.
      const match = client.start("match.run", { game: "rps", seats: [{ bot: "example/rps" }, { client: "me" }] });
      assert.deepEqual(await client.cancel(match.id), { stopped: [{ request: match.id, op: "match.run" }] });
      await assert.rejects(match.reply, (e) => e instanceof YomiError && e.code === "cancelled");
      assert.deepEqual(await client.cancel(null, { all: true }), { stopped: [] });
      const { agent } = await client.newAgent("example/rps", { preset: "reader" });
      const { decisions } = await client.actBatch(agent, [
        { observation: { opponent_last: "rock" }, legal: ["rock", "paper", "scissors"] },
        { observation: { opponent_last: "rock" }, legal: "rock" },
      ]);
      assert.equal(decisions[0].action, "paper");
      assert.ok(decisions[0].think_ms > 0, "a game bot suggests a think time in a batch too");
      assert.equal(decisions[1].error.code, "invalid_params");
    } finally {
      client.close();
    }
  });

  test(`${transport}: a whole battle against delta-nash from a client seat`, async () => {
    const client = await Client.connect(address());
    try {
      const { result, turns, events } = await playBattle(client);
      assert.equal(result.games, 1);
      assert.equal(result.scores.length, 2);
      assert.equal(result.scores[0] + result.scores[1], 1);
      assert.deepEqual(result.forfeits, [0, 0]);
      assert.ok(turns.length >= 3, `only ${turns.length} turns`);
      assert.ok(turns.every((t) => t.seat === 0 && t.observation.you !== undefined));
      assert.ok(events.includes("match.started") && events.includes("match.event"));
    } finally {
      client.close();
    }
  });
}

test("the same seed plays the same battle on TCP and WebSocket", async () => {
  const tcp = await Client.connect(`tcp://${server.tcp}`);
  const ws = await Client.connect(`ws://${server.http}/ws?token=${server.token}`);
  try {
    const [a, b] = await Promise.all([playBattle(tcp), playBattle(ws)]);
    assert.deepEqual(a.result.scores, b.result.scores);
    assert.deepEqual(a.turns.map((t) => t.observation), b.turns.map((t) => t.observation));
  } finally {
    tcp.close();
    ws.close();
  }
});

test("tcp: matches, replays, tournaments and plugins", async () => {
  const client = await Client.connect(`tcp://${server.tcp}`);
  try {
    const example = (await client.plugins()).find((p) => p.name === "example");
    assert.ok(example.bots.includes("rps") && example.generation >= 1);
    const seats = [{ bot: "example/rps" }, { bot: "example/rps", preset: "reader" }];
    const result = await client.runMatch({ game: "rps", games: 3, seats }, { seed: 7, transcript: true });
    assert.deepEqual([result.games, result.seed, result.scores.length], [3, 7, 2]);
    // Parsed by JavaScript, the seats' 64-bit seeds lose digits, so this replay plays other
    // games from the first line on: a transcript's own text replays identically (the Python test).
    const replayed = await client.replay(result.transcript.map((line) => JSON.stringify(line)).join("\n"));
    assert.equal(replayed.lines, result.transcript.length);
    assert.equal(replayed.identical, false);
    assert.equal(replayed.divergence.line, 1);
    const events = [];
    const summary = await client.tournament({ game: "rps", bots: seats, games_per_pair: 2, seed: 3 }, (m, name) => events.push([name, m]));
    assert.equal(summary.status, "finished");
    // Its events reach the caller, though they carry the tournament's `id`.
    assert.deepEqual(events[0], ["tournament.started", { event: "tournament.started", id: summary.id, scheduled: summary.scheduled }]);
    assert.deepEqual(events.at(-1), ["tournament.progress", { event: "tournament.progress", id: summary.id, games: summary.games, total: summary.scheduled }]);
    assert.ok(summary.games > 0 && summary.games === summary.scheduled);
    assert.deepEqual(summary.standings.map((row) => row.games), [summary.games, summary.games]);
    const listed = (await client.tournaments()).find((t) => t.id === summary.id);
    assert.equal(listed.status, "finished");
    await assert.rejects(client.loadPlugin("libyomi_nothing_here.so"), (e) => e instanceof NotFound && e.code === "not_found");
  } finally {
    client.close();
  }
});

test("ws: binary and oversized frames get coded errors; the socket keeps serving", async () => {
  const small = await startServer(["--max-line-bytes", "1000"]);
  const socket = new WebSocket(`ws://${small.http}/ws?token=${small.token}`);
  const replies = [];
  await new Promise((resolve) => (socket.onopen = resolve));
  socket.onmessage = (e) => replies.push(JSON.parse(e.data));
  socket.send(new Uint8Array([1, 2, 3]));
  socket.send(JSON.stringify({ id: 1, op: "ping", pad: "x".repeat(2000) }));
  socket.send("{not json");
  socket.send(JSON.stringify({ id: 2, op: "ping" }, null, 2)); // pretty-printed: still one request
  while (replies.length < 4) await new Promise((r) => setTimeout(r, 20));
  socket.close();
  await small.stop();
  const codes = replies.map((r) => r.error?.code ?? "ok");
  assert.deepEqual(codes.sort(), ["invalid_request", "line_too_long", "malformed_json", "ok"]);
  assert.ok(replies.some((r) => r.id === 2 && r.ok && r.result.pong));
});

test("stdio: a spawned yomi answers", async () => {
  const client = await Client.spawn(binary);
  try {
    assert.deepEqual(await client.ping(), { pong: true });
  } finally {
    client.close();
  }
});

test("http: the playground and the health check are served", async () => {
  const health = await fetch(`http://${server.http}/healthz`);
  assert.equal(health.status, 200);
  // The printed URL trades its token for a cookie, which opens the page.
  const exchange = await fetch(server.playground, { redirect: "manual" });
  assert.equal(exchange.status, 303);
  const cookie = exchange.headers.get("set-cookie").split(";")[0];
  const page = await fetch(`http://${server.http}/`, { headers: { cookie } });
  assert.match(page.headers.get("content-type"), /text\/html/);
  assert.match(await page.text(), /yomi playground/);
  // The page's own files need the token too (its cookie), as every path but /healthz does.
  assert.equal((await fetch(`http://${server.http}/yomi.js`)).status, 401);
  const module = await fetch(`http://${server.http}/yomi.js`, { headers: { cookie } });
  assert.match(await module.text(), /export class Client/);
  const missing = await fetch(`http://${server.http}/nothing.js`, { headers: { cookie } });
  assert.equal(missing.status, 404);
});

test("ws: a server shutting down closes the socket and the client sees it", async () => {
  const own = await startServer();
  const client = await Client.connect(`ws://${own.http}/ws?token=${own.token}`);
  assert.deepEqual(await client.ping(), { pong: true });
  const closed = new Promise((resolve) => client.on("close", resolve));
  await own.stop();
  await closed;
  await assert.rejects(client.ping(), (e) => e.code === "disconnected");
});
