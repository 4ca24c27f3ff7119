// The page's shared state: the catalogue, the game open and the seat shown, its last
// view and click context, and the bookkeeping of polling, the suggestion search and
// the log. One object, read and updated by every module of the page.

export const app = {
  cat: null,
  id: null,
  tokens: {}, // seat -> token of the game open (none: a spectator)
  homeSeat: 1, // the seat of the person at the screen (null: a spectator)
  viewSeat: 1, // the seat whose view is shown (the deciding one in live / hot-seat games)
  view: null,
  ctx: null,
  selected: null, // planning: the hand card picked, waiting for a slot
  chance: null, // live mode: {id, picks: Map space key -> component} entered ahead of the deal (chance.js)
  busy: false,
  pollTimer: null,
  polling: false,
  analysis: null, // AbortController of the running suggestion search
  linesKey: null,
  logShown: 0,
  logSteps: 0,
  logKey: null,
};
