// Steps in notation (docs/notation.md): what they mean in words, which thing on the
// table each one is played by clicking, and which (possibly illegal) step a click on a
// thing stands for when no legal step fits it (so the service can say why not).

const cap = (w) => (w ? w[0].toUpperCase() + w.slice(1) : w);

export function parse(text) {
  const [kind, ...args] = text.trim().split(/\s+/);
  return { kind, args, text };
}

export function companyName(cat, id) {
  const c = cat.companies.find((x) => x.id === id);
  return c ? c.name : id;
}

export function regionName(cat, id) {
  const r = cat.regions.find((x) => x.id === id);
  return r ? r.name : id;
}

/** "Coffee 2", "Expansion 3", "Cairo merchant", "Mombasa share" ... */
export function cardKind(cat, name) {
  const c = cat.cards[name];
  if (!c) return name;
  switch (c.kind) {
    case "goods": return `${cap(c.good)} ${c.value}`;
    case "expansion": return `Expansion ${c.value}`;
    case "bookkeeper": return `Bookkeeper ${c.value}`;
    case "merchant": return c.company ? `${companyName(cat, c.company)} merchant` : "Diamond merchant";
    case "share": return `${companyName(cat, c.share)} share`;
    case "plus1_goods": return "+1 goods tile";
    default: return cap(c.kind);
  }
}

export function cardLabel(cat, name) {
  if (!name || name === "hidden") return "a hidden card";
  return `${cardKind(cat, name)} (${name})`;
}

export function displayPrice(cat, st, space) {
  return cardPrice(cat, st ? st.display[space] : null, space);
}

/** The price of ``card`` in display space ``space``, as the service's catalogue states it
 * (each space's ``prices``, from the engine's one definition); null when unknown. */
export function cardPrice(cat, card, space) {
  const sp = card ? cat.display.spaces.find((x) => x.name === space) : null;
  const price = sp && sp.prices ? sp.prices[card] : undefined;
  return price === undefined ? null : price;
}

/** What the step's words need of the position it was taken in: the history entry's
 * ``context`` (the service's facts of the board before it) when given, else the state
 * ``st`` (the position now, for a step about to be taken), else nothing. */
function before(cat, st, kind, a, context) {
  const c = context && typeof context === "object" ? context : null;
  if (kind === "buy" || kind === "buy-card") {
    const card = c ? c.card : st && st.display ? st.display[a] : null;
    return { card: card && cat.cards[card] ? card : null };
  }
  if (kind === "take") {
    const book = c ? c.book : st && st.book_display ? st.book_display[a] : null;
    return { book: book && cat.books[book] ? book : null };
  }
  if (kind === "enter" || kind === "return") {
    const company = c ? c.company : st ? workCompany(cat, st) : null;
    return { company: company && cat.companies.some((x) => x.id === company) ? company : null };
  }
  return {};
}

export function bookLabel(cat, name) {
  const b = cat.books[name];
  if (!b) return name;
  const needs = b.needs.map(([m, n]) => `${n} ${m}`).join(" + ");
  return `book ${name} (needs ${needs || "nothing"})`;
}

function bonusSpace(cat, id) {
  return cat.bonus_spaces.find((b) => b.id === id);
}

/** The step in words (for buttons, the log and the suggestions): read against the
 * history entry's ``context`` when given (a step taken earlier), else the state ``st``. */
export function describe(cat, st, text, context = null) {
  const { kind, args } = parse(text);
  const [a, b, c] = args;
  const was = before(cat, st, kind, a, context);
  switch (kind) {
    case "plan": return `Plan ${cardLabel(cat, a)} in slot ${b}`;
    case "ready": return "Planning done";
    case "goods": {
      const cards = a.split("+");
      const total = cards.reduce((t, n) => t + (cat.cards[n] ? cat.cards[n].value : 0), 0);
      const good = cat.cards[cards[0]] ? cat.cards[cards[0]].good : "goods";
      return `Goods: ${cards.map((n) => cardLabel(cat, n)).join(" + ")} = ${total} ${good}`; // "Goods: Coffee 2 (cof2/1) = 2 coffee"
    }
    case "expand": return `Expand ${companyName(cat, a)}`;
    case "keeper": return `Use ${cardLabel(cat, a)}`; // "Use Bookkeeper 2 (A9)"
    case "merchant": return `Use ${cardLabel(cat, a)}`; // "Use Cairo merchant (B11)"
    case "plus1": return `Lay the +1 tile on ${cardLabel(cat, a)}`;
    case "end": return a === "-" ? "End the action phase (no resting deck left)" : `End the action phase, take resting deck ${a}`;
    case "first": return "Bonus: become first player";
    case "buy-card": {
      const card = was.card;
      const p = cardPrice(cat, card, a);
      return `Bonus: buy ${card ? cardLabel(cat, card) : "the card"} from ${a}${p !== null ? ` (£${p + (bonusSpace(cat, "buy")?.cost ?? 1)})` : ""}`;
    }
    case "remove-card": {
      const card = cat.cards[a];
      const bonus = cat.bonus_spaces.find((x) => x.kind === "remove_card");
      return `Bonus: remove ${cardLabel(cat, a)} from the game${card ? ` (+£${card.crate + (bonus ? bonus.bonus_pounds : 2)})` : ""}`;
    }
    case "majority": return `Bonus: ${a} majority, line ${b}+`;
    case "reserve": {
      const sp = bonusSpace(cat, a);
      const tile = (sp && sp.tile ? cardKind(cat, sp.tile) : a).replace(/ tile$/i, "");
      return `Bonus: reserve the ${tile} tile${sp ? ` (£${sp.cost})` : ""}`;
    }
    case "track-bonus": {
      const sp = bonusSpace(cat, a);
      return `Bonus: track bonus space ${a}${sp ? ` on track ${sp.track}` : ""}`;
    }
    case "buy": {
      const card = was.card;
      const p = cardPrice(cat, card, a);
      return `Buy ${card ? cardLabel(cat, card) : "the card"} from ${a}${p !== null ? ` for £${p}` : ""}`;
    }
    case "nobuy": return "Buy no card";
    case "reward-order": return a === "track"
      ? "Track steps first (stop before the capital call, keep the pounds)"
      : "Pounds first (they pay the capital call on the track)";
    case "unit": return `1 unit on the ${companyName(cat, a)} track`;
    case "enter": return `Enter ${regionName(cat, a)} (${a}) with a ${was.company ? `${companyName(cat, was.company)} ` : ""}post from column ${b}`;
    case "stop": return "Stop expanding (forfeit the points left)";
    case "return": return `The ousted ${was.company ? `${companyName(cat, was.company)} ` : ""}post goes back to column ${a}`;
    case "remove-post": return `Remove a ${companyName(cat, a)} trading post (column ${b})`;
    case "flip": return `Flip the book on bookkeeping space ${a} (£2)`;
    case "noflip": return "Flip no book";
    case "ink": return "Move the ink jar one book on";
    case "halt": return "Stop the ink jar here";
    case "take": {
      const book = was.book;
      return `Take ${book ? bookLabel(cat, book) : "the book"} from ${a}`;
    }
    case "pounds": return "The remaining points as pounds";
    case "place": return `Place ${bookLabel(cat, a)} on bookkeeping space ${b}`;
    case "tile": {
      const t = cat.starting_tiles.find((x) => String(x.id) === a);
      return t ? `Keep starting tile ${a}: ${t.cards.join(", ")}` : `Keep starting tile ${a}`;
    }
    case "rest": return `Resting decks: ${args.map((n, i) => `${i + 2}: ${cardKind(cat, n)}`).join(", ")}`;
    case "deal-card": return `${cardLabel(cat, a)} revealed in ${b}`;
    case "deal-book": return `${bookLabel(cat, a)} revealed in ${b}`;
    case "deal-track": return `Track ${b} placed at ${companyName(cat, a)}`;
    case "deal-tile": return `Starting tile ${b} dealt to ${a}`;
    default: return text + (c ? "" : "");
  }
}

/** The company of the current expansion / ousting (the decision due, state format 2). */
export function workCompany(cat, st) {
  const due = st.pending && st.pending[0];
  if (!due) return null;
  if (due.decision === "expansion" || due.decision === "oust-return") return due.company ?? null;
  return null;
}

/** The things on the table a step is played with (see board.js for the names); a
 * step of the history: with its ``context`` (the position it was taken in). */
export function targets(cat, st, text, seat, context = null) {
  const { kind, args } = parse(text);
  const [a, b] = args;
  switch (kind) {
    case "plan": return [`hand:${seat}:${a}`, `slot:${seat}:${b}`];
    case "goods": return a.split("+").map((n) => `card:${seat}:${n}`);
    case "expand": return [`company:${a}`, `base:${a}`];
    case "keeper": case "merchant": case "plus1": return [`card:${seat}:${a}`];
    case "end": return a === "-" ? [] : [`deck:${seat}:${a}`];
    case "first": return ["bonus:first"];
    case "buy-card": return [`display:${a}`];
    case "remove-card": return [`hand:${seat}:${a}`];
    case "majority": return [`bonus:${a}`, `line:${a}:${b}`];
    case "reserve": return [`bonus:${a}`];
    case "track-bonus": return [`bonus:${a}`];
    case "buy": return [`display:${a}`];
    case "unit": return [`company:${a}`, `base:${a}`];
    case "enter": return [`region:${a}`];
    case "return": { const c = before(cat, st, kind, a, context).company; return c ? [`col:${c}:${a}`] : []; }
    case "remove-post": return [`col:${a}:${b}`];
    case "flip": return [`bk:${seat}:${a}`];
    case "take": return [`bookspace:${a}`];
    case "place": return [`bk:${seat}:${b}`];
    case "deal-card": return [`display:${b}`];
    case "deal-book": return [`bookspace:${b}`];
    case "deal-track": return [`company:${a}`, `base:${a}`];
    default: return [];
  }
}

/** Steps without a thing on the table: shown as buttons in the decision panel. */
export const BUTTON_KINDS = new Set(["ready", "nobuy", "stop", "reward-order", "noflip", "ink", "halt", "pounds", "tile", "rest", "deal-tile"]);

/**
 * The step a click on `target` stands for when no legal step fits it, so that the
 * service explains why it is not legal (409); null when the click means nothing here.
 */
export function naturalStep(cat, st, decisionKind, target, seat, selected, legal) {
  const [what, ...rest] = target.split(":");
  const mine = (s) => String(s) === String(seat);
  switch (decisionKind) {
    case "plan":
      if (what === "slot" && mine(rest[0]) && selected) return `plan ${selected} ${rest[1]}`;
      if (what === "hand" && mine(rest[0])) return null; // selects the card
      return null;
    case "action":
      if (what === "bonus") {
        const sp = bonusSpace(cat, rest.join(":"));
        if (!sp) return null;
        if (sp.kind === "first_player") return "first";
        if (sp.kind === "majority") return `majority ${sp.id} ${sp.lines[0].min}`;
        if (sp.kind === "bonus_tile") return `reserve ${sp.id}`;
        if (sp.kind === "track") return `track-bonus ${sp.id}`;
        return null;
      }
      if (what === "line") return `majority ${rest[0]} ${rest[1]}`;
      if (what === "display") return `buy-card ${rest[0]}`;
      if (what === "deck" && mine(rest[0])) return `end ${rest[1]}`;
      if (what === "hand" && mine(rest[0])) return `remove-card ${rest[1]}`;
      if ((what === "company" || what === "base")) return `expand ${rest[0]}`;
      if (what === "card" && mine(rest[0])) {
        const card = cat.cards[rest[1]];
        if (!card) return null;
        if (card.kind === "goods") return `goods ${rest[1]}`;
        if (card.kind === "bookkeeper") return `keeper ${rest[1]}`;
        if (card.kind === "merchant") return `merchant ${rest[1]}`;
        return null;
      }
      return null;
    case "goods-buy":
      return what === "display" ? `buy ${rest[0]}` : null;
    case "goods-track":
      return what === "company" || what === "base" ? `unit ${rest[0]}` : null;
    case "expansion": {
      if (what !== "region") return null;
      const company = workCompany(cat, st);
      const cols = company ? st.bases[company] : [];
      const k = cols.findIndex((col) => col[0] > 0);
      return `enter ${rest[0]} ${k >= 0 ? k + 1 : 1}`;
    }
    case "oust-return":
      return what === "col" ? `return ${rest[1]}` : null;
    case "remove-post":
      return what === "col" ? `remove-post ${rest[0]} ${rest[1]}` : null;
    case "bookkeeper-flip":
      return what === "bk" && mine(rest[0]) ? `flip ${rest[1]}` : null;
    case "bookkeeping-points":
      return what === "bookspace" ? `take ${rest[0]}` : null;
    case "place-book": {
      if (what !== "bk" || !mine(rest[0])) return null;
      const any = legal.find((t) => t.startsWith("place "));
      const book = any ? parse(any).args[0] : (st.turn_books || [])[0];
      return book ? `place ${book} ${rest[1]}` : null;
    }
    default:
      return null;
  }
}

/** What to click, in words, for each decision. */
export function help(kind, live) {
  const h = {
    "starting-tile": "Choose the starting tile to keep.",
    "resting-cards": "Choose how the starting tile's three cards go into resting decks 2, 3 and 4.",
    plan: "Click a card in your hand, then a free action slot (cards go in left to right). Click “Planning done” when your plan is complete.",
    action: "Use a face-up card in your action area (goods, bookkeeper, merchant), a company to expand, a bonus space, or a resting deck to end your action phase.",
    "goods-buy": "Click a card in the display to buy it (the price is shown under it), or buy nothing.",
    "goods-track": "Click a company (its track or its base) for each unit.",
    expansion: "Click a highlighted region to enter it (its dark tag: the cost in expansion points).",
    "oust-return": "Click a base column for the ousted trading post to go back to.",
    "remove-post": "Click a base column: its foremost trading post leaves the game.",
    "bookkeeper-flip": "Click a face-up book ahead of your ink jar to flip it, or flip nothing.",
    "ink-jar": "Move the ink jar one book on, or stop it here.",
    "bookkeeping-points": "Click books in the book display to take them (left to right), then take the rest as pounds.",
    "place-book": "Click a space of your bookkeeping track for the book.",
    chance: live ? "Report what was revealed at the table: click any display or book space still to be dealt, in any order, and pick what lies there." : "Dealing…",
  };
  return h[kind] || "";
}
