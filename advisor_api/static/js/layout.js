// The page's layout and access: the panes of a narrow screen (a bottom tab bar), the
// board's zoom and pan, and keyboard use of the table: every board target and
// suggestion line takes the focus (role=button, a plain-words label from its tooltip)
// and Enter or Space plays it as a click would.

import { BOARD_H, BOARD_W, boardBox, setBoardBox } from "./board.js";
import { $ } from "./ui.js";

const NARROW = "(max-width: 900px)";
// Pixels per board unit a narrow screen opens a pane at: big enough for 32 px taps.
const TAP_SCALE = 1.25;
const PANES = {
  map: [0, 0, 800, 900],
  displays: [800, 0, 800, 900],
};

function narrow() { return window.matchMedia(NARROW).matches; }

/** The box of a pane at the tap scale, centred on its part of the board. */
function paneBox(name) {
  const svg = $("#board");
  const [x, y, w, h] = PANES[name] || PANES.map;
  const vw = svg.clientWidth / TAP_SCALE;
  const vh = svg.clientHeight / TAP_SCALE;
  return [x, y, Math.min(vw, w * 1.5), Math.min(vh, h * 1.5)];
}

export function showPane(name) {
  document.body.dataset.pane = name;
  for (const b of document.querySelectorAll("#panes button")) b.setAttribute("aria-pressed", String(b.dataset.pane === name));
  if (narrow() && PANES[name]) setBoardBox($("#board"), paneBox(name));
}

function zoom(factor, cx = null, cy = null) {
  const svg = $("#board");
  const [x, y, w, h] = boardBox();
  const nw = Math.min(BOARD_W * 1.2, Math.max(200, w / factor));
  const nh = nw * (h / w);
  const px = cx === null ? x + w / 2 : cx;
  const py = cy === null ? y + h / 2 : cy;
  setBoardBox(svg, [px - (px - x) * (nw / w), py - (py - y) * (nh / h), nw, nh]);
}

function fit() {
  setBoardBox($("#board"), narrow() ? fitBox() : null);
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
  let pinch = null;
  svg.addEventListener("pointerdown", (ev) => {
    pointers.set(ev.pointerId, [ev.clientX, ev.clientY]);
    moved = 0;
    if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      pinch = Math.hypot(a[0] - b[0], a[1] - b[1]);
    }
  });
  svg.addEventListener("pointermove", (ev) => {
    const last = pointers.get(ev.pointerId);
    if (!last) return;
    const dx = ev.clientX - last[0];
    const dy = ev.clientY - last[1];
    pointers.set(ev.pointerId, [ev.clientX, ev.clientY]);
    if (pointers.size === 2 && pinch) {
      const [a, b] = [...pointers.values()];
      const d = Math.hypot(a[0] - b[0], a[1] - b[1]);
      if (d > 0) zoom(d / pinch);
      pinch = d;
      moved += 10;
      return;
    }
    moved += Math.abs(dx) + Math.abs(dy);
    if (moved < 6 || !boardIsZoomed()) return;
    const k = unitsPerPixel();
    const [x, y, w, h] = boardBox();
    setBoardBox(svg, [x - dx * k, y - dy * k, w, h]);
  });
  const up = (ev) => { pointers.delete(ev.pointerId); if (pointers.size < 2) pinch = null; };
  svg.addEventListener("pointerup", up);
  svg.addEventListener("pointercancel", up);
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
    if (again) again.focus({ preventScroll: true });
  }
}

function makeLinesFocusable(list) {
  for (const li of list.querySelectorAll("li")) {
    li.setAttribute("tabindex", "0");
    li.setAttribute("role", "button");
    const move = li.querySelector(".move");
    const win = li.querySelector(".win");
    li.setAttribute("aria-label", `Play line ${li.dataset.rank || ""}: ${move ? move.textContent : li.textContent}${win ? `, ${win.textContent} to win` : ""}`);
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
  document.addEventListener("focusin", (ev) => {
    const node = ev.target;
    lastKey = node instanceof Element && node.hasAttribute("data-target") ? node.getAttribute("data-target") : null;
    if (node instanceof Element && node.closest("#board") && narrow()) keepInView(node);
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
  setBoardBox(svg, [cx - w / 2, cy - h / 2, w, h]);
}

export function wireLayout() {
  for (const b of document.querySelectorAll("#panes button")) b.addEventListener("click", () => showPane(b.dataset.pane));
  const skip = document.querySelector("a.skip");
  if (skip) {
    skip.addEventListener("click", (ev) => {
      ev.preventDefault();
      if (narrow()) showPane("decide");
      $("#decision").focus();
    });
  }
  wireZoom();
  wireKeyboard();
  const mq = window.matchMedia(NARROW);
  const apply = () => {
    if (mq.matches) showPane(document.body.dataset.pane || "map");
    else setBoardBox($("#board"), null);
  };
  mq.addEventListener("change", apply);
  apply();
}
