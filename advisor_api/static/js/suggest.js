// The suggestions panel: the streamed analysis of the current decision (start, stop,
// interim and final lines), each line in words with its win chance and projected final
// money (labelled), how sure the search is, the exact solver's view when it differs;
// its steps highlighted on the table on hover or focus (with the expansion route) and
// played by a click or Enter: only up to what the player has not seen yet (the
// service's rule, engine.playable_prefix: the line's ``playable`` steps, posted with
// ``partial``), then the page says what changed and asks afresh.
//
// The lines stay the same elements while the stream updates them, so a focused line
// keeps the focus; each is a button named by its move and win chance (the words it
// shows), its other figures its description, in a group (not a list: a list holds
// list items, not buttons).

import { analyseStream, api, ApiError } from "./api.js";
import { drawRoute, clearOverlay, baseGeometry, geometry } from "./board.js";
import { afterChange } from "./game.js";
import * as S from "./steps.js";
import { stepWords, stepsWords } from "./story.js";
import { h } from "./svg.js";
import { app } from "./state.js";
import { $, beginSend, errorText, message, seatName, showError } from "./ui.js";

export function stopSuggest(clear) {
  if (app.analysis) {
    app.analysis.abort();
    app.analysis = null;
  }
  if (clear) {
    lineNote(null);
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

/** What the search expects after the move (its own steps are the move, not repeated). */
function pvWords(line) {
  const own = line.move.steps ? line.move.steps.length - 1 : 0;
  const rest = (line.pv || []).slice(own);
  if (!rest.length) return null;
  const parts = rest.slice(0, 4).map((x) => (x.player === line.move.player ? stepWords(x.step) : `${x.player}: ${stepWords(x.step)}`));
  return `Then (expected): ${parts.join("; ")}${rest.length > 4 ? " …" : ""}`;
}

// What comes after the steps a click plays (the service's ``stop`` of a line).
const STOP_WORDS = {
  reveal: "once the plans are revealed",
  chance: "once the card, book or tile is dealt",
  "other-seat": "once another player has decided",
  over: "the game is over",
  illegal: "not legal now",
};

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

/** A line's steps: those a click plays, and the rest (decided later, with what the
 * player will have seen by then). */
function lineParts(line) {
  const steps = line.move.text.split("; ").filter(Boolean);
  const k = Number.isInteger(line.playable) ? Math.max(1, Math.min(line.playable, steps.length)) : steps.length;
  return { steps, now: steps.slice(0, k), later: steps.slice(k) };
}

const lineOf = new WeakMap(); // li -> the line it shows now

function renderLines(data, final) {
  const list = $("#suggestions");
  const pov = data.pov;
  $("#suggest-status").textContent = `${final ? "Done" : "Thinking…"} · ${data.iterations} iterations in ${data.elapsed.toFixed(1)} s · for ${pov}`;
  list.dataset.final = final ? "1" : "0";
  list.setAttribute("role", "group");
  list.setAttribute("aria-label", "Suggested lines");
  const sure = data.lines.length ? sureness(data.lines, pov, final) : null;
  const focused = list.contains(document.activeElement) ? document.activeElement.dataset.move : null;
  const items = [...list.children];
  data.lines.forEach((line, i) => {
    let li = items[i];
    if (!li) {
      li = lineItem();
      list.append(li);
    }
    fillLine(li, line, pov, sure);
  });
  for (const extra of items.slice(data.lines.length)) extra.remove();
  // the focus stays on the line it was on (its move), else on the same rank
  const again = focused && [...list.children].find((li) => li.dataset.move === focused);
  if (again && document.activeElement !== again) again.focus({ preventScroll: true });
  if (list.contains(document.activeElement)) highlightLine(lineOf.get(document.activeElement));
}

/** A line's element, its handlers reading the line it shows at the time. */
function lineItem() {
  const li = h("li", { tabindex: "0", role: "button" });
  const play = (e) => {
    e.preventDefault();
    const line = lineOf.get(li);
    if (line) playSuggestion(line);
  };
  li.addEventListener("mouseenter", () => lineOf.has(li) && highlightLine(lineOf.get(li)));
  li.addEventListener("mouseleave", () => clearHighlight());
  li.addEventListener("focus", () => lineOf.has(li) && highlightLine(lineOf.get(li)));
  li.addEventListener("blur", () => clearHighlight());
  li.addEventListener("click", play);
  li.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") play(e);
  });
  return li;
}

function fillLine(li, line, pov, sure) {
  lineOf.set(li, line);
  const ctx = app.ctx;
  const win = line.eval.win[pov] ?? 0;
  const money = Object.entries(line.eval.money).map(([p, m]) => `${p} £${Math.round(m)}`).join(" · ");
  const { now, later } = lineParts(line);
  const words = stepsWords(now, ctx.st);
  const winText = `Win chance ${Math.round(win * 100)}%`;
  const pv = pvWords(line);
  const shown = line.rank === 1 && sure ? sure.text : `${Math.round(line.share * 100)}% of the search`;
  const parts = [
    h("span", { class: "rank" }, `${line.rank}`),
    h("span", { class: "move", title: now.join("; ") }, words),
    h("span", { class: "win", title: `the search's estimate of ${pov}'s chance to win after this move` }, winText),
    h("span", { class: "money", title: "each player's money at the end of the game, as the search projects it" }, `Projected final money: ${money}`),
    h("span", { class: "bar", title: `${line.visits} visits (${Math.round(line.share * 100)}% of the search)` }, h("span", { style: `width:${Math.round(line.share * 100)}%` })),
    h("span", { class: "sure", "data-sure": line.rank === 1 && sure ? sure.word : null }, shown),
    later.length ? h("span", { class: "pv after", title: later.join("; ") }, `Not played by a click, decided ${STOP_WORDS[line.stop] || "later"}: ${stepsWords(later, null)}`) : null,
    pv ? h("span", { class: "pv", title: line.pv_text }, pv) : null,
    line.solver ? h("span", { class: "solver", title: line.solver.steps.join("; ") }, solverWords(line, line.rank === 1 ? sure : null)) : null,
  ].filter(Boolean);
  li.dataset.rank = String(line.rank);
  li.dataset.move = line.move.text;
  li.dataset.playable = String(now.length);
  li.title = `Click to play ${later.length ? `its first ${now.length} steps` : "it"} (notation: ${now.join("; ")})`;
  // the parts apart by spaces, so that the words read (and are named) one by one
  li.replaceChildren(...parts.flatMap((part, k) => (k ? [" ", part] : [part])));
  li.setAttribute("aria-label", lineLabel(li));
}

/** A line's name: what it shows, after "Play line N:" (a name that holds every word
 * shown, as speech input expects). */
function lineLabel(li) {
  const rank = li.querySelector(".rank");
  const rest = [...li.children].filter((c) => c !== rank).map((c) => c.textContent).filter(Boolean);
  return `Play line ${li.dataset.rank}: ${rest.join(" ")}`;
}

// -- playing a line -----------------------------------------------------------------------

/** Play a suggested line: the service plays it up to the first new information or
 * another seat's decision (``partial``), then the page says what changed and, while
 * the decision is still the player's, asks for suggestions afresh. */
export async function playSuggestion(line) {
  const v = app.view;
  if (!v || app.busy) return;
  clearHighlight();
  const { steps } = lineParts(line);
  beginSend();
  let res = null;
  try {
    res = await api.playLine(app.id, v.seat, steps);
    message(null);
  } catch (err) {
    showError(err);
  }
  app.busy = false;
  try {
    await afterChange(res || (await api.view(app.id, v.seat)));
  } catch (err) {
    showError(err);
    return;
  }
  if (!res) return;
  const told = whatChanged(v, res, steps.length);
  if (told) {
    message("info", told); // on every pane
    lineNote(told); // and where the line was played, until the next step
  }
  const fresh = res.stop === "reveal" || res.stop === "chance" || res.played < steps.length;
  if (fresh && !app.analysis && app.ctx && app.ctx.mine && !app.view.over) suggest();
}

/** The note above the lines: what the last line played changed (null: none). */
function lineNote(text) {
  let note = document.getElementById("line-note");
  if (!text) {
    if (note) note.remove();
    return;
  }
  if (!note) {
    note = h("p", { id: "line-note", class: "muted" });
    $("#suggestions").before(note);
  }
  note.textContent = text;
}

const PLAN_KINDS = new Set(["plan", "ready", "tile"]);

/** In words: how much of the line was played, why it stopped, and what the player
 * sees now that was hidden (the others' plans, what was dealt); null: nothing new. */
function whatChanged(before, res, total) {
  const news = [];
  if (res.stop === "reveal") {
    const mine = `P${before.seat}`;
    const plans = new Map();
    for (const e of res.history) {
      if (e.round !== res.round || e.player === mine || e.player === "chance" || !e.step) continue;
      const kind = S.parse(e.step).kind;
      if (!PLAN_KINDS.has(kind)) continue;
      if (!plans.has(e.player)) plans.set(e.player, []);
      if (kind !== "ready") plans.get(e.player).push(stepWords(e.step));
    }
    const told = [...plans].map(([p, w]) => `${seatName(res, Number(p.slice(1)))}: ${w.length ? w.join("; ") : "nothing planned"}`);
    news.push(`${res.round ? "Plans" : "Starting tiles"} revealed: ${told.join(". ") || "none"}.`);
  }
  const dealt = res.history.filter((e) => e.index >= before.steps && e.player === "chance" && e.step).map((e) => stepWords(e.step));
  if (dealt.length) news.push(`Dealt: ${dealt.join("; ")}.`);
  if (res.played < total) {
    const why = { reveal: "the plans were revealed", chance: "something was dealt", "other-seat": "another player decides", over: "the game is over" }[res.stop] || "the line could go no further";
    news.unshift(`Played ${res.played} of the line's ${total} steps: ${why}, the rest was not played.`);
    if (app.ctx && app.ctx.mine) news.push("Decide the rest with what you see now: new suggestions follow.");
  }
  return news.length ? news.join(" ") : null;
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
