// A battle against delta-nash from Node: `node examples/battle.mjs [tcp://127.0.0.1:7878]`
// against `yomi serve --tcp 127.0.0.1:7878` (or ws://127.0.0.1:8080/ws with --http).
import { Client } from "../src/yomi.js";

const yomi = await Client.connect(process.argv[2] ?? "tcp://127.0.0.1:7878");
const result = await yomi.playMatch(
  { game: "battle", seed: 7, games: 1, seats: [{ client: "me" }, { bot: "battle/delta-nash", preset: "human-like" }] },
  (turn) => {
    // Prefer a move over a switch; a real game would ask its player.
    const move = turn.legal.find((a) => a.move) ?? turn.legal[0];
    const { state, you } = turn.observation;
    console.log(`turn ${state.turn}: your HP ${JSON.stringify(state.hp[you])}, the bot's ${JSON.stringify(state.hp[1 - you])} -> ${JSON.stringify(move)}`);
    return move;
  },
);
console.log(`scores (me, delta-nash): ${result.scores.join(" : ")}`);
yomi.close();
