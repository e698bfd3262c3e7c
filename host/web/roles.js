// The roles view: a group of players dealt roles game after game by the roles service, its
// history as a grid, and the probabilities of the next draw as a heat map, so a designer sees
// how the dealing leans towards roles a player has not had.
import { YomiError } from "./yomi.js";
import { el } from "./views.js";

const $ = (id) => document.getElementById(id);

/** Colours of the roles, in the order the group's roles are given. */
const PALETTE = ["#d2553a", "#3b6fd8", "#2f9e6b", "#c9a400", "#8a55c8", "#e08a2e", "#4a9ea8", "#b04a7a"];

/** Sets up the Roles tab; the roles bot must be in the catalog. */
export function setUpRoles(client, catalog) {
  const bot = catalog.bots.find((b) => b.methods.some((m) => m.name === "assign") && b.methods.some((m) => m.name === "analyze"));
  if (!bot) {
    $("roles-board").replaceChildren(el("p", { class: "hint" }, "No roles service in this server's plugins."));
    return;
  }
  const fill = (select, items) => select.replaceChildren(...items.map(([value, label]) => el("option", { value }, label)));
  fill($("roles-preset"), [["", "(defaults)"], ...bot.presets.map((p) => [p.name, `${p.name}: ${p.description}`])]);
  // `keys`: each group's key, which `create` returns and every later call on the group needs.
  const state = { agent: null, preset: null, last: null, keys: {} };
  const report = (e) => $("roles-log").prepend(el("li", { class: "error", "data-testid": "roles-error" }, e instanceof YomiError ? `${e.code}: ${e.message}` : String(e.message ?? e)));
  const log = (text) => $("roles-log").prepend(el("li", {}, text));
  const form = () => ({
    group: $("roles-group").value.trim(),
    players: $("roles-players").value.split(",").map((p) => p.trim()).filter(Boolean),
    roles: $("roles-roles").value.trim(),
  });
  /** The service agent of the chosen preset (the preset sets beta, how hard draws lean). */
  const agent = async () => {
    const preset = $("roles-preset").value;
    if (state.agent && state.preset === preset) return state.agent;
    if (state.agent) await client.drop(state.agent).catch(() => {});
    state.agent = (await client.newAgent(bot.id, preset ? { preset, seed: 1 } : { seed: 1 })).agent;
    state.preset = preset;
    return state.agent;
  };
  const call = async (method, params) => {
    const key = state.keys[params.group];
    return client.call(await agent(), method, key ? { ...params, key } : params);
  };

  /** Creates the group unless this page made it; players not in it yet join. */
  const ensureGroup = async () => {
    const { group, players } = form();
    if (!state.keys[group]) {
      state.keys[group] = (await call("create", { group, players })).key;
      log(`group ${group} created: ${players.join(", ")}`);
      return;
    }
    const present = (await call("players", { group })).players;
    const newcomers = players.filter((p) => !present.includes(p));
    if (newcomers.length) await call("join", { group, players: newcomers });
  };

  /** Deals `games` games one after another, each committed to the history, then redraws. */
  const deal = async (games) => {
    await ensureGroup();
    const { group, roles } = form();
    for (let i = 0; i < games; i++) {
      const dealt = await call("assign", { group, roles });
      await call("commit", { group, game: dealt.game });
      state.last = dealt.assignment;
      log(`game ${dealt.game} (beta ${dealt.beta}): ${Object.entries(dealt.assignment).map(([p, r]) => `${p}=${r}`).join(" ")}`);
    }
    await show();
  };

  const show = async () => {
    await ensureGroup();
    const { group, roles } = form();
    const history = await call("history", { group });
    const analysis = await call("analyze", { group, roles, role: Object.keys(rolesOf(roles))[0] });
    $("roles-board").replaceChildren(rolesView(history, analysis, Object.keys(rolesOf(roles)), state.last));
  };

  // One step at a time: a deal started while the view redraws must not create the group twice.
  let queue = Promise.resolve();
  const serially = (step) => () => (queue = queue.then(step).catch(report));
  $("roles-deal").addEventListener("click", serially(() => deal(1)));
  $("roles-deal-many").addEventListener("click", serially(() => deal(10)));
  $("roles-show").addEventListener("click", serially(show));
  $("roles-preset").addEventListener("change", serially(show));
}

/** `werewolf=1,seer=1` as `{werewolf: 1, seer: 1}`. */
function rolesOf(text) {
  return Object.fromEntries(text.split(",").filter((p) => p.includes("=")).map((p) => p.split("=").map((s) => s.trim())).map(([r, n]) => [r, Number(n)]));
}

/** The group's picture: who had which role in each game, and the next draw's probabilities.
 * `roles` is the order the roles were given in (the service's result lists them sorted). */
export function rolesView(history, analysis, roles, last) {
  const colour = (role) => PALETTE[roles.indexOf(role) % PALETTE.length] ?? "#999";
  const players = analysis.players;
  const n = players.length;
  const legend = el("p", { class: "legend" }, roles.map((r) => el("span", {}, el("span", { class: "swatch", style: `background:${colour(r)}` }), ` ${r} ×${analysis.roles[r]} `)));

  const games = history.games.slice(-40);
  const grid = el("table", { class: "roles-history", "data-testid": "roles-history" },
    el("tr", {}, el("th", {}, "player"), games.map((g) => el("th", { title: `game ${g.game}` }, g.game)), roles.map((r) => el("th", {}, `#${r}`))),
    players.map((p) => el("tr", {},
      el("th", {}, p),
      games.map((g) => {
        const role = g.assignment[p];
        return el("td", { class: "role-cell", style: role ? `background:${colour(role)}` : "", title: role ?? "absent" }, role ? role[0].toUpperCase() : "");
      }),
      roles.map((r) => el("td", { class: "num" }, history.counts[p]?.[r] ?? 0)))));

  const heat = el("table", { class: "roles-heat", "data-testid": "roles-probabilities" },
    el("tr", {}, el("th", {}, "next draw"), roles.map((r) => el("th", {}, `${r} (uniform ${(analysis.roles[r] / n).toFixed(2)})`))),
    players.map((p) => el("tr", {}, el("th", {}, p, last?.[p] ? el("span", { class: "hint" }, ` last: ${last[p]}`) : null),
      roles.map((r) => {
        const prob = analysis.probabilities[p][r];
        const uniform = analysis.roles[r] / n;
        return el("td", { class: "prob" },
          el("div", { class: "prob-bar", style: `width:${100 * prob}%;background:${colour(r)}` }),
          el("span", { class: prob > uniform * 1.05 ? "above" : prob < uniform * 0.95 ? "below" : "" }, prob.toFixed(3)));
      }))));
  const g = analysis.guessability;
  const never = analysis.never;
  const summary = el("p", { class: "kv", "data-testid": "roles-summary" },
    `beta ${analysis.beta} · ${history.games.length} games played · the most guessable ${g.role}: ${g.player}, ${g.probability.toFixed(3)} (uniform ${g.uniform.toFixed(3)})`,
    never ? ` · P(someone never gets ${never.role} within the next ${never.games} games) = ${never.probability.toFixed(3)} (${never.method})` : "");
  return el("div", { class: "roles" },
    legend,
    el("h3", {}, `Probabilities of the next draw`), heat,
    el("h3", {}, `History (last ${games.length} of ${history.games.length} games; letters are roles)`), grid,
    summary);
}
