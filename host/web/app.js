// The playground's shell: connects to this server's /ws with the yomi JavaScript client, loads
// the plugins' views, and mounts every tab into its panel with `mount(panel, {client, catalog,
// views})` — its own three (one module each: play.js, services.js, tournament.js) as the plugins'
// tabs are mounted (PROTOCOL.md, "Plugin views").
import { Client } from "./yomi.js";
import { loadViews, mountTabs } from "./plugins.js";
import { $, wsUrl } from "./page.js";
import * as play from "./play.js";
import * as services from "./services.js";
import * as tournament from "./tournament.js";

/** The playground's own tabs by the name their panel and button carry. */
const TABS = { play, services, tournament };

const status = (text, ok = true) => {
  $("status").textContent = text;
  $("status").className = ok ? "ok" : "bad";
};

async function main() {
  document.querySelector("nav").addEventListener("click", (event) => {
    const tab = event.target.closest(".tab");
    if (!tab) return;
    document.querySelectorAll(".tab, .panel").forEach((n) => n.classList.remove("active"));
    tab.classList.add("active");
    $(`tab-${tab.dataset.tab}`).classList.add("active");
  });
  const problems = [];
  let context;
  try {
    const client = await Client.connect(wsUrl());
    client.on("close", () => status("disconnected: reload the page", false));
    const hello = await client.hello("yomi playground");
    const catalog = await client.catalog();
    const views = await loadViews(catalog, problems);
    context = { client, catalog, views, hello };
    status(`connected · yomi ${hello.version} · ${catalog.bots.length} bots${problems.length ? ` · ${problems.join("; ")}` : ""}`, !problems.length);
  } catch (e) {
    status(`cannot reach yomi: ${e.message}`, false);
    return;
  }
  mountTabs(context.views, context, document.querySelector('.tab[data-tab="services"]'));
  for (const [name, tab] of Object.entries(TABS)) tab.mount($(`tab-${name}`), context);
}

main();
