// Action cards, starting cards, bonus tiles and books, drawn in SVG.

import { s, g, text, title, measure, ledger, diamond, share, crate, companyFill, companyInk, reward, rewardText } from "./svg.js";
import { cardLabel } from "./steps.js";

const CARD_W = 100;
const CARD_H = 130;

const BG = {
  coffee: "#e3c7a8", bananas: "#f8e796", cotton: "#eef0f3",
  expansion: "#ddd2a8", bookkeeper: "#c3d3ea", merchant: "#b4e3e8", plus1_goods: "#e3d7f1",
};
const HEAD = {
  coffee: "#8a5a3b", bananas: "#6e5900", cotton: "#545b69",
  expansion: "#8c7442", bookkeeper: "#3f6fb0", merchant: "#1f7f98", plus1_goods: "#7a5aa6",
};

function companyOf(cat, id) {
  return cat.companies.find((c) => c.id === id);
}

/**
 * A card at (x, y), `width` wide (height in proportion 100:130).
 * opts: {used, hidden, target, plus1}
 */
export function card(cat, name, x, y, width, opts = {}) {
  const k = width / CARD_W;
  const parts = [];
  const info = cat.cards[name];
  const frame = { x: 0, y: 0, width: CARD_W, height: CARD_H, rx: 9 };
  if (!info || name === "hidden" || opts.hidden) {
    parts.push(s("rect", { ...frame, fill: "#7b4a24", stroke: "#3a2414", "stroke-width": 2.5, class: "hit" }),
      s("rect", { x: 8, y: 8, width: CARD_W - 16, height: CARD_H - 16, rx: 6, fill: "none", stroke: "#c99a4b", "stroke-width": 2, "stroke-dasharray": "6 4" }),
      text(50, 72, "?", { "text-anchor": "middle", "font-size": 44, "font-weight": "bold", fill: "#f0d9a8" }),
      title("a card you cannot see yet"));
    return g({ transform: `translate(${x} ${y}) scale(${k})`, "data-target": opts.target || null }, parts);
  }
  const key = info.kind === "goods" ? info.good : info.kind;
  let bg = BG[key] || "#eee";
  let head = HEAD[key] || "#777";
  if (info.kind === "share") {
    const comp = companyOf(cat, info.share);
    head = comp ? companyFill(comp) : "#777";
    bg = "#f6f1e4";
  }
  parts.push(s("rect", { ...frame, fill: bg, stroke: "#3a2e1f", "stroke-width": 2.5, class: "hit" }),
    s("path", { d: `M0 9 Q0 0 9 0 L91 0 Q100 0 100 9 L100 26 L0 26 Z`, fill: head }),
    text(6, 20, name, { "font-size": 19, "font-weight": "bold", textLength: name.length > 5 ? 66 : null, lengthAdjust: "spacingAndGlyphs", fill: info.kind === "share" && companyOf(cat, info.share) ? companyInk(companyOf(cat, info.share)) : "#fff" }));
  if (info.letter !== "T") parts.push(crate(87, 13, 12, info.crate));
  const cx = 50;
  const cy = 66;
  let label = info.kind;
  switch (info.kind) {
    case "goods":
      parts.push(measure(info.good, cx, cy, 25, info.value + (opts.plus1 ? 1 : 0)));
      label = info.good;
      break;
    case "expansion":
      parts.push(measure("expansion", cx, cy + 4, 27, info.value));
      break;
    case "bookkeeper":
      parts.push(ledger(cx, cy, 22, info.value));
      break;
    case "merchant": {
      const comp = info.company ? companyOf(cat, info.company) : null;
      if (comp) {
        parts.push(s("rect", { x: 14, y: cy - 30, width: 72, height: 60, rx: 8, fill: companyFill(comp), stroke: "#3a2e1f", "stroke-width": 1.5, opacity: 0.9 }));
      }
      parts.push(diamond(cx, cy, 24, info.letter === "T" ? info.value : null));
      label = comp ? `${comp.id} merchant` : "merchant";
      break;
    }
    case "share": {
      const comp = companyOf(cat, info.share);
      parts.push(share(cx, cy, 26, comp ? companyFill(comp) : "#fff", 1, comp ? companyInk(comp) : "#000"));
      label = comp ? `${comp.id} share` : "share";
      break;
    }
    case "plus1_goods":
      parts.push(text(cx, cy + 12, "+1", { "text-anchor": "middle", "font-size": 40, "font-weight": "bold", fill: "#4b2f7a" }));
      label = "+1 goods";
      break;
    default:
      break;
  }
  parts.push(text(50, 118, label, { "text-anchor": "middle", "font-size": 14, fill: "#2a2118" }));
  if (info.share && info.kind !== "share") {
    const comp = companyOf(cat, info.share);
    parts.push(share(84, 96, 10, comp ? companyFill(comp) : "#fff", null));
  }
  if (opts.plus1) parts.push(text(16, 104, "+1", { "font-size": 16, "font-weight": "bold", fill: "#4b2f7a" }));
  if (opts.used) {
    parts.push(s("rect", { ...frame, fill: "#4a3a2a", opacity: 0.55 }),
      text(50, 72, "used", { "text-anchor": "middle", "font-size": 22, "font-weight": "bold", fill: "#fff", transform: "rotate(-25 50 70)" }));
  }
  parts.push(title(cardLabel(cat, name) + (opts.used ? " — used this round (face down)" : "")));
  return g({ transform: `translate(${x} ${y}) scale(${k})`, "data-target": opts.target || null, class: opts.cls || null }, parts);
}

export const cardHeight = (width) => (width * CARD_H) / CARD_W;

const BOOK_W = 110;
const BOOK_H = 92;
const BOOK_BG = { A: "#f6ecd3", B: "#ecdcb8", C: "#e2c99a" };

/** A book at (x, y), `width` wide. opts: {faceDown, target} */
export function book(cat, name, x, y, width, opts = {}) {
  const k = width / BOOK_W;
  const info = cat.books[name];
  const parts = [];
  const letter = info ? info.letter : "?";
  if (!info || opts.faceDown) {
    parts.push(s("rect", { x: 0, y: 0, width: BOOK_W, height: BOOK_H, rx: 6, fill: "#6b4a2a", stroke: "#2e1e10", "stroke-width": 2, class: "hit" }),
      text(55, 56, letter, { "text-anchor": "middle", "font-size": 34, "font-weight": "bold", fill: "#d7b98a" }),
      title(`${name} (face down: no reward)`));
    return g({ transform: `translate(${x} ${y}) scale(${k})`, "data-target": opts.target || null }, parts);
  }
  parts.push(s("rect", { x: 0, y: 0, width: BOOK_W, height: BOOK_H, rx: 6, fill: BOOK_BG[letter] || "#eee", stroke: "#5b4026", "stroke-width": 2, class: "hit" }),
    s("rect", { x: 0, y: 0, width: 12, height: BOOK_H, rx: 4, fill: "#8a5a3b" }),
    s("circle", { cx: 27, cy: 17, r: 12, fill: "#5e3518" }),
    text(27, 22, letter, { "text-anchor": "middle", "font-size": 16, "font-weight": "bold", fill: "#fbecd0" }),
    text(106, 22, name, { "text-anchor": "end", "font-size": 18, fill: "#5b4a35" }));
  // needs
  let nx = 26;
  for (const [m, n] of info.needs) {
    parts.push(measure(m, nx, 48, 12, n));
    nx += 30;
  }
  if (!info.needs.length) parts.push(text(26, 53, "no needs", { "font-size": 12, fill: "#5b4a35" }));
  // reward
  const rw = reward(cat, info.reward, 20, 76, 11);
  parts.push(text(14, 81, "→", { "font-size": 14, fill: "#5e3518" }), rw.node);
  parts.push(title(`${name}: needs ${info.needs.map(([m, n]) => `${n} ${m}`).join(" + ") || "nothing"}; reward ${rewardText(cat, info.reward)}`));
  return g({ transform: `translate(${x} ${y}) scale(${k})`, "data-target": opts.target || null }, parts);
}

export const bookHeight = (width) => (width * BOOK_H) / BOOK_W;
