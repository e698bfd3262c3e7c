// The example plugin's playground view: rock-paper-scissors drawn as a person would play it. It
// shows the whole interface of a plugin view (PROTOCOL.md, "Plugin views"); each export is
// optional and the playground draws what one leaves out generically:
// - render(observation, ctx) → the board as ctx.seat sees it;
// - label(action, ctx) → an action's name, on its button, in the log and in explanations
//   (undefined for what it does not know: the generic name is used);
// - actions(legal, ctx) → controls for the legal actions, each calling ctx.choose(action);
// - update(observation, event, ctx) → the observation after a step's public event, so the board
//   follows the game between your turns (and shows the last throw);
// - explain(explanation, ctx) → a bot's explanation drawn, or null for the generic drawing;
// - start → per game, what a first game plays: `{bot, game_options}`;
// - css → styles for what this module draws; tabs → pages of their own (see the dice plugin).
// The host serves this file (carried in the plugin by `include_str!`) at /plugins/example/view.js.
import { el, svg } from "/kit.js";

const OUTCOME = { 1: "won", 0.5: "tie", 0: "lost" };
const BEATS = { rock: "scissors", paper: "rock", scissors: "paper" };
const points = (mine, theirs) => (mine === theirs ? 0.5 : BEATS[mine] === theirs ? 1 : 0);

/** A hand drawn in SVG (no emoji font needed): a stone, a sheet, a pair of blades. */
function sign(hand, size = 36) {
  const shapes = {
    rock: [svg("circle", { cx: 12, cy: 13, r: 8 })],
    paper: [svg("rect", { x: 5, y: 3, width: 14, height: 18, rx: 1.5 }), svg("line", { x1: 8, x2: 16, y1: 9, y2: 9 }), svg("line", { x1: 8, x2: 16, y1: 13, y2: 13 })],
    scissors: [svg("line", { x1: 6, y1: 3, x2: 16, y2: 16 }), svg("line", { x1: 18, y1: 3, x2: 8, y2: 16 }), svg("circle", { cx: 7, cy: 19, r: 3 }), svg("circle", { cx: 17, cy: 19, r: 3 })],
  };
  return svg("svg", { width: size, height: size, viewBox: "0 0 24 24", class: `sign ${hand}`, role: "img", "aria-label": hand }, shapes[hand] ?? []);
}

/** The score, the round, and every throw so far: yours beside the bot's, won, tied or lost. */
export function render(observation, { seat }) {
  const { round, rounds, history = [], score = [0, 0] } = observation;
  const you = observation.seat ?? seat;
  const rows = history.map((hands, i) => {
    const [mine, theirs] = [hands[you], hands[1 - you]];
    const result = OUTCOME[points(mine, theirs)];
    return el("tr", { class: result, "data-testid": "rps-round" },
      el("td", {}, i + 1), el("td", { class: "hand" }, sign(mine, 18), ` ${mine}`), el("td", { class: "hand" }, sign(theirs, 18), ` ${theirs}`), el("td", {}, result));
  });
  const over = round > rounds;
  return el("div", { class: "rps" },
    el("p", { class: "score", "data-testid": "rps-score" },
      el("span", { class: "you" }, `You ${score[you]}`), " : ", el("span", { class: "bot" }, `${score[1 - you]} Bot`)),
    el("p", { class: "kv" }, over ? `${rounds} throws played` : `Throw ${round} of ${rounds} · both hands are shown together`),
    rows.length
      ? el("table", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, "you"), el("th", {}, "bot"), el("th", {}, "")), rows)
      : el("p", { class: "hint" }, "No throw yet: rock beats scissors, scissors beat paper, paper beats rock."));
}

/** A throw (the game's event `{round, hands, score}`) added to what your seat saw. */
export function update(observation, event) {
  if (!Array.isArray(event?.hands)) return null;
  const history = [...(observation.history ?? []), event.hands];
  return { ...observation, history, round: event.round + 1, score: event.score, opponent_last: event.hands[1 - observation.seat] };
}

/** "rock" is "rock (beats scissors)": a newcomer reads the rules off the log. */
export function label(action) {
  return BEATS[action] ? `${action} (beats ${BEATS[action]})` : undefined;
}

/** One big button per hand. */
export function actions(legal, { choose }) {
  return el("div", { class: "rps-hands" },
    legal.map((hand) => el("button", { "data-testid": "action", "data-hand": hand, title: hand, onclick: () => choose(hand) },
      sign(hand), el("span", {}, hand))));
}

/** The bot's reason in one sentence, over the generic drawing's JSON (nothing small for the log). */
export function explain(explanation, { compact }) {
  if (compact || typeof explanation?.reason !== "string") return null;
  const last = explanation.opponent_last ? `your last hand was ${explanation.opponent_last}` : "no hand of yours yet";
  return el("p", { "data-testid": "rps-reason" }, `Why: ${explanation.reason} (${last}).`);
}

/** A first game: against this plugin's bot, over five throws. */
export const start = { rps: { bot: "example/rps", game_options: { rounds: 5 }, explain: "step" } };

export const css = `
.rps .score { font-size: 1.6rem; font-weight: 700; margin: .2rem 0; }
.rps .score .you { color: var(--you); } .rps .score .bot { color: var(--bot); }
.rps table { border-collapse: collapse; font-size: .9rem; }
.rps td, .rps th { padding: .15rem .6rem; text-align: left; border-bottom: 1px solid var(--line); }
.rps tr.won td:last-child { color: var(--you); font-weight: 600; } .rps tr.lost td:last-child { color: var(--bot); }
.rps-hands { display: flex; gap: .6rem; flex-wrap: wrap; }
.rps-hands button { display: flex; flex-direction: column; align-items: center; min-width: 5.5rem; padding: .4rem .8rem; }
svg.sign { vertical-align: middle; fill: none; stroke: var(--ink); stroke-width: 1.6; stroke-linecap: round; }
svg.sign.rock circle { fill: #c9ccd4; } svg.sign.paper rect { fill: #fff; }
`;
