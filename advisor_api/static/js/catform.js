// The forms of the catalogue screen: every value of a component as an input that knows
// its JSON path (data-path, written as the validator writes it: books[12].reward.pounds),
// writes its value into the catalogue being edited, and shows the validator's error
// where that path points (or at the nearest enclosing part that has an input).
//
// Widgets: numbers, text, yes/no, a company / region / good chooser, a reward (the five
// kinds of icons, a company's track steps), an optional object (a track space's special
// or bonus), lists with "+" / "−", and JSON text for the map's layout (polygons).

import { h } from "./svg.js";

export const COMMENT = "//";
const MEASURES = ["coffee", "bananas", "cotton", "expansion", "bookkeeping"];
const REWARD_KEYS = [["pounds", "£ pounds"], ["diamonds", "diamonds"], ["bookkeeping", "bookkeeping"], ["remove_post", "remove post"]];
const LAYOUT_KEYS = new Set(["polygon", "centre"]);
const SPECIAL_KINDS = ["pounds", "diamonds", "bookkeeping", "remove_post"];

// -- paths -----------------------------------------------------------------------------------
/** ["books", 12, "reward"] -> "books[12].reward" (the validator's spelling). */
export function pathText(parts) {
  let out = "";
  for (const p of parts) out += typeof p === "number" ? `[${p}]` : out ? `.${p}` : p;
  return out;
}

/** The enclosing path: "books[12].reward" -> "books[12]" -> "books" -> "". */
export function parentPath(path) {
  const m = path.match(/^(.*)(\[\d+\]|\.[^.[\]]*)$/);
  return m ? m[1] : "";
}

/** The top-level key a path is about ("books[12].reward" -> "books"). */
export function topKey(path) {
  return path.split(/[.[]/)[0];
}

export function getAt(obj, parts) {
  let v = obj;
  for (const p of parts) {
    if (v === null || typeof v !== "object") return undefined;
    v = v[p];
  }
  return v;
}

export function setAt(obj, parts, value) {
  let v = obj;
  for (const p of parts.slice(0, -1)) v = v[p];
  v[parts[parts.length - 1]] = value;
}

export function deleteAt(obj, parts) {
  const parent = getAt(obj, parts.slice(0, -1));
  if (parent && typeof parent === "object") delete parent[parts[parts.length - 1]];
}

// -- the editing context ----------------------------------------------------------------------
/**
 * ctx: {raw (the catalogue edited), changed() (after every edit), cat (the catalogue as
 * drawn: companies, regions), local: Map path -> message (JSON text that does not parse)}.
 */
function write(ctx, parts, value) {
  setAt(ctx.raw, parts, value);
  ctx.changed();
}

function label(text, control, cls = null) {
  return h("label", { class: `cf${cls ? ` ${cls}` : ""}` }, h("span", { class: "cf-key" }, text), control);
}

function prettyKey(key) {
  return typeof key === "number" ? `#${key + 1}` : String(key).replace(/_/g, " ");
}

// -- single values ------------------------------------------------------------------------------
export function numberInput(ctx, parts, value, opts = {}) {
  const input = h("input", {
    type: "number", step: "any", class: "cf-num", "data-path": pathText(parts), value: value ?? "",
    placeholder: opts.placeholder ?? "", "aria-label": opts.aria || pathText(parts),
  });
  input.addEventListener("input", () => {
    const text = input.value.trim();
    if (opts.onValue) opts.onValue(text === "" ? null : Number(text));
    else write(ctx, parts, text === "" ? "" : Number(text));
  });
  return input;
}

function textInput(ctx, parts, value, nullable) {
  const long = typeof value === "string" && value.length > 60;
  const input = h(long ? "textarea" : "input", {
    class: long ? "cf-long" : "cf-text", "data-path": pathText(parts), "aria-label": pathText(parts),
    placeholder: nullable ? "none" : "", rows: long ? 3 : null,
  });
  input.value = value ?? "";
  input.addEventListener("input", () => write(ctx, parts, input.value === "" && nullable ? null : input.value));
  return input;
}

function boolInput(ctx, parts, value) {
  const input = h("input", { type: "checkbox", "data-path": pathText(parts), "aria-label": pathText(parts) });
  input.checked = !!value;
  input.addEventListener("change", () => write(ctx, parts, input.checked));
  return input;
}

/** A chooser: options [[value, text]]; "" stands for null (none). */
function selectInput(ctx, parts, value, options, onValue = null) {
  const sel = h("select", { "data-path": pathText(parts), "aria-label": pathText(parts) },
    ...options.map(([v, t]) => h("option", { value: v ?? "" }, t)));
  const known = options.some(([v]) => (v ?? "") === (value ?? ""));
  if (!known) sel.append(h("option", { value: String(value) }, String(value)));
  sel.value = value ?? "";
  sel.addEventListener("change", () => {
    const v = sel.value === "" ? null : sel.value;
    if (onValue) onValue(v);
    else write(ctx, parts, v);
  });
  return sel;
}

function companyOptions(ctx, none = true) {
  const list = (ctx.cat?.companies || []).map((c) => [c.id, `${c.id} (${c.name})`]);
  return none ? [[null, "none"], ...list] : list;
}

/** The input of one plain value (number, text, yes/no, or a chooser named by its key). */
export function valueInput(ctx, parts, value) {
  const key = parts[parts.length - 1];
  if (typeof value === "boolean") return boolInput(ctx, parts, value);
  if (typeof value === "number") return numberInput(ctx, parts, value);
  if (key === "share" || key === "company") return selectInput(ctx, parts, value, companyOptions(ctx));
  if (key === "enclave_of") {
    return selectInput(ctx, parts, value, [[null, "none"], ...(ctx.cat?.regions || []).map((r) => [r.id, `${r.id} (${r.name})`])]);
  }
  if (key === "good" || key === "measure") return selectInput(ctx, parts, value, MEASURES.slice(0, key === "good" ? 3 : 5).map((m) => [m, m]));
  return textInput(ctx, parts, value, value === null);
}

// -- rewards -------------------------------------------------------------------------------------
/**
 * A reward object: pounds, diamonds, bookkeeping, remove_post and track steps (a number
 * for a region: the expanding company's track; else {company, steps}). An empty amount
 * leaves the key out (worth 0).
 */
export function rewardEditor(ctx, parts, opts = {}) {
  const box = h("div", { class: "cf-reward", "data-path": pathText(parts) });
  const obj = () => getAt(ctx.raw, parts);
  for (const [key, text] of REWARD_KEYS) {
    const value = obj()[key];
    box.append(label(text, numberInput(ctx, [...parts, key], typeof value === "number" ? value : value ?? "", {
      placeholder: "0", aria: `${pathText(parts)} ${text}`,
      onValue: (n) => {
        if (n === null) delete obj()[key];
        else obj()[key] = n;
        ctx.changed();
      },
    })));
  }
  const track = obj().track;
  if (opts.integerTrack || typeof track === "number") {
    box.append(label("track steps", numberInput(ctx, [...parts, "track"], track ?? "", {
      placeholder: "0", aria: `${pathText(parts)} track steps`,
      onValue: (n) => {
        if (n === null) delete obj().track;
        else obj().track = n;
        ctx.changed();
      },
    })));
  } else {
    let company = track && typeof track === "object" ? track.company : (ctx.cat?.companies?.[0]?.id ?? "MOM");
    const steps = track && typeof track === "object" ? track.steps : "";
    const stepsIn = numberInput(ctx, [...parts, "track", "steps"], steps, {
      placeholder: "0", aria: `${pathText(parts)} track steps`,
      onValue: (n) => {
        if (n === null) delete obj().track;
        else obj().track = { company, steps: n };
        ctx.changed();
      },
    });
    const companyIn = selectInput(ctx, [...parts, "track", "company"], company, companyOptions(ctx, false), (v) => {
      company = v;
      if (obj().track && typeof obj().track === "object") {
        obj().track.company = v;
        ctx.changed();
      }
    });
    box.append(label("track steps", h("span", { class: "cf-pair" }, stepsIn, companyIn)));
  }
  return box;
}

/** A value that is null or an object (a track space's special / bonus): a tick and its form. */
function optionalObject(ctx, parts, template, build) {
  const key = parts[parts.length - 1];
  const box = h("div", { class: "cf-optional", "data-path": pathText(parts) });
  const tick = h("input", { type: "checkbox", "aria-label": `${pathText(parts)} (has one)` });
  const inner = h("div", { class: "cf-inner" });
  const sync = () => {
    const v = getAt(ctx.raw, parts);
    tick.checked = v !== null && v !== undefined;
    inner.replaceChildren(tick.checked && typeof v === "object" ? build() : "");
  };
  tick.addEventListener("change", () => {
    write(ctx, parts, tick.checked ? structuredClone(template) : null);
    sync();
  });
  box.append(h("label", { class: "cf-tick" }, tick, prettyKey(key)), inner);
  sync();
  return box;
}

/** A track space's one-off special: {kind, amount} or null. */
export function specialEditor(ctx, parts) {
  return optionalObject(ctx, parts, { kind: "pounds", amount: 1 }, () => {
    const v = getAt(ctx.raw, parts);
    return h("span", { class: "cf-pair" },
      selectInput(ctx, [...parts, "kind"], v.kind, SPECIAL_KINDS.map((k) => [k, k.replace("_", " ")])),
      numberInput(ctx, [...parts, "amount"], v.amount, { aria: `${pathText(parts)} amount` }));
  });
}

/** A track space's bonus: a reward (a track bonus space) or null. */
export function bonusEditor(ctx, parts) {
  return optionalObject(ctx, parts, { pounds: 1 }, () => rewardEditor(ctx, parts));
}

// -- JSON text (the map's layout) ---------------------------------------------------------------
export function jsonInput(ctx, parts, value) {
  const path = pathText(parts);
  const area = h("textarea", { class: "cf-json", "data-path": path, rows: 2, spellcheck: "false", "aria-label": path });
  area.value = JSON.stringify(value);
  area.addEventListener("input", () => {
    let parsed;
    try {
      parsed = JSON.parse(area.value);
    } catch (err) {
      ctx.local.set(path, `not JSON: ${err.message}`);
      ctx.changed(true);
      return;
    }
    ctx.local.delete(path);
    write(ctx, parts, parsed);
  });
  return area;
}

// -- objects and lists -------------------------------------------------------------------------------
const isPlain = (v) => v === null || ["number", "string", "boolean"].includes(typeof v);

/** The form of any value: a plain value, a reward, an object's keys, a list's items. */
export function formFor(ctx, parts, value) {
  const key = parts[parts.length - 1];
  if (isPlain(value)) return valueInput(ctx, parts, value);
  if (LAYOUT_KEYS.has(key)) return jsonInput(ctx, parts, value);
  if ((key === "reward" || key === "bonus") && !Array.isArray(value)) return rewardEditor(ctx, parts, { integerTrack: parts[0] === "regions" });
  if (Array.isArray(value)) return listEditor(ctx, parts);
  return objectForm(ctx, parts, value);
}

export function objectForm(ctx, parts, value, skip = new Set()) {
  const box = h("div", { class: "cf-obj", "data-path": pathText(parts) });
  for (const [key, v] of Object.entries(value)) {
    if (key.startsWith(COMMENT) || skip.has(key)) continue;
    const sub = [...parts, key];
    if (isPlain(v)) box.append(label(prettyKey(key), formFor(ctx, sub, v)));
    else if (LAYOUT_KEYS.has(key)) box.append(label(prettyKey(key), formFor(ctx, sub, v), "cf-wide"));
    else box.append(h("fieldset", { class: "cf-group" }, h("legend", {}, prettyKey(key)), formFor(ctx, sub, v)));
  }
  return box;
}

/** A list: its items (inline when plain or pairs), "+" copies the last one, "−" drops it. */
export function listEditor(ctx, parts) {
  const box = h("div", { class: "cf-list", "data-path": pathText(parts) });
  const build = () => {
    const list = getAt(ctx.raw, parts);
    const flat = list.every(isPlain);
    const rows = list.every((x) => Array.isArray(x) && x.every(isPlain));
    const items = list.map((v, i) => {
      const sub = [...parts, i];
      if (flat) return formFor(ctx, sub, v);
      if (rows) return h("div", { class: "cf-row", "data-path": pathText(sub) }, ...v.map((x, j) => tupleInput(ctx, [...sub, j], x)));
      return h("fieldset", { class: "cf-group" }, h("legend", {}, prettyKey(i)), formFor(ctx, sub, v));
    });
    const add = h("button", { type: "button", class: "cf-add", title: "Add one (a copy of the last)", "aria-label": `add to ${pathText(parts)}` }, "+");
    const drop = h("button", { type: "button", class: "cf-drop", title: "Remove the last one", "aria-label": `remove the last of ${pathText(parts)}`, disabled: !list.length }, "−");
    add.addEventListener("click", () => {
      list.push(list.length ? structuredClone(list[list.length - 1]) : 0);
      ctx.changed();
      build();
    });
    drop.addEventListener("click", () => {
      list.pop();
      ctx.changed();
      build();
    });
    box.classList.toggle("cf-inline", flat);
    box.replaceChildren(...items, h("span", { class: "cf-buttons" }, add, drop));
  };
  build();
  return box;
}

/** An item of a [kind, amount] / [region, cost] pair: measures as a chooser. */
function tupleInput(ctx, parts, value) {
  if (typeof value === "string" && MEASURES.includes(value)) return selectInput(ctx, parts, value, MEASURES.map((m) => [m, m]));
  return valueInput(ctx, parts, value);
}

// -- errors -----------------------------------------------------------------------------------
/** The element that shows `path`: its own input, else the nearest enclosing one. */
export function fieldFor(root, path) {
  for (let p = path; p; p = parentPath(p)) {
    const el = root.querySelector(`[data-path="${CSS.escape(p)}"]`);
    if (el) return el;
  }
  return null;
}

export function clearErrors(root) {
  for (const n of root.querySelectorAll(".cat-error")) n.remove();
  for (const n of root.querySelectorAll("[aria-invalid]")) {
    n.removeAttribute("aria-invalid");
    n.classList.remove("invalid");
  }
}

/** Show `message` next to the field of `path`; the element shown, or null when not drawn. */
export function placeError(root, path, message) {
  const el = fieldFor(root, path);
  if (!el) return null;
  const where = el.dataset.path;
  el.setAttribute("aria-invalid", "true");
  el.classList.add("invalid");
  const note = h("div", { class: "cat-error", role: "alert", "data-error-for": where, "data-fault": path },
    where === path ? message : `${path}: ${message}`);
  const anchor = el.closest("label.cf") || el;
  anchor.after(note);
  return note;
}
