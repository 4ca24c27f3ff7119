// The suggestions panel: the streamed analysis of the current decision (start, stop,
// interim and final lines), each line in words with its win chance and projected final
// money (labelled), how sure the search is, the exact solver's view when it differs;
// its steps highlighted on the table on hover or focus (with the expansion route) and
// played by a click or Enter.

import { analyseStream, ApiError } from "./api.js";
import { drawRoute, clearOverlay, baseGeometry, geometry } from "./board.js";
import * as S from "./steps.js";
import { stepWords, stepsWords } from "./story.js";
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

const SOLVED = { expansion: "expansion route", bookkeeping: "books", "ink-jar": "ink-jar stop", ink: "ink-jar stop" };

/** How sure the search is of line 1 against line 2, in words. */
function sureness(lines, pov, final) {
  if (lines.length < 2) return { word: "only move", text: "The only line searched." };
  const [a, b] = lines;
  const wa = a.eval.win[pov] ?? 0;
  const wb = b.eval.win[pov] ?? 0;
  const pct = (x) => `${Math.round(x.share * 100)}%`;
  const basis = `${pct(a)} of the search against ${pct(b)} for the next line; win chance ${Math.round(wa * 100)}% against ${Math.round(wb * 100)}%`;
  if (!final) return { word: "still searching", text: `Still searching: ${basis}.` };
  if (a.share >= 2 * b.share && wa >= wb - 0.01) return { word: "clear best", text: `Clear best: ${basis}.` };
  if (b.share >= 0.6 * a.share) return { word: "close call", text: `Close call: ${basis}; either is fine.` };
  return { word: "probably best", text: `Probably best: ${basis}.` };
}

function pvWords(line) {
  if (!line.pv_text) return null;
  const parts = line.pv_text.split(" | ").slice(0, 4).map((x) => {
    const m = /^(P\d|chance) (.*)$/.exec(x);
    return m ? `${m[1]}: ${stepWords(m[2])}` : stepWords(x);
  });
  return `Then (expected): ${parts.join("; ")}${line.pv.length > 4 ? " …" : ""}`;
}

function solverWords(line, sure) {
  const sv = line.solver;
  if (!sv) return null;
  const what = SOLVED[sv.kind] || sv.kind;
  if (sv.agrees) return `The exact ${sv.kind} solver finds the same ${what}.`;
  const route = stepsWords(sv.steps, app.ctx ? app.ctx.st : null); // from the position now
  const advice = sure && sure.word === "close call"
    ? "Close call: the solver's choice is as good as this line."
    : "The advisor recommends this line: the search looks ahead to the end of the game, the solver only maximises this " + `${what}'s immediate value.`;
  return `The exact ${sv.kind} solver would rather: ${route}. ${advice}`;
}

function renderLines(data, final) {
  const list = $("#suggestions");
  const pov = data.pov;
  const ctx = app.ctx;
  $("#suggest-status").textContent = `${final ? "Done" : "Thinking…"} · ${data.iterations} iterations in ${data.elapsed.toFixed(1)} s · for ${pov}`;
  list.dataset.final = final ? "1" : "0";
  const sure = data.lines.length ? sureness(data.lines, pov, final) : null;
  list.replaceChildren(...data.lines.map((line) => {
    const win = line.eval.win[pov] ?? 0;
    const money = Object.entries(line.eval.money).map(([p, m]) => `${p} £${Math.round(m)}`).join(" · ");
    const steps = line.move.text.split("; ");
    const words = stepsWords(steps, ctx.st);
    const li = h("li", { "data-rank": line.rank, "data-move": line.move.text, tabindex: "0", title: `Click to play (notation: ${line.move.text})` },
      h("span", { class: "rank" }, `${line.rank}`),
      h("span", { class: "move", title: line.move.text }, words),
      h("span", { class: "win", title: `the search's estimate of ${pov}'s chance to win after this move` }, `Win chance ${Math.round(win * 100)}%`),
      h("span", { class: "money", title: "each player's money at the end of the game, as the search projects it" }, `Projected final money: ${money}`),
      h("span", { class: "bar", title: `${line.visits} visits (${Math.round(line.share * 100)}% of the search)` }, h("span", { style: `width:${Math.round(line.share * 100)}%` })),
      line.rank === 1 && sure ? h("span", { class: "sure", "data-sure": sure.word }, sure.text) : h("span", { class: "sure" }, `${Math.round(line.share * 100)}% of the search`),
      pvWords(line) ? h("span", { class: "pv", title: line.pv_text }, pvWords(line)) : null,
      line.solver ? h("span", { class: "solver", title: line.solver.steps.join("; ") }, solverWords(line, line.rank === 1 ? sure : null)) : null);
    li.addEventListener("mouseenter", () => highlightLine(line));
    li.addEventListener("mouseleave", () => clearHighlight());
    li.addEventListener("focus", () => highlightLine(line));
    li.addEventListener("blur", () => clearHighlight());
    li.addEventListener("click", () => { clearHighlight(); playLine(line); });
    li.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        clearHighlight();
        playLine(line);
      }
    });
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

// "on every turn of mine": ticking it during your turn starts now, not at the next one
document.getElementById("suggest-auto")?.addEventListener("change", (e) => {
  const v = app.view;
  if (e.target.checked && !app.analysis && v && !v.over && app.ctx && app.ctx.mine && v.decision.kind !== "chance") suggest();
});
