// The dice plugin's playground view (interface: PROTOCOL.md, "Plugin views"): the sugoroku board,
// and a Dice tab with the same number of rolls from plain dice (an ordinary PRNG), natural dice
// and natural dice under trap control on a sugoroku track, side by side, each with its faces, how
// often each face came, the traps a piece walking the track with them lands on, and the features
// and Err the dice service judges a sequence by.
import { YomiError } from "/yomi.js";
import { el, svg } from "/kit.js";

const KINDS = [
  { name: "plain", label: "Plain", preset: "plain", colour: "#8a93a6" },
  { name: "natural", label: "Natural", preset: "", colour: "#3b6fd8" },
  { name: "controlled", label: "Controlled (trap control)", preset: "", colour: "#2f9e6b" },
];

/** The sugoroku board as your seat sees it: the roll, where the piece stands, and each square it
 * may move to with what lies there. */
export function render(o) {
  const where = (d) => (d.goal ? "the goal" : d.trap ? "a trap" : `${d.to_goal} to the goal, ${d.traps_ahead} traps in the next 6`);
  return el("div", {},
    el("p", { class: "kv" }, `Run ${o.run} of ${o.runs} · on square ${o.position} · goals ${o.goals} · trap hits ${o.hits}`),
    el("p", { class: "roll", "data-testid": "sugoroku-roll" }, "You rolled ", el("strong", {}, o.roll)),
    el("ul", {}, (o.destinations ?? []).map((d) => el("li", { class: d.trap ? "error" : "" }, `square ${d.square}: ${where(d)}`))));
}

/** A destination square is "to square N". */
export function label(action) {
  return Number.isInteger(action) ? `to square ${action}` : undefined;
}

/** The Dice tab: its controls and its board, on the dice service of this plugin. */
export const tabs = [{ name: "dice", title: "Dice", mount }];

function mount(panel, { client, catalog, plugin }) {
  const bot = catalog.bots.find((b) => b.plugin === plugin && b.methods.some((m) => m.name === "sequence") && b.methods.some((m) => m.name === "score"));
  const number = (id, value, min, max) => el("input", { id, type: "number", value, min, max });
  const form = { n: number("dice-n", 50, 8, 200), seed: number("dice-seed", 1, 0), every: number("dice-trap-every", 5, 2, 20) };
  const roll = el("button", { id: "dice-roll", "data-testid": "dice-roll" }, "Roll side by side");
  const board = el("div", { class: "board wide", id: "dice-board", "data-testid": "dice-board" }, el("p", { class: "hint" }, bot ? "Roll to compare." : "No dice service in this server's plugins."));
  panel.append(
    el("aside", { class: "controls" },
      el("label", {}, "Rolls ", form.n),
      el("label", {}, "Seed ", form.seed),
      el("label", {}, "A trap every … squares ", form.every),
      el("div", { class: "buttons" }, roll),
      el("p", { class: "hint" }, "Plain dice are an ordinary PRNG; natural dice keep the features players notice (runs, repeats, gaps) in a natural range; controlled dice are natural dice that also keep a piece's trap hits near what chance would give, on a straight track.")),
    board);
  const report = (e) => board.prepend(el("p", { class: "error", "data-testid": "dice-error" }, e instanceof YomiError ? `${e.code}: ${e.message}` : String(e.message ?? e)));
  if (bot) roll.addEventListener("click", () => rollSideBySide(client, bot, form, board).catch(report));
}

/** A straight track of `length` squares with a trap every `every` squares (none on start or goal). */
function track(length, every) {
  return {
    squares: Array.from({ length }, (_, i) => ({
      next: i + 1 < length ? [i + 1] : [],
      trap: i > 0 && i < length - 1 && i % every === every - 1,
    })),
  };
}

/** Rolls each kind of dice `n` times from fresh agents of the same seed, then scores them all
 * with the natural dice's ranges, so the Errs compare. */
async function rollSideBySide(client, bot, form, shown) {
  const n = Math.max(8, Math.min(200, Number(form.n.value) || 50));
  const seed = Number(form.seed.value) || 0;
  const every = Math.max(2, Number(form.every.value) || 5);
  const board = track(Math.max(40, 8 * every), every);
  const sides = bot.options.find((o) => o.name === "sides")?.default ?? 6;
  const agents = [];
  const agentFor = async (preset) => {
    const { agent } = await client.newAgent(bot.id, preset ? { preset, seed } : { seed });
    agents.push(agent);
    return agent;
  };
  try {
    const columns = [];
    for (const kind of KINDS) {
      const agent = await agentFor(kind.preset);
      const rolled = kind.name === "controlled" ? await controlledRolls(client, agent, board, n) : { faces: (await client.call(agent, "rolls", { n, player: "you" })).faces };
      columns.push({ ...kind, ...rolled });
    }
    const judge = await agentFor("");
    for (const column of columns) {
      Object.assign(column, await client.call(judge, "score", { faces: column.faces }), walk(board, column.faces, sides));
    }
    shown.replaceChildren(diceView(columns, n, sides));
  } finally {
    for (const agent of agents) await client.drop(agent).catch(() => {});
  }
}

/** Where a piece on square `position` of the straight track lands with `face`: back to the
 * start once it reaches the goal. */
const step = (board, position, face) => (position + face >= board.squares.length - 1 ? 0 : position + face);

/** `n` controlled rolls of a piece walking the track: the service steers its trap hits towards
 * what chance would give while keeping the sequence natural. */
async function controlledRolls(client, agent, board, n) {
  const faces = [];
  let position = 0;
  for (let i = 0; i < n; i++) {
    const roll = await client.call(agent, "roll", { player: "you", board, position });
    faces.push(roll.face);
    position = step(board, position, roll.face);
  }
  return { faces };
}

/** The trap squares a piece walking the track with `faces` lands on, and how many chance alone
 * would give (the share of faces that land on a trap, summed over the rolls). */
function walk(board, faces, sides) {
  let position = 0;
  let expected = 0;
  const hits = faces.map((face) => {
    const trapFaces = Array.from({ length: sides }, (_, f) => board.squares[position + f + 1]?.trap).filter(Boolean).length;
    expected += trapFaces / sides;
    position = step(board, position, face);
    return board.squares[position].trap;
  });
  return { hits, expected };
}

/** The three columns: faces, face counts, Err; then every feature for the three together. */
function diceView(columns, n, sides) {
  const cards = columns.map((c) => el("div", { class: "dice-column", "data-testid": `dice-${c.name}` },
    el("h3", {}, el("span", { class: "swatch", style: `background:${c.colour}` }), ` ${c.label}`),
    el("p", { class: "err" }, "Err ", el("strong", { "data-testid": "dice-err" }, Number(c.err).toFixed(3))),
    facesPicture(c.faces, c.hits),
    histogram(c.faces, sides, c.colour),
    el("p", { class: "kv", "data-testid": "dice-traps" }, `on the track: ${c.hits.filter(Boolean).length} trap hits (red), chance expects ${c.expected.toFixed(1)}`)));
  return el("div", {},
    el("p", { class: "hint" }, `${n} rolls of each; Err is 0 when every feature lies in the range natural dice keep to (judged by the same service).`),
    el("div", { class: "compare" }, cards),
    featureChart(columns));
}

/** The faces in order as small dice, red where the piece walking the track landed on a trap. */
function facesPicture(faces, hits) {
  const size = 16;
  const perRow = 20;
  const rows = Math.ceil(faces.length / perRow);
  const parts = faces.map((face, i) => {
    const x = (i % perRow) * (size + 2);
    const y = Math.floor(i / perRow) * (size + 2);
    return svg("g", {},
      svg("rect", { x, y, width: size, height: size, rx: 3, class: hits[i] ? "die hit" : "die" }),
      svg("text", { x: x + size / 2, y: y + size * 0.72, "text-anchor": "middle", class: "svg-num" }, face));
  });
  const width = perRow * (size + 2);
  const height = rows * (size + 2);
  return svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, class: "faces", role: "img" }, parts);
}

/** How often each face came, against the even share. */
function histogram(faces, sides, colour) {
  const counts = Array.from({ length: sides }, (_, f) => faces.filter((x) => x === f + 1).length);
  const max = Math.max(1, ...counts);
  const w = 22;
  const h = 60;
  const even = faces.length / sides;
  const y = (c) => h - (h * c) / max;
  const parts = counts.flatMap((c, f) => [
    svg("rect", { x: f * w + 2, y: y(c), width: w - 4, height: h - y(c), fill: colour }),
    svg("text", { x: f * w + w / 2, y: h + 12, "text-anchor": "middle", class: "svg-label" }, f + 1),
  ]);
  parts.push(svg("line", { x1: 0, x2: sides * w, y1: y(even), y2: y(even), class: "even" }, svg("title", {}, `even share ${even.toFixed(1)}`)));
  return svg("svg", { width: sides * w, height: h + 16, viewBox: `0 0 ${sides * w} ${h + 16}`, class: "histogram", role: "img" }, parts);
}

/** Every feature (F1…) as a group of bars, one per kind of dice, each feature on its own scale. */
function featureChart(columns) {
  const names = Object.keys(columns[0].features).sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  const rowH = 8 * columns.length + 6;
  const labelW = 40;
  const barW = 360;
  const parts = [];
  names.forEach((name, r) => {
    const values = columns.map((c) => c.features[name]);
    const max = Math.max(1e-9, ...values.map(Math.abs));
    const y0 = r * rowH;
    parts.push(svg("text", { x: labelW - 6, y: y0 + rowH / 2 + 3, "text-anchor": "end", class: "svg-label" }, name));
    values.forEach((v, k) => {
      parts.push(svg("rect", { x: labelW, y: y0 + 3 + 8 * k, width: (barW * Math.abs(v)) / max, height: 7, fill: columns[k].colour },
        svg("title", {}, `${columns[k].label} ${name} = ${v}`)));
      parts.push(svg("text", { x: labelW + (barW * Math.abs(v)) / max + 4, y: y0 + 9 + 8 * k, class: "svg-small" }, Number.isInteger(v) ? v : v.toFixed(2)));
    });
  });
  const width = labelW + barW + 50;
  const height = names.length * rowH;
  return el("div", { class: "features", "data-testid": "dice-features" },
    el("strong", {}, "Features (each row on its own scale)"),
    svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img" }, parts));
}

export const css = `
#dice-board { display: flex; flex-direction: column; gap: .75rem; }
.dice-column h3 { margin: 0 0 .3rem; font-size: .95rem; }
.dice-column .err { margin: .2rem 0; }
svg .die { fill: #fff; stroke: var(--line); } svg .die.hit { fill: #fbe0da; stroke: var(--bot); stroke-width: 2; }
svg .even { stroke: var(--ink); stroke-dasharray: 3 2; } svg .svg-small { font-size: 9px; fill: var(--muted); }
.features { display: flex; flex-direction: column; gap: .3rem; background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .5rem; }
`;
