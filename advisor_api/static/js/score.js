// The score table (provisional, per player and company) and the final-score panel.

import { h, PLAYER_FILL } from "./svg.js";
import { app } from "./state.js";
import { $, seatName } from "./ui.js";

function scoreTable(v, id) {
  const cat = app.cat;
  const rows = [];
  const players = v.score.map((sc) => sc.player);
  const winners = new Set(v.winners || []);
  const head = h("tr", {}, h("th", {}, ""), ...players.map((p) => h("th", {}, h("span", { class: "sw", style: `background:${PLAYER_FILL[p - 1]}` }), `P${p}`)));
  rows.push(h("tr", {}, h("td", {}, "cash"), ...v.score.map((sc) => h("td", { "data-key": "cash", "data-player": sc.player }, sc.cash))));
  for (const c of cat.companies) {
    rows.push(h("tr", {}, h("td", {}, `${c.name} shares`),
      ...v.score.map((sc) => {
        const x = sc.companies[c.id];
        return h("td", { "data-key": c.id, "data-player": sc.player, title: `${x.shares} share(s) × £${x.value}` }, x.shares ? `${x.shares}×${x.value} = ${x.pounds}` : "0");
      })));
  }
  rows.push(h("tr", {}, h("td", {}, "diamonds"), ...v.score.map((sc) => h("td", { "data-key": "diamonds", "data-player": sc.player }, sc.diamonds))));
  rows.push(h("tr", {}, h("td", {}, "bookkeeping"), ...v.score.map((sc) => h("td", { "data-key": "bookkeeping", "data-player": sc.player }, sc.bookkeeping))));
  rows.push(h("tr", { class: "total" }, h("td", {}, "total"), ...v.score.map((sc) => h("td", { "data-key": "total", "data-player": sc.player, class: winners.has(sc.player) ? "win" : "" }, sc.total))));
  return h("table", { class: "score", id }, h("thead", {}, head), h("tbody", {}, rows));
}

export function renderScore(v) {
  $("#score-kind").textContent = v.over ? "(final)" : "(provisional, if the game ended now)";
  $("#score-body").replaceChildren(scoreTable(v, "score-table"));
}

export function renderFinal(v) {
  const box = $("#final");
  if (!v.over) {
    box.hidden = true;
    return;
  }
  const w = (v.winners || []).map((x) => seatName(v, x)).join(" and ");
  $("#final-body").replaceChildren(h("p", { class: "winners" }, `${w} win${(v.winners || []).length > 1 ? " (shared)" : "s"}!`), scoreTable(v, "final-score"));
  box.hidden = false;
}
