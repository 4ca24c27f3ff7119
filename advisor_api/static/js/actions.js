// Sending steps to the service: one step (or a chance outcome reported in live mode),
// every step of a suggested line, and undo; then the view is refreshed.

import { api } from "./api.js";
import { closeChooser } from "./clicks.js";
import { afterChange } from "./game.js";
import { render, whyNoUndo } from "./render.js";
import { app } from "./state.js";
import { stopSuggest } from "./suggest.js";
import { beginSend, message, showError } from "./ui.js";

export async function submit(text) {
  const v = app.view;
  if (!v || app.busy) return;
  beginSend();
  closeChooser();
  try {
    const res = v.decision.kind === "chance" ? await api.chance(app.id, v.seat, text) : await api.step(app.id, v.seat, text);
    app.selected = null;
    message(null);
    app.busy = false;
    app.ownStep = true; // the focus goes back to the decision
    await afterChange(res);
  } catch (err) {
    app.busy = false;
    showError(err);
    render(app.view);
  }
}

export async function playLine(line) {
  const v = app.view;
  if (!v || app.busy) return;
  const steps = line.move.text.split("; ").filter(Boolean);
  beginSend();
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
  app.ownStep = !!last;
  try {
    await afterChange(last || (await api.view(app.id, v.seat)));
  } catch (err) {
    showError(err);
  }
}

export async function undo() {
  if (!app.id || app.busy) return;
  if (app.view && !app.view.can_undo) {
    message("info", `Undo is not possible now: ${whyNoUndo(app.view)}.`);
    return;
  }
  beginSend();
  try {
    const v = await api.undo(app.id, app.viewSeat);
    app.busy = false;
    stopSuggest(true);
    app.ownStep = true;
    await afterChange(v);
    message("info", "Undone.");
  } catch (err) {
    app.busy = false;
    showError(err);
    render(app.view);
  }
}
