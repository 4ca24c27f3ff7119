// Small helpers to build SVG and HTML, and the icons of the game (coins, diamonds,
// bookkeeping points, goods, helmets, shares, trading posts) drawn in plain SVG.

export const NS = "http://www.w3.org/2000/svg";

function fill(node, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    node.append(typeof c === "object" ? c : document.createTextNode(String(c)));
  }
  return node;
}

/** An SVG element: s("rect", {x: 1, class: "a"}, child...). */
export function s(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    node.setAttribute(k, v === true ? "" : String(v));
  }
  return fill(node, children);
}

/** An HTML element: h("button", {class: "x", onclick: fn}, "text"). */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  return fill(node, children);
}

export function text(x, y, str, attrs = {}) {
  return s("text", { x, y, ...attrs }, str);
}

export function g(attrs, ...children) {
  return s("g", attrs, ...children);
}

export function title(str) {
  return s("title", {}, str);
}

export const COMPANY_FILL = { black: "#2d2d2d", red: "#c0392b", white: "#f7f4ec", orange: "#e67e22" };
export const COMPANY_INK = { black: "#ffffff", red: "#ffffff", white: "#2a2118", orange: "#2a2118" };
export const PLAYER_FILL = ["#2e6fd1", "#2f9e44", "#8e44ad", "#d4a017"];
export const PLAYER_NAMES = ["blue", "green", "purple", "yellow"];
export const MEASURE_FILL = {
  coffee: "#6f4e37", bananas: "#f1c40f", cotton: "#fbfbf7", expansion: "#b49a5e", bookkeeping: "#3f6fb0",
};
export const MEASURE_INK = {
  coffee: "#fff", bananas: "#2a2118", cotton: "#2a2118", expansion: "#2a2118", bookkeeping: "#fff",
};

export function companyFill(company) { return COMPANY_FILL[company.colour] || company.colour; }
export function companyInk(company) { return COMPANY_INK[company.colour] || "#fff"; }

function num(x, y, n, size, colour, weight = "bold") {
  return text(x, y, n, {
    "text-anchor": "middle", "dominant-baseline": "central", "font-size": size,
    "font-weight": weight, fill: colour, "pointer-events": "none",
  });
}

/** A coin with a number (pounds). */
export function coin(x, y, r, n = null) {
  return g({}, s("circle", { cx: x, cy: y, r, fill: "#f2c14e", stroke: "#9a6d0b", "stroke-width": Math.max(1, r / 7) }),
    s("circle", { cx: x, cy: y, r: r * 0.72, fill: "none", stroke: "#c9961f", "stroke-width": Math.max(0.6, r / 12) }),
    n === null ? null : num(x, y + r * 0.04, n, r * 1.15, "#5b3d00"));
}

/** A diamond with a number. */
export function diamond(x, y, r, n = null) {
  const pts = [[x, y - r], [x + r * 0.9, y - r * 0.2], [x, y + r], [x - r * 0.9, y - r * 0.2]];
  return g({}, s("polygon", { points: pts.map((p) => p.join(",")).join(" "), fill: "#8fdcef", stroke: "#1f7f98", "stroke-width": Math.max(1, r / 8) }),
    s("line", { x1: x - r * 0.9, y1: y - r * 0.2, x2: x + r * 0.9, y2: y - r * 0.2, stroke: "#1f7f98", "stroke-width": Math.max(0.6, r / 14) }),
    n === null ? null : num(x, y + r * 0.12, n, r * 1.0, "#0c3f4d"));
}

/** A bookkeeping point (a blue ledger square). */
export function ledger(x, y, r, n = null) {
  return g({}, s("rect", { x: x - r, y: y - r, width: 2 * r, height: 2 * r, rx: r * 0.25, fill: "#3f6fb0", stroke: "#1d3f6e", "stroke-width": Math.max(1, r / 8) }),
    s("line", { x1: x - r * 0.6, y1: y + r * 0.55, x2: x + r * 0.6, y2: y + r * 0.55, stroke: "#c9dbf3", "stroke-width": Math.max(0.6, r / 10) }),
    n === null ? null : num(x, y - r * 0.08, n, r * 1.1, "#fff"));
}

/** Track steps (an arrow, in the company's colour when it names one). */
export function steps(x, y, r, n = null, colour = "#7d6b4f", ink = "#fff") {
  const pts = [[x - r, y - r * 0.8], [x + r * 0.3, y - r * 0.8], [x + r, y], [x + r * 0.3, y + r * 0.8], [x - r, y + r * 0.8], [x - r * 0.55, y]];
  return g({}, s("polygon", { points: pts.map((p) => p.join(",")).join(" "), fill: colour, stroke: "#3a2e1f", "stroke-width": Math.max(1, r / 9) }),
    n === null ? null : num(x - r * 0.05, y, n, r * 1.0, ink));
}

/** A trading post (a little house). */
export function post(x, y, r, colour, stroke = "#1a1a1a") {
  const pts = [[x - r * 0.8, y + r], [x - r * 0.8, y - r * 0.15], [x, y - r], [x + r * 0.8, y - r * 0.15], [x + r * 0.8, y + r]];
  return s("polygon", { points: pts.map((p) => p.join(",")).join(" "), fill: colour, stroke, "stroke-width": Math.max(1, r / 6), "stroke-linejoin": "round" });
}

/** "Remove a trading post": a grey post crossed out. */
export function removePost(x, y, r, n = null) {
  return g({}, post(x, y, r, "#bdb3a0", "#5b5142"),
    s("path", { d: `M${x - r} ${y - r} L${x + r} ${y + r} M${x + r} ${y - r} L${x - r} ${y + r}`, stroke: "#b3261e", "stroke-width": r / 3.5 }),
    n !== null && n > 1 ? num(x + r * 1.2, y + r * 0.6, n, r, "#b3261e") : null);
}

/** A share certificate (in the company's colour) with a number. */
export function share(x, y, r, colour = "#f7f4ec", n = null, ink = "#2a2118") {
  return g({}, s("rect", { x: x - r * 0.8, y: y - r, width: r * 1.6, height: r * 2, rx: r * 0.15, fill: colour, stroke: "#3a2e1f", "stroke-width": Math.max(1, r / 8) }),
    s("path", { d: `M${x + r * 0.3} ${y - r} L${x + r * 0.8} ${y - r * 0.5}`, stroke: "#3a2e1f", "stroke-width": Math.max(0.8, r / 10) }),
    n === null ? null : num(x, y + r * 0.05, n, r * 1.1, ink));
}

/** A capital call: pounds to pay (a red coin with a minus). */
export function capital(x, y, r, n) {
  return g({}, s("circle", { cx: x, cy: y, r, fill: "#d9534f", stroke: "#7a1d1a", "stroke-width": Math.max(1, r / 7) }),
    num(x, y, `-${n}`, r * 1.05, "#fff"));
}

/** A good / need icon: coffee bean, banana, cotton boll, helmet, ledger. */
export function measure(kind, x, y, r, n = null) {
  const fillc = MEASURE_FILL[kind] || "#ccc";
  const ink = MEASURE_INK[kind] || "#000";
  let shape;
  if (kind === "expansion") {
    shape = g({}, s("path", { d: `M${x - r} ${y + r * 0.35} Q${x - r} ${y - r} ${x} ${y - r} Q${x + r} ${y - r} ${x + r} ${y + r * 0.35} Z`, fill: fillc, stroke: "#4f4127", "stroke-width": Math.max(1, r / 8) }),
      s("rect", { x: x - r * 1.2, y: y + r * 0.3, width: r * 2.4, height: r * 0.45, rx: r * 0.2, fill: "#8c7442", stroke: "#4f4127", "stroke-width": Math.max(0.8, r / 10) }));
    return g({}, shape, n === null ? null : num(x, y - r * 0.2, n, r * 0.95, ink));
  }
  if (kind === "bookkeeping") return ledger(x, y, r * 0.9, n);
  if (kind === "cotton") {
    shape = g({}, s("circle", { cx: x - r * 0.45, cy: y + r * 0.1, r: r * 0.6, fill: fillc, stroke: "#8a8a7a", "stroke-width": 1 }),
      s("circle", { cx: x + r * 0.45, cy: y + r * 0.1, r: r * 0.6, fill: fillc, stroke: "#8a8a7a", "stroke-width": 1 }),
      s("circle", { cx: x, cy: y - r * 0.35, r: r * 0.62, fill: fillc, stroke: "#8a8a7a", "stroke-width": 1 }));
    return g({}, shape, n === null ? null : num(x, y, n, r * 0.95, ink));
  }
  if (kind === "bananas") {
    shape = s("path", { d: `M${x - r} ${y - r * 0.6} Q${x - r * 0.6} ${y + r} ${x + r} ${y + r * 0.5} L${x + r * 0.9} ${y + r * 0.1} Q${x - r * 0.2} ${y + r * 0.3} ${x - r * 0.55} ${y - r * 0.8} Z`, fill: fillc, stroke: "#8a6d00", "stroke-width": Math.max(1, r / 8) });
    return g({}, s("circle", { cx: x, cy: y, r, fill: "#fff6cc", stroke: "#caa400", "stroke-width": 1 }), shape,
      n === null ? null : num(x, y, n, r * 0.95, "#2a2118"));
  }
  // coffee: a bean
  shape = g({}, s("ellipse", { cx: x, cy: y, rx: r * 0.8, ry: r, fill: fillc, stroke: "#3b2718", "stroke-width": Math.max(1, r / 8) }),
    s("path", { d: `M${x} ${y - r * 0.9} Q${x - r * 0.35} ${y} ${x} ${y + r * 0.9}`, fill: "none", stroke: "#3b2718", "stroke-width": Math.max(0.8, r / 10) }));
  return g({}, shape, n === null ? null : num(x + r * 0.02, y, n, r * 0.95, ink));
}

/** A crate (the card's base price). */
export function crate(x, y, r, n) {
  return g({}, s("rect", { x: x - r, y: y - r, width: 2 * r, height: 2 * r, fill: "#c89b62", stroke: "#6b4a22", "stroke-width": Math.max(1, r / 7) }),
    s("path", { d: `M${x - r} ${y - r} L${x + r} ${y + r}`, stroke: "#8d6a3a", "stroke-width": Math.max(0.6, r / 10) }),
    num(x, y, n, r * 1.2, "#2a1a08"));
}

/** A bonus marker (a player's disc). */
export function marker(x, y, r, player) {
  return s("circle", { cx: x, cy: y, r, fill: PLAYER_FILL[player] || "#999", stroke: "#1a1a1a", "stroke-width": Math.max(1, r / 5) });
}

/** A reward object drawn as a row of icons starting at x (centre line y); returns {node, width}. */
export function reward(cat, rw, x, y, r, contextCompany = null) {
  const parts = [];
  let cx = x + r;
  const gap = r * 2.35;
  if (rw.pounds) { parts.push(coin(cx, y, r, rw.pounds)); cx += gap; }
  if (rw.diamonds) { parts.push(diamond(cx, y, r, rw.diamonds)); cx += gap; }
  if (rw.bookkeeping) { parts.push(ledger(cx, y, r * 0.9, rw.bookkeeping)); cx += gap; }
  if (rw.track) {
    const comp = rw.track_company ? cat.companies.find((c) => c.id === rw.track_company) : contextCompany;
    parts.push(steps(cx, y, r, rw.track, comp ? companyFill(comp) : "#7d6b4f", comp ? companyInk(comp) : "#fff"));
    cx += gap;
  }
  if (rw.remove_post) { parts.push(removePost(cx, y, r * 0.85, rw.remove_post)); cx += gap; }
  return { node: g({}, parts), width: Math.max(0, cx - x - gap + 2 * r) };
}

export function rewardText(cat, rw) {
  const out = [];
  if (rw.pounds) out.push(`£${rw.pounds}`);
  if (rw.diamonds) out.push(`${rw.diamonds} diamond step${rw.diamonds > 1 ? "s" : ""}`);
  if (rw.bookkeeping) out.push(`${rw.bookkeeping} bookkeeping point${rw.bookkeeping > 1 ? "s" : ""}`);
  if (rw.track) {
    const comp = rw.track_company ? cat.companies.find((c) => c.id === rw.track_company) : null;
    out.push(`${rw.track} step${rw.track > 1 ? "s" : ""} on ${comp ? comp.name : "the company's"} track`);
  }
  if (rw.remove_post) out.push(`remove ${rw.remove_post} trading post${rw.remove_post > 1 ? "s" : ""}`);
  return out.join(", ") || "nothing";
}

export function points(list) {
  return list.map((p) => `${p[0]},${p[1]}`).join(" ");
}
