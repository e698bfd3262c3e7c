// The plugins' own views in the playground (PROTOCOL.md, "Plugin views"): each loaded plugin's
// view module, imported from the path the catalog names; its styles added to the page, its tabs
// to the navigation; and, per game and bot, the functions the page draws with, each falling back
// to the generic one where the module has none (or throws).
import { el } from "./kit.js";
import { genericLabel, genericView } from "./views.js";

/** Imports every plugin's view module: a map from plugin name to module. A module that cannot
 * be loaded is left out (its games are drawn generically) and told in `problems`. */
export async function loadViews(catalog, problems) {
  const views = new Map();
  await Promise.all(catalog.plugins.filter((p) => p.view).map(async (p) => {
    try {
      const module = await import(p.view);
      views.set(p.name, module);
      if (typeof module.css === "string") document.head.append(el("style", { "data-plugin": p.name }, module.css));
    } catch (e) {
      problems.push(`plugin ${p.name}'s view: ${e.message}`);
    }
  }));
  return views;
}

/** Adds each module's tabs (`tabs: [{name, title, mount}]`) before the `before` tab button, each
 * with a panel of its own that `mount(panel, {client, catalog, plugin})` fills. */
export function mountTabs(views, { client, catalog }, before) {
  for (const plugin of [...views.keys()].sort()) {
    for (const tab of views.get(plugin).tabs ?? []) {
      const panel = el("section", { id: `tab-${tab.name}`, class: "panel" });
      before.before(el("button", { "data-tab": tab.name, class: "tab" }, tab.title));
      document.querySelector("main").append(panel);
      try {
        tab.mount(panel, { client, catalog, plugin });
      } catch (e) {
        panel.replaceChildren(el("p", { class: "error" }, `plugin ${plugin}'s ${tab.title} tab: ${e.message}`));
      }
    }
  }
}

/** Runs a view's function, or gives `undefined` when it has none or it throws (then the page
 * draws generically; the problem goes to the console for the plugin's author). */
function attempt(plugin, name, fn, ...args) {
  if (typeof fn !== "function") return undefined;
  try {
    return fn(...args);
  } catch (e) {
    console.warn(`plugin ${plugin}'s view: ${name} failed, drawn generically:`, e);
    return undefined;
  }
}

/** How the page draws game `game`: with the view of the plugin that carries its rules. */
export function gameDrawing(views, catalog, game) {
  const plugin = catalog.games.find((g) => g.name === game)?.plugin;
  const view = views.get(plugin) ?? {};
  const label = (action) => attempt(plugin, "label", view.label, action, { game }) ?? genericLabel(action);
  const start = view.start?.[game];
  return {
    /** What a first game plays: `{bot, game_options}`, each optional. */
    start: start && typeof start === "object" ? start : {},
    label,
    render: (observation, seat) => attempt(plugin, "render", view.render, observation, { game, seat }) ?? genericView(observation),
    /** Controls for the legal actions, or `undefined` for the page's own buttons. */
    actions: (legal, choose) => attempt(plugin, "actions", view.actions, legal, { game, choose, label }),
    /** The observation after a public event, or `undefined` when the view cannot tell. */
    update: (observation, event) => attempt(plugin, "update", view.update, observation, event, { game }),
  };
}

/** A bot's explanation drawn by its own plugin's view (`compact`: the small picture beside its
 * move in the log), or `undefined`. */
export function explainDrawing(views, catalog, botId, label) {
  const plugin = catalog.bots.find((b) => b.id === botId)?.plugin;
  const view = views.get(plugin) ?? {};
  return (explanation, action, compact) => attempt(plugin, "explain", view.explain, explanation, { action, compact, label }) ?? undefined;
}
