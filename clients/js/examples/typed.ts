// The npm package from TypeScript: `hello`, one `agent.act` and a short match against a server,
// with the types generated from protocol/schema.json. scripts/test-package.sh type-checks it
// (tsc --strict) in an empty project with the packed tarball installed, and runs it:
//   node typed.js tcp://127.0.0.1:7878      (or ws://127.0.0.1:8080/ws; the token from $YOMI_TOKEN)
import { Client, NotFound, type Result } from "yomi-client";

const yomi = await Client.connect(process.argv[2] ?? "tcp://127.0.0.1:7878");
const welcome: Result<"hello"> = await yomi.hello();
console.log(`hello: ${welcome.server} build ${welcome.build}, protocol ${welcome.protocol}, role ${welcome.role}`);

const { agent } = await yomi.newAgent("example/rps", { preset: "reader", seed: 42 });
// @ts-expect-error: `agent.new` has no `sed` (the generated types know its fields).
await yomi.newAgent("example/rps", { sed: 42 }).catch(() => undefined);
const decision = await yomi.act(agent, { opponent_last: "rock" }, ["rock", "paper", "scissors"]);
console.log(`agent.act: ${JSON.stringify(decision.action)}`);

const result = await yomi.runMatch({ game: "rps", seats: [{ bot: "example/rps" }, { bot: "example/rps", preset: "reader" }], games: 3 }, { seed: 7 });
console.log(`match.run: ${result.games} games of ${result.game}, scores ${result.scores.join(" : ")}`);

try {
  await yomi.act("a999", {}, []);
} catch (e) {
  if (!(e instanceof NotFound)) throw e;
  console.log(`errors: ${e.code}`);
}
yomi.close();
