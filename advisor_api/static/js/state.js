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
  ownStep: false, // the view next rendered answers a step (or undo) of this page's own
  sends: 0, // the page's own sends so far: a view fetched across one of them is stale
  pollTimer: null,
  polling: false,
  live: false, // the game's event stream is open (live.js): no polling
  gameDeleted: false,
  bannerDismissed: null, // story.js: the banner of the others' moves, dismissed
  summaryDismissed: null,
  roundScores: {}, // round -> money by category when this page first saw the round
  seenRound: 0,
  sawOver: false,
  storyGame: null,
  lastEvent: null, // the last event of the stream (with its arrival time, performance.now())
  analysis: null, // AbortController of the running suggestion search
  linesKey: null,
  logShown: 0,
  logSteps: 0,
  logKey: null,
};
