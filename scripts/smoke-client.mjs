// A running yomi checked as a client sees it, over the address given (tcp://HOST:PORT or
// ws://HOST:PORT/ws), with the token from $YOMI_TOKEN: `hello` names the version, build and
// protocol expected, an agent acts, a short match of bots and a short tournament play. With
// --tournament ID, the tournament is recorded under that id; with --listed ID (an operator
// token), it only checks that ID is among the server's records, as after a restart on the
// same data directory. Exits non-zero, saying why, on anything else. Used by scripts/test-image.sh.
//   node scripts/smoke-client.mjs URL VERSION BUILD [--tournament ID | --listed ID]
import { Client } from "../clients/js/src/yomi.js";

const [url, version, build, mode, id] = process.argv.slice(2);
const fail = (why) => {
  console.error(`smoke-client ${url}: ${why}`);
  process.exit(1);
};
const yomi = await Client.connect(url);
const welcome = await yomi.hello();
if (welcome.version !== version || welcome.build !== build || welcome.protocol !== 1) {
  fail(`hello says version ${welcome.version}, build ${welcome.build}, protocol ${welcome.protocol}; expected ${version}, ${build}, 1`);
}
const said = [`hello: ${welcome.server} ${welcome.version} (build ${welcome.build}), role ${welcome.role}`];

if (mode === "--listed") {
  const listed = await yomi.tournaments();
  const found = listed.find((t) => t.id === id);
  if (!found || found.status !== "finished") fail(`tournament ${id} is not among the finished records: ${JSON.stringify(listed)}`);
  said.push(`tournament.list: ${id} ${found.status}, ${found.games} games`);
} else {
  const legal = ["rock", "paper", "scissors"];
  const { agent } = await yomi.newAgent("example/rps", { preset: "reader", seed: 42 });
  const { action } = await yomi.act(agent, { opponent_last: "rock" }, legal);
  if (!legal.includes(action)) fail(`agent.act answered ${JSON.stringify(action)}, not one of ${legal}`);
  said.push(`agent.act: ${action}`);
  const match = await yomi.runMatch({ game: "rps", games: 3, seats: [{ bot: "example/rps" }, { bot: "example/rps", preset: "reader" }] }, { seed: 7 });
  if (match.games !== 3 || match.scores.length !== 2) fail(`match.run answered ${JSON.stringify(match)}`);
  said.push(`match.run: 3 games, scores ${match.scores.join(" : ")}`);
  if (mode === "--tournament") {
    const cup = await yomi.tournament({ tournament: id, game: "rps", games_per_pair: 4, seed: 1,
      bots: [{ bot: "example/rps" }, { bot: "example/rps", preset: "reader" }] });
    if (cup.games !== 4 || cup.status !== "finished") fail(`tournament.run answered ${JSON.stringify(cup)}`);
    said.push(`tournament.run: ${cup.id}, ${cup.games} games`);
  }
}
yomi.close();
console.log(`  ${url}: ${said.join("; ")}`);
