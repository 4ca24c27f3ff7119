// The suggestions panel: the streamed analysis of the current decision (start, stop,
// interim and final lines), each line's win chance and expected money, its steps
// highlighted on the table (with the expansion route) and played by a click.

import { analyseStream, ApiError } from "./api.js";
import { drawRoute, clearOverlay, baseGeometry, geometry } from "./board.js";
import * as S from "./steps.js";
import { h } from "./svg.js";
import { playLine } from "./actions.js";
import { app } from "./state.js";
import { $, errorText } from "./ui.js";

export function stopSuggest(clear) {
  if (app.analysis) {
    app.analysis.abort();
    app.analysis = null;
  }
  if (clear) {
    $("#suggestions").replaceChildren();
    $("#suggest-status").textContent = "";
    app.linesKey = null;
  }
  updateSuggestButton();
}

export function updateSuggestButton() {
  const v = app.view;
  const ok = !!v && !v.over && app.ctx && app.ctx.mine && v.decision.kind !== "chance";
  $("#btn-suggest").disabled = !ok;
  $("#btn-suggest").textContent = app.analysis ? "Stop" : "Suggest moves";
  if (app.analysis) $("#btn-suggest").disabled = false;
}

export async function suggest() {
  if (app.analysis) {
    stopSuggest(false);
    return;
  }
  const v = app.view;
  if (!v || !app.ctx.mine || v.decision.kind === "chance") return;
  const ctl = new AbortController();
  app.analysis = ctl;
  const key = `${v.id}:${v.steps}`;
  app.linesKey = key;
  const time = Number($("#suggest-time").value);
  const multipv = Number($("#suggest-lines").value);
  $("#suggest-status").textContent = "Thinking…";
  $("#suggestions").replaceChildren();
  updateSuggestButton();
  try {
    await analyseStream({ observation: v.observation, limit: { time }, multipv }, (name, data) => {
      if (app.linesKey !== key) return;
      if (name === "error") {
        $("#suggest-status").textContent = errorText(new ApiError(500, data));
        return;
      }
      renderLines(data, name === "done");
    }, ctl.signal);
  } catch (err) {
    if (err.name !== "AbortError" && app.linesKey === key) $("#suggest-status").textContent = errorText(err);
  } finally {
    if (app.analysis === ctl) app.analysis = null;
    updateSuggestButton();
  }
}

function renderLines(data, final) {
  const list = $("#suggestions");
  const pov = data.pov;
  const ctx = app.ctx;
  $("#suggest-status").textContent = `${final ? "Done" : "Thinking…"} ${data.iterations} iterations in ${data.elapsed.toFixed(1)} s · win chance and expected money for ${pov}`;
  list.dataset.final = final ? "1" : "0";
  list.replaceChildren(...data.lines.map((line) => {
    const win = line.eval.win[pov] ?? 0;
    const money = Object.entries(line.eval.money).map(([p, m]) => `${p} £${m.toFixed(1)}`).join(" · ");
    const steps = line.move.text.split("; ");
    const first = S.describe(app.cat, ctx.st, steps[0]);
    const li = h("li", { "data-rank": line.rank, title: `Click to play: ${line.move.text}` },
      h("span", { class: "rank" }, `${line.rank}`),
      h("span", { class: "move" }, line.move.text),
      h("span", { class: "win", title: `estimated chance that ${pov} wins` }, `${Math.round(win * 100)}%`),
      h("span", { class: "money" }, `${first}${steps.length > 1 ? ` (+${steps.length - 1} more)` : ""} · expected ${money}`),
      h("span", { class: "bar", title: `${line.visits} visits (${Math.round(line.share * 100)}% of the search)` }, h("span", { style: `width:${Math.round(line.share * 100)}%` })),
      line.pv_text ? h("span", { class: "pv" }, `then ${line.pv_text.split(" | ").slice(0, 5).join(" | ")}${line.pv.length > 5 ? " …" : ""}`) : null,
      line.solver ? h("span", { class: "solver" }, `exact ${line.solver.kind} solver: ${line.solver.agrees ? "agrees" : `prefers ${line.solver.steps.join("; ")}`}`) : null);
    li.addEventListener("mouseenter", () => highlightLine(line));
    li.addEventListener("mouseleave", () => clearHighlight());
    li.addEventListener("click", () => { clearHighlight(); playLine(line); });
    return li;
  }));
}

function highlightLine(line) {
  clearHighlight();
  const ctx = app.ctx;
  const cat = app.cat;
  const steps = line.move.text.split("; ");
  for (const t of steps) {
    for (const key of S.targets(cat, ctx.st, t, ctx.seat)) {
      for (const node of document.querySelectorAll(`[data-target="${key}"]`)) node.classList.add("hint");
    }
    for (const b of document.querySelectorAll(`#legal-steps button[data-step="${t}"]`)) b.classList.add("hint");
  }
  // the expansion route on the map
  let company = S.workCompany(cat, ctx.st);
  for (const t of steps) {
    const p = S.parse(t);
    if (p.kind === "expand") company = p.args[0];
  }
  const entered = steps.map(S.parse).filter((p) => p.kind === "enter").map((p) => p.args[0]);
  if (company && entered.length) {
    const geo = geometry(cat);
    const base = baseGeometry(cat, company);
    const held = new Set(Object.entries(ctx.st.owners).filter(([, o]) => o === company).map(([r]) => r));
    const segments = [];
    for (const rid of entered) {
      const target = geo.byId[rid];
      let best = null;
      for (const [r, cost] of cat.base_borders[company]) if (r === rid && (!best || cost < best.cost)) best = { cost, from: base.frontPoint };
      for (const [q, cost] of geo.neighbours[rid] || []) {
        if (held.has(q) && (!best || cost < best.cost)) best = { cost, from: geo.byId[q].centre };
      }
      if (best) segments.push([best.from, target.centre]);
      held.add(rid);
    }
    drawRoute($("#board"), cat, segments);
  }
}

function clearHighlight() {
  for (const node of document.querySelectorAll(".hint")) node.classList.remove("hint");
  clearOverlay($("#board"), "hint-route");
}
