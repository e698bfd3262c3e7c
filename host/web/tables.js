// A stored tournament drawn for the tournament page: its standings, its crosstable and its
// rating-with-interval chart over games played (`tournament.show`'s reply).
import { el, svg } from "./kit.js";
import { standingsView } from "./views.js";

/** The crosstable: each row's points against each column's bot over their comparisons. */
export function crosstableView(rows) {
  const short = (i) => `#${i + 1}`;
  return el("table", { class: "crosstable", "data-testid": "t-crosstable" },
    el("tr", {}, el("th", {}, "bot"), rows.map((_, i) => el("th", { title: rows[i].bot }, short(i)))),
    rows.map((row, i) => el("tr", {},
      el("th", {}, `${short(i)} ${row.bot}`),
      row.points.map((p, j) => el("td", { title: `${row.bot} vs ${rows[j].bot}` },
        p === null ? (i === j ? "×" : "") : `${p}/${row.games[j]}`)))));
}

const PALETTE = ["#3b6fd8", "#d2553a", "#2f9e6b", "#9b59b6", "#e0a030", "#16a2b8", "#7f8c8d", "#c2185b"];

/** Each bot's Elo over games played, its 95% interval shaded; `labels` in the spec's order. */
export function ratingChart(history, labels) {
  const [w, h, pad] = [640, 240, 36];
  const points = history.filter((p) => p.games > 0);
  if (!points.length) return el("p", { class: "hint" }, "No finished game yet.");
  const values = points.flatMap((p) => p.elo_ci95.flat().concat(p.elo)).filter(Number.isFinite);
  const [lo, hi] = [Math.min(-50, ...values), Math.max(50, ...values)];
  const maxGames = points[points.length - 1].games;
  const x = (g) => pad + ((w - 2 * pad) * g) / maxGames;
  const y = (v) => h - pad - ((h - 2 * pad) * (Math.min(Math.max(v, lo), hi) - lo)) / (hi - lo);
  const series = labels.map((label, b) => {
    const color = PALETTE[b % PALETTE.length];
    const known = points.filter((p) => Number.isFinite(p.elo[b]));
    const band = known.filter((p) => p.elo_ci95[b].every(Number.isFinite));
    const area = band.map((p) => `${x(p.games)},${y(p.elo_ci95[b][1])}`)
      .concat(band.slice().reverse().map((p) => `${x(p.games)},${y(p.elo_ci95[b][0])}`)).join(" ");
    return [
      band.length > 1 ? svg("polygon", { points: area, fill: color, "fill-opacity": 0.12 }) : null,
      svg("polyline", { points: known.map((p) => `${x(p.games)},${y(p.elo[b])}`).join(" "), fill: "none", stroke: color, "stroke-width": 2 },
        svg("title", {}, label)),
    ];
  });
  return el("div", { class: "chart", "data-testid": "t-chart" },
    svg("svg", { viewBox: `0 0 ${w} ${h}`, width: w, height: h },
      svg("line", { x1: pad, x2: w - pad, y1: y(0), y2: y(0), stroke: "#aaa", "stroke-dasharray": "3 3" }),
      svg("text", { x: 2, y: y(hi) + 4, class: "svg-label" }, Math.round(hi)),
      svg("text", { x: 2, y: y(lo), class: "svg-label" }, Math.round(lo)),
      svg("text", { x: w - pad, y: h - 8, "text-anchor": "end", class: "svg-label" }, `${maxGames} games`),
      svg("text", { x: pad, y: h - 8, class: "svg-label" }, "Elo (95% interval) over games played"),
      series),
    el("div", { class: "legend" }, labels.slice(0, 24).map((label, b) =>
      el("span", {}, el("span", { class: "swatch", style: `background:${PALETTE[b % PALETTE.length]}` }), ` ${label} `))));
}

/** The standings and crosstable of a `tournament.show` reply (what the render bench times). */
export function standingsAndCrosstable(shown) {
  return el("div", { class: "tables" },
    standingsView(shown.standings, shown.elo_reference),
    el("h3", {}, "Crosstable"),
    crosstableView(shown.crosstable));
}

/** A game's seats as a person reads them: the bots in seat order, "A vs B" ("vs" between each). */
export function seatsText(seats) {
  return seats.map((s) => (typeof s === "string" ? s : s?.bot ?? s?.client ?? JSON.stringify(s))).join(" vs ");
}
