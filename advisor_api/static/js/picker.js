// The pick list: a small popup with a filter box (keyboard focus on open) above a
// listbox of entries. Typing narrows the list (the words typed begin words of the
// entry: as a phrase when some entry has them so, else in any order), the arrow keys
// move the highlighted entry, Enter or a click picks it, Escape closes. Used in live mode for the card, book or track revealed at the table.

import { h } from "./svg.js";
import { $ } from "./ui.js";

let state = null; // {entries, shown, active, onPick}

const words = (str) => str.toLowerCase().split(/[\s,;:()·/+→=-]+/).filter(Boolean);

/**
 * How `query` (the words typed) matches an entry's search text: 2 when the words begin
 * consecutive words of it ("cot 2" in "Cotton 2 · ..."), 1 when each begins some word of
 * it, in any order ("coffee crate 2"), 0 when not.
 */
export function matches(search, query) {
  const tokens = words(query);
  if (!tokens.length) return 2;
  const have = words(search);
  for (let i = 0; i + tokens.length <= have.length; i++) {
    if (tokens.every((t, k) => have[i + k].startsWith(t))) return 2;
  }
  return tokens.every((t) => have.some((w) => w.startsWith(t))) ? 1 : 0;
}

/**
 * Open the list near (x, y). entries: [{id, label, search, names, current}], opts:
 * {heading, note, onPick(entry), onClear (shows "Clear this space"), empty}.
 */
export function openPicker(x, y, entries, opts) {
  const box = $("#picker");
  const input = h("input", {
    id: "picker-filter", type: "text", autocomplete: "off", spellcheck: "false",
    role: "combobox", "aria-expanded": "true", "aria-controls": "picker-list", "aria-autocomplete": "list",
    "aria-label": "Filter: type what is printed on it (e.g. cot 2, A3, pounds)",
    placeholder: "type to filter: cot 2, A3, pounds…",
  });
  const list = h("ul", { id: "picker-list", role: "listbox", "aria-label": opts.heading });
  const extra = [];
  if (opts.onClear) {
    extra.push(h("button", { type: "button", id: "picker-clear", onclick: () => { closePicker(); opts.onClear(); } }, "Clear this space"));
  }
  extra.push(h("button", { type: "button", class: "muted", id: "picker-cancel", onclick: closePicker }, "Cancel"));
  box.replaceChildren(
    h("h3", { id: "picker-heading" }, opts.heading),
    opts.note ? h("p", { class: "picker-note" }, opts.note) : null,
    input, list,
    h("p", { id: "picker-count", class: "picker-note", "aria-live": "polite" }),
    h("div", { class: "row" }, ...extra));
  box.setAttribute("aria-labelledby", "picker-heading");
  state = { entries, shown: [], active: 0, onPick: opts.onPick, empty: opts.empty || "Nothing fits." };
  input.addEventListener("input", () => update(input.value));
  input.addEventListener("keydown", onKey);
  list.addEventListener("mousedown", (ev) => ev.preventDefault()); // keep the focus in the filter
  list.addEventListener("click", (ev) => {
    const li = ev.target.closest("[role=option]");
    if (li) pick(Number(li.dataset.index));
  });
  box.hidden = false;
  update("");
  const current = entries.findIndex((e) => e.current);
  if (current >= 0) setActive(current);
  const w = box.offsetWidth;
  const hgt = box.offsetHeight;
  box.style.left = `${Math.max(8, Math.min(x + 8, window.innerWidth - w - 8))}px`;
  box.style.top = `${Math.max(8, Math.min(y + 8, window.innerHeight - hgt - 8))}px`;
  input.focus();
}

export function closePicker() {
  const box = $("#picker");
  if (!box || box.hidden) return;
  box.hidden = true;
  box.replaceChildren();
  state = null;
}

export function pickerOpen() {
  return !!state;
}

function update(query) {
  const list = $("#picker-list");
  // the entries the words typed begin as a phrase; else those with every word anywhere
  const score = state.entries.map((e) => matches(e.search, query));
  const best = Math.max(1, ...score);
  state.shown = state.entries.filter((e, i) => score[i] >= best);
  // an entry named exactly as a word typed comes first ("B1" before B10 ... B16)
  const exact = new Set(words(query));
  state.shown.sort((a, b) => Number(b.names.some((n) => exact.has(n.toLowerCase()))) - Number(a.names.some((n) => exact.has(n.toLowerCase()))));
  list.replaceChildren(...state.shown.map((e, i) => h("li", {
    id: `picker-opt-${i}`, role: "option", "aria-selected": "false", "data-index": i,
    "data-names": e.names.join(" "), "data-id": e.id, class: e.current ? "current" : null, title: e.label,
  }, e.label)));
  const n = state.shown.length;
  $("#picker-count").textContent = n ? `${n} of ${state.entries.length}` : state.empty;
  setActive(0);
}

function setActive(i) {
  const n = state.shown.length;
  const input = $("#picker-filter");
  for (const li of document.querySelectorAll("#picker-list [role=option]")) li.setAttribute("aria-selected", "false");
  if (!n) {
    state.active = -1;
    input.removeAttribute("aria-activedescendant");
    return;
  }
  state.active = Math.max(0, Math.min(n - 1, i));
  const li = document.getElementById(`picker-opt-${state.active}`);
  li.setAttribute("aria-selected", "true");
  input.setAttribute("aria-activedescendant", li.id);
  li.scrollIntoView({ block: "nearest" });
}

function onKey(ev) {
  if (!state) return;
  const page = 8;
  switch (ev.key) {
    case "ArrowDown": setActive(state.active + 1); break;
    case "ArrowUp": setActive(state.active - 1); break;
    case "PageDown": setActive(state.active + page); break;
    case "PageUp": setActive(state.active - page); break;
    case "Home": if (ev.ctrlKey) setActive(0); else return; break;
    case "End": if (ev.ctrlKey) setActive(state.shown.length - 1); else return; break;
    case "Enter": if (state.active >= 0) pick(state.active); break;
    case "Escape": closePicker(); break;
    default: return;
  }
  ev.preventDefault();
  ev.stopPropagation();
}

function pick(i) {
  const entry = state && state.shown[i];
  if (!entry) return;
  const onPick = state.onPick;
  closePicker();
  onPick(entry);
}
