// The page's entry: loads the catalogue, wires the buttons, the table clicks and the
// dialogs to their modules, and opens the game named in the URL (or the new-game
// dialog over an empty board).

import { api } from "./api.js";
import { emptyState, renderBoard } from "./board.js";
import { undo } from "./actions.js";
import { closeChooser, onTableClick } from "./clicks.js";
import { openGame } from "./game.js";
import { inviteLinks } from "./render.js";
import { closePicker } from "./picker.js";
import { openCatalogueScreen, wireCatalogueScreen } from "./catalogue.js";
import { openById, openNewGame, perspectiveChoices, seatRows, startGame } from "./newgame.js";
import { render, renderLegalList } from "./render.js";
import { app } from "./state.js";
import { NARROW, resetPanes, wireLayout } from "./layout.js";
import { suggest } from "./suggest.js";
import { wireReview } from "./review.js";
import { $, message, setUi, showError } from "./ui.js";

async function main() {
  wireLayout();
  try {
    app.cat = await api.catalogue();
    resetPanes(); // the map pane opens on the catalogue's land
  } catch (err) {
    showError(err);
    setUi("idle");
    return;
  }
  $("#board").addEventListener("click", onTableClick);
  $("#players").addEventListener("click", onTableClick);
  $("#btn-new").addEventListener("click", openNewGame);
  $("#btn-undo").addEventListener("click", undo);
  $("#btn-invite").addEventListener("click", invite);
  $("#btn-suggest").addEventListener("click", () => suggest());
  $("#ng-players").addEventListener("change", () => { seatRows(); perspectiveChoices(); });
  for (const r of document.querySelectorAll("#new-form input[name=mode]")) r.addEventListener("change", perspectiveChoices);
  $("#new-form").addEventListener("submit", startGame);
  $("#ng-cancel").addEventListener("click", () => $("#new-game").close());
  $("#ng-open").addEventListener("click", openById);
  wireCatalogueScreen();
  wireReview();
  $("#ng-edit-catalogue").addEventListener("click", () => { $("#new-game").close(); openCatalogueScreen(); });
  $("#legal-filter").addEventListener("input", () => app.ctx && renderLegalList(app.ctx));
  // the players' boards are drawn for the width (stacked on a narrow screen)
  window.matchMedia(NARROW).addEventListener("change", () => app.view && render(app.view));
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") {
      closeChooser();
      closePicker();
    }
  });
  document.addEventListener("click", (ev) => {
    if (!$("#chooser").hidden && !ev.target.closest("#chooser") && !ev.target.closest("[data-target]")) closeChooser();
    if (!$("#picker").hidden && !ev.target.closest("#picker") && !ev.target.closest("[data-target]")) closePicker();
  });
  const params = new URLSearchParams(location.hash.slice(1));
  const id = params.get("game");
  if (id) {
    await openGame(id, Number(params.get("seat")) || null, params.get("token"));
  } else {
    $("#status").textContent = "No game yet: start one.";
    setUi("idle");
    renderEmpty();
    openNewGame();
  }
}

/** Copy each other human seat's link (with its token) and the spectators' link. */
async function invite() {
  const lines = inviteLinks(app.view).map(([who, link]) => `${who}: ${link}`);
  if (!lines.length) return;
  let copied = false;
  try {
    await navigator.clipboard.writeText(lines.join("\n"));
    copied = true;
  } catch { /* no clipboard (not a secure page): the links are shown to copy by hand */ }
  const box = document.createElement("div");
  box.append(copied ? "Copied; send each player the link of their seat:" : "Send each player the link of their seat:");
  for (const line of lines) {
    const row = document.createElement("div");
    row.className = "invite-link";
    row.textContent = line;
    box.append(row);
  }
  message("info", box);
}

/** The starting board (no game yet): a fresh first-game layout without cards. */
function renderEmpty() {
  const cat = app.cat;
  const st = emptyState(cat);
  const ctx = { cat, st, view: { score: [], seats: [] }, legal: [], targetMap: new Map(), costs: {} };
  renderBoard($("#board"), ctx);
}

window.addEventListener("hashchange", () => {
  const params = new URLSearchParams(location.hash.slice(1));
  const id = params.get("game");
  if (id && id !== app.id) openGame(id, Number(params.get("seat")) || null, params.get("token"));
});

main();
