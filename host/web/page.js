// What the playground's tabs share: this server's WebSocket address, the catalog's lookups and a
// select's options.
import { el } from "./kit.js";

/** The page's address of this server's WebSocket. */
export const wsUrl = () => `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;

/** The element with id `id` (every id on the page is unique). */
export const $ = (id) => document.getElementById(id);

/** The bots of `catalog` that play `game`. */
export const botsFor = (catalog, game) => catalog.bots.filter((b) => b.games.includes(game));

/** The bot of `catalog` with id `id`. */
export const botById = (catalog, id) => catalog.bots.find((b) => b.id === id);

/** Replaces a select's options by `items`, each `[value, label]`. */
export const fill = (select, items) => select.replaceChildren(...items.map(([value, label]) => el("option", { value }, label)));
