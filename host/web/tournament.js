// The Tournament tab: a small round robin between bots and presets over the page's connection.
import { el } from "./kit.js";
import { standingsView } from "./views.js";
import { $, botsFor, fill } from "./page.js";

/** Fills the Tournament tab: a round robin of the chosen entrants, its standings as it ends. */
export function mount(panel, { client, catalog }) {
  const games = catalog.games.filter((g) => botsFor(catalog, g.name).length >= 1);
  fill($("t-game"), games.map((g) => [g.name, g.name]));
  const showEntrants = () => {
    const entrants = botsFor(catalog, $("t-game").value).flatMap((b) => [b.id, ...b.presets.map((p) => `${b.id}:${p.name}`)]);
    $("t-bots").querySelectorAll("label").forEach((n) => n.remove());
    entrants.slice(0, 12).forEach((name, i) => {
      const box = el("input", { type: "checkbox", value: name });
      box.checked = i < 3;
      $("t-bots").append(el("label", { class: "option" }, el("span", {}, box, " ", name)));
    });
  };
  $("t-game").addEventListener("change", showEntrants);
  $("t-start").addEventListener("click", () => runTournament().catch((e) => $("t-count").replaceChildren(el("span", { class: "error" }, e.message))));
  showEntrants();

  async function runTournament() {
    const bots = [...$("t-bots").querySelectorAll("input:checked")].map((box) => {
      const [bot, preset] = box.value.split(":");
      return preset ? { bot, preset } : { bot };
    });
    $("t-start").disabled = true;
    $("t-standings").replaceChildren();
    try {
      const result = await client.tournament(
        { game: $("t-game").value, bots, format: "round_robin", games_per_pair: Number($("t-games").value), seed: Number($("t-seed").value), concurrency: 2 },
        (event) => {
          if (event.event === "tournament.started") $("t-progress").max = event.scheduled;
          if (event.event === "tournament.progress") {
            $("t-progress").max = event.total;
            $("t-progress").value = event.games;
            $("t-count").textContent = `${event.games} / ${event.total} games`;
          }
        });
      $("t-progress").max = result.scheduled;
      $("t-progress").value = result.games;
      $("t-count").textContent = `${result.status}: ${result.games} games`;
      $("t-standings").replaceChildren(standingsView(result.standings, result.elo_reference));
    } finally {
      $("t-start").disabled = false;
    }
  }
}
