// The sevens plugin's playground view (interface: PROTOCOL.md, "Plugin views"): the table as one
// row per suit, your hand, and the others' card counts.
import { el } from "/kit.js";

const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const red = (suit) => suit === "H" || suit === "D";

/** The table (cards on it face up), your hand, the others' counts and passes. */
export function render(o) {
  const onTable = new Set(o.table);
  return el("div", {},
    el("p", { class: "kv" }, `Move ${o.move} · cards left ${o.hand_sizes.join(" / ")} · passes left ${o.passes_left.join(" / ")} (you are seat ${o.seat})`),
    ["S", "H", "D", "C"].map((suit) => el("div", { class: "cards table-row" },
      el("span", { class: "card down" }, suit),
      RANKS.map((rank) => onTable.has(rank + suit)
        ? el("span", { class: `card ${red(suit) ? "red" : ""}` }, rank)
        : el("span", { class: "card down" }, "·")))),
    el("h3", {}, "Your hand"),
    el("div", { class: "cards", "data-testid": "hand" }, o.hand.map((c) => el("span", { class: `card ${/[hd]$/i.test(c) ? "red" : ""}` }, c))));
}

/** What a first game plays: the D-value player, which explains each move by its D totals. */
export const start = { sevens: { bot: "dvalue" } };

export const css = `
/* A suit's thirteen ranks stay on one row at any width. */
.cards.table-row { display: grid; grid-template-columns: repeat(14, minmax(0, 1fr)); gap: .2rem; }
.cards.table-row .card { min-width: 0; padding: .2rem 0; }
`;
