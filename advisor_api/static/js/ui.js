// Small UI helpers: the $ query, the page's ui state, the message box, error texts and
// seat names ("P2 (AI)", "P1 (you)").

import { ApiError } from "./api.js";
import { app } from "./state.js";

export const $ = (sel) => document.querySelector(sel);

export function setUi(state) {
  document.body.dataset.ui = state;
}

/** The page sends a step (or undo, or a chance pick) of its own: busy until answered,
 * and a view read before now is stale (``app.sends``, game.js). */
export function beginSend() {
  app.busy = true;
  app.sends += 1;
  setUi("busy");
}

export function message(kind, textOrNode) {
  const box = $("#message");
  if (!textOrNode) {
    box.hidden = true;
    box.textContent = "";
    return;
  }
  box.className = kind;
  const close = document.createElement("button");
  Object.assign(close, { type: "button", className: "dismiss", title: "Dismiss", textContent: "×" });
  close.setAttribute("aria-label", "Dismiss the message");
  close.addEventListener("click", () => message(null));
  box.replaceChildren(close, typeof textOrNode === "string" ? document.createTextNode(textOrNode) : textOrNode);
  box.hidden = false;
}

export function errorText(err) {
  if (err instanceof ApiError) {
    const what = { 409: "Not allowed now", 422: "Not understood", 404: "Not found", 429: "The AI is busy", 500: "Server error", 504: "The search took too long" }[err.status] || `Error ${err.status}`;
    return `${what}: ${err.message}`;
  }
  return `Error: ${err && err.message ? err.message : err}`;
}

export function showError(err) {
  message("error", errorText(err));
}

export function seatName(v, seat) {
  if (!seat) return "chance";
  const info = v.seats[seat - 1];
  if (!info) return `P${seat}`;
  if (info.kind === "ai") return `P${seat} (AI)`;
  return seat === app.homeSeat && v.mode === "play" ? `P${seat} (you)` : `P${seat}`;
}

export function isAi(v, seat) {
  return !!seat && v.seats[seat - 1] && v.seats[seat - 1].kind === "ai";
}
