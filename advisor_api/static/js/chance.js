// Live mode: chance events entered as at the table. The engine deals in a fixed order
// (the state's `pending` list: display spaces R1, R2, ..., then book spaces, ...), but the
// user may click any display space, book space or (variable setup) company whose
// card, book or track is still to come, in any order, and pick what lies there. A pick
// for the space due now is sent at once; a pick for a later space is kept here (per
// game, in sessionStorage, drawn on the board with a dashed outline) and sent as soon
// as the engine comes to its space, with every further pick that is then due.
//
// The pick list shows everything printed on the component (cards: kind, goods and
// value, crate, share icon, stack letter; books: letter, needs and reward) and merges
// components identical in every printed respect into one entry ("x2").

import { api, ApiError } from "./api.js";
import { afterChange } from "./game.js";
import { openPicker } from "./picker.js";
import { render } from "./render.js";
import * as S from "./steps.js";
import { h, rewardText } from "./svg.js";
import { app } from "./state.js";
import { beginSend, errorText, message } from "./ui.js";

const STORE = "mombasa-chance:";
const KEY_OF = {
  "deal-card": (e) => `display:${e.space}`,
  "deal-book": (e) => `bookspace:${e.space}`,
  "deal-track": (e) => `company:${e.company}`,
};
const NOUN = { "deal-card": "card", "deal-book": "book", "deal-track": "track" };

// -- the picks kept for later spaces ----------------------------------------------------------
function picks() {
  return app.chance.picks;
}

function load(id) {
  let saved = [];
  try {
    saved = JSON.parse(sessionStorage.getItem(STORE + id) || "[]");
  } catch { /* storage unavailable */ }
  app.chance = { id, picks: new Map(Array.isArray(saved) ? saved : []) };
}

function store() {
  try {
    if (picks().size) sessionStorage.setItem(STORE + app.chance.id, JSON.stringify([...picks()]));
    else sessionStorage.removeItem(STORE + app.chance.id);
  } catch { /* storage unavailable */ }
}

export function isLiveChance(v) {
  return !!v && v.mode === "live" && !v.over && v.decision.kind === "chance";
}

/**
 * The spaces still to be dealt, in the engine's order: Map key -> {key, event, arg,
 * index (in the run of chance events), order (among events of its kind), due}.
 */
export function slots(v) {
  const out = new Map();
  if (!isLiveChance(v)) return out;
  const pending = v.observation.state.pending || [];
  const count = {};
  for (let i = 0; i < pending.length; i++) {
    const e = pending[i];
    if (!e.chance) break;
    const order = count[e.chance] || 0;
    count[e.chance] = order + 1;
    const keyOf = KEY_OF[e.chance];
    if (!keyOf) continue;
    const key = keyOf(e);
    if (out.has(key)) continue; // dealt twice before the next decision: the first one counts
    out.set(key, { key, event: e.chance, arg: e.space ?? e.company, index: i, order, due: i === 0 });
  }
  return out;
}

function stepFor(slot, name) {
  return slot.event === "deal-track" ? `deal-track ${slot.arg} ${name}` : `${slot.event} ${name} ${slot.arg}`;
}

function nameOf(slot, text) {
  const p = S.parse(text);
  if (p.kind !== slot.event) return null;
  return slot.event === "deal-track" ? p.args[1] : p.args[0];
}

function cardLetters(cat) {
  return cat.card_letters || [...new Set(cat.action_cards.map((n) => cat.cards[n].letter))].sort();
}

const trackPair = (cat, id) => cat.track_cards.findIndex((pair) => pair.includes(id));

/** What may lie in the slot's space (before excluding what was picked elsewhere). */
function possible(v, slot) {
  const cat = app.cat;
  const st = v.observation.state;
  if (slot.due) return v.legal.map((x) => nameOf(slot, x.text)).filter(Boolean);
  if (slot.event === "deal-card") {
    // the stack is dealt top layer first (A, then B, ...): count down to this event's layer
    const stack = Array.isArray(st.stack) ? st.stack : [];
    let k = slot.order;
    for (const letter of cardLetters(cat)) {
      const layer = stack.filter((n) => cat.cards[n] && cat.cards[n].letter === letter);
      if (k < layer.length) return layer;
      k -= layer.length;
    }
    return [];
  }
  if (slot.event === "deal-book") {
    const sp = cat.book_display.spaces.find((x) => x.name === slot.arg);
    return (st.book_supply || []).filter((n) => cat.books[n] && (!sp || cat.books[n].letter === sp.letter));
  }
  if (slot.event === "deal-track") {
    const used = new Set(Object.values(st.tracks || {}).filter(Boolean).map((t) => trackPair(cat, t)));
    return cat.track_cards.flat().filter((t) => !used.has(trackPair(cat, t)));
  }
  return [];
}

/** What a pick in space `key` uses up: the component, or for a track both sides of its card. */
function token(cat, key, name) {
  const what = key.split(":")[0];
  return what === "company" ? `pair:${trackPair(cat, name)}` : `${what}:${name}`;
}

/** The slot's candidates: what may lie there and is not in `taken` (tokens). */
function available(v, slot, taken = null) {
  const cat = app.cat;
  if (!taken) {
    taken = new Set();
    for (const [key, name] of picks()) if (key !== slot.key) taken.add(token(cat, key, name));
  }
  return possible(v, slot).filter((n) => !taken.has(token(cat, slot.key, n)));
}

// -- what is printed on a component ----------------------------------------------------------
/** Components with the same identity are indistinguishable at the table. */
export function identity(cat, event, name) {
  if (event === "deal-card") {
    const c = cat.cards[name];
    return c ? JSON.stringify(["card", c.kind, c.good, c.value, c.crate, c.share, c.company, c.letter]) : name;
  }
  if (event === "deal-book") {
    const b = cat.books[name];
    return b ? JSON.stringify(["book", b.letter, b.needs, b.reward]) : name;
  }
  return name;
}

const KIND_WORD = { goods: "goods card", expansion: "expansion card", bookkeeper: "bookkeeper card", merchant: "merchant card", share: "share card" };

/** A card as printed: "Cotton 2 · goods card · crate 2 (£2 here) · Saint-Louis share icon · stack A". */
export function cardText(cat, name, space) {
  const c = cat.cards[name];
  if (!c) return name;
  const price = space ? S.cardPrice(cat, name, space) : null;
  const parts = [S.cardKind(cat, name), KIND_WORD[c.kind] || `${c.kind} card`,
    `crate ${c.crate}${price !== null ? ` (£${price} here)` : ""}`];
  if (c.kind !== "share") parts.push(c.share ? `${S.companyName(cat, c.share)} share icon` : "no share icon");
  parts.push(`stack ${c.letter}`);
  return parts.join(" · ");
}

/** A book as printed: "Book A · needs 1 coffee + 1 cotton · reward £2". */
export function bookText(cat, name) {
  const b = cat.books[name];
  if (!b) return name;
  const needs = b.needs.map(([m, n]) => `${n} ${m}`).join(" + ") || "nothing";
  return `Book ${b.letter} · needs ${needs} · reward ${rewardText(cat, b.reward)}`;
}

function trackText(cat, id) {
  const t = cat.tracks[id];
  if (!t) return `Track ${id}`;
  const pair = trackPair(cat, id);
  const side = pair >= 0 ? ` · card ${pair + 1}, side ${cat.track_cards[pair].indexOf(id) + 1}` : "";
  return `Track ${id}${side} · ${t.spaces.length} spaces · £${t.end_pounds} at the end`;
}

/** Words one may type for a component beyond its label (company ids, synonyms). */
function searchWords(cat, event, name) {
  const extra = [];
  const company = (id) => { if (id) extra.push(id, S.companyName(cat, id)); };
  if (event === "deal-card") {
    const c = cat.cards[name];
    if (c) {
      extra.push(c.kind, c.good || "", c.share ? "share" : "");
      company(c.share);
      company(c.company);
    }
  } else if (event === "deal-book") {
    const b = cat.books[name];
    const rw = b ? b.reward : {};
    if (rw.pounds) extra.push("pounds", "pound", "money", "coins");
    if (rw.diamonds) extra.push("diamonds");
    if (rw.bookkeeping) extra.push("bookkeeping", "points");
    if (rw.track) { extra.push("track", "steps"); company(rw.track_company); }
    if (rw.remove_post) extra.push("remove", "post");
  }
  return extra.join(" ");
}

function componentText(cat, slot, name) {
  if (slot.event === "deal-card") return cardText(cat, name, slot.arg);
  if (slot.event === "deal-book") return bookText(cat, name);
  return trackText(cat, name);
}

/** The pick list of a slot: one entry per distinct printed component. */
export function entriesFor(cat, slot, names, current) {
  const groups = new Map();
  for (const n of names) {
    const id = identity(cat, slot.event, n);
    if (!groups.has(id)) groups.set(id, []);
    groups.get(id).push(n);
  }
  return [...groups].map(([id, ns]) => {
    const text = componentText(cat, slot, ns[0]);
    const label = `${text} · ${ns.join("/")}${ns.length > 1 ? ` · x${ns.length}` : ""}`;
    return { id, names: ns, label, search: `${label} ${searchWords(cat, slot.event, ns[0])}`, current: !!current && ns.includes(current) };
  });
}

export function whereText(cat, slot) {
  if (slot.event === "deal-card") return `display space ${slot.arg}`;
  if (slot.event === "deal-book") return `book space ${slot.arg}`;
  return `the ${S.companyName(cat, slot.arg)} track`;
}

function pickText(cat, slot, name) {
  if (slot.event === "deal-card") return S.cardLabel(cat, name);
  if (slot.event === "deal-book") return `book ${name}`;
  return `track ${name}`;
}

// -- clicks ----------------------------------------------------------------------------------
/** A click on the table in live mode at a chance event: true when it opened the list. */
export function chanceClick(ev, chain) {
  const v = app.view;
  if (!isLiveChance(v)) return false;
  const all = slots(v);
  const key = chain.map((k) => (k.startsWith("base:") ? `company:${k.slice(5)}` : k)).find((k) => all.has(k));
  if (!key) return false;
  openSlot(ev.clientX, ev.clientY, all.get(key));
  return true;
}

export function openSlot(x, y, slot) {
  const cat = app.cat;
  const v = app.view;
  const current = picks().get(slot.key) || null;
  const entries = entriesFor(cat, slot, available(v, slot), current);
  const where = whereText(cat, slot);
  const verb = slot.event === "deal-track" ? "was placed at" : "was revealed in";
  const dueSlot = [...slots(v).values()].find((s) => s.due);
  const note = slot.due ? null
    : `Kept until the service deals ${where}${dueSlot ? ` (now due: ${whereText(cat, dueSlot)})` : ""}.`;
  const empty = slot.event === "deal-card" && !possible(v, slot).length
    ? "The stack is empty: this space stays empty." : "Nothing left that fits (each one is picked for another space).";
  openPicker(x, y, entries, {
    heading: `Which ${NOUN[slot.event]} ${verb} ${where}?`,
    note, empty,
    onPick: (entry) => choose(slot, entry),
    onClear: current ? () => clearPick(slot.key) : null,
  });
}

function choose(slot, entry) {
  const current = picks().get(slot.key);
  const name = entry.names.includes(current) ? current : entry.names[0];
  picks().set(slot.key, name);
  store();
  message(null);
  if (slot.due) flush();
  else render(app.view);
}

export function clearPick(key) {
  picks().delete(key);
  store();
  render(app.view);
}

function clearAll() {
  picks().clear();
  store();
  render(app.view);
}

// -- sending picks as their spaces come due --------------------------------------------------
/** Send the pick of the space due now, then the next while its space has a pick too. */
export async function flush() {
  if (app.busy || !isLiveChance(app.view)) return;
  const cat = app.cat;
  let v = app.view;
  beginSend();
  let problem = null;
  try {
    while (isLiveChance(v)) {
      const due = [...slots(v).values()].find((s) => s.due);
      const name = due && picks().get(due.key);
      if (!name) break;
      const legal = v.legal.map((x) => nameOf(due, x.text)).filter(Boolean);
      let send = name;
      if (!legal.includes(name)) {
        // an identical copy will do (they cannot be told apart at the table)
        const others = new Set([...picks()].filter(([k]) => k !== due.key).map(([, n]) => n));
        send = legal.find((n) => !others.has(n) && identity(cat, due.event, n) === identity(cat, due.event, name));
      }
      if (!send) {
        picks().delete(due.key);
        problem = `${pickText(cat, due, name)} cannot be dealt to ${whereText(cat, due)} (it is not there to draw): the pick is cleared, pick again.`;
        break;
      }
      try {
        v = await api.chance(app.id, v.seat, stepFor(due, send));
      } catch (err) {
        if (err instanceof ApiError && err.status === 409) picks().delete(due.key);
        problem = `${whereText(cat, due)}: ${errorText(err)}`;
        break;
      }
      picks().delete(due.key);
    }
  } finally {
    store();
    app.busy = false;
  }
  if (problem) message("error", problem);
  try {
    await afterChange(v);
  } catch (err) {
    message("error", errorText(err));
    render(app.view);
  }
}

/**
 * Before drawing a view: keep only the picks that still fit (a space still to be dealt,
 * a component still there and not picked twice); say which ones were cleared and why.
 */
export function syncPicks(v) {
  if (!v || v.mode !== "live") return;
  if (!app.chance || app.chance.id !== v.id) load(v.id);
  if (!picks().size) return;
  const cat = app.cat;
  const all = slots(v);
  const cleared = [];
  const taken = new Set(); // the picks kept so far, in the engine's order
  const order = [...picks()].sort(([a], [b]) => (all.get(a)?.index ?? -1) - (all.get(b)?.index ?? -1));
  for (const [key, name] of order) {
    const slot = all.get(key);
    if (!slot) {
      picks().delete(key);
      cleared.push(`${key.split(":")[1]}: ${name} (nothing is dealt there now)`);
      continue;
    }
    const fits = available(v, slot, taken);
    const keep = fits.includes(name) ? name : fits.find((n) => identity(cat, slot.event, n) === identity(cat, slot.event, name));
    if (keep) {
      picks().set(key, keep); // an identical copy will do
      taken.add(token(cat, key, keep));
      continue;
    }
    picks().delete(key);
    const twice = taken.has(token(cat, key, name));
    const gone = !possible(v, slot).includes(name);
    cleared.push(`${whereText(cat, slot)}: ${pickText(cat, slot, name)} (${twice ? "already picked for another space" : gone ? "it is already on the table or gone" : "it cannot be drawn there"})`);
  }
  store();
  if (cleared.length) message("error", `Pending picks cleared, pick them again: ${cleared.join("; ")}.`);
}

/** The view's state with the pending picks laid out (for drawing the board). */
export function shownState(v, st) {
  if (!app.chance || app.chance.id !== v.id || !picks().size) return st;
  const out = { ...st, display: { ...st.display }, book_display: { ...st.book_display }, tracks: { ...st.tracks } };
  for (const [key, name] of picks()) {
    const [what, arg] = key.split(":");
    if (what === "display") out.display[arg] = name;
    else if (what === "bookspace") out.book_display[arg] = name;
    else if (what === "company") out.tracks[arg] = name;
  }
  return out;
}

/** Highlight the spaces one may fill, outline the pending ones (dashed). */
export function markSlots(v) {
  const all = slots(v);
  const pending = app.chance && app.chance.id === v.id ? picks() : new Map();
  document.body.dataset.pending = String(pending.size);
  for (const key of all.keys()) {
    for (const node of document.querySelectorAll(`[data-target="${key}"]`)) {
      node.classList.add(pending.has(key) ? "pending" : "legal");
      if (pending.has(key)) node.setAttribute("data-pick", pending.get(key));
    }
  }
}

/** The decision panel at a live chance event: what to do, and the pending picks. */
export function chancePanel(v, titleNode, helpNode, buttons) {
  const cat = app.cat;
  const all = [...slots(v).values()];
  const due = all.find((s) => s.due);
  const first = v.legal.length ? S.parse(v.legal[0].text) : null;
  if (!due) {
    const what = first && first.kind === "deal-tile" ? `a starting tile for ${first.args[0]}` : "an outcome";
    titleNode.textContent = `At the table: ${what}`;
    helpNode.textContent = "Report what was dealt at the table with the buttons below.";
    return;
  }
  const kinds = new Set(all.map((s) => s.event));
  const words = [kinds.has("deal-track") && "tracks", kinds.has("deal-card") && "cards", kinds.has("deal-book") && "books"].filter(Boolean);
  const waiting = all.filter((s) => picks().has(s.key)).length;
  const list = words.length > 1 ? `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}` : words[0];
  titleNode.textContent = `At the table: the revealed ${list} (${all.length - waiting} to enter${waiting ? `, ${waiting} waiting` : ""})`;
  helpNode.textContent = `Click any highlighted space, in any order, and pick what lies there (type to filter, ↑ ↓ and Enter, or click). `
    + `The service takes them in its own order, now ${whereText(cat, due)}: a pick for a later space waits (dashed outline) and is sent when its turn comes.`;
  const mine = [...picks()].filter(([key]) => all.some((s) => s.key === key));
  if (!mine.length) return;
  const slotOf = new Map(all.map((s) => [s.key, s]));
  buttons.append(h("span", { class: "muted" }, `Waiting to be sent (${mine.length}): `));
  for (const [key, name] of mine) {
    const slot = slotOf.get(key);
    buttons.append(h("button", {
      type: "button", class: "pending-pick", "data-key": key, title: `Clear the pick for ${whereText(cat, slot)}`,
      "aria-label": `Clear ${pickText(cat, slot, name)} in ${whereText(cat, slot)}`, onclick: () => clearPick(key),
    }, `${slot.arg}: ${pickText(cat, slot, name)} ✕`));
  }
  if (mine.length > 1) buttons.append(h("button", { type: "button", class: "muted", onclick: clearAll }, "Clear all"));
}
