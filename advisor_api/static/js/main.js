// The page's controller: the new-game form, loading and polling a game, rendering the
// table, turning clicks into steps, the decision panel, the game log, the score and
// the suggestions panel.

import { api, analyseStream, ApiError } from "./api.js";
import { renderBoard, drawCosts, drawRoute, clearOverlay, entryCost, baseGeometry, geometry, baseValue } from "./board.js";
import { renderPlayers } from "./players.js";
import * as S from "./steps.js";
import { h, PLAYER_FILL } from "./svg.js";

const $ = (sel) => document.querySelector(sel);

const app = {
  cat: null,
  id: null,
  homeSeat: 1, // the seat of the person at the screen
  viewSeat: 1, // the seat whose view is shown (the deciding one in live / hot-seat games)
  view: null,
  ctx: null,
  selected: null, // planning: the hand card picked, waiting for a slot
  busy: false,
  pollTimer: null,
  polling: false,
  analysis: null, // AbortController of the running suggestion search
  linesKey: null,
  logShown: 0,
  logSteps: 0,
  logKey: null,
};

// -- small UI helpers -------------------------------------------------------------------------
function setUi(state) {
  document.body.dataset.ui = state;
}

function message(kind, textOrNode) {
  const box = $("#message");
  if (!textOrNode) {
    box.hidden = true;
    box.textContent = "";
    return;
  }
  box.className = kind;
  box.replaceChildren(typeof textOrNode === "string" ? document.createTextNode(textOrNode) : textOrNode);
  box.hidden = false;
}

function errorText(err) {
  if (err instanceof ApiError) {
    const what = { 409: "Not allowed now", 422: "Not understood", 404: "Not found", 429: "The AI is busy", 500: "Server error", 504: "The search took too long" }[err.status] || `Error ${err.status}`;
    return `${what}: ${err.message}`;
  }
  return `Error: ${err && err.message ? err.message : err}`;
}

function showError(err) {
  message("error", errorText(err));
}

function seatName(v, seat) {
  if (!seat) return "chance";
  const info = v.seats[seat - 1];
  if (!info) return `P${seat}`;
  if (info.kind === "ai") return `P${seat} (AI)`;
  return seat === app.homeSeat && v.mode === "play" ? `P${seat} (you)` : `P${seat}`;
}

function isAi(v, seat) {
  return !!seat && v.seats[seat - 1] && v.seats[seat - 1].kind === "ai";
}

// -- loading a game ---------------------------------------------------------------------------
function desiredSeat(v) {
  if (v.over) return app.homeSeat;
  const ds = v.decision.seat;
  if (v.mode === "live") return ds || app.viewSeat;
  if (ds && !isAi(v, ds)) return ds; // hot seat: every human seat plays at this screen
  return app.homeSeat;
}

async function fetchView(wait = 0) {
  let v = await api.view(app.id, app.viewSeat, wait);
  const want = desiredSeat(v);
  if (want !== v.seat) {
    app.viewSeat = want;
    v = await api.view(app.id, want);
  }
  return v;
}

async function openGame(id, seat) {
  app.id = id;
  app.homeSeat = seat;
  app.viewSeat = seat;
  app.logShown = 0;
  app.logKey = null;
  app.selected = null;
  stopSuggest(true);
  location.hash = `game=${encodeURIComponent(id)}&seat=${seat}`;
  setUi("busy");
  try {
    render(await fetchView());
  } catch (err) {
    showError(err);
    setUi("idle");
  }
}

async function afterChange(v) {
  const want = desiredSeat(v);
  if (want !== v.seat) {
    app.viewSeat = want;
    v = await api.view(app.id, want);
  }
  render(v);
}

function schedulePoll() {
  clearTimeout(app.pollTimer);
  const v = app.view;
  if (!v || v.over || v.mode !== "play") return;
  const waiting = v.ai.thinking || (isAi(v, v.decision.seat) && !v.ai.error);
  if (!waiting) return;
  app.pollTimer = setTimeout(poll, 250);
}

async function poll() {
  if (app.busy || app.polling || !app.id) return;
  app.polling = true;
  const id = app.id;
  try {
    const v = await fetchView(1);
    if (id === app.id && !app.busy) render(v);
  } catch (err) {
    showError(err);
    app.pollTimer = setTimeout(poll, 2000);
  } finally {
    app.polling = false;
  }
}

// -- rendering -----------------------------------------------------------------------------------
function buildContext(v) {
  const cat = app.cat;
  const st = v.observation.state;
  const legal = v.legal.map((x) => x.text);
  const kind = v.decision.kind;
  const seat = v.seat;
  const targetMap = new Map();
  const add = (key, t) => {
    if (!targetMap.has(key)) targetMap.set(key, []);
    targetMap.get(key).push(t);
  };
  if (app.selected && !legal.some((t) => t.startsWith(`plan ${app.selected} `))) app.selected = null;
  for (const t of legal) {
    const p = S.parse(t);
    const keys = S.targets(cat, st, t, seat);
    if (p.kind === "plan") {
      add(keys[0], t);
      if (app.selected === p.args[0]) add(keys[1], t);
      continue;
    }
    for (const k of keys) add(k, t);
  }
  const costs = {};
  if (kind === "expansion") {
    const company = S.workCompany(cat, st);
    for (const t of legal) {
      const p = S.parse(t);
      if (p.kind === "enter" && company) costs[p.args[0]] = entryCost(cat, st, company, p.args[0]);
    }
  }
  return {
    cat, st, view: v, legal, kind, seat, targetMap, costs,
    mine: legal.length > 0,
    selected: app.selected,
    decisionSeat: v.decision.seat,
    homeSeat: app.homeSeat,
    viewSeat: v.seat,
  };
}

function render(v) {
  const changed = !app.view || app.view.id !== v.id || app.view.steps !== v.steps;
  if (changed) {
    closeChooser();
    if (app.view && app.view.steps !== v.steps) stopSuggest(true);
  }
  app.view = v;
  const ctx = buildContext(v);
  app.ctx = ctx;
  renderBoard($("#board"), ctx);
  renderPlayers($("#players"), ctx);
  markTargets(ctx);
  drawCosts($("#board"), app.cat, ctx.costs);
  renderStatus(ctx);
  renderDecision(ctx);
  renderLog(v);
  renderScore(v);
  renderFinal(v);
  $("#btn-undo").disabled = !v.history.some((x) => x.source === "human" || x.source === "report");
  const ui = v.over ? "over" : ctx.mine ? "turn" : v.mode === "play" && (v.ai.thinking || isAi(v, v.decision.seat)) ? "waiting" : "idle";
  document.body.dataset.steps = String(v.steps);
  document.body.dataset.round = String(v.round);
  document.body.dataset.decision = v.decision.kind;
  setUi(ui);
  if (v.ai.error) message("info", `AI: ${v.ai.error}`);
  schedulePoll();
  if (ui === "turn" && changed && $("#suggest-auto").checked && v.decision.kind !== "chance") suggest();
  updateSuggestButton();
}

function markTargets(ctx) {
  for (const [key, steps] of ctx.targetMap) {
    if (!steps.length) continue;
    for (const node of document.querySelectorAll(`[data-target="${key}"]`)) node.classList.add("legal");
  }
  if (ctx.selected) {
    for (const node of document.querySelectorAll(`[data-target="hand:${ctx.seat}:${ctx.selected}"]`)) node.classList.add("selected");
  }
}

function renderStatus(ctx) {
  const v = ctx.view;
  const box = $("#status");
  const parts = [];
  parts.push(h("span", {}, v.round ? `Round ${v.round} · ${v.phase}` : "Setup"));
  parts.push(" — ");
  if (v.over) {
    const w = (v.winners || []).map((x) => `P${x}`).join(" and ");
    parts.push(h("b", {}, `Game over: ${w} win${(v.winners || []).length > 1 ? "" : "s"}`));
  } else if (v.decision.kind === "chance") {
    parts.push(v.mode === "live" ? h("b", {}, "Report what was revealed at the table") : h("span", { class: "thinking" }, "Dealing"));
  } else if (ctx.mine) {
    parts.push(h("b", {}, `${seatName(v, v.decision.seat)}: ${v.decision.kind}`));
  } else {
    parts.push(h("span", { class: v.ai.thinking ? "thinking" : "" }, `${seatName(v, v.decision.seat)} is deciding (${v.decision.kind})`));
  }
  parts.push(h("span", { class: "muted" }, `  · ${v.mode === "live" ? "live table" : "play"} · game ${v.id} · seed ${v.seed}`));
  box.replaceChildren(...parts);
}

function renderDecision(ctx) {
  const v = ctx.view;
  const titleNode = $("#decision-title");
  const helpNode = $("#decision-help");
  const buttons = $("#decision-buttons");
  buttons.replaceChildren();
  if (v.over) {
    titleNode.textContent = "The game is over";
    helpNode.textContent = "The final score is above. Start a new game to play again.";
  } else if (!ctx.mine) {
    titleNode.textContent = `Waiting for ${seatName(v, v.decision.seat)}`;
    helpNode.textContent = v.decision.kind === "chance" ? "The service deals the next cards and books." : `${seatName(v, v.decision.seat)} decides: ${v.decision.kind}.`;
  } else {
    if (v.decision.kind === "chance") {
      const first = S.parse(ctx.legal[0]);
      const what = { "deal-card": `a card for display space ${first.args[1]}`, "deal-book": `a book for space ${first.args[1]}`,
        "deal-track": `the track at ${S.companyName(app.cat, first.args[0])}`, "deal-tile": `a starting tile for ${first.args[0]}` }[first.kind] || "an outcome";
      titleNode.textContent = `At the table: ${what}`;
    } else {
      titleNode.textContent = `${seatName(v, v.decision.seat)}: ${v.decision.kind}`;
    }
    helpNode.textContent = S.help(v.decision.kind, v.mode === "live");
    if (ctx.selected) {
      buttons.append(h("span", { class: "muted" }, `Selected ${S.cardLabel(app.cat, ctx.selected)}: click a slot. `),
        h("button", { type: "button", onclick: () => { app.selected = null; render(app.view); } }, "Cancel"));
    }
    for (const t of ctx.legal) {
      const p = S.parse(t);
      if (!S.BUTTON_KINDS.has(p.kind) && !(p.kind === "end" && p.args[0] === "-")) continue;
      buttons.append(h("button", { type: "button", "data-step": t, title: t, onclick: () => submit(t) }, S.describe(app.cat, ctx.st, t)));
    }
  }
  renderLegalList(ctx);
}

function renderLegalList(ctx) {
  const list = $("#legal-steps");
  const filter = $("#legal-filter").value.trim().toLowerCase();
  const items = ctx.legal.filter((t) => !filter || t.toLowerCase().includes(filter));
  $("#legal-count").textContent = ctx.legal.length ? `(${ctx.legal.length})` : "";
  list.replaceChildren(...items.map((t) => h("button", { type: "button", "data-step": t, title: S.describe(app.cat, ctx.st, t), onclick: () => submit(t) }, t)));
  $("#legal-box").hidden = !ctx.legal.length;
}

// -- the game log ------------------------------------------------------------------------------
const STARTERS = new Set(["goods", "expand", "keeper", "merchant", "first", "buy-card", "remove-card", "majority", "reserve", "track-bonus", "end", "rest", "tile"]);

function groupHistory(history) {
  const groups = [];
  for (const e of history) {
    const last = groups[groups.length - 1];
    const kind = e.step ? S.parse(e.step).kind : null;
    const lastKind = last ? last.kinds[last.kinds.length - 1] : null;
    let join = last && last.player === e.player && last.source === e.source;
    if (join && e.player !== "chance") {
      if (kind === null) join = lastKind === null;
      else if (kind === "plan" || kind === "ready") join = lastKind === "plan" || lastKind === null;
      else if (STARTERS.has(kind)) join = false;
      else join = lastKind !== "ready" && lastKind !== "end" && lastKind !== null;
    }
    if (join) {
      last.steps.push(e.step);
      last.kinds.push(kind);
      last.last = e.index;
    } else {
      groups.push({ player: e.player, source: e.source, steps: [e.step], kinds: [kind], first: e.index, last: e.index });
    }
  }
  return groups;
}

function groupText(grp) {
  if (grp.player === "chance") {
    const shown = grp.steps.filter(Boolean).map((t) => {
      const p = S.parse(t);
      if (p.kind === "deal-card") return `${p.args[0]}→${p.args[1]}`;
      if (p.kind === "deal-book") return `${p.args[0]}→${p.args[1]}`;
      return t.replace(/^deal-/, "");
    });
    const hidden = grp.steps.length - shown.length;
    return `Dealt ${shown.join(", ")}${hidden ? ` (+${hidden} hidden)` : ""}`;
  }
  if (grp.steps.every((t) => t === null)) {
    return grp.kinds.length && grp.steps.length > 1 ? `planned ${grp.steps.length} cards face down (shown at the reveal)` : "a face-down choice (shown at the reveal)";
  }
  return grp.steps.map((t) => t || "(hidden)").join("; ");
}

function groupSig(grp) {
  return `${grp.player}|${grp.source}|${grp.steps.map((t) => t || "?").join(";")}`;
}

function logItem(grp, index, animate) {
  const pi = grp.player.startsWith("P") ? Number(grp.player.slice(1)) - 1 : -1;
  const src = grp.source === "human" ? (pi + 1 === app.homeSeat ? "you" : "human")
    : { ai: "AI", chance: "dealt", report: "table" }[grp.source] || grp.source;
  return h("li", {
    class: `${grp.player === "chance" ? "chance" : ""}${animate ? " new" : ""}`,
    "data-group": index, "data-sig": groupSig(grp), "data-source": grp.source,
    title: grp.steps.filter(Boolean).map((t) => S.describe(app.cat, null, t)).join("\n"),
  },
  h("span", { class: "who", style: pi >= 0 ? `color:${PLAYER_FILL[pi]}` : "" }, pi >= 0 ? grp.player : ""),
  h("span", { class: "txt" }, groupText(grp)),
  h("span", { class: "src" }, src));
}

function renderLog(v) {
  const list = $("#log");
  const groups = groupHistory(v.history);
  if (app.logKey !== v.id || v.history.length < app.logSteps || groups.length < app.logShown) {
    list.replaceChildren();
    app.logShown = 0;
    app.logKey = v.id;
  }
  app.logSteps = v.history.length;
  const animate = app.logShown > 0;
  const shown = [...list.children];
  // groups already shown may have grown, or been revealed (hidden plans) since
  shown.forEach((li, i) => {
    if (li.dataset.sig !== groupSig(groups[i])) li.replaceWith(logItem(groups[i], i, false));
  });
  groups.slice(shown.length).forEach((grp, k) => {
    const li = logItem(grp, shown.length + k, animate);
    // new moves (the AI's) appear one after the other
    if (animate) li.style.animationDelay = `${Math.min(k, 12) * 0.3}s`;
    list.append(li);
  });
  app.logShown = groups.length;
  list.scrollTop = list.scrollHeight;
}

// -- scores ---------------------------------------------------------------------------------
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

function renderScore(v) {
  $("#score-kind").textContent = v.over ? "(final)" : "(provisional, if the game ended now)";
  $("#score-body").replaceChildren(scoreTable(v, "score-table"));
}

function renderFinal(v) {
  const box = $("#final");
  if (!v.over) {
    box.hidden = true;
    return;
  }
  const w = (v.winners || []).map((x) => seatName(v, x)).join(" and ");
  $("#final-body").replaceChildren(h("p", { class: "winners" }, `${w} win${(v.winners || []).length > 1 ? " (shared)" : "s"}!`), scoreTable(v, "final-score"));
  box.hidden = false;
}

// -- clicks on the table -------------------------------------------------------------------------
function targetChain(node) {
  const chain = [];
  let el = node.closest ? node.closest("[data-target]") : null;
  while (el) {
    chain.push(el.getAttribute("data-target"));
    el = el.parentElement ? el.parentElement.closest("[data-target]") : null;
  }
  return chain;
}

function onTableClick(ev) {
  const chain = targetChain(ev.target);
  if (!chain.length) return;
  const ctx = app.ctx;
  const v = app.view;
  if (!v || !ctx || app.busy) return;
  if (v.over) return;
  if (!ctx.mine) {
    message("info", v.decision.kind === "chance" ? "Wait: the cards and books are being dealt." : `Wait for ${seatName(v, v.decision.seat)}: it is not your decision.`);
    return;
  }
  const seat = ctx.seat;
  if (ctx.kind === "plan") {
    const hand = chain.find((k) => k.startsWith(`hand:${seat}:`));
    if (hand) {
      const cardName = hand.split(":")[2];
      if (!(ctx.targetMap.get(hand) || []).length) {
        submit(`plan ${cardName} ${firstFreeSlot(ctx)}`);
        return;
      }
      app.selected = app.selected === cardName ? null : cardName;
      message(null);
      render(v);
      return;
    }
    const slot = chain.find((k) => k.startsWith(`slot:${seat}:`));
    if (slot) {
      if (!app.selected) {
        message("info", "Pick a card from your hand first, then click the slot for it.");
        return;
      }
      submit(`plan ${app.selected} ${slot.split(":")[2]}`);
      return;
    }
  }
  for (const key of chain) {
    const steps = ctx.targetMap.get(key) || [];
    if (steps.length === 1) {
      submit(steps[0]);
      return;
    }
    if (steps.length > 1) {
      openChooser(ev, key, steps);
      return;
    }
  }
  for (const key of chain) {
    const natural = S.naturalStep(app.cat, ctx.st, ctx.kind, key, seat, app.selected, ctx.legal);
    if (natural) {
      submit(natural);
      return;
    }
  }
  message("info", `Nothing to do there now. ${S.help(ctx.kind, v.mode === "live")}`);
}

function firstFreeSlot(ctx) {
  const p = ctx.st.player_states[ctx.seat - 1];
  const k = p.slots.findIndex((c, i) => !c && i > 0);
  return k >= 0 ? k + 1 : 2;
}

// -- the chooser (several steps for one click) ---------------------------------------------------------
function chooserLabel(ctx, t) {
  const p = S.parse(t);
  if (p.kind === "enter") {
    const company = S.workCompany(app.cat, ctx.st);
    const cols = ctx.st.bases[company].map((c) => [...c]);
    const before = baseValue(app.cat, cols);
    const k = Number(p.args[1]) - 1;
    const [n, dead] = cols[k];
    cols[k] = [n - 1, dead || n === 1];
    const after = baseValue(app.cat, cols);
    return `Post from column ${k + 1} (share value ${before} → ${after}), cost ${ctx.costs[p.args[0]] ?? "?"}`;
  }
  return S.describe(app.cat, ctx.st, t);
}

function openChooser(ev, key, steps) {
  const box = $("#chooser");
  const ctx = app.ctx;
  const first = S.parse(steps[0]);
  const heading = key.startsWith("region:") ? `Enter ${S.regionName(app.cat, key.split(":")[1])}: which base column?`
    : first.kind === "deal-card" ? `Which card was revealed in ${first.args[1]}?`
      : first.kind === "deal-book" ? `Which book was revealed in ${first.args[1]}?`
        : first.kind === "goods" ? "Which goods cards?"
          : first.kind === "expand" ? "Expand which company?"
            : "Choose";
  box.replaceChildren(h("h3", {}, heading),
    ...steps.map((t) => h("button", { type: "button", "data-step": t, title: t, onclick: () => { closeChooser(); submit(t); } }, chooserLabel(ctx, t))),
    h("button", { type: "button", class: "muted", onclick: closeChooser }, "Cancel"));
  box.hidden = false;
  const w = box.offsetWidth;
  const hgt = box.offsetHeight;
  box.style.left = `${Math.max(8, Math.min(ev.clientX + 8, window.innerWidth - w - 8))}px`;
  box.style.top = `${Math.max(8, Math.min(ev.clientY + 8, window.innerHeight - hgt - 8))}px`;
}

function closeChooser() {
  $("#chooser").hidden = true;
}

// -- playing steps ---------------------------------------------------------------------------------
async function submit(text) {
  const v = app.view;
  if (!v || app.busy) return;
  app.busy = true;
  setUi("busy");
  closeChooser();
  try {
    const res = v.decision.kind === "chance" ? await api.chance(app.id, v.seat, text) : await api.step(app.id, v.seat, text);
    app.selected = null;
    message(null);
    app.busy = false;
    await afterChange(res);
  } catch (err) {
    app.busy = false;
    showError(err);
    render(app.view);
  }
}

async function playLine(line) {
  const v = app.view;
  if (!v || app.busy) return;
  const steps = line.move.text.split("; ").filter(Boolean);
  app.busy = true;
  setUi("busy");
  let last = null;
  try {
    for (const t of steps) {
      last = await api.step(app.id, v.seat, t);
      if (!last.your_turn && v.mode === "play") break;
      if (v.mode === "live" && last.decision.seat !== v.decision.seat) break;
    }
    message(null);
  } catch (err) {
    showError(err);
  }
  app.busy = false;
  try {
    await afterChange(last || (await api.view(app.id, v.seat)));
  } catch (err) {
    showError(err);
  }
}

async function undo() {
  if (!app.id || app.busy) return;
  app.busy = true;
  setUi("busy");
  try {
    const v = await api.undo(app.id, app.viewSeat);
    message("info", "Undone.");
    app.busy = false;
    stopSuggest(true);
    await afterChange(v);
  } catch (err) {
    app.busy = false;
    showError(err);
    render(app.view);
  }
}

// -- suggestions -----------------------------------------------------------------------------------------
function stopSuggest(clear) {
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

function updateSuggestButton() {
  const v = app.view;
  const ok = !!v && !v.over && app.ctx && app.ctx.mine && v.decision.kind !== "chance";
  $("#btn-suggest").disabled = !ok;
  $("#btn-suggest").textContent = app.analysis ? "Stop" : "Suggest moves";
  if (app.analysis) $("#btn-suggest").disabled = false;
}

async function suggest() {
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

// -- the new-game form -------------------------------------------------------------------------------
const STRENGTHS = [
  ["mcts:time=0.5", "Normal (0.5 s a move)"],
  ["mcts:time=0.2", "Quick (0.2 s a move)"],
  ["mcts:time=2", "Strong (2 s a move)"],
  ["mcts:time=5", "Very strong (5 s a move)"],
  ["greedy", "Greedy (instant)"],
  ["random", "Random"],
  ["custom", "Custom bot spec…"],
];

function seatRows() {
  const n = Number($("#ng-players").value);
  const body = $("#ng-seats tbody");
  const old = [...body.querySelectorAll("tr")].map((tr) => ({
    kind: tr.querySelector(".ng-kind").value, bot: tr.querySelector(".ng-bot").value, custom: tr.querySelector(".ng-custom").value,
  }));
  body.replaceChildren();
  for (let i = 0; i < n; i++) {
    const prev = old[i] || { kind: i === 0 ? "human" : "ai", bot: STRENGTHS[0][0], custom: "" };
    const kind = h("select", { class: "ng-kind", name: `seat${i + 1}-kind`, "aria-label": `Seat ${i + 1}` },
      h("option", { value: "human" }, "Human"), h("option", { value: "ai" }, "AI"));
    kind.value = prev.kind;
    const bot = h("select", { class: "ng-bot", name: `seat${i + 1}-bot`, "aria-label": `Seat ${i + 1} AI strength` },
      ...STRENGTHS.map(([v, label]) => h("option", { value: v }, label)));
    bot.value = prev.bot;
    const custom = h("input", { class: "ng-custom", name: `seat${i + 1}-spec`, placeholder: "e.g. mcts:iterations=400", "aria-label": `Seat ${i + 1} bot spec`, value: prev.custom });
    const sync = () => {
      bot.hidden = kind.value !== "ai";
      custom.hidden = kind.value !== "ai" || bot.value !== "custom";
    };
    kind.addEventListener("change", sync);
    bot.addEventListener("change", sync);
    sync();
    body.append(h("tr", { "data-seat": i + 1 }, h("td", {}, h("span", { class: "sw", style: `display:inline-block;width:12px;height:12px;border-radius:50%;background:${PLAYER_FILL[i]};margin-right:5px` }), `P${i + 1}`), h("td", {}, kind), h("td", {}, bot, custom)));
  }
}

function openNewGame() {
  $("#ng-error").hidden = true;
  if (!$("#ng-seats tbody").children.length) seatRows();
  const dlg = $("#new-game");
  if (!dlg.open) dlg.showModal();
}

async function startGame(ev) {
  ev.preventDefault();
  const seats = [...document.querySelectorAll("#ng-seats tbody tr")].map((tr) => {
    const kind = tr.querySelector(".ng-kind").value;
    if (kind === "human") return { kind: "human" };
    const sel = tr.querySelector(".ng-bot").value;
    const bot = sel === "custom" ? tr.querySelector(".ng-custom").value.trim() : sel;
    return bot ? { kind: "ai", bot } : { kind: "ai" };
  });
  const seedText = $("#ng-seed").value.trim();
  const form = $("#new-form");
  const body = {
    seats,
    variable: form.querySelector("input[name=setup]:checked").value === "variable",
    mode: form.querySelector("input[name=mode]:checked").value,
  };
  if (seedText) body.seed = Number(seedText);
  $("#ng-start").disabled = true;
  try {
    const v = await api.create(body);
    $("#new-game").close();
    message(null);
    const seat = v.seat;
    await openGame(v.id, seat);
  } catch (err) {
    const box = $("#ng-error");
    box.textContent = errorText(err);
    box.hidden = false;
  } finally {
    $("#ng-start").disabled = false;
  }
}

async function openById() {
  const id = $("#ng-open-id").value.trim();
  if (!id) return;
  $("#new-game").close();
  await openGame(id, 1);
}

// -- start -------------------------------------------------------------------------------------------
async function main() {
  try {
    app.cat = await api.catalogue();
  } catch (err) {
    showError(err);
    setUi("idle");
    return;
  }
  $("#board").addEventListener("click", onTableClick);
  $("#players").addEventListener("click", onTableClick);
  $("#btn-new").addEventListener("click", openNewGame);
  $("#btn-undo").addEventListener("click", undo);
  $("#btn-suggest").addEventListener("click", () => suggest());
  $("#ng-players").addEventListener("change", seatRows);
  $("#new-form").addEventListener("submit", startGame);
  $("#ng-cancel").addEventListener("click", () => $("#new-game").close());
  $("#ng-open").addEventListener("click", openById);
  $("#legal-filter").addEventListener("input", () => app.ctx && renderLegalList(app.ctx));
  document.addEventListener("keydown", (ev) => { if (ev.key === "Escape") closeChooser(); });
  document.addEventListener("click", (ev) => {
    if (!$("#chooser").hidden && !ev.target.closest("#chooser") && !ev.target.closest("[data-target]")) closeChooser();
  });
  const params = new URLSearchParams(location.hash.slice(1));
  const id = params.get("game");
  if (id) {
    await openGame(id, Number(params.get("seat")) || 1);
  } else {
    $("#status").textContent = "No game yet: start one.";
    setUi("idle");
    renderEmpty();
    openNewGame();
  }
}

/** The starting board (no game yet): a fresh first-game layout without cards. */
function renderEmpty() {
  const cat = app.cat;
  const st = {
    round: 0, phase: "setup", first: 1, next_first: null, owners: Object.fromEntries(cat.regions.map((r) => [r.id, null])),
    bases: Object.fromEntries(cat.companies.map((c) => [c.id, Array.from({ length: cat.base.columns }, () => [cat.base.spaces, false])])),
    display: Object.fromEntries(cat.display.spaces.map((x) => [x.name, null])),
    book_display: Object.fromEntries(cat.book_display.spaces.map((x) => [x.name, null])),
    book_coins: Object.fromEntries(cat.book_display.spaces.map((x) => [x.name, 0])),
    round_coins: cat.round_coins["2"] || [], bonus: Object.fromEntries(cat.bonus_spaces.map((b) => [b.id, null])),
    tracks: cat.first_game_tracks, player_states: [], pending: [],
  };
  const ctx = { cat, st, view: { score: [], seats: [] }, legal: [], targetMap: new Map(), costs: {} };
  renderBoard($("#board"), ctx);
}

window.addEventListener("hashchange", () => {
  const params = new URLSearchParams(location.hash.slice(1));
  const id = params.get("game");
  if (id && id !== app.id) openGame(id, Number(params.get("seat")) || 1);
});

main();
