// The stud plugin's playground view (interface: PROTOCOL.md, "Plugin views"): your hole and up
// cards, the opponent's up cards (its whole hand once a showdown shows it), pot and stakes; and the
// fuzzy player's explanation drawn: which rules fired, and where its estimate of being ahead went.
import { el, svg, bars } from "/kit.js";

function card(code, extra = "") {
  const red = /[hd]$/i.test(code);
  return el("span", { class: `card ${red ? "red" : ""} ${extra}` }, code);
}

/** A labelled group of cards: hole cards (only their owner sees them) are drawn apart from up cards. */
const cardGroup = (label, cards, extra = "") => el("div", { class: "card-group" }, el("span", { class: "hint" }, label), el("div", { class: "cards" }, cards.map((c) => card(c, extra))));

/** The board as your seat sees it; `shown_hands` (from the game's end event) shows the bot's
 * whole hand after a showdown. */
export function render(o) {
  const shown = o.shown_hands?.[1 - o.seat];
  const theirs = shown
    ? [cardGroup("shown at the end", shown, "shown")]
    : [el("div", { class: "card-group" }, el("span", { class: "hint" }, "hole"), el("div", { class: "cards" }, Array.from({ length: o.opp_hole_count ?? 0 }, () => el("span", { class: "card down hole" }, "?")))),
      cardGroup("up", o.opp_up ?? [])];
  return el("div", {},
    el("p", { class: "kv" }, `Hand ${o.game}/${o.games} · interval ${o.turn} · ${o.phase} · pot ${o.pot} · paid ${o.paid?.join(" / ")} · chips ${o.chips?.join(" / ")}`),
    el("div", { class: "sides" },
      el("div", { class: "side you", "data-testid": "stud-you" }, el("h3", {}, "You"), el("div", { class: "hands" }, cardGroup("hole (only you see them)", o.hole ?? [], "hole"), cardGroup("up", o.up ?? []))),
      el("div", { class: "side bot", "data-testid": "stud-bot" }, el("h3", {}, "Bot"), el("div", { class: "hands" }, theirs))));
}

/** A showdown's end event shows both hands (`end.hands`): the board keeps them on screen. */
export function update(observation, event) {
  return Array.isArray(event?.end?.hands) ? { ...observation, shown_hands: event.end.hands } : null;
}

/** `{"reveal": "Kd"}` is "reveal Kd", `{"act": "raise", "amount": 10}` is "raise 10". */
export function label(action) {
  if (action?.reveal) return `reveal ${action.reveal}`;
  if (action?.act) return [action.act, action.amount].filter((x) => x !== undefined).join(" ");
  return undefined;
}

/** The fuzzy player's explanation as pictures (the rule grid, small beside its move in the log
 * when `compact`); other bots' explanations are left to the generic drawing. */
export function explain(explanation, { compact } = {}) {
  if (!isFuzzy(explanation)) return null;
  if (compact) return el("span", { class: "mini", "data-testid": "fuzzy-mini" }, fuzzyGrid(explanation.fired, { cell: 9, labels: false }));
  return fuzzyView(explanation);
}

const TURNS = ["early", "middle", "end"];
const BETS = ["few", "middle", "much"];
const HANDS = ["weak", "strong"];

/** True for a fuzzy player's explanation (rules named turn/bet/hand). */
function isFuzzy(explanation) {
  return Array.isArray(explanation?.fired) && explanation.fired.every((f) => typeof f?.rule === "string" && f.rule.split("/").length === 3);
}

/** The fired rules (`turn/bet/hand` with a strength) as a lookup. */
function firedRules(fired) {
  const strength = new Map();
  const tendency = new Map();
  for (const f of fired) {
    strength.set(f.rule, Math.max(strength.get(f.rule) ?? 0, f.strength));
    if (typeof f.tendency === "number") tendency.set(f.rule, f.tendency);
  }
  return { strength, tendency };
}

/** A rule's cell colour: its learned tendency's sign (trusting its own cards or the bets). */
const tendencyColour = (t) => (t === undefined || t >= 0 ? "59,111,216" : "210,85,58");

/**
 * The rule base as a picture: for a weak and a strong hand, a grid of turn (rows) × bet (columns)
 * whose cells are as dark as the rule fired. `cell` is the size in pixels; with `labels` it
 * carries row and column names and the strengths.
 */
function fuzzyGrid(fired, { cell = 44, labels = true } = {}) {
  const { strength, tendency } = firedRules(fired);
  const left = labels ? 52 : 0;
  const top = labels ? 30 : 0;
  const gap = labels ? 18 : 4;
  const width = left + 2 * 3 * cell + gap;
  const height = top + 3 * cell;
  const parts = [];
  HANDS.forEach((hand, h) => {
    const x0 = left + h * (3 * cell + gap);
    if (labels) parts.push(svg("text", { x: x0 + 1.5 * cell, y: 11, "text-anchor": "middle", class: "svg-title" }, `${hand} hand`));
    BETS.forEach((bet, j) => {
      if (labels) parts.push(svg("text", { x: x0 + (j + 0.5) * cell, y: top - 5, "text-anchor": "middle", class: "svg-label" }, bet));
    });
    TURNS.forEach((turn, c) => {
      if (labels && h === 0) parts.push(svg("text", { x: left - 5, y: top + (c + 0.62) * cell, "text-anchor": "end", class: "svg-label" }, turn));
      BETS.forEach((bet, j) => {
        const rule = `${turn}/${bet}/${hand}`;
        const w = strength.get(rule) ?? 0;
        const rgb = tendencyColour(tendency.get(rule));
        parts.push(svg("rect", {
          x: x0 + j * cell + 1, y: top + c * cell + 1, width: cell - 2, height: cell - 2, rx: labels ? 3 : 1,
          fill: w > 0 ? `rgba(${rgb},${0.15 + 0.85 * w})` : "#eef0f4",
          stroke: w > 0 ? `rgb(${rgb})` : "none",
          "data-rule": rule, "data-strength": w,
        }, svg("title", {}, `${rule}: strength ${w.toFixed(3)}${tendency.has(rule) ? `, tendency ${tendency.get(rule).toFixed(3)}` : ""}`)));
        if (labels && w > 0) {
          parts.push(svg("text", { x: x0 + (j + 0.5) * cell, y: top + (c + 0.62) * cell, "text-anchor": "middle", class: w > 0.55 ? "svg-num light" : "svg-num" }, w < 0.005 ? "<.01" : w.toFixed(2)));
        }
      });
    });
  });
  return svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, class: "fuzzy-grid", role: "img" }, parts);
}

/**
 * Where the estimate of being ahead went: on the [−1, 1] axis its first estimate (`expect`,
 * hollow) and, moved by the rules' adjustment (`infer`), the result it acted on.
 */
function superiorityAxis(explanation, width = 340) {
  const pad = 14;
  const x = (v) => pad + ((Math.min(Math.max(v, -1), 1) + 1) / 2) * (width - 2 * pad);
  const y = 26;
  const parts = [
    svg("line", { x1: x(-1), x2: x(1), y1: y, y2: y, class: "axis" }),
    ...[-1, -0.5, 0, 0.5, 1].map((t) => svg("g", {},
      svg("line", { x1: x(t), x2: x(t), y1: y - 4, y2: y + 4, class: "axis" }),
      svg("text", { x: x(t), y: y + 16, "text-anchor": "middle", class: "svg-label" }, t))),
    svg("text", { x: x(-1), y: 10, class: "svg-label" }, "behind"),
    svg("text", { x: x(1), y: 10, "text-anchor": "end", class: "svg-label" }, "ahead"),
  ];
  const { expect, result } = explanation;
  if (Number.isFinite(expect) && Number.isFinite(result)) {
    parts.push(svg("line", { x1: x(expect), x2: x(result), y1: y, y2: y, class: "shift" }));
    parts.push(svg("circle", { cx: x(expect), cy: y, r: 5, class: "expect" }, svg("title", {}, `expect ${expect.toFixed(3)}`)));
    parts.push(svg("circle", { cx: x(result), cy: y, r: 5, class: "result" }, svg("title", {}, `result ${result.toFixed(3)}`)));
  }
  return svg("svg", { width, height: 46, viewBox: `0 0 ${width} 46`, class: "superiority", role: "img" }, parts);
}

const fmt = (v) => (Number.isFinite(v) ? v.toFixed(2) : "–");

/** Rule grid, estimate moved by the rules, bet size, and why it dropped or revealed. */
function fuzzyView(e) {
  const legend = el("p", { class: "hint" },
    el("span", { class: "swatch trust" }), " tendency ≥ 0 ", el("span", { class: "swatch doubt" }), " tendency < 0 · darker = fired more");
  const parts = [el("strong", {}, "Fuzzy rules that fired"), fuzzyGrid(e.fired), legend,
    el("strong", {}, `Am I ahead? expect ${fmt(e.expect)} → result ${fmt(e.result)} (infer ${fmt(e.infer)})`),
    superiorityAxis(e)];
  if (Array.isArray(e.bounds) && Number.isFinite(e.a)) parts.push(bars("bet size", [[`${e.bounds[0]}…${e.bounds[1]}`, e.a]]));
  if (e.drop_reason) parts.push(el("p", { class: "kv" }, `dropped: ${e.drop_reason}`));
  if (e.reveal_reason) parts.push(el("p", { class: "kv" }, `revealed: ${e.reveal_reason}`));
  return el("div", { class: "fuzzy", "data-testid": "fuzzy" }, parts);
}

/** What a first game plays: the fuzzy player, whose rules the page draws, over three hands (one hand is over in a click). */
export const start = { stud: { bot: "fuzzy", game_options: { games: 3 } } };

export const css = `
/* Hole cards (only their owner sees them) look apart from the up cards. */
.hands { display: flex; gap: .8rem; flex-wrap: wrap; }
.card-group .hint { display: block; }
.card.hole { border-style: dashed; border-color: var(--muted); background: #f2f4f8; }
.card.shown { border-color: var(--bot); }
svg .axis { stroke: var(--muted); stroke-width: 1; } svg .shift { stroke: var(--accent); stroke-width: 3; }
svg .expect { fill: #fff; stroke: var(--accent); stroke-width: 2; } svg .result { fill: var(--accent); }
.fuzzy { display: flex; flex-direction: column; gap: .3rem; margin: .4rem 0; }
.swatch.trust { background: rgb(59,111,216); } .swatch.doubt { background: rgb(210,85,58); }
.mini svg { vertical-align: middle; margin-left: .3rem; }
`;
