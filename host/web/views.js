// What the playground draws itself: option controls from a schema, the generic board and
// explanation (for whatever a plugin's view leaves out), tournament standings. Each game's own
// board comes from its plugin's view module (plugins.js; PROTOCOL.md, "Plugin views").
import { el, bars } from "./kit.js";

/** An action's name where its game's view gives none: a string as it is, else its JSON. */
export function genericLabel(action) {
  return typeof action === "string" ? action : JSON.stringify(action);
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

/** Any other game: the observation as it came. */
export function genericView(observation) {
  return el("pre", {}, JSON.stringify(observation, null, 1));
}

const WEIGHTS = ["probability", "strength", "activation", "share", "score"];

/**
 * A bot's explanation: what it played, its personality, then `picture` (what the bot's plugin view
 * drew of it, if anything) or else pictures where they help: the mixed strategy of a battle bot,
 * the D totals and move probabilities of a sevens player (any map of numbers, any list of items
 * with a weight); then all of it as JSON. `label` names actions (the game's view's). Without an
 * `action` it draws a service's result the same way.
 */
export function explainView(explain, action, { label = genericLabel, picture = null } = {}) {
  const parts = [];
  const chosen = action === undefined ? undefined : label(action);
  if (action !== undefined) parts.push(el("p", {}, "Played: ", el("strong", { "data-testid": "bot-action" }, chosen)));
  if (explain?.personality !== undefined) {
    parts.push(el("p", { class: "kv", "data-testid": "personality" }, "Personality: ", JSON.stringify(explain.personality)));
  }
  if (picture) parts.push(picture);
  else parts.push(...genericExplanation(explain, chosen, label));
  if (explain) parts.push(el("details", {}, el("summary", {}, "everything it said"), el("pre", {}, JSON.stringify(explain, null, 1))));
  else parts.push(el("p", { class: "hint" }, "This bot gives no explanation."));
  return el("div", {}, parts);
}

/** The numbers of an explanation drawn as bars and lines, with actions named by `label`. */
function genericExplanation(explain, chosen, label) {
  const parts = [];
  if (Array.isArray(explain?.strategy) && Array.isArray(explain?.actions)) {
    parts.push(bars("strategy", explain.actions.map((a, i) => [label(a), explain.strategy[i]]), chosen));
  }
  for (const [key, value] of Object.entries(explain ?? {})) {
    if (key === "strategy" || key === "personality") continue;
    // Plain numbers and short lists of them read best as one line each (an Err, a roll of faces).
    if (typeof value === "number") {
      parts.push(el("p", { class: "kv" }, `${key}: `, el("strong", {}, Number.isInteger(value) ? value : value.toFixed(3))));
      continue;
    }
    // A list of numbers, one per action the bot weighed (an equilibrium), reads as labelled bars.
    if (Array.isArray(explain.actions) && Array.isArray(value) && value.length === explain.actions.length && value.every((v) => typeof v === "number")) {
      parts.push(bars(key, explain.actions.map((a, i) => [label(a), value[i]]), chosen));
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
        const name = (v) => label(v.action ?? v.move ?? v.card ?? v.rule ?? v.name ?? Object.values(v).find((x) => typeof x === "string") ?? "?");
        parts.push(bars(`${key} (${weight})`, value.map((v) => [name(v), v[weight]]), chosen));
      }
    }
  }
  return parts;
}

/** Standings with each bot's Elo (a joint fit, `reference` at 0) and its 95% interval drawn on
 * one shared axis. */
export function standingsView(standings, reference) {
  const lows = standings.map((s) => s.elo_ci95?.[0] ?? s.elo ?? 0);
  const highs = standings.map((s) => s.elo_ci95?.[1] ?? s.elo ?? 0);
  let lo = Math.min(-50, ...lows.filter(Number.isFinite));
  let hi = Math.max(50, ...highs.filter(Number.isFinite));
  const x = (v) => `${(100 * (Math.min(Math.max(v, lo), hi) - lo)) / (hi - lo)}%`;
  return el("table", { class: "standings", "data-testid": "t-standings-table" },
    el("tr", {}, el("th", {}, "bot"), el("th", {}, "games"), el("th", {}, "score"), el("th", {}, reference ? `Elo (${reference} = 0)` : "Elo"), el("th", {}, `Elo 95% interval (${Math.round(lo)} … ${Math.round(hi)})`)),
    standings.map((s) => el("tr", {},
      el("td", {}, s.bot), el("td", {}, s.games), el("td", {}, `${s.score} (${(100 * s.score_rate).toFixed(0)}%)`),
      el("td", {}, Number.isFinite(s.elo) ? s.elo.toFixed(0) : String(s.elo)),
      el("td", {}, el("div", { class: "elo" },
        el("div", { class: "zero", style: `left:${x(0)}` }),
        Number.isFinite(s.elo_ci95?.[0]) ? el("div", { class: "ci", style: `left:${x(s.elo_ci95[0])};width:calc(${x(s.elo_ci95[1])} - ${x(s.elo_ci95[0])})` }) : null,
        Number.isFinite(s.elo) ? el("div", { class: "point", style: `left:${x(s.elo)}` }) : null)))));
}
