// Clicks on the table: the click targets under the pointer turned into a legal step
// (planning a hand card into a slot, the natural step when none fits, so the service
// can say why not), and the chooser when several steps fit one click (base columns,
// revealed cards and books in live mode, goods, companies).

import { baseValue } from "./board.js";
import * as S from "./steps.js";
import { h } from "./svg.js";
import { submit } from "./actions.js";
import { chanceClick } from "./chance.js";
import { render } from "./render.js";
import { app } from "./state.js";
import { $, message, seatName } from "./ui.js";

function targetChain(node) {
  const chain = [];
  let el = node.closest ? node.closest("[data-target]") : null;
  while (el) {
    chain.push(el.getAttribute("data-target"));
    el = el.parentElement ? el.parentElement.closest("[data-target]") : null;
  }
  return chain;
}

export function onTableClick(ev) {
  const chain = targetChain(ev.target);
  if (!chain.length) return;
  const ctx = app.ctx;
  const v = app.view;
  if (!v || !ctx || app.busy) return;
  if (v.over) return;
  if (!ctx.mine) {
    message("info", v.decision.kind === "chance" ? "Wait: the cards and books are being dealt." : `Wait for ${seatName(v, v.decision.seat)}: it is not your decision.`);
    return;
  }
  if (chanceClick(ev, chain)) return; // live mode: any space still to be dealt, in any order
  const seat = ctx.seat;
  if (ctx.kind === "plan") {
    const hand = chain.find((k) => k.startsWith(`hand:${seat}:`));
    if (hand) {
      const cardName = hand.split(":")[2];
      if (!(ctx.targetMap.get(hand) || []).length) {
        submit(`plan ${cardName} ${firstFreeSlot(ctx)}`);
        return;
      }
      app.selected = app.selected === cardName ? null : cardName;
      message(null);
      render(v);
      return;
    }
    const slot = chain.find((k) => k.startsWith(`slot:${seat}:`));
    if (slot) {
      if (!app.selected) {
        message("info", "Pick a card from your hand first, then click the slot for it.");
        return;
      }
      submit(`plan ${app.selected} ${slot.split(":")[2]}`);
      return;
    }
  }
  for (const key of chain) {
    const steps = ctx.targetMap.get(key) || [];
    if (steps.length === 1) {
      submit(steps[0]);
      return;
    }
    if (steps.length > 1) {
      openChooser(ev, key, steps);
      return;
    }
  }
  for (const key of chain) {
    const natural = S.naturalStep(app.cat, ctx.st, ctx.kind, key, seat, app.selected, ctx.legal);
    if (natural) {
      submit(natural);
      return;
    }
  }
  message("info", `Nothing to do there now. ${S.help(ctx.kind, v.mode === "live")}`);
}

function firstFreeSlot(ctx) {
  const p = ctx.st.player_states[ctx.seat - 1];
  const k = p.slots.findIndex((c, i) => !c && i > 0);
  return k >= 0 ? k + 1 : 2;
}

// -- the chooser (several steps for one click) ---------------------------------------------------------
function chooserLabel(ctx, t) {
  const p = S.parse(t);
  if (p.kind === "enter") {
    const company = S.workCompany(app.cat, ctx.st);
    const cols = ctx.st.bases[company].map((c) => [...c]);
    const before = baseValue(app.cat, cols);
    const k = Number(p.args[1]) - 1;
    const [n, dead] = cols[k];
    cols[k] = [n - 1, dead || n === 1];
    const after = baseValue(app.cat, cols);
    return `Post from column ${k + 1} (share value ${before} → ${after}), cost ${ctx.costs[p.args[0]] ?? "?"}`;
  }
  return S.describe(app.cat, ctx.st, t);
}

function openChooser(ev, key, steps) {
  const box = $("#chooser");
  const ctx = app.ctx;
  const first = S.parse(steps[0]);
  const heading = key.startsWith("region:") ? `Enter ${S.regionName(app.cat, key.split(":")[1])}: which base column?`
    : first.kind === "deal-card" ? `Which card was revealed in ${first.args[1]}?`
      : first.kind === "deal-book" ? `Which book was revealed in ${first.args[1]}?`
        : first.kind === "goods" ? "Which goods cards?"
          : first.kind === "expand" ? "Expand which company?"
            : "Choose";
  box.replaceChildren(h("h3", {}, heading),
    ...steps.map((t) => h("button", { type: "button", "data-step": t, title: t, onclick: () => { closeChooser(); submit(t); } }, chooserLabel(ctx, t))),
    h("button", { type: "button", class: "muted", onclick: closeChooser }, "Cancel"));
  box.hidden = false;
  const w = box.offsetWidth;
  const hgt = box.offsetHeight;
  box.style.left = `${Math.max(8, Math.min(ev.clientX + 8, window.innerWidth - w - 8))}px`;
  box.style.top = `${Math.max(8, Math.min(ev.clientY + 8, window.innerHeight - hgt - 8))}px`;
}

export function closeChooser() {
  $("#chooser").hidden = true;
}
