// The game log: the history grouped into moves (chance, hidden plans), shown as a list
// that grows with new moves (animated one after the other) and updates revealed ones.

import * as S from "./steps.js";
import { h, PLAYER_FILL } from "./svg.js";
import { app } from "./state.js";
import { $ } from "./ui.js";

const STARTERS = new Set(["goods", "expand", "keeper", "merchant", "first", "buy-card", "remove-card", "majority", "reserve", "track-bonus", "end", "rest", "tile"]);

function groupHistory(history) {
  const groups = [];
  for (const e of history) {
    const last = groups[groups.length - 1];
    const kind = e.step ? S.parse(e.step).kind : null;
    const lastKind = last ? last.kinds[last.kinds.length - 1] : null;
    let join = last && last.player === e.player && last.source === e.source;
    if (join && e.player !== "chance") {
      if (kind === null) join = lastKind === null;
      else if (kind === "plan" || kind === "ready") join = lastKind === "plan" || lastKind === null;
      else if (STARTERS.has(kind)) join = false;
      else join = lastKind !== "ready" && lastKind !== "end" && lastKind !== null;
    }
    if (join) {
      last.steps.push(e.step);
      last.kinds.push(kind);
      last.last = e.index;
    } else {
      groups.push({ player: e.player, source: e.source, steps: [e.step], kinds: [kind], first: e.index, last: e.index });
    }
  }
  return groups;
}

function groupText(grp) {
  if (grp.player === "chance") {
    const shown = grp.steps.filter(Boolean).map((t) => {
      const p = S.parse(t);
      if (p.kind === "deal-card") return `${p.args[0]}→${p.args[1]}`;
      if (p.kind === "deal-book") return `${p.args[0]}→${p.args[1]}`;
      return t.replace(/^deal-/, "");
    });
    const hidden = grp.steps.length - shown.length;
    return `Dealt ${shown.join(", ")}${hidden ? ` (+${hidden} hidden)` : ""}`;
  }
  if (grp.steps.every((t) => t === null)) {
    return grp.kinds.length && grp.steps.length > 1 ? `planned ${grp.steps.length} cards face down (shown at the reveal)` : "a face-down choice (shown at the reveal)";
  }
  return grp.steps.map((t) => t || "(hidden)").join("; ");
}

function groupSig(grp) {
  return `${grp.player}|${grp.source}|${grp.steps.map((t) => t || "?").join(";")}`;
}

function logItem(grp, index, animate) {
  const pi = grp.player.startsWith("P") ? Number(grp.player.slice(1)) - 1 : -1;
  const src = grp.source === "human" ? (pi + 1 === app.homeSeat ? "you" : "human")
    : { ai: "AI", chance: "dealt", report: "table" }[grp.source] || grp.source;
  return h("li", {
    class: `${grp.player === "chance" ? "chance" : ""}${animate ? " new" : ""}`,
    "data-group": index, "data-sig": groupSig(grp), "data-source": grp.source,
    title: grp.steps.filter(Boolean).map((t) => S.describe(app.cat, null, t)).join("\n"),
  },
  h("span", { class: "who", style: pi >= 0 ? `color:${PLAYER_FILL[pi]}` : "" }, pi >= 0 ? grp.player : ""),
  h("span", { class: "txt" }, groupText(grp)),
  h("span", { class: "src" }, src));
}

export function renderLog(v) {
  const list = $("#log");
  const groups = groupHistory(v.history);
  if (app.logKey !== v.id || v.history.length < app.logSteps || groups.length < app.logShown) {
    list.replaceChildren();
    app.logShown = 0;
    app.logKey = v.id;
  }
  app.logSteps = v.history.length;
  const animate = app.logShown > 0;
  const shown = [...list.children];
  // groups already shown may have grown, or been revealed (hidden plans) since
  shown.forEach((li, i) => {
    if (li.dataset.sig !== groupSig(groups[i])) li.replaceWith(logItem(groups[i], i, false));
  });
  groups.slice(shown.length).forEach((grp, k) => {
    const li = logItem(grp, shown.length + k, animate);
    // new moves (the AI's) appear one after the other
    if (animate) li.style.animationDelay = `${Math.min(k, 12) * 0.3}s`;
    list.append(li);
  });
  app.logShown = groups.length;
  list.scrollTop = list.scrollHeight;
}
