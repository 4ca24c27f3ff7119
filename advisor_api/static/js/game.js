// Loading a game and keeping it current: the seat tokens the page holds (from the link
// it was opened with, and those kept in this browser when it created the game), which
// seat's view to show, opening a game by id or link, re-reading the view after a change
// (pushed by the game's event stream, live.js; polling only while that stream is down).
// Without a token the page shows the spectator's view.

import { api, useTokens } from "./api.js";
import { signalTurn, unwatch, watchGame } from "./live.js";
import { tell } from "./story.js";
import { render } from "./render.js";
import { resetPanes } from "./layout.js";
import { app } from "./state.js";
import { stopSuggest } from "./suggest.js";
import { isAi, setUi, showError } from "./ui.js";

const KEPT = "mombasa.tokens."; // localStorage: game id -> {seat: token}

function keptTokens(id) {
  try {
    return JSON.parse(localStorage.getItem(KEPT + id) || "{}") || {};
  } catch {
    return {};
  }
}

/** Remember seat tokens of a game in this browser (the game's creator holds them all). */
export function keepTokens(id, tokens) {
  const all = { ...keptTokens(id), ...tokens };
  try {
    localStorage.setItem(KEPT + id, JSON.stringify(all));
  } catch { /* private mode: the link keeps the home seat's token */ }
  return all;
}

/** Whether the page may show and play ``seat`` (live: any token acts for every seat). */
export function holds(v, seat) {
  if (!seat) return false;
  if (app.tokens[seat]) return true;
  return v.mode === "live" && Object.keys(app.tokens).length > 0;
}

/** The page link of a seat (with its token), or the spectators' link (seat null). */
export function seatLink(id, seat) {
  const base = `${location.origin}${location.pathname}`;
  if (!seat || !app.tokens[seat]) return `${base}#game=${encodeURIComponent(id)}`;
  return `${base}#game=${encodeURIComponent(id)}&seat=${seat}&token=${encodeURIComponent(app.tokens[seat])}`;
}

function desiredSeat(v) {
  if (!app.homeSeat) return null; // a spectator
  if (v.over) return app.homeSeat;
  // Planning and the starting tile are simultaneous: your own seat first, as long as it
  // still decides; then (live) the others' plans as they are revealed at the table.
  const deciding = v.decision.seats || (v.decision.seat ? [v.decision.seat] : []);
  if (deciding.includes(app.homeSeat)) return app.homeSeat;
  if (v.mode === "live") return deciding[0] || app.viewSeat;
  // hot seat: every human seat whose token this page holds plays here
  const human = deciding.find((s) => !isAi(v, s) && holds(v, s));
  return human || app.homeSeat;
}

async function fetchView(wait = 0) {
  let v = await api.view(app.id, app.viewSeat, wait);
  const want = desiredSeat(v);
  // the seat shown changes only when this view is rendered (render sets app.viewSeat):
  // a view dropped as stale must not move it
  if (want !== v.seat) v = await api.view(app.id, want);
  return v;
}

/** Open a game: ``seat`` and ``token`` from a link (either may be missing: then the
 * tokens kept in this browser, else the spectator's view). */
export async function openGame(id, seat, token) {
  const tokens = token && seat ? keepTokens(id, { [seat]: token }) : keptTokens(id);
  app.tokens = tokens;
  useTokens(tokens);
  const seats = Object.keys(tokens).map(Number).sort((a, b) => a - b);
  if (!seat || !tokens[seat]) seat = seats[0] || null;
  unwatch();
  app.id = id;
  app.gameDeleted = false;
  app.logShown = 0;
  app.logKey = null;
  app.selected = null;
  stopSuggest(true);
  setUi("busy");
  try {
    if (seat && !token) {
      // the game's own seat ("I am seat N") when this browser holds its token
      const home = (await api.view(id, seat)).perspective;
      if (tokens[home]) seat = home;
    }
    app.homeSeat = seat;
    app.viewSeat = seat;
    location.hash = seat ? `game=${encodeURIComponent(id)}&seat=${seat}&token=${encodeURIComponent(tokens[seat])}`
      : `game=${encodeURIComponent(id)}`;
    app.cat = await api.gameCatalogue(id); // the game's own components (as it was created)
    const v = await fetchView();
    render(v);
    resetPanes(); // the map pane opens on this catalogue's land
    watchGame(refreshView);
  } catch (err) {
    showError(err);
    setUi("idle");
  }
}

export async function afterChange(v) {
  const want = desiredSeat(v);
  if (want !== v.seat) {
    app.viewSeat = want;
    v = await api.view(app.id, want);
  }
  render(v);
}

/** Re-read the view shown (after an event of the game's stream); false: not shown, to
 * be read again (live.js). */
async function refreshView() {
  const id = app.id;
  if (!id || app.gameDeleted) {
    if (app.gameDeleted) showError(new Error("this game was deleted"));
    return;
  }
  const sends = app.sends;
  const v = await fetchView(0);
  if (id !== app.id) return true;
  // Read while the page sent a step of its own: the view may be older than that step's
  // answer, rendered meanwhile, and showing it would take the page back a step. Not
  // shown; the stream reads again once the step is answered (the answer may have been
  // an error, the event's change still unshown).
  if (app.busy || sends !== app.sends) return false;
  render(v);
  return true;
}

export function schedulePoll() {
  clearTimeout(app.pollTimer);
  const v = app.view;
  signalTurn(v);
  tell(v); // the others' moves in words and on the board, the round summary
  if (!v || v.over || app.live || app.gameDeleted) return; // the event stream pushes changes
  if (v.mode !== "play") return;
  const deciding = v.decision.seats || [v.decision.seat];
  // a spectator, or a seat waiting for another human, follows the game too
  const others = !v.seat || deciding.some((s) => s !== v.seat && !holds(v, s));
  const waiting = v.ai.thinking || (deciding.some((s) => isAi(v, s)) && !v.ai.error) || others;
  if (!waiting) return;
  app.pollTimer = setTimeout(poll, others && !v.ai.thinking ? 1500 : 250);
}

async function poll() {
  if (app.busy || app.polling || !app.id) return;
  app.polling = true;
  const id = app.id;
  try {
    const sends = app.sends;
    const v = await fetchView(1);
    if (id === app.id && !app.busy && sends === app.sends) render(v);
  } catch (err) {
    showError(err);
    app.pollTimer = setTimeout(poll, 2000);
  } finally {
    app.polling = false;
  }
}
