// The Tournament tab: start a tournament (entrants, openings, a game clock, games per pair, seed), browse the
// records (operators), open one for its standings, crosstable and rating chart, resume an
// interrupted one, and replay any recorded game or a transcript file of one's own.
import { el } from "./kit.js";
import { $, botsFor, fill } from "./page.js";
import { ratingChart, seatsText, standingsAndCrosstable } from "./tables.js";
import { replayViewer, transcriptFile } from "./replay.js";

/** How often an open running tournament is shown again: one `tournament.show` a second whatever
 * the rate games finish at (events carrying standings would cost a fit per game). */
const POLL_MS = 1000;
/** Games a page of the games list holds. */
const PAGE = 50;

/** Fills the Tournament tab. */
export function mount(panel, { client, catalog, views, hello }) {
  const games = catalog.games.filter((g) => botsFor(catalog, g.name).length >= 1);
  fill($("t-game"), games.map((g) => [g.name, g.name]));
  showSuites().catch((e) => { $("t-openings-about").textContent = `The openings could not be listed: ${e.message}`; });
  const showEntrants = () => {
    const entrants = botsFor(catalog, $("t-game").value).flatMap((b) => [b.id, ...b.presets.map((p) => `${b.id}:${p.name}`)]);
    $("t-bots").querySelectorAll("label").forEach((n) => n.remove());
    entrants.slice(0, 12).forEach((name, i) => {
      const box = el("input", { type: "checkbox", value: name });
      box.checked = i < 3;
      $("t-bots").append(el("label", { class: "option" }, el("span", {}, box, " ", name)));
    });
  };
  const failed = (e) => $("t-count").replaceChildren(el("span", { class: "error" }, e.message));
  $("t-game").addEventListener("change", showEntrants);
  $("t-start").addEventListener("click", () => start().catch(failed));
  $("t-browse").addEventListener("click", () => browse().catch(failed));
  $("t-transcript-file").addEventListener("change", () => replayFile().catch(failed));
  // Only an operator may list the records; a player's page shows the tournaments it starts.
  if (hello?.role !== "operator") {
    $("t-browse").hidden = true;
    $("t-browse-hint").textContent = "You see the tournaments you start here; browsing the records is for the server's operator.";
  }
  showEntrants();

  /** The suites the server offers (its data directory's and yomi's), each described under the list. */
  async function showSuites() {
    const suites = await client.openings();
    const label = (s) => `${s.name}${s.shipped ? "" : " (this server's)"}`;
    $("t-openings").append(...suites.map((s) => el("option", { value: s.name }, label(s))));
    const about = () => {
      const chosen = suites.find((s) => s.name === $("t-openings").value);
      $("t-openings-about").textContent = chosen ? chosen.about : "No openings: each game starts as the game deals it.";
    };
    $("t-openings").addEventListener("change", about);
    about();
  }

  let opened = null;
  let timer = null;

  /** Runs the tournament in the background of the connection, showing it as it plays. */
  async function start() {
    const bots = [...$("t-bots").querySelectorAll("input:checked")].map((box) => {
      const [bot, preset] = box.value.split(":");
      return preset ? { bot, preset } : { bot };
    });
    const spec = { game: $("t-game").value, bots, format: "round_robin", games_per_pair: Number($("t-games").value), seed: Number($("t-seed").value), concurrency: 2, keep_transcripts: true };
    if ($("t-explain").checked) spec.explain = true;
    if ($("t-openings").value) spec.openings = $("t-openings").value;
    const tc = $("t-tc").value.trim();
    if (tc) spec.policy = { tc, ...($("t-tc-think").checked ? { tc_counts_think: true } : {}) };
    await play(spec);
  }

  /** Plays (or resumes) a tournament: its progress bar from the events, the page polled. */
  async function play(spec) {
    $("t-start").disabled = true;
    try {
      const result = await client.tournament(spec, (event) => {
        if (event.event === "tournament.started") {
          $("t-progress").max = event.scheduled;
          open(event.id).catch(failed);
        }
        if (event.event === "tournament.progress") {
          $("t-progress").max = event.total;
          $("t-progress").value = event.games;
          $("t-count").textContent = `${event.games} / ${event.total} games`;
        }
      });
      $("t-count").textContent = `${result.status}: ${result.games} games`;
      // A list on screen shows what became of it.
      if ($("t-list").childElementCount) await browse();
      await open(result.id);
    } finally {
      $("t-start").disabled = false;
    }
  }

  /** The records' tournaments (operators only). */
  async function browse() {
    const list = await client.tournaments();
    $("t-list").replaceChildren(el("table", { class: "standings list", "data-testid": "t-list-table" },
      el("tr", {}, ["tournament", "game", "status", "games", ""].map((h) => el("th", {}, h))),
      list.slice().reverse().map((t) => el("tr", { "data-id": t.id },
        el("td", {}, t.id), el("td", {}, t.game ?? ""), el("td", { class: `status ${t.status}` }, t.status), el("td", {}, `${t.games} / ${t.total}`),
        el("td", {},
          el("button", { "data-testid": "t-open", onclick: () => open(t.id).catch(failed) }, "Open"),
          t.status === "interrupted" ? el("button", { "data-testid": "t-resume", onclick: () => play({ resume: t.id }).catch(failed) }, "Resume") : null)))));
  }

  /** Shows tournament `id`, again every second while it runs and is the one open. */
  async function open(id) {
    clearTimeout(timer);
    opened = id;
    // From the request to the tables laid out: what the render bench (test-browser/render-bench.mjs) reads.
    performance.mark("t-request");
    const shown = await client.showTournament(id);
    if (opened !== id) return;
    performance.mark("t-reply");
    draw(shown);
    void $("t-standings").offsetHeight;
    performance.measure("t-shown", "t-request");
    performance.measure("t-drawn", "t-reply");
    if (shown.status === "running") timer = setTimeout(() => open(id).catch(failed), POLL_MS);
    else await gamesPage(id, 0, shown.spec.game);
  }

  function draw(shown) {
    $("t-title").textContent = `${shown.id} · ${shown.game ?? shown.spec.game} · ${shown.status} · ${shown.games} / ${shown.total} games${shown.spec.openings ? ` · openings ${shown.spec.openings.name ?? ""}` : ""}${shown.spec.policy?.tc ? ` · clock ${shown.spec.policy.tc}` : ""}`;
    $("t-title").dataset.status = shown.status;
    $("t-standings").replaceChildren(standingsAndCrosstable(shown));
    $("t-chart").replaceChildren(ratingChart(shown.history, shown.labels));
  }

  /** A page of the open tournament's games, each with a replay button. */
  async function gamesPage(id, offset, game) {
    const page = await client.tournamentGames(id, offset, PAGE);
    const nav = el("div", { class: "buttons" },
      el("button", { disabled: offset === 0, onclick: () => gamesPage(id, offset - PAGE, game).catch(failed) }, "◀"),
      el("span", {}, `games ${offset + 1}–${offset + page.games.length} of ${page.total}`),
      el("button", { disabled: offset + PAGE >= page.total, onclick: () => gamesPage(id, offset + PAGE, game).catch(failed) }, "▶"));
    $("t-games-list").replaceChildren(nav, el("table", { class: "standings games", "data-testid": "t-games-table" },
      el("tr", {}, ["game", "seats", "scores", "opening", ""].map((h) => el("th", {}, h))),
      page.games.map((g) => el("tr", {},
        el("td", {}, g.index), el("td", {}, seatsText(g.seats)), el("td", {}, g.scores.join(" : ")), el("td", {}, g.opening ?? ""),
        el("td", {}, g.transcript ? el("button", { "data-testid": `replay-${g.index}`, onclick: () => replay(id, g.index, game).catch(failed) }, "Replay") : "")))));
  }

  /** Replays a transcript file the person chose (`yomi match --transcript`'s, or a kept game's). */
  async function replayFile() {
    const [file] = $("t-transcript-file").files;
    if (!file) return;
    const { record, game } = await transcriptFile(file);
    replayViewer($("t-replay"), record, game, { catalog, views });
    $("t-replay").scrollIntoView();
  }

  async function replay(id, index, game) {
    const record = await client.tournamentGame(id, index);
    replayViewer($("t-replay"), record, game, { catalog, views });
    $("t-replay").scrollIntoView();
  }
}
