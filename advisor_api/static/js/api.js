// The advisor service's HTTP API (docs/api.md), as the page uses it.

export class ApiError extends Error {
  constructor(status, body) {
    super(body && body.message ? body.message : `HTTP ${status}`);
    this.status = status;
    this.body = body || {};
  }
}

// Seat tokens of the game open (seat -> token): a seat's view and actions send its token
// (Authorization: Bearer); in live mode any of them acts for every seat. None: the
// spectator's view only.
let tokens = {};

export function useTokens(map) {
  tokens = { ...(map || {}) };
}

function auth(seat) {
  const token = tokens[seat] || Object.values(tokens)[0];
  return token ? { authorization: `Bearer ${token}` } : {};
}

async function call(method, path, body, signal, headers = {}) {
  const init = { method, headers: { ...headers }, signal };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  let data = null;
  const type = res.headers.get("content-type") || "";
  if (type.includes("application/json")) data = await res.json();
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

export const api = {
  catalogue: () => call("GET", "/v1/catalogue"),
  create: (body) => call("POST", "/v1/games", body),
  // seat null: the spectator's view (no token)
  view: (id, seat, wait = 0, signal) => call("GET", `/v1/games/${encodeURIComponent(id)}?${seat ? `seat=${seat}&` : ""}wait=${wait}`, undefined, signal, seat ? auth(seat) : {}),
  step: (id, seat, step) => call("POST", `/v1/games/${encodeURIComponent(id)}/steps`, { seat, step }, undefined, auth(seat)),
  move: (id, seat, move) => call("POST", `/v1/games/${encodeURIComponent(id)}/moves`, { seat, move }, undefined, auth(seat)),
  // a suggested line: played up to the first new information (answers played, stop)
  playLine: (id, seat, steps) => call("POST", `/v1/games/${encodeURIComponent(id)}/moves`, { seat, move: steps, partial: true }, undefined, auth(seat)),
  chance: (id, seat, step) => call("POST", `/v1/games/${encodeURIComponent(id)}/chance`, { step, seat }, undefined, auth(seat)),
  undo: (id, seat) => call("POST", `/v1/games/${encodeURIComponent(id)}/undo`, { seat }, undefined, auth(seat)),
  score: (id) => call("GET", `/v1/games/${encodeURIComponent(id)}/score`),
  gameCatalogue: (id) => call("GET", `/v1/games/${encodeURIComponent(id)}/catalogue`),
  // a game's reviews (review.js), with the token of ``seat`` (the seat reviewed)
  startReview: (id, body, seat) => call("POST", `/v1/games/${encodeURIComponent(id)}/review`, body, undefined, auth(seat)),
  reviews: (id, seat) => call("GET", `/v1/games/${encodeURIComponent(id)}/review`, undefined, undefined, auth(seat)),
  reviewJob: (id, job, seat) => call("GET", `/v1/games/${encodeURIComponent(id)}/review/${encodeURIComponent(job)}`, undefined, undefined, auth(seat)),
  cancelReview: (id, job, seat) => call("DELETE", `/v1/games/${encodeURIComponent(id)}/review/${encodeURIComponent(job)}`, undefined, undefined, auth(seat)),
  reviewPosition: (id, job, index, seat) => call("GET", `/v1/games/${encodeURIComponent(id)}/review/${encodeURIComponent(job)}/positions/${index}`, undefined, undefined, auth(seat)),
  // component catalogues: the list, one file (export), check, save, delete
  catalogues: () => call("GET", "/v1/catalogues"),
  catalogueFile: (name) => call("GET", `/v1/catalogues/${encodeURIComponent(name)}`),
  checkCatalogue: (catalogue, signal) => call("POST", "/v1/catalogues/check", { catalogue, page: true }, signal),
  saveCatalogue: (name, catalogue, replace = false) => call("POST", "/v1/catalogues", { name, catalogue, replace }),
  deleteCatalogue: (name) => call("DELETE", `/v1/catalogues/${encodeURIComponent(name)}`),
};

/**
 * POST /v1/analyse/stream: calls onEvent(name, data) for every Server-Sent Event
 * (`lines` while searching, then `done` or `error`). Resolves when the stream ends.
 */
export async function analyseStream(body, onEvent, signal) {
  const res = await fetch("/v1/analyse/stream", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(body),
    signal,
  });
  await readEvents(res, onEvent);
}

/**
 * GET /v1/games/{id}/events: the game's changes (`change`, then `deleted` at the end),
 * for seat ``seat`` with its token (none: the spectator's). A fetch stream, not an
 * EventSource: EventSource cannot send the Authorization header, and a token in the
 * URL would end up in server logs and the browser's history. Resolves when the stream
 * ends (the server closed it, or ``signal`` aborted it).
 */
export async function gameEvents(id, seat, onEvent, signal) {
  const res = await fetch(`/v1/games/${encodeURIComponent(id)}/events${seat ? `?seat=${seat}` : ""}`, {
    headers: { accept: "text/event-stream", ...(seat ? auth(seat) : {}) },
    signal,
    cache: "no-store",
  });
  await readEvents(res, onEvent);
}

async function readEvents(res, onEvent) {
  if (!res.ok) {
    let data = null;
    try { data = await res.json(); } catch { /* not JSON */ }
    throw new ApiError(res.status, data);
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const chunk = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let name = "message";
      const data = [];
      for (const line of chunk.split("\n")) {
        if (line.startsWith(":")) continue;
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trim());
      }
      if (data.length) onEvent(name, JSON.parse(data.join("\n")));
    }
  }
}
