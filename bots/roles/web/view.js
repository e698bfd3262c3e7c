// The roles plugin's playground view (interface: PROTOCOL.md, "Plugin views"): a Roles tab where a
// group of players is dealt roles game after game by the roles service, its history as a grid,
// and the probabilities of the next draw as a heat map, so a designer sees how the dealing leans
// towards roles a player has not had.
import { YomiError } from "/yomi.js";
import { el } from "/kit.js";

/** Colours of the roles, in the order the group's roles are given. */
const PALETTE = ["#d2553a", "#3b6fd8", "#2f9e6b", "#c9a400", "#8a55c8", "#e08a2e", "#4a9ea8", "#b04a7a"];

/** The Roles tab: its controls, its log and its board, on the roles service of this plugin. */
export const tabs = [{ name: "roles", title: "Roles", mount }];

function mount(panel, { client, catalog, plugin }) {
  const bot = catalog.bots.find((b) => b.plugin === plugin && b.methods.some((m) => m.name === "assign") && b.methods.some((m) => m.name === "analyze"));
  const input = (name, value) => el("input", { id: `roles-${name}`, "data-testid": `roles-${name}`, value });
  // A group is reached only with the key its creation returned, which this page keeps: each
  // visit starts a group of its own, named apart from the groups earlier visits made.
  const fields = { group: input("group", `table-${Date.now().toString(36)}`), players: input("players", "ann, bob, cy, dee, eve"), roles: input("roles", "werewolf=1, seer=1, villager=3") };
  const presets = el("select", { id: "roles-preset", "data-testid": "roles-preset" });
  const button = (name, text, title) => el("button", { id: `roles-${name}`, "data-testid": `roles-${name}`, title }, text);
  const buttons = { deal: button("deal", "Deal a game", "assign, then commit: the game enters the history"), many: button("deal-many", "Deal 10"), show: button("show", "Show") };
  const logList = el("ol", { id: "roles-log", "data-testid": "roles-log", reversed: true });
  const board = el("div", { class: "board wide", id: "roles-board", "data-testid": "roles-board" }, el("p", { class: "hint" }, bot ? "Deal a game to start the group's history." : "No roles service in this server's plugins."));
  panel.append(
    el("aside", { class: "controls" },
      el("label", {}, "Group ", fields.group),
      el("label", {}, "Players ", fields.players),
      el("label", {}, "Roles ", fields.roles),
      el("label", {}, "Preset ", presets),
      el("div", { class: "buttons" }, buttons.deal, buttons.many, buttons.show),
      el("p", { class: "hint" }, "Each deal draws roles leaning towards roles a player has not had (beta; the presets set it) and commits the game. The heat map is the exact probability of each role in the next draw."),
      logList),
    board);
  if (!bot) return;
  presets.replaceChildren(...[["", "(defaults)"], ...bot.presets.map((p) => [p.name, `${p.name}: ${p.description}`])].map(([value, label]) => el("option", { value }, label)));
  // `keys`: each group's key, which `create` returns and every later call on the group needs.
  const state = { agent: null, preset: null, last: null, keys: {} };
  const report = (e) => logList.prepend(el("li", { class: "error", "data-testid": "roles-error" }, e instanceof YomiError ? `${e.code}: ${e.message}` : String(e.message ?? e)));
  const log = (text) => logList.prepend(el("li", {}, text));
  const form = () => ({
    group: fields.group.value.trim(),
    players: fields.players.value.split(",").map((p) => p.trim()).filter(Boolean),
    roles: fields.roles.value.trim(),
  });
  /** The service agent of the chosen preset (the preset sets beta, how hard draws lean). */
  const agent = async () => {
    const preset = presets.value;
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
    board.replaceChildren(rolesView(history, analysis, Object.keys(rolesOf(roles)), state.last));
  };

  // One step at a time: a deal started while the view redraws must not create the group twice.
  let queue = Promise.resolve();
  const serially = (step) => () => (queue = queue.then(step).catch(report));
  buttons.deal.addEventListener("click", serially(() => deal(1)));
  buttons.many.addEventListener("click", serially(() => deal(10)));
  buttons.show.addEventListener("click", serially(show));
  presets.addEventListener("change", serially(show));
}

/** `werewolf=1,seer=1` as `{werewolf: 1, seer: 1}`. */
function rolesOf(text) {
  return Object.fromEntries(text.split(",").filter((p) => p.includes("=")).map((p) => p.split("=").map((s) => s.trim())).map(([r, n]) => [r, Number(n)]));
}

/** The group's picture: who had which role in each game, and the next draw's probabilities.
 * `roles` is the order the roles were given in (the service's result lists them sorted). */
function rolesView(history, analysis, roles, last) {
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

export const css = `
#roles-board { display: flex; flex-direction: column; gap: .75rem; }
.roles { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .75rem; }
.roles h3 { font-size: .95rem; margin: .6rem 0 .3rem; }
.roles table { border-collapse: collapse; font-size: .8rem; }
.roles th { text-align: left; font-weight: 600; padding: .15rem .4rem; white-space: nowrap; }
.roles-history td.role-cell { width: 1.3rem; height: 1.3rem; text-align: center; color: #fff; font-weight: 700; border: 1px solid #fff; }
.roles-history td.num, .roles-heat td { text-align: right; padding: .15rem .4rem; font-variant-numeric: tabular-nums; }
.roles-heat td.prob { position: relative; min-width: 9rem; }
.roles-heat .prob-bar { position: absolute; left: 0; top: 15%; height: 70%; opacity: .35; }
.roles-heat span { position: relative; } .roles-heat .above { font-weight: 700; } .roles-heat .below { color: var(--muted); }
.legend .swatch { margin-left: .5rem; }
#roles-log { font-size: .75rem; color: var(--muted); max-height: 12rem; overflow: auto; padding-left: 1.2rem; }
@media (max-width: 900px) {
  .roles { overflow-x: auto; }
  .roles-heat td.prob { min-width: 3.5rem; }
  .roles th { white-space: normal; }
}
`;
