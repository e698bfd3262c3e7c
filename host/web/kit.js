// The playground's drawing kit: what the page itself draws with, and what plugin views may import
// (`import { el, svg, bars } from "/kit.js"`). PROTOCOL.md, "Plugin views", documents it; keep
// these signatures stable.

/** Creates an element: `el("div", {class: "x", onclick: f}, child, "text", ...)`; children may
 * come in nested arrays (a list of rows, each a list of cells), null ones left out. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value);
  }
  for (const child of children.flat(Infinity)) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

const SVG = "http://www.w3.org/2000/svg";

/** Creates an SVG element: `svg("rect", {x: 1, ...}, child, ...)`, children as for `el`. */
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) if (value !== undefined && value !== null) node.setAttribute(key, value);
  for (const child of children.flat(Infinity)) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** Labelled horizontal bars, `rows` as `[label, value]`; the row labelled `chosen` in bold.
 * Values in [0, 1] are drawn as shares, others against the largest. */
export function bars(title, rows, chosen) {
  const max = Math.max(1e-9, ...rows.map(([, v]) => Math.abs(v)));
  const scale = rows.every(([, v]) => v >= 0 && v <= 1) ? 1 : max;
  return el("div", { class: "bars", "data-testid": `bars-${title}` },
    el("strong", {}, title),
    rows.map(([label, value]) => el("div", { class: `bar ${label === chosen ? "chosen" : ""}` },
      el("span", {}, label),
      el("div", { class: "track" }, el("div", { class: "fill", style: `width:${(100 * Math.abs(value)) / scale}%` })),
      el("span", { class: "num" }, Number.isInteger(value) ? value : value.toFixed(3)))));
}
