// The Play tab: any game against any bot through a client seat, the bot's personality changed
// mid-game. Each game runs on a connection of its own; the server plays the bot's seats.
import { Client, YomiError } from "./yomi.js";
import { el } from "./kit.js";
import { renderOptions, explainView } from "./views.js";
import { gameDrawing, explainDrawing } from "./plugins.js";
import { $, botById, botsFor, fill, wsUrl } from "./page.js";

/** Fills the Play tab: choose a game and a bot, play your seat, change the bot's personality. */
export function mount(panel, { catalog, views, hello }) {
  showRecording(hello.recording);
  /**
   * The seat-playing state of the game on the board. Each game runs on a connection of its own
   * (`client`), so "New game" can abandon a running one by closing it; `generation` tells the
   * abandoned game's late replies from the current game's.
   */
  const play = {
    client: null, generation: 0, agents: [], youSeat: 0, readOptions: () => ({}),
    drawing: null, explain: null, lastObservation: null, decisions: 0, lastExplain: null,
  };

  const games = catalog.games.filter((g) => botsFor(catalog, g.name).length);
  fill($("game"), games.map((g) => [g.name, `${g.name} (${g.plugin})`]));
  if (games.some((g) => g.name === "battle")) $("game").value = "battle";
  $("game").addEventListener("change", () => { showBots(); abandonGame(); });
  $("bot").addEventListener("change", showPresets);
  $("preset").addEventListener("change", showOptions);
  $("start").addEventListener("click", () => startGame().catch(report));
  $("apply").addEventListener("click", () => configure().catch(report));
  $("swap").addEventListener("click", () => swap().catch(report));
  showBots();

  function showBots() {
    fill($("bot"), botsFor(catalog, $("game").value).map((b) => [b.id, b.id]));
    const bots = botsFor(catalog, $("game").value);
    const { bot } = gameDrawing(views, catalog, $("game").value).start;
    const preferred = bots.find((b) => b.id === bot || b.name === bot) ?? bots.find((b) => b.name !== "random");
    if (preferred) $("bot").value = preferred.id;
    showPresets();
  }

  function showPresets() {
    const bot = botById(catalog, $("bot").value);
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
    const bot = botById(catalog, $("bot").value);
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
}

/** Says on screen, when the operator keeps people's games as records (`--record-people`), that
 * the moves played here are kept, and where. */
function showRecording(name) {
  const notice = $("recording");
  notice.hidden = !name;
  if (name) {
    notice.textContent = `Your games here are recorded: every move you make is kept as a human record on this server (record sets ${name}-GAME), to measure and fit bots against.`;
  }
}
