// The Review screen: a game's review (POST /v1/games/{id}/review, a job of the search
// pool) started, followed and cancelled; then the curves of win chance and projected
// money (reviewchart.js: a click goes to the nearest decision), the board as it was at
// the decision shown (GET .../review/{job}/positions/{index}) with the step played and
// the search's best drawn on it and named, and the mistakes listed. Keys: ← → the
// previous / next decision, j k (or ↓ ↑) the next / previous mistake, Esc closes.

import { api } from "./api.js";
import { BOARD_H, BOARD_W, renderBoard } from "./board.js";
import { renderPlayers } from "./players.js";
import { drawChart, indexAt, markChart } from "./reviewchart.js";
import { NARROW } from "./layout.js";
import * as S from "./steps.js";
import { h, PLAYER_FILL } from "./svg.js";
import { app } from "./state.js";
import { $, errorText, seatName } from "./ui.js";

// Iterations of search a decision, by the depth chosen ("normal": the service's default
// budget of a review, 600 iterations).
const DEPTHS = { quick: 100, normal: null, deep: 2400 };
const POLL_MS = 400;
const CLASS_WORDS = { inaccuracy: "Inaccuracy", mistake: "Mistake", blunder: "Blunder" };

const rv = {
  game: null, // the game whose review is shown
  job: null, // the job followed or shown
  review: null,
  steps: 0,
  decisions: [], // the reviewed decisions, by index
  mistakes: [], // positions in decisions of those with a class
  at: -1, // the decision shown (position in decisions)
  x: null, // the chart's x of a step
  timer: null,
  positions: new Map(), // step index -> the position (cached per job)
  shownIndex: null,
};

function pct(v) { return `${(v * 100).toFixed(0)}%`; }
function signed(v, unit = "") { return `${v > 0 ? "−" : v < 0 ? "+" : "±"}${unit}${Math.abs(v).toFixed(unit ? 1 : 0)}`; }

/** The seat whose token the review's requests send (the seat reviewed, if held). */
function tokenSeat(seats) {
  const held = (seats || []).find((seat) => app.tokens[seat]);
  return held || app.homeSeat || null;
}

function status(textOrNode, kind = "") {
  const box = $("#rv-status");
  box.className = kind;
  box.replaceChildren(textOrNode);
}

// -- opening and starting -------------------------------------------------------------------

/** The seats this page may review now: every seat of a finished game; in a game going
 * on, its own seat (live mode: every seat of a game it holds a token of). */
function reviewable(v) {
  const all = v.seats.map((x) => x.seat);
  if (v.over) return all;
  if (v.mode === "live" && Object.keys(app.tokens).length) return all;
  return app.homeSeat && app.tokens[app.homeSeat] ? [app.homeSeat] : [];
}

function fillSeats(v) {
  const select = $("#rv-seat");
  const seats = reviewable(v);
  const options = seats.map((seat) => h("option", { value: String(seat) }, seatName(v, seat)));
  if (seats.length > 1) options.push(h("option", { value: "all" }, "Every player"));
  select.replaceChildren(...options);
  const mine = seats.includes(app.homeSeat) ? String(app.homeSeat) : seats.length > 1 ? "all" : String(seats[0] || "");
  select.value = mine;
  select.disabled = !seats.length;
  $("#rv-start").disabled = !seats.length;
  $("#rv-all-seeing-box").hidden = !v.over;
  return seats;
}

export async function openReview() {
  const v = app.view;
  if (!app.id || !v) return;
  $("#review-screen").hidden = false;
  document.body.classList.add("review-open");
  behind(true);
  if (rv.game !== app.id) reset();
  rv.game = app.id;
  const seats = fillSeats(v);
  $("#rv-title").textContent = v.over ? "Review of the game" : "Review of the game so far";
  $("#rv-start").focus();
  if (!seats.length) {
    status("A game in progress is reviewed by its players: open it with your seat's link. Once it is over anyone may review it.");
    return;
  }
  if (rv.review || rv.timer) return; // shown or followed already
  try {
    const list = await api.reviews(app.id, tokenSeat(seats));
    const jobs = list.reviews || [];
    const going = jobs.filter((j) => j.status === "queued" || j.status === "running").pop();
    const done = jobs.filter((j) => j.status === "done" && j.steps === v.steps).pop()
      || jobs.filter((j) => j.status === "done").pop();
    if (going) follow(going);
    else if (done) await show(await api.reviewJob(app.id, done.job, tokenSeat(done.seats)));
    else status("Choose the player and the depth, then start the review. It runs beside the other searches of the service and takes a minute or more.");
  } catch (err) {
    status(errorText(err), "error");
  }
}

/** The page under the screen is out of reach while it is open (focus, reading). */
function behind(inert) {
  for (const sel of ["a.skip", "header#top", "main#layout", "#panes"]) {
    const node = $(sel);
    if (node) node.inert = inert;
  }
}

export function closeReview() {
  $("#review-screen").hidden = true;
  document.body.classList.remove("review-open");
  behind(false);
  const back = $("#btn-review");
  if (back && !back.hidden) back.focus();
}

function reset() {
  clearTimeout(rv.timer);
  Object.assign(rv, { job: null, review: null, steps: 0, decisions: [], mistakes: [], at: -1, x: null, timer: null, positions: new Map(), shownIndex: null });
  $("#rv-body").hidden = true;
  $("#rv-progress").hidden = true;
  $("#rv-cancel").hidden = true;
}

async function start() {
  const v = app.view;
  const choice = $("#rv-seat").value;
  const seats = choice === "all" ? reviewable(v) : [Number(choice)];
  const depth = $("#rv-depth").value;
  const body = { seats };
  if (DEPTHS[depth]) body.budget = { iterations: DEPTHS[depth] };
  if (v.over && $("#rv-all-seeing").checked) body.all_seeing = true;
  reset();
  try {
    follow(await api.startReview(app.id, body, tokenSeat(seats)));
  } catch (err) {
    status(errorText(err), "error");
  }
}

// -- following a job --------------------------------------------------------------------------

function showProgress(job) {
  const bar = $("#rv-progress");
  const { done, total } = job.progress;
  bar.hidden = false;
  bar.max = Math.max(1, total || 1);
  bar.value = total ? done : 0;
  const words = job.status === "queued" ? "Waiting for a search process…"
    : total ? `Reviewing: ${done} of ${total} decisions` : "Reviewing…";
  status(words);
}

function follow(job) {
  rv.job = job;
  $("#rv-cancel").hidden = false;
  $("#rv-start").disabled = true;
  showProgress(job);
  const tick = async () => {
    if (rv.job !== job) return;
    let now;
    try {
      now = await api.reviewJob(rv.game, job.job, tokenSeat(job.seats));
    } catch (err) {
      ended();
      status(errorText(err), "error");
      return;
    }
    if (rv.job !== job) return;
    if (now.status === "queued" || now.status === "running") {
      showProgress(now);
      rv.timer = setTimeout(tick, POLL_MS);
      return;
    }
    ended();
    if (now.status === "done") await show(now);
    else status(now.status === "cancelled" ? "The review was cancelled." : `The review failed: ${now.error ? now.error.message : "unknown error"}`, now.status === "failed" ? "error" : "");
  };
  rv.timer = setTimeout(tick, POLL_MS);
}

function ended() {
  clearTimeout(rv.timer);
  rv.timer = null;
  $("#rv-cancel").hidden = true;
  $("#rv-progress").hidden = true;
  $("#rv-start").disabled = !reviewable(app.view).length;
}

async function cancel() {
  const job = rv.job;
  if (!job) return;
  ended();
  rv.job = null;
  try {
    await api.cancelReview(rv.game, job.job, tokenSeat(job.seats));
    status("The review was cancelled.");
  } catch (err) {
    status(errorText(err), "error");
  }
}

// -- the review shown ---------------------------------------------------------------------------

async function show(job) {
  rv.job = job;
  rv.review = job.review;
  rv.steps = job.steps;
  rv.positions = new Map();
  rv.decisions = [...(job.review.decisions || [])].sort((a, b) => a.index - b.index);
  rv.mistakes = rv.decisions.map((d, k) => (d.class ? k : -1)).filter((k) => k >= 0);
  $("#rv-body").hidden = false;
  const seats = job.seats.map((seat) => seatName(app.view, seat)).join(", ");
  const budget = job.budget.iterations ? `${job.budget.iterations} iterations` : job.budget.seconds ? `${job.budget.seconds} s` : "default depth";
  status(`${seats}: ${rv.decisions.length} decisions reviewed (${budget} each${job.all_seeing ? ", all-seeing: every card known" : ""}), ${rv.mistakes.length} marked.`);
  legend(job);
  rv.x = drawChart($("#rv-chart"), rv.review, rv.steps);
  renderList();
  if (!rv.decisions.length) {
    $("#rv-detail").replaceChildren(h("p", {}, "No decision of this player to review yet."));
    return;
  }
  await select(rv.mistakes.length ? rv.mistakes[0] : 0);
}

function legend(job) {
  const items = job.seats.map((seat) => h("span", { class: "rv-key" },
    h("span", { class: "sw", style: `background:${PLAYER_FILL[seat - 1]}` }), seatName(app.view, seat)));
  items.push(h("span", { class: "rv-key" }, h("span", { class: "dot blunder" }), "blunder"),
    h("span", { class: "rv-key" }, h("span", { class: "dot mistake" }), "mistake"),
    h("span", { class: "rv-key" }, h("span", { class: "dot inaccuracy" }), "inaccuracy"));
  $("#rv-legend").replaceChildren(...items);
}

function lossWords(d) {
  return `${signed(d.loss_win * 100)} points of win chance, ${signed(d.loss_money, "£")} money`;
}

function renderList() {
  const list = $("#rv-list");
  const items = rv.mistakes.map((k) => {
    const d = rv.decisions[k];
    return h("li", {}, h("button", { type: "button", "data-k": k, class: `rv-item ${d.class}`, onclick: () => select(k) },
      h("b", {}, CLASS_WORDS[d.class]), ` · step ${d.index} · P${d.player}: ${lossWords(d)}`));
  });
  list.replaceChildren(...items);
  $("#rv-none").hidden = items.length > 0;
}

/** Show decision ``k``: its words, the chart's line, the list's mark, the board. */
async function select(k) {
  if (k < 0 || k >= rv.decisions.length) return;
  rv.at = k;
  const d = rv.decisions[k];
  markChart($("#rv-chart"), rv.x, d.index);
  for (const b of document.querySelectorAll("#rv-list button")) {
    if (Number(b.dataset.k) === k) b.setAttribute("aria-current", "true");
    else b.removeAttribute("aria-current");
  }
  keepInList($("#rv-list button[aria-current]"));
  document.body.dataset.reviewIndex = String(d.index);
  renderDetail(d, null);
  let pos = rv.positions.get(d.index);
  if (!pos) {
    try {
      pos = await api.reviewPosition(rv.game, rv.job.job, d.index, tokenSeat(rv.job.seats));
    } catch (err) {
      status(errorText(err), "error");
      return;
    }
    rv.positions.set(d.index, pos);
  }
  if (rv.decisions[rv.at] !== d) return; // another decision was chosen meanwhile
  renderDetail(d, pos);
  renderPosition(d, pos);
}

/** The list's current item in view when the list scrolls on its own (never the screen:
 * the chart and the decision stay where they are). */
function keepInList(item) {
  const list = $("#rv-list");
  if (!item || list.scrollHeight <= list.clientHeight + 1) return;
  const lr = list.getBoundingClientRect();
  const r = item.getBoundingClientRect();
  if (r.top < lr.top) list.scrollTop -= lr.top - r.top;
  else if (r.bottom > lr.bottom) list.scrollTop += r.bottom - lr.bottom;
}

function words(text, st) {
  if (!text) return "(not shown: what you never saw)";
  try {
    return S.describe(app.cat, st, text);
  } catch {
    return text;
  }
}

function renderDetail(d, pos) {
  const st = pos ? pos.observation.state : null;
  const kind = (d.kind || (pos ? pos.decision.kind : "")).replace(/-/g, " ");
  const same = d.best === d.played;
  const verdict = d.class ? `${CLASS_WORDS[d.class]}: ${lossWords(d)}` : same ? "The search's choice too" : `Fine: ${lossWords(d)}`;
  const row = (cls, label, text, win, money) => h("div", { class: `rv-step ${cls}` },
    h("span", { class: "rv-tag" }, label),
    h("span", { class: "rv-words", id: `rv-${cls}` }, words(text, st)),
    h("code", {}, text || "—"),
    h("span", { class: "rv-eval" }, `win ${pct(win)} · £${Number(money).toFixed(0)}`));
  const round = d.round ?? (pos ? pos.round : null);
  $("#rv-detail").replaceChildren(...[
    h("h3", { id: "rv-where" }, `Step ${d.index}${round === null ? "" : round ? ` · round ${round}` : " · setup"} · ${seatName(app.view, d.player)}${kind ? `: ${kind}` : ""}`),
    h("p", { class: `rv-verdict ${d.class || "fine"}`, id: "rv-verdict" }, verdict),
    row("played", "Played", d.played, d.win_played, d.money_played),
    same ? null : row("best", "Best", d.best, d.win_best, d.money_best),
    solverNote(d.solver, st),
    h("p", { class: "rv-pos muted" }, `Decision ${rv.at + 1} of ${rv.decisions.length}${d.class ? ` · mistake ${rv.mistakes.indexOf(rv.at) + 1} of ${rv.mistakes.length}` : ""}`),
  ].filter(Boolean));
}

/** The exact solver's route or purchase beside the one played (search.review's note). */
function solverNote(note, st) {
  if (!note || !note.exact) return null;
  const what = note.kind === "expansion" ? "expansion route" : "book purchase";
  const route = (steps) => steps.map((t) => words(t, st)).join("; ");
  const played = note.agrees ? "the route played is the best one"
    : note.played.rank ? `the route played is its no. ${note.played.rank} (${note.played.value})`
      : "the route played is not among its best";
  return h("div", { class: "rv-solver" },
    h("b", {}, `Exact solver, best ${what}: `), `${route(note.exact.steps)} (value ${note.exact.value}); ${played}.`);
}

function renderPosition(d, pos) {
  const st = pos.observation.state;
  const view = { seats: app.view.seats, score: pos.score, decision: { seat: pos.decision.seat }, over: false };
  const ctx = { cat: app.cat, st, view, legal: [], targetMap: new Map(), costs: {}, selected: null, homeSeat: app.homeSeat, viewSeat: d.player, decisionSeat: pos.decision.seat };
  const board = $("#rv-board");
  renderBoard(board, ctx);
  board.setAttribute("viewBox", `0 0 ${BOARD_W} ${BOARD_H}`);
  for (const node of board.querySelectorAll("[id]")) node.removeAttribute("id"); // the page's board has them
  board.setAttribute("aria-label", `The board before step ${d.index} (round ${pos.round}): the step played is outlined in red, the best in green`);
  renderPlayers($("#rv-players"), ctx, window.matchMedia(NARROW).matches);
  for (const [cls, text] of [["rv-best", d.best], ["rv-played", d.played]]) {
    if (!text) continue;
    let keys = [];
    try {
      keys = S.targets(app.cat, st, text, d.player);
    } catch { /* a step the page cannot place: named only */ }
    const nodes = keys.flatMap((key) => [...document.querySelectorAll(`#rv-board [data-target="${CSS.escape(key)}"], #rv-players [data-target="${CSS.escape(key)}"]`)]);
    for (const node of nodes) node.classList.add(cls);
    if (cls === "rv-played") document.body.dataset.playedPlaces = String(nodes.length ? keys.length : 0);
  }
  rv.shownIndex = d.index;
  document.body.dataset.reviewShown = String(d.index);
}

// -- moving around --------------------------------------------------------------------------------

function step(delta) {
  if (!rv.decisions.length) return;
  select(Math.min(rv.decisions.length - 1, Math.max(0, rv.at + delta)));
}

function mistake(delta) {
  if (!rv.mistakes.length) return;
  const next = delta > 0 ? rv.mistakes.find((k) => k > rv.at) : [...rv.mistakes].reverse().find((k) => k < rv.at);
  if (next !== undefined) select(next);
}

/** The decision of the mistake mark nearest the click, within 12 px: a tap on a dot
 * is that dot's decision even where decisions lie closer together than a pixel or two
 * (a phone's chart), which the nearest step along the axis alone could miss. */
function markAt(ev) {
  let found = null;
  let nearest = 12 * 12;
  for (const mark of $("#rv-chart").querySelectorAll(".rc-mark")) {
    const r = mark.getBoundingClientRect();
    const dx = r.left + r.width / 2 - ev.clientX;
    const dy = r.top + r.height / 2 - ev.clientY;
    if (dx * dx + dy * dy < nearest) {
      nearest = dx * dx + dy * dy;
      found = Number(mark.dataset.index);
    }
  }
  return found;
}

function onChartClick(ev) {
  if (!rv.decisions.length) return;
  const at = markAt(ev) ?? indexAt($("#rv-chart"), ev, rv.steps);
  let best = 0;
  rv.decisions.forEach((d, k) => { if (Math.abs(d.index - at) < Math.abs(rv.decisions[best].index - at)) best = k; });
  select(best);
}

function onKey(ev) {
  if ($("#review-screen").hidden) return;
  if (ev.key === "Escape") { closeReview(); return; }
  if (ev.target instanceof Element && ev.target.matches("input, select, textarea")) return;
  if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
  const moves = { ArrowRight: () => step(1), ArrowLeft: () => step(-1), j: () => mistake(1), ArrowDown: () => mistake(1), k: () => mistake(-1), ArrowUp: () => mistake(-1) };
  const fn = moves[ev.key];
  if (!fn || !rv.decisions.length) return;
  ev.preventDefault();
  fn();
}

export function wireReview() {
  $("#btn-review").addEventListener("click", openReview);
  $("#final-review").addEventListener("click", openReview);
  $("#rv-close").addEventListener("click", closeReview);
  $("#rv-start").addEventListener("click", start);
  $("#rv-cancel").addEventListener("click", cancel);
  $("#rv-prev").addEventListener("click", () => step(-1));
  $("#rv-next").addEventListener("click", () => step(1));
  $("#rv-prev-mistake").addEventListener("click", () => mistake(-1));
  $("#rv-next-mistake").addEventListener("click", () => mistake(1));
  $("#rv-chart").addEventListener("click", onChartClick);
  document.addEventListener("keydown", onKey);
}
