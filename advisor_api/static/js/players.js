// Each player's board: hand, action slots with their resting decks, bonus tiles, the
// diamond track and the bookkeeping track with its books and ink jar; cash, markers and
// the provisional score.
//
// Click targets: hand:<seat>:<card>, slot:<seat>:<n>, card:<seat>:<card> (in the action
// area), deck:<seat>:<n>, bk:<seat>:<n>.

import { s, g, text, title, coin, diamond, ledger, marker, PLAYER_FILL, PLAYER_NAMES, share, companyFill } from "./svg.js";
import { card, book } from "./cards.js";
import { cardLabel } from "./steps.js";

export const PLAYER_W = 1600;
export const PLAYER_H = 300;

/** What the identity part of a board says: who plays it, badges, the score so far. */
function identityFacts(ctx, i, p) {
  const { st, view } = ctx;
  const seat = view.seats[i];
  const who = seat.kind === "ai" ? `AI · ${seat.bot}` : i + 1 === ctx.homeSeat ? "you" : "human";
  const badges = [];
  if (st.first === i + 1) badges.push("first player");
  if (st.next_first === i + 1) badges.push("first next round");
  if (p.ended) badges.push("ended this round");
  if (st.phase !== "over" && view.decision.seat === i + 1) badges.push("to decide");
  const score = view.score[i];
  const held = score ? Object.entries(score.companies).filter(([, c]) => c.shares > 0) : [];
  const sharesPounds = score ? Object.values(score.companies).reduce((t, c) => t + c.pounds, 0) : 0;
  return { who, badges, score, held, sharesPounds };
}

function badge(b, x, y, w) {
  return [s("rect", { x, y, width: w, height: 19, rx: 9, fill: b === "to decide" ? "#f5b700" : "#e6d8b5" }),
    text(x + w / 2, y + 14, b, { "text-anchor": "middle", "font-size": 12, "font-weight": "bold", fill: "#3c2f1d" })];
}

function markers(p, i, x0, y) {
  const out = [];
  for (let m = 0; m < p.markers_total; m++) {
    const x = x0 + m * 17;
    if (m < p.markers) out.push(marker(x, y, 7, i));
    else out.push(s("circle", { cx: x, cy: y, r: 7, fill: "none", stroke: "#a89570", "stroke-dasharray": "2 2" }));
  }
  return out;
}

function shareIcons(ctx, held, x, y) {
  const out = [];
  for (const [cid, c] of held) {
    const comp = ctx.cat.companies.find((k) => k.id === cid);
    out.push(share(x, y, 9, companyFill(comp), c.shares, comp.colour === "black" || comp.colour === "red" ? "#fff" : "#2a2118"));
    x += 24;
  }
  if (held.length) out.push(title(held.map(([cid, c]) => `${cid}: ${c.shares} × £${c.value}`).join(", ")));
  return out;
}

function identity(ctx, i, p) {
  const f = identityFacts(ctx, i, p);
  const parts = [
    s("rect", { x: 4, y: 4, width: 222, height: PLAYER_H - 8, rx: 10, fill: "#fbf5e6", stroke: "#b8a47c" }),
    s("rect", { x: 4, y: 4, width: 14, height: PLAYER_H - 8, rx: 6, fill: PLAYER_FILL[i] }),
    text(28, 36, `P${i + 1}`, { "font-size": 28, "font-weight": "bold", fill: PLAYER_FILL[i] }),
  ];
  parts.push(text(80, 34, f.who, { "font-size": 14, fill: "#5b4a35" }));
  parts.push(coin(46, 76, 20, p.cash));
  parts.push(text(74, 72, "cash", { "font-size": 12, fill: "#5b4a35" }));
  parts.push(text(74, 90, `£${p.cash}`, { "font-size": 16, "font-weight": "bold" }));
  // bonus markers left
  parts.push(text(130, 72, "markers", { "font-size": 12, fill: "#5b4a35" }), ...markers(p, i, 138, 86));
  f.badges.forEach((b, k) => parts.push(...badge(b, 26, 112 + k * 22, 190)));
  if (f.score) {
    const y = 206;
    parts.push(text(26, y, `${ctx.view.over ? "Final" : "Score now"}: ${f.score.total}`, { "font-size": 17, "font-weight": "bold" }));
    parts.push(text(26, y + 20, `cash ${f.score.cash} · shares ${f.sharesPounds}`, { "font-size": 12, fill: "#5b4a35" }));
    parts.push(text(26, y + 37, `diamonds ${f.score.diamonds} · books ${f.score.bookkeeping}`, { "font-size": 12, fill: "#5b4a35" }));
    parts.push(...shareIcons(ctx, f.held, 34, y + 62));
  }
  return g({}, parts, title(`P${i + 1} (${PLAYER_NAMES[i]}), ${f.who}`));
}

/** The identity of a stacked board: a strip across its top (STRIP_H high). */
function identityStrip(ctx, i, p) {
  const f = identityFacts(ctx, i, p);
  const parts = [
    s("rect", { x: 4, y: 4, width: STACK_W - 8, height: STRIP_H - 8, rx: 10, fill: "#fbf5e6", stroke: "#b8a47c" }),
    s("rect", { x: 4, y: 4, width: 14, height: STRIP_H - 8, rx: 6, fill: PLAYER_FILL[i] }),
    text(28, 38, `P${i + 1}`, { "font-size": 28, "font-weight": "bold", fill: PLAYER_FILL[i] }),
    text(74, 34, f.who, { "font-size": 14, fill: "#5b4a35", textLength: f.who.length > 20 ? 170 : null, lengthAdjust: "spacingAndGlyphs" }),
    coin(272, 30, 18, p.cash),
    text(296, 26, "cash", { "font-size": 12, fill: "#5b4a35" }),
    text(296, 44, `£${p.cash}`, { "font-size": 16, "font-weight": "bold" }),
    text(350, 24, "markers", { "font-size": 12, fill: "#5b4a35" }),
    ...markers(p, i, 358, 38),
  ];
  f.badges.slice(0, 3).forEach((b, k) => parts.push(...badge(b, 26 + k * 124, 52, 118)));
  if (f.score) {
    parts.push(text(26, 94, `${ctx.view.over ? "Final" : "Score now"}: ${f.score.total}`, { "font-size": 15, "font-weight": "bold" }));
    parts.push(text(154, 93, `cash ${f.score.cash} · shares ${f.sharesPounds} · diamonds ${f.score.diamonds} · books ${f.score.bookkeeping}`,
      { "font-size": 12, fill: "#5b4a35" }));
    parts.push(...shareIcons(ctx, f.held, 470, 88));
  }
  return g({}, parts, title(`P${i + 1} (${PLAYER_NAMES[i]}), ${f.who}`));
}

function handRow(ctx, i, p) {
  const seat = i + 1;
  const parts = [text(242, 22, `Hand (${p.hand.length})`, { "font-size": 14, "font-weight": "bold", fill: "#5e3518" })];
  const n = p.hand.length;
  const step = n ? Math.min(62, 540 / n) : 62;
  p.hand.forEach((name, k) => {
    const sel = ctx.selected === name && ctx.decisionSeat === seat;
    parts.push(card(ctx.cat, name, 242 + k * step, 28, 56, { target: `hand:${seat}:${name}`, cls: sel ? "selected" : null }));
  });
  if (!n) parts.push(text(242, 70, "no cards", { "font-size": 13, fill: "#5b4a35" }));
  return g({}, parts);
}

function slots(ctx, i, p) {
  const { cat } = ctx;
  const seat = i + 1;
  const parts = [];
  const max = cat.player.max_slots;
  const diamondOpen = p.diamond >= cat.diamond_track.slot_unlock;
  const inkOpen = p.ink >= cat.bookkeeping_track.slot_unlock;
  for (let k = 0; k < max; k++) {
    const x = 242 + k * 108;
    const y = 118;
    const locked = (k === 0 && !diamondOpen) || (k === max - 1 && !inkOpen);
    const slot = [s("rect", { x, y, width: 100, height: 124, rx: 8, fill: locked ? "#e4dccb" : "#efe2c2", stroke: "#a8875a", "stroke-width": 1.5, "stroke-dasharray": locked ? "5 4" : null, class: "hit" })];
    slot.push(text(x + 6, y + 15, `slot ${k + 1}`, { "font-size": 12, fill: "#5b4a35" }));
    if (k === 0) slot.push(diamond(x + 88, y + 11, 7));
    if (k === max - 1) slot.push(ledger(x + 88, y + 11, 6));
    const c = p.slots[k];
    if (c) {
      slot.push(card(cat, c, x + 14, y + 20, 74, { used: p.used.includes(c), plus1: p.plus1_on === c, target: c === "hidden" ? null : `card:${seat}:${c}` }));
    } else if (locked) {
      slot.push(text(x + 50, y + 60, "opens at the", { "text-anchor": "middle", "font-size": 11, fill: "#5b4a35" }),
        text(x + 50, y + 76, k === 0 ? "diamond +slot" : "ink jar +slot", { "text-anchor": "middle", "font-size": 11, fill: "#5b4a35" }));
    }
    slot.push(title(`Action slot ${k + 1}${locked ? " (locked)" : ""}${c ? `: ${cardLabel(cat, c)}` : ""}`));
    parts.push(g({ "data-target": `slot:${seat}:${k + 1}` }, slot));
    // resting deck below
    const deck = p.resting[k] || [];
    const dy = 248;
    const d = [s("rect", { x, y: dy, width: 100, height: 46, rx: 6, fill: deck.length ? "#e6d3ad" : "#f1e9d6", stroke: "#a8875a", "stroke-width": 1, class: "hit" })];
    d.push(text(x + 5, dy + 13, `deck ${k + 1}${deck.length ? ` · ${deck.length}` : ""}`, { "font-size": 11, fill: "#5b4a35" }));
    deck.slice(0, 4).forEach((name, j) => {
      const cx = x + 4 + (j % 2) * 48;
      const cy = dy + 17 + Math.floor(j / 2) * 14;
      d.push(s("rect", { x: cx, y: cy, width: 45, height: 12, rx: 3, fill: chipColour(cat, name), stroke: "#6b5a40", "stroke-width": 0.6 }));
      const chip = chipName(cat, name);
      d.push(text(cx + 22.5, cy + 10, chip, { "text-anchor": "middle", "font-size": 9.5, fill: "#1c140c", textLength: chip.length > 6 ? 41 : null, lengthAdjust: "spacingAndGlyphs" }));
    });
    if (deck.length > 4) d.push(text(x + 96, dy + 13, `+${deck.length - 4}`, { "text-anchor": "end", "font-size": 11 }));
    d.push(title(`Resting deck ${k + 1}: ${deck.length ? deck.map((nme) => cardLabel(cat, nme)).join(", ") : "empty"}`));
    parts.push(g({ "data-target": `deck:${seat}:${k + 1}` }, d));
  }
  // tiles in the action area and reserved ones
  const tx = 242 + max * 108 + 4;
  parts.push(text(tx, 132, "Tiles", { "font-size": 12, fill: "#5b4a35" }));
  const tiles = [...p.tiles.map((t) => [t, false]), ...p.reserved.filter((t) => !p.tiles.includes(t)).map((t) => [t, true])];
  tiles.forEach(([name, reserved], k) => {
    const x = tx + (k % 2) * 48;
    const y = 138 + Math.floor(k / 2) * 62;
    parts.push(card(cat, name, x, y, 44, { used: p.used.includes(name), target: reserved ? null : `card:${seat}:${name}` }));
    if (reserved) parts.push(text(x + 22, y + 60, "next round", { "text-anchor": "middle", "font-size": 8, fill: "#5b4a35" }));
  });
  if (!tiles.length) parts.push(text(tx, 150, "none", { "font-size": 11, fill: "#5b4a35" }));
  return g({}, parts);
}

/** A card's short name on a resting-deck chip ("coffee 2", "expand 3"), not its code. */
function chipName(cat, name) {
  const c = cat.cards[name];
  if (!c) return name === "hidden" ? "hidden" : name;
  if (c.kind === "goods") return `${{ coffee: "coffee", bananas: "banana", cotton: "cotton" }[c.good] || c.good} ${c.value}`;
  if (c.kind === "expansion") return `expand ${c.value}`;
  if (c.kind === "bookkeeper") return `books ${c.value}`;
  if (c.kind === "plus1_goods") return "+1 goods";
  return { merchant: "merchant", share: "share" }[c.kind] || c.kind;
}

function chipColour(cat, name) {
  const c = cat.cards[name];
  if (!c) return "#ccc";
  if (c.kind === "goods") return { coffee: "#d9b48f", bananas: "#f5e27a", cotton: "#f2f2ee" }[c.good];
  return { expansion: "#d7c99a", bookkeeper: "#b9cbe6", merchant: "#a9e0e6", share: "#e8d9f0" }[c.kind] || "#ddd";
}

function tracks(ctx, i, p) {
  const { cat } = ctx;
  const seat = i + 1;
  const parts = [];
  const X = 966;
  const W = 48;
  const dv = cat.diamond_track.values;
  parts.push(text(X, 20, "Diamond track", { "font-size": 13, "font-weight": "bold", fill: "#1f7f98" }));
  dv.forEach((v, k) => {
    const x = X + k * W;
    const here = p.diamond === k;
    parts.push(s("rect", { x, y: 26, width: W - 3, height: 44, rx: 5, fill: here ? "#c9f0f7" : "#eef7f8", stroke: here ? "#1f7f98" : "#9cc4cc", "stroke-width": here ? 3 : 1 }));
    parts.push(text(x + (W - 3) / 2, 43, v, { "text-anchor": "middle", "font-size": 13, "font-weight": "bold", fill: "#0c3f4d" }));
    if (k === cat.diamond_track.slot_unlock) parts.push(text(x + (W - 3) / 2, 66, "+slot", { "text-anchor": "middle", "font-size": 9, fill: "#1f7f98" }));
    if (here) parts.push(diamond(x + (W - 3) / 2, 56, 8));
  });
  parts.push(title(`Diamond track: P${seat} at space ${p.diamond}, worth £${dv[p.diamond]} at the end`));
  // bookkeeping
  const bv = cat.bookkeeping_track.values;
  const crossed = new Set(cat.bookkeeping_track.crossed_a);
  parts.push(text(X, 92, "Bookkeeping track", { "font-size": 13, "font-weight": "bold", fill: "#3f6fb0" }));
  parts.push(text(X + 150, 92, "books ahead of the ink jar are the next to fulfil", { "font-size": 11, fill: "#5b4a35" }));
  bv.forEach((v, k) => {
    const x = X + k * W;
    const y = 98;
    const here = p.ink === k;
    const cell = [s("rect", { x, y, width: W - 3, height: 196, rx: 5, fill: here ? "#dbe7f8" : "#f3f5fa", stroke: here ? "#3f6fb0" : "#b5c3dc", "stroke-width": here ? 3 : 1, class: "hit" })];
    // the space's number (what "place B20 9" names) big, its value at the end small
    cell.push(text(x + (W - 3) / 2, y + 16, k === 0 ? "tile" : k, { "text-anchor": "middle", "font-size": 14, "font-weight": "bold", fill: "#1d3f6e" }));
    cell.push(text(x + 4, y + 30, `£${v}`, { "font-size": 10, fill: "#4a5568" }));
    if (crossed.has(k)) cell.push(g({}, text(x + W - 8, y + 30, "A", { "text-anchor": "end", "font-size": 11, "font-weight": "bold", fill: "#b3261e" }), s("line", { x1: x + W - 20, y1: y + 28, x2: x + W - 7, y2: y + 20, stroke: "#b3261e", "stroke-width": 1.5 })));
    if (k === cat.bookkeeping_track.slot_unlock) cell.push(text(x + (W - 3) / 2, y + 190, "+slot", { "text-anchor": "middle", "font-size": 9, fill: "#3f6fb0" }));
    const stack = p.books[k] || [];
    stack.forEach((name, j) => {
      cell.push(book(cat, name, x + 2, y + 36 + j * 10, W - 7, { faceDown: p.flipped.includes(name) }));
    });
    if (here) {
      // the ink jar
      const jx = x + (W - 3) / 2;
      const jy = y + 36 + stack.length * 10 + (stack.length ? 40 : 18);
      cell.push(s("path", { d: `M${jx - 9} ${jy + 14} L${jx - 9} ${jy} Q${jx - 9} ${jy - 6} ${jx - 4} ${jy - 7} L${jx - 4} ${jy - 12} L${jx + 4} ${jy - 12} L${jx + 4} ${jy - 7} Q${jx + 9} ${jy - 6} ${jx + 9} ${jy} L${jx + 9} ${jy + 14} Z`, fill: "#1b1b2e", stroke: "#000" }));
      cell.push(text(jx, jy + 28, "ink", { "text-anchor": "middle", "font-size": 10, fill: "#1b1b2e" }));
    }
    cell.push(title(`Bookkeeping space ${k} (worth £${v} at the end)${stack.length ? `: ${stack.join(", ")}` : ""}${here ? " — the ink jar is here" : ""}`));
    parts.push(g({ "data-target": `bk:${seat}:${k}` }, cell));
  });
  return g({}, parts);
}

/** A player's diamond and bookkeeping tracks (x 966..1600 of a player board): p needs diamond, ink, books, flipped. */
export { tracks as playerTracks };

// A narrow screen (layout.js NARROW) stacks a board: its identity as a strip across
// the top, the hand and the slots (x 242..882 of the wide board) under it, the diamond
// and bookkeeping tracks (x 966..1590) at the bottom, so that a tablet shows it whole at
// its width and a phone needs less sideways scrolling.
const STACK_W = 648;
const STRIP_H = 104;
const HAND_X = 242;
const TRACKS_X = 966;

/** One SVG per player into #players (the viewed player's first); ``stacked``: the
 * narrow screen's board, tracks under the slots. */
export function renderPlayers(container, ctx, stacked = false) {
  const { st } = ctx;
  const order = st.player_states.map((_, i) => i);
  const home = (ctx.viewSeat || 1) - 1;
  order.sort((a, b) => (a === home ? -1 : b === home ? 1 : a - b));
  const [w, ht] = stacked ? [STACK_W, STRIP_H + 2 * PLAYER_H] : [PLAYER_W, PLAYER_H];
  const nodes = order.map((i) => {
    const p = st.player_states[i];
    let parts = [identity(ctx, i, p), handRow(ctx, i, p), slots(ctx, i, p), tracks(ctx, i, p)];
    if (stacked) {
      const [, hand, slotsPart, trk] = parts;
      const middle = g({ transform: `translate(${4 - HAND_X} ${STRIP_H})` }, hand, slotsPart);
      trk.setAttribute("transform", `translate(${4 - TRACKS_X} ${STRIP_H + PLAYER_H})`);
      parts = [identityStrip(ctx, i, p), middle, trk];
    }
    return s("svg", { viewBox: `0 0 ${w} ${ht}`, class: i === home ? "me" : null, "data-player": i + 1, role: "group", "aria-label": `Board of P${i + 1}` },
      s("rect", { x: 0, y: 0, width: w, height: ht, fill: "#f3ead6" }), ...parts);
  });
  container.replaceChildren(...nodes);
}
