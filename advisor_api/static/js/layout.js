// The page's layout and access: the panes of a narrow screen (a bottom tab bar), the
// board's zoom and pan, and keyboard use of the table: every board target and
// suggestion line takes the focus (role=button, a plain-words label from its tooltip)
// and Enter or Space plays it as a click would.

import { BOARD_H, BOARD_W, boardBox, mapPoint, setBoardBox } from "./board.js";
import { app } from "./state.js";
import { $ } from "./ui.js";

export const NARROW = "(max-width: 900px)";
// Pixels per board unit a pane opens at when its part of the board does not fit the
// screen (a phone): big enough for 32 px taps on every target (the smallest, a base
// column, is 26.4 units wide).
const TAP_SCALE = 1.25;
// A pane's part of the board is shown whole when this scale or more fits it (a tablet).
const FIT_SCALE = 1;
const MAP_AREA = [0, 0, 800, 900]; // the map and the bases; the rest is the displays
const DISPLAYS = [800, 0, 800, 900];
// The view of each pane as the player last left it (zoomed, panned); none: its opening view.
const views = {};
let decisionKey = null;
let revealedKind = null; // the kind of the decision revealTargets saw last

function narrow() { return window.matchMedia(NARROW).matches; }

/** The map pane's parts of the board (board units): ``land``, the regions, and
 * ``whole``, the regions and the bases, each with a little sea around. */
function mapBoxes() {
  const cat = app.cat;
  if (!cat || !Array.isArray(cat.regions) || !cat.regions.length) return { land: MAP_AREA, whole: MAP_AREA };
  const box = (points) => {
    let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
    for (const point of points) {
      const [x, y] = mapPoint(cat, point);
      x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
    }
    return Number.isFinite(x0 + y0 + x1 + y1) ? [x0 - 10, y0 - 10, x1 - x0 + 20, y1 - y0 + 20] : MAP_AREA;
  };
  const land = cat.regions.flatMap((r) => r.polygon || []);
  const bases = Object.values(cat.base_layout || {}).flatMap((b) => [[b.x, b.y], [b.x + b.width, b.y + b.height]]);
  return { land: box(land), whole: box([...land, ...bases]) };
}

/** The opening box of a pane: its part of the board whole and centred when that is
 * readable (a tablet: the map with its bases, the displays); else at the tap scale,
 * the map centred on its land, the displays from their top left (the round track and
 * the card display). */
function paneBox(name) {
  const svg = $("#board");
  const cw = Math.max(1, svg.clientWidth);
  const ch = Math.max(1, svg.clientHeight);
  const map = name === "displays" ? null : mapBoxes();
  const [x, y, w, h] = map ? map.whole : DISPLAYS;
  const fit = Math.min(cw / w, ch / h);
  if (fit >= FIT_SCALE) {
    const scale = Math.min(fit, TAP_SCALE);
    const [vw, vh] = [cw / scale, ch / scale];
    // centred, but not past the board's edges when the board can fill the view
    const inside = (v, size, limit) => (size <= limit ? Math.min(Math.max(v, 0), limit - size) : v);
    return [inside(x + (w - vw) / 2, vw, BOARD_W), inside(y + (h - vh) / 2, vh, BOARD_H), vw, vh];
  }
  const vw = cw / TAP_SCALE;
  const vh = ch / TAP_SCALE;
  if (!map) return [x, y, vw, vh];
  const [lx, ly, lw, lh] = map.land;
  return [lx + (lw - vw) / 2, ly + (lh - vh) / 2, vw, vh];
}

function paneNow() {
  const pane = document.body.dataset.pane;
  return narrow() && (pane === "map" || pane === "displays") ? pane : null;
}

/** Show a part of the board, remembered as the current pane's view. */
function show(box) {
  setBoardBox($("#board"), box);
  const pane = paneNow();
  if (pane) views[pane] = boardBox();
}

export function showPane(name) {
  document.body.dataset.pane = name;
  for (const b of document.querySelectorAll("#panes button")) b.setAttribute("aria-pressed", String(b.dataset.pane === name));
  if (!narrow() || (name !== "map" && name !== "displays")) return;
  setBoardBox($("#board"), views[name] || paneBox(name));
  views[name] = boardBox();
  revealTargets(true);
}

// -- where the decision is played ------------------------------------------------------
// The pane of each kind of board target (data-target's first part).
const PANE_OF = {
  hand: "boards", slot: "boards", card: "boards", deck: "boards", bk: "boards",
  region: "map", base: "map", col: "map",
  display: "displays", bonus: "displays", line: "displays", bookspace: "displays", company: "displays",
};
// The pane a decision is mostly played on, where its targets lie in several.
const KIND_PANE = {
  plan: "boards", action: "boards", "goods-buy": "displays", "goods-track": "displays",
  expansion: "map", "oust-return": "map", "remove-post": "map", "bookkeeper-flip": "boards",
  "bookkeeping-points": "displays", "place-book": "boards", chance: "displays",
};

/** The panes holding the decision's targets (``buttons``: steps played by a button of the
 * decision panel), and the one it is mostly played on: ``{main, panes}``. */
export function decisionPanes(ctx, buttons) {
  const panes = new Set();
  for (const [key, steps] of ctx.targetMap) if (steps.length && PANE_OF[key.split(":")[0]]) panes.add(PANE_OF[key.split(":")[0]]);
  if (ctx.kind === "plan" && ctx.legal.some((t) => t.startsWith("plan "))) panes.add("boards");
  if (ctx.kind === "chance" && ctx.mine && ctx.view.mode === "live") panes.add("displays");
  if (buttons) panes.add("decide");
  const want = KIND_PANE[ctx.kind];
  const main = !ctx.mine ? null : want && panes.has(want) ? want : panes.has("decide") ? "decide" : [...panes][0] || "decide";
  return { main, panes };
}

let paneKey = null;

/**
 * Mark the tab of the pane the decision is played on ("your decision"); on a narrow
 * screen, when a new decision of yours begins (``key``) and the pane shown holds
 * nothing of it, bring that pane up (a tap saved: after "Use bookkeeper" the books on
 * Displays). Never during the same decision: the player looks where they chose.
 */
export function markDecisionPane(ctx, key, buttons) {
  const { main, panes } = decisionPanes(ctx, buttons);
  for (const b of document.querySelectorAll("#panes button")) {
    const here = b.dataset.pane === main;
    b.classList.toggle("decision-here", here);
    let note = b.querySelector(".sr-only");
    if (here && !note) {
      note = document.createElement("span");
      note.className = "sr-only";
      b.append(note);
    }
    if (note) note.textContent = here ? " (your decision)" : "";
    b.title = here ? "Your decision is played here" : "";
  }
  document.body.dataset.decisionPane = main || "";
  if (key === paneKey) return;
  paneKey = key;
  if (!main || !narrow() || !ctx.mine) return;
  const shown = document.body.dataset.pane;
  if (!panes.has(shown)) showPane(main);
}

// -- the focus across redraws -----------------------------------------------------------
/** What has the focus now, as a selector that finds it again after a redraw. */
export function focusNow() {
  const el = document.activeElement;
  if (!el || el === document.body || !(el instanceof Element)) return null;
  const q = (v) => CSS.escape(v);
  if (el.hasAttribute("data-target")) return `#${el.closest("#board") ? "board" : "players"} [data-target="${q(el.getAttribute("data-target"))}"]`;
  if (el.dataset.step) {
    const box = el.closest("[id]");
    return box ? `#${q(box.id)} [data-step="${q(el.dataset.step)}"]` : null;
  }
  if (el.id) return `#${q(el.id)}`;
  return null;
}

/**
 * After a redraw: a step of the page's own (``stepped``) gives the focus to the
 * decision (on a narrow screen showing another pane, to the tab of the decision's pane);
 * else what had the focus (``was``, focusNow) keeps it where it is drawn again.
 */
export function keepFocus(was, stepped) {
  const el = document.activeElement;
  const lost = !el || el === document.body || !el.isConnected;
  if (stepped && !document.querySelector("dialog[open], #chooser:not([hidden]), #picker:not([hidden])")) {
    const pane = document.body.dataset.pane;
    const to = !narrow() || pane === "decide" ? $("#decision")
      : document.querySelector("#panes button.decision-here") || $("#decision");
    quietly(() => to.focus({ preventScroll: true }));
    return;
  }
  if (!lost || !was) return;
  const again = document.querySelector(was);
  if (again) quietly(() => again.focus({ preventScroll: true }));
}

/** The panes open afresh (a new catalogue, a new screen size). */
export function resetPanes() {
  for (const k of Object.keys(views)) delete views[k];
  if (narrow()) showPane(document.body.dataset.pane || "map");
  else setBoardBox($("#board"), null);
}

/** Whether a board target shows enough of itself in the board's window to be tapped
 * there: a tap on any visible part of it plays it (at least 24 px each way, or all of it). */
function partlyInView(r, rect) {
  const w = Math.min(r.right, rect.right) - Math.max(r.left, rect.left);
  const h = Math.min(r.bottom, rect.bottom) - Math.max(r.top, rect.top);
  return w >= Math.min(24, r.width - 1) && h >= Math.min(24, r.height - 1);
}

/**
 * On a narrow screen, the current decision's targets in the pane shown come into view
 * when none of them shows (at the pane's zoom; a target partly in the window counts: a
 * tap on its visible part plays it): when the pane is opened, and when a new decision
 * begins (``key``); never while the player looks elsewhere during the same decision,
 * so the board does not move under a finger between two taps. Moving goods on the
 * company tracks keeps the rows' company names (their left end) in view.
 */
export function revealTargets(force = false, key = null) {
  const kind = app.ctx ? app.ctx.kind : null;
  let fresh = force; // the pane opened, or a new kind of decision
  if (!force) {
    if (key === decisionKey) return;
    decisionKey = key;
    fresh = revealedKind !== kind;
    revealedKind = kind;
  }
  const pane = paneNow();
  if (!pane) return;
  const svg = $("#board");
  const rect = svg.getBoundingClientRect();
  if (!rect.width || !rect.height) return;
  const [bx, by, bw, bh] = boardBox();
  const k = unitsPerPixel();
  // moving goods: the rows' names must show, when the pane opens or the goods begin
  // (not between two units: the board stays put under the finger)
  const goods = kind === "goods-track" && fresh;
  const found = [];
  let shows = false;
  for (const node of svg.querySelectorAll(".legal[data-target]")) {
    const r = node.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    const cx = bx + (r.left + r.width / 2 - rect.left) * k;
    const cy = by + (r.top + r.height / 2 - rect.top) * k;
    const inMap = cx < MAP_AREA[0] + MAP_AREA[2] && cy < MAP_AREA[1] + MAP_AREA[3];
    if (inMap !== (pane === "map")) continue;
    if (partlyInView(r, rect) && (!goods || pane !== "displays" || node.classList.contains("track-head"))) shows = true;
    found.push([bx + (r.left - rect.left) * k, by + (r.top - rect.top) * k, r.width * k, r.height * k]);
  }
  if (shows || !found.length) return; // one shows: the board stays put
  // centred on them all where they fit the view, else from their top left (the
  // company tracks: their names), the board filling the window where it can
  const x0 = Math.min(...found.map((f) => f[0]));
  const y0 = Math.min(...found.map((f) => f[1]));
  const x1 = Math.max(...found.map((f) => f[0] + f[2]));
  const y1 = Math.max(...found.map((f) => f[1] + f[3]));
  const place = (lo, hi, size, limit) => {
    const v = hi - lo + 16 <= size ? (lo + hi) / 2 - size / 2 : lo - 8;
    return size <= limit ? Math.min(Math.max(v, -10), limit - size) : v;
  };
  show([place(x0, x1, bw, BOARD_W), place(y0, y1, bh, BOARD_H), bw, bh]);
}

function zoom(factor, cx = null, cy = null) {
  const [x, y, w, h] = boardBox();
  const nw = Math.min(BOARD_W * 1.2, Math.max(200, w / factor));
  const nh = nw * (h / w);
  const px = cx === null ? x + w / 2 : cx;
  const py = cy === null ? y + h / 2 : cy;
  show([px - (px - x) * (nw / w), py - (py - y) * (nh / h), nw, nh]);
}

/** A pinch: the board point under the fingers' old midpoint goes under the new one,
 * zoomed by the change of their distance. */
function pinchTo(from, to, factor) {
  const svg = $("#board");
  const rect = svg.getBoundingClientRect();
  const [x, y, w, h] = boardBox();
  const k = unitsPerPixel();
  const px = x + (from[0] - rect.left) * k;
  const py = y + (from[1] - rect.top) * k;
  const nw = Math.min(BOARD_W * 1.2, Math.max(200, w / factor));
  const nk = k * (nw / w);
  show([px - (to[0] - rect.left) * nk, py - (to[1] - rect.top) * nk, nw, nw * (h / w)]);
}

function fit() {
  show(narrow() ? fitBox() : null);
}

/** The whole board in the element's shape (a narrow screen letterboxes otherwise). */
function fitBox() {
  const svg = $("#board");
  const ratio = svg.clientHeight / Math.max(1, svg.clientWidth);
  const w = Math.max(BOARD_W, BOARD_H / ratio);
  return [(BOARD_W - w) / 2, 0, w, w * ratio];
}

/** Board units per screen pixel of the board element now. */
function unitsPerPixel() {
  const svg = $("#board");
  const [, , w, h] = boardBox();
  return Math.max(w / Math.max(1, svg.clientWidth), h / Math.max(1, svg.clientHeight));
}

function wireZoom() {
  const svg = $("#board");
  $("#zoom-in").addEventListener("click", () => zoom(1.4));
  $("#zoom-out").addEventListener("click", () => zoom(1 / 1.4));
  $("#zoom-fit").addEventListener("click", fit);
  svg.addEventListener("wheel", (ev) => {
    if (!narrow() && !ev.ctrlKey && !document.body.classList.contains("zoomed")) return; // the page scrolls
    ev.preventDefault();
    const rect = svg.getBoundingClientRect();
    const [x, y] = boardBox();
    const k = unitsPerPixel();
    zoom(ev.deltaY < 0 ? 1.15 : 1 / 1.15, x + (ev.clientX - rect.left) * k, y + (ev.clientY - rect.top) * k);
  }, { passive: false });
  // drag to pan (one pointer), pinch to zoom (two)
  const pointers = new Map();
  let moved = 0;
  let pinch = null; // {d: the fingers' distance, mid: their midpoint}
  const twoFingers = () => {
    const [a, b] = [...pointers.values()];
    return { d: Math.hypot(a[0] - b[0], a[1] - b[1]), mid: [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2] };
  };
  svg.addEventListener("pointerdown", (ev) => {
    // the first finger down: any pointer still listed lost its "up" (a redraw removed
    // the element it was captured by)
    if (ev.isPrimary) { pointers.clear(); pinch = null; }
    pointers.set(ev.pointerId, [ev.clientX, ev.clientY]);
    if (pointers.size === 1) moved = 0;
    if (pointers.size === 2) pinch = twoFingers();
  });
  svg.addEventListener("pointermove", (ev) => {
    const last = pointers.get(ev.pointerId);
    if (!last) return;
    const dx = ev.clientX - last[0];
    const dy = ev.clientY - last[1];
    pointers.set(ev.pointerId, [ev.clientX, ev.clientY]);
    if (pointers.size >= 2) {
      if (pointers.size !== 2 || !pinch) return;
      const now = twoFingers();
      if (now.d > 0 && pinch.d > 0) pinchTo(pinch.mid, now.mid, now.d / pinch.d);
      pinch = now;
      moved += 10; // a pinch is never a tap
      return;
    }
    moved += Math.abs(dx) + Math.abs(dy);
    if (moved < 6 || !boardIsZoomed()) return;
    const k = unitsPerPixel();
    const [x, y, w, h] = boardBox();
    show([x - dx * k, y - dy * k, w, h]);
  });
  const up = (ev) => { pointers.delete(ev.pointerId); if (pointers.size < 2) pinch = null; };
  window.addEventListener("pointerup", up);
  window.addEventListener("pointercancel", up);
  // a drag is not a click on what lies under its end
  svg.addEventListener("click", (ev) => {
    if (moved >= 6 && ev.detail !== 0) { ev.stopImmediatePropagation(); ev.preventDefault(); }
    moved = 0;
  }, true);
}

function boardIsZoomed() {
  const [, , w] = boardBox();
  return w < BOARD_W - 1 || narrow();
}

// -- keyboard ----------------------------------------------------------------------------
function labelOf(node) {
  const t = [...node.children].find((c) => c.tagName.toLowerCase() === "title");
  let words = t ? t.textContent : node.getAttribute("data-target");
  // the name holds what is printed there too (a label never contradicts the drawing)
  const texts = [...node.querySelectorAll("text")];
  for (const x of texts) if (!x.textContent.endsWith(" ")) x.append(" "); // words apart (not drawn)
  const shown = texts.map((x) => x.textContent.trim()).filter(Boolean).join(" ");
  const squash = (x) => x.toLowerCase().replace(/[^a-z0-9£]+/g, " ").trim();
  if (shown && node.getAttribute("role") === "button" && !squash(words).includes(squash(shown))) words = `${words}; printed: ${shown}`;
  return node.classList.contains("legal") ? `${words}, you can play here` : words;
}

let lastKey = null;
let lastLine = null; // the rank of the suggestion line focused last
let pointerFocus = false; // the focus given by a tap or click: the board stays put
let quietFocus = false; // the focus given by the page (after a step): the board stays put

function makeFocusable(root) {
  for (const node of root.querySelectorAll("[data-target]")) {
    node.setAttribute("tabindex", "0");
    // a target holding others (a base and its columns, a majority and its lines) is a
    // group: buttons do not nest
    node.setAttribute("role", node.querySelector("[data-target]") ? "group" : "button");
    node.setAttribute("aria-label", labelOf(node));
    node.setAttribute("focusable", "true");
  }
  // the label says it all in plain words; the drawn text is not read twice
  for (const t of root.querySelectorAll("[data-target] text")) t.setAttribute("aria-hidden", "true");
  // the focus stays on the same target across a redraw
  if (lastKey && (document.activeElement === document.body || !document.activeElement)) {
    const again = root.querySelector(`[data-target="${CSS.escape(lastKey)}"]`);
    if (again) quietly(() => again.focus({ preventScroll: true }));
  }
}

/** Give the focus without moving the board (the page's own doing, not the keyboard's). */
export function quietly(fn) {
  quietFocus = true;
  try {
    fn();
  } finally {
    quietFocus = false;
  }
}

function makeLinesFocusable(list) {
  const focused = document.activeElement;
  const lost = !focused || focused === document.body || !focused.isConnected;
  for (const li of list.querySelectorAll("li")) {
    li.setAttribute("tabindex", "0");
    li.setAttribute("role", "button");
    const move = li.querySelector(".move");
    const win = li.querySelector(".win");
    // suggest.js names each line by every word it shows; a line it did not name gets one
    if (!li.hasAttribute("aria-label")) li.setAttribute("aria-label", `Play line ${li.dataset.rank || ""}: ${move ? move.textContent : li.textContent}${win ? `, ${win.textContent} to win` : ""}`);
  }
  // the focus stays on the same line when the stream redraws the list
  if (lost && lastLine) {
    const again = list.querySelector(`li[data-rank="${CSS.escape(lastLine)}"]`);
    if (again) quietly(() => again.focus({ preventScroll: true }));
  }
}

function activate(node) {
  const r = node.getBoundingClientRect();
  const init = { bubbles: true, cancelable: true, clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, detail: 0 };
  node.dispatchEvent(new MouseEvent("click", init));
  const first = $("#chooser:not([hidden]) button");
  if (first) first.focus();
}

function wireKeyboard() {
  document.addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter" && ev.key !== " ") return;
    const node = ev.target;
    if (!(node instanceof Element)) return;
    if (node.matches("[data-target][tabindex]") || node.matches("#suggestions li[role=button]")) {
      ev.preventDefault();
      activate(node);
    }
  });
  // A tap or click on a board target plays it and nothing else: the browser's own
  // focus on mouse down would scroll the players' boards, and a focused target outside
  // the board's window pans the board to it, between the finger's down and up (the
  // click then lands on whatever moved under it). The target takes the focus without
  // moving anything; only the keyboard's focus brings a target into view.
  for (const root of [$("#board"), $("#players")]) {
    root.addEventListener("mousedown", (ev) => {
      const node = ev.target instanceof Element ? ev.target.closest("[data-target][tabindex]") : null;
      if (!node) return;
      ev.preventDefault();
      pointerFocus = true;
      node.focus({ preventScroll: true });
      pointerFocus = false;
    });
  }
  document.addEventListener("focusin", (ev) => {
    const node = ev.target;
    lastKey = node instanceof Element && node.hasAttribute("data-target") ? node.getAttribute("data-target") : null;
    lastLine = node instanceof Element && node.matches("#suggestions li[data-rank]") ? node.dataset.rank : null;
    if (node instanceof Element && node.closest("#board") && narrow() && !pointerFocus && !quietFocus) keepInView(node);
  });
  // hovering a line highlights it on the board: so does focusing it
  const list = $("#suggestions");
  list.addEventListener("focusin", (ev) => ev.target.dispatchEvent(new MouseEvent("mouseenter")));
  list.addEventListener("focusout", (ev) => ev.target.dispatchEvent(new MouseEvent("mouseleave")));
  // Tab walks on through the other players' boards: your own comes back into view after
  const players = $("#players");
  players.addEventListener("focusout", (ev) => {
    if (!ev.relatedTarget || !players.contains(ev.relatedTarget)) players.scrollTop = 0;
  });
  for (const root of [$("#board"), $("#players")]) {
    new MutationObserver(() => makeFocusable(root)).observe(root, { childList: true });
  }
  new MutationObserver(() => makeLinesFocusable(list)).observe(list, { childList: true });
}

/** A focused target off the zoomed board's window: pan to it. */
function keepInView(node) {
  const svg = $("#board");
  const r = node.getBoundingClientRect();
  const b = svg.getBoundingClientRect();
  if (r.left >= b.left && r.right <= b.right && r.top >= b.top && r.bottom <= b.bottom) return;
  const k = unitsPerPixel();
  const [x, y, w, h] = boardBox();
  const cx = x + (r.left + r.width / 2 - b.left) * k;
  const cy = y + (r.top + r.height / 2 - b.top) * k;
  show([cx - w / 2, cy - h / 2, w, h]);
}

/** The skip link to your own board: its first place to play now (else its first
 * target), past the map and the displays. */
function toOwnBoard() {
  if (narrow()) showPane("boards");
  const me = $("#players svg.me") || $("#players svg");
  if (!me) return;
  const to = me.querySelector(".legal[data-target]") || me.querySelector("[data-target][tabindex]") || me;
  if (!to.hasAttribute("tabindex")) to.setAttribute("tabindex", "-1");
  to.focus({ preventScroll: true });
  to.scrollIntoView({ block: "nearest", inline: "nearest" });
}

/** --chrome: the height the header, the tab bar and the margins take from a narrow
 * screen, for the board to fill the rest. */
function wireChrome() {
  const header = $("#top");
  const bar = $("#panes");
  if (!header || !bar) return;
  const set = () => {
    const px = Math.ceil(header.getBoundingClientRect().height + bar.getBoundingClientRect().height + 12);
    document.documentElement.style.setProperty("--chrome", `${px}px`);
  };
  const watch = new ResizeObserver(set);
  watch.observe(header);
  watch.observe(bar);
  set();
}

export function wireLayout() {
  for (const b of document.querySelectorAll("#panes button")) b.addEventListener("click", () => showPane(b.dataset.pane));
  const skip = document.querySelector("a.skip[href='#decision']");
  if (skip) {
    skip.addEventListener("click", (ev) => {
      ev.preventDefault();
      if (narrow()) showPane("decide");
      $("#decision").focus();
    });
  }
  const mine = document.querySelector("a.skip[href='#players']");
  if (mine) mine.addEventListener("click", (ev) => { ev.preventDefault(); toOwnBoard(); });
  wireChrome();
  wireZoom();
  wireKeyboard();
  // a narrow screen plays on the board and the decision's buttons: the list of every
  // legal step starts folded (one tap opens it), the round summary and the rest close
  // under the decision
  if (narrow()) $("#legal-box").open = false;
  const mq = window.matchMedia(NARROW);
  mq.addEventListener("change", resetPanes);
  // a phone turned on its side: its panes open afresh
  window.addEventListener("orientationchange", resetPanes);
  resetPanes();
}
