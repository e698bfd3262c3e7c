// The battle plugin's playground view (interface: PROTOCOL.md, "Plugin views"): both parties with
// types, HP bars and the active Pokémon, and moves and switches named as a player says them.
import { el } from "/kit.js";

/** The board: your party and the bot's, each Pokémon with its type and HP. */
export function render(observation, { seat }) {
  const { you, state, rules } = observation;
  const sides = [0, 1].map((side) => {
    const mine = side === you;
    const party = rules.parties[side];
    return el("div", { class: `side ${mine ? "you" : "bot"}`, "data-testid": mine ? "side-you" : "side-bot" },
      el("h3", {}, mine ? `You (seat ${seat})` : "Bot"),
      party.map((mon, i) => {
        const hp = state.hp[side][i];
        const cls = ["mon", state.active[side] === mon.name ? "active" : "", hp <= 0 ? "fainted" : ""].join(" ");
        return el("div", { class: cls },
          el("span", {}, mon.name),
          el("span", { class: `type ${mon.type}` }, mon.type),
          el("div", { class: "hp", title: `${hp}/${mon.hp} HP` }, el("div", { style: `width:${(100 * Math.max(hp, 0)) / mon.hp}%` })),
          el("span", {}, `${hp}/${mon.hp}`));
      }));
  });
  return el("div", {},
    el("p", { class: "kv" }, `Turn ${state.turn} · ${observation.phase === "replace" ? "choose a replacement" : "choose an action"} · speed: ${rules.parties.map((p) => p.map((m) => `${m.name} ${m.speed}`).join(" ")).join(" | ")}`),
    el("div", { class: "sides" }, you === 0 ? sides : sides.reverse()));
}

/** A turn's event carries the state after it (`after`): the board follows it. */
export function update(observation, event) {
  return event?.after ? { ...observation, state: event.after } : null;
}

/** `{"move": "fire"}` is "fire move", `{"switch": "B"}` is "switch to B". */
export function label(action) {
  if (action?.move) return `${action.move} move`;
  if (action?.switch) return `switch to ${action.switch}`;
  return undefined;
}

/** What a first game plays: the bot that explains most: its mixed strategy and the equilibrium. */
export const start = { battle: { bot: "delta-nash", explain: "step" } };

export const css = `
.mon { display: grid; grid-template-columns: 4.5rem 4rem 1fr 2.5rem; align-items: center; gap: .4rem; padding: .15rem .3rem; border-radius: 4px; }
.mon.active { background: #eef3ff; font-weight: 600; }
.mon.fainted { opacity: .4; text-decoration: line-through; }
.type { font-size: .75rem; padding: 0 .3rem; border-radius: 3px; color: #fff; text-align: center; }
.type.fire { background: #e0663a; } .type.grass { background: #4a9e4a; } .type.water { background: #3a7fd0; } .type.electric { background: #c9a400; }
.hp { height: .6rem; background: #e6e8ee; border-radius: 3px; overflow: hidden; }
.hp > div { height: 100%; background: var(--you); }
@media (max-width: 900px) { .mon { grid-template-columns: 3.5rem 3.5rem 1fr 2.5rem; } }
`;
