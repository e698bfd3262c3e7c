// Rendering for the playground: option controls from a schema, game boards, explanations as bars.

/** Creates an element: `el("div", {class: "x"}, child, "text", ...)`. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** A short label for an action of any game. */
export function actionLabel(action) {
  if (typeof action === "string") return action;
  if (action && typeof action === "object") {
    if (action.move) return `${action.move} move`;
    if (action.switch) return `switch to ${action.switch}`;
    if (action.reveal) return `reveal ${action.reveal}`;
    if (action.act) return [action.act, action.amount].filter((x) => x !== undefined).join(" ");
  }
  return JSON.stringify(action);
}

/**
 * Fills `fieldset` with one control per option of `schema` (the catalog's option specs), set to
 * `values`. Returns a function reading the controls back as an options object.
 */
export function renderOptions(fieldset, schema, values) {
  fieldset.querySelectorAll(".option").forEach((n) => n.remove());
  const readers = {};
  for (const spec of schema) {
    const value = values?.[spec.name] ?? spec.default;
    const shown = el("span", { class: "value" });
    let input;
    if (spec.type === "bool") {
      input = el("input", { type: "checkbox" });
      input.checked = !!value;
      readers[spec.name] = () => input.checked;
    } else if (spec.type === "choice") {
      input = el("select", {}, spec.choices.map((c) => el("option", { value: c }, c)));
      input.value = value;
      readers[spec.name] = () => input.value;
    } else if ((spec.type === "float" || spec.type === "int") && spec.min !== undefined && spec.max !== undefined && spec.max - spec.min <= 1000) {
      // A float slider takes any value: a step would round the schema's values (1.3 to 1.305).
      const step = spec.type === "int" ? 1 : "any";
      input = el("input", { type: "range", min: spec.min, max: spec.max, step });
      input.value = value;
      const show = () => (shown.textContent = spec.type === "int" ? input.value : String(Number(Number(input.value).toFixed(3))));
      input.addEventListener("input", show);
      show();
      readers[spec.name] = () => Number(input.value);
    } else if (spec.type === "float" || spec.type === "int") {
      input = el("input", { type: "number", step: spec.type === "int" ? 1 : "any", min: spec.min, max: spec.max });
      input.value = value;
      readers[spec.name] = () => Number(input.value);
    } else {
      const json = spec.type === "json";
      input = el("input", { type: "text" });
      input.value = json ? JSON.stringify(value) : value;
      readers[spec.name] = () => (json ? JSON.parse(input.value) : input.value);
    }
    input.dataset.option = spec.name;
    fieldset.append(el("label", { class: "option", title: spec.description }, el("span", {}, spec.name, shown), input));
  }
  return () => Object.fromEntries(Object.entries(readers).map(([name, read]) => [name, read()]));
}

/**
 * Params to start from, read off a method's description, whose signature comes first:
 * `{name, name?, name: example, …} → …`. The required names are kept, with their example when
 * it is JSON, else null to fill in; optional (`?`) names are left to their defaults.
 */
export function paramsTemplate(description) {
  const open = description.indexOf("{");
  let depth = 0;
  let end = -1;
  for (let i = Math.max(open, 0); open >= 0 && i < description.length; i++) {
    if ("{[".includes(description[i])) depth++;
    if ("}]".includes(description[i]) && --depth === 0) {
      end = i;
      break;
    }
  }
  if (end < 0) return "{}";
  const parts = [];
  let start = open + 1;
  let quoted = false;
  depth = 0;
  for (let i = open + 1; i < end; i++) {
    if (description[i] === '"') quoted = !quoted;
    if (quoted) continue;
    if ("{[".includes(description[i])) depth++;
    if ("}]".includes(description[i])) depth--;
    if (description[i] === "," && depth === 0) {
      parts.push(description.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(description.slice(start, end));
  const params = {};
  for (const part of parts) {
    const found = part.trim().match(/^([A-Za-z_]\w*)(\?)?(?:\s*:\s*(.*))?$/s);
    if (!found || found[2]) continue;
    try {
      params[found[1]] = found[3] === undefined ? null : JSON.parse(found[3]);
    } catch {
      params[found[1]] = null;
    }
  }
  return JSON.stringify(params);
}

/** The battle board: both parties with types, HP bars and the active Pokémon. */
export function battleView(observation, youSeat) {
  const { you, state, rules } = observation;
  const sides = [0, 1].map((side) => {
    const mine = side === you;
    const party = rules.parties[side];
    return el("div", { class: `side ${mine ? "you" : "bot"}`, "data-testid": mine ? "side-you" : "side-bot" },
      el("h3", {}, mine ? `You (seat ${youSeat})` : "Bot"),
      party.map((mon, i) => {
        const hp = state.hp[side][i];
        const cls = ["mon", state.active[side] === mon.name ? "active" : "", hp <= 0 ? "fainted" : ""].join(" ");
        return el("div", { class: cls },
          el("span", {}, mon.name),
          el("span", { class: `type ${mon.type}` }, mon.type),
          el("div", { class: "hp", title: `${hp}/${mon.hp} HP` }, el("div", { style: `width:${(100 * Math.max(hp, 0)) / mon.hp}%` })),
          el("span", {}, `${hp}/${mon.hp}`));
      }));
  });
  return el("div", {},
    el("p", { class: "kv" }, `Turn ${state.turn} · ${observation.phase === "replace" ? "choose a replacement" : "choose an action"} · speed: ${rules.parties.map((p) => p.map((m) => `${m.name} ${m.speed}`).join(" ")).join(" | ")}`),
    el("div", { class: "sides" }, you === 0 ? sides : sides.reverse()));
}

function card(code, extra = "") {
  const red = /[hd]$/i.test(code);
  return el("span", { class: `card ${red ? "red" : ""} ${extra}` }, code);
}

/** A labelled group of cards: hole cards (only their owner sees them) are drawn apart from up cards. */
const cardGroup = (label, cards, extra = "") => el("div", { class: "card-group" }, el("span", { class: "hint" }, label), el("div", { class: "cards" }, cards.map((c) => card(c, extra))));

/** Stud: your hole and up cards, the opponent's up cards (and its whole hand once a showdown
 * shows it, `shown_hands` from the game's end event), pot and stakes. */
export function studView(o) {
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

const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];

/** Sevens: the table as one row per suit (cards on it face up), your hand, the others' counts. */
export function sevensView(o) {
  const onTable = new Set(o.table);
  const suitColour = (suit) => (suit === "H" || suit === "D" ? "red" : "");
  return el("div", {},
    el("p", { class: "kv" }, `Move ${o.move} · cards left ${o.hand_sizes.join(" / ")} · passes left ${o.passes_left.join(" / ")} (you are seat ${o.seat})`),
    ["S", "H", "D", "C"].map((suit) => el("div", { class: "cards table-row" },
      el("span", { class: "card down" }, suit),
      RANKS.map((rank) => onTable.has(rank + suit)
        ? el("span", { class: `card ${suitColour(suit)}` }, rank)
        : el("span", { class: "card down" }, "·")))),
    el("h3", {}, "Your hand"),
    el("div", { class: "cards", "data-testid": "hand" }, o.hand.map(card)));
}

/** Any other game: the observation as it came. */
export function genericView(observation) {
  return el("pre", {}, JSON.stringify(observation, null, 1));
}

/** The view for a game's observation. */
export function gameView(game, observation, youSeat) {
  try {
    if (game === "battle") return battleView(observation, youSeat);
    if (observation && observation.opp_up !== undefined) return studView(observation);
    if (game === "sevens") return sevensView(observation);
  } catch {
    // An observation of an unexpected shape: fall back to showing it raw.
  }
  return genericView(observation);
}

function bars(title, rows, chosen) {
  const max = Math.max(1e-9, ...rows.map(([, v]) => Math.abs(v)));
  const scale = rows.every(([, v]) => v >= 0 && v <= 1) ? 1 : max;
  return el("div", { class: "bars", "data-testid": `bars-${title}` },
    el("strong", {}, title),
    rows.map(([label, value]) => el("div", { class: `bar ${label === chosen ? "chosen" : ""}` },
      el("span", {}, label),
      el("div", { class: "track" }, el("div", { class: "fill", style: `width:${(100 * Math.abs(value)) / scale}%` })),
      el("span", { class: "num" }, Number.isInteger(value) ? value : value.toFixed(3)))));
}

const WEIGHTS = ["probability", "strength", "activation", "share", "score"];

/**
 * A bot's explanation as pictures where they help: the mixed strategy of a battle bot, the
 * activations of a fuzzy stud player's rules as a grid, the D totals and move probabilities of a sevens player
 * (any map of numbers, any list of items with a weight), then the rest as JSON. Without an
 * `action` it draws a service's result the same way.
 */
export function explainView(explain, action) {
  const parts = [];
  const chosen = action === undefined ? undefined : actionLabel(action);
  if (action !== undefined) parts.push(el("p", {}, "Played: ", el("strong", { "data-testid": "bot-action" }, chosen)));
  if (explain?.personality !== undefined) {
    parts.push(el("p", { class: "kv", "data-testid": "personality" }, "Personality: ", JSON.stringify(explain.personality)));
  }
  if (Array.isArray(explain?.strategy) && Array.isArray(explain?.actions)) {
    parts.push(bars("strategy", explain.actions.map((a, i) => [actionLabel(a), explain.strategy[i]]), chosen));
  }
  const drawn = new Set(["strategy"]);
  if (isFuzzy(explain)) {
    parts.push(fuzzyView(explain));
    ["fired", "expect", "result", "infer", "a", "bounds"].forEach((key) => drawn.add(key));
  }
  for (const [key, value] of Object.entries(explain ?? {})) {
    if (drawn.has(key)) continue;
    // Plain numbers and short lists of them read best as one line each (an Err, a roll of faces).
    if (typeof value === "number") {
      parts.push(el("p", { class: "kv" }, `${key}: `, el("strong", {}, Number.isInteger(value) ? value : value.toFixed(3))));
      continue;
    }
    // A list of numbers, one per action the bot weighed (an equilibrium), reads as labelled bars.
    if (Array.isArray(explain.actions) && Array.isArray(value) && value.length === explain.actions.length && value.every((v) => typeof v === "number")) {
      parts.push(bars(key, explain.actions.map((a, i) => [actionLabel(a), value[i]]), chosen));
      continue;
    }
    if (Array.isArray(value) && value.length <= 200 && value.every((v) => typeof v === "number")) {
      parts.push(el("p", { class: "kv" }, `${key}: `, value.join(" ")));
      continue;
    }
    if (value && typeof value === "object" && !Array.isArray(value)) {
      const entries = Object.entries(value);
      if (entries.length > 1 && entries.length <= 24 && entries.every(([, v]) => typeof v === "number")) {
        parts.push(bars(key, entries.sort(([a], [b]) => a.localeCompare(b, undefined, { numeric: true }))));
      }
    } else if (Array.isArray(value) && value.length && value.length <= 24 && value.every((v) => v && typeof v === "object")) {
      const weight = WEIGHTS.find((w) => value.every((v) => typeof v[w] === "number"));
      if (weight) {
        const label = (v) => actionLabel(v.action ?? v.move ?? v.card ?? v.rule ?? v.name ?? Object.values(v).find((x) => typeof x === "string") ?? "?");
        parts.push(bars(`${key} (${weight})`, value.map((v) => [label(v), v[weight]]), chosen));
      }
    }
  }
  if (explain) parts.push(el("details", {}, el("summary", {}, "everything it said"), el("pre", {}, JSON.stringify(explain, null, 1))));
  else parts.push(el("p", { class: "hint" }, "This bot gives no explanation."));
  return el("div", {}, parts);
}

/** Standings with each bot's Elo and its 95% interval drawn on one shared axis. */
export function standingsView(standings) {
  const lows = standings.map((s) => s.elo_ci95?.[0] ?? s.elo ?? 0);
  const highs = standings.map((s) => s.elo_ci95?.[1] ?? s.elo ?? 0);
  let lo = Math.min(-50, ...lows.filter(Number.isFinite));
  let hi = Math.max(50, ...highs.filter(Number.isFinite));
  const x = (v) => `${(100 * (Math.min(Math.max(v, lo), hi) - lo)) / (hi - lo)}%`;
  return el("table", { class: "standings" },
    el("tr", {}, el("th", {}, "bot"), el("th", {}, "games"), el("th", {}, "score"), el("th", {}, "Elo"), el("th", {}, `Elo 95% interval (${Math.round(lo)} … ${Math.round(hi)})`)),
    standings.map((s) => el("tr", {},
      el("td", {}, s.bot), el("td", {}, s.games), el("td", {}, `${s.score} (${(100 * s.score_rate).toFixed(0)}%)`),
      el("td", {}, Number.isFinite(s.elo) ? s.elo.toFixed(0) : String(s.elo)),
      el("td", {}, el("div", { class: "elo" },
        el("div", { class: "zero", style: `left:${x(0)}` }),
        Number.isFinite(s.elo_ci95?.[0]) ? el("div", { class: "ci", style: `left:${x(s.elo_ci95[0])};width:calc(${x(s.elo_ci95[1])} - ${x(s.elo_ci95[0])})` }) : null,
        Number.isFinite(s.elo) ? el("div", { class: "point", style: `left:${x(s.elo)}` }) : null)))));
}

// ---- pictures drawn as SVG ----

const SVG = "http://www.w3.org/2000/svg";

/** Creates an SVG element: `svg("rect", {x: 1, ...}, child, ...)`. */
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) if (value !== undefined && value !== null) node.setAttribute(key, value);
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

const TURNS = ["early", "middle", "end"];
const BETS = ["few", "middle", "much"];
const HANDS = ["weak", "strong"];

/** The fuzzy player's fired rules (`turn/bet/hand` with a strength) as a lookup. */
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
 * The stud fuzzy player's rule base as a picture: for a weak and a strong hand, a grid of turn
 * (rows) × bet (columns) whose cells are as dark as the rule fired. `cell` is the size in pixels;
 * with `labels` it carries row and column names and the strengths.
 */
export function fuzzyGrid(fired, { cell = 44, labels = true } = {}) {
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
 * Where the fuzzy player's estimate of being ahead went: on the [−1, 1] axis its first estimate
 * (`expect`, hollow) and, moved by the rules' adjustment (`infer`), the result it acted on.
 */
export function superiorityAxis(explain, width = 340) {
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
  if (Number.isFinite(explain.expect) && Number.isFinite(explain.result)) {
    parts.push(svg("line", { x1: x(explain.expect), x2: x(explain.result), y1: y, y2: y, class: "shift" }));
    parts.push(svg("circle", { cx: x(explain.expect), cy: y, r: 5, class: "expect" }, svg("title", {}, `expect ${explain.expect.toFixed(3)}`)));
    parts.push(svg("circle", { cx: x(explain.result), cy: y, r: 5, class: "result" }, svg("title", {}, `result ${explain.result.toFixed(3)}`)));
  }
  return svg("svg", { width, height: 46, viewBox: `0 0 ${width} 46`, class: "superiority", role: "img" }, parts);
}

/** True for a stud fuzzy player's explanation (rules named turn/bet/hand). */
export function isFuzzy(explain) {
  return Array.isArray(explain?.fired) && explain.fired.every((f) => typeof f?.rule === "string" && f.rule.split("/").length === 3);
}

/** The fuzzy player's explanation drawn: rule grid, estimate moved by the rules, bet size. */
export function fuzzyView(explain) {
  const legend = el("p", { class: "hint" },
    el("span", { class: "swatch trust" }), " tendency ≥ 0 ", el("span", { class: "swatch doubt" }), " tendency < 0 · darker = fired more");
  const parts = [el("strong", {}, "Fuzzy rules that fired"), fuzzyGrid(explain.fired), legend,
    el("strong", {}, `Am I ahead? expect ${fmt(explain.expect)} → result ${fmt(explain.result)} (infer ${fmt(explain.infer)})`),
    superiorityAxis(explain)];
  if (Array.isArray(explain.bounds) && Number.isFinite(explain.a)) {
    parts.push(bars("bet size", [[`${explain.bounds[0]}…${explain.bounds[1]}`, explain.a]]));
  }
  if (explain.drop_reason) parts.push(el("p", { class: "kv" }, `dropped: ${explain.drop_reason}`));
  if (explain.reveal_reason) parts.push(el("p", { class: "kv" }, `revealed: ${explain.reveal_reason}`));
  return el("div", { class: "fuzzy", "data-testid": "fuzzy" }, parts);
}

const fmt = (v) => (Number.isFinite(v) ? v.toFixed(2) : "–");
