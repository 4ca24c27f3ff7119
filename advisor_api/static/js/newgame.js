// The new-game dialog: the seat rows (human or AI with its strength, a playing level
// with its rating, or a custom bot spec), setup and mode, creating the game, and
// opening a game by its id.

import { api } from "./api.js";
import { catalogueList, DEFAULT_NAME } from "./catalogue.js";
import { h, PLAYER_FILL } from "./svg.js";
import { keepTokens, openGame } from "./game.js";
import { $, errorText, message } from "./ui.js";

const STRENGTHS = [
  ["mcts:time=0.5", "Normal (0.5 s a move)"],
  ["mcts:time=0.2", "Quick (0.2 s a move)"],
  ["mcts:time=2", "Strong (2 s a move)"],
  ["mcts:time=5", "Very strong (5 s a move)"],
  ["greedy", "Greedy (instant)"],
  ["random", "Random"],
  ["custom", "Custom bot spec…"],
];

export function seatRows() {
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
    addLevels(bot);
    bot.value = prev.bot;
    const custom = h("input", { class: "ng-custom", name: `seat${i + 1}-spec`, placeholder: "e.g. mcts:iterations=400", "aria-label": `Seat ${i + 1} bot spec`, value: prev.custom });
    const sync = () => {
      bot.hidden = kind.value !== "ai";
      custom.hidden = kind.value !== "ai" || bot.value !== "custom";
    };
    kind.addEventListener("change", sync);
    bot.addEventListener("change", sync);
    sync();
    kind.addEventListener("change", perspectiveChoices);
    body.append(h("tr", { "data-seat": i + 1 }, h("td", {}, h("span", { class: "sw", style: `display:inline-block;width:12px;height:12px;border-radius:50%;background:${PLAYER_FILL[i]};margin-right:5px` }), `P${i + 1}`), h("td", {}, kind), h("td", {}, bot, custom)));
  }
}

// "I am seat N": any seat at a live table; a human seat when playing against the AI.
export function perspectiveChoices() {
  const sel = $("#ng-perspective");
  const live = document.querySelector("#new-form input[name=mode]:checked")?.value === "live";
  const kinds = [...document.querySelectorAll("#ng-seats tbody tr")].map((tr) => tr.querySelector(".ng-kind").value);
  const allowed = kinds.map((k, i) => i + 1).filter((s) => live || kinds[s - 1] === "human");
  takebackChoice(kinds.filter((k) => k === "human").length, live);
  const keep = Number(sel.value);
  sel.replaceChildren(...(allowed.length ? allowed : [1]).map((s) => h("option", { value: s }, `seat ${s} (P${s})`)));
  if (allowed.includes(keep)) sel.value = String(keep);
}

// Takebacks: on by default with one human seat (the service's default), off with more
// until ticked; a live table always corrects its entries.
let takebacksTouched = false;

function takebackChoice(humans, live) {
  const box = $("#ng-takebacks");
  if (!box.dataset.wired) {
    box.dataset.wired = "1";
    box.addEventListener("change", () => { takebacksTouched = true; });
  }
  box.disabled = live;
  if (live) box.checked = true;
  else if (!takebacksTouched) box.checked = humans <= 1;
}

// The playing levels, 1 (beginner) to 8 (the full search), each with its measured
// rating (GET /v1/levels, docs/levels.md), offered before "Custom bot spec…".
let levels = [];

async function levelChoices() {
  if (!levels.length) {
    try {
      const res = await fetch("/v1/levels");
      if (res.ok) levels = (await res.json()).levels;
    } catch { /* no levels: the strengths above only */ }
  }
  for (const sel of document.querySelectorAll("#ng-seats .ng-bot")) addLevels(sel);
}

function addLevels(sel) {
  if (!levels.length || sel.querySelector("optgroup")) return;
  const keep = sel.value;
  const rated = (lv) => (lv.rating == null ? "" : ` (rating ${Math.round(lv.rating)})`);
  sel.insertBefore(h("optgroup", { label: "Levels" }, ...levels.map((lv) =>
    h("option", { value: lv.spec, title: lv.summary }, `Level ${lv.level}: ${lv.name}${rated(lv)}`))), sel.lastElementChild);
  sel.value = keep;
}

export function openNewGame() {
  $("#ng-error").hidden = true;
  if (!$("#ng-seats tbody").children.length) seatRows();
  perspectiveChoices();
  catalogueChoices();
  levelChoices();
  const dlg = $("#new-game");
  if (!dlg.open) dlg.showModal();
}

// "Components": the shipped catalogue and every stored one (GET /v1/catalogues).
async function catalogueChoices() {
  const sel = $("#ng-catalogue");
  const keep = sel.value;
  let list = [{ name: DEFAULT_NAME, default: true }];
  try {
    list = await catalogueList();
  } catch { /* the shipped one only */ }
  sel.replaceChildren(...list.map((c) => h("option", { value: c.name }, c.name)));
  sel.value = list.some((c) => c.name === keep) ? keep : DEFAULT_NAME;
}

export async function startGame(ev) {
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
  if (body.mode === "play") body.takebacks = $("#ng-takebacks").checked;
  const perspective = Number($("#ng-perspective").value);
  if (perspective) body.perspective = perspective;
  if (seedText) {
    body.seed = Number(seedText);
    body.reproducible = true; // a seed you chose: the cards can be foreseen from it
  }
  const components = $("#ng-catalogue").value;
  if (components && components !== DEFAULT_NAME) body.catalogue = components;
  $("#ng-start").disabled = true;
  try {
    const v = await api.create(body);
    $("#new-game").close();
    message(null);
    keepTokens(v.id, v.tokens); // every seat of yours, kept in this browser
    const seat = v.seat;
    await openGame(v.id, seat, v.tokens[seat]);
  } catch (err) {
    const box = $("#ng-error");
    box.textContent = errorText(err);
    box.hidden = false;
  } finally {
    $("#ng-start").disabled = false;
  }
}

// A game id (the seats whose tokens this browser keeps, else the spectator's view) or a
// seat's link (#game=ID&seat=N&token=T).
export async function openById() {
  const text = $("#ng-open-id").value.trim();
  if (!text) return;
  $("#new-game").close();
  const cut = text.indexOf("#");
  if (cut < 0) {
    await openGame(text, null, null);
    return;
  }
  const params = new URLSearchParams(text.slice(cut + 1));
  await openGame(params.get("game"), Number(params.get("seat")) || null, params.get("token"));
}
