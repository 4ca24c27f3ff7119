// The catalogue screen ("Components" in the header): every component of a catalogue
// drawn as the board draws it, beside a form of its values. Edits are checked by the
// service's validator (POST /v1/catalogues/check, a moment after the last keystroke);
// its first fault is shown next to the field its JSON path names, and at the top with a
// button that goes there. A catalogue is opened from the service's list (the shipped
// one or a stored one), imported from a JSON file, exported to one, saved under a name,
// or deleted; the new-game dialog then offers it ("Components").

import { api, ApiError } from "./api.js";
import * as F from "./catform.js";
import * as FIG from "./catfigures.js";
import { h } from "./svg.js";
import { app } from "./state.js";
import { $, errorText } from "./ui.js";

export const DEFAULT_NAME = "default (reconstruction)";
const CHECK_DELAY = 350; // ms after the last edit

const SECTIONS = [
  { id: "map", label: "Map", keys: ["regions", "borders", "base_borders", "base"] },
  { id: "tracks", label: "Company tracks", keys: ["tracks", "track_cards", "first_game_tracks"] },
  { id: "cards", label: "Cards", keys: ["cards", "display"] },
  { id: "books", label: "Books", keys: ["books", "book_display", "round_coins"] },
  { id: "bonus", label: "Bonus spaces & tiles", keys: ["bonus_spaces", "bonus_tiles", "starting_tiles", "first_game_tiles", "bonus_markers"] },
  { id: "player", label: "Player tracks", keys: ["diamond_track", "bookkeeping_track", "merchants", "player"] },
  { id: "general", label: "General", keys: ["schema", "reconstruction", "note", "companies"] },
];
const KNOWN = new Set(SECTIONS.flatMap((s) => s.keys));

const HEADINGS = {
  regions: "Regions", borders: "Borders between regions (1 single line, 2 double)", base_borders: "Where each base meets the map",
  base: "Company bases", tracks: "Company tracks", track_cards: "Track cards (the two sides of each)", first_game_tracks: "First-game tracks",
  cards: "Cards", display: "Card display (price modifiers)", books: "Books", book_display: "Book display", round_coins: "Round coins (by player count)",
  bonus_spaces: "Bonus spaces", bonus_tiles: "Bonus tiles", starting_tiles: "Starting tiles", first_game_tiles: "First-game starting tiles",
  bonus_markers: "Bonus markers", diamond_track: "Diamond track", bookkeeping_track: "Bookkeeping track", merchants: "Merchants",
  player: "Player", schema: "Schema", reconstruction: "Reconstruction", note: "Note", companies: "Companies",
};

const ed = {
  raw: null, // the catalogue being edited (parsed JSON, comments kept)
  page: null, // the last valid version as the page draws it (GET /v1/catalogue's shape)
  stored: null, // the name it was opened or saved as (null: imported / not saved)
  dirty: false,
  section: "map",
  figures: [],
  error: null, // the validator's first fault {path, message}
  summary: null,
  checking: false,
  local: new Map(), // JSON text that does not parse: path -> message
  seq: 0,
  timer: null,
  abort: null,
  jump: false, // go to the fault once the next check answers (after an import or a save)
  list: [],
};

const sectionOf = (path) => {
  const key = F.topKey(path);
  return (SECTIONS.find((s) => s.keys.includes(key)) || SECTIONS[SECTIONS.length - 1]).id;
};

// -- opening and closing ------------------------------------------------------------------------
export async function openCatalogueScreen() {
  $("#cat-screen").hidden = false;
  document.body.classList.add("cat-open");
  await refreshList();
  if (!ed.raw) await openNamed((app.cat && app.cat.name) || DEFAULT_NAME);
  else renderAll();
}

export function closeCatalogueScreen() {
  $("#cat-screen").hidden = true;
  document.body.classList.remove("cat-open");
}

/** The names for the new-game dialog and this screen: [{name, default, games, summary}]. */
export async function catalogueList() {
  const body = await api.catalogues();
  return body.catalogues;
}

async function refreshList() {
  try {
    ed.list = await catalogueList();
  } catch (err) {
    say("error", errorText(err));
    return;
  }
  const sel = $("#cat-choose");
  const keep = sel.value;
  sel.replaceChildren(...ed.list.map((c) => h("option", { value: c.name }, c.default ? c.name : `${c.name}${c.games ? ` (${c.games} game${c.games > 1 ? "s" : ""})` : ""}`)));
  sel.value = ed.list.some((c) => c.name === keep) ? keep : (ed.stored || DEFAULT_NAME);
}

async function openNamed(name) {
  let raw;
  try {
    raw = await api.catalogueFile(name);
  } catch (err) {
    if (name !== DEFAULT_NAME) return openNamed(DEFAULT_NAME);
    say("error", errorText(err));
    return;
  }
  const entry = ed.list.find((c) => c.name.toLowerCase() === name.toLowerCase());
  load(raw, entry ? entry.name : name, false);
}

function load(raw, stored, dirty, name = null) {
  ed.raw = raw;
  ed.stored = stored;
  ed.dirty = dirty;
  ed.error = null;
  ed.summary = null;
  ed.local.clear();
  ed.page = ed.page || app.cat;
  $("#cat-name").value = name ?? (stored && stored !== DEFAULT_NAME ? stored : "");
  if (stored) $("#cat-choose").value = stored;
  confirmBox(null);
  renderAll();
  check(0);
}

// -- drawing the screen ------------------------------------------------------------------------
function renderAll() {
  renderTabs();
  renderSection();
  status();
}

function renderTabs() {
  const bad = ed.error ? sectionOf(ed.error.path) : null;
  const localBad = new Set([...ed.local.keys()].map(sectionOf));
  $("#cat-tabs").replaceChildren(...SECTIONS.map((s) => h("button", {
    type: "button", role: "tab", "data-section": s.id, "aria-selected": String(s.id === ed.section),
    class: (s.id === bad || localBad.has(s.id)) ? "has-error" : null,
    onclick: () => { ed.section = s.id; renderTabs(); renderSection(); $("#cat-screen").scrollTop = 0; },
  }, s.label)));
}

function ctx() {
  return { raw: ed.raw, cat: ed.page || app.cat, local: ed.local, changed };
}

function renderSection() {
  const root = $("#cat-section");
  ed.figures = [];
  if (!ed.raw) {
    root.replaceChildren();
    return;
  }
  const sec = SECTIONS.find((s) => s.id === ed.section);
  const keys = sec.id === "general"
    ? [...sec.keys, ...Object.keys(ed.raw).filter((k) => !KNOWN.has(k) && !k.startsWith(F.COMMENT))]
    : sec.keys;
  const c = ctx();
  const blocks = keys.filter((k) => k in ed.raw).map((k) => block(k, (BUILD[k] || buildPlain)(c, k)));
  root.replaceChildren(...blocks);
  root.setAttribute("aria-label", sec.label);
  drawFigures();
  showErrors();
}

function block(key, content) {
  const note = ed.raw[`${F.COMMENT} ${key}`];
  return h("section", { class: "cat-block", "data-key": key },
    h("h3", {}, HEADINGS[key] || key),
    note ? h("p", { class: "cat-note" }, Array.isArray(note) ? note.join(" ") : String(note)) : null,
    content);
}

function use(fig) {
  ed.figures.push(fig);
  return fig;
}

function drawFigures() {
  const page = ed.page || app.cat;
  if (!page) return;
  for (const fig of ed.figures) {
    try {
      fig.update(page);
    } catch (err) {
      fig.node.replaceChildren(); // a half-valid catalogue the drawing does not know yet
    }
  }
}

function item(id, title, fig, form, cls = "") {
  return h("div", { class: `cat-item ${cls}`, id },
    h("div", { class: "cat-fig" }, fig ? fig.node : null),
    h("div", { class: "cat-form" }, h("h4", {}, title), form));
}

function buildPlain(c, key) {
  return F.formFor(c, [key], ed.raw[key]);
}

/** A figure whose parts scroll to their form when clicked. */
function clickable(fig, toItem) {
  fig.node.classList.add("clickable");
  fig.node.addEventListener("click", (ev) => {
    const t = ev.target.closest("[data-cat-target]");
    const id = t && toItem(t.getAttribute("data-cat-target"));
    const el = id && document.getElementById(id);
    if (el) {
      el.scrollIntoView({ block: "center" });
      el.classList.add("flash");
      setTimeout(() => el.classList.remove("flash"), 900);
    }
  });
  return fig;
}

const BUILD = {
  regions(c) {
    const map = use(clickable(FIG.mapFigure(), (t) => {
      const i = ed.raw.regions.findIndex((r) => `region:${r.id}` === t);
      return i >= 0 ? `cat-item-regions-${i}` : null;
    }));
    const items = ed.raw.regions.map((r, i) => {
      const parts = ["regions", i];
      const form = F.objectForm(c, parts, r, new Set(["centre", "polygon"]));
      const layout = ["centre", "polygon"].filter((k) => k in r);
      if (layout.length) {
        form.append(h("details", { class: "cf-layout" }, h("summary", {}, "Where it is drawn (web map only)"),
          ...layout.map((k) => h("label", { class: "cf cf-wide" }, h("span", { class: "cf-key" }, k), F.jsonInput(c, [...parts, k], r[k])))));
      }
      return item(`cat-item-regions-${i}`, `${r.id} · ${r.name}`, use(FIG.regionCrop(map, i)), form);
    });
    return h("div", { class: "cat-split" }, h("div", { class: "cat-overview" }, map.node, h("p", { class: "muted" }, "Click a region to go to its values.")), h("div", {}, ...items));
  },
  tracks(c) {
    const sides = [use(FIG.tracksFigure(1)), use(FIG.tracksFigure(2))];
    const items = ed.raw.tracks.map((t, i) => item(`cat-item-tracks-${i}`, `Track ${t.id}`, use(FIG.trackCrop(sides, t.id)), trackForm(c, ["tracks", i]), "wide"));
    return h("div", {}, h("div", { class: "cat-overview cat-sides" }, sides[0].node, sides[1].node,
      h("p", { class: "muted" }, "Side 1 (the first game's) and side 2 of the track cards; below, each track with its spaces.")), ...items);
  },
  cards(c) {
    const groups = [
      ["starting", "Starting cards (every seat has them)", (i) => (page) => Object.values(page.cards).filter((x) => x.seat === 1)[i]?.name],
      ["seat_expansion", "Seat cards (the \"1\" expansion card of each seat)", (i) => () => `one/${i + 1}`],
      ["action", "Action cards", (i) => (page) => page.action_cards[i]],
    ];
    const out = [];
    for (const [key, title, nameOf] of groups) {
      const list = ed.raw.cards[key];
      if (!Array.isArray(list)) continue;
      out.push(h("h4", { class: "cat-sub" }, title));
      list.forEach((card, i) => {
        const label = card && typeof card === "object" ? (card.name || card.code || `seat ${card.seat}`) : `#${i + 1}`;
        out.push(item(`cat-item-cards-${key}-${i}`, String(label), use(FIG.cardFigure(nameOf(i))),
          card && typeof card === "object" ? F.objectForm(c, ["cards", key, i], card) : F.formFor(c, ["cards", key, i], card), "small"));
      });
    }
    const others = Object.keys(ed.raw.cards).filter((k) => !groups.some(([g]) => g === k) && !k.startsWith(F.COMMENT));
    for (const k of others) out.push(h("fieldset", { class: "cf-group" }, h("legend", {}, k), F.formFor(c, ["cards", k], ed.raw.cards[k])));
    return h("div", { class: "cat-grid" }, ...out);
  },
  display(c) {
    return item("cat-item-display", "Price modifiers by space", use(FIG.displayFigure()), F.formFor(c, ["display"], ed.raw.display), "wide-fig");
  },
  books(c) {
    const names = (page) => Object.keys(page.books);
    return h("div", { class: "cat-grid" }, ...ed.raw.books.map((b, i) => item(`cat-item-books-${i}`,
      `Book ${i + 1}${b && b.letter ? ` · ${b.letter}` : ""}`, use(FIG.bookFigure((page) => names(page)[i])),
      b && typeof b === "object" ? F.objectForm(c, ["books", i], b) : F.formFor(c, ["books", i], b), "small")));
  },
  book_display(c) {
    return item("cat-item-book-display", "Columns, letters and costs", use(FIG.bookDisplayFigure()), F.formFor(c, ["book_display"], ed.raw.book_display), "wide-fig");
  },
  bonus_spaces(c) {
    const fig = use(clickable(FIG.bonusFigure(), (t) => {
      const i = ed.raw.bonus_spaces.findIndex((b) => `bonus:${b.id}` === t);
      return i >= 0 ? `cat-item-bonus_spaces-${i}` : null;
    }));
    const items = ed.raw.bonus_spaces.map((b, i) => item(`cat-item-bonus_spaces-${i}`, `${b.id} · ${b.kind}`,
      use(FIG.bonusCrop(fig, i)), F.objectForm(c, ["bonus_spaces", i], b)));
    return h("div", { class: "cat-split" }, h("div", { class: "cat-overview" }, fig.node, h("p", { class: "muted" }, "Click a bonus space to go to its values.")), h("div", {}, ...items));
  },
  bonus_tiles(c) {
    return h("div", { class: "cat-grid" }, ...ed.raw.bonus_tiles.map((t, i) => item(`cat-item-bonus_tiles-${i}`, `${t.id}`,
      use(FIG.cardFigure((page) => page.tile_cards[i])), F.objectForm(c, ["bonus_tiles", i], t), "small")));
  },
  starting_tiles(c) {
    return h("div", {}, ...ed.raw.starting_tiles.map((t, i) => item(`cat-item-starting_tiles-${i}`, `Starting tile ${t.id}`,
      use(FIG.startingTileFigure((page) => page.starting_tiles[i])), F.objectForm(c, ["starting_tiles", i], t))));
  },
  diamond_track(c) {
    const fig = use(FIG.playerTracksFigure());
    return h("div", {}, h("div", { class: "cat-overview" }, fig.node), F.formFor(c, ["diamond_track"], ed.raw.diamond_track));
  },
};

/** A track: id, pounds per step beyond the end, and a column per space. */
function trackForm(c, parts) {
  const box = h("div", { class: "cf-track", "data-path": F.pathText(parts) });
  const build = () => {
    const track = F.getAt(c.raw, parts);
    const spaces = Array.isArray(track.spaces) ? track.spaces : [];
    const sp = [...parts, "spaces"];
    const rows = [
      ["shares", (i, v) => F.numberInput(c, [...sp, i, "shares"], v.shares)],
      ["capital", (i, v) => F.numberInput(c, [...sp, i, "capital"], v.capital)],
      ["special", (i) => specialCell(c, [...sp, i, "special"])],
      ["bonus", (i) => bonusCell(c, [...sp, i, "bonus"])],
      ["extra marker", (i) => F.valueInput(c, [...sp, i, "extra_marker"], !!spaces[i].extra_marker)],
    ];
    const table = h("table", { class: "cf-table", "data-path": F.pathText(sp) },
      h("thead", {}, h("tr", {}, h("th", {}, "space"), ...spaces.map((_, i) => h("th", {}, i === 0 ? "start" : i)))),
      h("tbody", {}, ...rows.map(([name, cell]) => h("tr", {}, h("th", {}, name),
        ...spaces.map((v, i) => h("td", { "data-path": F.pathText([...sp, i]) }, v && typeof v === "object" ? cell(i, v) : F.jsonInput(c, [...sp, i], v)))))));
    const add = h("button", { type: "button", class: "cf-add", "aria-label": `add a space to ${F.pathText(parts)}`, title: "Add a space (a copy of the last)" }, "+ space");
    const drop = h("button", { type: "button", class: "cf-drop", "aria-label": `remove the last space of ${F.pathText(parts)}`, title: "Remove the last space", disabled: spaces.length < 2 }, "− space");
    add.addEventListener("click", () => { spaces.push(structuredClone(spaces[spaces.length - 1])); changed(); build(); });
    drop.addEventListener("click", () => { spaces.pop(); changed(); build(); });
    const head = F.objectForm(c, parts, track, new Set(["spaces"]));
    box.replaceChildren(head, h("div", { class: "cf-scroll" }, table), h("span", { class: "cf-buttons" }, add, drop));
  };
  build();
  return box;
}

/** A track space's special: none or a kind, and its amount. */
function specialCell(c, parts) {
  const v = F.getAt(c.raw, parts);
  const kind = h("select", { "data-path": F.pathText(parts), "aria-label": F.pathText(parts) },
    h("option", { value: "" }, "–"), ...["pounds", "diamonds", "bookkeeping", "remove_post"].map((k) => h("option", { value: k }, k.replace("_", " "))));
  kind.value = v && typeof v === "object" ? v.kind ?? "" : "";
  const amount = F.numberInput(c, [...parts, "amount"], v && typeof v === "object" ? v.amount : "", {
    aria: `${F.pathText(parts)} amount`,
    onValue: (n) => {
      const cur = F.getAt(c.raw, parts);
      if (cur && typeof cur === "object") { cur.amount = n ?? ""; changed(); }
    },
  });
  amount.disabled = !kind.value;
  kind.addEventListener("change", () => {
    const cur = F.getAt(c.raw, parts);
    if (!kind.value) F.setAt(c.raw, parts, null);
    else if (cur && typeof cur === "object") cur.kind = kind.value;
    else { F.setAt(c.raw, parts, { kind: kind.value, amount: 1 }); amount.value = "1"; }
    amount.disabled = !kind.value;
    changed();
  });
  return h("div", { class: "cf-cell" }, kind, amount);
}

/** A track space's bonus reward as JSON (empty: not a bonus space). */
function bonusCell(c, parts) {
  const path = F.pathText(parts);
  const v = F.getAt(c.raw, parts);
  const input = h("input", { class: "cf-text cf-bonus", "data-path": path, "aria-label": path, placeholder: "–", title: 'A track bonus space\'s reward as JSON, e.g. {"pounds": 2}; empty: none' });
  input.value = v === null || v === undefined ? "" : JSON.stringify(v);
  input.addEventListener("input", () => {
    const text = input.value.trim();
    if (!text) {
      ed.local.delete(path);
      F.setAt(c.raw, parts, null);
      changed();
      return;
    }
    try {
      F.setAt(c.raw, parts, JSON.parse(text));
      ed.local.delete(path);
      changed();
    } catch (err) {
      ed.local.set(path, `not JSON: ${err.message}`);
      changed(true);
    }
  });
  return input;
}

// -- checking ---------------------------------------------------------------------------------------
function changed(localOnly = false) {
  ed.dirty = true;
  confirmBox(null);
  if (localOnly) {
    showErrors();
    status();
    return;
  }
  check(CHECK_DELAY);
}

function check(delay) {
  clearTimeout(ed.timer);
  ed.checking = true;
  status();
  ed.timer = setTimeout(runCheck, delay);
}

async function runCheck() {
  const seq = ++ed.seq;
  if (ed.abort) ed.abort.abort();
  ed.abort = new AbortController();
  let res;
  try {
    res = await api.checkCatalogue(ed.raw, ed.abort.signal);
  } catch (err) {
    if (err.name === "AbortError" || seq !== ed.seq) return;
    ed.checking = false;
    ed.error = err instanceof ApiError && err.body && err.body.field
      ? { path: err.body.field === "catalogue" ? "$" : err.body.field.replace(/^catalogue\.?/, "") || "$", message: err.body.message }
      : { path: "$", message: errorText(err) };
    afterCheck();
    return;
  }
  if (seq !== ed.seq) return;
  ed.checking = false;
  ed.error = res.ok ? null : res.error;
  if (res.ok) {
    ed.summary = res.summary;
    ed.page = res.page;
    drawFigures();
  }
  afterCheck();
}

function afterCheck() {
  renderTabs();
  showErrors();
  status();
  if (ed.jump && ed.error) goToError();
  ed.jump = false;
}

function showErrors() {
  const root = $("#cat-section");
  F.clearErrors(root);
  for (const [path, message] of ed.local) F.placeError(root, path, message);
  if (ed.error && sectionOf(ed.error.path) === ed.section) {
    const note = F.placeError(root, ed.error.path, ed.error.message);
    if (note) note.closest("details")?.setAttribute("open", "");
  }
}

function goToError() {
  const path = ed.error ? ed.error.path : [...ed.local.keys()][0];
  if (!path) return;
  if (sectionOf(path) !== ed.section) {
    ed.section = sectionOf(path);
    renderTabs();
    renderSection();
  }
  const field = F.fieldFor($("#cat-section"), path);
  if (field) {
    field.closest("details")?.setAttribute("open", "");
    field.scrollIntoView({ block: "center" });
    field.focus({ preventScroll: true });
  }
}

function summaryText(s) {
  const sum = (o) => Object.values(o || {}).reduce((a, b) => a + b, 0);
  return `${s.regions} regions, ${s.borders} borders, ${s.tracks} tracks, ${sum(s.action_cards)} action cards, ${sum(s.books)} books, `
    + `${s.bonus_spaces} bonus spaces, ${s.bonus_tiles} bonus tiles, ${s.starting_tiles} starting tiles; `
    + (s.reconstruction ? "says it is a reconstruction" : "says it holds the printed values");
}

/** The line at the top: valid or the first fault (with a button to it); saved or not. */
function status() {
  const box = $("#cat-status");
  const parts = [];
  const local = [...ed.local][0];
  if (local) {
    parts.push(h("span", { class: "bad" }, `✗ ${local[0]}: ${local[1]}`), " ", h("button", { type: "button", id: "cat-goto", onclick: goToError }, "Show"));
  } else if (ed.checking) {
    parts.push(h("span", { class: "muted" }, "checking…"));
  } else if (ed.error) {
    parts.push(h("span", { class: "bad", id: "cat-fault" }, `✗ Not valid: ${ed.error.path}: ${ed.error.message}`), " ",
      h("button", { type: "button", id: "cat-goto", onclick: goToError }, "Show"));
  } else if (ed.summary) {
    parts.push(h("span", { class: "good" }, `✓ Valid: ${summaryText(ed.summary)}`));
  }
  const where = ed.stored ? (ed.dirty ? `${ed.stored} — unsaved changes` : ed.stored) : "not saved";
  parts.push(h("span", { class: "cat-where" }, where));
  box.dataset.state = local || ed.error ? "invalid" : ed.checking ? "checking" : "valid";
  box.replaceChildren(...parts);
}

function say(kind, textOrNode) {
  const box = $("#cat-message");
  box.hidden = !textOrNode;
  box.className = kind || "";
  box.replaceChildren(textOrNode || "");
}

/** An inline question with its buttons ([[text, action, primary]]); null clears it. */
function confirmBox(question, buttons = []) {
  const box = $("#cat-confirm");
  if (!question) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  box.replaceChildren(h("span", {}, question), ...buttons.map(([t, fn, primary]) => h("button", {
    type: "button", class: primary ? "primary" : null, onclick: () => { confirmBox(null); fn(); },
  }, t)), h("button", { type: "button", onclick: () => confirmBox(null) }, "Cancel"));
  box.hidden = false;
}

// -- saving, importing, exporting, deleting -----------------------------------------------------------
async function save(replace = false) {
  const name = $("#cat-name").value.trim();
  say(null);
  if (!name) {
    say("error", "Give it a name first (1-60 letters, digits, spaces, - _ .).");
    $("#cat-name").focus();
    return;
  }
  if (ed.local.size) {
    say("error", "Some JSON text does not parse: fix it first.");
    goToError();
    return;
  }
  $("#cat-save").disabled = true;
  try {
    const entry = await api.saveCatalogue(name, ed.raw, replace);
    ed.stored = entry.name;
    ed.dirty = false;
    $("#cat-name").value = entry.name;
    await refreshList();
    $("#cat-choose").value = entry.name;
    say("info", `Saved as “${entry.name}”: choose it under Components when you start a new game.`);
  } catch (err) {
    const body = err instanceof ApiError ? err.body : {};
    if (err.status === 409 && /exists/.test(err.message)) {
      confirmBox(`A catalogue named “${name}” exists. Replace it? (Games created with it keep their components.)`, [["Replace", () => save(true), true]]);
    } else if (err.status === 422 && body.field && body.field.startsWith("catalogue")) {
      const fault = (body.errors && body.errors[0]) || {};
      ed.error = { path: fault.path || "$", message: fault.message || err.message };
      afterCheck();
      goToError();
      say("error", `Not saved: ${err.message}`);
    } else {
      say("error", `Not saved: ${errorText(err)}`);
    }
  } finally {
    $("#cat-save").disabled = false;
    status();
  }
}

function exportFile() {
  const name = ($("#cat-name").value.trim() || ed.stored || "catalogue").replace(/[^\w .-]+/g, "_");
  const blob = new Blob([`${JSON.stringify(ed.raw, null, 2)}\n`], { type: "application/json" });
  const url = URL.createObjectURL(blob);
  const a = h("a", { href: url, download: `${name.replace(/^default \(reconstruction\)$/, "default")}.json` });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 2000);
}

/** "... at position 123" -> line and column of the text. */
function whereInText(text, message) {
  const m = /position (\d+)/.exec(message);
  if (!m || /line \d+/.test(message)) return message;
  const before = text.slice(0, Number(m[1]));
  const line = before.split("\n").length;
  return `${message} (line ${line}, column ${before.length - before.lastIndexOf("\n")})`;
}

async function importFile(file) {
  say(null);
  let raw;
  const text = await file.text();
  try {
    raw = JSON.parse(text);
  } catch (err) {
    say("error", `${file.name} is not JSON: ${whereInText(text, err.message)}`);
    return;
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
    say("error", `${file.name}: a catalogue is a JSON object, not ${Array.isArray(raw) ? "a list" : typeof raw}.`);
    return;
  }
  const base = file.name.replace(/\.json$/i, "").replace(/[^\p{L}\p{N} ._-]+/gu, " ").trim().slice(0, 60);
  ed.jump = true;
  load(raw, null, true, base);
  say("info", `Imported ${file.name} (not saved yet): check it, then save it under a name.`);
}

function remove() {
  const name = ed.stored;
  if (!name || name === DEFAULT_NAME) {
    say("error", "Open a stored catalogue to delete it (the shipped one stays).");
    return;
  }
  confirmBox(`Delete “${name}”? Games created with it keep their components.`, [["Delete", async () => {
    try {
      const res = await api.deleteCatalogue(name);
      ed.stored = null;
      ed.dirty = true;
      await refreshList();
      say("info", `Deleted “${res.name}”${res.games ? ` (${res.games} game${res.games > 1 ? "s" : ""} keep${res.games > 1 ? "" : "s"} it)` : ""}; it is still open here, unsaved.`);
      status();
    } catch (err) {
      say("error", errorText(err));
    }
  }, true]]);
}

function openChosen() {
  const name = $("#cat-choose").value;
  const go = () => { say(null); openNamed(name); };
  if (ed.dirty) confirmBox("Discard the unsaved changes?", [["Discard", go, true]]);
  else go();
}

export function wireCatalogueScreen() {
  $("#btn-catalogue").addEventListener("click", openCatalogueScreen);
  $("#cat-close").addEventListener("click", closeCatalogueScreen);
  $("#cat-open").addEventListener("click", openChosen);
  $("#cat-save").addEventListener("click", () => save(false));
  $("#cat-export").addEventListener("click", exportFile);
  $("#cat-delete").addEventListener("click", remove);
  $("#cat-import-btn").addEventListener("click", () => $("#cat-import").click());
  $("#cat-import").addEventListener("change", (ev) => {
    const file = ev.target.files && ev.target.files[0];
    ev.target.value = "";
    if (file) importFile(file);
  });
}
