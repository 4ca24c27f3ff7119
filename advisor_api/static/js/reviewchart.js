// The Review screen's chart (review.js): each reviewed seat's win chance and projected
// final money over the game, one panel each, the mistakes marked on the curves, the
// decision shown as a vertical line. A click (or tap) anywhere on the chart goes to the
// reviewed decision nearest to it.

import { s, text, title, PLAYER_FILL } from "./svg.js";

// The chart is drawn at its width on screen (board units = pixels: its words keep their
// size on a phone), set by drawChart.
let W = 800;
let PANEL_H = 150;
const GAP = 26;
const LEFT = 52;
const RIGHT = 12;
const TOP = 20;
export const CLASS_FILL = { inaccuracy: "#d4a017", mistake: "#e06c00", blunder: "#c62828" };

/** Round numbers for an axis from lo to hi (about ``n`` of them). */
function ticks(lo, hi, n = 4) {
  const span = Math.max(hi - lo, 1e-9);
  const raw = span / n;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((k) => k * mag).find((k) => k >= raw) || raw;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step) out.push(Math.round(v * 1e6) / 1e6);
  return out;
}

function panel(y0, label, series, lo, hi, x, fmt, marks) {
  const y = (v) => y0 + PANEL_H - ((v - lo) / Math.max(hi - lo, 1e-9)) * PANEL_H;
  const parts = [s("rect", { x: LEFT, y: y0, width: W - LEFT - RIGHT, height: PANEL_H, class: "rc-frame" }),
    text(LEFT, y0 - 6, label, { class: "rc-label" })];
  for (const v of ticks(lo, hi)) {
    parts.push(s("line", { x1: LEFT, x2: W - RIGHT, y1: y(v), y2: y(v), class: "rc-grid" }),
      text(LEFT - 6, y(v) + 4, fmt(v), { class: "rc-tick", "text-anchor": "end" }));
  }
  for (const { seat, points } of series) {
    if (!points.length) continue;
    const d = points.map((p, k) => `${k ? "L" : "M"}${x(p.index).toFixed(1)} ${y(p.value).toFixed(1)}`).join(" ");
    parts.push(s("path", { d, class: "rc-line", stroke: PLAYER_FILL[seat - 1] }));
  }
  for (const m of marks) {
    parts.push(s("circle", { cx: x(m.index), cy: y(m.value), r: m.cls === "blunder" ? 6 : m.cls === "mistake" ? 5 : 4, fill: CLASS_FILL[m.cls], class: "rc-mark", "data-index": m.index },
      title(`${m.cls} at step ${m.index}`)));
  }
  return parts;
}

function seriesOf(review, key) {
  return Object.entries(review.curves || {}).map(([seat, pts]) => ({
    seat: Number(seat),
    points: pts.filter((p) => Number.isFinite(p[key])).map((p) => ({ index: p.index, value: p[key] })),
  }));
}

function markOf(review, valueKey) {
  const curve = new Map();
  for (const [seat, pts] of Object.entries(review.curves || {})) for (const p of pts) curve.set(`${seat}:${p.index}`, p[valueKey]);
  return (review.decisions || []).filter((d) => d.class).map((d) => ({
    index: d.index, cls: d.class,
    value: curve.get(`${d.player}:${d.index}`) ?? d[`${valueKey}_played`] ?? 0,
  }));
}

/** Draw the chart of ``review`` (mombasa-review/1) into ``svg``; ``steps``: the game's
 * steps reviewed (the x axis). Returns the x of a step index (for the marker). */
export function drawChart(svg, review, steps) {
  W = Math.round(Math.min(900, Math.max(300, svg.getBoundingClientRect().width || 800)));
  PANEL_H = W < 500 ? 110 : 150;
  const x = (i) => LEFT + (i / Math.max(steps, 1)) * (W - LEFT - RIGHT);
  const win = seriesOf(review, "win").map((sr) => ({ ...sr, points: sr.points.map((p) => ({ ...p, value: p.value * 100 })) }));
  const money = seriesOf(review, "money");
  const values = money.flatMap((sr) => sr.points.map((p) => p.value));
  const lo = values.length ? Math.floor(Math.min(...values) / 5) * 5 : 0;
  const hi = values.length ? Math.max(lo + 5, Math.ceil(Math.max(...values) / 5) * 5) : 10;
  const winMarks = markOf(review, "win").map((m) => ({ ...m, value: m.value * 100 }));
  const height = TOP + 2 * PANEL_H + GAP + 24;
  svg.setAttribute("viewBox", `0 0 ${W} ${height}`);
  const xTicks = ticks(0, steps, 6).filter((v) => Number.isInteger(v));
  svg.replaceChildren(
    ...panel(TOP, "Win chance (%)", win, 0, 100, x, (v) => `${v}`, winMarks),
    ...panel(TOP + PANEL_H + GAP, "Projected final money (£)", money, lo, hi, x, (v) => `${v}`, markOf(review, "money")),
    ...xTicks.map((v) => text(x(v), height - 6, `${v}`, { class: "rc-tick", "text-anchor": "middle" })),
    s("line", { id: "rc-now", x1: -10, x2: -10, y1: TOP, y2: TOP + 2 * PANEL_H + GAP, class: "rc-now" }),
    s("rect", { x: LEFT, y: 0, width: W - LEFT - RIGHT, height, class: "rc-hit" }));
  return x;
}

/** Move the chart's line of the decision shown to step ``index``. */
export function markChart(svg, x, index) {
  const line = svg.querySelector("#rc-now");
  if (!line || index === null) return;
  line.setAttribute("x1", x(index));
  line.setAttribute("x2", x(index));
}

/** The step index under a click on the chart (in steps, fractional). */
export function indexAt(svg, ev, steps) {
  const pt = svg.createSVGPoint();
  pt.x = ev.clientX;
  pt.y = ev.clientY;
  const local = pt.matrixTransform(svg.getScreenCTM().inverse());
  return ((local.x - LEFT) / (W - LEFT - RIGHT)) * steps;
}
