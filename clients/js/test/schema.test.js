// The client against the protocol's schema (protocol/schema.json, `yomi schema`): every operation
// and error code of the server has its method and its error family here, and every event its
// entry in EVENTS. No server needed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { BY_CODE, Client, EVENTS, OPERATION_METHODS } from "../src/yomi.js";

const schema = JSON.parse(readFileSync(new URL("../../../protocol/schema.json", import.meta.url), "utf8"));

/** The schema a `#/$defs/...` reference points at. */
function definition(ref) {
  return ref.replace(/^#\//, "").split("/").reduce((node, part) => node[part], schema);
}

/** A client whose transport records the lines it would send. */
function recording() {
  const sent = [];
  const client = new Client({ send: (line) => sent.push(JSON.parse(line)), close() {} });
  return { client, sent };
}

/** The names of a method's parameters before the first one with a default (what it needs). */
function needed(method) {
  const list = method.toString().match(/^[^(]*\(([^)]*)\)/)[1];
  return list.split(",").map((p) => p.trim()).filter((p) => p && !p.includes("=") && !p.startsWith("{"));
}

for (const op of Object.keys(schema.operations).sort()) {
  test(`${op}: a method sends it with its required fields`, () => {
    const name = OPERATION_METHODS[op];
    assert.ok(name, `the schema's \`${op}\` has no method in OPERATION_METHODS`);
    const { client, sent } = recording();
    const method = client[name];
    assert.equal(typeof method, "function", `Client has no method ${name}`);
    const required = definition(schema.operations[op].params.$ref).required ?? [];
    // A placeholder for each argument the method needs; a spec carries the spec's required fields.
    const args = needed(method).map((p) =>
      p === "spec" ? Object.fromEntries(required.map((f) => [f, `<${f}>`])) : `<${p}>`);
    method.apply(client, args).catch(() => {}); // never answered: only the line sent matters
    assert.equal(sent.length, 1);
    assert.equal(sent[0].op, op);
    const missing = required.filter((f) => !(f in sent[0]));
    assert.deepEqual(missing, [], `${op}: required fields not sent`);
  });
}

test("no method names an operation the schema lacks", () => {
  const unknown = Object.keys(OPERATION_METHODS).filter((op) => !(op in schema.operations));
  assert.deepEqual(unknown, []);
});

test("every error code has its family", () => {
  const missing = schema.errors.filter((code) => !BY_CODE.has(code));
  assert.deepEqual(missing, [], "error codes without a family");
});

for (const name of Object.keys(schema.events).sort()) {
  test(`event ${name}: the client knows it and its fields`, () => {
    assert.ok(name in EVENTS, `the schema's event \`${name}\` is not in EVENTS`);
    const payload = definition(schema.events[name].$ref);
    assert.deepEqual([...EVENTS[name]].sort(), Object.keys(payload.properties).sort());
    // The fields the match helpers read are always there.
    if (EVENTS[name].includes("match")) assert.ok(payload.required.includes("match"), name);
  });
}

test("no event is known that the schema lacks", () => {
  const unknown = Object.keys(EVENTS).filter((name) => !(name in schema.events));
  assert.deepEqual(unknown, []);
});

test("playMatch follows every match event, tournament every tournament event", () => {
  const listened = (client) => [...client.listeners].filter(([, set]) => set.size).map(([n]) => n).sort();
  const names = Object.keys(schema.events);
  let { client } = recording();
  client.playMatch({ game: "rps" }, () => "rock").catch(() => {});
  assert.deepEqual(listened(client), names.filter((n) => (EVENTS[n] ?? []).includes("match")).sort());
  ({ client } = recording());
  client.tournament({ game: "rps" }).catch(() => {});
  assert.deepEqual(listened(client), names.filter((n) => n.startsWith("tournament.")).sort());
});
