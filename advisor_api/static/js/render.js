// Rendering a view: the click context of the legal steps, the board and players, the
// status line, the decision panel with its buttons and the list of legal steps; then
// the log and the score, and the next poll.

import { renderBoard, drawCosts, entryCost } from "./board.js";
import { renderPlayers } from "./players.js";
import * as S from "./steps.js";
import { h } from "./svg.js";
import { submit } from "./actions.js";
import { chancePanel, isLiveChance, markSlots, shownState, syncPicks } from "./chance.js";
import { closeChooser } from "./clicks.js";
import { schedulePoll, seatLink } from "./game.js";
import { NARROW, focusNow, keepFocus, markDecisionPane, revealTargets } from "./layout.js";
import { renderLog } from "./log.js";
import { closePicker } from "./picker.js";
import { renderFinal, renderScore } from "./score.js";
import { app } from "./state.js";
import { stopSuggest, suggest, updateSuggestButton } from "./suggest.js";
import { $, isAi, message, seatName, setUi } from "./ui.js";

/** Plain words for each kind of decision (engine.rules.OP_KINDS and chance). */
export const KIND_WORDS = {
  "starting-tile": "choose the starting tile to keep",
  "resting-cards": "put the starting cards into resting decks",
  plan: "plan your cards into the action slots",
  action: "take an action",
  "goods-buy": "buy a card from the display, or nothing",
  "goods-track": "move on a company track with goods",
  expansion: "place trading posts on the map",
  "reward-order": "choose the order of the rewards",
  "oust-return": "return an ousted trading post to its base",
  "remove-post": "remove a trading post from a base",
  "bookkeeper-flip": "flip a book with the bookkeeper",
  "ink-jar": "move the ink jar on or stop",
  "bookkeeping-points": "take books from the book display with bookkeeping points",
  "place-book": "place the book on your bookkeeping track",
  chance: "cards and books are dealt",
};

export function kindWords(kind) {
  return KIND_WORDS[kind] || String(kind || "").replace(/-/g, " ");
}

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

export function render(v) {
  const changed = !app.view || app.view.id !== v.id || app.view.steps !== v.steps;
  const focused = focusNow();
  const stepped = app.ownStep && changed;
  app.ownStep = false;
  tellTakeback(v, stepped);
  if (changed) {
    closeChooser();
    closePicker();
    if (app.view && app.view.steps !== v.steps) stopSuggest(true);
  }
  app.view = v;
  app.viewSeat = v.seat;
  syncPicks(v);
  const ctx = buildContext(v);
  app.ctx = ctx;
  const shown = shownState(v, ctx.st);
  renderBoard($("#board"), shown === ctx.st ? ctx : { ...ctx, st: shown });
  renderPlayers($("#players"), ctx, window.matchMedia(NARROW).matches);
  markTargets(ctx);
  markSlots(v);
  drawCosts($("#board"), app.cat, ctx.costs);
  const key = `${v.id}:${v.steps}:${v.seat}`;
  revealTargets(false, key); // a narrow screen: a new decision's targets in view
  renderStatus(ctx);
  renderDecision(ctx);
  markDecisionPane(ctx, key, !!$("#decision-buttons button[data-step]"));
  keepFocus(focused, stepped);
  renderLog(v);
  renderScore(v);
  renderFinal(v);
  // the service says: your own move, no reveal since; a tap on it when not says why
  $("#btn-undo").setAttribute("aria-disabled", String(!v.can_undo));
  $("#btn-undo").hidden = !v.seat || (v.mode === "play" && !v.takebacks);
  $("#btn-undo").title = v.can_undo ? "Take back your last step or move" : `Undo: ${whyNoUndo(v)}`;
  $("#btn-invite").hidden = !inviteLinks(v).length;
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
    // what is left to spend first: the phone's two lines keep it
    const left = leftToSpend(ctx);
    parts.push(h("b", {}, `${seatName(v, v.decision.seat)}: `), ...(left ? [h("b", { class: "left" }, left), h("b", {}, " · ")] : []),
      h("b", {}, kindWords(v.decision.kind)));
  } else {
    parts.push(h("span", { class: v.ai.thinking ? "thinking" : "" }, `${seatName(v, v.decision.seat)} is deciding: ${kindWords(v.decision.kind)}`));
  }
  const seed = v.seed === null ? "" : ` · seed ${v.seed}${v.reproducible && !v.over ? " (reproducible: the cards can be foreseen)" : ""}`;
  parts.push(h("span", { class: "muted" }, `  · ${v.mode === "live" ? "live table" : "play"} · game ${v.id}${seed}${v.seat ? "" : " · spectator"}`));
  box.replaceChildren(...parts);
}

/** Play mode with several human seats: a link for each other human seat this page holds
 * the token of, and one for spectators. */
export function inviteLinks(v) {
  if (!v || v.mode !== "play" || !v.seat) return [];
  const others = v.seats.filter((s) => s.kind === "human" && s.seat !== app.homeSeat && app.tokens[s.seat]);
  if (!others.length) return [];
  return [...others.map((s) => [`P${s.seat}`, seatLink(v.id, s.seat)]), ["Spectators", seatLink(v.id, null)]];
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
    helpNode.textContent = v.decision.kind === "chance" ? "The service deals the next cards and books." : `${seatName(v, v.decision.seat)} decides: ${kindWords(v.decision.kind)}.`;
  } else {
    if (isLiveChance(v)) {
      chancePanel(v, titleNode, helpNode, buttons);
    } else if (v.decision.kind === "chance") {
      titleNode.textContent = "Dealing";
      helpNode.textContent = S.help(v.decision.kind, false);
    } else {
      titleNode.textContent = `${seatName(v, v.decision.seat)}: ${kindWords(v.decision.kind)}`;
      const left = leftToSpend(ctx);
      helpNode.replaceChildren(...(left ? [h("b", { class: "left" }, `${left[0].toUpperCase()}${left.slice(1)}.`), " "] : []), S.help(v.decision.kind, v.mode === "live"));
    }
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

export function renderLegalList(ctx) {
  const list = $("#legal-steps");
  const filter = $("#legal-filter").value.trim().toLowerCase();
  // each step in plain words (as the log says it), its notation on hover; the filter
  // finds either
  const items = ctx.legal.map((t) => [t, S.describe(app.cat, ctx.st, t)])
    .filter(([t, words]) => !filter || t.toLowerCase().includes(filter) || words.toLowerCase().includes(filter));
  $("#legal-count").textContent = ctx.legal.length ? `(${ctx.legal.length})` : "";
  list.replaceChildren(...items.map(([t, words]) => h("button", { type: "button", "data-step": t, title: t, onclick: () => submit(t) }, words)));
  $("#legal-box").hidden = !ctx.legal.length;
}

/** Why Undo is disabled now, in words (the service's rules: docs/api.md, "Takebacks"). */
export function whyNoUndo(v) {
  if (v.over) return "the game is over";
  if (v.mode === "play" && !v.takebacks) return "takebacks are off in this game (it has several human seats: tick \"Takebacks\" when creating one)";
  const me = `P${v.seat}`;
  const hist = v.history || [];
  let k = hist.length - 1;
  if (v.mode === "live") return k >= 0 ? "nothing entered can be corrected now" : "nothing entered yet";
  for (; k >= 0; k--) {
    const e = hist[k];
    if (e.source === "human" && e.player === me) break;
    if (e.source === "human") return `${e.player} has played since your last move: undo takes back only your own`;
  }
  if (k < 0) return "you have not moved yet";
  if (hist.slice(k).some((e) => e.source === "chance")) return "cards or books were dealt after your move: no takeback across a reveal";
  return "the plans were revealed after your move: no takeback across a reveal";
}

/** Another page took a move back (an opponent's takeback, a correction at a live
 * table): the board went back; say so, and by whom. */
function tellTakeback(v, stepped) {
  const old = app.view;
  if (stepped || !old || old.id !== v.id || v.steps >= old.steps) return;
  const gone = (old.history || []).slice(v.steps).filter((e) => e.source !== "chance");
  const who = gone.length ? gone[0].player : "another player";
  const n = old.steps - v.steps;
  message("info", `${who === `P${v.seat}` ? "Your move" : `${who}'s move`} was taken back${v.mode === "live" ? " (a correction)" : ""}: the game went back ${n} step${n > 1 ? "s" : ""}, as the board now shows.`);
}

/** What the decision has left to spend, in words ("3 bookkeeping points left"), or "". */
export function leftToSpend(ctx) {
  const st = ctx.st;
  const due = st.pending && st.pending[0];
  const n = (x, one, many) => `${x} ${x === 1 ? one : many} left`;
  switch (ctx.kind) {
    case "bookkeeping-points": return typeof st.pool === "number" ? n(st.pool, "bookkeeping point", "bookkeeping points") : "";
    case "goods-buy": case "goods-track": return due && typeof due.units === "number" ? n(due.units, "goods unit", "goods units") : "";
    case "expansion": return due && typeof due.points === "number" ? n(due.points, "expansion point", "expansion points") : "";
    default: return "";
  }
}
