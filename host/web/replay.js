// The replay viewer: a recorded game stepped through decision by decision, forwards and back, each
// position drawn by the game's own plugin view with the move played and, where the transcript
// recorded it, the bot's explanation.
import { el } from "./kit.js";
import { explainView } from "./views.js";
import { gameDrawing } from "./plugins.js";
import { seatsText } from "./tables.js";

/** The steps of a transcript (JSON-lines text): each decision with the action that answered it. */
export function steps(transcript) {
  const lines = transcript.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
  const header = lines.find((l) => l.type === "header") ?? {};
  const out = [];
  for (const line of lines) {
    if (line.type === "decision") out.push({ decision: line, action: null });
    // Seats that decide at once (battle) have their decisions logged before their actions.
    else if (line.type === "action") {
      const waiting = out.find((s) => s.action === null && s.decision.seat === line.seat && s.decision.game === line.game);
      if (waiting) waiting.action = line;
    }
  }
  return { header, steps: out, outcomes: lines.filter((l) => l.type === "outcome") };
}

/**
 * A transcript file the person opened in the browser, as a record the viewer takes: read here,
 * never sent to the server. Resolves with the record and its game's name.
 */
export async function transcriptFile(file) {
  const transcript = await file.text();
  const { header, outcomes } = steps(transcript);
  if (!header.game) throw new Error(`${file.name} is not a yomi transcript: no header line naming its game`);
  const seats = (header.seats ?? []).map((s) => s.bot ?? s.client ?? "?");
  // A match's file holds each of its games: the heading gives each seat's total.
  const scores = seats.map((_, seat) => outcomes.reduce((sum, o) => sum + (o.scores?.[seat] ?? 0), 0));
  return { record: { index: file.name, seats, scores, transcript }, game: header.game };
}

/** Mounts the viewer of `record` (`tournament.game`'s reply) of game `game` into `box`. */
export function replayViewer(box, record, game, { catalog, views }) {
  const { header, steps: all, outcomes } = steps(record.transcript);
  const drawing = gameDrawing(views, catalog, game);
  const seats = header.seats ?? [];
  let at = 0;
  const view = el("div", { class: "replay-view", "data-testid": "r-view" });
  const where = el("span", { "data-testid": "r-step" });
  const back = el("button", { "data-testid": "r-back", onclick: () => show(at - 1) }, "◀ Back");
  const forward = el("button", { "data-testid": "r-forward", onclick: () => show(at + 1) }, "Forward ▶");
  const show = (i) => {
    at = Math.max(0, Math.min(all.length - 1, i));
    back.disabled = at === 0;
    forward.disabled = at >= all.length - 1;
    where.textContent = `decision ${at + 1} of ${all.length}`;
    const { decision, action } = all[at];
    const bot = seats[decision.seat]?.bot ?? `seat ${decision.seat}`;
    view.replaceChildren(
      el("p", {}, `Seat ${decision.seat} (${seatsText([bot])}) to play`),
      drawing.render(decision.observation, decision.seat),
      action ? explainView(action.explain, action.action, { label: drawing.label }) : el("p", { class: "hint" }, "No action recorded."));
  };
  box.replaceChildren(
    el("h3", {}, `Replay of ${typeof record.index === "number" ? `game ${record.index}` : record.index}: ${seatsText(record.seats)} → ${record.scores.join(" : ")}`),
    all.length ? el("div", { class: "buttons" }, back, where, forward) : el("p", { class: "hint" }, "This game's transcript was not kept."),
    view,
    outcomes.length ? el("p", { class: "kv" }, `Outcome${outcomes.length > 1 ? "s, game by game" : ""}: ${outcomes.map((o) => o.scores.join(" : ")).join(", ")}`) : null);
  if (all.length) show(0);
}
