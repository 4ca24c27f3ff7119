// Live updates: every open tab follows the game through its event stream
// (GET /v1/games/{id}/events, read with fetch so that the seat token goes in the
// Authorization header, never in a URL). Each event says only what changed in public
// (version, steps, decision); the tab then re-reads its own view. While the stream is
// down the page falls back to polling (game.js), and reconnects with a growing delay.
// Also: the tab's title and icon say when it is your turn.

import { ApiError, gameEvents } from "./api.js";
import { app } from "./state.js";

const TITLE = "Mombasa advisor";
const TURN_TITLE = "• Your turn — Mombasa";
const TURN_ICON = "data:image/svg+xml," + encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f5f8b"/>'
  + '<path d="M9 26 L9 15 L16 9 L23 15 L23 26 Z" fill="#f2c14e" stroke="#7a5a12" stroke-width="1.5"/>'
  + '<circle cx="25" cy="7" r="7" fill="#e0342b" stroke="#fff" stroke-width="1.5"/></svg>');

let stream = null; // {id, ctl}
let refresh = null; // async (): re-read and render the view; false: not shown, read again
let inflight = false;
let again = false;

/** Follow game ``app.id`` (stop following the one before); ``onChange``: re-read the view. */
export function watchGame(onChange) {
  unwatch();
  refresh = onChange;
  const id = app.id;
  if (!id) return;
  const ctl = new AbortController();
  stream = { id, ctl };
  run(id, ctl, 0);
}

export function unwatch() {
  if (stream) stream.ctl.abort();
  stream = null;
  app.live = false;
}

async function run(id, ctl, failures) {
  let first = true;
  try {
    await gameEvents(id, app.homeSeat, (name, data) => {
      if (ctl.signal.aborted) return;
      if (name === "deleted") {
        app.live = false;
        app.gameDeleted = true;
        ctl.abort();
        changed();
        return;
      }
      if (name !== "change") return;
      app.live = true;
      failures = 0;
      app.lastEvent = { ...data, at: performance.now() };
      const v = app.view;
      const same = v && v.id === data.id && v.steps === data.steps && v.ai.thinking === data.ai_thinking;
      if (!(first && same)) changed();
      first = false;
    }, ctl.signal);
  } catch (err) {
    if (err.name === "AbortError" || ctl.signal.aborted) return;
    // 404: the game is gone; 401/403: no stream for this token (polling goes on)
    if (err instanceof ApiError && [401, 403, 404].includes(err.status)) {
      app.live = false;
      return;
    }
  }
  if (ctl.signal.aborted || !stream || stream.ctl !== ctl) return;
  app.live = false;
  changed(); // what happened while the stream was down; polling resumes meanwhile
  const delay = Math.min(10000, 500 * 2 ** Math.min(failures, 5));
  setTimeout(() => {
    if (stream && stream.ctl === ctl && !ctl.signal.aborted) run(id, ctl, failures + 1);
  }, delay);
}

async function changed() {
  if (!refresh) return;
  if (inflight) {
    again = true;
    return;
  }
  if (app.busy) { // the page's own step is under way: its answer renders first
    setTimeout(changed, 150);
    return;
  }
  inflight = true;
  try {
    if ((await refresh()) === false) again = true; // read again, once the page is not busy
  } catch { /* the next event, or the poll, tries again */ } finally {
    inflight = false;
    if (again) {
      again = false;
      changed();
    }
  }
}

/** The tab's title and icon: "• Your turn" while a decision of this page's is pending. */
export function signalTurn(v) {
  const mine = !!v && !v.over && v.your_turn && (v.mode === "play" || v.seat === app.homeSeat);
  const title = mine ? TURN_TITLE : TITLE;
  if (document.title !== title) document.title = title;
  const link = document.querySelector("link[rel~='icon']");
  if (!link) return;
  if (!link.dataset.plain) link.dataset.plain = link.getAttribute("href");
  const href = mine ? TURN_ICON : link.dataset.plain;
  if (link.getAttribute("href") !== href) link.setAttribute("href", href);
}
