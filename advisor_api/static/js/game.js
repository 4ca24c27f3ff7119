// Loading a game and keeping it current: which seat's view to show, opening a game by
// id, re-reading the view after a change and polling while the AI thinks.

import { api } from "./api.js";
import { render } from "./render.js";
import { app } from "./state.js";
import { stopSuggest } from "./suggest.js";
import { isAi, setUi, showError } from "./ui.js";

function desiredSeat(v) {
  if (v.over) return app.homeSeat;
  // Planning and the starting tile are simultaneous: your own seat first, as long as it
  // still decides; then (live) the others' plans as they are revealed at the table.
  const deciding = v.decision.seats || (v.decision.seat ? [v.decision.seat] : []);
  if (deciding.includes(app.homeSeat)) return app.homeSeat;
  if (v.mode === "live") return deciding[0] || app.viewSeat;
  const human = deciding.find((s) => !isAi(v, s)); // hot seat: every human seat plays here
  return human || app.homeSeat;
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

export async function openGame(id, seat) {
  if (!seat) seat = (await api.view(id, null)).perspective; // "I am seat N" of the game
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
    app.cat = await api.gameCatalogue(id); // the game's own components (as it was created)
    render(await fetchView());
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

export function schedulePoll() {
  clearTimeout(app.pollTimer);
  const v = app.view;
  if (!v || v.over || v.mode !== "play") return;
  const deciding = v.decision.seats || [v.decision.seat];
  const waiting = v.ai.thinking || (deciding.some((s) => isAi(v, s)) && !v.ai.error);
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
