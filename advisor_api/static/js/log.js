// The game log: the history grouped into moves (chance, hidden plans), in plain words
// (story.js; the notation in each entry's title), a separator at the start of every
// round; a list that grows with new moves (animated one after the other) and updates
// revealed ones.

import { contextOf, groupHistory, groupNotation, groupWords, stepWords } from "./story.js";
import { h, PLAYER_FILL } from "./svg.js";
import { app } from "./state.js";
import { $ } from "./ui.js";

function groupSig(grp) {
  return `${grp.player}|${grp.source}|${grp.round}|${grp.steps.map((t) => t || "?").join(";")}`;
}

function logItem(grp, index, animate) {
  const pi = grp.player.startsWith("P") ? Number(grp.player.slice(1)) - 1 : -1;
  const src = grp.source === "human" ? (pi + 1 === app.homeSeat ? "you" : "human")
    : { ai: "AI", chance: "dealt", report: "table" }[grp.source] || grp.source;
  const shown = grp.steps.map((t, k) => (t ? stepWords(t, null, contextOf(grp, k)) : null)).filter(Boolean);
  const detail = grp.player === "chance" && shown.length > 1 ? `\n${shown.join("\n")}` : "";
  return h("li", {
    class: `${grp.player === "chance" ? "chance" : ""}${animate ? " new" : ""}`,
    "data-group": index, "data-sig": groupSig(grp), "data-source": grp.source, "data-round": grp.round,
    "data-steps": `${grp.first}-${grp.last}`, // the history entries it tells
    title: `${groupNotation(grp)}${detail}`,
  },
  h("span", { class: "who", style: pi >= 0 ? `color:${PLAYER_FILL[pi]}` : "" }, pi >= 0 ? grp.player : ""),
  h("span", { class: "txt" }, groupWords(grp)),
  h("span", { class: "src" }, src));
}

function separator(round) {
  return h("li", { class: "round-sep", "data-round-sep": round }, round ? `Round ${round}` : "Setup");
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
  const shown = [...list.querySelectorAll("li[data-group]")];
  // groups already shown may have grown, or been revealed (hidden plans) since
  shown.forEach((li, i) => {
    if (li.dataset.sig !== groupSig(groups[i])) li.replaceWith(logItem(groups[i], i, false));
  });
  let round = shown.length ? groups[shown.length - 1].round : null;
  groups.slice(shown.length).forEach((grp, k) => {
    if (grp.round !== round) list.append(separator(grp.round));
    round = grp.round;
    const li = logItem(grp, shown.length + k, animate);
    // new moves (the AI's) appear one after the other
    if (animate) {
      li.style.animationDelay = `${Math.min(k, 12) * 0.3}s`;
      // once: a pane shown again (a narrow screen's Decide) would replay it
      li.addEventListener("animationend", () => { li.classList.remove("new"); li.style.animationDelay = ""; }, { once: true });
    }
    list.append(li);
  });
  app.logShown = groups.length;
  list.scrollTop = list.scrollHeight;
}
