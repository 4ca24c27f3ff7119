// The drawings of the catalogue screen: each component drawn by the board's own code
// (board.js, cards.js, players.js) from the catalogue being edited, as the page would
// draw it in a game. A part of the board (the map, the tracks, the bonus spaces...) is
// drawn once per section; each component beside its form shows its piece of that
// drawing (an SVG <use> of it, cropped to the component) or is drawn alone (a card, a
// book). Figures are redrawn after every edit the validator accepts.

import {
  drawBonus, drawBooks, drawDisplay, drawMap, drawRounds, drawTracks, emptyState, mapPoint,
} from "./board.js";
import { book, card } from "./cards.js";
import { playerTracks } from "./players.js";
import { g, reward, s, text } from "./svg.js";

let serial = 0;

/** An <svg> with a viewBox. */
function svgBox(box, cls, label) {
  return s("svg", { viewBox: box.join(" "), class: cls, role: "img", "aria-label": label || null, preserveAspectRatio: "xMidYMid meet" });
}

/** Drawn things of the screen must not answer the game's clicks, hints or ids. */
function detach(node) {
  for (const n of node.querySelectorAll("[data-target]")) {
    n.setAttribute("data-cat-target", n.getAttribute("data-target"));
    n.removeAttribute("data-target");
  }
  for (const n of node.querySelectorAll("[id]")) n.removeAttribute("id");
  return node;
}

/**
 * A part of the board drawn by `draw(page)` (SVG nodes) in a figure of viewBox `box`;
 * {node, id (of the drawing, for crops), update(page)}.
 */
export function boardFigure(box, draw, label) {
  const id = `cat-fig-${++serial}`;
  const inner = g({ id });
  const node = svgBox(box, "cat-board", label);
  node.append(inner);
  return {
    node, id,
    update(page) {
      inner.replaceChildren(detach(g({}, draw(page))));
    },
  };
}

/** A piece of a board figure: a <use> of its drawing, cropped to box(page) ([x, y, w, h] or null). */
export function crop(figure, box, label) {
  const node = svgBox([0, 0, 10, 10], "cat-crop", label);
  node.append(s("use", { href: `#${figure.id}` }));
  return {
    node,
    update(page) {
      const b = box(page);
      node.hidden = !b;
      if (b) node.setAttribute("viewBox", b.join(" "));
    },
  };
}

/** A component drawn alone: draw(page) returns SVG nodes for the viewBox `box`. */
export function alone(box, draw, label, cls = "cat-piece") {
  const node = svgBox(box, cls, label);
  return {
    node,
    update(page) {
      node.replaceChildren(detach(g({}, draw(page))));
    },
  };
}

// -- the parts of the board ------------------------------------------------------------------
const MAP_BOX = [0, 0, 790, 885];

export function mapFigure() {
  return boardFigure(MAP_BOX, (page) => drawMap(page, emptyState(page), {}), "The map");
}

/** A region cut out of the map figure. */
export function regionCrop(map, index) {
  return crop(map, (page) => {
    const r = page.regions[index];
    if (!r) return null;
    const pts = r.polygon.map((p) => mapPoint(page, p));
    const xs = pts.map((p) => p[0]);
    const ys = pts.map((p) => p[1]);
    const pad = 8;
    const x0 = Math.min(...xs) - pad;
    const y0 = Math.min(...ys) - pad;
    return [x0, y0, Math.max(...xs) + pad - x0, Math.max(...ys) + pad - y0];
  }, `Region ${index + 1} on the map`);
}

const TRACK_Y = 898;
const TRACK_ROW = 56;

/** The company each track is dealt to in a first game ({trackId: company index}), by card. */
function trackOwners(page) {
  const out = {};
  page.companies.forEach((c, k) => {
    const first = page.first_game_tracks[c.id];
    const pair = page.track_cards.find((p) => p.includes(first)) || [first];
    for (const t of pair) out[t] = k;
  });
  return out;
}

/** The four company tracks of one side of the track cards (1: the first game's). */
export function tracksFigure(side) {
  return boardFigure([0, TRACK_Y - 8, 1600, 4 * TRACK_ROW + 10], (page) => {
    const owners = trackOwners(page);
    const tracks = {};
    for (const [t, k] of Object.entries(owners)) {
      const pair = page.track_cards.find((p) => p.includes(t)) || [t];
      if (pair.indexOf(t) + 1 === side) tracks[page.companies[k].id] = t;
    }
    return drawTracks(page, { ...emptyState(page), tracks });
  }, `Company tracks, side ${side} of the cards`);
}

/** One track's row, cut out of the figure of its side. */
export function trackCrop(sides, trackId) {
  const node = svgBox([0, 0, 10, 10], "cat-crop cat-track", `Track ${trackId}`);
  const use = s("use", {});
  node.append(use);
  return {
    node,
    update(page) {
      const k = trackOwners(page)[trackId];
      const pair = page.track_cards.find((p) => p.includes(trackId));
      node.hidden = k === undefined || !pair;
      if (node.hidden) return;
      use.setAttribute("href", `#${sides[pair.indexOf(trackId)].id}`);
      node.setAttribute("viewBox", [0, TRACK_Y + k * TRACK_ROW - 3, 1600, TRACK_ROW].join(" "));
    },
  };
}

/** The card display with the first action cards laid out (to show every price). */
export function displayFigure() {
  return boardFigure([806, 76, 372, 480], (page) => {
    const st = emptyState(page);
    page.display.spaces.forEach((sp, i) => { st.display[sp.name] = page.action_cards[i] || null; });
    return drawDisplay(page, st);
  }, "The card display");
}

export function bookDisplayFigure() {
  return boardFigure([806, 0, 794, 885], (page) => [drawRounds(page, emptyState(page)), drawBooks(page, emptyState(page))],
    "The round track and the book display");
}

export function bonusFigure() {
  return boardFigure([1174, 84, 426, 478], (page) => drawBonus(page, emptyState(page)), "The bonus spaces");
}

/** The bonus space `index` cut out of the bonus figure (where the drawing put it). */
export function bonusCrop(figure, index) {
  return crop(figure, (page) => {
    const sp = page.bonus_spaces[index];
    const el = sp && figure.node.querySelector(`[data-cat-target="bonus:${CSS.escape(sp.id)}"]`);
    if (!el) return null;
    const b = el.getBBox();
    if (!b.width) return null;
    return [b.x - 4, b.y - 4, b.width + 8, b.height + 8];
  }, "Bonus space");
}

export function cardFigure(nameOf) {
  return alone([0, 0, 100, 130], (page) => card(page, nameOf(page), 0, 0, 100), "Card");
}

export function bookFigure(nameOf) {
  return alone([0, 0, 110, 92], (page) => book(page, nameOf(page), 0, 0, 110), "Book");
}

/** A starting tile: its three starting cards and its bonus. */
export function startingTileFigure(tileOf) {
  return alone([0, 0, 320, 166], (page) => {
    const t = tileOf(page);
    if (!t) return [];
    const parts = t.cards.map((code, i) => card(page, `${code}/1`, i * 110, 0, 100));
    parts.push(text(0, 155, `tile ${t.id} · bonus`, { "font-size": 13, fill: "#5b4a35" }),
      g({ transform: "translate(100 150)" }, reward(page, t.bonus, 0, 0, 12).node));
    return parts;
  }, "Starting tile", "cat-piece cat-tile");
}

export function playerTracksFigure() {
  return boardFigure([958, 0, 642, 300], (page) => playerTracks({ cat: page }, 0, { diamond: 0, ink: 0, books: [], flipped: [] }),
    "The diamond and bookkeeping tracks of a player board");
}
