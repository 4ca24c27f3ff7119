// The shared board: the map with the four company bases, the round track, the card
// display, the bonus spaces, the book display and the four company tracks.
//
// Every clickable thing carries data-target (see steps.js): region:KAS, base:CAI,
// col:CAI:2, company:CAI, display:L1, bookspace:4.2, bonus:first, line:coffee:3.

import {
  s, g, text, title, coin, ledger, post, share, capital, measure, marker, reward, rewardText,
  companyFill, companyInk, points, PLAYER_FILL,
} from "./svg.js";
import { card, book } from "./cards.js";
import { cardLabel, displayPrice } from "./steps.js";

export const BOARD_W = 1600;
export const BOARD_H = 1125;

const MAP = { x: 0, y: 0, w: 790, h: 885 };

/** Map units -> board units. */
export function mapPoint(cat, [x, y]) {
  const geo = geometry(cat);
  return [geo.tx + x * geo.k, geo.ty + y * geo.k];
}

// -- geometry computed once per catalogue -------------------------------------------------
const geometryCache = new WeakMap();

function key(p) { return `${p[0]},${p[1]}`; }

export function geometry(cat) {
  let geo = geometryCache.get(cat);
  if (geo) return geo;
  const byId = Object.fromEntries(cat.regions.map((r) => [r.id, r]));
  const edges = [];
  for (const [a, b, cost] of cat.borders) {
    const ra = byId[a];
    const rb = byId[b];
    if (ra.enclave_of === b || rb.enclave_of === a) {
      const enc = ra.enclave_of === b ? ra : rb;
      edges.push({ a, b, cost, pts: [...enc.polygon, enc.polygon[0]] });
      continue;
    }
    const inB = new Map(rb.polygon.map((p, i) => [key(p), i]));
    const n = ra.polygon.length;
    const m = rb.polygon.length;
    for (let i = 0; i < n; i++) {
      const p = ra.polygon[i];
      const q = ra.polygon[(i + 1) % n];
      const ip = inB.get(key(p));
      const iq = inB.get(key(q));
      if (ip === undefined || iq === undefined) continue;
      if ((ip + 1) % m === iq || (iq + 1) % m === ip) edges.push({ a, b, cost, pts: [p, q] });
    }
  }
  const neighbours = {};
  for (const [a, b, cost] of cat.borders) {
    (neighbours[a] ||= []).push([b, cost]);
    (neighbours[b] ||= []).push([a, cost]);
  }
  // the frame: every region and every base, with a margin of sea
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  const extend = (x, y) => { x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y); };
  for (const r of cat.regions) for (const [x, y] of r.polygon) extend(x, y);
  for (const b of Object.values(cat.base_layout)) { extend(b.x, b.y); extend(b.x + b.width, b.y + b.height); }
  const frame = { x: x0 - 24, y: y0 - 24, w: x1 - x0 + 48, h: y1 - y0 + 48 };
  const k = Math.min(MAP.w / frame.w, MAP.h / frame.h);
  const tx = MAP.x + (MAP.w - frame.w * k) / 2 - frame.x * k;
  const ty = MAP.y + (MAP.h - frame.h * k) / 2 - frame.y * k;
  geo = { byId, edges, neighbours, frame, k, tx, ty };
  geometryCache.set(cat, geo);
  return geo;
}

const BANDS = [[0, [237, 220, 170]], [330, [230, 214, 156]], [470, [196, 212, 146]], [640, [176, 204, 138]], [820, [205, 214, 155]], [1000, [214, 206, 160]]];

function landColour(y, i) {
  let lo = BANDS[0];
  let hi = BANDS[BANDS.length - 1];
  for (let k = 0; k < BANDS.length - 1; k++) {
    if (y >= BANDS[k][0] && y <= BANDS[k + 1][0]) { lo = BANDS[k]; hi = BANDS[k + 1]; break; }
  }
  const t = (y - lo[0]) / Math.max(1, hi[0] - lo[0]);
  const shade = [0, 8, -6, 4, -3][i % 5];
  const c = lo[1].map((v, j) => Math.round(v + (hi[1][j] - v) * t + shade));
  return `rgb(${c.join(",")})`;
}

/** Where a company's base is drawn, and the point of its front edge (map units). */
export function baseGeometry(cat, cid) {
  const b = cat.base_layout[cid];
  const front = b.front === "bottom" ? [b.x + b.width / 2, b.y + b.height] : [b.x + b.width / 2, b.y];
  return { ...b, frontPoint: front };
}

/** Entry cost of a region for a company now (docs/rules.md "Expansion"). */
export function entryCost(cat, st, company, region) {
  const geo = geometry(cat);
  let best = 99;
  for (const [r, cost] of cat.base_borders[company]) if (r === region) best = Math.min(best, cost);
  for (const [r, owner] of Object.entries(st.owners)) {
    if (owner !== company) continue;
    for (const [q, cost] of geo.neighbours[r] || []) if (q === region) best = Math.min(best, cost);
  }
  const owner = st.owners[region];
  if (owner && owner !== company) best += 1;
  return best;
}

// -- the map -------------------------------------------------------------------------------
export function drawMap(cat, st, ctx) {
  const geo = geometry(cat);
  const FRAME = geo.frame;
  const layer = [];
  layer.push(s("rect", { x: FRAME.x, y: FRAME.y, width: FRAME.w, height: FRAME.h, rx: 18, fill: "#b9d8e8" }));
  // wave marks on the sea
  for (let i = 0; i < 14; i++) {
    const x = FRAME.x + 40 + ((i * 173) % (FRAME.w - 80));
    const y = FRAME.y + 60 + ((i * 331) % (FRAME.h - 120));
    layer.push(s("path", { d: `M${x} ${y} q10 -8 20 0 t20 0`, fill: "none", stroke: "#9cc4d8", "stroke-width": 3 }));
  }
  // connectors from each base to the regions it borders (under the land)
  for (const company of cat.companies) {
    const b = baseGeometry(cat, company.id);
    for (const [rid, cost] of cat.base_borders[company.id]) {
      const r = geo.byId[rid];
      const [x1, y1] = b.frontPoint;
      const [x2, y2] = r.centre;
      layer.push(s("line", { x1, y1, x2, y2, stroke: "#3a2e1f", "stroke-width": cost > 1 ? 14 : 9, "stroke-linecap": "round" }));
      layer.push(s("line", { x1, y1, x2, y2, stroke: companyFill(company), "stroke-width": cost > 1 ? 10 : 5, "stroke-linecap": "round" }));
      if (cost > 1) layer.push(s("line", { x1, y1, x2, y2, stroke: "#b9d8e8", "stroke-width": 3 }));
    }
  }
  // regions (enclaves on top of the region around them)
  const ordered = [...cat.regions].sort((a, b) => (a.enclave_of ? 1 : 0) - (b.enclave_of ? 1 : 0));
  ordered.forEach((r) => {
    const i = cat.regions.indexOf(r);
    const fillc = r.enclave_of ? "#c9b27a" : landColour(r.centre[1], i);
    const rw = rewardText(cat, r.reward);
    layer.push(g({ "data-target": `region:${r.id}`, class: "region-g" },
      s("polygon", { points: points(r.polygon), fill: fillc, class: "region hit" }),
      title(`${r.name} (${r.id}): ${rw}${r.mines ? `; ${r.mines} mine${r.mines > 1 ? "s" : ""}` : ""}${st.owners[r.id] ? `; trading post of ${cat.companies.find((c) => c.id === st.owners[r.id]).name}` : ""}`)));
  });
  // double borders
  for (const e of geo.edges) {
    if (e.cost < 2) continue;
    const d = e.pts.map((p, k) => `${k ? "L" : "M"}${p[0]} ${p[1]}`).join(" ");
    layer.push(s("path", { d, fill: "none", stroke: "#5a4630", "stroke-width": 9, "stroke-linejoin": "round", "pointer-events": "none" }));
    layer.push(s("path", { d, fill: "none", stroke: "#f3e6c4", "stroke-width": 3, "stroke-linejoin": "round", "pointer-events": "none" }));
  }
  // labels, rewards, mines, posts
  const hosts = new Set(cat.regions.map((r) => r.enclave_of).filter(Boolean));
  for (const r of cat.regions) {
    const [cx, cy] = r.centre;
    const small = !!r.enclave_of;
    // a region around an enclave has its centre moved off it, near its edge: lower
    const dy = hosts.has(r.id) ? 16 : 0;
    const parts = [];
    if (small) {
      parts.push(text(cx, cy - 12, r.id, { class: "region-label", "text-anchor": "middle", "font-size": 16 }));
    } else {
      parts.push(text(cx, cy - 30 + dy, r.name, { class: "region-label", "text-anchor": "middle", "font-size": 23 }));
    }
    const rr = small ? 10 : 15;
    const rw = reward(cat, r.reward, 0, 0, rr);
    const owner = st.owners[r.id];
    const rowY = small ? cy + 4 : cy - 2 + dy;
    parts.push(g({ transform: `translate(${cx - rw.width / 2} ${rowY})` }, rw.node));
    for (let m = 0; m < r.mines; m++) {
      const mx = cx + (small ? 16 : 30) + m * 11;
      const my = small ? cy + 24 : cy + 30 + dy;
      parts.push(s("path", { d: `M${mx - 6} ${my + 5} L${mx} ${my - 6} L${mx + 6} ${my + 5} Z`, fill: "#4a4036", stroke: "#f3e6c4", "stroke-width": 1 }));
    }
    const py = small ? cy + 22 : cy + 28 + dy;
    if (owner) {
      const comp = cat.companies.find((c) => c.id === owner);
      parts.push(post(cx, py, small ? 12 : 17, companyFill(comp), comp.colour === "black" ? "#000" : "#1a1a1a"));
    } else {
      parts.push(s("circle", { cx, cy: py, r: small ? 7 : 11, fill: "none", stroke: "#6e5b3c", "stroke-width": 1.5, "stroke-dasharray": "3 3" }));
    }
    layer.push(g({ "pointer-events": "none" }, parts));
  }
  // bases
  for (const company of cat.companies) layer.push(drawBase(cat, st, company, ctx));
  return g({ transform: `translate(${geo.tx} ${geo.ty}) scale(${geo.k})`, id: "map" }, layer);
}

function drawBase(cat, st, company, ctx) {
  const b = baseGeometry(cat, company.id);
  const cols = st.bases[company.id];
  const spaces = cat.base.spaces;
  const coins = cat.base.coins;
  const value = baseValue(cat, cols);
  const posts = cols.reduce((t, c) => t + c[0], 0);
  const parts = [s("rect", { x: b.x - 4, y: b.y - 4, width: b.width + 8, height: b.height + 8, rx: 8, fill: "#f7efdc", stroke: companyFill(company), "stroke-width": 5, class: "hit" })];
  if (company.colour === "white") parts.push(s("rect", { x: b.x - 7, y: b.y - 7, width: b.width + 14, height: b.height + 14, rx: 10, fill: "none", stroke: "#3a2e1f", "stroke-width": 1.5 }));
  const labelY = b.front === "bottom" ? b.y + 16 : b.y + b.height - 26;
  parts.push(text(b.x + b.width / 2, labelY, company.name, { "text-anchor": "middle", "font-size": 16, "font-weight": "bold" }));
  parts.push(text(b.x + b.width / 2, labelY + 19, `value ${value} · ${posts} left`, { "text-anchor": "middle", "font-size": 13, fill: "#5b4a35" }));
  const top = b.front === "bottom" ? b.y + b.label : b.y;
  cols.forEach(([n, dead], k) => {
    const x = b.x + k * (b.space + b.gap);
    const col = [s("rect", { x: x - 2, y: top - 2, width: b.space + 4, height: spaces * b.space + 4, rx: 4, fill: "none", class: "hit" })];
    for (let i = 0; i < spaces; i++) {
      const y = b.front === "bottom" ? top + (spaces - 1 - i) * b.space : top + i * b.space;
      const occupied = dead ? (i >= spaces - 1 - n && i <= spaces - 2) : i >= spaces - n;
      col.push(s("rect", { x: x + 1, y: y + 1, width: b.space - 2, height: b.space - 2, rx: 3, fill: i === spaces - 1 ? "#eadbb8" : "#fbf5e6", stroke: "#b8a47c", "stroke-width": 1 }));
      if (occupied) {
        col.push(post(x + b.space / 2, y + b.space / 2, 11, companyFill(company)));
      } else {
        const c = coins[i];
        for (let j = 0; j < c; j++) col.push(coin(x + b.space / 2 + (c > 1 ? (j - 0.5) * 11 : 0), y + b.space / 2, 6.5));
        if (dead && i === spaces - 1) col.push(s("path", { d: `M${x + 4} ${y + 4} L${x + b.space - 4} ${y + b.space - 4}`, stroke: "#b3261e", "stroke-width": 2 }));
      }
    }
    col.push(title(`${company.name} base, column ${k + 1}: ${n} trading post${n === 1 ? "" : "s"}${dead ? " (rear space emptied)" : ""}`));
    parts.push(g({ "data-target": `col:${company.id}:${k + 1}` }, col));
  });
  parts.push(title(`${company.name} base: ${posts} trading posts left; share value ${value} (the coins showing)`));
  return g({ "data-target": `base:${company.id}` }, parts);
}

export function baseValue(cat, cols) {
  const coins = cat.base.coins;
  const spaces = cat.base.spaces;
  let v = 0;
  for (const [n, dead] of cols) {
    for (let i = 0; i < spaces; i++) {
      const occupied = dead ? (i >= spaces - 1 - n && i <= spaces - 2) : i >= spaces - n;
      if (!occupied) v += coins[i];
    }
  }
  return v;
}

// -- right-hand side: round track, display, bonus spaces, books -------------------------
const RX = 815;

function panelTitle(x, y, str) {
  return text(x, y, str, { class: "title" });
}

export function drawRounds(cat, st) {
  const parts = [panelTitle(RX, 30, "Round")];
  const coinsBy = st.round_coins || [];
  for (let r = 1; r <= 7; r++) {
    const x = RX + 110 + (r - 1) * 88;
    const current = r === st.round;
    parts.push(s("circle", { cx: x, cy: 26, r: 21, fill: current ? "#f5b700" : "#fbf5e6", stroke: current ? "#8a5a00" : "#a89570", "stroke-width": current ? 4 : 2 }));
    parts.push(text(x, 33, r, { "text-anchor": "middle", "font-size": 20, "font-weight": "bold" }));
    if (r >= 2) {
      const n = coinsBy[r - 2] || 0;
      for (let j = 0; j < n; j++) parts.push(coin(x + 30 + j * 9, 36 - j * 6, 8));
    }
  }
  const phase = st.phase === "over" ? "game over" : st.phase;
  parts.push(text(RX + 110 + 7 * 88 - 26, 60, phase, { "font-size": 13, fill: "#5b4a35", "text-anchor": "end" }));
  return g({}, parts);
}

export function drawDisplay(cat, st) {
  const parts = [panelTitle(RX, 92, "Card display"), text(RX + 150, 92, "new cards enter left, age right", { class: "small" })];
  const W = 118;
  const H = 112;
  for (const sp of cat.display.spaces) {
    const x = RX + sp.column * W;
    const y = 104 + sp.row * H;
    const cardName = st.display[sp.name];
    const price = displayPrice(cat, st, sp.name);
    const items = [s("rect", { x, y, width: W - 8, height: H - 8, rx: 8, fill: "#e9dcc0", stroke: "#b8a47c", "stroke-width": 1.5, class: "hit" })];
    items.push(text(x + 6, y + H - 12, sp.name, { "font-size": 16, fill: "#5b4a35" }));
    if (cardName) {
      items.push(card(cat, cardName, x + 5, y + 4, 72));
      items.push(coin(x + 95, y + 24, 14, price));
      items.push(text(x + 95, y + 60, `${sp.modifier >= 0 ? "+" : ""}${sp.modifier}`, { "text-anchor": "middle", "font-size": 16, fill: "#5b4a35" }));
    } else {
      items.push(text(x + (W - 8) / 2, y + H / 2, "empty", { "text-anchor": "middle", "font-size": 13, fill: "#5b4a35" }));
    }
    items.push(title(cardName ? `${sp.name}: ${cardLabel(cat, cardName)}; price £${price} (crate ${cat.cards[cardName].crate} ${sp.modifier >= 0 ? "+" : "−"} ${Math.abs(sp.modifier)})` : `${sp.name}: empty`));
    parts.push(g({ "data-target": `display:${sp.name}` }, items));
  }
  return g({}, parts);
}

function bonusMarker(st, id, x, y, r = 10) {
  const who = st.bonus[id];
  return who ? marker(x, y, r, who - 1) : s("circle", { cx: x, cy: y, r, fill: "none", stroke: "#a89570", "stroke-width": 1.5, "stroke-dasharray": "3 3" });
}

export function drawBonus(cat, st) {
  const parts = [panelTitle(RX + 368, 92, "Bonus spaces")];
  const board = cat.bonus_spaces.filter((b) => b.board);
  const simple = board.filter((b) => ["first_player", "buy_card", "remove_card"].includes(b.kind));
  const tiles = board.filter((b) => b.kind === "bonus_tile");
  const majorities = board.filter((b) => b.kind === "majority");
  const X0 = RX + 368;
  simple.forEach((b, i) => {
    const x = X0 + i * 140;
    const y = 104;
    const items = [s("rect", { x, y, width: 132, height: 80, rx: 8, fill: "#f3e3bf", stroke: "#a8875a", "stroke-width": 1.5, class: "hit" })];
    let label;
    let sub;
    if (b.kind === "first_player") {
      label = "First player";
      items.push(s("path", { d: `M${x + 20} ${y + 60} L${x + 20} ${y + 30} L${x + 36} ${y + 36} L${x + 20} ${y + 42}`, fill: "#c0392b", stroke: "#5e3518", "stroke-width": 2 }));
      items.push(ledger(x + 58, y + 48, 10, (b.reward && b.reward.bookkeeping) || 1));
      sub = "";
    } else if (b.kind === "buy_card") {
      label = "Buy a card";
      items.push(coin(x + 22, y + 48, 11, `+${b.cost}`));
      sub = "price + £" + b.cost;
    } else {
      label = "Remove a card";
      items.push(coin(x + 22, y + 48, 11, `+${b.bonus_pounds}`));
      sub = "crate + £" + b.bonus_pounds;
    }
    items.push(text(x + 8, y + 20, label, { "font-size": 15, "font-weight": "bold" }));
    if (sub) items.push(text(x + 38, y + 50, sub, { "font-size": 15, fill: "#5b4a35" }));
    items.push(bonusMarker(st, b.id, x + 118, y + 66, 10));
    items.push(title(`${label}${st.bonus[b.id] ? ` — taken by P${st.bonus[b.id]}` : ""}`));
    parts.push(g({ "data-target": `bonus:${b.id}` }, items));
  });
  tiles.forEach((b, i) => {
    const x = X0 + i * 105;
    const y = 192;
    const holder = st.player_states.findIndex((p) => p.reserved.includes(b.tile) || p.tiles.includes(b.tile));
    const items = [s("rect", { x, y, width: 98, height: 92, rx: 8, fill: "#ece2f5", stroke: "#8a6fb0", "stroke-width": 1.5, class: "hit" })];
    items.push(text(x + 6, y + 17, "Tile", { "font-size": 12, fill: "#5b4a35" }));
    items.push(coin(x + 80, y + 16, 10, b.cost));
    const tileCard = cat.cards[b.tile];
    if (holder >= 0) {
      items.push(text(x + 49, y + 50, `with P${holder + 1}`, { "text-anchor": "middle", "font-size": 13, fill: PLAYER_FILL[holder], "font-weight": "bold" }));
    } else if (tileCard) {
      items.push(card(cat, b.tile, x + 30, y + 24, 38));
    }
    items.push(text(x + 49, y + 86, tileName(tileCard), { "text-anchor": "middle", "font-size": 11, fill: "#3c2f1d" }));
    items.push(bonusMarker(st, b.id, x + 14, y + 62, 8));
    items.push(title(`Reserve the ${tileName(tileCard)} tile for £${b.cost}${holder >= 0 ? ` (now with P${holder + 1})` : ""}`));
    parts.push(g({ "data-target": `bonus:${b.id}` }, items));
  });
  majorities.forEach((b, i) => {
    const x = X0 + (i % 2) * 212;
    const y = 292 + Math.floor(i / 2) * 136;
    const items = [s("rect", { x, y, width: 204, height: 128, rx: 8, fill: "#efe6cc", stroke: "#a8875a", "stroke-width": 1.5, class: "hit" })];
    items.push(measure(b.measure, x + 20, y + 20, 12));
    items.push(text(x + 38, y + 25, `${b.measure} majority`, { "font-size": 14, "font-weight": "bold" }));
    items.push(bonusMarker(st, b.id, x + 192, y + 18, 8));
    b.lines.forEach((ln, k) => {
      const ly = y + 36 + k * 30;
      const comp = cat.companies.find((c) => c.id === ln.company);
      const line = [s("rect", { x: x + 6, y: ly, width: 192, height: 27, rx: 5, fill: "#fbf5e6", stroke: "#cdbb92", class: "hit" })];
      line.push(text(x + 14, ly + 19, `${ln.min}+`, { "font-size": 14, "font-weight": "bold" }));
      line.push(g({ transform: `translate(${x + 48} ${ly + 13.5})` }, reward(cat, { track: ln.steps, track_company: ln.company }, 0, 0, 10).node));
      const extra = reward(cat, ln.reward, 0, 0, 10);
      line.push(g({ transform: `translate(${x + 78} ${ly + 13.5})` }, extra.node));
      line.push(title(`${ln.min} or more ${b.measure} face up: ${ln.steps} steps on ${comp ? comp.name : ln.company}${Object.keys(ln.reward).length ? ` and ${rewardText(cat, ln.reward)}` : ""}`));
      items.push(g({ "data-target": `line:${b.id}:${ln.min}` }, line));
    });
    parts.push(g({ "data-target": `bonus:${b.id}` }, items));
  });
  return g({}, parts);
}

function tileName(c) {
  if (!c) return "";
  return { plus1_goods: "+1 goods", bookkeeper: "bookkeeper", merchant: "merchant", expansion: "expansion" }[c.kind] || c.kind;
}

export function drawBooks(cat, st) {
  const y0 = 580;
  const parts = [panelTitle(RX, y0 + 8, "Book display"), text(RX + 160, y0 + 8, "take books left to right; coins come with them", { class: "small" })];
  const W = 131;
  const cols = cat.book_display.columns;
  cols.forEach((num, i) => {
    const sp = cat.book_display.spaces.find((x) => x.column === i);
    const x = RX + i * W;
    parts.push(text(x + 6, y0 + 32, `${num}`, { "font-size": 16, "font-weight": "bold", fill: "#5e3518" }));
    parts.push(text(x + 24, y0 + 32, `${sp.letter} · ${sp.cost} pt${sp.cost > 1 ? "s" : ""}`, { "font-size": 12, fill: "#5b4a35" }));
  });
  for (const sp of cat.book_display.spaces) {
    const x = RX + sp.column * W;
    const y = y0 + 40 + sp.row * 130;
    const items = [s("rect", { x, y, width: W - 7, height: 124, rx: 8, fill: "#e9dcc0", stroke: "#b8a47c", "stroke-width": 1.5, class: "hit" })];
    const name = st.book_display[sp.name];
    if (name) items.push(book(cat, name, x + 4, y + 4, 116));
    else items.push(text(x + (W - 7) / 2, y + 55, "empty", { "text-anchor": "middle", "font-size": 13, fill: "#5b4a35" }));
    const coins = st.book_coins[sp.name] || 0;
    for (let j = 0; j < coins; j++) items.push(coin(x + W - 24 - j * 14, y + 111, 9));
    items.push(text(x + 6, y + 119, sp.name, { "font-size": 15, fill: "#5b4a35" }));
    items.push(title(`${sp.name}${name ? `: book ${name}` : ": empty"}${coins ? ` with ${coins} coin${coins > 1 ? "s" : ""} under it` : ""}`));
    parts.push(g({ "data-target": `bookspace:${sp.name}` }, items));
  }
  return g({}, parts);
}

// -- company tracks --------------------------------------------------------------------------
export function drawTracks(cat, st) {
  const y0 = 898;
  const rowH = 56;
  const parts = [];
  const lens = cat.companies.map((c) => (st.tracks[c.id] ? cat.tracks[st.tracks[c.id]].spaces.length : 0));
  const maxLen = Math.max(18, ...lens);
  const x0 = 172;
  const w = (BOARD_W - 10 - x0) / maxLen;
  cat.companies.forEach((company, k) => {
    const y = y0 + k * rowH;
    const tid = st.tracks[company.id];
    const value = baseValue(cat, st.bases[company.id]);
    const head = [s("rect", { x: 4, y, width: x0 - 12, height: rowH - 6, rx: 8, fill: companyFill(company), stroke: "#3a2e1f", "stroke-width": 1.5, class: "hit" }),
      text(14, y + 21, company.name, { "font-size": 16, "font-weight": "bold", fill: companyInk(company) }),
      text(14, y + 41, `${tid || "—"} · share £${value}`, { "font-size": 13, fill: companyInk(company) }),
      title(`${company.name}: track ${tid || "not dealt yet"}; each share is worth £${value} now`)];
    parts.push(g({ "data-target": `company:${company.id}`, class: "track-head" }, head));
    if (!tid) {
      parts.push(text(x0 + 10, y + 30, "track not dealt yet", { "font-size": 14, fill: "#5b4a35" }));
      return;
    }
    const track = cat.tracks[tid];
    const row = [];
    const last = track.spaces.length - 1;
    track.spaces.forEach((sp, i) => {
      const x = x0 + i * w;
      const bonusId = sp.bonus ? `${tid}@${i}` : null;
      const cell = [s("rect", { x: x + 1, y, width: w - 3, height: rowH - 6, rx: 5, fill: i === 0 ? "#e2d4b0" : sp.bonus ? "#f1e2f7" : "#fbf5e6", stroke: "#b8a47c", "stroke-width": 1, class: bonusId ? "hit" : null })];
      cell.push(text(x + 4, y + 12, i === 0 ? "start" : i, { "font-size": 10, fill: "#5b4a35" }));
      let ix = x + 14;
      if (sp.shares) { cell.push(share(ix, y + 25, 9, "#fffdf5", sp.shares)); ix += 22; }
      if (sp.capital) { cell.push(capital(ix, y + 25, 10, sp.capital)); ix += 23; }
      if (Object.keys(sp.special).length) { const r = reward(cat, sp.special, ix - 10, y + 25, 9, company); cell.push(r.node); ix += r.width + 4; }
      if (sp.bonus) {
        cell.push(s("path", { d: star(x + w - 14, y + 13, 8), fill: "#8e44ad", stroke: "#3a1f4d", "stroke-width": 1 }));
        cell.push(bonusMarker(st, bonusId, x + w - 14, y + 13, 10));
      }
      if (sp.extra_marker) cell.push(g({}, marker(x + w - 13, y + 14, 7, -1), text(x + w - 13, y + 18, "+", { "text-anchor": "middle", "font-size": 12, "font-weight": "bold", fill: "#fff" })));
      const desc = [i === 0 ? "start" : `space ${i}`];
      if (sp.shares) desc.push(`${sp.shares} share${sp.shares > 1 ? "s" : ""}`);
      if (sp.capital) desc.push(`capital call £${sp.capital}`);
      if (Object.keys(sp.special).length) desc.push(`pays ${rewardText(cat, sp.special)} once`);
      if (sp.bonus) desc.push(`track bonus space: ${rewardText(cat, sp.bonus)}`);
      if (sp.extra_marker) desc.push("one more bonus marker");
      if (i === last && track.end_pounds) desc.push(`beyond: £${track.end_pounds} per step`);
      cell.push(title(`${company.name} track ${tid}, ${desc.join("; ")}`));
      row.push(bonusId ? g({ "data-target": `bonus:${bonusId}` }, cell) : g({}, cell));
    });
    // markers of the players
    st.player_states.forEach((p, pi) => {
      const pos = Math.min(p.track[company.id], last);
      const x = x0 + pos * w + 10 + pi * 12.5;
      row.push(g({}, marker(x, y + rowH - 16, 7, pi), title(`P${pi + 1} on ${company.name} space ${p.track[company.id]}`)));
    });
    parts.push(g({ "data-target": `company:${company.id}` }, s("rect", { x: x0 - 2, y: y - 2, width: w * track.spaces.length + 2, height: rowH - 2, rx: 6, fill: "none", class: "hit" }), row));
  });
  return g({}, parts);
}

function star(cx, cy, r) {
  const pts = [];
  for (let i = 0; i < 10; i++) {
    const a = -Math.PI / 2 + (i * Math.PI) / 5;
    const rr = i % 2 ? r * 0.45 : r;
    pts.push(`${cx + rr * Math.cos(a)} ${cy + rr * Math.sin(a)}`);
  }
  return `M${pts.join(" L")} Z`;
}

/** The board before the first deal: every base full, nothing dealt (first-game tracks). */
export function emptyState(cat) {
  return {
    round: 0, phase: "setup", first: 1, next_first: null, owners: Object.fromEntries(cat.regions.map((r) => [r.id, null])),
    bases: Object.fromEntries(cat.companies.map((c) => [c.id, Array.from({ length: cat.base.columns }, () => [cat.base.spaces, false])])),
    display: Object.fromEntries(cat.display.spaces.map((x) => [x.name, null])),
    book_display: Object.fromEntries(cat.book_display.spaces.map((x) => [x.name, null])),
    book_coins: Object.fromEntries(cat.book_display.spaces.map((x) => [x.name, 0])),
    round_coins: cat.round_coins["2"] || [], bonus: Object.fromEntries(cat.bonus_spaces.map((b) => [b.id, null])),
    tracks: cat.first_game_tracks, player_states: [], pending: [],
  };
}

// -- zoom and pan (layout.js): the part of the board shown, null = all of it --------------
let shownBox = null;

/** The board's visible box [x, y, w, h] in board units. */
export function boardBox() {
  return shownBox || [0, 0, BOARD_W, BOARD_H];
}

/** Show a part of the board (kept across redraws; null: the whole board). */
export function setBoardBox(svg, box) {
  if (box) {
    const [, , w, h] = box;
    const x = Math.min(Math.max(box[0], -w / 2), BOARD_W - w / 2);
    const y = Math.min(Math.max(box[1], -h / 2), BOARD_H - h / 2);
    shownBox = [x, y, w, h].map((v) => Math.round(v * 10) / 10);
  } else {
    shownBox = null;
  }
  document.body.classList.toggle("zoomed", !!shownBox);
  svg.setAttribute("viewBox", boardBox().join(" "));
}

/** Draw the whole shared board into the <svg id="board">. */
export function renderBoard(svg, ctx) {
  const { cat, st } = ctx;
  svg.setAttribute("viewBox", boardBox().join(" "));
  const defs = s("defs", {},
    s("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 6, refY: 5, markerWidth: 4, markerHeight: 4, orient: "auto-start-reverse" },
      s("path", { d: "M0 0 L10 5 L0 10 z", fill: "#ff5a00" })));
  svg.replaceChildren(defs,
    s("rect", { x: 0, y: 0, width: BOARD_W, height: BOARD_H, fill: "#efe4cc" }),
    drawMap(cat, st, ctx),
    drawRounds(cat, st),
    drawDisplay(cat, st),
    drawBonus(cat, st),
    drawBooks(cat, st),
    drawTracks(cat, st),
    g({ id: "overlay", "pointer-events": "none" }));
}

/** Cost badges on the regions that can be entered now ({regionId: cost}). */
export function drawCosts(svg, cat, costs) {
  const overlay = svg.querySelector("#overlay");
  if (!overlay) return;
  for (const [rid, cost] of Object.entries(costs)) {
    const r = cat.regions.find((x) => x.id === rid);
    if (!r) continue;
    const [x, y] = mapPoint(cat, [r.centre[0] - (r.enclave_of ? 22 : 34), r.centre[1] + (r.enclave_of ? 20 : 28)]);
    // a dark tag with its word, unlike the gold coins of the rewards
    overlay.append(g({ class: "cost-badge" }, s("rect", { x: x - 30, y: y - 13, width: 60, height: 26, rx: 4 }),
      text(x, y + 6, `cost ${cost}`, { "text-anchor": "middle" }),
      title(`costs ${cost} expansion point${cost > 1 ? "s" : ""}`)));
  }
}

/** Arrows on the map for an expansion route: [[fromPoint, toPoint] in map units]. */
export function drawRoute(svg, cat, segments) {
  const overlay = svg.querySelector("#overlay");
  if (!overlay) return;
  for (const [a, b] of segments) {
    const [x1, y1] = mapPoint(cat, a);
    const [x2, y2] = mapPoint(cat, b);
    const dx = x2 - x1;
    const dy = y2 - y1;
    const len = Math.hypot(dx, dy) || 1;
    const sx = x1 + (dx / len) * 8;
    const sy = y1 + (dy / len) * 8;
    const ex = x2 - (dx / len) * 14;
    const ey = y2 - (dy / len) * 14;
    overlay.append(s("path", { d: `M${sx} ${sy} L${ex} ${ey}`, class: "route hint-route" }));
  }
}

export function clearOverlay(svg, cls) {
  const overlay = svg.querySelector("#overlay");
  if (!overlay) return;
  for (const n of [...overlay.querySelectorAll(`.${cls}`)]) n.remove();
}

