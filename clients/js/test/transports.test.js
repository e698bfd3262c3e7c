// Every transport of the JavaScript client: pipelined requests, one client playing both seats of
// a simultaneous game, the token's `hello` and `?token=`, and a quiet spawn. Each test has a
// timeout, so a lost line fails instead of hanging.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import net from "node:net";
import { spawn } from "node:child_process";
import { Client } from "../src/yomi.js";
import { binary, startServer } from "./server.js";

let server;
before(async () => { server = await startServer(); });
after(async () => { await server?.stop(); });

const TWO_SEATS = { game: "battle", seed: 11, games: 2, seats: [{ client: "left" }, { client: "right" }] };
const open = {
  tcp: () => Client.connect(`tcp://${server.tcp}`),
  ws: () => Client.connect(`ws://${server.http}/ws`, { token: server.token }),
  stdio: () => Client.spawn(binary),
};

for (const [transport, connect] of Object.entries(open)) {
  test(`${transport}: pipelined requests and both seats of one battle`, { timeout: 120_000 }, async () => {
    const client = await connect();
    try {
      const pings = await Promise.all(Array.from({ length: 200 }, () => client.ping()));
      assert.deepEqual(pings, Array(200).fill({ pong: true }));
      const seats = [];
      const result = await client.playMatch(TWO_SEATS, (turn) => { seats.push(turn.seat); return turn.legal[0]; });
      assert.equal(result.games, 2);
      assert.deepEqual(result.forfeits, [0, 0]);
      assert.ok(seats.filter((s) => s === 0).length >= 3 && seats.filter((s) => s === 1).length >= 3, `seats ${seats}`);
    } finally {
      client.close();
    }
  });
}

/** A TCP listener that keeps the first line a client sends and answers each like `hello`. */
async function fakeTcpServer() {
  const seen = { first: null };
  const listener = net.createServer((socket) => {
    let buffer = "";
    socket.on("data", (chunk) => {
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf("\n")) >= 0) {
        const request = JSON.parse(buffer.slice(0, end));
        buffer = buffer.slice(end + 1);
        seen.first ??= request;
        socket.write(JSON.stringify({ id: request.id, ok: true, result: {} }) + "\n");
      }
    });
  });
  await new Promise((resolve) => listener.listen(0, "127.0.0.1", resolve));
  seen.address = `tcp://127.0.0.1:${listener.address().port}`;
  seen.close = () => listener.close();
  return seen;
}

async function firstLine(options) {
  const fake = await fakeTcpServer();
  try {
    (await Client.connect(fake.address, options)).close();
    return fake.first;
  } finally {
    fake.close();
  }
}

test("tcp: a token is said in hello before anything else; $YOMI_TOKEN when none is given", { timeout: 10_000 }, async () => {
  const saved = process.env.YOMI_TOKEN;
  try {
    delete process.env.YOMI_TOKEN;
    const hello = await firstLine({ token: "s3cret" });
    assert.equal(hello.op, "hello");
    assert.equal(hello.token, "s3cret");
    assert.equal(hello.protocol, 1);
    assert.equal(await firstLine(), null);
    process.env.YOMI_TOKEN = "from-env";
    assert.equal((await firstLine()).token, "from-env");
    assert.equal((await firstLine({ token: "given" })).token, "given");
  } finally {
    if (saved === undefined) delete process.env.YOMI_TOKEN;
    else process.env.YOMI_TOKEN = saved;
  }
});

test("ws: the token rides on the URL of the upgrade", { timeout: 10_000 }, async () => {
  const upgrades = [];
  const fake = http.createServer();
  fake.on("upgrade", (request, socket) => { upgrades.push(request.url); socket.destroy(); });
  await new Promise((resolve) => fake.listen(0, "127.0.0.1", resolve));
  try {
    await assert.rejects(Client.connect(`ws://127.0.0.1:${fake.address().port}/ws`, { token: "a b&c" }));
    assert.deepEqual(upgrades, ["/ws?token=a+b%26c"]);
  } finally {
    fake.close();
  }
  // Against the real server the token on the URL lets the session in (a wrong one is refused).
  const client = await Client.connect(`ws://${server.http}/ws`, { token: server.token });
  try {
    assert.deepEqual(await client.ping(), { pong: true });
    assert.equal((await client.hello()).role, "operator");
  } finally {
    client.close();
  }
  await assert.rejects(Client.connect(`ws://${server.http}/ws`, { token: "wrong" }));
});

test("stdio: a spawned yomi keeps its info lines off the user's stderr", { timeout: 60_000 }, async () => {
  const env = { ...process.env };
  delete env.YOMI_LOG;
  delete env.RUST_LOG;
  const script = `import { Client } from ${JSON.stringify(new URL("../src/yomi.js", import.meta.url).href)};
    const c = await Client.spawn(${JSON.stringify(binary)}); console.log(JSON.stringify(await c.ping())); c.close();`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { env });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const code = await new Promise((resolve) => child.on("close", resolve));
  assert.equal(code, 0, stderr);
  assert.equal(stdout.trim(), '{"pong":true}');
  assert.doesNotMatch(stderr, /INFO|loaded/);
});
