// The Services tab: the dice and roles services, and any bot with methods, called by hand.
import { YomiError } from "./yomi.js";
import { el } from "./kit.js";
import { explainView, paramsTemplate } from "./views.js";
import { $, botById, fill } from "./page.js";

/** Fills the Services tab: call any bot's methods, or the same call on every preset side by side. */
export function mount(panel, { client, catalog }) {
  /** The agent the tab's calls go to. */
  const service = { agent: null };
  const bots = catalog.bots.filter((b) => b.methods.length);
  fill($("service-bot"), bots.map((b) => [b.id, b.id]));
  const newAgent = async () => {
    const bot = botById(catalog, $("service-bot").value);
    if (!bot) return;
    if (service.agent) await client.drop(service.agent).catch(() => {});
    const preset = $("service-preset").value;
    service.agent = (await client.newAgent(bot.id, preset ? { preset, seed: 1 } : { seed: 1 })).agent;
    $("service-log").prepend(el("li", {}, `new agent ${service.agent} of ${bot.id} ${preset}`));
  };
  const showMethods = () => {
    const bot = botById(catalog, $("service-bot").value);
    if (!bot) return;
    fill($("service-preset"), [["", "(defaults)"], ...bot.presets.map((p) => [p.name, p.name])]);
    fill($("service-method"), bot.methods.map((m) => [m.name, m.name]));
    showHelp();
    newAgent().catch(reportService);
  };
  const showHelp = () => {
    const bot = botById(catalog, $("service-bot").value);
    const method = bot?.methods.find((m) => m.name === $("service-method").value);
    $("service-help").textContent = method?.description ?? "";
    $("service-params").value = paramsTemplate(method?.description ?? "");
  };
  $("service-bot").addEventListener("change", showMethods);
  $("service-preset").addEventListener("change", () => newAgent().catch(reportService));
  $("service-method").addEventListener("change", showHelp);
  $("service-reset").addEventListener("click", () => newAgent().catch(reportService));
  $("service-call").addEventListener("click", () => callService().catch(reportService));
  $("service-compare-presets").addEventListener("click", () => comparePresets().catch(reportService));
  showMethods();



  function reportService(e) {
    $("service-log").prepend(el("li", { class: "error", "data-testid": "service-error" }, e instanceof YomiError ? e.message : String(e)));
  }

  async function callService() {
    const method = $("service-method").value;
    const params = JSON.parse($("service-params").value || "null");
    const result = await client.call(service.agent, method, params);
    $("service-compare").prepend(el("div", {}, el("strong", {}, `${method} ${JSON.stringify(params)}`), explainView(result, undefined)));
    $("service-log").prepend(el("li", {}, `${method}: ${JSON.stringify(result).slice(0, 200)}`));
  }

  /** The same call on a fresh agent of each preset (same seed), drawn side by side: natural, plain
   * and controlled dice, or gentle and firm role assignment, at a glance. */
  async function comparePresets() {
    const bot = botById(catalog, $("service-bot").value);
    const method = $("service-method").value;
    const params = JSON.parse($("service-params").value || "null");
    const cards = [];
    for (const preset of ["", ...bot.presets.map((p) => p.name)]) {
      const { agent } = await client.newAgent(bot.id, preset ? { preset, seed: 1 } : { seed: 1 });
      try {
        const result = await client.call(agent, method, params);
        cards.push(el("div", {}, el("strong", {}, `${preset || "(defaults)"} · ${method}`), explainView(result, undefined)));
      } finally {
        await client.drop(agent);
      }
    }
    $("service-compare").replaceChildren(...cards);
    $("service-log").prepend(el("li", {}, `${method} ${JSON.stringify(params)} with every preset of ${bot.id}`));
  }
}
