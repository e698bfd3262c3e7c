// The playground: play any game against any bot through a client seat, change its personality
// mid-game, call the service bots, run a small tournament. Everything goes through the yomi
// JavaScript client over this server's /ws.
import { Client, YomiError } from "./yomi.js";
import { el } from "./kit.js";
import { renderOptions, explainView, standingsView, paramsTemplate } from "./views.js";
import { loadViews, mountTabs, gameDrawing, explainDrawing } from "./plugins.js";

const $ = (id) => document.getElementById(id);
const status = (text, ok = true) => {
  $("status").textContent = text;
  $("status").className = ok ? "ok" : "bad";
};

let client;
let catalog;
/** The plugins' view modules by plugin name. */
let views = new Map();

/** The page's address of this server's WebSocket. */
const wsUrl = () => `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;

/**
 * The seat-playing state of the game on the board. Each game runs on a connection of its own
 * (`client`), so "New game" can abandon a running one by closing it; `generation` tells the
 * abandoned game's late replies from the current game's.
 */
const play = {
  client: null, generation: 0, agents: [], youSeat: 0, readOptions: () => ({}),
  drawing: null, explain: null, lastObservation: null, decisions: 0, lastExplain: null,
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
  try {
    client = await Client.connect(wsUrl());
    client.on("close", () => status("disconnected: reload the page", false));
    const hello = await client.hello("yomi playground");
    catalog = await client.catalog();
    views = await loadViews(catalog, problems);
    status(`connected · yomi ${hello.version} · ${catalog.bots.length} bots${problems.length ? ` · ${problems.join("; ")}` : ""}`, !problems.length);
  } catch (e) {
    status(`cannot reach yomi: ${e.message}`, false);
    return;
  }
  mountTabs(views, { client, catalog }, document.querySelector('.tab[data-tab="services"]'));
  setUpPlay();
  setUpServices();
  setUpTournament();
}

const botsFor = (game) => catalog.bots.filter((b) => b.games.includes(game));
const botById = (id) => catalog.bots.find((b) => b.id === id);
const fill = (select, items) => select.replaceChildren(...items.map(([value, label]) => el("option", { value }, label)));

function setUpPlay() {
  const games = catalog.games.filter((g) => botsFor(g.name).length);
  fill($("game"), games.map((g) => [g.name, `${g.name} (${g.plugin})`]));
  if (games.some((g) => g.name === "battle")) $("game").value = "battle";
  $("game").addEventListener("change", () => { showBots(); abandonGame(); });
  $("bot").addEventListener("change", showPresets);
  $("preset").addEventListener("change", showOptions);
  $("start").addEventListener("click", () => startGame().catch(report));
  $("apply").addEventListener("click", () => configure().catch(report));
  $("swap").addEventListener("click", () => swap().catch(report));
  showBots();
}

function showBots() {
  fill($("bot"), botsFor($("game").value).map((b) => [b.id, b.id]));
  const bots = botsFor($("game").value);
  const { bot } = gameDrawing(views, catalog, $("game").value).start;
  const preferred = bots.find((b) => b.id === bot || b.name === bot) ?? bots.find((b) => b.name !== "random");
  if (preferred) $("bot").value = preferred.id;
  showPresets();
}

function showPresets() {
  const bot = botById($("bot").value);
  fill($("preset"), [["", "(defaults)"], ...bot.presets.map((p) => [p.name, `${p.name}${eloText(p)}: ${p.description}`])]);
  showOptions();
}

/** A preset's measured strength (`yomi ladder`: Elo, the random bot at 0), as ` (Elo 420 ± 35)`. */
function eloText(preset) {
  if (preset.elo == null) return "";
  const [lo, hi] = preset.elo_ci95 ?? [preset.elo, preset.elo];
  return ` (Elo ${Math.round(preset.elo)} ± ${Math.round((hi - lo) / 2)})`;
}

/** The controls show the defaults with the chosen preset applied. */
function showOptions() {
  const bot = botById($("bot").value);
  const preset = bot.presets.find((p) => p.name === $("preset").value);
  play.readOptions = renderOptions($("options"), bot.options, preset?.options ?? {});
}

function report(e) {
  const text = e instanceof YomiError ? `${e.code}: ${e.message.replace(/^[a-z_]+: /, "")}` : String(e.message ?? e);
  $("log").prepend(el("li", { class: "error", "data-testid": "error" }, text));
}

const log = (...content) => $("log").prepend(el("li", {}, ...content));

/** Ends the game on the board, if any (closing its connection ends its match and agents), and
 * clears the board for the next. */
function abandonGame() {
  play.generation++;
  play.client?.close();
  play.client = null;
  play.agents = [];
  play.lastExplain = null;
  $("view").replaceChildren(el("p", { class: "hint" }, "Pick a game and a bot, then start a new game."));
  $("actions").replaceChildren();
  $("actions").classList.remove("waiting");
  $("result").replaceChildren();
  $("log").replaceChildren();
  $("explain").replaceChildren(el("p", { class: "hint" }, "The bot's explanation of its last move appears here."));
  $("apply").disabled = $("swap").disabled = true;
}

async function startGame() {
  abandonGame();
  const generation = play.generation;
  const game = catalog.games.find((g) => g.name === $("game").value);
  const bot = $("bot").value;
  const seed = Number($("seed").value) || 0;
  const own = await Client.connect(wsUrl());
  if (generation !== play.generation) return own.close(); // another New game came first
  play.client = own;
  play.drawing = gameDrawing(views, catalog, game.name);
  play.explain = explainDrawing(views, catalog, bot, play.drawing.label);
  const gameOptions = play.drawing.start.game_options;
  play.lastObservation = null;
  play.youSeat = 0;
  play.agents = [null];
  let result;
  try {
    // Every other seat is the bot, an agent of this connection that the server plays: the page
    // never holds the bot's decision, only its explanation once the step is resolved. A game's
    // view says when that is (`start.explain`: "step" where the bot's reasoning names only what
    // the step shows; by default "game", at the game's end, as stud's reasoning weighs hidden cards).
    for (let seat = 1; seat < game.min_seats; seat++) {
      const made = await own.newAgent(bot, { options: play.readOptions(), seed: seed * 100 + seat });
      play.agents.push(made.agent);
    }
    const explain = play.drawing.start.explain === "step" ? "step" : "game";
    const seats = play.agents.map((agent, seat) => (seat === play.youSeat ? { client: "you" } : { agent, explain }));
    $("apply").disabled = $("swap").disabled = false;
    log(`new ${game.name} game against ${bot}, seed ${seed}`);
    const params = { game: game.name, seats, seed, games: 1, game_options: gameOptions, human_pace: $("pace").checked };
    result = await own.playMatch(params, (turn) => takeTurn(turn, generation), (m, name) => showEvent(m, name, generation));
  } catch (e) {
    if (generation === play.generation) throw e;
    return; // abandoned: its connection was closed on purpose
  }
  if (generation !== play.generation) return;
  $("result").replaceChildren(el("strong", { "data-testid": "verdict" }, `${verdict(result.scores)} — scores ${result.scores.join(" : ")}`));
  log(`game over: ${result.scores.join(" : ")}`);
  $("actions").replaceChildren();
  $("actions").classList.remove("waiting");
  $("apply").disabled = $("swap").disabled = true;
}

/** Who won, from your seat's side: with several bots, which seats won. */
function verdict(scores) {
  const best = Math.max(...scores);
  const winners = scores.flatMap((s, seat) => (s === best ? [seat] : []));
  const youWon = winners.includes(play.youSeat);
  if (youWon) return winners.length === 1 ? "You win" : "Draw";
  if (scores.length === 2) return "The bot wins";
  return winners.length === 1 ? `The bot in seat ${winners[0]} wins` : `The bots in seats ${winners.join(" and ")} win`;
}

/** Your turn (the server plays the bot's seats): the board shows your view and waits for a
 * click; after it, the bot's seats are deciding on the server — at a person's pace when "Human
 * pace" is on — until the step's event comes. */
async function takeTurn(turn, generation) {
  play.lastObservation = turn.observation;
  $("view").replaceChildren(play.drawing.render(turn.observation, turn.seat));
  const action = await chooseAction(turn.legal);
  if (generation !== play.generation) return action;
  log(`you: ${play.drawing.label(action)}`);
  $("explain").replaceChildren(
    el("p", { class: "hint held", "data-testid": "bot-thinking" }, "The bot is deciding; its move shows once this step is played."),
    play.lastExplain ?? "");
  return action;
}

/** Shows the bots' decisions a step's event carries (`explained`): their step has been played. */
function showExplained(explained) {
  for (const { seat, step, action, explain } of explained ?? []) {
    const decision = ++play.decisions;
    const picture = play.explain(explain, action, false);
    play.lastExplain = el("div", { "data-decision": decision, "data-step": step }, explainView(explain, action, { label: play.drawing.label, picture }));
    $("explain").replaceChildren(play.lastExplain);
    // The bot's plugin may draw a small picture beside each of its moves (the fuzzy stud rules).
    const mini = play.explain(explain, action, true);
    $("log").prepend(el("li", { "data-decision": decision }, `bot (seat ${seat}): ${play.drawing.label(action)} `, mini));
  }
}

/** The game's view's controls for the legal actions, else a button for each (an action with an
 * amount range gets a number field). */
function chooseAction(legal) {
  return new Promise((resolve) => {
    const done = (action) => {
      $("actions").replaceChildren();
      $("actions").classList.remove("waiting");
      resolve(action);
    };
    const actionLabel = play.drawing.label;
    const own = play.drawing.actions(legal, done);
    const buttons = own ? [own] : legal.map((entry) => {
      if (entry && typeof entry === "object" && entry.min !== undefined && entry.max !== undefined) {
        const { min, max, ...rest } = entry;
        const amount = el("input", { type: "number", min, max, value: min, style: "width:6rem" });
        return el("span", {}, el("button", { "data-testid": "action", onclick: () => done({ ...rest, amount: Number(amount.value) }) }, `${actionLabel(rest)} (${min}–${max})`), amount);
      }
      return el("button", { "data-testid": "action", onclick: () => done(entry) }, actionLabel(entry));
    });
    $("actions").replaceChildren(...buttons);
    $("actions").classList.add("waiting");
  });
}

/** Match events: a step was played, so the bots' decisions it resolved show; your board
 * follows each step where the game's view can fold its event in (`update`), so the final
 * position (a stud showdown's hands) stays on screen. */
function showEvent(message, name, generation) {
  if (name !== "match.event" || generation !== play.generation) return;
  showExplained(message.explained);
  if (!play.lastObservation) return;
  const next = play.drawing.update(play.lastObservation, message.game_event ?? {});
  if (!next) return;
  play.lastObservation = next;
  $("view").replaceChildren(play.drawing.render(play.lastObservation, play.youSeat));
}

async function configure() {
  const options = play.readOptions();
  for (const agent of play.agents.filter(Boolean)) {
    const preset = $("preset").value;
    const described = await play.client.configure(agent, preset ? { preset, options } : { options });
    log(`personality applied to ${agent}: ${JSON.stringify(described.options)}`);
  }
}

async function swap() {
  const bot = $("bot").value;
  for (const agent of play.agents.filter(Boolean)) {
    const described = await play.client.swap(agent, { bot, options: play.readOptions() });
    log(`${agent} is now ${described.bot}`);
  }
  play.explain = explainDrawing(views, catalog, bot, play.drawing.label);
}

// ---- services: dice, roles and any bot with methods ----

let service = { agent: null };

function setUpServices() {
  const bots = catalog.bots.filter((b) => b.methods.length);
  fill($("service-bot"), bots.map((b) => [b.id, b.id]));
  const newAgent = async () => {
    const bot = botById($("service-bot").value);
    if (!bot) return;
    if (service.agent) await client.drop(service.agent).catch(() => {});
    const preset = $("service-preset").value;
    service.agent = (await client.newAgent(bot.id, preset ? { preset, seed: 1 } : { seed: 1 })).agent;
    $("service-log").prepend(el("li", {}, `new agent ${service.agent} of ${bot.id} ${preset}`));
  };
  const showMethods = () => {
    const bot = botById($("service-bot").value);
    if (!bot) return;
    fill($("service-preset"), [["", "(defaults)"], ...bot.presets.map((p) => [p.name, p.name])]);
    fill($("service-method"), bot.methods.map((m) => [m.name, m.name]));
    showHelp();
    newAgent().catch(reportService);
  };
  const showHelp = () => {
    const bot = botById($("service-bot").value);
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
}

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
  const bot = botById($("service-bot").value);
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

// ---- tournament ----

function setUpTournament() {
  const games = catalog.games.filter((g) => botsFor(g.name).length >= 1);
  fill($("t-game"), games.map((g) => [g.name, g.name]));
  const showEntrants = () => {
    const entrants = botsFor($("t-game").value).flatMap((b) => [b.id, ...b.presets.map((p) => `${b.id}:${p.name}`)]);
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
}

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

main();
