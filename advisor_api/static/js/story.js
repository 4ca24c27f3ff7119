// What just happened, in words: the history grouped into moves and described in plain
// language (the log, the suggestions and the banner share these words; the notation
// goes in title attributes only), the other players' moves since your last decision
// highlighted on the board and told in a banner, and a summary of each round when the
// next one begins (who did what, the money by category and how it changed).

import * as S from "./steps.js";
import { h } from "./svg.js";
import { app } from "./state.js";
import { $, seatName } from "./ui.js";

const STARTERS = new Set(["goods", "expand", "keeper", "merchant", "first", "buy-card", "remove-card", "majority", "reserve", "track-bonus", "end", "rest", "tile"]);

/** History entries grouped into moves: {player, source, round, steps, contexts, kinds,
 * first, last}; contexts[k]: the service's facts of the board before steps[k]. */
export function groupHistory(history) {
  const groups = [];
  for (const e of history) {
    const last = groups[groups.length - 1];
    const kind = e.step ? S.parse(e.step).kind : null;
    const lastKind = last ? last.kinds[last.kinds.length - 1] : null;
    let join = last && last.player === e.player && last.source === e.source && last.round === (e.round ?? 0);
    if (join && e.player !== "chance") {
      if (kind === null) join = lastKind === null;
      else if (kind === "plan" || kind === "ready") join = lastKind === "plan" || lastKind === null;
      else if (STARTERS.has(kind)) join = false;
      else join = lastKind !== "ready" && lastKind !== "end" && lastKind !== null;
    }
    if (join) {
      last.steps.push(e.step);
      last.contexts.push(e.context ?? null);
      last.kinds.push(kind);
      last.last = e.index;
    } else {
      groups.push({ player: e.player, source: e.source, round: e.round ?? 0, steps: [e.step], contexts: [e.context ?? null], kinds: [kind], first: e.index, last: e.index });
    }
  }
  return groups;
}

/** One step in words: a step of the history read against its ``context`` (the board
 * before it, from the service), a step to come against the state ``st``. */
export function stepWords(text, st = null, context = null) {
  if (!text) return "a face-down choice";
  try {
    return S.describe(app.cat, st, text, context);
  } catch {
    return text;
  }
}

/** Several steps of one move in words. */
export function stepsWords(texts, st = null) {
  return texts.map((t) => stepWords(t, st)).join("; ");
}

const CHANCE_NOUN = { "deal-card": ["card", "cards"], "deal-book": ["book", "books"], "deal-track": ["track", "tracks"], "deal-tile": ["starting tile", "starting tiles"] };

/** A move (a group of the log) in words. */
export function groupWords(grp) {
  if (grp.player === "chance") {
    const counts = new Map();
    for (const t of grp.steps) {
      const kind = t ? S.parse(t).kind : "deal-tile";
      counts.set(kind, (counts.get(kind) || 0) + 1);
    }
    const parts = [...counts].map(([k, n]) => {
      const [one, many] = CHANCE_NOUN[k] || ["thing", "things"];
      return `${n} ${n === 1 ? one : many}`;
    });
    if (grp.steps.length === 1 && grp.steps[0]) return stepWords(grp.steps[0], null, contextOf(grp, 0));
    return `Dealt ${parts.join(", ")}`;
  }
  if (grp.steps.every((t) => t === null)) {
    return grp.steps.length > 1 ? `planned ${grp.steps.length} cards face down (shown at the reveal)` : "a face-down choice (shown at the reveal)";
  }
  const hidden = grp.steps.filter((t) => t === null).length;
  const shown = grp.steps.map((t, k) => (t ? stepWords(t, null, contextOf(grp, k)) : null)).filter(Boolean);
  if (!hidden) return shown.join("; ");
  const face = grp.kinds.includes("ready") || grp.steps.length > 1 ? `planned ${hidden} card${hidden === 1 ? "" : "s"} face down` : "a face-down choice";
  return [face, ...shown].join("; ");
}

/** The context of a group's k-th step (the board before it); {} when the service sent
 * none, so that the step is never read against the board as it is now. */
export function contextOf(grp, k) {
  return (grp.contexts && grp.contexts[k]) || {};
}

/** The notation of a move, for a title attribute. */
export function groupNotation(grp) {
  return grp.steps.map((t) => t || "(hidden)").join("; ");
}

function seatOf(player) {
  return player && player.startsWith("P") ? Number(player.slice(1)) : null;
}

/** The other players' moves since this page's seat last decided (the spectator: the
 * last move of anyone); chance deals are left out. */
export function movesSince(v) {
  const groups = groupHistory(v.history);
  const me = app.homeSeat ? `P${app.homeSeat}` : null;
  const out = [];
  for (let i = groups.length - 1; i >= 0; i--) {
    const grp = groups[i];
    if (grp.player === "chance") continue;
    if (me ? grp.player === me : out.length) break;
    out.unshift(grp);
    if (out.length >= 12) break;
  }
  return out;
}

// -- the board highlight and the banner ---------------------------------------------------

function highlight(v, moves) {
  for (const node of document.querySelectorAll(".last-move")) node.classList.remove("last-move");
  const st = v.observation.state;
  for (const grp of moves) {
    const seat = seatOf(grp.player);
    for (const [k, t] of grp.steps.entries()) {
      if (!t) continue;
      let keys = [];
      try { keys = S.targets(app.cat, st, t, seat, contextOf(grp, k)); } catch { keys = []; }
      for (const key of keys) {
        for (const node of document.querySelectorAll(`[data-target="${CSS.escape(key)}"]`)) node.classList.add("last-move");
      }
    }
  }
}

/** The side panel's box ``id``, made by ``make`` and put just before the decision (or
 * just after it, ``afterDecision``) the first time it is asked for. */
function sideBox(id, make, afterDecision) {
  let box = document.getElementById(id);
  if (!box) {
    box = make();
    const side = $("#side");
    const decision = $("#decision");
    if (side && decision) side.insertBefore(box, afterDecision ? decision.nextSibling : decision);
    else document.body.append(box);
  }
  return box;
}

function bannerBox() {
  return sideBox("last-move", () => h("div", { id: "last-move", role: "status", "aria-live": "polite", hidden: "" }), false);
}

function showBanner(v, moves) {
  const box = bannerBox();
  const key = `${v.id}:${moves.length ? moves[moves.length - 1].last : -1}`;
  const told = moves.filter((g) => g.steps.some(Boolean) || g.player !== `P${app.homeSeat}`);
  if (!told.length || app.bannerDismissed === key || v.mode !== "play") {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  const items = told.map((grp) => h("li", { title: groupNotation(grp), "data-steps": `${grp.first}-${grp.last}` },
    h("b", {}, `${seatName(v, seatOf(grp.player))}: `), groupWords(grp)));
  const close = h("button", { type: "button", class: "dismiss", "aria-label": "Dismiss", title: "Dismiss" }, "×");
  close.addEventListener("click", () => {
    app.bannerDismissed = key;
    box.hidden = true;
    for (const node of document.querySelectorAll(".last-move")) node.classList.remove("last-move");
  });
  const head = app.homeSeat ? "Since your last move" : "Last move";
  box.replaceChildren(close, h("strong", {}, `${head} (highlighted on the board):`), h("ul", {}, items));
  box.hidden = false;
}

// -- the round summary -------------------------------------------------------------------

function money(sc) {
  const shares = Object.values(sc.companies || {}).reduce((t, c) => t + (c.pounds || 0), 0);
  return { cash: sc.cash, shares, diamonds: sc.diamonds, bookkeeping: sc.bookkeeping, total: sc.total };
}

const CATEGORIES = [["cash", "Cash"], ["shares", "Shares"], ["diamonds", "Diamonds"], ["bookkeeping", "Bookkeeping"], ["total", "Total"]];

/** The round summary's box: under the decision, which stays at the top of the side
 * panel (in view on a laptop with the summary shown). */
function summaryBox() {
  return sideBox("round-summary", () => h("section", { id: "round-summary", class: "panel", "aria-labelledby": "round-summary-title", hidden: "" }), true);
}

function showSummary(v, round) {
  const box = summaryBox();
  const groups = groupHistory(v.history).filter((g) => g.round === round && g.player !== "chance");
  const before = app.roundScores[round];
  const now = v.score.map(money);
  const players = v.score.map((sc) => sc.player);
  const who = players.map((p) => {
    const mine = groups.filter((g) => g.player === `P${p}`);
    const moves = mine.map((g) => h("li", { title: groupNotation(g) }, groupWords(g)));
    return h("div", { class: "rs-player" }, h("h3", {}, seatName(v, p)),
      moves.length ? h("ul", {}, moves) : h("p", { class: "muted" }, "no moves seen"));
  });
  const head = h("tr", {}, h("th", {}, "£"), ...players.map((p) => h("th", {}, `P${p}`)));
  const rows = CATEGORIES.map(([k, label]) => h("tr", { class: k === "total" ? "total" : "" }, h("td", {}, label),
    ...now.map((m, i) => {
      const d = before ? m[k] - before[i][k] : null;
      return h("td", { "data-key": k }, `${m[k]}`, d ? h("small", { class: d > 0 ? "up" : "down" }, ` (${d > 0 ? "+" : ""}${d})`) : "");
    })));
  const close = h("button", { type: "button", class: "dismiss", "aria-label": "Dismiss the round summary", title: "Dismiss" }, "×");
  close.addEventListener("click", () => {
    box.hidden = true;
    app.summaryDismissed = `${v.id}:${round}`;
  });
  box.replaceChildren(close,
    h("h2", { id: "round-summary-title" }, `Round ${round} summary`),
    h("div", { class: "rs-moves" }, who),
    h("table", { class: "score rs-money" }, h("caption", {}, before ? "Money if the game ended now (change this round)" : "Money if the game ended now"),
      h("thead", {}, head), h("tbody", {}, rows)));
  box.dataset.round = String(round);
  box.hidden = false;
}

/** After every render: the highlight and banner of the others' moves, the round summary. */
export function tell(v) {
  if (!v || !app.cat) return;
  if (app.storyGame !== v.id) {
    app.storyGame = v.id;
    app.roundScores = {};
    app.seenRound = v.round;
    const box = document.getElementById("round-summary");
    if (box) box.hidden = true;
  }
  if (!(v.round in app.roundScores)) app.roundScores[v.round] = v.score.map(money);
  // a new round began (or the game ended) since this page last looked: sum up the one before
  const ended = v.over ? v.round : v.round - 1;
  if ((v.round > app.seenRound || (v.over && !app.sawOver)) && ended >= 1 && app.summaryDismissed !== `${v.id}:${ended}`) {
    showSummary(v, ended);
  }
  // shown through the next Planning: gone when its actions begin
  const box = document.getElementById("round-summary");
  if (box && !box.hidden && !v.over && v.phase === "actions" && Number(box.dataset.round) < v.round) box.hidden = true;
  app.seenRound = Math.max(app.seenRound, v.round);
  app.sawOver = v.over;
  const moves = movesSince(v);
  highlight(v, moves);
  showBanner(v, moves);
}
